/* cm_file_read (src/core/file.c) and the messages its three callers word from it.
 *
 * The bytes read are compared with the bytes written here: an empty file, a short text, a file
 * of 3 MB with every byte value (several times the first 64 KiB chunk), a pipe fed by a child
 * process (no size known in advance: the growth path), a /proc file that reports size 0. The
 * failures: a missing path (ENOENT), a directory (a read error, EISDIR; refused before reading
 * with CM_FILE_REGULAR, as is a pipe), a file one byte over the limit and one exactly at it.
 * The callers: the scene loader, the mesh loader and the checkpoint reader keep their own
 * words for a missing file, and refuse a directory, a FIFO without a writer (which used to
 * block the open forever), /dev/zero and /dev/urandom (read up to 2 GB before) by name, and a
 * file over their size limit (64 MiB for a scene, 256 MiB for a mesh) before reading it. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, mkdtemp, mkfifo, fork */

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comply/comply.h"
#include "core/file.h"
#include "core/internal.h"
#include "test.h"

static char g_tmp[256];

static void join(char* out, size_t n, const char* name) {
  snprintf(out, n, "%s/%s", g_tmp, name);
}

static void write_file(const char* path, const void* p, size_t n) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(p, 1, n, f) == n);
  fclose(f);
}

/* read path and compare with want[0..n) */
static void expect_bytes(const char* path, const void* want, size_t n) {
  char* buf = NULL;
  size_t len = 99;
  CHECK(cm_file_read(path, SIZE_MAX, 0, &buf, &len) == CM_FILE_OK);
  CHECK(buf != NULL);
  CHECK(len == n);
  if (buf && len == n) {
    CHECK(memcmp(buf, want, n) == 0);
    CHECK(buf[n] == 0); /* terminated */
  }
  cm_free(buf);
}

static void test_regular(void) {
  char path[300];
  join(path, sizeof path, "empty");
  write_file(path, "", 0);
  expect_bytes(path, "", 0);
  join(path, sizeof path, "text");
  const char* text = "scene: {name: x}\n";
  write_file(path, text, strlen(text));
  expect_bytes(path, text, strlen(text));
  /* 3 MB of every byte value, zeros included */
  size_t n = 3u << 20;
  unsigned char* big = malloc(n);
  for (size_t i = 0; i < n; i++)
    big[i] = (unsigned char)(i * 131 + (i >> 11));
  join(path, sizeof path, "big");
  write_file(path, big, n);
  expect_bytes(path, big, n);
  free(big);
  /* a /proc file reports size 0 but has bytes */
  if (access("/proc/self/status", R_OK) == 0) {
    char* buf;
    size_t len;
    CHECK(cm_file_read("/proc/self/status", SIZE_MAX, 0, &buf, &len) == CM_FILE_OK);
    CHECK(len > 0 && buf && strstr(buf, "Name:") == buf);
    cm_free(buf);
  }
}

static void test_limit(void) {
  char path[300], data[100];
  memset(data, 'x', sizeof data);
  join(path, sizeof path, "hundred");
  write_file(path, data, sizeof data);
  char* buf = (char*)1;
  size_t len;
  CHECK(cm_file_read(path, 99, 0, &buf, &len) == CM_FILE_LIMIT);
  CHECK(buf == NULL);
  CHECK(cm_file_read(path, 100, 0, &buf, &len) == CM_FILE_OK);
  CHECK(len == 100);
  cm_free(buf);
  join(path, sizeof path, "empty");
  CHECK(cm_file_read(path, 0, 0, &buf, &len) == CM_FILE_OK && len == 0);
  cm_free(buf);
}

static void test_missing_and_directory(void) {
  char path[300];
  char* buf = (char*)1;
  size_t len = 99;
  join(path, sizeof path, "no-such-file");
  errno = 0;
  CHECK(cm_file_read(path, SIZE_MAX, 0, &buf, &len) == CM_FILE_OPEN);
  CHECK(errno == ENOENT);
  CHECK(buf == NULL && len == 0);
  /* a directory opens, then fails to read */
  errno = 0;
  CHECK(cm_file_read(g_tmp, SIZE_MAX, 0, &buf, &len) == CM_FILE_READ);
  CHECK(errno == EISDIR);
  CHECK(buf == NULL);
  CHECK(cm_file_read(g_tmp, SIZE_MAX, CM_FILE_REGULAR, &buf, &len) == CM_FILE_NOT_REGULAR);
  CHECK(buf == NULL);
}

/* a FIFO fed with n bytes by a child process; returns the child's pid */
static pid_t feed_fifo(const char* path, const unsigned char* p, size_t n) {
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGPIPE, SIG_IGN); /* the reader may stop early */
    FILE* f = fopen(path, "wb");
    if (f) {
      fwrite(p, 1, n, f);
      fclose(f);
    }
    _exit(0);
  }
  return pid;
}

static void test_pipe(void) {
  char path[300];
  join(path, sizeof path, "fifo");
  CHECK(mkfifo(path, 0600) == 0);
  size_t n = 200000; /* more than the first chunk */
  unsigned char* data = malloc(n);
  for (size_t i = 0; i < n; i++)
    data[i] = (unsigned char)(i % 251);
  pid_t pid = feed_fifo(path, data, n);
  expect_bytes(path, data, n);
  waitpid(pid, NULL, 0);
  /* over the limit */
  pid = feed_fifo(path, data, n);
  char* buf;
  size_t len;
  CHECK(cm_file_read(path, n - 1, 0, &buf, &len) == CM_FILE_LIMIT);
  waitpid(pid, NULL, 0);
  /* refused as not regular, without waiting for a writer (SIGALRM ends a test that waits) */
  alarm(20);
  CHECK(cm_file_read(path, SIZE_MAX, CM_FILE_REGULAR, &buf, &len) == CM_FILE_NOT_REGULAR);
  alarm(0);
  free(data);
  unlink(path);
}

/* the words of each caller, as before the reader was shared */
static void test_callers(void) {
  char err[512], path[300];
  cmScene* s = NULL;
  join(path, sizeof path, "no-such.yaml");
  CHECK(cm_scene_load(path, &s, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "no-such.yaml: cannot open the scene file: No such file or directory") != NULL);
  CHECK(cm_scene_load(g_tmp, &s, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, ": a directory, not a regular file (a scene is read from a file)") != NULL);
  cmMesh* mesh = NULL;
  join(path, sizeof path, "dir.obj");
  CHECK(mkdir(path, 0700) == 0);
  CHECK(cm_mesh_load(path, 1, &mesh, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "dir.obj: a directory, not a regular file (a mesh is read from a file)") !=
        NULL);
  join(path, sizeof path, "no-such.stl");
  CHECK(cm_mesh_load(path, 1, &mesh, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "no-such.stl: cannot open: No such file or directory") != NULL);
  /* the checkpoint reader refuses anything but a regular file */
  CHECK(cm_scene_load(CM_SRC("examples/drop.yaml"), &s, err, sizeof err) == CM_OK);
  cmModel* m = NULL;
  if (s) CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  if (m) {
    cmData* d = cm_data_new(m);
    join(path, sizeof path, "dir.obj");
    CHECK(cm_checkpoint_read(m, d, path, err, sizeof err) == CM_ERR_IO);
    CHECK(strstr(err, "dir.obj': not a regular file") != NULL);
    join(path, sizeof path, "no-such.ckpt");
    CHECK(cm_checkpoint_read(m, d, path, err, sizeof err) == CM_ERR_IO);
    CHECK(strstr(err, "cannot open checkpoint '") && strstr(err, "No such file or directory"));
    join(path, sizeof path, "empty");
    CHECK(cm_checkpoint_read(m, d, path, err, sizeof err) == CM_ERR_PARSE);
    CHECK(strstr(err, "is not a comply checkpoint") != NULL);
    cm_data_free(d);
  }
  cm_model_free(m);
  cm_scene_free(s);
  join(path, sizeof path, "dir.obj");
  rmdir(path);
}

/* the scene and mesh loaders refuse what is not a regular file before reading it: a FIFO with
 * no writer (the open used to wait forever), endless devices (read up to 2 GB before) */
static void test_not_regular(void) {
  char err[512], path[300];
  cmScene* s = NULL;
  cmMesh* mesh = NULL;
  join(path, sizeof path, "fifo.yaml");
  CHECK(mkfifo(path, 0600) == 0);
  alarm(20); /* a loader that waits is killed, and the test fails */
  CHECK(cm_scene_load(path, &s, err, sizeof err) == CM_ERR_IO && s == NULL);
  CHECK(strstr(err, "fifo.yaml: a FIFO (named pipe), not a regular file") != NULL);
  unlink(path);
  join(path, sizeof path, "fifo.obj");
  CHECK(mkfifo(path, 0600) == 0);
  CHECK(cm_mesh_load(path, 1, &mesh, err, sizeof err) == CM_ERR_IO && mesh == NULL);
  CHECK(strstr(err, "fifo.obj: a FIFO (named pipe), not a regular file") != NULL);
  unlink(path);
  const char* dev[] = {"/dev/zero", "/dev/urandom"};
  for (int i = 0; i < 2; i++) {
    if (access(dev[i], R_OK) != 0) continue;
    CHECK(cm_scene_load(dev[i], &s, err, sizeof err) == CM_ERR_IO);
    CHECK(strstr(err, ": a character device, not a regular file") != NULL);
    /* a mesh path needs an extension: a symbolic link named .stl to the device */
    join(path, sizeof path, "dev.stl");
    CHECK(symlink(dev[i], path) == 0);
    CHECK(cm_mesh_load(path, 1, &mesh, err, sizeof err) == CM_ERR_IO);
    CHECK(strstr(err, "dev.stl: a character device, not a regular file") != NULL);
    unlink(path);
  }
  alarm(0);
}

/* a file over a loader's limit is refused from its size, before reading (sparse files) */
static void test_loader_limits(void) {
  char err[512], path[300];
  struct {
    const char* name;
    off_t size;
    const char* want;
  } c[] = {{"big.yaml", ((off_t)64 << 20) + 1,
            "big.yaml: file larger than the limit of 67108864 bytes (64 MiB) for a scene file"},
           {"big.stl", ((off_t)256 << 20) + 1,
            "big.stl: file larger than the limit of 268435456 bytes (256 MiB) for a mesh file"}};
  for (int i = 0; i < 2; i++) {
    join(path, sizeof path, c[i].name);
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) continue;
    CHECK(ftruncate(fileno(f), c[i].size) == 0);
    fclose(f);
    cmStatus st;
    if (i == 0) {
      cmScene* s = NULL;
      st = cm_scene_load(path, &s, err, sizeof err);
      CHECK(s == NULL);
    } else {
      cmMesh* mesh = NULL;
      st = cm_mesh_load(path, 1, &mesh, err, sizeof err);
      CHECK(mesh == NULL);
    }
    CHECK(st == CM_ERR_LIMIT);
    CHECK(strstr(err, c[i].want) != NULL);
    if (!strstr(err, c[i].want)) fprintf(stderr, "  got: %s\n  want: %s\n", err, c[i].want);
    unlink(path);
  }
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/comply-test-file-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    fprintf(stderr, "cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_regular);
  RUN(test_limit);
  RUN(test_missing_and_directory);
  RUN(test_pipe);
  RUN(test_callers);
  RUN(test_not_regular);
  RUN(test_loader_limits);
  const char* names[] = {"empty", "text", "big", "hundred"};
  char path[300];
  for (int i = 0; i < 4; i++) {
    join(path, sizeof path, names[i]);
    unlink(path);
  }
  rmdir(g_tmp);
  return test_report();
}
