/* The solve stages of cm_step: velocities (stage 6) and positions (stage 7). */
#ifndef CM_SOLVE_H
#define CM_SOLVE_H

#include "comply/data.h"

/* stage 6, solve: free velocities (gyroscopic update), then the implicit contact solve
 * (solve.c) */
void cm_stage_solve(const cmModel* m, cmData* d, double h);

/* stage 7, integrate: positions and orientations from the new velocities; prescribed bodies
 * placed at t_end (integrate.c) */
void cm_stage_integrate(const cmModel* m, cmData* d, double h, double t_end);

/* end-of-step velocities of the bodies touched by implicit rows, from the free velocities
 * already in d and the velocities at the start of the step v0 (nbody x 6: v, w; NULL: the free
 * ones); sets every implicit row's lambda (N), d->body_dv and the solver statistics
 * (solve_implicit.c) */
void cm_solve_implicit(const cmModel* m, cmData* d, double h, const double* v0);

/* 1 (default): the implicit solve takes coupled Newton steps (solve_implicit.c); 0: only the
 * plain ones, as before they existed (tests and benchmarks compare the two; read once per
 * step, not thread-safe to write during a step) */
extern int cm_solve_coupled;
/* an island reuses its first factorisation across the Newton iterations of a step (as the
 * preconditioner of conjugate gradients) when one factorisation costs more multiply-adds than
 * this many conjugate-gradient iterations (default 6; 0: always, a huge value: never) */
extern double cm_solve_reuse_ratio;
/* 1 (default): an island of rigid bodies whose factorisation costs more than the conjugate
 * gradients its stiffness ratio calls for (solve_implicit.c, "Large islands by conjugate
 * gradients") is solved by conjugate gradients preconditioned by block Gauss-Seidel instead;
 * 0: always factorised; 2: every block-sparse island of rigid bodies by conjugate gradients
 * (tests) */
extern int cm_solve_pcg_rigid;
/* 1 (default): a factorised island's symbolic analysis is kept from step to step while its
 * pattern holds (solve_implicit.c, kept_analysis); 0: computed every step (tests: the same
 * results) */
extern int cm_solve_keep_analysis;
/* 1 (default): a block-sparse island's Hessian is assembled once per solve and then updated by
 * the rows whose Hessian changed; 0: assembled whole every iteration */
extern int cm_solve_delta;
/* the Newton iterations an island may take before its solve counts as not converged (default
 * MAX_ITER = 1000; tests lower it to make a solve fail where it would converge later) */
extern int cm_solve_max_iter;
/* the relative momentum residual at which an island of rigid bodies has converged where the
 * scene's solver_tolerance is auto (default 1e-8; islands with elements use 1e-10;
 * solve_implicit.c, TOL_ELEMENTS); tests tighten it to compare solver paths */
extern double cm_solve_tol;

#endif
