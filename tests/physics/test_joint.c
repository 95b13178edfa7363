/* Joints with play (claim P7 of SPEC 6, rigidbody-interaction.txt): no force while the link's
 * stretch is under the play; beyond it the link pulls like the contact_time spring-dashpot of
 * its rule, K = m_rep (pi/T)^2, and the engaged link oscillates with the contact-time period:
 * half an oscillation takes T. */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "test.h"

static char err[1024];

/* a joint between bodies a and b (a body name or "world") at the anchor (NULL: the origin) and its
 * rule: contact_time T, e_r 1, the play and the integration given; then s is compiled (and freed):
 * the model, or NULL (a failed check, the message on stderr) */
static cmModel* joined(cmScene* s, const char* a, const char* b, const double anchor[3],
                       double play, double T, cmIntegration integ) {
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = a;
  r.pair[1] = b;
  r.elastic_repulsion = 1.0;
  r.play = play;
  r.contact_time = T;
  r.integration = integ;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = a;
  j.body[1] = b;
  if (anchor) cm_v3_copy(j.anchor, anchor);
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  cmModel* m = NULL;
  /* a failed compile is a failure (the callers' `if (!m) return;` skipped every check) */
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) {
    fprintf(stderr, "%s\n", err);
    CHECK(m != NULL);
  }
  cm_scene_free(s);
  return m;
}

static cmModel* tether(double play, double T, double x_start, double vx, cmIntegration integ) {
  cmScene* s = cm_scene_new("tether");
  s->opt.timestep = 1e-4;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.02;
  b.geom.refine = 1;
  b.position[0] = x_start; /* anchor at the origin, fixed in the bob at t = 0 ... */
  b.velocity[0] = vx;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  return joined(s, "bob", "world", NULL, play, T, integ);
}

/* the anchor is fixed in the bob where the world point is at t = 0; the bob starts there and
 * drifts at 0.1 m/s: the stretch grows from 0 and no force acts until it reaches the play */
static void test_no_force_in_play(void) {
  cmModel* m = tether(0.01, 0.02, 0, 0.1, CM_INTEGRATION_DEFAULT);
  if (!m) return;
  cmData* d = cm_data_new(m);
  int n = 0;
  while (d->body_xpos[0] < 0.0099) {
    cm_step(m, d);
    CHECK(d->body_xvel[0] == 0.1); /* no force at all: bit-exact constant velocity */
    n++;
  }
  CHECK(n > 900);
  /* beyond the play the link pulls back */
  for (int i = 0; i < 200; i++) cm_step(m, d);
  CHECK(d->body_xvel[0] < 0.1 - 1e-3);
  cm_data_free(d);
  cm_model_free(m);
}

/* The bob leaves the anchor point at 0.5 m/s, flies freely through the play, and the link
 * engages: x'' = -(pi/T)^2 x, so it turns and comes back to the play after half a period, T,
 * with its speed restored (e_r = 1). Explicit symplectic Euler keeps the amplitude; the implicit
 * mid-step law x_mid = x + (h/2) v+ damps a linear spring by the factor
 * det = 1/(1 + (w h)^2/2) per step in phase-space area, i.e. the speed by
 * exp(-N (w h)^2 / 4) = exp(-pi^2 h / (4 T)) over the N = T/h steps of the half period. */
static void check_quarter_period(cmIntegration integ, const char* what) {
  const double play = 0.01, T = 0.02, h = 1e-4;
  cmModel* m = tether(play, T, 0, 0.5, integ);
  if (!m) return;
  cmData* d = cm_data_new(m);
  /* free flight to the play, then the spring: x(t) = (v/w) sin(w t), w = pi/T; the bob is back
   * at the play after half a period T (it turns at T/2) */
  double t_in = -1, t_out = -1;
  for (int i = 0; i < 2000 && t_out < 0; i++) {
    double before = d->body_xpos[0];
    cm_step(m, d);
    double after = d->body_xpos[0];
    if (t_in < 0 && before <= play && after > play) t_in = d->time - h * (after - play) / (after - before);
    if (t_in > 0 && before > play && after <= play)
      t_out = d->time - h * (play - after) / (before - after);
  }
  double dur = t_out - t_in;
  printf("  %s: link engaged for %.6f s (T = %.3f s), exit speed %.6f m/s (entry 0.5)\n", what,
         dur, T, -d->body_xvel[0]);
  double expect = integ == CM_INTEGRATION_IMPLICIT ? 0.5 * exp(-CM_PI * CM_PI * h / (4 * T)) : 0.5;
  CHECK_REL(dur, T, 0.01);
  CHECK_REL(-d->body_xvel[0], expect, 0.002);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_period(void) {
  check_quarter_period(CM_INTEGRATION_EXPLICIT, "explicit");
  check_quarter_period(CM_INTEGRATION_IMPLICIT, "implicit");
}

/* a joint whose rule is law none has no parameters: the compiler refuses it (the pair's law
 * none would otherwise leave it acting with the defaults of a rule the user never wrote) */
static void test_law_none_refused(void) {
  cmScene* s = cm_scene_new("none");
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.02;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "world";
  r.pair[1] = "b*";
  r.law = CM_LAW_NONE;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_ERR_ARG && m == NULL);
  printf("  %s\n", err);
  CHECK(strstr(err, "joints[0] (bob <-> world)") && strstr(err, "interactions[0]"));
  CHECK(strstr(err, "law none") && strstr(err, "contact_time rule"));
  /* a contact_time rule for the pair after it: compiles */
  r.law = CM_LAW_CONTACT_TIME;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 1);
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK && m && m->joint_rule[0] == 2);
  cm_model_free(m);
  cm_scene_free(s);
}

/* A physical pendulum on an explicit joint whose anchors are far lighter across the arm than
 * along it: a sphere of 3 cm and 0.1 kg, the joint 0.3 m above its centre (m / m_eff = 1 + m d^2
 * / I_cm = 251 across the arm), T = 10 h, released at 0.02 rad. The joint's zero-length spring is
 * as stiff across its stretch as along it (K), so its stiffest mode has w h = (pi h / T)
 * sqrt(m / m_eff_across) = 4.99 with either mass (with `mass: effective` K is the effective mass
 * along the stretch, the arm, times (pi/T)^2: the whole mass), unstable at one sub-step:
 * cm_data_stability says so and substeps: auto resolves it (until 2026-12-07 both looked along
 * the row only, and with `mass: effective` found w h = pi h / T: the run reached 22 m/s with the
 * anchor stretched 480 mm, exit 0). The small-angle period is then 2 pi sqrt(I_pivot / (m g d)),
 * I_pivot = I_cm + m d^2 from the compiled inertia, to 1e-3 (the amplitude's correction,
 * theta^2 / 16 = 2.5e-5, and the link's stretch m g / K = 0.1 mm are below it), and the anchor
 * stays within 1 mm of the pivot. */
static void check_pendulum(cmRepMass mass, const char* what, int run) {
  const double R = 0.03, d = 0.3, m0 = 0.1, th = 0.02, h = 1e-3, T = 0.01, g = 9.81;
  cmScene* s = cm_scene_new("pendulum");
  s->opt.timestep = h;
  cm_v3_set(s->opt.gravity, 0, 0, -g);
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = R;
  b.geom.refine = 3;
  b.mass = m0;
  b.position[0] = d * sin(th);
  b.position[2] = 1 - d * cos(th);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  r.mass = mass;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  j.body[1] = "world";
  cm_v3_set(j.anchor, 0, 0, 1);
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  cmModel* m = NULL;
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) fprintf(stderr, "%s\n", err);
  cm_scene_free(s);
  CHECK(m != NULL);
  if (!m) return;
  cmData* dd = cm_data_new(m);
  cmStability st;
  CHECK(cm_collide(m, dd) == CM_OK && cm_data_stability(m, dd, &st) == CM_OK);
  double Icm = m->body_inertia[0], ratio = 1 + m0 * d * d / Icm;
  printf("  %s: w h = %.4g (across the arm (pi h / T) sqrt(%.1f) = %.4g), %d sub-steps\n", what,
         st.omega_h, ratio, CM_PI * h / T * sqrt(ratio), st.substeps);
  CHECK_REL(st.omega_h, CM_PI * h / T * sqrt(ratio), 0.02);
  CHECK(st.joint == 0 && !st.implicit && st.substeps > 50);
  if (!run) {
    cm_data_free(dd);
    cm_model_free(m);
    return;
  }
  /* one period: from the first downward crossing of x = 0 (at P/4) to the next, interpolated */
  const double P = 2 * CM_PI * sqrt((Icm + m0 * d * d) / (m0 * g * d));
  double first = -1, last = -1, worst = 0;
  int crossings = 0;
  while (dd->time < 1.3 * P) {
    double x0 = dd->body_cpos[0];
    CHECK(cm_step(m, dd) == CM_OK);
    double x1 = dd->body_cpos[0];
    if (x0 > 0 && x1 <= 0) {
      double t = dd->time - h * x1 / (x1 - x0);
      if (first < 0) first = t;
      last = t;
      crossings++;
    }
    /* the bob's anchor: the point of the bob that was at the pivot at t = 0 */
    double a0[3] = {-d * sin(th), 0, d * cos(th)}, a[3];
    cm_quat_rotate(a, dd->body_xquat, a0);
    cm_v3_add(a, a, dd->body_cpos);
    a[2] -= 1;
    worst = fmax(worst, cm_v3_norm(a));
  }
  double period = crossings > 1 ? (last - first) / (crossings - 1) : 0;
  printf("  %s: period %.6f s (2 pi sqrt(I_pivot / (m g d)) = %.6f s), anchor off the pivot by "
         "at most %.3g mm\n",
         what, period, P, 1e3 * worst);
  CHECK(crossings >= 2);
  CHECK_REL(period, P, 1e-3);
  CHECK(worst < 1e-3);
  cm_data_free(dd);
  cm_model_free(m);
}

static void test_pendulum_effective_mass(void) {
  check_pendulum(CM_REP_MASS_EFFECTIVE, "mass: effective", 1);
  check_pendulum(CM_REP_MASS_MIN, "mass: min", 0); /* (its prediction: the run as above) */
}

/* A dumbbell: two boxes joined at the origin by a joint (contact_time, play 0, T = 5 ms), no
 * gravity, thrown spinning about an axis off their principal ones, so that the joint carries a
 * turning force the whole time. No outer force or moment acts: the world angular momentum is
 * conserved (and the linear momentum, here 0). The joint's impulses are equal and opposite
 * along the line between the anchors, so they add no angular momentum; the integrator must not
 * add any either. Until 2026-12-08 the implicit joint drifted by 1.6e-5 of |L| per second at
 * h = 0.1 ms (first order in h): the impulse and the momentum it started with were turned
 * together by the step's rotation. Explicit rows enter as torques before the gyroscopic update
 * and were exact. */
static void check_dumbbell(cmIntegration integ, const char* what) {
  cmScene* s = cm_scene_new("dumbbell");
  s->opt.timestep = 1e-4;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  const char* names[2] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    cmBodyDef b = cm_body_def_default();
    b.name = names[i];
    b.geom.type = CM_GEOM_BOX;
    cm_v3_set(b.geom.size, 0.1, 0.06, 0.03);
    b.position[0] = i ? 0.12 : -0.12;
    b.position[1] = i ? 0.01 : -0.01;
    cm_v3_set(b.angular_velocity, 0.5, 1, 6);
    /* v = w x r: the rigid motion of the pair about the origin */
    cm_v3_cross(b.velocity, b.angular_velocity, b.position);
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == i);
  }
  cmModel* m = joined(s, "a", "b", NULL, 0, 5e-3, integ);
  if (!m) return;
  cmData* d = cm_data_new(m);
  double p0[3], L0[3], p[3], L[3], worst = 0, gap = 0;
  cm_data_momentum(m, d, p0, L0);
  for (int n = 0; n < 5000; n++) {
    CHECK(cm_step(m, d) == CM_OK);
    cm_data_momentum(m, d, p, L);
    double dL[3];
    cm_v3_sub(dL, L, L0);
    worst = fmax(worst, cm_v3_norm(dL) / cm_v3_norm(L0));
    double sep[3];
    cm_v3_sub(sep, d->body_cpos + 3, d->body_cpos);
    gap = fmax(gap, fabs(cm_v3_norm(sep) - 2 * hypot(0.12, 0.01)));
  }
  printf("  dumbbell (%s): |L - L0| <= %.2e of |L0| over 0.5 s, the centres' distance within "
         "%.2e m of its start\n",
         what, worst, gap);
  CHECK(worst < 1e-12);
  /* the joint held them together (it stretched a little under the turning force) */
  CHECK(gap > 1e-6 && gap < 5e-3);
  cm_data_free(d);
  cm_model_free(m);
}

/* An implicit joint is implicit along its link only: the solve keeps the link's direction of the
 * start of the step, so across it the joint acts explicitly with its full stiffness K (no play),
 * and the stability check, `substeps: auto` and the guard judge it there (stability.c). A bob of
 * radius 0.02 m on an arm of 0.3 m started at 0.5 rad, contact_time 0.02 s, `mass: min`, h = 1
 * ms: across the arm its anchor is 1 + m d^2 / I_cm = 564 times lighter, w h = (pi h / T)
 * sqrt(564) = 3.7, beyond the limit 2. With auto sub-steps the swing agrees with a run at h / 4
 * (the bob's spin at 1 s to 0.05 rad/s; its anchor's largest distance from the pivot, 0.73 mm,
 * to 2e-5 m); at a fixed single sub-step the step is
 * refused, naming the implicit joint. Until 2026-12-08 the run went on unsplit: spin -2.42
 * against -1.72 rad/s, the anchor 3 mm off, no warning. */
static cmData* implicit_pendulum(double h, int substeps, cmModel** mp, cmStability* st) {
  const double d = 0.3, th = 0.5;
  cmScene* s = cm_scene_new("implicit_pendulum");
  s->opt.timestep = h;
  s->opt.substeps = substeps;
  cmBodyDef b = cm_body_def_default();
  b.name = "bob";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.02;
  b.geom.refine = 2;
  b.position[0] = d * sin(th);
  b.position[2] = 1 - d * cos(th);
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  const double pivot[3] = {0, 0, 1};
  cmModel* m = joined(s, "bob", "world", pivot, 0, 0.02, CM_INTEGRATION_IMPLICIT);
  *mp = m;
  if (!m) return NULL;
  cmData* dd = cm_data_new(m);
  CHECK(cm_collide(m, dd) == CM_OK && cm_data_stability(m, dd, st) == CM_OK);
  return dd;
}

static void test_implicit_pendulum(void) {
  cmModel *m1, *m4, *m0;
  cmStability s1, s4, s0;
  cmData* d1 = implicit_pendulum(1e-3, CM_SUBSTEPS_AUTO, &m1, &s1);
  cmData* d4 = implicit_pendulum(2.5e-4, CM_SUBSTEPS_AUTO, &m4, &s4);
  if (!d1 || !d4) return;
  printf("  implicit pendulum at h = 1 ms: w h = %.3g across the arm, %d sub-steps\n", s1.omega_h,
         s1.substeps);
  CHECK(s1.joint == 0 && s1.implicit && s1.omega_h > 3.5 && s1.omega_h < 4 && s1.substeps >= 2);
  double worst = 0, worst4 = 0;
  const double a0[3] = {-0.3 * sin(0.5), 0, 0.3 * cos(0.5)};
  for (int n = 0; n < 1000; n++) {
    CHECK(cm_step(m1, d1) == CM_OK);
    for (int k = 0; k < 4; k++)
      CHECK(cm_step(m4, d4) == CM_OK);
    double a[3];
    cm_quat_rotate(a, d1->body_xquat, a0);
    cm_v3_add(a, a, d1->body_cpos);
    a[2] -= 1;
    worst = fmax(worst, cm_v3_norm(a));
    cm_quat_rotate(a, d4->body_xquat, a0);
    cm_v3_add(a, a, d4->body_cpos);
    a[2] -= 1;
    worst4 = fmax(worst4, cm_v3_norm(a));
  }
  printf("  spin at 1 s: %.4f rad/s (h / 4: %.4f), anchor within %.3g m of the pivot (h / 4: "
         "%.3g m)\n",
         d1->body_angvel[1], d4->body_angvel[1], worst, worst4);
  CHECK_NEAR(d1->body_angvel[1], d4->body_angvel[1], 0.05);
  CHECK(worst < 1e-3 && fabs(worst - worst4) < 2e-5);
  cm_data_free(d1);
  cm_data_free(d4);
  cm_model_free(m1);
  cm_model_free(m4);
  /* one fixed sub-step: refused */
  cmData* d0 = implicit_pendulum(1e-3, 1, &m0, &s0);
  if (!d0) return;
  cmStatus st = CM_OK;
  for (int n = 0; n < 10 && st == CM_OK; n++)
    st = cm_step(m0, d0);
  CHECK(st == CM_ERR_NUMERIC && strstr(d0->message, "implicit joint") != NULL);
  cm_data_free(d0);
  cm_model_free(m0);
}

static void test_dumbbell_angular_momentum(void) {
  check_dumbbell(CM_INTEGRATION_IMPLICIT, "implicit");
  check_dumbbell(CM_INTEGRATION_EXPLICIT, "explicit");
}

int main(void) {
  RUN(test_no_force_in_play);
  RUN(test_law_none_refused);
  RUN(test_period);
  RUN(test_pendulum_effective_mass);
  RUN(test_dumbbell_angular_momentum);
  RUN(test_implicit_pendulum);
  return test_report();
}
