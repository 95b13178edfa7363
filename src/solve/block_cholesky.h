/* Block-sparse Cholesky factorisation of symmetric positive definite matrices made of 6x6 blocks
 * (the Newton Hessian of the implicit solve: one block row per body). See block_cholesky.c for
 * the method and its cost.
 *
 * Use: cm_bchol_analyse once per sparsity pattern (the graph of the off-diagonal blocks), then
 * per numeric matrix: zero the blocks (cm_bchol_zero), add into the diagonal blocks
 * (cm_bchol_diag) and the lower off-diagonal blocks (cm_bchol_block), cm_bchol_factor,
 * cm_bchol_solve. All memory comes from the arena given to cm_bchol_analyse; nothing allocates
 * after it. Deterministic: the result depends only on the pattern (edge list order included only
 * through the set of edges) and the values. */
#ifndef CM_BLOCK_CHOLESKY_H
#define CM_BLOCK_CHOLESKY_H

#include <math.h>
#include <string.h>

#include "core/arena.h"

typedef struct cmBlockChol {
  int n;      /* block rows */
  int* perm;  /* perm[p]: the original index of the p-th eliminated block row */
  int* iperm; /* iperm[i]: the position of original block row i */
  /* lower triangle of the (permuted) matrix, by block row: row p holds the off-diagonal blocks
   * of columns acol[ap[p] .. ap[p+1]) (ascending, < p), values ax (36 each, row-major) */
  int *ap, *acol;
  double *ax, *ad; /* off-diagonal and diagonal (n x 36) blocks of the matrix */
  /* the factor L by block column: column q holds rows lrow[lp[q] .. lp[q+1]) (ascending, > q)
   * with blocks lx; ld holds the diagonal blocks (lower triangular 6x6) */
  int *lp, *lrow;
  double *lx, *ld;
  /* the same blocks transposed (L_qp^T, row-major), for the forward solve: its products with
   * y_q then run along contiguous rows, as the backward solve's do on lx */
  double* lxt;
  double* ldi;  /* the inverses of the blocks of ld (cm_chol_inverse), for the solves */
  double* ldit; /* the same transposed, for the forward solve's products */
  /* the pattern of every row of L (rows of L by block row, columns ascending, < p) */
  int *rp, *rcol;
  int* parent;  /* elimination tree (-1: root) */
  int* lnext;   /* work: next free slot per column during factorisation */
  double* work; /* work: n x 36 (factorisation) / 6 n (solve) */
  long nnz_l;   /* off-diagonal blocks of L */
  /* optional (NULL: none; cm_bchol_matvec only): per block row, 1 if only its first 3 rows and
   * columns can be nonzero off the diagonal (a node of a deformable body: 3 unknowns padded to
   * 6), so that the product skips the zeros of the blocks between two such rows */
  const unsigned char* small;
  double flops; /* multiply-adds of one factorisation */
  /* the deduplicated, sorted adjacency of the pattern (neighbours of i in adj[xadj[i] ..
   * xadj[i+1])), from the step's arena: for cm_bchol_pattern_again */
  const int *xadj, *adj;
} cmBlockChol;

/* the island size (block rows) at or below which cm_solve_implicit uses its dense Cholesky
 * instead (tests and benchmarks may change it; read once per step, not thread-safe to write
 * during a step). 4: on the S2 pile of 27 boxes, islands of 5 to 8 boxes factorised block-sparse
 * made the whole run 4 % faster than with 8 (125 boxes: 2 %, S4 spheres: 1 %; side by side in
 * one process, bench/README.md); the two factorisations differ only by rounding. */
extern int cm_bchol_dense_max;

/* Symbolic analysis of the pattern with n block rows and the off-diagonal blocks (i, j) and
 * (j, i) for every pair edge[2e], edge[2e+1] (i != j; duplicates allowed; pairs with i == j
 * ignored). Orders by approximate minimum degree (AMD), computes the elimination tree and the
 * pattern of L. Returns 0 on success, -1 if the arena is out of memory. */
int cm_bchol_analyse(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge);

/* cm_bchol_analyse with the analysis kept from one call to the next: the pattern's arrays (order,
 * lower pattern, elimination tree, pattern of L) live in the arena `keep` (the caller's, reset
 * here when the pattern changes) with their key, the deduplicated adjacency; *kept (NULL the
 * first time) points to them. When the pattern is the one kept (the same set of pairs: an
 * island whose bodies touch the same neighbours as in the last step), only the adjacency is
 * built and compared and the numeric arrays taken from `arena` (*hit = 1); else the analysis
 * runs and is kept. The result is the same as cm_bchol_analyse's, which is a function of the
 * pattern alone. Returns 0, or -1 without memory (then *kept may be NULL). */
int cm_bchol_analyse_kept(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge,
                          cmArena* keep, void** kept, int* hit);

/* The matrix store alone, for the conjugate gradients of block_pcg.c: the pattern of the edges
 * in the original order (perm and iperm the identity), ap/acol/ax/ad, no factor (lp, lx, ...
 * NULL: cm_bchol_factor must not be called). Cheap: no ordering, no symbolic factorisation.
 * Returns 0, or -1 if the arena is out of memory. */
int cm_bchol_pattern(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge);
/* cm_bchol_pattern of the pattern c was analysed for in this step (cm_bchol_analyse or
 * cm_bchol_analyse_kept), in place of that analysis, without building its adjacency again */
int cm_bchol_pattern_again(cmBlockChol* c, cmArena* arena);
/* y = A x (x, y: 6 n, original order) for the stored symmetric matrix (diagonal blocks and the
 * lower blocks with their implied transposes) */
void cm_bchol_matvec(const cmBlockChol* c, const double* x, double* y);
/* Conjugate gradients on A x = b for the matrix now in the store of an analysed pattern
 * (cm_bchol_analyse), preconditioned by the factor L L^T the store holds from an earlier
 * cm_bchol_factor (of a nearby matrix: the Newton iterations of one time step), from x = 0
 * until |r| <= rtol |b| (b, x: 6 n, original order). work: 4 x 6 n doubles. Returns the
 * iterations taken, -1 if not converged in maxit, -2 if a search direction has p^T A p <= 0. */
int cm_bchol_pcg_factor(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                        double* work);

/* Conjugate gradients on A x = b, preconditioned by symmetric block Gauss-Seidel,
 * from x = 0 until |r| <= rtol |b| or maxit iterations (x: 6 n). work: 3 * 6 n + 72 n doubles.
 * setup: 1 to derive the preconditioner from the diagonal blocks into work; 0 to use the one
 * work holds from an earlier call on the same matrix (the solves of one Newton iteration).
 * Returns the iterations taken, -1 if a diagonal block is not positive definite, -2 if a search
 * direction p has p^T A p <= 0 (A is not positive definite). Every iterate is a descent
 * direction of the quadratic model when A is positive definite. */
int cm_bchol_pcg(const cmBlockChol* c, const double* b, double* x, double rtol, int maxit,
                 double* work, int setup);

/* the symmetric block Gauss-Seidel preconditioner of cm_bchol_pcg on its own: set up from the
 * diagonal blocks into work (as cm_bchol_pcg with setup; -1 if a block is not positive
 * definite), and z = M^-1 r with it (r, z: 6 n, distinct) */
int cm_bchol_sgs_setup(const cmBlockChol* c, double* work);
void cm_bchol_sgs_apply(const cmBlockChol* c, const double* work, const double* r, double* z);

/* the storage slot of the off-diagonal block (i, j) in original indices, -1 if i == j or not in
 * the pattern. The block stored is the lower one, (i, j) if iperm[i] > iperm[j], else (j, i). */
int cm_bchol_slot(const cmBlockChol* c, int i, int j);

/* zero the matrix values */
void cm_bchol_zero(cmBlockChol* c);
/* the diagonal block of original row i (row-major 6x6) */
static inline double* cm_bchol_diag(cmBlockChol* c, int i) {
  return c->ad + 36 * c->iperm[i];
}
/* the off-diagonal block of a slot (row-major 6x6) */
static inline double* cm_bchol_block(cmBlockChol* c, int slot) {
  return c->ax + 36 * slot;
}

/* numeric factorisation of the stored matrix; 0 if it is not positive definite, 1 otherwise */
int cm_bchol_factor(cmBlockChol* c);
/* solve A x = b in place (x: 6 n, original order) with the factor */
void cm_bchol_solve(cmBlockChol* c, double* x);
/* the same in the analysed order (y: 6 n, position p holds original row perm[p]): y := (L
 * L^T)^-1 y, no permutation and no workspace */
void cm_bchol_solve_perm(const cmBlockChol* c, double* y);

/* Kernels shared by block_cholesky.c, block_pcg.c and solve_implicit.c's dense factor.
 * Pairs of doubles (GCC/Clang vector extension): lane by lane the same IEEE operations as the
 * scalar code, two at a time (SSE2 on x86-64); the compiler unrolled the scalar loops of the
 * solves and products into scalar code rather than vectorise them. */
typedef double v2d __attribute__((vector_size(16)));

/* the pair at p, 16-byte aligned (blocks from the arena, 36 doubles each, rows of 6) */
static inline v2d cm_v2_lda(const double* p) {
  v2d v;
  memcpy(&v, __builtin_assume_aligned(p, 16), sizeof v);
  return v;
}
/* the pair at p, any alignment (the caller's vectors) */
static inline v2d cm_v2_ld(const double* p) {
  v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void cm_v2_st(double* p, v2d v) {
  memcpy(p, &v, sizeof v);
}

static inline v2d cm_v2_dup(double a) {
  return (v2d){a, a};
}

/* L = chol(A) from the lower triangle of A, and W = L^-1, Wt = W^T: cm_chol_factor's and
 * cm_chol_inverse's arithmetic for n = 6, unrolled (their loops have variable trip counts) */
static inline int cm_bchol_chol6(const double* restrict A, double* restrict L, double* restrict W,
                                 double* restrict Wt) {
#pragma GCC unroll 6
  for (int j = 0; j < 6; j++) {
    double s = A[j * 6 + j];
#pragma GCC unroll 6
    for (int k = 0; k < j; k++)
      s -= L[j * 6 + k] * L[j * 6 + k];
    if (!(s > 0)) return 0;
    double ljj = sqrt(s);
    L[j * 6 + j] = ljj;
#pragma GCC unroll 6
    for (int i = j + 1; i < 6; i++) {
      double t = A[i * 6 + j];
#pragma GCC unroll 6
      for (int k = 0; k < j; k++)
        t -= L[i * 6 + k] * L[j * 6 + k];
      L[i * 6 + j] = t / ljj;
      L[j * 6 + i] = 0;
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) {
    double w = 1 / L[i * 6 + i];
    W[i * 6 + i] = Wt[i * 6 + i] = w;
#pragma GCC unroll 6
    for (int j = i + 1; j < 6; j++)
      W[i * 6 + j] = Wt[j * 6 + i] = 0;
  }
#pragma GCC unroll 6
  for (int j = 0; j < 6; j++)
#pragma GCC unroll 6
    for (int i = j + 1; i < 6; i++) {
      double s = 0;
#pragma GCC unroll 6
      for (int k = j; k < i; k++)
        s += L[i * 6 + k] * W[k * 6 + j];
      W[i * 6 + j] = Wt[j * 6 + i] = -s * W[i * 6 + i];
    }
  return 1;
}

/* s = W y for W = L^-1 from cm_bchol_chol6, from the rows of Wt = W^T (16-byte aligned), as pairs
 * of entries (0, 1), (2, 3), (4, 5): entry i is 0 + W_i0 y_0 + ... + W_ii y_i in that order
 * (cm_tri_lower_mul), the last term of an odd lane added alone */
static inline void cm_v2_lower_mul(const double* restrict Wt, const double* restrict y, v2d s[3]) {
  const v2d zero = {0, 0};
  v2d x0 = cm_v2_dup(y[0]), x1 = cm_v2_dup(y[1]), x2 = cm_v2_dup(y[2]), x3 = cm_v2_dup(y[3]),
      x4 = cm_v2_dup(y[4]);
  s[0] = zero + cm_v2_lda(Wt) * x0;
  s[1] = zero + cm_v2_lda(Wt + 2) * x0 + cm_v2_lda(Wt + 8) * x1 + cm_v2_lda(Wt + 14) * x2;
  s[2] = zero + cm_v2_lda(Wt + 4) * x0 + cm_v2_lda(Wt + 10) * x1 + cm_v2_lda(Wt + 16) * x2 +
         cm_v2_lda(Wt + 22) * x3 + cm_v2_lda(Wt + 28) * x4;
  s[0][1] += Wt[7] * y[1];
  s[1][1] += Wt[21] * y[3];
  s[2][1] += Wt[35] * y[5];
}

/* t := W^T t for W = L^-1 from cm_bchol_chol6 (16-byte aligned), t the pairs of entries (0, 1),
 * (2, 3), (4, 5): entry i is 0 + W_ii t_i + ... + W_5i t_5 in that order (cm_tri_upper_mul),
 * from the rows of W, the first term of an even lane added alone */
static inline void cm_v2_upper_mul(const double* restrict W, v2d t[3]) {
  v2d x1 = cm_v2_dup(t[0][1]), x2 = cm_v2_dup(t[1][0]), x3 = cm_v2_dup(t[1][1]),
      x4 = cm_v2_dup(t[2][0]);
  v2d x5 = cm_v2_dup(t[2][1]);
  v2d s0 = {0 + W[0] * t[0][0], 0}, s1 = {0 + W[14] * t[1][0], 0};
  v2d s2 = {0 + W[28] * t[2][0], 0};
  s0 += cm_v2_lda(W + 6) * x1;
  s0 += cm_v2_lda(W + 12) * x2;
  s0 += cm_v2_lda(W + 18) * x3;
  s0 += cm_v2_lda(W + 24) * x4;
  s0 += cm_v2_lda(W + 30) * x5;
  s1 += cm_v2_lda(W + 20) * x3;
  s1 += cm_v2_lda(W + 26) * x4;
  s1 += cm_v2_lda(W + 32) * x5;
  s2 += cm_v2_lda(W + 34) * x5;
  t[0] = s0;
  t[1] = s1;
  t[2] = s2;
}

#endif
