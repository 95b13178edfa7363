/* Mass properties against closed-form solids, and the derived per-face / per-vertex data.
 *
 * Tolerances: the integrals are exact polynomials, so for meshes of O(10..1000) faces only
 * rounding remains, a few hundred ulps at most: 1e-12 relative (1e-10 for a mesh 100 sizes
 * away from the origin, where subtracting the reference point costs about 2 digits). */
#include <string.h>

#include "comply/mesh.h"
#include "core/cm_math.h"
#include "test.h"

/* box a x b x c: V = abc, I = V diag(b^2 + c^2, a^2 + c^2, a^2 + b^2) / 12, centred com */
static void test_box(void) {
  const double s[3] = {0.2, 0.5, 1.3};
  for (int d = 1; d <= 4; d++) {
    cmMesh* m = cm_mesh_box(s, d);
    cmMassProperties mp;
    CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
    double V = s[0] * s[1] * s[2];
    CHECK_REL(mp.volume, V, 1e-12);
    CHECK_REL(mp.area, 2 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]), 1e-12);
    for (int k = 0; k < 3; k++)
      CHECK(fabs(mp.com[k]) < 1e-14);
    CHECK_REL(mp.inertia[0], V * (s[1] * s[1] + s[2] * s[2]) / 12, 1e-12);
    CHECK_REL(mp.inertia[4], V * (s[0] * s[0] + s[2] * s[2]) / 12, 1e-12);
    CHECK_REL(mp.inertia[8], V * (s[0] * s[0] + s[1] * s[1]) / 12, 1e-12);
    CHECK(fabs(mp.inertia[1]) + fabs(mp.inertia[2]) + fabs(mp.inertia[5]) < 1e-14 * mp.inertia[8]);
    cm_mesh_free(m);
  }
}

/* the same box rotated by R and translated by t: V unchanged, com = t, I = R I0 R^T (the
 * inertia about the com does not depend on t: no parallel-axis term may leak in) */
static void test_box_rotated_translated(void) {
  const double s[3] = {0.2, 0.5, 1.3};
  const double ts[2][3] = {{0.3, -0.7, 1.1}, {40.0, -25.0, 70.0}};
  const double tol[2] = {1e-12, 1e-10};
  double axis[3] = {1, 2, 3}, q[4], R[9];
  cm_v3_normalize(axis);
  cm_quat_from_axis_angle(q, axis, 0.7);
  cm_quat_to_mat(R, q);
  double V = s[0] * s[1] * s[2];
  double I0[9] = {V * (s[1] * s[1] + s[2] * s[2]) / 12, 0, 0, 0,
                  V * (s[0] * s[0] + s[2] * s[2]) / 12, 0, 0, 0,
                  V * (s[0] * s[0] + s[1] * s[1]) / 12};
  double Iw[9];
  cm_m3_rotate(Iw, R, I0);
  for (int c = 0; c < 2; c++) {
    cmMesh* m = cm_mesh_box(s, 3);
    for (int v = 0; v < m->nvert; v++) {
      double p[3];
      cm_m3_mulv(p, R, m->vert + 3 * v);
      cm_v3_add(m->vert + 3 * v, p, ts[c]);
    }
    cmMassProperties mp;
    CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
    CHECK_REL(mp.volume, V, tol[c]);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(mp.com[k], ts[c][k], tol[c] * 100);
    for (int k = 0; k < 9; k++)
      CHECK_NEAR(mp.inertia[k], Iw[k], tol[c] * Iw[8]);
    /* rotated tensor has real off-diagonal terms */
    CHECK(fabs(Iw[1]) > 1e-3 * Iw[8]);
    cm_mesh_free(m);
  }
}

/* the unit tetrahedron (0, e_x, e_y, e_z): V = 1/6, com = (1/4, 1/4, 1/4). From the simplex
 * moments int x^2 = 1/60, int xy = 1/120: about the com S_xx = 1/60 - V/16 = 1/160 and
 * S_xy = 1/120 - V/16 = -1/480, so I_xx = 2/160 = 1/80 and I_xy = 1/480. */
static void test_tetrahedron(void) {
  cmMesh* m = cm_mesh_new(4, 4);
  const double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const int f[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  memcpy(m->vert, v, sizeof v);
  memcpy(m->face, f, sizeof f);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  CHECK_REL(mp.volume, 1.0 / 6, 1e-14);
  for (int k = 0; k < 3; k++)
    CHECK_REL(mp.com[k], 0.25, 1e-14);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      CHECK_REL(mp.inertia[3 * i + j], i == j ? 1.0 / 80 : 1.0 / 480, 1e-13);
  CHECK_REL(mp.area, 1.5 + sqrt(3.0) / 2, 1e-14);

  /* inverted: the volume is reported negative and the call fails */
  for (int k = 0; k < 4; k++) {
    int t = m->face[3 * k + 1];
    m->face[3 * k + 1] = m->face[3 * k + 2];
    m->face[3 * k + 2] = t;
  }
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_ERR_MESH);
  CHECK_REL(mp.volume, -1.0 / 6, 1e-14);
  m->face[0] = 7;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_ERR_ARG);
  cm_mesh_free(m);

  /* the same tetrahedron with 996 unused vertices 1e6 m away (allowed, reported by the check):
   * its volume and centre as alone (the mean of every vertex as the products' reference point
   * gave -40 m^3, an "inverted" mesh, and the repair turned it inside out) */
  m = cm_mesh_new(1000, 4);
  memcpy(m->vert, v, sizeof v);
  memcpy(m->face, f, sizeof f);
  for (int i = 4; i < 1000; i++) {
    m->vert[3 * i] = 1e6 + i;
    m->vert[3 * i + 1] = 1e6;
    m->vert[3 * i + 2] = -1e6;
  }
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  CHECK_REL(mp.volume, 1.0 / 6, 1e-12);
  for (int k = 0; k < 3; k++)
    CHECK_REL(mp.com[k], 0.25, 1e-12);
  char err[256];
  cmMeshReport rep;
  CHECK(cm_mesh_check(m, "tet", &rep, err, sizeof err) == CM_OK && rep.unused_vert == 996);
  cm_mesh_free(m);
}

/* area vectors: sum_v a_v = sum_f A_f n_f = 0 for a closed surface; on a side of a box (normal
 * e, adjacent sides orthogonal to e) sum_{v on side} a_v . e = sum_{f on side} 3 A_f / 3 = side
 * area; an interior grid vertex of a side touches 6 triangles of area h_u h_v / 2 (the split
 * diagonals are parallel), so a_v = (6 h_u h_v / 2) / 3 e = h_u h_v e, the area of one cell */
static void test_area_vectors(void) {
  const double s[3] = {0.6, 0.9, 1.5};
  const int d = 3;
  cmMesh* m = cm_mesh_box(s, d);
  CHECK(cm_mesh_prepare(m) == CM_OK);
  double sum[3] = {0, 0, 0}, total = 0;
  for (int v = 0; v < m->nvert; v++)
    cm_v3_add(sum, sum, m->vert_areavec + 3 * v);
  for (int f = 0; f < m->nface; f++)
    total += m->face_area[f];
  CHECK(cm_v3_norm(sum) <= 1e-12 * total);
  CHECK_REL(total, 2 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]), 1e-13);
  for (int ax = 0; ax < 3; ax++)
    for (int sign = -1; sign <= 1; sign += 2) {
      double side = 0;
      int u = (ax + 1) % 3, w = (ax + 2) % 3, interior = 0;
      for (int v = 0; v < m->nvert; v++) {
        const double* p = m->vert + 3 * v;
        if (fabs(p[ax] - sign * s[ax] / 2) > 1e-14) continue;
        const double* a = m->vert_areavec + 3 * v;
        side += sign * a[ax];
        if (fabs(p[u]) < s[u] / 2 - 1e-9 && fabs(p[w]) < s[w] / 2 - 1e-9) {
          interior++;
          CHECK_REL(sign * a[ax], s[u] * s[w] / (d * d), 1e-12);
          CHECK(fabs(a[u]) + fabs(a[w]) < 1e-15);
        }
      }
      CHECK(interior == (d - 1) * (d - 1));
      CHECK_REL(side, s[u] * s[w], 1e-13);
    }
  /* face normals are unit and outward on the box */
  for (int f = 0; f < m->nface; f++) {
    const double* c = m->vert + 3 * m->face[3 * f];
    CHECK_NEAR(cm_v3_norm(m->face_normal + 3 * f), 1.0, 1e-15);
    CHECK(cm_v3_dot(m->face_normal + 3 * f, c) > 0);
  }
  /* a second prepare recomputes in place, identically */
  double a0 = m->vert_areavec[5];
  CHECK(cm_mesh_prepare(m) == CM_OK);
  CHECK(m->vert_areavec[5] == a0);
  cm_mesh_free(m);

  /* on a sphere the area vectors point outward and also sum to zero */
  cmMesh* sph = cm_mesh_icosphere(2.0, 3);
  CHECK(cm_mesh_prepare(sph) == CM_OK);
  double ssum[3] = {0, 0, 0}, stot = 0;
  int out = 1;
  for (int v = 0; v < sph->nvert; v++) {
    cm_v3_add(ssum, ssum, sph->vert_areavec + 3 * v);
    stot += cm_v3_norm(sph->vert_areavec + 3 * v);
    out &= cm_v3_dot(sph->vert_areavec + 3 * v, sph->vert + 3 * v) > 0;
  }
  CHECK(out);
  CHECK(cm_v3_norm(ssum) <= 1e-12 * stot);
  cm_mesh_free(sph);
}

static void test_new_copy(void) {
  cmMesh* m = cm_mesh_new(5, 3);
  CHECK(m && m->nvert == 5 && m->nface == 3 && m->face_normal == NULL);
  int zero = 1;
  for (int i = 0; i < 15; i++)
    zero &= m->vert[i] == 0;
  for (int i = 0; i < 9; i++)
    zero &= m->face[i] == 0;
  CHECK(zero);
  CHECK(cm_mesh_new(-1, 0) == NULL);
  cm_mesh_free(m);
  cm_mesh_free(NULL);

  const double s[3] = {1, 2, 3};
  cmMesh* b = cm_mesh_box(s, 2);
  cm_mesh_prepare(b);
  cmMesh* c = cm_mesh_copy(b);
  CHECK(c && c->vert != b->vert && c->vert_areavec != b->vert_areavec);
  CHECK(!memcmp(c->vert, b->vert, 3 * sizeof(double) * (size_t)b->nvert));
  CHECK(!memcmp(c->face, b->face, 3 * sizeof(int) * (size_t)b->nface));
  CHECK(!memcmp(c->face_area, b->face_area, sizeof(double) * (size_t)b->nface));
  CHECK(!memcmp(c->vert_areavec, b->vert_areavec, 3 * sizeof(double) * (size_t)b->nvert));
  c->vert[0] = 99;
  CHECK(b->vert[0] != 99);
  cm_mesh_free(b);
  cm_mesh_free(c);

  /* bad indices: prepare refuses instead of reading out of bounds */
  cmMesh* bad = cm_mesh_new(3, 1);
  bad->face[2] = 3;
  CHECK(cm_mesh_prepare(bad) == CM_ERR_ARG);
  cm_mesh_free(bad);
}

int main(void) {
  RUN(test_box);
  RUN(test_box_rotated_translated);
  RUN(test_tetrahedron);
  RUN(test_area_vectors);
  RUN(test_new_copy);
  return test_report();
}
