/* Stage 6, solve: velocities at the end of the step.
 *
 * Without contacts both integrators reduce to the same update of every moving body:
 *   v+ = v + h f / m                                       (symplectic Euler, translation)
 *   L1 = J (R^T w) + h R^T tau;  (w+, wm) = gyro(J, L1, h)   (implicit midpoint, gyroscopic.c)
 * with J the body-frame inertia about the com. The orientation must turn by the midpoint
 * velocity wm, so the difference R (wm - w+) is kept in spin[] for the integrate stage: any
 * velocity change added later in the step (contact impulses) then moves the orientation by the
 * same amount as the end velocity, while the free rotation stays exactly momentum- and
 * energy-conserving; R (L1 - J w+) is kept in lgyro[], so that the integrate stage can give the
 * body the world angular momentum it ends with (integrate.c). Then the implicit compliant contact
 * solve (solve_implicit.c) turns the free velocities into the end velocities of every body with
 * implicit contacts. */
#include "solve/solve.h"
#include "core/cm_math.h"
#include "dynamics/dynamics.h"
#include "model/data_internal.h"

void cm_stage_solve(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  /* the velocities at the start of the step (v, w per body): the implicit solve measures the
   * slip of its friction rows at the start of the step from them */
  double* v0 = cm_arena_alloc(&p->arena, (size_t)m->nbody * 6 * sizeof *v0);
  if (v0)
    for (int b = 0; b < m->nbody; b++) {
      cm_v3_copy(v0 + 6 * b, d->body_cvel + 3 * b);
      cm_v3_copy(v0 + 6 * b + 3, d->body_angvel + 3 * b);
    }
  for (int b = 0; b < m->nbody; b++) {
    /* a deformable body's nodes get their free velocities in the implicit solve */
    if (m->body_invmass[b] == 0 || m->body_motion[b] == CM_MOTION_DEFORMABLE) continue;
    double* v = d->body_cvel + 3 * b;
    cm_v3_madd(v, v, p->force + 3 * b, h * m->body_invmass[b]);
    /* rotation in body axes */
    const double* J = m->body_inertia + 9 * b;
    double R[9], wb[3], L1[3], tb[3], w[3], wm[3], dw[3];
    cm_quat_to_mat(R, d->body_xquat + 4 * b);
    cm_m3_mulvt(wb, R, d->body_angvel + 3 * b);
    cm_m3_mulv(L1, J, wb);
    cm_m3_mulvt(tb, R, p->torque + 3 * b);
    cm_v3_madd(L1, L1, tb, h);
    if (cm_gyro_implicit(J, m->body_invinertia + 9 * b, L1, h, w, wm) < 0)
      d->warning[CM_WARN_GYRO]++;
    /* end velocity and midpoint correction, world axes of the start of the step */
    cm_m3_mulv(d->body_angvel + 3 * b, R, w);
    cm_v3_sub(dw, wm, w);
    cm_m3_mulv(p->spin + 3 * b, R, dw);
    /* the angular momentum L1 - J w that the rotation turns into the end axes (integrate.c) */
    double Jw[3], dl[3];
    cm_m3_mulv(Jw, J, w);
    cm_v3_sub(dl, L1, Jw);
    cm_m3_mulv(p->lgyro + 3 * b, R, dl);
  }
  cm_solve_implicit(m, d, h, v0);
}
