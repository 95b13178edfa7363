/* Stage 4, laws: the response {force, compliance, damping, step_damping} of every contact.
 * The contact laws arrive with the physics-core issue; with no contacts there is nothing to
 * evaluate. */
#include "solve/stages.h"

void cm_stage_laws(const cmModel* m, cmData* d) {
  (void)m;
  (void)d;
}
