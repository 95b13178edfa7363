/* The numerical guard of cm_step (guard.c). */
#ifndef CM_GUARD_H
#define CM_GUARD_H

#include "comply/data.h"

/* 1 if some moving body is non-finite or faster than opt.max_speed; *worst, *speed: the body
 * with the largest speed (INFINITY if non-finite) */
int cm_guard_check(const cmModel* m, const cmData* d, int* worst, double* speed);

/* write the diagnosis of a failed step (rows of the failed step still in the arena) */
void cm_guard_diagnose(const cmModel* m, cmData* d, int body, double speed, double h);

/* a priori: 1 (and the diagnosis) if an explicit pair of this step has w h > 2 */
int cm_guard_explicit(const cmModel* m, cmData* d, double h);

#endif
