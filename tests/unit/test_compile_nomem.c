/* Out of memory inside cm_model_compile is reported as such (issue 12): the k-th allocation of
 * the compiler fails, for every k until none is left to fail, on a scene with each kind of
 * geometry (plane, sphere, box, mesh file) and a rule. Every failure (but a few the compiler
 * survives: a model and CM_OK) must return CM_ERR_NOMEM
 * (not CM_ERR_ARG "could not build the geometry", which blamed the input) with a message that
 * says "out of memory"; a failure while a body's geometry is built or prepared names the scene
 * file, the geometry's line and column, the body and what was being built. (test_fields checks
 * that no failure leaks; this test checks what the failures say.) */
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "test.h"

/* an allocator that fails the allocation number fail_at (0: none) */
static long a_calls = 0, a_fail_at = 0;
static void* a_malloc(size_t n, void* ctx) {
  (void)ctx;
  return ++a_calls == a_fail_at ? NULL : malloc(n);
}
static void* a_realloc(void* p, size_t n, void* ctx) {
  (void)ctx;
  return ++a_calls == a_fail_at ? NULL : realloc(p, n);
}
static void a_free(void* p, void* ctx) {
  (void)ctx;
  free(p);
}
static const cmAllocator FAILING = {a_malloc, a_realloc, a_free, NULL};

static const char* const TEXT =
    "bodies:\n"
    "  - name: ground\n"
    "    motion: fixed\n"
    "    geometry: {plane: {normal: [0, 0, 1]}}\n"
    "  - name: ball\n"
    "    geometry: {sphere: {radius: 0.1, refine: 2}}\n" /* line 6, column 15 */
    "    position: [0, 0, 1]\n"
    "  - name: brick\n"
    "    geometry: {box: {size: [0.2, 0.1, 0.05], divisions: 2}}\n" /* line 9 */
    "    position: [1, 0, 1]\n"
    "  - name: cube\n"
    "    geometry: {mesh: {file: meshes/unit_cube.obj, scale: 0.1}}\n" /* line 12 */
    "    position: [2, 0, 1]\n"
    "interactions:\n"
    "  - pair: [\"*\", ground]\n"
    "    law: area_compliant\n";

static void test_every_allocation(void) {
  char err[1024];
  cmScene* s = NULL;
  const char* file = CM_SRC("examples/nomem.yaml"); /* the mesh path is relative to examples/ */
  CHECK(cm_scene_parse(TEXT, strlen(TEXT), file, &s, err, sizeof err) == CM_OK);
  if (!s) {
    fprintf(stderr, "  %s\n", err);
    return;
  }
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK); /* the scene compiles */
  cm_model_free(m);

  int n = 0, tolerated = 0, wrong_status = 0, wrong_words = 0, geom = 0, geom_located = 0;
  for (int k = 1;; k++) {
    m = NULL;
    err[0] = 0;
    cm_set_allocator(&FAILING);
    a_calls = 0;
    a_fail_at = k;
    cmStatus st = cm_model_compile(s, &m, err, sizeof err);
    int reached = a_calls >= k;
    a_fail_at = 0;
    cm_set_allocator(NULL);
    int built = m != NULL;
    cm_model_free(m);
    if (!reached) break;
    n++;
    if (st == CM_OK && built) {
      tolerated++; /* an allocation the compiler can do without (a shrinking realloc) */
      continue;
    }
    if (st != CM_ERR_NOMEM) {
      if (wrong_status++ < 5)
        fprintf(stderr, "  allocation %d: status %d, message: %s\n", k, (int)st, err);
      continue;
    }
    if (!strstr(err, "out of memory")) {
      if (wrong_words++ < 5) fprintf(stderr, "  allocation %d: message: %s\n", k, err);
      continue;
    }
    /* while a geometry is built or prepared: where, which body, what */
    if (strstr(err, "out of memory while building") || strstr(err, "out of memory while prep")) {
      geom++;
      char want[3][600];
      snprintf(want[0], sizeof want[0], "%s:6:15: body 'ball': out of memory while", file);
      snprintf(want[1], sizeof want[1], "%s:9:15: body 'brick': out of memory while", file);
      snprintf(want[2], sizeof want[2], "%s:12:15: body 'cube': ", file);
      int ok = 0;
      for (int i = 0; i < 3; i++)
        ok |= strncmp(err, want[i], strlen(want[i])) == 0;
      geom_located += ok;
      if (!ok) fprintf(stderr, "  allocation %d: not located: %s\n", k, err);
    }
  }
  printf("  %d allocations failed one at a time (%d without harm): %d said another status than "
         "CM_ERR_NOMEM, %d did not say out of memory; %d in a geometry, %d of them located\n",
         n, tolerated, wrong_status, wrong_words, geom, geom_located);
  CHECK(n > 50 && tolerated < 5);
  CHECK(wrong_status == 0);
  CHECK(wrong_words == 0);
  CHECK(geom >= 3 && geom_located == geom);
  cm_scene_free(s);
}

int main(void) {
  RUN(test_every_allocation);
  return test_report();
}
