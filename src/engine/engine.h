/* The engine: cm_step (step.c) runs the stages of every other folder in order, with the
 * numerical guard (guard.c) after stages 4 and 7 and the record stage (record.c) last. */
#ifndef CM_ENGINE_H
#define CM_ENGINE_H

#include "comply/data.h"
#include "comply/law.h"

/* stage 8, record: each row's force spread over its contacts (a pair row by the weights
 * A_k x_k of its pressure centroid), and the pair summaries (force on pair body 0, max
 * pressure) (record.c) */
void cm_stage_record(const cmModel* m, cmData* d);

/* the energy monitor (energy.c): its reference at the initial state (cm_step calls it before
 * the first step), and its update after a step whose last sub-step had length h */
void cm_energy_start(const cmModel* m, cmData* d);
void cm_stage_energy(const cmModel* m, cmData* d, double h);

/* the depth monitor (depth.c): reset before the first step, update after every step; the
 * tunnelling check after every step of (last sub-step) length h (a body's thickness:
 * cm_body_thickness, model/state.h) */
void cm_depth_start(cmData* d);
void cm_stage_depth(const cmModel* m, cmData* d);
void cm_stage_tunnel(const cmModel* m, cmData* d, double h);

/* 1 if some moving body is non-finite or faster than opt.max_speed; *worst, *speed: the body
 * with the largest speed (INFINITY if non-finite) (guard.c) */
int cm_guard_check(const cmModel* m, const cmData* d, int* worst, double* speed);

/* 0 (with d->message) if a moving body or a deformable body's node is faster than
 * opt.max_speed at the start of the step: the step is refused before it runs (guard.c) */
int cm_guard_start(const cmModel* m, cmData* d);

/* write the diagnosis of a failed step (rows of the failed step still in the arena) */
void cm_guard_diagnose(const cmModel* m, cmData* d, int body, double speed, double h);

/* Explicit stability of this sub-step's rows (stability.c). A sub-step alpha h (alpha <= 1)
 * keeps lambda_max <= alpha^2 gk + alpha gd; `substeps: auto` splits until that is at most
 * CM_STAB_TARGET: w h <= 1 for an undamped row (the discrete frequency within 5%), and a
 * damper removing at most half of the row's speed per sub-step; 4 times below the limit 1. */
#define CM_STAB_TARGET 0.25
typedef struct cmStabScan {
  int nexplicit; /* explicit rows */
  double gk, gd; /* upper bound of lambda_max, stiffness and damping parts (Gershgorin) */
  double low;    /* a lower bound of lambda_max: the largest lambda of a group of rows, or of
                    the rows coupled through the bodies they share (coupled) */
  double coupled; /* the coupled rows' lower bound (power iteration), computed only when the
                     upper bound reaches 1 and no group does; 0 otherwise */
  int worst;      /* the first row of the least stable group, -1 if no explicit row */
} cmStabScan;
/* the scan of the rows in d at sub-step h; -1 (and the group bound only) without scratch */
int cm_stability_scan(const cmModel* m, cmData* d, double h, cmStabScan* s);
/* the report of the group of rows that starts at row k (cmStability, comply/law.h), of its
 * explicit rows (all = 0) or of all its rows (all = 1); returns the row after the group */
int cm_stability_group(const cmModel* m, const cmData* d, int k, double h, int all, cmStability* g);
/* the largest fraction alpha in (0, 1] of the scanned sub-step at which the upper bound is
 * <= CM_STAB_TARGET (1: the sub-step is short enough) */
double cm_stability_alpha(const cmStabScan* s);

/* a priori, after the laws stage: 1 (and the diagnosis in d->message) if a group of explicit
 * rows of the scan s is unstable at h (its lambda >= 1) */
int cm_guard_explicit(const cmModel* m, cmData* d, double h, const cmStabScan* s);

#endif
