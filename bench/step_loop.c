/* comply_step_loop: the C side of the Python step-overhead benchmark (bench/python_overhead.py,
 * bench/README.md "Python step overhead").
 *
 *   comply_step_loop SCENE.yaml STEPS REPEATS
 *
 * Loads and compiles the scene, then REPEATS times: resets the data, takes one warm-up step and
 * times STEPS calls of cm_step in a plain loop (CLOCK_MONOTONIC). Prints the best mean time per
 * step in nanoseconds, and the final state hash so that the caller can check that it stepped the
 * same scene as the Python loop. Linked to the shared library, the one the bindings load. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "comply/comply.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: comply_step_loop SCENE.yaml STEPS REPEATS\n");
    return 2;
  }
  long steps = strtol(argv[2], NULL, 10), repeats = strtol(argv[3], NULL, 10);
  char err[1024];
  cmScene* s = NULL;
  cmModel* m = NULL;
  if (steps < 1 || repeats < 1 || cm_scene_load(argv[1], &s, err, sizeof err) != CM_OK ||
      cm_model_compile(s, &m, err, sizeof err) != CM_OK) {
    fprintf(stderr, "comply_step_loop: %s\n", steps < 1 || repeats < 1 ? "bad count" : err);
    cm_scene_free(s);
    return 1;
  }
  cm_scene_free(s);
  cmData* d = cm_data_new(m);
  if (!d) return 1;
  double best = 1e300;
  for (long r = 0; r < repeats; r++) {
    cm_data_reset(m, d);
    cm_step(m, d); /* warm-up: the first step grows the arena */
    double t0 = now();
    for (long i = 0; i < steps; i++)
      if (cm_step(m, d) != CM_OK) {
        fprintf(stderr, "comply_step_loop: step failed: %s\n", d->message);
        return 1;
      }
    double dt = (now() - t0) / (double)steps;
    if (dt < best) best = dt;
  }
  printf("%.3f %" PRIu64 "\n", best * 1e9, cm_data_hash(m, d));
  cm_data_free(d);
  cm_model_free(m);
  return 0;
}
