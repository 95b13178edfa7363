/* Scenes shared by the tests, one definition each. The builders CHECK every call they make
 * (test.h): a scene that does not compile is a failed check, not a skipped test.
 *
 *   cmBodyDef b = scene_box("box", 0.1, 0.1, 0.05, 4);   a 0.1 x 0.1 x 0.05 box, 4 x 4 faces
 *   b.position[2] = 0.025;
 *   cmRuleDef r = cm_rule_def_default();
 *   r.law = CM_LAW_AREA_COMPLIANT;
 *   cmScene* s = scene_on_ground("name", NULL, &b, &r); ground = body 0, the box = body 1
 *   s->opt.timestep = 1e-3;
 *   cmModel* m = scene_compile(s);                        frees s; NULL if it did not compile
 *
 * Each builder sets exactly the fields its name says, on top of cm_body_def_default(), so a
 * test that moves onto it builds the same model as before, bit for bit. */
#ifndef CM_TEST_SCENES_H
#define CM_TEST_SCENES_H

#include <math.h>
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "test.h"

static char scene_err[1024];

/* ---------------------------------------------------------------------------------------------
 * bodies */

/* "ground": a fixed half-space z <= 0 (normal +z through the origin; change geom.normal and
 * geom.offset for another) */
static inline cmBodyDef scene_ground(void) {
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  return g;
}

/* "ground": a fixed 1 x 1 x 0.2 box meshed with `divisions` faces per edge, its top face at z = 0
 * (a mesh ground, for the mesh-mesh methods) */
static inline cmBodyDef scene_ground_box(int divisions) {
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_BOX;
  cm_v3_set(g.geom.size, 1, 1, 0.2);
  g.geom.divisions = divisions;
  g.position[2] = -0.1;
  return g;
}

/* a dynamic sx x sy x sz box (m) centred on its frame, each face divided divisions x divisions */
static inline cmBodyDef scene_box(const char* name, double sx, double sy, double sz,
                                  int divisions) {
  cmBodyDef b = cm_body_def_default();
  b.name = name;
  b.geom.type = CM_GEOM_BOX;
  cm_v3_set(b.geom.size, sx, sy, sz);
  b.geom.divisions = divisions;
  return b;
}

/* a dynamic icosphere of the given radius (m) and refinement (12 vertices at 0, x4 per level) */
static inline cmBodyDef scene_sphere(const char* name, double radius, int refine) {
  cmBodyDef b = cm_body_def_default();
  b.name = name;
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = radius;
  b.geom.refine = refine;
  return b;
}

/* Crossed bars (tests/unit/test_edge_contact.c derives the contact): `upper`, a dynamic
 * L x s x s box turned 45 degrees about x so that an edge along x points down, its centre at
 * z = s sqrt2 - drop; `lower`, a fixed s x L x s box centred at the origin, turned 45 degrees
 * about y so that an edge along y points up, its ridge at z = s/sqrt2. The ridges cross at
 * x = y = 0, `drop` apart (drop > 0: interpenetrating). */
static inline void scene_crossed_bars(double L, double s, double drop, cmBodyDef* upper,
                                      cmBodyDef* lower) {
  const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
  *upper = scene_box("upper", L, s, s, 1);
  cm_quat_from_axis_angle(upper->orientation, ex, CM_PI / 4);
  upper->position[2] = s * sqrt(2.0) - drop;
  *lower = scene_box("lower", s, L, s, 1);
  lower->motion = CM_MOTION_FIXED;
  cm_quat_from_axis_angle(lower->orientation, ey, CM_PI / 4);
}

/* ---------------------------------------------------------------------------------------------
 * meshes */

/* a prism over a regular n-gon (radius r, height hgt) centred at the origin: n side facets of 2
 * triangles each and two caps of n - 2 (a fan), the shape of a roller or a coin */
static inline cmMesh* scene_prism_mesh(int n, double r, double hgt) {
  cmMesh* me = cm_mesh_new(2 * n, 4 * n - 4);
  if (!me) return NULL;
  for (int i = 0; i < n; i++)
    for (int s = 0; s < 2; s++) {
      double* x = me->vert + 3 * (2 * i + s);
      x[0] = r * cos(2 * CM_PI * i / n);
      x[1] = r * sin(2 * CM_PI * i / n);
      x[2] = s ? 0.5 * hgt : -0.5 * hgt;
    }
  int f = 0;
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n, a = 2 * i, b = 2 * j; /* a, b bottom; a + 1, b + 1 top */
    int t0[3] = {a, b, b + 1}, t1[3] = {a, b + 1, a + 1};
    memcpy(me->face + 3 * f++, t0, sizeof t0);
    memcpy(me->face + 3 * f++, t1, sizeof t1);
  }
  for (int i = 1; i + 1 < n; i++) {
    int top[3] = {1, 2 * i + 1, 2 * (i + 1) + 1}, bot[3] = {0, 2 * (i + 1), 2 * i};
    memcpy(me->face + 3 * f++, top, sizeof top);
    memcpy(me->face + 3 * f++, bot, sizeof bot);
  }
  return me;
}

/* a square frame centred at the origin: outer half-width a, a square hole of half-width b < a,
 * thickness t along z (16 vertices, 32 faces). A concave body whose centre of mass lies in its
 * hole, outside itself. */
static inline cmMesh* scene_frame_mesh(double a, double b, double t) {
  cmMesh* me = cm_mesh_new(16, 32);
  if (!me) return NULL;
  /* vertex r * 8 + l * 4 + c: ring r (0 outer, 1 inner), level l (0 bottom, 1 top), corner c
   * counter-clockwise from (+, +) seen from +z */
  static const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
  for (int r = 0; r < 2; r++)
    for (int l = 0; l < 2; l++)
      for (int c = 0; c < 4; c++) {
        double *x = me->vert + 3 * (r * 8 + l * 4 + c), w = r ? b : a;
        x[0] = sx[c] * w;
        x[1] = sy[c] * w;
        x[2] = l ? 0.5 * t : -0.5 * t;
      }
  int f = 0;
  for (int c = 0; c < 4; c++) {
    int d = (c + 1) % 4;
    int oB = c, oB1 = d, oT = 4 + c, oT1 = 4 + d, iB = 8 + c, iB1 = 8 + d, iT = 12 + c,
        iT1 = 12 + d;
    int tri[8][3] = {{oT, oT1, iT1}, {oT, iT1, iT},  /* top, +z */
                     {oB, iB1, oB1}, {oB, iB, iB1},  /* bottom, -z */
                     {oB, oB1, oT1}, {oB, oT1, oT},  /* outer wall, outward */
                     {iB, iT1, iB1}, {iB, iT, iT1}}; /* inner wall, into the hole */
    memcpy(me->face + 3 * f, tri, sizeof tri);
    f += 8;
  }
  return me;
}

/* the union of the filled cells of an n x n x n grid of cubes of side `cell` (m), its corner at
 * the origin: cell (i, j, k) is filled if fill(i, j, k); every face between a filled and an
 * empty cell (or the grid's outside) is two triangles with the grid's corners as vertices, so
 * the mesh is closed and wound outwards (a union of cubes: concave corners wherever filled cells
 * meet at an angle). n <= 4. */
static inline cmMesh* scene_voxel_mesh(int n, double cell, int (*fill)(int i, int j, int k)) {
  int nv = (n + 1) * (n + 1) * (n + 1), nf = 0;
#define VOX_IN(i, j, k)                                                                            \
  ((i) >= 0 && (j) >= 0 && (k) >= 0 && (i) < n && (j) < n && (k) < n && fill(i, j, k))
#define VOX_V(i, j, k) (((i) * (n + 1) + (j)) * (n + 1) + (k))
  int tri[2 * 6 * 64][3];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        if (!fill(i, j, k)) continue;
        for (int ax = 0; ax < 3; ax++)
          for (int sd = 0; sd < 2; sd++) {
            int o[3] = {i, j, k};
            o[ax] += sd ? 1 : -1;
            if (VOX_IN(o[0], o[1], o[2])) continue;
            /* the face's corners: c on the face's plane, u and v the other two axes, wound so
             * that (u x v) points along the outward normal */
            int c[3] = {i, j, k}, u = (ax + 1) % 3, v = (ax + 2) % 3;
            c[ax] += sd;
            if (!sd) {
              int t = u;
              u = v;
              v = t;
            }
            int q[4][3];
            for (int r = 0; r < 4; r++) {
              memcpy(q[r], c, sizeof c);
              q[r][u] += r == 1 || r == 2;
              q[r][v] += r >= 2;
            }
            int a = VOX_V(q[0][0], q[0][1], q[0][2]), b = VOX_V(q[1][0], q[1][1], q[1][2]),
                cc = VOX_V(q[2][0], q[2][1], q[2][2]), dd = VOX_V(q[3][0], q[3][1], q[3][2]);
            int t1[3] = {a, b, cc}, t2[3] = {a, cc, dd};
            memcpy(tri[nf++], t1, sizeof t1);
            memcpy(tri[nf++], t2, sizeof t2);
          }
      }
#undef VOX_IN
#undef VOX_V
  cmMesh* me = cm_mesh_new(nv, nf);
  if (!me) return NULL;
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= n; j++)
      for (int k = 0; k <= n; k++) {
        double* x = me->vert + 3 * (((i * (n + 1)) + j) * (n + 1) + k);
        x[0] = i * cell;
        x[1] = j * cell;
        x[2] = k * cell;
      }
  memcpy(me->face, tri, (size_t)nf * sizeof tri[0]);
  return me;
}

/* ---------------------------------------------------------------------------------------------
 * scenes */

/* compile s and free it; the model, or NULL (a failed check, the message on stderr) */
static inline cmModel* scene_compile(cmScene* s) {
  cmModel* m = NULL;
  cmStatus st = cm_model_compile(s, &m, scene_err, sizeof scene_err);
  if (st != CM_OK) fprintf(stderr, "%s\n", scene_err);
  CHECK(st == CM_OK);
  cm_scene_free(s);
  return m;
}

/* s with one area_compliant rule `* *` of the given ka (N/m^3) and friction (every other
 * parameter the default), compiled (and freed) */
static inline cmModel* scene_compile_area(cmScene* s, double ka, double mu) {
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.friction = mu;
  CHECK(cm_scene_add_rule(s, &r, scene_err, sizeof scene_err) == 0);
  return scene_compile(s);
}

/* bodies a (0) and b (1) and the rule `rule` (NULL: none), default options: set s->opt, then
 * scene_compile(s) */
static inline cmScene* scene_two_bodies(const char* name, const cmBodyDef* a, const cmBodyDef* b,
                                        const cmRuleDef* rule) {
  cmScene* s = cm_scene_new(name);
  CHECK(cm_scene_add_body(s, a, scene_err, sizeof scene_err) == 0);
  CHECK(cm_scene_add_body(s, b, scene_err, sizeof scene_err) == 1);
  if (rule) CHECK(cm_scene_add_rule(s, rule, scene_err, sizeof scene_err) == 0);
  return s;
}

/* `body` over `ground` (NULL: scene_ground()): ground = body 0, body = body 1 */
static inline cmScene* scene_on_ground(const char* name, const cmBodyDef* ground,
                                       const cmBodyDef* body, const cmRuleDef* rule) {
  cmBodyDef g = ground ? *ground : scene_ground();
  return scene_two_bodies(name, &g, body, rule);
}

/* bodies a and b (0 and 1) and one area_compliant rule (every other parameter the default) with
 * the contact method `method`, compiled */
static inline cmModel* scene_pair(const char* name, const cmBodyDef* a, const cmBodyDef* b,
                                  cmMethod method) {
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.method = method;
  return scene_compile(scene_two_bodies(name, a, b, &r));
}

/* scene_pair of two dynamic bodies "A" and "B" with meshes A and B (taken: freed here, also when
 * either is NULL, which gives NULL) */
static inline cmModel* scene_mesh_pair(const char* name, cmMesh* A, cmMesh* B, cmMethod method) {
  cmModel* m = NULL;
  if (A && B) {
    cmBodyDef a = cm_body_def_default(), b = cm_body_def_default();
    a.name = "A";
    a.geom.type = CM_GEOM_MESH;
    a.geom.mesh = A;
    b.name = "B";
    b.geom.type = CM_GEOM_MESH;
    b.geom.mesh = B;
    m = scene_pair(name, &a, &b, method);
  }
  cm_mesh_free(A);
  cm_mesh_free(B);
  return m;
}

/* A stack of n dynamic 0.1 m cubes of 1 kg (`divisions: 2`) on the ground plane (body 0; box i is
 * body i + 1), each shifted by (10, 5) mm on the one below and turned by +-tilt rad (alternating)
 * about (0.6, 0.8, 0): box i at (0.01 i, 0.005 i, 0.054 + 0.106 i), clear of the one below. One
 * area_compliant rule `* *` of the given ka (N/m^3) and friction; h = 1 ms, gravity -9.81 z.
 * Compiled (bench/README.md, "Edge contacts that begin deep": at ka 5e10 and friction 1 the
 * stack of five rocked for seconds before 2026-12-07). */
static inline cmModel* scene_stack(int n, double tilt, double ka, double mu) {
  cmScene* s = cm_scene_new("stack");
  s->opt.timestep = 1e-3;
  s->opt.gravity[0] = s->opt.gravity[1] = 0;
  s->opt.gravity[2] = -9.81;
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, scene_err, sizeof scene_err) == 0);
  static const char* const names[] = {"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"};
  const double axis[3] = {0.6, 0.8, 0};
  for (int i = 0; i < n && i < 8; i++) {
    cmBodyDef b = scene_box(names[i], 0.1, 0.1, 0.1, 2);
    b.mass = 1.0;
    b.position[0] = 0.01 * i;
    b.position[1] = 0.005 * i;
    b.position[2] = 0.054 + 0.106 * i;
    cm_quat_from_axis_angle(b.orientation, axis, i % 2 ? -tilt : tilt);
    CHECK(cm_scene_add_body(s, &b, scene_err, sizeof scene_err) == i + 1);
  }
  return scene_compile_area(s, ka, mu);
}

#endif
