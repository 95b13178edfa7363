/* Contacts with a prescribed body (docs/dynamics.md, "Motion"; rigidbody-interaction.txt: a body
 * whose motion is given acts on the others through its contacts as if its mass were infinite).
 * The contact rows must see the prescribed body's own velocity: the slip of a box on a conveyor
 * belt, the gap of a box riding an elevator, the turning point of a turntable. Until 2026-12-08
 * the implicit solve left it out (the box on the belt never moved). */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

#define G 9.81
#define S 0.1      /* the crate's edge, m */
#define RHO 1000.0 /* its density, kg/m^3 */

/* a prescribed 4 x 4 x 0.1 m plate, its top face at z = 0 at t = 0, moving at v and turning at w
 * about its centre (0, 0, -0.05), under an S-edge crate at (x, y) resting at the law's depth
 * m g / (ka A) = RHO S G / ka and moving with the plate; area_compliant (ka, mu), `integ` */
static cmModel* plate_crate(const double v[3], const double w[3], double x, double y, double ka,
                            double mu, cmIntegration integ) {
  cmBodyDef p = scene_box("plate", 4, 4, 0.1, 1);
  p.motion = CM_MOTION_PRESCRIBED;
  p.position[2] = -0.05;
  cm_v3_copy(p.velocity, v);
  cm_v3_copy(p.angular_velocity, w);
  cmBodyDef c = scene_box("crate", S, S, S, 2);
  c.density = RHO;
  cm_v3_set(c.position, x, y, 0.5 * S - RHO * S * G / ka);
  cm_v3_copy(c.velocity, v);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.friction = mu;
  r.integration = integ;
  cmScene* s = scene_two_bodies("prescribed", &p, &c, &r);
  s->opt.timestep = 1e-3;
  return scene_compile(s);
}

/* A belt (the plate moving at V along x) under a crate at rest: kinetic friction accelerates it
 * at mu g until it moves with the belt (t = V / (mu g) = 0.204 s), then static friction holds it
 * there: v(t) = min(mu g t, V), and it has moved x(t) = V t - V^2 / (2 mu g) once it sticks.
 * Implicit friction (ka 1e9): the friction tips the crate a little in its first steps (the
 * normal force moves to its leading edge), a transient of 1e-5 m/s that is gone in 20 steps;
 * from then each step's friction impulse is mu m g h exactly while it slides, so v = mu g t to
 * 1e-8, and v = V to 1e-8 from 20 steps after it sticks (in the steps around the stick, as the
 * friction springs take hold and the crate tips back, it is off by up to 7.8e-4 m/s). Explicit
 * friction (ka 1e7, stable): the explicit rows always saw the belt, and the crate rocks on its
 * explicit contacts (1e-2 m/s around the stick): its path only is checked. */
static void check_belt(cmIntegration integ, double ka, const char* what) {
  const double V = 1, mu = 0.5, zero[3] = {0, 0, 0}, vb[3] = {V, 0, 0};
  cmModel* m = plate_crate(vb, zero, 0, 0, ka, mu, integ);
  if (!m) return;
  int crate = cm_model_body_index(m, "crate");
  cmData* d = cm_data_new(m);
  /* the crate starts at rest (plate_crate gives it the belt's velocity) */
  cm_v3_set(d->body_cvel + 3 * crate, 0, 0, 0);
  cm_v3_set(d->body_xvel + 3 * crate, 0, 0, 0);
  double worst = 0, worst_any = 0;
  for (int n = 1; n <= 400; n++) {
    CHECK(cm_step(m, d) == CM_OK);
    double t = n * 1e-3, expect = fmin(mu * G * t, V);
    double e = fabs(d->body_cvel[3 * crate] - expect);
    worst_any = fmax(worst_any, e);
    if ((n > 20 && n < 200) || n > 230) worst = fmax(worst, e);
  }
  double x = V * 0.4 - V * V / (2 * mu * G);
  if (integ == CM_INTEGRATION_IMPLICIT) {
    if (!(worst < 1e-8 && worst_any < 2e-3))
      fprintf(stderr, "%s belt: off by %.3g m/s (%.3g at any step)\n", what, worst, worst_any);
    CHECK(worst < 1e-8);
    CHECK(worst_any < 2e-3);
    /* the path: the discrete sum of mu g n h h differs from the integral by O(h) */
    CHECK_NEAR(d->body_cpos[3 * crate], x, 1e-3);
  } else {
    CHECK_NEAR(d->body_cpos[3 * crate], x, 2e-3);
    CHECK_NEAR(d->body_cvel[3 * crate], V, 1e-2);
  }
  cm_data_free(d);
  cm_model_free(m);
}

static void test_conveyor_belt(void) {
  check_belt(CM_INTEGRATION_IMPLICIT, 1e9, "implicit");
  check_belt(CM_INTEGRATION_EXPLICIT, 1e7, "explicit");
}

/* An elevator: the plate rises at V with the crate on it, both at V from the start. The gap does
 * not change (the relative velocity is 0), so the crate stays at the law's resting depth
 * m g / (ka A) exactly, whatever V: the crate's centre is S/2 - depth above the plate's top at
 * every step. Seeing only the crate's velocity, the solve took it for separating at V and let it
 * sink h V / 2 + D V / K deeper (5e-5 m at V = 0.1 m/s, 5 times the depth). Also down at V. */
static void test_elevator(void) {
  const double ka = 1e8, depth = RHO * S * G / ka, zero[3] = {0, 0, 0};
  const double speeds[3] = {0.1, 1.0, -0.5};
  for (int i = 0; i < 3; i++) {
    double v[3] = {0, 0, speeds[i]};
    cmModel* m = plate_crate(v, zero, 0.2, -0.1, ka, 0.5, CM_INTEGRATION_IMPLICIT);
    if (!m) return;
    int crate = cm_model_body_index(m, "crate"), plate = cm_model_body_index(m, "plate");
    cmData* d = cm_data_new(m);
    double worst = 0;
    for (int n = 0; n < 500; n++) {
      CHECK(cm_step(m, d) == CM_OK);
      double top = d->body_xpos[3 * plate + 2] + 0.05;
      double e = fabs(d->body_cpos[3 * crate + 2] - top - (0.5 * S - depth));
      worst = e > worst ? e : worst;
    }
    /* rounding of positions of order 1 m: 1e-12 of the 1e-5 m depth is far below */
    if (!(worst < 1e-11)) fprintf(stderr, "elevator at %g m/s: off by %.3g m\n", speeds[i], worst);
    CHECK(worst < 1e-11);
    CHECK_NEAR(d->body_cvel[3 * crate + 2], speeds[i], 1e-9);
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* A turntable: the plate turns at W about the z axis through the origin, a crate at rest at
 * r = 0.3 m. Friction brings it up to the table's speed W r in about W r / (mu g) = 0.12 s (the
 * centripetal acceleration W^2 r = 1.2 m/s^2 is below mu g), after which it turns with the table:
 * its angular velocity is (0, 0, W) and its centre's velocity W z x c, to the creep of the
 * friction spring (none: the anchored spring holds it exactly). */
static void test_turntable(void) {
  const double W = 2, ka = 1e9, w[3] = {0, 0, W}, zero[3] = {0, 0, 0};
  cmModel* m = plate_crate(zero, w, 0.3, 0, ka, 0.5, CM_INTEGRATION_IMPLICIT);
  if (!m) return;
  int crate = cm_model_body_index(m, "crate");
  cmData* d = cm_data_new(m);
  double r300 = 0;
  for (int n = 1; n <= 600; n++) {
    CHECK(cm_step(m, d) == CM_OK);
    if (n == 300) r300 = hypot(d->body_cpos[3 * crate], d->body_cpos[3 * crate + 1]);
  }
  const double* c = d->body_cpos + 3 * crate;
  double r = hypot(c[0], c[1]);
  /* the crate slid on the table while it came up to speed: it ends a little beyond 0.3 m */
  CHECK(r > 0.3 && r < 0.31);
  const double* v = d->body_cvel + 3 * crate;
  double mid[2] = {c[0] - 0.0005 * v[0], c[1] - 0.0005 * v[1]};
  /* held by static friction it stays on its circle (it spiralled out at h W^2 r / 2 = 0.6 mm/s
   * when the rows saw the table's velocity at the start of the step rather than its chord) */
  CHECK_NEAR(r, r300, 1e-8);
  /* it turns with the table to second order in W h ((W h)^2 = 4e-6; 3.1e-6 measured) */
  CHECK_NEAR(d->body_angvel[3 * crate + 2], W, 1e-5);
  CHECK_NEAR(v[0], -W * mid[1], 1e-6);
  CHECK_NEAR(v[1], W * mid[0], 1e-6);
  CHECK_NEAR(v[2], 0, 1e-6);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_conveyor_belt);
  RUN(test_elevator);
  RUN(test_turntable);
  return test_report();
}
