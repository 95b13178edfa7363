/* The implicit compliant contact solve (solve_implicit.c). */
#ifndef CM_SOLVE_IMPLICIT_H
#define CM_SOLVE_IMPLICIT_H

#include "comply/data.h"

/* end-of-step velocities of the bodies touched by implicit rows, from the free velocities
 * already in d; sets every implicit row's lambda (N) and the solver statistics */
void cm_solve_implicit(const cmModel* m, cmData* d, double h);

/* contact forces for reporting: each row's lambda spread over its contacts (a pair row by the
 * weights A_k x_k of its pressure centroid), and the pair summaries (force on pair body 0,
 * max pressure) */
void cm_contact_report(const cmModel* m, cmData* d);

#endif
