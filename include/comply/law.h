/* comply: contact laws (SPEC 3).
 *
 * A law maps a contact's signed distance (negative when penetrating) to the four values of the
 * area-compliant document's `fres`: the restoring force f(dist) (negative in contact, N), the
 * compliance 1/f'(dist) (m/N, > 0 for a compliant contact), a damping coefficient (N s/m) and a
 * dimensionless step damping. The solver, not the law, forms the effective damping
 *   D = max(damping, step_damping * h / compliance),
 * applied only where compliance > 0. */
#ifndef COMPLY_LAW_H
#define COMPLY_LAW_H

#include "comply/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmResponse {
  double force;        /* f(dist), N; <= 0 */
  double compliance;   /* m/N; 0 = rigid (not used by the built-in laws) */
  double damping;      /* N s/m */
  double step_damping; /* dimensionless */
} cmResponse;

/* area_compliant: K = ka A; force = K dist, compliance 1/K, damping stiffness_damping K,
 * step_damping as given. A <= 0 gives a zero response. */
CM_API cmResponse cm_law_area_compliant(const cmRuleDef* rule, double dist, double area);

/* contact_time for one pair contact: x = max(-dist - play, 0), K = m_rep (pi/T)^2,
 * D = -2 m_rep ln(e_r) / T; force = -K x, compliance 1/K, damping D, step damping 0. */
CM_API cmResponse cm_law_contact_time(const cmRuleDef* rule, double dist, double m_rep);

/* linear: force = k dist, compliance 1/k, damping as given (per contact point) */
CM_API cmResponse cm_law_linear(const cmRuleDef* rule, double dist);

/* the effective damping D = max(damping, step_damping h / compliance) (0 if compliance <= 0) */
CM_API double cm_response_damping(const cmResponse* r, double h);

struct cmContact;
struct cmModel;

/* A user law: called once per contact point of the pairs using its rule, from one thread at a
 * time per data, with the contact's signed distance dist (m, < 0 in contact), the contact (points,
 * normal, area, flags) and the caller's context. It returns the response as the built-in laws do
 * (force <= 0 in N; compliance > 0 in m/N, or the contact is skipped). */
typedef cmResponse (*cmLawFn)(void* ctx, double dist, const struct cmContact* contact);

/* Make rule `rule` of a compiled model use fn instead of its built-in law (its method,
 * friction and integration are kept). Call before simulating; the context must outlive the
 * model's use. Returns CM_ERR_ARG for a bad rule index or a NULL fn. */
CM_API cmStatus cm_model_set_law(struct cmModel* m, int rule, cmLawFn fn, void* ctx);

#ifdef __cplusplus
}
#endif
#endif
