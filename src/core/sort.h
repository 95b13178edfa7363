/* The one general sort of the library (heapsort, in place, no allocation) and the comparisons
 * shared by its callers. See sort.c for the algorithm and why it is the only one. Not installed. */
#ifndef CM_SORT_H
#define CM_SORT_H

#include <stddef.h>

/* Sort n elements of `size` bytes by cmp (negative, zero, positive as for qsort), in place and
 * without allocating, in O(n log n) worst case: usable inside a step, where nothing may
 * allocate (glibc's qsort may call malloc). Not stable: the order of elements that compare
 * equal is fixed by the algorithm (the same on every machine) but it is not their input order,
 * so a caller that needs a unique result gives cmp a total order (e.g. an index as the last
 * key). */
void cm_sort(void* base, size_t n, size_t size, int (*cmp)(const void*, const void*));

/* ints ascending: by insertion for short arrays (the lists of a step: crossed faces, a body's
 * neighbours, 0 to 20 ints, where the heap's calls through cmp cost more than the sort), else
 * cm_sort. Equal ints are indistinguishable, so the result is cm_sort's. */
void cm_sort_int(int* a, size_t n);

/* comparison of int pairs, lexicographic (an element of 2 ints, or the first 2 of a longer one) */
int cm_int2_cmp(const void* x, const void* y);

/* comparison of ints, of long longs and of uint64_t, ascending */
int cm_int_cmp(const void* x, const void* y);
int cm_ll_cmp(const void* x, const void* y);
int cm_u64_cmp(const void* x, const void* y);

#endif
