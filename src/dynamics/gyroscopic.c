/* Implicit gyroscopic update that conserves angular momentum and energy exactly.
 *
 * Torque-free rotation in body axes obeys dL/dt = -w x L, L = J w. The implicit midpoint rule
 *
 *   L2 - L1 = -h wm x Lm,      wm = (w1 + w2)/2,  Lm = J wm = (L1 + L2)/2
 *
 * is equivalent to (I + h/2 [wm]x) L2 = (I - h/2 [wm]x) L1, i.e. L2 = cay(-h wm) L1 with the
 * Cayley map cay(A) = (I - A/2)^-1 (I + A/2), a rotation by 2 atan(h|wm|/2) about wm. Hence
 *   - |L| is conserved, and so is the energy E = L . J^-1 L / 2 (a quadratic invariant:
 *     E2 - E1 = (L2 - L1) . wm = 0);
 *   - if the orientation is advanced by the same Cayley rotation, R2 = R1 cay(h wm) -- which is
 *     exactly what q2 = normalise(q1 (1, h wm / 2)) does -- the world angular momentum
 *     R2 L2 = R1 L1 is conserved to rounding;
 *   - the update is implicit in w2: stable for fast spin about any axis, and the trajectory
 *     stays on the intersection of the momentum sphere and the energy ellipsoid, so the
 *     intermediate-axis flip happens where it should.
 *
 * w2 solves r(w2) = J w2 - L1 + h wm x J wm = 0 by Newton's method with the Jacobian
 *   dr/dw2 = J + (h/2) ( [wm]x J - [J wm]x ).
 * An applied torque enters L1 as the impulse h R^T tau before the gyroscopic update. */
#include <math.h>

#include "core/cm_math.h"
#include "dynamics/dynamics.h"

static void skew(double S[9], const double v[3]) {
  S[0] = 0;
  S[1] = -v[2];
  S[2] = v[1];
  S[3] = v[2];
  S[4] = 0;
  S[5] = -v[0];
  S[6] = -v[1];
  S[7] = v[0];
  S[8] = 0;
}

int cm_gyro_implicit(const double J[9], const double Jinv[9], const double L1[3], double h,
                     double w[3], double wm[3]) {
  double w1[3];
  cm_m3_mulv(w1, Jinv, L1);
  cm_v3_copy(w, w1); /* guess: no precession */
  cm_v3_copy(wm, w1);
  double scale = cm_v3_norm(L1);
  if (scale == 0) return 0;
  for (int it = 1; it <= 30; it++) {
    double Jw[3], Jwm[3], g[3], r[3];
    for (int k = 0; k < 3; k++) wm[k] = 0.5 * (w1[k] + w[k]);
    cm_m3_mulv(Jw, J, w);
    cm_m3_mulv(Jwm, J, wm);
    cm_v3_cross(g, wm, Jwm);
    for (int k = 0; k < 3; k++) r[k] = Jw[k] - L1[k] + h * g[k];
    if (cm_v3_norm(r) <= 1e-15 * scale) return it - 1;
    /* Newton step */
    double Swm[9], SJwm[9], SJ[9], D[9], Dinv[9], dw[3];
    skew(Swm, wm);
    skew(SJwm, Jwm);
    cm_m3_mul(SJ, Swm, J);
    for (int k = 0; k < 9; k++) D[k] = J[k] + 0.5 * h * (SJ[k] - SJwm[k]);
    if (!cm_m3_inverse(Dinv, D)) return -1;
    cm_m3_mulv(dw, Dinv, r);
    cm_v3_sub(w, w, dw);
    if (!cm_v3_isfinite(w)) return -1;
  }
  for (int k = 0; k < 3; k++) wm[k] = 0.5 * (w1[k] + w[k]);
  return -1;
}
