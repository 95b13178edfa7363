/* Stage 2, broadphase: candidate body pairs whose world boxes overlap, filtered by the pair
 * table. Contact detection arrives with the contact-detection issue; until then no body pair
 * is a candidate and the stage only exists to keep the pipeline and its timer in place. */
#include "solve/stages.h"

void cm_stage_broadphase(const cmModel* m, cmData* d) {
  (void)m;
  (void)d;
}
