/* A counting allocator for the tests that prove a code path allocates nothing:
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

#endif
