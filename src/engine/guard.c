/* The numerical guard (SPEC 8 exit status 1; issue "Reliability").
 *
 * After every sub-step the new state must be finite and every moving body slower than
 * opt.max_speed (the speed of its centre of mass, or its angular speed times its radius, the
 * half diagonal of its bounding box). Otherwise the step is undone by the caller and the run
 * stops; this file writes the diagnosis into d->message: the fastest (or non-finite) body, the
 * contact pair that pushed it hardest in the failed step, and the likely cause estimated from
 * that pair's rows:
 *  - explicit rows (symplectic Euler) are stable only for w h < 2, w = sqrt(K/m) with K the
 *    pair's total stiffness (1/compliance summed over its rows) and m the smaller finite mass;
 *  - implicit rows with D/K < h/2 (step_damping < 0.5 without stiffness damping) oscillate from
 *    step to step (area-compliant-contact.txt);
 *  - without a contact: an outer force or moment too large for the body's mass or inertia.
 *
 * Energy growth. The implicit contact step is dissipative (the mid-step law damps, D/K >= 0),
 * so only explicit rows can pump energy into a scene, and they do so exactly when the step does
 * not resolve them: symplectic Euler on a linear spring is unstable for w h > 2. That is checked
 * a priori, after the laws stage, and the step refused before anything explodes. (A per-step
 * energy balance was tried and rejected: explicit contacts legitimately return more kinetic
 * energy in their last step than their stored 1/2 K x^2, and prescribed bodies do work.) */
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
    if (m->body_invmass[b] == 0) continue;
    double v = cm_v3_norm(d->body_cvel + 3 * b);
    double w = cm_v3_norm(d->body_angvel + 3 * b) * body_radius(m, b);
    double s = v > w ? v : w;
    int finite = cm_v3_isfinite(d->body_cpos + 3 * b) && cm_v3_isfinite(d->body_cvel + 3 * b) &&
                 cm_v3_isfinite(d->body_angvel + 3 * b) && isfinite(d->body_xquat[4 * b]) &&
                 cm_v3_isfinite(d->body_xquat + 4 * b + 1);
    if (!finite) s = INFINITY;
    if (!(s <= m->opt.max_speed)) bad = 1;
    if (*worst < 0 || !(s <= *speed)) {
      *worst = b;
      *speed = s;
    }
  }
  return bad;
}

void cm_guard_diagnose(const cmModel* m, cmData* d, int body, double speed, double h) {
  const cmDataPriv* p = cm_priv(d);
  char* out = d->message;
  size_t sz = sizeof d->message;
  int n = !isfinite(speed)
              ? snprintf(out, sz, "body '%s': the state became non-finite", m->body_name[body])
          : speed > m->opt.max_speed
              ? snprintf(out, sz, "body '%s': speed %.3g m/s > max_speed %.3g m/s",
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
  const cmRow* r = &p->row[best];
  int a = r->body[0], b = r->body[1];
  /* the pair's total stiffness and the smaller finite mass */
  double K = 0, mass = INFINITY;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* q = &p->row[k];
    if (q->pair == r->pair && q->body[0] == a && q->body[1] == b && q->c > 0) K += 1 / q->c;
  }
  for (int s = 0; s < 2; s++) {
    int bb = r->body[s];
    if (bb >= 0 && m->body_invmass[bb] > 0 && m->body_mass[bb] < mass) mass = m->body_mass[bb];
  }
  double w = sqrt(K / mass), wh = w * h;
  int rule = r->pair >= 0 ? d->pair[r->pair].rule : -1;
  const char* law = rule >= 0 ? cm_law_name(m->rule[rule].law) : "joint";
  n += snprintf(out + n, sz - (size_t)n, "; pair %s <-> %s (rule %d, %s, %s)",
                a >= 0 ? m->body_name[a] : "world", b >= 0 ? m->body_name[b] : "world", rule, law,
                r->implicit ? "implicit" : "explicit");
  if (n < 0 || (size_t)n >= sz) return;
  if (!r->implicit && wh > 2) {
    snprintf(out + n, sz - (size_t)n,
             ": contact too stiff for the step: w h = %.3g > 2; use integration: implicit, "
             "or a step below %.3g s",
             wh, 1.0 / w);
  } else if (r->implicit && r->c > 0 && r->D * r->c < 0.5 * h) {
    snprintf(out + n, sz - (size_t)n,
             ": damping time D/K = %.3g s < h/2 = %.3g s (w h = %.3g): stiff contacts oscillate "
             "from step to step; raise step_damping to >= 0.5",
             r->D * r->c, 0.5 * h, wh);
  } else {
    snprintf(out + n, sz - (size_t)n,
             ": w h = %.3g; deep initial overlap or a prescribed body driving the contact? "
             "(comply check reports overlaps at t = 0)",
             wh);
  }
}

int cm_guard_explicit(const cmModel* m, cmData* d, double h) {
  const cmDataPriv* p = cm_priv(d);
  /* the laws stage writes the rows of a pair (and of a joint) one after the other: one pass
   * over runs of rows with the same pair and bodies, O(rows) per step */
  for (int k = 0; k < p->nrow;) {
    const cmRow* r = &p->row[k];
    double K = 0;
    int j = k;
    for (; j < p->nrow; j++) {
      const cmRow* q = &p->row[j];
      if (q->pair != r->pair || q->body[0] != r->body[0] || q->body[1] != r->body[1]) break;
      if (!q->implicit && q->c > 0) K += 1 / q->c;
    }
    k = j;
    if (!(K > 0)) continue;
    /* the run's total explicit stiffness against the smaller finite mass */
    double mass = INFINITY;
    for (int s = 0; s < 2; s++) {
      int b = r->body[s];
      if (b >= 0 && m->body_invmass[b] > 0 && m->body_mass[b] < mass) mass = m->body_mass[b];
    }
    if (sqrt(K / mass) * h > 2) {
      int b = r->body[0] >= 0 && m->body_invmass[r->body[0]] > 0 ? r->body[0] : r->body[1];
      cm_guard_diagnose(m, d, b, cm_v3_norm(d->body_cvel + 3 * b), h);
      return 1;
    }
  }
  return 0;
}
