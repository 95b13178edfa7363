/* Conjugate gradients on the block-sparse store of block_cholesky.h, for the islands whose
 * Hessian a factorisation cannot afford: those with the nodes of deformable bodies, preconditioned
 * by symmetric Gauss-Seidel (precondition below).
 *
 * A 3D finite-element mesh fills its Cholesky factor like a 3D grid: the separator fronts are
 * dense, and 729 nodes (an 8 x 8 x 8 cell block) already cost 0.3 s per factorisation in 6x6
 * blocks, which grows as n^2. The Newton system of a time step is M + h^2 K (+ the contacts'
 * terms), dominated by the lumped mass for steps near the elements' time scale: its condition
 * number is about 1 + (omega_max h)^2, and the contact terms sit on the diagonal blocks of the
 * nodes they touch (a rigid body's block couples them). Symmetric Gauss-Seidel over the blocks
 * (their diagonal blocks factorised once per Newton iteration) then leaves conjugate gradients
 * about a dozen iterations, each one sparse product and two sweeps: linear in the mesh.
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

/* z_i := D_i^-1 z_i. A body's block: with the inverse W = L^-1 of its Cholesky factor
 * (block_setup), z := W^T (W z), two triangular products whose rows are independent
 * (cm_chol_inverse; the substitutions, each a chain of six divisions, took 10 % of a step of the
 * 1000-box pile). A small block (a node: [[A, 0], [0, I]], so its factor is [[chol A, 0], [0, I]])
 * solves its 3x3 with its factor L (the same numbers as the 6x6 solve). */
static void diag_solve(const cmBlockChol* c, int i, const double* L, double* zi) {
  if (c->small && c->small[i]) {
    double y0 = zi[0] / L[0];
    double y1 = (zi[1] - L[6] * y0) / L[7];
    double y2 = (zi[2] - L[12] * y0 - L[13] * y1) / L[14];
    zi[2] = y2 / L[14];
    zi[1] = (y1 - L[13] * zi[2]) / L[7];
    zi[0] = (y0 - L[6] * zi[1] - L[12] * zi[2]) / L[0];
    return;
  }
  cm_tri_lower_mul(L, 6, zi); /* L holds W = L^-1 (block_setup) */
  cm_tri_upper_mul(L, 6, zi);
}

/* the preconditioner's data for diagonal block i: its Cholesky factor L, and for a body's block
 * L^-1 in its place (cm_chol_inverse); 0 if the block is not positive definite */
static int block_setup(const cmBlockChol* c, int i, double* L) {
  if (!cm_chol_factor(c->ad + 36 * (size_t)i, L, 6)) return 0;
  if (c->small && c->small[i]) return 1;
  double W[36];
  cm_chol_inverse(L, 6, W);
  memcpy(L, W, sizeof W);
  return 1;
}

/* z = M^-1 r for the symmetric Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L)^T (D the
 * diagonal blocks, L the stored lower blocks), in place in z: forward (D + L) y = r by rows,
 * then D y, then backward (D + L)^T z = D y by columns (each row's blocks scattered as
 * transposes). Against block Jacobi (D^-1 alone) it cut the conjugate gradients' iterations 3x
 * on the fem scenes (36 -> 12 at 50k tets, 40 -> 14 at 100k) for about twice the work per
 * iteration. Node blocks use their 3x3 parts only, as the product does. */
static void precondition(const cmBlockChol* c, const double* Ld, const double* r, double* z) {
  int n = c->n;
  for (int i = 0; i < n; i++) {
    double* zi = z + 6 * (size_t)i;
    int ri = c->small && c->small[i] ? 3 : 6;
    for (int k = 0; k < 6; k++)
      zi[k] = r[6 * (size_t)i + k];
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a], cj = c->small && c->small[j] ? 3 : 6;
      const double* B = c->ax + 36 * (size_t)a;
      const double* zj = z + 6 * (size_t)j;
      for (int q = 0; q < ri; q++)
        for (int k = 0; k < cj; k++)
          zi[q] -= B[6 * q + k] * zj[k];
    }
    diag_solve(c, i, Ld + 36 * (size_t)i, zi);
  }
  for (int i = 0; i < n; i++) {
    const double* D = c->ad + 36 * (size_t)i;
    double* zi = z + 6 * (size_t)i;
    int ri = c->small && c->small[i] ? 3 : 6;
    double t[6];
    for (int q = 0; q < ri; q++) {
      t[q] = 0;
      for (int k = 0; k < ri; k++)
        t[q] += D[6 * q + k] * zi[k];
    }
    for (int q = 0; q < ri; q++)
      zi[q] = t[q];
  }
  for (int i = n - 1; i >= 0; i--) {
    double* zi = z + 6 * (size_t)i;
    int ri = c->small && c->small[i] ? 3 : 6;
    diag_solve(c, i, Ld + 36 * (size_t)i, zi);
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a], cj = c->small && c->small[j] ? 3 : 6;
      const double* B = c->ax + 36 * (size_t)a;
      double* zj = z + 6 * (size_t)j;
      for (int q = 0; q < ri; q++)
        for (int k = 0; k < cj; k++)
          zj[k] -= B[6 * q + k] * zi[q];
    }
  }
}

static double dot(const double* a, const double* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* the preconditioners, z = M^-1 r (ctx: the diagonal blocks' factors for Gauss-Seidel, unused
 * for the stored factor) */
typedef void (*Precond)(const cmBlockChol* c, const double* ctx, const double* r, double* z);

static void precondition_factor(const cmBlockChol* c, const double* ctx, const double* r,
                                double* z) {
  (void)ctx;
  memcpy(z, r, 6 * (size_t)c->n * sizeof *z);
  cm_bchol_solve_perm(c, z);
}

/* conjugate gradients on the stored matrix (in the store's order) from x = 0 with r = b on entry
 * and |b| = bn > 0; z, p: work (6 n each). Returns the iterations taken, -2 if a search
 * direction has p^T A p <= 0; *conv is 1 if |r| <= rtol |b| was reached within maxit. */
static int cg(const cmBlockChol* c, Precond pre, const double* ctx, double* x, double* r, double* z,
              double* p, double bn, double rtol, int maxit, int* conv) {
  size_t m = 6 * (size_t)c->n;
  *conv = 0;
  pre(c, ctx, r, z);
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
    if (sqrt(dot(r, r, m)) <= rtol * bn) {
      *conv = 1;
      break;
    }
    pre(c, ctx, r, z);
    double rz1 = dot(r, z, m), beta = rz1 / rz;
    rz = rz1;
    for (size_t k = 0; k < m; k++)
      p[k] = z[k] + beta * p[k];
  }
  return it;
}

int cm_bchol_pcg(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                 double* work, int setup) {
  int n = c->n, conv;
  size_t m = 6 * (size_t)n;
  double *r = work, *z = work + m, *p = work + 2 * m, *Ld = work + 3 * m;
  /* the preconditioner: from the diagonal blocks, or as the last call left it */
  if (setup)
    for (int i = 0; i < n; i++)
      if (!block_setup(c, i, Ld + 36 * (size_t)i)) return -1;
  memset(x, 0, m * sizeof *x);
  memcpy(r, b, m * sizeof *r);
  double bn = sqrt(dot(b, b, m));
  if (!(bn > 0)) return 0;
  return cg(c, precondition, Ld, x, r, z, p, bn, rtol, maxit, &conv);
}

int cm_bchol_pcg_factor(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                        double* work) {
  int n = c->n, it = 0, conv = 1;
  size_t m = 6 * (size_t)n;
  /* in the analysed order throughout: the store's blocks are indexed by position */
  double *xp = work, *r = work + m, *z = work + 2 * m, *p = work + 3 * m;
  for (int q = 0; q < n; q++)
    memcpy(r + 6 * (size_t)q, b + 6 * (size_t)c->perm[q], 6 * sizeof *r);
  memset(xp, 0, m * sizeof *xp);
  double bn = sqrt(dot(r, r, m));
  if (bn > 0) it = cg(c, precondition_factor, NULL, xp, r, z, p, bn, rtol, maxit, &conv);
  if (it < 0) return it;
  if (!conv) return -1;
  for (int q = 0; q < n; q++)
    memcpy(x + 6 * (size_t)c->perm[q], xp + 6 * (size_t)q, 6 * sizeof *x);
  return it;
}
