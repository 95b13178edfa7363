/* The area-compliant law (area-compliant-contact.txt): stiffness per unit area.
 *
 * K = ka A in parallel with a damper D = max(stiffness_damping, step_damping h) K. Because K
 * scales with the contact's area, a patch pressed to depth delta carries the pressure ka delta
 * whatever the number of vertices sampling it: the force per unit area is independent of the
 * mesh resolution. */
#include "comply/law.h"

cmResponse cm_law_area_compliant(const cmRuleDef* rule, double dist, double area) {
  cmResponse r = {0, 0, 0, 0};
  if (!(area > 0)) return r;
  double K = rule->ka * area;
  r.force = K * dist;
  r.compliance = 1.0 / K;
  r.damping = rule->stiffness_damping * K;
  r.step_damping = rule->step_damping;
  return r;
}

double cm_response_damping(const cmResponse* r, double h) {
  if (!(r->compliance > 0)) return 0;
  double sd = r->step_damping * h / r->compliance;
  return r->damping > sd ? r->damping : sd;
}
