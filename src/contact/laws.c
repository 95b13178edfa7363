/* Stage 4, laws: solver rows from the contacts of every pair (SPEC 3).
 *
 * area_compliant and linear: one row per contact, the response of its law at the contact's
 * distance, applied at p0 on A and p1 on B.
 * contact_time: the document's x^{ij} is one number per body pair, so all points of the pair
 * are reduced to one pair contact (SPEC 3.2): x = the deepest penetration, n = the
 * area-weighted mean normal, applied at the pressure centroid c = sum(A_k x_k p_k)/sum(A_k x_k)
 * (p_k the midpoint of the contact's two points), with m_rep = the smaller finite mass
 * (`mass: min`) or the effective mass 1/(J M^-1 J^T) of the pair at the centroid along n
 * (`mass: effective`, model/rows.c): then K/m_eff = (pi/T)^2 and the pair contact oscillates with
 * the period the law promises whatever the masses and the lever arm.
 * Normals of two-way contacts whose bodies are swapped relative to the pair are flipped first.
 * Every row gets its effective damping D = max(damping, step_damping h / compliance) and its
 * integration: a rule's `integration`, else explicit for contact_time and the scene's
 * integrator for the other laws. Joints add one row each while stretched beyond their play.
 *
 * Birth offsets (docs/contact-laws.md, "Edge contacts that begin deeper than they approached").
 * A vertex contact begins at most as deep as its vertex moved into the other body in the step
 * before (found one step late: the restitution of the area-compliant document comes from that).
 * An edge-edge contact can begin deeper: whether two edges give a contact is decided by tests
 * (linked, corner, chains, closest points inside, covered by a vertex contact:
 * collide/collide_edge.c) that change their answer with poses a rounding apart, and a contact
 * that a test turns on at depth d springs at once with the energy K d^2 / 2 that no motion paid
 * for. In a resting stack or pile at a stiff ka such contacts came and went every few steps, each
 * appearance pushing the bodies apart; they kept a stack of five boxes rocking for seconds and
 * the stiff pile rattling at about 10 Newton iterations per step (bench/README.md, "Edge contacts
 * that begin deep"). So an implicit edge-edge row of area_compliant or linear begins at the depth
 * its approach explains: its law is that of the depth less a birth offset
 *
 *   o = min(d - h max(0, approach rate), CM_BIRTH_MAX t), at least 0,
 *
 * at its first step (t the thinner body's thickness; 0 at the run's first step, whose overlaps
 * are the user's), kept with its identity in the table of anchors (model/data_internal.h) and
 * lowered to the depth whenever the depth falls below it (o = min(o, d)), never raised. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comply/law.h"
#include "contact/contact.h"
#include "core/cm_math.h"
#include "model/data_internal.h"
#include "model/state.h"

/* the largest birth offset, as a fraction of the thinner body's thickness (module comment): far
 * above the depths of a resting stiff contact (micrometres on 0.1 m boxes at ka 5e10), far below
 * anything a depth check sees (deep_penetration at 0.2) */
#define CM_BIRTH_MAX 1e-3

/* the anchors' hash index for the birth offsets of a step's edge-edge rows (from the arena);
 * cap 0 without anchors: every edge-edge contact is then new. Without memory for it (oom) the
 * step's edge-edge rows take no offset (the law at their whole depth), and a contact_limit
 * warning is counted. */
typedef struct Births {
  int* idx;
  int cap;
  int oom;
} Births;

int cm_laws_births_nomem = 0;

static Births births_index(cmData* d) {
  cmDataPriv* p = cm_priv(d);
  Births w = {NULL, 0, 0};
  if (!p->nanchor) return w;
  int cap = 16;
  while (cap < 2 * p->nanchor)
    cap *= 2;
  w.idx = cm_laws_births_nomem ? NULL : cm_arena_alloc(&p->arena, (size_t)cap * sizeof *w.idx);
  if (!w.idx) {
    w.oom = 1;
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return w;
  }
  w.cap = cap;
  cm_anchor_index(p, w.idx, cap);
  return w;
}

/* the birth offset of row r (just built from contact c, its points set) of a sub-step of length
 * h (module comment); -1 where it keeps none (not an edge-edge contact with an identity) */
static double birth_offset(const cmModel* m, const cmData* d, const Births* w, const cmRow* r,
                           const cmContact* c, double h) {
  const int* ck = cm_priv(d)->ckey + 4 * (size_t)r->contact;
  if (!(c->flags & CM_CONTACT_EDGE) || ck[0] < 0) return -1;
  double depth = -c->dist;
  if (!(depth > 0) || w->oom) return 0;
  if (w->cap) {
    int id[6] = {c->body[0], c->body[1], ck[0], ck[1], ck[2], ck[3]};
    const cmAnchor* a = cm_anchor_find(cm_priv(d), w->idx, w->cap, id);
    if (a) return a->o < depth ? a->o : depth;
  }
  if (d->step == 0) return 0;
  double ta = cm_body_thickness(m, c->body[0]), tb = cm_body_thickness(m, c->body[1]);
  double t = ta > 0 && (tb <= 0 || ta < tb) ? ta : tb;
  double approach = -cm_row_rate(m, d, r, r->n); /* > 0 into each other */
  double o = depth - h * (approach > 0 ? approach : 0);
  if (o > CM_BIRTH_MAX * t) o = CM_BIRTH_MAX * t;
  return o > 0 ? o : 0;
}

/* side sd of row r is a dynamic rigid body (not the world, a fixed or prescribed body, or a
 * deformable body's node or face point) */
static int rigid_side(const cmModel* m, const cmRow* r, int sd) {
  int b = r->body[sd];
  if (b < 0 || !(m->body_invmass[b] > 0) || m->body_motion[b] == CM_MOTION_DEFORMABLE) return 0;
  return sd == 0 ? r->node[0] < 0 : r->node[1] < 0 && r->fnode[0] < 0;
}

/* Rules' min_period (area_compliant and linear, implicit rows; docs/contact-laws.md, "Softened
 * contacts: min_period"), over the contact rows row[0..n) of the sub-step h.
 *
 * A rigid body b on implicit rows of stiffness K_i (1 / c) and inverse effective mass w_i along
 * their normals (cm_row_invmass: the sum over the row's rigid sides, rotation included; a
 * deformable body's node or face point is left out, or its light node would bound the rigid
 * body it touches) has no contact mode faster than Omega_b = sum_i K_i w_i: the trace of
 * M^-1/2 (sum K_i j_i j_i^T) M^-1/2 over b and the rigid bodies its rows join, which bounds
 * that matrix's eigenvalues, the squares of its modes' rates. A row of a rule
 * with min_period = beta is scaled by s = min over its dynamic rigid bodies of
 * (2 pi / (beta h))^2 / Omega_b, where that is below 1: its force, stiffness and damping
 * together, so it is the rule's law with ka (or stiffness) times s, the same damping time D / K
 * (the stability rule D / K >= h / 2 and the restitution of step_damping hold), the friction
 * spring (k_t = K) following. After it no body rings faster than beta sub-steps on the rows of
 * such rules; all the rows of a body scaled alike keep their pressure distribution, and the sum
 * over a face converges as its mesh is refined (a bound per row would grow with the rows'
 * count). A deformable body's node side bounds nothing (its nodes have their own masses and the
 * finite elements their own stiffness). Counted in d->soft_rows, the least s in
 * d->soft_factor. */
static void soften_rows(const cmModel* m, cmData* d, double h, cmRow* row, int n) {
  /* no rule with a min_period: no row to look at (the rows' scan below was 0.2 % of the
   * instructions of the resting S2 pile of 125 boxes, whose rule has none) */
  int any = 0;
  for (int q = 0; q < m->nrule && !any; q++)
    any = m->rule[q].min_period > 0;
  if (!any) return;
  any = 0;
  for (int i = 0; i < n && !any; i++)
    any = row[i].implicit && m->rule[d->pair[row[i].pair].rule].min_period > 0;
  if (!any) return;
  cmDataPriv* p = cm_priv(d);
  double* omega = cm_arena_calloc(&p->arena, (size_t)m->nbody, sizeof *omega);
  if (!omega) {
    d->warning[CM_WARN_CONTACT_LIMIT]++; /* no memory: as for the rows themselves */
    return;
  }
  for (int i = 0; i < n; i++) {
    const cmRow* r = &row[i];
    if (!r->implicit || !(r->c > 0)) continue;
    /* w of the rigid sides only: a node's light mass would bound the rigid body it touches */
    double share[2], w = cm_row_invmass(m, d, r, r->n, share);
    int rig[2] = {rigid_side(m, r, 0), rigid_side(m, r, 1)};
    /* (the whole w where both sides count: the same sum, bit for bit) */
    double kw = (rig[0] && rig[1] ? w : rig[0] ? share[0] : rig[1] ? share[1] : 0) / r->c;
    for (int sd = 0; sd < 2; sd++)
      if (rig[sd]) omega[r->body[sd]] += kw;
  }
  for (int i = 0; i < n; i++) {
    cmRow* r = &row[i];
    double beta = m->rule[d->pair[r->pair].rule].min_period;
    if (!r->implicit || !(beta > 0)) continue;
    double cap = 2 * CM_PI / (beta * h), s = 1;
    cap *= cap;
    for (int sd = 0; sd < 2; sd++)
      if (rigid_side(m, r, sd) && omega[r->body[sd]] > cap) s = fmin(s, cap / omega[r->body[sd]]);
    if (!(s < 1)) continue;
    r->f *= s;
    r->c /= s;
    r->D *= s;
    d->soft_rows++;
    if (d->soft_factor == 0 || s < d->soft_factor) d->soft_factor = s;
  }
}

static int row_implicit(const cmModel* m, const cmRuleDef* rule) {
  if (rule->integration == CM_INTEGRATION_IMPLICIT) return 1;
  if (rule->integration == CM_INTEGRATION_EXPLICIT) return 0;
  if (rule->law == CM_LAW_CONTACT_TIME) return 0;
  return m->opt.integrator == CM_INTEGRATOR_IMPLICIT;
}

/* the nodes of face f of deformable body b and the barycentric weights of the point p on it
 * (the deformed face; clamped into the triangle, summing to 1) */
static void face_point(const cmModel* m, const cmData* d, int b, int f, const double p[3],
                       int node[3], double w[3]) {
  int g = m->body_geom[b];
  const int* fv = m->mesh_face + 3 * ((size_t)m->geom_faceadr[g] + (size_t)f);
  const double* x[3];
  for (int i = 0; i < 3; i++) {
    node[i] = m->mesh_vert_node[m->geom_vertadr[g] + fv[i]];
    x[i] = d->node_pos + 3 * (size_t)node[i];
  }
  double e1[3], e2[3], q[3];
  cm_v3_sub(e1, x[1], x[0]);
  cm_v3_sub(e2, x[2], x[0]);
  cm_v3_sub(q, p, x[0]);
  double a = cm_v3_dot(e1, e1), bb = cm_v3_dot(e1, e2), c = cm_v3_dot(e2, e2);
  double s1 = cm_v3_dot(q, e1), s2 = cm_v3_dot(q, e2), det = a * c - bb * bb;
  double u = det > 0 ? (c * s1 - bb * s2) / det : 0, v = det > 0 ? (a * s2 - bb * s1) / det : 0;
  w[1] = u < 0 ? 0 : u;
  w[2] = v < 0 ? 0 : v;
  w[0] = 1 - w[1] - w[2];
  if (w[0] < 0) {
    double s = w[1] + w[2];
    w[1] /= s;
    w[2] /= s;
    w[0] = 0;
  }
}

/* the row's point on body A (rA, from its com), on body B (rB) */
static void set_point_a(const cmData* d, cmRow* r, const double pA[3]) {
  static const double origin[3] = {0, 0, 0};
  cm_v3_sub(r->rA, pA, r->body[0] >= 0 ? d->body_cpos + 3 * r->body[0] : origin);
}
static void set_point_b(const cmData* d, cmRow* r, const double pB[3]) {
  static const double origin[3] = {0, 0, 0};
  cm_v3_sub(r->rB, pB, r->body[1] >= 0 ? d->body_cpos + 3 * r->body[1] : origin);
}
static void set_points(const cmData* d, cmRow* r, const double pA[3], const double pB[3]) {
  set_point_a(d, r, pA);
  set_point_b(d, r, pB);
}

/* the representative mass of a contact_time row (its bodies, points and normal set): the
 * smaller finite mass, or the effective mass at the row's points along its normal */
static double rep_mass(const cmModel* m, const cmData* d, const cmRuleDef* rule, const cmRow* r) {
  if (rule->mass == CM_REP_MASS_EFFECTIVE) {
    double w = cm_row_invmass(m, d, r, r->n, NULL);
    return w > 0 ? 1.0 / w : INFINITY;
  }
  double ma = INFINITY, mb = INFINITY;
  if (r->body[0] >= 0 && m->body_invmass[r->body[0]] > 0) ma = m->body_mass[r->body[0]];
  if (r->body[1] >= 0 && m->body_invmass[r->body[1]] > 0) mb = m->body_mass[r->body[1]];
  return ma < mb ? ma : mb;
}

/* the pair contact of a contact_time pair */
static void pair_row(const cmModel* m, const cmData* d, const cmContactPair* P,
                     const cmRuleDef* rule, double h, cmRow* r) {
  const cmContact* c0 = &d->contact[P->first];
  r->body[0] = c0->body[0];
  r->body[1] = c0->body[1];
  double n[3] = {0, 0, 0}, cen[3] = {0, 0, 0}, wsum = 0, x = 0;
  for (int i = 0; i < P->points; i++) {
    const cmContact* c = &d->contact[P->first + i];
    double s = c->body[0] == r->body[0] ? 1 : -1, pk[3], w = c->area * -c->dist;
    cm_v3_madd(n, n, c->n, s * c->area);
    cm_v3_add(pk, c->p0, c->p1);
    cm_v3_madd(cen, cen, pk, 0.5 * w);
    wsum += w;
    if (-c->dist > x) x = -c->dist;
  }
  if (!(cm_v3_normalize(n) > 0)) cm_v3_copy(n, c0->n);
  if (wsum > 0) {
    cm_v3_scale(cen, cen, 1.0 / wsum);
  } else {
    cm_v3_add(cen, c0->p0, c0->p1);
    cm_v3_scale(cen, cen, 0.5);
  }
  cm_v3_copy(r->n, n);
  set_points(d, r, cen, cen);
  cmResponse res = cm_law_contact_time(rule, -x, rep_mass(m, d, rule, r));
  r->dist = -x;
  r->f = res.force;
  r->c = res.compliance;
  r->D = cm_response_damping(&res, h);
}

/* world position of a joint anchor on side k (body frame anchor, or the world point) */
static void anchor_world(const cmModel* m, const cmData* d, int j, int k, double p[3]) {
  int b = m->joint_body[2 * j + k];
  const double* a = m->joint_anchor + 6 * j + 3 * k;
  if (b < 0) {
    cm_v3_copy(p, a);
    return;
  }
  cm_quat_rotate(p, d->body_xquat + 4 * b, a);
  cm_v3_add(p, p, d->body_xpos + 3 * b);
}

/* Joints (rigidbody-interaction.txt): a point link with the contact_time law of its rule. The
 * stretch s = |pA - pB| beyond the play, x = s - play, acts like a penetration: a row whose
 * normal points from A's anchor toward B's, so that the row's push on A pulls the two anchors
 * together (never pushes them apart), with K = m_rep (pi/T)^2 and D = -2 m_rep ln(e_r) / T
 * (m_rep as for a contact pair, at the anchors along the normal). No row, hence no force, while
 * the stretch is within the play. A joint's rule never has law none (the compiler refuses it).
 * With dir given, the row is built along dir at zero stretch instead (for the stability check
 * before a run, whose stretch directions are not known yet). */
int cm_joint_row(const cmModel* m, const cmData* d, int j, const double dir[3], double h,
                 cmRow* r) {
  int a = m->joint_body[2 * j], b = m->joint_body[2 * j + 1], sa = 0;
  if (a < 0) sa = 1; /* keep a body on side A */
  double pa[3], pb[3], dv[3];
  anchor_world(m, d, j, sa, pa);
  anchor_world(m, d, j, 1 - sa, pb);
  cm_v3_sub(dv, pb, pa);
  double stretch = cm_v3_norm(dv);
  const cmRuleDef* rule = &m->rule[m->joint_rule[j] >= 0 ? m->joint_rule[j] : 0];
  double x = dir ? 0 : stretch - rule->play;
  if (!dir && (!(x > 0) || !(stretch > 0))) return 0;
  memset(r, 0, sizeof *r);
  r->off = -1;
  r->node[0] = r->node[1] = -1;
  r->fnode[0] = -1;
  r->body[0] = sa ? b : a;
  r->body[1] = sa ? a : b;
  r->pair = -1;
  r->contact = -1;
  r->joint = j;
  r->implicit = row_implicit(m, rule);
  if (dir)
    cm_v3_copy(r->n, dir);
  else
    cm_v3_scale(r->n, dv, 1.0 / stretch);
  set_points(d, r, pa, pb);
  cmRuleDef law = *rule;
  law.play = 0;
  cmResponse res = cm_law_contact_time(&law, -x, rep_mass(m, d, rule, r));
  r->dist = -x;
  r->f = res.force;
  r->c = res.compliance;
  r->D = cm_response_damping(&res, h);
  cm_row_friction_basis(r);
  return r->c > 0; /* two infinite masses: nothing to move */
}

static void joint_rows(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  for (int j = 0; j < m->njoint; j++)
    if (cm_joint_row(m, d, j, NULL, h, &p->row[p->nrow])) p->nrow++;
}

/* a user law's response is in its range (law.h): force finite and <= 0, compliance > 0 and
 * finite or <= 0 (the contact skipped), damping and step damping finite and >= 0. Else the
 * first such response of the step is described in d->message and law_bad set, for cm_step to
 * refuse the step (a NaN force or a pulling one was dropped without a word: the body fell
 * through); 0 then, so that the contact makes no row. */
static int user_response_ok(const cmModel* m, cmData* d, int rule, const cmContact* c,
                            const cmResponse* r) {
  if (!(r->compliance > 0) && !isnan(r->compliance)) return 1; /* skipped, as documented */
  if (isfinite(r->force) && r->force <= 0 && isfinite(r->compliance) && isfinite(r->damping) &&
      r->damping >= 0 && isfinite(r->step_damping) && r->step_damping >= 0)
    return 1;
  cmDataPriv* p = cm_priv(d);
  if (!p->law_bad)
    snprintf(d->message, sizeof d->message,
             "the user law of rule %d (cm_model_set_law) returned force %g N, compliance %g m/N, "
             "damping %g N s/m and step damping %g for a contact of '%s' and '%s' at distance "
             "%g m: the force must be finite and <= 0, the compliance finite and > 0 (or <= 0 to "
             "skip the contact), the damping and the step damping finite and >= 0",
             rule, r->force, r->compliance, r->damping, r->step_damping, m->body_name[c->body[0]],
             m->body_name[c->body[1]], c->dist);
  p->law_bad = 1;
  return 0;
}

void cm_stage_laws(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  int nrow = m->njoint;
  for (int k = 0; k < d->npair; k++)
    nrow += d->pair[k].points; /* >= 1 per pair */
  p->nrow = 0;
  p->row = nrow ? cm_arena_alloc(&p->arena, (size_t)nrow * sizeof *p->row) : NULL;
  if (nrow && !p->row) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  Births births = {NULL, 0, 0};
  int births_built = 0;
  for (int k = 0; k < d->npair; k++) {
    const cmContactPair* P = &d->pair[k];
    const cmRuleDef* rule = &m->rule[P->rule];
    int implicit = row_implicit(m, rule);
    if (rule->law == CM_LAW_CONTACT_TIME && !m->rule_law_fn[P->rule]) {
      cmRow* r = &p->row[p->nrow];
      memset(r, 0, sizeof *r);
      r->off = -1;
      r->node[0] = r->node[1] = -1;
      r->fnode[0] = -1;
      r->pair = k;
      r->contact = P->first;
      r->joint = -1;
      r->ncontact = P->points;
      r->implicit = implicit;
      pair_row(m, d, P, rule, h, r);
      /* within the play: no force at all (rigidbody-interaction.txt: F = 0 if x < d_play) */
      if (!(r->f < 0)) continue;
      r->mu = rule->friction;
      r->vs = rule->stick_velocity;
      cm_row_friction_basis(r);
      p->nrow++;
      continue;
    }
    union {
      void* p;
      cmLawFn fn;
    } user;
    user.p = m->rule_law_fn[P->rule];
    /* (the user's laws get the contact's depth as it is) */
    int born = implicit && !user.p;
    for (int i = 0; i < P->points; i++) {
      const cmContact* c = &d->contact[P->first + i];
      cmResponse res = user.p                       ? user.fn(m->rule_law_ctx[P->rule], c->dist, c)
                       : rule->law == CM_LAW_LINEAR ? cm_law_linear(rule, c->dist)
                                                    : cm_law_area_compliant(rule, c->dist, c->area);
      if (user.p && !user_response_ok(m, d, P->rule, c, &res)) continue;
      if (!(res.compliance > 0)) continue; /* zero area: no force (counted at detection) */
      cmRow* r = &p->row[p->nrow++];
      /* every field of the row is written below, the ones without a value of their own zero,
       * as the memset of the whole row before them made them (cmRow's 296 bytes cleared, then
       * most written again: 0.5 % of the instructions of the resting S2 pile of 125 boxes); a
       * field added to cmRow must be written here too, which the size check reminds of */
      _Static_assert(sizeof(cmRow) == 304, "cmRow changed: write its new field in cm_stage_laws");
      r->body[0] = c->body[0];
      r->body[1] = c->body[1];
      r->pair = k;
      r->contact = P->first + i;
      r->joint = -1;
      r->ncontact = 1;
      r->implicit = implicit;
      r->node[0] = r->node[1] = -1;
      r->fnode[0] = -1;
      r->fnode[1] = r->fnode[2] = 0;
      cm_v3_set(r->fw, 0, 0, 0);
      r->lambda = r->ftan[0] = r->ftan[1] = 0;
      r->anchored = 0;
      cm_v3_set(r->stretch, 0, 0, 0);
      cm_v3_copy(r->n, c->n);
      /* Both bodies at one point, the middle of p0 (on A) and p1 (on B): the row's force and its
       * reaction act on one line, so the pair's moments cancel and a collision conserves angular
       * momentum. At p0 on A and p1 on B (until 2026-12-07) the friction force and its reaction
       * were a penetration depth apart along n, a couple depth x F_t: two spinning boxes
       * colliding at ka 1e9, mu 0.3, lost 1.8e-4 of their angular momentum, whatever h (the
       * normal force lies along p0 - p1, so it was exact: 1e-15 with mu 0). A deformable
       * side's point is its own (a node, or a face's point): the other body then takes it. */
      double mid[3], w[3];
      cm_v3_sub(w, c->p1, c->p0);
      cm_v3_madd(mid, c->p0, c->n, 0.5 * cm_v3_dot(w, c->n));
      set_points(d, r, mid, mid);
      /* a vertex of a deformable body moves with its node (the compiler allows deformable
       * bodies only as the vertex side of vertex contacts) */
      if (c->vert >= 0 && m->body_motion[c->body[0]] == CM_MOTION_DEFORMABLE) {
        r->node[0] = m->mesh_vert_node[m->geom_vertadr[m->body_geom[c->body[0]]] + c->vert];
        cm_v3_set(r->rA, 0, 0, 0);
        set_point_b(d, r, c->p0);
      }
      if (c->face >= 0 && m->body_motion[c->body[1]] == CM_MOTION_DEFORMABLE) {
        face_point(m, d, c->body[1], c->face, c->p1, r->fnode, r->fw);
        cm_v3_set(r->rB, 0, 0, 0);
        if (r->node[0] < 0) set_point_a(d, r, c->p1);
      }
      r->dist = c->dist;
      if (born && (c->flags & CM_CONTACT_EDGE) && !births_built) {
        births = births_index(d); /* (once a sub-step, at its first edge-edge contact) */
        births_built = 1;
      }
      r->off = born ? birth_offset(m, d, &births, r, c, h) : -1;
      if (r->off > 0) {
        /* the law at the depth less the birth offset (module comment) */
        r->dist = c->dist + r->off;
        res = rule->law == CM_LAW_LINEAR ? cm_law_linear(rule, r->dist)
                                         : cm_law_area_compliant(rule, r->dist, c->area);
      }
      r->f = res.force;
      r->c = res.compliance;
      r->D = cm_response_damping(&res, h);
      r->mu = rule->friction;
      r->vs = rule->stick_velocity;
      cm_row_friction_basis(r);
    }
  }
  soften_rows(m, d, h, p->row, p->nrow);
  joint_rows(m, d, h);
}
