/* cm_data_vertex_pressure (src/engine/record.c), the per-vertex query of the VTK output:
 *
 * - on a ball resting on the ground, every vertex of a contact gets that contact's force / area
 *   and -dist, every other vertex 0 (read back from the contact list, which the query must not
 *   change);
 * - every bad argument (a body outside [0, nbody), however far; a NULL model, data or array) is
 *   CM_ERR_ARG with a message, and nothing is written: the arrays keep a sentinel. Before the
 *   check, body = nbody read body_geom[nbody] and wrote as many doubles as that garbage said
 *   (issue 12: a heap overflow under ASan);
 * - a plane has no vertices: CM_OK and nothing written. */
#include <limits.h>
#include <string.h>

#include "comply/comply.h"
#include "scenes.h"
#include "test.h"

#define SENTINEL 12345.0

static cmModel* ball_scene(void) {
  cmBodyDef b = scene_sphere("ball", 0.05, 2);
  b.position[2] = 0.045; /* 5 mm deep: 7 vertices in the ground */
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  cmScene* s = scene_on_ground("vertex-pressure", NULL, &b, &r);
  s->opt.timestep = 1e-3;
  return scene_compile(s);
}

static int all_sentinel(const double* x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] != SENTINEL) return 0;
  return 1;
}

static void fill(double* x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = SENTINEL;
}

static void test_values(void) {
  cmModel* m = ball_scene();
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  CHECK(d->ncontact > 0);
  int nv = m->geom_nvert[m->body_geom[1]];
  double* p = malloc((size_t)nv * sizeof *p);
  double* x = malloc((size_t)nv * sizeof *x);
  int* seen = calloc((size_t)nv, sizeof *seen);
  fill(p, nv);
  fill(x, nv);
  char err[256] = "";
  CHECK(cm_data_vertex_pressure(m, d, 1, p, x, err, sizeof err) == CM_OK);
  CHECK(err[0] == 0);
  int ok = 1, loaded = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    if (c->body[0] != 1 || c->vert < 0) continue;
    seen[c->vert] = 1;
    ok = ok && p[c->vert] == (c->area > 0 ? c->force / c->area : 0) && x[c->vert] == -c->dist;
    loaded += p[c->vert] > 0;
  }
  for (int v = 0; v < nv; v++)
    if (!seen[v]) ok = ok && p[v] == 0 && x[v] == 0;
  CHECK(ok);
  CHECK(loaded > 0); /* the ball presses on the ground */
  free(p);
  free(x);
  free(seen);
  cm_data_free(d);
  cm_model_free(m);
}

static void test_bad_arguments(void) {
  cmModel* m = ball_scene();
  if (!m) return;
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 5; i++)
    CHECK(cm_step(m, d) == CM_OK);
  enum { N = 4096 }; /* more than the 162 vertices of the ball */
  static double p[N], x[N];
  char err[256];

  const int bodies[] = {-1, 2, 3, 1000, INT_MAX, INT_MIN};
  for (size_t k = 0; k < sizeof bodies / sizeof *bodies; k++) {
    fill(p, N);
    fill(x, N);
    err[0] = 0;
    CHECK(cm_data_vertex_pressure(m, d, bodies[k], p, x, err, sizeof err) == CM_ERR_ARG);
    char want[64];
    snprintf(want, sizeof want, "no body %d", bodies[k]);
    CHECK(strstr(err, want) != NULL);
    CHECK(all_sentinel(p, N) && all_sentinel(x, N));
  }
  /* NULL model, data or array; and without a message buffer */
  fill(p, N);
  fill(x, N);
  CHECK(cm_data_vertex_pressure(NULL, d, 1, p, x, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "model") != NULL);
  CHECK(cm_data_vertex_pressure(m, NULL, 1, p, x, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "data") != NULL);
  CHECK(cm_data_vertex_pressure(m, d, 1, NULL, x, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "pressure") != NULL);
  CHECK(cm_data_vertex_pressure(m, d, 1, p, NULL, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "penetration") != NULL);
  CHECK(cm_data_vertex_pressure(m, d, 7, p, x, NULL, 0) == CM_ERR_ARG);
  CHECK(all_sentinel(p, N) && all_sentinel(x, N));

  /* the ground is a plane: no vertices, nothing written */
  CHECK(cm_data_vertex_pressure(m, d, 0, p, x, err, sizeof err) == CM_OK);
  CHECK(all_sentinel(p, N) && all_sentinel(x, N));
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_values);
  RUN(test_bad_arguments);
  return test_report();
}
