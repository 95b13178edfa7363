/* Conjugate gradients on the block-sparse store of block_cholesky.h, for the islands whose
 * Hessian a factorisation cannot afford: those with the nodes of deformable bodies.
 *
 * A 3D finite-element mesh fills its Cholesky factor like a 3D grid: the separator fronts are
 * dense, and 729 nodes (an 8 x 8 x 8 cell block) already cost 0.3 s per factorisation in 6x6
 * blocks, which grows as n^2. The Newton system of a time step is M + h^2 K (+ the contacts'
 * terms), dominated by the lumped mass for steps near the elements' time scale: its condition
 * number is about 1 + (omega_max h)^2, and the contact terms sit on the diagonal blocks of the
 * nodes they touch (a rigid body's block couples them). Block Jacobi (the 6x6 diagonal blocks,
 * factorised once per Newton iteration) then leaves conjugate gradients a few tens of
 * iterations, each one sparse product: linear in the mesh.
 *
 * Deterministic: fixed loop orders, no reductions across threads. */
#include <math.h>
#include <string.h>

#include "core/linalg.h"
#include "solve/block_cholesky.h"

void cm_bchol_matvec(const cmBlockChol* c, const double* x, double* y) {
  int n = c->n;
  for (int i = 0; i < n; i++) {
    const double* D = c->ad + 36 * (size_t)i;
    const double* xi = x + 6 * (size_t)i;
    double* yi = y + 6 * (size_t)i;
    for (int r = 0; r < 6; r++) {
      double s = 0;
      for (int k = 0; k < 6; k++)
        s += D[6 * r + k] * xi[k];
      yi[r] = s;
    }
  }
  for (int i = 0; i < n; i++) {
    const double* xi = x + 6 * (size_t)i;
    double* yi = y + 6 * (size_t)i;
    int ri = c->small && c->small[i] ? 3 : 6;
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a]; /* block (i, j), j < i; its transpose is block (j, i) */
      const double* B = c->ax + 36 * (size_t)a;
      const double* xj = x + 6 * (size_t)j;
      double* yj = y + 6 * (size_t)j;
      int cj = c->small && c->small[j] ? 3 : 6;
      for (int r = 0; r < ri; r++) {
        double s = 0;
        for (int k = 0; k < cj; k++) {
          s += B[6 * r + k] * xj[k];
          yj[k] += B[6 * r + k] * xi[r];
        }
        yi[r] += s;
      }
    }
  }
}

/* z = D^-1 r with the Cholesky factors Ld of the diagonal blocks; a small block (a node:
 * [[A, 0], [0, I]], so its factor is [[chol A, 0], [0, I]]) solves its 3x3 and copies the rest */
static void precondition(const cmBlockChol* c, const double* Ld, const double* r, double* z) {
  for (int i = 0; i < c->n; i++) {
    const double* L = Ld + 36 * (size_t)i;
    const double* ri = r + 6 * (size_t)i;
    double* zi = z + 6 * (size_t)i;
    if (c->small && c->small[i]) {
      double y0 = ri[0] / L[0];
      double y1 = (ri[1] - L[6] * y0) / L[7];
      double y2 = (ri[2] - L[12] * y0 - L[13] * y1) / L[14];
      zi[2] = y2 / L[14];
      zi[1] = (y1 - L[13] * zi[2]) / L[7];
      zi[0] = (y0 - L[6] * zi[1] - L[12] * zi[2]) / L[0];
      zi[3] = ri[3];
      zi[4] = ri[4];
      zi[5] = ri[5];
      continue;
    }
    for (int k = 0; k < 6; k++)
      zi[k] = ri[k];
    cm_chol_solve(L, 6, zi);
  }
}

static double dot(const double* a, const double* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

int cm_bchol_pcg(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                 double* work) {
  int n = c->n;
  size_t m = 6 * (size_t)n;
  double *r = work, *z = work + m, *p = work + 2 * m, *Ld = work + 3 * m;
  /* the preconditioner: the Cholesky factors of the diagonal blocks */
  for (int i = 0; i < n; i++)
    if (!cm_chol_factor(c->ad + 36 * (size_t)i, Ld + 36 * (size_t)i, 6)) return -1;
  memset(x, 0, m * sizeof *x);
  memcpy(r, b, m * sizeof *r);
  double bn = sqrt(dot(b, b, m));
  if (!(bn > 0)) return 0;
  precondition(c, Ld, r, z);
  memcpy(p, z, m * sizeof *p);
  double rz = dot(r, z, m);
  int it = 0;
  while (it < maxit) {
    double* Ap = z; /* z is free until the next preconditioning */
    cm_bchol_matvec(c, p, Ap);
    double pAp = dot(p, Ap, m);
    if (!(pAp > 0)) return -2; /* not positive definite along p */
    double alpha = rz / pAp;
    for (size_t k = 0; k < m; k++) {
      x[k] += alpha * p[k];
      r[k] -= alpha * Ap[k];
    }
    it++;
    if (sqrt(dot(r, r, m)) <= rtol * bn) break;
    precondition(c, Ld, r, z);
    double rz1 = dot(r, z, m), beta = rz1 / rz;
    rz = rz1;
    for (size_t k = 0; k < m; k++)
      p[k] = z[k] + beta * p[k];
  }
  return it;
}
