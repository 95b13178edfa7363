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
/* a mesh file: the reader of the format (cm_mesh_read_obj, _stl, _ply), then cm_mesh_check and,
 * for a valid mesh, cm_mesh_prepare and cm_mesh_mass_properties */
int cm_fuzz_obj(const uint8_t* data, size_t size);
int cm_fuzz_stl(const uint8_t* data, size_t size);
int cm_fuzz_ply(const uint8_t* data, size_t size);

#endif
