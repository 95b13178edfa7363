/* Writing a whole output file of the command atomically (sweep rows and scenes, repaired
 * meshes): the text goes to PATH.tmp, is flushed and fsync'ed, and renamed over PATH, so that PATH
 * holds the old or the new complete file, and a failed write leaves the old one (mesh-repair
 * may write over its input). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_write_atomic(const char* path, const char* text, size_t len) {
  size_t n = strlen(path) + 8;
  char* tmp = malloc(n);
  if (!tmp) return -1;
  snprintf(tmp, n, "%s.tmp", path);
  FILE* f = fopen(tmp, "wb");
  int bad = !f;
  if (f) {
    bad = fwrite(text, 1, len, f) != len;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
  }
  if (!bad) bad = rename(tmp, path) != 0;
  int e = errno;
  if (bad) remove(tmp);
  free(tmp);
  errno = e;
  return bad ? -1 : 0;
}
