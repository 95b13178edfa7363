/* Solver rows: the friction basis of a row and the rate of a row along a direction at the
 * current velocities (model/rows.h). */
#include <math.h>

#include "core/cm_math.h"
#include "model/rows.h"

/* an orthonormal tangent basis of n */
static void tangents(const double n[3], double t[2][3]) {
  double a[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.6) cm_v3_set(a, 0, 1, 0);
  cm_v3_cross(t[0], n, a);
  cm_v3_normalize(t[0]);
  cm_v3_cross(t[1], n, t[0]);
}

void cm_row_friction_basis(cmRow* r) {
  tangents(r->n, r->t);
}

double cm_row_rate(const cmModel* m, const cmData* d, const cmRow* r, const double dir[3]) {
  (void)m;
  double rate = 0, wxr[3];
  for (int k = 0; k < 2; k++) {
    int b = r->body[k];
    if (b < 0) continue; /* the world does not move */
    const double* rr = k ? r->rB : r->rA;
    cm_v3_cross(wxr, d->body_angvel + 3 * b, rr);
    double v = cm_v3_dot(dir, d->body_cvel + 3 * b) + cm_v3_dot(dir, wxr);
    rate += k ? -v : v;
  }
  return rate;
}
