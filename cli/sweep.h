/* comply sweep: declarations shared by the sweep files of the command-line tool
 * (docs/sweeps.md).
 *
 *   sweep_file.c  the sweep file (libyaml): base scene, parameters, collect list; the variant
 *                 scene texts (the base scene's YAML document edited and emitted again)
 *   sweep_run.c   one variant: parse, compile, simulate, write its outputs and its result row
 *   sweep_mpi.c   the MPI driver (only when built with MPI; a stub otherwise)
 *   cmd_sweep.c   the command: options, the local process pool, restart, sweep.csv
 *
 * Uses the public API of comply and libyaml only. */
#ifndef COMPLY_CLI_SWEEP_H
#define COMPLY_CLI_SWEEP_H

#include <stddef.h>

/* a varied parameter: a path into the scene document and its values (YAML scalar texts) */
typedef struct SweepParam {
  char* path;    /* as written, e.g. "bodies[ball].position[2]" */
  int line, col; /* of the path in the sweep file */
  int nvalue;
  char** value; /* (nvalue) scalar texts, emitted as written (numbers of a range: shortest %g) */
  int* quoted;  /* (nvalue) 1 if the value was a quoted string in the sweep file */
} SweepParam;

/* quantities collected per variant */
typedef enum SweepQuantity {
  SQ_PENETRATION = 0, /* (body) deepest penetration of its pairs at the last step, m */
  SQ_MAX_PENETRATION, /* (body) deepest penetration of its pairs over the run, m */
  SQ_RESTITUTION,     /* (body) rebound speed / impact speed of its first impact */
  SQ_IMPACT_SPEED,    /* (body) speed along -gravity just before its first contact, m/s */
  SQ_REBOUND_SPEED,   /* (body) speed along gravity's up just after that contact ends, m/s */
  SQ_MAX_PRESSURE,    /* ([body]) largest pair pressure over the run, Pa */
  SQ_FINAL_POSITION,  /* (body) x y z of the body frame origin at the end, m */
  SQ_FINAL_POSE,      /* (body) x y z qw qx qy qz at the end */
  SQ_WALL_TIME,       /* s (not reproducible: sweep.csv then differs from run to run) */
  SQ_NEWTON,          /* Newton iterations over the run */
  SQ_STEPS,           /* steps taken */
  SQ_WARNINGS,        /* warnings counted (the run's and the initial overlaps) */
  SQ_COUNT
} SweepQuantity;

typedef struct SweepCollect {
  SweepQuantity q;
  char* body; /* NULL when the quantity takes none */
  char* name; /* as written: "penetration(box)" */
} SweepCollect;

typedef struct Sweep {
  char* file;       /* the sweep file */
  char* scene_path; /* the base scene (relative to the sweep file's folder when written so) */
  char* scene_dir;  /* its folder, absolute: relative mesh paths are made absolute with it */
  char* scene_text; /* the base scene file's text */
  size_t scene_len;
  int nparam;
  SweepParam* param;
  int zip;        /* 1: the i-th values together; 0: the cartesian product (grid) */
  long nvariant;  /* variants */
  int ncollect;
  SweepCollect* collect;
  char* header;   /* the CSV header line of sweep.csv (no newline) */
  int width;      /* digits of the variant folder numbers (at least 4) */
} Sweep;

/* Read and check a sweep file; errors "FILE:LINE:COL: FIELD: what (expected ...)" in err.
 * 0 on success (free with sweep_free), -1 on error. */
int sweep_load(const char* path, Sweep* s, char* err, size_t errsz);
void sweep_free(Sweep* s);

/* the value index of parameter p in variant v */
int sweep_value_index(const Sweep* s, long v, int p);

/* The scene text of variant v: the base scene's document with each parameter's node replaced,
 * relative mesh paths made absolute, emitted by libyaml. *text is malloc'ed (caller frees).
 * 0, or -1 with a message in err. */
int sweep_variant_text(const Sweep* s, long v, char** text, size_t* len, char* err, size_t errsz);

/* "DIR/variant_NNNN" (malloc'ed) */
char* sweep_variant_dir(const Sweep* s, const char* outdir, long v);

/* Is variant v complete in outdir: its result.csv holds the current header and its scene.yaml
 * the current variant text? */
int sweep_variant_done(const Sweep* s, const char* outdir, long v);

/* Run variant v: DIR/variant_NNNN/ gets scene.yaml, the run's outputs and, written last and
 * atomically (tmp + rename), result.csv (header and the variant's row). A variant that cannot
 * be run is a row with its error. strict: warnings make the variant fail. Returns 0 when the
 * variant succeeded, 1 when its row holds an error, -1 when not even the row could be written
 * (message on stderr). */
int sweep_run_variant(const Sweep* s, const char* outdir, long v, int strict);

/* Write a failure row for variant v (used by the local pool when a worker process dies);
 * 0 or -1 */
int sweep_write_failure(const Sweep* s, const char* outdir, long v, const char* status,
                        const char* error);

/* Assemble DIR/sweep.csv (tmp + rename) from the variants' result rows in variant order; a
 * variant without a result is a row with status "missing". *failed: rows that are not "ok".
 * 0, or -1 (message on stderr). */
int sweep_gather(const Sweep* s, const char* outdir, long* failed);

/* shortest "%.Ng" that reads back to x exactly */
void sweep_format_number(double x, char* buf, size_t n);

/* MPI (sweep_mpi.c): 1 if this build has it and the process was started by mpirun */
int sweep_mpi_launched(void);
/* run the sweep over the ranks: a shared counter in an MPI window on rank 0 hands out variant
 * indices; rank 0 gathers sweep.csv. Returns the exit status (the same on every rank). */
int sweep_mpi_run(const Sweep* s, const char* outdir, int strict, int quiet, int* argc,
                  char*** argv);

#endif
