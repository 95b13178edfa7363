/* User laws through the public API (cm_model_set_law): a user function replaces a rule's law.
 *  - a user law identical to the built-in linear law gives bit-identical trajectories;
 *  - a nonlinear per-area law p = kn x^1.5 (Hertz-like) holds a box at the penetration
 *    x = (W / (kn A))^(2/3) that makes the pressure carry the weight W over the face area A. */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static cmModel* box_scene(cmLawType law) {
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.05, 3);
  b.position[2] = 0.03;
  b.angular_velocity[0] = 0.5;
  cmRuleDef r = cm_rule_def_default();
  r.law = law;
  r.stiffness = 2e5;
  r.damping = 2e5 * 1e-3;
  return scene_compile(scene_on_ground("custom", NULL, &b, &r));
}

static cmResponse my_linear(void* ctx, double dist, const cmContact* c) {
  (void)c;
  const cmRuleDef* r = ctx;
  cmResponse res = {r->stiffness * dist, 1.0 / r->stiffness, r->damping, 0};
  return res;
}

static void test_user_linear_is_identical(void) {
  cmModel* a = box_scene(CM_LAW_LINEAR);
  cmModel* b = box_scene(CM_LAW_LINEAR);
  if (!a || !b) return;
  CHECK(cm_model_set_law(b, 1, my_linear, &b->rule[1]) == CM_OK);
  CHECK(cm_model_set_law(b, 99, my_linear, NULL) == CM_ERR_ARG);
  CHECK(cm_model_set_law(b, 1, NULL, NULL) == CM_ERR_ARG);
  cmData* da = cm_data_new(a);
  cmData* db = cm_data_new(b);
  for (int i = 0; i < 500; i++) {
    cm_step(a, da);
    cm_step(b, db);
  }
  CHECK(da->ncontact > 0);
  CHECK(!memcmp(da->body_xpos, db->body_xpos, 6 * sizeof(double)));
  CHECK(!memcmp(da->body_xquat, db->body_xquat, 8 * sizeof(double)));
  cm_data_free(da);
  cm_data_free(db);
  cm_model_free(a);
  cm_model_free(b);
}

typedef struct Hertz {
  double kn; /* Pa / m^1.5 */
} Hertz;

/* pressure kn x^1.5 over the contact's area: f = -kn A x^1.5, compliance 1/f'(x) */
static cmResponse hertz(void* ctx, double dist, const cmContact* c) {
  const Hertz* hz = ctx;
  cmResponse res = {0, 0, 0, 1.0};
  double x = -dist;
  if (!(x > 0) || !(c->area > 0)) return res;
  res.force = -hz->kn * c->area * pow(x, 1.5);
  res.compliance = 1.0 / (1.5 * hz->kn * c->area * sqrt(x));
  return res;
}

static void test_hertz_like(void) {
  Hertz hz = {1e12};
  cmModel* m = box_scene(CM_LAW_AREA_COMPLIANT);
  if (!m) return;
  CHECK(cm_model_set_law(m, 1, hertz, &hz) == CM_OK);
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 1500; i++) cm_step(m, d);
  double W = m->body_mass[1] * 9.81, expect = pow(W / (hz.kn * 0.01), 2.0 / 3.0);
  double pen = d->npair ? d->pair[0].max_penetration : 0;
  printf("  Hertz-like law: penetration %.6g m, expected %.6g m\n", pen, expect);
  CHECK_REL(pen, expect, 0.01);
  cm_data_free(d);
  cm_model_free(m);
}

/* a user law that returns a response out of its range (a NaN or pulling force, a NaN
 * compliance, a negative damping): cm_step refuses the step with CM_ERR_ARG naming the rule and
 * the values, the state of the step's start kept (the contact was dropped without a word: the
 * box fell through); a compliance of 0 still skips the contact, as law.h documents */
typedef struct BadLaw {
  int which;
} BadLaw;

static cmResponse bad_law(void* ctx, double dist, const cmContact* c) {
  const BadLaw* b = ctx;
  cmResponse res = {2e5 * dist, 1.0 / 2e5, 0, 1};
  (void)c;
  switch (b->which) {
  case 0: res.force = NAN; break;
  case 1: res.force = 1e3; break;
  case 2: res.compliance = NAN; break;
  case 3: res.damping = -1; break;
  case 4: res.step_damping = INFINITY; break;
  case 5: res.compliance = 0; break; /* skip: allowed */
  }
  return res;
}

static void test_bad_user_law(void) {
  for (int which = 0; which < 6; which++) {
    BadLaw bl = {which};
    cmModel* m = box_scene(CM_LAW_LINEAR);
    if (!m) return;
    CHECK(cm_model_set_law(m, 1, bad_law, &bl) == CM_OK);
    cmData* d = cm_data_new(m);
    cmStatus st = CM_OK;
    long i = 0;
    uint64_t before = 0;
    for (; i < 200 && st == CM_OK; i++) {
      before = cm_data_hash(m, d);
      st = cm_step(m, d);
    }
    if (which < 5) {
      /* the refused step left the state of its start, bit for bit (a step applied would have
       * passed the height check below: the box moves 0.3 mm a step) */
      CHECK(cm_data_hash(m, d) == before);
      /* the box, 5 mm above the ground, lands within 40 steps: the step of its first contact
       * is refused, the box still above the ground */
      CHECK(st == CM_ERR_ARG && d->step > 0 && d->step < 40 && i == d->step + 1);
      CHECK(strstr(d->message, "the user law of rule 1") && strstr(d->message, "'box'"));
      printf("  bad law %d: refused at step %ld, z %.6g m\n", which, d->step + 1, d->body_xpos[5]);
      CHECK(d->body_xpos[5] > 0.02);
    } else {
      CHECK(st == CM_OK && d->step == 200 && d->body_xpos[5] < 0); /* no contact: it falls */
    }
    cm_data_free(d);
    cm_model_free(m);
  }
}

int main(void) {
  RUN(test_user_linear_is_identical);
  RUN(test_hertz_like);
  RUN(test_bad_user_law);
  return test_report();
}
