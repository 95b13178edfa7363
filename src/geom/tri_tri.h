/* Robust triangle-triangle and segment-triangle intersection, exact-sign orientation predicates,
 * and the intersecting triangle pairs of two meshes by simultaneous descent of their BVHs.
 * Internal API (not installed); the math is at the top of tri_tri.c.
 *
 * All tests are on CLOSED triangles and segments: touching counts as intersecting. The answers
 * are exact for the double coordinates given (orientation signs never wrong), so that the tests
 * are consistent with each other (a segment shared by two faces meets a third face from both or
 * from neither). Pure functions: no allocation, no global state, thread-safe. */
#ifndef CM_TRI_TRI_H
#define CM_TRI_TRI_H

#include "geom/bvh.h"

/* Sign of the volume (b - a) x (c - a) . (d - a): +1 when d lies on the side of the plane of
 * abc toward which the counter-clockwise normal points, -1 on the other side, 0 when the four
 * points are exactly coplanar. Exact (filtered, exact expansion arithmetic when inconclusive),
 * barring underflow below ~1e-290 or overflow. */
int cm_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);

/* floating-point value of that volume (not exact; for interpolation only) */
double cm_orient3d_value(const double a[3], const double b[3], const double c[3],
                         const double d[3]);

/* Sign of the area (b - a) x (c - a) in the 2D plane of coordinates (i, j) of the points: +1 when
 * a, b, c turn counter-clockwise, -1 clockwise, 0 when collinear. Exact. */
int cm_orient2d(const double a[3], const double b[3], const double c[3], int i, int j);

/* segment-triangle results */
enum {
  CM_SEG_TRI_NONE = 0,    /* no common point */
  CM_SEG_TRI_CROSS = 1,   /* the segment meets the closed triangle in one point, not coplanar */
  CM_SEG_TRI_COPLANAR = 2 /* segment and triangle coplanar and overlapping */
};

/* Does the closed segment pq meet the closed triangle abc? Returns CM_SEG_TRI_*; if x is not NULL
 * and they meet, x receives a common point: the crossing point (p + t (q - p), t computed in
 * floating point and clamped to [0, 1], exactly p or q when that endpoint lies on the plane), or
 * for coplanar overlap some point of the overlap. A triangle whose three vertices are exactly
 * collinear meets nothing. Symmetric: swapping p and q gives the same answer. */
int cm_seg_tri(const double p[3], const double q[3], const double a[3], const double b[3],
               const double c[3], double x[3]);

/* Do the closed triangles (a0, a1, a2) and (b0, b1, b2) have a common point? Exact. */
int cm_tri_tri(const double a0[3], const double a1[3], const double a2[3], const double b0[3],
               const double b1[3], const double b2[3]);

/* an intersecting pair of faces: face fa of mesh A, face fb of mesh B */
typedef struct cmTriPair {
  int fa, fb;
} cmTriPair;

/* B's vertex v carried into A's frame: x_A = R x_B + t (R row-major 3 x 3). Every query
 * computes B's vertices this way, so that a vertex shared by faces of B gets one value. */
void cm_tri_xform(double out[3], const double R[9], const double t[3], const double x[3]);

/* The intersecting face pairs of mesh A (tree ta over vertices va, faces fa) and mesh B (tree tb,
 * vb, fb) with B placed in A's frame by x_A = R x_B + t. B's boxes are carried into A's frame
 * conservatively (|R| applied to the half-extents, plus a relative margin of 1e-12) and each
 * candidate pair of leaf faces is tested exactly (cm_tri_tri on B's vertices from cm_tri_xform).
 * Writes at most max pairs to out, sorted by (fa, fb); returns the total number of intersecting
 * pairs (call again with a larger buffer if it exceeds max). Pure, no allocation. */
int cm_bvh_tri_pairs(const cmBvh* ta, const double* va, const int* fa, const cmBvh* tb,
                     const double* vb, const int* fb, const double R[9], const double t[3],
                     cmTriPair* out, int max);

/* The faces of tree t whose leaf boxes overlap `box` (min xyz, max xyz, in the tree's frame):
 * a superset of the faces that meet the box, in leaf order. Writes at most max face indices to
 * out; returns the total (call again with a larger buffer if it exceeds max). Pure. */
int cm_bvh_box_faces(const cmBvh* t, const double box[6], int* out, int max);

/* one axis of the slab test: the segment's parameter interval [t0, t1] cut to the slab [lo, hi]
 * of an axis along which it moves by d (inverse inv; d = 0: the point p alone); 0 if empty */
static inline __attribute__((always_inline)) int cm_slab(double p, double d, double inv, double lo,
                                                         double hi, double* t0, double* t1) {
  if (d == 0) return !(p < lo || p > hi);
  double a = (lo - p) * inv, b = (hi - p) * inv;
  if (a > b) {
    double x = a;
    a = b;
    b = x;
  }
  *t0 = a > *t0 ? a : *t0;
  *t1 = b < *t1 ? b : *t1;
  return !(*t0 > *t1);
}

/* Does the closed segment pq meet the box (min xyz, max xyz) widened by eps on every side? (slab
 * test; eps covers the rounding of the parameters along the segment when it is far above it).
 * Each axis' direction and inverse computed as the test reaches it (an axis after the one that
 * rejects is not computed): the edge search's exact test of a ridge against the other body's
 * box, 70 % of whose calls reject (1000-box pile at rest: 65.6 M -> 42.7 M instructions with
 * the inverses computed ahead, the run 0.991x). Inline: its call from the edge search cost
 * 0.3 % of that pile's step. */
static inline int cm_seg_box(const double p[3], const double q[3], const double box[6],
                             double eps) {
  double t0 = 0, t1 = 1;
  for (int k = 0; k < 3; k++) {
    double d = q[k] - p[k];
    if (!cm_slab(p[k], d, d != 0 ? 1 / d : 0, box[k] - eps, box[3 + k] + eps, &t0, &t1)) return 0;
  }
  return 1;
}

/* The faces of mesh B (tree tb built or last refit on vertices vb, faces fb: its boxes and face
 * normals seg_n are vb's) that the closed segment pq meets, exactly (cm_seg_tri on B's vertices
 * carried into the segment's frame by cm_tri_xform(R, t); R = NULL: B is in that frame already).
 * With yb and ydone (nvert x 3 and nvert, may be NULL) the carried vertices are kept in yb and
 * flagged in ydone: a caller querying several segments carries each vertex once (the same values).
 * The tree is descended with the segment carried into B's frame, its box and itself (cm_seg_box)
 * tested against the nodes' boxes widened by far more than rounding. A face the segment misses or
 * crosses beyond rounding (both ends on one side of its plane, or on either side with the crossing
 * point outside or inside the triangle, by far more than rounding; tri_tri.c seg_face_class) is
 * decided without carrying its vertices and testing them exactly: the same faces, the exact test
 * left to the near-degenerate cases (the S2 pile of 125 boxes: none of 2,228 faces reached in a
 * step; bench/README.md). Writes at most max faces to out, sorted ascending; returns the total
 * (call again with a larger buffer if it exceeds max). */
int cm_bvh_seg_faces(const cmBvh* tb, const double* vb, const int* fb, const double* R,
                     const double* t, double* yb, unsigned char* ydone, const double p[3],
                     const double q[3], int* out, int max);

/* Does the segment from p (B's frame) along the axis direction dir (0..5: -x, +x, -y, +y, -z,
 * +z) to beyond B's box (box: min xyz, max xyz) meet no face of B (tree tb on vertices vb, faces
 * fb)? Exact (cm_bvh_seg_faces). For a closed mesh a yes certifies p outside B: the segment
 * joins p to a point outside B without crossing B's surface. */
int cm_mesh_escapes(const cmBvh* tb, const double* vb, const int* fb, const double box[6],
                    const double p[3], int dir);

#endif
