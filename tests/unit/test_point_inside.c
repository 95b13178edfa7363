/* cm_point_inside (src/engine/query.c): the public inside test of a body at its pose, against
 * the closed-form answer for a rotated, translated box and a tilted plane, and against the faces
 * of a convex icosphere (whose bounding ball, geom_ball, culls the corners of its box), and
 * against the cells of an open tank made of cubes, whose cavity the open direction certifies
 * (geom_open_dir, collide_mesh.c). */
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
  /* a point with a NaN or an infinite coordinate is inside nothing (it was inside the box) */
  const double nonfinite[3][3] = {{NAN, 2, 3}, {1, 2, NAN}, {-INFINITY, -INFINITY, -INFINITY}};
  for (int k = 0; k < 3; k++)
    CHECK(cm_point_inside(m, d, 1, nonfinite[k]) == 0 &&
          cm_point_inside(m, d, 0, nonfinite[k]) == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* an icosphere of radius 0.1 m (refine 2: 162 vertices, 320 faces) at (0.3, -0.2, 0.5), turned:
 * its bounding ball holds every vertex and is tight; random points in its box and 20 % beyond
 * are inside iff they are below every face's plane (the mesh is convex) */
static void test_sphere_ball(void) {
  cmBodyDef s = scene_sphere("ball", 0.1, 2);
  double axis[3] = {3, -1, 2};
  cm_v3_normalize(axis);
  cm_quat_from_axis_angle(s.orientation, axis, 1.1);
  cm_v3_set(s.position, 0.3, -0.2, 0.5);
  cmBodyDef g = scene_ground();
  g.geom.offset = -1;
  cmModel* m = scene_compile(scene_two_bodies("ball", &g, &s, NULL));
  if (!m) return;
  cmData* d = cm_data_new(m);
  int gb = m->body_geom[1], va = m->geom_vertadr[gb], fa = m->geom_faceadr[gb];
  const double* ball = m->geom_ball + 4 * gb;
  double rmax = 0;
  for (int v = 0; v < m->geom_nvert[gb]; v++) {
    double r[3];
    cm_v3_sub(r, m->mesh_vert + 3 * (size_t)(va + v), ball);
    rmax = fmax(rmax, cm_v3_norm(r));
  }
  printf("  ball radius %.17g, farthest vertex %.17g\n", ball[3], rmax);
  CHECK(ball[3] >= rmax && ball[3] <= rmax * (1 + 2e-12));
  CHECK(isinf(m->geom_ball[4 * m->body_geom[0] + 3])); /* the plane: no ball */
  unsigned long long rng = 7;
  const double* box = m->geom_aabb + 6 * gb;
  int wrong = 0, inside = 0, corner = 0, n = test_trials(20000, 2000);
  for (int i = 0; i < n; i++) {
    double local[3], world[3], t[3];
    for (int k = 0; k < 3; k++) {
      double c = 0.5 * (box[k] + box[3 + k]), h = 0.5 * (box[3 + k] - box[k]);
      local[k] = c + (2 * test_urand(&rng) - 1) * 1.2 * h;
    }
    double smax = -INFINITY; /* the largest signed distance to a face plane */
    for (int f = 0; f < m->geom_nface[gb]; f++) {
      const double* nf = m->mesh_face_normal + 3 * (size_t)(fa + f);
      const double* v0 = m->mesh_vert + 3 * (size_t)(va + m->mesh_face[3 * (size_t)(fa + f)]);
      cm_v3_sub(t, local, v0);
      smax = fmax(smax, cm_v3_dot(t, nf));
    }
    if (fabs(smax) < 1e-12) continue; /* on the surface within rounding */
    int expect = smax < 0;
    cm_v3_sub(t, local, ball);
    corner += cm_v3_norm(t) > ball[3];
    cm_quat_rotate(t, d->body_xquat + 4, local);
    cm_v3_add(world, t, d->body_xpos + 3);
    wrong += cm_point_inside(m, d, 1, world) != expect;
    inside += expect;
  }
  printf("  %d points, %d inside, %d outside the ball, %d wrong answers\n", n, inside, corner,
         wrong);
  CHECK(wrong == 0 && inside > n / 10 && corner > n / 10);
  cm_data_free(d);
  cm_model_free(m);
}

/* an open tank of 4 x 4 x 4 cubes of 0.1 m: a floor and four walls one cube thick, the cavity
 * 2 x 2 x 3 cubes open at the top */
static int tank_cell(int i, int j, int k) {
  return k == 0 || i == 0 || j == 0 || i == 3 || j == 3;
}

/* A mesh with a cavity gets the open direction +z (the only one the cavity's points leave the
 * box by), and the inside test, which certifies the cavity's points outside by the segment up
 * out of the box, agrees with the cells: a point is inside iff its cube is filled (points at a
 * quarter and three quarters of each cube, none on a face, and around the box). The same with
 * the direction cleared (the nearest-face search alone). */
static void test_tank_cavity(void) {
  cmMesh* me = scene_voxel_mesh(4, 0.1, tank_cell);
  CHECK(me != NULL);
  if (!me) return;
  cmBodyDef t = cm_body_def_default();
  t.name = "tank";
  t.motion = CM_MOTION_FIXED;
  t.geom.type = CM_GEOM_MESH;
  t.geom.mesh = me;
  cm_v3_set(t.position, 0.3, -0.2, 0.1);
  cmBodyDef b = scene_box("box", 0.05, 0.05, 0.05, 1);
  cm_v3_set(b.position, 0.5, 0, 0.5);
  cmModel* m = scene_pair("tank", &t, &b, CM_METHOD_VERTEX);
  cm_mesh_free(me);
  if (!m) return;
  int g = m->body_geom[0];
  printf("  tank of %d faces: open direction %d (+z is 5)\n", m->geom_nface[g],
         m->geom_open_dir[g]);
  CHECK(m->geom_nface[g] >= 64 && m->geom_open_dir[g] == 5);
  cmData* d = cm_data_new(m);
  for (int pass = 0; pass < 2; pass++) {
    int wrong = 0, n = 0, in = 0;
    for (int i = -2; i < 10; i++)
      for (int j = -2; j < 10; j++)
        for (int k = -2; k < 10; k++) {
          double p[3] = {0.3 + 0.05 * i + 0.025, -0.2 + 0.05 * j + 0.025, 0.1 + 0.05 * k + 0.025};
          int ci = (int)floor(i / 2.0), cj = (int)floor(j / 2.0), ck = (int)floor(k / 2.0);
          int want =
              ci >= 0 && cj >= 0 && ck >= 0 && ci < 4 && cj < 4 && ck < 4 && tank_cell(ci, cj, ck);
          int got = cm_point_inside(m, d, 0, p);
          wrong += got != want;
          in += got;
          n++;
        }
    printf("  pass %d (open direction %d): %d of %d points inside, %d wrong\n", pass,
           m->geom_open_dir[g], in, n, wrong);
    CHECK(wrong == 0 && in > 0);
    m->geom_open_dir[g] = -1; /* the second pass: the nearest-face search alone */
  }
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_tank_cavity);
  RUN(test_box_and_plane);
  RUN(test_sphere_ball);
  return test_report();
}
