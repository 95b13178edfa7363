/* The implicit compliant contact solve (SPEC 6, DESIGN 4).
 *
 * Every implicit row k obeys its law at the middle of the step:
 *   lambda = -(f + (h/2) y / c) - D y,  lambda >= 0,
 * with y = J_k u the separation rate at the end of the step. With alpha = 1/(h/(2c) + D),
 * R = alpha / h, b = -alpha f this is y + R lambda_imp = b, lambda_imp = h lambda >= 0
 * complementary, i.e. lambda_imp = max(0, (b - y)/R). These are exactly the optimality
 * conditions of the convex problem
 *
 *   min_u E(u) = 1/2 (u - u*)^T M (u - u*) + sum_k max(0, b_k - J_k u)^2 / (2 R_k)
 *
 * over the end velocities u (6 per body: v of the com and w, world), where u* is the free
 * velocity of solve.c (gravity, outer forces, explicit contacts, gyroscopic update). Its
 * gradient g = M (u - u*) - J^T lambda_imp is the momentum residual; its Hessian
 * H = M + sum_{active k} J_k^T J_k / R_k is positive definite. Newton's method with an exact
 * line search (E along a direction is a convex piecewise quadratic: its derivative is monotone
 * and piecewise linear, found by safeguarded regula falsi) converges in a handful of iterations,
 * finitely in exact arithmetic once the active set settles. The solve runs per island (bodies
 * connected through implicit rows, found by union-find); each Newton step is a dense Cholesky
 * factorisation of the island's 6n x 6n Hessian.
 *
 * Convergence: |g| <= tol * max(|M u*|, |J^T lambda_imp|, m_island * |u*|), tol = 1e-10,
 * at most 50 iterations; otherwise the step goes on with the best iterate and counts a
 * CM_WARN_SOLVER warning. */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "model/data_internal.h"
#include "solve/solve_implicit.h"

#define TOL 1e-10
#define MAX_ITER 50

static int find(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* the 12 Jacobian entries of a row: [n, rA x n] for A, [-n, -(rB x n)] for B */
static void row_jacobian(const cmRow* r, double JA[6], double JB[6]) {
  double t[3];
  cm_v3_copy(JA, r->n);
  cm_v3_cross(t, r->rA, r->n);
  cm_v3_copy(JA + 3, t);
  cm_v3_scale(JB, r->n, -1);
  cm_v3_cross(t, r->rB, r->n);
  cm_v3_scale(JB + 3, t, -1);
}

/* in-place Cholesky factorisation of the n x n SPD matrix A (lower triangle); 0 if not SPD */
static int cholesky(double* A, int n) {
  for (int j = 0; j < n; j++) {
    double s = A[j * n + j];
    for (int k = 0; k < j; k++) s -= A[j * n + k] * A[j * n + k];
    if (!(s > 0)) return 0;
    double ljj = sqrt(s);
    A[j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double t = A[i * n + j];
      for (int k = 0; k < j; k++) t -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = t / ljj;
    }
  }
  return 1;
}

static void cholesky_solve(const double* L, int n, double* x) {
  for (int i = 0; i < n; i++) {
    double s = x[i];
    for (int k = 0; k < i; k++) s -= L[i * n + k] * x[k];
    x[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++) s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
}

typedef struct Island {
  int nb;          /* bodies */
  const int* body; /* global body indices (nb) */
  int nr;          /* rows */
  cmRow** row;     /* (nr) */
  const int* loc;  /* global body -> local index, -1 if not a variable */
  double* Mb;      /* per body 6x6 mass blocks: m I3 and the world inertia (nb x 36) */
  double h;
} Island;

/* J_k u for row k with body velocities u (6 per local body) */
static double row_dot(const Island* is, const cmRow* r, const double* u) {
  double JA[6], JB[6], y = 0;
  row_jacobian(r, JA, JB);
  for (int s = 0; s < 2; s++) {
    int l = is->loc[r->body[s]];
    if (l < 0) continue;
    const double* J = s ? JB : JA;
    for (int k = 0; k < 6; k++) y += J[k] * u[6 * l + k];
  }
  return y;
}

/* R_k and b_k of a row */
static void row_rb(const cmRow* r, double h, double* R, double* b) {
  double alpha = 1.0 / (0.5 * h / r->c + r->D);
  *R = alpha / h;
  *b = -alpha * r->f;
}

static void mass_mul(const Island* is, const double* x, double* y) {
  for (int l = 0; l < is->nb; l++) {
    const double* M = is->Mb + 36 * l;
    for (int i = 0; i < 6; i++) {
      double s = 0;
      for (int j = 0; j < 6; j++) s += M[6 * i + j] * x[6 * l + j];
      y[6 * l + i] = s;
    }
  }
}

/* derivative of E(u + t du) with respect to t */
static double line_slope(const Island* is, const double* u, const double* us, const double* du,
                         const double* Mdu, const double* Jdu, const double* y0, double t) {
  double s = 0;
  int n = 6 * is->nb;
  for (int i = 0; i < n; i++) s += Mdu[i] * (u[i] + t * du[i] - us[i]);
  for (int k = 0; k < is->nr; k++) {
    double R, b;
    row_rb(is->row[k], is->h, &R, &b);
    double lam = (b - (y0[k] + t * Jdu[k])) / R;
    if (lam > 0) s -= Jdu[k] * lam;
  }
  return s;
}

/* Newton on one island; returns iterations (negative if not converged), residual in *res */
static int solve_island(Island* is, cmArena* arena, double* u, const double* us, double* res) {
  int n = 6 * is->nb;
  double* g = cm_arena_alloc(arena, (size_t)n * sizeof *g);
  double* du = cm_arena_alloc(arena, (size_t)n * sizeof *du);
  double* Mdu = cm_arena_alloc(arena, (size_t)n * sizeof *Mdu);
  double* H = cm_arena_alloc(arena, (size_t)n * (size_t)n * sizeof *H);
  double* y = cm_arena_alloc(arena, (size_t)(is->nr ? is->nr : 1) * sizeof *y);
  double* Jdu = cm_arena_alloc(arena, (size_t)(is->nr ? is->nr : 1) * sizeof *Jdu);
  if (!g || !du || !Mdu || !H || !y || !Jdu) return -MAX_ITER;
  /* momentum scale */
  mass_mul(is, us, g);
  double pscale = 0;
  for (int i = 0; i < n; i++) pscale += g[i] * g[i];
  pscale = sqrt(pscale);
  for (int it = 0; it <= MAX_ITER; it++) {
    /* gradient g = M (u - u*) - J^T lambda, and the size of the contact impulses */
    for (int i = 0; i < n; i++) du[i] = u[i] - us[i];
    mass_mul(is, du, g);
    double jl2 = 0;
    memset(H, 0, (size_t)n * (size_t)n * sizeof *H);
    for (int k = 0; k < is->nr; k++) {
      const cmRow* r = is->row[k];
      double R, b, JA[6], JB[6];
      row_rb(r, is->h, &R, &b);
      y[k] = row_dot(is, r, u);
      double lam = (b - y[k]) / R;
      if (!(lam > 0)) continue;
      jl2 += lam * lam;
      row_jacobian(r, JA, JB);
      const double* J[2] = {JA, JB};
      for (int s = 0; s < 2; s++) {
        int ls = is->loc[r->body[s]];
        if (ls < 0) continue;
        for (int i = 0; i < 6; i++) g[6 * ls + i] -= J[s][i] * lam;
        /* Hessian: J^T J / R into the blocks of the row's bodies */
        for (int t = 0; t < 2; t++) {
          int lt = is->loc[r->body[t]];
          if (lt < 0) continue;
          for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) H[(6 * ls + i) * n + 6 * lt + j] += J[s][i] * J[t][j] / R;
        }
      }
    }
    double gn = 0;
    for (int i = 0; i < n; i++) gn += g[i] * g[i];
    gn = sqrt(gn);
    double scale = pscale > sqrt(jl2) ? pscale : sqrt(jl2);
    if (scale < 1e-300) scale = 1e-300;
    *res = gn / scale;
    if (*res <= TOL) return it;
    if (it == MAX_ITER) break;
    /* Newton direction: (M + sum J^T J / R) du = -g */
    for (int l = 0; l < is->nb; l++)
      for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) H[(6 * l + i) * n + 6 * l + j] += is->Mb[36 * l + 6 * i + j];
    if (!cholesky(H, n)) return -it - 1;
    for (int i = 0; i < n; i++) du[i] = -g[i];
    cholesky_solve(H, n, du);
    /* exact line search on the monotone piecewise-linear slope */
    mass_mul(is, du, Mdu);
    for (int k = 0; k < is->nr; k++) Jdu[k] = row_dot(is, is->row[k], du);
    double lo = 0, hi = 1, slo = line_slope(is, u, us, du, Mdu, Jdu, y, 0);
    double shi = line_slope(is, u, us, du, Mdu, Jdu, y, 1);
    while (shi < 0 && hi < 1e6) {
      lo = hi;
      slo = shi;
      hi *= 2;
      shi = line_slope(is, u, us, du, Mdu, Jdu, y, hi);
    }
    double t = hi;
    if (shi > 0 && slo < 0) {
      int side = 0;
      for (int ls = 0; ls < 60; ls++) {
        t = (lo * shi - hi * slo) / (shi - slo);
        double st = line_slope(is, u, us, du, Mdu, Jdu, y, t);
        if (fabs(st) <= 1e-15 * fabs(slo) || hi - lo <= 1e-15 * hi) break;
        if (st < 0) {
          lo = t;
          slo = st;
          if (side == -1) shi *= 0.5; /* Illinois: keep the bracket shrinking from both ends */
          side = -1;
        } else {
          hi = t;
          shi = st;
          if (side == 1) slo *= 0.5;
          side = 1;
        }
      }
    }
    for (int i = 0; i < n; i++) u[i] += t * du[i];
  }
  return -MAX_ITER;
}

void cm_solve_implicit(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  int nb = m->nbody, nimp = 0;
  for (int k = 0; k < p->nrow; k++) nimp += p->row[k].implicit;
  d->solver_iter = 0;
  d->solver_residual = 0;
  if (!nimp) return;
  int* parent = cm_arena_alloc(arena, (size_t)nb * sizeof *parent);
  int* loc = cm_arena_alloc(arena, (size_t)nb * sizeof *loc);
  int* start = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *start);
  int* bodies = cm_arena_alloc(arena, (size_t)nb * sizeof *bodies);
  cmRow** rows = cm_arena_alloc(arena, (size_t)nimp * sizeof *rows);
  int* rstart = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *rstart);
  if (!parent || !loc || !start || !bodies || !rows || !rstart) {
    d->warning[CM_WARN_SOLVER]++;
    return;
  }
  /* islands: union-find over dynamic bodies joined by implicit rows */
  for (int b = 0; b < nb; b++) parent[b] = b;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!r->implicit) continue;
    int a = r->body[0], b = r->body[1];
    if (m->body_invmass[a] > 0 && m->body_invmass[b] > 0) {
      int ra = find(parent, a), rb = find(parent, b);
      if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
  }
  /* bodies and rows grouped by island root (counting sort: deterministic order) */
  for (int b = 0; b < nb; b++) {
    loc[b] = -1;
    if (m->body_invmass[b] > 0) start[find(parent, b) + 1]++;
  }
  for (int b = 0; b < nb; b++) start[b + 1] += start[b];
  int* fill = cm_arena_alloc(arena, (size_t)nb * sizeof *fill);
  if (!fill) return;
  memcpy(fill, start, (size_t)nb * sizeof *fill);
  for (int b = 0; b < nb; b++)
    if (m->body_invmass[b] > 0) {
      int r = find(parent, b);
      loc[b] = fill[r] - start[r];
      bodies[fill[r]++] = b;
    }
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!r->implicit) continue;
    int b = m->body_invmass[r->body[0]] > 0 ? r->body[0] : r->body[1];
    if (m->body_invmass[b] > 0) rstart[find(parent, b) + 1]++;
  }
  for (int b = 0; b < nb; b++) rstart[b + 1] += rstart[b];
  memcpy(fill, rstart, (size_t)nb * sizeof *fill);
  for (int k = 0; k < p->nrow; k++) {
    cmRow* r = &p->row[k];
    if (!r->implicit) continue;
    int b = m->body_invmass[r->body[0]] > 0 ? r->body[0] : r->body[1];
    if (m->body_invmass[b] > 0) rows[fill[find(parent, b)]++] = r;
  }
  /* solve every island with rows */
  for (int root = 0; root < nb; root++) {
    int nr = rstart[root + 1] - rstart[root];
    if (!nr) continue;
    Island is;
    is.nb = start[root + 1] - start[root];
    is.body = bodies + start[root];
    is.nr = nr;
    is.row = rows + rstart[root];
    is.loc = loc;
    is.h = h;
    int n = 6 * is.nb;
    is.Mb = cm_arena_calloc(arena, (size_t)is.nb * 36, sizeof(double));
    double* u = cm_arena_alloc(arena, (size_t)n * sizeof *u);
    double* us = cm_arena_alloc(arena, (size_t)n * sizeof *us);
    if (!is.Mb || !u || !us) {
      d->warning[CM_WARN_SOLVER]++;
      continue;
    }
    for (int l = 0; l < is.nb; l++) {
      int b = is.body[l];
      double* M = is.Mb + 36 * l;
      double R[9], Iw[9];
      for (int i = 0; i < 3; i++) M[6 * i + i] = m->body_mass[b];
      cm_quat_to_mat(R, d->body_xquat + 4 * b);
      cm_m3_rotate(Iw, R, m->body_inertia + 9 * b);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) M[6 * (3 + i) + 3 + j] = Iw[3 * i + j];
      memcpy(us + 6 * l, d->body_cvel + 3 * b, 3 * sizeof(double));
      memcpy(us + 6 * l + 3, d->body_angvel + 3 * b, 3 * sizeof(double));
    }
    memcpy(u, us, (size_t)n * sizeof *u);
    double res = 0;
    int it = solve_island(&is, arena, u, us, &res);
    if (it < 0) {
      d->warning[CM_WARN_SOLVER]++;
      it = -it;
    }
    if (it > d->solver_iter) d->solver_iter = it;
    if (res > d->solver_residual) d->solver_residual = res;
    /* end velocities and the rows' forces lambda = lambda_imp / h */
    for (int l = 0; l < is.nb; l++) {
      int b = is.body[l];
      memcpy(d->body_cvel + 3 * b, u + 6 * l, 3 * sizeof(double));
      memcpy(d->body_angvel + 3 * b, u + 6 * l + 3, 3 * sizeof(double));
    }
    for (int k = 0; k < nr; k++) {
      cmRow* r = is.row[k];
      double Rk, bk;
      row_rb(r, h, &Rk, &bk);
      double lam = (bk - row_dot(&is, r, u)) / Rk;
      r->lambda = lam > 0 ? lam / h : 0;
    }
  }
  if (d->solver_iter > d->solver_max_iter) d->solver_max_iter = d->solver_iter;
  if (d->solver_residual > d->solver_max_residual) d->solver_max_residual = d->solver_residual;
}
