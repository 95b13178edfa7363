/* Exact-sign orientation predicates, segment-triangle and triangle-triangle intersection, and the
 * intersecting face pairs of two meshes (BVH against BVH).
 *
 * Predicates. orient3d(a, b, c, d) = (b - a) x (c - a) . (d - a) = -det[a - d; b - d; c - d].
 * Filter: the determinant is evaluated in doubles from the differences a - d, b - d, c - d
 * (Shewchuk's form); its rounding error is below (7 + 56 u) u P with u = 2^-53 and P the
 * permanent (the same expression with every product and difference replaced by its absolute
 * value). We accept the floating sign when |det| > 1e-15 P (a safe bound above 7.8e-16 P).
 * Otherwise the sign is computed exactly: writing the determinant as the 4 x 4 determinant
 *   det[a 1; b 1; c 1; d 1] = sum_r (-1)^(r+3) det3(the three other rows),
 * it is a signed sum of 24 products x_i y_j z_k of input coordinates. Each product is exact as
 * a sum of 4 doubles (TwoProduct by fma: x y = p + e exactly with p = fl(x y), e = fma(x, y, -p);
 * then each of p, e times z the same way). The 96 doubles are summed exactly into a
 * nonoverlapping expansion by Grow-Expansion with zero elimination (Shewchuk 1997, Theorem 10:
 * TwoSum carries the exact error of each addition, the components stay nonoverlapping and sorted
 * by magnitude), and the sign of an expansion is the sign of its largest component. orient2d
 * (the 2 x 2 case in a coordinate plane) is the same with 6 products of two coordinates. Exact
 * unless a product underflows (|x y| < 1e-290), which metre-scale geometry never reaches.
 *
 * Segment pq against closed triangle abc. With sp = orient3d(a, b, c, p), sq = (.., q):
 *  - sp = sq != 0: both endpoints strictly on one side, no intersection;
 *  - sp = sq = 0: coplanar; in the coordinate plane (i, j) dropping an axis along which the
 *    triangle does not project to a line (exact orient2d != 0), they meet iff p or q lies in the
 *    closed triangle or pq meets one of its edges (closed 2D segment test with orient2d, bounding
 *    intervals for collinear overlap);
 *  - otherwise the line pq crosses the plane at one point X on the closed segment, and X is in
 *    the closed triangle iff the three signs orient3d(p, q, a, b), (p, q, b, c), (p, q, c, a)
 *    are all >= 0 or all <= 0 (X is on the same side of the three planes through the line and
 *    an edge). X = p + t (q - p) with t = |Vp| / (|Vp| + |Vq|) from the floating volumes,
 *    clamped; exactly p or q when that endpoint's exact sign is 0.
 * To be symmetric in p and q (a mesh edge is seen from both of its faces with opposite
 * directions) the segment is always ordered lexicographically first.
 *
 * Triangles. Two closed triangles meet iff an edge of one meets the other: if they meet and are
 * not coplanar, their intersection is a segment (or a point) whose ends lie on the boundary of
 * one of them, so on an edge; if coplanar, either their boundaries cross or one contains the
 * other, and then its edges lie in the other. The test first rejects by the exact signs of one
 * triangle's vertices against the other's plane (all strictly on one side), then tries the six
 * edge-triangle tests.
 *
 * Mesh pairs. Simultaneous depth-first descent of both trees with an explicit stack of node
 * pairs: a pair whose boxes do not overlap is dropped; otherwise the node that is not a leaf
 * (the larger box by half area when both are inner) is split and both child pairs are pushed
 * (the second first, so the first is visited first). B's boxes are carried into A's frame as
 * centre R c + t and half-extents |R| h, inflated by 1e-12 of their size and position so that
 * the rounding of B's transformed vertices (a few ulps) can never put a face outside its box.
 * The stack grows by at most one entry per level descended, so depth_A + depth_B + 2 entries
 * suffice. The pairs are then sorted by (fa, fb): the output does not depend on the trees. */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/closest.h"
#include "geom/tri_tri.h"

/* ---------------------------------------------------------------------------------------------
 * exact arithmetic */

/* a + b = x + y exactly, |y| <= ulp(x)/2 (Knuth's TwoSum) */
static inline void two_sum(double a, double b, double* x, double* y) {
  double s = a + b, bv = s - a, av = s - bv;
  *x = s;
  *y = (a - av) + (b - bv);
}

/* a b = x + y exactly (fma is exact by definition) */
static inline void two_prod(double a, double b, double* x, double* y) {
  double p = a * b;
  *x = p;
  *y = fma(a, b, -p);
}

/* add b to the expansion e (n components, increasing magnitude, nonoverlapping); returns the new
 * length. Zero components are eliminated; the expansion may shrink to 0 components. */
static int grow(double* e, int n, double b) {
  double q = b;
  int m = 0;
  for (int i = 0; i < n; i++) {
    double x, y;
    two_sum(q, e[i], &x, &y);
    if (y != 0) e[m++] = y;
    q = x;
  }
  if (q != 0) e[m++] = q;
  return m;
}

/* add s x y z exactly (s = +1 or -1) */
static int grow_prod3(double* e, int n, double s, double x, double y, double z) {
  double p, pe, h[4];
  two_prod(s * x, y, &p, &pe);
  two_prod(p, z, &h[0], &h[1]);
  two_prod(pe, z, &h[2], &h[3]);
  for (int k = 0; k < 4; k++)
    n = grow(e, n, h[k]);
  return n;
}

static int sign_of(const double* e, int n) {
  if (n == 0) return 0;
  return e[n - 1] > 0 ? 1 : (e[n - 1] < 0 ? -1 : 0);
}

/* exact sign of det3 of rows u, v, w added with sign s into e */
static int grow_det3(double* e, int n, double s, const double* u, const double* v,
                     const double* w) {
  n = grow_prod3(e, n, s, u[0], v[1], w[2]);
  n = grow_prod3(e, n, -s, u[0], v[2], w[1]);
  n = grow_prod3(e, n, -s, u[1], v[0], w[2]);
  n = grow_prod3(e, n, s, u[1], v[2], w[0]);
  n = grow_prod3(e, n, s, u[2], v[0], w[1]);
  n = grow_prod3(e, n, -s, u[2], v[1], w[0]);
  return n;
}

/* exact sign of det[a 1; b 1; c 1; d 1] = det[a - d; b - d; c - d] */
static int det4_sign_exact(const double* a, const double* b, const double* c, const double* d) {
  double e[100];
  int n = 0;
  /* cofactors of the column of ones: rows removed 3 (+), 2 (-), 1 (+), 0 (-) */
  n = grow_det3(e, n, 1, a, b, c);
  n = grow_det3(e, n, -1, a, b, d);
  n = grow_det3(e, n, 1, a, c, d);
  n = grow_det3(e, n, -1, b, c, d);
  return sign_of(e, n);
}

/* ---------------------------------------------------------------------------------------------
 * predicates */

/* det[a - d; b - d; c - d] in floating point, with its permanent */
static double det_filtered(const double* a, const double* b, const double* c, const double* d,
                           double* perm) {
  double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
  double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
  double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
  double bc = bdy * cdz - bdz * cdy, ca = cdy * adz - cdz * ady, ab = ady * bdz - adz * bdy;
  *perm = fabs(adx) * (fabs(bdy * cdz) + fabs(bdz * cdy)) +
          fabs(bdx) * (fabs(cdy * adz) + fabs(cdz * ady)) +
          fabs(cdx) * (fabs(ady * bdz) + fabs(adz * bdy));
  return adx * bc + bdx * ca + cdx * ab;
}

int cm_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]) {
  double perm, det = det_filtered(a, b, c, d, &perm);
  if (fabs(det) > 1e-15 * perm && perm > 1e-280) return det > 0 ? -1 : 1;
  if (perm == 0) return 0; /* every product is exactly zero */
  return -det4_sign_exact(a, b, c, d);
}

double cm_orient3d_value(const double a[3], const double b[3], const double c[3],
                         const double d[3]) {
  double perm;
  return -det_filtered(a, b, c, d, &perm);
}

int cm_orient2d(const double a[3], const double b[3], const double c[3], int i, int j) {
  double acx = a[i] - c[i], acy = a[j] - c[j], bcx = b[i] - c[i], bcy = b[j] - c[j];
  double l = acx * bcy, r = acy * bcx, det = l - r, perm = fabs(l) + fabs(r);
  if (fabs(det) > 4e-16 * perm && perm > 1e-280) return det > 0 ? 1 : -1;
  if (perm == 0) return 0;
  /* det[a 1; b 1; c 1] = ai bj - ai cj - aj bi + aj ci + bi cj - bj ci, each product exact */
  const double t[6][3] = {{a[i], b[j], 1}, {a[i], c[j], -1}, {a[j], b[i], -1},
                          {a[j], c[i], 1}, {b[i], c[j], 1},  {b[j], c[i], -1}};
  double e[16];
  int n = 0;
  for (int k = 0; k < 6; k++) {
    double x, y;
    two_prod(t[k][2] * t[k][0], t[k][1], &x, &y);
    n = grow(e, n, x);
    n = grow(e, n, y);
  }
  return sign_of(e, n);
}

/* ---------------------------------------------------------------------------------------------
 * 2D tests in the coordinate plane (i, j), exact */

/* r on the closed segment pq, given that p, q, r are collinear */
static int on_segment(const double* p, const double* q, const double* r, int i, int j) {
  return fmin(p[i], q[i]) <= r[i] && r[i] <= fmax(p[i], q[i]) && fmin(p[j], q[j]) <= r[j] &&
         r[j] <= fmax(p[j], q[j]);
}

/* do the closed segments pq and ab meet? */
static int seg_seg_2d(const double* p, const double* q, const double* a, const double* b, int i,
                      int j) {
  int d1 = cm_orient2d(p, q, a, i, j), d2 = cm_orient2d(p, q, b, i, j);
  int d3 = cm_orient2d(a, b, p, i, j), d4 = cm_orient2d(a, b, q, i, j);
  if (d1 * d2 < 0 && d3 * d4 < 0) return 1;
  if (d1 == 0 && on_segment(p, q, a, i, j)) return 1;
  if (d2 == 0 && on_segment(p, q, b, i, j)) return 1;
  if (d3 == 0 && on_segment(a, b, p, i, j)) return 1;
  if (d4 == 0 && on_segment(a, b, q, i, j)) return 1;
  return 0;
}

/* r in the closed triangle abc (non-degenerate in this plane) */
static int in_tri_2d(const double* a, const double* b, const double* c, const double* r, int i,
                     int j) {
  int s0 = cm_orient2d(a, b, r, i, j), s1 = cm_orient2d(b, c, r, i, j);
  int s2 = cm_orient2d(c, a, r, i, j);
  return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
}

/* a coordinate plane in which abc is not a line; 0 if abc is collinear */
static int pick_plane(const double* a, const double* b, const double* c, int* i, int* j) {
  double u[3], v[3], n[3];
  cm_v3_sub(u, b, a);
  cm_v3_sub(v, c, a);
  cm_v3_cross(n, u, v);
  /* drop the axis of the largest normal component first, then the others */
  int k0 = 0;
  for (int k = 1; k < 3; k++)
    if (fabs(n[k]) > fabs(n[k0])) k0 = k;
  for (int s = 0; s < 3; s++) {
    int k = (k0 + s) % 3;
    *i = (k + 1) % 3;
    *j = (k + 2) % 3;
    if (cm_orient2d(a, b, c, *i, *j) != 0) return 1;
  }
  return 0;
}

/* floating intersection point of the lines pq and ab in the plane (i, j), on pq, clamped */
static void seg_seg_point(const double* p, const double* q, const double* a, const double* b, int i,
                          int j, double x[3]) {
  double rx = q[i] - p[i], ry = q[j] - p[j], sx = b[i] - a[i], sy = b[j] - a[j];
  double den = rx * sy - ry * sx, t = 0.5;
  if (den != 0) t = ((a[i] - p[i]) * sy - (a[j] - p[j]) * sx) / den;
  if (!(t >= 0)) t = 0; /* also NaN */
  if (t > 1) t = 1;
  for (int k = 0; k < 3; k++)
    x[k] = p[k] + t * (q[k] - p[k]);
}

static int seg_tri_coplanar(const double* p, const double* q, const double* a, const double* b,
                            const double* c, double x[3]) {
  int i, j;
  if (!pick_plane(a, b, c, &i, &j)) return CM_SEG_TRI_NONE;
  const double* r = NULL;
  if (in_tri_2d(a, b, c, p, i, j))
    r = p;
  else if (in_tri_2d(a, b, c, q, i, j))
    r = q;
  if (r) {
    if (x) cm_v3_copy(x, r);
    return CM_SEG_TRI_COPLANAR;
  }
  const double* v[3] = {a, b, c};
  for (int k = 0; k < 3; k++)
    if (seg_seg_2d(p, q, v[k], v[(k + 1) % 3], i, j)) {
      if (x) seg_seg_point(p, q, v[k], v[(k + 1) % 3], i, j, x);
      return CM_SEG_TRI_COPLANAR;
    }
  return CM_SEG_TRI_NONE;
}

static int lex_less(const double* u, const double* v) {
  for (int k = 0; k < 3; k++)
    if (u[k] != v[k]) return u[k] < v[k];
  return 0;
}

int cm_seg_tri(const double p_[3], const double q_[3], const double a[3], const double b[3],
               const double c[3], double x[3]) {
  /* canonical direction: the answer does not depend on the order of p and q */
  const double *p = p_, *q = q_;
  if (lex_less(q, p)) {
    p = q_;
    q = p_;
  }
  int sp = cm_orient3d(a, b, c, p), sq = cm_orient3d(a, b, c, q);
  if (sp == sq && sp != 0) return CM_SEG_TRI_NONE;
  if (sp == 0 && sq == 0) return seg_tri_coplanar(p, q, a, b, c, x);
  /* the line crosses the plane at one point of the closed segment: inside the triangle? */
  int s0 = cm_orient3d(p, q, a, b), s1 = cm_orient3d(p, q, b, c);
  if (s0 * s1 < 0) return CM_SEG_TRI_NONE; /* (the third sign cannot change that) */
  int s2 = cm_orient3d(p, q, c, a);
  if (!((s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0))) return CM_SEG_TRI_NONE;
  if (x) {
    double t;
    if (sp == 0)
      t = 0;
    else if (sq == 0)
      t = 1;
    else {
      double vp = fabs(cm_orient3d_value(a, b, c, p)), vq = fabs(cm_orient3d_value(a, b, c, q));
      t = vp + vq > 0 ? vp / (vp + vq) : 0.5;
      if (!(t >= 0)) t = 0;
      if (t > 1) t = 1;
    }
    for (int k = 0; k < 3; k++)
      x[k] = t == 1 ? q[k] : p[k] + t * (q[k] - p[k]);
  }
  return CM_SEG_TRI_CROSS;
}

int cm_tri_tri(const double a0[3], const double a1[3], const double a2[3], const double b0[3],
               const double b1[3], const double b2[3]) {
  /* B's vertices strictly on one side of A's plane, or A's of B's: apart */
  int s0 = cm_orient3d(a0, a1, a2, b0), s1 = cm_orient3d(a0, a1, a2, b1);
  int s2 = cm_orient3d(a0, a1, a2, b2);
  if ((s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0)) return 0;
  int t0 = cm_orient3d(b0, b1, b2, a0), t1 = cm_orient3d(b0, b1, b2, a1);
  int t2 = cm_orient3d(b0, b1, b2, a2);
  if ((t0 > 0 && t1 > 0 && t2 > 0) || (t0 < 0 && t1 < 0 && t2 < 0)) return 0;
  /* an edge of one meets the other */
  const double* A[3] = {a0, a1, a2};
  const double* B[3] = {b0, b1, b2};
  for (int k = 0; k < 3; k++)
    if (cm_seg_tri(A[k], A[(k + 1) % 3], b0, b1, b2, NULL)) return 1;
  for (int k = 0; k < 3; k++)
    if (cm_seg_tri(B[k], B[(k + 1) % 3], a0, a1, a2, NULL)) return 1;
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * mesh against mesh */

void cm_tri_xform(double out[3], const double R[9], const double t[3], const double x[3]) {
  cm_m3_mulv(out, R, x);
  cm_v3_add(out, out, t);
}

/* box of B in A's frame, conservative */
static void xform_box(double out[6], const double R[9], const double t[3], const double b[6]) {
  double c[3], h[3], cc[3], size = 0;
  for (int k = 0; k < 3; k++) {
    c[k] = 0.5 * (b[k] + b[3 + k]);
    h[k] = 0.5 * (b[3 + k] - b[k]);
  }
  cm_tri_xform(cc, R, t, c);
  for (int k = 0; k < 3; k++)
    size = fmax(size, fabs(cc[k]) + fabs(t[k]) + fabs(c[k]) + h[k]);
  for (int r = 0; r < 3; r++) {
    double hr = fabs(R[3 * r]) * h[0] + fabs(R[3 * r + 1]) * h[1] + fabs(R[3 * r + 2]) * h[2];
    hr += 1e-12 * size + 1e-300;
    out[r] = cc[r] - hr;
    out[3 + r] = cc[r] + hr;
  }
}

static int boxes_overlap(const double* a, const double* b) {
  for (int k = 0; k < 3; k++)
    if (a[k] > b[3 + k] || b[k] > a[3 + k]) return 0;
  return 1;
}

static double half_area(const double* b) {
  double x = b[3] - b[0], y = b[4] - b[1], z = b[5] - b[2];
  return x * y + y * z + z * x;
}

static int pair_cmp(const void* x, const void* y) {
  const cmTriPair *p = x, *q = y;
  if (p->fa != q->fa) return p->fa < q->fa ? -1 : 1;
  return (p->fb > q->fb) - (p->fb < q->fb);
}

/* test the faces of leaf nodes na (of A) and nb (of B) */
static int leaf_pairs(const cmBvh* ta, const double* va, const int* fa, const cmBvh* tb,
                      const double* vb, const int* fb, const double R[9], const double t[3],
                      const cmBvhNode* na, const cmBvhNode* nb, cmTriPair* out, int max,
                      int count) {
  for (int i = 0; i < nb->count; i++) {
    int g = tb->order[-1 - nb->child + i];
    double y[3][3], gbox[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
      cm_tri_xform(y[k], R, t, vb + 3 * (size_t)fb[3 * g + k]);
      for (int r = 0; r < 3; r++) {
        gbox[r] = fmin(gbox[r], y[k][r]);
        gbox[3 + r] = fmax(gbox[3 + r], y[k][r]);
      }
    }
    for (int j = 0; j < na->count; j++) {
      int f = ta->order[-1 - na->child + j];
      const int* F = fa + 3 * f;
      const double *x0 = va + 3 * (size_t)F[0], *x1 = va + 3 * (size_t)F[1];
      const double* x2 = va + 3 * (size_t)F[2];
      /* exact face boxes first */
      int apart = 0;
      for (int r = 0; r < 3 && !apart; r++) {
        double lo = fmin(x0[r], fmin(x1[r], x2[r])), hi = fmax(x0[r], fmax(x1[r], x2[r]));
        apart = lo > gbox[3 + r] || gbox[r] > hi;
      }
      if (apart || !cm_tri_tri(x0, x1, x2, y[0], y[1], y[2])) continue;
      if (count < max) {
        out[count].fa = f;
        out[count].fb = g;
      }
      count++;
    }
  }
  return count;
}

int cm_bvh_tri_pairs(const cmBvh* ta, const double* va, const int* fa, const cmBvh* tb,
                     const double* vb, const int* fb, const double R[9], const double t[3],
                     cmTriPair* out, int max) {
  if (ta->nnode == 0 || tb->nnode == 0) return 0;
  enum { STACK = 2 * CM_BVH_MAX_DEPTH + 4 };
  int sa[STACK], sb[STACK], top = 0, count = 0;
  sa[top] = 0;
  sb[top++] = 0;
  while (top > 0) {
    top--;
    const cmBvhNode *na = &ta->node[sa[top]], *nb = &tb->node[sb[top]];
    int ia = sa[top], ib = sb[top];
    double bb[6];
    xform_box(bb, R, t, nb->box);
    if (!boxes_overlap(na->box, bb)) continue;
    int leaf_a = na->count > 0, leaf_b = nb->count > 0;
    if (leaf_a && leaf_b) {
      count = leaf_pairs(ta, va, fa, tb, vb, fb, R, t, na, nb, out, max, count);
      continue;
    }
    /* split the inner node (the larger box if both are inner); second child pushed first */
    int split_a = !leaf_a && (leaf_b || half_area(na->box) >= half_area(bb));
    for (int c = 1; c >= 0; c--) {
      sa[top] = split_a ? na->child + c : ia;
      sb[top] = split_a ? ib : nb->child + c;
      top++;
    }
  }
  if (count <= max) cm_sort(out, (size_t)count, sizeof *out, pair_cmp);
  return count;
}

int cm_bvh_box_faces(const cmBvh* t, const double box[6], int* out, int max) {
  if (t->nnode == 0) return 0;
  int stack[CM_BVH_MAX_DEPTH + 2], top = 0, count = 0;
  stack[top++] = 0;
  while (top > 0) {
    const cmBvhNode* n = &t->node[stack[--top]];
    if (!boxes_overlap(n->box, box)) continue;
    if (n->count > 0) {
      for (int i = 0; i < n->count; i++, count++)
        if (count < max) out[count] = t->order[-1 - n->child + i];
      continue;
    }
    stack[top++] = n->child + 1;
    stack[top++] = n->child;
  }
  return count;
}

/* the slab test of cm_seg_box with the inverse direction inv (1 / (q - p), per axis) given, and
 * d its direction (an axis with d = 0 is tested by the point alone) */
static int seg_box_inv(const double p[3], const double d[3], const double inv[3],
                       const double box[6], double eps) {
  double t0 = 0, t1 = 1;
  for (int k = 0; k < 3; k++)
    if (!cm_slab(p[k], d[k], inv[k], box[k] - eps, box[3 + k] + eps, &t0, &t1)) return 0;
  return 1;
}

/* seg_box_inv for a d with no zero component (cm_bvh_seg_faces' common case: all its segments on
 * S2 125), inlined there: no point test, the swap written as selects (the same choice as
 * seg_box_inv's, a or b NaN included), and t0 > t1 tested once at the end, which gives the same
 * answer since t0 only grows and t1 only shrinks (the slab test rejects 6% of the nodes it sees) */
static inline int seg_box_inv3(const double p[3], const double inv[3], const double box[6],
                               double eps) {
  double t0 = 0, t1 = 1;
  for (int k = 0; k < 3; k++) {
    double a = (box[k] - eps - p[k]) * inv[k], b = (box[3 + k] + eps - p[k]) * inv[k];
    double lo = a > b ? b : a, hi = a > b ? a : b;
    t0 = lo > t0 ? lo : t0;
    t1 = hi < t1 ? hi : t1;
  }
  return !(t0 > t1);
}

/* side_i and tol_i of in_plane for the edge e from v: counted into neg or pos where beyond tol */
static inline void edge_side(const double nf[3], const double e[3], const double* v,
                             const double x[3], double ex, int* neg, int* pos) {
  double r[3] = {x[0] - v[0], x[1] - v[1], x[2] - v[2]}, c[3];
  cm_v3_cross(c, e, r);
  double side = cm_v3_dot(nf, c), tol = (fabs(e[0]) + fabs(e[1]) + fabs(e[2])) * ex;
  *neg += side < -tol;
  *pos += side > tol;
}

/* Where the segment p + s dir (B's frame) crosses the plane of face F (unit normal nf), its
 * signed distances sp, sq to the plane apart by far more than eps: the crossing point x against
 * the triangle's three edges, side_i = nf . (e_i x (x - v_i)) (|e_i| times the distance of x from
 * edge i's line: the sign of cm_seg_tri's orientation test across that edge, up to one sign
 * common to the three). x is off the crossing point of the exact test by rounding amplified by
 * |dir| / |sp - sq| (a segment nearly along the plane); tol_i bounds that times |e_i|_1 >= |e_i|,
 * with the margin eps (1e-9 of the sizes) far above rounding. Returns -1 if two sides are beyond
 * their tol with opposite signs (cm_seg_tri finds two orientations of opposite signs: outside),
 * 1 if all three are beyond it with one sign (inside: all orientations of one sign), else 0. */
static int in_plane(const double nf[3], const double* v0, const double* v1, const double* v2,
                    const double e1[3], const double pb[3], const double dir[3], double dir1,
                    double sp, double sq, double eps) {
  double den = sp - sq;
  if (!(fabs(den) > 4 * eps)) return 0;
  double tt = sp / den, x[3];
  for (int k = 0; k < 3; k++)
    x[k] = pb[k] + tt * dir[k];
  double ex = eps * (2 + dir1 / fabs(den));
  int neg = 0, pos = 0;
  /* the edges v0 v1 (e1, the caller's), v2 v0, v1 v2; two beyond tol with opposite signs
   * decide outside whatever the third. The answer does not depend on the order of the edges
   * (each side_i is computed alone): a box's faces have their diagonal as the first or the
   * third edge, and a point crossing the face beside it, outside across the diagonal alone, is
   * decided by these two (the 1000-box pile at rest: 19 k of 508 k calls take the third edge
   * to say outside, 140 k in the order v0 v1, v1 v2, v2 v0; cm_bvh_seg_faces 277 M -> 265 M
   * instructions) */
  double e[3] = {v0[0] - v2[0], v0[1] - v2[1], v0[2] - v2[2]};
  edge_side(nf, e1, v0, x, ex, &neg, &pos);
  edge_side(nf, e, v2, x, ex, &neg, &pos);
  if ((neg != 0) & (pos != 0)) return -1;
  cm_v3_sub(e, v2, v1);
  edge_side(nf, e, v1, x, ex, &neg, &pos);
  return (neg != 0) & (pos != 0) ? -1 : (neg == 3) | (pos == 3);
}

/* Does the segment p + s dir, s in [0, 1] (B's frame), cross face F of B, decided beyond
 * rounding? -1: it misses it (both ends more than eps, 1e-9 of the sizes, on one side of its
 * plane, or the crossing point outside the triangle: in_plane); 1: it crosses it (the ends more
 * than eps on either side, the crossing point inside); 0: undecided. Where it decides,
 * cm_seg_tri on the same points carried the other way, which differ by rounding, gives the same
 * answer. The unit normal nf (the tree's seg_n: the face's own cross product, normalised, kept
 * with the tree) is given, and the test is made only where that direction is accurate far beyond
 * eps: the face's sine of angle above 1e-6 (nf[3] = 1; a sliver's normal is mostly rounding; it
 * is left to the exact test). */
static int seg_face_class(const double* vb, const int F[3], const double nf[4], const double pb[3],
                          const double dir[3], double dir1, double eps) {
  if (nf[3] == 0) return 0;
  const double *v0 = vb + 3 * (size_t)F[0], *v1 = vb + 3 * (size_t)F[1],
               *v2 = vb + 3 * (size_t)F[2];
  double e1[3], r[3];
  cm_v3_sub(e1, v1, v0);
  cm_v3_sub(r, pb, v0);
  double sp = cm_v3_dot(nf, r), sq = sp + cm_v3_dot(nf, dir);
  /* (the comparisons combined by & and |, not && and ||: the same answers, one branch where
   * the short-circuits' were mispredicted on many faces) */
  int above = (sp > eps) & (sq > eps), below = (sp < -eps) & (sq < -eps);
  if (above | below) return -1;
  int c = in_plane(nf, v0, v1, v2, e1, pb, dir, dir1, sp, sq, eps);
  int across = ((sp > eps) & (sq < -eps)) | ((sp < -eps) & (sq > eps));
  return c > 0 && !across ? 0 : c;
}

/* does the segment p + s dir, s in [0, 1] (B's frame; inv as in seg_box_inv, nonzero: no component
 * of dir is 0), whose box is sbox, meet box? Its box first (cheap), then the segment itself, both
 * widened by eps: a diagonal segment's box meets many more nodes than the segment does */
static inline int seg_meets(const double box[6], const double sbox[6], const double p[3],
                            const double dir[3], const double inv[3], double eps, int nonzero) {
  return boxes_overlap(box, sbox) &&
         (nonzero ? seg_box_inv3(p, inv, box, eps) : seg_box_inv(p, dir, inv, box, eps));
}

/* seg_meets for two boxes at once (b1 in the first lane, b0 in the second) and a dir with no
 * zero component: bit 0 set if b1 passes, bit 1 if b0 does. Each lane makes boxes_overlap's
 * comparisons and seg_box_inv3's operations in seg_box_inv3's order (a > b ? b : a is v2_min(b,
 * a), a > b ? a : b is v2_max(a, b), lo > t0 ? lo : t0 is v2_max(lo, t0), hi < t1 ? hi : t1 is
 * v2_min(hi, t1), NaN included), so each bit is seg_meets' answer for its box; both tests are
 * pure, so evaluating both whole (no early exit) changes nothing. Without a branch: the early
 * exits and gcc's branches for the selects were mispredicted on many of the nodes (callgrind's
 * branch simulation, S2 125 for 1 s: 2.9 M of the walk's 5.9 M mispredicted branches) */
static inline int seg_meets_pair(const double* b1, const double* b0, const double sbox[6],
                                 const double p[3], const double inv[3], double eps) {
  v2l out = {0, 0};
  v2d t0 = {0, 0}, t1 = {1, 1}, E = {eps, eps};
  for (int k = 0; k < 3; k++) {
    v2d lo_b = {b1[k], b0[k]}, hi_b = {b1[3 + k], b0[3 + k]};
    v2d slo = {sbox[k], sbox[k]}, shi = {sbox[3 + k], sbox[3 + k]};
    v2d P = {p[k], p[k]}, I = {inv[k], inv[k]};
    out |= (lo_b > shi) | (slo > hi_b);
    v2d a = (lo_b - E - P) * I, b = (hi_b + E - P) * I;
    v2d lo = v2_min(b, a), hi = v2_max(a, b);
    t0 = v2_max(lo, t0);
    t1 = v2_min(hi, t1);
  }
  out |= t0 > t1;
  return (out[0] == 0) | (out[1] == 0) << 1;
}

int cm_mesh_escapes(const cmBvh* tb, const double* vb, const int* fb, const double box[6],
                    const double p[3], int dir) {
  int k = dir / 2, up = dir % 2;
  double q[3] = {p[0], p[1], p[2]};
  /* the far end a tenth of the box's size beyond it along the axis: outside it (and so outside
   * the mesh) far beyond rounding */
  double ext = box[3 + k] - box[k], off = 0.1 * ext + 1e-300;
  q[k] = up ? box[3 + k] + off : box[k] - off;
  int none;
  return cm_bvh_seg_faces(tb, vb, fb, NULL, NULL, NULL, NULL, p, q, &none, 0) == 0;
}

int cm_bvh_seg_faces(const cmBvh* tb, const double* vb, const int* fb, const double* R,
                     const double* t, double* yb, unsigned char* ydone, const double p[3],
                     const double q[3], int* out, int max) {
  if (tb->nnode == 0) return 0;
  /* the segment's box in B's frame (x_B = R^T (x - t)), widened by 1e-9 of the sizes involved:
   * the exact test below works on B's vertices carried the other way, which differ from this
   * by rounding only */
  double pb[3], qb[3], r[3], sbox[6], size = 1;
  if (R) {
    cm_v3_sub(r, p, t);
    cm_m3_mulvt(pb, R, r);
    cm_v3_sub(r, q, t);
    cm_m3_mulvt(qb, R, r);
    size += cm_v3_norm(t);
  } else {
    cm_v3_copy(pb, p);
    cm_v3_copy(qb, q);
  }
  for (int k = 0; k < 3; k++)
    size += fabs(p[k]) + fabs(q[k]) + fabs(tb->node[0].box[k]) + fabs(tb->node[0].box[3 + k]);
  double eps = 1e-9 * size, dir[3], inv[3];
  for (int k = 0; k < 3; k++) {
    /* fmin, fmax written out (a libm call each): the same values, NaN included (a zero's sign is
     * lost to eps) */
    double lo, hi;
    {
      /* lanes (lo, hi): pb[k] where pb[k] < qb[k] (pb[k] > qb[k]) or qb[k] is NaN, else qb[k],
       * chosen by masks rather than a branch (gcc branched, mispredicted on many queries) */
      v2d X = {pb[k], qb[k]}, Y = {qb[k], pb[k]}, P = {pb[k], pb[k]}, Q = {qb[k], qb[k]};
      v2l m = (X < Y) | (Q != Q);
      v2d sel = (v2d)((m & (v2l)P) | (~m & (v2l)Q));
      lo = sel[0];
      hi = sel[1];
    }
    sbox[k] = lo - eps;
    sbox[3 + k] = hi + eps;
    dir[k] = qb[k] - pb[k];
    inv[k] = dir[k] != 0 ? 1 / dir[k] : 0;
  }
  int nonzero = dir[0] != 0 && dir[1] != 0 && dir[2] != 0;
  double dir1 = fabs(dir[0]) + fabs(dir[1]) + fabs(dir[2]); /* in_plane's, hoisted */
  int stack[CM_BVH_MAX_DEPTH + 2], top = 0, count = 0;
  /* a node is tested before it is pushed (a push and a pop fewer for each of the 39% missed),
   * the second child pushed first: the nodes met are visited in the same order as if tested
   * after the pop (which matters for out beyond max). The test is monotone in the box: a box
   * inside another (a child's, inside its parent's: box_grow is exact) gives each axis'
   * interval of parameters inside the other's (every operation rounds monotonically; inv
   * finite, so no 0 x inf), and so passes only if the other does. So the leaves reached are the
   * leaves that pass, whichever ancestors are tested: the root's test (passed by every query of
   * the edge search, whose ridges met the body's box) is left out where inv is finite, its
   * children tested; and a node on the stack has passed, so a child whose box is its parent's,
   * bit for bit (seg_same: at 2 divisions a box's leaf of the two faces of an octant beside its
   * flat leaf), would pass again and is not tested. The 1000-box pile at rest: 9.4 -> 7.2 node
   * tests per query, cm_bvh_seg_faces 298 M -> 280 M instructions (the run 0.993x). */
  const cmBvhNode* root = tb->node;
  const unsigned char* same = tb->seg_same;
  if (root->count == 0 && fabs(inv[0]) + fabs(inv[1]) + fabs(inv[2]) < INFINITY) {
    const cmBvhNode* c = &tb->node[root->child];
    if (nonzero) {
      int m = seg_meets_pair(c[1].box, c[0].box, sbox, pb, inv, eps);
      stack[top] = root->child + 1;
      top += m & 1;
      stack[top] = root->child;
      top += m >> 1;
    } else {
      if (seg_meets(c[1].box, sbox, pb, dir, inv, eps, nonzero)) stack[top++] = root->child + 1;
      if (seg_meets(c[0].box, sbox, pb, dir, inv, eps, nonzero)) stack[top++] = root->child;
    }
  } else if (seg_meets(root->box, sbox, pb, dir, inv, eps, nonzero)) {
    stack[top++] = 0;
  }
  while (top > 0) {
    const cmBvhNode* n = &tb->node[stack[--top]];
    if (n->count == 0) {
      const cmBvhNode* c = &tb->node[n->child];
      if (nonzero) {
        /* both children tested at once and pushed by their answers without a branch (a slot
         * written and not kept is overwritten by the next push; a seg_same child is pushed
         * whatever its test says, as before): the same nodes in the same order */
        int m = seg_meets_pair(c[1].box, c[0].box, sbox, pb, inv, eps);
        stack[top] = n->child + 1;
        top += same[n->child + 1] | (m & 1);
        stack[top] = n->child;
        top += same[n->child] | m >> 1;
        continue;
      }
      if (same[n->child + 1] || seg_meets(c[1].box, sbox, pb, dir, inv, eps, nonzero))
        stack[top++] = n->child + 1;
      if (same[n->child] || seg_meets(c[0].box, sbox, pb, dir, inv, eps, nonzero))
        stack[top++] = n->child;
      continue;
    }
    for (int i = 0; i < n->count; i++) {
      int at = -1 - n->child + i, g = tb->order[at];
      int cls = seg_face_class(vb, fb + 3 * g, tb->seg_n + 4 * (size_t)at, pb, dir, dir1, eps);
      if (cls < 0) continue;
      if (cls > 0) {
        if (count < max) out[count] = g;
        count++;
        continue;
      }
      double y[3][3];
      for (int k = 0; k < 3; k++) {
        int v = fb[3 * g + k];
        const double* x = vb + 3 * (size_t)v;
        if (!R) {
          cm_v3_copy(y[k], x);
        } else if (yb) {
          if (!ydone[v]) {
            cm_tri_xform(yb + 3 * (size_t)v, R, t, x);
            ydone[v] = 1;
          }
          cm_v3_copy(y[k], yb + 3 * (size_t)v);
        } else {
          cm_tri_xform(y[k], R, t, x);
        }
      }
      if (cm_seg_tri(p, q, y[0], y[1], y[2], NULL) == CM_SEG_TRI_NONE) continue;
      if (count < max) out[count] = g;
      count++;
    }
  }
  if (count > 1 && count <= max) cm_sort_int(out, (size_t)count); /* most cross one face */
  return count;
}
