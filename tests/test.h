/* A minimal test harness: CHECK macros that record failures with file and line, and a runner.
 *
 *   static void test_something(void) { CHECK(1 + 1 == 2); CHECK_NEAR(x, 1.0, 1e-12); }
 *   int main(void) { RUN(test_something); return test_report(); }
 *
 * Every failed check prints "FILE:LINE: ..." and the test binary exits non-zero. RUN prints the
 * CPU time of each test function (all threads).
 *
 * Scale. The sanitizer build runs 4-10 times slower, and repeating a random trial a thousand
 * times under ASan finds nothing the first hundred did not. So the tests scale their repetition:
 *
 *   for (int i = 0; i < test_trials(5000, 4); i++) ...  5000 trials at scale 1, 1250 at 0.25,
 *                                                       never fewer than 4
 *   RUN_LONG(test_settles_for_2_seconds);               only at scale 1
 *
 * The scale is 1 in the optimised build; the sanitizer build defaults to CM_TEST_SCALE_DEFAULT
 * (tests/CMakeLists.txt), and the environment variable CM_TEST_SCALE overrides both (make
 * test-extended runs the sanitizer build at 1). Rules:
 *  - test_trials scales repetition only: every case, kind, size and code path of the test still
 *    runs at any scale (an enumeration such as `kind = i % 4` in the loop sets the minimum, 4),
 *    every check holds as written, and at scale 1 the test is exactly what it was; a threshold
 *    on a count is a fraction of the trials, equal to the old number at scale 1.
 *  - a physics run is never shortened (settling, convergence with resolution, a claim over a
 *    range of sizes): RUN_LONG runs it at scale 1 only, i.e. in the optimised pass of make test
 *    and under the sanitizers in make test-extended, and only if the sanitizer pass covers its
 *    code through other tests (tests/CMakeLists.txt lists each RUN_LONG and why). */
#ifndef CM_TEST_H
#define CM_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    clock_t t_start = clock();                                                                     \
    t_tests++;                                                                                     \
    fn();                                                                                          \
    double t_cpu = (double)(clock() - t_start) / CLOCKS_PER_SEC;                                   \
    if (t_failures != t_before) {                                                                  \
      t_failed_tests++;                                                                            \
      fprintf(stderr, "FAIL %s (%.2f s)\n", #fn, t_cpu);                                           \
    } else {                                                                                       \
      printf("ok   %s (%.2f s)\n", #fn, t_cpu);                                                    \
    }                                                                                              \
  } while (0)

#ifndef CM_TEST_SCALE_DEFAULT
#define CM_TEST_SCALE_DEFAULT 1.0
#endif

static double t_scale = 0;
static int t_skipped = 0;

/* the scale: CM_TEST_SCALE from the environment, else the build's default; in (0, 1] */
static inline double test_scale(void) {
  if (t_scale == 0) {
    const char* e = getenv("CM_TEST_SCALE");
    t_scale = e && *e ? atof(e) : CM_TEST_SCALE_DEFAULT;
    if (!(t_scale > 0 && t_scale <= 1)) t_scale = 1;
  }
  return t_scale;
}

/* n trials at full scale: n x scale rounded up, at least min */
static inline int test_trials(int n, int min) {
  double s = test_scale();
  if (s >= 1) return n;
  int k = (int)ceil(n * s);
  return k < min ? min : k;
}

/* run fn only at full scale (see the top of this file) */
#define RUN_LONG(fn)                                                                               \
  do {                                                                                             \
    if (test_scale() >= 1) {                                                                       \
      RUN(fn);                                                                                     \
    } else {                                                                                       \
      t_skipped++;                                                                                 \
      printf("skip %s (long: runs at scale 1 only)\n", #fn);                                       \
    }                                                                                              \
  } while (0)

static inline int test_report(void) {
  printf("%d passed, %d failed (%d checks)", t_tests - t_failed_tests, t_failed_tests, t_checks);
  if (test_scale() < 1) printf(" at scale %g, %d long tests skipped", test_scale(), t_skipped);
  printf("\n");
  return t_failures ? 1 : 0;
}

/* splitmix64, the tests' random numbers: each test keeps its own state (its seed) */
static inline unsigned long long test_rand64(unsigned long long* state) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double test_urand(unsigned long long* state) {
  return (double)(test_rand64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* path of a file in the source tree */
#define CM_SRC(rel) CM_SOURCE_DIR "/" rel

#endif
