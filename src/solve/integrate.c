/* Stage 7, integrate: positions and orientations from the end-of-step velocities.
 *
 *   x+ = x + h v+
 *   q+ = dq q,  dq = normalise(1, h wr / 2),  wr = w+ + spin   (world axes)
 *   w+ <- I+^-1 (I w+ + lgyro)
 *
 * dq is the Cayley rotation by 2 atan(h|wr|/2) about wr; wr is the gyroscopic midpoint
 * velocity (solve.c) plus whatever the step added to w+. The last line gives the body in its new
 * axes (inertia I+) the world angular momentum it ends the step with: I w+ in the axes of the
 * start of the step (w+ the end velocity the solve computed there, I the start's inertia) plus
 * lgyro = R (L1 - L2), the part the gyroscopic update turned into its end axes. Without
 * impulses that is R L1 and w+ is the gyroscopic update's end velocity carried into the new axes
 * (the same as turning w+ by dq, to rounding); with them, the impulses' angular momentum is
 * kept as the solve added it. Until 2026-12-08 w+ was turned by dq, which also turned the
 * impulses' momentum by the step's rotation: a dumbbell on an implicit joint drifted by 1.6e-5
 * of its angular momentum per second at h = 0.1 ms (physics/test_joint). Prescribed bodies are
 * placed exactly at t_end. Frame-origin values and boxes are refreshed for outputs after the step.
 */
#include "core/cm_math.h"
#include "model/data_internal.h"
#include "model/state.h"
#include "solve/solve.h"

void cm_stage_integrate(const cmModel* m, cmData* d, double h, double t_end) {
  const cmDataPriv* p = cm_priv(d);
  for (int b = 0; b < m->nbody; b++) {
    int motion = m->body_motion[b];
    if (motion == CM_MOTION_FIXED) continue;
    if (motion == CM_MOTION_DEFORMABLE) {
      /* the nodes, by the velocity the solve gave them for this (node_vx); the attached ones
       * below, once their rigid bodies have moved */
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++)
        if (m->node_attach[n] < 0 || m->node_fixed[n])
          cm_v3_madd(d->node_pos + 3 * (size_t)n, d->node_pos + 3 * (size_t)n,
                     p->node_vx + 3 * (size_t)n, h);
      continue;
    }
    if (motion == CM_MOTION_PRESCRIBED) {
      cm_body_prescribed(m, d, b, t_end);
      continue;
    }
    double* x = d->body_cpos + 3 * b;
    cm_v3_madd(x, x, d->body_cvel + 3 * b, h);
    double* w = d->body_angvel + 3 * b;
    double wr[3], dq[4], q[4], R[9], Lw[3], Lb[3], wb[3];
    /* the world angular momentum it ends with: I w+ in the start's axes plus lgyro */
    cm_quat_to_mat(R, d->body_xquat + 4 * b);
    cm_m3_mulvt(wb, R, w);
    cm_m3_mulv(Lb, m->body_inertia + 9 * b, wb);
    cm_m3_mulv(Lw, R, Lb);
    cm_v3_add(Lw, Lw, p->lgyro + 3 * b);
    cm_v3_add(wr, w, p->spin + 3 * b);
    dq[0] = 1;
    for (int k = 0; k < 3; k++)
      dq[k + 1] = 0.5 * h * wr[k];
    cm_quat_normalize(dq);
    double* q1 = d->body_xquat + 4 * b;
    cm_quat_mul(q, dq, q1);
    cm_quat_normalize(q);
    for (int k = 0; k < 4; k++)
      q1[k] = q[k];
    /* w from it in the new axes */
    cm_quat_to_mat(R, q);
    cm_m3_mulvt(Lb, R, Lw);
    cm_m3_mulv(wb, m->body_invinertia + 9 * b, Lb);
    cm_m3_mulv(w, R, wb);
  }
  /* attached nodes: exactly where their rigid body carries them, at its velocity there */
  for (int n = 0; n < m->nnode; n++) {
    int ab = m->node_attach[n];
    if (ab < 0 || m->node_fixed[n]) continue;
    double r[3], wr[3];
    cm_quat_rotate(r, d->body_xquat + 4 * ab, m->node_anchor + 3 * (size_t)n);
    cm_v3_add(d->node_pos + 3 * (size_t)n, d->body_cpos + 3 * ab, r);
    cm_v3_cross(wr, d->body_angvel + 3 * ab, r);
    cm_v3_add(d->node_vel + 3 * (size_t)n, d->body_cvel + 3 * ab, wr);
  }
  cm_body_derive(m, d);
}
