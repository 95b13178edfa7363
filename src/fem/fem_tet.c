/* Linear tetrahedra with linear elastic, corotated and Neo-Hookean materials.
 *
 * Kinematics. A linear tet maps its rest positions X_a to positions x_a (a = 0..3) affinely,
 * so the deformation gradient is constant over it:
 *   F = Ds Dm^-1,   Ds = [x1 - x0, x2 - x0, x3 - x0],   Dm = [X1 - X0, X2 - X0, X3 - X0]
 * (columns), rest volume V = det(Dm) / 6. F_ij = sum_k (x_{k+1,i} - x_{0,i}) Dminv_kj, so
 *   dF_ij / dx_{a,m} = delta_im B_aj,   B_aj = Dminv_{a-1,j} (a >= 1),  B_0j = -sum_k Dminv_kj.
 * Energy E = V Psi(F); with P = dPsi/dF and C = dP/dF (9 x 9):
 *   dE/dx_{a,i} = V sum_j P_ij B_aj,
 *   d2E/dx_{a,i} dx_{b,k} = V sum_{j,l} B_aj C_{ij,kl} B_bl.
 * The rows of B sum to zero: a translation leaves F unchanged and the forces on a tet sum to 0.
 * A PSD C gives a PSD Hessian (it is B^T C B).
 *
 * Linear (small strain). eps = (F + F^T)/2 - I, Psi = mu eps:eps + lambda/2 tr(eps)^2:
 *   P = 2 mu eps + lambda tr(eps) I,   C_{ij,kl} = mu (d_ik d_jl + d_il d_jk) + lambda d_ij d_kl,
 * constant and PSD for mu > 0, 2 mu + 3 lambda > 0 (nu in (-1, 1/2)): eigenvalues 2 mu (the 5
 * deviatoric symmetric directions), 2 mu + 3 lambda (I / sqrt 3) and 0 (the 3 skew directions:
 * infinitesimal rotations cost nothing, finite ones do, as eps is not rotation invariant).
 *
 * Isotropic models through the signed SVD. F = U diag(s) V^T with U, V rotations and s3 < 0
 * for an inverted F (cm_fem_svd3). An isotropic Psi is a symmetric function of s, with
 * psi_i = dPsi/ds_i:  P = U diag(psi) V^T. Its Hessian dP/dF has, in the basis U M V^T (M a
 * 3x3 matrix), the analytic eigensystem (Teran, Sifakis, Irving, Fedkiw 2005; Smith, De Goes,
 * Kim 2019):
 *   - the 3 x 3 block H_ij = d2Psi / ds_i ds_j on the diagonal M = diag(w): eigenpairs of H;
 *   - for each pair i < j the "flip" M = (e_i e_j^T + e_j e_i^T)/sqrt 2 with eigenvalue
 *     (psi_i - psi_j) / (s_i - s_j), and the "twist" M = (e_i e_j^T - e_j e_i^T)/sqrt 2 with
 *     (psi_i + psi_j) / (s_i + s_j).
 * (Derivation: in the (i, j) plane diag(s_i, s_j) + t M. For the twist, the singular values of
 * [[s_i, t/sqrt2], [-t/sqrt2, s_j]] obey s1 s2 = s_i s_j + t^2/2, s1^2 + s2^2 = s_i^2 + s_j^2 +
 * t^2, so s1 + s2 grows by t^2 / (2 (s_i + s_j)) + O(t^4) and s1 - s2 not at all: each of s_i, s_j
 * grows by t^2 / (2 (s_i + s_j)), Psi by (psi_i + psi_j) t^2 / (2 (s_i + s_j)) = e t^2 / 2. The
 * flip exchanges the roles of sum and difference.) The 9 M are orthonormal, so
 *   C = sum_m e_m vec(U M_m V^T) vec(U M_m V^T)^T
 * is exact, and clamping each e_m at 0 is the projection of C onto the PSD cone.
 *
 * Corotated: Psi = mu |F - R|^2 + lambda/2 tr(S - I)^2 with F = R S, R = U V^T, S = V diag(s)
 * V^T, i.e. Psi = mu sum (s_i - 1)^2 + lambda/2 (s1 + s2 + s3 - 3)^2. With T = s1 + s2 + s3 - 3:
 *   psi_i = 2 mu (s_i - 1) + lambda T,   P = 2 mu (F - R) + lambda T R,
 *   H_ij = 2 mu d_ij + lambda,   flip 2 mu,   twist 2 mu + (2 lambda T - 4 mu) / (s_i + s_j).
 * s_i + s_j >= 0 for the signed SVD; it is 0 only on the set where R jumps (s2 = -s3), where
 * the twist value is limited by s_i + s_j >= 1e-12 (its sign is that of lambda T - 2 mu).
 *
 * Neo-Hookean: Psi = mu/2 (sum s_i^2 - 3) - mu ln J + lambda/2 (ln J)^2, J = s1 s2 s3 > 0. With
 * g = lambda ln J - mu:
 *   psi_i = mu s_i + g / s_i,   P = mu F + g F^-T,
 *   H_ij = d_ij (mu - g / s_i^2) + lambda / (s_i s_j),
 *   flip mu - g / (s_i s_j),    twist mu + g / (s_i s_j)
 * (psi_i - psi_j = (s_i - s_j)(mu - g / (s_i s_j)); psi_i + psi_j = (s_i + s_j)(mu + g /
 * (s_i s_j)): no division by s_i - s_j, exact at repeated singular values). The energy and P
 * need no SVD; only the Hessian does.
 *
 * SVD (cm_fem_svd3). V and s^2 from the symmetric eigenproblem of F^T F (cm_sym_eig3, Jacobi),
 * descending, V made a rotation (its last column negated if det V < 0). Then U by Gram-Schmidt:
 * u1 = F v1 / |F v1|, u2 the unit part of F v2 orthogonal to u1 (any unit vector orthogonal to
 * u1 if F v2 is in its span), u3 = u1 x u2, so U is a rotation whatever the rank of F, and
 * s_i = u_i . F v_i (the signed s3 = det F / (s1 s2)). The small singular values come from
 * s_i = u_i . F v_i, not from the square roots of the eigenvalues of F^T F.
 *
 * Stress. Cauchy sigma = P F^T / J for the hyperelastic models (J > 0), symmetric for isotropic
 * Psi (P F^T = U diag(psi_i s_i) U^T); von Mises sqrt(3/2 s:s), s = sigma - tr(sigma)/3 I. */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/linalg.h"
#include "fem/fem.h"

void cm_fem_lame(double young, double poisson, double* mu, double* lambda) {
  *mu = young / (2 * (1 + poisson));
  *lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
}

int cm_fem_tet_rest(const double X[12], double Dminv[9], double* vol) {
  double Dm[9];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      Dm[3 * i + k] = X[3 * (k + 1) + i] - X[i];
  double det = cm_m3_det(Dm);
  *vol = det / 6;
  if (!(det > 0) || !isfinite(det)) return 0;
  return cm_m3_inverse(Dminv, Dm);
}

void cm_fem_tet_F(const double x[12], const double Dminv[9], double F[9]) {
  double Ds[9];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      Ds[3 * i + k] = x[3 * (k + 1) + i] - x[i];
  cm_m3_mul(F, Ds, Dminv);
}

/* B (4 x 3): the gradients of the tet's shape functions, dF_ij / dx_{a,i} = B_aj */
static void shape_grad(const double Dminv[9], double B[12]) {
  for (int j = 0; j < 3; j++) {
    B[3 + j] = Dminv[j];
    B[6 + j] = Dminv[3 + j];
    B[9 + j] = Dminv[6 + j];
    B[j] = -(Dminv[j] + Dminv[3 + j] + Dminv[6 + j]);
  }
}

/* unit vector orthogonal to the unit vector u */
static void any_orthogonal(const double u[3], double r[3]) {
  /* cross with the axis least aligned with u */
  double ax = fabs(u[0]), ay = fabs(u[1]), az = fabs(u[2]);
  double e[3] = {0, 0, 0};
  e[ax <= ay && ax <= az ? 0 : (ay <= az ? 1 : 2)] = 1;
  cm_v3_cross(r, u, e);
  cm_v3_normalize(r);
}

void cm_fem_svd3(const double F[9], double U[9], double s[3], double V[9]) {
  double C[9], Ft[9], ev[3], W[9];
  cm_m3_transpose(Ft, F);
  cm_m3_mul(C, Ft, F);
  cm_sym_eig3_rel(C, 0x1p-52, ev, W);
  /* V descending: column k of V = column 2 - k of W; a rotation */
  double v[3][3];
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < 3; r++)
      v[k][r] = W[3 * r + (2 - k)];
  double c01[3];
  cm_v3_cross(c01, v[0], v[1]);
  if (cm_v3_dot(c01, v[2]) < 0) cm_v3_scale(v[2], v[2], -1);
  /* U by Gram-Schmidt on F v1, F v2 */
  double u[3][3], a[3];
  cm_m3_mulv(a, F, v[0]);
  if (cm_v3_normalize(a) > 0)
    cm_v3_copy(u[0], a);
  else
    cm_v3_set(u[0], 1, 0, 0);
  cm_m3_mulv(a, F, v[1]);
  for (int pass = 0; pass < 2; pass++)
    cm_v3_madd(a, a, u[0], -cm_v3_dot(a, u[0]));
  if (cm_v3_normalize(a) > 0) {
    cm_v3_madd(a, a, u[0], -cm_v3_dot(a, u[0]));
    cm_v3_normalize(a);
    cm_v3_copy(u[1], a);
  } else {
    any_orthogonal(u[0], u[1]);
  }
  cm_v3_cross(u[2], u[0], u[1]);
  for (int k = 0; k < 3; k++) {
    double fv[3];
    cm_m3_mulv(fv, F, v[k]);
    s[k] = cm_v3_dot(u[k], fv);
    for (int r = 0; r < 3; r++) {
      U[3 * r + k] = u[k][r];
      V[3 * r + k] = v[k][r];
    }
  }
}

/* C += e q q^T (upper triangle only), q = vec(Q) */
static void add_mode(double* C, const double Q[9], double e) {
  if (e == 0) return;
  for (int p = 0; p < 9; p++) {
    double eq = e * Q[p];
    for (int q = p; q < 9; q++)
      C[9 * p + q] += eq * Q[q];
  }
}

/* dP/dF from the analytic eigensystem: the eigenpairs (ev[k], column k of W) of the 3 x 3 block
 * of d2Psi/ds2, the flip and twist values of the pairs (01, 02, 12); negative eigenvalues
 * clamped if project */
static void isotropic_hessian(const double U[9], const double V[9], const double ev[3],
                              const double W[9], const double flip[3], const double twist[3],
                              int project, double* C) {
  memset(C, 0, 81 * sizeof(double));
  /* U diag(w) V^T: Q_ij = sum_k U_ik w_k V_jk */
  for (int k = 0; k < 3; k++) {
    double Q[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        Q[3 * i + j] = U[3 * i] * W[k] * V[3 * j] + U[3 * i + 1] * W[3 + k] * V[3 * j + 1] +
                       U[3 * i + 2] * W[6 + k] * V[3 * j + 2];
    add_mode(C, Q, project && ev[k] < 0 ? 0 : ev[k]);
  }
  /* U (e_a e_b^T +- e_b e_a^T) V^T / sqrt 2 = (u_a v_b^T +- u_b v_a^T) / sqrt 2 */
  static const int PAIR[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  const double r = 0.70710678118654752440;
  for (int p = 0; p < 3; p++) {
    int a = PAIR[p][0], b = PAIR[p][1];
    double Qf[9], Qt[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double x = U[3 * i + a] * V[3 * j + b], y = U[3 * i + b] * V[3 * j + a];
        Qf[3 * i + j] = r * (x + y);
        Qt[3 * i + j] = r * (x - y);
      }
    add_mode(C, Qf, project && flip[p] < 0 ? 0 : flip[p]);
    add_mode(C, Qt, project && twist[p] < 0 ? 0 : twist[p]);
  }
  for (int p = 0; p < 9; p++)
    for (int q = 0; q < p; q++)
      C[9 * p + q] = C[9 * q + p];
}

static double psi_linear(const cmFemMaterial* mat, const double F[9], double* P, double* C) {
  double mu = mat->mu, la = mat->lambda;
  double eps[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      eps[3 * i + j] = 0.5 * (F[3 * i + j] + F[3 * j + i]) - (i == j);
  double tr = eps[0] + eps[4] + eps[8], ee = 0;
  for (int k = 0; k < 9; k++)
    ee += eps[k] * eps[k];
  if (P)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        P[3 * i + j] = 2 * mu * eps[3 * i + j] + (i == j ? la * tr : 0);
  if (C) {
    memset(C, 0, 81 * sizeof(double));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double* row = C + 9 * (3 * i + j);
        row[3 * i + j] += mu;
        row[3 * j + i] += mu;
        if (i == j)
          for (int k = 0; k < 3; k++)
            row[4 * k] += la;
      }
  }
  return mu * ee + 0.5 * la * tr * tr;
}

static double psi_corotated(const cmFemMaterial* mat, const double F[9], double* P, double* C,
                            int project) {
  double mu = mat->mu, la = mat->lambda;
  double U[9], s[3], V[9];
  cm_fem_svd3(F, U, s, V);
  double T = s[0] + s[1] + s[2] - 3;
  double psi = mu * ((s[0] - 1) * (s[0] - 1) + (s[1] - 1) * (s[1] - 1) + (s[2] - 1) * (s[2] - 1)) +
               0.5 * la * T * T;
  if (P) {
    /* P = U diag(psi_i) V^T */
    double d[3], T1[9], Vt[9];
    for (int k = 0; k < 3; k++)
      d[k] = 2 * mu * (s[k] - 1) + la * T;
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++)
        T1[3 * r + k] = U[3 * r + k] * d[k];
    cm_m3_transpose(Vt, V);
    cm_m3_mul(P, T1, Vt);
  }
  if (C) {
    /* H = 2 mu I + lambda 1 1^T: 2 mu + 3 lambda on (1, 1, 1) / sqrt 3, 2 mu on its
     * orthogonal complement ((1, -1, 0) / sqrt 2, (1, 1, -2) / sqrt 6) */
    const double a = 0.57735026918962576451, b = 0.70710678118654752440, c = 0.40824829046386301637;
    const double W[9] = {a, b, c, a, -b, c, a, 0, -2 * c};
    const double ev[3] = {2 * mu + 3 * la, 2 * mu, 2 * mu};
    static const int PAIR[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    double flip[3], twist[3];
    for (int p = 0; p < 3; p++) {
      double den = s[PAIR[p][0]] + s[PAIR[p][1]];
      if (den < 1e-12) den = 1e-12;
      flip[p] = 2 * mu;
      twist[p] = 2 * mu + (2 * la * T - 4 * mu) / den;
    }
    isotropic_hessian(U, V, ev, W, flip, twist, project, C);
  }
  return psi;
}

static double psi_neohookean(const cmFemMaterial* mat, const double F[9], double* P, double* C,
                             int project) {
  double mu = mat->mu, la = mat->lambda;
  double J = cm_m3_det(F);
  if (!(J > 0)) return INFINITY;
  double lnJ = log(J), g = la * lnJ - mu, ff = 0;
  for (int k = 0; k < 9; k++)
    ff += F[k] * F[k];
  if (P) {
    /* P = mu F + g F^-T */
    double Fi[9];
    if (!cm_m3_inverse(Fi, F)) return INFINITY;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        P[3 * i + j] = mu * F[3 * i + j] + g * Fi[3 * j + i];
  }
  if (C && !project) {
    /* the exact dP/dF in closed form, no decomposition:
     * dP_ij/dF_kl = mu d_ik d_jl + lambda F^-T_ij F^-T_kl - g F^-1_jk F^-1_li */
    double Fi[9];
    if (!cm_m3_inverse(Fi, F)) return INFINITY;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
          for (int l = 0; l < 3; l++)
            C[9 * (3 * i + j) + 3 * k + l] = (i == k && j == l ? mu : 0) +
                                             la * Fi[3 * j + i] * Fi[3 * l + k] -
                                             g * Fi[3 * j + k] * Fi[3 * l + i];
  } else if (C) {
    double U[9], s[3], V[9];
    cm_fem_svd3(F, U, s, V);
    double H[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        H[3 * i + j] = la / (s[i] * s[j]) + (i == j ? mu - g / (s[i] * s[i]) : 0);
    static const int PAIR[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    double flip[3], twist[3];
    for (int p = 0; p < 3; p++) {
      double ss = s[PAIR[p][0]] * s[PAIR[p][1]];
      flip[p] = mu - g / ss;
      twist[p] = mu + g / ss;
    }
    double ev[3], W[9];
    cm_sym_eig3_rel(H, 0x1p-52, ev, W);
    isotropic_hessian(U, V, ev, W, flip, twist, project, C);
  }
  return 0.5 * mu * (ff - 3) - mu * lnJ + 0.5 * la * lnJ * lnJ;
}

double cm_fem_psi(const cmFemMaterial* mat, const double F[9], double* P, double* C, int project) {
  switch (mat->model) {
  case CM_FEM_LINEAR:
    return psi_linear(mat, F, P, C);
  case CM_FEM_COROTATED:
    return psi_corotated(mat, F, P, C, project);
  default:
    return psi_neohookean(mat, F, P, C, project);
  }
}

double cm_fem_tet_energy_ex(const cmFemMaterial* mat, const double Dminv[9], double vol,
                            const double x[12], double* grad, double* hess, int project) {
  double F[9], P[9], C[81], B[12];
  cm_fem_tet_F(x, Dminv, F);
  double psi = cm_fem_psi(mat, F, grad ? P : NULL, hess ? C : NULL, project);
  if (!(psi < INFINITY)) return psi;
  shape_grad(Dminv, B);
  if (grad)
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 3; i++)
        grad[3 * a + i] =
            vol * (P[3 * i] * B[3 * a] + P[3 * i + 1] * B[3 * a + 1] + P[3 * i + 2] * B[3 * a + 2]);
  if (hess) {
    /* T[(ij), (b k)] = sum_l C[(ij), (kl)] B_bl, then H[(a i), (b k)] = V sum_j B_aj T[(ij), (bk)]
     */
    double T[9 * 12];
    for (int ij = 0; ij < 9; ij++)
      for (int b = 0; b < 4; b++)
        for (int k = 0; k < 3; k++) {
          const double* c = C + 9 * ij + 3 * k;
          T[12 * ij + 3 * b + k] = c[0] * B[3 * b] + c[1] * B[3 * b + 1] + c[2] * B[3 * b + 2];
        }
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 3; i++) {
        double* h = hess + 12 * (3 * a + i);
        const double* t0 = T + 12 * (3 * i);
        double b0 = vol * B[3 * a], b1 = vol * B[3 * a + 1], b2 = vol * B[3 * a + 2];
        for (int q = 0; q < 12; q++)
          h[q] = b0 * t0[q] + b1 * t0[12 + q] + b2 * t0[24 + q];
      }
  }
  return vol * psi;
}

double cm_fem_tet_energy(const cmFemMaterial* mat, const double Dminv[9], double vol,
                         const double x[12], double* grad, double* hess) {
  return cm_fem_tet_energy_ex(mat, Dminv, vol, x, grad, hess, 1);
}

double cm_fem_tet_von_mises(const cmFemMaterial* mat, const double Dminv[9], const double x[12],
                            double sigma[9]) {
  double F[9], P[9], S[9];
  cm_fem_tet_F(x, Dminv, F);
  double psi = cm_fem_psi(mat, F, P, NULL, 1);
  if (!(psi < INFINITY)) return INFINITY;
  double J = cm_m3_det(F);
  if (mat->model == CM_FEM_LINEAR) {
    memcpy(S, P, sizeof S);
  } else if (J > 0) {
    double Ft[9];
    cm_m3_transpose(Ft, F);
    cm_m3_mul(S, P, Ft);
    for (int k = 0; k < 9; k++)
      S[k] /= J;
  } else {
    /* inverted corotated: P R^T, R = U V^T */
    double U[9], s[3], V[9], Rt[9], Ut[9];
    cm_fem_svd3(F, U, s, V);
    cm_m3_transpose(Ut, U);
    cm_m3_mul(Rt, V, Ut);
    cm_m3_mul(S, P, Rt);
  }
  /* symmetrise the rounding away */
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) {
      double m = 0.5 * (S[3 * i + j] + S[3 * j + i]);
      S[3 * i + j] = m;
      S[3 * j + i] = m;
    }
  if (sigma) memcpy(sigma, S, sizeof S);
  double p = (S[0] + S[4] + S[8]) / 3, ss = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double d = S[3 * i + j] - (i == j ? p : 0);
      ss += d * d;
    }
  return sqrt(1.5 * ss);
}
