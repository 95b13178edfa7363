/* Heapsort (Williams 1964, with Floyd's bottom-up heap construction), the one general sort.
 *
 * The array is first made a max-heap: every element is >= its children 2 i + 1 and 2 i + 2,
 * established by sifting down each inner node from the last (n / 2 - 1) to the root. Then,
 * for end = n - 1 down to 1, the root (the largest of base[0 .. end]) is swapped to position
 * end and the new root is sifted down in base[0 .. end). Sift-down moves a node to its larger
 * child while that child is larger (on equal children the left one is taken). At most
 * 2 log2(n) comparisons per element: O(n log n) in the worst case, O(1) extra memory.
 *
 * Why heapsort, and why one sort. A step must not allocate after warm-up, so the sorts in the
 * step (triangle pairs, contour and edge records, broadphase candidates, block Cholesky
 * adjacency) can use neither qsort (glibc may malloc a merge buffer) nor a merge sort without
 * an arena buffer; heapsort needs neither and fits pure functions such as cm_bvh_tri_pairs.
 * Heapsort is not stable, and that is what decides the rest: its callers that may hold
 * distinct elements comparing equal (face planes summed per quantised plane in the model
 * compiler) depend on its exact order of ties, so it is kept operation for operation as it
 * was. Every other caller (the former merge sorts and qsort calls) compares by a total order,
 * for which every correct sort gives the same array (where a stable sort by a key was used, the
 * input position is now the last key: stable by key = by (key, index)), or only ties elements
 * that are equal byte for byte or whose order it does not use (the two half-edges of one
 * degenerate face in the pseudonormals).
 *
 * Elements are swapped through a 64-byte buffer, in pieces for larger elements.
 *
 * cm_sort_int sorts short arrays of ints by insertion instead (the step's lists of crossed
 * faces and neighbours hold 0 to 20): equal ints are indistinguishable, so every correct sort
 * gives its array, and insertion costs less there than the heap's calls through cmp. */
#include "core/sort.h"

#include <stdint.h>
#include <string.h>

static void swap_bytes(char* a, char* b, size_t size) {
  char t[64];
  while (size > 0) {
    size_t k = size < sizeof t ? size : sizeof t;
    memcpy(t, a, k);
    memcpy(a, b, k);
    memcpy(b, t, k);
    a += k;
    b += k;
    size -= k;
  }
}

/* restore the max-heap below node i of the heap base[0 .. n) */
static void sift_down(char* base, size_t i, size_t n, size_t size,
                      int (*cmp)(const void*, const void*)) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && cmp(base + c * size, base + (c + 1) * size) < 0) c++;
    if (cmp(base + i * size, base + c * size) >= 0) return;
    swap_bytes(base + i * size, base + c * size, size);
    i = c;
  }
}

void cm_sort(void* base_, size_t n, size_t size, int (*cmp)(const void*, const void*)) {
  char* base = base_;
  if (n < 2) return;
  /* build the heap bottom-up */
  for (size_t i = n / 2; i-- > 0;)
    sift_down(base, i, n, size, cmp);
  /* move the largest to the end, shrink the heap, repeat */
  for (size_t end = n - 1; end > 0; end--) {
    swap_bytes(base, base + end * size, size);
    sift_down(base, 0, end, size, cmp);
  }
}

/* arrays up to this long are sorted by insertion (cm_sort_int) */
#define INSERTION_MAX 32

void cm_sort_int(int* a, size_t n) {
  if (n > INSERTION_MAX) {
    cm_sort(a, n, sizeof *a, cm_int_cmp);
    return;
  }
  for (size_t i = 1; i < n; i++) {
    int x = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > x; j--)
      a[j] = a[j - 1];
    a[j] = x;
  }
}

int cm_int2_cmp(const void* x, const void* y) {
  const int *p = x, *q = y;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  return (p[1] > q[1]) - (p[1] < q[1]);
}

int cm_int_cmp(const void* x, const void* y) {
  int a = *(const int*)x, b = *(const int*)y;
  return (a > b) - (a < b);
}

int cm_ll_cmp(const void* x, const void* y) {
  long long a = *(const long long*)x, b = *(const long long*)y;
  return (a > b) - (a < b);
}

int cm_u64_cmp(const void* x, const void* y) {
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return (a > b) - (a < b);
}
