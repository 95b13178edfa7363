/* Progress bar of `comply run` on stderr, drawn only when stderr is a terminal:
 *   [##########..........]  50%  step 1000/2000  t = 1 s  ETA 3.2 s
 * The estimated time left is the mean wall time per step so far times the steps left. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>

#include "cli.h"

enum { BAR_WIDTH = 30 };

void progress_start(cliProgress* p, long total, int enabled) {
  p->enabled = enabled && total > 0;
  p->total = total;
  p->start = cli_now();
  p->last = -1.0;
  p->drawn = 0;
}

static void format_seconds(char* buf, size_t n, double s) {
  if (s < 60)
    snprintf(buf, n, "%.1f s", s);
  else if (s < 3600)
    snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
  else
    snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

void progress_update(cliProgress* p, long step, double sim_time) {
  if (!p->enabled) return;
  double now = cli_now();
  if (p->last >= 0 && now - p->last < 0.1 && step < p->total) return;
  p->last = now;

  double frac = (double)step / (double)p->total;
  if (frac > 1) frac = 1;
  char bar[BAR_WIDTH + 1];
  int full = (int)(frac * BAR_WIDTH);
  for (int i = 0; i < BAR_WIDTH; i++)
    bar[i] = i < full ? '#' : '.';
  bar[BAR_WIDTH] = '\0';

  char eta[32] = "?";
  double elapsed = now - p->start;
  if (step > 0) format_seconds(eta, sizeof eta, elapsed / (double)step * (double)(p->total - step));
  fprintf(stderr, "\r[%s] %3d%%  step %ld/%ld  t = %.4g s  ETA %s\033[K", bar, (int)(frac * 100),
          step, p->total, sim_time, eta);
  fflush(stderr);
  p->drawn = 1;
}

void progress_end(cliProgress* p) {
  if (p->enabled && p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->drawn = 0;
}
