/* Stage 1, kinematics: prescribed poses at the step's time, frame-origin values and world
 * bounding boxes. */
#include <math.h>

#include "core/cm_math.h"
#include "model/state.h"
#include "dynamics/dynamics.h"

void cm_stage_kinematics(const cmModel* m, cmData* d, double t) {
  for (int b = 0; b < m->nbody; b++)
    if (m->body_motion[b] == CM_MOTION_PRESCRIBED) cm_body_prescribed(m, d, b, t);
  cm_body_derive(m, d);
}
