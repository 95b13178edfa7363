/* Stage 5, forces: the applied force and torque on every moving body for this step:
 *  - gravity m g at the com, the constant outer force and moment of the scene, and the force and
 *    moment the caller applies through d->body_xfrc;
 *  - explicit contact rows (contact_time by default, or any rule with integration: explicit):
 *    the law's force at the start of the step, F = max(0, -f - D ddist) along n (pushing,
 *    never pulling), +F n at A's point and -F n at B's; friction opposes the slip w,
 *    |F_t| = mu F min(1, |w|/v_s), and is capped so that its impulse over the sub-step h cannot
 *    reverse the slip: |F_t| h <= |w| / W_t, with W_t = J_t M^-1 J_t^T the inverse effective
 *    mass of the row along the slip (rotation included, model/rows.c). */
#include <math.h>

#include "core/cm_math.h"
#include "dynamics/dynamics.h"
#include "model/data_internal.h"

static void apply(const cmModel* m, cmDataPriv* p, int b, const double F[3], const double r[3]) {
  if (b < 0 || m->body_invmass[b] == 0) return;
  double t[3];
  cm_v3_add(p->force + 3 * b, p->force + 3 * b, F);
  cm_v3_cross(t, r, F);
  cm_v3_add(p->torque + 3 * b, p->torque + 3 * b, t);
}

void cm_stage_forces(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  for (int b = 0; b < m->nbody; b++) {
    double* f = p->force + 3 * b;
    double* t = p->torque + 3 * b;
    if (m->body_invmass[b] == 0) {
      cm_v3_set(f, 0, 0, 0);
      cm_v3_set(t, 0, 0, 0);
      continue;
    }
    cm_v3_madd(f, m->body_force + 3 * b, m->opt.gravity, m->body_mass[b]);
    cm_v3_copy(t, m->body_moment + 3 * b);
    cm_v3_add(f, f, d->body_xfrc + 6 * b);
    cm_v3_add(t, t, d->body_xfrc + 6 * b + 3);
  }
  for (int k = 0; k < p->nrow; k++) {
    cmRow* r = &p->row[k];
    if (r->implicit) continue;
    double F = -r->f - r->D * cm_row_rate(m, d, r, r->n);
    r->lambda = F > 0 ? F : 0;
    double Fa[3], Fb[3];
    cm_v3_scale(Fa, r->n, r->lambda);
    r->ftan[0] = r->ftan[1] = 0;
    if (r->mu > 0 && r->lambda > 0) {
      double w[2] = {cm_row_rate(m, d, r, r->t[0]), cm_row_rate(m, d, r, r->t[1])};
      double sw = sqrt(w[0] * w[0] + w[1] * w[1]);
      double inv = 0;
      if (sw > 0) {
        double dir[3];
        cm_v3_scale(dir, r->t[0], w[0] / sw);
        cm_v3_madd(dir, dir, r->t[1], w[1] / sw);
        inv = cm_row_invmass(m, d, r, dir, NULL);
      }
      double Ft = r->mu * r->lambda * (sw < r->vs ? sw / r->vs : 1);
      double cap = inv > 0 ? sw / (inv * h) : Ft;
      if (Ft > cap) Ft = cap;
      for (int k2 = 0; k2 < 2; k2++) {
        r->ftan[k2] = sw > 0 ? -Ft * w[k2] / sw : 0;
        cm_v3_madd(Fa, Fa, r->t[k2], r->ftan[k2]);
      }
    }
    cm_v3_scale(Fb, Fa, -1);
    apply(m, p, r->body[0], Fa, r->rA);
    apply(m, p, r->body[1], Fb, r->rB);
  }
}
