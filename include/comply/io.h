/* comply: output files (SPEC 9): bodies.csv, contacts.csv, summary.json, the VTK series
 * (vtk/NAME_STEP.vtu and scene.pvd), and checkpoints. docs/outputs.md describes every file.
 *
 * Numbers are written with %.17g so that they read back exactly. Every frame is flushed, so an
 * interrupted run leaves every file complete up to its last written step. */
#ifndef COMPLY_IO_H
#define COMPLY_IO_H

#include "comply/core.h"
#include "comply/data.h"
#include "comply/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmOutput cmOutput;

/* Create `dir` (and parents) if needed and open bodies.csv and contacts.csv with their headers
 * (replacing an earlier run's). An earlier run's VTK series in `dir` is removed, with or without
 * m->opt.vtk: scene.pvd and, in dir/vtk, every regular file named as comply names its frames
 * (NAME_STEP.vtu, NAME_volume_STEP.vtu, and their .tmp; NAME of [A-Za-z0-9._-], STEP decimal
 * digits); other files are left alone. With m->opt.vtk also create dir/vtk; every frame then
 * writes the VTK series as well. Errors name the path; a NULL or empty dir is CM_ERR_ARG. */
CM_API cmStatus cm_output_open(const cmModel* m, const char* dir, cmOutput** out, char* err,
                               size_t errsz);
/* Continue the outputs of an earlier run in `dir` (for a restart from a checkpoint): every row
 * of bodies.csv and contacts.csv with a step > last_step (and an incomplete last line) is cut
 * off and the files are reopened for appending; with m->opt.vtk, scene.pvd is rebuilt from the
 * frames kept (the steps left in bodies.csv) and the .vtu files of the frames cut off are
 * removed; in a folder without frames (no row of bodies.csv kept) an earlier run's VTK series
 * is removed as by cm_output_open. A missing bodies.csv or contacts.csv is created with its
 * header. Errors name the
 * path (and the line at fault): a file that is not a comply CSV (another first line, a row not
 * starting with a step) or whose steps go back is CM_ERR_PARSE; a bodies.csv that is not this
 * run's outputs is CM_ERR_ARG (a step with other than one row per body of m: another scene's
 * run; frames kept that do not end at the run's last frame at or before last_step: a shorter
 * run's folder); I/O is CM_ERR_IO. A NULL or empty dir, or a last_step below 0, is CM_ERR_ARG. */
CM_API cmStatus cm_output_resume(const cmModel* m, const char* dir, long last_step, cmOutput** out,
                                 char* err, size_t errsz);
/* append the current state (one row per body) and contacts (one row per body pair in contact);
 * with m->opt.vtk also write vtk/NAME_STEP.vtu for every mesh body and rewrite scene.pvd */
CM_API cmStatus cm_output_frame(cmOutput* out, const cmModel* m, const cmData* d);

/* Write one body's VTK XML UnstructuredGrid file at the current state to `path` (replaced
 * atomically through path.tmp): its mesh vertices in world coordinates, its triangles, and the
 * point data `pressure` (Pa) and `penetration` (m) of cm_data_vertex_pressure, as base64
 * binary (header_type UInt64, little-endian). A body index outside [0, m->nbody) or a body
 * without a mesh (a plane) is CM_ERR_ARG. */
CM_API cmStatus cm_vtk_write_body(const cmModel* m, const cmData* d, int body, const char* path,
                                  char* err, size_t errsz);

/* run facts for summary.json */
typedef struct cmRunInfo {
  double wall_time;    /* s */
  int interrupted;     /* 1 if stopped by a signal */
  int failed;          /* 1 if the simulation failed (non-finite state) */
  const char* message; /* failure diagnosis or NULL */
} cmRunInfo;
/* write summary.json atomically (temporary file + rename). Safe to call more than once. info may
 * be NULL: wall_time 0, interrupted and failed false, message null. */
CM_API cmStatus cm_output_summary(cmOutput* out, const cmModel* m, const cmData* d,
                                  const cmRunInfo* info);
/* close the files (does not write the summary) */
CM_API void cm_output_close(cmOutput* out);

/* ---- checkpoints ---- */

/* checkpoint format version written by this library */
#define CM_CHECKPOINT_VERSION 12

/* Write the state of d to `path` atomically: path.tmp is written, flushed, fsync'ed and renamed
 * over path, so path always holds a complete checkpoint. The file (format CM_CHECKPOINT_VERSION;
 * its byte layout in docs/outputs.md, "Checkpoints"): a versioned header (magic "CMCKPT", format
 * version, nbody, library version, a fingerprint of the model, the timestep, the file size, the
 * scene's fingerprint), the
 * lists of comply/fields.h (the CM_DATA_SCALARS and CM_DATA_TOTALS, then per body its
 * CM_DATA_STATE including body_dv, then per node of the deformable bodies its CM_DATA_NODES),
 * the friction anchors (what contacts keep from step to step: friction springs' stretches, edge
 * contacts' birth offsets), the contacts and pairs of the last step (d->contact, d->pair, for
 * the outputs of this step; format 12) and an FNV-1a 64 checksum of everything before it. Errors
 * name the path: CM_ERR_NOMEM, CM_ERR_IO. */
CM_API cmStatus cm_checkpoint_write(const cmModel* m, const cmData* d, const char* path, char* err,
                                    size_t errsz);
/* Read a checkpoint of model m into d (which must belong to m) and re-derive the frame-origin
 * values and bounding boxes; the contact list and pairs are those of the checkpoint's step
 * (growing d->contact and d->pair if needed). Stepping on from it gives bit for bit the states
 * of the run that wrote it. Errors name the file: CM_ERR_IO (cannot open or read),
 * CM_ERR_PARSE (not a checkpoint, truncated, unknown format version, checksum mismatch, a field
 * out of its range or not finite, named),
 * CM_ERR_ARG (written by another library version or for another model), CM_ERR_NOMEM. d is
 * unchanged on error (on CM_ERR_NOMEM its contact and pair buffers may have grown already, as in
 * cm_data_copy). */
CM_API cmStatus cm_checkpoint_read(const cmModel* m, cmData* d, const char* path, char* err,
                                   size_t errsz);
/* the fingerprint of a model stored in its checkpoints: FNV-1a 64 over nbody, ngeom, nvert,
 * nface, nnode and ntet (only with deformable bodies), the timestep, substeps, integrator,
 * gravity (3), solver_tolerance (only when not auto) and per body its motion, mass, centre of
 * mass (3) and its geometry's type and vertex and face counts (integers as u64, doubles as their
 * bit patterns). It does not cover the interactions (laws, ka, friction, ...), the joints,
 * max_speed, max_contacts, the output options or the mesh vertices' positions. */
CM_API uint64_t cm_model_fingerprint(const cmModel* m);
/* The fingerprint of everything else a step depends on, stored in checkpoints since format 11:
 * FNV-1a 64 over cm_model_fingerprint, the sizes of the model (not its notes), the options a
 * step reads (timestep, gravity, integrator, substeps, solver_tolerance), every number of the
 * model's arrays (comply/fields.h, CM_MODEL_ARRAYS: the bodies' initial states, forces, moments,
 * aliases and prescribed motions, the meshes and what the compiler derived from them, the pair
 * tables, the joints, the deformable bodies' materials and nodes), whether each rule has a user
 * law (cm_model_set_law: the function itself cannot be compared) and every number of each rule
 * (law, ka, damping, friction, contact_time, play, min_period, method, ...). Not covered: the
 * names, `steps` and `duration`, `output: every` and `vtk`, max_speed, max_contacts and
 * allow_initial_overlap, which do not change a step. `comply run --restart` refuses to continue a
 * run's folder with a scene of another fingerprint and warns when it starts a new folder from it
 * (docs/outputs.md, "Restart"). */
CM_API uint64_t cm_model_scene_fingerprint(const cmModel* m);

/* what a checkpoint file says of itself (cm_checkpoint_info) */
typedef struct cmCheckpointInfo {
  long step;                  /* the step its state is at */
  double time;                /* s */
  double timestep;            /* s */
  int nbody;                  /* bodies */
  uint64_t model_fingerprint; /* cm_model_fingerprint of the model that wrote it */
  uint64_t scene_fingerprint; /* cm_model_scene_fingerprint of it */
} cmCheckpointInfo;
/* Read the header of a checkpoint after the checks that need no model (a comply checkpoint of
 * format CM_CHECKPOINT_VERSION, its size, its checksum, the library version): the errors and
 * messages of cm_checkpoint_read for those. *info is unchanged on error. */
CM_API cmStatus cm_checkpoint_info(const char* path, cmCheckpointInfo* info, char* err,
                                   size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
