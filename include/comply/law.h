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
  double force;        /* f(dist), N: <= 0 for dist <= 0 (penetration); area_compliant and
                          linear do not clamp it, so it is > 0 for a separated point (dist > 0;
                          contact_time gives 0 there). cm_step pushes only: its contacts
                          penetrate, and the solver never pulls (its force along n >= 0) */
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
struct cmData;

/* Explicit stability (docs/contact-laws.md, "Explicit stability"). An explicit row (a contact
 * pair's rows together, or one joint) of stiffness K = 1/compliance and damping D acts on the
 * effective mass m_eff = 1/(J M^-1 J^T) at its point along its normal (rotation included); with
 * w = sqrt(K / m_eff) and zeta = D / (2 sqrt(K m_eff)) the explicit sub-step h is stable iff
 * lambda = ((w h)^2 + 4 zeta w h) / 4 < 1, i.e. w h < 2 (sqrt(1 + zeta^2) - zeta). */
typedef struct cmStability {
  int explicit_rows; /* explicit rows evaluated; 0: nothing to check (then h is set, pair,
                        joint, body[] and rule are -1, substeps 1 and every other field 0) */
  double h;          /* the sub-step they were evaluated at, s */
  /* the least stable group of rows */
  int pair;                /* its contact pair (index into cmData.pair), or -1 */
  int joint;               /* its joint, or -1 */
  int body[2];             /* its bodies, -1 for the world */
  int rule;                /* its rule */
  int implicit;            /* 1: an implicit joint, judged across its link, where the solve's
                              fixed direction makes it act explicitly (docs/contact-laws.md) */
  double m_eff;            /* effective mass at its point along its normal, kg */
  double stiffness;        /* K, N/m (summed over a pair's rows) */
  double damping;          /* D, N s/m (summed) */
  double omega;            /* w = sqrt(K / m_eff), rad/s */
  double zeta;             /* D / (2 sqrt(K m_eff)) */
  double omega_h;          /* w h */
  double limit;            /* the largest stable w h, 2 (sqrt(1 + zeta^2) - zeta) */
  double lambda;           /* ((w h)^2 + 4 zeta w h) / 4; >= 1: unstable */
  double h_max;            /* the longest sub-step at which lambda < 1, s */
  double contact_time_min; /* a contact_time row: the shortest contact_time T with lambda < 1
                              at h, s (0 for the other laws) */
  /* every explicit row */
  double lambda_max; /* upper bound of lambda over all explicit rows, coupled through the
                        bodies they share (>= lambda; equal for a single row) */
  int substeps;      /* the sub-steps `substeps: auto` takes at this state (whatever the
                        scene's substeps): the fewest with lambda_max <= 1/4 (w h <= 1 for an
                        undamped row), at most CM_SUBSTEPS_AUTO_MAX */
  double lambda_coupled; /* a lower bound of lambda over all explicit rows coupled through the
                            bodies they share (power iteration), computed where lambda_max
                            reaches 1 and lambda does not, else 0: >= 1 is unstable although
                            every group alone is stable (rows on one body add up) */
} cmStability;

/* The explicit stability of a state before running it (`comply check`): the rows of the
 * contacts in d (call cm_collide first) and of every joint, each joint along the direction of
 * least effective mass at its anchors (its stretch direction is not known before the run), at
 * the sub-step timestep / substeps (timestep for substeps: auto). Fills *out; CM_ERR_NOMEM if
 * the scratch memory cannot grow. Changes only d's scratch. */
CM_API cmStatus cm_data_stability(const struct cmModel* m, struct cmData* d, cmStability* out);

/* A user law: called once per contact point of the pairs using its rule, from one thread at a
 * time per data, with the contact's signed distance dist (m, < 0 in contact), the contact (points,
 * normal, area, flags) and the caller's context. It returns the response as the built-in laws do
 * (force <= 0 in N; compliance > 0 in m/N, or <= 0 to skip the contact; damping and step
 * damping >= 0), every number finite: any other response makes cm_step refuse the step with
 * CM_ERR_ARG, its message naming the rule, the values and the pair, the state unchanged. */
typedef cmResponse (*cmLawFn)(void* ctx, double dist, const struct cmContact* contact);

/* Make rule `rule` of a compiled model use fn instead of its built-in law (its method,
 * friction and integration are kept). Call before simulating; the context must outlive the
 * model's use. Returns CM_ERR_ARG for a bad rule index or a NULL fn. */
CM_API cmStatus cm_model_set_law(struct cmModel* m, int rule, cmLawFn fn, void* ctx);

#ifdef __cplusplus
}
#endif
#endif
