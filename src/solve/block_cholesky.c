/* Block-sparse Cholesky factorisation A = L L^T with 6x6 blocks (block_cholesky.h).
 *
 * The matrix. The Newton Hessian of an island, H = M + sum_k J_k^T H_k J_k, has one 6x6 block
 * row per body; block (i, j), i != j, is structurally nonzero iff some row couples bodies i and
 * j. Treating each block as one entry gives an ordinary sparse symmetric pattern (the body
 * graph) over n nodes, and all of the classical sparse Cholesky theory applies to it with the
 * scalar operations replaced by 6x6 ones (a block multiply is 216 multiply-adds, so the integer
 * bookkeeping is amortised and no supernodes are needed). Measured: CHOLMOD's supernodal
 * factorisation with OpenBLAS was 2.2-6.7x slower than this code on the Hessians of the S2 pile of
 * 1000 boxes (bench/README.md): their fronts are too small for dense BLAS-3 to pay.
 *
 * Ordering: approximate minimum degree (Amestoy, Davis & Duff 1996) on the body graph, by
 * SuiteSparse's AMD (amd_2, given arena memory, so the analysis allocates nothing of its own).
 * Deterministic: the adjacency lists are deduplicated and sorted, so the order depends on the
 * set of edges only. The first version used reverse Cuthill-McKee, which keeps the factor in a
 * narrow envelope but fills a 3D pile far more: on an island of 103 boxes of the S2 pile AMD
 * leaves 253 off-diagonal blocks in L against 334, and the pile of 1000 boxes (280 steps) takes
 * 7.6 s of CPU against 13.5 s, the difference growing as the pile packs (docs/architecture.md,
 * "Dependencies").
 *
 * Symbolic factorisation (Liu 1986; Davis, "Direct Methods for Sparse Linear Systems" 2006):
 * the elimination tree, parent(q) = min { p > q : L_pq != 0 }, by the ancestor algorithm with
 * path compression, and the pattern of each row p of L as the union of the tree paths from each
 * q with A_pq != 0 up to p (the "row subtree" / ereach), sorted ascending. Column counts follow,
 * and L is stored by block column, rows ascending (compressed sparse block columns). Unlike an
 * envelope (skyline) store, zeros inside the envelope are neither stored nor operated on; the
 * cost of the analysis is O(nnz(L)) integer work.
 *
 * Numeric factorisation: up-looking, row by row (cs_chol in blocks). For row p, the dense block
 * workspace X holds A_pq for the q in the row pattern; for q ascending (a topological order of
 * the tree):
 *   L_pq = X_q L_qq^{-T}                      (6 forward substitutions, row by row)
 *   X_r -= L_pq L_rq^T  for every L_rq already in column q (q < r < p)
 *   D   -= L_pq L_pq^T                          (D starts as A_pp)
 * then L_pp = chol(D) (dense 6x6), and row p is appended to the columns q. When X_r is used,
 * every update to it from columns q < r has been applied, so X_r = A_pr - sum_{q<r} L_pq L_rq^T.
 * Cost: 216 multiply-adds per pair of entries (L_pq, L_rq) in a column, i.e.
 * sum_q 216 c_q (c_q + 1) / 2 for column counts c_q, plus 6x6 triangular solves; memory
 * 36 nnz(L) doubles. For a chain this is O(n); for a 3D pile far less than the dense
 * 216 n^3 / 3.
 *
 * Triangular solves: forward L y = P b by columns, backward L^T x = y by columns, then the
 * inverse permutation. Everything (including the workspaces) comes from one arena in
 * cm_bchol_analyse; the factorisation and solves do not allocate. All loops run in a fixed order
 * with -ffp-contract=off, so results are bit-for-bit reproducible. */
#include "solve/block_cholesky.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/linalg.h"
#include "core/sort.h"

#include <suitesparse/amd.h>

int cm_bchol_dense_max = 4;

/* ints ascending (cm_sort: no allocation; equal ints are indistinguishable, so the order is
 * unique) */
static void sort_int(int* a, int n) {
  cm_sort_int(a, (size_t)n);
}

#define ALLOC(p, count)                                                                            \
  do {                                                                                             \
    (p) = cm_arena_alloc(arena, ((size_t)(count) + 1) * sizeof *(p));                              \
    if (!(p)) return -1;                                                                           \
  } while (0)

/* the adjacency of the pattern, deduplicated and sorted: neighbours of i in adj[xadj[i] ..
 * xadj[i+1]), deg[i] of them; mark and fillp are work arrays of n; -1 without memory */
static int adjacency(cmArena* arena, int n, int nedge, const int* edge, int* xadj, int** adj_out,
                     int* mark, int* fillp, int* deg) {
  int* adj;
  /* raw adjacency (with duplicates), then deduplicated and sorted in place */
  memset(xadj, 0, ((size_t)n + 1) * sizeof *xadj);
  int nraw = 0;
  for (int e = 0; e < nedge; e++) {
    int i = edge[2 * e], j = edge[2 * e + 1];
    if (i == j || i < 0 || j < 0 || i >= n || j >= n) continue;
    xadj[i + 1]++;
    xadj[j + 1]++;
    nraw += 2;
  }
  for (int i = 0; i < n; i++)
    xadj[i + 1] += xadj[i];
  ALLOC(adj, nraw);
  memcpy(fillp, xadj, (size_t)n * sizeof *fillp);
  for (int e = 0; e < nedge; e++) {
    int i = edge[2 * e], j = edge[2 * e + 1];
    if (i == j || i < 0 || j < 0 || i >= n || j >= n) continue;
    adj[fillp[i]++] = j;
    adj[fillp[j]++] = i;
  }
  for (int i = 0; i < n; i++)
    mark[i] = -1;
  int nadj = 0;
  for (int i = 0; i < n; i++) {
    int s = xadj[i], e = xadj[i + 1], start = nadj;
    for (int t = s; t < e; t++) {
      int j = adj[t];
      if (mark[j] == i) continue;
      mark[j] = i;
      adj[nadj++] = j; /* nadj <= t: compaction in place */
    }
    xadj[i] = start;
    sort_int(adj + start, nadj - start);
    deg[i] = nadj - start;
  }
  xadj[n] = nadj;
  *adj_out = adj;
  return 0;
}

/* the start of both analyses: c cleared, the work arrays, the pattern's adjacency */
static int begin(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge, int** xadj,
                 int** adj, int** mark, int** fillp, int** deg) {
  memset(c, 0, sizeof *c);
  c->n = n;
  ALLOC(*xadj, n + 1);
  ALLOC(*mark, n);
  ALLOC(*fillp, n);
  ALLOC(*deg, n);
  if (adjacency(arena, n, nedge, edge, *xadj, adj, *mark, *fillp, *deg)) return -1;
  c->xadj = *xadj;
  c->adj = *adj;
  return 0;
}

/* the numeric arrays of an analysed pattern (c->nnz_l, c->ap set): the factor, the matrix, the
 * work arrays; from the step's arena */
static int numeric(cmBlockChol* c, cmArena* arena) {
  int n = c->n;
  c->lx = cm_arena_alloc(arena, ((size_t)c->nnz_l + 1) * 36 * sizeof(double));
  c->lxt = cm_arena_alloc(arena, ((size_t)c->nnz_l + 1) * 36 * sizeof(double));
  c->ld = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  c->ldi = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  c->ldit = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  c->ad = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  c->ax = cm_arena_alloc(arena, ((size_t)c->ap[n] + 1) * 36 * sizeof(double));
  c->work = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  ALLOC(c->lnext, n);
  if (!c->lx || !c->lxt || !c->ld || !c->ldi || !c->ldit || !c->ad || !c->ax || !c->work) return -1;
  return 0;
}

/* the ALLOC of the pattern's arrays, from the arena `keep` */
#define KEEP(p, count)                                                                             \
  do {                                                                                             \
    (p) = cm_arena_alloc(keep, ((size_t)(count) + 1) * sizeof *(p));                               \
    if (!(p)) return -1;                                                                           \
  } while (0)

/* the analysis of the adjacency (begin): the pattern's arrays (order, lower pattern, tree, the
 * pattern of L) from `keep`, the numeric ones and the work from `arena` */
static int analyse(cmBlockChol* c, cmArena* arena, cmArena* keep, int* xadj, int* adj, int* mark,
                   int* fillp, int* deg) {
  int n = c->n, nadj = xadj[n];

  /* approximate minimum degree order (SuiteSparse AMD's amd_2, on arena memory: it needs the
   * adjacency without duplicates or diagonal, elbow room of at least n in Iw, and destroys Iw) */
  int *perm, *iperm, *pe, *iw, *len, *nv, *head, *elen, *wk;
  int iwlen = nadj + nadj / 5 + 2 * n + 1;
  KEEP(perm, n);
  KEEP(iperm, n);
  ALLOC(pe, n);
  ALLOC(iw, iwlen);
  ALLOC(len, n);
  ALLOC(nv, n);
  ALLOC(head, n);
  ALLOC(elen, n);
  ALLOC(wk, n);
  for (int i = 0; i < n; i++) {
    pe[i] = xadj[i];
    len[i] = xadj[i + 1] - xadj[i];
  }
  memcpy(iw, adj, (size_t)nadj * sizeof *iw);
  double control[AMD_CONTROL], info[AMD_INFO];
  amd_defaults(control);
  /* outputs: Last (perm) holds the pivot order, Next (iperm) its inverse */
  amd_2(n, pe, iw, len, iwlen, nadj, nv, iperm, perm, head, elen, deg, wk, control, info);
  for (int p = 0; p < n; p++)
    iperm[perm[p]] = p;
  c->perm = perm;
  c->iperm = iperm;

  /* the lower pattern of the permuted matrix by row */
  KEEP(c->ap, n + 1);
  KEEP(c->acol, nadj / 2);
  c->ap[0] = 0;
  for (int p = 0; p < n; p++) {
    int i = perm[p], k = c->ap[p];
    for (int t = xadj[i]; t < xadj[i + 1]; t++)
      if (iperm[adj[t]] < p) c->acol[k++] = iperm[adj[t]];
    sort_int(c->acol + c->ap[p], k - c->ap[p]);
    c->ap[p + 1] = k;
  }

  /* elimination tree (ancestor[] with path compression: reuse fillp) */
  KEEP(c->parent, n);
  int* anc = fillp;
  for (int p = 0; p < n; p++) {
    c->parent[p] = -1;
    anc[p] = -1;
    for (int a = c->ap[p]; a < c->ap[p + 1]; a++) {
      int r = c->acol[a], rnext;
      for (; r != -1 && r < p; r = rnext) {
        rnext = anc[r];
        anc[r] = p;
        if (rnext == -1) c->parent[r] = p;
      }
    }
  }

  /* row patterns of L: count, then fill (reusing deg[] as column counts) */
  KEEP(c->rp, n + 1);
  KEEP(c->lp, n + 1);
  int* colcount = deg;
  for (int p = 0; p < n; p++) {
    mark[p] = -1;
    colcount[p] = 0;
  }
  long total = 0;
  for (int p = 0; p < n; p++) {
    mark[p] = p;
    for (int a = c->ap[p]; a < c->ap[p + 1]; a++)
      for (int r = c->acol[a]; mark[r] != p; r = c->parent[r]) {
        mark[r] = p;
        colcount[r]++;
        total++;
      }
  }
  if (total > 0x3fffffff) return -1;
  c->nnz_l = total;
  KEEP(c->rcol, total);
  KEEP(c->lrow, total);
  if (numeric(c, arena)) return -1;
  c->lp[0] = 0;
  double flops = 0;
  for (int q = 0; q < n; q++) {
    c->lp[q + 1] = c->lp[q] + colcount[q];
    c->lnext[q] = c->lp[q];
    flops += 216.0 * colcount[q] * (colcount[q] + 1) / 2 + 108.0 * colcount[q] + 56;
  }
  c->flops = flops;
  /* the columns of L (rows ascending, as p ascends) from each row's ereach, then the rows'
   * patterns (columns ascending) as their transpose: the same arrays as sorting each ereach, in
   * O(nnz(L)). The sorts (heap sorts for rows longer than 32) were 26.6 M of the 57.4 M
   * instructions of 12 analyses of the S2 pile of 1000 boxes at rest (2026-12-07). */
  for (int p = 0; p < n; p++)
    mark[p] = -1;
  c->rp[0] = 0;
  for (int p = 0; p < n; p++) {
    int k = c->rp[p];
    mark[p] = p;
    for (int a = c->ap[p]; a < c->ap[p + 1]; a++)
      for (int r = c->acol[a]; mark[r] != p; r = c->parent[r]) {
        mark[r] = p;
        c->lrow[c->lnext[r]++] = p;
        k++;
      }
    c->rp[p + 1] = k;
  }
  int* rfill = mark;
  memcpy(rfill, c->rp, (size_t)n * sizeof *rfill);
  for (int q = 0; q < n; q++)
    for (int e = c->lp[q]; e < c->lp[q + 1]; e++)
      c->rcol[rfill[c->lrow[e]]++] = q;
  return 0;
}

int cm_bchol_analyse(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge) {
  int *xadj, *adj, *mark, *fillp, *deg;
  if (begin(c, arena, n, nedge, edge, &xadj, &adj, &mark, &fillp, &deg)) return -1;
  return analyse(c, arena, arena, xadj, adj, mark, fillp, deg);
}

/* a kept analysis: its key (the deduplicated, sorted adjacency of begin) and the analysis,
 * whose pattern arrays live in the same arena */
typedef struct Kept {
  int n;
  int *xadj, *adj;
  cmBlockChol c;
} Kept;

int cm_bchol_analyse_kept(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge,
                          cmArena* keep, void** kept, int* hit) {
  int *xadj, *adj, *mark, *fillp, *deg;
  *hit = 0;
  if (begin(c, arena, n, nedge, edge, &xadj, &adj, &mark, &fillp, &deg)) return -1;
  Kept* k = *kept;
  if (k && k->n == n && k->xadj[n] == xadj[n] &&
      !memcmp(k->xadj, xadj, ((size_t)n + 1) * sizeof *xadj) &&
      !memcmp(k->adj, adj, (size_t)xadj[n] * sizeof *adj)) {
    *c = k->c; /* the pattern's arrays; the numeric ones anew */
    c->xadj = xadj;
    c->adj = adj;
    *hit = 1;
    return numeric(c, arena);
  }
  /* a new pattern: the old analysis is dropped, the new one kept with its key */
  *kept = NULL;
  cm_arena_reset(keep);
  k = cm_arena_alloc(keep, sizeof *k);
  if (!k) return -1;
  k->n = n;
  KEEP(k->xadj, n + 1);
  KEEP(k->adj, xadj[n]);
  memcpy(k->xadj, xadj, ((size_t)n + 1) * sizeof *xadj);
  memcpy(k->adj, adj, (size_t)xadj[n] * sizeof *adj);
  if (analyse(c, arena, keep, xadj, adj, mark, fillp, deg)) return -1;
  k->c = *c;
  *kept = k;
  return 0;
}

/* the store of cm_bchol_pattern from the adjacency (c cleared but for n, xadj and adj) */
static int pattern(cmBlockChol* c, cmArena* arena, const int* xadj, const int* adj) {
  int n = c->n;
  ALLOC(c->perm, n);
  ALLOC(c->iperm, n);
  ALLOC(c->ap, n + 1);
  ALLOC(c->acol, xadj[n] / 2);
  c->ap[0] = 0;
  for (int i = 0; i < n; i++) {
    c->perm[i] = c->iperm[i] = i;
    int k = c->ap[i];
    for (int t = xadj[i]; t < xadj[i + 1]; t++) /* sorted: the lower ones come first */
      if (adj[t] < i) c->acol[k++] = adj[t];
    c->ap[i + 1] = k;
  }
  c->ad = cm_arena_alloc(arena, ((size_t)n + 1) * 36 * sizeof(double));
  c->ax = cm_arena_alloc(arena, ((size_t)c->ap[n] + 1) * 36 * sizeof(double));
  if (!c->ad || !c->ax) return -1;
  return 0;
}

int cm_bchol_pattern(cmBlockChol* c, cmArena* arena, int n, int nedge, const int* edge) {
  int *xadj, *adj, *mark, *fillp, *deg;
  if (begin(c, arena, n, nedge, edge, &xadj, &adj, &mark, &fillp, &deg)) return -1;
  return pattern(c, arena, xadj, adj);
}

/* the adjacency begin built for the analysis, the same one cm_bchol_pattern would build from
 * the same edges: the analysis's other arrays dropped (c cleared, as begin clears it). On the
 * S2 pile of 1000 boxes, whose big island is analysed and then solved by conjugate gradients,
 * the second adjacency was 8.9 M instructions of 20 steps (2026-12-07). */
int cm_bchol_pattern_again(cmBlockChol* c, cmArena* arena) {
  int n = c->n;
  const int *xadj = c->xadj, *adj = c->adj;
  memset(c, 0, sizeof *c);
  c->n = n;
  c->xadj = xadj;
  c->adj = adj;
  return pattern(c, arena, xadj, adj);
}

int cm_bchol_slot(const cmBlockChol* c, int i, int j) {
  int p = c->iperm[i], q = c->iperm[j];
  if (p == q) return -1;
  if (p < q) {
    int t = p;
    p = q;
    q = t;
  }
  int lo = c->ap[p], hi = c->ap[p + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (c->acol[mid] < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->ap[p + 1] && c->acol[lo] == q ? lo : -1;
}

void cm_bchol_zero(cmBlockChol* c) {
  memset(c->ad, 0, (size_t)c->n * 36 * sizeof(double));
  memset(c->ax, 0, (size_t)c->ap[c->n] * 36 * sizeof(double));
}

/* The kernels work on transposed blocks: the workspace of row p holds X_r^T, so that the update
 * X_r -= L_pq L_rq^T becomes X_r^T -= L_rq L_pq^T, whose rows are combinations of the rows of
 * L_pq^T with the scalars of L_rq: the inner loop runs along contiguous rows of L_pq^T (held in
 * registers across all r of column q) and X_r^T, with nothing transposed per update. The first
 * version transposed L_rq before every update (a 6x6 copy per 216 multiply-adds) and ran 2.2
 * GF/s of multiply-adds on the pile of 1000 boxes; this one does the same arithmetic: every
 * entry is x0 y0 + x1 y1 + ... + x5 y5 summed in that order and subtracted once, and every
 * triangular solve divides in the same order (cm_chol_forward), so the factor is the same bit
 * for bit (compiled with -ffp-contract=off).
 * The kernels run in pairs of lanes (v2d), the diagonal block's factor and inverse unrolled
 * (cm_bchol_chol6), L_pq^T solved straight into lxt (the solves' copy) and the diagonal D updated
 * untransposed: every update L_pq L_pq^T is symmetric bit for bit (its entries a, b and b, a
 * sum the same products, which commute), so D = A_pp - sum L_pq L_pq^T is the transpose of the
 * former D^T entry by entry, without its two transposes. On the stiff S2 pile of 125 boxes (ka
 * 5e10, 30 steps) cm_bchol_factor went from 317 to 210 M instructions (298 before the copies
 * for the solves), the run 0.93x the instructions and 0.98x the CPU time of the
 * vectorised solve alone, every result the same. */

/* Xt -= B Lt for row-major 6x6 blocks (Xt = X^T, B = L_rq, Lt = L_pq^T), by rows of Lt in pairs
 * of lanes */
static inline void sub_blt(double* restrict Xt, const double* restrict B,
                           const double* restrict Lt) {
  for (int b = 0; b < 6; b++) {
    v2d s[3], bk = cm_v2_dup(B[6 * b]);
    for (int a = 0; a < 3; a++)
      s[a] = bk * cm_v2_lda(Lt + 2 * a);
    for (int k = 1; k < 6; k++) {
      bk = cm_v2_dup(B[6 * b + k]);
      for (int a = 0; a < 3; a++)
        s[a] += bk * cm_v2_lda(Lt + 6 * k + 2 * a);
    }
    for (int a = 0; a < 3; a++)
      cm_v2_st(Xt + 6 * b + 2 * a, cm_v2_lda(Xt + 6 * b + 2 * a) - s[a]);
  }
}

/* every update of column q to row p: X_r^T -= L_rq L_pq^T for the entries e0 .. e1 of column q */
static void sub_column(double* restrict X, const double* restrict Lt, const double* restrict lx,
                       const int* restrict lrow, int e0, int e1) {
  for (int e = e0; e < e1; e++)
    sub_blt(X + 36 * lrow[e], lx + 36 * e, Lt);
}

/* Yt := (Y L^{-T})^T for lower triangular L, Yt = Y^T: each row y of Y solves L y^T = y^T
 * (cm_chol_forward's arithmetic, the six right-hand sides side by side in pairs of lanes) */
static void solve_lt(double* restrict Yt, const double* restrict Xt, const double* restrict L) {
  for (int i = 0; i < 6; i++) {
    v2d s[3];
    for (int a = 0; a < 3; a++)
      s[a] = cm_v2_lda(Xt + 6 * i + 2 * a);
    for (int k = 0; k < i; k++) {
      v2d l = cm_v2_dup(L[6 * i + k]);
      for (int a = 0; a < 3; a++)
        s[a] -= l * cm_v2_lda(Yt + 6 * k + 2 * a);
    }
    v2d d = cm_v2_dup(L[6 * i + i]);
    for (int a = 0; a < 3; a++)
      cm_v2_st(Yt + 6 * i + 2 * a, s[a] / d);
  }
}

/* T = A^T (6x6, both 16-byte aligned), by 2x2 tiles */
static void transpose6(double* restrict T, const double* restrict A) {
  for (int a = 0; a < 6; a += 2)
    for (int b = 0; b < 6; b += 2) {
      v2d r0 = cm_v2_lda(A + 6 * a + b), r1 = cm_v2_lda(A + 6 * a + 6 + b);
      cm_v2_st(T + 6 * b + a, (v2d){r0[0], r1[0]});
      cm_v2_st(T + 6 * b + 6 + a, (v2d){r0[1], r1[1]});
    }
}

int cm_bchol_factor(cmBlockChol* c) {
  int n = c->n;
  double* X = c->work;
  double D[36] __attribute__((aligned(16)));
  for (int q = 0; q < n; q++)
    c->lnext[q] = c->lp[q];
  for (int p = 0; p < n; p++) {
    for (int t = c->rp[p]; t < c->rp[p + 1]; t++)
      memset(X + 36 * c->rcol[t], 0, 36 * sizeof *X);
    for (int a = c->ap[p]; a < c->ap[p + 1]; a++)
      transpose6(X + 36 * c->acol[a], c->ax + 36 * a);
    memcpy(D, c->ad + 36 * p, sizeof D);
    for (int t = c->rp[p]; t < c->rp[p + 1]; t++) {
      int q = c->rcol[t];
      double* Xq = X + 36 * q;
      int end = c->lnext[q];
      double *Lpq = c->lx + 36 * end, *Lt = c->lxt + 36 * end;
      solve_lt(Lt, Xq, c->ld + 36 * q); /* L_pq^T */
      sub_column(X, Lt, c->lx, c->lrow, c->lp[q], end);
      transpose6(Lpq, Lt);
      sub_blt(D, Lpq, Lt); /* D -= L_pq L_pq^T */
      c->lnext[q] = end + 1;
    }
    if (!cm_bchol_chol6(D, c->ld + 36 * p, c->ldi + 36 * p, c->ldit + 36 * p)) return 0;
  }
  return 1;
}

/* L L^T y = y in the analysed order: by block columns, the diagonal blocks applied through their
 * inverses (ldi, from cm_bchol_factor): the substitutions with ld were chains of six divisions
 * per block, twice per solve, and a factor serves several solves (the Newton direction, the
 * coupled step's GMRES, conjugate gradients on a reused factor). Agrees with the substitutions to
 * rounding; S2 pile of 125 boxes at rest, solve stage 0.955x the time (best of six), ka 5e10
 * 0.84x.
 * The arithmetic of every entry is that of the scalar loops (cm_tri_lower_mul, cm_tri_upper_mul,
 * the block products), lanes side by side:
 *   y_p := W y_p, W = L_pp^-1: entry i is 0 + W_i0 y_0 + ... + W_ii y_i in that order, from the
 *     rows of W^T (ldit), the last term of an odd lane added alone;
 *   y_r -= L_rp y_p: every entry (L_rp y_p)_a = l_a0 y_0 + ... + l_a5 y_5 summed in that order
 *     and subtracted once, from the rows of L_rp^T (lxt);
 *   y_p -= L_rp^T y_r: six subtractions per entry, a ascending, y_p held in registers across
 *     the column, from the rows of L_rp (lx);
 *   y_p := W^T y_p: entry i is 0 + W_ii y_i + ... + W_5i y_5, from the rows of W, the first
 *     term of an even lane added alone.
 * The scalar loops reloaded y_p after every store to y_r (they might alias) and ran the
 * triangles' variable-length loops; on the stiff S2 pile of 125 boxes (ka 5e10, 30 steps from
 * stiff800.ckpt, about 6.6 solves per factorisation) this solve went from 496 to 225 M
 * instructions (the factorisation's copies into lxt and ldit cost 19 M), the run 0.867x the
 * instructions and 0.92x the CPU time, every result bit for bit the same. */
void cm_bchol_solve_perm(const cmBlockChol* c, double* y) {
  int n = c->n;
  const int* restrict lp = c->lp;
  const int* restrict lrow = c->lrow;
  for (int p = 0; p < n; p++) {
    double* yp = y + 6 * p;
    /* y_p all zeros (a right-hand side that is zero on every column before it in the tree, as
     * the coupled step's Krylov vectors are off its sliding rows' bodies): W y_p is +0 (its
     * sums start at +0), and its updates y_r -= L_rp 0 subtract zeros, which could only change
     * the sign of a zero y_r, which every y_r's W y_r ignores in the same way: y_p set to +0
     * and the column skipped, the solve the same bit for bit. S2 pile of 125 boxes at rest:
     * half of the columns; ka 5e10: a sixth (2026-12-07) */
    uint64_t bits[6];
    memcpy(bits, yp, sizeof bits);
    if (!((bits[0] | bits[1] | bits[2] | bits[3] | bits[4] | bits[5]) << 1)) {
      memset(yp, 0, 6 * sizeof *yp);
      continue;
    }
    const double* Wt = c->ldit + 36 * p;
    v2d w[3];
    cm_v2_lower_mul(Wt, yp, w);
    cm_v2_st(yp, w[0]);
    cm_v2_st(yp + 2, w[1]);
    cm_v2_st(yp + 4, w[2]);
    v2d x0 = cm_v2_dup(w[0][0]), x1 = cm_v2_dup(w[0][1]), x2 = cm_v2_dup(w[1][0]);
    v2d x3 = cm_v2_dup(w[1][1]), x4 = cm_v2_dup(w[2][0]), x5 = cm_v2_dup(w[2][1]);
    for (int e = lp[p]; e < lp[p + 1]; e++) {
      double* yr = y + 6 * lrow[e];
      const double* Bt = c->lxt + 36 * e;
      for (int a = 0; a < 6; a += 2) {
        v2d s = cm_v2_lda(Bt + a) * x0;
        s += cm_v2_lda(Bt + 6 + a) * x1;
        s += cm_v2_lda(Bt + 12 + a) * x2;
        s += cm_v2_lda(Bt + 18 + a) * x3;
        s += cm_v2_lda(Bt + 24 + a) * x4;
        s += cm_v2_lda(Bt + 30 + a) * x5;
        cm_v2_st(yr + a, cm_v2_ld(yr + a) - s);
      }
    }
  }
  for (int p = n - 1; p >= 0; p--) {
    double* yp = y + 6 * p;
    v2d t0 = cm_v2_ld(yp), t1 = cm_v2_ld(yp + 2), t2 = cm_v2_ld(yp + 4);
    for (int e = lp[p]; e < lp[p + 1]; e++) {
      const double* yr = y + 6 * lrow[e];
      const double* B = c->lx + 36 * e;
      for (int a = 0; a < 6; a++) {
        v2d ya = cm_v2_dup(yr[a]);
        t0 -= cm_v2_lda(B + 6 * a) * ya;
        t1 -= cm_v2_lda(B + 6 * a + 2) * ya;
        t2 -= cm_v2_lda(B + 6 * a + 4) * ya;
      }
    }
    v2d t[3] = {t0, t1, t2};
    cm_v2_upper_mul(c->ldi + 36 * p, t);
    cm_v2_st(yp, t[0]);
    cm_v2_st(yp + 2, t[1]);
    cm_v2_st(yp + 4, t[2]);
  }
}

void cm_bchol_solve(cmBlockChol* c, double* x) {
  int n = c->n;
  double* y = c->work;
  for (int p = 0; p < n; p++)
    memcpy(y + 6 * p, x + 6 * c->perm[p], 6 * sizeof *y);
  cm_bchol_solve_perm(c, y);
  for (int p = 0; p < n; p++)
    memcpy(x + 6 * c->perm[p], y + 6 * p, 6 * sizeof *y);
}
