/* Regression test of the fuzzers: every file of fuzz/crashers/<target>/, fuzz/corpus/<target>/
 * and the malformed-input corpus tests/data/bad/ (parser from the extension) goes through the
 * same entry points as the libFuzzer harnesses (fuzz/fuzz_targets.c, compiled into this test, and
 * fuzz/fuzz_targets_cli.c with the command's sources, linked to it: tests/CMakeLists.txt), so
 * that a crash found once stays fixed. The entry points abort on a violated invariant; the
 * ASan+UBSan build of the tests (make test-asan) catches memory errors and undefined behaviour. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fuzz/fuzz_targets.c"
#include "core/file.h"
#include "core/internal.h"
#include "test.h"

typedef int (*Entry)(const uint8_t*, size_t);

/* Crashers found by the fuzzers whose fix is not in the library yet: skipped here (each line
 * says where it crashes) so that the tree stays green; remove the line with the fix. */
static const char* const known_open[] = {
    /* none: the 1e308-coordinate NaN area (mesh_check.c) is fixed by the coordinate bound
     * CM_MESH_COORD_MAX; its crashers in fuzz/crashers/ now run here */
    NULL,
};

static int is_known_open(const char* name) {
  for (size_t i = 0; known_open[i]; i++)
    if (strcmp(known_open[i], name) == 0) return 1;
  return 0;
}

/* the entry point of a parser name (a corpus folder) or a file extension; NULL if none */
static Entry entry_of(const char* what) {
  if (strcmp(what, "scene") == 0 || strcmp(what, "yaml") == 0) return cm_fuzz_scene;
  if (strcmp(what, "obj") == 0) return cm_fuzz_obj;
  if (strcmp(what, "stl") == 0) return cm_fuzz_stl;
  if (strcmp(what, "ply") == 0) return cm_fuzz_ply;
  if (strcmp(what, "vtp") == 0) return cm_fuzz_vtp;
  if (strcmp(what, "vtk") == 0) return cm_fuzz_vtk;
  if (strcmp(what, "tetmesh") == 0 || strcmp(what, "msh") == 0 || strcmp(what, "vtu") == 0)
    return cm_fuzz_tetmesh;
  if (strcmp(what, "checkpoint") == 0) return cm_fuzz_checkpoint;
  if (strcmp(what, "resume") == 0) return cm_fuzz_resume;
  if (strcmp(what, "cli") == 0) return cm_fuzz_cli;
  return NULL;
}

/* the whole regular file (free with cm_free); NULL if it cannot be read or is not a file */
static uint8_t* read_all(const char* path, size_t* len) {
  char* buf;
  return cm_file_read(path, SIZE_MAX, CM_FILE_REGULAR, &buf, len) == CM_FILE_OK ? (uint8_t*)buf
                                                                                : NULL;
}

/* run every regular file of dir through `entry` (or, if NULL, the entry of its extension);
 * returns the number of files run */
static int run_dir(const char* dir, Entry entry) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    const char* name = e->d_name;
    if (name[0] == '.' || strcmp(name, "README.md") == 0) continue;
    Entry fn = entry;
    if (!fn) {
      const char* dot = strrchr(name, '.');
      fn = dot ? entry_of(dot + 1) : NULL;
      if (!fn) continue;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (is_known_open(name)) {
      printf("skip %s (known open crasher)\n", path);
      continue;
    }
    size_t len = 0;
    uint8_t* buf = read_all(path, &len);
    if (!buf) continue; /* a folder */
    /* the last line printed names the input if it crashes (ctest shows it on failure) */
    printf("run  %s\n", path);
    fflush(stdout);
    fn(buf, len);
    cm_free(buf);
    n++;
  }
  closedir(d);
  return n;
}

/* the targets: the folders of fuzz/corpus/ and fuzz/crashers/ */
static const char* const targets[] = {"scene", "obj",     "stl",        "ply",    "vtp",
                                      "vtk",   "tetmesh", "checkpoint", "resume", "cli"};
enum { NTARGET = sizeof targets / sizeof targets[0] };

static void test_crashers(void) {
  /* the folders may be empty: then the fuzzers found nothing that is not fixed */
  int n = 0;
  for (int i = 0; i < NTARGET; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fuzz/crashers/%s", CM_SOURCE_DIR, targets[i]);
    n += run_dir(dir, entry_of(targets[i]));
  }
  printf("     %d crashers replayed\n", n);
  CHECK(n >= 0);
}

static void test_corpus(void) {
  for (int i = 0; i < NTARGET; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fuzz/corpus/%s", CM_SOURCE_DIR, targets[i]);
    int n = run_dir(dir, entry_of(targets[i]));
    printf("     %s corpus: %d inputs\n", targets[i], n);
    CHECK(n > 0); /* the seeds at least */
  }
}

static void test_bad_inputs(void) {
  int n = run_dir(CM_SRC("tests/data/bad"), NULL);
  printf("     tests/data/bad: %d inputs\n", n);
  CHECK(n >= 50);
  /* the tet meshes (their .vtk files are volume meshes: the tet reader, not the surface one) */
  n = run_dir(CM_SRC("tests/data/bad/tet"), cm_fuzz_tetmesh);
  printf("     tests/data/bad/tet: %d inputs\n", n);
  CHECK(n >= 30);
}

int main(void) {
  RUN(test_crashers);
  RUN(test_corpus);
  RUN(test_bad_inputs);
  return test_report();
}
