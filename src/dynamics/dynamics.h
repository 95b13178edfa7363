/* The dynamics stages of cm_step: kinematics (stage 1) and forces (stage 5), and the
 * gyroscopic update of free rotation used by the solve stage. */
#ifndef CM_DYNAMICS_H
#define CM_DYNAMICS_H

#include "comply/data.h"

/* stage 1, kinematics: prescribed poses at time t, frame-origin values, world boxes
 * (kinematics.c) */
void cm_stage_kinematics(const cmModel* m, cmData* d, double t);

/* stage 5, forces: gravity, outer forces and moments, explicit contact and joint rows, for a
 * sub-step of length h (s) (forces.c) */
void cm_stage_forces(const cmModel* m, cmData* d, double h);

/* Implicit midpoint gyroscopic update (gyroscopic.c): given the body-frame inertia J and
 * the body-frame angular momentum L1 (including the step's torque impulse), find the body-frame
 * angular velocity w at the end of the step and the midpoint velocity wm = (J^-1 L1 + w)/2 by
 * which the orientation must turn. Returns the Newton iterations used, or -1 if the iteration
 * did not converge (w, wm then hold the last iterate). */
int cm_gyro_implicit(const double J[9], const double Jinv[9], const double L1[3], double h,
                     double w[3], double wm[3]);

#endif
