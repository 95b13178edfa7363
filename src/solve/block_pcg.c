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

/* The kernels below run body blocks (6 x 6, every entry used) in pairs of lanes (v2d,
 * block_cholesky.h) with the arithmetic of the scalar loops they replace, entry by entry:
 *   sums s = 0 + b_0 x_0 + ... + b_5 x_5 (the products B x and D x) keep their order and their
 *     leading 0 +, two rows side by side; a pair of rows is read as 2x2 tiles of the block whose
 *     columns (lo2, hi2) give the two rows' coefficients of x_k and x_k+1;
 *   the updates y -= b x (the sweeps, the product's transposed blocks) keep their order, along
 *     the rows of the block, which are contiguous;
 *   the diagonal solves are block_cholesky.c's (cm_v2_lower_mul, cm_v2_upper_mul) on W = L^-1
 *     and its transpose, both prepared once per setup (block_setup).
 * GCC had compiled the scalar loops one entry at a time. Blocks touching a node (c->small: 3
 * unknowns of 6) keep the scalar loops. On the S2 pile of 1000 boxes (60 steps from
 * r1000_2000.ckpt) the product, the sweeps, the diagonal solves and their setup went from 4.00
 * to 2.16 G instructions: the run 0.852x the instructions and 0.92x the CPU time, every result
 * the same bit for bit. */

/* the columns of the 2x2 tile with rows a (of row r) and b (of row r+1): (B_r,k, B_r+1,k) and
 * (B_r,k+1, B_r+1,k+1) */
static inline v2d lo2(v2d a, v2d b) {
  return (v2d){a[0], b[0]};
}
static inline v2d hi2(v2d a, v2d b) {
  return (v2d){a[1], b[1]};
}

/* y = B x for a 6x6 block B (16-byte aligned): entry r is 0 + B_r0 x_0 + ... + B_r5 x_5 */
static inline void mul6(const double* restrict B, const double* restrict x, v2d y[3]) {
  const v2d zero = {0, 0};
  v2d x0 = cm_v2_dup(x[0]), x1 = cm_v2_dup(x[1]), x2 = cm_v2_dup(x[2]), x3 = cm_v2_dup(x[3]),
      x4 = cm_v2_dup(x[4]);
  v2d x5 = cm_v2_dup(x[5]);
  for (int q = 0; q < 3; q++) {
    const double* R = B + 12 * q;
    v2d a = cm_v2_lda(R), b = cm_v2_lda(R + 6), s = zero + lo2(a, b) * x0;
    s += hi2(a, b) * x1;
    a = cm_v2_lda(R + 2), b = cm_v2_lda(R + 8);
    s += lo2(a, b) * x2;
    s += hi2(a, b) * x3;
    a = cm_v2_lda(R + 4), b = cm_v2_lda(R + 10);
    s += lo2(a, b) * x4;
    s += hi2(a, b) * x5;
    y[q] = s;
  }
}

void cm_bchol_matvec(const cmBlockChol* c, const double* x, double* y) {
  int n = c->n;
  const unsigned char* sm = c->small;
  /* y_i = D_i x_i, then the blocks of row i: y_i += B x_j (each entry summed, then added
   * once), y_j += B^T x_i (added term by term, rows ascending). y_i is first written at i (the
   * blocks of earlier rows reach only y_j, j < i), so every entry sees the operations of the
   * former two passes (all diagonal blocks, then the rows) in the same order. */
  for (int i = 0; i < n; i++) {
    const double* xi = x + 6 * (size_t)i;
    double* yi = y + 6 * (size_t)i;
    v2d t[3];
    mul6(c->ad + 36 * (size_t)i, xi, t);
    int ri = sm && sm[i] ? 3 : 6;
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a]; /* block (i, j), j < i; its transpose is block (j, i) */
      const double* B = c->ax + 36 * (size_t)a;
      const double* xj = x + 6 * (size_t)j;
      double* yj = y + 6 * (size_t)j;
      int cj = sm && sm[j] ? 3 : 6;
      if (ri == 6 && cj == 6) {
        v2d u[3] = {cm_v2_ld(yj), cm_v2_ld(yj + 2), cm_v2_ld(yj + 4)};
        v2d x0 = cm_v2_dup(xj[0]), x1 = cm_v2_dup(xj[1]), x2 = cm_v2_dup(xj[2]),
            x3 = cm_v2_dup(xj[3]);
        v2d x4 = cm_v2_dup(xj[4]), x5 = cm_v2_dup(xj[5]);
        for (int q = 0; q < 3; q++) {
          const double* R = B + 12 * q;
          v2d e = cm_v2_dup(xi[2 * q]), f = cm_v2_dup(xi[2 * q + 1]);
          v2d a0 = cm_v2_lda(R), b0 = cm_v2_lda(R + 6), s = (v2d){0, 0} + lo2(a0, b0) * x0;
          s += hi2(a0, b0) * x1;
          u[0] += a0 * e;
          u[0] += b0 * f;
          v2d a1 = cm_v2_lda(R + 2), b1 = cm_v2_lda(R + 8);
          s += lo2(a1, b1) * x2;
          s += hi2(a1, b1) * x3;
          u[1] += a1 * e;
          u[1] += b1 * f;
          v2d a2 = cm_v2_lda(R + 4), b2 = cm_v2_lda(R + 10);
          s += lo2(a2, b2) * x4;
          s += hi2(a2, b2) * x5;
          u[2] += a2 * e;
          u[2] += b2 * f;
          t[q] += s;
        }
        cm_v2_st(yj, u[0]);
        cm_v2_st(yj + 2, u[1]);
        cm_v2_st(yj + 4, u[2]);
        continue;
      }
      double ti[6];
      memcpy(ti, t, sizeof ti);
      for (int r = 0; r < ri; r++) {
        double s = 0;
        for (int k = 0; k < cj; k++) {
          s += B[6 * r + k] * xj[k];
          yj[k] += B[6 * r + k] * xi[r];
        }
        ti[r] += s;
      }
      memcpy(t, ti, sizeof ti);
    }
    cm_v2_st(yi, t[0]);
    cm_v2_st(yi + 2, t[1]);
    cm_v2_st(yi + 4, t[2]);
  }
}

/* z_i := D_i^-1 z_i. A body's block: with the inverse W = L^-1 of its Cholesky factor and its
 * transpose (block_setup), z := W^T (W z), two triangular products whose rows are independent
 * (cm_v2_lower_mul, cm_v2_upper_mul: the arithmetic of cm_tri_lower_mul and cm_tri_upper_mul;
 * the substitutions, each a chain of six divisions, took 10 % of a step of the 1000-box pile). A
 * small block (a node: [[A, 0], [0, I]], so its factor is [[chol A, 0], [0, I]]) solves its 3x3
 * with its factor L (the same numbers as the 6x6 solve). */
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
  v2d s[3];
  cm_v2_lower_mul(L + 36, zi, s); /* L holds W, then W^T (block_setup) */
  cm_v2_upper_mul(L, s);
  cm_v2_st(zi, s[0]);
  cm_v2_st(zi + 2, s[1]);
  cm_v2_st(zi + 4, s[2]);
}

/* the preconditioner's data for diagonal block i (72 doubles, 16-byte aligned): its Cholesky
 * factor L, and for a body's block W = L^-1 and W^T in its place (cm_bchol_chol6, the arithmetic
 * of cm_chol_factor and cm_chol_inverse); 0 if the block is not positive definite */
static int block_setup(const cmBlockChol* c, int i, double* P) {
  if (c->small && c->small[i]) return cm_chol_factor(c->ad + 36 * (size_t)i, P, 6);
  double L[36];
  return cm_bchol_chol6(c->ad + 36 * (size_t)i, L, P, P + 36);
}

/* z = M^-1 r for the symmetric Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L)^T (D the
 * diagonal blocks, L the stored lower blocks), in place in z: forward (D + L) y = r by rows,
 * then D y, then backward (D + L)^T z = D y by columns (each row's blocks scattered as
 * transposes). Against block Jacobi (D^-1 alone) it cut the conjugate gradients' iterations 3x
 * on the fem scenes (36 -> 12 at 50k tets, 40 -> 14 at 100k) for about twice the work per
 * iteration. Node blocks use their 3x3 parts only, as the product does. */
static void precondition(const cmBlockChol* c, const double* Ld, const double* r, double* z) {
  int n = c->n;
  const unsigned char* sm = c->small;
  for (int i = 0; i < n; i++) {
    double* zi = z + 6 * (size_t)i;
    int ri = sm && sm[i] ? 3 : 6;
    for (int k = 0; k < 6; k++)
      zi[k] = r[6 * (size_t)i + k];
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a], cj = sm && sm[j] ? 3 : 6;
      const double* B = c->ax + 36 * (size_t)a;
      const double* zj = z + 6 * (size_t)j;
      if (ri == 6 && cj == 6) {
        /* zi -= B zj term by term, columns ascending */
        v2d x0 = cm_v2_dup(zj[0]), x1 = cm_v2_dup(zj[1]), x2 = cm_v2_dup(zj[2]),
            x3 = cm_v2_dup(zj[3]);
        v2d x4 = cm_v2_dup(zj[4]), x5 = cm_v2_dup(zj[5]);
        for (int q = 0; q < 3; q++) {
          const double* R = B + 12 * q;
          v2d s = cm_v2_ld(zi + 2 * q);
          v2d a0 = cm_v2_lda(R), b0 = cm_v2_lda(R + 6);
          s -= lo2(a0, b0) * x0;
          s -= hi2(a0, b0) * x1;
          v2d a1 = cm_v2_lda(R + 2), b1 = cm_v2_lda(R + 8);
          s -= lo2(a1, b1) * x2;
          s -= hi2(a1, b1) * x3;
          v2d a2 = cm_v2_lda(R + 4), b2 = cm_v2_lda(R + 10);
          s -= lo2(a2, b2) * x4;
          s -= hi2(a2, b2) * x5;
          cm_v2_st(zi + 2 * q, s);
        }
        continue;
      }
      for (int q = 0; q < ri; q++)
        for (int k = 0; k < cj; k++)
          zi[q] -= B[6 * q + k] * zj[k];
    }
    diag_solve(c, i, Ld + 72 * (size_t)i, zi);
  }
  for (int i = 0; i < n; i++) {
    const double* D = c->ad + 36 * (size_t)i;
    double* zi = z + 6 * (size_t)i;
    if (!sm || !sm[i]) {
      v2d t[3];
      mul6(D, zi, t);
      cm_v2_st(zi, t[0]);
      cm_v2_st(zi + 2, t[1]);
      cm_v2_st(zi + 4, t[2]);
      continue;
    }
    double t[3];
    for (int q = 0; q < 3; q++) {
      t[q] = 0;
      for (int k = 0; k < 3; k++)
        t[q] += D[6 * q + k] * zi[k];
    }
    for (int q = 0; q < 3; q++)
      zi[q] = t[q];
  }
  for (int i = n - 1; i >= 0; i--) {
    double* zi = z + 6 * (size_t)i;
    int ri = sm && sm[i] ? 3 : 6;
    diag_solve(c, i, Ld + 72 * (size_t)i, zi);
    for (int a = c->ap[i]; a < c->ap[i + 1]; a++) {
      int j = c->acol[a], cj = sm && sm[j] ? 3 : 6;
      const double* B = c->ax + 36 * (size_t)a;
      double* zj = z + 6 * (size_t)j;
      if (ri == 6 && cj == 6) {
        /* zj -= B^T zi term by term, rows ascending */
        v2d u0 = cm_v2_ld(zj), u1 = cm_v2_ld(zj + 2), u2 = cm_v2_ld(zj + 4);
        for (int q = 0; q < 6; q++) {
          v2d e = cm_v2_dup(zi[q]);
          u0 -= cm_v2_lda(B + 6 * q) * e;
          u1 -= cm_v2_lda(B + 6 * q + 2) * e;
          u2 -= cm_v2_lda(B + 6 * q + 4) * e;
        }
        cm_v2_st(zj, u0);
        cm_v2_st(zj + 2, u1);
        cm_v2_st(zj + 4, u2);
        continue;
      }
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

int cm_bchol_sgs_setup(const cmBlockChol* c, double* work) {
  size_t m = 6 * (size_t)c->n;
  double* Ld = work + 3 * m;
  for (int i = 0; i < c->n; i++)
    if (!block_setup(c, i, Ld + 72 * (size_t)i)) return -1;
  return 0;
}

void cm_bchol_sgs_apply(const cmBlockChol* c, const double* work, const double* r, double* z) {
  precondition(c, work + 3 * 6 * (size_t)c->n, r, z);
}

int cm_bchol_pcg(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                 double* work, int setup) {
  int n = c->n, conv;
  size_t m = 6 * (size_t)n;
  double *r = work, *z = work + m, *p = work + 2 * m, *Ld = work + 3 * m;
  /* the preconditioner: from the diagonal blocks, or as the last call left it */
  if (setup && cm_bchol_sgs_setup(c, work)) return -1;
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
