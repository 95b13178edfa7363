/* Scratch arena for per-step temporaries.
 *
 * Allocation bumps a pointer in one buffer. When a step needs more than the buffer holds, the
 * overflow is served by the heap and remembered; cm_arena_reset (called between steps) frees the
 * overflow and grows the buffer to the peak seen, so that after the first steps of a run no step
 * allocates from the heap (Box2D's stack allocator follows the same idea). cm_arena_rewind
 * (called between the sub-steps of a step) releases everything without growing the buffer, so
 * that the scratch of a step is that of its largest sub-step, not the sum over its sub-steps. */
#ifndef CM_ARENA_H
#define CM_ARENA_H

#include <stddef.h>

typedef struct cmArena {
  char* buf;   /* the buffer */
  size_t cap;  /* its size, bytes */
  size_t used; /* bytes handed out from buf since the last reset or rewind */
  size_t peak; /* largest total demand between two resets or rewinds (buf + overflow),
                  bytes, over the arena's life */
  size_t overflow_bytes;
  void** overflow; /* heap blocks handed out since the last reset or rewind */
  int noverflow, maxoverflow;
} cmArena;

/* An arena alone on its cache lines, for arrays of per-thread arenas: each thread's allocations
 * write its arena's `used` and `peak`, and arenas packed 56 bytes apart shared a line between
 * thread 0 and thread 1, which then moved between the cores at every allocation of the
 * narrowphase's edge search (a dozen per pair; bench/README.md, "Per-thread arenas on their own
 * cache lines"). 128 bytes: two lines, since a 16-byte aligned slot may straddle a line
 * boundary, and the next slot then starts on the line after. */
typedef union cmArenaSlot {
  cmArena a;
  char line[128];
} cmArenaSlot;

void cm_arena_init(cmArena* a, size_t cap);
void cm_arena_destroy(cmArena* a);
/* the alignment of the arena's blocks: a block of `size` bytes takes `size` rounded up to it */
#define CM_ARENA_ALIGN 16
/* 16-byte aligned block of `size` bytes, valid until the next reset; NULL on no memory */
void* cm_arena_alloc(cmArena* a, size_t size);
/* zeroed array of n elements of `size` bytes */
void* cm_arena_calloc(cmArena* a, size_t n, size_t size);
/* release everything (free the overflow); no allocation */
void cm_arena_rewind(cmArena* a);
/* release everything; grow the buffer to the peak demand if it overflowed */
void cm_arena_reset(cmArena* a);

#endif
