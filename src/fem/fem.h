/* The finite element library of deformable bodies: linear tetrahedra (4 nodes, constant
 * deformation gradient) with three hyperelastic materials. Per element: rest data, deformation
 * gradient, energy with its gradient and positive semi-definite Hessian (for the implicit
 * Newton solve), Cauchy and von Mises stress. Derivations in fem_tet.c. Nothing here allocates;
 * every function is a pure function of its arguments (thread-safe). Not installed.
 *
 * Conventions: positions of a tet are x[12] = 4 nodes x 3 (node a's coordinate i at x[3a+i]);
 * 3x3 matrices are row-major (A_ij at A[3i+j]); 9x9 tensors dP/dF are indexed by the row-major
 * flattening of F (C[(3i+j)*9 + 3k+l] = dP_ij / dF_kl); 12x12 Hessians row-major over x. */
#ifndef CM_FEM_H
#define CM_FEM_H

/* material models (cmFemMaterial.model) */
enum { CM_FEM_LINEAR = 0, CM_FEM_COROTATED = 1, CM_FEM_NEOHOOKEAN = 2 };

/* Energy densities Psi(F) (J/m^3), mu and lambda the Lame parameters (Pa):
 *   CM_FEM_LINEAR      eps = (F + F^T)/2 - I,  Psi = mu eps:eps + lambda/2 tr(eps)^2
 *                      (small strain; not invariant under rotation: a rigid rotation by angle
 *                      theta strains it by about theta^2/2)
 *   CM_FEM_COROTATED   F = R S (polar decomposition, R a proper rotation also for det F <= 0),
 *                      Psi = mu |F - R|^2 + lambda/2 tr(S - I)^2
 *                      (McAdams et al. 2011's corotated linear energy; the linear model in the
 *                      rotated frame, defined and smooth through inversion)
 *   CM_FEM_NEOHOOKEAN  J = det F,  Psi = mu/2 (tr(F^T F) - 3) - mu ln J + lambda/2 (ln J)^2
 *                      (compressible; +infinity for J <= 0)
 * All three agree to second order at F = I (the linear elastic tensor of mu, lambda). */
typedef struct cmFemMaterial {
  int model;         /* CM_FEM_LINEAR, CM_FEM_COROTATED or CM_FEM_NEOHOOKEAN */
  double mu, lambda; /* Lame parameters, Pa */
} cmFemMaterial;

/* Lame parameters from Young's modulus (Pa) and Poisson's ratio (-1 < nu < 0.5):
 * mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu) (1 - 2 nu)) */
void cm_fem_lame(double young, double poisson, double* mu, double* lambda);

/* rest data of a tet from its 4 rest positions X (12): Dm^-1 (3x3 row-major, Dm = [X1-X0,
 * X2-X0, X3-X0] as columns) and volume (m^3); returns 0 if its volume is not positive (or not
 * finite), 1 otherwise */
int cm_fem_tet_rest(const double X[12], double Dminv[9], double* vol);

/* deformation gradient F = Ds Dm^-1 (3x3 row-major) at positions x (12), Ds = [x1-x0, x2-x0,
 * x3-x0] */
void cm_fem_tet_F(const double x[12], const double Dminv[9], double F[9]);

/* Energy density Psi(F) (J/m^3) of the material; P (9, may be NULL): the first Piola-Kirchhoff
 * stress dPsi/dF (Pa); C (81, may be NULL): dP/dF (Pa), exact if project = 0, else projected
 * onto the positive semi-definite cone (its negative eigenvalues set to 0). Neo-Hookean with
 * det F <= 0 returns +INFINITY and leaves P and C untouched. */
double cm_fem_psi(const cmFemMaterial* mat, const double F[9], double* P, double* C, int project);

/* elastic energy of the tet (J) at positions x: vol Psi(F); grad (12, may be NULL): dE/dx (N);
 * hess (144, may be NULL, row-major): a symmetric positive semi-definite d2E/dx2 (N/m): the
 * exact Hessian projected onto PSD through the analytic eigensystem of dP/dF (the eigenvalues
 * of dP/dF clamped at 0; equal to the exact Hessian wherever dP/dF is PSD; always exact for
 * the linear model). Neo-Hookean with det F <= 0 returns +INFINITY and leaves grad and hess
 * untouched. The energy and grad are the same bit for bit whether or not grad and hess are
 * asked for. Cost per tet (-O2, one core): 0.04 / 0.06 / 0.25 us (linear: energy / with grad /
 * with grad and Hessian), 0.6 / 0.6-0.7 / 1.1-1.5 us (corotated: an SVD for each), 0.04 / 0.06 /
 * 1.5-1.9 us (Neo-Hookean: the SVD for the Hessian only). */
double cm_fem_tet_energy(const cmFemMaterial* mat, const double Dminv[9], double vol,
                         const double x[12], double* grad, double* hess);

/* cm_fem_tet_energy with the choice of the exact (project = 0; symmetric, maybe indefinite) or
 * the projected (project = 1) Hessian */
double cm_fem_tet_energy_ex(const cmFemMaterial* mat, const double Dminv[9], double vol,
                            const double x[12], double* grad, double* hess, int project);

/* Cauchy stress sigma (3x3 row-major, Pa, may be NULL) of the tet at x and the von Mises
 * stress sqrt(3/2 s:s) (Pa, s the deviator of sigma) returned. LINEAR: the small-strain stress
 * 2 mu eps + lambda tr(eps) I. COROTATED and NEOHOOKEAN: sigma = P F^T / det F; for an inverted
 * corotated tet (det F <= 0) the rotated stress P R^T (equal to the Cauchy stress to first order
 * in the strain). Neo-Hookean with det F <= 0 returns +INFINITY, sigma untouched. */
double cm_fem_tet_von_mises(const cmFemMaterial* mat, const double Dminv[9], const double x[12],
                            double sigma[9]);

/* Signed singular value decomposition F = U diag(s) V^T of a 3x3 matrix: U and V proper
 * rotations, s1 >= s2 >= |s3|, s3 < 0 iff det F < 0 (the "rotation variant" SVD). */
void cm_fem_svd3(const double F[9], double U[9], double s[3], double V[9]);

#endif
