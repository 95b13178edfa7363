/* The energy monitor (src/engine/energy.c, docs/outputs.md "Energy monitor", issue 12).
 *
 * What it must see. A 0.1 m box (1 kg) dropped flat from 0.25 m onto the ground at ka 5e10 is a
 * stiff contact (K h^2 / m = 5e10 x 0.01 x 1e-6 / 1 = 500 >> 1): its face enters at once and the
 * mid-step law settles it within a step. Found at depth delta after a free step, the law
 * lambda = K (delta - h y / 2) - D y with D = step_damping h K lets go (lambda = 0) at the
 * separation rate y = delta / (h (1/2 + step_damping)): with delta up to v h, a rebound of up to
 * v / (1/2 + step_damping), more than the impact speed for step_damping < 0.5. Measured
 * restitutions: 1.22 at step_damping 0.1 (energy created: the monitor must count it, naming the
 * box and a step within a few of the impact, t = sqrt(2 x 0.25 / 9.81) = 0.226 s); at 0.3 the
 * first bounce restitutes 0.92 but a later, slower one 1.12 (the depth found after a free step
 * is a larger fraction of v h), also counted; 0.74 at 0.5 and 0.49 at 1 (no energy created: it
 * must stay silent).
 *
 * What it must not see: the elastic energy K delta^2 / 2 of that first depth (hundreds of joules
 * at ka 5e10 against 2.5 J of kinetic energy) is not energy created, and a resting body's
 * jitter is far below the tolerance. And it is off where it cannot count: a prescribed body. */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "scenes.h"
#include "test.h"

/* drop the box flat from `drop` m on the ground (ka 5e10, step_damping sd) for `steps` steps;
 * the largest upward speed after the first contact / the impact speed in *e */
static cmData* drop_box(cmModel** mp, double sd, long steps, double* e) {
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 2);
  b.position[2] = 0.3;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 5e10;
  r.step_damping = sd;
  cmModel* m = scene_compile(scene_on_ground("drop", NULL, &b, &r));
  *mp = m;
  if (!m) return NULL;
  cmData* d = cm_data_new(m);
  double vin = 0, vout = 0;
  for (long i = 0; i < steps; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    double vz = d->body_cvel[3 * 1 + 2];
    if (vz < vin) vin = vz;
    if (vz > vout) vout = vz;
  }
  *e = vout / -vin;
  return d;
}

/* at step_damping 0.3 the first bounce restitutes less than 1 but a later, slower one more (the
 * depth found after a free step is a larger fraction of v h): counted too (the header said so,
 * and no test ran it) */
static void test_later_bounce_counted(void) {
  cmModel* m;
  double e;
  cmData* d = drop_box(&m, 0.3, 1500, &e);
  if (!d) return;
  printf("  step_damping 0.3: largest rebound / impact %.3f, energy_growth %d, first step %ld, "
         "max growth %.3f\n",
         e, d->warning[CM_WARN_ENERGY], d->energy_first_step, d->energy_growth);
  CHECK(d->warning[CM_WARN_ENERGY] >= 1);
  CHECK(d->energy_body == 1);
  /* not at the first impact (0.226 s, step 226) */
  CHECK(d->energy_first_step > 240);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_created_energy_counted(void) {
  cmModel* m;
  double e;
  cmData* d = drop_box(&m, 0.1, 600, &e);
  if (!d) return;
  printf("  step_damping 0.1: restitution %.3f, energy_growth %d, max growth %.3f, first step "
         "%ld, body %d\n",
         e, d->warning[CM_WARN_ENERGY], d->energy_growth, d->energy_first_step, d->energy_body);
  CHECK(e > 1.05); /* the premise: this law restitutes more than it receives */
  CHECK(d->energy_monitor == 1);
  CHECK(d->warning[CM_WARN_ENERGY] >= 1);
  /* a restitution e > 1 raises the energy by (e^2 - 1) of the impact's kinetic energy, and the
   * monitor's scale is the largest kinetic energy so far, the rebound's e^2 of it: growth
   * (e^2 - 1) / e^2 = 0.331 at e = 1.223 (measured 0.338: the speeds are sampled at the steps'
   * ends; it checked only more than half of e^2 - 1) */
  CHECK_REL(d->energy_growth, (e * e - 1) / (e * e), 0.05);
  CHECK(d->energy_body == 1);
  CHECK(d->energy_first_step >= 220 && d->energy_first_step <= 240);
  /* one count per event, not one per step after it */
  CHECK(d->warning[CM_WARN_ENERGY] < 10);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_dissipative_silent(void) {
  const double sds[] = {0.5, 1.0};
  for (int i = 0; i < 2; i++) {
    cmModel* m;
    double e;
    cmData* d = drop_box(&m, sds[i], 1000, &e);
    if (!d) return;
    printf("  step_damping %.1f: restitution %.3f, energy_growth %d, max growth %.2e\n", sds[i], e,
           d->warning[CM_WARN_ENERGY], d->energy_growth);
    CHECK(e < 1);
    CHECK(d->warning[CM_WARN_ENERGY] == 0);
    CHECK(d->energy_growth < CM_ENERGY_TOL);
    /* at rest at the end: E is the potential of the box at its resting height plus the
     * spring's energy, and never more than the drop height's potential */
    CHECK(d->energy < 1 * 9.81 * 0.3 * 1.0001);
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* the energy monitor's accounting at rest: a box resting on a soft contact holds the elastic
 * energy W^2 / (2 K) (K = ka A), and E = m g z + that */
static void test_elastic_energy_at_rest(void) {
  const double mass = 1000 * 0.1 * 0.1 * 0.1, g = 9.81, ka = 1e8, area = 0.01;
  double delta = mass * g / (ka * area);
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 2);
  b.position[2] = 0.05 - delta;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  cmModel* m = scene_compile(scene_on_ground("rest", NULL, &b, &r));
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 200; i++)
    CHECK(cm_step(m, d) == CM_OK);
  double U = 0.5 * ka * area * delta * delta;
  double E = mass * g * d->body_cpos[3 * 1 + 2] + U;
  printf("  at rest: E %.9f J, expected %.9f J (elastic %.3e J)\n", d->energy, E, U);
  CHECK(fabs(d->energy - E) < 0.02 * U);
  CHECK(d->warning[CM_WARN_ENERGY] == 0);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_off_with_prescribed(void) {
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 1);
  b.position[2] = 0.3;
  cmBodyDef p = scene_box("paddle", 0.1, 0.1, 0.1, 1);
  p.motion = CM_MOTION_PRESCRIBED;
  p.velocity[2] = 1;
  cmModel* m = scene_compile(scene_two_bodies("prescribed", &b, &p, NULL));
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  CHECK(d->energy_monitor == 0);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_created_energy_counted);
  RUN(test_later_bounce_counted);
  RUN(test_dissipative_silent);
  RUN(test_elastic_energy_at_rest);
  RUN(test_off_with_prescribed);
  return test_report();
}
