/* Parallel regions that pay for themselves (issue 10: two threads never slower than one).
 *
 * An OpenMP region costs its team's wake-up (with the passive waiting that `comply` sets, a
 * futex wake and a sleep per thread: 20-40 us on the 2-vCPU machines measured, bench/README.md
 * "Two threads") and leaves the step's serial stages slower after it (the data the other
 * thread wrote is in its cache). A region of little work therefore ran slower on 2 threads than
 * on 1: S4 with 125 spheres took 1.18x the wall time on 2 threads, its vertex queries (~130 us
 * per step) and its islands (one big one and a few small ones) gaining nothing.
 *
 * A gate per parallel site keeps the site's measured cost per unit of work (ns per vertex slot,
 * per edge-search pair, per implicit row): the thread time of its last runs, serial or parallel
 * (the threads' busy time summed), so the estimate needs no calibration and follows the scene.
 * A run is parallel only when the work that can overlap (what the other threads would take off
 * the calling one) is predicted to save at least CM_PAR_MIN_SAVE seconds. The first run of a
 * site is serial (nothing measured yet). The decision changes the speed only: every parallel
 * loop of comply gives the same result on any number of threads (tests/physics/test_determinism).
 *
 * cm_par_mode overrides the gate for tests and benchmarks: 0 the gate, 1 parallel whenever more
 * than one thread is allowed (the behaviour before the gates), -1 never parallel. */
#ifndef CM_PAR_GATE_H
#define CM_PAR_GATE_H

/* the least predicted saving of a parallel run, s (bench/README.md, "Two threads") */
#define CM_PAR_MIN_SAVE 200e-6

typedef struct cmParGate {
  double s_per_unit; /* measured thread time per unit of work, s (0: not measured yet) */
} cmParGate;

extern int cm_par_mode;

/* the threads a parallel region may use now: omp_get_max_threads(), at most cap (cap > 0), at
 * least 1; 1 without OpenMP */
int cm_par_threads(int cap);

/* run the site in parallel on nthreads? overlap: the units of work the other threads can take
 * off the calling one (for equal chunks units (1 - 1/nthreads); for unequal tasks the total
 * less the larger of the largest task and total / nthreads) */
int cm_par_open(const cmParGate* g, double overlap, int nthreads);

/* record a run of the site: units of work done in busy seconds of thread time */
void cm_par_record(cmParGate* g, double units, double busy);

#endif
