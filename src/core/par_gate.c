/* Gates of the parallel regions (par_gate.h). */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/par_gate.h"

int cm_par_mode = 0;

int cm_par_threads(int cap) {
  int n = 1;
#ifdef _OPENMP
  n = omp_get_max_threads();
#endif
  if (cap > 0 && n > cap) n = cap;
  return n > 1 ? n : 1;
}

int cm_par_open(const cmParGate* g, double overlap, int nthreads) {
  if (nthreads <= 1 || cm_par_mode < 0) return 0;
  if (cm_par_mode > 0) return 1;
  return g->s_per_unit > 0 && overlap * g->s_per_unit >= CM_PAR_MIN_SAVE;
}

void cm_par_record(cmParGate* g, double units, double busy) {
  if (!(units > 0) || !(busy >= 0)) return;
  double x = busy / units;
  /* the last runs, the newest weighing a quarter: the cost per unit moves with the scene (a
   * pile settling, contacts growing) over many steps, not from one run to the next */
  g->s_per_unit = g->s_per_unit > 0 ? 0.75 * g->s_per_unit + 0.25 * x : x;
}
