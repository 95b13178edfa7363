/* The numerical guard and the resource limit: a failing step is undone, reported with a
 * diagnosis naming the body, the pair and the cause, and never leaves a non-finite state. */
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static cmModel* ball_on_ground(cmLawType law, cmIntegration integ, double k, double vz,
                               long max_contacts, int box_div, int substeps) {
  cmBodyDef b;
  if (box_div) {
    b = scene_box("ball", 0.1, 0.1, 0.1, box_div);
    b.position[2] = 0.049;
  } else {
    b = scene_sphere("ball", 0.05, 2);
    b.position[2] = 0.06;
  }
  b.velocity[2] = vz;
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "ball";
  r.pair[1] = "ground";
  r.law = law;
  r.stiffness = k;
  r.integration = integ;
  cmScene* s = scene_on_ground("guard", NULL, &b, &r);
  if (max_contacts) s->opt.max_contacts = max_contacts;
  s->opt.substeps = substeps;
  return scene_compile(s);
}

/* an explicit contact with w h = 44 is refused before it explodes at a fixed sub-step count:
 * w = sqrt(k n / m) with the ball's contact points n; the data keeps the state of the start of
 * the failing step */
static void test_explicit_too_stiff(void) {
  cmModel* m = ball_on_ground(CM_LAW_LINEAR, CM_INTEGRATION_EXPLICIT, 1e9, 0, 0, 0, 1);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmData* prev = cm_data_new(m);
  cmStatus st = CM_OK;
  int n = 0;
  while (st == CM_OK && n < 1000) {
    cm_data_copy(m, prev, d);
    st = cm_step(m, d);
    n++;
  }
  printf("  step %d: %s\n", n, d->message);
  CHECK(st == CM_ERR_NUMERIC);
  CHECK(strstr(d->message, "'ball'") && strstr(d->message, "ball <-> ground"));
  CHECK(strstr(d->message, "w h = ") && strstr(d->message, "explicit"));
  CHECK(!memcmp(d->body_cpos, prev->body_cpos, 6 * sizeof(double)));
  CHECK(!memcmp(d->body_cvel, prev->body_cvel, 6 * sizeof(double)));
  CHECK(d->step == prev->step);
  cm_data_free(d);
  cm_data_free(prev);
  cm_model_free(m);
}

/* the sub-steps the refusal advises ("substeps: auto (or >= N)") are counted for the scene's
 * timestep, whatever sub-steps the failing run had (until 2026-12-08 the count divided the
 * sub-step, so that a run at 4 sub-steps was told fewer than it had), and the run at N sub-steps
 * is stable */
static int advised_substeps(int substeps) {
  cmModel* m = ball_on_ground(CM_LAW_LINEAR, CM_INTEGRATION_EXPLICIT, 1e9, 0, 0, 0, substeps);
  if (!m) return -1;
  cmData* d = cm_data_new(m);
  cmStatus st = CM_OK;
  for (int n = 0; n < 1000 && st == CM_OK; n++)
    st = cm_step(m, d);
  CHECK(st == CM_ERR_NUMERIC);
  const char* at = strstr(d->message, "(or >= ");
  int adv = at ? atoi(at + strlen("(or >= ")) : -1;
  printf("  at %d sub-steps: advised %d\n", substeps, adv);
  cm_data_free(d);
  cm_model_free(m);
  return adv;
}

static void test_advised_substeps(void) {
  int a1 = advised_substeps(1), a4 = advised_substeps(4);
  CHECK(a1 > 4 && a4 == a1);
  cmModel* m = ball_on_ground(CM_LAW_LINEAR, CM_INTEGRATION_EXPLICIT, 1e9, 0, 0, 0, a1);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmStatus st = CM_OK;
  for (int n = 0; n < 300 && st == CM_OK; n++)
    st = cm_step(m, d);
  CHECK(st == CM_OK);
  cm_data_free(d);
  cm_model_free(m);
}

/* Explicit rows unstable together although each is stable alone: a 1 kg box held between a floor
 * and a ceiling (planes, each overlapping it by 0.1 mm), contact_time T = 2.686 h, e_r 0.5, no
 * gravity. Each row alone: lambda = (pi h / T)^2 / 4 + ln(2) h / T = 0.600; both push the same
 * body along the same line, so together lambda = 1.200 (stability.c, coupled_bound). The check
 * reports it (cm_data_stability's lambda_coupled), the guard refuses the first step at a fixed
 * sub-step, naming the coupling, and substeps: auto brings the box to rest. Until 2026-12-08 the
 * check said stable and the run rattled at 0.17 m/s to its end, exit 0 (an audit). */
static cmModel* squeezed(int substeps) {
  cmScene* s = cm_scene_new("squeeze");
  s->opt.timestep = 1e-3;
  s->opt.substeps = substeps;
  s->opt.allow_initial_overlap = 1;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef fl = scene_ground(), ce = scene_ground();
  fl.name = "floor";
  fl.geom.offset = 1e-4;
  ce.name = "ceiling";
  cm_v3_set(ce.geom.normal, 0, 0, -1);
  ce.geom.offset = -0.0999;
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 1);
  b.density = 1000;
  b.position[2] = 0.05;
  b.velocity[2] = 1e-3;
  CHECK(cm_scene_add_body(s, &fl, scene_err, sizeof scene_err) == 0);
  CHECK(cm_scene_add_body(s, &ce, scene_err, sizeof scene_err) == 1);
  CHECK(cm_scene_add_body(s, &b, scene_err, sizeof scene_err) == 2);
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = 2.686e-3;
  CHECK(cm_scene_add_rule(s, &r, scene_err, sizeof scene_err) == 0);
  return scene_compile(s);
}

static void test_coupled_rows(void) {
  cmModel* m = squeezed(1);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmStability st;
  CHECK(cm_collide(m, d) == CM_OK && cm_data_stability(m, d, &st) == CM_OK);
  double x = CM_PI * 1e-3 / 2.686e-3, one = x * x / 4 + log(2) / 2.686;
  printf("  squeezed box: lambda %.4f per row (%.4f derived), %.4f together\n", st.lambda, one,
         st.lambda_coupled);
  CHECK_REL(st.lambda, one, 1e-3);
  CHECK_REL(st.lambda_coupled, 2 * st.lambda, 1e-6);
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC && strstr(d->message, "unstable together") != NULL);
  cm_data_free(d);
  cm_model_free(m);
  m = squeezed(CM_SUBSTEPS_AUTO);
  if (!m) return;
  d = cm_data_new(m);
  for (int n = 0; n < 500; n++)
    CHECK(cm_step(m, d) == CM_OK);
  CHECK(cm_v3_norm(d->body_cvel + 6) < 1e-6);
  cm_data_free(d);
  cm_model_free(m);
}

/* the same stiffness through the implicit solve is stable */
static void test_implicit_same_stiffness_is_fine(void) {
  cmModel* m = ball_on_ground(CM_LAW_LINEAR, CM_INTEGRATION_IMPLICIT, 1e9, 0, 0, 0, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 1000; i++) CHECK(cm_step(m, d) == CM_OK || i < 0);
  CHECK(d->message[0] == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* a body faster than max_speed (1e4 m/s by default) stops the run with a diagnosis */
static void test_max_speed(void) {
  cmModel* m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 2e4, 0, 0, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC);
  CHECK(strstr(d->message, "max_speed") && strstr(d->message, "'ball'"));
  CHECK(d->step == 0 && d->body_cvel[5] == 2e4);
  cm_data_free(d);
  cm_model_free(m);
  /* a speed whose square overflows is named as it is (it was "inf m/s") */
  m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 1e300, 0, 0, 0);
  if (!m) return;
  d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC);
  CHECK(strstr(d->message, "initial velocity of body 'ball' is 1e+300 m/s") != NULL);
  cm_data_free(d);
  cm_model_free(m);
  /* an angular speed times the radius above max_speed, written by the caller after a step */
  m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 0, 0, 0, 0);
  if (!m) return;
  d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  d->body_angvel[3] = 1e6; /* the ball's radius about 0.05 m: 5e4 m/s */
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC && d->step == 1 && d->body_angvel[3] == 1e6);
  CHECK(strstr(d->message, "angular velocity of body 'ball' at the start of step 2 times its "
                           "radius") != NULL);
  cm_data_free(d);
  cm_model_free(m);
}

/* a state the caller wrote non-finite (cmData is public) is refused before it reaches the
 * broadphase, naming the body and the field; nothing changes */
static void test_nonfinite_state_refused(void) {
  cmModel* m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 0, 0, 0, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  d->body_angvel[3 + 1] = NAN;
  CHECK(cm_step(m, d) == CM_ERR_ARG);
  CHECK(strstr(d->message, "'ball'") && strstr(d->message, "angular velocity (body_angvel)[1]"));
  CHECK(d->step == 1);
  d->body_angvel[3 + 1] = 0;
  d->body_cpos[3] = INFINITY;
  CHECK(cm_step(m, d) == CM_ERR_ARG && strstr(d->message, "position (body_cpos)[0]"));
  cm_data_free(d);
  cm_model_free(m);
}

/* a zero quaternion or a NaN applied force written by the caller: CM_ERR_ARG naming the field
 * (the first was replaced by the identity without a word, the second misdiagnosed as a contact
 * fault with CM_ERR_NUMERIC) */
static void test_bad_caller_input_refused(void) {
  cmModel* m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 0, 0, 0, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  memset(d->body_xquat + 4, 0, 4 * sizeof(double));
  CHECK(cm_step(m, d) == CM_ERR_ARG);
  CHECK(strstr(d->message, "'ball'") && strstr(d->message, "zero quaternion"));
  CHECK(d->step == 0 && d->body_xquat[4] == 0);
  d->body_xquat[4] = 1;
  d->body_xfrc[6 + 2] = NAN;
  CHECK(cm_step(m, d) == CM_ERR_ARG);
  CHECK(strstr(d->message, "applied force and moment (body_xfrc)[2]") != NULL);
  d->body_xfrc[6 + 2] = 0;
  d->body_dv[6 + 4] = INFINITY; /* (it was a NumericError blamed on a contact) */
  CHECK(cm_step(m, d) == CM_ERR_ARG);
  CHECK(strstr(d->message, "warm start (body_dv)[4]") != NULL);
  d->body_dv[6 + 4] = 0;
  CHECK(cm_step(m, d) == CM_OK && d->step == 1);
  cm_data_free(d);
  cm_model_free(m);
}

/* a prescribed body carried beyond the range of a double: CM_ERR_NUMERIC naming it, the state
 * of the step's start kept (cm_step returned CM_OK with a non-finite position, and the next step
 * blamed the caller) */
static void test_prescribed_overflow(void) {
  cmScene* s = cm_scene_new("t");
  cmBodyDef b = cm_body_def_default();
  b.name = "pusher";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.1;
  b.motion = CM_MOTION_PRESCRIBED;
  b.velocity[0] = 1e308;
  char err[256];
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  s->opt.timestep = 1;
  s->opt.steps = 3;
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK && d->body_cpos[0] == 1e308);
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC);
  CHECK(strstr(d->message, "prescribed body 'pusher'") && strstr(d->message, "non-finite"));
  CHECK(d->step == 1 && d->body_cpos[0] == 1e308);
  cm_data_free(d);
  cm_model_free(m);
}

/* more contact points than max_contacts: CM_ERR_LIMIT, nothing half-done */
static void test_max_contacts(void) {
  cmModel* m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 0, 50, 8, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_ERR_LIMIT);
  CHECK(strstr(d->message, "max_contacts = 50") != NULL);
  CHECK(d->step == 0 && d->body_xpos[5] == 0.049);
  cm_data_free(d);
  cm_model_free(m);
  /* with room for the 81 points it runs */
  m = ball_on_ground(CM_LAW_AREA_COMPLIANT, CM_INTEGRATION_DEFAULT, 1e5, 0, 81, 8, 0);
  if (!m) return;
  d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK && d->ncontact == 81);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_explicit_too_stiff);
  RUN(test_advised_substeps);
  RUN(test_coupled_rows);
  RUN(test_implicit_same_stiffness_is_fine);
  RUN(test_max_speed);
  RUN(test_nonfinite_state_refused);
  RUN(test_max_contacts);
  RUN(test_bad_caller_input_refused);
  RUN(test_prescribed_overflow);
  return test_report();
}
