/* The engine: cm_step (step.c) runs the stages of every other folder in order, with the
 * numerical guard (guard.c) after stages 4 and 7 and the record stage (record.c) last. */
#ifndef CM_ENGINE_H
#define CM_ENGINE_H

#include "comply/data.h"

/* stage 8, record: each row's force spread over its contacts (a pair row by the weights
 * A_k x_k of its pressure centroid), and the pair summaries (force on pair body 0, max
 * pressure) (record.c) */
void cm_stage_record(const cmModel* m, cmData* d);

/* 1 if some moving body is non-finite or faster than opt.max_speed; *worst, *speed: the body
 * with the largest speed (INFINITY if non-finite) (guard.c) */
int cm_guard_check(const cmModel* m, const cmData* d, int* worst, double* speed);

/* write the diagnosis of a failed step (rows of the failed step still in the arena) */
void cm_guard_diagnose(const cmModel* m, cmData* d, int body, double speed, double h);

/* a priori: 1 (and the diagnosis) if an explicit pair of this step has w h > 2 */
int cm_guard_explicit(const cmModel* m, cmData* d, double h);

#endif
