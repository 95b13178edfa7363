/* Monotonic wall clock for the stage timers. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "core/internal.h"

double cm_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
