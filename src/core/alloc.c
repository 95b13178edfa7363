/* Allocation hooks. Every heap allocation of the library goes through cm_malloc & co, so a test
 * can count them (no allocation inside a step after the first) and embedders can redirect them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static void* std_malloc(size_t size, void* ctx) {
  (void)ctx;
  return malloc(size);
}
static void* std_realloc(void* ptr, size_t size, void* ctx) {
  (void)ctx;
  return realloc(ptr, size);
}
static void std_free(void* ptr, void* ctx) {
  (void)ctx;
  free(ptr);
}

static cmAllocator g_alloc = {std_malloc, std_realloc, std_free, NULL};

void cm_set_allocator(const cmAllocator* a) {
  if (a && a->malloc_fn && a->realloc_fn && a->free_fn) {
    g_alloc = *a;
  } else {
    g_alloc.malloc_fn = std_malloc;
    g_alloc.realloc_fn = std_realloc;
    g_alloc.free_fn = std_free;
    g_alloc.ctx = NULL;
  }
}

void* cm_malloc(size_t size) { return g_alloc.malloc_fn(size ? size : 1, g_alloc.ctx); }

void* cm_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  void* p = cm_malloc(bytes);
  if (p && bytes) memset(p, 0, bytes);
  return p;
}

void* cm_realloc(void* ptr, size_t size) {
  return g_alloc.realloc_fn(ptr, size ? size : 1, g_alloc.ctx);
}

void cm_free(void* ptr) {
  if (ptr) g_alloc.free_fn(ptr, g_alloc.ctx);
}

char* cm_strdup(const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char* r = cm_malloc(n);
  if (r) memcpy(r, s, n);
  return r;
}
