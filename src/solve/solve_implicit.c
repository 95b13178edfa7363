/* The implicit compliant contact solve with friction (SPEC 6, DESIGN 4).
 *
 * Normal rows. Every implicit row k obeys its law at the middle of the step:
 *   lambda = -(f + (h/2) y / c) - D y,  lambda >= 0,
 * with y = J_k u the separation rate at the end of the step. With alpha = 1/(h/(2c) + D),
 * R = alpha / h, b = -alpha f this is y + R lambda_imp = b, lambda_imp = h lambda >= 0
 * complementary, i.e. lambda_imp = max(0, (b - y)/R), the derivative of the convex potential
 * phi(y) = max(0, b - y)^2 / (2 R).
 *
 * Friction (Coulomb cone, regularised). A row with friction coefficient mu has two tangent
 * directions t1, t2; its tangential slip rate w = (t1, t2) . (v_A(p) - v_B(p)) at the end of the
 * step meets the impulse gamma = -L w / max(|w|, v_s): opposite to the slip, of magnitude L when
 * sliding faster than v_s = CM_FRICTION_VS and proportionally smaller below (stiction creeps at
 * most at v_s). L = mu lambda_imp is the Coulomb limit. gamma is minus the gradient of the convex
 * potential psi(w) = L H(|w|), H(r) = r^2/(2 v_s) for r <= v_s, r - v_s/2 beyond.
 *
 * The end velocities u (6 per body: v of the com and w, world) minimise the convex function
 *
 *   E(u) = 1/2 (u - u*)^T M (u - u*) + sum_k phi_k(J_k u) + sum_k psi_k(T_k u)
 *
 * for fixed limits L_k (u* = the free velocity of solve.c). Newton's method with an exact line
 * search (the slope of E along a direction is monotone: found by safeguarded regula falsi)
 * converges in a few iterations; each Newton step factorises the island's 6n x 6n Hessian
 * M + sum J^T H J: a dense Cholesky for islands of at most cm_bchol_dense_max = 8 bodies
 * (216 n^3 / 3 multiply-adds; as fast as the sparse one at that size, and it keeps the results
 * of small scenes unchanged), a block-sparse one beyond (block_cholesky.c: reverse Cuthill-McKee
 * order of the bodies, elimination tree, 6x6 blocks; analysed once per island and step on the
 * pattern of all the island's rows, active or not, and assembled directly into that store, no
 * dense matrix). The Coulomb limits depend on the normal impulses, so an outer fixed point sets
 * L_k = mu lambda_imp,k from the previous solution and solves again until the limits change by
 * less than 1e-9 of the largest (a frictionless problem needs one pass). Unlike a friction cone
 * inside one convex problem (whose associated flow rule makes sliding bodies separate at a rate
 * mu |w|), this keeps the normal law exact while sliding.
 *
 * Convergence: |grad E| <= 1e-10 max(|M u*|, |impulses|), at most 50 Newton iterations and 30
 * outer passes, otherwise CM_WARN_SOLVER. The solve runs per island (bodies joined through
 * implicit rows, found by union-find). */
#include <math.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/linalg.h"
#include "model/data_internal.h"
#include "solve/block_cholesky.h"
#include "solve/solve.h"

#define TOL 1e-10
#define MAX_ITER 50
#define MAX_OUTER 30
#define OUTER_TOL 1e-9

static int find(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Jacobian of direction dir at a row: [dir, rA x dir] for A, [-dir, -(rB x dir)] for B */
static void dir_jacobian(const cmRow* r, const double dir[3], double JA[6], double JB[6]) {
  double t[3];
  cm_v3_copy(JA, dir);
  cm_v3_cross(t, r->rA, dir);
  cm_v3_copy(JA + 3, t);
  cm_v3_scale(JB, dir, -1);
  cm_v3_cross(t, r->rB, dir);
  cm_v3_scale(JB + 3, t, -1);
}

typedef struct Island {
  int nb;          /* bodies */
  const int* body; /* global body indices (nb) */
  int nr;          /* rows */
  cmRow** row;     /* (nr) */
  const int* loc;  /* global body -> local index, -1 if not a variable */
  double* Mb;      /* per body 6x6 mass blocks: m I3 and the world inertia (nb x 36) */
  double* limit;   /* Coulomb limit impulse per row (nr) */
  double h;
  cmBlockChol* bc; /* block-sparse Hessian and factor, NULL: the dense path */
  int* slot;       /* per row: its off-diagonal block in bc (-1: none) */
} Island;

/* where the Newton Hessian is assembled: a dense n x n matrix or the block-sparse store */
typedef struct Hess {
  double* dense; /* the dense path: the full n x n matrix (n = 6 nb) */
  int n;
  cmBlockChol* bc; /* the sparse path: diagonal and lower off-diagonal blocks only */
} Hess;

static int local(const Island* is, int b) { return b < 0 ? -1 : is->loc[b]; }

/* rate along direction dir of row r for body velocities u */
static double dir_dot(const Island* is, const cmRow* r, const double dir[3], const double* u) {
  double JA[6], JB[6], y = 0;
  dir_jacobian(r, dir, JA, JB);
  for (int s = 0; s < 2; s++) {
    int l = local(is, r->body[s]);
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

/* the friction impulse (2) and its 2x2 Hessian for slip w and limit L */
static void friction_law(const double w[2], double L, double g[2], double Hf[4]) {
  double r = sqrt(w[0] * w[0] + w[1] * w[1]), vs = CM_FRICTION_VS;
  if (r <= vs) {
    g[0] = -L * w[0] / vs;
    g[1] = -L * w[1] / vs;
    if (Hf) {
      Hf[0] = Hf[3] = L / vs;
      Hf[1] = Hf[2] = 0;
    }
  } else {
    double u0 = w[0] / r, u1 = w[1] / r;
    g[0] = -L * u0;
    g[1] = -L * u1;
    if (Hf) {
      Hf[0] = L / r * (1 - u0 * u0);
      Hf[1] = Hf[2] = -L / r * u0 * u1;
      Hf[3] = L / r * (1 - u1 * u1);
    }
  }
}

/* add J^T x (x: 1 impulse along dir) into g (scaled by -1: gradient) and J^T h J into H */
static void scatter(const Island* is, int k, const double (*dir)[3], int ndir, const double* imp,
                    const double* hess, double* g, Hess* H) {
  const cmRow* r = is->row[k];
  double J[3][2][6];
  for (int d = 0; d < ndir; d++) dir_jacobian(r, dir[d], J[d][0], J[d][1]);
  for (int s = 0; s < 2; s++) {
    int ls = local(is, r->body[s]);
    if (ls < 0) continue;
    for (int d = 0; d < ndir; d++)
      for (int i = 0; i < 6; i++) g[6 * ls + i] -= J[d][s][i] * imp[d];
    if (!H) continue;
    for (int t = 0; t < 2; t++) {
      int lt = local(is, r->body[t]);
      if (lt < 0) continue;
      double* B;
      size_t stride = 6;
      if (H->dense) {
        stride = (size_t)H->n;
        B = H->dense + (size_t)(6 * ls) * stride + (size_t)(6 * lt);
      } else if (ls == lt) {
        B = cm_bchol_diag(H->bc, ls);
      } else if (H->bc->iperm[ls] > H->bc->iperm[lt]) {
        B = cm_bchol_block(H->bc, is->slot[k]); /* the lower block; its transpose is implied */
      } else {
        continue;
      }
      for (int d = 0; d < ndir; d++)
        for (int e = 0; e < ndir; e++) {
          double h = hess[d * ndir + e];
          if (h == 0) continue;
          for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
              B[(size_t)i * stride + (size_t)j] += J[d][s][i] * h * J[e][t][j];
        }
    }
  }
}

/* gradient (into g, which holds M (u - u*) on entry), optional Hessian, impulse norm^2 */
static double rows_eval(const Island* is, const double* u, double* g, Hess* H) {
  double imp2 = 0;
  for (int k = 0; k < is->nr; k++) {
    const cmRow* r = is->row[k];
    double R, b;
    row_rb(r, is->h, &R, &b);
    double lam = (b - dir_dot(is, r, r->n, u)) / R;
    if (lam > 0) {
      double hn = 1 / R;
      scatter(is, k, (const double (*)[3])r->n, 1, &lam, &hn, g, H);
      imp2 += lam * lam;
    }
    if (is->limit[k] > 0) {
      double w[2] = {dir_dot(is, r, r->t[0], u), dir_dot(is, r, r->t[1], u)}, gf[2], Hf[4];
      friction_law(w, is->limit[k], gf, H ? Hf : NULL);
      scatter(is, k, (const double (*)[3])r->t, 2, gf, Hf, g, H);
      imp2 += gf[0] * gf[0] + gf[1] * gf[1];
    }
  }
  return imp2;
}

/* slope of E(u + t du) */
static double line_slope(const Island* is, const double* u, const double* us, const double* du,
                         const double* Mdu, double t, double* ut) {
  int n = 6 * is->nb;
  double s = 0;
  for (int i = 0; i < n; i++) {
    ut[i] = u[i] + t * du[i];
    s += Mdu[i] * (ut[i] - us[i]);
  }
  for (int k = 0; k < is->nr; k++) {
    const cmRow* r = is->row[k];
    double R, b;
    row_rb(r, is->h, &R, &b);
    double lam = (b - dir_dot(is, r, r->n, ut)) / R;
    if (lam > 0) s -= dir_dot(is, r, r->n, du) * lam;
    if (is->limit[k] > 0) {
      double w[2] = {dir_dot(is, r, r->t[0], ut), dir_dot(is, r, r->t[1], ut)}, gf[2];
      friction_law(w, is->limit[k], gf, NULL);
      s -= dir_dot(is, r, r->t[0], du) * gf[0] + dir_dot(is, r, r->t[1], du) * gf[1];
    }
  }
  return s;
}

/* Newton on one island for fixed limits; returns iterations (negative if not converged) */
static int newton(Island* is, cmArena* arena, double* u, const double* us, double pscale,
                  double* res) {
  int n = 6 * is->nb;
  double* g = cm_arena_alloc(arena, (size_t)n * sizeof *g);
  double* du = cm_arena_alloc(arena, (size_t)n * sizeof *du);
  double* Mdu = cm_arena_alloc(arena, (size_t)n * sizeof *Mdu);
  double* ut = cm_arena_alloc(arena, (size_t)n * sizeof *ut);
  Hess hs = {NULL, n, is->bc};
  if (!is->bc) hs.dense = cm_arena_alloc(arena, (size_t)n * (size_t)n * sizeof(double));
  double* H = hs.dense;
  if (!g || !du || !Mdu || !ut || (!H && !is->bc)) return -MAX_ITER;
  for (int it = 0; it <= MAX_ITER; it++) {
    for (int i = 0; i < n; i++) du[i] = u[i] - us[i];
    mass_mul(is, du, g);
    if (H)
      memset(H, 0, (size_t)n * (size_t)n * sizeof *H);
    else
      cm_bchol_zero(is->bc);
    double imp = sqrt(rows_eval(is, u, g, &hs));
    double gn = 0;
    for (int i = 0; i < n; i++) gn += g[i] * g[i];
    double scale = pscale > imp ? pscale : imp;
    *res = sqrt(gn) / (scale > 1e-300 ? scale : 1e-300);
    if (*res <= TOL) return it;
    if (it == MAX_ITER) break;
    /* Newton direction */
    for (int i = 0; i < n; i++) du[i] = -g[i];
    if (H) {
      for (int l = 0; l < is->nb; l++)
        for (int i = 0; i < 6; i++)
          for (int j = 0; j < 6; j++)
            H[(6 * l + i) * n + 6 * l + j] += is->Mb[36 * l + 6 * i + j];
      if (!cm_chol_factor(H, H, n)) return -it - 1; /* in place */
      cm_chol_solve(H, n, du);
    } else {
      for (int l = 0; l < is->nb; l++) {
        double* B = cm_bchol_diag(is->bc, l);
        for (int i = 0; i < 36; i++)
          B[i] += is->Mb[36 * l + i];
      }
      if (!cm_bchol_factor(is->bc)) return -it - 1;
      cm_bchol_solve(is->bc, du);
    }
    /* exact line search on the monotone slope */
    mass_mul(is, du, Mdu);
    double lo = 0, hi = 1, slo = line_slope(is, u, us, du, Mdu, 0, ut);
    double shi = line_slope(is, u, us, du, Mdu, 1, ut);
    while (shi < 0 && hi < 1e6) {
      lo = hi;
      slo = shi;
      hi *= 2;
      shi = line_slope(is, u, us, du, Mdu, hi, ut);
    }
    double t = hi;
    if (shi > 0 && slo < 0) {
      int side = 0;
      for (int ls = 0; ls < 60; ls++) {
        t = (lo * shi - hi * slo) / (shi - slo);
        double st = line_slope(is, u, us, du, Mdu, t, ut);
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

/* normal impulse of a row at velocities u */
static double normal_impulse(const Island* is, const cmRow* r, const double* u) {
  double R, b;
  row_rb(r, is->h, &R, &b);
  double lam = (b - dir_dot(is, r, r->n, u)) / R;
  return lam > 0 ? lam : 0;
}

/* the outer fixed point on the Coulomb limits; returns Newton iterations in total */
static int solve_island(Island* is, cmArena* arena, double* u, const double* us, double* res,
                        int* failed) {
  int n = 6 * is->nb, total = 0;
  double* g = cm_arena_alloc(arena, (size_t)n * sizeof *g);
  if (!g) {
    *failed = 1;
    return 0;
  }
  mass_mul(is, us, g);
  double pscale = 0;
  for (int i = 0; i < n; i++) pscale += g[i] * g[i];
  pscale = sqrt(pscale);
  int any_friction = 0;
  for (int k = 0; k < is->nr; k++) {
    is->limit[k] = 0;
    any_friction |= is->row[k]->mu > 0;
  }
  for (int outer = 0; outer < MAX_OUTER; outer++) {
    int it = newton(is, arena, u, us, pscale, res);
    if (it < 0) {
      *failed = 1;
      it = -it;
    }
    total += it;
    if (!any_friction) return total;
    /* new limits from the normal impulses. The normal impulses are known to the Newton
     * tolerance, TOL times the momentum scale, so the limits cannot settle more finely than
     * mu_max times that: the loop stops at whichever bound is larger */
    double change = 0, big = 0, imp2 = 0, mu_max = 0;
    for (int k = 0; k < is->nr; k++) {
      double lam = normal_impulse(is, is->row[k], u), L = is->row[k]->mu * lam;
      change = fmax(change, fabs(L - is->limit[k]));
      big = fmax(big, L);
      imp2 += lam * lam;
      mu_max = fmax(mu_max, is->row[k]->mu);
      is->limit[k] = L;
    }
    double noise = 10 * TOL * mu_max * fmax(pscale, sqrt(imp2));
    if (change <= fmax(OUTER_TOL * big, noise)) return total;
  }
  *failed = 1;
  return total;
}

/* the block-sparse Hessian store of an island: its pattern is every pair of bodies coupled by
 * a row (whether active or not), so one analysis serves all Newton iterations and outer passes
 * of the step; returns nonzero when out of memory */
static int block_sparse(Island* is, cmArena* arena) {
  int* edge = cm_arena_alloc(arena, (size_t)(2 * is->nr + 1) * sizeof *edge);
  is->slot = cm_arena_alloc(arena, (size_t)(is->nr + 1) * sizeof *is->slot);
  is->bc = cm_arena_alloc(arena, sizeof *is->bc);
  if (!edge || !is->slot || !is->bc) return 1;
  int ne = 0;
  for (int k = 0; k < is->nr; k++) {
    int a = local(is, is->row[k]->body[0]), b = local(is, is->row[k]->body[1]);
    if (a >= 0 && b >= 0 && a != b) {
      edge[2 * ne] = a;
      edge[2 * ne + 1] = b;
      ne++;
    }
  }
  if (cm_bchol_analyse(is->bc, arena, is->nb, ne, edge)) return 1;
  for (int k = 0; k < is->nr; k++) {
    int a = local(is, is->row[k]->body[0]), b = local(is, is->row[k]->body[1]);
    is->slot[k] = a >= 0 && b >= 0 ? cm_bchol_slot(is->bc, a, b) : -1;
  }
  return 0;
}


void cm_solve_implicit(const cmModel* m, cmData* d, double h) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  int nb = m->nbody, nimp = 0;
  for (int k = 0; k < p->nrow; k++) nimp += p->row[k].implicit;
  d->solver_iter = 0;
  d->solver_residual = 0;
  if (!nimp) return;
  int dense_max = cm_bchol_dense_max;
  int* parent = cm_arena_alloc(arena, (size_t)nb * sizeof *parent);
  int* loc = cm_arena_alloc(arena, (size_t)nb * sizeof *loc);
  int* start = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *start);
  int* bodies = cm_arena_alloc(arena, (size_t)nb * sizeof *bodies);
  cmRow** rows = cm_arena_alloc(arena, (size_t)nimp * sizeof *rows);
  int* rstart = cm_arena_calloc(arena, (size_t)nb + 1, sizeof *rstart);
  int* fill = cm_arena_alloc(arena, (size_t)nb * sizeof *fill);
  if (!parent || !loc || !start || !bodies || !rows || !rstart || !fill) {
    d->warning[CM_WARN_SOLVER]++;
    return;
  }
#define DYN(b) ((b) >= 0 && m->body_invmass[b] > 0)
  /* islands: union-find over dynamic bodies joined by implicit rows */
  for (int b = 0; b < nb; b++) parent[b] = b;
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (!r->implicit || !DYN(r->body[0]) || !DYN(r->body[1])) continue;
    int ra = find(parent, r->body[0]), rb = find(parent, r->body[1]);
    if (ra != rb) parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
  }
  /* bodies and rows grouped by island root (counting sort: deterministic order) */
  for (int b = 0; b < nb; b++) {
    loc[b] = -1;
    if (DYN(b)) start[find(parent, b) + 1]++;
  }
  for (int b = 0; b < nb; b++) start[b + 1] += start[b];
  memcpy(fill, start, (size_t)nb * sizeof *fill);
  for (int b = 0; b < nb; b++)
    if (DYN(b)) {
      int r = find(parent, b);
      loc[b] = fill[r] - start[r];
      bodies[fill[r]++] = b;
    }
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    int b = DYN(r->body[0]) ? r->body[0] : r->body[1];
    if (r->implicit && DYN(b)) rstart[find(parent, b) + 1]++;
  }
  for (int b = 0; b < nb; b++) rstart[b + 1] += rstart[b];
  memcpy(fill, rstart, (size_t)nb * sizeof *fill);
  for (int k = 0; k < p->nrow; k++) {
    cmRow* r = &p->row[k];
    int b = DYN(r->body[0]) ? r->body[0] : r->body[1];
    if (r->implicit && DYN(b)) rows[fill[find(parent, b)]++] = r;
  }
#undef DYN
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
    is.limit = cm_arena_calloc(arena, (size_t)nr, sizeof(double));
    double* u = cm_arena_alloc(arena, (size_t)n * sizeof *u);
    double* us = cm_arena_alloc(arena, (size_t)n * sizeof *us);
    if (!is.Mb || !is.limit || !u || !us) {
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
    int failed = 0;
    is.bc = NULL;
    is.slot = NULL;
    if (is.nb > dense_max && block_sparse(&is, arena)) {
      d->warning[CM_WARN_SOLVER]++;
      continue;
    }
    int it = solve_island(&is, arena, u, us, &res, &failed);
    if (failed) d->warning[CM_WARN_SOLVER]++;
    if (it > d->solver_iter) d->solver_iter = it;
    if (res > d->solver_residual) d->solver_residual = res;
    /* end velocities and the rows' forces (impulse / h) */
    for (int l = 0; l < is.nb; l++) {
      int b = is.body[l];
      memcpy(d->body_cvel + 3 * b, u + 6 * l, 3 * sizeof(double));
      memcpy(d->body_angvel + 3 * b, u + 6 * l + 3, 3 * sizeof(double));
    }
    for (int k = 0; k < nr; k++) {
      cmRow* r = is.row[k];
      r->lambda = normal_impulse(&is, r, u) / h;
      r->ftan[0] = r->ftan[1] = 0;
      if (is.limit[k] > 0) {
        double w[2] = {dir_dot(&is, r, r->t[0], u), dir_dot(&is, r, r->t[1], u)}, gf[2];
        friction_law(w, is.limit[k], gf, NULL);
        r->ftan[0] = gf[0] / h;
        r->ftan[1] = gf[1] / h;
      }
    }
  }
  if (d->solver_iter > d->solver_max_iter) d->solver_max_iter = d->solver_iter;
  if (d->solver_residual > d->solver_max_residual) d->solver_max_residual = d->solver_residual;
}
