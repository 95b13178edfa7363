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

#endif
