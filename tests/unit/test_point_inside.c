/* cm_point_inside (src/engine/query.c): the public inside test of a body at its pose, against
 * the closed-form answer for a rotated, translated box and a tilted plane. */
#include <math.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

/* a 0.2 x 0.1 x 0.05 box at (1, 2, 3) turned by 0.7 rad about (1, 2, 3)/|.|, and a plane
 * through (0, 0, -1) with normal (0, 0.6, 0.8): random points against the box's own frame */
static void test_box_and_plane(void) {
  cmBodyDef b = scene_box("box", 0.2, 0.1, 0.05, 2);
  double axis[3] = {1, 2, 3};
  cm_v3_normalize(axis);
  cm_quat_from_axis_angle(b.orientation, axis, 0.7);
  cm_v3_set(b.position, 1, 2, 3);
  cmBodyDef g = scene_ground();
  cm_v3_set(g.geom.normal, 0, 0.6, 0.8);
  g.geom.offset = -0.8; /* n . x = -0.8 through (0, 0, -1) */
  cmModel* m = scene_compile(scene_two_bodies("inside", &g, &b, NULL));
  if (!m) return;
  cmData* d = cm_data_new(m);
  unsigned long long rng = 42;
  const double half[3] = {0.1, 0.05, 0.025};
  int wrong = 0, inside = 0, n = test_trials(20000, 2000);
  for (int i = 0; i < n; i++) {
    double local[3], world[3], t[3];
    for (int k = 0; k < 3; k++)
      local[k] = (2 * test_urand(&rng) - 1) * 1.5 * half[k];
    int expect = 1;
    for (int k = 0; k < 3; k++)
      expect &= fabs(local[k]) < half[k] * (1 - 1e-9);
    int edge = 0;
    for (int k = 0; k < 3; k++)
      edge |= fabs(fabs(local[k]) - half[k]) < 1e-9 * half[k];
    if (edge) continue; /* on the surface within rounding: either answer */
    cm_quat_rotate(t, d->body_xquat + 4, local);
    cm_v3_add(world, t, d->body_xpos + 3);
    wrong += cm_point_inside(m, d, 1, world) != expect;
    inside += expect;
    /* the plane: solid where n . x < offset */
    double s = 0.6 * world[1] + 0.8 * world[2];
    wrong += cm_point_inside(m, d, 0, world) != (s < -0.8);
  }
  printf("  %d points, %d inside the box, %d wrong answers\n", n, inside, wrong);
  CHECK(wrong == 0 && inside > n / 10);
  /* bad arguments: 0, nothing read out of range */
  double p[3] = {1, 2, 3};
  CHECK(cm_point_inside(m, d, 1, p) == 1);
  CHECK(cm_point_inside(m, d, 2, p) == 0 && cm_point_inside(m, d, -1, p) == 0);
  CHECK(cm_point_inside(NULL, d, 1, p) == 0 && cm_point_inside(m, NULL, 1, p) == 0);
  CHECK(cm_point_inside(m, d, 1, NULL) == 0);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_box_and_plane);
  return test_report();
}
