/* Derived body state (model/state.h): frame-origin values and world boxes from the com state,
 * and the poses of prescribed bodies at a time. Used by the kinematics and integrate stages, by
 * cm_data_reset and by checkpoint reading. */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "geom/bvh.h"
#include "model/data_internal.h"
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

/* A deformable body (docs/deformable.md) from its nodes: the com and its velocity are the
 * mass-weighted means, the frame has the world's axes (identity orientation, angular velocity
 * 0) and its origin at the com, the contact surface's vertices are the nodes (p->dvert, in that
 * frame: node minus com) with their area vectors sum_f A_f n_f / 3 from the deformed faces
 * (p->dareavec), the box is theirs (world). */
static void derive_deformable(const cmModel* m, cmData* d, int b) {
  cmDataPriv* p = cm_priv(d);
  double c[3] = {0, 0, 0}, v[3] = {0, 0, 0}, mass = 0;
  for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
    cm_v3_madd(c, c, d->node_pos + 3 * (size_t)n, m->node_mass[n]);
    cm_v3_madd(v, v, d->node_vel + 3 * (size_t)n, m->node_mass[n]);
    mass += m->node_mass[n];
  }
  cm_v3_scale(d->body_cpos + 3 * b, c, 1 / mass);
  cm_v3_scale(d->body_cvel + 3 * b, v, 1 / mass);
  cm_quat_identity(d->body_xquat + 4 * b);
  for (int k = 0; k < 3; k++) {
    d->body_angvel[3 * b + k] = 0;
    d->body_xpos[3 * b + k] = d->body_cpos[3 * b + k];
    d->body_xvel[3 * b + k] = d->body_cvel[3 * b + k];
  }
  const double* com = d->body_cpos + 3 * b;
  int g = m->body_geom[b], va = m->geom_vertadr[g], nv = m->geom_nvert[g];
  double* box = d->body_aabb + 6 * b;
  for (int k = 0; k < 3; k++) {
    box[k] = INFINITY;
    box[3 + k] = -INFINITY;
  }
  for (int i = va; i < va + nv; i++) {
    const double* x = d->node_pos + 3 * (size_t)m->mesh_vert_node[i];
    cm_v3_sub(p->dvert + 3 * (size_t)i, x, com);
    memset(p->dareavec + 3 * (size_t)i, 0, 3 * sizeof(double));
    for (int k = 0; k < 3; k++) {
      box[k] = fmin(box[k], x[k]);
      box[3 + k] = fmax(box[3 + k], x[k]);
    }
  }
  int fa = m->geom_faceadr[g], nf = m->geom_nface[g];
  const int* face = m->mesh_face + 3 * (size_t)fa;
  double* pn = p->dvert_pn + 3 * (size_t)va;
  double* fn = p->dface_normal + 3 * (size_t)fa;
  memset(pn, 0, 3 * (size_t)nv * sizeof *pn);
  for (int f = 0; f < nf; f++) {
    const int* fv = face + 3 * f;
    double a[3], e[3][3];
    for (int k = 0; k < 3; k++)
      cm_v3_sub(e[k], p->dvert + 3 * (size_t)(va + fv[(k + 1) % 3]),
                p->dvert + 3 * (size_t)(va + fv[k]));
    cm_v3_cross(a, e[0], e[2]); /* -(2 A_f n_f): e0 x (x0 - x2) */
    cm_v3_scale(a, a, -1);
    double len = cm_v3_norm(a);
    cm_v3_scale(fn + 3 * f, a, len > 0 ? 1 / len : 0);
    for (int k = 0; k < 3; k++) {
      double* av = p->dareavec + 3 * (size_t)(va + fv[k]);
      cm_v3_madd(av, av, a, 1.0 / 6);
      /* the face's angle at its corner k, between the edges leaving it */
      double u[3], w[3];
      cm_v3_copy(u, e[k]);
      cm_v3_scale(w, e[(k + 2) % 3], -1);
      double cu = cm_v3_norm(u) * cm_v3_norm(w), cs = cu > 0 ? cm_v3_dot(u, w) / cu : 1;
      double ang = acos(cs < -1 ? -1 : cs > 1 ? 1 : cs);
      cm_v3_madd(pn + 3 * fv[k], pn + 3 * fv[k], fn + 3 * f, ang);
    }
  }
  for (int i = 0; i < nv; i++) {
    double len = cm_v3_norm(pn + 3 * i);
    if (len > 0) cm_v3_scale(pn + 3 * i, pn + 3 * i, 1 / len);
  }
  /* edge pseudonormals: the two faces' normals, summed (the face's own if they cancel) */
  const int* adj = m->mesh_face_adj + 3 * (size_t)fa;
  double* epn = p->dedge_pn + 9 * (size_t)fa;
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < 3; k++) {
      double s[3];
      int o = adj[3 * f + k];
      cm_v3_copy(s, fn + 3 * f);
      if (o >= 0) cm_v3_add(s, s, fn + 3 * o);
      double len = cm_v3_norm(s);
      cm_v3_scale(epn + 9 * f + 3 * k, len > 1e-12 ? s : fn + 3 * f, len > 1e-12 ? 1 / len : 1);
    }
  /* the face tree over the deformed vertices */
  if (p->dbvh) cm_bvh_refit((cmBvh*)p->dbvh + g, p->dvert + 3 * (size_t)va, face);
}

void cm_body_derive(const cmModel* m, cmData* d) {
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      derive_deformable(m, d, b);
      continue;
    }
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

double cm_body_thickness(const cmModel* m, int b) {
  int g = m->body_geom[b];
  if (m->geom_type[g] == CM_GEOM_PLANE) return 0;
  const double* a = m->geom_aabb + 6 * g;
  double t = a[3] - a[0];
  for (int k = 1; k < 3; k++)
    if (a[3 + k] - a[k] < t) t = a[3 + k] - a[k];
  return t;
}
