/* The contact-time law (claim P5 of SPEC 6, rigidbody-interaction.txt) for a sphere, a flat box
 * and a tilted box, each at two mesh resolutions, dropped at v0 onto a fixed half-space.
 *
 * Derivation. The pair contact obeys m x'' = -K x - D x' with K = m (pi/T)^2, D = -2 m ln(e_r)/T
 * against a wall (m_rep = m): w = pi/T, zeta = -ln(e_r)/pi, w_d = w sqrt(1 - zeta^2), and from
 * x(0) = 0, x'(0) = v0:  x = (v0/w_d) e^{-zeta w t} sin(w_d t). If the force could pull, the
 * contact would end at x = 0 (t = pi/w_d) with restitution e_r^(1/sqrt(1-zeta^2)). The law's
 * force never pulls (F = max(0, K x + D x')): the body leaves when K x + D x' = 0, at the phase
 *   s* = w_d t* = pi - atan(2 zeta sqrt(1-zeta^2) / (1 - 2 zeta^2)),
 * with restitution e = -e^(-zeta s* / sqrt(1-zeta^2)) (cos s* - zeta/sqrt(1-zeta^2) sin s*).
 * For e_r = 0.5: e = 0.5433 (not 0.4913) and t* = 0.880 T (not 1.026 T). These derived values,
 * not e_r and T themselves, are what the law produces; docs/contact-laws.md explains it.
 *
 * A tilted box meets the plane with an edge off its centre and turns during the contact, so no
 * closed form applies; the reference is an independent planar rigid-body integration (RK4,
 * 1e-6 s steps) of the same law acting at the lower edge: m z'' = F, J theta'' = -r_x F,
 * F = max(0, K x + D x'), x the edge's penetration, K and D scaled by m as the law says. The
 * edge's normal velocity after the contact over v0 is the restitution. A tilted box's edge must
 * be sampled by several vertices: with 1 x 1 faces the two corner vertices carry different areas
 * (the face diagonal gives one corner two triangles, the other one), the pressure centroid sits
 * off the edge's middle, and the box starts to roll about its edge: that coarse case is not a
 * test of the law. */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static void clamped(double zeta, double w, double* e, double* tstar) {
  double sq = sqrt(1 - zeta * zeta), s = CM_PI - atan(2 * zeta * sq / (1 - 2 * zeta * zeta));
  *e = -exp(-zeta * s / sq) * (cos(s) - zeta / sq * sin(s));
  *tstar = s / (w * sq);
}

/* planar reference for the tilted box: returns restitution and contact duration */
static void tilted_reference(double mass, double J, double tilt, const double b[2], double K,
                             double D, double v0, double* e, double* dur) {
  /* state: z, theta, vz, w (x decouples: no friction); the edge starts at z = 0 */
  double y[4] = {b[0] * sin(tilt) - b[1] * cos(tilt), tilt, -v0, 0}, dt = 1e-6, t = 0;
  int in = 0;
  double t_in = 0;
  for (long i = 0; i < 10000000; i++) {
    double k[4][4], tmp[4];
    for (int st = 0; st < 4; st++) {
      const double* yy = y;
      if (st) {
        double f = st == 3 ? 1.0 : 0.5;
        for (int j = 0; j < 4; j++) tmp[j] = y[j] + f * dt * k[st - 1][j];
        yy = tmp;
      }
      double rx = b[0] * cos(yy[1]) + b[1] * sin(yy[1]);
      double rz = -b[0] * sin(yy[1]) + b[1] * cos(yy[1]);
      double pz = yy[0] + rz, vpz = yy[2] - yy[3] * rx; /* w x r, w along y */
      double F = K * -pz + D * -vpz;
      if (!(pz < 0) || F < 0) F = 0;
      k[st][0] = yy[2];
      k[st][1] = yy[3];
      k[st][2] = F / mass;
      k[st][3] = -rx * F / J;
    }
    for (int j = 0; j < 4; j++)
      y[j] += dt / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
    t += dt;
    double rx = b[0] * cos(y[1]) + b[1] * sin(y[1]);
    double rz = -b[0] * sin(y[1]) + b[1] * cos(y[1]);
    double pz = y[0] + rz, vpz = y[2] - y[3] * rx;
    int pushing = pz < 0 && K * -pz + D * -vpz > 0;
    if (pushing && !in) {
      in = 1;
      t_in = t;
    }
    if (in && !pushing) {
      *e = vpz / v0;
      *dur = t - t_in;
      return;
    }
  }
  *e = *dur = -1;
}

static cmModel* drop_scene(int shape, int res, double tilt_deg, double T, double v0) {
  cmBodyDef b;
  if (shape == 0) {
    b = scene_sphere("body", 0.05, res);
    b.position[2] = 0.05 + v0 * 2.5e-3; /* first contact between steps 2 and 3 */
  } else {
    b = scene_box("body", 0.1, 0.08, 0.06, res);
    double e[3] = {0, tilt_deg, 0};
    cm_quat_from_euler_deg(b.orientation, e);
    double t = tilt_deg * CM_PI / 180;
    /* lowest point of the box rotated about y: half extents 0.05, 0.03 in x, z */
    b.position[2] = 0.05 * fabs(sin(t)) + 0.03 * cos(t) + v0 * 2.5e-3;
  }
  b.velocity[2] = -v0;
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  cmScene* s = scene_on_ground("drop", NULL, &b, &r);
  s->opt.timestep = 1e-3;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  return scene_compile(s);
}

/* normal velocity of the body point b (body frame, relative to the com at the origin) */
static double point_vz(const cmModel* m, const cmData* d, const double b[3]) {
  (void)m;
  double r[3], wxr[3];
  cm_quat_rotate(r, d->body_xquat + 4, b);
  cm_v3_cross(wxr, d->body_angvel + 3, r);
  return d->body_cvel[5] + wxr[2];
}

static double run_drop(int shape, int res, double tilt, const char* name, double e_tol) {
  const double T = 0.1, v0 = 0.1, er = 0.5;
  cmModel* m = drop_scene(shape, res, tilt, T, v0);
  if (!m) return 1;
  cmData* d = cm_data_new(m);
  /* the lower bottom edge of the tilted box (body frame): (+0.05, y, -0.03) for a positive
   * rotation about y */
  double b[3] = {0, 0, 0};
  if (shape && tilt != 0) cm_v3_set(b, 0.05, 0, -0.03);
  /* the first contact episode: consecutive steps in which the law pushes */
  int contact_steps = 0, started = 0;
  double e = 0;
  for (int i = 0; i < 400; i++) {
    cm_step(m, d);
    int pushing = d->npair && d->pair[0].force[2] < 0; /* force on the ground (body 0) is down */
    if (pushing) {
      started = 1;
      contact_steps++;
    } else if (started) {
      e = point_vz(m, d, b) / v0; /* the step after the last push */
      break;
    }
  }
  double dur = contact_steps * m->opt.timestep;
  /* prediction: the clamped oscillator, or the planar reference for the tilted box */
  double mass = m->body_mass[1], J = m->body_inertia[9 + 4], T2 = T * T;
  double e_pred, t_pred;
  if (b[0] != 0) {
    double K = mass * CM_PI * CM_PI / T2, D = -2 * mass * log(er) / T, b2[2] = {b[0], b[2]};
    tilted_reference(mass, J, tilt * CM_PI / 180, b2, K, D, v0, &e_pred, &t_pred);
  } else {
    clamped(-log(er) / CM_PI, CM_PI / T, &e_pred, &t_pred);
  }
  printf("  %-22s restitution %.4f (derived %.4f), contact %.3f s (derived %.4f s, T = %.2f s)\n",
         name, e, e_pred, dur, t_pred, T);
  if (e_tol > 0) CHECK_REL(e, e_pred, e_tol);
  /* counted in whole steps: within a step at each end (it allowed 5 %, 4.4 steps) */
  CHECK(fabs(dur - t_pred) <= 2 * m->opt.timestep);
  cm_data_free(d);
  cm_model_free(m);
  return fabs(e - e_pred) / e_pred;
}

static void test_restitution_and_duration(void) {
  double e, ts;
  clamped(-log(0.5) / CM_PI, CM_PI / 0.1, &e, &ts);
  CHECK_NEAR(e, 0.5433, 1e-4);
  CHECK_NEAR(ts / 0.1, 0.880, 1e-3);
  run_drop(0, 3, 0, "sphere, refine 3", 0.02);
  run_drop(0, 5, 0, "sphere, refine 5", 0.02);
  run_drop(1, 1, 0, "box, 1x1", 0.02);
  run_drop(1, 8, 0, "box, 8x8", 0.02);
  /* the tilted box approaches the reference as its edge is sampled more finely (16 -> 32
   * halves the error); from 32 x 32 on it is within 2%, the remaining ~1.3% being the time
   * discretisation of a contact that lasts only 53 steps */
  double e16 = run_drop(1, 16, 20, "box tilted 20 deg, 16x16", 0);
  double e32 = run_drop(1, 32, 20, "box tilted 20 deg, 32x32", 0.02);
  double e64 = run_drop(1, 64, 20, "box tilted 20 deg, 64x64", 0.02);
  /* halved: 2.3 % -> 1.2 % measured (it checked only e32 < e16); beyond, the time step's 1.3 %
   * remains, so 64 x 64 is no better than 32 x 32 but within the same 2 % */
  CHECK(e32 < 0.6 * e16);
  CHECK(e64 < 0.02);
}

/* comply advise contact-time --restitution E gives the e_r that the integrated law restitutes as
 * E (src/tools/advise.c): a flat box (4 bottom corners, pressure centroid under the com, so
 * m_rep = the effective mass) dropped at 0.1 m/s, T = 0.02 s. The explicit step adds an error of
 * first order in h/T, which depends on where in a step the contact starts: averaged over 8 impact
 * phases it is at most 0.2 h/T (measured 0.16 h/T at E = 0.3, 0.03 at 0.6, 0.01 at 0.9) at
 * T/h = 25 ... 200, and one drop at the default T/h = 100 is within 1 %. (The e_r of the
 * pull-allowed inverse, 0.604 for 0.6, restitutes 0.632: 16 times that bound at T/h = 100.) */
static double advised_drop(double er, double T, double h, double phase) {
  const double v0 = 0.1;
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.05, 1);
  b.position[2] = 0.025 + v0 * h * (2 + phase);
  b.velocity[2] = -v0;
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  r.elastic_repulsion = er;
  cmScene* s = scene_on_ground("advised", NULL, &b, &r);
  s->opt.timestep = h;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmModel* m = scene_compile(s);
  if (!m) return -1;
  cmData* d = cm_data_new(m);
  int started = 0;
  double e = -1;
  for (int i = 0; i < 100000 && cm_step(m, d) == CM_OK; i++) {
    int pushing = d->npair > 0 && cm_v3_norm(d->pair[0].force) > 0;
    if (pushing) {
      started = 1;
    } else if (started) {
      e = d->body_cvel[5] / v0;
      break;
    }
  }
  cm_data_free(d);
  cm_model_free(m);
  return e;
}

static void test_advised_restitution(void) {
  const double es[] = {0.3, 0.6, 0.9}, T = 0.02;
  char err[256];
  for (int i = 0; i < 3; i++) {
    double er = 0;
    CHECK(cm_advise_contact_time_er(es[i], &er, err, sizeof err) == CM_OK);
    printf("  E = %.1f: e_r = %.5f; mean restitution over 8 impact phases at T/h =", es[i], er);
    for (int n = 25; n <= 200; n *= 2) {
      double sum = 0, h = T / n;
      for (int k = 0; k < 8; k++)
        sum += advised_drop(er, T, h, k / 8.0);
      printf(" %d: %.5f", n, sum / 8);
      CHECK_NEAR(sum / 8, es[i], 0.2 * h / T);
    }
    double one = advised_drop(er, T, T / 100, 0);
    printf("; one drop at T/h = 100: %.5f\n", one);
    CHECK_REL(one, es[i], 0.01);
  }
}

/* A contact_time shorter than 10 steps is noted at compile time, and the note is right: its
 * contacts are found a step late and rebound too fast. The box of advised_drop (e_r 0.5, law
 * 0.5433) over 8 impact phases: at T = 2 h the mean restitution is far above the law's (0.87 in
 * an audit's sphere), at T = 20 h within 10 % of it; 10 steps and more give no note. */
static int noted(double T, double h, double mu, const char* text) {
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.05, 1);
  cmRuleDef r = cm_rule_def_default();
  r.contact_time = T;
  r.friction = mu;
  cmScene* s = scene_on_ground("short", NULL, &b, &r);
  s->opt.timestep = h;
  cmModel* m = scene_compile(s);
  int said = 0;
  for (int i = 0; m && i < m->nnote; i++)
    said |= strstr(m->note[i], text) != NULL;
  cm_model_free(m);
  return said;
}

static void test_short_contact_time(void) {
  const double h = 1e-3;
  const char* fast = "rebound faster than its elastic_repulsion says";
  CHECK(noted(2 * h, h, 0, fast) && noted(9 * h, h, 0, fast));
  CHECK(!noted(10 * h, h, 0, fast) && !noted(0.1, h, 0, fast));
  /* with friction: its one point per pair (docs/contact-laws.md) */
  const char* one = "acts at one point per body pair";
  CHECK(noted(0.1, h, 0.5, one) && !noted(0.1, h, 0, one));
  double e2 = 0, e20 = 0, law, dur;
  clamped(-log(0.5) / CM_PI, 1, &law, &dur);
  for (int k = 0; k < 8; k++) {
    e2 += advised_drop(0.5, 2 * h, h, k / 8.0) / 8;
    e20 += advised_drop(0.5, 20 * h, h, k / 8.0) / 8;
  }
  printf("  restitution at T = 2 h: %.4f, at 20 h: %.4f (law %.4f)\n", e2, e20, law);
  CHECK(e2 > law + 0.1);
  CHECK_REL(e20, law, 0.1);
}

int main(void) {
  RUN(test_restitution_and_duration);
  RUN(test_advised_restitution);
  RUN(test_short_contact_time);
  return test_report();
}
