/* cm_mesh_check: every failure class, each detected, counted, and named in the message with the
 * first offending index (indices 0-based). */
#include <stdio.h>
#include <string.h>

#include "comply/mesh.h"
#include "core/cm_math.h"
#include "test.h"

static cmMesh* unit_box(int d) {
  const double s[3] = {1, 1, 1};
  return cm_mesh_box(s, d);
}

/* a mesh with the faces of m except face `drop`, plus `extra` extra faces (zeroed) */
static cmMesh* edit(const cmMesh* m, int drop, int extra, int extra_vert) {
  cmMesh* r = cm_mesh_new(m->nvert + extra_vert, m->nface - (drop >= 0) + extra);
  memcpy(r->vert, m->vert, 3 * sizeof(double) * (size_t)m->nvert);
  int n = 0;
  for (int f = 0; f < m->nface; f++)
    if (f != drop) memcpy(r->face + 3 * n++, m->face + 3 * f, 3 * sizeof(int));
  return r;
}

static int contains(const char* s, const char* sub) {
  if (!strstr(s, sub)) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", s, sub);
    return 0;
  }
  return 1;
}

static void flip(cmMesh* m, int f) {
  int t = m->face[3 * f + 1];
  m->face[3 * f + 1] = m->face[3 * f + 2];
  m->face[3 * f + 2] = t;
}

/* the smallest (min, max) edge of face f, as printed */
static void first_edge(const cmMesh* m, int f, char* buf, size_t n) {
  int best_a = -1, best_b = -1;
  for (int k = 0; k < 3; k++) {
    int u = m->face[3 * f + k], w = m->face[3 * f + (k + 1) % 3];
    int a = u < w ? u : w, b = u < w ? w : u;
    if (best_a < 0 || a < best_a || (a == best_a && b < best_b)) {
      best_a = a;
      best_b = b;
    }
  }
  snprintf(buf, n, "edge (%d, %d)", best_a, best_b);
}

static void test_valid(void) {
  cmMesh* m = unit_box(2);
  cmMeshReport r;
  char err[256] = "untouched";
  CHECK(cm_mesh_check(m, "box", &r, err, sizeof err) == CM_OK);
  CHECK(r.closed && r.manifold && r.oriented && r.nvert == 26 && r.nface == 48);
  CHECK(r.nonfinite_vert + r.bad_index_face + r.degenerate_face + r.boundary_edge +
            r.nonmanifold_edge + r.misoriented_edge + r.unused_vert ==
        0);
  CHECK(cm_mesh_check(m, NULL, NULL, NULL, 0) == CM_OK);
  cm_mesh_free(m);
}

/* remove one triangle: its 3 edges become boundary edges */
static void test_open(void) {
  cmMesh* b = unit_box(2);
  cmMesh* m = edit(b, 7, 0, 0);
  cmMeshReport r;
  char err[1024], want[64];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.boundary_edge == 3 && !r.closed && r.manifold && r.oriented);
  first_edge(b, 7, want, sizeof want);
  CHECK(contains(err, "part.obj: "));
  CHECK(contains(err, want));
  CHECK(contains(err, "not closed (3 boundary edges)"));
  /* the cause comes first: one hole of 3 edges */
  CHECK(contains(err, "part.obj: holes: 1 (boundary loops of 3 edges; 3 boundary edges)"));
  cm_mesh_free(m);
  cm_mesh_free(b);
}

/* two tetrahedra sharing the edge (0, 1): that edge has 4 faces */
static void test_nonmanifold(void) {
  cmMesh* m = cm_mesh_new(6, 8);
  const double v[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1};
  /* tetra (0, 1, 2, 3) and its mirror (0, 1, 4, 5) through the origin's y and z */
  const int f[24] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 1, 4, 0, 5, 1, 0, 4, 5, 1, 5, 4};
  memcpy(m->vert, v, sizeof v);
  memcpy(m->face, f, sizeof f);
  cmMeshReport r;
  char err[1024];
  CHECK(cm_mesh_check(m, "two.stl", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.nonmanifold_edge == 1 && !r.manifold && r.closed);
  CHECK(contains(err, "two.stl: non-manifold edges: 1; first: edge (0, 1) with 4 faces"));
  CHECK(contains(err, "; edge (0, 1) belongs to 4 faces"));
  CHECK(contains(err, "not edge-manifold"));
  cm_mesh_free(m);
}

/* one face flipped: each of its 3 edges is traversed the same way by both neighbours */
static void test_misoriented(void) {
  cmMesh* m = unit_box(2);
  flip(m, 11);
  cmMeshReport r;
  char err[1024], want[64];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.misoriented_edge == 3 && !r.oriented && r.closed && r.manifold);
  first_edge(m, 11, want, sizeof want);
  CHECK(contains(err, want));
  CHECK(contains(err, "not consistently oriented (3 misoriented edges)"));
  CHECK(strstr(err, "faces 11 and ") || strstr(err, " and 11:"));
  CHECK(contains(err, "part.obj: flipped faces: 1; first: face 11 "));
  cm_mesh_free(m);
}

/* every face flipped: consistent but inward, volume -1 */
static void test_inverted(void) {
  cmMesh* m = unit_box(1);
  for (int f = 0; f < m->nface; f++)
    flip(m, f);
  cmMeshReport r;
  char err[256];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.oriented && r.closed && r.manifold);
  CHECK_REL(r.volume, -1.0, 1e-14);
  CHECK(contains(err, "part.obj: enclosed volume is -1 m^3 <= 0"));
  CHECK(contains(err, "inverted"));
  cm_mesh_free(m);
}

/* an extra face (0, 1, m) with m the midpoint of edge 0-1: collinear, zero area */
static void test_degenerate(void) {
  cmMesh* b = unit_box(1);
  cmMesh* m = edit(b, -1, 1, 1);
  int nv = b->nvert, nf = b->nface;
  int a = b->face[0], c = b->face[1];
  for (int k = 0; k < 3; k++)
    m->vert[3 * nv + k] = 0.5 * (m->vert[3 * a + k] + m->vert[3 * c + k]);
  m->face[3 * nf] = a;
  m->face[3 * nf + 1] = c;
  m->face[3 * nf + 2] = nv;
  cmMeshReport r;
  char err[256], want[64];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.degenerate_face == 1);
  snprintf(want, sizeof want, "face %d (vertices %d, %d, %d) has zero area", nf, a, c, nv);
  CHECK(contains(err, want));
  /* a tiny but well-shaped face far above the threshold is fine: scale the box by 1e-6 */
  cmMesh* t = unit_box(1);
  for (int i = 0; i < 3 * t->nvert; i++)
    t->vert[i] *= 1e-6;
  CHECK(cm_mesh_check(t, "tiny", NULL, NULL, 0) == CM_OK);
  cm_mesh_free(t);
  cm_mesh_free(m);
  cm_mesh_free(b);
}

static void test_nonfinite(void) {
  cmMesh* m = unit_box(1);
  m->vert[3 * 5 + 1] = NAN;
  m->vert[3 * 6 + 2] = INFINITY;
  cmMeshReport r;
  char err[256];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.nonfinite_vert == 2);
  CHECK(contains(err, "part.obj: vertex 5 has a non-finite coordinate"));
  cm_mesh_free(m);
}

static void test_bad_index(void) {
  cmMeshReport r;
  char err[256];
  cmMesh* m = unit_box(1);
  m->face[3 * 3 + 1] = 99;
  m->face[3 * 4 + 2] = -1;
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.bad_index_face == 2);
  CHECK(contains(err, "face 3 ("));
  CHECK(contains(err, "refers to vertex 99, outside 0..7"));
  cm_mesh_free(m);

  /* a repeated index */
  m = unit_box(1);
  m->face[3 * 4 + 2] = m->face[3 * 4];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.bad_index_face == 1);
  char want[64];
  snprintf(want, sizeof want, "face 4 (vertices %d, %d, %d) uses vertex %d twice", m->face[12],
           m->face[13], m->face[14], m->face[12]);
  CHECK(contains(err, want));
  cm_mesh_free(m);
}

/* an unused vertex is reported, not an error; an empty mesh is an error */
static void test_unused_and_empty(void) {
  cmMesh* b = unit_box(1);
  cmMesh* m = edit(b, -1, 0, 2);
  m->vert[3 * 8] = 5;
  cmMeshReport r;
  char err[256];
  CHECK(cm_mesh_check(m, "part.obj", &r, err, sizeof err) == CM_OK);
  CHECK(r.unused_vert == 2);
  cm_mesh_free(m);
  cm_mesh_free(b);
  cmMesh* e = cm_mesh_new(0, 0);
  CHECK(cm_mesh_check(e, "empty.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "empty.obj: the mesh has no faces"));
  cm_mesh_free(e);
}

/* two unit boxes as one mesh, the second moved by t: closed, manifold and oriented by index
 * whatever t; where they touch, vertices of both are at the same positions and the surface
 * touches itself (a corner: a non-manifold vertex once they are joined; a face: the two
 * boxes' faces there, the same triangles, become duplicates), which the check refuses, naming
 * the vertices and the position; apart, it passes. (Surfaces touching where no vertices meet
 * are left to the diagnosis's self-intersection test, `comply mesh-info`.) */
static void test_touches_itself(void) {
  cmMesh* b = unit_box(1);
  const double shifts[3][3] = {{2, 0, 0}, {1, 1, 1}, {1, 0, 0}};
  const int ok[3] = {1, 0, 0};
  for (int c = 0; c < 3; c++) {
    cmMesh* m = cm_mesh_new(2 * b->nvert, 2 * b->nface);
    for (int v = 0; v < b->nvert; v++)
      for (int k = 0; k < 3; k++) {
        m->vert[3 * v + k] = b->vert[3 * v + k];
        m->vert[3 * (b->nvert + v) + k] = b->vert[3 * v + k] + shifts[c][k];
      }
    for (int i = 0; i < 3 * b->nface; i++) {
      m->face[i] = b->face[i];
      m->face[3 * b->nface + i] = b->face[i] + b->nvert;
    }
    cmMeshReport r;
    char err[512] = "";
    cmStatus st = cm_mesh_check(m, "two.obj", &r, err, sizeof err);
    CHECK(r.closed && r.manifold && r.oriented);
    if (ok[c]) {
      CHECK(st == CM_OK);
    } else {
      CHECK(st == CM_ERR_MESH);
      CHECK(contains(err, "two.obj: the surface touches itself: vertices "));
      CHECK(contains(err, c == 1 ? "non-manifold vert" : "duplicate faces"));
    }
    cm_mesh_free(m);
  }
  cm_mesh_free(b);
}

/* the edge map scales: a 1.3M-face sphere is checked without quadratic work */
static void test_large(void) {
  cmMesh* m = cm_mesh_icosphere(1, 7);
  cmMeshReport r;
  CHECK(cm_mesh_check(m, "big", &r, NULL, 0) == CM_OK);
  CHECK(r.nedge == 30 * (1 << 14));
  cm_mesh_free(m);
}

int main(void) {
  RUN(test_valid);
  RUN(test_open);
  RUN(test_nonmanifold);
  RUN(test_misoriented);
  RUN(test_inverted);
  RUN(test_degenerate);
  RUN(test_nonfinite);
  RUN(test_bad_index);
  RUN(test_unused_and_empty);
  RUN(test_touches_itself);
  RUN(test_large);
  return test_report();
}
