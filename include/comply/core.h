/* comply: core public types shared by every part of the API.
 *
 * Errors come in three tiers (docs/architecture.md, "Errors"):
 *   - programmer errors (NULL where an object is required) are assertions;
 *   - recoverable errors (parse, I/O, bad values) return a cmStatus and write a
 *     human-readable message into a caller-supplied buffer `err` of size `errsz`
 *     (may be NULL/0). Messages name the file, line and field where known;
 *   - numerical trouble during simulation is counted in cmData.warning[].
 * The library never prints and never exits. */
#ifndef COMPLY_CORE_H
#define COMPLY_CORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions of the public API: the shared library exports these and nothing else (it
 * is built with hidden visibility by default). */
#if defined(__GNUC__) || defined(__clang__)
#define CM_API __attribute__((visibility("default")))
#else
#define CM_API
#endif

#define CM_VERSION_MAJOR 0
#define CM_VERSION_MINOR 1
#define CM_VERSION_PATCH 0
#define CM_VERSION_STRING "0.1.0"

/* the library version as "MAJOR.MINOR.PATCH" */
CM_API const char* cm_version(void);

/* result of every fallible call */
typedef enum cmStatus {
  CM_OK = 0,
  CM_ERR_ARG,     /* a bad argument or value (out of range, not finite, unknown name) */
  CM_ERR_IO,      /* a file could not be opened, read or written */
  CM_ERR_PARSE,   /* malformed input text or binary */
  CM_ERR_MESH,    /* a mesh failed validation (open, non-manifold, inverted, ...) */
  CM_ERR_NOMEM,   /* an allocation failed */
  CM_ERR_NUMERIC, /* the simulation produced a non-finite or exploding state */
  CM_ERR_LIMIT    /* a configured resource limit was exceeded */
} cmStatus;

/* short name of a status, e.g. "parse error" (static storage) */
CM_API const char* cm_status_name(cmStatus s);

/* allocation hooks: every heap allocation of the library goes through these.
 * Passing NULL restores the C library's malloc/realloc/free. Not thread-safe:
 * set them before creating any object. Used by tests to count allocations. */
typedef struct cmAllocator {
  void* (*malloc_fn)(size_t size, void* ctx);
  void* (*realloc_fn)(void* ptr, size_t size, void* ctx);
  void (*free_fn)(void* ptr, void* ctx);
  void* ctx;
} cmAllocator;
CM_API void cm_set_allocator(const cmAllocator* a);

/* log hook: the library reports notes (never errors, which are returned) through this.
 * level: 0 info, 1 warning. Default: no logging. */
typedef void (*cmLogFn)(void* ctx, int level, const char* msg);
CM_API void cm_set_log(cmLogFn fn, void* ctx);

#ifdef __cplusplus
}
#endif
#endif
