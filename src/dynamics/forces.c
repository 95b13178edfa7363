/* Stage 5, forces: the applied force and torque on every moving body for this step: gravity
 * m g at the com, and the constant outer force and moment of the scene. */
#include "core/cm_math.h"
#include "model/data_internal.h"
#include "solve/stages.h"

void cm_stage_forces(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  for (int b = 0; b < m->nbody; b++) {
    double* f = p->force + 3 * b;
    double* t = p->torque + 3 * b;
    if (m->body_invmass[b] == 0) {
      cm_v3_set(f, 0, 0, 0);
      cm_v3_set(t, 0, 0, 0);
      continue;
    }
    cm_v3_madd(f, m->body_force + 3 * b, m->opt.gravity, m->body_mass[b]);
    cm_v3_copy(t, m->body_moment + 3 * b);
  }
}
