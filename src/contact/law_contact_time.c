/* The contact-time law (rigidbody-interaction.txt): a spring-dashpot scaled by the
 * representative mass m_rep = min(m_i, m_j) (a wall counts as infinite mass):
 *
 *   F = m_rep ( (pi/T)^2 x - 2 ln(e_r)/T dx/dt ),   x = max(penetration - play, 0)
 *
 * (pushing the bodies apart). For the undamped spring, m_rep x'' = -m_rep (pi/T)^2 x is half an
 * oscillation of duration T: the contact lasts T for a body of mass m_rep against a wall (or with
 * `mass: effective`); two free bodies, whose reduced mass is below m_rep, part sooner
 * (docs/contact-laws.md, the representative mass). The dashpot with
 * D = -2 m_rep ln(e_r) / T gives the damping ratio zeta = -ln(e_r) / pi (for m = m_rep), and a
 * linear spring-dashpot that may pull restitutes e = exp(-zeta pi / sqrt(1 - zeta^2))
 * = e_r^(1 / sqrt(1 - (ln e_r / pi)^2)); see docs/contact-laws.md. */
#include <math.h>

#include "comply/law.h"
#include "core/cm_math.h"

cmResponse cm_law_contact_time(const cmRuleDef* rule, double dist, double m_rep) {
  cmResponse r = {0, 0, 0, 0};
  double T = rule->contact_time;
  double x = -dist - rule->play;
  if (!(m_rep > 0) || !(T > 0)) return r;
  double K = m_rep * (CM_PI / T) * (CM_PI / T);
  r.force = x > 0 ? -K * x : 0;
  r.compliance = 1.0 / K;
  r.damping = -2.0 * m_rep * log(rule->elastic_repulsion) / T;
  return r;
}

cmResponse cm_law_linear(const cmRuleDef* rule, double dist) {
  cmResponse r = {0, 0, 0, 0};
  r.force = rule->stiffness * dist;
  r.compliance = 1.0 / rule->stiffness;
  r.damping = rule->damping;
  return r;
}
