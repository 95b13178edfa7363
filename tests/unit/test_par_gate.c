/* The gates of the parallel regions (src/core/par_gate.c), on recorded runs given here, so that
 * the decisions are known exactly (no clock involved):
 *   - a site never measured runs serially (the first run measures it), as does every site on one
 *     thread;
 *   - after a run of U units in B seconds the cost is B / U, and the region opens exactly when
 *     the overlapping work times that cost reaches CM_PAR_MIN_SAVE (200 us);
 *   - later runs move the estimate by a quarter of the difference (an exponential average over
 *     the last runs), so one slow run (a preempted thread) does not flip the decision;
 *   - runs with no unit or a time that is not a number are not recorded;
 *   - cm_par_mode 1 opens every region with more than one thread, -1 none;
 *   - cm_par_threads never exceeds its cap and is at least 1.
 * That a parallel run gives the same state as a serial one is physics/test_determinism's. */
#include <math.h>

#include "core/par_gate.h"
#include "test.h"

static void test_unmeasured_and_one_thread(void) {
  cmParGate g = {0};
  CHECK(!cm_par_open(&g, 1e12, 2)); /* nothing measured: serial */
  cm_par_record(&g, 1000, 1e-3);    /* 1 us per unit */
  CHECK_NEAR(g.s_per_unit, 1e-6, 1e-18);
  CHECK(cm_par_open(&g, 1e6, 2));
  CHECK(!cm_par_open(&g, 1e6, 1)); /* one thread: never */
  CHECK(!cm_par_open(&g, 1e6, 0));
}

static void test_threshold(void) {
  cmParGate g = {0};
  cm_par_record(&g, 1000, 1e-3); /* 1 us per unit: 200 units save the 200 us */
  CHECK(CM_PAR_MIN_SAVE == 200e-6);
  CHECK(cm_par_open(&g, 200.5, 2));
  CHECK(!cm_par_open(&g, 199.5, 2));
  CHECK(!cm_par_open(&g, 0, 2));
  CHECK(!cm_par_open(&g, -5, 2)); /* one big island: nothing to overlap */
}

static void test_average(void) {
  cmParGate g = {0};
  cm_par_record(&g, 100, 1e-4); /* 1 us */
  cm_par_record(&g, 100, 5e-4); /* 5 us: 0.75 * 1 + 0.25 * 5 = 2 us */
  CHECK_NEAR(g.s_per_unit, 2e-6, 1e-18);
  /* a region of 150 overlapping units opens at 2 us (300 us), and one slow run of 50 us per
   * unit moves the estimate to 14 us (0.75 x 2 + 0.25 x 50), not to 50 */
  CHECK(cm_par_open(&g, 150, 2));
  cm_par_record(&g, 10, 5e-4);
  CHECK_NEAR(g.s_per_unit, 14e-6, 1e-15);
  /* runs that say nothing are not recorded */
  double before = g.s_per_unit;
  cm_par_record(&g, 0, 1e-3);
  cm_par_record(&g, -1, 1e-3);
  cm_par_record(&g, 100, NAN);
  cm_par_record(&g, 100, -1e-3);
  CHECK(g.s_per_unit == before);
  /* a run measured at 0 s (below the clock's resolution) is a cost of 0 */
  cmParGate z = {0};
  cm_par_record(&z, 100, 0);
  CHECK(z.s_per_unit == 0 && !cm_par_open(&z, 1e9, 2));
}

static void test_modes(void) {
  cmParGate g = {0};
  int saved = cm_par_mode;
  cm_par_mode = 1;
  CHECK(cm_par_open(&g, 1, 2)); /* forced: even unmeasured and tiny */
  CHECK(!cm_par_open(&g, 1, 1));
  cm_par_mode = -1;
  cm_par_record(&g, 1, 1);
  CHECK(!cm_par_open(&g, 1e9, 2));
  cm_par_mode = saved;
  CHECK(cm_par_open(&g, 1e9, 2));
}

static void test_threads(void) {
  int n = cm_par_threads(0);
  CHECK(n >= 1);
  CHECK(cm_par_threads(1) == 1);
  CHECK(cm_par_threads(n + 5) == n);
  CHECK(cm_par_threads(-3) == n);
}

int main(void) {
  RUN(test_unmeasured_and_one_thread);
  RUN(test_threshold);
  RUN(test_average);
  RUN(test_modes);
  RUN(test_threads);
  return test_report();
}
