/* comply: parameter advice (SPEC 8, `comply advise`).
 *
 * The rules of thumb of area-compliant-contact.txt for choosing the `area_compliant` law's
 * parameters (ka, stiffness_damping, step_damping) and the `contact_time` law's elastic
 * repulsion e_r, as plain functions. Every function validates its inputs (finite, in range) and
 * returns CM_ERR_ARG with a message naming the parameter and the expected value in `err` (of
 * size `errsz`, may be NULL/0); the outputs are written only on CM_OK. Units: SI.
 * The derivations are in src/tools/advise.c and docs/contact-laws.md. */
#ifndef COMPLY_ADVISE_H
#define COMPLY_ADVISE_H

#include "comply/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the document's suggested stiffness ratio rho = deltaB/delta: default and usual range */
#define CM_ADVISE_RHO_DEFAULT 20.0
#define CM_ADVISE_RHO_MIN 10.0
#define CM_ADVISE_RHO_MAX 30.0

/* ka = pmax / delta_max (N/m^3): the contact then penetrates delta_max (m) under the maximum
 * contact pressure pmax (Pa). Both must be finite and > 0. */
CM_API cmStatus cm_advise_ka_pressure(double pmax, double delta_max, double* ka, char* err, size_t errsz);

/* body type of the document's table of effective thickness Le */
typedef enum cmAdviseShape {
  CM_ADVISE_SHAPE_AUTO = 0, /* infer: thin if patch_width is 0 or thickness < patch_width,
                               else compact (slender is never inferred) */
  CM_ADVISE_SHAPE_THIN,     /* thin layer, L << dp: Le = L */
  CM_ADVISE_SHAPE_COMPACT,  /* L >> dp, body cross-section >> patch: Le = dp */
  CM_ADVISE_SHAPE_SLENDER   /* L >> dp, body cross-section ~ patch: Le = L */
} cmAdviseShape;

/* "thin", "compact", "slender" or "auto" (static storage) */
CM_API const char* cm_advise_shape_name(cmAdviseShape s);
/* parse one of those names; 0 on success, -1 if unknown */
CM_API int cm_advise_shape_parse(const char* name, cmAdviseShape* out);

/* a deformable body in contact; start from cm_advise_material_default() */
typedef struct cmAdviseMaterial {
  double young;       /* Young's modulus E, Pa; finite > 0 (no default: 0 is an error) */
  double thickness;   /* body thickness L along the contact normal, m; finite > 0 */
  double patch_width; /* minimal width dp of the contact patch, m; 0 = unknown, else > 0.
                         Required for the compact shape */
  cmAdviseShape shape;
  double rho;     /* stiffness ratio deltaB/delta, finite > 0 (default 20; 10..30 advised) */
  double poisson; /* Poisson's ratio nu in [0, 0.5) (default 0) */
} cmAdviseMaterial;

/* young = thickness = patch_width = 0, shape AUTO, rho 20, poisson 0 */
CM_API cmAdviseMaterial cm_advise_material_default(void);

/* remarks attached to a ka advice (bits of cmAdviseKa.notes) */
enum {
  CM_ADVISE_NOTE_RHO_RANGE = 1 << 0,      /* rho outside 10..30 */
  CM_ADVISE_NOTE_NO_PATCH = 1 << 1,       /* no patch width: thin layer assumed */
  CM_ADVISE_NOTE_SHAPE_MISMATCH = 1 << 2, /* the given shape contradicts L vs dp */
  CM_ADVISE_NOTE_CONFINED = 1 << 3,       /* thin layer, nu > 0: confined (P-wave) modulus used,
                                             an upper bound; the document says a smaller ka
                                             suffices, the algebra says a larger one is needed */
  CM_ADVISE_NOTE_HALF_SPACE = 1 << 4,     /* compact body, nu > 0: E / (1 - nu^2) used */
  CM_ADVISE_NOTE_SLENDER_NU = 1 << 5      /* slender body, nu > 0: free lateral expansion, E used */
};

/* the advice of cm_advise_ka_material */
typedef struct cmAdviseKa {
  double ka;             /* rho E_eff / Le, N/m^3 */
  double ka_nu0;         /* rho E / Le, the document's formula with nu = 0, N/m^3 */
  double le;             /* effective thickness Le, m */
  double e_eff;          /* effective modulus along the contact normal, Pa */
  double modulus_factor; /* e_eff / E (1 for nu = 0) */
  double rho;            /* the ratio used */
  cmAdviseShape shape;   /* the shape used (never AUTO) */
  int shape_inferred;    /* 1 if shape was AUTO */
  unsigned notes;        /* CM_ADVISE_NOTE_* bits */
} cmAdviseKa;

/* ka = rho E_eff / Le (area-compliant-contact.txt, "Choosing Ka"), with Le from the document's
 * table and E_eff = E times a Poisson factor: thin confined layer (1-nu)/((1+nu)(1-2nu))
 * (3.793 at nu = 0.45), compact body on a half-space 1/(1-nu^2), slender body 1. */
CM_API cmStatus cm_advise_ka_material(const cmAdviseMaterial* in, cmAdviseKa* out, char* err,
                               size_t errsz);

/* one sentence explaining a single CM_ADVISE_NOTE_* bit (static storage; "" if unknown) */
CM_API const char* cm_advise_note_text(unsigned note);

/* Poisson factors E_eff / E, for nu in [0, 0.5). nu is not validated: outside that range they
 * return the formula's value, finite but meaningless (confined: 1.0185 at nu = -0.1, negative
 * for nu in (0.5, 1); half_space: -0.333 at nu = 2) or inf (confined at nu = 0.5 and -1,
 * half_space at nu = 1 and -1); NaN only for a NaN nu. */
CM_API double cm_advise_confined_factor(double nu);   /* (1-nu) / ((1+nu)(1-2nu)) */
CM_API double cm_advise_half_space_factor(double nu); /* 1 / (1-nu^2) */

/* omega = sqrt(ktot / mass), rad/s: frequency of a body of mass `mass` (kg) on contacts of total
 * stiffness `ktot` (N/m). Both finite > 0. */
CM_API cmStatus cm_advise_omega(double ktot, double mass, double* omega, char* err, size_t errsz);

/* the advice of cm_advise_stiffness_damping */
typedef struct cmAdviseDamping {
  double stiffness_damping; /* 2 zeta / omega, s */
  double omega;             /* rad/s, as given */
  double timestep;          /* h, s; 0 if not given (then the fields below are 0) */
  double omega_h;           /* omega h */
  int unresolved;           /* omega h > 1: the oscillation is not resolved by the step; step
                               damping dominates and stiffness_damping hardly matters */
  int below_half_step;      /* stiffness_damping < h/2: step_damping >= 0.5 is still required */
  /* with the timestep (else 0): what the step does to the damping. The implicit law acts at
   * mid-step and its damper is D = K max(stiffness_damping, step_damping h), so a step's damping
   * ratio is that of the map v+ = (v - w^2 h x) / (1 + (w h)^2 / 2 + (D/m) h), x+ = x + h v+
   * (cm_advise_midstep_zeta), about zeta + w h / 4 for w h << 1 */
  double zeta_given;             /* the damping ratio stiffness_damping gives at h with the default
                                    step_damping 1 */
  double stiffness_damping_step; /* the stiffness_damping that gives zeta at h (s), with a
                                    step_damping of at most step_damping_max; 0 if zeta is below
                                    zeta_min */
  double step_damping_max;       /* the largest step_damping that leaves stiffness_damping_step in
                                    charge (its D/K = stiffness_damping_step / h), at most 1 */
  double zeta_min;               /* the least damping ratio at h: D/K = h/2 (below, the contact
                                    oscillates from step to step) */
  double timestep_for_zeta;      /* zeta below zeta_min: the longest timestep at which it is
                                    reached (s), else 0 */
} cmAdviseDamping;

/* The damping ratio of a contact oscillating at omega (rad/s, > 0) as the implicit mid-step law
 * integrates it at timestep h (s, > 0) with D/K = dk (s, >= 0): from the eigenvalues of its step
 * map (cmAdviseDamping), -ln|lambda| / sqrt(ln|lambda|^2 + arg(lambda)^2); for real eigenvalues
 * (overdamped) the continuous ratio of their logarithms; NAN where an eigenvalue is <= 0 (the
 * contact flips from step to step). */
CM_API double cm_advise_midstep_zeta(double omega, double h, double dk);

/* stiffness_damping = 2 zeta / omega gives damping ratio zeta (finite > 0) to an oscillation of
 * frequency omega (rad/s, finite > 0). timestep h (s) is optional: 0 = not given, else finite
 * > 0, and fills the step checks. */
CM_API cmStatus cm_advise_stiffness_damping(double zeta, double omega, double timestep,
                                     cmAdviseDamping* out, char* err, size_t errsz);

/* mean coefficient of restitution 0.5 / (0.5 + step_damping) of a light rigid body striking a
 * stiff area_compliant contact (step damping governing). step_damping finite >= 0; below 0.5 the
 * contact oscillates unless stiffness_damping >= h/2 (the formula is then only indicative). */
CM_API cmStatus cm_advise_restitution(double step_damping, double* restitution, char* err, size_t errsz);

/* the inverse: step_damping = 0.5 / e - 0.5 for a restitution e in (0, 1] */
CM_API cmStatus cm_advise_step_damping_for_restitution(double restitution, double* step_damping, char* err,
                                                size_t errsz);

/* contact_time law as comply integrates it, the spring-dashpot that never pulls
 * (F = max(0, K x + D x'), zeta = -ln(e_r)/pi), for a body against a wall (m_rep = m) or any
 * pair with mass: effective: the restitution, the contact ending when the force reaches 0,
 *   e = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2))           (zeta < 1; exp(-2) at zeta = 1)
 *   e = exp(-2 zeta ln(zeta + W) / W),  W = sqrt(zeta^2 - 1)  (zeta > 1)
 * for e_r in (0, 1] (0.5433 at e_r = 0.5); src/tools/advise.c derives it. */
CM_API cmStatus cm_advise_contact_time_restitution(double elastic_repulsion, double* restitution,
                                            char* err, size_t errsz);

/* the duration of that contact over the contact_time T: 2 acos(zeta) / (pi sqrt(1 - zeta^2))
 * (zeta < 1), 2 ln(zeta + W) / (pi W) (zeta > 1); 1 at e_r = 1, 0.880 at e_r = 0.5 */
CM_API cmStatus cm_advise_contact_time_duration(double elastic_repulsion, double* ratio,
                                                char* err, size_t errsz);

/* the inverse of cm_advise_contact_time_restitution: the e_r in (0, 1] that gives restitution e
 * in (0, 1] (bisection in zeta to the last bit). CM_ERR_ARG below e of about 4.5e-6, whose e_r
 * is below the smallest double (from 5e-6 up it is a normal double). */
CM_API cmStatus cm_advise_contact_time_er(double restitution, double* elastic_repulsion, char* err,
                                   size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
