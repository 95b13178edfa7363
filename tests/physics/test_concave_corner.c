/* A cube in an inner corner of one fixed mesh (docs/contact-laws.md, "Concave corners").
 *
 * The corner is a union of 5 cm cubes (tests/scenes.h, scene_voxel_mesh): a floor slab with a
 * wall at x (two faces), or with walls at x and y (three: a room's corner). A 5 cm cube of
 * 0.125 kg (`divisions: 2`, the finer mesh, so `vertex` tests its vertices) rests in it, pushed
 * into the corner by a gravity with a component towards each wall; ka 1e8, stiffness damping 3
 * ms (an overdamped contact: its slow mode decays as exp(-t / 3 ms)).
 *
 * The law's answer: each face of the cube that rests on a face of the corner carries the
 * gravity's component along that face's normal over its whole area A = 25 cm^2, so it sinks
 * depth_i = m g_i / (ka A) (floor 4.905 um, walls 2.0 and 1.5 um), level, and the contacts'
 * forces on the cube sum to -m g. The vertices on the corner's edges are inside two faces (three
 * at its corner), and each face must get the part of the vertex's area that faces it: the
 * bottom face's share of a vertex against the floor, the side's against the wall. Until
 * 2026-12-08 such a vertex had one contact, with the nearest face, so the floor lost the corner
 * vertices' bottom shares: the cube rested 1.4 times too deep in the floor with `vertex`, 1.9
 * times with `auto`, tilted by 2.6e-4 rad, and without friction the vertex's contact jumped
 * between the wall and the floor and pushed the cube along the corner's edge (2.5e-4 m/s at 1 s,
 * 2e-3 m/s at 8 s: energy from nowhere).
 *
 * Asserted, after 1 s (rest) and 3 s:
 *  - `vertex`: the depths to 1e-5 of the law's, level to 1e-9 rad, the forces' sum -m g to 1e-6,
 *    and the largest vertex pressure ka times the floor's depth;
 *    the same in the room's corner with three walls;
 *  - `auto` (the default): the depths within 10 % of the law's (auto shares each patch between
 *    the two meshes' vertices by their depths, docs/contact-laws.md "Areas shared by depth",
 *    1.000-1.075 of the law on a box on a box);
 *  - no force along the corner's edge, frictionless: every face's normal is square to y, so
 *    with `vertex` the cube's speed along y stays below 1e-12 m/s over the 3 s (it was 2.5e-4
 *    m/s at 1 s). With `auto` it stays below 1e-6 m/s: the corner's own vertex on its edge is
 *    inside the cube, and its contact pushes along the cube's face normal, which the cube's
 *    small yaw (its triangulated faces' vertex areas are not symmetric) turns by 1e-6 rad or
 *    so; nothing balances that force's y part, and the cube drifts at up to 2.2e-7 m/s (measured)
 *    to and fro. That is the two-way sampling's (docs/contact-laws.md, "Concave corners"). */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "comply/comply.h"
#include "scenes.h"
#include "test.h"

static const double cell = 0.05, ka = 1e8, mass = 0.125, area = 0.05 * 0.05;

static int two_faces(int i, int j, int k) {
  (void)j;
  return k == 0 || i == 0;
}
static int three_faces(int i, int j, int k) {
  return k == 0 || i == 0 || j == 0;
}

typedef struct Rest {
  double depth[3]; /* into the wall at x, the wall at y, the floor, m */
  double tilt;     /* |rotation| of the cube, rad */
  double force[3]; /* the contacts' forces on the cube, N */
  double vy;       /* the cube's largest speed along the corner's edge (y), m/s */
  double pmax;     /* the largest of the cube's vertex pressures (cm_data_vertex_pressure), Pa */
} Rest;

static Rest run_corner(int (*fill)(int, int, int), const double g[3], cmMethod method) {
  Rest r = {{0}, 0, {0}, 0, 0};
  cmMesh* me = scene_voxel_mesh(3, cell, fill);
  CHECK(me != NULL);
  if (!me) return r;
  cmBodyDef c = cm_body_def_default(), b = scene_box("cube", cell, cell, cell, 2);
  c.name = "corner";
  c.motion = CM_MOTION_FIXED;
  c.geom.type = CM_GEOM_MESH;
  c.geom.mesh = me;
  /* 1 um from each face it will rest on */
  cm_v3_set(b.position, 1.5 * cell + 1e-6, 1.5 * cell + (fill == three_faces ? 1e-6 : 0),
            1.5 * cell + 1e-6);
  cmRuleDef rule = cm_rule_def_default();
  rule.law = CM_LAW_AREA_COMPLIANT;
  rule.ka = ka;
  rule.stiffness_damping = 0.003;
  rule.method = method;
  cmScene* s = scene_two_bodies("corner", &c, &b, &rule);
  cm_v3_copy(s->opt.gravity, g);
  cmModel* m = scene_compile(s);
  cm_mesh_free(me);
  if (!m) return r;
  CHECK(m->geom_nconcave[m->body_geom[0]] > 0);
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 3000; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    r.vy = fmax(r.vy, fabs(d->body_cvel[4]));
  }
  for (int k = 0; k < 3; k++)
    r.depth[k] = 1.5 * cell - d->body_cpos[3 + k];
  if (fill == two_faces) r.depth[1] = 0;
  const double* q = d->body_xquat + 4;
  r.tilt = 2 * sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int p = 0; p < d->npair; p++)
    for (int k = 0; k < 3; k++)
      r.force[k] += d->pair[p].body[0] == 1 ? d->pair[p].force[k] : -d->pair[p].force[k];
  double pr[64], pen[64];
  CHECK(m->geom_nvert[m->body_geom[1]] <= 64);
  CHECK(cm_data_vertex_pressure(m, d, 1, pr, pen, NULL, 0) == CM_OK);
  for (int v = 0; v < m->geom_nvert[m->body_geom[1]]; v++)
    r.pmax = fmax(r.pmax, pr[v]);
  printf("  %s corner, %s: depths x %.4e y %.4e z %.4e m, tilt %.1e rad, force %.6f %.6f %.6f N,"
         " |v_y| <= %.1e m/s, %d contacts\n",
         fill == two_faces ? "two-face" : "three-face",
         method == CM_METHOD_VERTEX ? "vertex" : "auto", r.depth[0], r.depth[1], r.depth[2], r.tilt,
         r.force[0], r.force[1], r.force[2], r.vy, d->ncontact);
  cm_data_free(d);
  cm_model_free(m);
  return r;
}

/* the law's depths and forces, to tol of the depths */
static void check_law(const Rest* r, const double g[3], double tol, int exact) {
  for (int k = 0; k < 3; k++) {
    double law = mass * -g[k] / (ka * area);
    CHECK_NEAR(r->depth[k], law, tol * fabs(law) + 1e-15);
    if (exact) CHECK_NEAR(r->force[k], -mass * g[k], 1e-6 * mass * 9.81);
  }
  if (exact) CHECK(r->tilt < 1e-9);
}

static void test_floor_and_wall(void) {
  const double g[3] = {-4, 0, -9.81};
  Rest r = run_corner(two_faces, g, CM_METHOD_VERTEX);
  check_law(&r, g, 1e-5, 1);
  CHECK(r.vy < 1e-12);
  /* at rest a contact's pressure is ka times its depth; a vertex on the corner's edge shows the
   * larger of its two, the floor's */
  CHECK_NEAR(r.pmax, ka * r.depth[2], 1e-5 * ka * r.depth[2]);
}

static void test_room_corner(void) {
  const double g[3] = {-4, -3, -9.81};
  Rest r = run_corner(three_faces, g, CM_METHOD_VERTEX);
  check_law(&r, g, 1e-5, 1);
}

static void test_auto(void) {
  const double g[3] = {-4, 0, -9.81};
  Rest r = run_corner(two_faces, g, CM_METHOD_AUTO);
  check_law(&r, g, 0.10, 0);
  CHECK(r.vy < 1e-6);
}

/* cm_corner_areas (collide_corner.c): faces square to each other keep the plain projections;
 * faces at an angle share the patch so that at equal depths the areas' vector sum is the
 * patch's area vector (one contact's force for the whole patch); at a depth of 0 on one face
 * the others keep their plain projections (continuity as a contact appears). */
static void test_corner_areas(void) {
  const double x[3] = {1, 0, 0}, z[3] = {0, 0, 1};
  const double* sq[2] = {x, z};
  double a[2] = {0.3, 0.7}, dep[2] = {1e-6, 5e-6};
  cm_corner_areas(2, sq, dep, (double[]){0.3, 0.7}, a);
  CHECK_NEAR(a[0], 0.3, 1e-15);
  CHECK_NEAR(a[1], 0.7, 1e-15);
  /* normals 40 degrees apart, the patch's area vector along their bisector, |a| = 1 */
  double t = 40 * CM_PI / 180, n1[3] = {sin(t / 2), 0, cos(t / 2)},
         n2[3] = {-sin(t / 2), 0, cos(t / 2)};
  const double* nn[2] = {n1, n2};
  double plain = cos(t / 2); /* each face's projection of the patch */
  double b[2] = {plain, plain}, eq[2] = {2e-6, 2e-6};
  cm_corner_areas(2, nn, eq, (double[]){plain, plain}, b);
  double sum[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++)
    sum[k] = b[0] * n1[k] + b[1] * n2[k];
  CHECK_NEAR(sum[0], 0, 1e-12);
  CHECK_NEAR(sum[2], 1, 1e-12);
  double c[2] = {plain, plain}, one[2] = {2e-6, 0};
  cm_corner_areas(2, nn, one, (double[]){plain, plain}, c);
  CHECK_NEAR(c[0], plain, 1e-15);
  CHECK_NEAR(c[1], plain, 1e-15);
  /* a vertex 4 times deeper behind one face than the other (a prism flush in an asymmetric
   * groove, each face sunk by its own load) takes the decomposition whole: the sum is the patch */
  double e4[2] = {plain, plain}, quarter[2] = {2e-6, 0.5e-6};
  cm_corner_areas(2, nn, quarter, (double[]){plain, plain}, e4);
  CHECK_NEAR(e4[0] * n1[2] + e4[1] * n2[2], 1, 1e-12);
  /* the patch square to the first face (its area vector along n1): the decomposition gives the
   * second face nothing at equal depths, and the first the whole patch */
  double e[2] = {1, cos(t)};
  cm_corner_areas(2, nn, eq, (double[]){1, cos(t)}, e);
  CHECK_NEAR(e[0], 1, 1e-12);
  CHECK_NEAR(e[1], 0, 1e-12);
}

/* contact_time gives a body pair one contact (SPEC 3.2), which cannot hold a body against two
 * faces of a corner (the cube above at contact_time 10 ms bounced and the energy monitor counted
 * created energy 62 times in 1 s): a rule that applies between a mesh with inner corners and
 * another body is noted at compile time, one with convex meshes only is not */
static int corner_note(int (*fill)(int, int, int), cmLawType law) {
  cmMesh* me = scene_voxel_mesh(3, cell, fill);
  CHECK(me != NULL);
  if (!me) return -1;
  cmBodyDef c = cm_body_def_default(), b = scene_box("cube", cell, cell, cell, 2);
  c.name = "corner";
  c.motion = CM_MOTION_FIXED;
  c.geom.type = CM_GEOM_MESH;
  c.geom.mesh = me;
  cm_v3_set(b.position, 1.5 * cell, 1.5 * cell, 1.5 * cell + 1e-3);
  cmRuleDef rule = cm_rule_def_default();
  rule.law = law;
  rule.contact_time = 0.01;
  cmModel* m = scene_compile(scene_two_bodies("corner_note", &c, &b, &rule));
  cm_mesh_free(me);
  int said = 0;
  for (int i = 0; m && i < m->nnote; i++)
    said |= strstr(m->note[i], "contact_time gives a body pair one contact") != NULL &&
            strstr(m->note[i], "'corner' has") != NULL;
  cm_model_free(m);
  return said;
}

static int slab(int i, int j, int k) {
  (void)i;
  (void)j;
  return k == 0;
}

static void test_contact_time_noted(void) {
  CHECK(corner_note(two_faces, CM_LAW_CONTACT_TIME) == 1);
  CHECK(corner_note(three_faces, CM_LAW_CONTACT_TIME) == 1);
  CHECK(corner_note(slab, CM_LAW_CONTACT_TIME) == 0); /* a box-shaped mesh: convex */
  CHECK(corner_note(two_faces, CM_LAW_AREA_COMPLIANT) == 0);
}


/* a closed mesh: the polygon prof (x, z; n points, star-shaped from its first point's opposite,
 * cx cz) extruded along y over [-len/2, len/2], each edge in div pieces, div along y, the caps
 * fanned from (cx, cz) */
static cmMesh* extrude(const double (*prof)[2], int n, int div, double len, double cx,
                       double cz) {
  int np = n * div, nv = np * (div + 1) + 2, nf = 2 * np * div + 2 * np;
  cmMesh* me = cm_mesh_new(nv, nf);
  if (!me) return NULL;
  for (int j = 0; j <= div; j++)
    for (int i = 0; i < np; i++) {
      const double *a = prof[i / div], *b = prof[(i / div + 1) % n];
      double t = (double)(i % div) / div, *x = me->vert + 3 * (j * np + i);
      x[0] = a[0] + t * (b[0] - a[0]);
      x[1] = len * ((double)j / div - 0.5);
      x[2] = a[1] + t * (b[1] - a[1]);
    }
  int c0 = np * (div + 1), c1 = c0 + 1, f = 0;
  double* x = me->vert + 3 * c0;
  x[0] = x[3] = cx;
  x[1] = -len / 2;
  x[4] = len / 2;
  x[2] = x[5] = cz;
  for (int j = 0; j < div; j++)
    for (int i = 0; i < np; i++) {
      int a = j * np + i, b = j * np + (i + 1) % np, c = b + np, d = a + np;
      int t[6] = {a, c, b, a, d, c}; /* outward for a profile counter-clockwise in (x, z) */
      memcpy(me->face + 3 * f, t, sizeof t);
      f += 2;
    }
  for (int i = 0; i < np; i++) {
    int t[6] = {c0, i, (i + 1) % np, c1, div * np + (i + 1) % np, div * np + i};
    memcpy(me->face + 3 * f, t, sizeof t);
    f += 2;
  }
  return me;
}

/* a prism flush in a V-groove sharper than square (faces at 65 degrees to the horizontal, 50
 * apart): the vertices on the prism's bottom edge have patches that face both faces, 1:2 at the
 * ends, whose plain projection on one face is negative (n1 . n2 = cos 130 degrees). The
 * decomposition must take the signed projections: with |n . a| for the nearest face it counted
 * a part twice, and a further face with a negative projection was left out, so the prism rested
 * tilted (7.6e-5 rad) at 1.012 and 1.045 of the law's depths, and at 60 degrees (the projection
 * 0 at the ends) it never came to rest (bursts to 7.5e-5 m/s every 2 s). The law: frictionless,
 * each face carries N = m g / (2 cos 65 deg) over its area ell * len, depth N / (ka ell len). */
static void test_sharp_groove(void) {
  for (int deg = 60; deg <= 65; deg += 5) {
    const double th = deg * CM_PI / 180, ell = 0.05, len = 0.05, W = 0.1;
    const double k = 0.4 * ell / tan(th), s = sin(th), c = cos(th);
    double groove[5][2] = {{W, W * tan(th)}, {-W, W * tan(th)}, {-W, -0.05}, {W, -0.05}, {0, 0}};
    /* counter-clockwise in (x, z): the crease, the right face, its side, the top, the left
     * face's side, 1 um above the groove */
    double p1[2] = {-ell * c, ell * s}, p2[2] = {ell * c, ell * s};
    double prism[5][2] = {{0, 1e-6},
                          {p2[0], p2[1] + 1e-6},
                          {p2[0] - k * s, p2[1] + k * c + 1e-6},
                          {p1[0] + k * s, p1[1] + k * c + 1e-6},
                          {p1[0], p1[1] + 1e-6}};
    /* the groove's profile counter-clockwise from its crease (star-shaped from below it) */
    double gp[5][2] = {{0, 0}, {groove[1][0], groove[1][1]}, {groove[2][0], groove[2][1]},
                       {groove[3][0], groove[3][1]}, {groove[0][0], groove[0][1]}};
    cmMesh* mg = extrude((const double (*)[2])gp, 5, 1, 0.2, 0, -0.025);
    cmMesh* mp = extrude((const double (*)[2])prism, 5, 2, len, 0, 0.5 * (p1[1] + k * c));
    CHECK(mg && mp);
    if (!mg || !mp) return;
    cmBodyDef g = cm_body_def_default(), b = cm_body_def_default();
    g.name = "groove";
    g.motion = CM_MOTION_FIXED;
    g.geom.type = CM_GEOM_MESH;
    g.geom.mesh = mg;
    b.name = "prism";
    b.mass = mass;
    b.geom.type = CM_GEOM_MESH;
    b.geom.mesh = mp;
    cmRuleDef rule = cm_rule_def_default();
    rule.law = CM_LAW_AREA_COMPLIANT;
    rule.ka = ka;
    rule.stiffness_damping = 0.003;
    rule.method = CM_METHOD_VERTEX;
    cmModel* m = scene_compile(scene_two_bodies("sharp_groove", &g, &b, &rule));
    cm_mesh_free(mg);
    cm_mesh_free(mp);
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->geom_nconcave[m->body_geom[0]] > 0);
    cmData* d = cm_data_new(m);
    double c0[3], vmax = 0;
    cm_v3_copy(c0, d->body_cpos + 3);
    (void)groove;
    for (int i = 0; i < 3000; i++) {
      CHECK(cm_step(m, d) == CM_OK);
      if (i >= 500)
        vmax = fmax(vmax, sqrt(cm_v3_dot(d->body_cvel + 3, d->body_cvel + 3)));
    }
    /* level and centred: the sinking is vertical, depth = drop cos(th) - 1 um cos(th) */
    const double* q = d->body_xquat + 4;
    double tilt = 2 * sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double depth = (c0[2] - d->body_cpos[5] - 1e-6) * c;
    double law = mass * 9.81 / (2 * c) / (ka * ell * len);
    printf("  groove at %d deg: depth / law %.9f, tilt %.1e rad, |v| after 0.5 s <= %.1e m/s\n",
           deg, depth / law, tilt, vmax);
    CHECK_NEAR(depth, law, 1e-5 * law);
    CHECK(tilt < 1e-9);
    CHECK(vmax < 1e-8);
    cm_data_free(d);
    cm_model_free(m);
  }
}

int main(void) {
  RUN(test_contact_time_noted);
  RUN(test_corner_areas);
  RUN(test_floor_and_wall);
  RUN(test_room_corner);
  RUN(test_auto);
  RUN(test_sharp_groove);
  return test_report();
}
