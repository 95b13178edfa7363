/* Birth offsets of edge-edge contacts (src/contact/laws.c; docs/contact-laws.md, "Edge contacts
 * that begin deeper than they approached").
 *
 * Two bars crossed edge on edge (tests/scenes.h, scene_crossed_bars: the upper one dynamic, the
 * lower one fixed, no gravity, no friction): their one contact is an edge-edge contact right
 * under the upper bar's centre, along z. The upper bar is put at rest at a depth delta into the
 * lower one between two steps, so the contact begins at a depth that no approach explains.
 *
 * What the law gives, derived: the mid-step law of a contact of stiffness K = ka A at penetration
 * p acting on mass m (pure translation: the contact is under the centre of mass), with the
 * damping D = stepDamping h K (stepDamping = 1), pushes it out over the step at
 *
 *   v1 = h K p / (m + 1.5 h^2 K)      (m v1 = h (K (p - h v1 / 2) - D v1))
 *
 * and p is the depth less the birth offset o = min(delta, 1e-3 s) (s = 0.1 m, the bar's
 * thickness: at most 0.1 mm), or the whole depth at a run's first step (the user's overlap).
 * Checked to 1e-6 of v1 (the solve's tolerance is 1e-8 of the momentum scale), with o read from
 * the table of anchors; then that the offset follows the depth down as the bars separate and is
 * never raised. */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "contact/contact.h"
#include "model/data_internal.h"
#include "scenes.h"
#include "test.h"

static const double L = 0.6, S = 0.1, KA = 5e10, H = 1e-3;

static cmModel* bars(void) {
  cmBodyDef a, b;
  scene_crossed_bars(L, S, -1e-3, &a, &b); /* 1 mm apart */
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = KA;
  r.step_damping = 1.0;
  r.friction = 0;
  cmScene* s = scene_two_bodies("birth", &a, &b, &r);
  s->opt.timestep = H;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  return scene_compile(s);
}

/* the upper bar (body 0) at rest with its ridge delta into the lower one's */
static void place(cmData* d, double delta) {
  d->body_cpos[2] = S * sqrt(2.0) - delta;
  memset(d->body_cvel, 0, 3 * sizeof *d->body_cvel);
  memset(d->body_angvel, 0, 3 * sizeof *d->body_angvel);
  memset(d->body_dv, 0, 6 * sizeof *d->body_dv);
}

/* the one contact of the last step (an edge-edge contact), NULL if not exactly that */
static const cmContact* edge_contact(const cmData* d) {
  CHECK(d->ncontact == 1);
  if (d->ncontact != 1) return NULL;
  CHECK(d->contact[0].flags & CM_CONTACT_EDGE);
  return &d->contact[0];
}

/* the birth offset the table keeps for that contact (-1 if none) */
static double kept_offset(const cmData* d) {
  const cmDataPriv* p = cm_priv(d);
  CHECK(p->nanchor == 1);
  return p->nanchor == 1 ? p->anchor[0].o : -1;
}

/* v1 of the derivation for the contact c at penetration p */
static double v_out(const cmModel* m, const cmContact* c, double p) {
  double K = KA * c->area, mass = 1 / m->body_invmass[0];
  return H * K * p / (mass + 1.5 * H * H * K);
}

/* one step 1 mm apart (no contact), then the upper bar at rest delta deep: the step of the
 * contact's birth taken */
static cmData* born_at_rest(const cmModel* m, double delta) {
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  CHECK(d->ncontact == 0);
  place(d, delta);
  CHECK(cm_step(m, d) == CM_OK);
  return d;
}

/* one step apart, then delta deep at rest: the contact begins with o = min(delta, 1e-3 S) */
static void check_birth(double delta) {
  cmModel* m = bars();
  if (!m) return;
  cmData* d = born_at_rest(m, delta);
  const cmContact* c = edge_contact(d);
  if (c) {
    double depth = -c->dist, o = fmin(depth, 1e-3 * S);
    CHECK_NEAR(depth, delta, 1e-12);
    CHECK_NEAR(kept_offset(d), o, 1e-15);
    double v = d->body_cvel[2];
    printf("  delta %.1e m: offset %.3e m, pushed out at %.6e m/s (law at the whole depth: %.6e)\n",
           delta, kept_offset(d), v, v_out(m, c, depth));
    if (depth <= 1e-3 * S)
      CHECK(fabs(v) < 1e-9);
    else
      CHECK_NEAR(v / v_out(m, c, depth - o), 1.0, 1e-6);
    CHECK(fabs(d->body_cvel[0]) < 1e-9 && fabs(d->body_cvel[1]) < 1e-9);
  }
  cm_data_free(d);
  cm_model_free(m);
}

static void test_birth_below_the_cap(void) { check_birth(5e-5); }

static void test_birth_beyond_the_cap(void) { check_birth(3e-4); }

/* at the run's first step an overlap is the user's: no offset, the law at the whole depth */
static void test_first_step_overlap_is_pushed_out(void) {
  cmModel* m = bars();
  if (!m) return;
  cmData* d = cm_data_new(m);
  place(d, 5e-5);
  CHECK(cm_step(m, d) == CM_OK);
  const cmContact* c = edge_contact(d);
  if (c) {
    CHECK(kept_offset(d) == 0);
    CHECK_NEAR(d->body_cvel[2] / v_out(m, c, -c->dist), 1.0, 1e-6);
  }
  cm_data_free(d);
  cm_model_free(m);
}

/* born at rest 50 um deep (o = 50 um, no force), then drawn out at 2 mm/s: the offset follows the
 * depth down step by step (o = the depth at the step's start, so still no force), and never rises
 * when the bar is pushed back in */
static void test_offset_follows_the_depth_down(void) {
  cmModel* m = bars();
  if (!m) return;
  cmData* d = born_at_rest(m, 5e-5);
  double o = kept_offset(d);
  CHECK_NEAR(o, 5e-5, 1e-15);
  for (int i = 0; i < 10; i++) {
    d->body_cvel[2] = 2e-3;
    memset(d->body_dv, 0, 6 * sizeof *d->body_dv);
    CHECK(cm_step(m, d) == CM_OK);
    const cmContact* c = edge_contact(d);
    if (!c) break;
    double depth = -c->dist;
    CHECK(kept_offset(d) <= o);
    CHECK_NEAR(kept_offset(d), fmin(o, depth), 1e-15);
    o = kept_offset(d);
    CHECK(fabs(d->body_cvel[2] - 2e-3) < 1e-9); /* no force: the law sees no penetration */
  }
  CHECK_NEAR(o, 5e-5 - 9 * 2e-3 * H, 1e-12);
  /* pushed back in by 20 um at rest: the live contact keeps its offset and the law acts on the
   * depth beyond it */
  double z = d->body_cpos[2];
  place(d, 0);
  d->body_cpos[2] = z - 2e-5;
  CHECK(cm_step(m, d) == CM_OK);
  const cmContact* c = edge_contact(d);
  if (c) {
    CHECK_NEAR(kept_offset(d), o, 1e-15);
    CHECK_NEAR(d->body_cvel[2] / v_out(m, c, -c->dist - o), 1.0, 1e-6);
  }
  cm_data_free(d);
  cm_model_free(m);
}

/* out of memory for the offsets' lookup (the test hook cm_laws_births_nomem: a small scene's
 * scratch never runs out there): the step still succeeds, a contact_limit warning is counted,
 * and the edge contact takes no offset that step (the law at its whole depth, pushed out as at
 * a first step), never a silent one; with memory back the table holds offset 0 for it */
static void test_out_of_memory(void) {
  cmModel* m = bars();
  if (!m) return;
  cmData* d = born_at_rest(m, 5e-5);
  CHECK_NEAR(kept_offset(d), 5e-5, 1e-15);
  CHECK(d->warning[CM_WARN_CONTACT_LIMIT] == 0);
  cm_laws_births_nomem = 1;
  CHECK(cm_step(m, d) == CM_OK);
  cm_laws_births_nomem = 0;
  CHECK(d->warning[CM_WARN_CONTACT_LIMIT] == 1);
  const cmContact* c = edge_contact(d);
  if (c) {
    CHECK(kept_offset(d) == 0);
    CHECK_NEAR(d->body_cvel[2] / v_out(m, c, -c->dist), 1.0, 1e-6);
  }
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_birth_below_the_cap);
  RUN(test_birth_beyond_the_cap);
  RUN(test_first_step_overlap_is_pushed_out);
  RUN(test_offset_follows_the_depth_down);
  RUN(test_out_of_memory);
  return test_report();
}
