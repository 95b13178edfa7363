/* Determinism (issue 6): the state hash cm_data_hash of a reference scene with contacts after
 * 500 steps is the same run twice, with 1 and 2 OpenMP threads, across a checkpoint and restart,
 * and at -O0 and at the optimised build's level (-O3 by default).
 *
 * The reference scene: three boxes and three spheres dropped onto a fixed plane, the boxes with
 * the area_compliant law, the spheres on the boxes and each other with contact_time, friction
 * everywhere, with enough vertices near the plane and islands for every parallel region of the
 * step (vertex queries, edge searches, islands).
 *
 * Threads: the scene at 1 thread, at 2 threads as the gates of the parallel regions decide
 * (core/par_gate.h: such a small scene's regions stay serial), and at 2 threads with every
 * region parallel (cm_par_mode 1), so that the parallel paths are the ones compared.
 *
 * Slices: the narrowphase in slices of 1 and 3 jobs (cm_narrowphase_slice) against the default.
 *
 * -O0 vs -O3: tests/CMakeLists.txt builds this file a second time (physics_test_determinism_O0,
 * CM_OPT_LABEL "O0") against an unoptimised copy of the library, in the optimised build only.
 * Each build writes its hash to determinism_hash_LABEL.txt in its working directory; the O0
 * build runs after the optimised one (a CTest fixture), runs the scene once and compares its
 * hash with determinism_hash_opt.txt.
 *
 * Under the sanitizers (test.h, scale < 1) the thread-count comparison is skipped (RUN_LONG): it
 * repeats the scene twice more, and unit/test_contact_mesh compares 1 and 2 threads there. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/par_gate.h"
#include "scenes.h"
#include "test.h"

#ifndef CM_OPT_LABEL
#define CM_OPT_LABEL "opt"
#endif

static char err[1024];
enum { STEPS = 500 };

static cmModel* reference(void) {
  cmScene* s = cm_scene_new("determinism");
  s->opt.timestep = 1e-3;
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) >= 0);
  static const char* boxes[3] = {"box1", "box2", "box3"};
  static const char* balls[3] = {"ball1", "ball2", "ball3"};
  for (int i = 0; i < 3; i++) {
    cmBodyDef b = scene_box(boxes[i], 0.1 + 0.02 * i, 0.1, 0.06, 8);
    b.alias = "box";
    b.density = 500;
    b.position[0] = 0.25 * i;
    b.position[2] = 0.04 + 0.01 * i;
    b.angular_velocity[0] = 0.3 * i;
    b.angular_velocity[2] = 1.0;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) >= 0);
    cmBodyDef c = scene_sphere(balls[i], 0.04, 3);
    c.alias = "ball";
    c.density = 800;
    c.position[0] = 0.25 * i + 0.01;
    c.position[1] = i == 2 ? 0.3 : 0.0;
    c.position[2] = i == 2 ? 0.045 : 0.12;
    c.velocity[1] = i == 2 ? -0.5 : 0.0;
    CHECK(cm_scene_add_body(s, &c, err, sizeof err) >= 0);
  }
  cmRuleDef r = cm_rule_def_default(); /* every pair: contact_time */
  r.law = CM_LAW_CONTACT_TIME;
  r.friction = 0.3;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  r = cm_rule_def_default();
  r.pair[0] = "box";
  r.pair[1] = "ground";
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 5e10;
  r.friction = 0.3;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  r.pair[0] = "ball";
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  return scene_compile(s);
}

/* steps from d's state; the most contacts and pairs seen */
static void advance(const cmModel* m, cmData* d, long to, int* maxc, int* maxp) {
  while (d->step < to) {
    CHECK(cm_step(m, d) == CM_OK);
    if (maxc && d->ncontact > *maxc) *maxc = d->ncontact;
    if (maxp && d->npair > *maxp) *maxp = d->npair;
  }
}

static uint64_t run(const cmModel* m, int* maxc, int* maxp) {
  cmData* d = cm_data_new(m);
  advance(m, d, STEPS, maxc, maxp);
  uint64_t h = cm_data_hash(m, d);
  cm_data_free(d);
  return h;
}

static cmModel* g_m;
static uint64_t g_hash;

static int optimised(void) {
  return strcmp(CM_OPT_LABEL, "opt") == 0;
}

/* the scene's hash; the optimised build runs it twice (the O0 build only compares, below) */
static void test_repeat(void) {
  int maxc = 0, maxp = 0;
  g_hash = run(g_m, &maxc, &maxp);
  printf("  hash after %d steps (%s): %016llx; up to %d contacts in %d pairs\n", STEPS,
         CM_OPT_LABEL, (unsigned long long)g_hash, maxc, maxp);
  if (optimised()) {
    uint64_t again = run(g_m, NULL, NULL);
    CHECK(again == g_hash);
  }
  CHECK(maxc > 2048 / 8); /* a scene with real contact work */
  CHECK(maxp >= 4);
}

static void test_threads(void) {
#ifdef _OPENMP
  int before = omp_get_max_threads();
  omp_set_num_threads(1);
  uint64_t h1 = run(g_m, NULL, NULL);
  omp_set_num_threads(2);
  uint64_t h2 = run(g_m, NULL, NULL);
  int saved = cm_par_mode;
  cm_par_mode = 1; /* every region parallel */
  uint64_t h2p = run(g_m, NULL, NULL);
  cm_par_mode = saved;
  omp_set_num_threads(before);
  printf("  1 thread %016llx, 2 threads %016llx, 2 threads every region parallel %016llx\n",
         (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h2p);
  CHECK(h1 == g_hash);
  CHECK(h2 == g_hash);
  CHECK(h2p == g_hash);
#else
  printf("  built without OpenMP: one thread only\n");
#endif
}

/* the narrowphase's slices (collide/narrowphase.c): a stack of 18 boxes of divisions 2, 1 mm
 * into each other and turned by up to 0.02 rad (edge-edge contacts on every side, two vertex
 * jobs per box pair), 100 steps in slices of 1 job (a pair's two jobs and its edge contacts
 * then straddle the slice's limit), 3, of 60 vertex queries, and the default: the same states
 * bit for bit */
static uint64_t slice_run(const cmModel* m, int slice, long hits, int* edges) {
  int saved = cm_narrowphase_slice;
  long saved_hits = cm_narrowphase_slice_hits;
  cm_narrowphase_slice = slice;
  cm_narrowphase_slice_hits = hits;
  cmData* d = cm_data_new(m);
  *edges = 0;
  while (d->step < 100) {
    CHECK(cm_step(m, d) == CM_OK);
    for (int c = 0; c < d->ncontact; c++)
      *edges += (d->contact[c].flags & CM_CONTACT_EDGE) != 0;
  }
  uint64_t h = cm_data_hash(m, d);
  cm_data_free(d);
  cm_narrowphase_slice = saved;
  cm_narrowphase_slice_hits = saved_hits;
  return h;
}

static void test_slices(void) {
  cmScene* s = cm_scene_new("slices");
  s->opt.timestep = 1e-3;
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) >= 0);
  char names[18][16];
  for (int i = 0; i < 18; i++) {
    snprintf(names[i], sizeof names[i], "b%d", i);
    cmBodyDef b = scene_box(names[i], 0.1, 0.1, 0.1, 2);
    b.density = 1000;
    b.position[0] = 0.099 * (i % 3);
    b.position[1] = 0.099 * (i / 3 % 3);
    b.position[2] = 0.0495 + 0.099 * (i / 9);
    const double axis[3] = {1 + i % 2, 2 - i % 3, 0.5 + i % 4};
    cm_quat_from_axis_angle(b.orientation, axis, 0.02 * ((i * 7) % 5 - 2) / 2);
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) >= 0);
  }
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 1e7;
  r.friction = 0.5;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  int e0, e1, e3, eh;
  uint64_t h0 = slice_run(m, cm_narrowphase_slice, cm_narrowphase_slice_hits, &e0);
  uint64_t h1 = slice_run(m, 1, cm_narrowphase_slice_hits, &e1);
  uint64_t h3 = slice_run(m, 3, cm_narrowphase_slice_hits, &e3);
  /* slices ended by their vertex queries: 60 is two or three boxes' jobs (26 vertices each) */
  uint64_t hh = slice_run(m, cm_narrowphase_slice, 60, &eh);
  printf("  default %016llx, slices of 1 job %016llx, of 3 %016llx, of 60 queries %016llx; %d "
         "edge contacts over the steps\n",
         (unsigned long long)h0, (unsigned long long)h1, (unsigned long long)h3,
         (unsigned long long)hh, e0);
  CHECK(e0 > 100); /* the edge contacts' appending across slices is exercised */
  CHECK(h1 == h0 && e1 == e0);
  CHECK(h3 == h0 && e3 == e0);
  CHECK(hh == h0 && eh == e0);
  cm_model_free(m);
}

static void test_restart(void) {
  const char* path = "test_determinism_" CM_OPT_LABEL ".ckpt";
  cmData* d = cm_data_new(g_m);
  advance(g_m, d, 237, NULL, NULL);
  CHECK(cm_checkpoint_write(g_m, d, path, err, sizeof err) == CM_OK);
  cm_data_free(d);
  cmData* e = cm_data_new(g_m);
  CHECK(cm_checkpoint_read(g_m, e, path, err, sizeof err) == CM_OK);
  CHECK(e->step == 237);
  advance(g_m, e, STEPS, NULL, NULL);
  CHECK(cm_data_hash(g_m, e) == g_hash);
  cm_data_free(e);
  remove(path);
}

/* write this build's hash; the O0 build compares with the optimised build's */
static void test_optimisation_levels(void) {
  FILE* f = fopen("determinism_hash_" CM_OPT_LABEL ".txt", "w");
  CHECK(f != NULL);
  if (f) {
    fprintf(f, "%016llx\n", (unsigned long long)g_hash);
    fclose(f);
  }
  if (optimised()) return;
  FILE* o = fopen("determinism_hash_opt.txt", "r");
  unsigned long long other = 0;
  CHECK(o != NULL); /* the fixture runs physics/test_determinism first */
  if (!o) return;
  CHECK(fscanf(o, "%llx", &other) == 1);
  fclose(o);
  printf("  %s %016llx, opt %016llx\n", CM_OPT_LABEL, (unsigned long long)g_hash, other);
  CHECK(other == g_hash);
}

int main(void) {
  g_m = reference();
  if (!g_m) return 1;
  RUN(test_repeat);
  if (optimised()) { /* the slow unoptimised build only compares */
    RUN_LONG(test_threads);
    RUN(test_restart);
    RUN(test_slices);
  }
  RUN(test_optimisation_levels);
  cm_model_free(g_m);
  return test_report();
}
