/* Softened contacts: a rule's min_period (src/contact/laws.c, docs/contact-laws.md "Softened
 * contacts: min_period").
 *
 * A body whose implicit rows (stiffness K_i, inverse effective mass w_i along the normal) give
 * Omega = sum K_i w_i above cap = (2 pi / (min_period h))^2 has the rows of that rule scaled by
 * s = cap / Omega, stiffness and damping alike: no contact mode of the body is then faster than
 * min_period sub-steps. Derived here for a box of mass m and size sx x sy x sz lying flat on a
 * plane (divisions 1: four bottom corners at (+-sx/2, +-sy/2) from its centre of mass, normal
 * z): r x n = (ry, -rx, 0), so each corner has
 *   w = 1/m + ry^2 / Ixx + rx^2 / Iyy,  Ixx = m (sy^2 + sz^2) / 12,  Iyy = m (sx^2 + sz^2) / 12,
 * the same for the four, Omega = w ka sum A, and the softened rows sum to s ka sum A = cap / w
 * whatever the areas: the box rests at the depth m g w / cap and oscillates vertically with
 * w0^2 = cap / (m w). At ka 5e10 Omega is about 6e9 /s^2, cap for min_period 40 at h = 1 ms
 * about 2.5e4: every row is softened.
 *
 * Claims:
 *  - at rest the box sinks to m g w / cap (1e-6), every row counts in soft_rows, and soft_factor
 *    is cap / (w ka sum A);
 *  - the bound is per body, not per row, so the depth converges as the face's mesh is refined
 *    (divisions 1, 2, 4, 8: 4 to 81 rows): at each, m g wbar / cap (1e-6) with wbar the rows'
 *    area-weighted mean w, tending to the face's mean w at second order (8 within 2 % of it;
 *    a bound per row would make the face 20 times stiffer at 81 rows than at 4);
 *  - the linear law likewise (its stiffness per point in place of ka A);
 *  - with min_period far below the body's period nothing is softened: soft_rows 0, the depth
 *    the law's m g / (ka sum A);
 *  - a rigid body on a deformable one is bounded by its own mass, not the layer's nodes (the
 *    cartilage_pad example with min_period 4: the same states);
 *  - explicit rows are not softened, and the compiler notes that min_period has no effect;
 *  - a retried step counts the rows of its last attempt only; out of memory in a step, where the
 *    rows could not be softened, a counted warning (contact_limit) says so;
 *  - undamped (step_damping 0), the box oscillates with the period of the implicit step's
 *    mid-step scheme for w0 (cos theta = (2 - a) / (2 sqrt(1 + a)), a = (w0 h)^2 / 2, period
 *    2 pi h / theta), to 0.3 %;
 *  - the S2 pile of 27 boxes (the peer kit's scene, tests/data/s2_pile_27.yaml) at ka 5e10 over
 *    its first second: with min_period 4 every solve converges in at most 8 Newton iterations
 *    per step on average, fewer than 0.7 times those of the law unsoftened (4.5 against 12.4 when
 *    written). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "solve/solve.h"
#include "test.h"

#define H 1e-3
#define MASS 0.5
#define SX 0.1
#define SY 0.1
#define SZ 0.05
#define G 9.81
#define KA 5e10

/* the corners' inverse effective mass w (module comment) */
static double corner_w(void) {
  double ixx = MASS * (SY * SY + SZ * SZ) / 12, iyy = MASS * (SX * SX + SZ * SZ) / 12;
  double rx = SX / 2, ry = SY / 2;
  return 1 / MASS + ry * ry / ixx + rx * rx / iyy;
}

/* cap = (2 pi / (beta h))^2, 1/s^2 */
static double cap_of(double beta) {
  double T = beta * H;
  return 4 * CM_PI * CM_PI / (T * T);
}

/* law: CM_LAW_AREA_COMPLIANT (ka KA) or CM_LAW_LINEAR (stiffness KA * 0.0025 per point) */
static cmLawType g_law = CM_LAW_AREA_COMPLIANT;

static cmModel* box_div_on_ground(int div, double beta, double step_damping, double z0,
                                  double vz0) {
  cmBodyDef b = scene_box("box", SX, SY, SZ, div);
  b.mass = MASS;
  b.position[2] = z0;
  b.velocity[2] = vz0;
  cmRuleDef r = cm_rule_def_default();
  r.law = g_law;
  r.ka = KA;
  r.stiffness = KA * 0.0025;
  r.damping = step_damping * H * r.stiffness; /* the linear law's D = step_damping h K */
  r.step_damping = step_damping;
  r.min_period = beta;
  cmScene* s = scene_on_ground("min_period", NULL, &b, &r);
  s->opt.timestep = H;
  s->opt.substeps = 1;
  return scene_compile(s);
}

static cmModel* box_on_ground(double beta, double step_damping, double z0, double vz0) {
  return box_div_on_ground(1, beta, step_damping, z0, vz0);
}

/* the box of divisions div at rest (1.5 s from 1e-9 m inside the plane, step_damping 20: the
 * softened box rings at about 10 Hz, and at 1 its oscillation still had 1 % of its amplitude
 * left): its depth (m), the rows softened, the least factor, the contacts' total area and their
 * area-weighted mean w (each row's w from its point's lever arm, the box unturned) */
static double rest_depth(int div, double beta, long* soft, double* factor, double* area,
                         double* wmean) {
  cmModel* m = box_div_on_ground(div, beta, 20, SZ / 2 - 1e-9, 0);
  if (!m) return -1;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 1500; i++)
    CHECK(cm_step(m, d) == CM_OK);
  double depth = SZ / 2 - d->body_xpos[5];
  *soft = d->soft_rows;
  *factor = d->soft_factor;
  double ixx = MASS * (SY * SY + SZ * SZ) / 12, iyy = MASS * (SX * SX + SZ * SZ) / 12, aw = 0;
  *area = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    double rx = c->p0[0] - d->body_xpos[3], ry = c->p0[1] - d->body_xpos[4];
    *area += c->area;
    aw += c->area * (1 / MASS + ry * ry / ixx + rx * rx / iyy);
  }
  *wmean = aw / *area;
  CHECK(d->ncontact == (div + 1) * (div + 1));
  cm_data_free(d);
  cm_model_free(m);
  return depth;
}

static void test_rest_depth(void) {
  const double beta = 40, w = corner_w(), cap = cap_of(beta), delta = MASS * G * w / cap;
  long soft;
  double factor, area, wm, depth = rest_depth(1, beta, &soft, &factor, &area, &wm);
  printf("  min_period %g: depth %.9g m, expected %.9g (softened by %.4g)\n", beta, depth, delta,
         factor);
  CHECK_REL(depth, delta, 1e-6);
  CHECK(soft == 4 * 1500L);
  CHECK_REL(factor, cap / (w * KA * area), 1e-12);
  CHECK(factor < 1e-4);
  CHECK_REL(wm, w, 1e-12);
  /* finer meshes: each resolution at m g wbar / cap, wbar its rows' area-weighted mean w, which
   * tends to the face's mean 1/m + (sy^2 / 12) / Ixx + (sx^2 / 12) / Iyy as the mesh is refined
   * (second order: the error falls about 4 times per halving) */
  const int divs[4] = {1, 2, 4, 8};
  const double ixx = MASS * (SY * SY + SZ * SZ) / 12, iyy = MASS * (SX * SX + SZ * SZ) / 12;
  const double wface = 1 / MASS + SY * SY / 12 / ixx + SX * SX / 12 / iyy;
  double dd[4];
  for (int k = 0; k < 4; k++) {
    dd[k] = rest_depth(divs[k], beta, &soft, &factor, &area, &wm);
    CHECK_REL(dd[k], MASS * G * wm / cap, 1e-6);
  }
  double lim = MASS * G * wface / cap;
  printf("  depth by divisions 1, 2, 4, 8: %.6g %.6g %.6g %.6g m; the face's mean w gives %.6g\n",
         dd[0], dd[1], dd[2], dd[3], lim);
  for (int k = 1; k < 4; k++)
    CHECK(dd[k] - lim < (dd[k - 1] - lim) / 3 && dd[k] > lim);
  CHECK_REL(dd[3], lim, 0.02);

  /* the linear law (stiffness per point) is bounded alike: the same depth m g w / cap */
  g_law = CM_LAW_LINEAR;
  depth = rest_depth(1, beta, &soft, &factor, &area, &wm);
  g_law = CM_LAW_AREA_COMPLIANT;
  printf("  linear law, min_period %g: depth %.9g m\n", beta, depth);
  CHECK_REL(depth, delta, 1e-6);
  CHECK(soft == 4 * 1500L && factor < 1e-4);

  /* min_period 0.01 sub-steps: cap = 4 pi^2 / 1e-10 ~ 4e11 /s^2, above Omega ~ 6e9 */
  depth = rest_depth(1, 0.01, &soft, &factor, &area, &wm);
  printf("  min_period 0.01: depth %.6g m, the law's %.6g\n", depth, MASS * G / (KA * area));
  CHECK(soft == 0 && factor == 0);
  CHECK_REL(depth, MASS * G / (KA * area), 1e-6);
}

/* explicit rows are not softened, and the compiler says that the rule's min_period has no
 * effect there */
static void test_explicit_note(void) {
  cmBodyDef b = scene_box("box", SX, SY, SZ, 1);
  b.mass = MASS;
  b.position[2] = SZ / 2 - 1e-9;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 1e6; /* resolved by substeps: auto's sub-steps at any rate */
  r.min_period = 40;
  r.integration = CM_INTEGRATION_EXPLICIT;
  cmScene* s = scene_on_ground("explicit", NULL, &b, &r);
  s->opt.timestep = H;
  cmModel* m = scene_compile(s);
  if (!m) return;
  int said = 0;
  for (int i = 0; i < m->nnote; i++)
    said |= strstr(m->note[i], "min_period 40 has no effect") != NULL;
  CHECK(said);
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 50; i++)
    CHECK(cm_step(m, d) == CM_OK);
  CHECK(d->ncontact > 0 && d->soft_rows == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* examples/cartilage_pad.yaml for steps steps with min_period beta on its contact rule: the
 * state's hash and the rows softened */
static uint64_t pad_run(double beta, int steps, long* soft) {
  char path[1024], err[1024];
  snprintf(path, sizeof path, "%s/examples/cartilage_pad.yaml", CM_SOURCE_DIR);
  cmScene* s = NULL;
  CHECK(cm_scene_load(path, &s, err, sizeof err) == CM_OK);
  if (!s) return 0;
  CHECK(s->rule[0].law == CM_LAW_AREA_COMPLIANT);
  s->rule[0].min_period = beta;
  s->opt.vtk = 0;
  cmModel* m = scene_compile(s);
  if (!m) return 0;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < steps; i++)
    CHECK(cm_step(m, d) == CM_OK);
  uint64_t h = cm_data_hash(m, d);
  *soft = d->soft_rows;
  cm_data_free(d);
  cm_model_free(m);
  return h;
}

/* a rigid body on a deformable one is bounded by its own mass, not by the layer's light nodes:
 * the 5 kg condyle of examples/cartilage_pad.yaml on its 200 N contact rings slower than 4
 * sub-steps, so min_period 4 changes nothing (counting the nodes' inverse masses softened its
 * rows 2e5 times, 72 deep_penetration warnings in 200 steps) */
static void test_deformable_side(void) {
  long s0, s4;
  uint64_t h0 = pad_run(0, 20, &s0), h4 = pad_run(4, 20, &s4);
  CHECK(s0 == 0 && s4 == 0 && h0 == h4 && h0 != 0);
}

/* an allocator that fails its allocation number fail_at (0: none) */
static long a_calls = 0, a_fail_at = 0;
static void* a_malloc(size_t n, void* ctx) {
  (void)ctx;
  return ++a_calls == a_fail_at ? NULL : malloc(n);
}
static void* a_realloc(void* p, size_t n, void* ctx) {
  (void)ctx;
  return ++a_calls == a_fail_at ? NULL : realloc(p, n);
}
static void a_free(void* p, void* ctx) {
  (void)ctx;
  free(p);
}

/* out of memory in the first steps (the step's arena grows then; soften_rows asks it for the
 * bodies' bounds): each allocation of three steps fails once in turn; every step returns CM_OK
 * or a status (no crash, no leak under the sanitizers), and where the rows could not be
 * softened a counted warning says so, never a silent law */
static void test_out_of_memory(void) {
  cmModel* m = box_div_on_ground(2, 40, 1, SZ / 2 - 1e-9, 0);
  if (!m) return;
  static const cmAllocator failing = {a_malloc, a_realloc, a_free, NULL};
  int cases = 0, warned = 0, failed = 0;
  for (long k = 1;; k++) {
    cmData* d = cm_data_new(m);
    if (!d) break;
    a_calls = 0;
    a_fail_at = k;
    cm_set_allocator(&failing);
    int bad = 0;
    for (int i = 0; i < 3; i++) {
      cmStatus st = cm_step(m, d);
      bad |= st != CM_OK;
      CHECK(st == CM_OK || st == CM_ERR_NOMEM || st == CM_ERR_LIMIT);
    }
    cm_set_allocator(NULL);
    long calls = a_calls;
    a_fail_at = 0;
    CHECK(isfinite(d->body_xpos[5]));
    /* a sub-step whose rows were built but not softened counts a warning */
    if (d->soft_rows < 3 * 9) {
      warned += d->warning[CM_WARN_CONTACT_LIMIT] > 0;
      CHECK(bad || d->warning[CM_WARN_CONTACT_LIMIT] > 0);
    }
    failed += bad;
    cm_data_free(d);
    cases++;
    if (k > calls) break; /* no allocation left to fail */
  }
  printf("  %d allocations failed in turn: %d runs with a warning, %d with a failed step\n",
         cases - 1, warned, failed);
  CHECK(cases > 1);
  CHECK(warned > 0); /* the branch above was taken: the claim was tested, not skipped */
  cm_model_free(m);
}

/* a step retried in more sub-steps counts the rows of its last attempt only, like its verdicts
 * (engine/step.c): with no Newton iteration allowed the resting box's step is taken at h, h/2,
 * h/4 and h/8, and keeps 4 rows x 8 sub-steps, not the 60 of the four attempts */
static void test_retried_counts(void) {
  cmModel* m = box_on_ground(40, 1, SZ / 2 - 1e-9, 0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  long before = d->soft_rows;
  int saved = cm_solve_max_iter;
  cm_solve_max_iter = 0;
  CHECK(cm_step(m, d) == CM_OK);
  cm_solve_max_iter = saved;
  CHECK(d->solver_retries == 3);
  CHECK(before == 4 && d->soft_rows - before == 4 * 8);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_period(void) {
  const double beta = 40, w = corner_w(), cap = cap_of(beta), w0 = sqrt(cap / (MASS * w)),
               delta = MASS * G * w / cap;
  const double a = 0.5 * (w0 * H) * (w0 * H), theta = acos((2 - a) / (2 * sqrt(1 + a)));
  const double expect = 2 * CM_PI * H / theta;
  /* from the equilibrium, amplitude 0.2 delta: the contact never opens */
  cmModel* m = box_on_ground(beta, 0, SZ / 2 - delta, -0.2 * delta * w0);
  if (!m) return;
  cmData* d = cm_data_new(m);
  double x[3] = {0, 0, 0}, minima[6];
  int nmin = 0;
  for (long i = 0; i < 2000 && nmin < 6; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    x[0] = x[1];
    x[1] = x[2];
    x[2] = d->body_xpos[5];
    /* a minimum at step i - 1, located by the parabola through the three samples */
    if (i >= 2 && x[1] < x[0] && x[1] <= x[2]) {
      double den = x[0] - 2 * x[1] + x[2];
      minima[nmin++] = (double)(i - 1) + (den > 0 ? 0.5 * (x[0] - x[2]) / den : 0);
    }
  }
  CHECK(nmin == 6);
  if (nmin == 6) {
    double period = (minima[5] - minima[0]) / 5 * H;
    printf("  undamped period %.6g s, the mid-step scheme's %.6g s (the law's own %.3g s)\n",
           period, expect, 2 * CM_PI * sqrt(MASS / (4 * 5e10 * 0.0025)));
    CHECK_REL(period, expect, 1e-4); /* equal to the 6 digits printed; the minima are located to
                                          a fraction of a step by a parabola (it allowed 3e-3) */
  }
  cm_data_free(d);
  cm_model_free(m);
}

/* mean Newton iterations per solve over the first second of the 27-box pile at ka 5e10 */
static double pile_iterations(double beta, long* failed, long* soft) {
  char path[1024], err[1024];
  snprintf(path, sizeof path, "%s/tests/data/s2_pile_27.yaml", CM_SOURCE_DIR);
  cmScene* s = NULL;
  CHECK(cm_scene_load(path, &s, err, sizeof err) == CM_OK);
  if (!s) return -1;
  cmRuleDef* r = &s->rule[s->nrule - 1];
  r->ka = KA;
  r->min_period = beta;
  cmModel* m = scene_compile(s);
  if (!m) return -1;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 1000; i++)
    CHECK(cm_step(m, d) == CM_OK);
  double mean = (double)d->solver_total_iter / (double)d->solver_solves;
  *failed = d->solver_failed_solves + d->warning[CM_WARN_SOLVER];
  *soft = d->soft_rows;
  cm_data_free(d);
  cm_model_free(m);
  return mean;
}

static void test_pile(void) {
  long f0, f4, s0, s4;
  double it0 = pile_iterations(0, &f0, &s0), it4 = pile_iterations(4, &f4, &s4);
  printf("  S2 27 at ka 5e10, 1 s: %.2f Newton iterations per step, %.2f with min_period 4 "
         "(%ld rows softened)\n",
         it0, it4, s4);
  CHECK(s0 == 0 && s4 > 0);
  CHECK(f4 == 0);
  CHECK(it4 > 0 && it4 <= 8);
  CHECK(it4 < 0.7 * it0);
}

int main(void) {
  RUN(test_rest_depth);
  RUN(test_period);
  RUN(test_explicit_note);
  RUN(test_retried_counts);
  RUN(test_out_of_memory);
  RUN(test_deformable_side);
  RUN(test_pile);
  return test_report();
}
