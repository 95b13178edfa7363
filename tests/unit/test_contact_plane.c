/* Half-space contacts (SPEC 4, 5): vertices below the plane, their normals, depths and areas. */
#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

/* a fixed half-space with outward normal n through the origin, and one body */
static cmModel* plane_scene(const double n[3], const cmBodyDef* body) {
  cmBodyDef g = scene_ground();
  cm_v3_copy(g.geom.normal, n);
  return scene_compile(scene_on_ground("plane", &g, body, NULL));
}

/* a box of n x n subdivided faces sunk by delta: exactly the (n+1)^2 bottom vertices touch,
 * each at depth delta, and their areas add up to the bottom face area (side faces are
 * perpendicular to the normal and contribute nothing to n . a_v) */
static void test_box_sunk(void) {
  const double size[3] = {0.3, 0.2, 0.1}, delta = 1e-3;
  const double up[3] = {0, 0, 1};
  for (int n = 1; n <= 64; n = n < 8 ? n + 1 : 2 * n) {
    cmBodyDef b = scene_box("box", size[0], size[1], size[2], n);
    b.position[2] = 0.5 * size[2] - delta;
    cmModel* m = plane_scene(up, &b);
    if (!m) return;
    cmData* d = cm_data_new(m);
    CHECK(cm_collide(m, d) == CM_OK);
    CHECK(d->ncontact == (n + 1) * (n + 1));
    CHECK(d->npair == 1);
    double area = 0;
    for (int i = 0; i < d->ncontact; i++) {
      const cmContact* c = &d->contact[i];
      area += c->area;
      CHECK(c->body[0] == 1 && c->body[1] == 0);
      CHECK_NEAR(c->dist, -delta, 1e-15);
      CHECK_NEAR(c->p1[2], 0, 1e-15);
      CHECK(c->n[0] == 0 && c->n[1] == 0 && c->n[2] == 1);
    }
    CHECK_REL(area, size[0] * size[1], 1e-12);
    CHECK_REL(d->pair[0].area, size[0] * size[1], 1e-12);
    CHECK_NEAR(d->pair[0].max_penetration, delta, 1e-15);
    CHECK(d->pair[0].points == d->ncontact);
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* the same configuration rotated and translated as a whole gives the same contacts */
static void test_invariance(void) {
  const double delta = 2e-3, axis_raw[3] = {1, 2, 3};
  double axis[3] = {axis_raw[0], axis_raw[1], axis_raw[2]}, q[4], n[3];
  const double up[3] = {0, 0, 1};
  cm_v3_normalize(axis);
  cm_quat_from_axis_angle(q, axis, 0.7);
  cm_quat_rotate(n, q, up);
  double area[2] = {0, 0}, depth[2] = {0, 0};
  int count[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    cmBodyDef b = scene_sphere("ball", 0.1, 4);
    double pos[3] = {0, 0, 0.1 - delta};
    if (k) {
      cm_quat_rotate(b.position, q, pos);
      memcpy(b.orientation, q, sizeof q);
    } else {
      memcpy(b.position, pos, sizeof pos);
    }
    cmModel* m = plane_scene(k ? n : up, &b);
    if (!m) return;
    cmData* d = cm_data_new(m);
    cm_collide(m, d);
    count[k] = d->ncontact;
    for (int i = 0; i < d->ncontact; i++) {
      area[k] += d->contact[i].area;
      if (-d->contact[i].dist > depth[k]) depth[k] = -d->contact[i].dist;
    }
    cm_data_free(d);
    cm_model_free(m);
  }
  CHECK(count[0] > 0 && count[0] == count[1]);
  CHECK_REL(area[1], area[0], 1e-12);
  CHECK_NEAR(depth[1], depth[0], 1e-15);
}

/* an icosphere pressed delta into a plane: the contact area converges to the projected cap
 * area pi (2 R delta - delta^2) = pi a^2 as the mesh is refined. The error comes from the rim:
 * each of the ~2 pi a / s vertices near the rim (spacing s) is counted wholly in or out, an
 * error of about s^2 of either sign, so the relative error behaves like a random walk,
 * s^2 sqrt(2 pi a / s) / (pi a^2) = s^1.5 sqrt(2 pi a) / (pi a^2); it is not monotonic in s.
 * The check: within 3x that estimate at every refinement, and under 0.2% at refine 7. */
static void test_sphere_cap_area(void) {
  const double R = 0.1, delta = 0.02, up[3] = {0, 0, 1};
  const double exact = CM_PI * (2 * R * delta - delta * delta);
  double prev = 1;
  for (int r = 3; r <= 7; r++) {
    cmBodyDef b = scene_sphere("ball", R, r);
    b.position[2] = R - delta;
    cmModel* m = plane_scene(up, &b);
    if (!m) return;
    cmData* d = cm_data_new(m);
    cm_collide(m, d);
    double area = d->npair ? d->pair[0].area : 0, e = fabs(area - exact) / exact;
    printf("  refine %d: %d contacts, area %.6g (exact %.6g), rel error %.3g\n", r, d->ncontact,
           area, exact, e);
    double sp = 1.05 * R / (1 << r), a = sqrt(exact / CM_PI);
    CHECK(e < 3 * pow(sp, 1.5) * sqrt(2 * CM_PI * a) / exact);
    prev = e;
    cm_data_free(d);
    cm_model_free(m);
  }
  CHECK(prev < 2e-3);
}

/* a body above the plane has no contact; an ignored body never has contacts */
static void test_no_contact(void) {
  const double up[3] = {0, 0, 1};
  cmBodyDef b = scene_box("box", 0.1, 0.1, 0.1, 1);
  b.position[2] = 0.0501;
  cmModel* m = plane_scene(up, &b);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  CHECK(d->ncontact == 0 && d->npair == 0);
  cm_data_free(d);
  cm_model_free(m);
  b.position[2] = 0;
  b.motion = CM_MOTION_IGNORED;
  m = plane_scene(up, &b);
  if (!m) return;
  d = cm_data_new(m);
  cm_collide(m, d);
  CHECK(d->ncontact == 0);
  cm_data_free(d);
  cm_model_free(m);
}

/* cm_collide refuses what cm_step refuses: more than max_contacts points is CM_ERR_LIMIT with
 * no contacts (the list was cut at the limit, CM_OK), a non-finite state CM_ERR_ARG (it was
 * CM_OK) */
static void test_collide_refusals(void) {
  const double up[3] = {0, 0, 1};
  cmBodyDef b = scene_box("box", 0.3, 0.2, 0.1, 4);
  b.position[2] = 0.05 - 1e-3; /* 25 bottom vertices touch */
  cmModel* m = plane_scene(up, &b);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_collide(m, d) == CM_OK && d->ncontact == 25 && d->message[0] == 0);
  m->opt.max_contacts = 3;
  CHECK(cm_collide(m, d) == CM_ERR_LIMIT);
  CHECK(d->ncontact == 0 && d->npair == 0);
  CHECK(strstr(d->message, "more than max_contacts = 3 contact points in one cm_collide") != NULL);
  m->opt.max_contacts = 25;
  CHECK(cm_collide(m, d) == CM_OK && d->ncontact == 25 && d->message[0] == 0);
  d->body_cpos[3 + 2] = NAN;
  CHECK(cm_collide(m, d) == CM_ERR_ARG && d->ncontact == 25);
  CHECK(strstr(d->message, "'box'") && strstr(d->message, "position (body_cpos)[2]"));
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_box_sunk);
  RUN(test_collide_refusals);
  RUN(test_invariance);
  RUN(test_sphere_cap_area);
  RUN(test_no_contact);
  return test_report();
}
