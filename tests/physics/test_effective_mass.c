/* Explicit rows judged by their effective mass (issue 12; docs/contact-laws.md, "Explicit
 * stability" and "mass: effective").
 *
 * Derivations.
 *  - A point link at distance L from the com of a body of mass m and isotropic inertia J (an
 *    icosphere: icosahedral symmetry makes its inertia isotropic) has the 3x3 inverse mass
 *    1/m I + (L^2 I - r r^T)/J at the anchor: 1/m along the arm, 1/m + L^2/J across it. The
 *    contact_time law with mass: min has K = m (pi/T)^2 and D = -2 m ln(e_r)/T, so across the
 *    arm w = (pi/T) sqrt(1 + m L^2/J) and zeta = zeta0 sqrt(1 + m L^2/J), zeta0 = -ln(e_r)/pi.
 *    With mass: effective K and D take the effective mass along the stretch: along the arm,
 *    the whole mass m, the same K and D; the link's zero-length spring is as stiff across its
 *    stretch as along it, so across the arm it rings as with min (until 2026-12-07 the check
 *    took it along the row only, w = pi/T whatever L, and such a pendulum went unstable
 *    unnoticed: physics/test_joint).
 *  - Symplectic Euler on that row is stable iff ((w h)^2 + 4 zeta w h)/4 < 1 (the Jury
 *    conditions of its 2x2 step matrix, src/engine/stability.c); substeps: auto takes the fewest
 *    n with ((w h/n)^2 + 4 zeta w h/n)/4 <= 1/4.
 *  - The pendulum of the issue (sphere of radius 0.05 m, arm 0.5 m, T = 100 h = 0.1 s):
 *    1 + m L^2/J = 1 + 0.25/(0.4 0.05^2) = 251, w h = 0.50, zeta = 3.5: lambda = 1.8, unstable
 *    (the damper alone: 2 zeta w h = 3.5 > 2), which the m_rep-only check called w h = 0.031.
 *  - Released horizontally, the rigid physical pendulum obeys I_p phi'' = m g L cos(phi)
 *    (phi below the horizontal, I_p = J + m L^2) and reaches the far side (phi = pi, at rest)
 *    after a half period that an RK4 integration gives.
 *  - Collisions with the non-pulling law (F = max(0, K x + D x')), x the normal approach, on the
 *    effective mass mu of the pair along the normal: x'' = -(K x + D x')/mu, w0 = sqrt(K/mu),
 *    zeta = D/(2 sqrt(K mu)). The contact ends when the force reaches 0, at the phase
 *    s* = pi - atan2(2 zeta sqrt(1-zeta^2), 1 - 2 zeta^2) of w_d t, with restitution
 *    exp(-zeta s* / sqrt(1-zeta^2)) (test_contact_time.c derives it). Two free spheres of masses
 *    m1, m2 hit head on: mu = m1 m2/(m1 + m2). mass: min gives K = min(m1, m2) (pi/T)^2, so
 *    w0 = (pi/T) sqrt(min/mu), zeta = zeta0 sqrt(min/mu): equal masses, min/mu = 2: duration
 *    0.594 T and restitution 0.439 for e_r = 0.5. mass: effective sets K/mu = (pi/T)^2: the
 *    wall's 0.880 T and 0.5433 for any masses. A body landing on a point at the horizontal
 *    lever arm d from its com has 1/mu = 1/m + d^2/J. */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

/* ---- the derivations as functions ---- */

/* restitution and duration (s) of the non-pulling spring-dashpot of frequency w0, ratio zeta */
static void clamped(double zeta, double w0, double* e, double* dur) {
  double sq = sqrt(1 - zeta * zeta);
  double s = CM_PI - atan2(2 * zeta * sq, 1 - 2 * zeta * zeta);
  *e = exp(-zeta * s / sq);
  *dur = s / (w0 * sq);
}

/* the fewest n with ((wh/n)^2 + 4 zeta wh/n)/4 <= 1/4 */
static int auto_substeps(double wh, double zeta) {
  int n = 1;
  while ((wh / n) * (wh / n) + 4 * zeta * wh / n > 1 + 1e-12)
    n++;
  return n;
}

/* ---- scenes ---- */

/* a sphere bob of radius 0.05 m centred at (L, 0, 0) hanging on a point joint to the world at
 * the origin (released horizontally under gravity gz, m/s^2, at the velocity (vx, 0, 0) m/s) */
static cmModel* pendulum(double L, double T, double er, cmRepMass mass, int substeps, double gz,
                         double vx) {
  cmScene* s = cm_scene_new("pendulum");
  s->opt.substeps = substeps;
  s->opt.gravity[2] = gz;
  cmBodyDef b = scene_sphere("bob", 0.05, 2);
  b.position[0] = L;
  b.velocity[0] = vx;
  CHECK(cm_scene_add_body(s, &b, scene_err, sizeof scene_err) == 0);
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "bob";
  r.pair[1] = "world";
  r.contact_time = T;
  r.elastic_repulsion = er;
  r.mass = mass;
  CHECK(cm_scene_add_rule(s, &r, scene_err, sizeof scene_err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  j.body[1] = "world";
  CHECK(cm_scene_add_joint(s, &j, scene_err, sizeof scene_err) == 0);
  return scene_compile(s);
}

/* ---- the prediction before a run (cm_data_stability, what comply check prints) ---- */

static void test_pendulum_prediction(void) {
  const double L = 0.5, T = 0.1, h = 1e-3, z0 = log(2.0) / CM_PI;
  for (int k = 0; k < 2; k++) {
    cmRepMass mass = k ? CM_REP_MASS_EFFECTIVE : CM_REP_MASS_MIN;
    cmModel* m = pendulum(L, T, 0.5, mass, CM_SUBSTEPS_AUTO, -9.81, 0);
    if (!m) return;
    cmData* d = cm_data_new(m);
    double mb = m->body_mass[0], J = m->body_inertia[0];
    CHECK_REL(m->body_inertia[4], J, 1e-12); /* isotropic */
    double ratio = 1 + mb * L * L / J;       /* m / m_eff across the arm */
    cmStability st;
    CHECK(cm_collide(m, d) == CM_OK && cm_data_stability(m, d, &st) == CM_OK);
    /* (the same for both masses: the module comment) */
    double wh = (CM_PI * h / T) * sqrt(ratio), zeta = z0 * sqrt(ratio);
    printf("  mass %s: m/m_eff %.2f, w h %.4f (predicted %.4f), zeta %.3f (%.3f), limit %.4f, "
           "lambda %.3f, auto %d sub-steps\n",
           k ? "effective" : "min", mb / st.m_eff, st.omega_h, wh, st.zeta, zeta, st.limit,
           st.lambda, st.substeps);
    CHECK(st.explicit_rows == 1 && st.joint == 0 && st.pair == -1 && st.rule == 1);
    CHECK(st.body[0] == 0 && st.body[1] == -1);
    CHECK_REL(st.m_eff, mb / ratio, 1e-9);
    CHECK_REL(st.omega_h, wh, 1e-9);
    CHECK_REL(st.zeta, zeta, 1e-9);
    CHECK_REL(st.limit, 2 * (sqrt(1 + zeta * zeta) - zeta), 1e-12);
    CHECK_REL(st.lambda, (wh * wh + 4 * zeta * wh) / 4, 1e-9);
    CHECK(st.substeps == auto_substeps(wh, zeta));
    CHECK(st.lambda > 1.7 && st.substeps > 1); /* the pendulum is unstable */
    if (!k) {
      /* the step and contact_time at which lambda = 1: the stiffness part scales as h^2 (T^-2),
       * the damping part as h (T^-1) */
      double a = st.h_max / h;
      CHECK_NEAR(a * a * wh * wh / 4 + a * zeta * wh, 1, 1e-9);
      CHECK_REL(st.contact_time_min, T / a, 1e-12);
    }
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* ---- at run time ---- */

/* at a fixed sub-step count the step that first stretches the joint is refused, named, with its
 * w h and limit; the data keeps the state before that step */
static void test_pendulum_refused(void) {
  cmModel* m = pendulum(0.5, 0.1, 0.5, CM_REP_MASS_MIN, 1, -9.81, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmStatus st = CM_OK;
  while (st == CM_OK && d->step < 100)
    st = cm_step(m, d);
  printf("  step %ld: %s\n", d->step + 1, d->message);
  CHECK(st == CM_ERR_NUMERIC && d->step == 1); /* the first step stretches it from 0 */
  CHECK(strstr(d->message, "joint 0 bob <-> world") && strstr(d->message, "explicit row unstable"));
  CHECK(strstr(d->message, "w h = ") && strstr(d->message, "2 (sqrt(1 + zeta^2) - zeta)"));
  /* (not mass: effective, which does not make a joint stable: the module comment) */
  CHECK(strstr(d->message, "substeps: auto") && !strstr(d->message, "mass: effective"));
  CHECK(!strstr(d->message, "overlap"));
  cm_data_free(d);
  cm_model_free(m);
}

/* RK4 of I_p phi'' = m g L cos(phi) from rest at phi = 0: the time at which phi = pi/2 (the
 * bottom of the swing) */
static double pendulum_quarter_period(double mgl, double Ip) {
  double phi = 0, w = 0, t = 0, dt = 1e-6;
  for (;;) {
    double k1p = w, k1w = mgl / Ip * cos(phi);
    double k2p = w + 0.5 * dt * k1w, k2w = mgl / Ip * cos(phi + 0.5 * dt * k1p);
    double k3p = w + 0.5 * dt * k2w, k3w = mgl / Ip * cos(phi + 0.5 * dt * k2p);
    double k4p = w + dt * k3w, k4w = mgl / Ip * cos(phi + dt * k3p);
    double pn = phi + dt / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
    w += dt / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
    t += dt;
    if (pn >= CM_PI / 2) return t - dt * (pn - CM_PI / 2) / (pn - phi);
    phi = pn;
  }
}

/* substeps: auto runs the same pendulum (a stiffer joint, T = 10 h, so that it stays within
 * 0.1 % of rigid: the default 100 h stretches it by about 3 %) and it swings like the rigid
 * physical pendulum: it passes the bottom when the rigid one does, and rises to the far side */
static void test_pendulum_auto(void) {
  const double L = 0.5, T = 0.01;
  cmModel* m = pendulum(L, T, 0.5, CM_REP_MASS_MIN, CM_SUBSTEPS_AUTO, -9.81, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  double mb = m->body_mass[0], J = m->body_inertia[0];
  double ratio = 1 + mb * L * L / J, wh = CM_PI * 1e-3 / T * sqrt(ratio);
  int n = auto_substeps(wh, log(2.0) / CM_PI * sqrt(ratio));
  double t_ref = pendulum_quarter_period(mb * 9.81 * L, J + mb * L * L), t_bottom = -1;
  double xmin = 0;
  for (int i = 0; i < 1200; i++) {
    double x = d->body_cpos[0];
    if (cm_step(m, d) != CM_OK) break;
    double x1 = d->body_cpos[0];
    if (t_bottom < 0 && x > 0 && x1 <= 0) t_bottom = d->time - m->opt.timestep * x1 / (x1 - x);
    xmin = fmin(xmin, x1);
  }
  printf("  auto (%d sub-steps per step predicted): at the bottom at %.5f s, rigid pendulum "
         "%.5f s; far side x = %.5f m; %s\n",
         n, t_bottom, t_ref, xmin, d->message[0] ? d->message : "no failure");
  CHECK(d->message[0] == 0 && d->step == 1200);
  CHECK(d->warning[CM_WARN_SUBSTEPS] == 0);
  CHECK(n > 50 && n < CM_SUBSTEPS_AUTO_MAX);
  CHECK_REL(t_bottom, t_ref, 0.002);
  CHECK_NEAR(xmin, -L, 0.002); /* back up to the horizontal: little energy lost */
  cm_data_free(d);
  cm_model_free(m);
}

/* the derived limit is where the library's row turns unstable: a tether through the com
 * (W = 1/m exactly) with e_r = 0.01 (zeta 1.47, limit w h < 0.617, about a third of the
 * undamped 2) at one sub-step. Just below the limit it runs and comes to rest; just above it
 * is refused. */
static void test_limit_bracket(void) {
  const double h = 1e-3, er = 0.01, zeta = -log(er) / CM_PI;
  double limit = 2 * (sqrt(1 + zeta * zeta) - zeta);
  for (int k = 0; k < 2; k++) {
    double wh = limit * (k ? 1.02 : 0.98), T = CM_PI * h / wh;
    /* gravity 0; the bob leaves its anchor at 0.3 m/s and the link pulls it back */
    cmModel* m = pendulum(0, T, er, CM_REP_MASS_MIN, 1, 0, 0.3);
    if (!m) return;
    cmData* d = cm_data_new(m);
    cmStatus st = CM_OK;
    double vmax = 0;
    for (int i = 0; i < 3000 && st == CM_OK; i++) {
      st = cm_step(m, d);
      vmax = fmax(vmax, cm_v3_norm(d->body_cvel));
    }
    printf("  w h = %.4f (%s the limit %.4f): %s after %ld steps, largest speed %.3g m/s\n", wh,
           k ? "above" : "below", limit, st == CM_OK ? "ran" : "refused", d->step, vmax);
    if (k) {
      CHECK(st == CM_ERR_NUMERIC && strstr(d->message, "explicit row unstable"));
    } else {
      /* bounded (the overshoot of a damper near its limit), and at rest in the end */
      CHECK(st == CM_OK && vmax < 0.6 && cm_v3_norm(d->body_cvel) < 1e-6);
    }
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* ---- mass: min and mass: effective ---- */

/* the first contact episode of a run: its duration (steps while the pair pushes) and the normal
 * speed of the contact (pair body 0 minus body 1 along the pair's initial approach) after it
 * over before it */
typedef struct Episode {
  double dur, e;
} Episode;

/* two spheres of masses m and q m (radius 0.05 m), head on at a closing speed 0.2 m/s */
static Episode spheres(double q, cmRepMass mass, double T, double h) {
  Episode ep = {-1, -1};
  cmBodyDef a = scene_sphere("a", 0.05, 5), b = scene_sphere("b", 0.05, 5);
  b.density = 1000 * q;
  a.position[0] = -0.0505;
  b.position[0] = 0.0505;
  a.velocity[0] = 0.1;
  b.velocity[0] = -0.1;
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  r.mass = mass;
  cmScene* s = scene_two_bodies("spheres", &a, &b, &r);
  s->opt.timestep = h;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmModel* m = scene_compile(s);
  if (!m) return ep;
  cmData* d = cm_data_new(m);
  int steps = 0, started = 0;
  for (int i = 0; i < 20000; i++) {
    if (cm_step(m, d) != CM_OK) break;
    int pushing = d->npair > 0 && cm_v3_norm(d->pair[0].force) > 0;
    if (pushing) {
      started = 1;
      steps++;
    } else if (started) {
      ep.e = (d->body_cvel[3] - d->body_cvel[0]) / 0.2;
      break;
    }
  }
  ep.dur = steps * h;
  cm_data_free(d);
  cm_model_free(m);
  return ep;
}

static void test_spheres_head_on(void) {
  const double T = 0.05, h = 2.5e-4, z0 = log(2.0) / CM_PI;
  const double qs[] = {1, 4};
  for (int i = 0; i < 2; i++) {
    double q = qs[i], min_over_mu = (1 + q) / q; /* m1 m2/(m1 + m2) = m q/(1 + q), min = m */
    for (int k = 0; k < 2; k++) {
      double s = k ? 1 : sqrt(min_over_mu), e, dur;
      clamped(z0 * s, CM_PI / T * s, &e, &dur);
      Episode ep = spheres(q, k ? CM_REP_MASS_EFFECTIVE : CM_REP_MASS_MIN, T, h);
      printf("  masses 1:%g, mass %-9s: duration %.4f T (derived %.4f T), restitution %.4f "
             "(derived %.4f)\n",
             q, k ? "effective" : "min", ep.dur / T, dur / T, ep.e, e);
      CHECK_REL(ep.dur, dur, 0.015);
      CHECK_REL(ep.e, e, 0.01);
    }
  }
}

/* an eccentric ball lands on the plane: a sphere of radius R = 0.05 m and mass 1 kg whose com
 * lies d = 0.05 m from its centre, horizontally, inertia 0.4 R^2 kg m^2 about every axis: the
 * contact point is d off the com, m/mu = 1 + m d^2 / J = 3.5. (An edge of a tilted mesh box would
 * do as well, but the triangulation gives its edge vertices unequal areas, and the box rolls.) */
static Episode eccentric_ball(cmRepMass mass, double T, double h) {
  Episode ep = {-1, -1};
  const double v0 = 0.1, R = 0.05, dc = 0.05;
  cmBodyDef b = scene_sphere("ball", R, 4);
  b.mass = 1;
  b.has_com = 1;
  cm_v3_set(b.com, dc, 0, 0);
  b.has_inertia = 1;
  memset(b.inertia, 0, sizeof b.inertia);
  b.inertia[0] = b.inertia[4] = b.inertia[8] = 0.4 * R * R;
  b.position[2] = R + v0 * 2.5 * h;
  b.velocity[2] = -v0;
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  r.mass = mass;
  cmScene* s = scene_on_ground("eccentric", NULL, &b, &r);
  s->opt.timestep = h;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmModel* m = scene_compile(s);
  if (!m) return ep;
  cmData* d = cm_data_new(m);
  const double bottom[3] = {-dc, 0, -R}; /* the sphere's lowest point from the com, body axes */
  int steps = 0, started = 0;
  for (int i = 0; i < 20000; i++) {
    if (cm_step(m, d) != CM_OK) break;
    int pushing = d->npair > 0 && cm_v3_norm(d->pair[0].force) > 0;
    if (pushing) {
      started = 1;
      steps++;
    } else if (started) {
      double rw[3], wxr[3];
      cm_quat_rotate(rw, d->body_xquat + 4, bottom);
      cm_v3_cross(wxr, d->body_angvel + 3, rw);
      ep.e = (d->body_cvel[5] + wxr[2]) / v0;
      break;
    }
  }
  ep.dur = steps * h;
  cm_data_free(d);
  cm_model_free(m);
  return ep;
}

static void test_lever_arm(void) {
  const double T = 0.01, h = 5e-5, z0 = log(2.0) / CM_PI, ratio = 3.5;
  for (int k = 0; k < 2; k++) {
    double e, dur;
    Episode ep = eccentric_ball(k ? CM_REP_MASS_EFFECTIVE : CM_REP_MASS_MIN, T, h);
    double s = k ? 1 : sqrt(ratio);
    clamped(z0 * s, CM_PI / T * s, &e, &dur);
    printf("  eccentric ball, m/mu = %.2f, mass %-9s: duration %.4f T (derived %.4f T), "
           "restitution %.4f (derived %.4f)\n",
           ratio, k ? "effective" : "min", ep.dur / T, dur / T, ep.e, e);
    CHECK_REL(ep.dur, dur, 0.02);
    CHECK_REL(ep.e, e, 0.02);
  }
}

int main(void) {
  RUN(test_pendulum_prediction);
  RUN(test_pendulum_refused);
  RUN(test_pendulum_auto);
  RUN(test_limit_bracket);
  RUN(test_spheres_head_on);
  RUN(test_lever_arm);
  return test_report();
}
