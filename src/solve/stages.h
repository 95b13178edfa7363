/* The stages of cm_step (DESIGN.md section 2), one function per file, called in this order. */
#ifndef CM_STAGES_H
#define CM_STAGES_H

#include "comply/data.h"

/* 1 kinematics: prescribed poses at time t, frame-origin values, world boxes (kinematics.c) */
void cm_stage_kinematics(const cmModel* m, cmData* d, double t);
/* 2 broadphase: candidate body pairs (broadphase.c) */
void cm_stage_broadphase(const cmModel* m, cmData* d);
/* 3 narrowphase: contact points (narrowphase.c) */
void cm_stage_narrowphase(const cmModel* m, cmData* d);
/* 4 laws: contact responses (laws.c) */
void cm_stage_laws(const cmModel* m, cmData* d);
/* 5 forces: gravity, outer forces and moments, explicit contacts, joints (forces.c) */
void cm_stage_forces(const cmModel* m, cmData* d);
/* 6 solve: velocities at the end of a step of h (solve.c) */
void cm_stage_solve(const cmModel* m, cmData* d, double h);
/* 7 integrate: positions and orientations from the new velocities (integrate.c) */
void cm_stage_integrate(const cmModel* m, cmData* d, double h, double t_end);

/* monotonic wall clock, s */
double cm_clock(void);

#endif
