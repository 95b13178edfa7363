/* Parameter advice (comply/advise.h): every formula against hand-computed values, the Poisson
 * factor against Lame's constants, the contact-time restitution and duration against a direct
 * RK4 integration of the law that never pulls, the inverse against a bisection, and every
 * validation error. */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "test.h"

#define PI 3.14159265358979323846

static char err[512];

/* the call failed with CM_ERR_ARG and a message containing `name` */
#define CHECK_ERR(call, name)                                                                      \
  do {                                                                                             \
    err[0] = 0;                                                                                    \
    CHECK((call) == CM_ERR_ARG);                                                                   \
    CHECK(strstr(err, name) != NULL);                                                              \
  } while (0)

static void test_ka_pressure(void) {
  double ka = 0;
  CHECK(cm_advise_ka_pressure(1e6, 1e-4, &ka, err, sizeof err) == CM_OK);
  CHECK_REL(ka, 1e10, 1e-15);
  CHECK(cm_advise_ka_pressure(2.5e5, 5e-5, &ka, err, sizeof err) == CM_OK);
  CHECK_REL(ka, 5e9, 1e-15);
  /* validation: output untouched on error */
  ka = -7;
  CHECK_ERR(cm_advise_ka_pressure(0, 1e-4, &ka, err, sizeof err), "pmax");
  CHECK(ka == -7);
  CHECK_ERR(cm_advise_ka_pressure(-1, 1e-4, &ka, err, sizeof err), "pmax");
  CHECK_ERR(cm_advise_ka_pressure(NAN, 1e-4, &ka, err, sizeof err), "pmax");
  CHECK_ERR(cm_advise_ka_pressure(INFINITY, 1e-4, &ka, err, sizeof err), "pmax");
  CHECK_ERR(cm_advise_ka_pressure(1e6, 0, &ka, err, sizeof err), "delta_max");
  CHECK_ERR(cm_advise_ka_pressure(1e6, -1e-3, &ka, err, sizeof err), "delta_max");
  CHECK_ERR(cm_advise_ka_pressure(1e6, NAN, &ka, err, sizeof err), "delta_max");
  CHECK(strstr(err, "> 0") != NULL);
  /* overflow of the quotient */
  CHECK(cm_advise_ka_pressure(1e300, 1e-300, &ka, err, sizeof err) == CM_ERR_ARG);
  /* NULL message buffer is allowed */
  CHECK(cm_advise_ka_pressure(0, 1, &ka, NULL, 0) == CM_ERR_ARG);
}

static cmAdviseMaterial material(double E, double L, double W) {
  cmAdviseMaterial m = cm_advise_material_default();
  m.young = E;
  m.thickness = L;
  m.patch_width = W;
  return m;
}

/* the default ka of the area_compliant law is rho 20, E 5 MPa, Le 2 mm */
static void test_default_ka(void) {
  cmAdviseMaterial m = cm_advise_material_default();
  CHECK(m.rho == 20 && m.poisson == 0 && m.shape == CM_ADVISE_SHAPE_AUTO && m.patch_width == 0);
  m.young = 5e6;
  m.thickness = 0.002;
  cmAdviseKa r;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK_REL(r.ka, 5e10, 1e-15); /* 20 * 5e6 / 0.002 by hand */
  CHECK_REL(r.ka, cm_rule_def_default().ka, 1e-15);
  CHECK(r.shape == CM_ADVISE_SHAPE_THIN && r.shape_inferred);
  CHECK(r.le == 0.002 && r.modulus_factor == 1.0 && r.e_eff == 5e6 && r.rho == 20);
  CHECK(r.ka == r.ka_nu0);
  CHECK(r.notes == CM_ADVISE_NOTE_NO_PATCH);
}

static void test_poisson_factors(void) {
  /* by hand: 0.55 / (1.45 * 0.1) = 3.7931 */
  CHECK_NEAR(cm_advise_confined_factor(0.45), 3.793, 5e-4);
  CHECK_REL(cm_advise_confined_factor(0.45), 0.55 / 0.145, 1e-14);
  CHECK(cm_advise_confined_factor(0.0) == 1.0);
  CHECK_REL(cm_advise_half_space_factor(0.45), 1.0 / (1.0 - 0.2025), 1e-14);
  CHECK(cm_advise_half_space_factor(0.0) == 1.0);
  /* independently: the confined modulus is lambda + 2 mu (Lame) */
  for (double nu = 0.0; nu < 0.5; nu += 0.05) {
    double E = 7e6;
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    CHECK_REL(E * cm_advise_confined_factor(nu), lambda + 2 * mu, 1e-12);
    /* and the plane-strain modulus E / (1 - nu^2) = 4 mu (lambda + mu) / (lambda + 2 mu) */
    CHECK_REL(E * cm_advise_half_space_factor(nu), 4 * mu * (lambda + mu) / (lambda + 2 * mu),
              1e-12);
  }
}

static void test_ka_poisson(void) {
  /* thin layer, nu = 0.45: ka larger by the confined factor, the ratio of the nu = 0 ka drops */
  cmAdviseMaterial m = material(5e6, 0.002, 0.02);
  m.poisson = 0.45;
  cmAdviseKa r;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.shape == CM_ADVISE_SHAPE_THIN && r.shape_inferred);
  CHECK_REL(r.modulus_factor, 0.55 / 0.145, 1e-14);
  CHECK_REL(r.ka, 5e10 * 0.55 / 0.145, 1e-14);
  CHECK_REL(r.ka_nu0, 5e10, 1e-15);
  CHECK(r.ka > r.ka_nu0);
  CHECK(r.notes & CM_ADVISE_NOTE_CONFINED);
  /* the defining relation: deltaB / delta = (p Le / E_eff) / (p / ka) = rho */
  double p = 1e5;
  CHECK_REL((p * r.le / r.e_eff) / (p / r.ka), 20.0, 1e-14);
  /* compact, nu = 0.3: half-space modulus */
  m = material(1e9, 0.1, 0.01);
  m.poisson = 0.3;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.shape == CM_ADVISE_SHAPE_COMPACT);
  CHECK_REL(r.ka, 20 * 1e9 / 0.91 / 0.01, 1e-14);
  CHECK(r.notes & CM_ADVISE_NOTE_HALF_SPACE);
  /* slender: nu changes nothing */
  m.shape = CM_ADVISE_SHAPE_SLENDER;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.modulus_factor == 1.0 && r.le == 0.1 && !r.shape_inferred);
  CHECK_REL(r.ka, 20 * 1e9 / 0.1, 1e-14);
  CHECK(r.notes & CM_ADVISE_NOTE_SLENDER_NU);
}

static void test_ka_shapes(void) {
  cmAdviseKa r;
  /* inferred: thin below L = W, compact from L = W on; Le = min(L, W) continuous */
  cmAdviseMaterial m = material(1e7, 0.005, 0.01);
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.shape == CM_ADVISE_SHAPE_THIN && r.le == 0.005 && r.notes == 0);
  CHECK_REL(r.ka, 20 * 1e7 / 0.005, 1e-14);
  m.thickness = 0.05;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.shape == CM_ADVISE_SHAPE_COMPACT && r.le == 0.01 && r.notes == 0);
  CHECK_REL(r.ka, 20 * 1e7 / 0.01, 1e-14);
  double below, at;
  m.thickness = 0.01 * (1 - 1e-12);
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  below = r.ka;
  CHECK(r.shape == CM_ADVISE_SHAPE_THIN);
  m.thickness = 0.01;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  at = r.ka;
  CHECK(r.shape == CM_ADVISE_SHAPE_COMPACT);
  CHECK_REL(below, at, 1e-11);
  /* given shapes: Le from the table, a note when the sizes contradict the shape */
  m = material(1e7, 0.05, 0.01);
  m.shape = CM_ADVISE_SHAPE_THIN;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.le == 0.05 && !r.shape_inferred && (r.notes & CM_ADVISE_NOTE_SHAPE_MISMATCH));
  m = material(1e7, 0.002, 0.01);
  m.shape = CM_ADVISE_SHAPE_COMPACT;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.le == 0.01 && (r.notes & CM_ADVISE_NOTE_SHAPE_MISMATCH));
  m.shape = CM_ADVISE_SHAPE_SLENDER;
  m.thickness = 0.3;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.le == 0.3 && r.notes == 0);
  /* rho */
  m = material(1e7, 0.002, 0);
  m.rho = 10;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK_REL(r.ka, 10 * 1e7 / 0.002, 1e-14);
  CHECK(!(r.notes & CM_ADVISE_NOTE_RHO_RANGE));
  m.rho = 50;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.notes & CM_ADVISE_NOTE_RHO_RANGE);
  m.rho = 5;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.notes & CM_ADVISE_NOTE_RHO_RANGE);
}

static void test_ka_material_errors(void) {
  cmAdviseKa r;
  memset(&r, 0, sizeof r);
  r.ka = -7;
  cmAdviseMaterial m = material(0, 0.002, 0);
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "young");
  CHECK(r.ka == -7);
  m.young = -5e6;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "young");
  m.young = NAN;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "young");
  m = material(5e6, 0, 0);
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "thickness");
  m.thickness = INFINITY;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "thickness");
  m = material(5e6, 0.002, -0.01);
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "patch_width");
  m.patch_width = NAN;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "patch_width");
  m = material(5e6, 0.002, 0);
  m.rho = 0;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "rho");
  m.rho = -20;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "rho");
  m.rho = 20;
  m.poisson = 0.5;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "poisson");
  CHECK(strstr(err, "incompressible") != NULL && strstr(err, "[0, 0.5)") != NULL);
  m.poisson = 0.6;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "poisson");
  m.poisson = -0.1;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "poisson");
  m.poisson = NAN;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "poisson");
  m.poisson = 0.4999;
  CHECK(cm_advise_ka_material(&m, &r, err, sizeof err) == CM_OK);
  CHECK(r.ka > 1000 * r.ka_nu0);
  m.poisson = 0;
  r.ka = -7;
  m.shape = CM_ADVISE_SHAPE_COMPACT;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "patch_width");
  m.shape = (cmAdviseShape)9;
  CHECK_ERR(cm_advise_ka_material(&m, &r, err, sizeof err), "shape");
  CHECK(r.ka == -7);
}

static void test_shape_names(void) {
  cmAdviseShape s = CM_ADVISE_SHAPE_AUTO;
  CHECK(cm_advise_shape_parse("thin", &s) == 0 && s == CM_ADVISE_SHAPE_THIN);
  CHECK(cm_advise_shape_parse("compact", &s) == 0 && s == CM_ADVISE_SHAPE_COMPACT);
  CHECK(cm_advise_shape_parse("slender", &s) == 0 && s == CM_ADVISE_SHAPE_SLENDER);
  CHECK(cm_advise_shape_parse("auto", &s) == 0 && s == CM_ADVISE_SHAPE_AUTO);
  CHECK(cm_advise_shape_parse("thi", &s) == -1);
  CHECK(cm_advise_shape_parse("thinner", &s) == -1);
  CHECK(cm_advise_shape_parse("", &s) == -1);
  CHECK(cm_advise_shape_parse(NULL, &s) == -1);
  CHECK(strcmp(cm_advise_shape_name(CM_ADVISE_SHAPE_COMPACT), "compact") == 0);
  for (unsigned bit = CM_ADVISE_NOTE_RHO_RANGE; bit <= CM_ADVISE_NOTE_SLENDER_NU; bit <<= 1)
    CHECK(strlen(cm_advise_note_text(bit)) > 20);
  CHECK(strcmp(cm_advise_note_text(3), "") == 0);
}

static void test_damping(void) {
  double w = 0;
  CHECK(cm_advise_omega(1e4, 1.0, &w, err, sizeof err) == CM_OK);
  CHECK_REL(w, 100.0, 1e-15);
  CHECK(cm_advise_omega(2e6, 0.5, &w, err, sizeof err) == CM_OK);
  CHECK_REL(w, 2000.0, 1e-15);
  CHECK_ERR(cm_advise_omega(0, 1, &w, err, sizeof err), "ktot");
  CHECK_ERR(cm_advise_omega(NAN, 1, &w, err, sizeof err), "ktot");
  CHECK_ERR(cm_advise_omega(1e4, -1, &w, err, sizeof err), "mass");
  CHECK_ERR(cm_advise_omega(1e4, 0, &w, err, sizeof err), "mass");

  cmAdviseDamping d;
  /* 2 zeta / w = 2 * 0.1 / 100 */
  CHECK(cm_advise_stiffness_damping(0.1, 100, 0, &d, err, sizeof err) == CM_OK);
  CHECK_REL(d.stiffness_damping, 0.002, 1e-15);
  CHECK(d.timestep == 0 && d.omega_h == 0 && !d.unresolved && !d.below_half_step);
  /* the damping ratio it gives: D / (2 sqrt(K M)) with D = tau K, w = sqrt(K/M) */
  double K = 1e4, M = 1;
  CHECK_REL(d.stiffness_damping * K / (2 * sqrt(K * M)), 0.1, 1e-14);
  /* resolved, above h/2 */
  CHECK(cm_advise_stiffness_damping(0.1, 100, 1e-3, &d, err, sizeof err) == CM_OK);
  CHECK_REL(d.omega_h, 0.1, 1e-14);
  CHECK(!d.unresolved && !d.below_half_step);
  /* unresolved, below h/2: 2 * 0.1 / 2000 = 1e-4 < 5e-4 */
  CHECK(cm_advise_stiffness_damping(0.1, 2000, 1e-3, &d, err, sizeof err) == CM_OK);
  CHECK_REL(d.omega_h, 2.0, 1e-14);
  CHECK(d.unresolved && d.below_half_step);
  /* resolved but below h/2: 2 * 0.01 / 500 = 4e-5 < 5e-4 */
  CHECK(cm_advise_stiffness_damping(0.01, 500, 1e-3, &d, err, sizeof err) == CM_OK);
  CHECK(!d.unresolved && d.below_half_step);
  CHECK_ERR(cm_advise_stiffness_damping(0, 100, 0, &d, err, sizeof err), "zeta");
  CHECK_ERR(cm_advise_stiffness_damping(-0.1, 100, 0, &d, err, sizeof err), "zeta");
  CHECK_ERR(cm_advise_stiffness_damping(NAN, 100, 0, &d, err, sizeof err), "zeta");
  CHECK_ERR(cm_advise_stiffness_damping(0.1, 0, 0, &d, err, sizeof err), "omega");
  CHECK_ERR(cm_advise_stiffness_damping(0.1, INFINITY, 0, &d, err, sizeof err), "omega");
  CHECK_ERR(cm_advise_stiffness_damping(0.1, 100, -1e-3, &d, err, sizeof err), "timestep");
  CHECK_ERR(cm_advise_stiffness_damping(0.1, 100, NAN, &d, err, sizeof err), "timestep");
  CHECK_ERR(cm_advise_stiffness_damping(1e300, 1e-300, 0, &d, err, sizeof err), "2 zeta");
}

static void test_restitution(void) {
  double e = 0, s = 0;
  CHECK(cm_advise_restitution(1.0, &e, err, sizeof err) == CM_OK);
  CHECK_REL(e, 1.0 / 3.0, 1e-15); /* 0.5 / (0.5 + 1) */
  CHECK(cm_advise_restitution(0.5, &e, err, sizeof err) == CM_OK);
  CHECK(e == 0.5);
  CHECK(cm_advise_restitution(2.0, &e, err, sizeof err) == CM_OK);
  CHECK_REL(e, 0.2, 1e-15);
  CHECK(cm_advise_restitution(0.0, &e, err, sizeof err) == CM_OK);
  CHECK(e == 1.0);
  CHECK(cm_advise_step_damping_for_restitution(1.0 / 3.0, &s, err, sizeof err) == CM_OK);
  CHECK_NEAR(s, 1.0, 1e-15);
  CHECK(cm_advise_step_damping_for_restitution(0.5, &s, err, sizeof err) == CM_OK);
  CHECK(s == 0.5);
  CHECK(cm_advise_step_damping_for_restitution(1.0, &s, err, sizeof err) == CM_OK);
  CHECK(s == 0.0);
  for (double e0 = 0.05; e0 < 1; e0 += 0.1) {
    CHECK(cm_advise_step_damping_for_restitution(e0, &s, err, sizeof err) == CM_OK);
    CHECK(cm_advise_restitution(s, &e, err, sizeof err) == CM_OK);
    CHECK_REL(e, e0, 1e-14);
  }
  CHECK_ERR(cm_advise_restitution(-0.1, &e, err, sizeof err), "step_damping");
  CHECK_ERR(cm_advise_restitution(NAN, &e, err, sizeof err), "step_damping");
  CHECK_ERR(cm_advise_restitution(INFINITY, &e, err, sizeof err), "step_damping");
  CHECK_ERR(cm_advise_step_damping_for_restitution(0, &s, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_step_damping_for_restitution(-0.5, &s, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_step_damping_for_restitution(1.01, &s, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_step_damping_for_restitution(NAN, &s, err, sizeof err), "restitution");
  CHECK(strstr(err, "(0, 1]") != NULL);
  CHECK_ERR(cm_advise_step_damping_for_restitution(1e-320, &s, err, sizeof err), "restitution");
}

/* The contact_time law as comply integrates it: m x'' = F, F = max(0, -(D x' + K x)) with
 * x < 0 the penetration (the force never pulls), from x = 0, x' = -1 (entering), integrated with
 * RK4 (step 1e-5 of the undamped period / 2 pi) while the law pushes: the contact ends when
 * K x + D x' returns to 0 (interpolated in the step). Returns the exit speed over the entry
 * speed, and the duration in *dur. */
static double rk4_restitution(double m, double K, double D, double* dur) {
  double x = 0, v = -1, h = 1e-5 * sqrt(m / K), t = 0;
  for (long i = 0; i < 100000000; i++) {
    double k1x = v, k1v = -(D * v + K * x) / m;
    double k2x = v + 0.5 * h * k1v, k2v = -(D * k2x + K * (x + 0.5 * h * k1x)) / m;
    double k3x = v + 0.5 * h * k2v, k3v = -(D * k3x + K * (x + 0.5 * h * k2x)) / m;
    double k4x = v + h * k3v, k4v = -(D * k4x + K * (x + h * k3x)) / m;
    double xn = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    double vn = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    double f0 = -(D * v + K * x), f1 = -(D * vn + K * xn); /* the push, > 0 in contact */
    if (i > 0 && f1 <= 0) {
      /* the force reaches 0 within the step: interpolate linearly in the force (O(h^2)) */
      double a = f0 / (f0 - f1);
      *dur = t + a * h;
      return v + a * (vn - v);
    }
    x = xn;
    v = vn;
    t += h;
  }
  return -1;
}

/* the closed form of the non-pulling law in an independent form: the phase
 * s* = pi - atan2(2 zeta sqrt(1-zeta^2), 1 - 2 zeta^2) (zeta < 1) */
static double clamped_e(double er) {
  double z = -log(er) / PI, sq = sqrt(1 - z * z);
  return exp(-z * (PI - atan2(2 * z * sq, 1 - 2 * z * z)) / sq);
}

static void test_contact_time_rk4(void) {
  /* the contact_time law: K = m (pi/T)^2, D = -2 m ln(e_r) / T; e_r < exp(-pi) is overdamped */
  const double ers[] = {0.95, 0.7, 0.5, 0.2, 0.1, 0.05, exp(-PI), 0.01, 1e-4};
  const double ms[] = {1.0, 0.3};
  const double Ts[] = {1.0, 0.01};
  for (size_t i = 0; i < sizeof ers / sizeof ers[0]; i++)
    for (size_t j = 0; j < 2; j++) {
      double m = ms[j], T = Ts[j];
      double K = m * (PI / T) * (PI / T), D = -2 * m * log(ers[i]) / T;
      double e = -1, ratio = -1, dur = -1;
      CHECK(cm_advise_contact_time_restitution(ers[i], &e, err, sizeof err) == CM_OK);
      CHECK(cm_advise_contact_time_duration(ers[i], &ratio, err, sizeof err) == CM_OK);
      double e_rk4 = rk4_restitution(m, K, D, &dur);
      /* RK4 at h = 1e-5 sqrt(m / K): its error ~1e-11 (measured 6.8e-12 and 1.1e-11 worst; it
       * allowed 1e-7) */
      CHECK_NEAR(e, e_rk4, 1e-10);
      CHECK_NEAR(ratio, dur / T, 1e-10);
    }
  /* hand values: e_r = 1 is elastic and lasts T; e_r = 0.5 restitutes 0.5433 in 0.880 T (the
   * spring-dashpot that may pull would give 0.4913 after 1.026 T); at zeta = 1 (e_r = exp(-pi))
   * exp(-2) in 2/pi T; the atan2 form agrees */
  double e = -1, ratio = -1;
  CHECK(cm_advise_contact_time_restitution(1.0, &e, err, sizeof err) == CM_OK);
  CHECK(e == 1.0);
  CHECK(cm_advise_contact_time_duration(1.0, &ratio, err, sizeof err) == CM_OK);
  CHECK_REL(ratio, 1.0, 1e-15);
  CHECK(cm_advise_contact_time_restitution(0.5, &e, err, sizeof err) == CM_OK);
  CHECK_NEAR(e, 0.54334, 1e-5);
  CHECK_REL(e, clamped_e(0.5), 1e-13);
  CHECK(cm_advise_contact_time_duration(0.5, &ratio, err, sizeof err) == CM_OK);
  CHECK_NEAR(ratio, 0.88006, 1e-5);
  CHECK(cm_advise_contact_time_restitution(0.1, &e, err, sizeof err) == CM_OK);
  CHECK_REL(e, clamped_e(0.1), 1e-13);
  CHECK(cm_advise_contact_time_restitution(exp(-PI), &e, err, sizeof err) == CM_OK);
  CHECK_REL(e, exp(-2.0), 1e-7);
  CHECK(cm_advise_contact_time_duration(exp(-PI), &ratio, err, sizeof err) == CM_OK);
  CHECK_REL(ratio, 2 / PI, 1e-7);
  CHECK_ERR(cm_advise_contact_time_restitution(0, &e, err, sizeof err), "elastic_repulsion");
  CHECK_ERR(cm_advise_contact_time_restitution(1.5, &e, err, sizeof err), "elastic_repulsion");
  CHECK_ERR(cm_advise_contact_time_restitution(NAN, &e, err, sizeof err), "elastic_repulsion");
  CHECK_ERR(cm_advise_contact_time_duration(0, &ratio, err, sizeof err), "elastic_repulsion");
}

/* e(e_r) by the formula, for the bisection */
static double e_of_er(double er) {
  double e = 0;
  CHECK(cm_advise_contact_time_restitution(er, &e, err, sizeof err) == CM_OK);
  return e;
}

static void test_contact_time_inverse(void) {
  const double es[] = {1e-5, 1e-3, 0.01, 0.2, 1.0 / 3.0, 0.5, 0.6, 0.8, 0.99, 1.0};
  for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
    double er = -1;
    CHECK(cm_advise_contact_time_er(es[i], &er, err, sizeof err) == CM_OK);
    CHECK(er > 0 && er <= 1.0);
    /* round trip through the forward formula */
    CHECK_REL(e_of_er(er), es[i], 1e-12);
    /* independent inverse: bisection of the increasing e(e_r) in log e_r on (1e-300, 1] */
    double lo = log(1e-300), hi = 0;
    for (int k = 0; k < 200; k++) {
      double mid = 0.5 * (lo + hi);
      if (e_of_er(exp(mid)) < es[i])
        lo = mid;
      else
        hi = mid;
    }
    CHECK_REL(er, exp(0.5 * (lo + hi)), 1e-10);
  }
  double er = 0, dur = 0;
  /* issue 12's case: asking for 0.6 gave e_r 0.604 (the pull-allowed inverse), which the law
   * restitutes as 0.632 (0.646 measured in a run); the law that never pulls needs 0.5666 */
  CHECK(cm_advise_contact_time_er(0.6, &er, err, sizeof err) == CM_OK);
  CHECK_NEAR(er, 0.56655, 1e-5);
  CHECK_NEAR(rk4_restitution(1.0, PI * PI, -2 * log(er), &dur), 0.6, 1e-10);
  CHECK(cm_advise_contact_time_er(0.5, &er, err, sizeof err) == CM_OK);
  CHECK(er < 0.5); /* the law leaves early, before the damper has taken its share */
  CHECK_NEAR(rk4_restitution(1.0, PI * PI, -2 * log(er), &dur), 0.5, 1e-10);
  CHECK_ERR(cm_advise_contact_time_er(0, &er, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_contact_time_er(-1, &er, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_contact_time_er(1.2, &er, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_contact_time_er(NAN, &er, err, sizeof err), "restitution");
  CHECK_ERR(cm_advise_contact_time_er(1e-6, &er, err, sizeof err), "smallest double");
}

int main(void) {
  RUN(test_ka_pressure);
  RUN(test_default_ka);
  RUN(test_poisson_factors);
  RUN(test_ka_poisson);
  RUN(test_ka_shapes);
  RUN(test_ka_material_errors);
  RUN(test_shape_names);
  RUN(test_damping);
  RUN(test_restitution);
  RUN(test_contact_time_rk4);
  RUN(test_contact_time_inverse);
  return test_report();
}
