/* comply command-line tool: declarations shared by the command files.
 *
 * Exit statuses (SPEC 8):
 *   0    success
 *   1    the simulation failed (non-finite state, solver failure, output write error); the
 *        last good state is still written
 *   2    bad input or usage (scene, mesh, option, output directory)
 *   130  `run` interrupted by SIGINT, 143 by SIGTERM (128 + signal number, as a shell reports
 *        it); the output files are complete up to the step where it stopped
 * The tool uses only the public API. Results go to stdout, errors and progress to stderr. */
#ifndef COMPLY_CLI_H
#define COMPLY_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "comply/comply.h"

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* the commands: argv[0] is the command name */
int cmd_run(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_mesh_info(int argc, char** argv);
int cmd_mesh_repair(int argc, char** argv);
int cmd_advise(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_plot(int argc, char** argv);    /* cmd_plot.c: runs python3 -m comply.plot */
int cmd_tetmesh(int argc, char** argv); /* cmd_tetmesh.c: runs gmsh */

/* print the help of a command (NULL or "" for the overview) to f; 0 if the command exists */
int cli_help(FILE* f, const char* cmd);
/* "comply: MSG" on stderr, then "usage: ..." of cmd (if any); returns CLI_USAGE */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_usage_error(const char* cmd, const char* fmt, ...);
/* "comply: MSG" on stderr; returns status */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_error(int status, const char* fmt, ...);

/* option value parsing; 0 on success */
int cli_parse_count(const char* s, long* out);    /* non-negative decimal integer */
int cli_parse_number(const char* s, double* out); /* finite number */

/* Wait for child process pid (cli/child.c): SIGINT ignored meanwhile (the child gets it from the
 * terminal), SIGTERM passed on to the child. Its exit status, 128 + N if signal N ended it, 143
 * if comply was sent SIGTERM; -1 with errno if waitpid failed. *status (may be NULL): waitpid's. */
int cli_wait_child(pid_t pid, int* status);

/* write text (len bytes) to path through path.tmp, fsync and rename (cli/write_atomic.c); 0, or
 * -1 with errno set and path untouched */
int cli_write_atomic(const char* path, const char* text, size_t len);

/* Option scanning shared by the commands. For argument argv[*i]: if it is the option `name`
 * (long form, also "--name=value") or `short_name` (may be NULL), store its value (the next
 * argument or the part after '=') in *value, advance *i past it and return 1; a missing value
 * is a usage error (returns -1 after printing). Returns 0 if the argument is another thing. */
int cli_option(const char* cmd, int argc, char** argv, int* i, const char* name,
               const char* short_name, const char** value);

/* A long option whose value must be a finite number > 0: as cli_option, then the value parsed
 * into *out; a bad value is a usage error naming the option and `what` it expects ("a finite
 * number > 0"). Returns 1, 0 (another argument) or -1 (usage error, printed). */
int cli_positive_option(const char* cmd, int argc, char** argv, int* i, const char* name,
                        const char* what, double* out);

/* the options of `comply run` (run_args.c) */
typedef struct cliRunArgs {
  const char* scene;
  const char* outdir;
  const char* restart; /* checkpoint to continue from, or NULL */
  int has_steps, has_duration, quiet, strict;
  long steps;
  long checkpoint_every; /* 0: checkpoints only on a signal */
  double duration;
} cliRunArgs;
/* parse the arguments after "run" (argv[0] is "run"): CLI_OK, CLI_USAGE (message printed), or
 * -1 when the help was printed */
int cli_run_parse(int argc, char** argv, cliRunArgs* a);

/* the built-in demo scene of `comply run` with no SCENE; NULL with a message on failure */
cmScene* cli_demo_scene(char* err, size_t errsz);

/* the initial overlaps of a model (overlap.c): pairs in contact at t = 0, the deepest
 * penetration, m, and the largest launch speed, m/s (the speed the elastic energy of the
 * overlap would give the pair) with its bodies */
typedef struct cliOverlaps {
  int pairs;
  double deepest;
  double fastest;
  int body[2];    /* the pair of the fastest, -1 none */
  int contained;  /* pairs with no contact where one's centre of mass is inside the other
                     (coincident or nested bodies: nothing separates them) */
  int contain[2]; /* the first such pair, -1 none */
} cliOverlaps;
/* a launch speed above this refuses `run` unless scene.allow_initial_overlap, m/s */
#define CLI_OVERLAP_SPEED 1.0
/* detect them; print the first `limit` pairs to f (if not NULL), each line after prefix;
 * -1 if out of memory */
int cli_initial_overlaps(const cmModel* m, FILE* f, const char* prefix, int limit,
                         cliOverlaps* out);

/* resting penetration estimates of the dynamic bodies on the fixed ones (resting.c): print those
 * deeper than CM_DEEP_FRACTION of the body's thickness to f (if not NULL), each line after
 * prefix; returns their number */
int cli_resting_estimates(const cmModel* m, FILE* f, const char* prefix);
/* the dynamic spheres whose resting cap on a fixed body (area_compliant) is smaller than their
 * mesh: a note per pair on f (NULL: count only) with the prefix; returns the count */
int cli_patch_notes(const cmModel* m, FILE* f, const char* prefix);

/* the shortest period of a resting implicit contact (resting.c): a dynamic body on a fixed
 * body, or on a body like itself */
typedef struct cliPeriod {
  double period; /* s; 0 if no contact has an estimate */
  double h;      /* the sub-step, s */
  int body;      /* the dynamic body */
  int other;     /* the fixed body it rests on, -1 for a body like it */
  int rule;
  double fix;   /* the ka (N/m^3) or contact_time (s) with CLI_PERIOD_STEPS sub-steps per period */
  double h_fix; /* the sub-step with CLI_PERIOD_STEPS per period, s */
} cliPeriod;
/* mean Newton iterations per solve above which `comply run` explains the cost with the period
 * (issue 10's target for a pile) */
#define CLI_SLOW_SOLVE_ITER 8
/* sub-steps per period below which a contact counts as not resolved */
#define CLI_PERIOD_STEPS 5
/* fill *out; returns 1 if the period is shorter than CLI_PERIOD_STEPS sub-steps, -1 without
 * memory (out->period 0) */
int cli_contact_period(const cmModel* m, cliPeriod* out);
/* one line (after prefix) on it: the period, and if not resolved what resolves it */
void cli_contact_period_print(const cmModel* m, const cliPeriod* p, FILE* f, const char* prefix);

/* monotonic wall clock, s */
double cli_now(void);

/* progress bar on stderr (enabled only when stderr is a terminal) */
typedef struct cliProgress {
  int enabled;
  long total;   /* steps */
  double start; /* wall clock at start, s */
  double last;  /* wall clock of the last redraw, s */
  int drawn;    /* a bar is on screen */
} cliProgress;
void progress_start(cliProgress* p, long total, int enabled);
/* redraw at most ~10 times a second */
void progress_update(cliProgress* p, long step, double sim_time);
/* erase the bar */
void progress_end(cliProgress* p);

/* ---- comply sweep (docs/sweeps.md) ----
 *   sweep_file.c  the sweep file (libyaml): base scene, parameters, collect list; the variant
 *                 scene texts (the base scene's YAML document edited and emitted again)
 *   sweep_run.c   one variant: parse, compile, simulate, write its outputs and its result row
 *   sweep_mpi.c   the MPI driver (only when built with MPI; a stub otherwise)
 *   cmd_sweep.c   the command: options, the local process pool, restart, sweep.csv
 * Uses the public API of comply and libyaml only. */

/* a varied parameter: a path into the scene document and its values (YAML scalar texts) */
typedef struct SweepParam {
  char* path;    /* as written, e.g. "bodies[ball].position[2]" */
  int line, col; /* of the path in the sweep file */
  int nvalue;
  char** value; /* (nvalue) scalar texts, emitted as written (numbers of a range: shortest %g) */
  int* quoted;  /* (nvalue) 1 if the value was a quoted string in the sweep file */
  /* what a reused model takes from the variant (sweep_run.c, "reusing a compiled model"):
   * interactions[rule].FIELD with a numeric rule parameter (rule: the scene rule's index, the
   * model's is rule + 1), or bodies[body].KEY[comp] with KEY position, velocity or
   * angular_velocity (field SWEEP_BODY_FIELD + the key's index); rule = field = -1 otherwise */
  int rule;
  int field;
  char* body; /* the body selector: a name, or digits for the index in the scene */
  int comp;
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
  int zip;       /* 1: the i-th values together; 0: the cartesian product (grid) */
  long nvariant; /* variants */
  int ncollect;
  SweepCollect* collect;
  char* header; /* the CSV header line of sweep.csv (no newline) */
  int width;    /* digits of the variant folder numbers (at least 4) */
  int reuse;    /* 1: every parameter is a numeric rule parameter or a body's initial
                   position, velocity or angular velocity, so every variant has the same
                   geometry: a compiled model is reused, patched per variant */
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

/* Is variant v complete in outdir: its result.csv holds the current header, its scene.yaml
 * the current variant text, and it was run with the same --strict (its folder's `strict` mark)? */
int sweep_variant_done(const Sweep* s, const char* outdir, long v, int strict);

/* Run variant v: DIR/variant_NNNN/ gets scene.yaml, the run's outputs and, written last and
 * atomically (tmp + rename), result.csv (header and the variant's row). A variant that cannot
 * be run is a row with its error. strict: warnings make the variant fail. cache (may be NULL):
 * with s->reuse, a model compiled by an earlier variant (or sweep_template_model), whose rules
 * take the variant's values instead of a new compile; if *cache is NULL the variant's model is
 * compiled and left there. Returns 0 when the variant succeeded, 1 when its row holds an error,
 * -1 when not even the row could be written (message on stderr). */
int sweep_run_variant(const Sweep* s, const char* outdir, long v, int strict, cmModel** cache);

/* the numeric rule parameters a reused model takes from each variant (sweep_run.c): the index
 * of `key` in that list, -1 if it is not one */
int sweep_rule_field(const char* key);
/* field numbers from here on are the body state keys position, velocity, angular_velocity */
#define SWEEP_BODY_FIELD 100
/* A model of the sweep's geometry to reuse (s->reuse): variant v's scene compiled; NULL if it
 * does not compile (each variant then compiles its own) */
cmModel* sweep_template_model(const Sweep* s, long v);

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

/* mkdir -p: every missing component of path; 0 if path is then a directory, -1 otherwise
 * (errno set) */
int sweep_mkdir_parents(const char* path);

/* MPI (sweep_mpi.c): 1 if this build has it and the process was started by mpirun */
int sweep_mpi_launched(void);
/* run the sweep over the ranks: a shared counter in an MPI window on rank 0 hands out variant
 * indices; rank 0 gathers sweep.csv. Returns the exit status (the same on every rank). */
int sweep_mpi_run(const Sweep* s, const char* outdir, int strict, int quiet, int* argc,
                  char*** argv);

#endif
