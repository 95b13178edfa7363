/* cm_sort and cm_sort_int (src/core/sort.c) against an insertion sort written here, which is simple
 * enough to be obviously right and is stable.
 *
 * Checked: random, sorted, reversed and constant arrays of every length up to 40 and a long one
 * come out equal to the insertion sort's; elements larger than the 64-byte swap buffer; a total
 * order (key, input index) gives exactly the stable sort by key (the argument by which the
 * former merge sorts were replaced); ties are placed the same way on every run; the shared
 * comparisons at the extremes of their types (no overflow in a subtraction). */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "core/sort.h"
#include "test.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned long long next(void) {
  return test_rand64(&rng);
}

/* the reference: stable insertion sort */
static void insertion_sort(void* base, size_t n, size_t size,
                           int (*cmp)(const void*, const void*)) {
  char* b = base;
  char t[256];
  for (size_t i = 1; i < n; i++) {
    memcpy(t, b + i * size, size);
    size_t j = i;
    while (j > 0 && cmp(b + (j - 1) * size, t) > 0) {
      memcpy(b + j * size, b + (j - 1) * size, size);
      j--;
    }
    memcpy(b + j * size, t, size);
  }
}

/* cm_sort and cm_sort_int (insertion up to 32 ints, cm_sort beyond) against the reference */
static void check_ints(const int* in, int n) {
  int a[1000], b[1000], r[1000];
  memcpy(a, in, (size_t)n * sizeof *a);
  memcpy(b, in, (size_t)n * sizeof *b);
  memcpy(r, in, (size_t)n * sizeof *r);
  cm_sort(a, (size_t)n, sizeof *a, cm_int_cmp);
  cm_sort_int(b, (size_t)n);
  insertion_sort(r, (size_t)n, sizeof *r, cm_int_cmp);
  CHECK(memcmp(a, r, (size_t)n * sizeof *a) == 0);
  CHECK(memcmp(b, r, (size_t)n * sizeof *b) == 0);
}

static void test_ints(void) {
  int in[1000] = {0};
  for (int n = 0; n <= 40; n++) {
    for (int i = 0; i < n; i++) /* random, with repeats */
      in[i] = (int)(next() % 16) - 8;
    check_ints(in, n);
    for (int i = 0; i < n; i++) /* sorted */
      in[i] = i;
    check_ints(in, n);
    for (int i = 0; i < n; i++) /* reversed */
      in[i] = n - i;
    check_ints(in, n);
    for (int i = 0; i < n; i++) /* constant */
      in[i] = 7;
    check_ints(in, n);
  }
  for (int i = 0; i < 1000; i++)
    in[i] = (int)(next() >> 33) - (1 << 30);
  in[0] = INT_MIN;
  in[1] = INT_MAX;
  check_ints(in, 1000);
}

/* elements of 100 bytes: swapped in pieces */
typedef struct Big {
  int key;
  unsigned char pad[96];
} Big;

static int big_cmp(const void* x, const void* y) {
  return cm_int_cmp(&((const Big*)x)->key, &((const Big*)y)->key);
}

static void test_large_elements(void) {
  enum { N = 300 };
  static Big a[N], r[N];
  for (int i = 0; i < N; i++) {
    a[i].key = i * 7919 % N; /* a permutation of 0..N-1: no ties */
    for (int k = 0; k < 96; k++)
      a[i].pad[k] = (unsigned char)(a[i].key + k);
  }
  memcpy(r, a, sizeof a);
  cm_sort(a, N, sizeof *a, big_cmp);
  insertion_sort(r, N, sizeof *r, big_cmp);
  CHECK(memcmp(a, r, sizeof a) == 0);
  int ok = 1;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 96; k++)
      ok &= a[i].key == i && a[i].pad[k] == (unsigned char)(i + k); /* carried whole */
  CHECK(ok);
}

/* a key with many ties and the input position */
typedef struct Keyed {
  double key;
  int index;
} Keyed;

static int key_only_cmp(const void* x, const void* y) {
  const Keyed *p = x, *q = y;
  return (p->key > q->key) - (p->key < q->key);
}

static int key_index_cmp(const void* x, const void* y) {
  const Keyed *p = x, *q = y;
  int c = key_only_cmp(p, q);
  return c ? c : (p->index > q->index) - (p->index < q->index);
}

static void test_stable_by_index(void) {
  enum { N = 500 };
  static Keyed a[N], r[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i].key = (double)(next() % 10);
    a[i].index = i;
  }
  memcpy(r, a, sizeof a);
  memcpy(b, a, sizeof a);
  /* (key, index) with cm_sort == stable sort by key */
  cm_sort(a, N, sizeof *a, key_index_cmp);
  insertion_sort(r, N, sizeof *r, key_only_cmp);
  CHECK(memcmp(a, r, sizeof a) == 0);
  /* by key only, ties land in some order, but in the same one every time */
  Keyed c[N];
  memcpy(c, b, sizeof b);
  cm_sort(b, N, sizeof *b, key_only_cmp);
  cm_sort(c, N, sizeof *c, key_only_cmp);
  CHECK(memcmp(b, c, sizeof b) == 0);
  int sorted = 1;
  for (int i = 1; i < N; i++)
    sorted &= b[i - 1].key <= b[i].key;
  CHECK(sorted);
}

static void test_comparisons(void) {
  int p[2] = {1, 5}, q[2] = {1, 6}, s[2] = {0, 9};
  CHECK(cm_int2_cmp(p, q) < 0 && cm_int2_cmp(q, p) > 0 && cm_int2_cmp(p, p) == 0);
  CHECK(cm_int2_cmp(s, p) < 0); /* the first int decides */
  int lo = INT_MIN, hi = INT_MAX;
  CHECK(cm_int_cmp(&lo, &hi) < 0 && cm_int_cmp(&hi, &lo) > 0 && cm_int_cmp(&lo, &lo) == 0);
  long long llo = LLONG_MIN, lhi = LLONG_MAX;
  CHECK(cm_ll_cmp(&llo, &lhi) < 0 && cm_ll_cmp(&lhi, &llo) > 0 && cm_ll_cmp(&lhi, &lhi) == 0);
  uint64_t ulo = 1, uhi = UINT64_MAX; /* above 2^63: no sign trouble */
  CHECK(cm_u64_cmp(&ulo, &uhi) < 0 && cm_u64_cmp(&uhi, &ulo) > 0 && cm_u64_cmp(&ulo, &ulo) == 0);
  uint64_t u[5] = {UINT64_MAX, 0, (uint64_t)1 << 63, 5, ((uint64_t)1 << 63) - 1};
  cm_sort(u, 5, sizeof *u, cm_u64_cmp);
  CHECK(u[0] == 0 && u[1] == 5 && u[2] == ((uint64_t)1 << 63) - 1 && u[3] == (uint64_t)1 << 63 &&
        u[4] == UINT64_MAX);
}

int main(void) {
  RUN(test_ints);
  RUN(test_large_elements);
  RUN(test_stable_by_index);
  RUN(test_comparisons);
  return test_report();
}
