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
  /* the faces facet by facet, each facet's in face order: counted, then placed (each face's
   * facet found again rather than kept: no scratch memory, so nothing to fail); nface_of holds
   * each facet's end in order while the faces are placed, then its count again. (Until
   * 2026-12-06 every facet walked all the faces: nf^2 F / 2 plane tests, 345 M instructions for
   * a sphere of 320 faces.) */
  for (int j = 0; j < nf; j++)
    nface_of[j] = 0;
  for (int f = 0; f < nface; f++)
    nface_of[facet_of(vert, face + 3 * (size_t)f, face_normal + 3 * (size_t)f, plane, nf, tol)]++;
  if (!order) return nf;
  for (int j = 0, at = 0; j < nf; j++) {
    int c = nface_of[j];
    nface_of[j] = at; /* the facet's start */
    at += c;
  }
  for (int f = 0; f < nface; f++)
    order[nface_of[facet_of(vert, face + 3 * (size_t)f, face_normal + 3 * (size_t)f, plane, nf,
                            tol)]++] = f;
  for (int j = nf - 1; j > 0; j--)
    nface_of[j] -= nface_of[j - 1]; /* ends back to counts */
  return nf;
}

/* The answer from the largest plane value s1 (facet j1) and a bound s2 on every other facet's
 * (module comment): 1 inside (with out: its nearest face), 0 outside, -1 for the tree. */
static int decide(double s1, double s2, int j1, const int* first, const int* count,
                  const int* order, const double* box, const double* vert, const int* face,
                  double r, const double p[3], double bound, cmNearest* out) {
  const double tol = 1e-7 * r;
  if (s1 > tol) return 0;
  if (!(s1 < -tol)) return -1; /* near the surface (or not a number) */
  if (!out) return 1;
  if (!(s2 < s1 - tol) || count[j1] > CM_FACET_FACES_MAX) return -1;
  /* the nearest of the facet's faces, and the squared distance of the next */
  const v2d P01 = {p[0], p[1]};
  double best = INFINITY, next = INFINITY, q[3], qb[3] = {0, 0, 0}, best_lb = 0;
  int bestf = -1, feature = 0, index = 0;
  /* the faces' box bounds first, then the faces by increasing bound until the bound reaches the
   * next distance (no face beyond can be the nearest or the next). The first pick, the first
   * of the least bounds (below next = infinity), is found as the bounds are made, not by a scan
   * of its own: the same picks, the S2 pile of 1000 boxes at rest 0.9986x the instructions.
   * (Dropping the bounds not below next from the scans' list whenever next fell saved less.)
   * The bounds from the faces' boxes the model keeps (mesh_facet_box, made by tri_box: the
   * same bits as tri_box_dist2), not from their vertices: 27 rather than 51 instructions a
   * face, the 1000 boxes at rest 0.992x the instructions. */
  int nf = count[j1], i = -1;
  const int* fl = order + first[j1];
  const double* fb = box + 6 * (size_t)first[j1];
  double lb[CM_FACET_FACES_MAX], m = next;
  for (int k = 0; k < nf; k++) {
    lb[k] = tri_box_bound(fb + 6 * k, P01, p[2]);
    if (lb[k] < m) {
      m = lb[k];
      i = k;
    }
  }
  while (i >= 0) {
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
    /* the next pick: the first of the least bounds below next */
    i = -1;
    m = next;
    for (int k = 0; k < nf; k++)
      if (lb[k] < m) {
        m = lb[k];
        i = k;
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

int cm_facets_inside(const double* plane, int nfacet, const int* first, const int* count,
                     const int* order, const double* box, const double* vert, const int* face,
                     double r, const double p[3], double bound, cmNearest* out) {
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
  return decide(s1, s2, j1, first, count, order, box, vert, face, r, p, bound, out);
}

/* ---------------------------------------------------------------------------------------------
 * The direction grid (facets.h). Let q = p - o, and for facet j c'_j = c_j - n_j . o (its plane's
 * distance from o) and theta_j the angle between n_j and a cell's centre direction. Any q in the
 * cell is within rho (the cell's angular radius) of that direction, so the angle between n_j and
 * q is at least beta_j = max(0, theta_j - rho), and
 *   s_j = n_j . p - c_j = n_j . q - c'_j <= |q| cos+(beta_j) - c'_j.
 * A cell lists the facets for which R cos+(beta_j) - c'_j > -D (D = CM_FACET_GRID_DEPTH r, r the
 * ball's radius, or a half, a quarter or an eighth of that where the cells would list too many; R
 * how far the mesh reaches from o in the cell, about): those that can come within D of a point of
 * the mesh in the cell. For the others it keeps U_R = the largest of R cos+(beta_j) - c'_j (at most
 * -D), A = the largest cos+(beta_j) and C = the least c'_j: each s_j is at most a line in |q| of
 * slope cos+(beta_j) in [0, A], so for every unlisted j s_j <= U = min(U_R + max(0, |q| - R) A, |q|
 * A - C) (the first near the surface, the second, falling with |q|, deep inside). The listed
 * facets' largest s (s1) and second largest, with U for all the others, then decide as the full
 * scan does: U joins the second largest, and an inside verdict needs U below the tolerance as well.
 * At most D deep every point of the ball is decided as by the full scan; deeper points are too as
 * long as U stays below (U falls with |q|). The bound holds for every point whatever R: a point
 * outside the mesh beyond R gets a larger U, and -1 when that is no longer below the tolerance. */

/* the direction s e_a + u e_(a+1) + v e_(a+2) of the cube face (a, s), unit */
static void cube_dir(int a, double sgn, double u, double v, double d[3]) {
  d[a] = sgn;
  d[(a + 1) % 3] = u;
  d[(a + 2) % 3] = v;
  double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int k = 0; k < 3; k++)
    d[k] /= l;
}

/* the cell of the direction of q (not normalised), -1 for q = 0 or not finite */
static int grid_cell(const double q[3]) {
  double ax = fabs(q[0]), ay = fabs(q[1]), az = fabs(q[2]), m = ax;
  int a = 0;
  if (!(ax + ay + az <= 1e300)) return -1;
  if (ay > m) a = 1, m = ay;
  if (az > m) a = 2, m = az;
  if (!(m > 0)) return -1;
  const double half = 0.5 * CM_FACET_GRID;
  int i = (int)((q[(a + 1) % 3] / m + 1) * half), j = (int)((q[(a + 2) % 3] / m + 1) * half);
  if (i > CM_FACET_GRID - 1) i = CM_FACET_GRID - 1;
  if (j > CM_FACET_GRID - 1) j = CM_FACET_GRID - 1;
  if (i < 0) i = 0;
  if (j < 0) j = 0;
  return ((2 * a + (q[a] < 0)) * CM_FACET_GRID + i) * CM_FACET_GRID + j;
}

/* cell c's centre direction ctr, the cosine and sine of its angular radius rho (its farthest
 * corner: a cell is a convex spherical quadrangle; widened for rounding, generously) and its
 * corners (4 x 3) */
static void cell_geometry(int c, double ctr[3], double* crho, double* srho, double corner[12]) {
  const double w = 2.0 / CM_FACET_GRID;
  int j = c % CM_FACET_GRID, i = (c / CM_FACET_GRID) % CM_FACET_GRID;
  int fc = c / (CM_FACET_GRID * CM_FACET_GRID), a = fc / 2;
  double sgn = fc % 2 ? -1 : 1, u0 = -1 + i * w, v0 = -1 + j * w, cmin = 1;
  cube_dir(a, sgn, u0 + 0.5 * w, v0 + 0.5 * w, ctr);
  for (int k = 0; k < 4; k++) {
    cube_dir(a, sgn, u0 + (k & 1) * w, v0 + (k >> 1) * w, corner + 3 * k);
    cmin = fmin(cmin, cm_v3_dot(ctr, corner + 3 * k));
  }
  double rho = acos(fmax(-1, fmin(1, cmin))) + 1e-6;
  *crho = cos(rho);
  *srho = sin(rho);
}

/* cos+(beta) for a facet whose normal has cosine ct with the cell's centre: cos(theta - rho)
 * where theta > rho, clamped at 0; 1 where theta <= rho */
static inline double cos_beta(double ct, double crho, double srho) {
  ct = fmax(-1, fmin(1, ct));
  return ct >= crho ? 1 : fmax(0, ct * crho + sqrt(1 - ct * ct) * srho);
}

long cm_facets_grid_build(const double* plane, int nfacet, const double o[3], double r, int* cell_n,
                          double* bound, int* list) {
  if (nfacet < 1 || !(r > 0)) return 0;
  double cpmin = INFINITY;
  for (int f = 0; f < nfacet; f++)
    cpmin = fmin(cpmin, plane[4 * f + 3] - cm_v3_dot(plane + 4 * f, o));
  /* each cell's reach, into bound's first column: how far the mesh reaches from o in the cell
   * (the least exit distance along the cell's centre and corner directions, the largest of
   * those, widened): the points inside the mesh there have |q| about that at most, so only the
   * facets that can come within D of them are listed. (A point farther out has a larger U,
   * computed from its own |q|: the answers stay right.) */
  for (int c = 0; c < CM_FACET_GRID_CELLS; c++) {
    double dir[15], crho, srho, reach = 0;
    cell_geometry(c, dir, &crho, &srho, dir + 3);
    for (int k = 0; k < 5; k++) {
      double exit = INFINITY;
      for (int f = 0; f < nfacet; f++) {
        const double* P = plane + 4 * f;
        double nd = cm_v3_dot(P, dir + 3 * k);
        if (nd > 0) exit = fmin(exit, (P[3] - cm_v3_dot(P, o)) / nd);
      }
      reach = fmax(reach, exit);
    }
    bound[4 * c] = fmin(r, 1.05 * reach);
  }
  /* the depth: CM_FACET_GRID_DEPTH r, halved while the cells would list too many facets (a finer
   * mesh has more planes within the same angle: a sphere of 1280 faces lists 25 per cell at an
   * eighth of the depth), all the tries counted in one pass */
  long count[CM_FACET_GRID_TRIES] = {0};
  double D[CM_FACET_GRID_TRIES];
  D[0] = CM_FACET_GRID_DEPTH * r;
  for (int k = 1; k < CM_FACET_GRID_TRIES; k++)
    D[k] = 0.5 * D[k - 1];
  for (int c = 0; c < CM_FACET_GRID_CELLS; c++) {
    double ctr[3], corner[12], crho, srho, reach = bound[4 * c];
    cell_geometry(c, ctr, &crho, &srho, corner);
    for (int f = 0; f < nfacet; f++) {
      const double* P = plane + 4 * f;
      double v = reach * cos_beta(cm_v3_dot(P, ctr), crho, srho) - (P[3] - cm_v3_dot(P, o));
      for (int k = 0; k < CM_FACET_GRID_TRIES; k++)
        count[k] += v > -D[k];
    }
  }
  int k = 0;
  while (k < CM_FACET_GRID_TRIES &&
         (count[k] > (long)CM_FACET_GRID_MEAN * CM_FACET_GRID_CELLS || !(cpmin > D[k])))
    k++;
  if (k == CM_FACET_GRID_TRIES) return 0; /* o not well inside, or too many facets per cell */
  if (!list) return count[k];
  /* the lists at that depth, and the bounds of the facets left out */
  long total = 0;
  for (int c = 0; c < CM_FACET_GRID_CELLS; c++) {
    double ctr[3], corner[12], crho, srho, reach = bound[4 * c];
    double A = 0, UR = -INFINITY, C = INFINITY;
    cell_geometry(c, ctr, &crho, &srho, corner);
    int n = 0;
    for (int f = 0; f < nfacet; f++) {
      const double* P = plane + 4 * f;
      double cb = cos_beta(cm_v3_dot(P, ctr), crho, srho), cp = P[3] - cm_v3_dot(P, o);
      if (reach * cb - cp > -D[k]) {
        list[total + n++] = f;
      } else {
        A = fmax(A, cb);
        UR = fmax(UR, reach * cb - cp);
        C = fmin(C, cp);
      }
    }
    cell_n[c] = n;
    bound[4 * c + 1] = UR;
    bound[4 * c + 2] = A;
    bound[4 * c + 3] = C;
    total += n;
  }
  return total;
}

int cm_facets_grid_inside(const double* plane, const double o[3], const int* cell_adr,
                          const int* cell_n, const double* cell_bound, const int* list,
                          const int* first, const int* count, const int* order, const double* box,
                          const double* vert, const int* face, double r, const double p[3],
                          double bound, cmNearest* out) {
  double q[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
  int c = grid_cell(q);
  if (c < 0) return -1;
  double s1 = -INFINITY, s2 = -INFINITY;
  const double tol = 1e-7 * r;
  int j1 = -1;
  const int* l = list + cell_adr[c];
  for (int k = 0, n = cell_n[c]; k < n; k++) {
    const double* P = plane + 4 * l[k];
    double s = P[0] * p[0] + P[1] * p[1] + P[2] * p[2] - P[3];
    if (s > s1) {
      /* in front of a listed plane: outside, whatever the others (the answer of the test of
       * the largest s_j after the loop, which followed it until 2026-12-07; only a new largest
       * can be above tol first). The S4 bed of 1000 spheres, a fifth of its calls outside:
       * 0.997x the run's instructions */
      if (s > tol) return 0;
      s2 = s1;
      s1 = s;
      j1 = l[k];
    } else if (s > s2) {
      s2 = s;
    }
  }
  /* every facet not listed, bounded (plus rounding: the s_j are exact to about 1e-16 r) */
  const double* B = cell_bound + 4 * c;
  double d = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  /* fmin and fmax written out (gcc calls libm's for them, three calls a query): the same values.
   * d - B[0] is not NaN (d >= 0, or inf, B[0] > 0) and +0 at most, never -0; a and b are both NaN
   * (d inf and B[2] = 0) or neither, and a zero's sign does not survive the + 1e-12 r (nor
   * matter to the test after it); U is not NaN past the test, nor zero, and s2 never NaN. The S4
   * bed of 1000 spheres: 0.998x the run's instructions. */
  double e = d - B[0], a = B[1] + (e > 0 ? e : 0) * B[2], b = d * B[2] - B[3];
  double U = (a < b ? a : b) + 1e-12 * r;
  if (!(U < -1e-7 * r)) return -1;
  return decide(s1, s2 > U ? s2 : U, j1, first, count, order, box, vert, face, r, p, bound, out);
}
