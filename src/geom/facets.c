/* The facets of a convex mesh, and the inside and nearest-face queries from their planes.
 *
 * A convex mesh is the intersection of the half-spaces behind its facets' planes, so a point is
 * inside when it is behind every plane: s_j = n_j . p - c_j < 0 for all j, a few dot products
 * (6 for a box of any divisions) in place of the face tree's nearest-face search (about 1000
 * instructions on a box of 2 divisions). The vertex query needs more than the verdict: the
 * nearest face and point, which the contact's normal, point and depth are made of. Inside a
 * convex body the nearest point of the surface lies on the nearest facet's plane (the
 * projection p - s n of p on the plane of the largest s is behind every other plane: s_k >
 * s n_k . n would give s_k > s >= s_k, as s < 0 and n_k . n < 1), so it lies on one of that
 * facet's faces, and the face tree's answer is the face of that facet nearest to p.
 *
 * The queries give the face tree's answers bit for bit, or none (-1: the caller asks the tree):
 *  - inside or outside only when the largest s_j is below -tol or above tol (tol = 1e-7 r, r the
 *    radius of the mesh's bounding ball): the tree's signed distance has the same sign there, as
 *    the facets' planes lie within 1e-12 r of their vertices (cm_facets_build) and the tree's
 *    distances are exact to rounding (1e-16 r);
 *  - the nearest face only when it is certain to be the tree's: the largest s_j exceeds every
 *    other by tol (every face of another facet is then farther by about tol than the nearest
 *    facet's plane), the nearest of the facet's faces is nearer by 1e-12 r^2 in squared
 *    distance than the next (no tie for the tree's order to break) and its nearest point is
 *    inside it (the feature the tree would report), that squared distance is within the bound
 *    the tree starts from, and the face's box bound (which the tree compares before computing
 *    the face's distance) is no larger than it. The distances come from the same inline
 *    functions as the tree's (closest.h), so they are the same bits, and so are the point, the
 *    face and the verdict.
 * Points within tol of the surface, or about equally near two facets or two faces (along a box's
 * diagonals), go to the tree: in 300 resting steps of the S2 pile of 125 boxes (boxes of 2
 * divisions), about 2,400 of the 171,000 queries that pass the box and ball tests (1.4 %). The
 * faces of the nearest facet are taken by increasing box bound, until that bound reaches the
 * next distance found. That pile's steps take 0.978x the instructions at rest and 0.974x while
 * it collapses, with the same states bit for bit, once the tree's bound is widened as
 * cm_mesh_inside_local widens it (the comparison found the tree dropping vertices just inside a
 * face on the mesh's box; bench/README.md, "The facets of a convex mesh"). */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "geom/closest.h"
#include "geom/facets.h"

/* the first of the nf facets (plane) that face f lies on (its normal within 1e-12 of the facet's,
 * its vertices within tol of the plane); nf if none */
static int facet_of(const double* vert, const int* F, const double* n, const double* plane, int nf,
                    double tol) {
  int j = 0;
  for (; j < nf; j++) {
    const double* P = plane + 4 * j;
    if (fabs(n[0] - P[0]) > 1e-12 || fabs(n[1] - P[1]) > 1e-12 || fabs(n[2] - P[2]) > 1e-12)
      continue;
    int k = 0;
    for (; k < 3; k++)
      if (!(fabs(cm_v3_dot(P, vert + 3 * (size_t)F[k]) - P[3]) <= tol)) break;
    if (k == 3) break;
  }
  return j;
}

int cm_facets_build(const double* vert, int nvert, const int* face, int nface,
                    const double* face_normal, const int* face_adj, double r, int max,
                    double* plane, int* nface_of, int* order) {
  if (nface < 4 || nvert < 4 || nface % 2 || !(r > 0) || !isfinite(r) || max < 1) return 0;
  for (size_t k = 0; k < 3 * (size_t)nface; k++)
    if (face_adj[k] < 0) return 0; /* open */
  /* one closed surface of genus 0: V - E + F = 2 with E = 3F/2 */
  if ((long)nvert - 3L * nface / 2 + nface != 2) return 0;
  const double tol = 1e-12 * r;
  int nf = 0;
  for (int f = 0; f < nface; f++) {
    const double* n = face_normal + 3 * (size_t)f;
    const int* F = face + 3 * (size_t)f;
    if (facet_of(vert, F, n, plane, nf, tol) < nf) continue;
    if (nf == max) return 0;
    double* P = plane + 4 * nf++;
    cm_v3_copy(P, n);
    P[3] = cm_v3_dot(n, vert + 3 * (size_t)F[0]);
  }
  /* convex: every vertex on or behind every facet's plane */
  for (int v = 0; v < nvert; v++)
    for (int j = 0; j < nf; j++)
      if (!(cm_v3_dot(plane + 4 * j, vert + 3 * (size_t)v) - plane[4 * j + 3] <= tol)) return 0;
  /* the faces facet by facet (each found again: no scratch memory, so nothing to fail) */
  int o = 0;
  for (int j = 0; j < nf; j++) {
    nface_of[j] = 0;
    for (int f = 0; f < nface; f++)
      if (facet_of(vert, face + 3 * (size_t)f, face_normal + 3 * (size_t)f, plane, nf, tol) == j) {
        if (order) order[o++] = f;
        nface_of[j]++;
      }
  }
  return nf;
}

int cm_facets_inside(const double* plane, int nfacet, const int* first, const int* count,
                     const int* order, const double* vert, const int* face, double r,
                     const double p[3], double bound, cmNearest* out) {
  const double tol = 1e-7 * r;
  double s1 = -INFINITY, s2 = -INFINITY;
  int j1 = -1;
  for (int j = 0; j < nfacet; j++) {
    const double* P = plane + 4 * j;
    double s = P[0] * p[0] + P[1] * p[1] + P[2] * p[2] - P[3];
    if (s > s1) {
      s2 = s1;
      s1 = s;
      j1 = j;
    } else if (s > s2) {
      s2 = s;
    }
  }
  if (s1 > tol) return 0;
  if (!(s1 < -tol)) return -1; /* near the surface (or not a number) */
  if (!out) return 1;
  if (!(s2 < s1 - tol) || count[j1] > CM_FACET_FACES_MAX) return -1;
  /* the nearest of the facet's faces, and the squared distance of the next */
  const v2d P01 = {p[0], p[1]};
  double best = INFINITY, next = INFINITY, q[3], qb[3] = {0, 0, 0}, best_lb = 0;
  int bestf = -1, feature = 0, index = 0;
  /* the faces' box bounds first, then the faces by increasing bound until the bound reaches the
   * next distance (no face beyond can be the nearest or the next) */
  int nf = count[j1];
  const int* fl = order + first[j1];
  double lb[CM_FACET_FACES_MAX];
  for (int i = 0; i < nf; i++) {
    const int* t = face + 3 * (size_t)fl[i];
    const double* const v[3] = {vert + 3 * (size_t)t[0], vert + 3 * (size_t)t[1],
                                vert + 3 * (size_t)t[2]};
    lb[i] = tri_box_dist2(v, P01, p[2]);
  }
  for (;;) {
    int i = -1;
    double m = next;
    for (int k = 0; k < nf; k++)
      if (lb[k] < m) {
        m = lb[k];
        i = k;
      }
    if (i < 0) break;
    lb[i] = INFINITY; /* (m holds its bound) */
    int f = fl[i], ft, ix;
    const int* t = face + 3 * (size_t)f;
    const double* const v[3] = {vert + 3 * (size_t)t[0], vert + 3 * (size_t)t[1],
                                vert + 3 * (size_t)t[2]};
    double d2 = tri_closest(v, t, p, q, &ft, &ix);
    if (d2 < best || (d2 == best && f < bestf)) {
      next = best;
      best = d2;
      bestf = f;
      best_lb = m;
      feature = ft;
      index = ix;
      cm_v3_copy(qb, q);
    } else if (d2 < next) {
      next = d2;
    }
  }
  if (bestf < 0 || feature != CM_FEATURE_FACE || !(next - best > 1e-12 * r * r) ||
      !(best <= bound * bound))
    return -1;
  /* the best face's box bound, which the tree compares before computing its distance */
  if (best_lb > best) return -1;
  out->face = bestf;
  out->feature = feature;
  out->index = index;
  cm_v3_copy(out->point, qb);
  out->dist2 = best;
  return 1;
}
