/* Internal helpers shared by every source file: allocation through the user's hooks, error
 * messages into caller buffers, logging, assertions. Not installed. */
#ifndef CM_INTERNAL_H
#define CM_INTERNAL_H

#include <stddef.h>

#include "comply/core.h"

/* allocation through the hooks of cm_set_allocator; counted for the no-allocation test */
void* cm_malloc(size_t size);
void* cm_calloc(size_t n, size_t size); /* zeroed; NULL on overflow */
void* cm_realloc(void* ptr, size_t size);
void cm_free(void* ptr);
char* cm_strdup(const char* s); /* NULL for NULL */

/* write a printf-style message into err (if non-NULL) and return s */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
cmStatus cm_error(char* err, size_t errsz, cmStatus s, const char* fmt, ...);

/* report a note through the log hook (level 0 info, 1 warning) */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cm_log(int level, const char* fmt, ...);

/* monotonic wall clock, s (clock.c) */
double cm_clock(void);

/* programmer errors */
#include <assert.h>
#define CM_ASSERT(x) assert(x)

#endif
