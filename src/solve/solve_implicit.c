/* The implicit compliant contact solve with friction (SPEC 6, docs/contact-laws.md "The implicit
 * solve").
 *
 * Normal rows. Every implicit row k obeys its law at the middle of the step:
 *   lambda = -(f + (h/2) y / c) - D y,  lambda >= 0,
 * with y = J_k u the separation rate at the end of the step. With alpha = 1/(h/(2c) + D),
 * R = alpha / h, b = -alpha f this is y + R lambda_imp = b, lambda_imp = h lambda >= 0
 * complementary, i.e. lambda_imp = max(0, (b - y)/R), the derivative of the convex potential
 * phi(y) = max(0, b - y)^2 / (2 R).
 *
 * Friction (Coulomb). A contact row with an identity from step to step (a vertex or edge-edge
 * contact) has a tangential spring in series with the Coulomb slider, anchored where it stuck
 * (anchor_setup below): gamma = -L x / max(|x|, L / kt2) with x = w - cw, the same form as the
 * regularised law that follows with the spring's offset cw and width L / kt2; it does not creep
 * and needs 2x fewer Newton iterations on piles than the stick velocity 1e-5 m/s (the stick
 * zone is as wide as the contact's compliance makes it), and so has the pair row of the
 * contact_time law (one spring per body pair, row_key). The contour regions, which have no
 * identity from step to step, keep the regularised law:
 *
 * Friction (Coulomb, regularised). A row with friction coefficient mu has two tangent
 * directions t1, t2; its slip rate w = (t1, t2) . (v_A(p) - v_B(p)) at the end of the step meets
 * the impulse gamma = -L w / max(|w|, v_s): opposite to the slip, of magnitude L when sliding
 * faster than v_s and proportionally smaller below (stiction creeps at most at v_s). v_s is the
 * rule's stick_velocity (default 1e-5 m/s), or STICK_FRAC (10 %) of the row's slip at the start
 * of the step if that is larger: a contact sliding at 1 m/s that comes to rest in this step may
 * end it creeping at up to 0.1 m/s, and the next step at a tenth of that, ... until the rule's
 * v_s (the extra slide is at most STICK_FRAC / (1 - STICK_FRAC) w0 h: 0.11 mm from 1 m/s at h =
 * 1 ms), while steady sliding (|w| near w0 > v_s) and steady stiction (w0 < v_s / STICK_FRAC)
 * are unchanged; it saves the Newton iterations of bringing fast contacts into a tiny stick
 * zone. L = mu lambda_imp is the Coulomb limit. For a fixed L, gamma is minus the gradient of the
 * convex potential psi(w) = L H(|w|), H(r) = r^2/(2 v_s) for r <= v_s, r - v_s/2 beyond.
 *
 * The end velocities u (6 per body: v of the com and w, world) of an island minimise
 *
 *   E(u) = 1/2 (u - u*)^T M (u - u*) + sum_k phi_k(J_k u) + sum_k psi_k(T_k u)
 *
 * for fixed limits L_k (u* = the free velocity of solve.c). The limits depend on the normal
 * impulses, L_k = mu lambda_imp,k(u): the solution is the fixed point of "minimise E for the
 * limits, then set the limits from the normal impulses". Keeping L out of the potential keeps
 * the normal law exact while sliding (a friction cone inside one convex problem, as in Drake's
 * SAP or MuJoCo, has an associated flow rule: sliding contacts separate at the rate mu |w|, which
 * for a compliant law means a normal force error of mu |w| / R, i.e. many times the weight).
 *
 * Newton with the fixed point inside. Every Newton iteration first sets the limits from the
 * normal impulses at the current iterate, then takes one Newton step on E for those limits with
 * an exact line search (the slope of E along a direction is monotone: safeguarded regula falsi).
 * The iteration stops when the gradient, with the limits of the iterate itself, is below tol of
 * the momentum scale (TOL_ELEMENTS below): the iterate then solves the whole system (until
 * 2026-12-04 the limits also had to repeat those of the iteration before, which cost a resting
 * pile a second Newton iteration per step after a first that landed within 1e-15). In the outer
 * loop (below) the limits lag, and it stops only once they no longer change (LIMIT_TOL of the
 * largest, or what the Newton tolerance resolves). Solving the fixed point in an outer loop around
 * complete Newton solves (the first design) cost 4-12 passes of 1-50 Newton iterations each on
 * piles; inside, the two converge together. Where friction and the normal law are strongly coupled
 * (a single corner with mu = 0.5 can do it: the friction impulse tips the body, which lifts the
 * corner, which removes the friction) the merged iteration can cycle; after MERGED_ITER iterations
 * the island falls back to the outer loop: the limits change only once Newton has converged for
 * them, mixed from the last AA_DEPTH passes by Anderson acceleration (anderson_limits), since with
 * stiff contacts and mu near 1 the plain fixed point contracts slowly or not at all (S2 pile at ka
 * 5e10: solves not converged 241 -> 24 of 553, mean Newton iterations 136 -> 84).
 *
 * Coupled Newton steps. For fixed limits Newton converges quadratically, but the merged
 * iteration sets the limits from the last iterate: near the solution it contracts only at the
 * rate of the fixed point L -> mu lambda(u(L)) (about 1/30 per iteration on a resting pile at
 * ka 1e7, 0.96 at 5e10 with mu = 1, where a cube sits at the tipping limit mu = width/height).
 * The Jacobian of the full gradient g(u) = M (u - u*) - sum J^T gamma(J u; L(u)) differs from
 * the Hessian A of E by the sliding rows S only (a stuck row's impulse does not depend on its
 * limit): gamma_t = -L xh with L = mu lambda, lambda = (b - y_n)/R, so
 *   dg/du = A - U W V^T,  U_j = J_j^T F (0, xh_j),  V_j = J_j^T F (1, 0, 0),  W = mu_j / R_j,
 * a rank-|S| nonsymmetric change. With A factorised, its Newton direction is the plain one d_s
 * plus A^-1 t, t from GMRES on (I - U W V^T A^-1) t = U W V^T d_s, preconditioned by A itself:
 * every Krylov vector lies in the span of U, and GMRES ends in a few iterations, each one solve
 * with the factor (coupled_direction; a capacitance matrix of S formed explicitly cost |S|^2
 * times the elimination-tree depth, more than the iterations it saved). The coupled step is
 * taken whole when it decreases the merit |g|^2 / 2 (limits moving with u) by Armijo's rule;
 * otherwise the plain step with its line search follows, as before. Far from the solution
 * (contacts closing, sticking) the plain step does the work; near it the coupled step converges
 * quadratically. Measured (bench/README.md): mean Newton iterations per step on the S2 pile of
 * 125 boxes 6.8 -> 3.4 (first 0.6 s) and 4.8 -> 3.0 (resting), 58 -> 28 at ka 5e10; the
 * solution is the same (the same equations, the same tolerance). The coupled step is skipped
 * only where its coupling term is below a tenth of the gradient the convergence test accepts
 * (it used to be skipped below KRYLOV_TOL of the current gradient: a plain step then reduced
 * the residual about 1000-fold, so a resting solve went 2e-2 -> 7e-6 -> 3e-9 -> converged in
 * three directions where the coupled step ends it in two). S2 pile of 125 boxes, 3 s: 2.79 ->
 * 2.66 Newton iterations per step (2.25 -> 2.06 over its last 0.5 s), 0.986x the instructions
 * of a step at 2 s; ka 5e10, first 1.5 s: 36.6 -> 34.7, unconverged solves 2 -> 0 (2026-12-04).
 *
 * Factor reuse. On an island whose factorisation costs more than cm_solve_reuse_ratio (6)
 * conjugate-gradient iterations (a pile of hundreds of bodies: 1000 boxes, 42), the factor of the
 * first iteration preconditions conjugate gradients for the next ones (cm_bchol_pcg_factor): an
 * inexact Newton direction to min(1e-2, sqrt(res)) of the gradient, still a descent direction of E,
 * so the line search and the convergence test are unchanged; the island factorises again when the
 * conjugate gradients needed more than REUSE_REFRESH iterations. The coupled step runs only on
 * iterations with a fresh factor. S2 pile of 1000 boxes at rest: 0.70x the time per step.
 *
 * Large islands by conjugate gradients. Where, moreover, one factorisation costs more than the
 * conjugate gradients a direction is expected to need (PCG_DECADES times sqrt(1 + s) iterations,
 * s the island's stiffness ratio, stiffness_ratio), the island of rigid bodies is solved by
 * conjugate gradients preconditioned by symmetric block Gauss-Seidel (cm_bchol_pcg) to the same
 * residual, with no factor (block_sparse decides): soft contacts (ka 1e7, s = 4 in the 1000-box
 * pile) make the Hessian nearly its mass blocks. The resting 1000-box pile: 0.51x the time per
 * step of the reused factor; stiff ones (ka 5e10, s 5000 times larger) keep the factor.
 *
 * Direct steps. Coupled steps run on such an island too, or its big island converges at the
 * merged iteration's linear rate (about 1/40 per iteration near the solution: the S2 pile of
 * 1000 boxes needed 15.8 Newton iterations per step in its first 0.6 s without them, 4.2 with
 * them; since 2026-12-04). Without a factor, the coupled system is solved directly: GMRES on the
 * whole Jacobian J = A - U W V^T (J d = -g, every product one sparse product with A and one
 * with the coupling), right-preconditioned by the same block Gauss-Seidel, to the plain
 * direction's tolerance (direct_step); the step is taken whole when Armijo's rule on the merit
 * accepts it, else the plain direction by conjugate gradients and its line search follow. Until
 * 2026-12-06 the plain direction came first and the coupled correction d_s + A^-1 t after it,
 * each product with A^-1 of that GMRES a run of conjugate gradients (to 1e-2, later 1e-1): on
 * the S4 bed of 1000 spheres every one of its 2,643 coupled steps in 1 s was taken, so the plain
 * direction served only as the correction's start, and those products took 1.8 conjugate-
 * gradient iterations each on top of the plain direction's 2.3. The direct steps take 2.3 GMRES
 * iterations each (2,355 steps, all taken): the bed's 1 s 0.907x the instructions, 3.12 -> 3.07
 * Newton iterations per step. On the S2 pile of 1000 boxes 364 of 3,681 direct steps were not
 * taken (the plain step then costs its own solve), about the same time.
 *
 * Delta assembly. On a block-sparse island of rigid bodies (hrow) the store keeps the mass
 * blocks and the rows' terms between iterations: the first gradient_hessian of a solve assembles
 * everything, later ones add F (H_k - H_k,last) F^T for the rows whose 3x3 Hessian changed (a
 * resting contact's normal 1/R and a stuck spring's kt2 do not; friction_law returns kt2 itself
 * in the stick zone so that it does not change with the limit). S2 pile of 125 boxes at rest:
 * 0.94x the time per step, 0.97x while it collapses, 0.91x at ka 5e10, the same at 1000 boxes.
 * The Hessian is assembled only when a Newton direction asks for it (assemble_hessian): the
 * iteration that converges, the last of every solve, computes the gradient alone. The same
 * stores, bit for bit; the S2 pile of 125 boxes 0.973x the instructions of a resting step,
 * 0.980x over the first 0.6 s, S4 0.970x (2026-12-04).
 *
 * Stick transitions. The Hessian of psi in the sliding zone is L/|w| (I - w w^T/|w|^2): nothing
 * along the slip. A Newton step then treats the friction force of a sliding contact as constant
 * along its slip, and a contact that is about to stick overshoots through w = 0; the line search
 * has to stop at the first such kink, so that contacts come to rest one per iteration (40-50
 * iterations on a pile of 125 boxes). A contact whose last Newton step would have brought its
 * slip within CROSS_FRAC of zero (the minimum of |w + t dw| over t in [0, 1]) is flagged, and in
 * the next iteration its Hessian is the isotropic L/|w| I: the secant of the friction force from
 * |w| to 0, so that the step brings it to rest instead of through it. The flag only changes the
 * Hessian (still positive definite): every direction is a descent direction of E, the gradient
 * and the solution are those of the exact law.
 *
 * Warm start. Newton starts from u* + dv, dv the velocity change the last step's solve gave each
 * body (d->body_dv, part of the state: a checkpoint keeps it, so a resumed run is bit-identical):
 * a body at rest starts at its solution, one decelerated by friction at its last deceleration.
 * Any start converges to the same minimiser. body_dv is zeroed only once every island has read
 * it: until 2026-12-03 it was zeroed first, so every solve started from u* (physics/test_pile
 * test_pile_warm_start now checks the start). Working, on the S2 pile of 125 boxes: the start's
 * residual at rest 0.83 -> 0.01 of the momentum scale, 3 -> 2 Newton iterations per resting
 * step, 3.17 -> 2.80 over the 3 s, 0.946x the time; the resting 1000-box pile 8.55 -> 5.25
 * iterations, 0.70x the time per step.
 *
 * Work per iteration. An iteration computes the rates J u of every row (the velocities of the
 * contact point on both sides, projected on the row's frame F = (n t1 t2)), the gradient and the
 * Hessian M + sum J^T H J (assembled per row from the 3x3 K = F H F^T and cross products with
 * the lever arms, scatter()), factorised (a dense Cholesky for islands of at most
 * cm_bchol_dense_max bodies, the block-sparse one of block_cholesky.c beyond: AMD order,
 * elimination tree, 6x6 blocks, analysed on the pattern of all the island's rows and the
 * analysis kept from step to step while that pattern holds (kept_analysis: an island of a pile
 * at rest touches the same neighbours for many steps; S2 pile of 125 boxes, 3 s: 2,526 analyses
 * kept of 3,891, the resting pile 0.94x the time per step, the same state bit for bit),
 * assembled directly into that store), the rates J du of the direction, and a
 * line search whose slope evaluations cost a few operations per row: y(t) = y + t dy.
 *
 * Islands (bodies joined through implicit rows, found by union-find) are independent problems:
 * their memory is taken from the arena first, then they are solved in parallel (OpenMP, largest
 * first); each writes only its own bodies and rows and the statistics are gathered in island
 * order, so the result does not depend on the number of threads.
 *
 * Convergence: at most MAX_ITER Newton iterations per island, otherwise CM_WARN_SOLVER. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/linalg.h"
#include "model/data_internal.h"
#include "solve/block_cholesky.h"
#include "solve/island.h"
#include "solve/solve.h"

/* The convergence test: the gradient below tol of the momentum scale, max(|M u*|, |J^T gamma|)
 * (gradient_hessian), the structure of Drake SAP's test (its default 1e-6): cm_solve_tol (1e-8) on
 * an island of rigid bodies, TOL_ELEMENTS (1e-10) on one with a deformable body's elements, whose
 * midpoint rule conserves energy and momentum to that tolerance (physics/test_deformable).
 * Until 2026-12-06 every island used 1e-10: 1e-8 leaves a velocity error of about 1e-8 of the
 * free velocities' scale (the sliding pile of physics/test_pile: 3e-6 of its largest velocity
 * between the solver's paths, against 6e-8 at 1e-10) and saves the last Newton iteration of
 * about one solve in three: S4 bed of 1000 spheres 3.68 -> 3.10 iterations per step, S2 pile of
 * 125 boxes 2.58 -> 2.19 (bench/README.md, "The Newton tolerance"). At 1e-6, Drake's, the
 * force balances at rest went beyond their checks (physics/test_resting_sphere 9e-9,
 * test_friction 1.9e-6 of the load): not taken. A scene's solver_tolerance (cmOptions), when
 * given, applies to every island instead, but not below TOL_ELEMENTS on an island with
 * elements, whose residual stops near it (examples/cartilage_pad.yaml asked 1e-12: 9e-11, a
 * solver_not_converged warning and three retries per step). */
#define TOL_ELEMENTS 1e-10

/* 200 until the outer loop's restart (anderson_limits): then more iterations only cycled; with
 * it, the S2 pile of 125 boxes at ka 5e10 has 12 steps with an unconverged solve in 3 s at 200
 * and 1 at 1000, at the same mean iterations and time (four lattices, 2 s: 40, 10 at 400, 5) */
#define MAX_ITER 1000
/* the merged iteration (with the coupled steps) gives way to the outer loop after MERGED_ITER
 * iterations: S2 pile of 125 boxes at ka 5e10, 3 s, 30 / 60 / 100 / 200 (never): 34.2 / 24.9 /
 * 25.8 / 30.8 Newton iterations per step, 83 / 40 / 23 / 58 steps not converged (one run each:
 * the pile is chaotic); at ka 1e7 every solve converges before 30 */
#ifndef MERGED_ITER
#define MERGED_ITER 100
#endif
#define LIMIT_TOL 1e-9
#define CROSS_FRAC 0.8
#define LINE_TOL 1e-3
#define KEEP_FRAC 0.2
#define AA_DEPTH 4
/* the outer loop's Anderson mixing restarts when a pass did not decrease |G(L) - L|: history
 * dropped, the limits moved by AA_DAMP of the residual (anderson_limits) */
#define AA_DAMP 0.5
#define STICK_FRAC 0.1
/* the factor reused across the Newton iterations of a step (islands where one factorisation
 * costs more than cm_solve_reuse_ratio conjugate-gradient iterations): each later direction by
 * conjugate gradients preconditioned with it, to a relative residual of min(REUSE_TOL, sqrt(res))
 * in at most REUSE_MAX_ITER iterations; the next iteration factorises again when that took more
 * than REUSE_REFRESH (or failed) */
#define REUSE_MAX_ITER 10
#define REUSE_TOL 1e-2
#define REUSE_REFRESH 4
/* the coupled Newton step: its system solved by GMRES to KRYLOV_TOL of the gradient in at most
 * KRYLOV_MAX iterations (at ka 1e7 one suffices; at 5e10, where the system is nearly singular,
 * 20 instead of 5 cost 1.2-1.7x the CPU time of the first 1.5 s of S2 piles for the same
 * iterations and unconverged steps), the step taken if it decreases the merit by Armijo's rule
 * (ARMIJO) */
#ifndef KRYLOV_MAX
#define KRYLOV_MAX 5
#endif
#define KRYLOV_TOL 1e-3
/* the direct coupled step of a conjugate-gradient island (direct_step): GMRES restarted every
 * DIRECT_MAX iterations (the S4 bed of 1000 spheres takes 2.3 per step on average), at most
 * DIRECT_CYCLES times; an island that needs more takes plain steps for the rest of its solve.
 * Without the restarts the sliding pyramid of physics/test_pile, forced onto conjugate
 * gradients at a stiffness the choice would factorise, took 14.5 Newton iterations per step
 * instead of 7.9 */
#ifndef DIRECT_MAX
#define DIRECT_MAX 10
#endif
#define DIRECT_CYCLES 10
#define ARMIJO 1e-4
/* conjugate gradients (islands with deformable bodies' nodes, block_pcg.c): the relative
 * residual of each Newton system (an inexact Newton step; the Newton iteration's own test on
 * the gradient decides convergence) and the iterations allowed */
#define PCG_TOL 1e-6
#define PCG_MAX_ITER 2000
/* the iterations a Newton direction of a large rigid island is expected to take, in units of
 * sqrt(1 + s) (s its stiffness ratio), for the choice in block_sparse: conjugate gradients (and
 * the direct coupled steps' GMRES) where that many iterations cost less than one factorisation.
 * 3 (decades of residual at sqrt(1 + s) iterations each) until 2026-12-06, while the directions
 * take fewer: 1.3 conjugate-gradient iterations to min(1e-2, sqrt(res)) on the resting 1000-box
 * pile (s = 4.1: 0.6 units), 2.3 GMRES iterations per direct step on the S4 bed. At 2 the S4 bed
 * of 512 spheres takes 0.938x the instructions, of 1000 spheres 0.974x, the S2 pile of 343 boxes
 * 0.959x, while the kit's scenes of 125 bodies make the same choices as at 3, and so do the stiff
 * piles (s thousands of times larger: they keep their factor) and the S2 pile at ka 1e8 and 1e9.
 * At 1 the gains were about the same (0.901x, 0.973x, 0.955x) but the S4 bed of 125 spheres took
 * 1.007x (bench/README.md, "The choice of conjugate gradients, again") */
#define PCG_DECADES 2

int cm_solve_coupled = 1;
int cm_solve_delta = 1;
double cm_solve_reuse_ratio = 6;
int cm_solve_pcg_rigid = 1;
int cm_solve_keep_analysis = 1;
int cm_solve_max_iter = MAX_ITER;
double cm_solve_tol = 1e-8;

static int find(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* ---- rows ------------------------------------------------------------------------------- */

/* the rates along n, t1, t2 (out) of a row whose sides' velocities (v, w: 6 each, NULL for a
 * side that is not a variable) are xa and xb: the velocity of the contact point on each side is
 * v + w x r, and the rates are F^T (p_A - p_B), F = (n t1 t2): the product with the row's
 * Jacobian (n, r_A x n | -n, -(r_B x n)) without forming it. Inlined, like row_friction and
 * friction_law into their callers (the line search's slope, the gradient, the merit): rates
 * 107 -> 93 M instructions, line_slope with the friction law 159 -> 108 M; with row_sub, 0.951x the
 * instructions of 30 steps of the S2 pile of 125 boxes at ka 5e10 from 0.8 s, 0.975x of 300 at rest
 * (ka 1e7), the same states (2026-12-05). Entries 0 and 1 of the products in pairs of lanes: 0.998x
 * at rest, the same states. */
static inline __attribute__((always_inline)) void row_rates(const cmRow* r, const double* xa,
                                                            const double* xb, double out[3]) {
  /* entries 0 and 1 of w x r and of p in two lanes, each its scalar operations in order */
  v2d p01 = {0, 0};
  double p2 = 0;
  if (xa) {
    v2d w12 = cm_v2_ld(xa + 4), r12 = cm_v2_ld(r->rA + 1);
    v2d w20 = {xa[5], xa[3]}, r20 = {r->rA[2], r->rA[0]};
    p01 += cm_v2_ld(xa) + (w12 * r20 - w20 * r12);
    p2 += xa[2] + (xa[3] * r->rA[1] - xa[4] * r->rA[0]);
  }
  if (xb) {
    v2d w12 = cm_v2_ld(xb + 4), r12 = cm_v2_ld(r->rB + 1);
    v2d w20 = {xb[5], xb[3]}, r20 = {r->rB[2], r->rB[0]};
    p01 -= cm_v2_ld(xb) + (w12 * r20 - w20 * r12);
    p2 -= xb[2] + (xb[3] * r->rB[1] - xb[4] * r->rB[0]);
  }
  /* the dots n . p: (n0 p0 + n1 p1) + n2 p2, the first two products in the lanes */
  v2d d0 = cm_v2_ld(r->n) * p01, d1 = cm_v2_ld(r->t[0]) * p01, d2 = cm_v2_ld(r->t[1]) * p01;
  out[0] = d0[0] + d0[1] + r->n[2] * p2;
  out[1] = d1[0] + d1[1] + r->t[0][2] * p2;
  out[2] = d2[0] + d2[1] + r->t[1][2] * p2;
}

/* the rates of a row with a face side (is->fterm[k] = f): sum over its terms of the weighted
 * velocities of their points */
static void face_row_rates(const Island* is, int k, int f, const double* x, double out[3]) {
  const cmRow* r = is->row[k];
  double p[3] = {0, 0, 0}, wr[3];
  for (int t = 0; t < 4; t++) {
    int l = is->tb4[4 * f + t];
    if (l < 0) continue;
    double w = is->tw4[4 * f + t];
    if (t == 0) {
      cm_v3_cross(wr, x + 6 * l + 3, r->rA);
    } else {
      cm_v3_set(wr, 0, 0, 0);
    }
    for (int i = 0; i < 3; i++)
      p[i] += w * (x[6 * l + i] + wr[i]);
  }
  out[0] = cm_v3_dot(r->n, p);
  out[1] = cm_v3_dot(r->t[0], p);
  out[2] = cm_v3_dot(r->t[1], p);
}

/* rates of every row along n, t1, t2 (out: nr x 3) for body velocities x: the products J x
 * (the rates along a direction), and with moving != 0 the rows' rates at the velocities x, their
 * sides outside the island included (is->yo) */
static void rates(const Island* is, const double* x, double* out, int moving) {
  for (int k = 0; k < is->nr; k++) {
    if (is->fterm && is->fterm[k] >= 0) {
      face_row_rates(is, k, is->fterm[k], x, out + 3 * k);
      continue;
    }
    int la = is->lb[2 * k], lb = is->lb[2 * k + 1];
    row_rates(is->row[k], la < 0 ? NULL : x + 6 * la, lb < 0 ? NULL : x + 6 * lb, out + 3 * k);
  }
  if (moving && is->yo)
    for (int i = 0; i < 3 * is->nr; i++)
      out[i] += is->yo[i];
}

static double normal_impulse(const Island* is, int k, double y) {
  double lam = (is->b[k] - y) / is->R[k];
  return lam > 0 ? lam : 0;
}

/* the friction impulse (2) for slip w and limit L, and (if Hf) its 2x2 Hessian: exact, or with
 * secant != 0 the isotropic secant L/|w| I in the sliding zone; hs = L / vs, the stiffness of
 * the stick zone (given, so that a spring's is its own kt2 exactly, whatever L). Returns 1 in
 * the stick zone (|w| <= vs), 0 beyond. */
static inline __attribute__((always_inline)) int friction_law(const double w[2], double L,
                                                              double vs, double hs, double g[2],
                                                              double Hf[4], int secant) {
  double r = sqrt(w[0] * w[0] + w[1] * w[1]);
  if (r <= vs) {
    g[0] = -L * w[0] / vs;
    g[1] = -L * w[1] / vs;
    if (Hf) {
      Hf[0] = Hf[3] = hs;
      Hf[1] = Hf[2] = 0;
    }
    return 1;
  }
  double u0 = w[0] / r, u1 = w[1] / r;
  g[0] = -L * u0;
  g[1] = -L * u1;
  if (!Hf) return 0;
  if (secant) {
    Hf[0] = Hf[3] = L / r;
    Hf[1] = Hf[2] = 0;
  } else {
    Hf[0] = L / r * (1 - u0 * u0);
    Hf[1] = Hf[2] = -L / r * u0 * u1;
    Hf[3] = L / r * (1 - u1 * u1);
  }
  return 0;
}

/* the friction impulse (and Hessian) of row k at the slip y12: with a spring (kt2 > 0) the law
 * of the anchored spring, Huber in the slip less the spring's offset with the width at which
 * the spring reaches the limit (L / kt2); else the rule's regularised Coulomb law. Returns 1 if
 * the row is held for row_sliding at this slip and limit: the law's stick zone at row_sliding's
 * width (a spring's width not raised to 1e-300; without a spring, no offset: cw = 0, for which
 * y - cw squares to y^2 exactly), so that its slip's norm there is at most the width. */
static inline __attribute__((always_inline)) int row_friction(const Island* is, int k,
                                                              const double y12[2], double L,
                                                              double g[2], double Hf[4],
                                                              int secant) {
  if (is->kt2[k] > 0) {
    double w[2] = {y12[0] - is->cw[2 * k], y12[1] - is->cw[2 * k + 1]};
    double vs = L / is->kt2[k];
    int exact = vs > 1e-300;
    vs = exact ? vs : 1e-300;
    return friction_law(w, L, vs, exact ? is->kt2[k] : L / vs, g, Hf, secant) && exact;
  }
  return friction_law(y12, L, is->vs[k], L / is->vs[k], g, Hf, secant) &&
         is->cw[2 * k] == 0 && is->cw[2 * k + 1] == 0;
}

/* ---- Newton ---------------------------------------------------------------------------- */

/* y = M x by blocks. A rigid body's block is m I3 and its world inertia, its other 27 numbers
 * exactly +0 (island_setup): their products are zeros, and a sum that starts at +0 is never -0
 * (in round-to-nearest x + y = -0 only when both are -0), so adding a zero leaves it as it is.
 * The rigid blocks skip them and start the sum at 0.0 + the first product, the same numbers bit
 * for bit (for finite x) with 12 products instead of 36. With the sparse F hess of scatter_hess,
 * the transposes of P once per side and same_hess: 0.9935x the instructions of the resting S2
 * pile of 125 boxes, 0.9906x while it collapses, 0.9886x for S4, the same states (2026-12-05). */
static void mass_mul(const Island* is, const double* x, double* y) {
  for (int l = 0; l < is->nb; l++) {
    const double* M = is->Mb + 36 * l;
    const double* xl = x + 6 * l;
    double* yl = y + 6 * l;
    if (is->node[l] < 0) {
      for (int i = 0; i < 3; i++)
        yl[i] = 0.0 + M[7 * i] * xl[i];
      for (int i = 3; i < 6; i++)
        yl[i] = 0.0 + M[6 * i + 3] * xl[3] + M[6 * i + 4] * xl[4] + M[6 * i + 5] * xl[5];
      continue;
    }
    for (int i = 0; i < 6; i++) {
      double s = 0;
      for (int j = 0; j < 6; j++)
        s += M[6 * i + j] * xl[j];
      yl[i] = s;
    }
  }
}

/* M = [r]x A (3x3, row-major): column j of M is r x (column j of A) */
static void cross_mat(double M[9], const double r[3], const double A[9]) {
  for (int j = 0; j < 3; j++) {
    double a0 = A[j], a1 = A[3 + j], a2 = A[6 + j];
    M[j] = r[1] * a2 - r[2] * a1;
    M[3 + j] = r[2] * a0 - r[0] * a2;
    M[6 + j] = r[0] * a1 - r[1] * a0;
  }
}

static void transpose3(double T[9], const double A[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = A[3 * j + i];
}

/* B (6x6 at stride) += sign [[K, Pt^T], [Ps, [rs]x Pt^T]] (PtT = Pt^T, given: a row transposes
 * each side's P once for its blocks) */
static void add_block(double* restrict B, size_t stride, double sign, const double* restrict K,
                      const double* restrict Ps, const double* restrict PtT,
                      const double* restrict rs) {
  double Q[9];
  cross_mat(Q, rs, PtT);
  for (int i = 0; i < 3; i++) {
    double* top = B + (size_t)i * stride;
    double* bot = B + (size_t)(i + 3) * stride;
    for (int j = 0; j < 3; j++) {
      top[j] += sign * K[3 * i + j];
      top[3 + j] += sign * PtT[3 * i + j];
      bot[j] += sign * Ps[3 * i + j];
      bot[3 + j] += sign * Q[3 * i + j];
    }
  }
}

/* B (6x6 at stride) += X (neg: -= X) for X = [[K, Pt^T], [Ps, [rs]x Pt^T]] from U = [K | Pt^T]
 * (3x6, 16-byte aligned): the bottom half is [rs]x U (Ps = [rs]x K), row by row the arithmetic of
 * cross_mat, in pairs of columns. add_block's numbers bit for bit: sign * x is x or exactly -x
 * for sign = +-1, and b + (-x) is b - x. */
static inline __attribute__((always_inline)) void add_block_u(double* restrict B, size_t stride,
                                                              int neg, const double* restrict U,
                                                              const double* restrict rs) {
  v2d r0 = cm_v2_dup(rs[0]), r1 = cm_v2_dup(rs[1]), r2 = cm_v2_dup(rs[2]);
#pragma GCC unroll 3
  for (int c = 0; c < 6; c += 2) {
    v2d u0 = cm_v2_lda(U + c), u1 = cm_v2_lda(U + 6 + c), u2 = cm_v2_lda(U + 12 + c);
    v2d x[6] = {u0, u1, u2, r1 * u2 - r2 * u1, r2 * u0 - r0 * u2, r0 * u1 - r1 * u0};
    if (neg) {
#pragma GCC unroll 6
      for (int i = 0; i < 6; i++)
        cm_v2_st(B + (size_t)i * stride + c, cm_v2_ld(B + (size_t)i * stride + c) - x[i]);
    } else {
#pragma GCC unroll 6
      for (int i = 0; i < 6; i++)
        cm_v2_st(B + (size_t)i * stride + c, cm_v2_ld(B + (size_t)i * stride + c) + x[i]);
    }
  }
}

/* add_block_u on a block of the store not written yet (a 6x6 block, stride 6): B = +0 +- X,
 * the cleared block's sums without its clearing */
static void set_block_u(double* restrict B, int neg, const double* restrict U,
                        const double* restrict rs) {
  const v2d zero = {0, 0};
  v2d r0 = cm_v2_dup(rs[0]), r1 = cm_v2_dup(rs[1]), r2 = cm_v2_dup(rs[2]);
#pragma GCC unroll 3
  for (int c = 0; c < 6; c += 2) {
    v2d u0 = cm_v2_lda(U + c), u1 = cm_v2_lda(U + 6 + c), u2 = cm_v2_lda(U + 12 + c);
    v2d x[6] = {u0, u1, u2, r1 * u2 - r2 * u1, r2 * u0 - r0 * u2, r0 * u1 - r1 * u0};
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++)
      cm_v2_st(B + 6 * i + c, neg ? zero - x[i] : zero + x[i]);
  }
}

/* Row k with the impulse imp (3: along n, t1, t2): add -J^T imp into g. With J_s = sigma_s (F^T,
 * -F^T [r_s]x) for side s (sigma = +1 for A, -1 for B) and the row's frame F = (n t1 t2), side s
 * gets -sigma_s (f, r_s x f) with f = F imp; a face side (cmRow.fnode) has four terms, A's with
 * the lever rA and weight +1, the face's nodes with 0 and -w_i. */
static void scatter_grad(Island* is, int k, const double imp[3]) {
  const cmRow* r = is->row[k];
  const double* F[3] = {r->n, r->t[0], r->t[1]};
  /* f's entries 0 and 1 in two lanes, each its scalar sum */
  v2d fp = cm_v2_ld(F[0]) * cm_v2_dup(imp[0]) + cm_v2_ld(F[1]) * cm_v2_dup(imp[1]) +
           cm_v2_ld(F[2]) * cm_v2_dup(imp[2]);
  double f[3] = {fp[0], fp[1], F[0][2] * imp[0] + F[1][2] * imp[1] + F[2][2] * imp[2]};
  if (is->fterm && is->fterm[k] >= 0) {
    static const double zero[3] = {0, 0, 0};
    int fi = is->fterm[k];
    const int* tb = is->tb4 + 4 * fi;
    const double* tw = is->tw4 + 4 * fi;
    for (int s = 0; s < 4; s++) {
      int ls = tb[s];
      if (ls < 0) continue;
      double rf[3];
      cm_v3_cross(rf, s ? zero : r->rA, f);
      double* g = is->g + 6 * ls;
      for (int i = 0; i < 3; i++) {
        g[i] -= tw[s] * f[i];
        g[3 + i] -= tw[s] * rf[i];
      }
    }
    return;
  }
  /* two sides: g_s -= sigma_s (f, r_s x f) as g_A - x and g_B + x (g - (-1 x) is g + x) in pairs
   * (f0, f1), (f2, rf0), (rf1, rf2) */
  for (int s = 0; s < 2; s++) {
    int ls = is->lb[2 * k + s];
    if (ls < 0) continue;
    double rf[3];
    cm_v3_cross(rf, s ? r->rB : r->rA, f);
    double* g = is->g + 6 * ls;
    v2d x1 = {f[2], rf[0]}, x2 = {rf[1], rf[2]};
    if (s) {
      cm_v2_st(g, cm_v2_ld(g) + fp);
      cm_v2_st(g + 2, cm_v2_ld(g + 2) + x1);
      cm_v2_st(g + 4, cm_v2_ld(g + 4) + x2);
    } else {
      cm_v2_st(g, cm_v2_ld(g) - fp);
      cm_v2_st(g + 2, cm_v2_ld(g + 2) - x1);
      cm_v2_st(g + 4, cm_v2_ld(g + 4) - x2);
    }
  }
}

/* Row k with its 3x3 Hessian hess in the row's frame F: add J^T hess J into the Hessian store.
 * With K = F hess F^T (world, symmetric) and P_s = [r_s]x K, the 6x6 block of sides s, t is
 * sigma_s sigma_t [[K, P_t^T], [P_s, [r_s]x P_t^T]] (K [r]x = -P^T as K is symmetric): a few 3x3
 * products per row instead of 12-column products of the Jacobians.
 *
 * FH = F hess: hess is [h0 0 0; 0 h4 h5; 0 h7 h8] (rows_eval), and the products with its zeros
 * are dropped. Exact: they are zeros, which change a sum only in the sign of a zero result; such
 * a sign reaches nothing but zeros through the products and sums below, and the store it is
 * added to is never -0 (it starts at +0, and x + y is -0 only when both are), so the store is the
 * same bit for bit. 9 products instead of 27. */

/* a row with a face side: every pair of the four terms (levers rA, then 0 for the nodes) */
static void scatter_hess_face(Island* is, int k, const double hess[9]) {
  const cmRow* r = is->row[k];
  const double* F[3] = {r->n, r->t[0], r->t[1]};
  double K[9], FH[9];
  for (int i = 0; i < 3; i++) {
    FH[3 * i] = F[0][i] * hess[0];
    FH[3 * i + 1] = F[1][i] * hess[4] + F[2][i] * hess[7];
    FH[3 * i + 2] = F[1][i] * hess[5] + F[2][i] * hess[8];
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      K[3 * i + j] = FH[3 * i] * F[0][j] + FH[3 * i + 1] * F[1][j] + FH[3 * i + 2] * F[2][j];
  static const double zero[3] = {0, 0, 0};
  static const int PAIR4[4][4] = {{-1, 0, 1, 2}, {0, -1, 3, 4}, {1, 3, -1, 5}, {2, 4, 5, -1}};
  int fi = is->fterm[k];
  const int* tb = is->tb4 + 4 * fi;
  const double* tw = is->tw4 + 4 * fi;
  double P0[9], P0T[9], Z[9] = {0};
  cross_mat(P0, r->rA, K);
  transpose3(P0T, P0);
  for (int s = 0; s < 4; s++) {
    int ls = tb[s];
    if (ls < 0) continue;
    const double* rs = s ? zero : r->rA;
    for (int t = 0; t < 4; t++) {
      int lt = tb[t];
      if (lt < 0) continue;
      const double* Ps = s ? Z : P0;
      const double* Pt = t ? Z : P0T;
      double sign = tw[s] * tw[t];
      if (is->H) {
        if (ls < lt) continue; /* the upper block (the dense factor reads the lower) */
        size_t stride = (size_t)(6 * is->nb);
        add_block(is->H + (size_t)(6 * ls) * stride + (size_t)(6 * lt), stride, sign, K, Ps, Pt,
                  rs);
      } else if (ls == lt) {
        add_block(cm_bchol_diag(is->bc, ls), 6, sign, K, Ps, Pt, rs);
      } else if (is->bc->iperm[ls] > is->bc->iperm[lt]) {
        add_block(cm_bchol_block(is->bc, is->fslot[6 * fi + PAIR4[s][t]]), 6, sign, K, Ps, Pt, rs);
      }
    }
  }
}

/* Two sides: FH and K in pairs of lanes (rows 0 and 1 of FH and of K's column 2, columns 0 and 1
 * of K's rows), each number its scalar sum in the same order; U_t = [K | P_t^T] per side (P_t =
 * [r_t]x K, cross_mat's arithmetic; the rows 0 and 1 of P_t^T in pairs from K's rows), every
 * block from it by add_block_u. With add_block_u: 0.9895x the instructions of the resting S2 pile
 * of 125 boxes, P_t^T in pairs 0.9975x more, the same states (2026-12-05). */
static void scatter_hess(Island* is, int k, const double hess[9]) {
  if (is->fterm && is->fterm[k] >= 0) {
    scatter_hess_face(is, k, hess);
    return;
  }
  const cmRow* r = is->row[k];
  const double* F[3] = {r->n, r->t[0], r->t[1]};
  const double* rr[2] = {r->rA, r->rB};
  int ls2[2] = {is->lb[2 * k], is->lb[2 * k + 1]};
  double U[2][18] __attribute__((aligned(16)));
  v2d f0 = cm_v2_ld(F[0]), f1 = cm_v2_ld(F[1]), f2 = cm_v2_ld(F[2]);
  /* FH's columns, rows 0 and 1 (c) and row 2 (e) */
  v2d c0 = f0 * cm_v2_dup(hess[0]);
  v2d c1 = f1 * cm_v2_dup(hess[4]) + f2 * cm_v2_dup(hess[7]);
  v2d c2 = f1 * cm_v2_dup(hess[5]) + f2 * cm_v2_dup(hess[8]);
  double e0 = F[0][2] * hess[0];
  double e1 = F[1][2] * hess[4] + F[2][2] * hess[7];
  double e2 = F[1][2] * hess[5] + F[2][2] * hess[8];
  v2d k0 = cm_v2_dup(c0[0]) * f0 + cm_v2_dup(c1[0]) * f1 + cm_v2_dup(c2[0]) * f2;
  v2d k1 = cm_v2_dup(c0[1]) * f0 + cm_v2_dup(c1[1]) * f1 + cm_v2_dup(c2[1]) * f2;
  v2d k2 = cm_v2_dup(e0) * f0 + cm_v2_dup(e1) * f1 + cm_v2_dup(e2) * f2;
  v2d kc = c0 * cm_v2_dup(F[0][2]) + c1 * cm_v2_dup(F[1][2]) + c2 * cm_v2_dup(F[2][2]);
  double k02 = kc[0], k12 = kc[1], k22 = e0 * F[0][2] + e1 * F[1][2] + e2 * F[2][2];
  for (int s = 0; s < 2; s++)
    if (ls2[s] >= 0) {
      const double* rs = rr[s];
      double* u = U[s];
      v2d r0 = cm_v2_dup(rs[0]), r1 = cm_v2_dup(rs[1]), r2 = cm_v2_dup(rs[2]);
      /* P_t^T's rows 0 and 1 by columns: column j of its rows i = 0, 1 from K's rows in pairs */
      v2d q0 = r1 * k2 - r2 * k1, q1 = r2 * k0 - r0 * k2, q2 = r0 * k1 - r1 * k0;
      cm_v2_st(u, k0);
      cm_v2_st(u + 6, k1);
      cm_v2_st(u + 12, k2);
      u[2] = k02;
      u[8] = k12;
      u[14] = k22;
      u[3] = q0[0];
      u[9] = q0[1];
      u[4] = q1[0];
      u[10] = q1[1];
      u[5] = q2[0];
      u[11] = q2[1];
      u[15] = rs[1] * k22 - rs[2] * k12;
      u[16] = rs[2] * k02 - rs[0] * k22;
      u[17] = rs[0] * k12 - rs[1] * k02;
    }
  for (int s = 0; s < 2; s++) {
    int ls = ls2[s];
    if (ls < 0) continue;
    for (int t = 0; t < 2; t++) {
      int lt = ls2[t];
      if (lt < 0) continue;
      int neg = s != t;
      if (is->H) {
        if (ls < lt) continue; /* the upper block: the dense factor reads the lower triangle */
        size_t stride = (size_t)(6 * is->nb);
        add_block_u(is->H + (size_t)(6 * ls) * stride + (size_t)(6 * lt), stride, neg, U[t], rr[s]);
      } else if (ls == lt) {
        add_block_u(cm_bchol_diag(is->bc, ls), 6, neg, U[t], rr[s]);
      } else if (is->bc->iperm[ls] > is->bc->iperm[lt]) {
        /* the lower block; its transpose is implied */
        double* B = cm_bchol_block(is->bc, is->slot[k]);
        if (is->bset && !is->bset[is->slot[k]]) {
          is->bset[is->slot[k]] = 1;
          set_block_u(B, neg, U[t], rr[s]);
        } else {
          add_block_u(B, 6, neg, U[t], rr[s]);
        }
      }
    }
  }
}

/* 1 if two rows' Hessians (rows_eval) are the same bit for bit: memcmp's test on the numbers
 * that can be nonzero (the others are +0 in both), without its call per row */
static int same_hess(const double* a, const double* b) {
  static const int NZ[5] = {0, 4, 5, 7, 8};
  uint64_t d = 0;
  for (int i = 0; i < 5; i++) {
    uint64_t x, y;
    memcpy(&x, a + NZ[i], sizeof x);
    memcpy(&y, b + NZ[i], sizeof y);
    d |= x ^ y;
  }
  return d == 0;
}

/* the gradient of the rows at the rates is->y (into g, which holds M (u - u*) on entry), their
 * 3x3 Hessians kept for assemble_hessian (is->rh, is->rany); returns the squared norm of the
 * impulses */
static double rows_eval(Island* is) {
  double imp2 = 0;
  for (int k = 0; k < is->nr; k++) {
    const double* y = is->y + 3 * k;
    double imp[3] = {0, 0, 0}, *hess = is->rh + 9 * (size_t)k;
    int any = 0, slide = 0;
    memset(hess, 0, 9 * sizeof *hess);
    double lam = normal_impulse(is, k, y[0]);
    if (lam > 0) {
      imp[0] = lam;
      hess[0] = 1 / is->R[k];
      imp2 += lam * lam;
      any = 1;
    }
    if (is->limit[k] > 0) {
      double Hf[4];
      /* 4: a row that sliding_rows must test (an impulse, a limit, not held) */
      int held = row_friction(is, k, y + 1, is->limit[k], imp + 1, Hf, is->flag[k]);
      slide = 4 * (lam > 0 && !held);
      hess[4] = Hf[0];
      hess[5] = Hf[1];
      hess[7] = Hf[2];
      hess[8] = Hf[3];
      imp2 += imp[1] * imp[1] + imp[2] * imp[2];
      any = 1;
    }
    /* the delta assembly: has the row's Hessian changed since the store's (kept for
     * assemble_hessian: the store does not change before it) */
    int changed = is->hrow && is->assembled && !same_hess(is->hrow + 9 * (size_t)k, hess);
    is->rany[k] = (unsigned char)(any | changed << 1 | slide);
    /* the delta assembly adds the gradient of a row whose Hessian changed even without an
     * impulse (zeros), as when the two were one pass */
    if (any || changed) scatter_grad(is, k, imp);
  }
  return imp2;
}

/* the Hessian of the last rows_eval into the store: the whole of it, or (the delta assembly, a
 * store that holds the last assembled one) the change of each row's 3x3 Hessian. Deferred from
 * the gradient to the Newton direction, so that the iteration that converges assembles nothing
 * (the same store, bit for bit, for every direction taken). */
static void assemble_hessian(Island* is) {
  int n = 6 * is->nb;
  is->pending = 0;
  if (is->H && is->ntet) {
    memset(is->H, 0, (size_t)n * (size_t)n * sizeof *is->H);
  } else if (is->H) {
    /* the blocks on and below the diagonal only: scatter_hess writes no other, and dense_factor
     * reads no other (it writes L^T over the strict upper triangle). The memset of all n^2 (4.6
     * KB for 4 bodies) was 0.9 % of the instructions of S4; this 0.994x S4 600 steps, the same
     * states (2026-12-05). */
    const v2d zero = {0, 0};
    for (int l = 0; l < is->nb; l++)
      for (int b = 0; b <= l; b++) {
        double* B = is->H + (size_t)(6 * l) * n + 6 * b;
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++) {
          cm_v2_st(B + (size_t)i * n, zero);
          cm_v2_st(B + (size_t)i * n + 2, zero);
          cm_v2_st(B + (size_t)i * n + 4, zero);
        }
      }
  } else if (!is->hrow) {
    cm_bchol_zero(is->bc);
  } else if (!is->assembled) {
    /* the delta path keeps the mass blocks in the store: the diagonal blocks are 0 + M, the
     * zeroed store plus the mass blocks as before bit for bit, without clearing them first
     * (with the setup's buffers written instead of cleared and written: 0.992x the
     * instructions of the resting S2 pile of 125 boxes, whose memsets of more than 2 KB
     * callgrind counts per byte; 0.994x while it collapses, S4 0.995x; 2026-12-05) */
    for (int l = 0; l < is->nb; l++) {
      double* B = cm_bchol_diag(is->bc, l);
      for (int i = 0; i < 36; i++)
        B[i] = 0.0 + is->Mb[36 * l + i];
    }
    /* the off-diagonal blocks: each set by the first row that writes it (set_block_u: the sums
     * of the cleared store, bit for bit), the rest cleared after the rows, instead of clearing
     * them all first (a memset callgrind counts per byte: 12.9 M instructions of 20 steps of
     * the S2 pile of 1000 boxes at rest, 2.8 M of 100 of the pile of 125; 2026-12-07) */
    is->bset = is->bwork;
    memset(is->bset, 0, (size_t)is->bc->ap[is->nb]);
  }
  for (int k = 0; k < is->nr; k++) {
    const double* hess = is->rh + 9 * (size_t)k;
    if (!is->hrow) {
      if (is->rany[k] & 1) scatter_hess(is, k, hess);
      continue;
    }
    double* h0 = is->hrow + 9 * (size_t)k;
    if (!is->assembled) {
      memcpy(h0, hess, 9 * sizeof *hess);
      if (is->rany[k] & 1) scatter_hess(is, k, hess);
    } else if (is->rany[k] & 2) {
      double dh[9];
      for (int i = 0; i < 9; i++)
        dh[i] = hess[i] - h0[i];
      memcpy(h0, hess, 9 * sizeof *hess);
      scatter_hess(is, k, dh);
    }
  }
  if (is->bset) {
    const v2d zero = {0, 0};
    for (int a = 0; a < is->bc->ap[is->nb]; a++)
      if (!is->bset[a]) {
        double* B = cm_bchol_block(is->bc, a);
        for (int i = 0; i < 36; i += 2)
          cm_v2_st(B + i, zero);
      }
    is->bset = NULL;
  }
  is->assembled = is->hrow != NULL;
}

/* slope of E(u + t du): a + t c from the mass term, then the rows at y + t dy; and (curv not
 * NULL) its derivative, the curvature du^T H(t) du (NAN with elements, whose is not computed) */
static double line_slope(const Island* is, double a, double c, double t, double* curv,
                         double* mag) {
  double s = a + t * c, q = c, g = fabs(a) + fabs(t * c);
  if (is->ntet) {
    s += cm_island_fem_slope(is, t);
    q = NAN;
  }
  if (!isfinite(s)) return INFINITY; /* an element would invert: past the minimum */
  for (int k = 0; k < is->nr; k++) {
    const double* y = is->y + 3 * k;
    const double* dy = is->dy + 3 * k;
    double lam = normal_impulse(is, k, y[0] + t * dy[0]);
    if (lam > 0) {
      s -= dy[0] * lam;
      g += fabs(dy[0] * lam);
      q += dy[0] * dy[0] / is->R[k];
    }
    if (is->limit[k] > 0) {
      double w[2] = {y[1] + t * dy[1], y[2] + t * dy[2]}, gf[2], Hf[4];
      row_friction(is, k, w, is->limit[k], gf, curv ? Hf : NULL, 0);
      s -= dy[1] * gf[0] + dy[2] * gf[1];
      g += fabs(dy[1] * gf[0]) + fabs(dy[2] * gf[1]);
      if (curv)
        q += dy[1] * (Hf[0] * dy[1] + Hf[1] * dy[2]) + dy[2] * (Hf[2] * dy[1] + Hf[3] * dy[2]);
    }
  }
  if (curv) *curv = q;
  if (mag) *mag = g;
  return s;
}

/* the line search along du: the root of the monotone slope, bracketed, then found by Newton's
 * method on the slope (its derivative is the curvature along du, which line_slope sums with it)
 * while a Newton step stays inside the bracket, else regula falsi (Illinois), to LINE_TOL of
 * the slope at 0 (a point where the slope has fallen by that factor is as good a Newton step as
 * the exact minimum: the iteration counts of the S2 pile do not change from 1e-15 to 1e-3, and
 * the line search costs 9 % less). The slope is piecewise smooth (kinks where a contact opens
 * or a friction spring reaches its limit). A search also stops where the slope is rounding
 * (below 1e-13 of the sum of its terms' magnitudes): searches along directions of islands
 * already at their minimum (slopes of 1e-32) used to run the 60 evaluations; with that, the
 * S2 pile of 27 boxes went from 16.4 to 2.4 evaluations per search (bench/README.md). */
static double line_search(const Island* is) {
  int n = 6 * is->nb;
  double a = 0, c = 0;
  for (int i = 0; i < n; i++) {
    a += is->Mdu[i] * (is->u[i] - is->us[i]);
    c += is->Mdu[i] * is->du[i];
  }
  if (is->ntet) cm_island_fem_damping_line(is, &a, &c); /* stiffness-proportional damping */
  double clo, chi, mag, lo = 0, hi = 1, slo = line_slope(is, a, c, 0, &clo, NULL);
  double shi = line_slope(is, a, c, 1, &chi, &mag);
  double s0 = fabs(slo);
  if (fabs(shi) <= LINE_TOL * s0) return 1; /* the Newton step itself (near the solution) */
  while (shi < 0 && hi < 1e6) {
    lo = hi;
    slo = shi;
    clo = chi;
    hi *= 2;
    shi = line_slope(is, a, c, hi, &chi, &mag);
  }
  double t = hi;
  if (!(shi > 0 && slo < 0)) return t;
  /* the last point evaluated, for the Newton step */
  double tl = hi, sl = shi, cl = chi;
  if (fabs(slo) < fabs(shi)) {
    tl = lo;
    sl = slo;
    cl = clo;
  }
  int side = 0;
  for (int ls = 0; ls < 60; ls++) {
    /* Newton from the last point if it lands inside the bracket; else regula falsi, or
     * bisection while the upper end is where an element inverts */
    double tn = cl > 0 ? tl - sl / cl : NAN;
    if (tn > lo && tn < hi)
      t = tn;
    else
      t = isfinite(shi) ? (lo * shi - hi * slo) / (shi - slo) : 0.5 * (lo + hi);
    double st = line_slope(is, a, c, t, &cl, &mag);
    tl = t;
    sl = st;
    /* done: the slope has fallen enough, or is rounding (a slope summed from terms of size mag
     * is not known better than 1e-13 mag: the searches of islands already at their minimum
     * otherwise ran the 60 evaluations), or the bracket is as narrow as it gets */
    if (fabs(st) <= fmax(LINE_TOL * s0, 1e-13 * mag) || hi - lo <= 1e-15 * hi) break;
    if (st < 0) {
      lo = t;
      slo = st;
      if (side == -1) shi *= 0.5; /* Illinois: keep the bracket shrinking from both ends */
      side = -1;
    } else {
      hi = t;
      shi = st;
      if (side == 1) slo *= 0.5;
      side = 1;
    }
  }
  return t;
}

/* set the limits from the normal impulses at is->y */
static void update_limits(Island* is) {
  for (int k = 0; k < is->nr; k++) {
    double mu = is->row[k]->mu;
    if (mu > 0) is->limit[k] = mu * normal_impulse(is, k, is->y[3 * k]);
  }
}

/* The outer loop's limit update with Anderson acceleration. The fixed point L = G(L) (G: mu
 * times the normal impulses of the Newton solution for limits L) is mixed from the last passes:
 * with f = G(L) - L, the differences dF_j, dG_j of f and G between passes, gamma minimises
 * |f - sum gamma_j dF_j| and L+ = G - sum gamma_j dG_j (clamped at 0), a secant method for the
 * fixed point that converges where the plain iteration L+ = G contracts slowly or cycles.
 * Restart: where the map is steep and not smooth (a corner whose friction lifts it: in one
 * traced island of two boxes at ka 5e10, G = 4.7e-3 N s at L = 0 and G = 0 at L = 2.4e-3 N s)
 * the secant from old passes points the wrong way and the passes cycle (L = 0, G(0), their
 * mix, 0, ...) until MAX_ITER. A pass
 * that does not decrease |f| drops the history and moves the limits by AA_DAMP f (S2 pile of
 * 125 boxes at ka 5e10, four variants of the lattice, 2 s each: solves not converged 100 -> 54;
 * at ka 1e7 the outer loop does not run and nothing changes). Returns 1 if the limits changed
 * by more than the tolerance: LIMIT_TOL of the largest, or the precision the Newton tolerance
 * gives the normal impulses (tol times the momentum scale, times mu). */
static int anderson_limits(Island* is, double pscale) {
  int nr = is->nr;
  double* G0 = is->aa;
  double* f0 = is->aa + nr;
  double* dG = is->aa + 2 * nr;
  double* dF = dG + AA_DEPTH * nr;
  double change = 0, big = 0, imp2 = 0, mu_max = 0;
  int slot = is->aa_next;
  for (int k = 0; k < nr; k++) {
    double mu = is->row[k]->mu;
    double lam = normal_impulse(is, k, is->y[3 * k]), G = mu > 0 ? mu * lam : 0;
    double f = G - is->limit[k];
    change = fabs(f) > change ? fabs(f) : change;
    big = G > big ? G : big;
    imp2 += lam * lam;
    mu_max = mu > mu_max ? mu : mu_max;
    if (is->aa_n >= 0) {
      dG[slot * nr + k] = G - G0[k];
      dF[slot * nr + k] = f - f0[k];
    }
    G0[k] = G;
    f0[k] = f;
  }
  double noise = 10 * is->tol * mu_max * fmax(pscale, sqrt(imp2));
  double fn = 0;
  for (int k = 0; k < nr; k++)
    fn += f0[k] * f0[k];
  fn = sqrt(fn);
  int restart = is->aa_n >= 0 && !(fn < is->aa_fn);
  is->aa_fn = fn;
  if (restart) {
    is->aa_n = 0;
    is->aa_next = 0;
    for (int k = 0; k < nr; k++) {
      double L = is->limit[k] + AA_DAMP * f0[k];
      is->limit[k] = L > 0 ? L : 0;
    }
    return change > fmax(LIMIT_TOL * big, noise);
  }
  if (is->aa_n >= 0) {
    if (is->aa_n < AA_DEPTH) is->aa_n++;
    is->aa_next = (slot + 1) % AA_DEPTH;
  } else {
    is->aa_n = 0;
  }
  /* gamma from the normal equations (dF^T dF + eps) gamma = dF^T f */
  int m = is->aa_n;
  double A[AA_DEPTH * AA_DEPTH], rhs[AA_DEPTH], gamma[AA_DEPTH] = {0};
  int use = m > 0;
  if (use) {
    double tr = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j <= i; j++) {
        double sij = 0;
        for (int k = 0; k < nr; k++)
          sij += dF[i * nr + k] * dF[j * nr + k];
        A[i * m + j] = A[j * m + i] = sij;
      }
      double r = 0;
      for (int k = 0; k < nr; k++)
        r += dF[i * nr + k] * f0[k];
      rhs[i] = r;
      tr += A[i * m + i];
    }
    for (int i = 0; i < m; i++)
      A[i * m + i] += 1e-12 * tr + 1e-300;
    use = cm_chol_factor(A, A, m);
    if (use) {
      memcpy(gamma, rhs, (size_t)m * sizeof *gamma);
      cm_chol_solve(A, m, gamma);
    }
  }
  for (int k = 0; k < nr; k++) {
    double L = G0[k];
    if (use)
      for (int i = 0; i < m; i++)
        L -= gamma[i] * dG[i * nr + k];
    is->limit[k] = L > 0 ? L : 0;
  }
  return change > fmax(LIMIT_TOL * big, noise);
}

/* ---- the coupled Newton step ------------------------------------------------------------ */

/* out (6 nb) -= J_k^T F imp (the sides that are variables), F = (n t1 t2): side A gets -(f,
 * rA x f), B +(f, rB x f), f = F imp. Until 2026-12-05 both sides' blocks were formed first (x
 * = sigma_s (f, r_s x f)) and added as out += -1 x: the same numbers (products with +-1 are
 * exact, and out + -v is out - v), without the blocks of a side that is not a variable. */
static void row_sub(const Island* is, int k, const double imp[3], double* out) {
  const cmRow* r = is->row[k];
  double f[3], rf[3];
  for (int i = 0; i < 3; i++)
    f[i] = r->n[i] * imp[0] + r->t[0][i] * imp[1] + r->t[1][i] * imp[2];
  int la = is->lb[2 * k], lb = is->lb[2 * k + 1];
  if (la >= 0) {
    double* o = out + 6 * la;
    cm_v3_cross(rf, r->rA, f);
    for (int i = 0; i < 3; i++) {
      o[i] -= f[i];
      o[3 + i] -= rf[i];
    }
  }
  if (lb >= 0) {
    double* o = out + 6 * lb;
    cm_v3_cross(rf, r->rB, f);
    for (int i = 0; i < 3; i++) {
      o[i] += f[i];
      o[3 + i] += rf[i];
    }
  }
}

/* 1 if row k slides at is->y (its slip, less a spring's offset, beyond the stick zone), with
 * the unit slip direction in xh */
static int row_sliding(const Island* is, int k, double xh[2]) {
  double x0 = is->y[3 * k + 1] - is->cw[2 * k], x1 = is->y[3 * k + 2] - is->cw[2 * k + 1];
  double r = sqrt(x0 * x0 + x1 * x1);
  double width = is->kt2[k] > 0 ? is->limit[k] / is->kt2[k] : is->vs[k];
  if (!(r > width) || !(r > 0)) return 0;
  xh[0] = x0 / r;
  xh[1] = x1 / r;
  return 1;
}

/* the merit |g|^2 / 2 at is->u, with the limits there (the merged iteration's): the gradient
 * that gradient_hessian computes at is->u (the same rows_eval, into is->g with the rows' 3x3
 * Hessians, with the secant flags the caller gives), so that when the coupled step is taken the
 * next iteration does not compute it again (is->g_fresh). Sets is->y, the limits, is->g, is->rh,
 * is->rany and is->imp2, and uses du as work. Until 2026-12-07 the merit summed the impulses on
 * its own (row_sub into is->Mdu) and the next iteration's gradient_hessian summed them again:
 * the S4 bed of 1000 spheres takes a coupled step in nearly every Newton iteration, and every
 * one of its 2,643 in 1 s was accepted. */
static double merit(Island* is) {
  int n = 6 * is->nb;
  rates(is, is->u, is->y, 1);
  update_limits(is);
  for (int i = 0; i < n; i++)
    is->du[i] = is->u[i] - is->us[i];
  mass_mul(is, is->du, is->g);
  is->imp2 = rows_eval(is);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += is->g[i] * is->g[i];
  return 0.5 * s;
}

/* ---- the dense Hessian of a small island ------------------------------------------------ */

/* The dense factor H = L L^T of an island of at most cm_bchol_dense_max bodies, in place: the
 * diagonal of L on H's, and L^T in the strict upper triangle (U = L^T: U[k n + i] = L_ik),
 * whose rows are the columns of L, contiguous. The lower triangle (the assembled H) is read and
 * left as it is; only dense_solve reads the factor. cm_chol_factor's arithmetic entry by entry:
 * L_ij = (H_ij - L_i0 L_j0 - L_i1 L_j1 - ...) / L_jj, k ascending, but two rows i, i + 1 of a
 * column j at a time in the two lanes, their L_ik, L_i+1,k a pair of U's row k; the solves are
 * cm_chol_forward's and cm_chol_backward's, the forward one by columns (x_i -= L_ik x_k for
 * every i > k once x_k is final: each x_i still subtracts its terms k ascending, then divides),
 * in pairs of lanes. Returns 0 if H is not positive definite. For n = 6 .. 24 every loop is
 * unrolled (the trip counts are constants there). With cm_chol_factor and cm_chol_solve on the
 * lower triangle the factor and solves were 7 % of the instructions of S4 (125 spheres, mostly
 * islands of 1-4 bodies); now S4 600 steps 0.950x the instructions, 0.96x the CPU time of 1000,
 * the same states (2026-12-05). */
static inline __attribute__((always_inline)) int dense_factor_n(double* restrict H, int n) {
#pragma GCC unroll 24
  for (int j = 0; j < n; j++) {
    double ljj;
    int i;
    if (j % 2 == 0) {
      /* the pivot's sum in lane 0 (H_jj - L_j0 L_j0 - ...: row j's own entry), row j + 1's in
       * lane 1 */
      v2d t = {H[j * n + j], H[(j + 1) * n + j]};
#pragma GCC unroll 24
      for (int k = 0; k < j; k++) {
        double u = H[k * n + j];
        t -= cm_v2_ld(H + k * n + j) * (v2d){u, u};
      }
      if (!(t[0] > 0)) return 0;
      ljj = sqrt(t[0]);
      H[j * n + j] = ljj;
      H[j * n + j + 1] = t[1] / ljj;
      i = j + 2;
    } else {
      double s = H[j * n + j];
#pragma GCC unroll 24
      for (int k = 0; k < j; k++)
        s -= H[k * n + j] * H[k * n + j];
      if (!(s > 0)) return 0;
      ljj = sqrt(s);
      H[j * n + j] = ljj;
      i = j + 1;
    }
    /* the rows below, four (two pairs) at a time, n - i even */
    v2d d = {ljj, ljj};
#pragma GCC unroll 12
    for (; i + 3 < n; i += 4) {
      v2d t0 = {H[i * n + j], H[(i + 1) * n + j]};
      v2d t1 = {H[(i + 2) * n + j], H[(i + 3) * n + j]};
#pragma GCC unroll 24
      for (int k = 0; k < j; k++) {
        double u = H[k * n + j];
        v2d uu = {u, u};
        t0 -= cm_v2_ld(H + k * n + i) * uu;
        t1 -= cm_v2_ld(H + k * n + i + 2) * uu;
      }
      cm_v2_st(H + j * n + i, t0 / d);
      cm_v2_st(H + j * n + i + 2, t1 / d);
    }
    if (i < n) {
      v2d t = {H[i * n + j], H[(i + 1) * n + j]};
#pragma GCC unroll 24
      for (int k = 0; k < j; k++) {
        double u = H[k * n + j];
        t -= cm_v2_ld(H + k * n + i) * (v2d){u, u};
      }
      cm_v2_st(H + j * n + i, t / d);
    }
  }
  return 1;
}

/* dense_factor_n for any other n (an island of more bodies than cm_bchol_dense_max's default:
 * the tests raise it), out of line; clang reports the unroll requests it cannot honour for an n
 * it does not know (-Wpass-failed), which here is expected */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
static int dense_factor_any(double* restrict H, int n) {
  return dense_factor_n(H, n);
}

/* x := H^-1 x with dense_factor's factor: forward by pairs of columns k, k + 1 (x_i -= L_ik x_k,
 * then -= L_i,k+1 x_k+1, for every i > k + 1 in pairs of lanes), backward by rows of U, each a
 * chain of subtractions k ascending (cm_chol_backward's order, which no other grouping keeps).
 * For a constant n every loop unrolled: for n = 24 the backward solve is 300 terms, and its loop
 * counter and test cost as much as the terms. */
static inline __attribute__((always_inline)) void dense_solve_n(const double* restrict H, int n,
                                                                double* restrict x) {
#pragma GCC unroll 12
  for (int k = 0; k < n; k += 2) {
    double x0 = x[k] / H[k * n + k];
    double x1 = (x[k + 1] - H[k * n + k + 1] * x0) / H[(k + 1) * n + k + 1];
    x[k] = x0;
    x[k + 1] = x1;
    v2d a = {x0, x0}, b = {x1, x1};
#pragma GCC unroll 12
    for (int i = k + 2; i < n; i += 2)
      cm_v2_st(x + i,
               cm_v2_ld(x + i) - cm_v2_ld(H + k * n + i) * a - cm_v2_ld(H + (k + 1) * n + i) * b);
  }
#pragma GCC unroll 24
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
#pragma GCC unroll 24
    for (int k = i + 1; k < n; k++)
      s -= H[i * n + k] * x[k];
    x[i] = s / H[i * n + i];
  }
}

/* dense_solve_n for any other n, out of line */
static void dense_solve_any(const double* restrict H, int n, double* restrict x) {
  dense_solve_n(H, n, x);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

static int dense_factor(double* H, int n) {
  switch (n) {
  case 6:
    return dense_factor_n(H, 6);
  case 12:
    return dense_factor_n(H, 12);
  case 18:
    return dense_factor_n(H, 18);
  case 24:
    return dense_factor_n(H, 24);
  default:
    return dense_factor_any(H, n);
  }
}

static void dense_solve(const double* H, int n, double* x) {
  switch (n) {
  case 6:
    dense_solve_n(H, 6, x);
    break;
  case 12:
    dense_solve_n(H, 12, x);
    break;
  case 18:
    dense_solve_n(H, 18, x);
    break;
  case 24:
    dense_solve_n(H, 24, x);
    break;
  default:
    dense_solve_any(H, n, x);
  }
}

/* x := A^-1 x with the island's factorised Hessian (dense or block-sparse) */
static void hess_solve(Island* is, double* x) {
  if (is->H)
    dense_solve(is->H, 6 * is->nb, x);
  else
    cm_bchol_solve(is->bc, x);
}

/* out -= U W V^T x over the rows S (module comment): for each, mu / R times the normal rate of
 * x along its tangential column U_j = J_j^T F (0, xh_j). xh_j and mu / R come from is->cxh
 * (coupled_direction: is->y and the limits do not move while it runs); the normal rate is
 * row_rates' written out for the one rate, the column row_sub's for the impulse (0, xh c): the
 * same operations in the same order, bit for bit.
 * This ran row_rates (all three rates), row_sliding (a sqrt and three divisions) and row_add
 * (both sides' blocks, then the sum) for every row of every Krylov vector: 10 % of the
 * instructions of the S2 pile of 125 boxes at ka 5e10; now 0.952x the instructions of 30
 * of its steps from 0.8 s, 0.998x of 300 at rest (ka 1e7), the same states (2026-12-05). */
static void coupling_sub(const Island* is, int ns, const double* x, double* out) {
  for (int j = 0; j < ns; j++) {
    int k = is->cS[j], la = is->lb[2 * k], lb = is->lb[2 * k + 1];
    const cmRow* r = is->row[k];
    const double* cx = is->cxh + 3 * j;
    double p[3] = {0, 0, 0}, wr[3];
    if (la >= 0) {
      const double* xa = x + 6 * la;
      cm_v3_cross(wr, xa + 3, r->rA);
      for (int i = 0; i < 3; i++)
        p[i] += xa[i] + wr[i];
    }
    if (lb >= 0) {
      const double* xb = x + 6 * lb;
      cm_v3_cross(wr, xb + 3, r->rB);
      for (int i = 0; i < 3; i++)
        p[i] -= xb[i] + wr[i];
    }
    double c = cx[2] * cm_v3_dot(r->n, p);
    const double e[3] = {0.0, cx[0] * c, cx[1] * c};
    row_sub(is, k, e, out);
  }
}

/* One step of GMRES (coupled_direction, direct_step): w (the operator applied to basis vector
 * k of V, n each) orthogonalised against V's vectors 0..k by modified Gram-Schmidt into column k
 * of the Hessenberg matrix Hh (leading dimension ld), normalised into vector k + 1, column k
 * rotated by the Givens rotations so far and a new one (cs, sn) that updates the residual
 * vector e. Returns |w| before normalising (0: the Krylov space is exhausted). */
/* Each projection w -= h_i v_i is one pass with the next dot product, h_{i+1} = w . v_{i+1}
 * (after the last, |w|^2), on the entries of w as they are written: each sum is its scalar sum
 * (+0, then the products with q ascending), the products and differences of each entry in the
 * two lanes of a pair (n = 6 nb is even). Three passes over w per vector before: the Arnoldi
 * loops were 6 % of the instructions of the stiff pile's 30 steps (2026-12-08). */
static double gmres_step(double* Hh, int ld, double* cs, double* sn, double* e, const double* V,
                         double* w, int n, int k) {
  double h = 0;
  for (int q = 0; q < n; q += 2) {
    v2d p = cm_v2_ld(w + q) * cm_v2_ld(V + q);
    h += p[0];
    h += p[1];
  }
  for (int i = 0; i <= k; i++) {
    const double* vi = V + (size_t)i * n;
    v2d hh = cm_v2_dup(h);
    Hh[i * ld + k] = h;
    h = 0;
    if (i < k) {
      const double* vn = vi + n;
      for (int q = 0; q < n; q += 2) {
        v2d x = cm_v2_ld(w + q) - hh * cm_v2_ld(vi + q);
        cm_v2_st(w + q, x);
        v2d p = x * cm_v2_ld(vn + q);
        h += p[0];
        h += p[1];
      }
    } else {
      for (int q = 0; q < n; q += 2) {
        v2d x = cm_v2_ld(w + q) - hh * cm_v2_ld(vi + q);
        cm_v2_st(w + q, x);
        v2d p = x * x;
        h += p[0];
        h += p[1];
      }
    }
  }
  double hn = sqrt(h);
  Hh[(k + 1) * ld + k] = hn;
  if (hn > 0)
    for (int q = 0; q < n; q++)
      w[q] /= hn;
  for (int i = 0; i < k; i++) {
    double a = Hh[i * ld + k], b = Hh[(i + 1) * ld + k];
    Hh[i * ld + k] = cs[i] * a + sn[i] * b;
    Hh[(i + 1) * ld + k] = -sn[i] * a + cs[i] * b;
  }
  double a = Hh[k * ld + k], b = Hh[(k + 1) * ld + k], r = hypot(a, b);
  cs[k] = r > 0 ? a / r : 1;
  sn[k] = r > 0 ? b / r : 0;
  Hh[k * ld + k] = r;
  Hh[(k + 1) * ld + k] = 0;
  e[k + 1] = -sn[k] * e[k];
  e[k] = cs[k] * e[k];
  return hn;
}

/* GMRES's coefficients y (kk) from the rotated triangle of Hh and e; 0 if it is singular */
static int gmres_coeffs(const double* Hh, int ld, const double* e, int kk, double* y) {
  for (int i = kk - 1; i >= 0; i--) {
    double sacc = e[i];
    for (int j = i + 1; j < kk; j++)
      sacc -= Hh[i * ld + j] * y[j];
    double d = Hh[i * ld + i];
    if (!(fabs(d) > 0)) return 0;
    y[i] = sacc / d;
  }
  return 1;
}

/* The coupled Newton direction (module comment) from the plain one d_s in is->du, with the
 * Hessian A factorised: d = d_s + A^-1 t, t from GMRES on (I - U W V^T A^-1) t = U W V^T d_s
 * (right-preconditioned: every vector of its Krylov space is in the span of U, so it ends in at
 * most |S| iterations; it stops at KRYLOV_TOL of |g|). Returns the rows coupled; 0 (du
 * unchanged) if none slides (or too many), or the coupling is below the tolerance already. */
/* the sliding rows S at is->y into is->cS, is->cxh; their count, -1 if more than cs_max */
static int sliding_rows(Island* is) {
  int ns = 0;
  for (int k = 0; k < is->nr; k++) {
    double xh[2];
    /* the last rows_eval ran at this is->y with these limits (the gradient of the iteration,
     * or the merit of the coupled step it took) and left out (rany bit 4 clear) only rows that
     * fail the test below. The test on every row was 0.6 % of the instructions of the resting
     * 1000-box pile, 1.1 % of the stiff pile (2026-12-08) */
    if (!(is->rany[k] & 4)) continue;
    if (!(is->row[k]->mu > 0) || !(is->limit[k] > 0) || !(normal_impulse(is, k, is->y[3 * k]) > 0))
      continue;
    if (!row_sliding(is, k, xh)) continue;
    if (ns == is->cs_max) return -1;
    is->cxh[3 * ns] = xh[0];
    is->cxh[3 * ns + 1] = xh[1];
    is->cxh[3 * ns + 2] = is->row[k]->mu / is->R[k];
    is->cS[ns++] = k;
  }
  return ns;
}

static int coupled_direction(Island* is) {
  int n = 6 * is->nb, ns = sliding_rows(is);
  if (ns <= 0) return 0;
  double gn = 0;
  for (int i = 0; i < n; i++)
    gn += is->g[i] * is->g[i];
  double tol = KRYLOV_TOL * sqrt(gn);
  /* r0 = U W V^T d_s into the first basis vector */
  double* v0 = is->kv;
  /* cleared by pairs of stores (n = 6 nb is even): the same zeros as the memset, which callgrind
   * counted per byte (with z below: 9.0 M instructions of 30 steps of the S2 pile of 125 boxes
   * at ka 5e10; 2026-12-07) */
  for (int i = 0; i < n; i += 2)
    cm_v2_st(v0 + i, (v2d){0, 0});
  coupling_sub(is, ns, is->du, v0);
  double beta = 0;
  for (int i = 0; i < n; i++) {
    v0[i] = -v0[i];
    beta += v0[i] * v0[i];
  }
  beta = sqrt(beta);
  /* the plain step leaves about beta of gradient: skipped only where that is far below what the
   * convergence test sees (res = |g| / scale, so tol scale = tol |g| / res) */
  double seen = 0.1 * is->tol * sqrt(gn) / fmax(is->res, 1e-300);
  if (!(beta > fmin(tol, seen))) return 0;
  for (int i = 0; i < n; i++)
    v0[i] /= beta;
  /* Arnoldi with modified Gram-Schmidt; the least-squares problem by Givens rotations */
  double Hh[(KRYLOV_MAX + 1) * KRYLOV_MAX], cs[KRYLOV_MAX], sn[KRYLOV_MAX], e[KRYLOV_MAX + 1];
  double* z = is->Mdu;
  e[0] = beta;
  int kk = 0;
  for (int k = 0; k < KRYLOV_MAX; k++) {
    const double* vk = is->kv + (size_t)k * n;
    double* w = is->kv + (size_t)(k + 1) * n;
    memcpy(z, vk, (size_t)n * sizeof *z);
    hess_solve(is, z);
    memcpy(w, vk, (size_t)n * sizeof *w);
    coupling_sub(is, ns, z, w);
    double hn = gmres_step(Hh, KRYLOV_MAX, cs, sn, e, is->kv, w, n, k);
    kk = k + 1;
    if (fabs(e[k + 1]) <= tol || !(hn > 0)) break;
  }
  /* y from the triangle, t = V y, d = d_s + A^-1 t */
  double yk[KRYLOV_MAX] = {0};
  if (!gmres_coeffs(Hh, KRYLOV_MAX, e, kk, yk)) return 0;
  /* A^-1 t: one more solve, on t = V y */
  /* z = (+0 + y_0 v_0) + y_1 v_1 + ...: the first term with the cleared z's +0, not on a
   * cleared z (kk >= 1) */
  for (int q = 0; q < n; q++)
    z[q] = 0.0 + yk[0] * is->kv[q];
  for (int i = 1; i < kk; i++) {
    const double* vi = is->kv + (size_t)i * n;
    for (int q = 0; q < n; q++)
      z[q] += yk[i] * vi[q];
  }
  hess_solve(is, z);
  for (int q = 0; q < n; q++)
    is->du[q] += z[q];
  return ns;
}

/* A trial of a whole step du from is->u (coupled_step, direct_step): u, its rates, limits and
 * secant flags kept, then u moved and the flags cleared (a step taken leaves them so: the next
 * Hessian is exact); the merit at the new u sets the rates, limits and gradient there. The kept
 * ones are kept by swapping each with its spare (ub, yb, lb_limit, flag_b), not copied: the
 * merit writes every rate, every limit of a row with friction (the others are +0 in both: see
 * solve_island) and every flag was cleared, and a trial not taken swaps them back. The copies
 * of the rates (24 bytes a row), which callgrind counts per byte, were 12.9 M instructions of
 * 20 steps of the S2 pile of 1000 boxes at rest (2026-12-07). */
static void swap_ptr(double** a, double** b) {
  double* t = *a;
  *a = *b;
  *b = t;
}

static void swap_flags(Island* is) {
  unsigned char* t = is->flag;
  is->flag = is->flag_b;
  is->flag_b = t;
}

static void trial_begin(Island* is) {
  int n = 6 * is->nb;
  swap_ptr(&is->u, &is->ub);
  swap_ptr(&is->y, &is->yb);
  swap_ptr(&is->limit, &is->lb_limit);
  swap_flags(is);
  memset(is->flag, 0, (size_t)is->nr);
  for (int i = 0; i < n; i++)
    is->u[i] = is->ub[i] + is->du[i];
}

/* is the trial taken (Armijo's rule on the merit |g|^2 / 2, phi0 the start's)? If so the next
 * iteration's gradient is the merit's; if not, u, the rates, limits and flags as before it (the
 * rates computed again from u until 2026-12-06: the same numbers) */
static int trial_end(Island* is, double phi0) {
  if (merit(is) <= (1 - 2 * ARMIJO) * phi0) {
    is->ncoupled++;
    is->g_fresh = 1;
    return 1;
  }
  swap_ptr(&is->u, &is->ub);
  swap_ptr(&is->y, &is->yb);
  swap_ptr(&is->limit, &is->lb_limit);
  swap_flags(is);
  return 0;
}

/* One coupled Newton step from is->u (gradient is->g, Hessian factorised, plain direction in
 * is->du): taken whole if it decreases the merit by Armijo's rule; returns 1 if taken (is->u
 * moved), 0 if not (is->u, is->y, the limits and is->du as on entry). */
static int coupled_step(Island* is) {
  int n = 6 * is->nb;
  double phi0 = 0;
  for (int i = 0; i < n; i++)
    phi0 += is->g[i] * is->g[i];
  phi0 *= 0.5;
  memcpy(is->ds, is->du, (size_t)n * sizeof *is->ds);
  if (coupled_direction(is) <= 0) {
    memcpy(is->du, is->ds, (size_t)n * sizeof *is->du);
    return 0;
  }
  trial_begin(is);
  if (trial_end(is, phi0)) return 1;
  memcpy(is->du, is->ds, (size_t)n * sizeof *is->du);
  return 0;
}

/* One direct coupled Newton step on a conjugate-gradient island (module comment, "Direct
 * steps"): GMRES on the whole Jacobian J = A - U W V^T (A the Hessian, U W V^T the sliding rows'
 * coupling), J d = -g, right-preconditioned by A's symmetric block Gauss-Seidel M, from d = 0 to
 * the plain direction's relative residual min(REUSE_TOL, max(PCG_TOL, sqrt(res))), restarted
 * every DIRECT_MAX iterations, at most DIRECT_CYCLES times; the step d taken whole if Armijo's
 * rule accepts it. Returns 1 if taken (is->u moved, its gradient computed), 0 if not (the state
 * as on entry, the Hessian assembled; is->direct_off set when GMRES did not converge), -1 if a
 * diagonal block is not positive definite. */
static int direct_step(Island* is) {
  int n = 6 * is->nb;
  if (is->pending) assemble_hessian(is);
  int ns = sliding_rows(is);
  if (ns <= 0) return 0; /* J = A: the plain direction by conjugate gradients is the one */
  if (cm_bchol_sgs_setup(is->bc, is->pcg_work)) return -1;
  double gn = 0;
  for (int i = 0; i < n; i++)
    gn += is->g[i] * is->g[i];
  double beta = sqrt(gn);
  if (!(beta > 0)) return 0;
  double eta = fmin(REUSE_TOL, fmax(PCG_TOL, sqrt(fmax(is->res, 1e-300))));
  /* restarted GMRES(DIRECT_MAX): Arnoldi with modified Gram-Schmidt on J M^-1, the
   * least-squares problem by Givens rotations; Z holds M^-1 v_k, so that d += Z y per cycle.
   * r = -g - J d starts each cycle (d = 0 the first) */
  double Hh[(DIRECT_MAX + 1) * DIRECT_MAX], cs[DIRECT_MAX], sn[DIRECT_MAX], e[DIRECT_MAX + 1];
  double *V = is->kv, *Z = is->kz;
  memset(is->du, 0, (size_t)n * sizeof *is->du);
  for (int i = 0; i < n; i++)
    V[i] = -is->g[i];
  double rn = beta;
  for (int cycle = 0;; cycle++) {
    for (int i = 0; i < n; i++)
      V[i] /= rn;
    e[0] = rn;
    int kk = 0;
    for (int k = 0; k < DIRECT_MAX; k++) {
      const double* vk = V + (size_t)k * n;
      double* zk = Z + (size_t)k * n;
      double* w = V + (size_t)(k + 1) * n;
      cm_bchol_sgs_apply(is->bc, is->pcg_work, vk, zk);
      cm_bchol_matvec(is->bc, zk, w);
      coupling_sub(is, ns, zk, w);
      double hn = gmres_step(Hh, DIRECT_MAX, cs, sn, e, V, w, n, k);
      kk = k + 1;
      if (fabs(e[k + 1]) <= eta * beta || !(hn > 0)) break;
    }
    double yk[DIRECT_MAX] = {0};
    if (!gmres_coeffs(Hh, DIRECT_MAX, e, kk, yk)) return 0;
    for (int i = 0; i < kk; i++) {
      const double* zi = Z + (size_t)i * n;
      for (int q = 0; q < n; q++)
        is->du[q] += yk[i] * zi[q];
    }
    if (fabs(e[kk]) <= eta * beta) break;
    if (cycle + 1 == DIRECT_CYCLES) {
      is->direct_off = 1; /* stiffer than the cycles resolve: plain steps for this solve */
      return 0;
    }
    /* the next cycle from the true residual r = -g - J d */
    cm_bchol_matvec(is->bc, is->du, V);
    coupling_sub(is, ns, is->du, V);
    rn = 0;
    for (int i = 0; i < n; i++) {
      V[i] = -is->g[i] - V[i];
      rn += V[i] * V[i];
    }
    rn = sqrt(rn);
    if (!(rn > 0)) break;
  }
  /* the merit overwrites the gradient (and the rows' Hessians, which the next gradient_hessian
   * computes again; the store keeps u's, assembled above): kept for a step not taken */
  swap_ptr(&is->g, &is->gb); /* the merit writes every entry of g (mass_mul, then the rows) */
  trial_begin(is);
  if (trial_end(is, 0.5 * gn)) return 1;
  swap_ptr(&is->g, &is->gb);
  return 0;
}

/* the coupled step's memory, for an island where it can run: friction, rigid bodies only */
static int coupled_setup(Island* is, int nf, cmArena* arena) {
  is->cs_max = 0;
  if (!cm_solve_coupled || !nf || is->fterm || is->ntet) return 0;
  int ns = nf;
  size_t n = 6 * (size_t)is->nb;
  is->kz = is->gb = NULL;
  /* the Krylov basis: the coupled step's on a factorised island, direct_step's (with its
   * preconditioned vectors and the gradient kept) on a conjugate-gradient one */
  size_t nk = is->pcg ? DIRECT_MAX : KRYLOV_MAX;
  if (is->pcg) {
    is->kz = cm_arena_alloc(arena, nk * n * sizeof *is->kz);
    is->gb = cm_arena_alloc(arena, n * sizeof *is->gb);
    if (!is->kz || !is->gb) return 1;
  }
  is->cS = cm_arena_alloc(arena, (size_t)ns * sizeof *is->cS);
  is->cxh = cm_arena_alloc(arena, 3 * (size_t)ns * sizeof *is->cxh);
  is->kv = cm_arena_alloc(arena, (nk + 1) * n * sizeof *is->kv);
  is->ub = cm_arena_alloc(arena, n * sizeof *is->ub);
  is->ds = cm_arena_alloc(arena, n * sizeof *is->ds);
  is->yb = cm_arena_alloc(arena, 3 * (size_t)is->nr * sizeof *is->yb);
  is->lb_limit = cm_arena_alloc(arena, (size_t)is->nr * sizeof *is->lb_limit);
  is->flag_b = cm_arena_alloc(arena, (size_t)is->nr + 1);
  if (!is->cS || !is->cxh || !is->kv || !is->ub || !is->ds || !is->yb || !is->lb_limit ||
      !is->flag_b)
    return 1;
  is->cs_max = ns;
  return 0;
}

/* flag the sliding rows whose step du (rates is->dy) brings their slip within CROSS_FRAC of
 * zero: their Hessian is the secant in the next iteration. A flag stays while the step still
 * changes the slip by more than KEEP_FRAC of it (the contact has not settled on a direction):
 * dropping it at once made the flags of such contacts alternate from one iteration to the next */
static void flag_crossings(Island* is) {
  for (int k = 0; k < is->nr; k++) {
    int was = is->flag[k];
    is->flag[k] = 0;
    if (!(is->limit[k] > 0)) continue;
    /* the slip the friction law sees (less a spring's offset) */
    double y[3] = {is->y[3 * k], is->y[3 * k + 1] - is->cw[2 * k],
                   is->y[3 * k + 2] - is->cw[2 * k + 1]};
    const double* dy = is->dy + 3 * k;
    double w2 = y[1] * y[1] + y[2] * y[2], dd = dy[1] * dy[1] + dy[2] * dy[2];
    double t = dd > 0 ? -(y[1] * dy[1] + y[2] * dy[2]) / dd : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double m0 = y[1] + t * dy[1], m1 = y[2] + t * dy[2];
    is->flag[k] = m0 * m0 + m1 * m1 < CROSS_FRAC * CROSS_FRAC * w2 ||
                  (was && dd > KEEP_FRAC * KEEP_FRAC * w2);
  }
}

/* the gradient (is->g) and Hessian at u (rates is->y) for the current limits, and the relative
 * residual is->res */
static int gradient_hessian(Island* is, double pscale) {
  int n = 6 * is->nb;
  double imp2 = is->imp2;
  if (!is->g_fresh) {
    for (int i = 0; i < n; i++)
      is->du[i] = is->u[i] - is->us[i];
    mass_mul(is, is->du, is->g);
    imp2 = rows_eval(is);
  }
  is->g_fresh = 0;
  double imp = sqrt(imp2), gn = 0;
  is->pending = 1;
  if (is->ntet) {
    /* the elements add their gradient and Hessian together: the rows' Hessian first */
    assemble_hessian(is);
    if (!cm_island_fem_grad_hess(is)) return 0;
  }
  for (int i = 0; i < n; i++)
    gn += is->g[i] * is->g[i];
  double scale = pscale > imp ? pscale : imp;
  if (is->ntet && is->fscale > scale) scale = is->fscale;
  is->res = sqrt(gn) / (scale > 1e-300 ? scale : 1e-300);
  return 1;
}

/* the Newton direction du = -H^-1 g (H: the stored Hessian plus the mass blocks, factorised or,
 * on the conjugate-gradient path, solved iteratively); 0 if H is not positive definite */
static int newton_direction(Island* is) {
  int n = 6 * is->nb;
  if (is->pending) assemble_hessian(is);
  for (int i = 0; i < n; i++)
    is->du[i] = -is->g[i];
  if (is->H) {
    for (int l = 0; l < is->nb; l++)
      for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
          is->H[(6 * l + i) * n + 6 * l + j] += is->Mb[36 * l + 6 * i + j];
    is->nfactor++;
    if (!dense_factor(is->H, n)) return 0; /* in place */
    is->fresh = 1;
    dense_solve(is->H, n, is->du);
    return 1;
  }
  if (!is->hrow)
    for (int l = 0; l < is->nb; l++) {
      double* B = cm_bchol_diag(is->bc, l);
      for (int i = 0; i < 36; i++)
        B[i] += is->Mb[36 * l + i];
    }
  if (is->pcg) {
    /* -g into Mdu (free until the mass product after the direction), the direction into du */
    for (int i = 0; i < n; i++)
      is->Mdu[i] = -is->g[i];
    double rtol = is->ntet ? PCG_TOL : fmin(REUSE_TOL, fmax(PCG_TOL, sqrt(fmax(is->res, 1e-300))));
    is->fresh = 1;
    return cm_bchol_pcg(is->bc, is->Mdu, is->du, rtol, PCG_MAX_ITER, is->pcg_work, 1) >= 0;
  }
  if (is->reuse && is->factored && is->last_cg <= REUSE_REFRESH) {
    /* the factor of an earlier iteration preconditions conjugate gradients (module comment) */
    for (int i = 0; i < n; i++)
      is->Mdu[i] = -is->g[i];
    double rtol = fmin(REUSE_TOL, sqrt(fmax(is->res, 1e-300)));
    int k = cm_bchol_pcg_factor(is->bc, is->Mdu, is->du, rtol, REUSE_MAX_ITER, is->rwork);
    if (k >= 0) {
      is->fresh = 0;
      is->last_cg = k;
      is->nreuse++;
      return 1;
    }
    for (int i = 0; i < n; i++)
      is->du[i] = -is->g[i];
  }
  is->nfactor++;
  if (!cm_bchol_factor(is->bc)) return 0;
  is->factored = is->fresh = 1;
  is->last_cg = 0;
  cm_bchol_solve(is->bc, is->du);
  return 1;
}

/* Newton on one island with the limits inside; sets is->iter, is->res, is->failed. Allocates
 * nothing: every array was taken from the arena by the caller. */
static void solve_island(Island* is) {
  int n = 6 * is->nb, any_friction = 0;
  mass_mul(is, is->us, is->g);
  double pscale = 0;
  for (int i = 0; i < n; i++)
    pscale += is->g[i] * is->g[i];
  pscale = sqrt(pscale);
  for (int k = 0; k < is->nr; k++) {
    is->limit[k] = 0;
    is->flag[k] = 0;
    any_friction |= is->row[k]->mu > 0;
  }
  /* the spare limits (trial_begin) of the rows without friction: +0 like theirs, which only
   * update_limits (rows with friction) and anderson_limits (+0 for those without) write */
  if (is->cs_max)
    for (int k = 0; k < is->nr; k++)
      is->lb_limit[k] = 0;
  memcpy(is->u, is->u0, (size_t)n * sizeof *is->u);
  double user = is->m->opt.solver_tolerance;
  if (user == CM_SOLVER_TOLERANCE_AUTO)
    is->tol = is->ntet ? TOL_ELEMENTS : cm_solve_tol;
  else /* the elements' solves stop near TOL_ELEMENTS: a tighter one would only fail */
    is->tol = is->ntet && user < TOL_ELEMENTS ? TOL_ELEMENTS : user;
  is->failed = 1;
  is->fem_exact = 1;
  if (is->ntet) {
    /* a start where no element is inverted */
    rates(is, is->u, is->y, 1);
    if (!gradient_hessian(is, pscale)) cm_island_fem_start_at_rest(is);
  }
  int outer = MERGED_ITER == 0; /* 0: limits every iteration; 1: only once converged for them */
  is->aa_n = -1;
  is->aa_next = 0;
  is->factored = is->fresh = is->last_cg = is->assembled = is->pending = 0;
  is->nfactor = is->nreuse = is->ncoupled = 0;
  is->g_fresh = is->direct_off = 0;
  int y_fresh = 0;
  for (int it = 0; it <= cm_solve_max_iter; it++) {
    is->iter = it;
    if (!y_fresh) rates(is, is->u, is->y, 1);
    y_fresh = 0;
    /* the merged iteration's limits are those of is->u itself, so the gradient below is the
     * whole system's: once it is within the tolerance, is->u is its solution whatever the
     * limits were in the last iteration (an accepted coupled step's merit set them at is->u,
     * and its gradient: is->g_fresh) */
    if (any_friction && !outer && !is->g_fresh) update_limits(is);
    int moved = 0;
    if (!gradient_hessian(is, pscale))
      return; /* an inverted element: cannot happen after the
                 feasible start (the line search keeps it) */
    if (outer && is->res <= is->tol && (moved = anderson_limits(is, pscale)))
      gradient_hessian(is, pscale); /* an outer pass ends: again with the new limits */
    if (it == 0) is->res0 = is->res;
    if (is->res <= is->tol && !moved) {
      is->failed = 0;
      return;
    }
    if (it == cm_solve_max_iter) return;
    if (any_friction && it + 1 == MERGED_ITER) {
      outer = 1;
      is->aa_n = -1;
      is->aa_next = 0;
    }
    /* a conjugate-gradient island: first the direct coupled step (and if it is not taken, the
     * plain one with its line search) */
    if (is->pcg && is->cs_max && !outer && !is->direct_off) {
      int r = direct_step(is);
      if (r < 0) return;
      if (r > 0) {
        y_fresh = 1;
        continue;
      }
    }
    /* Newton direction; if the elements' exact stiffness made the system indefinite, again
     * with it projected (the same gradient) */
    int ok = newton_direction(is);
    if (!ok && is->ntet && is->fem_exact) {
      is->fem_exact = 0;
      gradient_hessian(is, pscale);
      ok = newton_direction(is);
    }
    if (!ok) return;
    /* a coupled step taken leaves is->y at the new u (its merit computed them): the next
     * iteration does not compute them again */
    if (is->cs_max && !is->pcg && is->fresh && !outer && coupled_step(is)) {
      y_fresh = 1;
      continue;
    }
    rates(is, is->du, is->dy, 0);
    if (any_friction) flag_crossings(is);
    mass_mul(is, is->du, is->Mdu);
    double t = line_search(is);
    for (int i = 0; i < n; i++)
      is->u[i] += t * is->du[i];
  }
}

/* ---- islands ----------------------------------------------------------------------------- */

/* How far the coupling between an island's bodies can stiffen its Hessian beyond their masses
 * (dimensionless), for the choice of conjugate gradients below: for each body the sum, over its
 * rows to other bodies, of the row's largest 3x3 Hessian term (1/R normal; the spring's kt2 or,
 * without a spring, the stick zone's L / v_s with L from the normal impulse at zero rate) times
 * a bound of the row's Delassus diagonal w = sum over its two sides of 1/m + |r x n|^2 |I^-1|_F;
 * the largest such sum. A row to the ground adds to one body's diagonal block only, which the
 * block Gauss-Seidel preconditioner holds exactly. The eigenvalues of the preconditioned matrix
 * then lie within about 1 + ratio of each other, so conjugate gradients need about
 * sqrt(1 + ratio) iterations per decade of residual. The S2 pile of 1000 boxes at rest, ka 1e7:
 * 4.1 (measured: 1.3 iterations per Newton direction to 1e-2); ka 5e10 multiplies it by 5000.
 * -1 if out of memory. */
static double stiffness_ratio(const Island* is, cmArena* arena) {
  double* sum = cm_arena_calloc(arena, (size_t)is->nb + 1, sizeof *sum);
  double* nrm = cm_arena_alloc(arena, ((size_t)is->nb + 1) * sizeof *nrm);
  if (!sum || !nrm) return -1;
  const cmModel* m = is->m;
  /* |I^-1|_F once per body, not per row and side (the same operations: 0.997x the instructions
   * of the S2 pile of 1000 boxes at rest, 2026-12-07) */
  for (int l = 0; l < is->nb; l++) {
    const double* iI = m->body_invinertia + 9 * (size_t)is->body[l];
    double f = 0;
    for (int i = 0; i < 9; i++)
      f += iI[i] * iI[i];
    nrm[l] = sqrt(f);
  }
  for (int k = 0; k < is->nr; k++) {
    const cmRow* r = is->row[k];
    if (is->lb[2 * k] < 0 || is->lb[2 * k + 1] < 0) continue; /* in a diagonal block only */
    double hk = 1 / is->R[k];
    if (is->kt2[k] > 0)
      hk += is->kt2[k];
    else if (r->mu > 0 && is->b[k] > 0)
      hk += r->mu * is->b[k] / is->R[k] / fmax(is->vs[k], 1e-300);
    double w = 0;
    for (int s = 0; s < 2; s++) {
      int l = is->lb[2 * k + s], b = is->body[l];
      double x[3];
      cm_v3_cross(x, s ? r->rB : r->rA, r->n);
      w += m->body_invmass[b] + cm_v3_dot(x, x) * nrm[l];
    }
    for (int s = 0; s < 2; s++) {
      int l = is->lb[2 * k + s];
      if (l >= 0) sum[l] += hk * w;
    }
  }
  double big = 0;
  for (int l = 0; l < is->nb; l++)
    big = fmax(big, sum[l]);
  return big;
}

/* The symbolic analysis of a factorised island: the one kept from an earlier step for the
 * island with the same first body when its pattern is the same (cm_bchol_analyse_kept; a pile at
 * rest keeps its pairs for many steps: the AMD order and the pattern of L were 2 % of a step of
 * the S2 pile of 125 boxes), else computed and kept in the least recently used entry. Islands are
 * set up serially, so the entries need no lock; nonzero without memory. */
static int kept_analysis(Island* is, cmArena* arena, int ne, const int* edge) {
  cmDataPriv* p = cm_priv(is->d);
  if (!cm_solve_keep_analysis) {
    p->solve_nanalyse++;
    return cm_bchol_analyse(is->bc, arena, is->nb, ne, edge) != 0;
  }
  int key = is->body[0] + 1, e = 0;
  for (int i = 0; i < CM_BCHOL_KEPT; i++) {
    if (p->bc_body[i] == key) {
      e = i;
      break;
    }
    if (p->bc_used[i] < p->bc_used[e]) e = i;
  }
  if (p->bc_body[e] != key) {
    /* another island's, replaced; not one an island of this solve uses (more than
     * CM_BCHOL_KEPT factorised islands: the rest are analysed in the step's arena) */
    if (p->bc_used[e] > p->bc_solve_clock) {
      p->solve_nanalyse++;
      return cm_bchol_analyse(is->bc, arena, is->nb, ne, edge) != 0;
    }
    p->bc_kept[e] = NULL;
  }
  p->bc_body[e] = key;
  p->bc_used[e] = ++p->bc_clock;
  int hit;
  if (cm_bchol_analyse_kept(is->bc, arena, is->nb, ne, edge, &p->bc_arena[e], &p->bc_kept[e],
                            &hit)) {
    p->bc_body[e] = 0;
    return 1;
  }
  if (hit)
    p->solve_nkept++;
  else
    p->solve_nanalyse++;
  return 0;
}

/* the block-sparse Hessian store of an island: its pattern is every pair of bodies coupled by
 * a row (whether active or not), so one analysis serves all Newton iterations of the step;
 * returns nonzero when out of memory */
static int block_sparse(Island* is, cmArena* arena) {
  int* edge = cm_arena_alloc(
      arena, (size_t)(2 * is->nr + 12 * (size_t)is->ntet + 12 * (size_t)is->nface_rows + 1) *
                 sizeof *edge);
  is->slot = cm_arena_alloc(arena, (size_t)(is->nr + 1) * sizeof *is->slot);
  is->bc = cm_arena_alloc(arena, sizeof *is->bc);
  if (is->ntet) is->tslot = cm_arena_alloc(arena, 6 * (size_t)is->ntet * sizeof *is->tslot);
  if (!edge || !is->slot || !is->bc || (is->ntet && !is->tslot)) return 1;
  int ne = cm_island_fem_edges(is, edge);
  for (int k = 0; k < is->nr; k++) {
    int a = is->lb[2 * k], b = is->lb[2 * k + 1];
    if (is->fterm && is->fterm[k] >= 0) {
      const int* tb = is->tb4 + 4 * is->fterm[k];
      for (int s = 0; s < 4; s++)
        for (int t = s + 1; t < 4; t++)
          if (tb[s] >= 0 && tb[t] >= 0 && tb[s] != tb[t]) {
            edge[2 * ne] = tb[s];
            edge[2 * ne + 1] = tb[t];
            ne++;
          }
      continue;
    }
    if (a >= 0 && b >= 0 && a != b) {
      edge[2 * ne] = a;
      edge[2 * ne + 1] = b;
      ne++;
    }
  }
  if (is->pcg) {
    /* the matrix alone, for conjugate gradients */
    is->pcg_work = cm_arena_alloc(arena, ((size_t)is->nb * 90 + 1) * sizeof *is->pcg_work);
    unsigned char* small = cm_arena_alloc(arena, (size_t)is->nb + 1);
    if (!small || !is->pcg_work || cm_bchol_pattern(is->bc, arena, is->nb, ne, edge)) return 1;
    for (int l = 0; l < is->nb; l++)
      small[l] = is->node[l] >= 0; /* a node: only v, its 3 padding numbers stay 0 */
    is->bc->small = small;
  } else if (kept_analysis(is, arena, ne, edge)) {
    return 1;
  } else {
    const cmBlockChol* c = is->bc;
    double cg = 72.0 * ((double)c->nnz_l + c->n) + 36.0 * (2.0 * c->ap[c->n] + c->n);
    is->reuse = c->flops > cm_solve_reuse_ratio * cg;
    /* conjugate gradients instead, where their expected iterations per Newton direction
     * (PCG_DECADES times sqrt(1 + ratio)) cost less than one factorisation */
    double fcg = c->flops / cg, ratio = 0;
    int always = cm_solve_pcg_rigid == 2;
    int try_pcg = cm_solve_pcg_rigid && !is->fterm && !is->ntet && (always || fcg > PCG_DECADES);
    if (try_pcg && !always && (ratio = stiffness_ratio(is, arena)) < 0) return 1;
    if (try_pcg && (always || PCG_DECADES * sqrt(1 + ratio) <= fcg)) {
      is->reuse = 0;
      is->pcg = 1;
      is->pcg_work = cm_arena_alloc(arena, ((size_t)is->nb * 90 + 1) * sizeof *is->pcg_work);
      unsigned char* small = cm_arena_calloc(arena, (size_t)is->nb + 1, 1);
      if (!small || !is->pcg_work || cm_bchol_pattern_again(is->bc, arena)) return 1;
      is->bc->small = small;
    }
    if (is->reuse) {
      is->rwork = cm_arena_alloc(arena, 24 * (size_t)is->nb * sizeof *is->rwork);
      if (!is->rwork) return 1;
    }
  }
  if (is->ntet) cm_island_fem_slots(is);
  for (int k = 0; k < is->nr; k++) {
    int a = is->lb[2 * k], b = is->lb[2 * k + 1];
    is->slot[k] = a >= 0 && b >= 0 ? cm_bchol_slot(is->bc, a, b) : -1;
    if (is->fterm && is->fterm[k] >= 0) {
      const int* tb = is->tb4 + 4 * is->fterm[k];
      int *sl = is->fslot + 6 * is->fterm[k], p = 0;
      for (int s = 0; s < 4; s++)
        for (int t = s + 1; t < 4; t++, p++)
          sl[p] =
              tb[s] >= 0 && tb[t] >= 0 && tb[s] != tb[t] ? cm_bchol_slot(is->bc, tb[s], tb[t]) : -1;
    }
  }
  return 0;
}

/* the identity of row r's contact (its bodies ab and key, model/data_internal.h ckey): a
 * per-contact row's contact, or for a pair row (the contact_time law: one row per pair) the pair,
 * key {-2, -2, -2, -2}; 0 if none (a joint, a contour contact) */
static int row_key(const cmModel* m, const cmData* d, const cmRow* r, int ab[2], int key[4]) {
  if (r->joint >= 0 || r->contact < 0 || r->pair < 0) return 0;
  const cmContactPair* P = &d->pair[r->pair];
  if (m->rule[P->rule].law == CM_LAW_CONTACT_TIME && !m->rule_law_fn[P->rule]) {
    ab[0] = P->body[0];
    ab[1] = P->body[1];
    key[0] = key[1] = key[2] = key[3] = -2;
    return 1;
  }
  const int* ck = cm_priv(d)->ckey + 4 * (size_t)r->contact;
  if (r->ncontact != 1 || ck[0] < 0) return 0;
  const cmContact* c = &d->contact[r->contact];
  ab[0] = c->body[0];
  ab[1] = c->body[1];
  memcpy(key, ck, 4 * sizeof *key);
  return 1;
}

/* The anchored friction spring of row k (docs/contact-laws.md, "Friction"): a contact row with
 * friction, a compliance and an identity from step to step (a vertex or edge-edge contact, or
 * the pair of a contact_time pair row; not a contour contact) has a tangential spring of stiffness
 * k_t = 1/c (its normal law's) and damping D_t = D in series with the Coulomb slider: the friction
 * impulse of the step is -h (k_t s + D_t w), s = s0 + h w the stretch at its end, while that stays
 * within the limit L = mu lambda_imp, and L along the slip beyond. In the slip x = w - cw, cw =
 * -k_t h s0 / kt2, that is the regularised law with the width L / kt2, kt2 = k_t h^2 + D_t h: a
 * body held by friction does not creep (the spring holds it at the stretch of its load), and the
 * stick zone is as wide as the contact is compliant, not the rule's stick velocity. s0 is the
 * stretch the last step left at the same contact (the table of anchors, by contact identity),
 * projected on this step's tangent plane; 0 for a new contact. ranc: anchor_match's answers for
 * the island's rows. */
static void anchor_setup(const cmDataPriv* p, Island* is, int k, const int* ranc) {
  const cmRow* r = is->row[k];
  int g = ranc[k];
  if (g == -2) return; /* no spring */
  double kt = 1 / r->c, h = is->h;
  is->kt2[k] = kt * h * h + r->D * h;
  if (g < 0) return; /* a new contact: unstretched */
  const cmAnchor* a = &p->anchor[g];
  for (int i = 0; i < 2; i++) {
    is->s0[2 * k + i] = cm_v3_dot(a->s, r->t[i]);
    is->cw[2 * k + i] = -kt * h * is->s0[2 * k + i] / is->kt2[k];
  }
}

/* The anchor of an island's row r (cm_solve_implicit calls this for its rows in row order, as it
 * groups them by island; anchor_setup reads the answer): its index in the table, -1 for a row
 * with a spring but no anchor, -2 for a row without a spring; ab (6 ints) the row's identity, kept
 * for anchor_table. The table is in the last step's row order, so the next row's anchor is
 * usually the one after the last found, w->next (it must be the same identity; else the hash
 * index, built at the first such miss of the step). An identity names one contact of a step (a
 * vertex of one body, an edge pair), so the table holds it at most once and the guess and the
 * index find the same anchor, as each island's own walk from the table's start relied on (until
 * 2026-12-08); in row order the guess misses about once in 3000 rows on the resting S2 pile of
 * 125 boxes (72 times a step by island), so that the index, 0.6 % of its instructions, is built
 * in one step of three there: 0.9955x its instructions, the other four states 0.9998x to
 * 1.0000x, the same hashes. */
typedef struct AnchorWalk {
  int next, built, cap;
  int* idx; /* the hash index (cm_anchor_index), cap slots */
} AnchorWalk;

static inline int anchor_match(const cmModel* m, const cmData* d, const cmRow* r, int* ab,
                               AnchorWalk* w) {
  const cmDataPriv* p = cm_priv(d);
  if (!(r->mu > 0) || !(r->c > 0) || !row_key(m, d, r, ab, ab + 2)) return -2;
  if (w->next < p->nanchor && !memcmp(&p->anchor[w->next], ab, 6 * sizeof *ab)) return w->next++;
  if (!w->built) {
    cm_anchor_index(p, w->idx, w->cap);
    w->built = 1;
  }
  const cmAnchor* a = cm_anchor_find(p, w->idx, w->cap, ab);
  if (!a) return -1;
  w->next = (int)(a - p->anchor) + 1;
  return w->next - 1;
}

/* the stretch row k's spring keeps at the end of the step (into the row), for the slip w (2)
 * and limit L of the solution: s0 + h w while the spring holds (|x| <= L / kt2), else the
 * stretch at the limit, L / (k_t h), along the force */
static void anchor_result(const Island* is, int k, const double w[2], double L) {
  cmRow* r = is->row[k];
  r->anchored = 0;
  if (!(is->kt2[k] > 0) || !(L > 0)) return;
  double h = is->h, x0 = w[0] - is->cw[2 * k], x1 = w[1] - is->cw[2 * k + 1], s[2];
  double xr = sqrt(x0 * x0 + x1 * x1);
  if (xr <= L / is->kt2[k]) {
    s[0] = is->s0[2 * k] + h * w[0];
    s[1] = is->s0[2 * k + 1] + h * w[1];
  } else {
    double smax = L * r->c / h;
    s[0] = smax * x0 / xr;
    s[1] = smax * x1 / xr;
  }
  for (int q = 0; q < 3; q++)
    r->stretch[q] = s[0] * r->t[0][q] + s[1] * r->t[1][q];
  r->anchored = 1;
}

/* the table of anchors for the next step: the rows' stretches, by contact identity (rkey, as
 * anchor_setup found it: an anchored row has one; looking it up again was 0.45 % of the
 * instructions of the resting S2 pile of 125 boxes), in row order (serial: the table does not
 * depend on the threads). Without memory the table is emptied (the springs start unstretched: a
 * warning of the solver is counted). */
static void anchor_table(const cmModel* m, cmData* d, const int* rkey) {
  cmDataPriv* p = cm_priv(d);
  int n = 0;
  for (int k = 0; k < p->nrow; k++)
    n += p->row[k].anchored || p->row[k].off >= 0;
  if (!cm_anchor_room(&p->anchor_new, &p->maxanchor_new, n)) {
    d->warning[CM_WARN_SOLVER]++;
    p->nanchor = 0;
    return;
  }
  n = 0;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!r->anchored && !(r->off >= 0)) continue;
    cmAnchor* a = &p->anchor_new[n];
    if (r->anchored) {
      memcpy(a->body, rkey + 6 * k, 2 * sizeof *a->body);
      memcpy(a->key, rkey + 6 * k + 2, 4 * sizeof *a->key);
      cm_v3_copy(a->s, r->stretch);
    } else {
      /* an edge-edge contact's birth offset alone (its friction spring, if it has one, held
       * no stretch): its identity as the laws stage found it */
      if (!row_key(m, d, r, a->body, a->key)) continue;
      cm_v3_set(a->s, 0, 0, 0);
    }
    a->o = r->off > 0 ? r->off : 0;
    n++;
  }
  cmAnchor* t = p->anchor;
  int cap = p->maxanchor;
  p->anchor = p->anchor_new;
  p->maxanchor = p->maxanchor_new;
  p->anchor_new = t;
  p->maxanchor_new = cap;
  p->nanchor = n;
}

/* the mean velocity over the step h of the point at r (from the com, world) of prescribed body
 * b: its displacement v0 h + (exp(w h) - I)(p - o) over h (o the frame origin, about which the
 * body turns: docs/dynamics.md), so that a body carried by it moves along the same chord (a box
 * on a turntable stays on its circle; with the velocity v + w x r at the start of the step it
 * spiralled out at h w^2 r / 2). Into v[0..2], v[3..5] = 0. */
static void prescribed_chord(const cmModel* m, const cmData* d, int b, const double r[3], double h,
                             double v[6]) {
  const double* w = m->body_angvel0 + 3 * (size_t)b;
  double po[3], rot[3], q[4], wn = cm_v3_norm(w);
  cm_v3_add(po, d->body_cpos + 3 * (size_t)b, r);
  cm_v3_sub(po, po, d->body_xpos + 3 * (size_t)b);
  cm_v3_copy(rot, po);
  if (wn > 0) {
    double axis[3];
    cm_v3_scale(axis, w, 1 / wn);
    cm_quat_from_axis_angle(q, axis, wn * h);
    cm_quat_rotate(rot, q, po);
  }
  for (int i = 0; i < 3; i++)
    v[i] = m->body_vel0[3 * (size_t)b + i] + (rot[i] - po[i]) / h;
  v[3] = v[4] = v[5] = 0;
}

/* the rates (n, t1, t2) of row r's sides that are not variables of the island but move on their
 * own during the step (out; returns 1 if there is one): a prescribed body's point (its mean
 * velocity over the step, prescribed_chord), a node fixed or carried by a fixed or prescribed body
 * (its velocity over the step, p->node_vx: 0 if fixed). The world and fixed bodies give 0. Until
 * 2026-12-08 the island left them out: a box on a prescribed conveyor belt stayed where it was, and
 * a plate driven into a body ended each step about v h deeper than its force accounted for. */
static int outside_rates(const cmModel* m, const cmData* d, const Island* is, int k, const int* loc,
                         const int* nloc, double out[3]) {
  const cmRow* r = is->row[k];
  /* the common row first: each side the world, a fixed body or a rigid unknown (the kit's bed
   * of 1000 spheres: island_setup 2.8 -> 3.9 % of the step with the full test on every row) */
  int maybe = 0;
  for (int s = 0; s < 2 && !maybe; s++) {
    int b = r->body[s];
    maybe = b >= 0 && (r->node[s] >= 0 || (s == 1 && r->fnode[0] >= 0) ||
                       (loc[b] < 0 && m->body_motion[b] == CM_MOTION_PRESCRIBED));
  }
  if (!maybe) return 0;
  const cmDataPriv* p = cm_priv(d);
  const double* side[2] = {NULL, NULL};
  double sv[2][6] = {{0}};
  int any = 0;
  for (int s = 0; s < 2; s++) {
    int b = r->body[s];
    if (b < 0) continue; /* the world */
    if (s == 1 && r->fnode[0] >= 0) {
      for (int i = 0; i < 3; i++)
        if (nloc[r->fnode[i]] < 0)
          cm_v3_madd(sv[1], sv[1], p->node_vx + 3 * (size_t)r->fnode[i], r->fw[i]);
    } else if (r->node[s] >= 0) {
      int ab = m->node_attach[r->node[s]];
      /* (a node carried by a dynamic body: that body's velocity is the island's to find) */
      if (nloc[r->node[s]] < 0 && !(ab >= 0 && loc[ab] >= 0))
        cm_v3_copy(sv[s], p->node_vx + 3 * (size_t)r->node[s]);
    } else if (loc[b] < 0 && m->body_motion[b] == CM_MOTION_PRESCRIBED) {
      prescribed_chord(m, d, b, s ? r->rB : r->rA, is->h, sv[s]);
    }
    for (int i = 0; i < 6; i++)
      if (sv[s][i] != 0) side[s] = sv[s];
    any |= side[s] != NULL;
  }
  if (!any) return 0;
  row_rates(r, side[0], side[1], out);
  return 1;
}

/* everything an island needs, from the arena, and its per-step data: mass blocks, free
 * velocities, the rows' bodies, laws and stick velocities; returns nonzero when out of memory */
static int island_setup(const cmModel* m, const cmData* d, Island* is, const int* loc,
                        const int* nloc, int dense_max, const double* v0, const int* ranc,
                        cmArena* arena) {
  int n = 6 * is->nb, nr = is->nr;
  /* the per-row and per-body arrays, carved from one block of the arena, each piece rounded to
   * CM_ARENA_ALIGN as cm_arena_alloc rounds it: the addresses of one allocation each (21 calls
   * an island before). kt2, s0, cw and Mb are written in full below (not calloc: each was
   * cleared and then written again) */
  size_t vn = (size_t)n * sizeof(double),
         size[] = {(size_t)nr * 2 * sizeof *is->lb,
                   (size_t)nr * sizeof *is->R,
                   (size_t)nr * sizeof *is->b,
                   (size_t)nr * sizeof *is->limit,
                   (size_t)nr * sizeof *is->vs,
                   ((size_t)nr + 1) * sizeof *is->kt2,
                   (2 * (size_t)nr + 1) * sizeof *is->s0,
                   (2 * (size_t)nr + 1) * sizeof *is->cw,
                   (size_t)nr,
                   (size_t)nr * (2 + 2 * AA_DEPTH) * sizeof *is->aa,
                   (size_t)nr * 3 * sizeof *is->y,
                   (size_t)nr * 9 * sizeof *is->rh,
                   (size_t)nr + 1,
                   (size_t)nr * 3 * sizeof *is->dy,
                   ((size_t)is->nb * 36 + 1) * sizeof *is->Mb,
                   vn,
                   vn,
                   vn,
                   vn,
                   vn,
                   vn};
  size_t total = 0;
  for (size_t v = 0; v < sizeof size / sizeof size[0]; v++)
    total += size[v] = (size[v] + CM_ARENA_ALIGN - 1) & ~(size_t)(CM_ARENA_ALIGN - 1);
  char* blk = cm_arena_alloc(arena, total);
  if (!blk) return 1;
  void* q[sizeof size / sizeof size[0]];
  for (size_t v = 0; v < sizeof size / sizeof size[0]; v++) {
    q[v] = blk;
    blk += size[v];
  }
  is->lb = q[0];
  is->R = q[1];
  is->b = q[2];
  is->limit = q[3];
  is->vs = q[4];
  is->kt2 = q[5];
  is->s0 = q[6];
  is->cw = q[7];
  is->flag = q[8];
  is->aa = q[9];
  is->y = q[10];
  is->rh = q[11];
  is->rany = q[12];
  is->dy = q[13];
  is->Mb = q[14];
  is->u = q[15];
  is->us = q[16];
  is->u0 = q[17];
  is->g = q[18];
  is->du = q[19];
  is->Mdu = q[20];
  /* bodies: mass blocks (world inertia at the start of the step) and free velocities */
  const cmDataPriv* p = cm_priv(d);
  for (int l = 0; l < is->nb; l++) {
    int b = is->body[l];
    double* M = is->Mb + 36 * l;
    int node = is->node[l];
    memset(M, 0, 36 * sizeof *M); /* +0 off the blocks (mass_mul) */
    if (node >= 0) {
      /* a node: its lumped mass, velocity plus the step's applied acceleration (gravity, the
       * body's outer force per unit mass); the 3 unused numbers have unit mass and stay 0 */
      /* Rayleigh's mass-proportional damping, the force -alpha m u at the end of the step:
       * the potential h alpha m |u|^2 / 2 folds into the mass term as (1 + h alpha) m and
       * u* / (1 + h alpha) */
      double damp = 1 + is->h * m->body_rayleigh[2 * b];
      for (int i = 0; i < 3; i++) {
        M[6 * i + i] = m->node_mass[node] * damp;
        M[6 * (3 + i) + 3 + i] = 1;
        is->us[6 * l + i] =
            (d->node_vel[3 * (size_t)node + i] + is->h * p->force[3 * b + i] * m->body_invmass[b]) /
            damp;
        is->us[6 * l + 3 + i] = 0;
      }
      memcpy(is->u0 + 6 * l, is->us + 6 * l, 6 * sizeof(double));
      continue;
    }
    double R[9], Iw[9];
    for (int i = 0; i < 3; i++)
      M[6 * i + i] = m->body_mass[b];
    cm_quat_to_mat(R, d->body_xquat + 4 * b);
    cm_m3_rotate(Iw, R, m->body_inertia + 9 * b);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        M[6 * (3 + i) + 3 + j] = Iw[3 * i + j];
    memcpy(is->us + 6 * l, d->body_cvel + 3 * b, 3 * sizeof(double));
    memcpy(is->us + 6 * l + 3, d->body_angvel + 3 * b, 3 * sizeof(double));
    for (int i = 0; i < 6; i++)
      is->u0[6 * l + i] = is->us[6 * l + i] + d->body_dv[6 * b + i];
  }
  /* rows with a face side (a point of a deformable body's face: three nodes) */
  is->nface_rows = 0;
  is->fterm = NULL;
  for (int k = 0; k < nr && m->nnode; k++) /* none without nodes */
    is->nface_rows += is->row[k]->fnode[0] >= 0;
  if (is->nface_rows) {
    size_t nf = (size_t)is->nface_rows;
    is->fterm = cm_arena_alloc(arena, (size_t)nr * sizeof *is->fterm);
    is->tb4 = cm_arena_alloc(arena, 4 * nf * sizeof *is->tb4);
    is->tw4 = cm_arena_alloc(arena, 4 * nf * sizeof *is->tw4);
    is->fslot = cm_arena_alloc(arena, 6 * nf * sizeof *is->fslot);
    if (!is->fterm || !is->tb4 || !is->tw4 || !is->fslot) return 1;
  }
  /* rows: local bodies, the normal law's R and b */
  int nfr = 0, nf = 0; /* nf: rows with friction (coupled_setup) */
  is->yo = NULL;
  for (int k = 0; k < nr; k++) {
    const cmRow* r = is->row[k];
    nf += r->mu > 0;
    for (int s = 0; s < 2; s++)
      is->lb[2 * k + s] = r->node[s] >= 0  ? nloc[r->node[s]]
                          : r->body[s] < 0 ? -1
                                           : loc[r->body[s]];
    if (is->fterm) {
      is->fterm[k] = -1;
      if (r->fnode[0] >= 0) {
        /* A, then the face's free nodes (a fixed or attached node does not move with the
         * contact: -1) */
        int fi = is->fterm[k] = nfr++;
        is->lb[2 * k + 1] = -1;
        is->tb4[4 * fi] = is->lb[2 * k];
        is->tw4[4 * fi] = 1;
        for (int i = 0; i < 3; i++) {
          is->tb4[4 * fi + 1 + i] = nloc[r->fnode[i]];
          is->tw4[4 * fi + 1 + i] = -r->fw[i];
        }
      }
    }
    double alpha = 1.0 / (0.5 * is->h / r->c + r->D);
    is->kt2[k] = 0; /* no spring unless anchor_setup finds one */
    is->s0[2 * k] = is->s0[2 * k + 1] = is->cw[2 * k] = is->cw[2 * k + 1] = 0;
    is->R[k] = alpha / is->h;
    is->b[k] = -alpha * r->f;
    /* the stick velocity: the rule's, or STICK_FRAC of the slip at the start of the step */
    double w0[3] = {0, 0, 0};
    if (v0) {
      const double* side[2] = {NULL, NULL};
      double nv[2][6]; /* a node's velocity, no rotation (written where used) */
      for (int s = 0; s < 2; s++) {
        int b = r->body[s];
        if (r->node[s] >= 0) {
          cm_v3_copy(nv[s], d->node_vel + 3 * (size_t)r->node[s]);
          cm_v3_set(nv[s] + 3, 0, 0, 0);
          side[s] = nv[s];
        } else if (b >= 0 && (loc[b] >= 0 || m->body_motion[b] == CM_MOTION_PRESCRIBED)) {
          side[s] = v0 + 6 * b; /* (a prescribed body's: its motion's) */
        }
      }
      if (r->fnode[0] >= 0) { /* the face point's velocity: its nodes' weighted */
        side[1] = nv[1];
        memset(nv[1], 0, sizeof nv[1]);
        for (int i = 0; i < 3; i++)
          cm_v3_madd(nv[1], nv[1], d->node_vel + 3 * (size_t)r->fnode[i], r->fw[i]);
      }
      row_rates(r, side[0], side[1], w0);
    }
    /* fmax without its call (the same for a finite r->vs: a NaN slip gives r->vs) */
    double vw = STICK_FRAC * sqrt(w0[1] * w0[1] + w0[2] * w0[2]);
    is->vs[k] = vw > r->vs ? vw : r->vs;
    anchor_setup(cm_priv(d), is, k, ranc);
    double yo[3];
    if (outside_rates(m, d, is, k, loc, nloc, yo)) {
      if (!is->yo && !(is->yo = cm_arena_calloc(arena, 3 * (size_t)nr, sizeof *is->yo))) return 1;
      cm_v3_copy(is->yo + 3 * k, yo);
    }
  }
  /* the elements of its deformable bodies */
  is->m = m;
  is->d = d;
  if (cm_island_fem_setup(is, loc, nloc, is->h, arena)) return 1;
  /* the Hessian store */
  is->H = NULL;
  is->reuse = 0;
  is->bc = NULL;
  is->slot = NULL;
  is->pcg = 0;
  for (int l = 0; l < is->nb && is->nb > dense_max; l++)
    if (is->node[l] >= 0) is->pcg = 1;
  is->hrow = NULL;
  if (is->nb > dense_max) {
    if (block_sparse(is, arena)) return 1;
    if (cm_solve_delta && !is->fterm && !is->ntet) {
      is->hrow = cm_arena_alloc(arena, 9 * (size_t)nr * sizeof *is->hrow + 1);
      is->bwork = cm_arena_alloc(arena, (size_t)is->bc->ap[is->nb] + 1);
      if (!is->hrow || !is->bwork) return 1;
    }
  } else {
    is->H = cm_arena_alloc(arena, (size_t)n * (size_t)n * sizeof *is->H);
    if (!is->H) return 1;
  }
  return coupled_setup(is, nf, arena);
}

/* larger islands first (then by first body), so that a parallel loop starts with them: a strict
 * order of islands (no two have the same first body), so the sorted order is the one of any sort */
static int island_before(const Island* a, const Island* b) {
  long wa = (long)a->nb * a->nr, wb = (long)b->nb * b->nr;
  return wa != wb ? wa > wb : a->body[0] < b->body[0];
}

/* the islands in that order: core/sort.c's heap sort with the comparison inlined (cm_sort with a
 * comparison by pointer was 0.38 % of the instructions of the resting S2 pile of 125 boxes) */
static void island_sort(Island** o, int n) {
  for (int i = n / 2, end = n; end > 1;) {
    if (i > 0) {
      i--; /* build the heap bottom-up */
    } else {
      Island* t = o[0]; /* move the last to the end, shrink the heap */
      o[0] = o[--end];
      o[end] = t;
    }
    for (int j = i;;) { /* sift o[j] down */
      int c = 2 * j + 1;
      if (c >= end) break;
      if (c + 1 < end && island_before(o[c], o[c + 1])) c++;
      if (!island_before(o[j], o[c])) break;
      Island* t = o[j];
      o[j] = o[c];
      o[c] = t;
      j = c;
    }
  }
}

void cm_solve_implicit(const cmModel* m, cmData* d, double h, const double* v0) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  int nb = m->nbody, nimp = 0;
  for (int k = 0; k < p->nrow; k++) { /* the implicit rows; none anchored yet */
    nimp += p->row[k].implicit;
    p->row[k].anchored = 0;
  }
  d->solver_iter = 0;
  d->solver_residual = 0;
  p->solve_res0 = 0;
  p->bc_solve_clock = p->bc_clock;
  /* body_dv, the warm start, is read by island_setup and zeroed once every island is set up
   * (a body in no island this step starts the next one from its free velocity) */
  if (!nimp && !m->nnode) {
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    p->nanchor = 0; /* no contact: no spring */
    return;         /* deformable bodies are solved even without contacts */
  }
  /* the velocity over the step of every node, until the solve gives the free ones theirs: the
   * free velocity; 0 for a fixed node; v + w x r of the body for an attached one (the islands
   * use it for the nodes moved by a fixed or prescribed body) */
  for (int n = 0; n < m->nnode; n++) {
    double* vx = p->node_vx + 3 * (size_t)n;
    int ab = m->node_attach[n];
    if (m->node_fixed[n]) {
      cm_v3_set(vx, 0, 0, 0);
    } else if (ab >= 0 && m->body_motion[ab] == CM_MOTION_PRESCRIBED) {
      /* moved by a prescribed body: the chord of its exact motion over the step, so that the
       * elements see the node where the integrate stage puts it (x_n + h vx, the end of the
       * step) or at the chord's middle (midpoint rule). A prescribed body turns by |w| h
       * about its fixed world axis w and its frame origin moves by v0 h: x+ - x = v0 h +
       * (Rot(w h) - I) (x - origin). Until 2026-12-08 this was the tangent v + w x r, which
       * put the nodes of a turning body r (h w)^2 / 2 outside their circle in every solve:
       * a pad on a plate spinning at h w = 0.05 was stretched radially by 6.4e-4, 78 times its
       * centrifugal strain (tests/physics/test_deformable.c, test_attach_spinning) */
      double r[3], v6[6];
      cm_v3_sub(r, d->node_pos + 3 * (size_t)n, d->body_cpos + 3 * ab);
      prescribed_chord(m, d, ab, r, h, v6);
      cm_v3_copy(vx, v6);
    } else if (ab >= 0) {
      double r[3], wr[3];
      cm_v3_sub(r, d->node_pos + 3 * (size_t)n, d->body_cpos + 3 * ab);
      cm_v3_cross(wr, d->body_angvel + 3 * ab, r);
      cm_v3_add(vx, d->body_cvel + 3 * ab, wr);
    } else {
      cm_v3_copy(vx, d->node_vel + 3 * (size_t)n);
    }
  }
  int dense_max = cm_bchol_dense_max;
  /* room for the hash index of the last step's friction anchors (anchor_match builds it when it
   * needs it) */
  int aidx_cap = 16;
  while (aidx_cap < 2 * p->nanchor)
    aidx_cap *= 2;
  int* aidx = cm_arena_alloc(arena, (size_t)aidx_cap * sizeof *aidx);
  if (!aidx) {
    d->warning[CM_WARN_SOLVER]++;
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    return;
  }
  /* the contact identity of each island row with a friction spring (by row) and its anchor (by
   * the row's place in the islands' rows), anchor_match: 6 ints and 1 per row */
  int* rkey = cm_arena_alloc(arena, (6 * (size_t)p->nrow + 1) * sizeof *rkey);
  int* ranc = cm_arena_alloc(arena, ((size_t)p->nrow + 1) * sizeof *ranc);
  if (!rkey || !ranc) {
    d->warning[CM_WARN_SOLVER]++;
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    return;
  }
  /* variable blocks per body: 1 for a rigid body, its free nodes for a deformable one */
  long nblk_total = 0;
  int* nblk = cm_arena_alloc(arena, (size_t)nb * sizeof *nblk);
  if (!nblk) {
    d->warning[CM_WARN_SOLVER]++;
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    return;
  }
  for (int b = 0; b < nb; b++) {
    nblk[b] = m->body_invmass[b] > 0;
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      nblk[b] = 0;
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++)
        nblk[b] += !m->node_fixed[n] && m->node_attach[n] < 0;
    }
    nblk_total += nblk[b];
  }
  int* parent = cm_arena_alloc(arena, (size_t)nb * sizeof *parent);
  int* loc = cm_arena_alloc(arena, (size_t)nb * sizeof *loc);
  int* nloc = cm_arena_alloc(arena, ((size_t)m->nnode + 1) * sizeof *nloc);
  int* start = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *start);
  int* blk_body = cm_arena_alloc(arena, ((size_t)nblk_total + 1) * sizeof *blk_body);
  int* blk_node = cm_arena_alloc(arena, ((size_t)nblk_total + 1) * sizeof *blk_node);
  cmRow** rows = cm_arena_alloc(arena, ((size_t)nimp + 1) * sizeof *rows);
  int* rstart = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *rstart);
  int* fill = cm_arena_alloc(arena, (size_t)nb * sizeof *fill);
  unsigned char* has_def = cm_arena_calloc(arena, (size_t)nb + 1, 1);
  if (!parent || !loc || !nloc || !start || !blk_body || !blk_node || !rows || !rstart || !fill ||
      !has_def) {
    d->warning[CM_WARN_SOLVER]++;
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    return;
  }
#define DYN(b) ((b) >= 0 && m->body_invmass[b] > 0)
  /* islands: union-find over dynamic bodies joined by implicit rows */
  for (int b = 0; b < nb; b++)
    parent[b] = b;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!r->implicit || !DYN(r->body[0]) || !DYN(r->body[1])) continue;
    int ra = find(parent, r->body[0]), rb = find(parent, r->body[1]);
    if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
  }
  /* a deformable body and the dynamic rigid body its attached nodes move with */
  for (int n = 0; n < m->nnode; n++) {
    int ab = m->node_attach[n], b = m->node_body[n];
    if (ab < 0 || m->node_fixed[n] || !DYN(ab)) continue;
    int ra = find(parent, b), rb = find(parent, ab);
    if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
  }
  /* blocks and rows grouped by island root (counting sort: deterministic order); a body's
   * blocks are consecutive, its nodes in node order */
  for (int n = 0; n < m->nnode; n++)
    nloc[n] = -1;
  for (int b = 0; b < nb; b++) {
    loc[b] = -1;
    if (DYN(b)) start[find(parent, b) + 1] += nblk[b];
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) has_def[find(parent, b)] = 1;
  }
  for (int b = 0; b < nb; b++)
    start[b + 1] += start[b];
  memcpy(fill, start, (size_t)nb * sizeof *fill);
  for (int b = 0; b < nb; b++) {
    if (!DYN(b)) continue;
    int r = find(parent, b);
    if (m->body_motion[b] != CM_MOTION_DEFORMABLE) {
      loc[b] = fill[r] - start[r];
      blk_body[fill[r]] = b;
      blk_node[fill[r]++] = -1;
      continue;
    }
    for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
      if (m->node_fixed[n] || m->node_attach[n] >= 0) continue; /* not variables */
      nloc[n] = fill[r] - start[r];
      blk_body[fill[r]] = b;
      blk_node[fill[r]++] = n;
    }
  }
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    int b = DYN(r->body[0]) ? r->body[0] : r->body[1];
    if (r->implicit && DYN(b)) rstart[find(parent, b) + 1]++;
  }
  for (int b = 0; b < nb; b++)
    rstart[b + 1] += rstart[b];
  memcpy(fill, rstart, (size_t)nb * sizeof *fill);
  AnchorWalk walk = {0, 0, aidx_cap, aidx};
  for (int k = 0; k < p->nrow; k++) {
    cmRow* r = &p->row[k];
    int b = DYN(r->body[0]) ? r->body[0] : r->body[1];
    if (!r->implicit || !DYN(b)) continue;
    int at = fill[find(parent, b)]++;
    rows[at] = r;
    ranc[at] = anchor_match(m, d, r, rkey + 6 * k, &walk);
  }
#undef DYN
  /* every island with rows or a deformable body, set up serially (the arena is not
   * thread-safe) */
  int nisl = 0;
  for (int root = 0; root < nb; root++)
    nisl += (rstart[root + 1] > rstart[root] || has_def[root]) && start[root + 1] > start[root];
  /* each island is cleared as it is set up, not the array at once */
  Island* isl = cm_arena_alloc(arena, ((size_t)nisl + 1) * sizeof *isl);
  Island** order = cm_arena_alloc(arena, ((size_t)nisl + 1) * sizeof *order);
  if (!isl || !order) {
    d->warning[CM_WARN_SOLVER]++;
    memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
    return;
  }
  int ni = 0, rows_total = 0, rows_largest = 0;
  for (int root = 0; root < nb; root++) {
    int nr = rstart[root + 1] - rstart[root];
    if ((!nr && !has_def[root]) || start[root + 1] == start[root]) continue;
    Island* is = &isl[ni];
    memset(is, 0, sizeof *is);
    is->nb = start[root + 1] - start[root];
    is->body = blk_body + start[root];
    is->node = blk_node + start[root];
    is->nr = nr;
    is->row = rows + rstart[root];
    is->h = h;
    if (island_setup(m, d, is, loc, nloc, dense_max, v0, ranc + rstart[root], arena)) {
      d->warning[CM_WARN_SOLVER]++;
      continue; /* out of memory: this island keeps its free velocities */
    }
    order[ni] = is;
    rows_total += nr + is->ntet;
    if (nr + is->ntet > rows_largest) rows_largest = nr + is->ntet;
    ni++;
  }
  memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
  island_sort(order, ni);
  /* solve: in parallel when the gate predicts a saving (core/par_gate.h; else a plain loop: an
   * OpenMP region with a false `if` still costs its setup, narrowphase.c run_batch). Its unit is
   * a row; what other threads can take off the calling one is the rows beyond the largest island
   * or beyond an equal share, whichever is more (a pile is one big island and a few small ones:
   * nothing to share) */
  int nth = cm_par_threads(0);
  double busy = 0, t0 = cm_clock();
  if (ni < 2 || !cm_par_open(&p->gate_solve,
                             rows_total - fmax(rows_largest, (double)rows_total / nth), nth)) {
    for (int i = 0; i < ni; i++)
      solve_island(order[i]);
    busy = cm_clock() - t0;
  } else {
#pragma omp parallel num_threads(nth) reduction(+ : busy)
    {
      double t1 = cm_clock();
#pragma omp for schedule(dynamic, 1) nowait
      for (int i = 0; i < ni; i++)
        solve_island(order[i]);
      busy += cm_clock() - t1;
    }
  }
  cm_par_record(&p->gate_solve, rows_total, busy);
  /* results, in island order */
  int failed = 0;
  for (int i = 0; i < ni; i++) {
    Island* is = &isl[i];
    if (is->failed) {
      d->warning[CM_WARN_SOLVER]++;
      failed = 1;
    }
    if (is->iter > d->solver_iter) d->solver_iter = is->iter;
    if (is->res > d->solver_residual) d->solver_residual = is->res;
    p->solve_nfactor += is->nfactor;
    p->solve_nreuse += is->nreuse;
    p->solve_ncoupled += is->ncoupled;
    p->solve_res0 = fmax(p->solve_res0, is->res0);
    /* end velocities and the rows' forces (impulse / h) */
    for (int l = 0; l < is->nb; l++) {
      int b = is->body[l], n = is->node[l];
      if (n >= 0) {
        /* a node: its end velocity, and the velocity that moves it over the step (the
         * integrate stage): u (backward Euler) or (v_n + u) / 2 (midpoint) */
        int mid = m->body_fem_scheme[b] == CM_FEM_MIDPOINT;
        for (int c = 0; c < 3; c++) {
          double u = is->u[6 * l + c];
          p->node_vx[3 * (size_t)n + c] = mid ? 0.5 * (d->node_vel[3 * (size_t)n + c] + u) : u;
          d->node_vel[3 * (size_t)n + c] = u;
        }
        continue;
      }
      for (int c = 0; c < 6; c++)
        d->body_dv[6 * b + c] = is->u[6 * l + c] - is->us[6 * l + c];
      memcpy(d->body_cvel + 3 * b, is->u + 6 * l, 3 * sizeof(double));
      memcpy(d->body_angvel + 3 * b, is->u + 6 * l + 3, 3 * sizeof(double));
    }
    /* is->y holds the rates at is->u: solve_island computes them at the top of every iteration
     * and returns only before moving u again (they were computed once more here until
     * 2026-12-06) */
    for (int k = 0; k < is->nr; k++) {
      cmRow* r = is->row[k];
      r->lambda = normal_impulse(is, k, is->y[3 * k]) / h;
      r->ftan[0] = r->ftan[1] = 0;
      if (is->limit[k] > 0) {
        double gf[2];
        row_friction(is, k, is->y + 3 * k + 1, is->limit[k], gf, NULL, 0);
        r->ftan[0] = gf[0] / h;
        r->ftan[1] = gf[1] / h;
        anchor_result(is, k, is->y + 3 * k + 1, is->limit[k]);
      }
    }
  }
  anchor_table(m, d, rkey);
  d->solver_solves++;
  d->solver_total_iter += d->solver_iter;
  d->solver_failed_solves += failed;
  if (d->solver_iter > d->solver_max_iter) d->solver_max_iter = d->solver_iter;
  if (d->solver_residual > d->solver_max_residual) d->solver_max_residual = d->solver_residual;
}
