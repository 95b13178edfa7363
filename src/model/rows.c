/* Solver rows: the friction basis of a row, the rate of a row along a direction at the current
 * velocities, and the effective mass of a row (model/rows.h).
 *
 * Effective mass. A row pushes body A at the point rA (relative to A's com) with +F n and body B
 * at rB with -F n. The rate of the row is y = J u with u = (v_A, w_A, v_B, w_B) and
 * J = (n, rA x n, -n, -(rB x n)); an impulse P along the row changes the velocities by
 * M^-1 J^T P and the rate by (J M^-1 J^T) P, with M = diag(m_A I, I_A, m_B I, I_B) and the
 * inertias I in world axes, I_world^-1 = R I_body^-1 R^T. So
 *
 *   W = J M^-1 J^T = sum over the two bodies of 1/m + (r x n)^T I_world^-1 (r x n)   (1/kg)
 *
 * and the row moves like a point of mass m_eff = 1/W on a spring: a row of stiffness K
 * oscillates at w = sqrt(K W). The world and infinite masses add 0. As a matrix in n, body b at
 * r contributes 1/m I - [r]x I_world^-1 [r]x ((r x n) = [r]x n and [r]x^T = -[r]x), whose
 * largest eigenvalue is the largest W over all directions at that point. The rotational term is
 * evaluated in body axes, (R^T (r x n))^T I_body^-1 (R^T (r x n)), with the orientation of the
 * current state. */
#include <math.h>

#include "core/cm_math.h"
#include "model/rows.h"

double cm_body_invmass_wrench(const cmModel* m, const cmData* d, int b, const double f[3],
                              const double tau[3]) {
  if (b < 0 || !(m->body_invmass[b] > 0)) return 0;
  double tb[3], t[3];
  cm_quat_rotate_inv(tb, d->body_xquat + 4 * b, tau);
  cm_m3_mulv(t, m->body_invinertia + 9 * b, tb);
  return m->body_invmass[b] * cm_v3_dot(f, f) + cm_v3_dot(tb, t);
}

double cm_body_invmass_at(const cmModel* m, const cmData* d, int b, const double r[3],
                          const double dir[3]) {
  double c[3];
  cm_v3_cross(c, r, dir);
  return cm_body_invmass_wrench(m, d, b, dir, c);
}

void cm_body_invmass_matrix(const cmModel* m, const cmData* d, int b, const double r[3],
                            double W[9]) {
  if (b < 0 || !(m->body_invmass[b] > 0)) return;
  double R[9], Iw[9], S[9], SI[9], SIS[9];
  cm_quat_to_mat(R, d->body_xquat + 4 * b);
  cm_m3_rotate(Iw, R, m->body_invinertia + 9 * b);
  /* S = [r]x */
  S[0] = 0, S[1] = -r[2], S[2] = r[1];
  S[3] = r[2], S[4] = 0, S[5] = -r[0];
  S[6] = -r[1], S[7] = r[0], S[8] = 0;
  cm_m3_mul(SI, S, Iw);
  cm_m3_mul(SIS, SI, S);
  for (int k = 0; k < 9; k++)
    W[k] += (k % 4 == 0 ? m->body_invmass[b] : 0) - SIS[k];
}

double cm_row_invmass(const cmModel* m, const cmData* d, const cmRow* r, const double dir[3],
                      double share[2]) {
  /* a node side: the node's own mass (m->node_fixed: infinite) */
  double wa = r->node[0] >= 0 ? (m->node_fixed[r->node[0]] ? 0 : 1 / m->node_mass[r->node[0]])
                              : cm_body_invmass_at(m, d, r->body[0], r->rA, dir);
  double wb = r->node[1] >= 0 ? (m->node_fixed[r->node[1]] ? 0 : 1 / m->node_mass[r->node[1]])
                              : cm_body_invmass_at(m, d, r->body[1], r->rB, dir);
  if (r->fnode[0] >= 0) { /* a face point: sum w_i^2 / m_i over its free nodes */
    wb = 0;
    for (int i = 0; i < 3; i++)
      if (!m->node_fixed[r->fnode[i]] && m->node_attach[r->fnode[i]] < 0)
        wb += r->fw[i] * r->fw[i] / m->node_mass[r->fnode[i]];
  }
  if (share) {
    share[0] = wa;
    share[1] = wb;
  }
  return wa + wb;
}
