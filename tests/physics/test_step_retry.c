/* A step whose implicit solve does not converge is taken again in twice the sub-steps
 * (engine/step.c, docs/contact-laws.md "Retried steps").
 *
 * The scene: a 0.1 m box (1 kg, divisions 2) tilted about two axes, dropped 2 mm onto the
 * ground plane at 0.5 m/s, area_compliant ka 5e10, friction 1, h = 1 ms: its corner strikes,
 * the box rocks onto an edge and a face, and the stiff contacts open and close within steps, the
 * case where a step's solve needs the most Newton iterations.
 *
 * Claims:
 *  - halving the step lowers the Newton iterations of the hardest step of the drop (the
 *    contact's period, 0.4 ms at ka 5e10 on the box's 0.0025 m^2 corner patches, is better
 *    resolved): the premise of the retry, measured, not assumed;
 *  - with the iteration limit set between the two counts, the step fails at h, is retried at
 *    h / 2 and converges: cm_step returns CM_OK, no unconverged solve nor solver warning is
 *    counted, solver_retries is 1, and the state is bit for bit the one the same step gives
 *    with substeps: 2 from the same start with the law of the step at h (step_damping doubled,
 *    so that D = step_damping h K: a retry changes the integration, not the law; engine/step.c);
 *    the solves and iterations of the abandoned attempt stay counted;
 *  - with a limit that no split meets (0 iterations), the step is retried three times (to 8
 *    sub-steps, CM_RETRY_SPLIT_MAX) and then counts the last attempt's unconverged solves only
 *    (one per sub-step with contacts), each with its warning; the state stays finite and cm_step
 *    returns CM_OK (the warning is the user's signal, SPEC's exit-0-with-warnings rule). */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "solve/solve.h"
#include "test.h"

static char err[1024];

static cmModel* tilted_drop(void) {
  cmScene* s = cm_scene_new("retry");
  s->opt.timestep = 1e-3;
  s->opt.substeps = 1;
  cm_v3_set(s->opt.gravity, 0, 0, -9.81);
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) == 0);
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 2);
  b.mass = 1;
  /* 0.3 rad about x, then 0.2 rad about y: the lowest corner 2 mm above the ground */
  double qx[4], qy[4], ax[3] = {1, 0, 0}, ay[3] = {0, 1, 0};
  cm_quat_from_axis_angle(qx, ax, 0.3);
  cm_quat_from_axis_angle(qy, ay, 0.2);
  cm_quat_mul(b.orientation, qy, qx);
  double low = 0;
  for (int c = 0; c < 8; c++) {
    double corner[3] = {c & 1 ? 0.05 : -0.05, c & 2 ? 0.05 : -0.05, c & 4 ? 0.05 : -0.05}, w[3];
    cm_quat_rotate(w, b.orientation, corner);
    low = fmin(low, w[2]);
  }
  b.position[2] = 0.002 - low;
  b.velocity[2] = -0.5;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 1);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 5e10;
  r.friction = 1;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  return scene_compile(s);
}

/* one step of d at `substeps` sub-steps, the law of the step at h kept (the rule's step_damping
 * times the sub-steps, so that D = step_damping h K is the step's: what a retry at that split
 * integrates); the largest Newton count of its solves */
static int step_at(cmModel* m, cmData* d, int substeps) {
  m->opt.substeps = substeps;
  for (int r = 0; r < m->nrule; r++)
    m->rule[r].step_damping *= substeps;
  d->solver_max_iter = 0;
  CHECK(cm_step(m, d) == CM_OK);
  m->opt.substeps = 1;
  for (int r = 0; r < m->nrule; r++)
    m->rule[r].step_damping /= substeps;
  return d->solver_max_iter;
}

static void test_retry(void) {
  cmModel* m = tilted_drop();
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmData* start = cm_data_new(m);
  cmData* e = cm_data_new(m);
  /* the hardest step of the drop's first 150 ms, at h and at h / 2 from the same state */
  int n_h = 0, n_half = 0;
  for (int i = 0; i < 150; i++) {
    CHECK(cm_data_copy(m, e, d) == CM_OK);
    int k = step_at(m, d, 1);
    CHECK(d->solver_failed_solves == 0);
    if (k > n_h) {
      n_h = k;
      CHECK(cm_data_copy(m, start, e) == CM_OK);
    }
  }
  /* the same step at 2 and at 8 sub-steps: the states, solves and iterations a retry repeats
   * (a sub-step before the contact starts has no solve) */
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  n_half = step_at(m, e, 2);
  uint64_t half_hash = cm_data_hash(m, e);
  long solves2 = e->solver_solves - start->solver_solves;
  long iters2 = e->solver_total_iter - start->solver_total_iter;
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  step_at(m, e, CM_RETRY_SPLIT_MAX);
  long solves8 = e->solver_solves - start->solver_solves;
  CHECK(solves2 >= 1 && solves8 >= solves2);
  printf("  hardest step of the drop (t = %.3f s): %d Newton iterations at h, at most %d in each "
         "half at h / 2\n",
         start->time, n_h, n_half);
  CHECK(n_h > n_half && n_half > 0);
  if (!(n_h > n_half && n_half > 0)) goto done;

  /* a limit between the two: fails at h, converges at h / 2 */
  int saved = cm_solve_max_iter;
  cm_solve_max_iter = n_half;
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  long solves = e->solver_solves, iters = e->solver_total_iter;
  step_at(m, e, 1);
  printf("  limit %d: retries %ld, unconverged %ld, solves +%ld, iterations +%ld\n", n_half,
         e->solver_retries - start->solver_retries, e->solver_failed_solves,
         e->solver_solves - solves, e->solver_total_iter - iters);
  CHECK(e->solver_retries == start->solver_retries + 1);
  CHECK(e->solver_failed_solves == start->solver_failed_solves);
  CHECK(e->warning[CM_WARN_SOLVER] == start->warning[CM_WARN_SOLVER]);
  CHECK(e->solver_max_residual == start->solver_max_residual);
  CHECK(cm_data_hash(m, e) == half_hash);
  /* the abandoned attempt's one solve of n_half iterations, then the halves' */
  CHECK(e->solver_solves == solves + 1 + solves2);
  CHECK(e->solver_total_iter == iters + n_half + iters2);

  /* a limit no split meets */
  cm_solve_max_iter = 0;
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  solves = e->solver_solves;
  step_at(m, e, 1);
  long failed = e->solver_failed_solves - start->solver_failed_solves;
  printf("  limit 0: retries %ld, unconverged solves %ld, solves +%ld\n",
         e->solver_retries - start->solver_retries, failed, e->solver_solves - solves);
  CHECK(e->solver_retries == start->solver_retries + 3);
  CHECK(e->warning[CM_WARN_SOLVER] - start->warning[CM_WARN_SOLVER] == failed);
  /* three abandoned attempts of one solve each (each stops at its first), then the last one's
   * sub-steps, all taken: each of its solves fails at 0 iterations and is counted. (How many
   * sub-steps have contacts depends on what the failed solves leave: their start, the warm
   * start, can lift the box off, so not always those of the converged run at 8 sub-steps.) */
  long last = e->solver_solves - solves - 3;
  CHECK(last >= 1 && last <= CM_RETRY_SPLIT_MAX && solves8 >= 1);
  CHECK(failed == last);
  for (int b = 0; b < m->nbody; b++)
    CHECK(isfinite(e->body_cpos[3 * b + 2]) && isfinite(e->body_cvel[3 * b + 2]));
  cm_solve_max_iter = saved;
done:
  cm_data_free(d);
  cm_data_free(start);
  cm_data_free(e);
  cm_model_free(m);
}

/* A retried landing keeps the law of its step (engine/step.c). examples/falling_boxes.yaml's
 * box1 (0.1 m, 0.5 kg, divisions 4, ka 5e10 under the default rule, h = 1 ms) lands flat at
 * 2.2 m/s; its landing step starts already penetrated by what the step before travelled. With
 * the solve's tolerance at 1e-14 (below what the API accepts: set here on the compiled model),
 * rounding stops every attempt short of it until the sub-steps are fine enough, so the landing
 * step is retried. The retried step ends bit for bit as the same step at that split with the
 * law of the step at h (step_damping times the split: D = step_damping h K), and the box leaves
 * the ground at about the speed of the step at h: with the sub-steps' own damping (the retry
 * before 2026-12-06) the same penetration is pushed out with 2^k times less damping, and the
 * box left at 8.28 m/s instead of 1.09. */
static void test_retry_keeps_law(void) {
  cmScene* s = cm_scene_new("landing");
  s->opt.timestep = 1e-3;
  s->opt.substeps = 1;
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) == 0);
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 4);
  b.density = 500;
  b.position[2] = 0.05 + 0.0105;
  b.velocity[2] = -2.2;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 1);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 5e10;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmData* start = cm_data_new(m);
  cmData* e = cm_data_new(m);
  /* up to the landing: the first step with a solve */
  long solves = 0;
  for (int i = 0; i < 30 && solves == 0; i++) {
    CHECK(cm_data_copy(m, start, d) == CM_OK);
    step_at(m, d, 1);
    solves = d->solver_solves;
  }
  double v_in = start->body_cvel[5], v_h = d->body_cvel[5];
  /* the landing again at the tolerance 1e-14 */
  m->opt.solver_tolerance = 1e-14;
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  CHECK(cm_step(m, e) == CM_OK);
  long retries = e->solver_retries - start->solver_retries;
  int split = 1 << retries;
  double v_r = e->body_cvel[5];
  uint64_t h_r = cm_data_hash(m, e);
  /* the references at that split: the step's law, and the sub-steps' own damping */
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  step_at(m, e, split);
  uint64_t h_law = cm_data_hash(m, e);
  double v_law = e->body_cvel[5];
  CHECK(cm_data_copy(m, e, start) == CM_OK);
  m->opt.substeps = split;
  CHECK(cm_step(m, e) == CM_OK);
  m->opt.substeps = 1;
  double v_own = e->body_cvel[5];
  m->opt.solver_tolerance = CM_SOLVER_TOLERANCE_AUTO;
  printf("  landing at %.3f m/s: leaves at %.4f m/s at h; at 1e-14 %ld retries, leaves at %.4f "
         "m/s (at %d sub-steps: the step's law %.4f, the sub-steps' own damping %.4f)\n",
         v_in, v_h, retries, v_r, split, v_law, v_own);
  CHECK(v_in < -2.1 && v_h > 0);
  CHECK(retries >= 1);
  CHECK(h_r == h_law);
  CHECK(fabs(v_r - v_h) < 0.5 * fabs(v_h));
  CHECK(fabs(v_r - v_h) < fabs(v_own - v_h));
  cm_data_free(d);
  cm_data_free(start);
  cm_data_free(e);
  cm_model_free(m);
}

int main(void) {
  RUN(test_retry);
  RUN(test_retry_keeps_law);
  return test_report();
}
