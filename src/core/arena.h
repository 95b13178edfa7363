/* Scratch arena for per-step temporaries.
 *
 * Allocation bumps a pointer in one buffer. When a step needs more than the buffer holds, the
 * overflow is served by the heap and remembered; cm_arena_reset (called between steps) frees the
 * overflow and grows the buffer to the peak seen, so that after the first steps of a run no step
 * allocates from the heap (Box2D's stack allocator follows the same idea). */
#ifndef CM_ARENA_H
#define CM_ARENA_H

#include <stddef.h>

typedef struct cmArena {
  char* buf;        /* the buffer */
  size_t cap;       /* its size, bytes */
  size_t used;      /* bytes handed out from buf this step */
  size_t peak;      /* largest total demand in one step (buf + overflow), bytes */
  size_t overflow_bytes;
  void** overflow;  /* heap blocks handed out this step */
  int noverflow, maxoverflow;
} cmArena;

void cm_arena_init(cmArena* a, size_t cap);
void cm_arena_destroy(cmArena* a);
/* 16-byte aligned block of `size` bytes, valid until the next reset; NULL on no memory */
void* cm_arena_alloc(cmArena* a, size_t size);
/* zeroed array of n elements of `size` bytes */
void* cm_arena_calloc(cmArena* a, size_t n, size_t size);
/* release everything; grow the buffer to the peak demand if it overflowed */
void cm_arena_reset(cmArena* a);

#endif
