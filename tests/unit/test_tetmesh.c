/* Tetrahedral meshes (src/geom/tetmesh.c): the structured box and ball, their boundary surface,
 * cm_tetmesh_check's findings, bad arguments and every allocation failure.
 *
 * Expected values. A box of d0 x d1 x d2 cells has (d0+1)(d1+1)(d2+1) nodes and 6 d0 d1 d2 tets
 * of total volume size0 size1 size2; its boundary is a grid of 2 triangles per cell face, so
 * 4 (d0 d1 + d1 d2 + d0 d2) triangles over the nodes that are not interior, (d0+1)(d1+1)(d2+1) -
 * (d0-1)(d1-1)(d2-1). A non-conforming cut would leave interior faces in one tet only and
 * more boundary triangles. The ball's surface nodes lie on the sphere, so its volume is that of an
 * inscribed polyhedron: below 4/3 pi R^3, by O(h^2) (the chord error of a face of size h is
 * h^2 / (8 R)): halving h quarters the error. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "test.h"
#include "test_alloc.h"

static double tet_volume(const cmTetMesh* m, int t) {
  const int* n = m->tet + 4 * t;
  const double* a = m->node + 3 * n[0];
  double e[3][3];
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++)
      e[k][i] = m->node[3 * n[k + 1] + i] - a[i];
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
         6;
}

/* sum of the tet volumes; *minv the smallest */
static double volume_sum(const cmTetMesh* m, double* minv) {
  double s = 0, lo = INFINITY;
  for (int t = 0; t < m->ntet; t++) {
    double v = tet_volume(m, t);
    s += v;
    if (v < lo) lo = v;
  }
  if (minv) *minv = lo;
  return s;
}

/* quality 6 sqrt(2) V / l_rms^3 (1 for the regular tet, 0 for a flat one) */
static double tet_quality(const cmTetMesh* m, int t) {
  const int* n = m->tet + 4 * t;
  double l2 = 0;
  for (int a = 0; a < 4; a++)
    for (int b = a + 1; b < 4; b++)
      for (int i = 0; i < 3; i++) {
        double d = m->node[3 * n[a] + i] - m->node[3 * n[b] + i];
        l2 += d * d;
      }
  double lrms = sqrt(l2 / 6);
  return 6 * sqrt(2.0) * tet_volume(m, t) / (lrms * lrms * lrms);
}

/* the surface: valid closed oriented mesh, volume = tet volume sum, vertices in increasing node
 * order and at the nodes' positions */
static void check_surface(const cmTetMesh* m, cmMesh* s, const int* sn, double vol) {
  char err[512];
  cmMeshReport rep;
  CHECK(s != NULL);
  if (!s) return;
  CHECK(cm_mesh_check(s, "surface", &rep, err, sizeof err) == CM_OK);
  CHECK(rep.closed && rep.oriented && rep.manifold);
  CHECK(rep.unused_vert == 0);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(s, &mp) == CM_OK);
  CHECK_REL(mp.volume, vol, 1e-12);
  CHECK_REL(rep.volume, vol, 1e-12);
  for (int v = 0; v < s->nvert; v++) {
    CHECK(sn[v] >= 0 && sn[v] < m->nnode);
    if (v) CHECK(sn[v] > sn[v - 1]);
    CHECK(memcmp(s->vert + 3 * v, m->node + 3 * sn[v], 3 * sizeof(double)) == 0);
  }
}

static void test_box(void) {
  const double size[3] = {1.0, 2.0, 3.0};
  const int div[3] = {2, 3, 4};
  cmTetMesh* m = NULL;
  char err[512];
  CHECK(cm_tetmesh_box(size, div, &m) == CM_OK);
  if (!m) return;
  CHECK(m->nnode == 3 * 4 * 5);
  CHECK(m->ntet == 6 * 2 * 3 * 4);
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
  double minv, vol = volume_sum(m, &minv);
  CHECK_REL(vol, 6.0, 1e-14);
  /* every Kuhn tet of a cell has a sixth of its volume */
  CHECK_REL(minv, 6.0 / m->ntet, 1e-12);
  for (int v = 0; v < m->nnode; v++)
    for (int i = 0; i < 3; i++)
      CHECK(fabs(m->node[3 * v + i]) <= size[i] / 2);
  int* sn = malloc(sizeof(int) * m->nnode);
  cmMesh* s = cm_tetmesh_surface(m, sn);
  check_surface(m, s, sn, 6.0);
  if (s) {
    CHECK(s->nface == 4 * (2 * 3 + 3 * 4 + 2 * 4));
    CHECK(s->nvert == 60 - 1 * 2 * 3);
    /* every surface vertex on a face of the box */
    for (int v = 0; v < s->nvert; v++) {
      int on = 0;
      for (int i = 0; i < 3; i++)
        on |= fabs(fabs(s->vert[3 * v + i]) - size[i] / 2) == 0;
      CHECK(on);
    }
  }
  cm_mesh_free(s);
  free(sn);
  cm_tetmesh_free(m);
  /* one cell: 6 tets, the cube's 12 triangles */
  const int one[3] = {1, 1, 1};
  CHECK(cm_tetmesh_box(size, one, &m) == CM_OK);
  if (!m) return;
  s = cm_tetmesh_surface(m, NULL);
  CHECK(s && s->nface == 12 && s->nvert == 8);
  cm_mesh_free(s);
  cm_tetmesh_free(m);
}

static void test_ball(void) {
  const double R = 0.5, exact = 4.0 / 3.0 * CM_PI * R * R * R;
  char err[512];
  double prev = 0;
  for (int n = 4; n <= 16; n *= 2) {
    cmTetMesh* m = NULL;
    CHECK(cm_tetmesh_ball(R, n, &m) == CM_OK);
    if (!m) return;
    CHECK(m->nnode == (n + 1) * (n + 1) * (n + 1));
    CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
    double minv, vol = volume_sum(m, &minv);
    double e = (exact - vol) / exact;
    CHECK(minv > 0);
    CHECK(e > 0); /* inscribed */
    if (prev > 0) /* O(h^2): the error quarters when n doubles */
      CHECK(prev / e > 3.5 && prev / e < 4.5);
    printf("  ball n = %2d: %6d tets, volume error %.3e (ratio to previous %.2f)\n", n, m->ntet, e,
           prev > 0 ? prev / e : 0.0);
    prev = e;
    /* no slivers: every tet's quality above 0.4 (a Kuhn tet of a cube has 0.66; measured 0.53 at n
     * = 16) */
    double qmin = 1;
    for (int t = 0; t < m->ntet; t++)
      qmin = fmin(qmin, tet_quality(m, t));
    CHECK(qmin > 0.4);
    printf("  min tet quality %.3f\n", qmin);
    int* sn = malloc(sizeof(int) * m->nnode);
    cmMesh* s = cm_tetmesh_surface(m, sn);
    check_surface(m, s, sn, vol);
    if (s) {
      /* the surface nodes on the sphere, the cube shell's (n+1)^3 - (n-1)^3 of them */
      CHECK(s->nvert == (n + 1) * (n + 1) * (n + 1) - (n - 1) * (n - 1) * (n - 1));
      double south[3] = {0, 0, -R};
      int has_pole = 0;
      for (int v = 0; v < s->nvert; v++) {
        double r = sqrt(s->vert[3 * v] * s->vert[3 * v] + s->vert[3 * v + 1] * s->vert[3 * v + 1] +
                        s->vert[3 * v + 2] * s->vert[3 * v + 2]);
        CHECK_NEAR(r, R, 1e-15);
        has_pole |=
            memcmp(s->vert + 3 * v, south, sizeof south) == 0 ||
            (fabs(s->vert[3 * v]) + fabs(s->vert[3 * v + 1]) == 0 && s->vert[3 * v + 2] == -R);
      }
      CHECK(has_pole);
      /* near the south pole (within 30 degrees) the surface triangles are alike: their areas
       * within a factor 1.5 of each other */
      double amin = INFINITY, amax = 0;
      for (int f = 0; f < s->nface; f++) {
        const int* t = s->face + 3 * f;
        double c[3] = {0, 0, 0}, e1[3], e2[3];
        for (int k = 0; k < 3; k++)
          for (int i = 0; i < 3; i++)
            c[i] += s->vert[3 * t[k] + i] / 3;
        if (c[2] > -R * cos(CM_PI / 6)) continue;
        for (int i = 0; i < 3; i++) {
          e1[i] = s->vert[3 * t[1] + i] - s->vert[3 * t[0] + i];
          e2[i] = s->vert[3 * t[2] + i] - s->vert[3 * t[0] + i];
        }
        double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
               z = e1[0] * e2[1] - e1[1] * e2[0];
        double a = 0.5 * sqrt(x * x + y * y + z * z);
        amin = fmin(amin, a);
        amax = fmax(amax, a);
      }
      CHECK(amax > 0 && amax / amin < 1.5);
      printf("  triangle areas within 30 degrees of the south pole: max / min %.3f\n", amax / amin);
    }
    cm_mesh_free(s);
    free(sn);
    cm_tetmesh_free(m);
  }
  /* odd n rounds up to even */
  cmTetMesh* a = NULL;
  cmTetMesh* b = NULL;
  CHECK(cm_tetmesh_ball(R, 3, &a) == CM_OK && cm_tetmesh_ball(R, 4, &b) == CM_OK);
  if (a && b) {
    CHECK(a->nnode == b->nnode && a->ntet == b->ntet);
    CHECK(memcmp(a->node, b->node, sizeof(double) * 3 * a->nnode) == 0);
  }
  cm_tetmesh_free(a);
  cm_tetmesh_free(b);
  /* the smallest: 8 octants of 6 tets */
  CHECK(cm_tetmesh_ball(R, 2, &a) == CM_OK);
  if (a) {
    CHECK(a->ntet == 48 && cm_tetmesh_check(a, err, sizeof err) == CM_OK);
    cmMesh* s = cm_tetmesh_surface(a, NULL);
    cmMeshReport rep;
    CHECK(s && cm_mesh_check(s, "ball2", &rep, err, sizeof err) == CM_OK);
    cm_mesh_free(s);
  }
  cm_tetmesh_free(a);
}

/* two tets sharing face (1, 2, 3): nodes 0 and 4 on either side */
static cmTetMesh* two_tets(void) {
  cmTetMesh* m = cm_tetmesh_new(5, 2);
  if (!m) return NULL;
  const double node[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  const int tet[8] = {0, 1, 2, 3, 4, 1, 3, 2};
  memcpy(m->node, node, sizeof node);
  memcpy(m->tet, tet, sizeof tet);
  return m;
}

static void test_check_errors(void) {
  char err[512];
  cmTetMesh* m = two_tets();
  if (!m) return;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
  CHECK(err[0] == 0);
  CHECK_NEAR(volume_sum(m, NULL), 1.0 / 6 + 1.0 / 3, 1e-15);
  /* the two tets' surface: 6 faces, the shared one gone */
  cmMesh* s = cm_tetmesh_surface(m, NULL);
  cmMeshReport rep;
  CHECK(s && s->nface == 6 && s->nvert == 5);
  CHECK(s && cm_mesh_check(s, "two", &rep, err, sizeof err) == CM_OK);
  cm_mesh_free(s);

  /* node index out of range, naming the tet and the index */
  m->tet[6] = 5;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "tet 1") && strstr(err, "node index 5 out of range"));
  m->tet[6] = -1;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "node index -1 out of range"));
  m->tet[6] = 3;
  /* inverted: two nodes exchanged */
  m->tet[5] = 3;
  m->tet[6] = 1;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "tet 1") && strstr(err, "inverted"));
  m->tet[5] = 1;
  m->tet[6] = 3;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
  /* degenerate: node 4 moved into the plane of face (1, 2, 3) */
  double keep[3];
  memcpy(keep, m->node + 12, sizeof keep);
  m->node[12] = m->node[13] = m->node[14] = 1.0 / 3;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "tet 1") && strstr(err, "degenerate"));
  memcpy(m->node + 12, keep, sizeof keep);
  /* non-finite coordinate */
  m->node[7] = NAN;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "node 2") && strstr(err, "non-finite"));
  m->node[7] = INFINITY;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH && strstr(err, "node 2"));
  m->node[7] = 1;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
  /* an unused node: node 4 unused when the second tet is dropped */
  m->ntet = 1;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH);
  CHECK(strstr(err, "node 4") && strstr(err, "used by no tet"));
  /* the surface skips it: the single tet's 4 faces outward over nodes 0..3 */
  int sn[5] = {-1, -1, -1, -1, -1};
  s = cm_tetmesh_surface(m, sn);
  CHECK(s && s->nface == 4 && s->nvert == 4);
  CHECK(sn[0] == 0 && sn[1] == 1 && sn[2] == 2 && sn[3] == 3 && sn[4] == -1);
  CHECK(s && cm_mesh_check(s, "one", &rep, err, sizeof err) == CM_OK);
  CHECK(s && rep.volume > 0);
  cm_mesh_free(s);
  /* no tets */
  m->ntet = 0;
  CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_ERR_MESH && strstr(err, "no tetrahedra"));
  m->ntet = 2;
  cm_tetmesh_free(m);
  cm_tetmesh_free(NULL);
}

static void test_bad_args(void) {
  cmTetMesh* m = (cmTetMesh*)&m; /* not NULL: set to NULL on failure */
  const int div[3] = {1, 1, 1};
  const double size[3] = {1, 1, 1};
  double bad_size[3] = {1, 0, 1};
  int bad_div[3] = {1, 0, 1};
  CHECK(cm_tetmesh_box(bad_size, div, &m) == CM_ERR_ARG && m == NULL);
  bad_size[1] = NAN;
  CHECK(cm_tetmesh_box(bad_size, div, &m) == CM_ERR_ARG && m == NULL);
  bad_size[1] = -1;
  CHECK(cm_tetmesh_box(bad_size, div, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_box(size, bad_div, &m) == CM_ERR_ARG && m == NULL);
  const int huge[3] = {2000, 2000, 2000};
  CHECK(cm_tetmesh_box(size, huge, &m) == CM_ERR_ARG && m == NULL);
  const int intmax[3] = {INT_MAX, 1, 1}; /* (n + 1 overflowed an int: UBSan) */
  CHECK(cm_tetmesh_box(size, intmax, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_ball(0, 4, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_ball(-1, 4, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_ball(NAN, 4, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_ball(1, 1, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_ball(1, 2000, &m) == CM_ERR_ARG && m == NULL);
  CHECK(cm_tetmesh_new(-1, 0) == NULL);
  CHECK(cm_tetmesh_new(0, -1) == NULL);
  m = cm_tetmesh_new(0, 0);
  CHECK(m && m->nnode == 0 && m->ntet == 0);
  cm_tetmesh_free(m);
  /* the surface of a mesh whose tet names a node out of range: NULL, nothing written past the
   * nodes (it wrote past them: ASan); the same mesh in range gives the tet's 4 faces */
  m = cm_tetmesh_new(4, 1);
  CHECK(m != NULL);
  if (m) {
    const double p[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(m->node, p, sizeof p);
    const int bad[3] = {9, -1, 4};
    for (int i = 0; i < 3; i++) {
      int t[4] = {0, 1, 2, 3};
      t[3] = bad[i];
      memcpy(m->tet, t, sizeof t);
      CHECK(cm_tetmesh_surface(m, NULL) == NULL);
    }
    const int good[4] = {0, 1, 2, 3};
    memcpy(m->tet, good, sizeof good);
    cmMesh* sm = cm_tetmesh_surface(m, NULL);
    CHECK(sm && sm->nface == 4 && sm->nvert == 4);
    cm_mesh_free(sm);
    cm_tetmesh_free(m);
  }
}

/* every allocation of new, box, ball, check and surface fails in turn: each failure is reported
 * (NULL or CM_ERR_NOMEM, nothing returned), leaks nothing (ASan), and a run with no failure
 * succeeds; the number of allocations each makes is bounded (the loop ends) */
static void test_every_allocation(void) {
  const double size[3] = {1, 1, 1};
  const int div[3] = {2, 1, 1};
  char err[256];
  cmTetMesh* base = NULL;
  CHECK(cm_tetmesh_box(size, div, &base) == CM_OK);
  if (!base) return;
  int kinds_ok = 0;
  for (int kind = 0; kind < 5; kind++) {
    int failures = 0, done = 0;
    for (long k = 1; k < 100 && !done; k++) {
      t_fail_start(k);
      cmTetMesh* m = NULL;
      cmMesh* s = NULL;
      cmStatus st = CM_OK;
      switch (kind) {
      case 0:
        m = cm_tetmesh_new(10, 10);
        st = m ? CM_OK : CM_ERR_NOMEM;
        break;
      case 1:
        st = cm_tetmesh_box(size, div, &m);
        break;
      case 2:
        st = cm_tetmesh_ball(1, 4, &m);
        break;
      case 3:
        st = cm_tetmesh_check(base, err, sizeof err);
        break;
      default:
        s = cm_tetmesh_surface(base, NULL);
        st = s ? CM_OK : CM_ERR_NOMEM;
        break;
      }
      if (t_fail_stop() < k) { /* nothing failed: every allocation succeeded */
        CHECK(st == CM_OK);
        done = 1;
      } else {
        CHECK(st == CM_ERR_NOMEM);
        CHECK(m == NULL && s == NULL);
        if (kind == 3) CHECK(strstr(err, "out of memory") != NULL);
        failures++;
      }
      cm_tetmesh_free(m);
      cm_mesh_free(s);
    }
    CHECK(done);
    CHECK(failures >= 1);
    kinds_ok += done && failures >= 1;
  }
  CHECK(kinds_ok == 5);
  cm_tetmesh_free(base);
}

int main(void) {
  RUN(test_box);
  RUN(test_ball);
  RUN(test_check_errors);
  RUN(test_bad_args);
  RUN(test_every_allocation);
  return test_report();
}
