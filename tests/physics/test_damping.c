/* Stiffness damping (claim P4 of SPEC 6): stiffness_damping = 2 zeta / w gives the damping ratio
 * zeta to a soft contact whose oscillation the step resolves.
 *
 * Derivation of what the integrator adds. The implicit step evaluates the law at the middle of
 * the step, x_mid = x + (h/2) v+. For an undamped oscillator x'' = -w^2 x this is
 *   v+ = v - h w^2 (x + h v+ / 2),  x+ = x + h v+,
 * whose step matrix has determinant 1 / (1 + (w h)^2 / 2): the amplitude decays by
 * (1 - (w h)^2 / 4) per step, i.e. the integrator adds the damping ratio zeta_num = w h / 4.
 * The measured ratio is therefore zeta + w h / 4; it is within 10% of zeta only when
 * w h < 0.4 zeta (SPEC's "w h < 0.1" is not enough for zeta = 0.05: 0.1 / 4 = 50% of it).
 * The test checks both: measured = zeta + w h / 4 within 10% at w h = 0.1 and 0.02, and
 * measured = zeta within 10% at w h = 0.01 for zeta >= 0.05 (zeta_num = 0.0025). */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

/* damping ratio of the vertical oscillation of a 0.5 kg box on a soft plane contact, with the
 * rule's stiffness_damping tau (s) and step_damping sd */
static double measure_law(double tau, double sd, double wh) {
  const double mass = 0.1 * 0.1 * 0.05 * 1000, area = 0.01, w = 100, g = 9.81;
  double h = wh / w, ka = mass * w * w / area, delta = g / (w * w);
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.05, 1);
  b.position[2] = 0.025 - delta;   /* static equilibrium */
  b.velocity[2] = -0.2 * delta * w; /* amplitude 0.2 delta: the contact never opens */
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.step_damping = sd;
  r.stiffness_damping = tau;
  cmScene* s = scene_on_ground("damping", NULL, &b, &r);
  s->opt.timestep = h;
  cmModel* m = scene_compile(s);
  if (!m) return -1;
  cmData* d = cm_data_new(m);
  /* successive minima of z - z_eq (downward peaks) */
  double peaks[8], prev2 = 0, prev1 = 0;
  int np = 0;
  long steps = (long)(8 * 2 * CM_PI / w / h);
  for (long i = 0; i < steps && np < 4; i++) {
    cm_step(m, d);
    double x = d->body_xpos[5] - (0.025 - delta);
    if (i >= 2 && prev1 < prev2 && prev1 <= x && prev1 < 0) peaks[np++] = -prev1;
    prev2 = prev1;
    prev1 = x;
  }
  cm_data_free(d);
  cm_model_free(m);
  if (np < 3) return -1;
  double dec = log(peaks[0] / peaks[np - 1]) / (np - 1);
  return dec / sqrt(4 * CM_PI * CM_PI + dec * dec);
}

/* only the stiffness damping 2 zeta / w (>= h/2 here, so stable) */
static double measure(double zeta, double wh) {
  return measure_law(2 * zeta / 100, 0, wh);
}

static void test_damping_ratio(void) {
  const double zetas[3] = {0.05, 0.1, 0.3};
  for (int i = 0; i < 3; i++) {
    double z = zetas[i];
    double m10 = measure(z, 0.1), m02 = measure(z, 0.02), m01 = measure(z, 0.01);
    printf("  zeta %.2f: measured %.4f (w h = 0.1, expected %.4f), %.4f (0.02, expected %.4f), "
           "%.4f (0.01)\n",
           z, m10, z + 0.025, m02, z + 0.005, m01);
    /* the first-order z + w h / 4 (measured within 1.6 %, 0.3 % and 0.1 % at w h = 0.1, 0.02,
     * 0.01: the next order grows with w h; the bounds were 10 %, and w h = 0.01 was compared
     * with z alone) */
    CHECK_REL(m10, z + 0.1 / 4, 0.03);
    CHECK_REL(m02, z + 0.02 / 4, 0.01);
    CHECK_REL(m01, z + 0.01 / 4, 0.005);
  }
}

/* `comply advise damping --timestep` (cm_advise_stiffness_damping): the damping ratio of the
 * implicit mid-step map (cm_advise_midstep_zeta, from its eigenvalues, derived in
 * include/comply/advise.h) is the measured one: for 2 zeta / w at the default step_damping 1
 * (zeta_given: D/K = max(tau, h)), and the stiffness_damping it advises for zeta at that step
 * (with step_damping 0, within its step_damping_max) gives zeta. At w h = 0.1 and 0.447 the
 * rule 2 zeta / w gave 0.0746 for 0.05 and 0.311 for 0.1 (an audit); the least ratio a step
 * gives (D/K = h/2) and the longest step that reaches zeta are checked against the map. */
static void test_advised_damping(void) {
  const double w = 100;
  const double cases[4][2] = {{0.05, 0.1}, {0.3, 0.1}, {0.1, 0.05}, {0.2, 0.3}};
  for (int i = 0; i < 4; i++) {
    double z = cases[i][0], wh = cases[i][1], h = wh / w;
    cmAdviseDamping a;
    char err[256];
    CHECK(cm_advise_stiffness_damping(z, w, h, &a, err, sizeof err) == CM_OK);
    double given = measure_law(2 * z / w, 1, wh);
    double tuned = a.stiffness_damping_step > 0 ? measure_law(a.stiffness_damping_step, 0, wh) : -1;
    printf("  zeta %.2f, w h %.2f: 2 zeta / w at step_damping 1 measures %.4f (the map: %.4f); "
           "the advised %.4g s measures %.4f\n",
           z, wh, given, a.zeta_given, a.stiffness_damping_step, tuned);
    CHECK_REL(given, a.zeta_given, 0.01);
    CHECK(a.stiffness_damping_step >= 0.5 * h && a.step_damping_max >= 0);
    CHECK_REL(tuned, z, 0.01);
  }
  /* below the least: zeta 0.1 at w h = 0.447 (the least 0.2118 at D/K = h/2) */
  cmAdviseDamping a;
  char err[256];
  CHECK(cm_advise_stiffness_damping(0.1, 447, 1e-3, &a, err, sizeof err) == CM_OK);
  CHECK(a.stiffness_damping_step == 0 && a.zeta_min > 0.1);
  CHECK_REL(a.zeta_min, cm_advise_midstep_zeta(447, 1e-3, 0.5e-3), 1e-12);
  CHECK_REL(cm_advise_midstep_zeta(447, a.timestep_for_zeta, 0.5 * a.timestep_for_zeta), 0.1, 1e-6);
  CHECK_REL(measure_law(0, 0.5, 0.447), a.zeta_min, 0.01);
}

int main(void) {
  RUN(test_damping_ratio);
  RUN(test_advised_damping);
  return test_report();
}
