/* The entry points shared by the libFuzzer harnesses (fuzz_*.c) and the regression test
 * (tests/unit/test_fuzz_regress.c): each takes one input as raw bytes, runs it through a parser
 * and, when it parses, through what the library does next with it. Each returns 0; a violated
 * invariant (a failure without a message, a valid mesh with non-finite mass properties) aborts,
 * so that libFuzzer records the input. Not installed. */
#ifndef CM_FUZZ_TARGETS_H
#define CM_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

/* limits of what the scene target compiles after a successful parse (larger scenes are only
 * parsed: the compile is linear in the mesh sizes and would only slow the fuzzer down) */
#define CM_FUZZ_MAX_BODIES 16
#define CM_FUZZ_MAX_REFINE 4
#define CM_FUZZ_MAX_DIVISIONS 16

/* a YAML scene: cm_scene_parse, then for small scenes without mesh files cm_model_compile,
 * cm_data_new and one cm_collide (what `comply check` does) */
int cm_fuzz_scene(const uint8_t* data, size_t size);
/* a mesh file: the reader of the format (cm_mesh_read_obj, _stl, _ply, _vtp, _vtk), then
 * cm_mesh_check and, for a valid mesh, cm_mesh_prepare and cm_mesh_mass_properties */
int cm_fuzz_obj(const uint8_t* data, size_t size);
int cm_fuzz_stl(const uint8_t* data, size_t size);
int cm_fuzz_ply(const uint8_t* data, size_t size);
int cm_fuzz_vtp(const uint8_t* data, size_t size);
int cm_fuzz_vtk(const uint8_t* data, size_t size);
/* a tet mesh file (.msh, .vtu or legacy .vtk, told by its first character): the reader
 * (cm_tetmesh_read_msh, _vtu, _vtk), then cm_tetmesh_check and, for a valid mesh of at most
 * 20,000 tets, cm_tetmesh_surface */
int cm_fuzz_tetmesh(const uint8_t* data, size_t size);

/* The file-based targets write their input into a private folder (mkdtemp in $TMPDIR or /tmp,
 * removed at exit): the API they fuzz takes paths. Both use one small model (a plane, a box, a
 * sphere; CM_FUZZ_SCENE in fuzz_targets.c).
 *
 * A checkpoint: byte 0 is a mode, the rest the file. Mode bit 0 sets the header fields that must
 * match the model (format and library version, nbody, fingerprint, timestep, W, T), bit 1 the
 * size field, bit 2 the checksum, so that the fuzzer gets past each check to the ones behind it;
 * bit 3 first cuts or zero-pads the file to the size of the model's checkpoints (so that inputs
 * keep their reach when the layout grows).
 * Then cm_checkpoint_read into a new data: on error the data is unchanged and the message names
 * the file; a file it accepts is written back byte for byte by cm_checkpoint_write, and a step
 * from it either succeeds with a finite state or fails and keeps the read state. */
int cm_fuzz_checkpoint(const uint8_t* data, size_t size);
/* The restart path: byte 0 flags (bit 0 a model with the VTK series, bit 1 no bodies.csv, bit 2
 * no contacts.csv), bytes 1-8 last_step (i64, little-endian), bytes 9-10 the length of the
 * bodies.csv part (u16), then bodies.csv and contacts.csv. cm_output_resume on them: on success
 * each file is its header or a prefix of what was there, cut after whole rows of steps <=
 * last_step, and a frame appends to it; on error the message names the folder. */
int cm_fuzz_resume(const uint8_t* data, size_t size);
/* The command line: the input split at newlines into at most CM_FUZZ_MAX_ARGS arguments after
 * "comply", run by the command's own main (fuzz/fuzz_cli_main.c) in a private folder holding a
 * scene s.yaml, a mesh m.obj and a bad scene bad.yaml. `run` and arguments containing '/' are
 * skipped (no simulation, no file outside the folder). The exit status is 0, 1 or 2, and a
 * status 2 comes with a message "comply: ..." on stderr. (fuzz_targets_cli.c) */
#define CM_FUZZ_MAX_ARGS 24
int cm_fuzz_cli(const uint8_t* data, size_t size);

/* the private folder of the file-based targets (created at the first call, removed at exit) */
const char* cm_fuzz_dir(void);
/* abort, naming the line of fuzz_targets*.c, unless ok */
void cm_fuzz_require(int ok, const char* what, const char* file, int line);

#endif
