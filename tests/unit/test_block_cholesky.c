/* The block-sparse Cholesky (src/solve/block_cholesky.c) against the dense Cholesky
 * (src/core/linalg.c, tested by unit/test_linalg).
 *
 * Matrices: random SPD block-sparse matrices over graphs (random, chain, 2D and 3D grids, a
 * disconnected set with isolated nodes, a star, one node). The off-diagonal block of every edge
 * is random in [-1, 1]; the diagonal blocks are C C^T (C random) plus (1 + the absolute row sum
 * of the off-diagonal blocks) I, so the matrix is symmetric and strictly diagonally dominant
 * with a positive diagonal, hence SPD and well conditioned (kappa ~ 10): a solve must then meet
 * the dense one to ~1e-14, and we ask 1e-12 in the relative residual |A x - b| / |b| and in
 * |x - x_dense| / |x_dense|.
 *
 * Structure: the pattern of L contains the (permuted) pattern of A, and it is exactly the
 * pattern of the dense factor of P A P^T: every entry of the dense factor outside the symbolic
 * pattern is zero (no cancellation can occur with random values), and L L^T = P A P^T.
 * Conjugate gradients preconditioned by the factor (cm_bchol_pcg_factor) solve the stored
 * matrix, in one iteration when it is the factor's own and in a few after it changed.
 * Determinism: the ordering depends on the set of edges, not on their order or duplicates, and
 * the factor equals, bit for bit, that of the plainest up-looking loop on untransposed blocks
 * (reference_diff). */
#include <string.h>

#include "core/arena.h"
#include "core/linalg.h"
#include "solve/block_cholesky.h"
#include "test.h"

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static double rnd(void) {
  return 2 * test_urand(&rng) - 1;
} /* uniform in [-1, 1) */

static double norm(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

/* is block (row p, column q), p > q, in the pattern of L? */
static int in_l(const cmBlockChol* c, int p, int q) {
  for (int e = c->lp[q]; e < c->lp[q + 1]; e++)
    if (c->lrow[e] == p) return 1;
  return 0;
}

/* The factorisation in its plainest form (the first version of cm_bchol_factor: up-looking,
 * row by row, on untransposed blocks, every entry a dot product summed k = 0..5 and subtracted
 * once, the row solves by cm_chol_forward) on the same pattern; cm_bchol_factor must give the
 * same L bit for bit, whatever its loop order and storage (the Newton iterations of every scene
 * depend on it). Returns the number of doubles of L that differ. */
static long reference_diff(const cmBlockChol* c) {
  int n = c->n;
  long nl = c->lp[n], diff = 0;
  double* X = calloc((size_t)n * 36 + 1, sizeof *X);
  double* lx = calloc((size_t)nl * 36 + 1, sizeof *lx);
  double* ld = calloc((size_t)n * 36 + 1, sizeof *ld);
  int* next = calloc((size_t)n + 1, sizeof *next);
  for (int q = 0; q < n; q++)
    next[q] = c->lp[q];
  for (int p = 0; p < n; p++) {
    double D[36];
    for (int t = c->rp[p]; t < c->rp[p + 1]; t++)
      memset(X + 36 * c->rcol[t], 0, 36 * sizeof *X);
    for (int a = c->ap[p]; a < c->ap[p + 1]; a++)
      memcpy(X + 36 * c->acol[a], c->ax + 36 * a, 36 * sizeof *X);
    memcpy(D, c->ad + 36 * p, sizeof D);
    for (int t = c->rp[p]; t < c->rp[p + 1]; t++) {
      int q = c->rcol[t];
      double* L = X + 36 * q;
      for (int a = 0; a < 6; a++)
        cm_chol_forward(ld + 36 * q, 6, L + 6 * a);
      for (int e = c->lp[q]; e <= next[q]; e++) {
        double* Y = e < next[q] ? X + 36 * c->lrow[e] : D;
        const double* B = e < next[q] ? lx + 36 * e : L;
        for (int a = 0; a < 6; a++)
          for (int b = 0; b < 6; b++) {
            double sum = L[6 * a] * B[6 * b];
            for (int k = 1; k < 6; k++)
              sum += L[6 * a + k] * B[6 * b + k];
            Y[6 * a + b] -= sum;
          }
      }
      memcpy(lx + 36 * next[q], L, 36 * sizeof *L);
      next[q]++;
    }
    if (!cm_chol_factor(D, ld + 36 * p, 6)) break;
  }
  for (long k = 0; k < 36 * nl; k++)
    diff += memcmp(lx + k, c->lx + k, sizeof *lx) != 0;
  for (long k = 0; k < 36L * n; k++)
    diff += memcmp(ld + k, c->ld + k, sizeof *ld) != 0;
  free(X);
  free(lx);
  free(ld);
  free(next);
  return diff;
}

static void check_graph(const char* name, int nb, int ne, const int* edge) {
  int n = 6 * nb;
  double* A = calloc((size_t)n * n, sizeof *A);
  double* F = calloc((size_t)n * n, sizeof *F);
  double *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
  double *xd = calloc((size_t)n, sizeof *xd), *r = calloc((size_t)n, sizeof *r);
  /* the matrix (duplicated edges add twice, as rows of a contact do) */
  for (int e = 0; e < ne; e++) {
    int i = edge[2 * e], j = edge[2 * e + 1];
    for (int a = 0; a < 6; a++)
      for (int c = 0; c < 6; c++) {
        double v = rnd();
        A[(6 * i + a) * n + 6 * j + c] += v;
        A[(6 * j + c) * n + 6 * i + a] += v;
      }
  }
  for (int i = 0; i < nb; i++) {
    double C[36];
    for (int k = 0; k < 36; k++)
      C[k] = rnd();
    for (int a = 0; a < 6; a++) {
      double off = 0;
      for (int k = 0; k < n; k++)
        if (k / 6 != i) off += fabs(A[(6 * i + a) * n + k]);
      for (int c = 0; c < 6; c++) {
        double s = 0;
        for (int k = 0; k < 6; k++)
          s += C[6 * a + k] * C[6 * c + k];
        A[(6 * i + a) * n + 6 * i + c] = s + (a == c ? 1 + off + 6 * 6 : 0);
      }
    }
  }
  cmArena arena;
  cm_arena_init(&arena, 1 << 12);
  cmBlockChol bc;
  CHECK(cm_bchol_analyse(&bc, &arena, nb, ne, edge) == 0);
  /* the permutation is one */
  int* seen = calloc((size_t)nb + 1, sizeof *seen);
  for (int p = 0; p < nb; p++) {
    CHECK(bc.perm[p] >= 0 && bc.perm[p] < nb && !seen[bc.perm[p]]);
    seen[bc.perm[p]] = 1;
    CHECK(bc.iperm[bc.perm[p]] == p);
  }
  /* assemble through the slots */
  cm_bchol_zero(&bc);
  for (int i = 0; i < nb; i++) {
    double* D = cm_bchol_diag(&bc, i);
    for (int a = 0; a < 6; a++)
      for (int c = 0; c < 6; c++)
        D[6 * a + c] = A[(6 * i + a) * n + 6 * i + c];
  }
  int nblocks = 0, pattern_ok = 1;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) {
      if (i == j || bc.iperm[i] < bc.iperm[j]) continue;
      int nz = 0;
      for (int a = 0; a < 36 && !nz; a++)
        nz = A[(6 * i + a / 6) * n + 6 * j + a % 6] != 0;
      int s = cm_bchol_slot(&bc, i, j);
      CHECK(cm_bchol_slot(&bc, j, i) == s);
      if (!nz) {
        CHECK(s < 0);
        continue;
      }
      CHECK(s >= 0);
      if (s < 0) continue;
      nblocks++;
      double* B = cm_bchol_block(&bc, s);
      for (int a = 0; a < 6; a++)
        for (int c = 0; c < 6; c++)
          B[6 * a + c] = A[(6 * i + a) * n + 6 * j + c];
      /* the fill pattern contains the matrix pattern */
      pattern_ok &= in_l(&bc, bc.iperm[i], bc.iperm[j]);
    }
  CHECK(pattern_ok);
  CHECK(cm_bchol_factor(&bc) == 1);
  CHECK(reference_diff(&bc) == 0);
  for (int i = 0; i < n; i++)
    b[i] = x[i] = xd[i] = rnd();
  cm_bchol_solve(&bc, x);
  /* residual */
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < n; k++)
      s += A[i * n + k] * x[k];
    r[i] = s - b[i];
  }
  double res = norm(r, n) / norm(b, n);
  /* the dense factor of A itself */
  memcpy(F, A, (size_t)n * n * sizeof *F);
  CHECK(cm_chol_factor(F, F, n));
  cm_chol_solve(F, n, xd);
  for (int i = 0; i < n; i++)
    r[i] = x[i] - xd[i];
  double dx = norm(r, n) / norm(xd, n);
  CHECK(res <= 1e-12);
  CHECK(dx <= 1e-12);
  /* the dense factor of P A P^T: zero outside the symbolic pattern, equal to L inside */
  for (int p = 0; p < nb; p++)
    for (int q = 0; q < nb; q++)
      for (int a = 0; a < 6; a++)
        for (int c = 0; c < 6; c++)
          F[(6 * p + a) * n + 6 * q + c] = A[(6 * bc.perm[p] + a) * n + 6 * bc.perm[q] + c];
  CHECK(cm_chol_factor(F, F, n));
  double lerr = 0, lmax = 0;
  int outside = 0;
  for (int p = 0; p < nb; p++)
    for (int q = 0; q < p; q++) {
      const double* Lb = NULL;
      for (int e = bc.lp[q]; e < bc.lp[q + 1]; e++)
        if (bc.lrow[e] == p) Lb = bc.lx + 36 * e;
      for (int a = 0; a < 36; a++) {
        double v = F[(6 * p + a / 6) * n + 6 * q + a % 6];
        if (!Lb) {
          outside += v != 0;
        } else {
          lerr = fmax(lerr, fabs(v - Lb[a]));
          lmax = fmax(lmax, fabs(v));
        }
      }
    }
  for (int p = 0; p < nb; p++)
    for (int a = 0; a < 36; a++)
      lerr = fmax(lerr, fabs(F[(6 * p + a / 6) * n + 6 * p + a % 6] - bc.ld[36 * p + a]));
  CHECK(outside == 0);
  CHECK(lerr <= 1e-12 * (lmax > 1 ? lmax : 1));
  /* conjugate gradients preconditioned by the factor (the Newton iterations' reuse): with the
   * factor of the stored matrix itself, one iteration; after the matrix changed (every third
   * diagonal block + 0.5 I, as a contact's stiffness changes), the solution of the changed
   * matrix, in fewer iterations than unknowns; too few allowed: -1 */
  {
    double* w4 = calloc(4 * (size_t)n + 1, sizeof *w4);
    double* y4 = calloc((size_t)n, sizeof *y4);
    int k1 = cm_bchol_pcg_factor(&bc, b, y4, 1e-12, 5, w4);
    CHECK(k1 >= 0 && k1 <= 2);
    for (int i = 0; i < n; i++)
      r[i] = y4[i] - xd[i];
    CHECK(norm(r, n) <= 1e-11 * norm(xd, n));
    double* A2 = malloc((size_t)n * n * sizeof *A2);
    memcpy(A2, A, (size_t)n * n * sizeof *A2);
    for (int i = 0; i < nb; i += 3)
      for (int a = 0; a < 6; a++) {
        cm_bchol_diag(&bc, i)[7 * a] += 0.5;
        A2[(6 * i + a) * n + 6 * i + a] += 0.5;
      }
    double* x2 = malloc((size_t)n * sizeof *x2);
    memcpy(x2, b, (size_t)n * sizeof *x2);
    CHECK(cm_chol_factor(A2, A2, n));
    cm_chol_solve(A2, n, x2);
    int k2 = cm_bchol_pcg_factor(&bc, b, y4, 1e-12, n, w4);
    CHECK(k2 > 1 && k2 < n);
    for (int i = 0; i < n; i++)
      r[i] = y4[i] - x2[i];
    CHECK(norm(r, n) <= 1e-10 * norm(x2, n));
    if (k2 > 1) CHECK(cm_bchol_pcg_factor(&bc, b, y4, 1e-12, 1, w4) == -1);
    for (int i = 0; i < nb; i += 3)
      for (int a = 0; a < 6; a++)
        cm_bchol_diag(&bc, i)[7 * a] -= 0.5;
    free(A2);
    free(x2);
    free(w4);
    free(y4);
  }
  /* the matrix alone (cm_bchol_pattern, identity order) assembled through its slots: its
   * product is the dense A x, and conjugate gradients find the dense solution */
  cmBlockChol pc;
  CHECK(cm_bchol_pattern(&pc, &arena, nb, ne, edge) == 0);
  cm_bchol_zero(&pc);
  for (int i = 0; i < nb; i++) {
    CHECK(pc.perm[i] == i && pc.iperm[i] == i);
    for (int k = 0; k < 36; k++)
      cm_bchol_diag(&pc, i)[k] = A[(6 * i + k / 6) * n + 6 * i + k % 6];
    for (int j = 0; j < i; j++) {
      int sl = cm_bchol_slot(&pc, i, j);
      CHECK((sl >= 0) == (cm_bchol_slot(&bc, i, j) >= 0));
      if (sl < 0) continue;
      for (int k = 0; k < 36; k++)
        cm_bchol_block(&pc, sl)[k] = A[(6 * i + k / 6) * n + 6 * j + k % 6];
    }
  }
  double* y = calloc((size_t)n, sizeof *y);
  double* w = calloc((size_t)nb * 90 + 1, sizeof *w);
  cm_bchol_matvec(&pc, b, y);
  double merr = 0;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < n; k++)
      s += A[i * n + k] * b[k];
    merr = fmax(merr, fabs(y[i] - s));
  }
  CHECK(merr <= 1e-12 * norm(b, n) * n);
  int it = cm_bchol_pcg(&pc, b, y, 1e-13, 10 * n, w, 1);
  CHECK(it > 0 && it < 10 * n);
  for (int i = 0; i < n; i++)
    r[i] = y[i] - xd[i];
  CHECK(norm(r, n) <= 1e-11 * norm(xd, n));
  /* again on the same matrix with the preconditioner the first call left (setup 0): the
   * solution of twice the right side */
  double* b2 = calloc((size_t)n, sizeof *b2);
  for (int i = 0; i < n; i++)
    b2[i] = 2 * b[i];
  int it2 = cm_bchol_pcg(&pc, b2, y, 1e-13, 10 * n, w, 0);
  CHECK(it2 == it);
  for (int i = 0; i < n; i++)
    r[i] = y[i] - 2 * xd[i];
  CHECK(norm(r, n) <= 2e-11 * norm(xd, n));
  free(b2);
  /* a diagonal block that is not positive definite is reported */
  cm_bchol_diag(&pc, nb - 1)[0] = -1;
  CHECK(cm_bchol_pcg(&pc, b, y, 1e-13, 10, w, 1) == -1);
  free(y);
  free(w);
  printf("  %-12s %4d bodies, %4d lower blocks of A, %5ld of L, %.3g Mflop: residual %.2g, "
         "vs dense %.2g\n",
         name, nb, nblocks, bc.nnz_l, bc.flops * 2e-6, res, dx);
  cm_arena_destroy(&arena);
  free(seen);
  free(A);
  free(F);
  free(b);
  free(x);
  free(xd);
  free(r);
}

static void test_graphs(void) {
  int* e = malloc(sizeof(int) * 2 * 4000);
  int ne, nb;
  /* random graph, with duplicates */
  nb = 40;
  ne = 0;
  for (int k = 0; k < 90; k++) {
    int i = (int)((rnd() + 1) * 0.5 * nb), j = (int)((rnd() + 1) * 0.5 * nb);
    if (i == j) continue;
    e[2 * ne] = i;
    e[2 * ne + 1] = j;
    ne++;
  }
  e[2 * ne] = e[0]; /* a duplicate */
  e[2 * ne + 1] = e[1];
  ne++;
  check_graph("random", nb, ne, e);
  /* chain in a shuffled numbering */
  nb = 60;
  ne = 0;
  for (int k = 0; k + 1 < nb; k++) {
    e[2 * ne] = (7 * k) % nb;
    e[2 * ne + 1] = (7 * (k + 1)) % nb;
    ne++;
  }
  check_graph("chain", nb, ne, e);
  /* 2D grid 8 x 6 */
  nb = 48;
  ne = 0;
  for (int y = 0; y < 6; y++)
    for (int x = 0; x < 8; x++) {
      if (x + 1 < 8) e[2 * ne] = 8 * y + x, e[2 * ne + 1] = 8 * y + x + 1, ne++;
      if (y + 1 < 6) e[2 * ne] = 8 * y + x, e[2 * ne + 1] = 8 * (y + 1) + x, ne++;
    }
  check_graph("grid 8x6", nb, ne, e);
  /* 3D grid 4 x 4 x 4 with diagonals in each layer (boxes touching edge to edge) */
  nb = 64;
  ne = 0;
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++) {
        int i = 16 * z + 4 * y + x;
        if (x + 1 < 4) e[2 * ne] = i, e[2 * ne + 1] = i + 1, ne++;
        if (y + 1 < 4) e[2 * ne] = i, e[2 * ne + 1] = i + 4, ne++;
        if (z + 1 < 4) e[2 * ne] = i + 16, e[2 * ne + 1] = i, ne++;
        if (x + 1 < 4 && y + 1 < 4) e[2 * ne] = i, e[2 * ne + 1] = i + 5, ne++;
      }
  check_graph("grid 4x4x4", nb, ne, e);
  /* disconnected: two chains, a triangle, isolated nodes */
  nb = 20;
  ne = 0;
  int pairs[][2] = {{0, 3}, {3, 6}, {6, 9}, {1, 4}, {4, 7}, {10, 11}, {11, 12}, {12, 10}};
  for (int k = 0; k < 8; k++)
    e[2 * ne] = pairs[k][0], e[2 * ne + 1] = pairs[k][1], ne++;
  check_graph("disconnected", nb, ne, e);
  /* star: one body under many */
  nb = 30;
  ne = 0;
  for (int k = 1; k < nb; k++)
    e[2 * ne] = k, e[2 * ne + 1] = 0, ne++;
  check_graph("star", nb, ne, e);
  check_graph("one", 1, 0, e);
  free(e);
}

/* the order depends on the edge set only */
static void test_deterministic(void) {
  int e1[] = {0, 1, 1, 2, 2, 3, 3, 0, 1, 4, 4, 5, 5, 2, 6, 0};
  int e2[] = {5, 2, 2, 1, 0, 6, 4, 5, 0, 3, 1, 0, 2, 3, 1, 4, 4, 1, 2, 1};
  cmArena arena;
  cm_arena_init(&arena, 1 << 10);
  cmBlockChol a, b;
  CHECK(cm_bchol_analyse(&a, &arena, 7, 8, e1) == 0);
  CHECK(cm_bchol_analyse(&b, &arena, 7, 10, e2) == 0);
  for (int p = 0; p < 7; p++)
    CHECK(a.perm[p] == b.perm[p]);
  CHECK(a.nnz_l == b.nnz_l);
  /* not positive definite: reported */
  cm_bchol_zero(&a);
  for (int i = 0; i < 7; i++)
    for (int k = 0; k < 6; k++)
      cm_bchol_diag(&a, i)[7 * k] = i == 3 && k == 2 ? -1 : 1;
  CHECK(cm_bchol_factor(&a) == 0);
  cm_arena_destroy(&arena);
}

/* an indefinite matrix of positive definite diagonal blocks, [[I, 2I], [2I, I]] (eigenvalues 3
 * and -1), along a direction of negative curvature (v, -v): conjugate gradients report -2 (the
 * solve then goes on with the elements' projected stiffness) */
static void test_pcg_indefinite(void) {
  cmArena arena;
  cm_arena_init(&arena, 1 << 12);
  cmBlockChol ic;
  int edge[2] = {0, 1};
  CHECK(cm_bchol_pattern(&ic, &arena, 2, 1, edge) == 0);
  cm_bchol_zero(&ic);
  for (int k = 0; k < 6; k++) {
    cm_bchol_diag(&ic, 0)[7 * k] = cm_bchol_diag(&ic, 1)[7 * k] = 1;
    cm_bchol_block(&ic, cm_bchol_slot(&ic, 1, 0))[7 * k] = 2;
  }
  double bb[12], xx[12], w[2 * 90 + 1];
  for (int k = 0; k < 6; k++)
    bb[k] = 1 + k, bb[6 + k] = -(1 + k);
  CHECK(cm_bchol_pcg(&ic, bb, xx, 1e-12, 50, w, 1) == -2);
  /* made positive definite (off-diagonal 0.5): solved */
  for (int k = 0; k < 6; k++)
    cm_bchol_block(&ic, cm_bchol_slot(&ic, 1, 0))[7 * k] = 0.5;
  CHECK(cm_bchol_pcg(&ic, bb, xx, 1e-12, 50, w, 1) > 0);
  CHECK(fabs(xx[0] - 1 / 0.5) < 1e-9); /* (1 - 0.5) x = 1 along (v, -v) */
  cm_arena_destroy(&arena);
}

/* the same pattern arrays, value for value */
static int same_pattern(const cmBlockChol* a, const cmBlockChol* b) {
  int n = a->n;
  if (b->n != n || a->nnz_l != b->nnz_l || a->flops != b->flops) return 0;
  long nl = a->nnz_l, na = a->ap[n];
  return !memcmp(a->perm, b->perm, (size_t)n * sizeof(int)) &&
         !memcmp(a->iperm, b->iperm, (size_t)n * sizeof(int)) &&
         !memcmp(a->ap, b->ap, ((size_t)n + 1) * sizeof(int)) &&
         !memcmp(a->acol, b->acol, (size_t)na * sizeof(int)) &&
         !memcmp(a->parent, b->parent, (size_t)n * sizeof(int)) &&
         !memcmp(a->lp, b->lp, ((size_t)n + 1) * sizeof(int)) &&
         !memcmp(a->lrow, b->lrow, (size_t)nl * sizeof(int)) &&
         !memcmp(a->rp, b->rp, ((size_t)n + 1) * sizeof(int)) &&
         !memcmp(a->rcol, b->rcol, (size_t)nl * sizeof(int));
}

/* a diagonally dominant symmetric matrix on the pattern of c (the value of entry (a, c) of the
 * block between bodies i < j a function of i, j, a, c), factorised; x = A^-1 (1, 2, ...) */
static int factor_solve(cmBlockChol* c, int nb, int ne, const int* edge, double* x) {
  cm_bchol_zero(c);
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < 6; k++)
      cm_bchol_diag(c, i)[7 * k] = 100 + i % 7;
  for (int e = 0; e < ne; e++) {
    int i = edge[2 * e], j = edge[2 * e + 1];
    int lo = i < j ? i : j, hi = i < j ? j : i, s = cm_bchol_slot(c, lo, hi);
    if (s < 0) return 0;
    /* the stored block is (lo, hi) if lo comes later in the order, else (hi, lo) */
    int lo_row = c->iperm[lo] > c->iperm[hi];
    double* B = cm_bchol_block(c, s);
    for (int a = 0; a < 6; a++)
      for (int k = 0; k < 6; k++) {
        int r = lo_row ? a : k, q = lo_row ? k : a; /* entry (r, q) of block (lo, hi) */
        B[6 * a + k] = 0.1 * sin(1.0 + lo + 3.0 * hi + 0.7 * r + 0.3 * q);
      }
  }
  if (!cm_bchol_factor(c)) return 0;
  for (int i = 0; i < 6 * nb; i++)
    x[i] = 1 + i;
  cm_bchol_solve(c, x);
  return 1;
}

/* cm_bchol_analyse_kept: the first call analyses and keeps; a second call with the same set of
 * edges (other order, a duplicate) takes the kept pattern arrays (the same addresses) with new
 * numeric arrays, and the solve is the same bit for bit as after a fresh analysis; another
 * pattern (one edge fewer) analyses again, equal to cm_bchol_analyse of it */
static void test_kept_analysis(void) {
  enum { NX = 4, NY = 4, NZ = 3, NB = NX * NY * NZ };
  int edge[2 * 3 * NB + 2], ne = 0;
  for (int z = 0; z < NZ; z++)
    for (int y = 0; y < NY; y++)
      for (int x = 0; x < NX; x++) {
        int i = x + NX * (y + NY * z);
        if (x + 1 < NX) edge[2 * ne] = i, edge[2 * ne++ + 1] = i + 1;
        if (y + 1 < NY) edge[2 * ne] = i, edge[2 * ne++ + 1] = i + NX;
        if (z + 1 < NZ) edge[2 * ne] = i, edge[2 * ne++ + 1] = i + NX * NY;
      }
  /* the same set: reversed, each pair turned round, the first one twice */
  int shuffled[2 * 3 * NB + 4], ns = 0;
  for (int e = ne - 1; e >= 0; e--)
    shuffled[2 * ns] = edge[2 * e + 1], shuffled[2 * ns++ + 1] = edge[2 * e];
  shuffled[2 * ns] = edge[0], shuffled[2 * ns++ + 1] = edge[1];
  cmArena arena, keep, own;
  cm_arena_init(&arena, 1 << 12);
  cm_arena_init(&own, 1 << 12); /* the plain analyses' */
  memset(&keep, 0, sizeof keep);
  void* kept = NULL;
  int hit = -1;
  double x0[6 * NB], x1[6 * NB], x2[6 * NB];
  cmBlockChol plain, k1, k2;
  CHECK(cm_bchol_analyse(&plain, &own, NB, ne, edge) == 0);
  CHECK(factor_solve(&plain, NB, ne, edge, x0));
  CHECK(cm_bchol_analyse_kept(&k1, &arena, NB, ne, edge, &keep, &kept, &hit) == 0);
  CHECK(hit == 0 && kept != NULL);
  CHECK(same_pattern(&plain, &k1));
  cm_arena_reset(&arena); /* a new step: the kept arrays survive the step's arena */
  CHECK(cm_bchol_analyse_kept(&k2, &arena, NB, ns, shuffled, &keep, &kept, &hit) == 0);
  CHECK(hit == 1);
  CHECK(k2.perm == k1.perm && k2.lrow == k1.lrow && k2.rcol == k1.rcol);
  CHECK(same_pattern(&plain, &k2));
  CHECK(factor_solve(&k2, NB, ns, shuffled, x1));
  CHECK(!memcmp(x0, x1, sizeof x0));
  /* one pair fewer: analysed again, as a fresh analysis of that pattern */
  CHECK(cm_bchol_analyse_kept(&k2, &arena, NB, ne - 1, edge, &keep, &kept, &hit) == 0);
  CHECK(hit == 0 && kept != NULL);
  CHECK(cm_bchol_analyse(&plain, &own, NB, ne - 1, edge) == 0);
  CHECK(same_pattern(&plain, &k2));
  CHECK(factor_solve(&k2, NB, ne - 1, edge, x2));
  CHECK(factor_solve(&plain, NB, ne - 1, edge, x1));
  CHECK(!memcmp(x1, x2, sizeof x1));
  /* one body more, the same edges: another pattern */
  CHECK(cm_bchol_analyse_kept(&k2, &arena, NB + 1, ne - 1, edge, &keep, &kept, &hit) == 0);
  CHECK(hit == 0);
  cm_arena_destroy(&arena);
  cm_arena_destroy(&own);
  cm_arena_destroy(&keep);
}

int main(void) {
  RUN(test_graphs);
  RUN(test_deterministic);
  RUN(test_pcg_indefinite);
  RUN(test_kept_analysis);
  return test_report();
}
