/* P8 and the rigid-body integrator: free fall, momentum and energy, torque-free rotation.
 *
 * Each check states the relation it tests and why the tolerance is what it is. */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static char err[1024];

/* an a x b x c box, faces undivided */
static cmBodyDef box_body(const char* name, double a, double b, double c) {
  return scene_box(name, a, b, c, 1);
}

/* symplectic Euler under constant g: v_n = -g h n, z_n = z0 - g h^2 n (n+1) / 2 exactly; the
 * continuous solution z0 - g t^2/2 differs by the O(h) offset -g h t / 2 */
static void test_free_fall(void) {
  const double h = 1e-3, g = 9.81, z0 = 2.0;
  cmScene* s = cm_scene_new("fall");
  s->opt.timestep = h;
  cmBodyDef b = box_body("box", 0.1, 0.2, 0.3);
  b.position[2] = z0;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int n = 1; n <= 1000; n++) {
    CHECK(cm_step(m, d) == CM_OK);
    double t = n * h;
    double z_se = z0 - g * h * h * n * (n + 1) / 2.0;
    if (n % 100 == 0) {
      CHECK_NEAR(d->body_xpos[2], z_se, 1e-12);
      CHECK_NEAR(d->body_xvel[2], -g * h * n, 1e-12);
      CHECK_NEAR(d->body_xpos[2] - (z0 - 0.5 * g * t * t), -0.5 * g * h * t, 1e-12);
      CHECK_NEAR(d->time, t, 1e-15);
    }
  }
  CHECK(d->step == 1000);
  cm_data_free(d);
  cm_model_free(m);
}

/* several bodies, some spinning, no gravity: momentum, angular momentum and energy stay put;
 * with gravity: p_n = p_0 + M g t exactly, and symplectic Euler's energy error is exactly
 * E_n - E_0 = -m g^2 h t / 2 per body (from v_n and z_n above) */
static void test_momentum_energy(void) {
  const double h = 1e-3;
  for (int grav = 0; grav < 2; grav++) {
    cmScene* s = cm_scene_new("flight");
    s->opt.timestep = h;
    if (!grav) cm_v3_set(s->opt.gravity, 0, 0, 0);
    const char* names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
      cmBodyDef b = box_body(names[i], 0.1 + 0.05 * i, 0.2, 0.35 - 0.1 * i);
      cm_v3_set(b.position, i, -i, 1 + i);
      cm_v3_set(b.velocity, 1 - i, 0.5 * i, 2);
      cm_v3_set(b.angular_velocity, 3 * i, 1 + i, -2);
      b.density = 500 + 300 * i;
      CHECK(cm_scene_add_body(s, &b, err, sizeof err) == i);
    }
    cmModel* m = scene_compile(s);
    if (!m) return;
    cmData* d = cm_data_new(m);
    double p0[3], L0[3], ke0, pe0, M = 0;
    for (int b = 0; b < 3; b++)
      M += m->body_mass[b];
    cm_data_momentum(m, d, p0, L0);
    cm_data_energy(m, d, &ke0, &pe0);
    const int N = 2000;
    for (int n = 0; n < N; n++)
      cm_step(m, d);
    double p[3], L[3], ke, pe, t = N * h;
    cm_data_momentum(m, d, p, L);
    cm_data_energy(m, d, &ke, &pe);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(p[k], p0[k] + M * m->opt.gravity[k] * t, 1e-11);
    double gg = cm_v3_dot(m->opt.gravity, m->opt.gravity);
    /* energy: the translational error is exactly -M g^2 h t / 2; the rotational energy is
     * conserved by the midpoint gyroscopic update (rounding only) */
    CHECK_NEAR(ke + pe - (ke0 + pe0), -0.5 * M * gg * h * t, 1e-9 * (ke0 + fabs(pe0)));
    if (!grav) {
      /* torque-free and force-free: L about the origin is exactly conserved */
      for (int k = 0; k < 3; k++)
        CHECK_NEAR(L[k], L0[k], 1e-12 * cm_v3_norm(L0));
    }
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* rigid-body Euler equations in body axes, J w' = -w x J w, integrated by RK4 with a tiny step:
 * an independent reference for the intermediate-axis flip */
static void euler_rhs(const double J[3], const double w[3], double dw[3]) {
  dw[0] = (J[1] - J[2]) * w[1] * w[2] / J[0];
  dw[1] = (J[2] - J[0]) * w[2] * w[0] / J[1];
  dw[2] = (J[0] - J[1]) * w[0] * w[1] / J[2];
}

static double first_flip_time_rk4(const double J[3], const double w0[3], double dt, double tmax) {
  double w[3] = {w0[0], w0[1], w0[2]};
  for (double t = 0; t < tmax; t += dt) {
    double k1[3], k2[3], k3[3], k4[3], tmp[3];
    euler_rhs(J, w, k1);
    for (int i = 0; i < 3; i++)
      tmp[i] = w[i] + 0.5 * dt * k1[i];
    euler_rhs(J, tmp, k2);
    for (int i = 0; i < 3; i++)
      tmp[i] = w[i] + 0.5 * dt * k2[i];
    euler_rhs(J, tmp, k3);
    for (int i = 0; i < 3; i++)
      tmp[i] = w[i] + dt * k3[i];
    euler_rhs(J, tmp, k4);
    double prev = w[1];
    for (int i = 0; i < 3; i++)
      w[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    if (prev > 0 && w[1] <= 0) return t + dt;
  }
  return -1;
}

/* torque-free box spinning about its intermediate axis (y) with a small perturbation: the spin
 * flips (Dzhanibekov effect), at the time the reference integration predicts; the world
 * angular momentum is conserved to rounding by construction of the implicit update */
static void run_dzhanibekov(double h, double* flip_time, double* max_de) {
  cmScene* s = cm_scene_new("dzhanibekov");
  s->opt.timestep = h;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = box_body("t_handle", 0.1, 0.2, 0.4); /* Jx > Jy > Jz: y is intermediate */
  cm_v3_set(b.angular_velocity, 1e-3, 20, 1e-3);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  double p0[3], L0[3], ke0;
  cm_data_momentum(m, d, p0, L0);
  cm_data_energy(m, d, &ke0, NULL);
  double prev = 20, flip = -1, de = 0;
  int steps = (int)(3.0 / h);
  for (int n = 0; n < steps; n++) {
    cm_step(m, d);
    double wb[3], ke, p[3], L[3];
    cm_quat_rotate_inv(wb, d->body_xquat, d->body_angvel);
    if (flip < 0 && prev > 0 && wb[1] <= 0) flip = d->time;
    prev = wb[1];
    cm_data_energy(m, d, &ke, NULL);
    if (fabs(ke - ke0) > de) de = fabs(ke - ke0);
    cm_data_momentum(m, d, p, L);
    /* conserved up to the Newton tolerance (1e-15 |L| per step) and rounding */
    if (n % 100 == 0)
      for (int k = 0; k < 3; k++)
        CHECK_NEAR(L[k], L0[k], (n + 1) * 2e-15 * cm_v3_norm(L0));
  }
  *flip_time = flip;
  *max_de = de / ke0;
  cm_data_free(d);
  cm_model_free(m);
}

static void test_dzhanibekov(void) {
  double a = 0.1, b = 0.2, c = 0.4;
  double J[3] = {b * b + c * c, a * a + c * c, a * a + b * b}; /* x 1/12 m, cancels */
  double w0[3] = {1e-3, 20, 1e-3};
  double t_ref = first_flip_time_rk4(J, w0, 1e-6, 3.0);
  CHECK(t_ref > 0);
  double t1, de1, t2, de2;
  run_dzhanibekov(1e-3, &t1, &de1);
  run_dzhanibekov(5e-4, &t2, &de2);
  printf("  flip time: reference %.6f s, h=1e-3 %.6f s, h=5e-4 %.6f s; max |dE|/E %.3g, %.3g\n",
         t_ref, t1, t2, de1, de2);
  /* the implicit midpoint update is second order; the flip is detected at step resolution, so
   * the flip time must agree with the reference to within two steps */
  CHECK(t1 > 0 && fabs(t1 - t_ref) <= 2e-3);
  CHECK(t2 > 0 && fabs(t2 - t_ref) <= 1e-3);
  /* the energy is a quadratic invariant that the midpoint rule conserves: only rounding
   * (a few 1e-16 per step, 6000 steps) may change it: measured 1.5e-12 and 3e-12, and 1e-11
   * leaves a factor 3 (it allowed 1e-10) */
  CHECK(de1 < 1e-11 && de2 < 1e-11);
}

/* fast spin (w h = 2) about the intermediate axis stays bounded and keeps |L| */
static void test_fast_spin_stable(void) {
  cmScene* s = cm_scene_new("fast");
  s->opt.timestep = 1e-2;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = box_body("b", 0.1, 0.2, 0.4);
  cm_v3_set(b.angular_velocity, 1, 200, 1);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  double p0[3], L0[3], ke0;
  cm_data_momentum(m, d, p0, L0);
  cm_data_energy(m, d, &ke0, NULL);
  for (int n = 0; n < 5000; n++)
    CHECK(cm_step(m, d) == CM_OK || n < 0);
  double p[3], L[3], ke;
  cm_data_momentum(m, d, p, L);
  cm_data_energy(m, d, &ke, NULL);
  for (int k = 0; k < 3; k++)
    CHECK_NEAR(L[k], L0[k], 1e-10 * cm_v3_norm(L0));
  /* at a fixed |L| the energy lies between |L|^2/(2 Jmax) and |L|^2/(2 Jmin): bounded */
  CHECK(isfinite(ke) && ke <= ke0 * (m->body_inertia[0] / m->body_inertia[8]));
  CHECK(d->warning[CM_WARN_GYRO] == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* the ball of the two tests below: 2 kg, isotropic inertia J = 0.008 kg m^2 (no gyroscopic
 * term, so a moment M spins it at exactly w = M t / J) */
static const double BALL_J = 0.008;
static cmBodyDef iso_ball(void) {
  cmBodyDef b = cm_body_def_default();
  b.name = "ball";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.1;
  b.mass = 2.0;
  b.has_inertia = 1;
  double I[9] = {BALL_J, 0, 0, 0, BALL_J, 0, 0, 0, BALL_J};
  memcpy(b.inertia, I, sizeof I);
  return b;
}

/* constant outer force F and moment M on the ball: v = F t / m, w = M t / J exactly */
static void test_outer_force_moment(void) {
  cmScene* s = cm_scene_new("push");
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = iso_ball();
  const double J = BALL_J;
  cm_v3_set(b.force, 1, -2, 3);
  cm_v3_set(b.moment, 0.01, 0.02, -0.03);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int n = 0; n < 500; n++)
    cm_step(m, d);
  double t = d->time;
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(d->body_cvel[k], b.force[k] * t / 2.0, 1e-12);
    CHECK_NEAR(d->body_angvel[k], b.moment[k] * t / J, 1e-10);
  }
  cm_data_free(d);
  cm_model_free(m);
}

/* the caller's applied force and moment (d->body_xfrc) on the ball: v = F t / m and
 * w = M t / J while applied; unchanged velocities once set back to zero; a fixed wall ignores
 * it; cm_data_copy carries it (the copy continues bit-identically), cm_data_reset clears it, the
 * state hash does not include it, and the energy monitor turns off at the first step with one */
static void test_applied_force(void) {
  cmScene* s = cm_scene_new("applied");
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = iso_ball();
  const double J = BALL_J, F[3] = {1, -2, 3}, M[3] = {0.01, 0.02, -0.03};
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmBodyDef w = box_body("wall", 1, 1, 1);
  w.motion = CM_MOTION_FIXED;
  cm_v3_set(w.position, 5, 5, 5);
  CHECK(cm_scene_add_body(s, &w, err, sizeof err) == 1);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int k = 0; k < 6; k++)
    CHECK(d->body_xfrc[k] == 0 && d->body_xfrc[6 + k] == 0);
  cm_step(m, d);
  CHECK(d->energy_monitor == 1); /* nothing applied yet */
  uint64_t h0 = cm_data_hash(m, d);
  for (int k = 0; k < 3; k++) {
    d->body_xfrc[k] = F[k];
    d->body_xfrc[3 + k] = M[k];
    d->body_xfrc[6 + k] = 100; /* the fixed wall */
  }
  CHECK(cm_data_hash(m, d) == h0);
  double v0[3], w0[3];
  memcpy(v0, d->body_cvel, sizeof v0);
  memcpy(w0, d->body_angvel, sizeof w0);
  for (int n = 0; n < 400; n++)
    CHECK(cm_step(m, d) == CM_OK);
  CHECK(d->energy_monitor == 0);
  double t = 400 * m->opt.timestep;
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(d->body_cvel[k], v0[k] + F[k] * t / 2.0, 1e-12);
    CHECK_NEAR(d->body_angvel[k], w0[k] + M[k] * t / J, 1e-10);
    CHECK(d->body_cvel[3 + k] == 0 && d->body_cpos[3 + k] == w.position[k]);
  }
  /* a copy continues identically, inputs included */
  cmData* c = cm_data_new(m);
  CHECK(cm_data_copy(m, c, d) == CM_OK);
  for (int n = 0; n < 50; n++) {
    cm_step(m, d);
    cm_step(m, c);
  }
  CHECK(cm_data_hash(m, c) == cm_data_hash(m, d));
  /* set back to zero: the velocities stay */
  memset(d->body_xfrc, 0, 12 * sizeof(double));
  memcpy(v0, d->body_cvel, sizeof v0);
  for (int n = 0; n < 100; n++)
    cm_step(m, d);
  for (int k = 0; k < 3; k++)
    CHECK(d->body_cvel[k] == v0[k]);
  /* reset clears the inputs */
  cm_data_reset(m, c);
  for (int k = 0; k < 12; k++)
    CHECK(c->body_xfrc[k] == 0);
  cm_data_free(c);
  cm_data_free(d);
  cm_model_free(m);
}

/* prescribed bodies follow x0 + v t and exp(w t) q0 exactly; fixed bodies never move */
static void test_prescribed_fixed(void) {
  cmScene* s = cm_scene_new("kin");
  cmBodyDef p = box_body("conveyor", 1, 1, 0.1);
  p.motion = CM_MOTION_PRESCRIBED;
  cm_v3_set(p.velocity, 0.5, 0, 0);
  cm_v3_set(p.angular_velocity, 0, 0, 1.0);
  CHECK(cm_scene_add_body(s, &p, err, sizeof err) == 0);
  cmBodyDef f = box_body("wall", 1, 1, 1);
  f.motion = CM_MOTION_FIXED;
  cm_v3_set(f.position, 3, 2, 1);
  CHECK(cm_scene_add_body(s, &f, err, sizeof err) == 1);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int n = 0; n < 1000; n++)
    cm_step(m, d);
  double t = d->time;
  CHECK_NEAR(d->body_xpos[0], 0.5 * t, 1e-12);
  CHECK_NEAR(d->body_xquat[0], cos(0.5 * t), 1e-12);
  CHECK_NEAR(d->body_xquat[3], sin(0.5 * t), 1e-12);
  CHECK(d->body_xpos[3] == 3 && d->body_xpos[4] == 2 && d->body_xpos[5] == 1);
  CHECK(d->body_xvel[3] == 0 && d->body_angvel[3] == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* a non-finite state stops the step with CM_ERR_NUMERIC and keeps the last good state */
static void test_numeric_guard(void) {
  cmScene* s = cm_scene_new("boom");
  cmBodyDef b = box_body("b", 1, 1, 1);
  b.force[0] = 1e308;
  b.mass = 1e-10; /* v = h F / m = 1e295 ... then x overflows: the first step must fail */
  b.velocity[0] = 1e300;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_ERR_NUMERIC);
  CHECK(d->step == 0 && d->body_xpos[0] == 0 && d->body_xvel[0] == 1e300);
  cm_data_free(d);
  cm_model_free(m);
}

/* the same input gives the same result, bit for bit; and cm_data_reset restarts exactly */
static void test_determinism(void) {
  cmScene* s = cm_scene_new("det");
  cmBodyDef b = box_body("b", 0.1, 0.2, 0.3);
  cm_v3_set(b.angular_velocity, 1, 5, 3);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d1 = cm_data_new(m);
  cmData* d2 = cm_data_new(m);
  for (int n = 0; n < 300; n++)
    cm_step(m, d1);
  for (int n = 0; n < 100; n++)
    cm_step(m, d2);
  cm_data_reset(m, d2);
  for (int n = 0; n < 300; n++)
    cm_step(m, d2);
  CHECK(!memcmp(d1->body_xpos, d2->body_xpos, 3 * sizeof(double)));
  CHECK(!memcmp(d1->body_xquat, d2->body_xquat, 4 * sizeof(double)));
  CHECK(!memcmp(d1->body_angvel, d2->body_angvel, 3 * sizeof(double)));
  /* copy then step both: identical */
  CHECK(cm_data_copy(m, d2, d1) == CM_OK);
  cm_step(m, d1);
  cm_step(m, d2);
  CHECK(!memcmp(d1->body_xquat, d2->body_xquat, 4 * sizeof(double)));
  cm_data_free(d1);
  cm_data_free(d2);
  cm_model_free(m);
}

/* P8 with contacts elsewhere: a spinning body far from a pile of contacts moves exactly as when
 * it is alone (its island never meets the contact solve), bit for bit */
static void test_free_body_beside_contacts(void) {
  double state[2][13];
  for (int withc = 0; withc < 2; withc++) {
    cmScene* s = cm_scene_new("beside");
    cmBodyDef f = box_body("free", 0.1, 0.2, 0.3);
    cm_v3_set(f.position, 10, 0, 5);
    cm_v3_set(f.velocity, 1, 0, 3);
    cm_v3_set(f.angular_velocity, 0.3, 7, 0.2);
    CHECK(cm_scene_add_body(s, &f, err, sizeof err) == 0);
    if (withc) {
      cmBodyDef g = scene_ground();
      g.geom.offset = -100; /* far below the free body's flight */
      CHECK(cm_scene_add_body(s, &g, err, sizeof err) == 1);
      for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "pile%d", i);
        cmBodyDef b = box_body(name, 0.1, 0.1, 0.1);
        cm_v3_set(b.position, 0.01 * i, 0, -100 + 0.05 + 0.1 * i - 1e-3);
        CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 2 + i);
      }
      cmRuleDef r = cm_rule_def_default();
      r.law = CM_LAW_AREA_COMPLIANT;
      r.friction = 0.5;
      CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
    }
    cmModel* m = scene_compile(s);
    if (!m) return;
    cmData* d = cm_data_new(m);
    int contacts = 0;
    for (int n = 0; n < 500; n++) {
      CHECK(cm_step(m, d) == CM_OK);
      contacts += d->ncontact;
    }
    if (withc) CHECK(contacts > 1000);
    if (withc) printf("  contacts over 500 steps: %d\n", contacts);
    memcpy(state[withc], d->body_cpos, 3 * sizeof(double));
    memcpy(state[withc] + 3, d->body_xquat, 4 * sizeof(double));
    memcpy(state[withc] + 7, d->body_cvel, 3 * sizeof(double));
    memcpy(state[withc] + 10, d->body_angvel, 3 * sizeof(double));
    cm_data_free(d);
    cm_model_free(m);
  }
  CHECK(!memcmp(state[0], state[1], sizeof state[0]));
}

int main(void) {
  RUN(test_free_body_beside_contacts);
  RUN(test_free_fall);
  RUN(test_momentum_energy);
  RUN(test_dzhanibekov);
  RUN(test_fast_spin_stable);
  RUN(test_outer_force_moment);
  RUN(test_applied_force);
  RUN(test_prescribed_fixed);
  RUN(test_numeric_guard);
  RUN(test_determinism);
  return test_report();
}
