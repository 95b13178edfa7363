/* Point-in-mesh query for vertex penetration (collide_vertex.c).
 *
 * The world point is carried into the body frame of B, p = R_B^T (p0 - x_B). A point outside
 * B's bounding box, or outside its bounding ball (geom_ball: every vertex within it), is outside
 * B. A point inside both is at most b = (distance to the nearest box face, or to the ball's
 * sphere, whichever is less) from B's surface if it is inside B: any path from it to the box
 * boundary or the sphere leaves the closed surface first. So the nearest-point search is
 * bounded by b, which prunes most of the tree for points that are outside, and the sign of the
 * nearest feature's pseudonormal decides inside or outside (geom/bvh.c). The ball matters for
 * rounded meshes: between two touching spheres about half of one's vertices lie in the other's
 * box, few in its ball. */
#include <math.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/facets.h"
#include "geom/tri_tri.h"

void cm_pair_pose(const cmData* d, int a, int b, double R[9], double t[3]) {
  double RA[9], RB[9], RAt[9], dx[3];
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);
  cm_quat_to_mat(RB, d->body_xquat + 4 * b);
  cm_m3_transpose(RAt, RA);
  cm_m3_mul(R, RAt, RB);
  cm_v3_sub(dx, d->body_xpos + 3 * b, d->body_xpos + 3 * a);
  cm_m3_mulvt(t, RA, dx);
}

double cm_pair_box_eps(const double A[6], const double B[6], const double t[3]) {
  double size = 1 + cm_v3_norm(t);
  for (int k = 0; k < 6; k++)
    size += fabs(A[k]) + fabs(B[k]);
  return 1e-9 * size;
}

/* The separating-axis test of two boxes (cm_boxes_apart, cm_boxes_overlap): with early, 1 as
 * soon as one axis separates them by more than eps (scaled by the axis' length), else 0; without,
 * the least overlap of their projections over the axes, each divided by its axis' length (the
 * depth along the least-overlap axis; negative when apart); with only_a (and not early), that
 * least over A's three axes alone, by the same expressions: not below the least over all, since
 * fmin is exact (cm_boxes_overlap_bound). Always inlined with early and only_a constant: the
 * narrowphase's test keeps its early exits and comparisons, no division. */
static inline __attribute__((always_inline)) double box_sat(const double A[6], const double B[6],
                                                            const double R[9], const double t[3],
                                                            double eps, int early, int only_a) {
  double ea[3], eb[3], cb[3], d[3], aR[9], least = INFINITY;
  for (int k = 0; k < 3; k++) {
    ea[k] = 0.5 * (A[3 + k] - A[k]);
    eb[k] = 0.5 * (B[3 + k] - B[k]);
    cb[k] = 0.5 * (B[k] + B[3 + k]);
  }
  cm_tri_xform(d, R, t, cb); /* B's centre in A's frame, less A's centre */
  for (int k = 0; k < 3; k++)
    d[k] -= 0.5 * (A[k] + A[3 + k]);
  for (int k = 0; k < 9; k++)
    aR[k] = fabs(R[k]);
  /* A's axes i: B's half-extent along it is sum_j |R_ij| eb_j */
  for (int i = 0; i < 3; i++) {
    double sep =
        fabs(d[i]) - ea[i] - (aR[3 * i] * eb[0] + aR[3 * i + 1] * eb[1] + aR[3 * i + 2] * eb[2]);
    if (early && sep > eps) return 1;
    least = fmin(least, -sep);
  }
  if (only_a) return least;
  /* B's axes j (column j of R) */
  for (int j = 0; j < 3; j++) {
    double dj = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
    double sep = fabs(dj) - eb[j] - (aR[j] * ea[0] + aR[3 + j] * ea[1] + aR[6 + j] * ea[2]);
    if (early && sep > eps) return 1;
    least = fmin(least, -sep);
  }
  /* the cross products of A's axis i and B's axis j, u = e_i x b_j (not normalised: the test
   * compares projections on u, so eps is scaled by |u|; nearly parallel axes are skipped, the
   * box axes cover them) */
  for (int i = 0; i < 3; i++) {
    int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; j++) {
      double u[3] = {0, 0, 0};
      u[i1] = -R[3 * i2 + j];
      u[i2] = R[3 * i1 + j];
      double l = sqrt(u[i1] * u[i1] + u[i2] * u[i2]);
      if (l < 1e-6) continue;
      double du = u[i1] * d[i1] + u[i2] * d[i2];
      double ra = ea[i1] * fabs(u[i1]) + ea[i2] * fabs(u[i2]);
      double rb = 0;
      for (int k = 0; k < 3; k++)
        rb += eb[k] * fabs(u[i1] * R[3 * i1 + k] + u[i2] * R[3 * i2 + k]);
      double sep = fabs(du) - ra - rb;
      if (early && sep > eps * l) return 1;
      least = fmin(least, -sep / l);
    }
  }
  return early ? 0 : least;
}

int cm_boxes_apart(const double A[6], const double B[6], const double R[9], const double t[3],
                   double eps) {
  return box_sat(A, B, R, t, eps, 1, 0) != 0;
}

double cm_boxes_overlap(const double A[6], const double B[6], const double R[9],
                        const double t[3]) {
  return box_sat(A, B, R, t, 0, 0, 0);
}

double cm_boxes_overlap_bound(const double A[6], const double B[6], const double R[9],
                              const double t[3]) {
  return box_sat(A, B, R, t, 0, 0, 1);
}

int cm_mesh_facets_inside(const cmModel* m, int g, const double p[3], double bound,
                          cmNearest* out) {
  int n = m->geom_nfacet[g], j0 = m->geom_facetadr[g], va = m->geom_vertadr[g],
      fa = m->geom_faceadr[g];
  if (n == 0) return -1;
  const double* plane = m->facet_plane + 4 * (size_t)j0;
  if (n <= CM_FACET_MAX)
    return cm_facets_inside(plane, n, m->facet_faceadr + j0, m->facet_nface + j0,
                            m->mesh_facet_face, m->mesh_vert + 3 * (size_t)va,
                            m->mesh_face + 3 * (size_t)fa, m->geom_ball[4 * g + 3], p, bound, out);
  int c0 = m->geom_celladr[g];
  if (c0 < 0) return -1;
  return cm_facets_grid_inside(plane, m->geom_grid + 3 * g, m->cell_facetadr + c0,
                               m->cell_nfacet + c0, m->cell_bound + 4 * (size_t)c0, m->cell_facet,
                               m->facet_faceadr + j0, m->facet_nface + j0, m->mesh_facet_face,
                               m->mesh_vert + 3 * (size_t)va, m->mesh_face + 3 * (size_t)fa,
                               m->geom_ball[4 * g + 3], p, bound, out);
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
  /* bounding ball: the same, with the distance to its sphere (a rounded mesh's box corners
   * reach far from its surface) */
  const double* ball = m->geom_ball + 4 * g;
  double dx = p[0] - ball[0], dy = p[1] - ball[1], dz = p[2] - ball[2];
  double r2 = dx * dx + dy * dy + dz * dz;
  if (r2 > ball[3] * ball[3]) return 0;
  double br = ball[3] - sqrt(r2);
  if (br < bound) bound = br;
  /* The bound is the distance to the box (or ball), which a point inside is at least as near the
   * surface as; but where the nearest face lies on the box, its distance is the bound itself up
   * to rounding, and until 2026-12-05 a face computed a few ulps farther was rejected: the tree
   * found no face, and a vertex up to about 1e-6 of the mesh's size inside it was taken as
   * outside (a vertex 1.1e-7 m inside a 1.8 m wall of the S2 pile's tank). Widened by 1e-9 of
   * itself, far above that rounding and far below any contact depth. */
  bound *= 1 + 1e-9;
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  int in = cm_mesh_facets_inside(m, g, p, bound, out);
  if (in >= 0) return in;
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
  bound *= 1 + 1e-9; /* as in cm_mesh_inside_local */
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

/* The contact face of a penetrating vertex at p (B's frame, inside): the nearest face, unless
 * its normal does not face against the vertex's outward normal vn (world): then the nearest face
 * that does, if p is behind it. A face along which the vertex's surface runs (the flush side
 * faces of two aligned boxes, one resting on the other) is nearest to the bottom corners at
 * distance 0 whatever their depth below the top face, so those corners carried nothing and the
 * upper box tipped onto them (docs/contact-laws.md, "Flush faces"). */
static void facing_face(const cmModel* m, int g, const double RB[9], const double p[3],
                        const double* vn, cmNearest* near) {
  const double* fn = m->mesh_face_normal + 3 * (size_t)m->geom_faceadr[g];
  double u[3];
  cm_m3_mulvt(u, RB, vn);
  if (cm_v3_dot(fn + 3 * (size_t)near->face, u) < 0) return;
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  cmNearest f;
  if (!cm_bvh_nearest_facing((const cmBvh*)m->geom_bvh + g, m->mesh_vert + 3 * (size_t)va,
                             m->mesh_face + 3 * (size_t)fa, fn, u, p, INFINITY, &f))
    return;
  double t[3];
  cm_v3_sub(t, p, f.point);
  if (cm_v3_dot(t, fn + 3 * (size_t)f.face) < 0) *near = f;
}

void cm_collide_mesh_point(const cmModel* m, const cmData* d, int b, const double RB[9],
                           const double p0[3], const double* vn, cmHit* hit) {
  if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
    deformed_point(m, d, b, p0, hit);
    return;
  }
  /* (RB = R(q_b): cm_quat_rotate and cm_quat_rotate_inv multiply by that very matrix) */
  int g = m->body_geom[b];
  double r[3], p[3];
  cm_v3_sub(r, p0, d->body_xpos + 3 * b);
  cm_m3_mulvt(p, RB, r);
  cmNearest near;
  if (!cm_mesh_inside_local(m, g, p, &near)) return;
  const double* fn = m->mesh_face_normal + 3 * (size_t)m->geom_faceadr[g];
  if (vn) facing_face(m, g, RB, p, vn, &near);
  /* world quantities: nearest point, normal of the nearest face, signed distance */
  double p1[3], n[3], t[3];
  cm_m3_mulv(t, RB, near.point);
  cm_v3_add(p1, t, d->body_xpos + 3 * b);
  cm_m3_mulv(n, RB, fn + 3 * near.face);
  hit->inside = 1;
  hit->face = near.face;
  cm_v3_copy(hit->p0, p0);
  cm_v3_copy(hit->p1, p1);
  cm_v3_copy(hit->n, n);
  cm_v3_sub(t, p0, p1);
  hit->dist = cm_v3_dot(t, n);
}
