/* Small dense linear algebra: Cholesky of an n x n SPD matrix, symmetric 3 x 3 eigenproblem.
 *
 * Cholesky (column by column, the Cholesky-Crout order). A = L L^T with L lower triangular
 * gives, comparing entry (i, j), i >= j:
 *   A_jj = sum_{k<=j} L_jk^2          =>  L_jj = sqrt(A_jj - sum_{k<j} L_jk^2)
 *   A_ij = sum_{k<=j} L_ik L_jk       =>  L_ij = (A_ij - sum_{k<j} L_ik L_jk) / L_jj   (i > j)
 * so column j needs only the columns k < j. Each sum is accumulated from the entry of A by
 * subtracting the products in increasing k (s = A_ij; s -= L_i0 L_j0; s -= L_i1 L_j1; ...),
 * and the diagonal pivot s must be > 0 (A is then positive definite up to rounding). Every
 * caller (the dense island Hessian of solve_implicit.c, the 6 x 6 diagonal blocks of
 * block_cholesky.c) computed in exactly this order before the code was shared, so their
 * results are unchanged bit for bit; with -ffp-contract=off no multiply-add is fused. Entry
 * A_ij (i >= j) is read when column j is computed, before L_ij is written: L may be A.
 * Cost n^3 / 6 multiply-adds and n square roots.
 *
 * Solves. A x = b is L y = b, then L^T x = y:
 *   y_i = (b_i - sum_{k<i} L_ik y_k) / L_ii             for i = 0 .. n-1   (forward)
 *   x_i = (y_i - sum_{k>i} L_ki x_k) / L_ii             for i = n-1 .. 0   (backward)
 * the sums again subtracted from b_i (y_i) in increasing k. n^2 multiply-adds each.
 *
 * Symmetric 3 x 3 eigenproblem (cyclic Jacobi; Golub and Van Loan, "Matrix Computations",
 * 8.5). A plane rotation J in the (p, q) plane with c = cos, s = sin chosen to zero a_pq:
 *   theta = (a_qq - a_pp) / (2 a_pq),  t = sign(theta) / (|theta| + sqrt(theta^2 + 1)),
 *   c = 1 / sqrt(t^2 + 1),  s = t c
 * (t the smaller root of t^2 + 2 theta t - 1 = 0, so |angle| <= pi/4), and a := J^T a J,
 * V := V J. A sweep visits (0,1), (0,2), (1,2); each rotation lowers the off-diagonal sum of
 * squares by 2 a_pq^2 and the convergence is quadratic, so a few sweeps reach
 * |a_01| + |a_02| + |a_12| <= 1e-300 (the stop; at most 50 sweeps). Then A = V diag(a) V^T
 * with V orthogonal to rounding: the eigenvalues are the diagonal of a, the eigenvectors the
 * columns of V. Unlike the closed form (the trigonometric solution of the characteristic cubic,
 * which loses accuracy near repeated eigenvalues), Jacobi gives orthonormal vectors in every
 * case and, for a positive definite A, even the small eigenvalues to high relative accuracy
 * (Demmel and Veselic 1992). The eigenvalues are put in ascending order by an exchange sort,
 * the columns of V with them.
 * The stop at 1e-300 costs sweeps that change nothing visible: once the off-diagonal is at
 * rounding level (about 1e-16 of the diagonal) each sweep lowers it by another factor of about
 * 1e-16 only through rounding, some 20 sweeps down to 1e-300. cm_sym_eig3_rel stops as soon as
 * |a_01| + |a_02| + |a_12| <= rel (|a_00| + |a_11| + |a_22|) (or at 1e-300): with rel = 2^-52
 * the eigenvalues are those of a matrix within rounding of A (a perturbation of rel times the
 * diagonal; the eigenvalues move by its square over the gap, the vectors by it over the gap),
 * at 4-5 sweeps instead of 20-25 (the per-element SVDs of src/fem/). cm_sym_eig3 is rel = 0,
 * unchanged bit for bit. */
#include "core/linalg.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

void cm_sym_eig3(const double A[9], double ev[3], double V[9]) {
  cm_sym_eig3_rel(A, 0, ev, V);
}

void cm_sym_eig3_rel(const double A[9], double rel, double ev[3], double V[9]) {
  double a[9], U[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(a, A, sizeof a);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
    if (!(off > 1e-300)) break;
    if (off <= rel * (fabs(a[0]) + fabs(a[4]) + fabs(a[8]))) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double apq = a[3 * p + q];
        if (apq == 0) continue;
        /* the rotation that zeroes a_pq */
        double th = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
        double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
        double cs = 1 / sqrt(t * t + 1), sn = t * cs;
        for (int k = 0; k < 3; k++) { /* a = a J */
          double akp = a[3 * k + p], akq = a[3 * k + q];
          a[3 * k + p] = cs * akp - sn * akq;
          a[3 * k + q] = sn * akp + cs * akq;
        }
        for (int k = 0; k < 3; k++) { /* a = J^T a */
          double apk = a[3 * p + k], aqk = a[3 * q + k];
          a[3 * p + k] = cs * apk - sn * aqk;
          a[3 * q + k] = sn * apk + cs * aqk;
        }
        for (int k = 0; k < 3; k++) { /* U = U J */
          double ukp = U[3 * k + p], ukq = U[3 * k + q];
          U[3 * k + p] = cs * ukp - sn * ukq;
          U[3 * k + q] = sn * ukp + cs * ukq;
        }
      }
  }
  /* ascending, the columns with them (exchange sort: column 0 is that of the first smallest
   * diagonal entry) */
  double d[3] = {a[0], a[4], a[8]};
  int col[3] = {0, 1, 2};
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (d[j] < d[i]) {
        double tmp = d[i];
        d[i] = d[j];
        d[j] = tmp;
        int c = col[i];
        col[i] = col[j];
        col[j] = c;
      }
  memcpy(ev, d, sizeof d);
  if (V)
    for (int k = 0; k < 3; k++)
      for (int r = 0; r < 3; r++)
        V[3 * r + k] = U[3 * r + col[k]];
}
