/* Explicit stability of the solver rows (docs/contact-laws.md, "Explicit stability").
 *
 * One explicit row. The forces stage applies F = -f(x) - D x' from the state at the start of the
 * sub-step, and the integrator is symplectic Euler. Along the row the bodies move like a point
 * of the effective mass m_eff = 1/W, W = J M^-1 J^T (model/rows.c), on a spring K = 1/compliance
 * and a dashpot D. With a = w h (w^2 = K W) and b = D W h (= 2 zeta w h,
 * zeta = D / (2 sqrt(K m_eff))), one sub-step maps (x, u = h x') to
 *
 *   u+ = (1 - b) u - a^2 x,   x+ = x + u+:   [[1 - a^2, 1 - b], [-a^2, 1 - b]],
 *
 * trace 2 - a^2 - b, determinant 1 - b. Both eigenvalues lie inside the unit circle (Jury:
 * |det| < 1, |trace| < 1 + det) iff b > 0 and a^2 + 2 b < 4, i.e.
 *
 *   lambda = (a^2 + 2 b) / 4 = ((w h)^2 + 4 zeta w h) / 4 = W (K h^2 + 2 D h) / 4 < 1
 *   <=>  w h < 2 (sqrt(1 + zeta^2) - zeta)            (2 undamped; 1.61 at zeta = 0.22)
 *
 * (b = 0: marginally stable below a = 2). The damper is explicit too: beyond b = 2 it reverses
 * the relative velocity and amplifies it every sub-step, whatever the spring. The law's
 * non-pulling clamp then turns the growth into chatter (the force jumps between 0 and large
 * pushes) rather than an explosion; the motion is still not the law's.
 *
 * Several rows. For all explicit rows at once, with q_i = (K_i h^2 + 2 D_i h) / 4 (kg) and
 * W_ij = J_i M^-1 J_j^T (rows coupled through the bodies they share), the condition is
 * lambda_max(Q^1/2 W Q^1/2) < 1: exact when every damping is proportional to its stiffness;
 * for other damping it held in every one of 400 random 2- and 3-mode systems (exact
 * eigenvalues: all stable below 1, all unstable above). Two bounds of lambda_max, O(rows) each:
 *  - lower, per group of rows (a contact pair's rows, or one joint): the Rayleigh quotient with
 *    weights sqrt(q_i), lambda_g = |sum_i q_i J_i|^2_{M^-1} / sum_i q_i. One row: exactly q W.
 *    A flat box on N equal points: the translation mode N q / m (the moments cancel). The
 *    group's m_eff = (sum q_i)^2 / |sum q_i J_i|^2_{M^-1}, with K and D summed, gives w, zeta and
 *    w h as for one row, and lambda_g = W q exactly as above;
 *  - upper: Gershgorin on Q^1/2 W Q^1/2 with |W_ij| <= sum over the shared bodies b of
 *    sqrt(W_ib W_jb) (Cauchy-Schwarz in the metric M_b^-1, W_ib body b's share of row i):
 *    lambda_max <= max_i sqrt(q_i) sum_b sqrt(W_ib) sigma_b, sigma_b = sum_{j at b} sqrt(q_j W_jb)
 *    (exact for one row alone). It is formed for the stiffness and the damping parts of q
 *    separately, G_K and G_D, so that a sub-step alpha h (alpha <= 1) has
 *    lambda_max <= alpha^2 G_K + alpha G_D (Weyl; the damping taken at h bounds it at alpha h,
 *    since no law's damping decreases with h).
 * The guard refuses a sub-step whose lower bound reaches 1 (surely unstable); `substeps: auto`
 * splits a sub-step until the upper bound is at most CM_STAB_TARGET (surely stable). */
#include <math.h>
#include <string.h>

#include "comply/law.h"
#include "contact/contact.h"
#include "core/cm_math.h"
#include "core/linalg.h"
#include "engine/engine.h"
#include "model/data_internal.h"

/* Implicit joints. The implicit solve fixes a row's direction at the start of the step, so an
 * implicit joint is implicit along its link only: across it the force turns with the anchors'
 * separation only from one step to the next, the geometric stiffness F / |d| = K (|d| - play) /
 * |d| (K with no play) acting explicitly, undamped. So its stability is that of an explicit
 * joint without damping (q = K h^2 / 4, the largest inverse effective mass at the anchors:
 * joint_invmass_max). Until 2026-12-08 the scan left implicit joints out: a pendulum on an
 * implicit contact_time joint (T = 20 h, its anchor 0.3 m above the bob's centre, w h = 3.7
 * across the arm) swung 40 % off with no warning, and `substeps: auto` did not split its steps
 * (physics/test_joint, `test_implicit_pendulum`). */

/* the rows the scan judges: explicit rows, and implicit joints (across their link) */
static int explicit_row(const cmRow* r) {
  return r->c > 0 && (!r->implicit || r->joint >= 0);
}

/* the damping the scan counts on row r: an implicit joint's acts along its link only */
static double explicit_damping(const cmRow* r) {
  return r->implicit ? 0 : r->D;
}

/* rows of one group: a contact pair's rows, or one joint's */
static int same_group(const cmRow* a, const cmRow* b) {
  return a->pair == b->pair && a->joint == b->joint && a->body[0] == b->body[0] &&
         a->body[1] == b->body[1];
}

/* the alpha in (0, 1] with alpha^2 gk + alpha gd = target (1 if the bound holds at alpha 1) */
static double alpha_for(double gk, double gd, double target) {
  if (!(gk + gd > target)) return 1;
  return 2 * target / (gd + sqrt(gd * gd + 4 * gk * target));
}

/* A joint's row is a point link: its force -K x along the anchors' separation is a zero-length
 * spring's beyond the play, so it is as stiff across that direction as along it (K x / s of the
 * stretch s; K with no play), and the anchors ring across it with the inverse effective mass of
 * that direction. Its stability is that of the stiffest mode: K times the largest inverse
 * effective mass at the anchors over every direction, the largest eigenvalue of their 3x3 inverse
 * mass matrix (exact with no play, an upper bound with one). Along the row alone a pendulum's
 * bob, whose anchor 0.3 m above its centre moves 251 times more easily across the arm (its
 * spin), was found stable at T = 10 h with `mass: effective` (w h = pi h / T along the arm, 5
 * across it) and went unstable without a warning (2026-12-07). The largest of each side
 * (side[0], side[1]: each body's own matrix) and of their sum (returned), 1/kg. */
static double joint_invmass_max(const cmModel* m, const cmData* d, const cmRow* r, double side[2]) {
  double Wsum[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, ev[3], V[9];
  for (int s = 0; s < 2; s++) {
    double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    cm_body_invmass_matrix(m, d, r->body[s], s ? r->rB : r->rA, W);
    cm_sym_eig3(W, ev, V); /* (ascending) */
    if (side) side[s] = fmax(0, ev[2]);
    for (int i = 0; i < 9; i++)
      Wsum[i] += W[i];
  }
  cm_sym_eig3(Wsum, ev, V);
  return fmax(0, ev[2]);
}

int cm_stability_group(const cmModel* m, const cmData* d, int k, double h, int all,
                       cmStability* g) {
  const cmDataPriv* p = cm_priv(d);
  const cmRow* r0 = &p->row[k];
  double f[2][3] = {{0, 0, 0}, {0, 0, 0}}, t[2][3] = {{0, 0, 0}, {0, 0, 0}};
  double K = 0, D = 0, q = 0;
  int j = k, n = 0;
  for (; j < p->nrow && same_group(r0, &p->row[j]); j++) {
    const cmRow* r = &p->row[j];
    if (!(all ? r->c > 0 : explicit_row(r))) continue;
    double Ki = 1 / r->c, Di = all ? r->D : explicit_damping(r);
    double qi = 0.25 * Ki * h * h + 0.5 * Di * h, c[3];
    K += Ki;
    D += Di;
    q += qi;
    /* sum q_i J_i: side A gets (n, rA x n), side B (-n, -(rB x n)) */
    cm_v3_madd(f[0], f[0], r->n, qi);
    cm_v3_cross(c, r->rA, r->n);
    cm_v3_madd(t[0], t[0], c, qi);
    cm_v3_madd(f[1], f[1], r->n, -qi);
    cm_v3_cross(c, r->rB, r->n);
    cm_v3_madd(t[1], t[1], c, -qi);
    n++;
  }
  memset(g, 0, sizeof *g);
  g->pair = r0->pair;
  g->joint = r0->joint;
  g->body[0] = r0->body[0];
  g->body[1] = r0->body[1];
  g->rule = r0->joint >= 0 ? m->joint_rule[r0->joint] : r0->pair >= 0 ? d->pair[r0->pair].rule : -1;
  g->implicit = r0->joint >= 0 && r0->implicit;
  g->h = h;
  g->explicit_rows = n;
  g->substeps = 1;
  if (!n) return j;
  double W = (cm_body_invmass_wrench(m, d, r0->body[0], f[0], t[0]) +
              cm_body_invmass_wrench(m, d, r0->body[1], f[1], t[1])) /
             (q * q);
  /* a joint (one row): its stiffest mode, across the row as well (joint_invmass_max) */
  if (r0->joint >= 0 && n == 1) W = fmax(W, joint_invmass_max(m, d, r0, NULL));
  g->m_eff = W > 0 ? 1 / W : INFINITY;
  g->stiffness = K;
  g->damping = D;
  g->omega = sqrt(K * W);
  g->zeta = g->omega > 0 ? D * W / (2 * g->omega) : 0;
  g->omega_h = g->omega * h;
  g->limit = 2 * (sqrt(1 + g->zeta * g->zeta) - g->zeta);
  g->lambda = W * q;
  /* the sub-step, and a contact_time law's T, at which lambda = 1: both scale the stiffness part
   * of lambda as their square and the damping part linearly */
  double lk = 0.25 * W * K * h * h, ld = 0.5 * W * D * h;
  double a = lk + ld > 0 ? 2 / (ld + sqrt(ld * ld + 4 * lk)) : INFINITY;
  g->h_max = a * h;
  const cmRuleDef* rule = g->rule >= 0 ? &m->rule[g->rule] : NULL;
  /* (a joint always follows the contact_time parameters of its rule) */
  if (rule && (r0->joint >= 0 || (rule->law == CM_LAW_CONTACT_TIME && !m->rule_law_fn[g->rule])))
    g->contact_time_min = rule->contact_time / a;
  g->lambda_max = g->lambda;
  return j;
}

/* The coupled rows' lower bound: the Rayleigh quotient of A = Q^1/2 W Q^1/2 over the judged
 * rows (their row directions: a joint's lateral mode is its group's) after COUPLED_ITER steps
 * of power iteration, which approaches lambda_max from below. A product A x: the wrenches
 * sum_i sqrt(q_i) x_i J_i on each body, its velocities M^-1 (f, tau) (world inertia), each row's
 * rate along its normal times sqrt(q_i). The group bound misses what rows on one body add
 * together: a box held between a floor and a ceiling, each row at lambda 0.6, is at 1.2 (an
 * audit, 2026-12-08: `comply check` said stable, and the run rattled at 0.17 m/s to its end).
 * Only when the upper bound reaches 1 and no group does; -1 without scratch. */
#define COUPLED_ITER 40
static double coupled_bound(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  int nr = p->nrow, nb = m->nbody;
  double* x = cm_arena_alloc(&p->arena, 2 * (size_t)nr * sizeof *x);
  double* w = cm_arena_alloc(&p->arena, 12 * (size_t)nb * sizeof *w);
  if (!x || !w) return -1;
  double* y = x + nr;
  double* v = w + 6 * (size_t)nb;
  /* a start with a part along every mode (not all equal: a box between a floor and a ceiling
   * has its unstable mode at (1, -1) and (1, 1) in its null space), the same every time */
  for (int k = 0; k < nr; k++)
    x[k] = explicit_row(&p->row[k]) ? (k & 1 ? -1 : 1) * (1 + (double)((k * 37) % 11) / 11) : 0;
  double lam = 0;
  for (int it = 0; it < COUPLED_ITER; it++) {
    double xx = 0;
    for (int k = 0; k < nr; k++)
      xx += x[k] * x[k];
    if (!(xx > 0)) return lam;
    memset(w, 0, 6 * (size_t)nb * sizeof *w);
    for (int k = 0; k < nr; k++) {
      const cmRow* r = &p->row[k];
      if (!explicit_row(r)) continue;
      double sq = sqrt(0.25 * h * h / r->c + 0.5 * explicit_damping(r) * h) * x[k] / sqrt(xx);
      for (int sd = 0; sd < 2; sd++) {
        int b = r->body[sd];
        if (b < 0 || !(m->body_invmass[b] > 0)) continue;
        double f[3], t[3];
        cm_v3_scale(f, r->n, sd ? -sq : sq);
        cm_v3_cross(t, sd ? r->rB : r->rA, f);
        cm_v3_add(w + 6 * b, w + 6 * b, f);
        cm_v3_add(w + 6 * b + 3, w + 6 * b + 3, t);
      }
    }
    for (int b = 0; b < nb; b++) {
      if (!(m->body_invmass[b] > 0)) continue;
      double R[9], tb[3], ab[3];
      cm_v3_scale(v + 6 * b, w + 6 * b, m->body_invmass[b]);
      cm_quat_to_mat(R, d->body_xquat + 4 * b);
      cm_m3_mulvt(tb, R, w + 6 * b + 3);
      cm_m3_mulv(ab, m->body_invinertia + 9 * b, tb);
      cm_m3_mulv(v + 6 * b + 3, R, ab);
    }
    double xy = 0;
    for (int k = 0; k < nr; k++) {
      const cmRow* r = &p->row[k];
      y[k] = 0;
      if (!explicit_row(r)) continue;
      double rate = 0, c[3];
      for (int sd = 0; sd < 2; sd++) {
        int b = r->body[sd];
        if (b < 0 || !(m->body_invmass[b] > 0)) continue;
        cm_v3_cross(c, v + 6 * b + 3, sd ? r->rB : r->rA);
        double u = cm_v3_dot(r->n, v + 6 * b) + cm_v3_dot(r->n, c);
        rate += sd ? -u : u;
      }
      y[k] = sqrt(0.25 * h * h / r->c + 0.5 * explicit_damping(r) * h) * rate;
      xy += y[k] * x[k] / sqrt(xx);
    }
    lam = xy; /* the Rayleigh quotient x^T A x / x^T x */
    double* tswap = x;
    x = y;
    y = tswap;
  }
  return lam;
}

int cm_stability_scan(const cmModel* m, cmData* d, double h, cmStabScan* s) {
  cmDataPriv* p = cm_priv(d);
  memset(s, 0, sizeof *s);
  s->worst = -1;
  for (int k = 0; k < p->nrow; k++)
    s->nexplicit += explicit_row(&p->row[k]);
  if (!s->nexplicit) return 0;
  /* lower bound: the largest group quotient */
  for (int k = 0; k < p->nrow;) {
    cmStability g;
    int next = cm_stability_group(m, d, k, h, 0, &g);
    if (g.explicit_rows && (s->worst < 0 || g.lambda > s->low)) {
      s->low = g.lambda;
      s->worst = k;
    }
    k = next;
  }
  /* upper bound: per body sigma (stiffness and damping parts), then the row sums */
  double* sig = cm_arena_calloc(&p->arena, 2 * (size_t)m->nbody, sizeof *sig);
  if (!sig) {
    /* no scratch: the group bound alone (exact for rows that share no body) */
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    s->gk = s->low;
    return -1;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < p->nrow; k++) {
      const cmRow* r = &p->row[k];
      if (!explicit_row(r)) continue;
      double w[2], kq = 0.25 * h * h / r->c, dq = 0.5 * explicit_damping(r) * h, rk = 0, rd = 0;
      cm_row_invmass(m, d, r, r->n, w);
      if (r->joint >= 0) { /* (its stiffest mode, joint_invmass_max) */
        double wj[2];
        joint_invmass_max(m, d, r, wj);
        w[0] = fmax(w[0], wj[0]);
        w[1] = fmax(w[1], wj[1]);
      }
      for (int side = 0; side < 2; side++) {
        int b = r->body[side];
        if (b < 0 || !(w[side] > 0)) continue;
        if (pass == 0) {
          sig[2 * b] += sqrt(kq * w[side]);
          sig[2 * b + 1] += sqrt(dq * w[side]);
        } else {
          rk += sqrt(w[side]) * sig[2 * b];
          rd += sqrt(w[side]) * sig[2 * b + 1];
        }
      }
      if (pass == 1) {
        s->gk = fmax(s->gk, sqrt(kq) * rk);
        s->gd = fmax(s->gd, sqrt(dq) * rd);
      }
    }
  if (s->gk + s->gd >= 1 && s->low < 1) {
    s->coupled = coupled_bound(m, d, h);
    if (s->coupled > s->low) s->low = s->coupled;
  }
  return 0;
}

double cm_stability_alpha(const cmStabScan* s) {
  return alpha_for(s->gk, s->gd, CM_STAB_TARGET);
}

/* the rows of the state in d at sub-step h, every joint at zero stretch along the direction of
 * its smallest inverse effective mass (the eigenvector of the smallest eigenvalue of its
 * anchors' 3x3 inverse mass matrix: with `mass: effective` the stiffest its law can be, K =
 * m_eff (pi/T)^2 along the stretch, which is not known before the run), and their scan, whose
 * group of a joint takes its largest inverse effective mass (joint_invmass_max); -1 without
 * scratch memory */
static int predict(const cmModel* m, cmData* d, double h, cmStabScan* s) {
  cmDataPriv* p = cm_priv(d);
  cm_arena_reset(&p->arena);
  cm_stage_laws(m, d, h);
  if ((m->njoint || d->npair) && !p->row) return -1;
  while (p->nrow > 0 && p->row[p->nrow - 1].joint >= 0)
    p->nrow--;
  for (int j = 0; j < m->njoint; j++) {
    static const double ex[3] = {1, 0, 0};
    cmRow* r = &p->row[p->nrow];
    if (!cm_joint_row(m, d, j, ex, h, r)) continue;
    double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, ev[3], V[9];
    cm_body_invmass_matrix(m, d, r->body[0], r->rA, W);
    cm_body_invmass_matrix(m, d, r->body[1], r->rB, W);
    cm_sym_eig3(W, ev, V);
    double dir[3] = {V[0], V[3], V[6]}; /* (ev ascending: the smallest) */
    if (cm_joint_row(m, d, j, dir, h, r)) p->nrow++;
  }
  return cm_stability_scan(m, d, h, s);
}

cmStatus cm_data_stability(const cmModel* m, cmData* d, cmStability* out) {
  memset(out, 0, sizeof *out);
  out->pair = out->joint = out->rule = -1;
  out->body[0] = out->body[1] = -1;
  int nsub = m->opt.substeps > 0 ? m->opt.substeps : 1;
  double h = m->opt.timestep / nsub;
  out->h = h;
  /* what substeps: auto would take (its first sub-step is the whole step) */
  cmStabScan s;
  if (predict(m, d, m->opt.timestep, &s) < 0) return CM_ERR_NOMEM;
  double n = ceil(1 / cm_stability_alpha(&s));
  /* the report at the scene's sub-step */
  if (nsub > 1 && predict(m, d, h, &s) < 0) return CM_ERR_NOMEM;
  if (s.worst < 0) {
    out->substeps = 1;
    return CM_OK;
  }
  cm_stability_group(m, d, s.worst, h, 0, out);
  out->explicit_rows = s.nexplicit;
  out->lambda_max = fmax(s.gk + s.gd, out->lambda);
  out->lambda_coupled = s.coupled > 0 ? s.coupled : 0;
  out->substeps = n < CM_SUBSTEPS_AUTO_MAX ? (int)n : CM_SUBSTEPS_AUTO_MAX;
  return CM_OK;
}
