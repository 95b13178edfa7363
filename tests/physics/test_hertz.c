/* Hertz contact (issue 15): an elastic Neo-Hookean sphere pressed onto a rigid plane, in the
 * implicit solve with a stiff area_compliant contact, against Hertz's half-space solution.
 *
 * Hertz (Johnson, Contact Mechanics, ch. 4), a sphere of radius R, modulus E, Poisson nu on a
 * rigid plane: E* = E / (1 - nu^2), the load F gives the contact radius a, the peak pressure p0
 * and the approach d of distant points
 *
 *     a^3 = 3 F R / (4 E*),   p0 = 3 F / (2 pi a^2),   d = a^2 / R,   F = 4/3 E* R^1/2 d^3/2.
 *
 * The approach is relative to "distant points" of a half-space. A finite body adds to it the
 * displacement of the far field, O(a/R) of d (a point load's Boussinesq displacement at the
 * depth R where the hemisphere below is held is 0.73 a/R of d at nu = 0.3), which does not
 * vanish with refinement. So the test measures the approach up to a point on the axis at depth
 * z below the pole (z a few a: inside the Hertz field, far from the held face), where Hertz's
 * stresses on the axis (Johnson eq. 3.45 with the Hertz pressure)
 *
 *     sigma_z = -p0 / (1 + s^2),
 *     sigma_r = sigma_t = -p0 [(1 + nu)(1 - s atan(1/s)) - 1 / (2 (1 + s^2))],   s = z / a,
 *
 * give the compression of the axis between the surface and depth z, C(z) = -int_0^z eps_zz,
 * eps_zz = (sigma_z - 2 nu sigma_r) / E (C(inf) = d: checked below by quadrature). The
 * simulated compression is the plane's travel minus the displacement of the axis point at z
 * (interpolated in its tet); the Hertz approach estimated from it is d_est = that + (d - C(z))
 * with d from the simulated F, and the error is (d_est - d) / d. The contact's own compliance
 * p0 / ka is kept below 1e-4 of d by ka.
 *
 * The loading is quasi-static: no gravity, the plane fixed where the sphere's pole, resting on
 * it, would have moved up by the plane's travel, and steps of 1 s, so that the nodes' inertia
 * (M / h^2) is 1e-7 of the elements' stiffness; step_damping 0.5 makes the law act at the end of
 * each step (f + (1/2 + s) h ddist / c, docs/contact-laws.md), so a converged step is the static
 * solution of its contact set; the run ends when the force no longer changes.
 *
 * The meshes: tests/data/tet/hertz_hemi_N.msh (make_hertz_meshes.py, gmsh), the lower half of
 * a unit ball, elements of a/N near the pole (a = 0.05 R, up to 1.5 a from it), growing to R/5.
 * The flat face is held. */
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

/* -eps_zz on the axis of the Hertz field at depth z (p0 = 1, a = 1, E = 1) */
static double hertz_axis_strain(double s, double nu) {
  double q = 1 / (1 + s * s);
  double sz = -q;
  double sr = s > 0 ? -((1 + nu) * (1 - s * atan(1 / s)) - 0.5 * q) : -((1 + nu) - 0.5);
  return -(sz - 2 * nu * sr);
}

/* the compression C(z) of the axis, in units of p0 a / E: Simpson on [0, s] */
static double hertz_axis_compression(double s, double nu) {
  int n = 4000;
  double h = s / n, sum = hertz_axis_strain(0, nu) + hertz_axis_strain(s, nu);
  for (int i = 1; i < n; i++)
    sum += (i % 2 ? 4 : 2) * hertz_axis_strain(i * h, nu);
  return sum * h / 3;
}

/* the displacement at the rest point x of the body's nodes (linear in the tet holding x) */
static int interp_disp(const cmModel* m, const cmData* d, const double x[3], double u[3]) {
  for (int t = 0; t < m->ntet; t++) {
    const int* tn = m->tet_node + 4 * t;
    const double* x0 = m->node_pos0 + 3 * tn[0];
    const double* Dinv = m->tet_dminv + 9 * t; /* row-major 3x3 */
    double r[3], b[4];
    cm_v3_sub(r, x, x0);
    for (int i = 0; i < 3; i++)
      b[i + 1] = Dinv[3 * i] * r[0] + Dinv[3 * i + 1] * r[1] + Dinv[3 * i + 2] * r[2];
    b[0] = 1 - b[1] - b[2] - b[3];
    if (b[0] < -1e-12 || b[1] < -1e-12 || b[2] < -1e-12 || b[3] < -1e-12) continue;
    cm_v3_set(u, 0, 0, 0);
    for (int k = 0; k < 4; k++)
      for (int c = 0; c < 3; c++)
        u[c] += b[k] * (d->node_pos[3 * tn[k] + c] - m->node_pos0[3 * tn[k] + c]);
    return 1;
  }
  return 0;
}

typedef struct {
  double F, a_hertz, d_hertz, err[3], area_radius;
  int nodes, steps;
} HertzRun;

/* the sphere (radius R = 2 cm, E = 1 MPa, nu = 0.3) on the mesh hertz_hemi_<n>.msh, pressed by
 * `travel` (m) */
static HertzRun hertz_run(int n, double travel) {
  const double R = 0.02, E = 1e6, nu = 0.3, Es = E / (1 - nu * nu);
  HertzRun out;
  memset(&out, 0, sizeof out);
  char path[512];
  snprintf(path, sizeof path, "%s/tests/data/tet/hertz_hemi_%d.msh", CM_SOURCE_DIR, n);
  cmBodyDef g = scene_ground();
  g.position[2] = -R + travel;
  cmBodyDef b = cm_body_def_default();
  b.name = "ball";
  b.motion = CM_MOTION_DEFORMABLE;
  b.geom.type = CM_GEOM_MESH;
  b.geom.file = path;
  b.geom.scale = R;
  b.deformable.material = CM_MATERIAL_NEO_HOOKEAN;
  b.deformable.young = E;
  b.deformable.poisson = nu;
  b.deformable.has_fixed = 1;
  cm_v3_set(b.deformable.fixed_min, -1, -1, -1e-9 * R);
  cm_v3_set(b.deformable.fixed_max, 1, 1, 1);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.step_damping = 0.5;
  /* p0 / ka = 3e-4 d: p0 = 2 E* a / (pi R), d = a^2 / R, ka = 2e3 E* / a */
  r.ka = 2e3 * Es / (0.05 * R);
  /* quasi-static: steps of 1 s without gravity (until 2026-12-04 these options were set on a
   * scene that was then not used, and leaked: the runs had the default 1 ms steps) */
  cmScene* s = scene_on_ground("hertz", &g, &b, &r);
  s->opt.timestep = 1;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmModel* m = scene_compile(s);
  if (!m) return out;
  out.nodes = m->nnode;
  cmData* d = cm_data_new(m);
  double F = 0, Fprev = -1;
  int k;
  for (k = 0; k < 40 && fabs(F - Fprev) > 1e-4 * F; k++) {
    CHECK(cm_step(m, d) == CM_OK);
    Fprev = F;
    F = 0;
    for (int c = 0; c < d->ncontact; c++)
      F += d->contact[c].force;
    if (getenv("HERTZ_VERBOSE")) printf("    step %d: F %.8e, %d contacts\n", k, F, d->ncontact);
  }
  out.steps = k;
  CHECK(d->warning[CM_WARN_SOLVER] == 0);
  double area = 0;
  for (int c = 0; c < d->ncontact; c++)
    if (d->contact[c].force > 0) area += d->contact[c].area;
  out.area_radius = sqrt(area / CM_PI);
  out.F = F;
  double a = cbrt(3 * F * R / (4 * Es)), dH = a * a / R, p0 = 3 * F / (2 * CM_PI * a * a);
  out.a_hertz = a;
  out.d_hertz = dH;
  for (int j = 0; j < 3; j++) {
    double z = (j + 1) * a, x[3] = {0, 0, -R + z}, u[3] = {0, 0, 0};
    CHECK(interp_disp(m, d, x, u));
    double C = travel - u[2];                                   /* simulated compression */
    double CH = hertz_axis_compression(z / a, nu) * p0 * a / E; /* Hertz's */
    out.err[j] = (C - CH) / dH;
  }
  cm_data_free(d);
  cm_model_free(m);
  return out;
}

/* the quadrature: C(inf) = d = pi a p0 / (2 E*) (to the 1/z tail beyond 1e3 a: 6e-4 of d) */
static void test_axis_compression(void) {
  const double nu = 0.3;
  double d = CM_PI / 2 * (1 - nu * nu);
  CHECK_NEAR(hertz_axis_compression(1e3, nu) / d, 1, 1e-3);
  CHECK(hertz_axis_compression(2, nu) / d > 0.6 && hertz_axis_compression(2, nu) / d < 0.7);
}

static HertzRun full6;  /* test_hertz's a/6 run, for test_load_curve */
static int nlevels = 2; /* a/4, a/6; --fine: and a/8 (14 s more) */

static void test_hertz(void) {
  const double R = 0.02, a = 0.05 * R, travel = a * a / R;
  const int levels[] = {4, 6, 8};
  double e1[3], e2[3];
  for (int i = 0; i < nlevels; i++) {
    HertzRun h = hertz_run(levels[i], travel);
    printf("  a/%d: %d nodes, %d steps, F %.5e N, Hertz a %.4e m (contact area's radius %.4e), "
           "d %.4e m (plane travel %.4f d); approach error at z = a, 2a, 3a: %+.4f %+.4f %+.4f "
           "(force error at 2a %+.4f)\n",
           levels[i], h.nodes, h.steps, h.F, h.a_hertz, h.area_radius, h.d_hertz,
           travel / h.d_hertz, h.err[0], h.err[1], h.err[2], pow(1 + h.err[1], 1.5) - 1);
    if (levels[i] == 6) full6 = h;
    e1[i] = h.err[0];
    e2[i] = h.err[1];
    /* the contact's edge lies between a node in contact and one out: within an element */
    CHECK(fabs(h.area_radius - h.a_hertz) < h.a_hertz / levels[i]);
  }
  /* converging with the element size near the contact */
  int l = nlevels - 1;
  for (int i = 1; i < nlevels; i++) {
    CHECK(fabs(e1[i]) < fabs(e1[i - 1]));
    CHECK(fabs(e2[i]) < fabs(e2[i - 1]));
  }
  CHECK(fabs(e1[l]) < 0.002 && fabs(e2[l]) < 0.015);
}

/* the force against the approach at two loads (the a/6 mesh, plane travels d0 and d0 / 2,
 * d0 = (0.05 R)^2 / R): F ~ d^n with n = 3/2, and F / (4/3 E* R^1/2 d^3/2) = 1, d the approach
 * estimated at z = a (the contact at half load has elements of a / 4.2; on the a/4 mesh, a / 2.8,
 * F / Hertz is 1.0136 there) */
static void test_load_curve(void) {
  const double R = 0.02, E = 1e6, nu = 0.3, Es = E / (1 - nu * nu), d0 = 0.05 * R * 0.05 * R / R;
  if (full6.F <= 0) full6 = hertz_run(6, d0);
  HertzRun half = hertz_run(6, d0 / 2);
  double dA = full6.d_hertz * (1 + full6.err[0]), dB = half.d_hertz * (1 + half.err[0]);
  double n = log(full6.F / half.F) / log(dA / dB);
  double kA = full6.F / (4.0 / 3 * Es * sqrt(R) * pow(dA, 1.5));
  double kB = half.F / (4.0 / 3 * Es * sqrt(R) * pow(dB, 1.5));
  printf("  F %.5e N at d %.5e m, F %.5e N at d %.5e m: exponent %.4f, F / Hertz %.4f and %.4f\n",
         full6.F, dA, half.F, dB, n, kA, kB);
  CHECK_NEAR(n, 1.5, 0.02);
  CHECK_NEAR(kA, 1, 0.01);
  CHECK_NEAR(kB, 1, 0.01);
}

/* physics_test_hertz --fine: the a/8 mesh too (the table of docs/deformable.md) */
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--fine") == 0) nlevels = 3;
  RUN(test_axis_compression);
  RUN_LONG(test_hertz);
  RUN_LONG(test_load_curve);
  return test_report();
}
