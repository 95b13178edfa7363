/* Rigid-body kinematics and rotational dynamics helpers. */
#ifndef CM_BODY_H
#define CM_BODY_H

#include "comply/data.h"

/* frame-origin position and velocity (body_xpos, body_xvel) from the com state, and the world
 * bounding boxes (body_aabb) of every body */
void cm_body_derive(const cmModel* m, cmData* d);

/* set the state of prescribed body b at time t: the frame origin moves with its constant
 * velocity and the body turns about its frame origin with its constant angular velocity */
void cm_body_prescribed(const cmModel* m, cmData* d, int b, double t);

/* Implicit midpoint gyroscopic update (see gyroscopic.c): given the body-frame inertia J and
 * the body-frame angular momentum L1 (including the step's torque impulse), find the body-frame
 * angular velocity w at the end of the step and the midpoint velocity wm = (J^-1 L1 + w)/2 by
 * which the orientation must turn. Returns the Newton iterations used, or -1 if the iteration
 * did not converge (w, wm then hold the last iterate). */
int cm_gyro_implicit(const double J[9], const double Jinv[9], const double L1[3], double h,
                     double w[3], double wm[3]);

#endif
