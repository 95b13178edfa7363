/* The depth monitor (src/engine/depth.c, issue 12: "a ka that makes the resting penetration a
 * large fraction of a body gets a warning").
 *
 * A 0.1 m box of 1 kg resting flat on the ground under the area-compliant law sinks
 * delta = m g / (ka A), A = 0.01 m^2 (the law is exact for a flat face: every vertex carries
 * ka delta times its area). At ka 2e4 N/m^3 that is 49 mm, 49 % of the box: every step past the
 * first few counts deep_penetration (more than CM_DEEP_FRACTION = 20 % of the thinner body),
 * and the largest ratio of the run is at least the resting 0.49 (the box overshoots on the way
 * down). At ka 5e10 it is 2e-8 m: nothing is counted. The box starts touching the ground with
 * no speed, so the depth comes from the weight alone. */
#include <math.h>

#include "comply/comply.h"
#include "scenes.h"
#include "test.h"

static void rest(double ka, long steps, cmModel** mp, cmData** dp) {
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 2);
  b.position[2] = 0.05;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.stiffness_damping = 0.05; /* settles within the run */
  cmModel* m = scene_compile(scene_on_ground("rest", NULL, &b, &r));
  *mp = m;
  *dp = NULL;
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (long i = 0; i < steps; i++)
    CHECK(cm_step(m, d) == CM_OK);
  *dp = d;
}

static void test_soft_law_counted(void) {
  cmModel* m;
  cmData* d;
  rest(2e4, 2000, &m, &d);
  if (!d) return;
  double delta = 1.0 * 9.81 / (2e4 * 0.01), depth = 0.05 - d->body_cpos[3 + 2];
  printf("  ka 2e4: resting depth %.5f m (m g / (ka A) = %.5f m), max ratio %.3f, %d steps "
         "counted from step %ld\n",
         depth, delta, d->depth_ratio, d->warning[CM_WARN_DEEP], d->depth_first_step);
  CHECK(fabs(depth - delta) < 0.02 * delta); /* the premise: the law's resting depth */
  CHECK(d->depth_ratio >= 0.99 * delta / 0.1);
  CHECK(d->depth_body_a == 0 && d->depth_body_b == 1);
  CHECK(d->warning[CM_WARN_DEEP] > 1900);
  CHECK(d->depth_first_step > 0 && d->depth_first_step < 100);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_stiff_law_silent(void) {
  cmModel* m;
  cmData* d;
  rest(5e10, 300, &m, &d);
  if (!d) return;
  printf("  ka 5e10: max ratio %.3g\n", d->depth_ratio);
  CHECK(d->warning[CM_WARN_DEEP] == 0 && d->depth_first_step == 0);
  CHECK(d->depth_ratio < 1e-4);
  cm_data_free(d);
  cm_model_free(m);
}

/* a bar falling edge-first across another bar's edge (tests/scenes.h, the crossed bars) with
 * method vertex: no vertex of either bar is ever inside the other (the bar ends are far from
 * the crossing), so there is no contact and the upper bar falls through the lower one (the
 * case physics/test_edge_rest holds with vertex_edge). Its centre of mass passes through the
 * lower bar: counted as deep_penetration with the pair, at least half the thickness, while the
 * centre is inside, and before that from the step the two ridges, linked across each other,
 * cross deeper than CM_DEEP_FRACTION of the thickness (the edge-edge contact vertex_edge would
 * make, computed by the monitor for methods without edge contacts). The ridges touch at t = 0 with
 * the upper centre at s sqrt2 over the lower one, whose cross-section along the upper centre's path
 * (x = y = 0) is |z| < s/sqrt2 (a square turned 45 degrees): the centre enters after falling
 * s/sqrt2 = 0.0707 m, at t = sqrt(2 x 0.0707 / g) = 0.120 s, and leaves after 3 s/sqrt2, at 0.208
 * s. */
static void test_missed_overlap_counted(void) {
  cmBodyDef a, b;
  scene_crossed_bars(0.6, 0.1, 0, &a, &b);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.method = CM_METHOD_VERTEX;
  cmModel* m = scene_compile(scene_two_bodies("crossed", &a, &b, &r));
  if (!m) return;
  cmData* d = cm_data_new(m);
  long contacts = 0;
  for (int i = 0; i < 300; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    contacts += d->ncontact;
  }
  printf("  crossed bars, vertex: %ld contacts in 300 steps, centre at z = %.3f m; "
         "deep_penetration %d from step %ld, ratio %.2f\n",
         contacts, d->body_cpos[2], d->warning[CM_WARN_DEEP], d->depth_first_step, d->depth_ratio);
  CHECK(contacts == 0 && d->body_cpos[2] < -0.2); /* the premise: it fell through unseen */
  /* counted from the step the linked ridges cross deeper than CM_DEEP_FRACTION of the
   * thickness, g t^2 / 2 = 0.2 s: t = 0.0639 s (step 64), through the centre's passage
   * (0.120..0.208 s, 88 steps), and never after the upper bar has left (its top ridge below the
   * lower bar's bottom one after falling 2 s sqrt2: t = 0.240 s) */
  CHECK(d->depth_first_step >= 63 && d->depth_first_step <= 65);
  CHECK(d->warning[CM_WARN_DEEP] >= 88 + 20 && d->warning[CM_WARN_DEEP] <= 240 - 63);
  CHECK(d->depth_ratio >= 0.5 && d->depth_body_a == 0 && d->depth_body_b == 1);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_soft_law_counted);
  RUN(test_missed_overlap_counted);
  RUN(test_stiff_law_silent);
  return test_report();
}
