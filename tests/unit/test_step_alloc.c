/* After the first step, cm_step performs no heap allocation: 1,000 free bodies for 1,000 steps
 * with a counting allocator installed through cm_set_allocator. And the scratch of a step is
 * that of one sub-step: it grows neither with the number of sub-steps nor with the step count
 * (issue 12: 1000 explicit sub-steps took 14 MB at 50 steps, 161 MB at 5000). */
#include <stdlib.h>

#include "comply/comply.h"
#include "model/data_internal.h"
#include "scenes.h"
#include "test.h"
#include "test_alloc.h"


static void test_no_alloc_in_step(void) {
  cmAllocator a = {count_malloc, count_realloc, count_free, NULL};
  cm_set_allocator(&a);
  char err[512], name[32];
  cmScene* s = cm_scene_new("thousand");
  for (int i = 0; i < 1000; i++) {
    cmBodyDef b = cm_body_def_default();
    snprintf(name, sizeof name, "b%d", i);
    b.name = name;
    b.geom.type = i % 2 ? CM_GEOM_SPHERE : CM_GEOM_BOX;
    b.geom.radius = 0.05;
    b.geom.refine = 1;
    b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 0.1;
    b.position[0] = i;
    b.angular_velocity[0] = 0.01 * i;
    b.angular_velocity[1] = 1;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == i);
  }
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  if (!m) return;
  CHECK(t_nalloc > 0); /* the hook is really in use */
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  long before = t_nalloc;
  for (int i = 1; i < 1000; i++) cm_step(m, d);
  CHECK(t_nalloc == before);
  printf("  allocations during steps 2..1000: %ld\n", t_nalloc - before);
  cm_data_free(d);
  cm_model_free(m);
  cm_set_allocator(NULL);
}

/* a law with no force (and a soft compliance, so that every contact still makes a row) */
static cmResponse no_force(void* ctx, double dist, const cmContact* c) {
  (void)ctx;
  (void)dist;
  (void)c;
  cmResponse r = {0, 1e-3, 0, 0};
  return r;
}

/* a 162-vertex ball (refine 2, r = 5 cm) 5 mm deep in the ground, no gravity, a law without
 * force integrated explicitly: it stays where it is, with the same contacts in every sub-step;
 * `substeps` sub-steps per 1 ms step */
static cmModel* ball_in_ground(int substeps) {
  cmBodyDef b = scene_sphere("ball", 0.05, 2);
  b.position[2] = 0.045;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_LINEAR;
  r.integration = CM_INTEGRATION_EXPLICIT;
  cmScene* s = scene_on_ground("ball", NULL, &b, &r);
  s->opt.timestep = 1e-3;
  s->opt.substeps = substeps;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmModel* m = scene_compile(s);
  if (m) CHECK(cm_model_set_law(m, 1, no_force, NULL) == CM_OK); /* 0: the built-in default */
  return m;
}

/* the arena's peak demand (bytes) and capacity after `steps` steps of d */
static void run_steps(const cmModel* m, cmData* d, int steps, size_t* peak, size_t* cap) {
  for (int i = 0; i < steps; i++)
    CHECK(cm_step(m, d) == CM_OK);
  *peak = cm_priv(d)->arena.peak;
  *cap = cm_priv(d)->arena.cap;
}

/* Every sub-step of the ball has the same scratch: one candidate pair, one job of 162 vertex
 * queries, one row per contact point, the grid entries of its cells. So the peak demand of a run
 * is that of one sub-step: the same with 1 or 50 sub-steps per step, and the same after 400
 * steps as after 40. (Before the arena was rewound per sub-step, a step of 50 sub-steps needed
 * 50 times the scratch of one.) That demand is 163 hits of 88 bytes, the rows of the contacts
 * and a few hundred bytes more: it fits in the 64 KiB the arena starts with (a full batch of
 * 2^17 hits, 11.5 MB, was taken whatever the pair needed). */
static void test_scratch_of_one_substep(void) {
  cmModel* m1 = ball_in_ground(1);
  cmModel* m50 = ball_in_ground(50);
  if (!m1 || !m50) return;
  cmData* d1 = cm_data_new(m1);
  cmData* d50 = cm_data_new(m50);
  size_t peak1, cap1, peak50, cap50, peak50_late, cap50_late;
  run_steps(m1, d1, 40, &peak1, &cap1);
  run_steps(m50, d50, 40, &peak50, &cap50);
  CHECK(d1->ncontact > 0 && d1->ncontact == d50->ncontact); /* still in the ground */
  run_steps(m50, d50, 360, &peak50_late, &cap50_late);
  CHECK(d50->ncontact == d1->ncontact);
  printf("  arena peak: %zu B with 1 sub-step, %zu B with 50 (after 40 steps), %zu B (after "
         "400); capacity %zu B, %zu B, %zu B\n",
         peak1, peak50, peak50_late, cap1, cap50, cap50_late);
  CHECK(peak50 == peak1);
  CHECK(peak50_late == peak50);
  CHECK(cap50_late == cap50);
  CHECK(peak1 <= 64 * 1024);
  CHECK(cap1 == 64 * 1024 && cap50 == 64 * 1024); /* the initial buffer never grew */
  cm_data_free(d1);
  cm_data_free(d50);
  cm_model_free(m1);
  cm_model_free(m50);
}

int main(void) {
  RUN(test_no_alloc_in_step);
  RUN(test_scratch_of_one_substep);
  return test_report();
}
