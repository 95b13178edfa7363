/* Stage 2, broadphase: candidate body pairs whose world boxes overlap, filtered by the pair
 * table.
 *
 * Uniform grid (spatial hash). The cell size s is twice the mean largest box extent of the
 * bodies, so a typical body covers 1 to 8 cells (about 3.4 on average; 3.1 measured in the S2
 * pile of 125 boxes, with 6.8 bodies per cell). Each body's range of cells is computed once; every
 * (cell, body) entry finds its cell's number in an open-addressing table keyed by the cell's
 * coordinates, and the entries are counting-sorted by cell (O(n), in body order within a cell, so
 * the result is deterministic). Two bodies in the same cell whose boxes overlap form a pair,
 * reported only by the cell that holds the lower corner of the two boxes' intersection, so no
 * pair is reported twice. Expected cost O(n + k) for k candidate pairs at any density, unlike a
 * sweep along one axis whose x-overlaps grow as n^(2/3) per body in 3-D (bench/README.md).
 * Measured with callgrind (S2 pile of 125 boxes, 300 steps at rest from t = 2.5 s): the stage
 * costs 44.7M instructions instead of 76.5M (the run 2.990G instead of 3.017G, -0.9 %; -1.7 % in
 * the collapsing S2 and -2.3 % in the S4 spheres) with the table of cells than with hash buckets
 * holding entries of several cells, whose pairs had their cells compared (memcmp) pair by pair
 * and the owner cell recomputed with floor. A cell 1x the extent costs more (22.0M against 19.0M
 * in and under the stage over 100 steps: more entries per body), 1.5x the same, 3x 1 % more.
 * Bodies much larger than a cell (more than 4 cells along an axis) and half-spaces (infinite
 * boxes) are "large": each is tested against every collidable body directly (O(n) per large
 * body; scenes have a handful). The candidate list is finally sorted by (a, b) so that every
 * later stage sees the pairs in the same order. The grid runs only when a body's box leaves the
 * widened box of the pairs kept (below, "Kept pairs"); in the other steps the kept pairs are
 * tested again. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "collide/collide.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/bvh.h"
#include "model/data_internal.h"

#define LARGE_CELLS 4
#define CELL_LIMIT 1e15 /* cell coordinates are clamped so that they fit in int64 */

/* a body's entry in one cell: the body, and the axes (bits 0, 1, 2) along which the cell is the
 * lowest of the body's cells */
typedef struct Entry {
  int body;
  int corner;
} Entry;

static int push_cand(cmDataPriv* p, int a, int b, int rule) {
  if (p->ncand == p->maxcand) {
    int n = p->maxcand ? 2 * p->maxcand : 256;
    int* c = cm_realloc(p->cand, (size_t)n * 3 * sizeof *c);
    if (!c) return 0;
    p->cand = c;
    p->maxcand = n;
  }
  int* c = p->cand + 3 * p->ncand++;
  c[0] = a < b ? a : b;
  c[1] = a < b ? b : a;
  c[2] = rule;
  return 1;
}

/* does the body take part in any collision at all? */
static int collidable(const cmModel* m, int b) {
  if (m->body_motion[b] == CM_MOTION_IGNORED) return 0;
  return m->alias_class[m->body_alias[b]] >= 0;
}

static int overlap(const double* A, const double* B) {
  return !(B[0] > A[3] || A[0] > B[3] || B[1] > A[4] || A[1] > B[4] || B[2] > A[5] || A[2] > B[5]);
}

/* the candidates sorted by (a, b): counted by a into their buckets (O(n + nbody)), each bucket
 * (a body's few partners) by insertion on b. The order is the one cm_sort gave (a total order),
 * at a fraction of a heap sort's cost (3 % of the S2 pile of 125 boxes' step); cm_sort without
 * the scratch memory. */
static void sort_candidates(cmDataPriv* p, int nbody, cmArena* arena) {
  int n = p->ncand;
  if (n < 2) return; /* (p->cand is NULL before the first candidate) */
  int* start = cm_arena_calloc(arena, (size_t)nbody + 2, sizeof *start);
  int* fill = cm_arena_alloc(arena, ((size_t)nbody + 2) * sizeof *fill);
  int* out = cm_arena_alloc(arena, ((size_t)n * 3 + 1) * sizeof *out);
  if (!start || !fill || !out) {
    cm_sort(p->cand, (size_t)n, 3 * sizeof *p->cand, cm_int2_cmp);
    return;
  }
  for (int k = 0; k < n; k++)
    start[p->cand[3 * k] + 1]++;
  for (int b = 0; b <= nbody; b++)
    start[b + 1] += start[b];
  memcpy(fill, start, ((size_t)nbody + 2) * sizeof *fill);
  for (int k = 0; k < n; k++) {
    int* c = p->cand + 3 * k;
    int* o = out + 3 * fill[c[0]]++;
    int* begin = out + 3 * start[c[0]];
    /* insertion by b among the bucket's entries so far */
    o[0] = c[0];
    o[1] = c[1];
    o[2] = c[2];
    while (o > begin && o[-2] > o[1]) {
      int t[3] = {o[-3], o[-2], o[-1]};
      o[-3] = o[0];
      o[-2] = o[1];
      o[-1] = o[2];
      o[0] = t[0];
      o[1] = t[1];
      o[2] = t[2];
      o -= 3;
    }
  }
  memcpy(p->cand, out, (size_t)n * 3 * sizeof *out);
}

/* a and b overlap: a candidate unless the pair table excludes them */
static void add_pair(const cmModel* m, cmData* d, int a, int b) {
  int rule = cm_model_pair_rule(m, a, b);
  if (rule >= 0 && !push_cand(cm_priv(d), a, b, rule)) d->warning[CM_WARN_CONTACT_LIMIT]++;
}

static void test_pair(const cmModel* m, cmData* d, int a, int b) {
  if (overlap(d->body_aabb + 6 * a, d->body_aabb + 6 * b)) add_pair(m, d, a, b);
}

/* floor(x / s), clamped. The clamp comes first (it commutes with floor, the limits being
 * integers), so that the conversion, which truncates, is exact, and floor is one compare away */
static int64_t cell_of(double x, double inv) {
  double c = x * inv;
  if (c > CELL_LIMIT) c = CELL_LIMIT;
  if (c < -CELL_LIMIT) c = -CELL_LIMIT;
  int64_t t = (int64_t)c;
  return t - ((double)t > c);
}

static uint64_t cell_hash(const int64_t c[3]) {
  uint64_t h = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)c[2] * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return h ^ (h >> 29);
}

/* the grid over the ordinary bodies (list[0..n)) with cell size s: the pairs whose boxes (box,
 * nbody x 6) overlap, into the candidates */
static void grid_pairs(const cmModel* m, cmData* d, const double* box, const int* list, int n,
                       double s) {
  cmArena* arena = &cm_priv(d)->arena;
  double inv = 1.0 / s;
  /* each body's range of cells, lo[3 i + k] .. hi[3 i + k] along axis k */
  int64_t* lo = cm_arena_alloc(arena, (size_t)n * 6 * sizeof *lo);
  if (!lo) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  int64_t* hi = lo + 3 * (size_t)n;
  long ne = 0; /* entries: one per (cell, body) */
  for (int i = 0; i < n; i++) {
    const double* B = box + 6 * list[i];
    long cnt = 1;
    for (int k = 0; k < 3; k++) {
      lo[3 * i + k] = cell_of(B[k], inv);
      hi[3 * i + k] = cell_of(B[3 + k], inv);
      cnt *= (long)(hi[3 * i + k] - lo[3 * i + k] + 1);
    }
    ne += cnt;
  }
  if (ne >= (1L << 31)) { /* counts and cell numbers are 32-bit */
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  uint64_t nslot = 1; /* open addressing, at most half full */
  while (nslot < 2 * (uint64_t)ne)
    nslot *= 2;
  uint32_t* slot = cm_arena_calloc(arena, (size_t)nslot, sizeof *slot); /* cell number + 1 */
  int64_t* key = cm_arena_alloc(arena, (size_t)ne * 3 * sizeof *key);   /* each cell's coords */
  uint32_t* start = cm_arena_calloc(arena, (size_t)ne + 1, sizeof *start);
  uint32_t* cell = cm_arena_alloc(arena, (size_t)ne * sizeof *cell); /* each entry's cell */
  Entry* ent = cm_arena_alloc(arena, (size_t)ne * sizeof *ent);
  Entry* sorted = cm_arena_alloc(arena, (size_t)ne * sizeof *sorted);
  if (!slot || !key || !start || !cell || !ent || !sorted) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  uint32_t ncell = 0;
  long e = 0;
  for (int i = 0; i < n; i++) {
    const int64_t* l = lo + 3 * i;
    const int64_t* h = hi + 3 * i;
    int64_t c[3];
    for (c[0] = l[0]; c[0] <= h[0]; c[0]++)
      for (c[1] = l[1]; c[1] <= h[1]; c[1]++)
        for (c[2] = l[2]; c[2] <= h[2]; c[2]++) {
          uint64_t at = cell_hash(c) & (nslot - 1);
          uint32_t id;
          for (;;) { /* linear probing */
            id = slot[at];
            if (!id) {
              slot[at] = id = ++ncell;
              memcpy(key + 3 * (id - 1), c, sizeof c);
              break;
            }
            const int64_t* K = key + 3 * (id - 1);
            if (K[0] == c[0] && K[1] == c[1] && K[2] == c[2]) break;
            at = (at + 1) & (nslot - 1);
          }
          cell[e] = id - 1;
          ent[e].body = list[i];
          ent[e].corner = (c[0] == l[0]) | (c[1] == l[1]) << 1 | (c[2] == l[2]) << 2;
          start[id]++;
          e++;
        }
  }
  /* counting sort by cell (stable: body order within a cell) */
  for (uint32_t k = 0; k < ncell; k++)
    start[k + 1] += start[k];
  for (long i = 0; i < ne; i++)
    sorted[start[cell[i]]++] = ent[i];
  /* pairs within each cell, reported by the cell of the intersection's lower corner: that is
   * max(lo_a, lo_b) along each axis (floor is monotonic), so the cell, which is in both ranges,
   * reports the pair if it is the lowest of a's or of b's cells along each axis */
  uint32_t first = 0;
  for (uint32_t k = 0; k < ncell; k++) {
    uint32_t last = start[k]; /* after the fill, start[k] is the end of cell k */
    for (uint32_t i = first; i < last; i++) {
      const Entry* E = &sorted[i];
      const double* A = box + 6 * E->body;
      for (uint32_t j = i + 1; j < last; j++) {
        const Entry* F = &sorted[j];
        if ((E->corner | F->corner) != 7) continue;
        if (overlap(A, box + 6 * F->body)) add_pair(m, d, E->body, F->body);
      }
    }
    first = last;
  }
}

/* large bodies against every collidable body (each large-large pair once) */
static void large_pairs(const cmModel* m, cmData* d, const int* large, int nlarge, const int* all,
                        int nall, const unsigned char* is_large) {
  for (int i = 0; i < nlarge; i++)
    for (int j = 0; j < nall; j++) {
      int a = large[i], b = all[j];
      if (a == b) continue;
      if (is_large[b] && b < a) continue;
      test_pair(m, d, a, b);
    }
}

/* Kept pairs (a Verlet list of boxes). At rest a pile's bodies move by micrometres per step and
 * its candidate pairs stay the same, yet the grid hashed every body's cells again each step (5.7 %
 * of a step of the bed of 1000 spheres). So the grid is run on the boxes widened by BP_MARGIN
 * times the mean extent on every side, and its pairs kept with those widened boxes: while every
 * ordinary body's box stays inside its widened box, two boxes that overlap have widened boxes
 * that overlap, so the kept pairs whose boxes overlap now are every candidate pair of ordinary
 * bodies, the same set as the grid on the boxes themselves, and in the same order (a, b). A box
 * that leaves its widened one (a NaN included) has the grid run again. The large bodies (set
 * when the pairs are kept) are tested against every body each step, as before. */
#define BP_MARGIN 0.1

/* the collidable bodies into all (returns their count), the mean largest extent of the finite
 * boxes times 2 into *s (the grid's cell), and which are ordinary (their box finite and at most
 * LARGE_CELLS cells wide) or large */
static int classify(const cmModel* m, const cmData* d, int* all, int* ordinary, int* nord,
                    int* large, int* nlarge, double* s) {
  int nall = 0, nfinite = 0;
  double ext = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (!collidable(m, b)) continue;
    all[nall++] = b;
    const double* B = d->body_aabb + 6 * b;
    double e = fmax(B[3] - B[0], fmax(B[4] - B[1], B[5] - B[2]));
    if (isfinite(e)) {
      ext += e;
      nfinite++;
    }
  }
  /* cell size: twice the mean largest extent of the finite boxes (1x measured costlier, above) */
  *s = nfinite ? 2 * ext / nfinite : 1;
  if (!(*s > 0)) *s = 1;
  *nord = *nlarge = 0;
  for (int i = 0; i < nall; i++) {
    const double* B = d->body_aabb + 6 * all[i];
    double e = fmax(B[3] - B[0], fmax(B[4] - B[1], B[5] - B[2]));
    /* a box with a NaN (fmax drops it from e) is not put into the grid, whose cell counts
     * assume finite corners */
    int finite = 1;
    for (int k = 0; k < 6; k++)
      finite = finite && isfinite(B[k]);
    if (finite && isfinite(e) && e <= LARGE_CELLS * *s)
      ordinary[(*nord)++] = all[i];
    else
      large[(*nlarge)++] = all[i];
  }
  return nall;
}

/* every ordinary body's box still inside its widened box of the kept pairs */
static int kept_hold(const cmDataPriv* p, const cmData* d) {
  for (int i = 0; i < p->bp_nord; i++) {
    int b = p->bp_ord[i];
    const double *B = d->body_aabb + 6 * b, *F = p->bp_fat + 6 * b;
    if (!(B[0] >= F[0] && B[1] >= F[1] && B[2] >= F[2] && B[3] <= F[3] && B[4] <= F[4] &&
          B[5] <= F[5]))
      return 0;
  }
  return 1;
}

/* the kept pairs from the grid on the widened boxes; 0 without memory (the stage then runs the
 * grid on the boxes themselves) */
static int keep_pairs(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  int nb = m->nbody;
  p->bp_valid = 0;
  if (!p->bp_ord) {
    size_t n1 = (size_t)nb + 1;
    p->bp_all = cm_malloc(n1 * sizeof *p->bp_all);
    p->bp_ord = cm_malloc(n1 * sizeof *p->bp_ord);
    p->bp_large = cm_malloc(n1 * sizeof *p->bp_large);
    p->bp_is_large = cm_malloc(n1);
    p->bp_fat = cm_malloc(n1 * 6 * sizeof *p->bp_fat);
    if (!p->bp_all || !p->bp_ord || !p->bp_large || !p->bp_is_large || !p->bp_fat) {
      cm_free(p->bp_all);
      cm_free(p->bp_ord);
      cm_free(p->bp_large);
      cm_free(p->bp_is_large);
      cm_free(p->bp_fat);
      p->bp_all = p->bp_ord = p->bp_large = NULL;
      p->bp_is_large = NULL;
      p->bp_fat = NULL;
      return 0;
    }
  }
  double s;
  p->bp_nall = classify(m, d, p->bp_all, p->bp_ord, &p->bp_nord, p->bp_large, &p->bp_nlarge, &s);
  memset(p->bp_is_large, 0, (size_t)nb);
  for (int i = 0; i < p->bp_nlarge; i++)
    p->bp_is_large[p->bp_large[i]] = 1;
  double w = BP_MARGIN * 0.5 * s; /* BP_MARGIN times the mean extent */
  for (int i = 0; i < p->bp_nord; i++) {
    int b = p->bp_ord[i];
    for (int k = 0; k < 3; k++) {
      p->bp_fat[6 * b + k] = d->body_aabb[6 * b + k] - w;
      p->bp_fat[6 * b + 3 + k] = d->body_aabb[6 * b + 3 + k] + w;
    }
  }
  p->ncand = 0;
  long warned = d->warning[CM_WARN_CONTACT_LIMIT];
  if (p->bp_nord > 1) grid_pairs(m, d, p->bp_fat, p->bp_ord, p->bp_nord, s * (1 + BP_MARGIN));
  if (d->warning[CM_WARN_CONTACT_LIMIT] != warned) {
    /* the grid ran out of room: not kept (the stage's own grid warns again) */
    d->warning[CM_WARN_CONTACT_LIMIT] = warned;
    return 0;
  }
  sort_candidates(p, nb, arena);
  if (p->ncand > p->bp_maxpair) {
    int* q = cm_realloc(p->bp_pair, ((size_t)p->ncand + 1) * 3 * sizeof *q);
    if (!q) return 0;
    p->bp_pair = q;
    p->bp_maxpair = p->ncand;
  }
  if (p->ncand) memcpy(p->bp_pair, p->cand, (size_t)p->ncand * 3 * sizeof *p->cand);
  p->bp_npair = p->ncand;
  p->ncand = 0;
  p->bp_valid = 1;
  p->bp_nkeep++;
  return 1;
}

/* Bounding balls far apart. The candidates whose boxes overlap but whose bounding balls are apart
 * are dropped: the balls compared in the world frame, from the world boxes' centres (body_aabb:
 * the world box of the rotated body-frame box, centred on the rotated ball centre). On the S4
 * bed of 1000 spheres 5,000 of the 6,400 pairs of a step whose boxes overlap have their balls
 * apart; the narrowphase would compute their rotation matrices, pose and eps only to find them
 * apart (narrowphase.c rigid_apart), and the depth monitor test their centres. It says apart only
 * where rigid_apart's exact test, in A's frame, says so too: its margin, 1e-6 of every size
 * involved, bounds that test's eps (1e-9 of the sizes) and the rounding of both many times over;
 * bodies whose balls are apart do not touch, so no contact and no warning of the depth monitor
 * (a centre of mass inside the other body, edges linked across it) is lost.
 * far_setup writes per body (5 doubles): the ball's world centre, its radius, and the sum of the
 * sizes the margin takes (the magnitudes of the world box, of the tree box, the radius); a
 * radius of -1 marks a body the test does not apply to (deformable, a plane, no faces). */
static void far_setup(const cmModel* m, const cmData* d, double* far) {
  for (int b = 0; b < m->nbody; b++) {
    double* f = far + 5 * (size_t)b;
    int g = m->body_geom[b];
    f[3] = -1;
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE || m->geom_type[g] == CM_GEOM_PLANE ||
        !m->geom_nface[g])
      continue;
    const double* A = d->body_aabb + 6 * b;
    const double* la = ((const cmBvh*)m->geom_bvh + g)->node[0].box;
    double size = m->geom_ball[4 * g + 3];
    for (int k = 0; k < 3; k++) {
      f[k] = 0.5 * (A[k] + A[3 + k]);
      size += fabs(A[k]) + fabs(A[3 + k]) + fabs(la[k]) + fabs(la[3 + k]);
    }
    f[3] = m->geom_ball[4 * g + 3];
    f[4] = size;
  }
}

/* the balls of a and b apart beyond doubt (far_setup); 0 when unsure or not applicable */
static inline int balls_far(const double* far, int a, int b) {
  const double *fa = far + 5 * (size_t)a, *fb = far + 5 * (size_t)b;
  if (fa[3] < 0 || fb[3] < 0) return 0;
  double d0 = fb[0] - fa[0], d1 = fb[1] - fa[1], d2 = fb[2] - fa[2];
  double size = 1 + fa[4] + fb[4] + fabs(d0) + fabs(d1) + fabs(d2);
  double r = fa[3] + fb[3] + 1e-6 * size;
  return d0 * d0 + d1 * d1 + d2 * d2 > r * r;
}

/* the balls of the step for balls_far, from the arena (NULL without memory: then no candidate is
 * dropped, the narrowphase's exact tests decide) */
static double* far_balls(const cmModel* m, cmData* d) {
  double* far = cm_arena_alloc(&cm_priv(d)->arena, 5 * (size_t)m->nbody * sizeof *far);
  if (far) far_setup(m, d, far);
  return far;
}

/* the candidates from index from on whose balls are far apart dropped, the order kept */
static void drop_far(cmDataPriv* p, const double* far, int from) {
  if (!far) return;
  int n = from;
  for (int k = from; k < p->ncand; k++) {
    const int* c = p->cand + 3 * k;
    if (balls_far(far, c[0], c[1])) continue;
    if (n != k) memcpy(p->cand + 3 * n, c, 3 * sizeof *c);
    n++;
  }
  p->ncand = n;
}

/* the pairs whose world boxes overlap and whose balls are not far apart (far: far_balls),
 * sorted. The kept pairs are tested for both at once, where the list of the pairs whose boxes
 * overlap was compacted after (drop_far): the same list, in the same order; the stage 0.95x
 * its instructions on the S2 pile of 1000 boxes at rest (34.7 -> 32.9 M over 20 steps). */
static void box_pairs(const cmModel* m, cmData* d, const double* far) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  p->ncand = 0;
  if (!(p->bp_valid && kept_hold(p, d)) && !keep_pairs(m, d)) {
    /* without memory for the kept pairs: the grid on the boxes themselves */
    int* ordinary = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *ordinary);
    int* large = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *large);
    int* all = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *all);
    unsigned char* is_large = cm_arena_calloc(arena, (size_t)m->nbody + 1, 1);
    if (!ordinary || !large || !all || !is_large) {
      d->warning[CM_WARN_CONTACT_LIMIT]++;
      return;
    }
    int nord, nlarge;
    double s;
    int nall = classify(m, d, all, ordinary, &nord, large, &nlarge, &s);
    for (int i = 0; i < nlarge; i++)
      is_large[large[i]] = 1;
    p->ncand = 0;
    if (nord > 1) grid_pairs(m, d, d->body_aabb, ordinary, nord, s);
    large_pairs(m, d, large, nlarge, all, nall, is_large);
    sort_candidates(p, m->nbody, arena);
    drop_far(p, far, 0);
    return;
  }
  /* the kept pairs that overlap now, in their order (a, b) */
  for (int k = 0; k < p->bp_npair; k++) {
    const int* c = p->bp_pair + 3 * k;
    if (!overlap(d->body_aabb + 6 * c[0], d->body_aabb + 6 * c[1]) ||
        (far && balls_far(far, c[0], c[1])))
      continue;
    if (!push_cand(p, c[0], c[1], c[2])) d->warning[CM_WARN_CONTACT_LIMIT]++;
  }
  if (p->bp_nlarge == 0) return; /* sorted already */
  int nk = p->ncand;
  large_pairs(m, d, p->bp_large, p->bp_nlarge, p->bp_all, p->bp_nall, p->bp_is_large);
  drop_far(p, far, nk);
  /* deterministic order: by (a, b), a total order (a pair is a candidate once); the kept pairs'
   * are sorted, the large bodies' few are sorted and merged with them */
  int nl = p->ncand - nk;
  if (nl == 0) return;
  int* c = p->cand;
  /* the large bodies' pairs by insertion: in runs already sorted (one per large body, its
   * partners ascending), where a heap sort cost 1.1 G instructions over the bed of 1000
   * spheres' 1000 steps */
  int* t = c + 3 * (size_t)nk;
  for (int i = 1; i < nl; i++)
    for (int* o = t + 3 * i; o > t && (o[-3] > o[0] || (o[-3] == o[0] && o[-2] > o[1])); o -= 3)
      for (int k = 0; k < 3; k++) {
        int x = o[k - 3];
        o[k - 3] = o[k];
        o[k] = x;
      }
  int* out = cm_arena_alloc(arena, (size_t)p->ncand * 3 * sizeof *out);
  if (!out) {
    cm_sort(c, (size_t)p->ncand, 3 * sizeof *c, cm_int2_cmp);
    return;
  }
  for (int i = 0, j = nk, o = 0; o < p->ncand; o++) {
    const int *x = c + 3 * i, *y = c + 3 * j;
    int first = j == p->ncand || (i < nk && (x[0] < y[0] || (x[0] == y[0] && x[1] < y[1])));
    memcpy(out + 3 * o, first ? x : y, 3 * sizeof *c);
    i += first;
    j += !first;
  }
  memcpy(c, out, (size_t)p->ncand * 3 * sizeof *c);
}

void cm_stage_broadphase(const cmModel* m, cmData* d) {
  box_pairs(m, d, far_balls(m, d));
}
