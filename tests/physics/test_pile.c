/* A pile of boxes on a fixed plane through the block-sparse Newton solve (block_cholesky.c).
 *
 * The pile is a square pyramid of L layers of 0.1 m cubes (1 kg, divisions 4): layer j from
 * the bottom holds (L - j)^2 boxes on a pitch of 0.102 m (2 mm gaps), and each layer is offset
 * by half a pitch so that every box above the bottom layer sits centred on four boxes. Every
 * box then touches up to 8 others: all the boxes are one island whose body graph is a 3D grid,
 * the case a dense 6n x 6n factorisation handles worst (an aligned stack of columns would split
 * into one small island per column). The interfaces start interpenetrating by 1e-7 m (about
 * the resting penetration of the bottom layer under ka = 5e10 Pa/m); area_compliant, friction
 * 0.5, h = 1 ms, gravity 9.81.
 *
 * Claims:
 *  - momentum balance: averaged over the last 50 steps the total contact force on the ground is
 *    sum m g + sum m dv_z/dt to 1e-9 (the reported forces are the ones that moved the bodies;
 *    internal forces cancel), and the pile has settled (dv/dt and |v| tiny) so it is the total
 *    weight to 1e-6;
 *  - every step's implicit solve converges (no solver warning), in at most 8 Newton
 *    iterations per step on average;
 *  - the sparse path reproduces the dense one on a small pile (3 layers, 14 boxes): identical
 *    positions when the orderings agree, else within 1e-9 relative (different elimination
 *    orders round differently);
 *  - the coupled Newton steps and the reused factor reach the plain iteration's step from the
 *    same state, in fewer Newton iterations, and so do conjugate gradients in place of the
 *    factor (test_pile_solver_paths). */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "model/data_internal.h"
#include "scenes.h"
#include "solve/block_cholesky.h"
#include "solve/solve.h"
#include "test.h"

static char err[1024];

#define SIZE 0.1
#define PITCH 0.102
#define OVERLAP 1e-7

static cmModel* pyramid_ka(int layers, double friction, double ka) {
  cmScene* s = cm_scene_new("pile");
  s->opt.timestep = 1e-3;
  cm_v3_set(s->opt.gravity, 0, 0, -9.81);
  cmBodyDef gr = scene_ground();
  CHECK(cm_scene_add_body(s, &gr, err, sizeof err) == 0);
  char name[64];
  for (int j = 0; j < layers; j++) {
    int k = layers - j;
    for (int iy = 0; iy < k; iy++)
      for (int ix = 0; ix < k; ix++) {
        snprintf(name, sizeof name, "box_%d_%d_%d", j, iy, ix);
        cmBodyDef b = scene_box(name, SIZE, SIZE, SIZE, 4);
        b.position[0] = (ix - 0.5 * (k - 1)) * PITCH;
        b.position[1] = (iy - 0.5 * (k - 1)) * PITCH;
        b.position[2] = j * (SIZE - OVERLAP) - OVERLAP + 0.5 * SIZE;
        if (cm_scene_add_body(s, &b, err, sizeof err) < 0) fprintf(stderr, "%s\n", err);
      }
  }
  return scene_compile_area(s, ka, friction);
}

static cmModel* pyramid(int layers, double friction) {
  return pyramid_ka(layers, friction, 5e10);
}

/* upward force of the ground on the pile (the ground is body 0) */
static double ground_force(const cmData* d) {
  double f = 0;
  for (int k = 0; k < d->npair; k++) {
    const cmContactPair* p = &d->pair[k];
    if (p->body[0] == 0) f -= p->force[2]; /* force on A = the ground; the pile gets minus it */
    if (p->body[1] == 0) f += p->force[2];
  }
  return f;
}

/* The pile of 5 layers (55 boxes, ka 5e10) resting for steps steps at the scene's solver
 * tolerance tol (CM_SOLVER_TOLERANCE_AUTO or a value): over the last avg steps the mean upward
 * force of the ground f, the pile's weight W and its rate of momentum change dp/dt, and the run's
 * largest velocity, Newton iterations (mean, max), largest final residual and solve counts */
typedef struct WeightRun {
  double f, W, dpdt, vmax, mean, max_res;
  int maxit, warn;
  long solves, failed;
} WeightRun;

static WeightRun weight_run(double tol) {
  const int layers = 5, steps = 200, avg = 50;
  WeightRun w;
  memset(&w, 0, sizeof w);
  cmModel* m = pyramid(layers, 0.5);
  CHECK(m != NULL);
  if (!m) return w;
  CHECK(m->nbody == 1 + 55);
  CHECK(cm_bchol_dense_max < 55); /* the sparse path */
  m->opt.solver_tolerance = tol;
  cmData* d = cm_data_new(m);
  double mass = 0, fsum = 0, p0 = 0, p1 = 0;
  for (int b = 1; b < m->nbody; b++)
    mass += m->body_mass[b];
  for (int i = 0; i < steps; i++) {
    if (i == steps - avg)
      for (int b = 1; b < m->nbody; b++)
        p0 += m->body_mass[b] * d->body_cvel[3 * b + 2];
    CHECK(cm_step(m, d) == CM_OK);
    if (d->solver_iter > w.maxit) w.maxit = d->solver_iter;
    if (i >= steps - avg) fsum += ground_force(d);
  }
  for (int b = 1; b < m->nbody; b++) {
    p1 += m->body_mass[b] * d->body_cvel[3 * b + 2];
    for (int k = 0; k < 3; k++)
      w.vmax = fmax(w.vmax, fabs(d->body_cvel[3 * b + k]));
  }
  w.W = mass * 9.81;
  w.f = fsum / avg;
  w.dpdt = (p1 - p0) / (avg * m->opt.timestep);
  w.mean = d->solver_solves ? (double)d->solver_total_iter / (double)d->solver_solves : 0;
  w.max_res = d->solver_max_residual;
  w.warn = d->warning[CM_WARN_SOLVER];
  w.solves = d->solver_solves;
  w.failed = d->solver_failed_solves;
  char ts[32] = "auto";
  if (tol != CM_SOLVER_TOLERANCE_AUTO) snprintf(ts, sizeof ts, "%g", tol);
  printf("  %d boxes, %d contacts in %d pairs, solver_tolerance %s: ground force / weight "
         "%.12f, dp/dt %.3g N, |v| <= %.3g m/s, Newton iterations mean %.2f, max %d, residual "
         "<= %.2g\n",
         m->nbody - 1, d->ncontact, d->npair, ts, w.f / w.W, w.dpdt, w.vmax, w.mean, w.maxit,
         w.max_res);
  cm_data_free(d);
  cm_model_free(m);
  return w;
}

static void test_pile_weight(void) {
  WeightRun w = weight_run(CM_SOLVER_TOLERANCE_AUTO);
  CHECK_REL(w.f, w.W + w.dpdt, 1e-9);
  CHECK_REL(w.f, w.W, 1e-6);
  /* at rest: measured 1.5e-12 m/s (the bound was 1e-4, the speed gravity gives in 10 us) */
  CHECK(w.vmax < 1e-9);
  /* every step's solve converged (the friction limits settled with the velocities), in few
   * Newton iterations: the pile rests, so after the first contact every step starts next to its
   * solution (measured 2026-12-07: mean 1.01, max 10, the first steps'; 3.35 and 8 on an earlier
   * build; the bounds were 8 and 100) */
  CHECK(w.warn == 0);
  CHECK(w.solves == 200 && w.failed == 0);
  CHECK(w.mean <= 3);
  CHECK(w.maxit <= 20);
}

/* The scene's solver_tolerance is what each solve meets (docs/contact-laws.md, "The Newton
 * tolerance"): at 1e-6, auto (1e-8 for these rigid boxes) and 1e-12 every final residual is
 * within it, and the momentum balance of the resting pile (ground force against weight plus
 * dp/dt, averaged over 50 steps) holds to it: each step's residual is below tol times the
 * island's momentum scale, whose vertical part summed over the boxes is at most the weight's
 * impulse. Tighter tolerances take more Newton iterations, never fewer. */
static void test_pile_tolerance(void) {
  const double tol[3] = {1e-6, CM_SOLVER_TOLERANCE_AUTO, 1e-12};
  double mean[3];
  for (int i = 0; i < 3; i++) {
    WeightRun w = weight_run(tol[i]);
    double t = tol[i] == CM_SOLVER_TOLERANCE_AUTO ? cm_solve_tol : tol[i];
    CHECK(w.max_res <= t);
    CHECK(fabs(w.f - (w.W + w.dpdt)) <= t * w.W);
    CHECK(w.warn == 0 && w.failed == 0);
    mean[i] = w.mean;
  }
  CHECK(mean[0] <= mean[1] && mean[1] <= mean[2]);
  CHECK(mean[2] > mean[0]);
}

/* The symbolic analysis kept from step to step while an island's pattern holds
 * (cm_solve_keep_analysis) is the analysis of that pattern: a pile stepped with and without it
 * ends in the same state bit for bit. The boxes are thrown sideways and spinning (as in
 * test_pile_solver_paths), so that the pattern changes as contacts open and close. */
static void test_pile_kept_analysis(void) {
  const int layers = 4, steps = 300;
  cmModel* m = pyramid(layers, 0.5);
  CHECK(m != NULL);
  if (!m) return;
  int saved = cm_solve_keep_analysis;
  uint64_t hash[2];
  long kept[2], fresh[2];
  for (int pass = 0; pass < 2; pass++) {
    cm_solve_keep_analysis = pass == 0;
    cmData* d = cm_data_new(m);
    for (int b = 1; b < m->nbody; b++) {
      d->body_cvel[3 * b] = 0.3 * ((b % 3) - 1);
      d->body_cvel[3 * b + 1] = 0.1 * ((b % 5) - 2);
      d->body_angvel[3 * b + 2] = 2.0 * ((b % 4) - 1.5);
    }
    for (int i = 0; i < steps; i++)
      CHECK(cm_step(m, d) == CM_OK);
    hash[pass] = cm_data_hash(m, d);
    kept[pass] = cm_priv(d)->solve_nkept;
    fresh[pass] = cm_priv(d)->solve_nanalyse;
    cm_data_free(d);
  }
  cm_solve_keep_analysis = saved;
  printf("  %d boxes, %d steps: analyses kept %ld, computed %ld (without keeping: %ld, %ld); "
         "states %s\n",
         m->nbody - 1, steps, kept[0], fresh[0], kept[1], fresh[1],
         hash[0] == hash[1] ? "identical" : "DIFFER");
  CHECK(hash[0] == hash[1]);
  CHECK(kept[1] == 0 && fresh[1] > 0);
  CHECK(kept[0] > 0 && fresh[0] > 1); /* both: the pattern held and changed */
  CHECK(kept[0] + fresh[0] == fresh[1]);
  cm_model_free(m);
}

static void test_pile_dense_vs_sparse(void) {
  const int layers = 3, steps = 100;
  cmModel* m = pyramid(layers, 0.5);
  CHECK(m != NULL);
  if (!m) return;
  int nb = m->nbody, saved = cm_bchol_dense_max;
  double* pos[2];
  double force[2] = {0, 0};
  int warn[2];
  for (int pass = 0; pass < 2; pass++) {
    cm_bchol_dense_max = pass == 0 ? 1 << 30 : 0; /* dense, then sparse */
    cmData* d = cm_data_new(m);
    for (int i = 0; i < steps; i++)
      CHECK(cm_step(m, d) == CM_OK);
    pos[pass] = malloc((size_t)nb * 3 * sizeof(double));
    memcpy(pos[pass], d->body_xpos, (size_t)nb * 3 * sizeof(double));
    force[pass] = ground_force(d);
    warn[pass] = d->warning[CM_WARN_SOLVER];
    cm_data_free(d);
  }
  cm_bchol_dense_max = saved;
  int same = memcmp(pos[0], pos[1], (size_t)nb * 3 * sizeof(double)) == 0;
  double dmax = 0;
  for (int i = 0; i < 3 * nb; i++)
    dmax = fmax(dmax, fabs(pos[0][i] - pos[1][i]));
  printf("  %d boxes: sparse vs dense positions %s (max difference %.3g m), ground force %.17g "
         "vs %.17g\n",
         nb - 1, same ? "identical" : "differ in rounding", dmax, force[1], force[0]);
  CHECK(warn[0] == 0 && warn[1] == 0);
  CHECK(dmax <= 1e-9 * SIZE);
  CHECK_REL(force[1], force[0], 1e-9);
  free(pos[0]);
  free(pos[1]);
  cm_model_free(m);
}

/* The coupled Newton steps and the reused factor (solve_implicit.c) change how each step's
 * solution is reached, not the solution: from the same state, a step with each reaches the
 * velocities of the plain iteration to the solver's tolerance, and the coupled steps take fewer
 * Newton iterations. The pile is dropped with a spin and a sideways velocity per box, so that
 * contacts slide (a resting pile has no sliding row to couple). The states compared are those of
 * the plain run: over many steps a dropped pile is chaotic, and runs apart by the tolerance per
 * step end up millimetres apart. */
static void test_pile_solver_paths(void) {
  const int layers = 4, steps = 150;
  cmModel* m = pyramid(layers, 0.5);
  CHECK(m != NULL);
  if (!m) return;
  int nb = m->nbody, saved_c = cm_solve_coupled, saved_p = cm_solve_pcg_rigid;
  double saved_r = cm_solve_reuse_ratio;
  cmData* d0 = cm_data_new(m);
  cmData* d1 = cm_data_new(m);
  for (int b = 1; b < nb; b++) {
    d0->body_cvel[3 * b] = 0.3 * ((b % 3) - 1);
    d0->body_cvel[3 * b + 1] = 0.1 * ((b % 5) - 2);
    d0->body_angvel[3 * b + 2] = 2.0 * ((b % 4) - 1.5);
  }
  /* paths: 0 plain (advances d0), 1 coupled, 2 coupled with the factor always reused, 3
   * conjugate gradients (block Gauss-Seidel) instead of the factor, with coupled steps (direct
   * ones: GMRES on the whole Jacobian with the same preconditioner), 4 conjugate gradients
   * without; 1 to 4 step a copy of
   * d0's state. Per path: Newton iterations and the work counters; for 1 to 4 the largest
   * difference of a body's velocity (v, and w times the half size) to the plain step's */
  enum { NP = 5 };
  const int coupled[NP] = {0, 1, 1, 1, 0}, pcg[NP] = {0, 0, 0, 2, 2};
  const double ratio[NP] = {1e300, 1e300, 0, 1e300, 1e300};
  long iter[NP] = {0}, nfac[NP] = {0}, nreuse[NP] = {0}, ncoup[NP] = {0};
  double dv[NP] = {0}, vmax = 0;
  double* vel = malloc((NP - 1) * (size_t)nb * 6 * sizeof *vel);
  int warn = 0;
  for (int i = 0; i < steps; i++) {
    for (int c = NP - 1; c >= 0; c--) {
      cmData* d = c ? d1 : d0;
      if (c) cm_data_copy(m, d1, d0);
      cm_solve_coupled = coupled[c];
      cm_solve_reuse_ratio = ratio[c];
      cm_solve_pcg_rigid = pcg[c];
      const cmDataPriv* p = cm_priv(d);
      long it0 = d->solver_total_iter, f0 = p->solve_nfactor, r0 = p->solve_nreuse,
           k0 = p->solve_ncoupled;
      int w0 = d->warning[CM_WARN_SOLVER];
      CHECK(cm_step(m, d) == CM_OK);
      warn += d->warning[CM_WARN_SOLVER] - w0;
      iter[c] += d->solver_total_iter - it0;
      nfac[c] += p->solve_nfactor - f0;
      nreuse[c] += p->solve_nreuse - r0;
      ncoup[c] += p->solve_ncoupled - k0;
      if (!c) continue;
      double* v = vel + (size_t)(c - 1) * nb * 6;
      for (int b = 0; b < nb; b++)
        for (int k = 0; k < 3; k++) {
          v[6 * b + k] = d->body_cvel[3 * b + k];
          v[6 * b + 3 + k] = 0.5 * SIZE * d->body_angvel[3 * b + k];
        }
    }
    for (int b = 0; b < nb; b++)
      for (int k = 0; k < 6; k++) {
        double v0 = k < 3 ? d0->body_cvel[3 * b + k] : 0.5 * SIZE * d0->body_angvel[3 * b + k - 3];
        vmax = fmax(vmax, fabs(v0));
        for (int c = 1; c < NP; c++)
          dv[c] = fmax(dv[c], fabs(vel[(size_t)(c - 1) * nb * 6 + 6 * b + k] - v0));
      }
  }
  cm_solve_coupled = saved_c;
  cm_solve_reuse_ratio = saved_r;
  cm_solve_pcg_rigid = saved_p;
  const char* name[NP] = {"plain", "coupled", "coupled, factor reused", "conjugate gradients",
                          "CG, not coupled"};
  for (int c = 0; c < NP; c++)
    printf("  %-23s Newton iterations %5ld (mean %5.2f), factorisations %5ld, reused-factor "
           "directions %5ld, coupled steps %4ld, velocity difference to plain <= %.2g m/s\n",
           name[c], iter[c], (double)iter[c] / steps, nfac[c], nreuse[c], ncoup[c], dv[c]);
  printf("  largest velocity %.3g m/s\n", vmax);
  CHECK(warn == 0);
  /* the paths ran: coupled steps were taken (none by the plain one), the factor was reused */
  CHECK(ncoup[0] == 0 && ncoup[1] > 0 && ncoup[2] > 0 && ncoup[3] > 0 && ncoup[4] == 0);
  /* conjugate gradients gave most directions (small islands of a few bodies still factorise) */
  CHECK(nfac[3] < nfac[1] / 4);
  CHECK(nreuse[0] == 0 && nreuse[1] == 0 && nreuse[2] > 0);
  CHECK(nfac[2] < iter[2]);
  /* fewer Newton iterations with the coupled steps, factorised or by conjugate gradients */
  CHECK(iter[1] < iter[0]);
  CHECK(iter[3] < iter[4]);
  /* the same steps: each solve meets the same equations to the Newton tolerance (cm_solve_tol of
   * the momentum scale); sliding contacts at their Coulomb limits make the velocities more
   * sensitive to that residual than the residual itself, by a factor that does not grow as the
   * tolerance shrinks: measured 3.1e-6 of the largest velocity at the default 1e-8, 6.1e-7 at
   * 1e-9, 5.7e-8 at 1e-10 (310, 610, 570 times the tolerance); allowed 1e4 times */
  double allow = 1e4 * cm_solve_tol * vmax;
  CHECK(dv[1] <= allow);
  CHECK(dv[2] <= allow);
  CHECK(dv[3] <= allow);
  CHECK(dv[4] <= allow);
  free(vel);
  cm_data_free(d0);
  cm_data_free(d1);
  cm_model_free(m);
}

/* The warm start (cmData.body_dv): a settled pile (ka 1e7, the peer piles') stepped from the same
 * state with and without the last step's velocity changes as the Newton start: with them a body
 * at rest starts at its solution, so the start's residual is far smaller (measured 1e-4 against
 * 1.1 of the momentum scale), and both reach the same positions (the same equations to the
 * tolerance). Until 2026-12-03 the start was zeroed before it was read. */
static void test_pile_warm_start(void) {
  cmModel* m = pyramid_ka(4, 0.5, 1e7);
  CHECK(m != NULL);
  if (!m) return;
  cmData* d0 = cm_data_new(m);
  cmData* d1 = cm_data_new(m);
  for (int i = 0; i < 500; i++)
    CHECK(cm_step(m, d0) == CM_OK);
  cm_data_copy(m, d1, d0);
  double warm = 0, cold = 0;
  for (int i = 0; i < 50; i++) {
    CHECK(cm_step(m, d0) == CM_OK);
    memset(d1->body_dv, 0, 6 * (size_t)m->nbody * sizeof *d1->body_dv);
    CHECK(cm_step(m, d1) == CM_OK);
    warm = fmax(warm, cm_priv(d0)->solve_res0);
    cold = fmax(cold, cm_priv(d1)->solve_res0);
  }
  double dx = 0;
  for (int b = 0; b < m->nbody; b++)
    for (int k = 0; k < 3; k++)
      dx = fmax(dx, fabs(d0->body_xpos[3 * b + k] - d1->body_xpos[3 * b + k]));
  printf("  50 resting steps: Newton start residual <= %.2g from the warm start, <= %.2g from "
         "the free velocities; positions differ by <= %.2g m\n",
         warm, cold, dx);
  CHECK(warm < 1e-2 * cold);
  CHECK(dx < 1e-9);
  CHECK(d0->warning[CM_WARN_SOLVER] == 0 && d1->warning[CM_WARN_SOLVER] == 0);
  cm_data_free(d0);
  cm_data_free(d1);
  cm_model_free(m);
}

int main(void) {
  RUN(test_pile_warm_start);
  RUN(test_pile_solver_paths);
  RUN(test_pile_kept_analysis);
  RUN(test_pile_dense_vs_sparse);
  RUN(test_pile_weight);
  RUN(test_pile_tolerance);
  return test_report();
}
