/* cm_mesh_repair on the defective cubes of test_mesh_diagnose: what it changes, derived from the
 * construction, and the mass properties of the result.
 *
 * The cube is cm_mesh_box(1 m, 1 division): 8 vertices, 12 faces. A repaired unit cube must
 * pass cm_mesh_check with volume 1 m^3, centroid at the origin and, for density 1, the inertia
 * tensor of a unit cube about its centre: m (a^2 + a^2) / 12 = 1/6 kg m^2 on the diagonal, 0
 * off it. Expected changes:
 *   - every face listed twice (half of the copies reversed): 12 duplicate faces dropped;
 *   - each side with its own 4 vertices: 24 vertices welded into 8 (tolerance 0); one side moved
 *     out by d = 1e-7 m: welded within d (the volume grows by at most d, one side of area 1
 *     moved by d before the weld moves it back onto the corners of smallest index);
 *   - one face reversed: 1 face flipped; every face reversed: 1 shell of 12 faces reversed;
 *   - a cube of side 0.4 reversed inside: a cavity, not reversed (volume 1 - 0.064);
 *   - two cubes side by side sharing the 4 vertices of their common side, each listing it: that
 *     wall dropped (4 faces) and the second cube's own 4 vertices there (unused), one box of
 *     volume 2;
 *   - one triangle removed (each in turn): 1 hole of 3 edges filled by a triangle;
 *   - one side's two faces removed: a planar hole of 4 edges, filled by 2 triangles in its
 *     plane: the unit cube again; the same on a box of 3 divisions (a side of 18 triangles
 *     removed: a hole of 12 edges, 2 collinear vertices per edge of the square, filled by
 *     12 - 2 = 10 triangles);
 *   - a zero-area face added (a vertex at another's position): 1 degenerate face dropped, the
 *     vertex welded to the other (no unused vertex left);
 *   - not repairable: two cubes sharing a vertex (non-manifold vertex remains), two adjacent
 *     sides removed (a hole of 6 edges over two perpendicular squares: the best-fit plane
 *     contains the common edge's direction and the normal (1, 1, 0)/sqrt 2 of the two
 *     squares' bisector, 6 x 1/9 against 6 x 1/4 and 2 x 1/2 of scatter along the other axes;
 *     the common edge's ends lie sqrt(2)/3 m from it: left, with the message), a side moved
 *     by 1e-3 m (beyond 1e-4 of the diagonal: not welded; the cube's hole is planar and filled,
 *     the loose side's outline is left: its fill would double the flat patch); the error names
 *     what remains;
 *   - a valid cube: nothing changed. */
#include <stdio.h>
#include <string.h>

#include "comply/mesh.h"
#include "test.h"
#include "test_meshes.h"

/* repair m, which must then pass, with the mass properties of a unit cube (volume tolerance
 * vtol); returns the report */
static cmMeshRepairReport repair_unit_cube(cmMesh* m, double vtol) {
  cmMeshRepairReport r;
  char err[1024];
  cmStatus st = cm_mesh_repair(m, -1, "cube.obj", &r, err, sizeof err);
  if (st != CM_OK) fprintf(stderr, "  %s\n", err);
  CHECK(st == CM_OK);
  CHECK(err[0] == 0); /* (the fault of the mesh before the repair was left in err) */
  CHECK(cm_mesh_check(m, "cube.obj", NULL, err, sizeof err) == CM_OK);
  CHECK(m->nvert == 8 && m->nface == 12);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  CHECK_NEAR(mp.volume, 1, vtol);
  CHECK_NEAR(r.volume, 1, vtol);
  for (int i = 0; i < 3; i++) {
    CHECK_NEAR(mp.com[i], 0, vtol);
    for (int j = 0; j < 3; j++)
      CHECK_NEAR(mp.inertia[3 * i + j], i == j ? 1.0 / 6 : 0, vtol);
  }
  return r;
}

static void test_valid(void) {
  cmMesh* m = cube(1);
  cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
  CHECK(r.changes == 0);
  char text[256];
  CHECK(cm_mesh_repair_text(&r, text, sizeof text) == 0);
  CHECK(contains(text, "nothing to repair"));
  cm_mesh_free(m);
}

static void test_duplicate_faces(void) {
  cmMesh* m = doubled_cube();
  cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
  CHECK(r.duplicate_face == 12 && r.unused_vert == 8 && r.weld_group == 0);
  CHECK(r.flipped_face == 0 && r.flipped_shell == 0 && r.degenerate_face == 0);
  char text[256];
  CHECK(cm_mesh_repair_text(&r, text, sizeof text) == 2);
  CHECK(cm_mesh_repair_text(&r, NULL, 0) == 2 && cm_mesh_repair_text(&r, text, 0) == 2);
  CHECK(contains(text, "dropped 8 unused vertices; dropped 12 duplicate faces"));
  cm_mesh_free(m);
}

static void test_unwelded(void) {
  cmMesh* m = unwelded(0, 0);
  cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
  CHECK(r.welded_vert == 24 && r.weld_group == 8 && r.weld_tol == 0 && r.unused_vert == 0);
  char text[256];
  cm_mesh_repair_text(&r, text, sizeof text);
  CHECK(contains(text, "welded 24 vertices into 8 (tolerance 0 m)"));
  cm_mesh_free(m);

  const double d = 1e-7;
  m = unwelded(1 << 5 | 1 << 1, d);
  r = repair_unit_cube(m, 2 * d);
  CHECK(r.welded_vert == 24 && r.weld_group == 8);
  CHECK_REL(r.weld_tol, d, 1e-6);
  cm_mesh_free(m);

  /* 1e-3 m: beyond the largest default tolerance, holes remain */
  m = unwelded(1 << 5, 1e-3);
  char err[1024];
  CHECK(cm_mesh_repair(m, -1, "cube.ply", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.weld_tol == 0 && r.weld_group == 8 && r.welded_vert == 20);
  CHECK(r.filled_planar_hole == 1 && r.filled_planar_face == 2 && r.unfilled_hole == 1);
  CHECK(contains(err, "cube.ply: holes: 1 (boundary loops of 4 edges"));
  CHECK(contains(err, "(-0.5, -0.5, 0.501)"));
  cm_mesh_free(m);
  /* with an explicit tolerance of 2e-3 m it closes */
  m = unwelded(1 << 5, 1e-3);
  CHECK(cm_mesh_repair(m, 2e-3, "cube.ply", &r, err, sizeof err) == CM_OK);
  CHECK(r.weld_group == 8 && m->nvert == 8 && m->nface == 12);
  CHECK(r.volume > 1 && r.volume < 1 + 2e-3);
  cm_mesh_free(m);
}

static void test_flipped(void) {
  cmMesh* m = cube(1);
  flip(m, 5);
  cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
  CHECK(r.flipped_face == 1 && r.flipped_shell == 0 && r.changes == 1);
  char text[256];
  cm_mesh_repair_text(&r, text, sizeof text);
  CHECK(contains(text, "flipped 1 face"));
  cm_mesh_free(m);

  m = cube(1);
  for (int f = 0; f < 12; f++)
    flip(m, f);
  r = repair_unit_cube(m, 1e-14);
  CHECK(r.flipped_face == 0 && r.flipped_shell == 1 && r.flipped_shell_face == 12);
  cm_mesh_repair_text(&r, text, sizeof text);
  CHECK(contains(text, "reversed 1 shell of negative volume (12 faces)"));
  cm_mesh_free(m);
}

static void test_cavity(void) {
  cmMesh* a = cube(1);
  cmMesh* b = cube(0.4);
  for (int f = 0; f < 12; f++)
    flip(b, f);
  const double zero[3] = {0, 0, 0};
  cmMesh* m = merge(a, b, zero);
  flip(m, 3); /* something to repair */
  cmMeshRepairReport r;
  char err[1024];
  CHECK(cm_mesh_repair(m, -1, "hollow.obj", &r, err, sizeof err) == CM_OK);
  CHECK(r.flipped_face == 1 && r.flipped_shell == 0);
  CHECK_NEAR(r.volume, 1 - 0.064, 1e-14);
  cm_mesh_free(m);
  cm_mesh_free(a);
  cm_mesh_free(b);
}

/* two unit cubes side by side, each listing the shared side (the second in the other
 * orientation): the wall goes, leaving the box [-0.5, 1.5] x [-0.5, 0.5]^2 of volume 2, centroid
 * (0.5, 0, 0), inertia about it (1 + 1) 2 / 12 = 1/3 about x and (2^2 + 1) 2 / 12 = 5/6 about
 * y and z */
static void test_wall(void) {
  cmMesh* a = cube(1);
  const double t[3] = {1, 0, 0};
  cmMesh* m = merge(a, a, t);
  /* the second cube's faces use the first cube's +x vertices for its -x corners (its own 4
   * -x vertices are left unused), and its -x side is the first cube's +x faces, reversed */
  for (int i = 36; i < 72; i++) {
    int u = m->face[i] - 8;
    if (a->vert[3 * u] > 0) continue;
    for (int v = 0; v < 8; v++)
      if (a->vert[3 * v] > 0 && a->vert[3 * v + 1] == a->vert[3 * u + 1] &&
          a->vert[3 * v + 2] == a->vert[3 * u + 2])
        m->face[i] = v;
  }
  for (int f = 0, g = 0; f < 12; f++) {
    if (side(a, f) != 1) continue;
    while (side(a, g) != 0)
      g++;
    memcpy(m->face + 3 * (12 + g), a->face + 3 * f, 3 * sizeof(int));
    flip(m, 12 + g);
    g++;
  }
  cmMeshRepairReport r;
  char err[1024];
  cmStatus st = cm_mesh_repair(m, -1, "pair.obj", &r, err, sizeof err);
  if (st != CM_OK) fprintf(stderr, "  %s\n", err);
  CHECK(st == CM_OK);
  CHECK(r.duplicate_face == 4 && r.weld_group == 0 && r.unused_vert == 4);
  CHECK(m->nface == 20 && m->nvert == 12 && r.flipped_face == 0);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  CHECK_NEAR(mp.volume, 2, 1e-14);
  CHECK_NEAR(mp.com[0], 0.5, 1e-14);
  CHECK_NEAR(mp.inertia[0], 1.0 / 3, 1e-14);
  CHECK_NEAR(mp.inertia[4], 5.0 / 6, 1e-14);
  CHECK_NEAR(mp.inertia[8], 5.0 / 6, 1e-14);
  cm_mesh_free(m);
  cm_mesh_free(a);
}

/* one triangle of the cube removed: a hole of 3 edges, closed by a triangle on the same three
 * vertices, so the unit cube again */
static void test_triangle_hole(void) {
  cmMesh* c = cube(1);
  for (int drop = 0; drop < 12; drop++) {
    cmMesh* m = cm_mesh_new(8, 11);
    memcpy(m->vert, c->vert, sizeof(double) * 24);
    for (int f = 0, n = 0; f < 12; f++)
      if (f != drop) memcpy(m->face + 3 * n++, c->face + 3 * f, 3 * sizeof(int));
    if (drop == 5) flip(m, 0); /* and a flipped face: both repaired */
    cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
    CHECK(r.filled_hole == 1 && r.flipped_face == (drop == 5));
    char text[256];
    cm_mesh_repair_text(&r, text, sizeof text);
    CHECK(contains(text, "filled 1 hole of 3 edges with a triangle"));
    cm_mesh_free(m);
  }
  cm_mesh_free(c);
}

static void test_degenerate(void) {
  cmMesh* c = cube(1);
  cmMesh* m = cm_mesh_new(9, 13);
  memcpy(m->vert, c->vert, sizeof(double) * 24);
  memcpy(m->face, c->face, sizeof(int) * 36);
  /* vertex 8 at vertex 0's position plus nothing: face (0, 1, 8) collapses when welded */
  memcpy(m->vert + 24, c->vert, sizeof(double) * 3);
  m->face[36] = 0;
  m->face[37] = 1;
  m->face[38] = 8;
  cmMeshRepairReport r = repair_unit_cube(m, 1e-14);
  CHECK(r.degenerate_face == 1 && r.welded_vert == 2 && r.weld_group == 1);
  CHECK(r.unused_vert == 0);
  cm_mesh_free(m);
  cm_mesh_free(c);
}

static void test_not_repairable(void) {
  char err[1024];
  cmMeshRepairReport r;
  /* two cubes sharing a corner */
  cmMesh* c = cube(1);
  const double t[3] = {1, 1, 1};
  cmMesh* m = merge(c, c, t);
  /* B's corner (-0.5, -0.5, -0.5) + t is A's (0.5, 0.5, 0.5): B's faces use A's vertex */
  int va = -1, vb = -1;
  for (int v = 0; v < 8; v++) {
    if (c->vert[3 * v] > 0 && c->vert[3 * v + 1] > 0 && c->vert[3 * v + 2] > 0) va = v;
    if (c->vert[3 * v] < 0 && c->vert[3 * v + 1] < 0 && c->vert[3 * v + 2] < 0) vb = v + 8;
  }
  for (int i = 36; i < 72; i++)
    if (m->face[i] == vb) m->face[i] = va;
  flip(m, 0);
  CHECK(cm_mesh_repair(m, -1, "pair.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.flipped_face == 1 && r.unused_vert == 1);
  CHECK(contains(err, "pair.obj: non-manifold vertices: 1"));
  cm_mesh_free(m);

  /* two adjacent sides removed: a loop of 6 edges on two perpendicular squares */
  m = cm_mesh_new(8, 8);
  memcpy(m->vert, c->vert, sizeof(double) * 24);
  int s0 = side(c, 0), s1 = -1, n = 0;
  for (int f = 0; f < 12; f++) {
    int sf = side(c, f);
    /* a side adjacent to s0: not s0, not its opposite (the sides pair as axis, sign) */
    if (s1 < 0 && sf != s0 && sf / 2 != s0 / 2) s1 = sf;
  }
  for (int f = 0; f < 12; f++)
    if (side(c, f) != s0 && side(c, f) != s1)
      memcpy(m->face + 3 * n++, c->face + 3 * f, 3 * sizeof(int));
  CHECK(n == 8);
  CHECK(cm_mesh_repair(m, -1, "open.obj", &r, err, sizeof err) == CM_ERR_MESH);
  CHECK(r.changes == 0 && m->nface == 8);
  CHECK(r.nonplanar_hole == 1 && r.nonplanar_first_len == 6 &&
        fabs(r.nonplanar_first_dev - sqrt(2) / 3) < 1e-12);
  CHECK(contains(err, "open.obj: holes: 1 (boundary loops of 6 edges"));
  char text[512];
  cm_mesh_repair_text(&r, text, sizeof text);
  CHECK(contains(text, "nothing to repair; left 1 hole open: not planar (the first, of 6 edges"));
  cm_mesh_free(m);
  cm_mesh_free(c);
}

/* a side removed: a planar hole of 4 edges (d = 1) or 12 edges (d = 3, collinear vertices),
 * filled in its plane: the unit cube, volume 1, centre 0, inertia 1/6 */
static void test_planar_hole(void) {
  for (int d = 1; d <= 3; d += 2) {
    const double one[3] = {1, 1, 1};
    cmMesh* c = cm_mesh_box(one, d);
    int nf = c->nface, per = nf / 6, s0 = side(c, 0), n = 0;
    cmMesh* m = cm_mesh_new(c->nvert, nf - per);
    memcpy(m->vert, c->vert, sizeof(double) * 3 * (size_t)c->nvert);
    for (int f = 0; f < nf; f++)
      if (side(c, f) != s0) memcpy(m->face + 3 * n++, c->face + 3 * f, 3 * sizeof(int));
    CHECK(n == nf - per);
    cmMeshRepairReport r;
    char err[1024];
    cmStatus st = cm_mesh_repair(m, -1, "side.obj", &r, err, sizeof err);
    if (st != CM_OK) fprintf(stderr, "  %s\n", err);
    CHECK(st == CM_OK);
    CHECK(r.filled_planar_hole == 1 && r.filled_hole == 0);
    CHECK(r.filled_planar_max == 4 * d && r.filled_planar_face == 4 * d - 2);
    CHECK(m->nface == nf - per + 4 * d - 2);
    char text[256];
    cm_mesh_repair_text(&r, text, sizeof text);
    char want[128];
    snprintf(want, sizeof want, "filled 1 planar hole of 4 to %d edges with %d triangles", 4 * d,
             4 * d - 2);
    CHECK(contains(text, want));
    cmMassProperties mp;
    CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
    CHECK_NEAR(mp.volume, 1, 1e-14);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(mp.com[k], 0, 1e-14);
    for (int k = 0; k < 9; k++)
      CHECK_NEAR(mp.inertia[k], k % 4 == 0 ? 1.0 / 6 : 0, 1e-14);
    cm_mesh_free(m);
    cm_mesh_free(c);
  }
}

int main(void) {
  RUN(test_valid);
  RUN(test_duplicate_faces);
  RUN(test_unwelded);
  RUN(test_flipped);
  RUN(test_cavity);
  RUN(test_wall);
  RUN(test_triangle_hole);
  RUN(test_degenerate);
  RUN(test_planar_hole);
  RUN(test_not_repairable);
  return test_report();
}
