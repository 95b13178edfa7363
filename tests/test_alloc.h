/* Allocators for the tests. A counting one, for the tests that prove a code path allocates
 * nothing:
 *   cmAllocator a = {count_malloc, count_realloc, count_free, NULL};
 *   cm_set_allocator(&a); long before = t_nalloc; ...; CHECK(t_nalloc == before);
 * t_nalloc counts malloc and realloc calls made through the library's hooks. */
#ifndef CM_TEST_ALLOC_H
#define CM_TEST_ALLOC_H

#include <stdlib.h>

#include "comply/core.h"

static long t_nalloc = 0;

static inline void* count_malloc(size_t n, void* ctx) {
  (void)ctx;
  t_nalloc++;
  return malloc(n);
}
static inline void* count_realloc(void* p, size_t n, void* ctx) {
  (void)ctx;
  t_nalloc++;
  return realloc(p, n);
}
static inline void count_free(void* p, void* ctx) {
  (void)ctx;
  free(p);
}

/* An allocator that fails one call: after t_fail_start(k) the k-th malloc or realloc made
 * through the library's hooks returns NULL (k = 0: none); t_fail_stop() puts the default
 * allocator back and returns the number of calls made since the start, so that a loop over k
 * ends when a run makes fewer than k:
 *   for (long k = 1;; k++) { t_fail_start(k); ...; if (t_fail_stop() < k) break; } */
typedef struct tFail {
  long calls, at;
} tFail;
static inline tFail* t_fail(void) {
  static tFail f;
  return &f;
}
static inline void* fail_malloc(size_t n, void* ctx) {
  tFail* f = ctx;
  return ++f->calls == f->at ? NULL : malloc(n);
}
static inline void* fail_realloc(void* p, size_t n, void* ctx) {
  tFail* f = ctx;
  return ++f->calls == f->at ? NULL : realloc(p, n);
}
static inline void t_fail_start(long k) {
  tFail* f = t_fail();
  f->calls = 0;
  f->at = k;
  cmAllocator a = {fail_malloc, fail_realloc, count_free, f};
  cm_set_allocator(&a);
}
static inline long t_fail_stop(void) {
  cm_set_allocator(NULL);
  t_fail()->at = 0;
  return t_fail()->calls;
}

#endif
