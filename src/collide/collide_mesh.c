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
#include <stdint.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/closest.h"
#include "geom/facets.h"
#include "geom/tri_tri.h"

/* |x| and sqrt(x) lane by lane */
static inline v2d v2_abs(v2d x) {
  return (v2d)((v2l)x & (v2l){INT64_MAX, INT64_MAX});
}
static inline v2d v2_sqrt(v2d x) {
#ifdef __SSE2__
  return _mm_sqrt_pd(x);
#else
  return (v2d){sqrt(x[0]), sqrt(x[1])};
#endif
}
/* R = R_a^T R_b and t = R_a^T (x_b - x_a), as cm_m3_mul of R_a's transpose and cm_m3_mulvt: R_ij =
 * RA_0i RB_0j + RA_1i RB_1j + RA_2i RB_2j, columns 0 and 1 of a row in the two lanes of a pair
 * of doubles (geom/closest.h), and t_i = RA_0i dx_0 + RA_1i dx_1 + RA_2i dx_2, rows 0 and 1 in a
 * pair: the same operations in the same order, without the transpose's copy */
void cm_pair_pose_mat(const double RA[9], const double RB[9], const double xa[3],
                      const double xb[3], double R[9], double t[3]) {
  v2d b0 = {RB[0], RB[1]}, b1 = {RB[3], RB[4]}, b2 = {RB[6], RB[7]};
  for (int i = 0; i < 3; i++) {
    v2d r = RA[i] * b0 + RA[3 + i] * b1 + RA[6 + i] * b2;
    R[3 * i] = r[0];
    R[3 * i + 1] = r[1];
    R[3 * i + 2] = RA[i] * RB[2] + RA[3 + i] * RB[5] + RA[6 + i] * RB[8];
  }
  double dx[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
  v2d t01 = (v2d){RA[0], RA[1]} * dx[0] + (v2d){RA[3], RA[4]} * dx[1] + (v2d){RA[6], RA[7]} * dx[2];
  t[0] = t01[0];
  t[1] = t01[1];
  t[2] = RA[2] * dx[0] + RA[5] * dx[1] + RA[8] * dx[2];
}

void cm_pair_pose(const cmData* d, int a, int b, double R[9], double t[3]) {
  double RA[9], RB[9];
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);
  cm_quat_to_mat(RB, d->body_xquat + 4 * b);
  cm_pair_pose_mat(RA, RB, d->body_xpos + 3 * a, d->body_xpos + 3 * b, R, t);
}

double cm_pair_box_eps(const double A[6], const double B[6], const double t[3]) {
  double size = 1 + cm_v3_norm(t);
  for (int k = 0; k < 6; k++)
    size += fabs(A[k]) + fabs(B[k]);
  return 1e-9 * size;
}

/* fmin(least, v) for box_sat's least, which starts at +inf and is never a NaN: v < least ? v :
 * least drops a NaN v as fmin does, and could differ from it only on zeros of opposite signs,
 * which do not occur (an overlap is -sep, sep = |d| - e - r, never -0 in rounded arithmetic as
 * |d| - e is not; nor is +0 its quotient by an axis' length, at most about sqrt 2). The depth
 * monitor's 300 K calls of fmin (its bound and overlap, 1000 boxes at rest) cost 2.5 M
 * instructions. */
static inline double least_of(double least, double v) {
  return v < least ? v : least;
}

/* box_sat's three cross axes u_j = e_i x b_j of A's axis i (i1 = i + 1, i2 = i + 2 mod 3): u_j
 * has u[i1] = -R[i2][j], u[i2] = R[i1][j], so |u_j| = sqrt(R[i2][j]^2 + R[i1][j]^2), u_j . d =
 * R[i1][j] d[i2] - R[i2][j] d[i1] and u_j . b_k = R[i1][j] R[i2][k] - R[i2][j] R[i1][k] (the
 * negated product added is the product subtracted, exactly). That last is +0 for k = j (the same
 * product twice), so its term of B's radius (+0, in a sum of non-negative terms) is left out,
 * and for (k, j) it is the same two products subtracted the other way, the same magnitude: three
 * magnitudes (c01; c02 and c12 in a pair) serve the three axes' radii, each term still
 * eb_k |u_j . b_k| summed in the order of k. Axes j = 0 and 1 run in the two lanes of pairs of
 * doubles (geom/closest.h: lane by lane the same IEEE operations), j = 2 alone. The same values
 * as the loops over j and k over u's components, so the same answers: 1 if an axis separates by
 * more than eps |u| (the axes in any order), with early; else the fmin of -sep / |u| (exact, in
 * any order). With box_sat's own pairs, the S2 pile of 1000 boxes at rest (20 steps):
 * cm_boxes_apart 52.3 -> 30.7 M instructions, 0.991x the run's. */
static inline __attribute__((always_inline)) int cross_axes(const double R[9], const double ea[3],
                                                            const double eb[3], const double d[3],
                                                            int i1, int i2, double eps, int early,
                                                            double* least) {
  const double *r1 = R + 3 * i1, *r2 = R + 3 * i2;
  v2d a = {r1[0], r1[1]}, b = {r2[0], r2[1]}; /* R[i1][j], R[i2][j], j = 0, 1 */
  double a2 = r1[2], b2 = r2[2];
  double c01 = fabs(r1[0] * r2[1] - r2[0] * r1[1]);
  v2d c = v2_abs(a * b2 - b * a2); /* c02, c12 */
  /* j = 0, 1 */
  v2d rb = (v2d){eb[1], eb[0]} * c01 + eb[2] * c;
  v2d l = v2_sqrt(b * b + a * a);
  v2d du = a * d[i2] - b * d[i1];
  v2d ra = ea[i1] * v2_abs(b) + ea[i2] * v2_abs(a);
  v2d sep = v2_abs(du) - ra - rb;
  v2l on = l >= 1e-6; /* not skipped: !(l < 1e-6), the same for a NaN l, whose sep compares false */
  if (early) {
    v2l out = on & (sep > eps * l);
    if (out[0] | out[1]) return 1;
  } else {
    v2d v = -sep / l;
    if (on[0]) *least = least_of(*least, v[0]);
    if (on[1]) *least = least_of(*least, v[1]);
  }
  /* j = 2 */
  double l2 = sqrt(b2 * b2 + a2 * a2);
  if (l2 < 1e-6) return 0;
  double rb2 = eb[0] * c[0] + eb[1] * c[1];
  double du2 = a2 * d[i2] - b2 * d[i1];
  double sep2 = fabs(du2) - (ea[i1] * fabs(b2) + ea[i2] * fabs(a2)) - rb2;
  if (early) return sep2 > eps * l2;
  *least = least_of(*least, -sep2 / l2);
  return 0;
}

/* The separating-axis test of two boxes (cm_boxes_apart, cm_boxes_overlap): with early, 1 as
 * soon as one axis separates them by more than eps (scaled by the axis' length), else 0; without,
 * the least overlap of their projections over the axes, each divided by its axis' length (the
 * depth along the least-overlap axis; negative when apart); with only_a (and not early), that
 * least over A's three axes alone, by the same expressions: not below the least over all, since
 * fmin is exact (cm_boxes_overlap_bound). Always inlined with early and only_a constant: the
 * narrowphase's test keeps its early exits and comparisons, no division. Components and axes 0
 * and 1 run in the two lanes of pairs of doubles, 2 alone: each value the same sum of the same
 * products in the same order as the loops over k (cm_tri_xform's for B's centre), so the same
 * answers (least_of: fmin; the axes tested in another order, which early's answer does not
 * depend on). */
static inline __attribute__((always_inline)) double box_sat(const double A[6], const double B[6],
                                                            const double R[9], const double t[3],
                                                            double eps, int early, int only_a) {
  double least = INFINITY;
  /* the half-extents, B's centre (components 0 and 1 in a pair, 2 alone) */
  v2d alo = {A[0], A[1]}, ahi = {A[3], A[4]}, blo = {B[0], B[1]}, bhi = {B[3], B[4]};
  v2d ea01 = 0.5 * (ahi - alo), eb01 = 0.5 * (bhi - blo), cb01 = 0.5 * (blo + bhi);
  double ea[3] = {ea01[0], ea01[1], 0.5 * (A[5] - A[2])};
  double eb[3] = {eb01[0], eb01[1], 0.5 * (B[5] - B[2])};
  double cb2 = 0.5 * (B[2] + B[5]);
  /* B's centre in A's frame (R cb + t, cm_tri_xform's sums), less A's centre */
  v2d c0 = {R[0], R[3]}, c1 = {R[1], R[4]}, c2 = {R[2], R[5]}; /* R's columns, rows 0 and 1 */
  v2d d01 = c0 * cb01[0] + c1 * cb01[1] + c2 * cb2 + (v2d){t[0], t[1]};
  d01 -= 0.5 * (alo + ahi);
  double d[3] = {d01[0], d01[1],
                 R[6] * cb01[0] + R[7] * cb01[1] + R[8] * cb2 + t[2] - 0.5 * (A[2] + A[5])};
  /* A's axes i: B's half-extent along it is sum_j |R_ij| eb_j */
  v2d sa = v2_abs(d01) - ea01 - (v2_abs(c0) * eb[0] + v2_abs(c1) * eb[1] + v2_abs(c2) * eb[2]);
  double sa2 = fabs(d[2]) - ea[2] - (fabs(R[6]) * eb[0] + fabs(R[7]) * eb[1] + fabs(R[8]) * eb[2]);
  if (early) {
    v2l out = sa > eps;
    if (out[0] | out[1] || sa2 > eps) return 1;
  } else {
    least = least_of(least_of(least_of(least, -sa[0]), -sa[1]), -sa2);
  }
  if (only_a) return least;
  /* B's axes j (column j of R) */
  v2d r0 = {R[0], R[1]}, r1 = {R[3], R[4]}, r2 = {R[6], R[7]}; /* R's rows, columns 0 and 1 */
  v2d sb = v2_abs(r0 * d[0] + r1 * d[1] + r2 * d[2]) - eb01 -
           (v2_abs(r0) * ea[0] + v2_abs(r1) * ea[1] + v2_abs(r2) * ea[2]);
  double sb2 = fabs(R[2] * d[0] + R[5] * d[1] + R[8] * d[2]) - eb[2] -
               (fabs(R[2]) * ea[0] + fabs(R[5]) * ea[1] + fabs(R[8]) * ea[2]);
  if (early) {
    v2l out = sb > eps;
    if (out[0] | out[1] || sb2 > eps) return 1;
  } else {
    least = least_of(least_of(least_of(least, -sb[0]), -sb[1]), -sb2);
  }
  /* the cross products of A's axis i and B's axis j, u = e_i x b_j (not normalised: the test
   * compares projections on u, so eps is scaled by |u|; nearly parallel axes are skipped, the
   * box axes cover them) */
  if (cross_axes(R, ea, eb, d, 1, 2, eps, early, &least) ||
      cross_axes(R, ea, eb, d, 2, 0, eps, early, &least) ||
      cross_axes(R, ea, eb, d, 0, 1, eps, early, &least))
    return 1;
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
                            m->mesh_facet_face, m->mesh_facet_box, m->mesh_vert + 3 * (size_t)va,
                            m->mesh_face + 3 * (size_t)fa, m->geom_ball[4 * g + 3], p, bound, out);
  int c0 = m->geom_celladr[g];
  if (c0 < 0) return -1;
  return cm_facets_grid_inside(
      plane, m->geom_grid + 3 * g, m->cell_facetadr + c0, m->cell_nfacet + c0,
      m->cell_bound + 4 * (size_t)c0, m->cell_facet, m->facet_faceadr + j0, m->facet_nface + j0,
      m->mesh_facet_face, m->mesh_facet_box, m->mesh_vert + 3 * (size_t)va,
      m->mesh_face + 3 * (size_t)fa, m->geom_ball[4 * g + 3], p, bound, out);
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
  /* a mesh with a cavity (a tank, a bowl, a terrain's relief): a point in it is inside the box
   * and the ball, and the nearest-face search below visits the faces around the cavity before
   * it can say outside (a tank of 28 faces holding a pile of 125 boxes: 31 % of the step). The
   * segment from p out of the box along the mesh's open direction (geom_open_dir), meeting no
   * face, says it at once and exactly; a point it does not certify is searched as before */
  int dir = m->geom_open_dir[g];
  if (dir >= 0 && cm_mesh_escapes((const cmBvh*)m->geom_bvh + g, m->mesh_vert + 3 * (size_t)va,
                                  m->mesh_face + 3 * (size_t)fa, box, p, dir)) {
    if (out) {
      out->face = -1;
      out->dist2 = INFINITY;
    }
    return 0;
  }
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

int cm_mesh_near_surface(const cmModel* m, int g, const double x[3], cmNearest* out) {
  cmNearest tmp;
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  return cm_bvh_nearest((const cmBvh*)m->geom_bvh + g, m->mesh_vert + 3 * (size_t)va,
                        m->mesh_face + 3 * (size_t)fa, x, cm_surface_band(m, g), out ? out : &tmp);
}

/* Is p (B's frame), which the inside test found not strictly inside, on B's surface (within
 * CM_SURFACE_BAND of B's size) and inside B a hair into its own body (moved by twice that along
 * minus the vertex's outward normal vn, world)? A box resting on an identical box
 * with flush sides has its bottom corners and edge vertices exactly in the lower box's side
 * planes, at distance 0 from them however deep they are below its top face: strictly inside
 * they are not, so they carried nothing, and such a stack rested 3 times the law's depth at 1
 * division (only its edge contacts held it), 1.7 times at 2 (2026-12-07, an audit); with a
 * band of 1e-9 of the size, a tilt of 5e-8 rad put them outside at 4 and 5 divisions and the box
 * rocked on. Moved into their own body they are inside; a vertex resting exactly on a face
 * (depth 0) moves away from it and is not. *near: p's nearest face then. */
static int on_surface_inside(const cmModel* m, int g, const double RB[9], const double p[3],
                             const double vn[3], cmNearest* near) {
  double eps = cm_surface_band(m, g);
  if (!cm_mesh_near_surface(m, g, p, near)) return 0;
  double u[3], q[3], l = cm_v3_norm(vn);
  if (!(l > 0)) return 0;
  cm_m3_mulvt(u, RB, vn);
  cm_v3_madd(q, p, u, -2 * eps / l);
  cmNearest nq;
  return cm_mesh_inside_local(m, g, q, &nq);
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
  /* on B's surface, inside a hair into A (on_surface_inside): only where B has ridges, whose
   * faces can run flush along A's (a smooth B, a sphere, has none: a vertex on its surface only
   * touches it; the kit's bed of 1000 spheres asked 2.8 % of its step of the queries) */
  int surface = 0;
  if (!cm_mesh_inside_local(m, g, p, &near) &&
      !(vn && m->geom_nridge[g] > 0 && (surface = on_surface_inside(m, g, RB, p, vn, &near))))
    return;
  const double* fn = m->mesh_face_normal + 3 * (size_t)m->geom_faceadr[g];
  if (vn) facing_face(m, g, RB, p, vn, &near);
  /* (on the surface: a contact only where a face facing against the vertex lies above it) */
  if (surface) {
    double w[3];
    cm_v3_sub(w, p, near.point);
    if (!(cm_v3_dot(w, fn + 3 * (size_t)near.face) < 0)) return;
  }
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
