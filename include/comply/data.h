/* comply: the mutable simulation data and the step.
 *
 * A cmData holds everything that changes during a simulation of one cmModel: time, body state,
 * the contact list of the current step, solver statistics, warnings and stage timers, and a
 * scratch arena that grows only between steps (after the first step a step allocates nothing).
 * Many cmData may share one cmModel. */
#ifndef COMPLY_DATA_H
#define COMPLY_DATA_H

#include <stdint.h>

#include "comply/core.h"
#include "comply/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* warning kinds counted in cmData.warning[] */
typedef enum cmWarning {
  CM_WARN_BAD_AREA = 0,  /* contact with zero area: no force */
  CM_WARN_SOLVER,        /* the implicit solve did not reach its tolerance */
  CM_WARN_CONTACT_LIMIT, /* out of memory (or of broadphase grid room): candidate pairs,
                            contacts, pairs or rows were dropped, or min_period's softening, the
                            edge contacts' birth offsets or the stability scan's upper bound
                            skipped; more than max_contacts points is not counted here: cm_step
                            fails with CM_ERR_LIMIT instead */
  CM_WARN_GYRO,          /* gyroscopic Newton iteration did not converge */
  CM_WARN_ENERGY,        /* the total mechanical energy grew: the numerics created energy */
  CM_WARN_SUBSTEPS,      /* substeps: auto needed more than CM_SUBSTEPS_AUTO_MAX sub-steps */
  CM_WARN_DEEP,          /* a pair penetrated deeper than CM_DEEP_FRACTION of its thinner body */
  CM_WARN_TUNNEL,        /* a body moved more than half the thinner body's thickness in a step */
  CM_WARN_COUNT
} cmWarning;
/* the name of a warning kind as in summary.json ("solver_not_converged"), "unknown" if none */
CM_API const char* cm_warning_name(cmWarning w);
/* one sentence for a user: what the warning means for the results and what to do about it */
CM_API const char* cm_warning_help(cmWarning w);

/* stages of cm_step, timed into cmData.timer[] (cumulative seconds) */
typedef enum cmTimer {
  CM_TIMER_STEP = 0,    /* the whole step */
  CM_TIMER_KINEMATICS,  /* prescribed poses, world boxes */
  CM_TIMER_BROADPHASE,  /* candidate pairs */
  CM_TIMER_NARROWPHASE, /* contact points */
  CM_TIMER_LAWS,        /* contact responses */
  CM_TIMER_FORCES,      /* gravity, outer forces, explicit contacts, joints */
  CM_TIMER_SOLVE,       /* velocity update */
  CM_TIMER_INTEGRATE,   /* positions and orientations */
  CM_TIMER_RECORD,      /* contact forces and pair summaries for the outputs */
  CM_TIMER_COUNT
} cmTimer;
CM_API const char* cm_timer_name(cmTimer t);

/* contact flags */
#define CM_CONTACT_TWO_WAY 1 /* from two-way detection: area halved (auto: shared by depth) */
#define CM_CONTACT_EDGE 2    /* edge-edge contact */
#define CM_CONTACT_CONTOUR 4 /* contour-region contact (vert = -1) */

/* one contact point (SPEC 2 sign conventions) */
typedef struct cmContact {
  int body[2];    /* body A (penetrating, cpnt0) and body B (penetrated, cpnt1) */
  int pair;       /* index into cmData.pair */
  int vert;       /* penetrating vertex index within A's geometry, -1 if none */
  int face;       /* the face of B's mesh p1 lies on (within B's geometry): the nearest face to
                     the vertex, or the nearest facing against it (docs/contact-laws.md, "Flush
                     faces"); -1 if none (B a plane, edge and contour contacts) */
  int flags;      /* CM_CONTACT_* */
  double p0[3];   /* point on A, world, m */
  double p1[3];   /* point on B, world, m */
  double n[3];    /* unit normal out of B toward A, world */
  double dist;    /* (p0 - p1) . n, m, negative when penetrating */
  double area;    /* contact area, m^2 */
  double force;   /* normal force magnitude on A along n, N (>= 0) */
  double ftan[3]; /* friction force on A, world, N */
} cmContact;

/* the contacts of one body pair in the current step */
typedef struct cmContactPair {
  int body[2];            /* body A (penetrating side of most contacts) and body B */
  int rule;               /* interaction rule index */
  int first;              /* index of the pair's first contact in cmData.contact */
  int points;             /* number of contacts */
  double area;            /* total contact area, m^2 */
  double max_penetration; /* largest -dist, m */
  double force[3];        /* total contact force on body A, world, N */
  double max_pressure;    /* largest force/area over the points, Pa */
} cmContactPair;

typedef struct cmData {
  long step;   /* steps taken */
  double time; /* simulated time, s */

  /* body state (the com is the dynamic reference; frame-origin values are derived) */
  double* body_xpos;   /* world position of the body frame origin, m         (nbody x 3) */
  double* body_xquat;  /* orientation, w x y z, body to world                (nbody x 4) */
  double* body_xvel;   /* velocity of the frame origin, world, m/s           (nbody x 3) */
  double* body_cpos;   /* world position of the centre of mass, m            (nbody x 3) */
  double* body_cvel;   /* velocity of the centre of mass, world, m/s         (nbody x 3) */
  double* body_angvel; /* angular velocity, world, rad/s                     (nbody x 3) */
  double* body_aabb;   /* world bounding box min xyz, max xyz, m             (nbody x 6) */

  /* contacts of the current step */
  int ncontact;        /* contact points */
  int maxcontact;      /* capacity of contact[] */
  cmContact* contact;  /* (ncontact) grouped by pair, in a deterministic order */
  int npair;           /* body pairs with contacts */
  int maxpair;         /* capacity of pair[] */
  cmContactPair* pair; /* (npair) */

  /* solver statistics */
  int solver_iter;            /* Newton iterations of the last implicit solve (largest island) */
  double solver_residual;     /* relative residual of the last implicit solve */
  int solver_max_iter;        /* worst over the run */
  double solver_max_residual; /* worst over the run */
  long solver_solves;         /* implicit solves over the run (one per step, or per sub-step) */
  long solver_total_iter;     /* sum of solver_iter over those solves: the mean is
                                 solver_total_iter / solver_solves */
  long solver_failed_solves;  /* solves in which some island did not converge (each also counts
                                 as CM_WARN_SOLVER, once per island); a step retried in more
                                 sub-steps counts only its last attempt's */
  long solver_retries;        /* steps taken again in twice the sub-steps because a solve did not
                                 converge (cm_step; at most log2 CM_RETRY_SPLIT_MAX per step) */
  long soft_rows;             /* implicit contact rows softened by their rule's min_period,
                                 summed over the run's sub-steps (a retried step: its last
                                 attempt's; docs/contact-laws.md, "Softened contacts:
                                 min_period") */
  double soft_factor;         /* the smallest factor K' / K of those, in (0, 1); 0 if none */

  /* energy monitor (docs/outputs.md "Energy monitor"): E = kinetic + gravity and outer-force
   * potential + the elastic energy of the contact laws and joints, at the end of every step */
  double energy;          /* E at the end of the last step, J */
  double energy_low;      /* the lowest E so far, J (the reference growth is measured from) */
  double energy_scale;    /* the largest kinetic energy so far, J */
  double energy_growth;   /* the largest (E - elastic - energy_low) / energy_scale so far; a step
                             where it exceeds CM_ENERGY_TOL counts as CM_WARN_ENERGY */
  long energy_first_step; /* the first step that counted CM_WARN_ENERGY, 0 none */
  int energy_body;        /* the body that gained the most kinetic energy in that step, -1 */
  int energy_monitor;     /* 1 while the monitor runs; 0 if the scene has what it cannot count
                             (prescribed bodies, outer moments, laws given as C functions) */

  /* depth monitor: the deepest penetration relative to the thinner body of its pair */
  double depth_ratio;    /* the largest max_penetration / thickness so far (thickness: the
                            smallest extent of a body's box; planes excluded) */
  long depth_first_step; /* the first step that counted CM_WARN_DEEP, 0 none */
  int depth_body_a;      /* the pair of the largest ratio (-1 none) */
  int depth_body_b;
  /* tunnelling: the first step in which a body near another moved, relative to it, more than
   * half the thinner one's thickness (a vertex can then cross its middle, or jump it, unseen) */
  long tunnel_first_step;  /* 0 none */
  int tunnel_body_a;       /* the moving body of that step */
  int tunnel_body_b;       /* the body it may cross */
  double tunnel_speed;     /* their relative speed bound, m/s */
  double tunnel_thickness; /* the thinner one's thickness, m */

  int warning[CM_WARN_COUNT];   /* counts */
  char message[512];            /* diagnosis of the last failed step ("" if none) */
  double timer[CM_TIMER_COUNT]; /* cumulative seconds per stage */

  void* internal; /* scratch arena and private state (do not touch) */

  /* the warm start of the implicit solve: the velocity change (v, w: m/s, rad/s, world) its
   * contacts and joints gave each body in the last step, 0 for a body without implicit rows;
   * the next solve starts from the free velocities plus this (nbody x 6). Part of the state
   * (hashed, saved in checkpoints); last in the struct so that the offsets above stay those of
   * format 4. */
  double* body_dv;

  /* applied force and moment per body, set by the caller: f (N, world, at the com) then the
   * moment (N m, world), nbody x 6; added in every step until changed; zero after
   * cm_data_reset; not part of the state (not hashed, not in checkpoints). While any is
   * non-zero the energy monitor is off (its work is not counted). */
  double* body_xfrc;

  /* the nodes of the deformable bodies (docs/deformable.md): position and velocity, world, m
   * and m/s (nnode x 3 each); part of the state (hashed after the bodies, in checkpoints). A
   * deformable body's body_cpos and body_cvel are the mass-weighted means of its nodes,
   * body_xquat stays the identity and body_angvel 0. */
  double* node_pos;
  double* node_vel;
} cmData;

/* a pair penetrating deeper than this fraction of its thinner body counts CM_WARN_DEEP */
#define CM_DEEP_FRACTION 0.2

/* relative energy growth beyond which a step counts as CM_WARN_ENERGY */
#define CM_ENERGY_TOL 0.05

/* new data at the model's initial state; NULL on no memory */
CM_API cmData* cm_data_new(const cmModel* m);
CM_API void cm_data_free(cmData* d);
/* back to the initial state (counters, warnings and timers cleared) */
CM_API void cm_data_reset(const cmModel* m, cmData* d);
/* copy into dst (both data of model m) everything a user can read from src: state, derived body
 * values, contacts and pairs, counters, warnings, timers, message, solver statistics (the lists
 * of comply/fields.h), and the friction springs' stretches (private state: docs/contact-laws.md,
 * "Friction"); not the private scratch. CM_ERR_NOMEM if the buffers cannot grow: dst's contents
 * are then unchanged, but some of its buffers may have grown already (maxcontact, maxpair and
 * the contact and pair pointers may differ from before the call). */
CM_API cmStatus cm_data_copy(const cmModel* m, cmData* dst, const cmData* src);

/* Advance one step of m->opt.timestep. If the new state is not finite or a body exceeds
 * m->opt.max_speed, or an explicit row (a contact pair's or a joint's) is found unstable at its
 * sub-step before it is integrated, the step is undone and CM_ERR_NUMERIC returned; if the
 * contact points exceed m->opt.max_contacts, CM_ERR_LIMIT; if a user law answers out of its
 * range, CM_ERR_ARG. Either way d keeps the last good state, with no contacts (ncontact = npair
 * = 0: those of the failed step are dropped, those of the state restored were not kept), and
 * d->message says what failed: for CM_ERR_NUMERIC the body, the contact pair or joint and the
 * likely cause ("... explicit row unstable at h = ... s: w h = ... >= ..." for an unstable row);
 * for CM_ERR_LIMIT max_contacts and the number of body pairs in contact so far (no body); for
 * CM_ERR_ARG the rule, the law's values and the two bodies. The failed attempt's timers,
 * warnings and solver counts stay counted. A failed first step (d->step 0) has also set the
 * energy and depth monitors' baselines (energy, energy_low, energy_scale, energy_growth,
 * energy_first_step, energy_body, energy_monitor, depth_* and tunnel_*); the next attempt sets
 * them again. A state that cannot be stepped (non-finite, a zero quaternion: CM_ERR_ARG; a moving
 * body or node already faster than max_speed: CM_ERR_NUMERIC) is refused before the step, with
 * d unchanged but for d->message; so is a step without memory for the friction anchors it must
 * save (CM_ERR_NOMEM, "out of memory for N friction anchors"). The step's other buffers do not
 * fail it: what cannot get memory is dropped and counted (CM_WARN_CONTACT_LIMIT,
 * CM_WARN_SOLVER). */
CM_API cmStatus cm_step(const cmModel* m, cmData* d);

/* Contact detection alone, at the current state (no dynamics): fills d->contact and d->pair
 * (forces zero). For users who want contact queries without simulation. A state cm_step would
 * refuse as non-finite (or a zero quaternion) is CM_ERR_ARG, with d unchanged but for
 * d->message; more than m->opt.max_contacts contact points is CM_ERR_LIMIT, with no contacts
 * (ncontact = npair = 0) and the count in d->message. */
CM_API cmStatus cm_collide(const cmModel* m, cmData* d);

/* 1 if the world point p is strictly inside body `body` at its pose in d (a mesh: inside its
 * closed surface; a plane: on the solid side of it), 0 otherwise or on bad arguments */
CM_API int cm_point_inside(const cmModel* m, const cmData* d, int body, const double p[3]);

/* Per-vertex contact values of one body for visualisation: pressure (force/area of the contact
 * at that vertex, Pa) and penetration (-dist, m) of the vertices of `body` that penetrate in the
 * current contact list (the largest of each over a vertex's contacts: a vertex in an inner corner
 * has one per face, docs/contact-laws.md "Concave corners"); 0 elsewhere. pressure and
 * penetration are caller-owned arrays of
 * m->geom_nvert[m->body_geom[body]] doubles (0 for a plane: nothing is written). CM_ERR_ARG,
 * with a message in err and nothing written, if m, d, pressure or penetration is NULL or body is
 * not in [0, m->nbody). */
CM_API cmStatus cm_data_vertex_pressure(const cmModel* m, const cmData* d, int body,
                                        double* pressure, double* penetration, char* err,
                                        size_t errsz);

/* Determinism hash of the state: FNV-1a 64 over, in this order, d->step (a signed 64-bit
 * integer); per body its row of CM_DATA_STATE (comply/fields.h): body_cpos, body_xquat,
 * body_cvel, body_angvel and body_dv, 19 doubles; per node of the deformable bodies node_pos and
 * node_vel (6 doubles; nothing without deformable bodies); then, if any contact keeps something
 * from step to step (the private friction anchors: a friction spring's stretch, an edge
 * contact's birth offset), their count and per anchor its two bodies and four key integers
 * (signed 64-bit), its stretch (3 doubles) and its birth offset (a double). Every number is
 * hashed as 8 bytes, least significant first, the doubles as IEEE-754 bit patterns (-0.0 and 0.0
 * differ). That is the whole state the next step depends on, so equal hashes continue
 * identically; it does not depend on the machine's byte order. See docs/outputs.md. */
CM_API uint64_t cm_data_hash(const cmModel* m, const cmData* d);

/* energies: kinetic (translational + rotational) and gravitational potential relative to the
 * origin (-m g . x), J. Infinite-mass bodies contribute nothing. */
CM_API void cm_data_energy(const cmModel* m, const cmData* d, double* kinetic, double* potential);
/* total linear momentum (kg m/s) and angular momentum about the world origin (kg m^2/s) of the
 * dynamic bodies */
CM_API void cm_data_momentum(const cmModel* m, const cmData* d, double p[3], double L[3]);

#ifdef __cplusplus
}
#endif
#endif
