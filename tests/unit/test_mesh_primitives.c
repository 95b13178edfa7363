/* Primitive meshes: exact counts, topology (closed, manifold, oriented) and convergence of the
 * icosphere to the sphere. */
#include "comply/mesh.h"
#include "core/cm_math.h"
#include "test.h"

/* box(d): 6 d^2 + 2 vertices, 12 d^2 faces, 18 d^2 edges (Euler: V - E + F = 2), closed,
 * manifold, oriented, volume abc, area 2(ab + bc + ca) exactly up to rounding */
static void test_box_topology(void) {
  const double s[3] = {0.3, 0.5, 0.7};
  for (int d = 1; d <= 8; d++) {
    cmMesh* m = cm_mesh_box(s, d);
    CHECK(m != NULL);
    if (!m) continue;
    CHECK(m->nvert == 6 * d * d + 2);
    CHECK(m->nface == 12 * d * d);
    cmMeshReport r;
    char err[256] = "";
    CHECK(cm_mesh_check(m, "box", &r, err, sizeof err) == CM_OK);
    CHECK(r.nedge == 18 * d * d);
    CHECK(r.closed && r.manifold && r.oriented);
    CHECK(r.unused_vert == 0 && r.degenerate_face == 0 && r.boundary_edge == 0);
    CHECK_REL(r.volume, 0.3 * 0.5 * 0.7, 1e-13);
    CHECK_REL(r.area, 2 * (0.3 * 0.5 + 0.5 * 0.7 + 0.7 * 0.3), 1e-13);
    /* every vertex on the surface of the box */
    int on = 1;
    for (int v = 0; v < m->nvert; v++) {
      int face = 0;
      for (int k = 0; k < 3; k++)
        face |= fabs(fabs(m->vert[3 * v + k]) - s[k] / 2) < 1e-15;
      on &= face;
    }
    CHECK(on);
    cm_mesh_free(m);
  }
}

/* icosphere(r): 10 4^r + 2 vertices, 20 4^r faces, all vertices at the radius, closed and
 * oriented outward */
static void test_icosphere_topology(void) {
  for (int r = 0; r <= 5; r++) {
    cmMesh* m = cm_mesh_icosphere(0.25, r);
    CHECK(m != NULL);
    if (!m) continue;
    int p4 = 1 << (2 * r);
    CHECK(m->nvert == 10 * p4 + 2);
    CHECK(m->nface == 20 * p4);
    double maxdev = 0;
    for (int v = 0; v < m->nvert; v++) {
      double dev = fabs(cm_v3_norm(m->vert + 3 * v) - 0.25);
      if (dev > maxdev) maxdev = dev;
    }
    CHECK(maxdev < 1e-15);
    cmMeshReport rep;
    CHECK(cm_mesh_check(m, "sphere", &rep, NULL, 0) == CM_OK);
    CHECK(rep.nedge == 30 * p4 && rep.closed && rep.manifold && rep.oriented);
    /* outward: every face normal points away from the centre */
    int outward = 1;
    for (int f = 0; f < m->nface; f++) {
      const double* a = m->vert + 3 * m->face[3 * f];
      const double* b = m->vert + 3 * m->face[3 * f + 1];
      const double* c = m->vert + 3 * m->face[3 * f + 2];
      double e1[3], e2[3], n[3];
      cm_v3_sub(e1, b, a);
      cm_v3_sub(e2, c, a);
      cm_v3_cross(n, e1, e2);
      outward &= cm_v3_dot(n, a) > 0;
    }
    CHECK(outward);
    cm_mesh_free(m);
  }
}

/* an inscribed polyhedron: its volume is below 4/3 pi r^3 and the error shrinks with every
 * refinement, asymptotically by 4 (second order in the edge length, which halves); the inertia
 * is isotropic (icosahedral symmetry admits only multiples of the identity) and tends to
 * 2/5 m r^2 */
static void test_icosphere_convergence(void) {
  const double R = 1.5, Vs = 4.0 / 3.0 * CM_PI * R * R * R;
  double prev_err = INFINITY, prev_ierr = INFINITY;
  for (int r = 0; r <= 6; r++) {
    cmMesh* m = cm_mesh_icosphere(R, r);
    cmMassProperties mp;
    CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
    double err = Vs - mp.volume;
    CHECK(err > 0);
    CHECK(err < prev_err);
    if (r >= 2) CHECK(prev_err / err > 3.5 && prev_err / err < 4.5);
    double i_ratio = mp.inertia[0] / (mp.volume * R * R);
    double ierr = fabs(i_ratio - 0.4);
    CHECK(ierr < prev_ierr);
    for (int i = 0; i < 3; i++) {
      CHECK_REL(mp.inertia[4 * i], mp.inertia[0], 1e-12);
      for (int j = 0; j < 3; j++)
        if (i != j) CHECK(fabs(mp.inertia[3 * i + j]) < 1e-12 * mp.inertia[0]);
      CHECK(fabs(mp.com[i]) < 1e-14 * R);
    }
    CHECK(mp.area < 4 * CM_PI * R * R);
    prev_err = err;
    prev_ierr = ierr;
    cm_mesh_free(m);
  }
  /* at refine 6 (40962 vertices) the relative volume error is about 1e-4 */
  CHECK(prev_err / Vs < 2e-4);
  CHECK(prev_ierr < 2e-4);
}

static void test_bad_arguments(void) {
  const double s[3] = {1, 1, 1}, z[3] = {1, 0, 1}, n[3] = {1, NAN, 1};
  CHECK(cm_mesh_icosphere(0, 1) == NULL);
  CHECK(cm_mesh_icosphere(-1, 1) == NULL);
  CHECK(cm_mesh_icosphere(NAN, 1) == NULL);
  CHECK(cm_mesh_icosphere(1, -1) == NULL);
  CHECK(cm_mesh_icosphere(1, 9) == NULL);
  CHECK(cm_mesh_box(s, 0) == NULL);
  CHECK(cm_mesh_box(s, 1025) == NULL);
  /* the largest primitive is the finest icosphere: a box of 331 divisions would be larger */
  CHECK(cm_mesh_box(s, CM_BOX_MAX_DIVISIONS + 1) == NULL);
  CHECK(12 * CM_BOX_MAX_DIVISIONS * CM_BOX_MAX_DIVISIONS <= CM_PRIMITIVE_MAX_FACES);
  CHECK(12 * (CM_BOX_MAX_DIVISIONS + 1) * (CM_BOX_MAX_DIVISIONS + 1) > CM_PRIMITIVE_MAX_FACES);
  CHECK(20 * 65536 == CM_PRIMITIVE_MAX_FACES); /* 20 4^8 */
  CHECK(cm_mesh_box(z, 1) == NULL);
  CHECK(cm_mesh_box(n, 1) == NULL);
  CHECK(cm_mesh_box(NULL, 1) == NULL);
}

int main(void) {
  RUN(test_box_topology);
  RUN(test_icosphere_topology);
  RUN(test_icosphere_convergence);
  RUN(test_bad_arguments);
  return test_report();
}
