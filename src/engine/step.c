/* cm_step: the staged pipeline of docs/architecture.md.
 *
 *   1 kinematics  2 broadphase  3 narrowphase  4 laws  5 forces  6 solve  7 integrate  8 record
 *
 * One cm_step advances opt.timestep in opt.substeps sub-steps of h = timestep / substeps (each
 * sub-step runs the whole pipeline: MESHFREE's N_sub). With substeps: auto the step starts as
 * one sub-step; when the explicit rows of a sub-step need a shorter one (stability.c), the rest
 * of the step, from that sub-step's start, is split again (after the laws stage, the only stage
 * before it that depends on h, runs again). Every stage is timed into d->timer[].
 * A step in which an implicit solve does not converge (CM_WARN_SOLVER) is taken again from its
 * start in twice the sub-steps, up to CM_RETRY_SPLIT_MAX times the scene's (8: three retries);
 * only the last attempt's verdicts count (solver_failed_solves, its warnings), and
 * solver_retries counts the retries. A solve that fails at h converges at h / 2 far more often:
 * the contact's own period is then better resolved (bench/README.md, "Retried steps"; every
 * unconverged step of the stiff pile's twelve variants converged at h / 2). With substeps: auto
 * the retry starts from that many sub-steps and may split further. A retry changes the integration,
 * not the law: its laws stage gets the sub-step of the attempt before the split (h * split), so
 * the step damping D = step_damping h K and min_period's bound are those of the step the user
 * asked for. With the retry's own sub-step (until 2026-12-06) a retried impact step pushed the
 * penetration its first attempt started from out with 2, 4, 8 times less damping: a box landing
 * at 2.2 m/s left at 8.28 m/s after three retries, against 1.09 m/s at h; with the step's law,
 * 1.30 m/s (docs/contact-laws.md, "Retried steps").
 * The state at the start of the step is saved; if the new state is not finite it is restored
 * and CM_ERR_NUMERIC returned, so a caller always holds the last good state. The per-step
 * scratch arena is reset at the start and at the end of the step (growing it if the step
 * overflowed it), so after the first step a step performs no heap allocation; it is rewound at
 * the start of every later sub-step (nothing of a sub-step's scratch outlives the next one), so
 * that a step needs the scratch of one sub-step, whatever the number of sub-steps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collide/collide.h"
#include "contact/contact.h"
#include "core/cm_math.h"
#include "core/internal.h"
#include "dynamics/dynamics.h"
#include "engine/engine.h"
#include "model/data_internal.h"
#include "solve/solve.h"

#define TIMED(d, stage, call)                                                                      \
  do {                                                                                             \
    double t_start_ = cm_clock();                                                                  \
    call;                                                                                          \
    (d)->timer[stage] += cm_clock() - t_start_;                                                    \
  } while (0)

/* back to the state of the step's start (CM_DATA_STATE, model/fields.h), its friction anchors
 * and its kinematics */
static void restore_start(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  cm_state_load(m, d, p->save, p->node_save);
  if (p->nanchor_save)
    memcpy(p->anchor, p->anchor_save, (size_t)p->nanchor_save * sizeof *p->anchor);
  p->nanchor = p->nanchor_save;
  cm_stage_kinematics(m, d, m->opt.timestep * (double)d->step);
}

/* undo the step: its start restored, the time spent counted. The contact list and the pairs
 * were the failed attempt's (the diagnosis has read them): none is kept, since those of the
 * state restored are not stored (an output frame of that state would have shown the failed
 * step's contacts, cut short at max_contacts or without forces, under the last good step) */
static void roll_back(const cmModel* m, cmData* d, double t_step) {
  restore_start(m, d);
  d->ncontact = 0;
  d->npair = 0;
  d->timer[CM_TIMER_STEP] += cm_clock() - t_step;
}

/* What a retried step forgets of its abandoned attempt: the solver's verdicts (the unconverged
 * solves, their warnings, the worst residual) and every warning it counted. The work stays
 * counted: solver_solves, solver_total_iter and solver_max_iter include the attempt's solves,
 * so that the mean iterations per solve is the cost of the run. */
typedef struct StepStart {
  int warning[CM_WARN_COUNT];
  long failed;
  double max_residual;
  long soft_rows; /* min_period's counts (laws.c): of the attempt kept, like the verdicts */
  double soft_factor;
} StepStart;

static void verdicts_save(const cmData* d, StepStart* s) {
  memcpy(s->warning, d->warning, sizeof s->warning);
  s->failed = d->solver_failed_solves;
  s->max_residual = d->solver_max_residual;
  s->soft_rows = d->soft_rows;
  s->soft_factor = d->soft_factor;
}

static void verdicts_load(cmData* d, const StepStart* s) {
  memcpy(d->warning, s->warning, sizeof s->warning);
  d->solver_failed_solves = s->failed;
  d->solver_max_residual = s->max_residual;
  d->soft_rows = s->soft_rows;
  d->soft_factor = s->soft_factor;
}

/* substeps: auto. The scan of a sub-step allows at most the fraction alpha of its length: the
 * rest of the step, `rest` such sub-steps from this one's start, is split into
 * ceil(rest / alpha) sub-steps, at most CM_SUBSTEPS_AUTO_MAX in the step (`taken` before this
 * one; a counted warning when the cap binds). Returns the new count of the rest, 0 to keep the
 * split. */
static int auto_split(cmData* d, const cmStabScan* s, int rest, int taken) {
  double a = cm_stability_alpha(s);
  if (a >= 1) return 0;
  double want = ceil(rest / a), room = CM_SUBSTEPS_AUTO_MAX - taken;
  if (want > room) {
    d->warning[CM_WARN_SUBSTEPS]++;
    want = room;
  }
  return want > rest ? (int)want : 0;
}

/* the state a step starts from is the caller's to write (cmData is public): refuse a
 * non-finite one before it reaches the broadphase, naming the body and the field */
static int state_finite(const cmModel* m, cmData* d) {
  static const char* const names[] = {"position (body_cpos)", "orientation (body_xquat)",
                                      "velocity (body_cvel)", "angular velocity (body_angvel)",
                                      "applied force and moment (body_xfrc)",
                                      "warm start (body_dv)"};
  for (int b = 0; b < m->nbody; b++) {
    const double* f[] = {d->body_cpos + 3 * b, d->body_xquat + 4 * b, d->body_cvel + 3 * b,
                         d->body_angvel + 3 * b, d->body_xfrc + 6 * b, d->body_dv + 6 * b};
    const int len[] = {3, 4, 3, 3, 6, 6};
    for (int k = 0; k < 6; k++)
      for (int i = 0; i < len[k]; i++)
        if (!isfinite(f[k][i])) {
          snprintf(d->message, sizeof d->message,
                   "body '%s': its %s[%d] is %g at the start of step %ld; %s non-finite by the "
                   "caller (cm_step never leaves one)",
                   m->body_name[b], names[k], i, f[k][i], d->step + 1,
                   k == 4 ? "it was set" : "the state was written");
          return 0;
        }
    const double* q = d->body_xquat + 4 * b;
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
      snprintf(d->message, sizeof d->message,
               "body '%s': its orientation (body_xquat) is the zero quaternion at the start of "
               "step %ld; an orientation is a non-zero quaternion w x y z (normalised by the step)",
               m->body_name[b], d->step + 1);
      return 0;
    }
  }
  for (size_t i = 0; i < 3 * (size_t)m->nnode; i++)
    if (!isfinite(d->node_pos[i]) || !isfinite(d->node_vel[i])) {
      int node = (int)(i / 3), b = 0;
      while (b + 1 < m->nbody && !(m->body_nnode[b] > 0 && node >= m->body_nodeadr[b] &&
                                   node < m->body_nodeadr[b] + m->body_nnode[b]))
        b++;
      snprintf(d->message, sizeof d->message,
               "body '%s': its node %d's %s[%d] is %g at the start of step %ld; the state was "
               "written non-finite by the caller (cm_step never leaves one)",
               m->body_name[b], node, isfinite(d->node_pos[i]) ? "velocity (node_vel)"
                                                                : "position (node_pos)",
               (int)(i % 3), isfinite(d->node_pos[i]) ? d->node_vel[i] : d->node_pos[i],
               d->step + 1);
      return 0;
    }
  return 1;
}

/* the message of a contact list beyond max_contacts, found in a `what` (step or cm_collide) */
static void limit_message(const cmModel* m, cmData* d, const char* what) {
  snprintf(d->message, sizeof d->message,
           "more than max_contacts = %ld contact points in one %s (%d body pairs in contact so "
           "far): deep overlaps or too fine meshes; raise scene.max_contacts if the machine has "
           "the memory",
           m->opt.max_contacts, what, d->npair);
}

cmStatus cm_step(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  if (!state_finite(m, d)) return CM_ERR_ARG;
  if (!cm_guard_start(m, d)) return CM_ERR_NUMERIC;
  double t_step = cm_clock();
  /* sub-step `sub` of nsub covers its share of the part [f0, 1] of the step; substeps: auto
   * starts with the whole step and splits the rest of it when a sub-step's rows need it */
  int autosub = m->opt.substeps == CM_SUBSTEPS_AUTO;
  int nsub = autosub ? 1 : m->opt.substeps, taken = 0;
  double f0 = 0, h = m->opt.timestep / nsub;
  cm_data_scratch_reset(d);
  /* the friction springs' stretches of the step's start, for a rollback (the solve swaps the
   * table, so the saved one may have to fit into the other buffer: room in both) */
  if (!cm_anchor_room(&p->anchor_save, &p->maxanchor_save, p->nanchor) ||
      !cm_anchor_room(&p->anchor_new, &p->maxanchor_new, p->nanchor)) {
    snprintf(d->message, sizeof d->message, "out of memory for %d friction anchors", p->nanchor);
    return CM_ERR_NOMEM;
  }
  cm_state_save(m, d, p->save, p->node_save);
  if (p->nanchor) memcpy(p->anchor_save, p->anchor, (size_t)p->nanchor * sizeof *p->anchor);
  p->nanchor_save = p->nanchor;
  d->message[0] = 0;
  p->limit_hit = 0;
  p->law_bad = 0;
  if (d->step == 0) {
    cm_energy_start(m, d);
    cm_depth_start(d);
  }
  StepStart start;
  verdicts_save(d, &start);
  int split = 1; /* the step's sub-steps multiplied by this after retries */
  for (int sub = 0; sub < nsub; sub++, taken++) {
    double t0 = m->opt.timestep * ((double)d->step + (f0 + (1 - f0) * sub / nsub));
    double t1 = m->opt.timestep * ((double)d->step + (f0 + (1 - f0) * (sub + 1) / nsub));
    if (sub + 1 == nsub) t1 = m->opt.timestep * ((double)d->step + 1);
    if (sub > 0) cm_data_scratch_rewind(d);
    TIMED(d, CM_TIMER_KINEMATICS, cm_stage_kinematics(m, d, t0));
    TIMED(d, CM_TIMER_BROADPHASE, cm_stage_broadphase(m, d));
    TIMED(d, CM_TIMER_NARROWPHASE, cm_stage_narrowphase(m, d));
    if (p->limit_hit) {
      limit_message(m, d, "step");
      roll_back(m, d, t_step);
      return CM_ERR_LIMIT;
    }
    /* min_period's counts before this sub-step's rows, for a split that builds them again */
    long soft_rows = d->soft_rows;
    double soft_factor = d->soft_factor;
    /* the law of the step: on a retry, its step damping and min_period are the attempt's before
     * the split (h * split), only the integration is finer (module comment) */
    TIMED(d, CM_TIMER_LAWS, cm_stage_laws(m, d, h * split));
    if (p->law_bad) { /* a user law's response out of its range: d->message says which */
      roll_back(m, d, t_step);
      return CM_ERR_ARG;
    }
    cmStabScan scan;
    cm_stability_scan(m, d, h, &scan);
    int rest = autosub ? auto_split(d, &scan, nsub - sub, taken) : 0;
    if (rest) {
      /* the rest of the step, from this sub-step's start, in `rest` sub-steps */
      f0 += (1 - f0) * sub / nsub;
      nsub = rest;
      sub = 0;
      h = m->opt.timestep * (1 - f0) / nsub;
      t1 = m->opt.timestep * ((double)d->step + (f0 + (1 - f0) / nsub));
      d->soft_rows = soft_rows;
      d->soft_factor = soft_factor;
      TIMED(d, CM_TIMER_LAWS, cm_stage_laws(m, d, h * split));
      cm_stability_scan(m, d, h, &scan);
    }
    if (cm_guard_explicit(m, d, h, &scan)) {
      roll_back(m, d, t_step);
      return CM_ERR_NUMERIC;
    }
    TIMED(d, CM_TIMER_FORCES, cm_stage_forces(m, d, h));
    long failed = d->solver_failed_solves;
    TIMED(d, CM_TIMER_SOLVE, cm_stage_solve(m, d, h));
    if (d->solver_failed_solves > failed && split < CM_RETRY_SPLIT_MAX) {
      /* an implicit solve did not converge: the step again from its start, in twice the
       * sub-steps (module comment) */
      split *= 2;
      d->solver_retries++;
      restore_start(m, d);
      verdicts_load(d, &start);
      p->limit_hit = 0;
      cm_data_scratch_rewind(d);
      f0 = 0;
      nsub = (autosub ? 1 : m->opt.substeps) * split;
      h = m->opt.timestep / nsub;
      sub = -1;
      taken = -1;
      continue;
    }
    TIMED(d, CM_TIMER_INTEGRATE, cm_stage_integrate(m, d, h, t1));
    TIMED(d, CM_TIMER_RECORD, cm_stage_record(m, d));
    int worst;
    double speed;
    if (cm_guard_check(m, d, &worst, &speed)) {
      cm_guard_diagnose(m, d, worst, speed, h);
      roll_back(m, d, t_step);
      return CM_ERR_NUMERIC;
    }
  }
  cm_stage_energy(m, d, h);
  cm_stage_depth(m, d);
  cm_stage_tunnel(m, d, h);
  d->step++;
  d->time = m->opt.timestep * (double)d->step;
  /* release the scratch now (and grow it if this step overflowed it), so that the next step
   * starts with a buffer that holds what this one needed */
  cm_data_scratch_reset(d);
  d->timer[CM_TIMER_STEP] += cm_clock() - t_step;
  return CM_OK;
}

cmStatus cm_collide(const cmModel* m, cmData* d) {
  /* a state cm_step would refuse (it went through as a silent CM_OK), and the contact limit
   * (the list was cut at max_contacts, CM_OK) */
  if (!state_finite(m, d)) return CM_ERR_ARG;
  cmDataPriv* p = cm_priv(d);
  p->limit_hit = 0;
  d->message[0] = 0;
  cm_data_scratch_reset(d);
  cm_stage_kinematics(m, d, d->time);
  cm_stage_broadphase(m, d);
  cm_stage_narrowphase(m, d);
  if (p->limit_hit) {
    limit_message(m, d, "cm_collide");
    d->ncontact = 0; /* not a list cut short */
    d->npair = 0;
    p->limit_hit = 0;
    return CM_ERR_LIMIT;
  }
  return CM_OK;
}
