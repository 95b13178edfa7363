/* Thin walls are never crossed silently (issue 11, src/engine/depth.c).
 *
 * A 0.1 m ball flies at a fixed wall 1 mm thick (vertex method, ka 5e10). A vertex moving more
 * than half the wall's thickness per step can reach the far half of the wall (and is pushed out
 * on the far side) or jump it. At 10 m/s and h = 1 ms it moves 10 mm per step, 20 times the
 * half-thickness: the tunnelling warning must be counted, naming the ball and the wall, with the
 * speed 10 m/s, the thickness 1 mm and so the largest safe step 1e-3 / (2 x 10) = 5e-5 s; at
 * 95 m/s and h = 1e-5 s (0.95 mm per step: the case of the issue) the same. At 0.1 m/s and h =
 * 1 ms a vertex moves 0.1 mm per step, and the law stops the ball within about 0.1 mm (its
 * kinetic energy 2.6 mJ against the Winkler cap's pi R ka delta^3 / 3): nothing is counted, not
 * even deep_penetration (20 % of 1 mm), and the wall holds: the ball comes back. (At 0.5 m/s a
 * vertex enters 0.5 mm in one step: half the wall, counted as deep_penetration, rightly.) */
#include <math.h>

#include "comply/comply.h"
#include "scenes.h"
#include "test.h"

static cmData* fly(double v, double h, double duration, cmModel** mp) {
  cmBodyDef wall = scene_box("wall", 0.001, 0.5, 0.5, 1);
  wall.motion = CM_MOTION_FIXED;
  cmBodyDef ball = scene_sphere("ball", 0.05, 3);
  ball.position[0] = -0.0505 - 0.001; /* 1 mm before the wall's face at x = -0.0005 */
  ball.velocity[0] = v;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  cmScene* s = scene_two_bodies("tunnel", &wall, &ball, &r);
  s->opt.timestep = h;
  s->opt.gravity[2] = 0;
  cmModel* m = scene_compile(s);
  *mp = m;
  if (!m) return NULL;
  cmData* d = cm_data_new(m);
  long n = (long)(duration / h + 0.5);
  for (long i = 0; i < n; i++)
    if (cm_step(m, d) != CM_OK) break;
  return d;
}

static void test_fast_counted(void) {
  const double cases[2][2] = {{10, 1e-3}, {95, 1e-5}};
  for (int i = 0; i < 2; i++) {
    cmModel* m;
    cmData* d = fly(cases[i][0], cases[i][1], 0.01, &m);
    if (!d) return;
    double safe = d->tunnel_thickness / (2 * d->tunnel_speed);
    printf("  %g m/s, h %g s: tunnelling %d from step %ld, speed %.4g m/s, thickness %.4g m, "
           "safe step %.3g s; ball ends at x = %.4f m\n",
           cases[i][0], cases[i][1], d->warning[CM_WARN_TUNNEL], d->tunnel_first_step,
           d->tunnel_speed, d->tunnel_thickness, safe, d->body_cpos[3]);
    CHECK(d->warning[CM_WARN_TUNNEL] >= 1);
    CHECK(d->tunnel_body_a == 1 && d->tunnel_body_b == 0);
    CHECK_REL(d->tunnel_speed, cases[i][0], 1e-9); /* no rotation: the speed itself */
    CHECK_REL(d->tunnel_thickness, 0.001, 1e-9);
    CHECK_REL(safe, 0.001 / (2 * cases[i][0]), 1e-9);
    cm_data_free(d);
    cm_model_free(m);
  }
}

static void test_slow_holds(void) {
  cmModel* m;
  cmData* d = fly(0.1, 1e-3, 0.1, &m);
  if (!d) return;
  printf("  0.1 m/s, h 1 ms: tunnelling %d, deep %d; ball ends at x = %.5f m, vx = %.3f m/s\n",
         d->warning[CM_WARN_TUNNEL], d->warning[CM_WARN_DEEP], d->body_cpos[3], d->body_cvel[3]);
  CHECK(d->warning[CM_WARN_TUNNEL] == 0 && d->warning[CM_WARN_DEEP] == 0);
  CHECK(d->body_cvel[3] < 0);              /* it came back */
  CHECK(d->body_cpos[3] + 0.05 < -0.0005); /* on its own side */
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_fast_counted);
  RUN(test_slow_holds);
  return test_report();
}
