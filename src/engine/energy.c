/* The energy monitor (docs/outputs.md, "Energy monitor"), run by cm_step after every step.
 *
 * Every law of comply dissipates or conserves energy: the compliant laws are springs with
 * dampers (damping >= 0), friction only opposes slip, and the implicit step (backward Euler with
 * the mid-step law) damps. So the total mechanical energy
 *
 *   E = kinetic + gravity potential - sum F_b . c_b (constant outer forces) + elastic energy
 *
 * can only fall, up to the discretisation error of a stable step, which is a small fraction of
 * the energy that moves. A step after which the bodies' energy exceeds the lowest E of the run by
 * more than CM_ENERGY_TOL of the largest kinetic energy so far has created energy: a law or
 * parameter that the integrator cannot represent (step_damping below 0.5 restitutes more than
 * it receives, an explicit law too stiff for the timestep, a deep overlap released at once). It
 * counts as CM_WARN_ENERGY and the first such step and the body that gained the most kinetic
 * energy in it are kept for the message; the reference then moves up to the new energy, so
 * that the count is the number of steps that created energy, not every step after one. The
 * reference is first taken at the end of the first step, elastic energy included: energy
 * stored in initial overlaps is the user's (comply run reports those overlaps), not the
 * integrator's.
 *
 * Elastic energy. Every built-in law is linear in the row's distance, f = (dist + play) / c
 * clamped at f <= 0 (area_compliant: c = 1/(ka A); linear: 1/stiffness; contact_time:
 * 1/(m_rep (pi/T)^2) with its play; joints: the stretch beyond the play), so a row stores
 * c f^2 / 2. The rows were built at the start of the last sub-step; their distance at its end is
 * extrapolated with the end velocities, dist + h y (the linearisation the implicit step solves
 * with).
 *
 * What is compared. The lowest total E of the run is the reference; what may not exceed it is
 * the energy of the bodies alone, Eb = E - elastic (kinetic and potential): energy created shows
 * as motion, and a spring holding energy it never received does not count. That happens at the
 * first step of a stiff contact (K h^2 / m >> 1): the contact is found after the bodies have
 * moved into each other by up to v h during a free step, and K (v h)^2 / 2 may be far more than
 * the kinetic energy (falling_boxes.yaml: 75 J of "elastic energy" against 3 J of kinetic energy
 * at first contact); the mid-step law does not return it (with step_damping >= 0.5), and Eb
 * shows that. The scale is the largest kinetic energy of the run, for the same reason.
 *
 * Not counted, so the monitor is off (energy_monitor = 0): prescribed bodies (their motion
 * works on what they touch), outer moments (no potential) and laws given as C functions (their
 * energy is unknown); and from the first step with a force applied through d->body_xfrc (the
 * caller may change it between steps: no potential), for the rest of the run. */
#include <math.h>

#include "core/cm_math.h"
#include "engine/engine.h"
#include "model/data_internal.h"
#include "model/fields.h"
#include "model/rows.h"

static int countable(const cmModel* m) {
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_motion[b] == CM_MOTION_PRESCRIBED) return 0;
    const double* M = m->body_moment + 3 * b;
    if (m->body_invmass[b] > 0 && (M[0] != 0 || M[1] != 0 || M[2] != 0)) return 0;
  }
  for (int r = 0; r < m->nrule; r++)
    if (m->rule_law_fn[r]) return 0;
  return 1;
}

/* kinetic energy of body b with com velocity v, orientation q and world angular velocity w */
static double body_kinetic(const cmModel* m, int b, const double v[3], const double q[4],
                           const double w[3]) {
  double wb[3], Iw[3];
  cm_quat_rotate_inv(wb, q, w);
  cm_m3_mulv(Iw, m->body_inertia + 9 * b, wb);
  return 0.5 * m->body_mass[b] * cm_v3_dot(v, v) + 0.5 * cm_v3_dot(wb, Iw);
}

/* kinetic + potential of gravity and the outer forces; *ke: the kinetic part */
static double body_energy(const cmModel* m, const cmData* d, double* ke) {
  double k, pe;
  cm_data_energy(m, d, &k, &pe);
  for (int b = 0; b < m->nbody; b++)
    if (m->body_invmass[b] > 0) pe -= cm_v3_dot(m->body_force + 3 * b, d->body_cpos + 3 * b);
  *ke = k;
  return k + pe;
}

/* elastic energy of the rows at the end of the step (rows of the last sub-step, of length h):
 * c f^2 / 2 for the spring force f at the distance dist + h y */
static double elastic_energy(const cmModel* m, const cmData* d, double h) {
  const cmDataPriv* p = cm_priv(d);
  double U = 0;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!(r->c > 0)) continue;
    double f = r->f + h * cm_row_rate(m, d, r, r->n) / r->c;
    if (f < 0) U += 0.5 * r->c * f * f;
  }
  return U;
}

void cm_energy_start(const cmModel* m, cmData* d) {
  d->energy_monitor = countable(m);
  d->energy = 0;
  d->energy_low = INFINITY; /* set at the end of the first step */
  d->energy_scale = 0;
  d->energy_growth = 0;
  d->energy_first_step = 0;
  d->energy_body = -1;
}

void cm_stage_energy(const cmModel* m, cmData* d, double h) {
  if (!d->energy_monitor) return;
  for (int b = 0; b < m->nbody; b++) {
    const double* x = d->body_xfrc + 6 * b;
    if (m->body_invmass[b] > 0 &&
        (x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0 || x[4] != 0 || x[5] != 0)) {
      d->energy_monitor = 0;
      return;
    }
  }
  double ke, U = elastic_energy(m, d, h);
  double Eb = body_energy(m, d, &ke), E = Eb + U;
  d->energy = E;
  if (ke > d->energy_scale) d->energy_scale = ke;
  if (isinf(d->energy_low)) { /* the first step: the reference, initial overlaps included */
    d->energy_low = E;
    return;
  }
  double growth = Eb - d->energy_low;
  /* rounding: E is a sum of terms as large as the gravity potential; and the step's own
   * gravity error: a symplectic Euler step of free fall loses m g^2 h^2 / 2, which a stiff
   * contact gives back when it sets the body down where it started (a bar resting on a ridge
   * from t = 0: 2.9e-4 J, "100 %" of its largest kinetic energy, which is that of its first
   * step). Twice that, summed over the bodies, is not counted. */
  double noise = 1e-12 * (fabs(E) + fabs(d->energy_low));
  double g2 = cm_v3_dot(m->opt.gravity, m->opt.gravity), H = m->opt.timestep;
  for (int b = 0; b < m->nbody; b++)
    if (m->body_invmass[b] > 0) noise += m->body_mass[b] * g2 * H * H;
  if (growth > noise && d->energy_scale > 0) {
    double rel = growth / d->energy_scale;
    if (rel > d->energy_growth) d->energy_growth = rel;
    if (rel > CM_ENERGY_TOL) {
      d->warning[CM_WARN_ENERGY]++;
      if (!d->energy_first_step) {
        /* the step this is (cm_step counts it after this stage) and its biggest gainer */
        const cmDataPriv* p = cm_priv(d);
        double best = -INFINITY;
        for (int b = 0; b < m->nbody; b++) {
          if (!(m->body_invmass[b] > 0)) continue;
          const double* s = p->save + CM_NSTATE * b;
          double gain = body_kinetic(m, b, d->body_cvel + 3 * b, d->body_xquat + 4 * b,
                                     d->body_angvel + 3 * b) -
                        body_kinetic(m, b, s + 7, s + 3, s + 10);
          if (gain > best) {
            best = gain;
            d->energy_body = b;
          }
        }
        d->energy_first_step = d->step + 1;
      }
      d->energy_low = Eb; /* count each creation once, not every step after it */
    }
  }
  if (E < d->energy_low) d->energy_low = E;
}
