/* Point-in-mesh query for vertex penetration (collide_vertex.c).
 *
 * The world point is carried into the body frame of B, p = R_B^T (p0 - x_B). A point outside
 * B's bounding box is outside B. A point inside the box is at most b = (distance to the nearest
 * box face) from B's surface if it is inside B: any path from it to the box boundary leaves the
 * closed surface first. So the nearest-point search is bounded by b, which prunes most of the
 * tree for points that are outside, and the sign of the nearest feature's pseudonormal decides
 * inside or outside (geom/bvh.c). */
#include <math.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "geom/bvh.h"

void cm_pair_pose(const cmData* d, int a, int b, double R[9], double t[3]) {
  double RA[9], RB[9], RAt[9], dx[3];
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);
  cm_quat_to_mat(RB, d->body_xquat + 4 * b);
  cm_m3_transpose(RAt, RA);
  cm_m3_mul(R, RAt, RB);
  cm_v3_sub(dx, d->body_xpos + 3 * b, d->body_xpos + 3 * a);
  cm_m3_mulvt(t, RA, dx);
}

int cm_mesh_inside_local(const cmModel* m, int g, const double p[3], cmNearest* out) {
  /* bounding box: reject, and bound the search */
  const double* box = m->geom_aabb + 6 * g;
  double bound = INFINITY;
  for (int k = 0; k < 3; k++) {
    double lo = p[k] - box[k], hi = box[3 + k] - p[k];
    if (lo < 0 || hi < 0) return 0;
    if (lo < bound) bound = lo;
    if (hi < bound) bound = hi;
  }
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  return cm_bvh_inside((const cmBvh*)m->geom_bvh + g, m->mesh_vert + 3 * (size_t)va,
                       m->mesh_face + 3 * (size_t)fa, m->mesh_face_normal + 3 * (size_t)fa,
                       m->mesh_vert_pn + 3 * (size_t)va, m->mesh_edge_pn + 9 * (size_t)fa, p, bound,
                       out);
}

/* B deformable: its deformed surface (model/state.c), in the frame at its com with the world's
 * axes; the search bounded by the distance to its world box */
static void deformed_point(const cmModel* m, const cmData* d, int b, const double p0[3],
                           cmHit* hit) {
  const cmDataPriv* pv = cm_priv(d);
  int g = m->body_geom[b], va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  const double* box = d->body_aabb + 6 * b;
  double bound = INFINITY, p[3];
  for (int k = 0; k < 3; k++) {
    double lo = p0[k] - box[k], hi = box[3 + k] - p0[k];
    if (lo < 0 || hi < 0) return;
    if (lo < bound) bound = lo;
    if (hi < bound) bound = hi;
  }
  cm_v3_sub(p, p0, d->body_xpos + 3 * b);
  cmNearest near;
  const double* fn = pv->dface_normal + 3 * (size_t)fa;
  if (!cm_bvh_inside((const cmBvh*)pv->dbvh + g, pv->dvert + 3 * (size_t)va,
                     m->mesh_face + 3 * (size_t)fa, fn, pv->dvert_pn + 3 * (size_t)va,
                     pv->dedge_pn + 9 * (size_t)fa, p, bound, &near))
    return;
  double t[3];
  hit->inside = 1;
  hit->face = near.face;
  cm_v3_copy(hit->p0, p0);
  cm_v3_add(hit->p1, near.point, d->body_xpos + 3 * b);
  cm_v3_copy(hit->n, fn + 3 * near.face);
  cm_v3_sub(t, p0, hit->p1);
  hit->dist = cm_v3_dot(t, hit->n);
}

void cm_collide_mesh_point(const cmModel* m, const cmData* d, int b, const double p0[3],
                           cmHit* hit) {
  if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
    deformed_point(m, d, b, p0, hit);
    return;
  }
  int g = m->body_geom[b];
  const double* q = d->body_xquat + 4 * b;
  double r[3], p[3];
  cm_v3_sub(r, p0, d->body_xpos + 3 * b);
  cm_quat_rotate_inv(p, q, r);
  cmNearest near;
  if (!cm_mesh_inside_local(m, g, p, &near)) return;
  const double* fn = m->mesh_face_normal + 3 * (size_t)m->geom_faceadr[g];
  /* world quantities: nearest point, normal of the nearest face, signed distance */
  double p1[3], n[3], t[3];
  cm_quat_rotate(t, q, near.point);
  cm_v3_add(p1, t, d->body_xpos + 3 * b);
  cm_quat_rotate(n, q, fn + 3 * near.face);
  hit->inside = 1;
  hit->face = near.face;
  cm_v3_copy(hit->p0, p0);
  cm_v3_copy(hit->p1, p1);
  cm_v3_copy(hit->n, n);
  cm_v3_sub(t, p0, p1);
  hit->dist = cm_v3_dot(t, n);
}
