/* Dense Cholesky and the symmetric 3 x 3 eigen-solver (src/core/linalg.c) against results
 * found independently of them.
 *
 * Cholesky: a matrix with a known integer factor (L exact); random SPD matrices A = B B^T + n I
 * (n = 1..12) whose factor must be lower triangular with a positive diagonal and reproduce A as
 * L L^T to 1e-14, and whose solve must return a chosen x from b = A x (A is well conditioned:
 * to 1e-12); in place = out of place bit for bit; the upper triangle of A is never read; not
 * positive definite (indefinite, singular, NaN) is refused.
 * Eigen: matrices with known spectra (diagonal, the 1-D Laplacian 2 - sqrt2, 2, 2 + sqrt2, a
 * double eigenvalue, rank one, a multiple of I); random ones built as R diag(e) R^T with a
 * chosen spectrum; and for random symmetric matrices, each eigenvalue a root of the
 * characteristic polynomial det(A - l I) (relative to the scale of its terms), the invariants
 * (trace, sum of principal 2 x 2 minors, determinant), A v = l v and V orthonormal. */
#include <math.h>
#include <string.h>

#include "core/linalg.h"
#include "test.h"

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static double rnd(void) {
  return 2 * test_urand(&rng) - 1;
} /* uniform in [-1, 1) */

enum { NMAX = 12 };

static void test_chol_known(void) {
  /* A = L L^T with L = [2 0 0; 6 1 0; -8 5 3]: every step is exact */
  double A[9] = {4, 12, -16, 12, 37, -43, -16, -43, 98}, L[9];
  double Lx[9] = {2, 0, 0, 6, 1, 0, -8, 5, 3};
  CHECK(cm_chol_factor(A, L, 3));
  CHECK(memcmp(L, Lx, sizeof L) == 0);
  /* A x = b for x = (1, -2, 3): b = A x, exact in integers */
  double x[3] = {1, -2, 3}, b[3];
  for (int i = 0; i < 3; i++)
    b[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
  double y[3];
  memcpy(y, b, sizeof y);
  cm_chol_forward(L, 3, y); /* L y = b */
  for (int i = 0; i < 3; i++)
    CHECK_NEAR(L[3 * i] * y[0] + L[3 * i + 1] * y[1] + L[3 * i + 2] * y[2], b[i], 1e-12);
  cm_chol_backward(L, 3, y); /* L^T x = y */
  for (int i = 0; i < 3; i++)
    CHECK_NEAR(y[i], x[i], 1e-12);
  memcpy(y, b, sizeof y);
  cm_chol_solve(L, 3, y);
  for (int i = 0; i < 3; i++)
    CHECK_NEAR(y[i], x[i], 1e-12);
}

/* random SPD: B B^T + n I */
static void random_spd(double* A, int n) {
  double B[NMAX * NMAX];
  for (int i = 0; i < n * n; i++)
    B[i] = rnd();
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; k++)
        s += B[i * n + k] * B[j * n + k];
      A[i * n + j] = s;
    }
}

/* a known solution: x random, b = A x */
static void known_solution(const double* A, int n, double* x, double* b) {
  for (int i = 0; i < n; i++)
    x[i] = rnd();
  for (int i = 0; i < n; i++) {
    b[i] = 0;
    for (int k = 0; k < n; k++)
      b[i] += A[i * n + k] * x[k];
  }
}

static void test_chol_random(void) {
  for (int n = 1; n <= NMAX; n++)
    for (int trial = 0; trial < 20; trial++) {
      double A[NMAX * NMAX], L[NMAX * NMAX], L2[NMAX * NMAX], x[NMAX], b[NMAX];
      random_spd(A, n);
      CHECK(cm_chol_factor(A, L, n));
      /* lower triangular, positive diagonal, L L^T = A */
      double scale = 0, err = 0;
      int shape = 1;
      for (int i = 0; i < n; i++) {
        shape &= L[i * n + i] > 0;
        for (int j = i + 1; j < n; j++)
          shape &= L[i * n + j] == 0;
        for (int j = 0; j < n; j++) {
          double s = 0;
          for (int k = 0; k < n; k++)
            s += L[i * n + k] * L[j * n + k];
          err = fmax(err, fabs(s - A[i * n + j]));
          scale = fmax(scale, fabs(A[i * n + j]));
        }
      }
      CHECK(shape);
      CHECK(err <= 1e-14 * scale);
      known_solution(A, n, x, b);
      cm_chol_solve(L, n, b);
      double xerr = 0;
      for (int i = 0; i < n; i++)
        xerr = fmax(xerr, fabs(b[i] - x[i]));
      CHECK(xerr <= 1e-12);
      /* the upper triangle is not read: poison it; in place gives the same bits */
      memcpy(L2, A, sizeof(double) * (size_t)(n * n));
      for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
          L2[i * n + j] = NAN;
      CHECK(cm_chol_factor(L2, L2, n));
      CHECK(memcmp(L2, L, sizeof(double) * (size_t)(n * n)) == 0);
    }
}

/* the inverse factor W = L^-1: lower triangular, W L = I, and W^T W b solves A x = b as the
 * substitutions do, to rounding */
static void test_chol_inverse(void) {
  for (int n = 1; n <= NMAX; n++)
    for (int trial = 0; trial < 20; trial++) {
      double A[NMAX * NMAX], L[NMAX * NMAX], W[NMAX * NMAX], x[NMAX], b[NMAX], y[NMAX];
      random_spd(A, n);
      CHECK(cm_chol_factor(A, L, n));
      cm_chol_inverse(L, n, W);
      double err = 0;
      int upper0 = 1;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          if (j > i) upper0 &= W[i * n + j] == 0;
          double s = 0;
          for (int k = 0; k < n; k++)
            s += W[i * n + k] * L[k * n + j];
          err = fmax(err, fabs(s - (i == j)));
        }
      CHECK(upper0);
      CHECK(err <= 1e-12);
      known_solution(A, n, x, b);
      memcpy(y, b, sizeof(double) * (size_t)n);
      cm_chol_solve(L, n, b);
      cm_tri_lower_mul(W, n, y);
      cm_tri_upper_mul(W, n, y);
      double d = 0, xerr = 0;
      for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(y[i] - b[i]));
        xerr = fmax(xerr, fabs(y[i] - x[i]));
      }
      CHECK(xerr <= 1e-12);
      CHECK(d <= 1e-12);
    }
}

static void test_chol_refused(void) {
  double L[9];
  double indefinite[4] = {1, 2, 2, 1}; /* eigenvalues 3, -1 */
  CHECK(!cm_chol_factor(indefinite, L, 2));
  double singular[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1};
  CHECK(!cm_chol_factor(singular, L, 3));
  double zero[1] = {0};
  CHECK(!cm_chol_factor(zero, L, 1));
  double nan[4] = {1, 0, NAN, 1};
  CHECK(!cm_chol_factor(nan, L, 2));
}

/* det(A - l I) and the sum of the absolute values of its terms */
static double charpoly(const double A[9], double l, double* size) {
  double a = A[0] - l, e = A[4] - l, i = A[8] - l, b = A[1], c = A[2], f = A[5];
  double t[6] = {a * e * i, 2 * b * f * c, -a * f * f, -e * c * c, -i * b * b, 0};
  *size = 0;
  double s = 0;
  for (int k = 0; k < 6; k++) {
    s += t[k];
    *size += fabs(t[k]);
  }
  return s;
}

/* every check on one symmetric A: order, roots, invariants, eigenvectors */
static void check_eigen(const double A[9], const double ev[3], const double V[9], double tol) {
  double scale = 0;
  for (int k = 0; k < 9; k++)
    scale = fmax(scale, fabs(A[k]));
  CHECK(ev[0] <= ev[1] && ev[1] <= ev[2]);
  for (int k = 0; k < 3; k++) {
    double size, p = charpoly(A, ev[k], &size);
    CHECK(fabs(p) <= tol * (size + scale * scale * scale));
  }
  double tr = A[0] + A[4] + A[8];
  double m2 = A[0] * A[4] - A[1] * A[1] + A[0] * A[8] - A[2] * A[2] + A[4] * A[8] - A[5] * A[5];
  double det = A[0] * (A[4] * A[8] - A[5] * A[5]) - A[1] * (A[1] * A[8] - A[5] * A[2]) +
               A[2] * (A[1] * A[5] - A[4] * A[2]);
  CHECK_NEAR(ev[0] + ev[1] + ev[2], tr, tol * 3 * scale);
  CHECK_NEAR(ev[0] * ev[1] + ev[0] * ev[2] + ev[1] * ev[2], m2, tol * 6 * scale * scale);
  CHECK_NEAR(ev[0] * ev[1] * ev[2], det, tol * 6 * scale * scale * scale);
  for (int k = 0; k < 3; k++) {
    /* A v = l v for column k */
    for (int r = 0; r < 3; r++) {
      double av = A[3 * r] * V[k] + A[3 * r + 1] * V[3 + k] + A[3 * r + 2] * V[6 + k];
      CHECK_NEAR(av, ev[k] * V[3 * r + k], tol * 3 * scale);
    }
    /* orthonormal columns: V is a product of plane rotations, each of which loses at most a
     * few ulp of orthogonality (4 eps); a 3x3 converges at double precision within 10 sweeps of
     * 3 rotations, so 30 x 4 x 2.2e-16 = 2.7e-14 */
    for (int j = 0; j < 3; j++) {
      double d = V[k] * V[j] + V[3 + k] * V[3 + j] + V[6 + k] * V[6 + j];
      CHECK_NEAR(d, j == k ? 1 : 0, 2.7e-14);
    }
  }
}

static void test_eig_known(void) {
  double ev[3], V[9];
  /* diagonal: the diagonal sorted, V a permutation */
  double D[9] = {3, 0, 0, 0, -1, 0, 0, 0, 2};
  cm_sym_eig3(D, ev, V);
  CHECK(ev[0] == -1 && ev[1] == 2 && ev[2] == 3);
  CHECK(fabs(V[3 * 1 + 0]) == 1 && fabs(V[3 * 2 + 1]) == 1 && fabs(V[3 * 0 + 2]) == 1);
  check_eigen(D, ev, V, 1e-15);
  /* the 1-D Laplacian: 2 - sqrt2, 2, 2 + sqrt2 */
  double T[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2};
  cm_sym_eig3(T, ev, V);
  CHECK_NEAR(ev[0], 2 - sqrt(2.0), 1e-15);
  CHECK_NEAR(ev[1], 2, 1e-15);
  CHECK_NEAR(ev[2], 2 + sqrt(2.0), 1e-15);
  check_eigen(T, ev, V, 1e-15);
  /* a double eigenvalue: 1, 3, 3 */
  double P[9] = {2, 1, 0, 1, 2, 0, 0, 0, 3};
  cm_sym_eig3(P, ev, V);
  CHECK_NEAR(ev[0], 1, 1e-15);
  CHECK_NEAR(ev[1], 3, 1e-15);
  CHECK_NEAR(ev[2], 3, 1e-15);
  CHECK_NEAR(V[0] + V[3], 0, 1e-15); /* (1, -1, 0) / sqrt2 for the 1 */
  CHECK_NEAR(fabs(V[0]), sqrt(0.5), 1e-15);
  check_eigen(P, ev, V, 1e-15);
  /* rank one u u^T: 0, 0, |u|^2, the last vector along u */
  double u[3] = {1, 2, 2}, U[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      U[3 * i + j] = u[i] * u[j];
  cm_sym_eig3(U, ev, V);
  CHECK_NEAR(ev[0], 0, 1e-14);
  CHECK_NEAR(ev[1], 0, 1e-14);
  CHECK_NEAR(ev[2], 9, 1e-14);
  CHECK_NEAR(fabs(V[2] * u[0] + V[5] * u[1] + V[8] * u[2]), 3, 1e-14);
  check_eigen(U, ev, V, 1e-15);
  /* a multiple of I: no rotation at all */
  double I5[9] = {5, 0, 0, 0, 5, 0, 0, 0, 5};
  cm_sym_eig3(I5, ev, NULL); /* V may be NULL */
  CHECK(ev[0] == 5 && ev[1] == 5 && ev[2] == 5);
}

/* R (rotation from a random unit quaternion) */
static void random_rotation(double R[9]) {
  double q[4], n = 0;
  for (int k = 0; k < 4; k++) {
    q[k] = rnd();
    n += q[k] * q[k];
  }
  n = sqrt(n);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

static void test_eig_random(void) {
  for (int trial = 0; trial < 2000; trial++) {
    /* a chosen spectrum: e sorted, sometimes with a repeated or a tiny value */
    double e[3] = {rnd(), rnd(), rnd()};
    if (trial % 5 == 1) e[1] = e[0];
    if (trial % 5 == 2) e[2] = 1e-9 * e[2];
    for (int i = 0; i < 3; i++)
      for (int j = i + 1; j < 3; j++)
        if (e[j] < e[i]) {
          double t = e[i];
          e[i] = e[j];
          e[j] = t;
        }
    double R[9], A[9], ev[3], V[9];
    random_rotation(R);
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++)
          s += R[3 * i + k] * e[k] * R[3 * j + k];
        A[3 * i + j] = A[3 * j + i] = s;
      }
    cm_sym_eig3(A, ev, V);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(ev[k], e[k], 1e-14);
    check_eigen(A, ev, V, 1e-14);
    /* and a random symmetric matrix, spectrum unknown */
    double S[9];
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++)
        S[3 * i + j] = S[3 * j + i] = rnd() * 10;
    cm_sym_eig3(S, ev, V);
    check_eigen(S, ev, V, 1e-14);
    /* the early stop at rounding level: the same checks */
    cm_sym_eig3_rel(A, 0x1p-52, ev, V);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(ev[k], e[k], 1e-14);
    check_eigen(A, ev, V, 1e-14);
    cm_sym_eig3_rel(S, 0x1p-52, ev, V);
    check_eigen(S, ev, V, 1e-14);
  }
}

int main(void) {
  RUN(test_chol_known);
  RUN(test_chol_random);
  RUN(test_chol_inverse);
  RUN(test_chol_refused);
  RUN(test_eig_known);
  RUN(test_eig_random);
  return test_report();
}
