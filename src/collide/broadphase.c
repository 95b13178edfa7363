/* Stage 2, broadphase: candidate body pairs whose world boxes overlap, filtered by the pair
 * table.
 *
 * Uniform grid (spatial hash). The cell size s is twice the mean largest box extent of the
 * bodies, so a typical body covers 1 to 8 cells (about 3.4 on average). Every (cell, body) entry is
 * put in a hash bucket (counting sort on the hash: O(n), and in body order within a bucket, so the
 * result is deterministic); two bodies in the same cell whose boxes overlap form a pair, reported
 * only by the cell that holds the lower corner of the two boxes' intersection, so no pair is
 * reported twice. Expected cost O(n + k) for k candidate pairs at any density, unlike a sweep
 * along one axis whose x-overlaps grow as n^(2/3) per body in 3-D (bench/README.md).
 * Bodies much larger than a cell (more than 4 cells along an axis) and half-spaces (infinite
 * boxes) are "large": each is tested against every collidable body directly (O(n) per large
 * body; scenes have a handful). The candidate list is finally sorted by (a, b) so that every
 * later stage sees the pairs in the same order. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "collide/collide.h"
#include "core/internal.h"
#include "core/sort.h"
#include "model/data_internal.h"

#define LARGE_CELLS 4
#define CELL_LIMIT 1e15 /* cell coordinates are clamped so that they fit in int64 */

typedef struct Entry {
  int64_t cell[3];
  int body;
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

static void test_pair(const cmModel* m, cmData* d, int a, int b) {
  if (!overlap(d->body_aabb + 6 * a, d->body_aabb + 6 * b)) return;
  int rule = cm_model_pair_rule(m, a, b);
  if (rule >= 0 && !push_cand(cm_priv(d), a, b, rule)) d->warning[CM_WARN_CONTACT_LIMIT]++;
}

static int64_t cell_of(double x, double inv) {
  double c = floor(x * inv);
  if (c > CELL_LIMIT) c = CELL_LIMIT;
  if (c < -CELL_LIMIT) c = -CELL_LIMIT;
  return (int64_t)c;
}

static uint64_t cell_hash(const int64_t c[3]) {
  uint64_t h = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)c[2] * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return h ^ (h >> 29);
}

/* the grid over the ordinary bodies (list[0..n)) with cell size s */
static void grid_pairs(const cmModel* m, cmData* d, const int* list, int n, double s) {
  cmArena* arena = &cm_priv(d)->arena;
  double inv = 1.0 / s;
  /* entries: one per (cell, body) */
  long ne = 0;
  for (int i = 0; i < n; i++) {
    const double* B = d->body_aabb + 6 * list[i];
    long cnt = 1;
    for (int k = 0; k < 3; k++)
      cnt *= (long)(cell_of(B[3 + k], inv) - cell_of(B[k], inv) + 1);
    ne += cnt;
  }
  if (ne >= (1L << 31)) { /* counts are 32-bit */
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  uint64_t nbucket = 1;
  while (nbucket < (uint64_t)ne)
    nbucket *= 2;
  Entry* ent = cm_arena_alloc(arena, (size_t)ne * sizeof *ent);
  Entry* sorted = cm_arena_alloc(arena, (size_t)ne * sizeof *sorted);
  uint32_t* bucket = cm_arena_alloc(arena, (size_t)ne * sizeof *bucket);
  uint32_t* start = cm_arena_calloc(arena, (size_t)nbucket + 1, sizeof *start);
  if (!ent || !sorted || !bucket || !start) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  long e = 0;
  for (int i = 0; i < n; i++) {
    const double* B = d->body_aabb + 6 * list[i];
    int64_t lo[3], hi[3], c[3];
    for (int k = 0; k < 3; k++) {
      lo[k] = cell_of(B[k], inv);
      hi[k] = cell_of(B[3 + k], inv);
    }
    for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++)
      for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
        for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++) {
          memcpy(ent[e].cell, c, sizeof c);
          ent[e].body = list[i];
          bucket[e] = (uint32_t)(cell_hash(c) & (nbucket - 1));
          start[bucket[e] + 1]++;
          e++;
        }
  }
  /* counting sort by bucket (stable: body order within a bucket); ne < 2^32 entries */
  for (uint64_t k = 0; k < nbucket; k++)
    start[k + 1] += start[k];
  for (long i = 0; i < ne; i++)
    sorted[start[bucket[i]]++] = ent[i];
  /* pairs within each bucket, same cell, reported by the cell of the intersection's corner */
  long first = 0;
  for (uint64_t k = 0; k < nbucket; k++) {
    long last = (long)start[k]; /* after the fill, start[k] is the end of bucket k */
    for (long i = first; i < last; i++)
      for (long j = i + 1; j < last; j++) {
        const Entry* E = &sorted[i];
        const Entry* F = &sorted[j];
        if (memcmp(E->cell, F->cell, sizeof E->cell) || E->body == F->body) continue;
        const double* A = d->body_aabb + 6 * E->body;
        const double* B = d->body_aabb + 6 * F->body;
        if (!overlap(A, B)) continue;
        int own = 1;
        for (int a = 0; a < 3 && own; a++)
          own = cell_of(A[a] > B[a] ? A[a] : B[a], inv) == E->cell[a];
        if (own) test_pair(m, d, E->body, F->body);
      }
    first = last;
  }
}

void cm_stage_broadphase(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  cmArena* arena = &p->arena;
  p->ncand = 0;
  int* ordinary = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *ordinary);
  int* large = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *large);
  int* all = cm_arena_alloc(arena, (size_t)(m->nbody + 1) * sizeof *all);
  unsigned char* is_large = cm_arena_calloc(arena, (size_t)m->nbody + 1, 1);
  if (!ordinary || !large || !all || !is_large) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  /* cell size: mean largest extent of the finite boxes */
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
  double s = nfinite ? 2 * ext / nfinite : 1;
  if (!(s > 0)) s = 1;
  int nord = 0, nlarge = 0;
  for (int i = 0; i < nall; i++) {
    const double* B = d->body_aabb + 6 * all[i];
    double e = fmax(B[3] - B[0], fmax(B[4] - B[1], B[5] - B[2]));
    /* a box with a NaN (fmax drops it from e) is not put into the grid, whose cell counts
     * assume finite corners */
    int finite = 1;
    for (int k = 0; k < 6; k++)
      finite = finite && isfinite(B[k]);
    if (finite && isfinite(e) && e <= LARGE_CELLS * s)
      ordinary[nord++] = all[i];
    else {
      large[nlarge++] = all[i];
      is_large[all[i]] = 1;
    }
  }
  if (nord > 1) grid_pairs(m, d, ordinary, nord, s); /* (one body alone makes no pair) */
  /* large bodies against everything (each large-large pair once) */
  for (int i = 0; i < nlarge; i++)
    for (int j = 0; j < nall; j++) {
      int a = large[i], b = all[j];
      if (a == b) continue;
      if (is_large[b] && b < a) continue;
      test_pair(m, d, a, b);
    }
  /* deterministic order: by (a, b); a pair is a candidate once, so (a, b) is a total order */
  sort_candidates(p, m->nbody, arena);
}
