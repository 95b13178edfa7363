/* The numerical guard (SPEC 8 exit status 1; issue "Reliability").
 *
 * After every sub-step the new state must be finite and every moving body slower than
 * opt.max_speed (the speed of its centre of mass, or its angular speed times its radius, the
 * half diagonal of its bounding box). Otherwise the step is undone by the caller and the run
 * stops; this file writes the diagnosis into d->message: the fastest (or non-finite) body, the
 * contact pair that pushed it hardest in the failed step, and the likely cause estimated from
 * that pair's rows (or that joint's row):
 *  - explicit rows (symplectic Euler) are stable only for w h < 2 (sqrt(1 + zeta^2) - zeta),
 *    w = sqrt(K / m_eff) with K the pair's total stiffness (1/compliance summed over its rows),
 *    m_eff the effective mass at the contact point along the normal (rotation included) and
 *    zeta the damping ratio (stability.c derives it);
 *  - implicit rows with D/K < h/2 (step_damping < 0.5 without stiffness damping) oscillate from
 *    step to step (area-compliant-contact.txt);
 *  - without a contact: an outer force or moment too large for the body's mass or inertia;
 *  - a body, or a deformable body's node, already faster than max_speed when the step begins
 *    (its initial velocity, or one the caller wrote): the state given is the cause, so the step
 *    is refused before it runs (cm_guard_start) and the message says so.
 *
 * Energy growth. The implicit contact step is dissipative (the mid-step law damps, D/K >= 0),
 * so only explicit rows can pump energy into a scene, and they do so exactly when the step does
 * not resolve them: symplectic Euler on a linear spring is unstable for w h > 2. That is checked
 * a priori, after the laws stage, and the step refused before anything explodes. (A per-step
 * energy balance was tried and rejected: explicit contacts legitimately return more kinetic
 * energy in their last step than their stored 1/2 K x^2, and prescribed bodies do work.)
 * The a priori check refuses a sub-step only when some group of rows is surely unstable
 * (stability.c: its lambda, a lower bound of the scene's, reaches 1). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comply/law.h"
#include "core/cm_math.h"
#include "engine/engine.h"
#include "model/data_internal.h"

static double body_radius(const cmModel* m, int b) {
  const double* box = m->geom_aabb + 6 * m->body_geom[b];
  double e[3] = {box[3] - box[0], box[4] - box[1], box[5] - box[2]};
  return isfinite(e[0]) ? 0.5 * cm_v3_norm(e) : 0;
}

int cm_guard_check(const cmModel* m, const cmData* d, int* worst, double* speed) {
  int bad = 0;
  *worst = -1;
  *speed = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_invmass[b] == 0) {
      /* fixed and prescribed bodies move as given, at any speed; but a prescribed body whose
       * position or orientation overflowed (a velocity of 1e308 m/s) is a non-finite state */
      if (m->body_motion[b] == CM_MOTION_PRESCRIBED &&
          !(cm_v3_isfinite(d->body_cpos + 3 * b) && isfinite(d->body_xquat[4 * b]) &&
            cm_v3_isfinite(d->body_xquat + 4 * b + 1))) {
        bad = 1;
        *worst = b;
        *speed = INFINITY;
      }
      continue;
    }
    double v = cm_v3_norm(d->body_cvel + 3 * b);
    double w = cm_v3_norm(d->body_angvel + 3 * b) * body_radius(m, b);
    double s = v > w ? v : w;
    int finite = cm_v3_isfinite(d->body_cpos + 3 * b) && cm_v3_isfinite(d->body_cvel + 3 * b) &&
                 cm_v3_isfinite(d->body_angvel + 3 * b) && isfinite(d->body_xquat[4 * b]) &&
                 cm_v3_isfinite(d->body_xquat + 4 * b + 1);
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      /* its fastest node; every node finite */
      s = 0;
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
        double vn = cm_v3_norm(d->node_vel + 3 * (size_t)n);
        if (!(vn <= s)) s = vn;
        finite = finite && cm_v3_isfinite(d->node_pos + 3 * (size_t)n);
      }
    }
    if (!finite) s = INFINITY;
    if (!(s <= m->opt.max_speed)) bad = 1;
    if (*worst < 0 || !(s <= *speed)) {
      *worst = b;
      *speed = s;
    }
  }
  return bad;
}

/* A moving body (or a deformable body's node) already faster than max_speed when a step begins:
 * the given state is the cause, not the step, so the step is refused before it runs (after it,
 * contacts or elements may have slowed the body down, or the state overflowed, and the
 * diagnosis would blame the step). It runs before every step, so the speeds are compared by
 * their squares (no root) and only a speed beyond max_speed is measured, by hypot: 1e300 m/s
 * is 1e300, not the inf of its square's root. */
static double speed3(const double* v) {
  return hypot(hypot(v[0], v[1]), v[2]);
}

/* |v| s <= vmax surely (vmax2 = vmax^2), without a root; an overflowed square is not sure */
static int slow_enough(const double* v, double s, double vmax2) {
  double q = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * (s * s);
  return q <= vmax2 && q < INFINITY;
}

int cm_guard_start(const cmModel* m, cmData* d) {
  double vmax = m->opt.max_speed, vmax2 = vmax * vmax;
  int body = -1, node = -1;
  double v = 0, w = 0, r = 0;
  for (int b = 0; b < m->nbody && body < 0; b++) {
    if (m->body_invmass[b] == 0) continue; /* fixed and prescribed: any speed */
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
        const double* vn = d->node_vel + 3 * (size_t)n;
        if (slow_enough(vn, 1, vmax2) || !((v = speed3(vn)) > vmax)) continue;
        body = b;
        node = n - m->body_nodeadr[b];
        break;
      }
      continue;
    }
    const double *cv = d->body_cvel + 3 * b, *av = d->body_angvel + 3 * b;
    r = body_radius(m, b);
    if (slow_enough(cv, 1, vmax2) && slow_enough(av, r, vmax2)) continue;
    v = speed3(cv);
    w = speed3(av) * r;
    if (v > vmax || w > vmax) body = b;
  }
  if (body < 0) return 1;
  char when[64] = "";
  if (d->step > 0) snprintf(when, sizeof when, " at the start of step %ld", d->step + 1);
  const char* first = d->step == 0 ? "initial " : "";
  if (node >= 0)
    snprintf(d->message, sizeof d->message,
             "%svelocity of node %d of deformable body '%s'%s is %.6g m/s, above max_speed "
             "%.6g m/s: lower the body's (or the node's) velocity or raise scene.max_speed",
             first, node, m->body_name[body], when, v, vmax);
  else if (v > vmax && v >= w)
    snprintf(d->message, sizeof d->message,
             "%svelocity of body '%s'%s is %.6g m/s (its centre of mass), above max_speed %.6g "
             "m/s: lower the body's velocity or raise scene.max_speed",
             first, m->body_name[body], when, v, vmax);
  else
    snprintf(d->message, sizeof d->message,
             "%sangular velocity of body '%s'%s times its radius %.6g m is %.6g m/s, above "
             "max_speed %.6g m/s: lower the body's angular_velocity or raise scene.max_speed",
             first, m->body_name[body], when, r, w, vmax);
  return 0;
}

/* "; pair A <-> B (rule 1, contact_time, explicit)" or "; joint 0 A <-> world (...)" */
static int row_name(const cmModel* m, const cmData* d, const cmRow* r, char* out, size_t sz) {
  int a = r->body[0], b = r->body[1];
  int rule = r->joint >= 0 ? m->joint_rule[r->joint] : r->pair >= 0 ? d->pair[r->pair].rule : -1;
  const char* law = rule >= 0 ? cm_law_name(m->rule[rule].law) : "?";
  char what[32] = "pair";
  if (r->joint >= 0) snprintf(what, sizeof what, "joint %d", r->joint);
  return snprintf(out, sz, "; %s %s <-> %s (rule %d, %s, %s)", what,
                  a >= 0 ? m->body_name[a] : "world", b >= 0 ? m->body_name[b] : "world", rule, law,
                  r->implicit ? "implicit" : "explicit");
}

/* ": unstable explicit row: w h = ... >= limit ...; use ..." for a group with lambda >= 1 */
static void unstable_advice(const cmModel* m, const cmStability* g, int implicit, char* out,
                            size_t sz) {
  /* g->h is the sub-step: the advice is for the scene's timestep, split into nsub sub-steps now
   * (until 2026-12-08 it divided the sub-step, advising ">= 2" sub-steps at 16 where 21 hold) */
  double ts = m->opt.timestep, nsub = fmax(1, round(ts / g->h));
  int n = snprintf(out, sz,
                   ": %s unstable at h = %.3g s: w h = %.3g >= %.3g, the limit "
                   "2 (sqrt(1 + zeta^2) - zeta) for zeta %.3g, with the effective mass %.3g kg "
                   "at its point (rotation included); use substeps: auto (or >= %.0f), a timestep "
                   "below %.3g s%s",
                   implicit ? "implicit joint (implicit along its link, explicit across it: the "
                              "solve keeps the link's direction of the start of the step)"
                            : "explicit row",
                   g->h, g->omega_h, g->limit, g->zeta, g->m_eff, ceil(ts / g->h_max),
                   g->h_max * nsub, implicit ? "" : ", integration: implicit");
  if (n < 0 || (size_t)n >= sz) return;
  const cmRuleDef* rule = g->rule >= 0 ? &m->rule[g->rule] : NULL;
  if (g->contact_time_min > 0)
    n += snprintf(out + n, sz - (size_t)n, ", contact_time > %.3g s", g->contact_time_min);
  if (n < 0 || (size_t)n >= sz) return;
  /* (not for a joint: with mass: effective its stiffness along the stretch is that of the
   * heaviest direction, and it rings across it as with min: stability.c, joint_invmass_max) */
  if (rule && g->contact_time_min > 0 && rule->mass == CM_REP_MASS_MIN && g->joint < 0)
    snprintf(out + n, sz - (size_t)n, " or mass: effective");
}

void cm_guard_diagnose(const cmModel* m, cmData* d, int body, double speed, double h) {
  const cmDataPriv* p = cm_priv(d);
  char* out = d->message;
  size_t sz = sizeof d->message;
  if (m->body_invmass[body] == 0) { /* a prescribed body's pose overflowed (cm_guard_check) */
    snprintf(out, sz,
             "prescribed body '%s': its position or orientation became non-finite at step %ld "
             "(its velocity %.6g m/s and angular velocity %.6g rad/s carry it beyond the range "
             "of a double): give it a velocity and a duration that keep it in the scene",
             m->body_name[body], d->step + 1, cm_v3_norm(d->body_cvel + 3 * body),
             cm_v3_norm(d->body_angvel + 3 * body));
    return;
  }
  int n = !isfinite(speed)
              ? snprintf(out, sz, "body '%s': the state became non-finite", m->body_name[body])
          : speed > m->opt.max_speed
              ? snprintf(out, sz, "body '%s': speed %.6g m/s > max_speed %.6g m/s",
                         m->body_name[body], speed, m->opt.max_speed)
              : snprintf(out, sz, "body '%s' (speed %.3g m/s)", m->body_name[body], speed);
  if (n < 0 || (size_t)n >= sz) return;
  /* the pair that pushed the body hardest */
  int best = -1;
  double fmax = -1;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (r->body[0] != body && r->body[1] != body) continue;
    double f = fabs(r->lambda) + fabs(r->f);
    if (!(f <= fmax) || best < 0) {
      fmax = f;
      best = k;
    }
  }
  if (best < 0) {
    snprintf(out + n, sz - (size_t)n,
             "; no contact acts on it: an outer force or moment too large for its mass or "
             "inertia, or a prescribed body driving it");
    return;
  }
  /* the group of rows (the pair's, or the joint's) of that row */
  int first = best;
  while (first > 0 && p->row[first - 1].pair == p->row[best].pair &&
         p->row[first - 1].joint == p->row[best].joint &&
         p->row[first - 1].body[0] == p->row[best].body[0] &&
         p->row[first - 1].body[1] == p->row[best].body[1])
    first--;
  const cmRow* r = &p->row[best];
  n += row_name(m, d, r, out + n, sz - (size_t)n);
  if (n < 0 || (size_t)n >= sz) return;
  cmStability g;
  /* (an implicit joint is judged as the scan judges it: across its link, undamped) */
  int ijoint = r->implicit && r->joint >= 0;
  cm_stability_group(m, d, first, h, r->implicit && !ijoint, &g);
  if ((!r->implicit || ijoint) && g.lambda >= 1) {
    unstable_advice(m, &g, r->implicit, out + n, sz - (size_t)n);
  } else if (r->implicit && r->c > 0 && r->D * r->c < 0.5 * h) {
    snprintf(out + n, sz - (size_t)n,
             ": damping time D/K = %.3g s < h/2 = %.3g s (w h = %.3g): stiff contacts oscillate "
             "from step to step; raise step_damping to >= 0.5",
             r->D * r->c, 0.5 * h, g.omega_h);
  } else if (!r->implicit) {
    snprintf(out + n, sz - (size_t)n,
             ": w h = %.3g within the explicit limit %.3g (effective mass %.3g kg); deep initial "
             "overlap or a prescribed body driving the contact? (comply check reports overlaps "
             "at t = 0)",
             g.omega_h, g.limit, g.m_eff);
  } else {
    snprintf(out + n, sz - (size_t)n,
             ": w h = %.3g; deep initial overlap or a prescribed body driving the contact? "
             "(comply check reports overlaps at t = 0)",
             g.omega_h);
  }
}

int cm_guard_explicit(const cmModel* m, cmData* d, double h, const cmStabScan* s) {
  const cmDataPriv* p = cm_priv(d);
  if (s->worst < 0 || !(s->low >= 1)) return 0;
  const cmRow* r = &p->row[s->worst];
  int b = r->body[0] >= 0 && m->body_invmass[r->body[0]] > 0 ? r->body[0] : r->body[1];
  char* out = d->message;
  size_t sz = sizeof d->message;
  int n = snprintf(out, sz, "body '%s' (speed %.3g m/s)", m->body_name[b],
                   cm_v3_norm(d->body_cvel + 3 * b));
  if (n < 0 || (size_t)n >= sz) return 1;
  n += row_name(m, d, r, out + n, sz - (size_t)n);
  if (n < 0 || (size_t)n >= sz) return 1;
  cmStability g;
  cm_stability_group(m, d, s->worst, h, 0, &g);
  if (g.lambda < 1) {
    /* unstable together only (stability.c, coupled_bound): lambda(alpha h) <= alpha lambda(h) */
    double ts = m->opt.timestep, nsub = fmax(1, round(ts / h));
    snprintf(out + n, sz - (size_t)n,
             ": explicit rows unstable together at h = %.3g s: the rows on the bodies they share "
             "reach lambda = %.3g >= 1 (each group alone is below 1: this one %.3g, w h = %.3g "
             "against its limit %.3g); use substeps: auto (or >= %.0f), integration: implicit, "
             "or softer or longer contacts",
             h, s->low, g.lambda, g.omega_h, g.limit, ceil(nsub * s->low));
    return 1;
  }
  unstable_advice(m, &g, r->implicit, out + n, sz - (size_t)n);
  return 1;
}
