/* Closest points on a triangle and the box bounds of the nearest-face queries, inline: shared
 * by the face tree (bvh.c) and the facets of a convex mesh (facets.c), which must compute the
 * same bits to give the same answers.
 *
 * Closest point on a triangle (a, b, c) to p (Ericson, Real-Time Collision Detection 5.1.5).
 * The plane of the triangle is divided into 7 Voronoi regions: 3 vertices, 3 edges, the face.
 * With ab = b - a, ac = c - a and the dot products
 *   d1 = ab.(p-a)  d2 = ac.(p-a)  d3 = ab.(p-b)  d4 = ac.(p-b)  d5 = ab.(p-c)  d6 = ac.(p-c)
 * p projects into
 *   vertex a   if d1 <= 0 and d2 <= 0            vertex b  if d3 >= 0 and d4 <= d3
 *   vertex c   if d6 >= 0 and d5 <= d6
 *   edge ab    if vc = d1 d4 - d3 d2 <= 0, d1 >= 0, d3 <= 0
 *   edge ca    if vb = d5 d2 - d1 d6 <= 0, d2 >= 0, d6 <= 0
 *   edge bc    if va = d3 d6 - d5 d4 <= 0, d4 - d3 >= 0, d5 - d6 >= 0
 *   the face   otherwise, q = a + ab vb/(va+vb+vc) + ac vc/(va+vb+vc)
 * (va, vb, vc are the barycentric coordinates of the projection times twice the area squared).
 * In an edge region the point is recomputed as the clamped projection on the segment taken from
 * its endpoint of smaller vertex index: t = (p-u).(w-u) / |w-u|^2, q = u + t (w-u). The two faces
 * sharing the edge then give bitwise-equal q and |p - q|^2 (a clamped t gives the vertex itself,
 * as the vertex region does), which makes the face tree's tie rule (bvh.c) exact. */
#ifndef CM_GEOM_CLOSEST_H
#define CM_GEOM_CLOSEST_H

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/cm_math.h"
#include "geom/bvh.h"

/* closest point on the segment (a, b) of a face: edge k, from the face's vertex ku (at a) to kw
 * (at b), a being the endpoint of smaller vertex index */
static inline double segment_closest(const double* a, const double* b, int ku, int kw, int k,
                                     const double p[3], double q[3], int* feature, int* index) {
  double e[3], ap[3];
  cm_v3_sub(e, b, a);
  cm_v3_sub(ap, p, a);
  double ee = cm_v3_dot(e, e), t = ee > 0 ? cm_v3_dot(ap, e) / ee : 0;
  if (t <= 0) {
    cm_v3_copy(q, a);
    *feature = CM_FEATURE_VERTEX;
    *index = ku;
  } else if (t >= 1) {
    cm_v3_copy(q, b);
    *feature = CM_FEATURE_VERTEX;
    *index = kw;
  } else {
    cm_v3_madd(q, a, e, t);
    *feature = CM_FEATURE_EDGE;
    *index = k;
  }
  double d[3];
  cm_v3_sub(d, p, q);
  return cm_v3_dot(d, d);
}

/* edge k (k -> k+1) of the triangle with corners v[3] and vertex indices i[3], taken from its
 * endpoint of smaller vertex index */
static inline double edge_closest(const double* const v[3], const int i[3], int k,
                                  const double p[3], double q[3], int* feature, int* index) {
  int k1 = k == 2 ? 0 : k + 1;
  if (i[k] < i[k1]) return segment_closest(v[k], v[k1], k, k1, k, p, q, feature, index);
  return segment_closest(v[k1], v[k], k1, k, k, p, q, feature, index);
}

static inline double vertex_closest(const double* v, int k, const double p[3], double q[3],
                                    int* feature, int* index) {
  double d[3];
  cm_v3_copy(q, v);
  *feature = CM_FEATURE_VERTEX;
  *index = k;
  cm_v3_sub(d, p, q);
  return cm_v3_dot(d, d);
}

/* closest point on the triangle with corners v[3] (vertex indices i[3]); always inlined (gcc
 * called it from the query's leaf loop, passing v, i and the results through memory) */
static inline __attribute__((always_inline)) double tri_closest(const double* const v[3],
                                                                const int i[3], const double p[3],
                                                                double q[3], int* feature,
                                                                int* index) {
  const double *a = v[0], *b = v[1], *c = v[2];
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  cm_v3_sub(ab, b, a);
  cm_v3_sub(ac, c, a);

  /* vertex a */
  cm_v3_sub(ap, p, a);
  double d1 = cm_v3_dot(ab, ap), d2 = cm_v3_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return vertex_closest(a, 0, p, q, feature, index);

  /* vertex b, edge ab */
  cm_v3_sub(bp, p, b);
  double d3 = cm_v3_dot(ab, bp), d4 = cm_v3_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return vertex_closest(b, 1, p, q, feature, index);
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return edge_closest(v, i, 0, p, q, feature, index);

  /* vertex c, edge ca */
  cm_v3_sub(cp, p, c);
  double d5 = cm_v3_dot(ab, cp), d6 = cm_v3_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return vertex_closest(c, 2, p, q, feature, index);
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return edge_closest(v, i, 2, p, q, feature, index);

  /* edge bc */
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return edge_closest(v, i, 1, p, q, feature, index);

  /* the face */
  double den = 1.0 / (va + vb + vc), s = vb * den, w = vc * den, d[3];
  for (int j = 0; j < 3; j++)
    q[j] = a[j] + ab[j] * s + ac[j] * w;
  *feature = CM_FEATURE_FACE;
  *index = 0;
  cm_v3_sub(d, p, q);
  return cm_v3_dot(d, d);
}

static inline double clampd(double x, double lo, double hi) {
  double t = x < lo ? lo : x;
  return t > hi ? hi : t;
}

/* Pairs of doubles (GCC/Clang vector extension, as in src/solve/block_cholesky.h): lane by lane
 * the same IEEE operations as the scalar code. v2_min(a, b) is a < b ? a : b and v2_max(a, b)
 * is a > b ? a : b, lane by lane (minpd and maxpd on x86-64, which gcc does not make of the
 * vector comparison). */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));

static inline v2d v2_min(v2d a, v2d b) {
#ifdef __SSE2__
  return _mm_min_pd(a, b);
#else
  v2l m = a < b;
  return (v2d)((m & (v2l)a) | (~m & (v2l)b));
#endif
}
static inline v2d v2_max(v2d a, v2d b) {
#ifdef __SSE2__
  return _mm_max_pd(a, b);
#else
  v2l m = a > b;
  return (v2d)((m & (v2l)a) | (~m & (v2l)b));
#endif
}
/* clampd lane by lane: x < lo ? lo : x is lo > x ? lo : x, then t > hi ? hi : t is
 * hi < t ? hi : t */
static inline v2d v2_clamp(v2d x, v2d lo, v2d hi) {
  return v2_min(hi, v2_max(lo, x));
}

/* squared distances from p (P0, P1, P2: its coordinates in both lanes) to the boxes a and b,
 * in the lanes: each lane p minus p clamped to its box, x x + y y + z z in that order */
static inline v2d box_dist2_pair(const double* a, const double* b, v2d P0, v2d P1, v2d P2) {
  v2d x = P0 - v2_clamp(P0, (v2d){a[0], b[0]}, (v2d){a[3], b[3]});
  v2d y = P1 - v2_clamp(P1, (v2d){a[1], b[1]}, (v2d){a[4], b[4]});
  v2d z = P2 - v2_clamp(P2, (v2d){a[2], b[2]}, (v2d){a[5], b[5]});
  return x * x + y * y + z * z;
}

/* squared distance from p to a box (0 inside); written as p minus p clamped to the box, which
 * compiles to branch-free min/max */
static inline double box_dist2(const double* b, const double p[3]) {
  double x = p[0] - clampd(p[0], b[0], b[3]);
  double y = p[1] - clampd(p[1], b[1], b[4]);
  double z = p[2] - clampd(p[2], b[2], b[5]);
  return x * x + y * y + z * z;
}

static inline double min3(double a, double b, double c) {
  double t = a < b ? a : b;
  return t < c ? t : c;
}
static inline double max3(double a, double b, double c) {
  double t = a > b ? a : b;
  return t > c ? t : c;
}

/* the bounding box of a triangle as tri_box_dist2 takes it, into box: min x, min y, max x, max
 * y, min z, max z (the x and y of each end side by side, for the pairs) */
static inline void tri_box(const double* const v[3], double box[6]) {
  v2d a = {v[0][0], v[0][1]}, b = {v[1][0], v[1][1]}, c = {v[2][0], v[2][1]};
  v2d lo = v2_min(v2_min(a, b), c), hi = v2_max(v2_max(a, b), c);
  box[0] = lo[0];
  box[1] = lo[1];
  box[2] = hi[0];
  box[3] = hi[1];
  box[4] = min3(v[0][2], v[1][2], v[2][2]);
  box[5] = max3(v[0][2], v[1][2], v[2][2]);
}

/* squared distance from p to a box laid out as tri_box writes it: x and y in the lanes of a pair
 * (P01: p's x and y), z alone; the sum dx dx + dy dy + dz dz in that order (the former 0 + dx dx
 * is dx dx: a square is +0 or more, or NaN) */
static inline double tri_box_bound(const double box[6], v2d P01, double p2) {
  v2d d = P01 - v2_clamp(P01, (v2d){box[0], box[1]}, (v2d){box[2], box[3]});
  double z = p2 - clampd(p2, box[4], box[5]);
  d *= d;
  return d[0] + d[1] + z * z;
}

/* squared distance from p to the bounding box of a triangle: a cheap lower bound that skips
 * most faces of a leaf once a near candidate is known (tri_box_bound of tri_box: the facets keep
 * their faces' boxes, made by tri_box, and get the same bits) */
static inline double tri_box_dist2(const double* const v[3], v2d P01, double p2) {
  double box[6];
  tri_box(v, box);
  return tri_box_bound(box, P01, p2);
}

#endif
