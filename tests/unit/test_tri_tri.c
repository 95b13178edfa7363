/* Exact predicates and triangle intersection (src/geom/tri_tri.c).
 *
 * Reference: exact rational evaluation. All test points are integers times 2^-20 (dyadic
 * rationals), so scaled by 2^20 they are integers below 2^38 and the determinants are evaluated
 * exactly in 128-bit integers. Triangle-triangle answers are checked against an independent
 * exact method, the separating axis test in 128-bit integers: two closed triangles are disjoint
 * iff some axis among the two normals, the 9 edge-edge cross products and the 6 normal-edge
 * cross products separates their projections strictly (zero axes skipped). Inputs include
 * near-coplanar points at large offsets (where the floating filter fails), coplanar and
 * touching triangles on a small grid, shared vertices and edges. */
#include <math.h>
#include <string.h>

#include "comply/mesh.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/tri_tri.h"
#include "test.h"

__extension__ typedef __int128 i128;

static unsigned long long rng_state = 0x243F6A8885A308D3ull;
static unsigned long long rnd(void) {
  return test_rand64(&rng_state);
}
static long long irange(long long lo, long long hi) { /* [lo, hi] */
  return lo + (long long)(rnd() % (unsigned long long)(hi - lo + 1));
}
static double urand(void) {
  return test_urand(&rng_state);
}

#define SCALE (1.0 / 1048576.0) /* 2^-20 */

typedef struct IP {
  long long x[3];
} IP;

static void to_d(const IP* p, double d[3]) {
  for (int k = 0; k < 3; k++)
    d[k] = (double)p->x[k] * SCALE;
}

static int sgn(i128 v) {
  return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

/* exact (b - a) x (c - a) . (d - a) */
static i128 orient3d_exact(const IP* a, const IP* b, const IP* c, const IP* d) {
  i128 u[3], v[3], w[3];
  for (int k = 0; k < 3; k++) {
    u[k] = b->x[k] - a->x[k];
    v[k] = c->x[k] - a->x[k];
    w[k] = d->x[k] - a->x[k];
  }
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static int orient3d_d(const IP* a, const IP* b, const IP* c, const IP* d) {
  double A[3], B[3], C[3], D[3];
  to_d(a, A);
  to_d(b, B);
  to_d(c, C);
  to_d(d, D);
  return cm_orient3d(A, B, C, D);
}

/* a random point with coordinates in [-r, r] around offset o */
static IP rand_pt(long long o, long long r) {
  IP p;
  for (int k = 0; k < 3; k++)
    p.x[k] = o + irange(-r, r);
  return p;
}

/* orient3d: random, near-coplanar at large offsets, exactly coplanar, repeated points */
static void test_orient3d(void) {
  int mismatches = 0, zeros = 0, n = 0;
  for (int it = 0; it < 200000; it++) {
    int kind = it % 4;
    long long off = kind == 0 ? 0 : (long long)1 << irange(20, 36);
    IP a = rand_pt(off, 1 << 20), b = rand_pt(off, 1 << 20), c = rand_pt(off, 1 << 20), d;
    if (kind == 0) {
      d = rand_pt(off, 1 << 20);
    } else {
      /* d = a + i (b - a) + j (c - a) (+ a unit perturbation for kind 2) */
      long long i = irange(-3, 3), j = irange(-3, 3);
      for (int k = 0; k < 3; k++)
        d.x[k] = a.x[k] + i * (b.x[k] - a.x[k]) + j * (c.x[k] - a.x[k]) +
                 (kind == 2 ? irange(-1, 1) : 0);
      if (kind == 3 && it % 8 == 3) d = b; /* a repeated point */
    }
    int e = sgn(orient3d_exact(&a, &b, &c, &d));
    int f = orient3d_d(&a, &b, &c, &d);
    /* the predicate's symmetries: an odd permutation flips the sign */
    int g = orient3d_d(&b, &a, &c, &d);
    n++;
    zeros += e == 0;
    if (e != f || g != -f) mismatches++;
  }
  printf("  %d cases (%d exactly coplanar), %d sign mismatches\n", n, zeros, mismatches);
  CHECK(mismatches == 0);
  CHECK(zeros > 10000);
}

/* orient2d in each coordinate plane */
static void test_orient2d(void) {
  int mismatches = 0;
  for (int it = 0; it < 100000; it++) {
    long long off = (long long)1 << irange(0, 36);
    IP a = rand_pt(off, 1 << 18), b = rand_pt(off, 1 << 18), c;
    long long t = irange(-4, 4);
    for (int k = 0; k < 3; k++)
      c.x[k] = a.x[k] + t * (b.x[k] - a.x[k]) + (it & 1 ? irange(-1, 1) : 0);
    if (it % 3 == 0) c = rand_pt(off, 1 << 18);
    double A[3], B[3], C[3];
    to_d(&a, A);
    to_d(&b, B);
    to_d(&c, C);
    for (int k = 0; k < 3; k++) {
      int i = (k + 1) % 3, j = (k + 2) % 3;
      i128 e =
          (i128)(b.x[i] - a.x[i]) * (c.x[j] - a.x[j]) - (i128)(b.x[j] - a.x[j]) * (c.x[i] - a.x[i]);
      if (sgn(e) != cm_orient2d(A, B, C, i, j)) mismatches++;
    }
  }
  CHECK(mismatches == 0);
}

/* ---------------------------------------------------------------------------------------------
 * exact separating-axis reference */

static void isub(i128 r[3], const IP* a, const IP* b) {
  for (int k = 0; k < 3; k++)
    r[k] = (i128)a->x[k] - b->x[k];
}
static void icross(i128 r[3], const i128 a[3], const i128 b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

/* does axis separate the two triangles strictly? */
static int separates(const i128 ax[3], const IP* A, const IP* B) {
  if (ax[0] == 0 && ax[1] == 0 && ax[2] == 0) return 0;
  i128 lo[2], hi[2];
  const IP* T[2] = {A, B};
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) {
      i128 p = ax[0] * T[s][k].x[0] + ax[1] * T[s][k].x[1] + ax[2] * T[s][k].x[2];
      if (k == 0 || p < lo[s]) lo[s] = p;
      if (k == 0 || p > hi[s]) hi[s] = p;
    }
  return hi[0] < lo[1] || hi[1] < lo[0];
}

static int tri_tri_ref(const IP* A, const IP* B) {
  i128 ea[3][3], eb[3][3], na[3], nb[3], ax[3];
  for (int k = 0; k < 3; k++) {
    isub(ea[k], &A[(k + 1) % 3], &A[k]);
    isub(eb[k], &B[(k + 1) % 3], &B[k]);
  }
  icross(na, ea[0], ea[1]);
  icross(nb, eb[0], eb[1]);
  if (separates(na, A, B) || separates(nb, A, B)) return 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      icross(ax, ea[i], eb[j]);
      if (separates(ax, A, B)) return 0;
    }
  for (int i = 0; i < 3; i++) {
    icross(ax, na, ea[i]);
    if (separates(ax, A, B)) return 0;
    icross(ax, nb, eb[i]);
    if (separates(ax, A, B)) return 0;
  }
  return 1;
}

static int collinear(const IP* T) {
  i128 u[3], v[3], n[3];
  isub(u, &T[1], &T[0]);
  isub(v, &T[2], &T[0]);
  icross(n, u, v);
  return n[0] == 0 && n[1] == 0 && n[2] == 0;
}

static int tri_tri_d(const IP* A, const IP* B) {
  double a[3][3], b[3][3];
  for (int k = 0; k < 3; k++) {
    to_d(&A[k], a[k]);
    to_d(&B[k], b[k]);
  }
  return cm_tri_tri(a[0], a[1], a[2], b[0], b[1], b[2]);
}

/* random pairs on a small grid (many coplanar, touching, shared features) and generic pairs;
 * the answer must not depend on the order of the triangles or of their vertices */
static void test_tri_tri_reference(void) {
  int mismatch = 0, hits = 0, n = 0, coplanar = 0;
  for (int it = 0; it < 200000; it++) {
    IP A[3], B[3];
    int kind = it % 4;
    long long off = kind == 3 ? ((long long)1 << 34) : 0;
    long long r = kind == 0 ? 3 : (kind == 1 ? 1000 : 1 << 20);
    for (int k = 0; k < 3; k++) {
      A[k] = rand_pt(off, r);
      B[k] = rand_pt(off, r);
    }
    if (kind == 1) { /* shared vertex or edge, or B in A's plane */
      int s = irange(0, 2);
      B[0] = A[s];
      if (it % 3 == 0) B[1] = A[(s + 1) % 3];
      if (it % 5 == 0) { /* coplanar: B's vertices are combinations of A's */
        for (int v = 1; v < 3; v++) {
          long long i = irange(-2, 2), j = irange(-2, 2);
          for (int k = 0; k < 3; k++)
            B[v].x[k] = A[0].x[k] + i * (A[1].x[k] - A[0].x[k]) + j * (A[2].x[k] - A[0].x[k]);
        }
      }
    }
    if (collinear(A) || collinear(B)) continue;
    n++;
    int e = tri_tri_ref(A, B);
    int f = tri_tri_d(A, B);
    IP A2[3] = {A[2], A[0], A[1]}, B2[3] = {B[1], B[0], B[2]};
    int g = tri_tri_d(B2, A2);
    i128 s0 = orient3d_exact(&A[0], &A[1], &A[2], &B[0]);
    coplanar += s0 == 0 && orient3d_exact(&A[0], &A[1], &A[2], &B[1]) == 0 &&
                orient3d_exact(&A[0], &A[1], &A[2], &B[2]) == 0;
    hits += e;
    if (e != f || f != g) {
      if (mismatch < 5)
        fprintf(stderr, "  mismatch kind %d: ref %d, cm_tri_tri %d, swapped %d\n", kind, e, f, g);
      mismatch++;
    }
  }
  printf("  %d pairs, %d intersecting, %d coplanar, %d mismatches\n", n, hits, coplanar, mismatch);
  CHECK(mismatch == 0);
  CHECK(coplanar > 1000);
  CHECK(hits > 10000 && hits < n - 10000);
}

/* segment-triangle: the crossing point lies on the segment and (nearly) on the plane; exact
 * endpoint on the plane gives the endpoint itself; never NaN; symmetric in p, q */
static void test_seg_tri_point(void) {
  int bad = 0, crosses = 0, ends = 0;
  for (int it = 0; it < 100000; it++) {
    IP T[3], P[2];
    long long r = it % 2 ? 4 : 1 << 20;
    for (int k = 0; k < 3; k++)
      T[k] = rand_pt(0, r);
    for (int k = 0; k < 2; k++)
      P[k] = rand_pt(0, r);
    if (it % 7 == 0) P[1] = T[it % 3];
    if (collinear(T)) continue;
    double t[3][3], p[3], q[3], x[3], y[3];
    for (int k = 0; k < 3; k++)
      to_d(&T[k], t[k]);
    to_d(&P[0], p);
    to_d(&P[1], q);
    int h = cm_seg_tri(p, q, t[0], t[1], t[2], x);
    int h2 = cm_seg_tri(q, p, t[0], t[1], t[2], y);
    if (h != h2) bad++;
    if (!h) continue;
    crosses++;
    if (!cm_v3_isfinite(x)) bad++;
    if (h2 && memcmp(x, y, sizeof x) != 0) bad++;
    /* the endpoint on the plane (a vertex of the triangle), the other off it: that endpoint
     * itself, bit for bit (the header said so; nothing checked it) */
    if (it % 7 == 0 && orient3d_exact(&T[0], &T[1], &T[2], &P[0]) != 0) {
      ends++;
      if (memcmp(x, q, sizeof x) != 0) bad++;
    }
    /* x on the segment: |x - p| + |x - q| = |p - q| */
    double u[3], w[3], pq[3];
    cm_v3_sub(u, x, p);
    cm_v3_sub(w, x, q);
    cm_v3_sub(pq, q, p);
    double L = cm_v3_norm(pq);
    if (!(cm_v3_norm(u) + cm_v3_norm(w) <= L * (1 + 1e-12) + 1e-300)) bad++;
    if (h == CM_SEG_TRI_CROSS) {
      double n[3], e1[3], e2[3], ax[3];
      cm_v3_sub(e1, t[1], t[0]);
      cm_v3_sub(e2, t[2], t[0]);
      cm_v3_cross(n, e1, e2);
      cm_v3_normalize(n);
      cm_v3_sub(ax, x, t[0]);
      if (!(fabs(cm_v3_dot(ax, n)) <= 1e-9 * (L + cm_v3_norm(e1)))) bad++;
    }
  }
  printf("  %d intersecting segments (%d ending on a vertex), %d bad\n", crosses, ends, bad);
  CHECK(bad == 0);
  CHECK(crosses > 1000);
  CHECK(ends > 1000);
}

/* ---------------------------------------------------------------------------------------------
 * mesh pairs against brute force */

static cmMesh* rand_mesh(int level, double amp) {
  cmMesh* m = cm_mesh_icosphere(1.0, level);
  for (int v = 0; v < m->nvert; v++) {
    double f = 1 + amp * (2 * urand() - 1);
    cm_v3_scale(m->vert + 3 * v, m->vert + 3 * v, f);
  }
  return m;
}

static void rand_pose(double R[9], double t[3], double reach) {
  double q[4] = {urand() - 0.5, urand() - 0.5, urand() - 0.5, urand() - 0.5};
  cm_quat_normalize(q);
  cm_quat_to_mat(R, q);
  for (int k = 0; k < 3; k++)
    t[k] = reach * (2 * urand() - 1);
}

static int brute_pairs(const cmMesh* A, const cmMesh* B, const double R[9], const double t[3],
                       cmTriPair* out) {
  int n = 0;
  for (int f = 0; f < A->nface; f++)
    for (int g = 0; g < B->nface; g++) {
      double y[3][3];
      for (int k = 0; k < 3; k++)
        cm_tri_xform(y[k], R, t, B->vert + 3 * B->face[3 * g + k]);
      const int* F = A->face + 3 * f;
      if (cm_tri_tri(A->vert + 3 * F[0], A->vert + 3 * F[1], A->vert + 3 * F[2], y[0], y[1],
                     y[2])) {
        out[n].fa = f;
        out[n].fb = g;
        n++;
      }
    }
  return n;
}

static void test_bvh_pairs(void) {
  int bad = 0, total = 0;
  const int its = test_trials(40, 10); /* 10: every level, amplitude and copy case */
  for (int it = 0; it < its; it++) {
    cmMesh* A = rand_mesh(it % 3 + 1, it % 2 ? 0.2 : 0);
    cmMesh* B = it % 5 == 0 ? cm_mesh_copy(A) : rand_mesh((it + 1) % 3 + 1, 0.15);
    cmBvh ta, tb;
    CHECK(cm_bvh_build(&ta, A->vert, A->face, A->nface) == CM_OK);
    CHECK(cm_bvh_build(&tb, B->vert, B->face, B->nface) == CM_OK);
    double R[9], t[3];
    rand_pose(R, t, 1.5);
    if (it % 5 == 0) { /* B = A in the same place: every face touches its neighbours */
      double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      memcpy(R, I, sizeof I);
      cm_v3_set(t, 0, 0, 0);
    }
    size_t cap = (size_t)A->nface * (size_t)B->nface;
    cmTriPair* ref = malloc(cap * sizeof *ref);
    cmTriPair* got = malloc(cap * sizeof *got);
    int nr = brute_pairs(A, B, R, t, ref);
    int ng = cm_bvh_tri_pairs(&ta, A->vert, A->face, &tb, B->vert, B->face, R, t, got, (int)cap);
    /* a small buffer reports the same total */
    int small = cm_bvh_tri_pairs(&ta, A->vert, A->face, &tb, B->vert, B->face, R, t, got, 3);
    ng = cm_bvh_tri_pairs(&ta, A->vert, A->face, &tb, B->vert, B->face, R, t, got, (int)cap);
    if (ng != nr || small != nr || memcmp(ref, got, (size_t)nr * sizeof *ref) != 0) bad++;
    total += nr;
    free(ref);
    free(got);
    cm_bvh_free(&ta);
    cm_bvh_free(&tb);
    cm_mesh_free(A);
    cm_mesh_free(B);
  }
  printf("  %d intersecting face pairs over %d mesh pairs, %d mismatching cases\n", total, its,
         bad);
  CHECK(bad == 0);
  CHECK(total > 100);
}

/* the distance from point x to the box (0 inside) */
static double box_dist(const double b[6], const double x[3]) {
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double e = x[k] < b[k] ? b[k] - x[k] : x[k] > b[3 + k] ? x[k] - b[3 + k] : 0;
    d2 += e * e;
  }
  return sqrt(d2);
}

/* cm_seg_box against an independent reference: the distance from the box along the segment is
 * convex in the parameter, so its minimum (golden-section search) is 0 iff they meet. Every
 * segment that meets the box must be reported (also with eps = 0: through a face, an edge, a
 * corner, along a face, axis-parallel, a point); one that stays farther than eps from the box
 * may not be. */
static void test_seg_box(void) {
  const double box[6] = {-0.3, -0.2, -0.1, 0.5, 0.4, 0.3};
  int met = 0, missed = 0, bad = 0;
  for (int it = 0; it < 20000; it++) {
    double p[3], q[3];
    for (int k = 0; k < 3; k++) {
      p[k] = 2 * urand() - 1;
      q[k] = 2 * urand() - 1;
    }
    if (it % 7 == 0) q[it % 3] = p[it % 3]; /* parallel to a face */
    if (it % 11 == 0) cm_v3_copy(q, p);     /* a point */
    if (it % 13 == 0) {                     /* through a corner or along an edge */
      for (int k = 0; k < 3; k++)
        p[k] = box[3 * (it % 2) + k];
      if (it % 2) q[1] = p[1];
    }
    double lo = 0, hi = 1, g = 0.5 * (sqrt(5.0) - 1);
    for (int k = 0; k < 100; k++) {
      double a = hi - g * (hi - lo), b = lo + g * (hi - lo), xa[3], xb[3], dpq[3];
      cm_v3_sub(dpq, q, p);
      cm_v3_madd(xa, p, dpq, a);
      cm_v3_madd(xb, p, dpq, b);
      if (box_dist(box, xa) <= box_dist(box, xb))
        hi = b;
      else
        lo = a;
    }
    double x[3], dpq[3];
    cm_v3_sub(dpq, q, p);
    cm_v3_madd(x, p, dpq, 0.5 * (lo + hi));
    double dist = fmin(box_dist(box, x), fmin(box_dist(box, p), box_dist(box, q)));
    int got = cm_seg_box(p, q, box, 1e-9), got0 = cm_seg_box(p, q, box, 0);
    if (dist == 0) {
      met++;
      bad += !got || !got0;
    } else if (dist > 1e-6) {
      missed++;
      bad += got;
    }
    /* symmetric in the direction */
    bad += cm_seg_box(q, p, box, 1e-9) != got;
  }
  printf("  %d segments meeting the box, %d missing it, %d wrong\n", met, missed, bad);
  CHECK(bad == 0);
  CHECK(met > 2000 && missed > 2000);
}

/* cm_bvh_seg_faces (the tree descent with the segment and its box, B carried by R, t, with and
 * without the vertex cache) against every face tested by cm_seg_tri */
static void test_bvh_seg_faces(void) {
  int bad = 0, hits = 0, hits_plane = 0;
  const int its = test_trials(200, 40);
  for (int it = 0; it < its; it++) {
    cmMesh* B = rand_mesh(it % 3 + 1, 0.2);
    cmBvh tb;
    CHECK(cm_bvh_build(&tb, B->vert, B->face, B->nface) == CM_OK);
    double R[9], t[3], p[3], q[3];
    rand_pose(R, t, 0.5);
    for (int k = 0; k < 3; k++) {
      p[k] = t[k] + 2.4 * (urand() - 0.5);
      q[k] = t[k] + 2.4 * (urand() - 0.5);
    }
    if (it % 2) {
      /* a segment lying at most 1e-8 off the plane of one face (carried), each end on either
       * side or on it: the cases the plane filter must leave to the exact test */
      int g = (int)(urand() * B->nface) % B->nface;
      double y[3][3], e1[3], e2[3], nrm[3];
      for (int k = 0; k < 3; k++)
        cm_tri_xform(y[k], R, t, B->vert + 3 * B->face[3 * g + k]);
      cm_v3_sub(e1, y[1], y[0]);
      cm_v3_sub(e2, y[2], y[0]);
      cm_v3_cross(nrm, e1, e2);
      cm_v3_scale(nrm, nrm, 1 / cm_v3_norm(nrm));
      const double off[5] = {0, 1e-15, -1e-15, 1e-8, -1e-8};
      double ctr[3] = {0, 0, 0}, a = 2 * urand() - 1, b = 2 * urand() - 1;
      for (int k = 0; k < 3; k++)
        ctr[k] = (y[0][k] + y[1][k] + y[2][k]) / 3;
      for (int k = 0; k < 3; k++) {
        p[k] = ctr[k] + a * e1[k] + b * e2[k] + off[it / 2 % 5] * nrm[k];
        q[k] = ctr[k] - b * e1[k] + a * e2[k] + off[(it / 10 + 1) % 5] * nrm[k];
      }
    }
    int* ref = malloc((size_t)B->nface * sizeof *ref);
    int* got = malloc((size_t)B->nface * sizeof *got);
    double* yb = malloc(3 * (size_t)B->nvert * sizeof *yb);
    unsigned char* done = calloc((size_t)B->nvert, 1);
    int nr = 0;
    for (int f = 0; f < B->nface; f++) {
      double y[3][3];
      for (int k = 0; k < 3; k++)
        cm_tri_xform(y[k], R, t, B->vert + 3 * B->face[3 * f + k]);
      if (cm_seg_tri(p, q, y[0], y[1], y[2], NULL) != CM_SEG_TRI_NONE) ref[nr++] = f;
    }
    for (int cache = 0; cache < 2; cache++) {
      int ng = cm_bvh_seg_faces(&tb, B->vert, B->face, R, t, cache ? yb : NULL, cache ? done : NULL,
                                p, q, got, B->nface);
      bad += ng != nr || memcmp(ref, got, (size_t)nr * sizeof *ref) != 0;
    }
    hits += nr;
    hits_plane += it % 2 ? nr : 0;
    free(ref);
    free(got);
    free(yb);
    free(done);
    cm_bvh_free(&tb);
    cm_mesh_free(B);
  }
  printf("  %d crossed faces over %d segments (%d by those near a face's plane), %d mismatching "
         "cases\n",
         hits, its, hits_plane, bad);
  CHECK(bad == 0);
  CHECK(hits - hits_plane > its / 2 && hits_plane > its / 4);
}

int main(void) {
  RUN(test_orient3d);
  RUN(test_orient2d);
  RUN(test_tri_tri_reference);
  RUN(test_seg_tri_point);
  RUN(test_bvh_pairs);
  RUN(test_seg_box);
  RUN(test_bvh_seg_faces);
  return test_report();
}
