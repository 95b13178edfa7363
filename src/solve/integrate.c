/* Stage 7, integrate: positions and orientations from the end-of-step velocities.
 *
 *   x+ = x + h v+
 *   q+ = dq q,  dq = normalise(1, h wr / 2),  wr = w+ + spin   (world axes)
 *   w+ <- R(dq) w+
 *
 * dq is the Cayley rotation by 2 atan(h|wr|/2) about wr; wr is the gyroscopic midpoint
 * velocity (solve.c) plus whatever the step added to w+. The last line carries the end angular
 * velocity, computed in the axes of the start of the step, into the new axes: the body-frame
 * angular velocity is what the gyroscopic update produced. Prescribed bodies are placed exactly
 * at t_end. Frame-origin values and boxes are refreshed for outputs after the step. */
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
    double wr[3], dq[4], q[4], wn[3];
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
    cm_quat_rotate(wn, dq, w);
    cm_v3_copy(w, wn);
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
