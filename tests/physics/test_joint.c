/* Joints with play (claim P7 of SPEC 6, rigidbody-interaction.txt): no force while the link's
 * stretch is under the play; beyond it the link pulls like the contact_time spring-dashpot of
 * its rule, K = m_rep (pi/T)^2, and the engaged link oscillates with the contact-time period:
 * half an oscillation takes T. */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "test.h"

static char err[1024];

static cmModel* tether(double play, double T, double x_start, double vx, cmIntegration integ) {
  cmScene* s = cm_scene_new("tether");
  s->opt.timestep = 1e-4;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.02;
  b.geom.refine = 1;
  b.position[0] = x_start; /* anchor at the origin, fixed in the bob at t = 0 ... */
  b.velocity[0] = vx;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "bob";
  r.pair[1] = "world";
  r.elastic_repulsion = 1.0;
  r.play = play;
  r.contact_time = T;
  r.integration = integ;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  j.body[1] = "world";
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  cmModel* m = NULL;
  /* a failed compile is a failure (the callers' `if (!m) return;` skipped every check) */
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) {
    fprintf(stderr, "%s\n", err);
    CHECK(m != NULL);
  }
  cm_scene_free(s);
  return m;
}

/* the anchor is fixed in the bob where the world point is at t = 0; the bob starts there and
 * drifts at 0.1 m/s: the stretch grows from 0 and no force acts until it reaches the play */
static void test_no_force_in_play(void) {
  cmModel* m = tether(0.01, 0.02, 0, 0.1, CM_INTEGRATION_DEFAULT);
  if (!m) return;
  cmData* d = cm_data_new(m);
  int n = 0;
  while (d->body_xpos[0] < 0.0099) {
    cm_step(m, d);
    CHECK(d->body_xvel[0] == 0.1); /* no force at all: bit-exact constant velocity */
    n++;
  }
  CHECK(n > 900);
  /* beyond the play the link pulls back */
  for (int i = 0; i < 200; i++) cm_step(m, d);
  CHECK(d->body_xvel[0] < 0.1 - 1e-3);
  cm_data_free(d);
  cm_model_free(m);
}

/* The bob leaves the anchor point at 0.5 m/s, flies freely through the play, and the link
 * engages: x'' = -(pi/T)^2 x, so it turns and comes back to the play after half a period, T,
 * with its speed restored (e_r = 1). Explicit symplectic Euler keeps the amplitude; the implicit
 * mid-step law x_mid = x + (h/2) v+ damps a linear spring by the factor
 * det = 1/(1 + (w h)^2/2) per step in phase-space area, i.e. the speed by
 * exp(-N (w h)^2 / 4) = exp(-pi^2 h / (4 T)) over the N = T/h steps of the half period. */
static void check_quarter_period(cmIntegration integ, const char* what) {
  const double play = 0.01, T = 0.02, h = 1e-4;
  cmModel* m = tether(play, T, 0, 0.5, integ);
  if (!m) return;
  cmData* d = cm_data_new(m);
  /* free flight to the play, then the spring: x(t) = (v/w) sin(w t), w = pi/T; the bob is back
   * at the play after half a period T (it turns at T/2) */
  double t_in = -1, t_out = -1;
  for (int i = 0; i < 2000 && t_out < 0; i++) {
    double before = d->body_xpos[0];
    cm_step(m, d);
    double after = d->body_xpos[0];
    if (t_in < 0 && before <= play && after > play) t_in = d->time - h * (after - play) / (after - before);
    if (t_in > 0 && before > play && after <= play)
      t_out = d->time - h * (play - after) / (before - after);
  }
  double dur = t_out - t_in;
  printf("  %s: link engaged for %.6f s (T = %.3f s), exit speed %.6f m/s (entry 0.5)\n", what,
         dur, T, -d->body_xvel[0]);
  double expect = integ == CM_INTEGRATION_IMPLICIT ? 0.5 * exp(-CM_PI * CM_PI * h / (4 * T)) : 0.5;
  CHECK_REL(dur, T, 0.01);
  CHECK_REL(-d->body_xvel[0], expect, 0.002);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_period(void) {
  check_quarter_period(CM_INTEGRATION_EXPLICIT, "explicit");
  check_quarter_period(CM_INTEGRATION_IMPLICIT, "implicit");
}

/* a joint whose rule is law none has no parameters: the compiler refuses it (the pair's law
 * none would otherwise leave it acting with the defaults of a rule the user never wrote) */
static void test_law_none_refused(void) {
  cmScene* s = cm_scene_new("none");
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.02;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "world";
  r.pair[1] = "b*";
  r.law = CM_LAW_NONE;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_ERR_ARG && m == NULL);
  printf("  %s\n", err);
  CHECK(strstr(err, "joints[0] (bob <-> world)") && strstr(err, "interactions[0]"));
  CHECK(strstr(err, "law none") && strstr(err, "contact_time rule"));
  /* a contact_time rule for the pair after it: compiles */
  r.law = CM_LAW_CONTACT_TIME;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 1);
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK && m && m->joint_rule[0] == 2);
  cm_model_free(m);
  cm_scene_free(s);
}

int main(void) {
  RUN(test_no_force_in_play);
  RUN(test_law_none_refused);
  RUN(test_period);
  return test_report();
}
