/* What a sweep variant pays before its first step (docs/sweeps.md, "One model per variant"):
 * parse a scene file's text and compile it, N times, against N steps of the model. Built by
 * run_bench.py against BUILD/libcomply.a:   compile_cost SCENE N
 * Prints the mean CPU time of cm_scene_parse, of cm_model_compile and of one cm_step (from t = 0,
 * the first N steps of the scene). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "comply/comply.h"

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  int n = atoi(argv[2]);
  FILE* f = fopen(argv[1], "rb");
  if (!f || n < 1) return 2;
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof text, f);
  fclose(f);
  char err[1024];
  double tp = 0, tc = 0, ts = 0;
  cmModel* keep = NULL;
  for (int i = 0; i < n; i++) {
    cmScene* s = NULL;
    cmModel* m = NULL;
    double t0 = cpu();
    if (cm_scene_parse(text, len, argv[1], &s, err, sizeof err) != CM_OK) return puts(err), 1;
    double t1 = cpu();
    if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) return puts(err), 1;
    double t2 = cpu();
    tp += t1 - t0;
    tc += t2 - t1;
    cm_scene_free(s);
    if (keep)
      cm_model_free(m);
    else
      keep = m;
  }
  cmData* d = cm_data_new(keep);
  double t0 = cpu();
  for (int i = 0; i < n && i < keep->opt.steps; i++)
    cm_step(keep, d);
  ts = (cpu() - t0) / (n < keep->opt.steps ? n : keep->opt.steps);
  printf("parse %.3f ms, compile %.3f ms, one step %.3f ms (mean CPU time over %d)\n", 1e3 * tp / n,
         1e3 * tc / n, 1e3 * ts, n);
  cm_data_free(d);
  cm_model_free(keep);
  return 0;
}
