/* Scratch arena: see arena.h. */
#include "core/arena.h"

#include <stdint.h>
#include <string.h>

#include "core/internal.h"

void cm_arena_init(cmArena* a, size_t cap) {
  memset(a, 0, sizeof *a);
  if (cap) {
    a->buf = cm_malloc(cap);
    a->cap = a->buf ? cap : 0;
  }
}

void cm_arena_destroy(cmArena* a) {
  cm_arena_reset(a);
  cm_free(a->buf);
  cm_free(a->overflow);
  memset(a, 0, sizeof *a);
}

void* cm_arena_alloc(cmArena* a, size_t size) {
  size_t need = (size + CM_ARENA_ALIGN - 1) & ~(size_t)(CM_ARENA_ALIGN - 1);
  if (need < size) return NULL; /* overflow of the rounding */
  size_t demand = a->used + a->overflow_bytes + need;
  if (demand > a->peak) a->peak = demand;
  /* from the buffer */
  if (a->used + need <= a->cap) {
    void* p = a->buf + a->used;
    a->used += need;
    return p;
  }
  /* from the heap until the next reset grows the buffer */
  if (a->noverflow == a->maxoverflow) {
    int n = a->maxoverflow ? 2 * a->maxoverflow : 8;
    void** t = cm_realloc(a->overflow, (size_t)n * sizeof *t);
    if (!t) return NULL;
    a->overflow = t;
    a->maxoverflow = n;
  }
  void* p = cm_malloc(need);
  if (!p) return NULL;
  a->overflow[a->noverflow++] = p;
  a->overflow_bytes += need;
  return p;
}

void* cm_arena_calloc(cmArena* a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  void* p = cm_arena_alloc(a, n * size);
  if (p) memset(p, 0, n * size);
  return p;
}

void cm_arena_rewind(cmArena* a) {
  for (int i = 0; i < a->noverflow; i++)
    cm_free(a->overflow[i]);
  a->noverflow = 0;
  a->overflow_bytes = 0;
  a->used = 0;
}

void cm_arena_reset(cmArena* a) {
  cm_arena_rewind(a);
  /* grow to the peak (plus half) so that the same demand fits next time; a peak above the
   * capacity means that the buffer overflowed since the last growth (perhaps before a rewind) */
  if (a->peak > a->cap) {
    size_t cap = a->peak + a->peak / 2;
    char* b = cm_malloc(cap);
    if (b) {
      cm_free(a->buf);
      a->buf = b;
      a->cap = cap;
    }
  }
}
