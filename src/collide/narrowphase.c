/* Stage 3, narrowphase: contact points per candidate pair and collision method. Contact
 * detection arrives with the contact-detection issue; until then the contact list is empty. */
#include "solve/stages.h"

void cm_stage_narrowphase(const cmModel* m, cmData* d) {
  (void)m;
  d->ncontact = 0;
}
