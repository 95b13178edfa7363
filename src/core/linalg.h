/* Small dense linear algebra: Cholesky factorisation and solves of an n x n symmetric positive
 * definite matrix, and the eigen-decomposition of a symmetric 3 x 3 matrix. Matrices are
 * row-major arrays of doubles. See linalg.c for the derivations and the operation order (every
 * result is reproducible bit for bit). Not installed; nothing here allocates. */
#ifndef CM_LINALG_H
#define CM_LINALG_H

/* A = L L^T: L (n x n, lower triangular, positive diagonal, upper triangle set to 0) from the
 * lower triangle of A (the upper triangle of A is not read). L may be A itself (in place).
 * Returns 1, or 0 if A is not numerically positive definite (a pivot is not > 0, or NaN); L is
 * then partly written. */
int cm_chol_factor(const double* A, double* L, int n);

/* x := L^-1 x (forward substitution, L from cm_chol_factor; only its lower triangle is read) */
void cm_chol_forward(const double* L, int n, double* x);

/* x := L^-T x (backward substitution; only the lower triangle of L is read) */
void cm_chol_backward(const double* L, int n, double* x);

/* x := A^-1 x = L^-T L^-1 x for A = L L^T: cm_chol_forward, then cm_chol_backward */
void cm_chol_solve(const double* L, int n, double* x);

/* Eigenvalues and eigenvectors of the symmetric (all 9 entries read) finite 3 x 3 matrix A
 * (cyclic Jacobi): ev ascending, and (if V is not NULL) V's column k a unit eigenvector of
 * ev[k], the columns orthonormal. */
void cm_sym_eig3(const double A[9], double ev[3], double V[9]);

#endif
