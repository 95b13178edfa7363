/* The geometric query kernel (src/geom/bvh.c, pseudonormal.c): closest point on a triangle,
 * BVH invariants, nearest-point queries against brute force, signed distance against ray parity,
 * pseudonormal properties, copy/serialisation, no allocation per query.
 *
 * Test meshes: icospheres and subdivided boxes whose vertices are moved along the ray from the
 * centre by a random factor in [1 - a, 1 + a]. Radial moves keep the radial projection of every
 * face, so the faces still tile the sphere of directions: the surface stays closed, oriented and
 * free of self-intersections (star-shaped about the centre) while becoming non-convex. Then a
 * random anisotropic scaling, rotation and translation (affine with positive determinant) keep
 * it valid; cm_mesh_check confirms it. */
#include <string.h>

#include "comply/mesh.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "test.h"
#include "test_alloc.h"

/* ---------------------------------------------------------------------------------------------
 * helpers */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

static double urand(void) {
  return test_urand(&rng_state);
}

static double urange(double a, double b) {
  return a + (b - a) * urand();
}
static int irand(int n) {
  return (int)(urand() * n) % n;
}
static double logrand(double a, double b) {
  return exp(urange(log(a), log(b)));
}

static void rand_dir(double d[3]) {
  do {
    cm_v3_set(d, urange(-1, 1), urange(-1, 1), urange(-1, 1));
  } while (cm_v3_dot(d, d) > 1 || cm_v3_dot(d, d) < 1e-6);
  cm_v3_normalize(d);
}

/* a mesh with its derived arrays, pseudonormals and tree */
typedef struct TestMesh {
  cmMesh* m;
  double* vpn;
  double* epn;
  cmBvh bvh;
} TestMesh;

/* kind 0: icosphere(refine = level), kind 1: box(divisions = level); amp: radial perturbation */
static int make_mesh(TestMesh* t, int kind, int level, double amp) {
  memset(t, 0, sizeof *t);
  double size[3] = {urange(0.5, 2), urange(0.5, 2), urange(0.5, 2)};
  t->m = kind == 0 ? cm_mesh_icosphere(1.0, level) : cm_mesh_box(size, level);
  if (!t->m) return 0;
  cmMesh* m = t->m;

  /* radial perturbation, anisotropic scale, rotation, translation */
  double q[4] = {urange(-1, 1), urange(-1, 1), urange(-1, 1), urange(-1, 1)}, R[9];
  cm_quat_normalize(q);
  cm_quat_to_mat(R, q);
  double s[3] = {urange(0.5, 2), urange(0.5, 2), urange(0.5, 2)};
  double off[3] = {urange(-3, 3), urange(-3, 3), urange(-3, 3)};
  for (int v = 0; v < m->nvert; v++) {
    double* x = m->vert + 3 * v;
    double y[3], f = 1 + amp * urange(-1, 1);
    for (int j = 0; j < 3; j++)
      y[j] = x[j] * f * s[j];
    cm_m3_mulv(x, R, y);
    cm_v3_add(x, x, off);
  }
  char err[256] = "";
  if (cm_mesh_check(m, "test", NULL, err, sizeof err) != CM_OK) {
    fprintf(stderr, "invalid test mesh: %s\n", err);
    return 0;
  }
  if (cm_mesh_prepare(m) != CM_OK) return 0;
  t->vpn = malloc(sizeof(double) * 3 * (size_t)m->nvert);
  t->epn = malloc(sizeof(double) * 9 * (size_t)m->nface);
  if (!t->vpn || !t->epn) return 0;
  if (cm_pseudonormals(m->vert, m->nvert, m->face, m->nface, t->vpn, t->epn) != CM_OK) return 0;
  return cm_bvh_build(&t->bvh, m->vert, m->face, m->nface) == CM_OK;
}

static void free_mesh(TestMesh* t) {
  cm_bvh_free(&t->bvh);
  free(t->vpn);
  free(t->epn);
  cm_mesh_free(t->m);
}

/* brute-force nearest face: smallest squared distance, ties to the smallest face index */
/* brute force over every face; with dir (not NULL) only the faces whose normal has a negative
 * dot product with it */
static int brute_nearest_dir(const cmMesh* m, const double p[3], const double* dir,
                             cmNearest* out) {
  out->face = -1;
  out->dist2 = INFINITY;
  for (int f = 0; f < m->nface; f++) {
    if (dir && !(cm_v3_dot(m->face_normal + 3 * f, dir) < 0)) continue;
    double q[3];
    int feat, idx;
    const int* t = m->face + 3 * f;
    double d2 = cm_triangle_closest(m->vert, t[0], t[1], t[2], p, q, &feat, &idx);
    if (d2 < out->dist2) {
      out->dist2 = d2;
      out->face = f;
      out->feature = feat;
      out->index = idx;
      cm_v3_copy(out->point, q);
    }
  }
  return out->face >= 0;
}

static int brute_nearest(const cmMesh* m, const double p[3], cmNearest* out) {
  return brute_nearest_dir(m, p, NULL, out);
}

/* Ray parity along direction d: +1 inside (odd crossings), 0 outside, -1 ambiguous (a hit near an
 * edge or vertex of a face, grazing, or at the origin). Moeller-Trumbore. */
static int ray_parity(const cmMesh* m, const double p[3], const double d[3]) {
  const double eps = 1e-9;
  int hits = 0;
  for (int f = 0; f < m->nface; f++) {
    const double* a = m->vert + 3 * m->face[3 * f];
    const double* b = m->vert + 3 * m->face[3 * f + 1];
    const double* c = m->vert + 3 * m->face[3 * f + 2];
    double e1[3], e2[3], h[3], s[3], qv[3];
    cm_v3_sub(e1, b, a);
    cm_v3_sub(e2, c, a);
    cm_v3_cross(h, d, e2);
    double det = cm_v3_dot(e1, h);
    double scale = cm_v3_norm(e1) * cm_v3_norm(e2);
    cm_v3_sub(s, p, a);
    if (fabs(det) <= 1e-12 * scale) {
      /* ray parallel to the plane: ambiguous only if it lies in the plane */
      double n[3];
      cm_v3_cross(n, e1, e2);
      if (fabs(cm_v3_dot(s, n)) <= 1e-12 * cm_v3_norm(n) * cm_v3_norm(s) + 1e-300) return -1;
      continue;
    }
    double u = cm_v3_dot(s, h) / det;
    cm_v3_cross(qv, s, e1);
    double v = cm_v3_dot(d, qv) / det, t = cm_v3_dot(e2, qv) / det;
    double w = 1 - u - v;
    if (u < -eps || v < -eps || w < -eps) continue; /* clearly misses */
    if (u < eps || v < eps || w < eps) {            /* near the boundary of the face */
      if (t > -1e-12) return -1;
      continue;
    }
    if (fabs(t) < 1e-13) return -1; /* origin on the face */
    if (t > 0) hits++;
  }
  return hits & 1;
}

/* majority of three random rays; -1 if fewer than two unambiguous or if they disagree */
static int ray_inside(const cmMesh* m, const double p[3]) {
  int vote[2] = {0, 0};
  for (int r = 0; r < 3; r++) {
    double d[3];
    rand_dir(d);
    int k = ray_parity(m, p, d);
    if (k >= 0) vote[k]++;
  }
  if (vote[0] + vote[1] < 2 || (vote[0] && vote[1])) return -1;
  return vote[1] > 0;
}

/* query points of several kinds around mesh m */
enum { Q_BOX, Q_FACE, Q_EDGE, Q_VERTEX, Q_ON, Q_FAR, Q_NKIND };

static void query_point(const cmMesh* m, int kind, double p[3]) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < m->nvert; v++)
    for (int j = 0; j < 3; j++) {
      lo[j] = fmin(lo[j], m->vert[3 * v + j]);
      hi[j] = fmax(hi[j], m->vert[3 * v + j]);
    }
  int f = irand(m->nface), k = irand(3);
  const double* a = m->vert + 3 * m->face[3 * f + k];
  const double* b = m->vert + 3 * m->face[3 * f + (k + 1) % 3];
  const double* c = m->vert + 3 * m->face[3 * f + (k + 2) % 3];
  double d[3], t = urand();
  switch (kind) {
  case Q_BOX: /* the bounding box enlarged by half */
    for (int j = 0; j < 3; j++) {
      double e = 0.5 * (hi[j] - lo[j]);
      p[j] = urange(lo[j] - e, hi[j] + e);
    }
    break;
  case Q_FACE: { /* inside a face, off along its normal */
    double u = urange(0.05, 0.9), v = urange(0.05, 0.95 - u);
    for (int j = 0; j < 3; j++)
      p[j] = a[j] + u * (b[j] - a[j]) + v * (c[j] - a[j]);
    double s = urand() < 0.5 ? -1 : 1;
    cm_v3_madd(p, p, m->face_normal + 3 * f, s * logrand(1e-9, 1e-3));
    break;
  }
  case Q_EDGE: /* on an edge, off in a random direction */
    for (int j = 0; j < 3; j++)
      p[j] = a[j] + t * (b[j] - a[j]);
    rand_dir(d);
    cm_v3_madd(p, p, d, logrand(1e-9, 1e-3));
    break;
  case Q_VERTEX: /* at a vertex, off in a random direction */
    rand_dir(d);
    cm_v3_madd(p, a, d, logrand(1e-9, 1e-3));
    break;
  case Q_ON: /* exactly a vertex, or a point of an edge */
    if (urand() < 0.5)
      cm_v3_copy(p, a);
    else
      for (int j = 0; j < 3; j++)
        p[j] = a[j] + t * (b[j] - a[j]);
    break;
  default: /* far away */
    rand_dir(d);
    cm_v3_scale(p, d, logrand(1e2, 1e6));
    break;
  }
}

/* ---------------------------------------------------------------------------------------------
 * closest point on a triangle */

/* the 7 Voronoi regions of the triangle (0,0,0), (1,0,0), (0,1,0), points off the plane by 0.5 */
static void test_triangle_regions(void) {
  const double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const struct {
    double p[2];
    int feature, index;
    double q[2];
  } cases[] = {
      {{0.2, 0.3}, CM_FEATURE_FACE, 0, {0.2, 0.3}}, {{-1, -1}, CM_FEATURE_VERTEX, 0, {0, 0}},
      {{2, -0.5}, CM_FEATURE_VERTEX, 1, {1, 0}},    {{-0.5, 2}, CM_FEATURE_VERTEX, 2, {0, 1}},
      {{0.5, -1}, CM_FEATURE_EDGE, 0, {0.5, 0}},    {{1, 1}, CM_FEATURE_EDGE, 1, {0.5, 0.5}},
      {{-1, 0.25}, CM_FEATURE_EDGE, 2, {0, 0.25}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    /* every rotation of the vertex order names the same point with shifted indices */
    for (int r = 0; r < 3; r++) {
      int id[3] = {r, (r + 1) % 3, (r + 2) % 3};
      double p[3] = {cases[i].p[0], cases[i].p[1], 0.5}, q[3];
      int feat = -1, idx = -1;
      double d2 = cm_triangle_closest(vert, id[0], id[1], id[2], p, q, &feat, &idx);
      CHECK(feat == cases[i].feature);
      if (feat != CM_FEATURE_FACE) CHECK((idx + r) % 3 == cases[i].index);
      CHECK_NEAR(q[0], cases[i].q[0], 1e-15);
      CHECK_NEAR(q[1], cases[i].q[1], 1e-15);
      CHECK_NEAR(q[2], 0, 1e-15);
      double dx = p[0] - q[0], dy = p[1] - q[1];
      CHECK_NEAR(d2, dx * dx + dy * dy + 0.25, 1e-15);
    }
  }

  /* the two faces sharing an edge give bitwise-equal points and distances on it */
  const double v4[12] = {0, 0, 0, 1, 0, 0, 0.3, 1, 0.2, 0.4, -1, 0.3};
  int same = 1, nsame = 0;
  for (int i = 0; i < 1000; i++) {
    double p[3] = {urange(-0.5, 1.5), urange(-0.2, 0.2), urange(-1, 1)}, q0[3], q1[3];
    int f0, i0, f1, i1;
    const int t0[3] = {0, 1, 2}, t1[3] = {1, 0, 3};
    double d0 = cm_triangle_closest(v4, t0[0], t0[1], t0[2], p, q0, &f0, &i0);
    double d1 = cm_triangle_closest(v4, t1[0], t1[1], t1[2], p, q1, &f1, &i1);
    /* the same vertex, or the shared edge (edge 0 of both) */
    int same_vertex = f0 == CM_FEATURE_VERTEX && f1 == CM_FEATURE_VERTEX && t0[i0] == t1[i1];
    int same_edge = f0 == CM_FEATURE_EDGE && f1 == CM_FEATURE_EDGE && i0 == 0 && i1 == 0;
    if (same_vertex || same_edge) {
      same &= d0 == d1 && memcmp(q0, q1, sizeof q0) == 0;
      nsame++;
    }
  }
  CHECK(same && nsame > 100);
}

/* ---------------------------------------------------------------------------------------------
 * pseudonormals */

/* convex icosphere: vertex pseudonormals within a degree of the radial direction, edge
 * pseudonormals within a degree of the direction of the edge midpoint */
static void test_pseudonormal_sphere(void) {
  cmMesh* m = cm_mesh_icosphere(2.0, 3);
  CHECK(m != NULL);
  if (!m) return;
  double* vpn = malloc(sizeof(double) * 3 * (size_t)m->nvert);
  double* epn = malloc(sizeof(double) * 9 * (size_t)m->nface);
  CHECK(cm_pseudonormals(m->vert, m->nvert, m->face, m->nface, vpn, epn) == CM_OK);
  double worst_v = 1, worst_e = 1;
  for (int v = 0; v < m->nvert; v++) {
    double r[3];
    cm_v3_copy(r, m->vert + 3 * v);
    cm_v3_normalize(r);
    worst_v = fmin(worst_v, cm_v3_dot(r, vpn + 3 * v));
    CHECK_NEAR(cm_v3_norm(vpn + 3 * v), 1, 1e-14);
  }
  for (int f = 0; f < m->nface; f++)
    for (int k = 0; k < 3; k++) {
      double r[3];
      cm_v3_add(r, m->vert + 3 * m->face[3 * f + k], m->vert + 3 * m->face[3 * f + (k + 1) % 3]);
      cm_v3_normalize(r);
      worst_e = fmin(worst_e, cm_v3_dot(r, epn + 9 * f + 3 * k));
    }
  CHECK(worst_v > cos(1.0 * CM_PI / 180));
  CHECK(worst_e > cos(1.0 * CM_PI / 180));
  free(vpn);
  free(epn);
  cm_mesh_free(m);
}

/* Unperturbed box: angle weighting makes the pseudonormal independent of the tessellation. A
 * vertex inside a box face has that face's normal; on a box edge (not a corner) each face
 * contributes an angle pi, giving (n1 + n2)/sqrt 2; at a corner each contributes pi/2, giving
 * (n1 + n2 + n3)/sqrt 3. Edge pseudonormals are the face normal inside a box face. */
static void test_pseudonormal_box(void) {
  const double s[3] = {1.0, 2.0, 3.0};
  cmMesh* m = cm_mesh_box(s, 3);
  CHECK(m != NULL);
  if (!m) return;
  double* vpn = malloc(sizeof(double) * 3 * (size_t)m->nvert);
  double* epn = malloc(sizeof(double) * 9 * (size_t)m->nface);
  CHECK(cm_pseudonormals(m->vert, m->nvert, m->face, m->nface, vpn, epn) == CM_OK);
  double err = 0;
  for (int v = 0; v < m->nvert; v++) {
    double e[3] = {0, 0, 0};
    for (int j = 0; j < 3; j++)
      if (fabs(fabs(m->vert[3 * v + j]) - s[j] / 2) < 1e-12) e[j] = m->vert[3 * v + j] > 0 ? 1 : -1;
    cm_v3_normalize(e);
    for (int j = 0; j < 3; j++)
      err = fmax(err, fabs(e[j] - vpn[3 * v + j]));
  }
  CHECK(err < 1e-14);
  cmStatus st = cm_mesh_prepare(m);
  CHECK(st == CM_OK);
  /* an edge whose both endpoints lie off the box's edges is inside a box face */
  err = 0;
  for (int f = 0; f < m->nface; f++)
    for (int k = 0; k < 3; k++) {
      const double* a = m->vert + 3 * m->face[3 * f + k];
      const double* b = m->vert + 3 * m->face[3 * f + (k + 1) % 3];
      double mid[3];
      int on = 0;
      for (int j = 0; j < 3; j++) {
        mid[j] = 0.5 * (a[j] + b[j]);
        on += fabs(fabs(mid[j]) - s[j] / 2) < 1e-12;
      }
      if (on == 1)
        for (int j = 0; j < 3; j++)
          err = fmax(err, fabs(epn[9 * f + 3 * k + j] - m->face_normal[3 * f + j]));
    }
  CHECK(err < 1e-14);
  free(vpn);
  free(epn);
  cm_mesh_free(m);
}

/* errors: open mesh, bad index */
static void test_pseudonormal_errors(void) {
  cmMesh* m = cm_mesh_icosphere(1.0, 1);
  CHECK(m != NULL);
  if (!m) return;
  double* vpn = malloc(sizeof(double) * 3 * (size_t)m->nvert);
  double* epn = malloc(sizeof(double) * 9 * (size_t)m->nface);
  CHECK(cm_pseudonormals(m->vert, m->nvert, m->face, m->nface - 1, vpn, epn) == CM_ERR_MESH);
  CHECK(cm_pseudonormals(m->vert, m->nvert, m->face, m->nface - 1, vpn, NULL) == CM_OK);
  m->face[5] = m->nvert;
  CHECK(cm_pseudonormals(m->vert, m->nvert, m->face, m->nface, vpn, epn) == CM_ERR_ARG);
  free(vpn);
  free(epn);
  cm_mesh_free(m);
}

/* ---------------------------------------------------------------------------------------------
 * the tree */

/* 1 if box a contains box b */
static int box_contains(const double* a, const double* b) {
  return a[0] <= b[0] && a[1] <= b[1] && a[2] <= b[2] && a[3] >= b[3] && a[4] >= b[4] &&
         a[5] >= b[5];
}

/* every face in exactly one leaf, leaves of 1..4 faces covering order[] once, adjacent children,
 * every box containing its children and its faces, depth as reported */
static void check_invariants(const cmBvh* t, const cmMesh* m) {
  CHECK(t->nface == m->nface);
  CHECK(t->nnode >= 1 && t->nnode <= 2 * m->nface - 1);
  CHECK(t->depth < CM_BVH_MAX_DEPTH);
  int* seen = calloc((size_t)m->nface, sizeof(int));
  int* cover = calloc((size_t)m->nface, sizeof(int));
  int* depth = calloc((size_t)t->nnode, sizeof(int));
  int* parents = calloc((size_t)t->nnode, sizeof(int));
  int ok_box = 1, ok_leaf = 1, ok_child = 1, maxdepth = 0;
  for (int n = 0; n < t->nnode; n++) {
    const double* b = t->node[n].box;
    int c = t->node[n].child;
    maxdepth = depth[n] > maxdepth ? depth[n] : maxdepth;
    if (c < 0) {
      int first = -1 - c, count = t->node[n].count;
      ok_leaf &= count >= 1 && count <= CM_BVH_LEAF_SIZE && first + count <= m->nface;
      for (int i = first; i < first + count && i < m->nface; i++) {
        int f = t->order[i];
        cover[i]++;
        seen[f]++;
        for (int k = 0; k < 3; k++) {
          const double* v = m->vert + 3 * m->face[3 * f + k];
          double pb[6] = {v[0], v[1], v[2], v[0], v[1], v[2]};
          ok_box &= box_contains(b, pb);
        }
      }
    } else {
      ok_child &= c > n && c + 1 < t->nnode && t->node[n].count == 0;
      if (c > n && c + 1 < t->nnode) {
        ok_box &= box_contains(b, t->node[c].box) && box_contains(b, t->node[c + 1].box);
        depth[c] = depth[c + 1] = depth[n] + 1;
        parents[c]++;
        parents[c + 1]++;
      }
    }
  }
  int once = 1, covered = 1, one_parent = parents[0] == 0;
  for (int f = 0; f < m->nface; f++) {
    once &= seen[f] == 1;
    covered &= cover[f] == 1;
  }
  for (int n = 1; n < t->nnode; n++)
    one_parent &= parents[n] == 1;
  CHECK(once && covered && one_parent);
  CHECK(ok_box && ok_leaf && ok_child);
  CHECK(maxdepth == t->depth);
  free(seen);
  free(cover);
  free(depth);
  free(parents);
}

static void test_bvh_invariants(void) {
  for (int trial = 0; trial < 8; trial++) {
    TestMesh t;
    int ok = make_mesh(&t, trial & 1, trial & 1 ? 1 + trial : 1 + trial / 2, 0.2);
    CHECK(ok);
    if (ok) check_invariants(&t.bvh, t.m);
    free_mesh(&t);
  }

  /* a degenerate input: all centroids equal (the same face repeated) still splits */
  enum { N = 37 };
  double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  int face[3 * N];
  for (int i = 0; i < N; i++)
    face[3 * i] = 0, face[3 * i + 1] = 1, face[3 * i + 2] = 2;
  cmBvh b;
  CHECK(cm_bvh_build(&b, vert, face, N) == CM_OK);
  cmMesh fake = {3, N, vert, face, NULL, NULL, NULL};
  check_invariants(&b, &fake);
  cmNearest r;
  double p[3] = {0.25, 0.25, 1};
  CHECK(cm_bvh_nearest(&b, vert, face, p, INFINITY, &r) == 1 && r.face == 0);
  cm_bvh_free(&b);

  /* empty */
  CHECK(cm_bvh_build(&b, vert, face, 0) == CM_OK);
  CHECK(b.nnode == 0 && cm_bvh_nearest(&b, vert, face, p, INFINITY, &r) == 0 && r.face == -1);
  cm_bvh_free(&b);
  CHECK(cm_bvh_build(&b, vert, face, -1) == CM_ERR_ARG);
}

/* ---------------------------------------------------------------------------------------------
 * nearest point against brute force */

/* compare one query; returns 1 if the faces are the same */
static int compare_nearest(const TestMesh* t, const double p[3], int* ok) {
  cmNearest a, b;
  int fa = cm_bvh_nearest(&t->bvh, t->m->vert, t->m->face, p, INFINITY, &a);
  brute_nearest(t->m, p, &b);
  int good = fa == 1 && a.face >= 0;
  double tol = 1e-12 * b.dist2;
  good &= fabs(a.dist2 - b.dist2) <= tol;
  /* a different face only if equally close */
  if (good && a.face != b.face) {
    cmNearest c;
    const int* f = t->m->face + 3 * a.face;
    double q[3];
    int feat, idx;
    c.dist2 = cm_triangle_closest(t->m->vert, f[0], f[1], f[2], p, q, &feat, &idx);
    good &= fabs(c.dist2 - b.dist2) <= tol;
  }
  /* the point is where the face says */
  double d[3];
  cm_v3_sub(d, p, a.point);
  good &= fabs(cm_v3_dot(d, d) - a.dist2) <= 1e-12 * a.dist2 + 1e-300;
  if (!good && *ok)
    fprintf(stderr,
            "nearest mismatch at (%.17g %.17g %.17g): bvh face %d d2 %.17g, brute %d %.17g\n", p[0],
            p[1], p[2], a.face, a.dist2, b.face, b.dist2);
  *ok &= good;
  return a.face == b.face;
}

static void test_nearest_brute_force(void) {
  int ok = 1, same = 0, total = 0, zero_ok = 1;
  for (int trial = 0; trial < 6; trial++) {
    TestMesh t;
    int kind = trial % 2, level = kind == 0 ? 2 + trial / 2 % 2 : 3 + trial;
    CHECK(make_mesh(&t, kind, level, trial < 2 ? 0.05 : 0.25));
    for (int i = 0; i < test_trials(1200, 1) * Q_NKIND; i++) {
      double p[3];
      int kind_q = i % Q_NKIND;
      query_point(t.m, kind_q, p);
      same += compare_nearest(&t, p, &ok);
      total++;
      if (kind_q == Q_ON) {
        cmNearest r;
        cm_bvh_nearest(&t.bvh, t.m->vert, t.m->face, p, INFINITY, &r);
        zero_ok &= r.dist2 < 1e-28;
      }
    }
    free_mesh(&t);
  }
  CHECK(ok);
  CHECK(zero_ok);
  /* the tie rule makes even the face agree with brute force (smallest index) in nearly all cases */
  CHECK(same >= total - total / 1000);
  printf("     nearest: %d queries, same face as brute force: %d\n", total, same);
}

/* cm_bvh_nearest_facing (the vertex query's contact face where the nearest one does not face
 * against the vertex: collide_mesh.c): the nearest point over the faces whose normal has a
 * negative dot product with a direction, against brute force over those faces, on perturbed
 * spheres and boxes, random points and directions (axis directions too: the flush faces of a
 * box are exactly perpendicular to them, a dot product of 0, so they are not candidates); and 0
 * when no face qualifies (dir 0) */
static void test_nearest_facing(void) {
  int ok = 1, total = 0;
  for (int trial = 0; trial < 4; trial++) {
    TestMesh t;
    int kind = trial % 2;
    CHECK(make_mesh(&t, kind, kind == 0 ? 2 : 2 + trial / 2, trial < 2 ? 0 : 0.2));
    for (int i = 0; i < test_trials(800, 1); i++) {
      double p[3], dir[3];
      query_point(t.m, i % Q_NKIND, p);
      if (i % 4 == 0)
        cm_v3_set(dir, 0, 0, 0), dir[i / 4 % 3] = i % 8 ? 1 : -1;
      else
        rand_dir(dir);
      cmNearest a, b;
      int fa = cm_bvh_nearest_facing(&t.bvh, t.m->vert, t.m->face, t.m->face_normal, dir, p,
                                     INFINITY, &a);
      int fb = brute_nearest_dir(t.m, p, dir, &b);
      int good = fa == fb;
      if (fa && fb) {
        good &= fabs(a.dist2 - b.dist2) <= 1e-12 * b.dist2;
        good &= cm_v3_dot(t.m->face_normal + 3 * a.face, dir) < 0;
      }
      if (!good && ok)
        fprintf(stderr, "facing mismatch: bvh %d face %d d2 %.17g, brute %d face %d %.17g\n", fa,
                a.face, a.dist2, fb, b.face, b.dist2);
      ok &= good;
      total++;
    }
    double p[3] = {0, 0, 0}, zero[3] = {0, 0, 0};
    cmNearest r;
    CHECK(cm_bvh_nearest_facing(&t.bvh, t.m->vert, t.m->face, t.m->face_normal, zero, p, INFINITY,
                                &r) == 0 &&
          r.face == -1);
    free_mesh(&t);
  }
  CHECK(ok);
  printf("     nearest facing: %d queries against brute force\n", total);
}

/* the largest angle between a node's cone axis and a face normal below it (rad) */
static double cone_spread(const cmBvh* b, const cmMesh* m, int node, const double axis[3]) {
  const cmBvhNode* nd = b->node + node;
  if (nd->child >= 0)
    return fmax(cone_spread(b, m, nd->child, axis), cone_spread(b, m, nd->child + 1, axis));
  double th = 0;
  for (int k = -1 - nd->child; k < -1 - nd->child + nd->count; k++) {
    const double* n = m->face_normal + 3 * b->order[k];
    double x[3];
    cm_v3_cross(x, n, axis);
    th = fmax(th, atan2(cm_v3_norm(x), cm_v3_dot(n, axis)));
  }
  return th;
}

/* The normal cones of cm_bvh_nearest_facing (cmBvh.cone): every face normal below a node lies
 * within its cone (the angle to the axis at most the half-angle whose sine, less the margin, the
 * cone stores), so that skipping a cone that faces away skips no candidate; they bound a smooth
 * surface tightly (every leaf of an icosphere of 1280 faces and most inner nodes have one, the
 * leaves within 10 degrees); after a refit none bounds anything (2). */
static void test_cones(void) {
  for (int trial = 0; trial < 4; trial++) {
    TestMesh t;
    int kind = trial % 2;
    CHECK(make_mesh(&t, kind, kind == 0 ? 3 : 2 + trial / 2, trial < 2 ? 0 : 0.2));
    int held = 1, bounded = 0, leaves = 0, leaves_bounded = 0, tight = 1;
    for (int i = 0; i < t.bvh.nnode; i++) {
      const double* c = t.bvh.cone + 4 * i;
      int leaf = t.bvh.node[i].child < 0;
      leaves += leaf;
      if (c[3] == 2) continue;
      CHECK(c[3] >= CM_BVH_CONE_MARGIN && c[3] < 1 + CM_BVH_CONE_MARGIN);
      CHECK(fabs(cm_v3_norm(c) - 1) < 1e-12);
      double half = asin(fmin(1, c[3] - CM_BVH_CONE_MARGIN));
      held &= cone_spread(&t.bvh, t.m, i, c) <= half + 1e-12;
      bounded++;
      leaves_bounded += leaf;
      if (leaf && kind == 0 && trial < 2) tight &= half < 20 * CM_PI / 180;
    }
    CHECK(held);
    if (kind == 0 && trial < 2) {
      CHECK(leaves_bounded == leaves);
      CHECK(bounded > t.bvh.nnode / 2);
      CHECK(tight);
    }
    cm_bvh_refit(&t.bvh, t.m->vert, t.m->face);
    int none = 1;
    for (int i = 0; i < t.bvh.nnode; i++)
      none &= t.bvh.cone[4 * i + 3] == 2;
    CHECK(none);
    printf("     cones: trial %d, %d of %d nodes bounded, %d of %d leaves\n", trial, bounded,
           t.bvh.nnode, leaves_bounded, leaves);
    free_mesh(&t);
  }
}

/* refit: a tree built on a mesh, the vertices then moved (a twist and a stretch, as a deformable
 * body's surface deforms), the boxes refitted: every invariant holds on the moved mesh and the
 * nearest points equal brute force's on it */
static void test_refit(void) {
  int ok = 1;
  for (int trial = 0; trial < 2; trial++) {
    TestMesh t;
    CHECK(make_mesh(&t, trial, trial ? 4 : 3, 0.1));
    for (int v = 0; v < t.m->nvert; v++) {
      double* x = t.m->vert + 3 * v;
      double a = 0.8 * x[2], c = cos(a), sn = sin(a), x0 = x[0], y0 = x[1];
      x[0] = 1.3 * (c * x0 - sn * y0);
      x[1] = sn * x0 + c * y0;
      x[2] *= 0.7;
    }
    cm_bvh_refit(&t.bvh, t.m->vert, t.m->face);
    check_invariants(&t.bvh, t.m);
    for (int i = 0; i < test_trials(600, 1) * Q_NKIND; i++) {
      double p[3];
      query_point(t.m, i % Q_NKIND, p);
      compare_nearest(&t, p, &ok);
    }
    free_mesh(&t);
  }
  CHECK(ok);
}

/* bounded queries: found exactly when the brute-force distance is within max_dist */
static void test_nearest_bounded(void) {
  TestMesh t;
  CHECK(make_mesh(&t, 0, 3, 0.2));
  int ok = 1;
  for (int i = 0; i < test_trials(5000, Q_NKIND); i++) {
    double p[3];
    query_point(t.m, i % Q_NKIND, p);
    cmNearest a, b;
    brute_nearest(t.m, p, &b);
    double d = sqrt(b.dist2);
    /* just above: found with the same distance; well below: not found */
    double above = d * (1 + 1e-9) + 1e-300, below = d * (1 - 1e-6);
    int fa = cm_bvh_nearest(&t.bvh, t.m->vert, t.m->face, p, above, &a);
    ok &= fa == 1 && a.dist2 == b.dist2;
    if (d > 0) {
      fa = cm_bvh_nearest(&t.bvh, t.m->vert, t.m->face, p, below, &a);
      ok &= fa == 0 && a.face == -1 && a.dist2 == INFINITY;
      ok &= cm_bvh_signed_distance(&t.bvh, t.m->vert, t.m->face, t.m->face_normal, t.vpn, t.epn, p,
                                   below, NULL) == INFINITY;
    }
  }
  CHECK(ok);
  free_mesh(&t);
}

/* ---------------------------------------------------------------------------------------------
 * signed distance against ray parity */

static void test_signed_vs_rays(void) {
  int agree = 0, disagree = 0, skipped = 0, face_sign_ok = 1, mag_ok = 1, on_zero = 1;
  int near_agree = 0; /* agreements for points within 1e-6 of the surface */
  for (int trial = 0; trial < 6; trial++) {
    TestMesh t;
    int kind = trial % 2;
    CHECK(make_mesh(&t, kind, kind == 0 ? 3 : 4, 0.3));
    for (int i = 0; i < test_trials(700, 1) * Q_NKIND; i++) {
      double p[3];
      int qk = i % Q_NKIND;
      query_point(t.m, qk, p);
      cmNearest r;
      const double* fn = trial < 3 ? t.m->face_normal : NULL;
      double sd =
          cm_bvh_signed_distance(&t.bvh, t.m->vert, t.m->face, fn, t.vpn, t.epn, p, INFINITY, &r);
      mag_ok &= fabs(sd) == sqrt(r.dist2);
      if (qk == Q_ON) {
        on_zero &= fabs(sd) < 1e-14;
        continue;
      }
      int ref = ray_inside(t.m, p);
      if (ref < 0) {
        skipped++;
        continue;
      }
      if ((sd < 0) == ref) {
        agree++;
        near_agree += fabs(sd) < 1e-6;
      } else {
        disagree++;
        if (disagree < 5)
          fprintf(stderr, "sign mismatch kind %d sd %.3g feature %d ray %d\n", qk, sd, r.feature,
                  ref);
      }
      CHECK(cm_bvh_inside(&t.bvh, t.m->vert, t.m->face, fn, t.vpn, t.epn, p, INFINITY, NULL) ==
            (sd < 0));
    }
    /* points just off a face interior along its normal: the sign is the side */
    for (int i = 0; i < test_trials(2000, 1); i++) {
      int f = irand(t.m->nface);
      const int* v = t.m->face + 3 * f;
      double u = urange(0.2, 0.6), w = urange(0.2, 0.8 - u), p[3], s = urand() < 0.5 ? -1 : 1;
      for (int j = 0; j < 3; j++)
        p[j] = t.m->vert[3 * v[0] + j] + u * (t.m->vert[3 * v[1] + j] - t.m->vert[3 * v[0] + j]) +
               w * (t.m->vert[3 * v[2] + j] - t.m->vert[3 * v[0] + j]);
      cm_v3_madd(p, p, t.m->face_normal + 3 * f, s * logrand(1e-9, 1e-6));
      double sd = cm_bvh_signed_distance(&t.bvh, t.m->vert, t.m->face, t.m->face_normal, t.vpn,
                                         t.epn, p, 1e-3, NULL);
      face_sign_ok &= sd != INFINITY && (sd < 0) == (s < 0);
    }
    free_mesh(&t);
  }
  printf("     inside: %d agree with ray parity (%d within 1e-6 of the surface), %d disagree, %d "
         "ambiguous rays skipped\n",
         agree, near_agree, disagree, skipped);
  CHECK(disagree == 0);
  CHECK(near_agree > agree / 5);
  CHECK(skipped < (agree + skipped) / 20);
  CHECK(face_sign_ok && mag_ok && on_zero);
}

/* ---------------------------------------------------------------------------------------------
 * copy, serialisation, determinism, no allocation */

static int same_result(const cmNearest* a, const cmNearest* b) {
  return a->face == b->face && a->feature == b->feature && a->index == b->index &&
         a->dist2 == b->dist2 && memcmp(a->point, b->point, sizeof a->point) == 0;
}

static void test_copy_and_determinism(void) {
  TestMesh t;
  CHECK(make_mesh(&t, 0, 3, 0.2));
  cmBvh again, copy, view;
  CHECK(cm_bvh_build(&again, t.m->vert, t.m->face, t.m->nface) == CM_OK);
  size_t nb = cm_bvh_bytes(t.bvh.nnode, t.bvh.nface);
  CHECK(again.nnode == t.bvh.nnode && memcmp(again.block, t.bvh.block, nb) == 0);
  CHECK(cm_bvh_copy(&copy, &t.bvh) == CM_OK);
  double* mem = malloc(nb);
  cm_bvh_write(&t.bvh, mem);
  cm_bvh_view(&view, t.bvh.nnode, t.bvh.nface, t.bvh.depth, mem);
  CHECK(memcmp(copy.block, t.bvh.block, nb) == 0 && memcmp(mem, t.bvh.block, nb) == 0);

  /* the queries allocate nothing and agree on every tree */
  cmAllocator a = {count_malloc, count_realloc, count_free, NULL};
  cm_set_allocator(&a);
  t_nalloc = 0;
  int ok = 1;
  for (int i = 0; i < 2000; i++) {
    double p[3];
    query_point(t.m, i % Q_NKIND, p);
    cmNearest r0, r1, r2;
    cm_bvh_nearest(&t.bvh, t.m->vert, t.m->face, p, INFINITY, &r0);
    cm_bvh_nearest(&copy, t.m->vert, t.m->face, p, INFINITY, &r1);
    cm_bvh_nearest(&view, t.m->vert, t.m->face, p, INFINITY, &r2);
    ok &= same_result(&r0, &r1) && same_result(&r0, &r2);
    cm_bvh_signed_distance(&view, t.m->vert, t.m->face, t.m->face_normal, t.vpn, t.epn, p, 0.1,
                           &r2);
  }
  CHECK(t_nalloc == 0);
  cm_set_allocator(NULL);
  CHECK(ok);
  cm_bvh_free(&view); /* a view: frees nothing */
  free(mem);
  cm_bvh_free(&copy);
  cm_bvh_free(&again);
  CHECK(copy.block == NULL && copy.nnode == 0);
  free_mesh(&t);
}

int main(void) {
  RUN(test_triangle_regions);
  RUN(test_pseudonormal_sphere);
  RUN(test_pseudonormal_box);
  RUN(test_pseudonormal_errors);
  RUN(test_bvh_invariants);
  RUN(test_nearest_brute_force);
  RUN(test_nearest_facing);
  RUN(test_cones);
  RUN(test_refit);
  RUN(test_nearest_bounded);
  RUN(test_signed_vs_rays);
  RUN(test_copy_and_determinism);
  return test_report();
}
