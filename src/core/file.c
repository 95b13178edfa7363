/* Reading a whole file into memory.
 *
 * The readers of scenes, meshes and checkpoints parse a file from one buffer (so that counts a
 * file announces can be checked against the bytes present before anything is allocated). The
 * buffer is sized from fstat for a regular file (one allocation, one read, one more byte asked
 * to see the end: the file may have grown) and grows by doubling from 64 KiB otherwise (pipes,
 * /proc files that report size 0), never beyond max bytes: when the buffer is full and another
 * byte exists, either the buffer doubles or, holding max bytes, the file is too large.
 * A directory opens (on POSIX) and fails at the first read with EISDIR, unless CM_FILE_REGULAR
 * refuses it before. With CM_FILE_REGULAR the path is opened without blocking (O_NONBLOCK) and
 * checked with fstat before anything is read: opening a FIFO for reading otherwise waits for a
 * writer forever, and /dev/zero or /dev/urandom never end. The errno of a failed open or read
 * is kept through fclose for the caller's message. No message is written here: the three
 * readers word their errors differently (a scene file, a mesh file, a checkpoint) and tests
 * check those words; cm_file_kind names what a refused path is. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fdopen */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"

#define FIRST_CHUNK ((size_t)1 << 16)

/* the file's size if it is a regular file with a known size, else 0; *regular set */
static size_t regular_size(FILE* f, int* regular) {
  struct stat sb;
  *regular = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode);
  return *regular && sb.st_size > 0 ? (size_t)sb.st_size : 0;
}

/* close f and return s, keeping errno (fclose may change it) */
static cmFileStatus close_with(FILE* f, cmFileStatus s) {
  int e = errno;
  fclose(f);
  errno = e;
  return s;
}

/* open path for reading; with CM_FILE_REGULAR refuse (*refused = 1) anything but a regular
 * file before reading, without waiting on a FIFO that has no writer */
static FILE* open_file(const char* path, int flags, int* refused) {
  *refused = 0;
  if (!(flags & CM_FILE_REGULAR)) return fopen(path, "rb");
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    *refused = 1;
    return NULL;
  }
  /* a regular file: back to blocking reads */
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

const char* cm_file_kind(const char* path) {
  struct stat sb;
  if (stat(path, &sb) != 0) return "not a regular file";
  if (S_ISDIR(sb.st_mode)) return "a directory";
  if (S_ISFIFO(sb.st_mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(sb.st_mode)) return "a character device";
  if (S_ISBLK(sb.st_mode)) return "a block device";
  if (S_ISSOCK(sb.st_mode)) return "a socket";
  return S_ISREG(sb.st_mode) ? "a regular file" : "not a regular file";
}

cmFileStatus cm_file_read(const char* path, size_t max, int flags, char** buf, size_t* len) {
  *buf = NULL;
  *len = 0;
  int refused;
  FILE* f = open_file(path, flags, &refused);
  if (refused) return CM_FILE_NOT_REGULAR;
  if (!f) return CM_FILE_OPEN;
  int regular;
  size_t size = regular_size(f, &regular);
  if ((flags & CM_FILE_REGULAR) && !regular) return close_with(f, CM_FILE_NOT_REGULAR);
  if (size > max) return close_with(f, CM_FILE_LIMIT);

  /* a buffer for the whole file if its size is known, else a first chunk */
  size_t cap = regular ? size : FIRST_CHUNK;
  if (cap > max) cap = max;
  char* b = cm_malloc(cap + 1);
  if (!b) {
    *len = size;
    return close_with(f, CM_FILE_NOMEM);
  }
  size_t n = 0;
  for (;;) {
    /* fill the buffer; a short read is the end of the file or an error */
    n += fread(b + n, 1, cap - n, f);
    if (n < cap) break;
    /* full: is there more? */
    int c = fgetc(f);
    if (c == EOF) break;
    if (n >= max) {
      cm_free(b);
      return close_with(f, CM_FILE_LIMIT);
    }
    size_t ncap = cap < FIRST_CHUNK / 2 ? FIRST_CHUNK
                  : cap <= SIZE_MAX / 4 ? 2 * cap
                                        : SIZE_MAX / 2;
    if (ncap > max) ncap = max;
    char* nb = cm_realloc(b, ncap + 1);
    if (!nb) {
      cm_free(b);
      *len = n;
      return close_with(f, CM_FILE_NOMEM);
    }
    b = nb;
    cap = ncap;
    b[n++] = (char)c;
  }
  if (ferror(f)) {
    int e = errno;
    cm_free(b);
    errno = e;
    return close_with(f, CM_FILE_READ);
  }
  fclose(f);
  b[n] = 0;
  *buf = b;
  *len = n;
  return CM_FILE_OK;
}
