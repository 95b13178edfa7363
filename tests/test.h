/* A minimal test harness: CHECK macros that record failures with file and line, and a runner.
 *
 *   static void test_something(void) { CHECK(1 + 1 == 2); CHECK_NEAR(x, 1.0, 1e-12); }
 *   int main(void) { RUN(test_something); return test_report(); }
 *
 * Every failed check prints "FILE:LINE: ..." and the test binary exits non-zero. */
#ifndef CM_TEST_H
#define CM_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int t_checks = 0, t_failures = 0, t_tests = 0, t_failed_tests = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    t_checks++;                                                                                    \
    if (!(cond)) {                                                                                 \
      t_failures++;                                                                                \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                      \
  do {                                                                                             \
    double t_a = (a), t_b = (b), t_tol = (tol);                                                    \
    t_checks++;                                                                                    \
    if (!(fabs(t_a - t_b) <= t_tol)) {                                                             \
      t_failures++;                                                                                \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g within %.3g (diff %.3g)\n",          \
              __FILE__, __LINE__, #a, t_a, #b, t_b, t_tol, fabs(t_a - t_b));                      \
    }                                                                                              \
  } while (0)

/* |a - b| <= rtol |b| */
#define CHECK_REL(a, b, rtol)                                                                      \
  do {                                                                                             \
    double t_a = (a), t_b = (b), t_rtol = (rtol);                                                  \
    t_checks++;                                                                                    \
    if (!(fabs(t_a - t_b) <= t_rtol * fabs(t_b))) {                                                \
      t_failures++;                                                                                \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g within rel %.3g (rel diff %.3g)\n",  \
              __FILE__, __LINE__, #a, t_a, #b, t_b, t_rtol, fabs(t_a - t_b) / fabs(t_b));          \
    }                                                                                              \
  } while (0)

#define RUN(fn)                                                                                    \
  do {                                                                                             \
    int t_before = t_failures;                                                                     \
    t_tests++;                                                                                     \
    fn();                                                                                          \
    if (t_failures != t_before) {                                                                  \
      t_failed_tests++;                                                                            \
      fprintf(stderr, "FAIL %s\n", #fn);                                                           \
    } else {                                                                                       \
      printf("ok   %s\n", #fn);                                                                    \
    }                                                                                              \
  } while (0)

static inline int test_report(void) {
  printf("%d passed, %d failed (%d checks)\n", t_tests - t_failed_tests, t_failed_tests, t_checks);
  return t_failures ? 1 : 0;
}

/* path of a file in the source tree */
#define CM_SRC(rel) CM_SOURCE_DIR "/" rel

#endif
