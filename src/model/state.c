/* Derived body state (model/state.h): frame-origin values and world boxes from the com state,
 * and the poses of prescribed bodies at a time. Used by the kinematics and integrate stages, by
 * cm_data_reset and by checkpoint reading. */
#include <math.h>

#include "core/cm_math.h"
#include "model/state.h"

void cm_body_prescribed(const cmModel* m, cmData* d, int b, double t) {
  const double* w = m->body_angvel0 + 3 * b;
  double wn = cm_v3_norm(w), q[4], dq[4], rc[3];
  /* q(t) = exp(w t) q0: rotation about the world axis w by |w| t */
  if (wn > 0) {
    double axis[3];
    cm_v3_scale(axis, w, 1.0 / wn);
    cm_quat_from_axis_angle(dq, axis, wn * t);
  } else {
    cm_quat_identity(dq);
  }
  cm_quat_mul(q, dq, m->body_quat0 + 4 * b);
  cm_quat_normalize(q);
  for (int k = 0; k < 4; k++)
    d->body_xquat[4 * b + k] = q[k];
  double* xpos = d->body_xpos + 3 * b;
  cm_v3_madd(xpos, m->body_pos0 + 3 * b, m->body_vel0 + 3 * b, t);
  cm_quat_rotate(rc, q, m->body_com + 3 * b);
  cm_v3_add(d->body_cpos + 3 * b, xpos, rc);
  double wxr[3];
  cm_v3_cross(wxr, w, rc);
  cm_v3_add(d->body_cvel + 3 * b, m->body_vel0 + 3 * b, wxr);
  cm_v3_copy(d->body_angvel + 3 * b, w);
}

void cm_body_derive(const cmModel* m, cmData* d) {
  for (int b = 0; b < m->nbody; b++) {
    const double* q = d->body_xquat + 4 * b;
    double R[9], rc[3], wxr[3];
    cm_quat_to_mat(R, q);
    /* frame origin = com - R com_body; its velocity = v_com + w x (origin - com) */
    cm_m3_mulv(rc, R, m->body_com + 3 * b);
    cm_v3_sub(d->body_xpos + 3 * b, d->body_cpos + 3 * b, rc);
    cm_v3_cross(wxr, d->body_angvel + 3 * b, rc);
    cm_v3_sub(d->body_xvel + 3 * b, d->body_cvel + 3 * b, wxr);
    /* world box of the rotated body-frame box: centre R c + x, half extent |R| e */
    int g = m->body_geom[b];
    const double* lb = m->geom_aabb + 6 * g;
    double* box = d->body_aabb + 6 * b;
    if (m->geom_type[g] == CM_GEOM_PLANE) {
      for (int k = 0; k < 3; k++) {
        box[k] = -INFINITY;
        box[3 + k] = INFINITY;
      }
      continue;
    }
    double c[3], e[3], wc[3];
    for (int k = 0; k < 3; k++) {
      c[k] = 0.5 * (lb[k] + lb[3 + k]);
      e[k] = 0.5 * (lb[3 + k] - lb[k]);
    }
    cm_m3_mulv(wc, R, c);
    for (int i = 0; i < 3; i++) {
      double ext = fabs(R[3 * i]) * e[0] + fabs(R[3 * i + 1]) * e[1] + fabs(R[3 * i + 2]) * e[2];
      double ci = wc[i] + d->body_xpos[3 * b + i];
      box[i] = ci - ext;
      box[3 + i] = ci + ext;
    }
  }
}
