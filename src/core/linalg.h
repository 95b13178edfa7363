/* Small dense linear algebra: Cholesky factorisation and solves of an n x n symmetric positive
 * definite matrix, and the eigen-decomposition of a symmetric 3 x 3 matrix. Matrices are
 * row-major arrays of doubles. See linalg.c for the derivations and the operation order (every
 * result is reproducible bit for bit). The Cholesky routines are inline, so that a caller with a
 * constant size (the 6 x 6 blocks of block_cholesky.c) gets them specialised. Not installed;
 * nothing here allocates. */
#ifndef CM_LINALG_H
#define CM_LINALG_H

#include <math.h>

/* A = L L^T: L (n x n, lower triangular, positive diagonal, upper triangle set to 0) from the
 * lower triangle of A (the upper triangle of A is not read). L may be A itself (in place).
 * Returns 1, or 0 if A is not numerically positive definite (a pivot is not > 0, or NaN); L is
 * then partly written. */
static inline int cm_chol_factor(const double* A, double* L, int n) {
  for (int j = 0; j < n; j++) {
    /* the pivot: A_jj minus the squares of row j so far */
    double s = A[j * n + j];
    for (int k = 0; k < j; k++)
      s -= L[j * n + k] * L[j * n + k];
    if (!(s > 0)) return 0;
    double ljj = sqrt(s);
    L[j * n + j] = ljj;
    /* column j below the diagonal; row j right of it is zero */
    for (int i = j + 1; i < n; i++) {
      double t = A[i * n + j];
      for (int k = 0; k < j; k++)
        t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / ljj;
      L[j * n + i] = 0;
    }
  }
  return 1;
}

/* x := L^-1 x (forward substitution, L from cm_chol_factor; only its lower triangle is read) */
static inline void cm_chol_forward(const double* L, int n, double* x) {
  for (int i = 0; i < n; i++) {
    double s = x[i];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * x[k];
    x[i] = s / L[i * n + i];
  }
}

/* x := L^-T x (backward substitution; only the lower triangle of L is read) */
static inline void cm_chol_backward(const double* L, int n, double* x) {
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++)
      s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
}

/* W = L^-1 (n x n, lower triangular; the upper triangle set to 0) for L from cm_chol_factor:
 * forward substitution on the columns of I with the reciprocals of the diagonal. Then
 * cm_tri_lower_mul and cm_tri_upper_mul replace cm_chol_forward and cm_chol_backward by products
 * whose rows are independent, where the substitutions are chains of n divisions (the solves of a
 * factor used several times: block_cholesky.c, block_pcg.c); the results agree to rounding. */
static inline void cm_chol_inverse(const double* L, int n, double* W) {
  for (int i = 0; i < n * n; i++)
    W[i] = 0;
  for (int i = 0; i < n; i++)
    W[i * n + i] = 1 / L[i * n + i];
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double s = 0;
      for (int k = j; k < i; k++)
        s += L[i * n + k] * W[k * n + j];
      W[i * n + j] = -s * W[i * n + i];
    }
}

/* x := W x for lower triangular W (cm_chol_inverse: L^-1 x) */
static inline void cm_tri_lower_mul(const double* W, int n, double* x) {
  for (int i = n - 1; i >= 0; i--) {
    double s = 0;
    for (int k = 0; k <= i; k++)
      s += W[i * n + k] * x[k];
    x[i] = s;
  }
}

/* x := W^T x for lower triangular W (cm_chol_inverse: L^-T x) */
static inline void cm_tri_upper_mul(const double* W, int n, double* x) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = i; k < n; k++)
      s += W[k * n + i] * x[k];
    x[i] = s;
  }
}

/* x := A^-1 x = L^-T L^-1 x for A = L L^T: cm_chol_forward, then cm_chol_backward */
static inline void cm_chol_solve(const double* L, int n, double* x) {
  cm_chol_forward(L, n, x);
  cm_chol_backward(L, n, x);
}

/* Eigenvalues and eigenvectors of the symmetric (all 9 entries read) finite 3 x 3 matrix A
 * (cyclic Jacobi): ev ascending, and (if V is not NULL) V's column k a unit eigenvector of
 * ev[k], the columns orthonormal. */
void cm_sym_eig3(const double A[9], double ev[3], double V[9]);

/* cm_sym_eig3 stopped at a relative off-diagonal size: once |a_01| + |a_02| + |a_12| <= rel
 * (|a_00| + |a_11| + |a_22|) of the rotated matrix (rel = 2^-52: rounding level, 4-5 sweeps
 * against 20-25; rel = 0 is cm_sym_eig3) */
void cm_sym_eig3_rel(const double A[9], double rel, double ev[3], double V[9]);

#endif
