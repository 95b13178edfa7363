/* The `contour` method through the implicit solve (SPEC 4, 5; collide_contour.c).
 *
 * Box on box: a 0.1 x 0.1 x 0.05 box (0.5 kg) resting flat on a fixed 1 x 1 x 0.2 box, law
 * area_compliant. The contour is the box's footprint, its region area A = 0.01 m^2 whatever the
 * two meshes' resolutions, and every point of the region carries dist = -depth and area A / N, so
 * at rest sum f = ka (A / N) depth N = ka A depth = weight: depth = weight / (ka A), and the
 * pressure f / (A / N) = ka depth = weight / A at every point, independent of both meshes.
 *
 * Sphere on box: the contour and vertex methods carry the same weight at rest: their total
 * normal forces agree (2%). */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static cmModel* on_ground(const cmGeomDef* geom, double z0, int ground_div, cmMethod method,
                          double ka) {
  cmBodyDef g = scene_ground_box(ground_div);
  cmBodyDef b = cm_body_def_default();
  b.name = "body";
  b.geom = *geom;
  /* off the ground's grid lines and diagonals, turned a little about z */
  cm_v3_set(b.position, 0.0123, -0.0171, z0);
  double ez[3] = {0, 0, 1};
  cm_quat_from_axis_angle(b.orientation, ez, 0.1);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.step_damping = 1.0;
  r.method = method;
  cmScene* s = scene_on_ground("contour-rest", &g, &b, &r);
  s->opt.timestep = 1e-3;
  cm_v3_set(s->opt.gravity, 0, 0, -9.81);
  return scene_compile(s);
}

static void test_box_on_box(void) {
  const double ka = 5e10, mass = 0.1 * 0.1 * 0.05 * 1000, W = mass * 9.81, A = 0.01;
  const double expect = W / (ka * A);
  int divs[3] = {1, 4, 8};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      cmGeomDef geom = cm_body_def_default().geom;
      geom.type = CM_GEOM_BOX;
      cm_v3_set(geom.size, 0.1, 0.1, 0.05);
      geom.divisions = divs[i];
      cmModel* m = on_ground(&geom, 0.025, divs[j], CM_METHOD_CONTOUR, ka);
      if (!m) return;
      cmData* d = cm_data_new(m);
      for (int k = 0; k < 300; k++)
        CHECK(cm_step(m, d) == CM_OK);
      double pmin = INFINITY, pmax = 0, ftot = 0;
      for (int k = 0; k < d->ncontact; k++) {
        const cmContact* c = &d->contact[k];
        CHECK(c->flags == CM_CONTACT_CONTOUR);
        double p = c->force / c->area;
        pmin = fmin(pmin, p);
        pmax = fmax(pmax, p);
        ftot += c->force;
      }
      double pen = d->npair ? d->pair[0].max_penetration : 0;
      printf("  box div %d on ground div %d: %d points, penetration %.6g m (weight/(ka A) = "
             "%.6g), pressure %.6g..%.6g Pa (weight/A = %.6g)\n",
             divs[i], divs[j], d->ncontact, pen, expect, pmin, pmax, W / A);
      CHECK(d->ncontact >= 3);
      /* to 1e-6 (it was 2 %, while the values agree to the digits printed) */
      CHECK_REL(pen, expect, 1e-6);
      CHECK_REL(ftot, W, 1e-6);
      CHECK_REL(pmin, W / A, 1e-6);
      CHECK_REL(pmax, W / A, 1e-6);
      CHECK(d->warning[CM_WARN_SOLVER] == 0 && d->warning[CM_WARN_BAD_AREA] == 0);
      cm_data_free(d);
      cm_model_free(m);
    }
}

/* total normal force of the last step's contacts */
static double total_force(const cmData* d) {
  double f = 0;
  for (int k = 0; k < d->ncontact; k++)
    f += d->contact[k].force;
  return f;
}

static void test_sphere_contour_vs_vertex(void) {
  const double R = 0.05, ka = 5e10;
  cmMethod methods[2] = {CM_METHOD_VERTEX, CM_METHOD_CONTOUR};
  double force[2] = {0, 0}, pen[2] = {0, 0};
  cmGeomDef geom = cm_body_def_default().geom;
  geom.type = CM_GEOM_SPHERE;
  geom.radius = R;
  geom.refine = 3;
  for (int k = 0; k < 2; k++) {
    cmModel* m = on_ground(&geom, R, 4, methods[k], ka);
    if (!m) return;
    cmData* d = cm_data_new(m);
    for (int i = 0; i < 600; i++)
      CHECK(cm_step(m, d) == CM_OK);
    force[k] = total_force(d);
    pen[k] = d->npair ? d->pair[0].max_penetration : 0;
    printf("  %s: %d contacts, total force %.6g N (weight %.6g), penetration %.4g m\n",
           cm_method_name(methods[k]), d->ncontact, force[k], m->body_mass[1] * 9.81, pen[k]);
    CHECK_REL(force[k], m->body_mass[1] * 9.81, 0.02);
    cm_data_free(d);
    cm_model_free(m);
  }
  CHECK_REL(force[1], force[0], 0.02);
}

int main(void) {
  RUN(test_box_on_box);
  RUN(test_sphere_contour_vs_vertex);
  return test_report();
}
