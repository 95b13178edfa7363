/* Stage 2, broadphase: candidate body pairs whose world boxes overlap, filtered by the pair
 * table.
 *
 * Sort and sweep along x: bodies that can collide with something are sorted by the lower x
 * bound of their box (a merge sort on scratch memory: O(n log n), stable, so ties keep body
 * order and the result is deterministic); walking the sorted list, body i is tested against
 * the following bodies j while lo_x(j) <= hi_x(i), and a pair is kept when the y and z ranges
 * overlap too and cm_model_pair_rule gives a rule. Cost O(n log n + k) for k x-overlaps.
 * Half-spaces (planes) have infinite boxes: they pair with every body, and the narrowphase
 * rejects the bodies above them at the cost of one box test. The candidate list is sorted by
 * (a, b) so that every later stage sees the pairs in the same order whatever the sweep met. */
#include <string.h>

#include "core/internal.h"
#include "model/data_internal.h"
#include "solve/stages.h"

static void merge_sort(int* idx, int* tmp, int n, const double* key) {
  /* bottom-up merge sort of idx by key[idx], ties by idx (stable on an ascending input) */
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = key[idx[j]] < key[idx[i]] ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
  }
}

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

void cm_stage_broadphase(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  p->ncand = 0;
  int n = 0;
  int* idx = cm_arena_alloc(&p->arena, (size_t)(m->nbody + 1) * sizeof *idx);
  int* tmp = cm_arena_alloc(&p->arena, (size_t)(m->nbody + 1) * sizeof *tmp);
  double* lo = cm_arena_alloc(&p->arena, (size_t)(m->nbody + 1) * sizeof *lo);
  if (!idx || !tmp || !lo) return;
  for (int b = 0; b < m->nbody; b++) {
    lo[b] = d->body_aabb[6 * b];
    if (collidable(m, b)) idx[n++] = b;
  }
  merge_sort(idx, tmp, n, lo);
  for (int i = 0; i < n; i++) {
    int a = idx[i];
    const double* A = d->body_aabb + 6 * a;
    for (int j = i + 1; j < n; j++) {
      int b = idx[j];
      const double* B = d->body_aabb + 6 * b;
      if (B[0] > A[3]) break;
      if (B[1] > A[4] || A[1] > B[4] || B[2] > A[5] || A[2] > B[5]) continue;
      int rule = cm_model_pair_rule(m, a, b);
      if (rule >= 0 && !push_cand(p, a, b, rule)) d->warning[CM_WARN_CONTACT_LIMIT]++;
    }
  }
  /* deterministic order: by (a, b); a merge sort on the combined key a * nbody + b */
  int nc = p->ncand;
  if (nc > 1) {
    int* ord = cm_arena_alloc(&p->arena, (size_t)nc * sizeof *ord);
    int* ot = cm_arena_alloc(&p->arena, (size_t)nc * sizeof *ot);
    double* key = cm_arena_alloc(&p->arena, (size_t)nc * sizeof *key);
    int* copy = cm_arena_alloc(&p->arena, (size_t)nc * 3 * sizeof *copy);
    if (!ord || !ot || !key || !copy) return;
    for (int k = 0; k < nc; k++) {
      ord[k] = k;
      key[k] = (double)p->cand[3 * k] * (double)m->nbody + (double)p->cand[3 * k + 1];
    }
    merge_sort(ord, ot, nc, key);
    memcpy(copy, p->cand, (size_t)nc * 3 * sizeof *copy);
    for (int k = 0; k < nc; k++) memcpy(p->cand + 3 * k, copy + 3 * ord[k], 3 * sizeof *copy);
  }
}
