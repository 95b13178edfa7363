/* Derived body state: what cmData's frame-origin fields and boxes are, given the com state
 * (state.c). Part of the data layer, below every stage. */
#ifndef CM_MODEL_STATE_H
#define CM_MODEL_STATE_H

#include "comply/data.h"

/* frame-origin position and velocity (body_xpos, body_xvel) from the com state, and the world
 * bounding boxes (body_aabb) of every body */
void cm_body_derive(const cmModel* m, cmData* d);

/* set the state of prescribed body b at time t: the frame origin moves with its constant
 * velocity and the body turns about its frame origin with its constant angular velocity */
void cm_body_prescribed(const cmModel* m, cmData* d, int b, double t);

/* the thickness of body b: the smallest extent of its body-frame box, m (0 for a plane) */
double cm_body_thickness(const cmModel* m, int b);

#endif
