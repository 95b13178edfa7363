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

#include "comply/comply.h"

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* the commands: argv[0] is the command name */
int cmd_run(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_mesh_info(int argc, char** argv);
int cmd_mesh_repair(int argc, char** argv);
int cmd_advise(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_plot(int argc, char** argv); /* cmd_plot.c: runs python3 -m comply.plot */

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

/* Option scanning shared by the commands. For argument argv[*i]: if it is the option `name`
 * (long form, also "--name=value") or `short_name` (may be NULL), store its value (the next
 * argument or the part after '=') in *value, advance *i past it and return 1; a missing value
 * is a usage error (returns -1 after printing). Returns 0 if the argument is another thing. */
int cli_option(const char* cmd, int argc, char** argv, int* i, const char* name,
               const char* short_name, const char** value);

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

#endif
