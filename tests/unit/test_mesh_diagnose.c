/* cm_mesh_diagnose: each defect of the issue 13 list on a unit cube built to have it, diagnosed
 * by name with the counts derived from the construction, and named first (with its fix) in the
 * message of cm_mesh_check.
 *
 * The cube is cm_mesh_box(1 m, 1 division): 8 vertices at (+-0.5, +-0.5, +-0.5), 12 faces, two
 * per side. Expected values:
 *   - every face listed twice (half of the copies reversed): 12 duplicate faces, first pair
 *     (0, 12); nothing else once they are set aside; a triangle and its reversed copy (which
 *     passes the edge checks) refused as a duplicate;
 *   - each side with its own 4 vertices: 24 vertices, 8 corners each holding 3 of them: 8
 *     coincident groups, 24 - 8 = 16 unwelded vertices, closed by welding exact duplicates
 *     (tolerance 0), no holes; one side moved out by d = 1e-7 m: the other five sides weld into
 *     an open box (a loop of 4 edges) and the side is a square (another loop of 4), and the
 *     smallest closing tolerance is d; two adjacent sides moved: still d (their moved vertices
 *     are d from the fixed corner and d sqrt(2) from each other);
 *   - one side's two triangles removed: 1 hole of 4 edges; one triangle: 1 hole of 3 edges;
 *   - one face reversed: 1 flipped face, that one;
 *   - a second cube moved by (1, 1, 1) sharing the corner (0.5, 0.5, 0.5): 1 non-manifold
 *     vertex with 2 fans, 2 shells;
 *   - a second cube moved by (3, 0, 0): 2 shells, valid;
 *   - a cube of side 0.4 inside: nested (counted twice) when outward, a cavity when reversed;
 *   - a second cube moved by (0.6, 0.6, 0.6): its faces cross the first cube's (the corner
 *     (0.1, 0.1, 0.1) is inside it), self-intersections > 0 with a face of each cube as the
 *     first pair; no self-intersection on a valid box or icosphere. */
#include <stdio.h>
#include <string.h>

#include "comply/mesh.h"
#include "test.h"
#include "test_meshes.h"

static cmMeshDiagnosis diagnose(const cmMesh* m) {
  cmMeshDiagnosis dg;
  CHECK(cm_mesh_diagnose(m, CM_DIAGNOSE_SELF_INTERSECTIONS, &dg) == CM_OK);
  return dg;
}

static void test_valid(void) {
  cmMesh* m = cube(1);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.duplicate_face == 0 && dg.unwelded_vert == 0 && dg.hole == 0 && dg.flipped_face == 0);
  CHECK(dg.nonmanifold_edge == 0 && dg.nonmanifold_vert == 0 && dg.nested_shell == 0);
  CHECK(dg.shell == 1 && dg.self_intersection == 0 && dg.weld_tol == -1);
  CHECK_REL(dg.diag, sqrt(3.0), 1e-15);
  char text[1024];
  CHECK(cm_mesh_diagnosis_text(m, &dg, text, sizeof text) == 0);
  CHECK(contains(text, "shells: 1\nself-intersections: 0\n"));
  /* without the flag the self-intersections are not checked */
  CHECK(cm_mesh_diagnose(m, 0, &dg) == CM_OK && dg.self_intersection == -1);
  cm_mesh_free(m);
  m = cm_mesh_icosphere(1, 3);
  dg = diagnose(m);
  CHECK(dg.self_intersection == 0 && dg.shell == 1 && dg.nonmanifold_vert == 0);
  cm_mesh_free(m);
}

static void test_duplicate_faces(void) {
  cmMesh* m = doubled_cube();
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.duplicate_face == 12 && dg.duplicate_first[0] == 0 && dg.duplicate_first[1] == 12);
  CHECK(dg.nonmanifold_edge == 0 && dg.hole == 0 && dg.flipped_face == 0 && dg.shell == 1);
  CHECK(dg.self_intersection == 0);
  char err[1024];
  CHECK(cm_mesh_check(m, "ur10.stl", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "ur10.stl: duplicate faces: 12 (every face is listed twice); first: faces "
                      "0 and 12"));
  CHECK(contains(err, "remove the duplicate faces (or repair: true, comply mesh-repair)"));
  CHECK(contains(err, "not edge-manifold (18 non-manifold edges)"));
  cm_mesh_free(m);

  /* one triangle and its reversed copy: closed, manifold, oriented, volume 0 up to rounding
   * (the fuzz corpus had one that passed with 1.1e-16 m^3): refused as a duplicate */
  m = cm_mesh_new(3, 2);
  const double v[9] = {-1, 0, 1, 0, -1, 0, 0, 0, 1};
  const int f[6] = {0, 1, 2, 1, 0, 2};
  memcpy(m->vert, v, sizeof v);
  memcpy(m->face, f, sizeof f);
  CHECK(cm_mesh_check(m, "pillow.ply", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "pillow.ply: duplicate faces: 1 (every face is listed twice); first: faces "
                      "0 and 1"));
  cm_mesh_free(m);
}

static void test_unwelded(void) {
  cmMesh* m = unwelded(0, 0);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.unwelded_vert == 16 && dg.coincident_group == 8 && dg.weld_tol == 0);
  CHECK(dg.hole == 0 && dg.duplicate_face == 0 && dg.flipped_face == 0 && dg.shell == 1);
  CHECK(dg.nonmanifold_vert == 0 && dg.self_intersection == 0);
  char err[1024];
  CHECK(cm_mesh_check(m, "cube.ply", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "cube.ply: unwelded vertices: 16 in 8 groups of coincident vertices"));
  CHECK(contains(err, "welding exactly coincident vertices closes the mesh"));
  CHECK(contains(err, "weld coincident vertices when exporting"));
  CHECK(contains(err, "not closed (24 boundary edges)"));
  cm_mesh_free(m);

  /* side +z moved out by 1e-7 m: two loops of 4, closed by a weld within 1e-7 m */
  const double d = 1e-7;
  m = unwelded(1 << 5, d);
  dg = diagnose(m);
  CHECK(dg.hole == 2 && dg.hole_len[0] == 4 && dg.hole_len[1] == 4 && dg.hole_edge == 8);
  CHECK_REL(dg.weld_tol, d, 1e-6);
  CHECK(dg.unwelded_vert == 16 && dg.coincident_group == 8 && dg.shell == 1);
  CHECK(cm_mesh_check(m, "cube.ply", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "cube.ply: unwelded vertices: 16"));
  CHECK(contains(err, "welding within 1e-07 m (5.77e-08 of the bounding-box diagonal)"));
  cm_mesh_free(m);

  /* sides +x and +z moved out by d: at their common corners the two moved vertices are d from
   * the corner of the other sides and d sqrt(2) from each other; welding within d suffices */
  m = unwelded(1 << 1 | 1 << 5, d);
  dg = diagnose(m);
  CHECK_REL(dg.weld_tol, d, 1e-6);
  CHECK(dg.unwelded_vert == 16 && dg.coincident_group == 8 && dg.shell == 1);
  cm_mesh_free(m);

  /* moved by 1e-3 m, beyond the largest tolerance tried (1e-4 of the diagonal): holes */
  m = unwelded(1 << 5, 1e-3);
  dg = diagnose(m);
  CHECK(dg.hole == 2 && dg.weld_tol == -1 && dg.unwelded_vert == 12);
  CHECK(cm_mesh_check(m, "cube.ply", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "cube.ply: holes: 2 (boundary loops of 4, 4 edges; 8 boundary edges)"));
  cm_mesh_free(m);
}

/* faces of `c` except those for which drop(f) */
static cmMesh* without(const cmMesh* c, int first, int count) {
  cmMesh* m = cm_mesh_new(c->nvert, c->nface - count);
  memcpy(m->vert, c->vert, sizeof(double) * 3 * (size_t)c->nvert);
  int n = 0;
  for (int f = 0; f < c->nface; f++)
    if (f < first || f >= first + count)
      memcpy(m->face + 3 * n++, c->face + 3 * f, 3 * sizeof(int));
  return m;
}

static void test_holes(void) {
  cmMesh* c = cube(1);
  /* the two faces of one side: find two consecutive faces on the same side */
  int f0 = 0;
  while (side(c, f0) != side(c, f0 + 1))
    f0++;
  cmMesh* m = without(c, f0, 2);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.hole == 1 && dg.hole_len[0] == 4 && dg.hole_edge == 4 && dg.weld_tol == -1);
  CHECK(dg.unwelded_vert == 0 && dg.flipped_face == 0 && dg.shell == 1);
  char err[1024];
  CHECK(cm_mesh_check(m, "open.obj", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "open.obj: holes: 1 (boundary loops of 4 edges; 4 boundary edges)"));
  CHECK(contains(err, "close the holes"));
  cm_mesh_free(m);
  m = without(c, 7, 1);
  dg = diagnose(m);
  CHECK(dg.hole == 1 && dg.hole_len[0] == 3 && dg.hole_edge == 3);
  cm_mesh_free(m);
  cm_mesh_free(c);
}

static void test_flipped(void) {
  cmMesh* m = cube(1);
  flip(m, 5);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.flipped_face == 1 && dg.flipped_first == 5 && dg.hole == 0 && dg.shell == 1);
  char err[1024];
  CHECK(cm_mesh_check(m, "cube.obj", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "cube.obj: flipped faces: 1; first: face 5 "));
  CHECK(contains(err, "orient the faces consistently"));
  cm_mesh_free(m);
}

static void test_shared_vertex(void) {
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
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.nonmanifold_vert == 1 && dg.nonmanifold_vert_first == va);
  CHECK(dg.nonmanifold_vert_fans == 2 && dg.shell == 2 && dg.nonmanifold_edge == 0);
  CHECK(dg.hole == 0 && dg.nested_shell == 0 && dg.self_intersection == 0);
  char err[1024], want[128];
  CHECK(cm_mesh_check(m, "pair.obj", NULL, err, sizeof err) == CM_ERR_MESH);
  snprintf(want, sizeof want,
           "pair.obj: non-manifold vertices: 1; first: vertex %d (0.5, 0.5, 0.5)", va);
  CHECK(contains(err, want));
  CHECK(contains(err, "where 2 fans of faces meet"));
  cm_mesh_free(m);
  cm_mesh_free(c);
}

static void test_shells(void) {
  cmMesh* c = cube(1);
  const double t[3] = {3, 0, 0};
  cmMesh* m = merge(c, c, t);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.shell == 2 && dg.nested_shell == 0 && dg.nonmanifold_vert == 0);
  CHECK(dg.self_intersection == 0);
  char text[1024];
  CHECK(cm_mesh_diagnosis_text(m, &dg, text, sizeof text) == 1);
  CHECK(contains(text, "shells: 2\n"));
  CHECK(cm_mesh_check(m, "two.obj", NULL, NULL, 0) == CM_OK);
  cm_mesh_free(m);
  cm_mesh_free(c);
}

static void test_nested(void) {
  cmMesh* c = cube(1);
  cmMesh* in = cube(0.4);
  const double zero[3] = {0, 0, 0};
  cmMesh* m = merge(c, in, zero);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.shell == 2 && dg.nested_shell == 1);
  CHECK(dg.nested_first[0] == 12 && dg.nested_first[1] == 0);
  CHECK(dg.self_intersection == 0);
  char err[1024];
  CHECK(cm_mesh_check(m, "nest.obj", NULL, err, sizeof err) == CM_ERR_MESH);
  CHECK(contains(err, "nest.obj: nested shells: 1; first: the shell of face 12 lies inside the "
                      "shell of face 0 (its volume is counted twice)"));
  cm_mesh_free(m);
  /* the inner cube reversed is a cavity: valid, volume 1 - 0.064 */
  for (int f = 0; f < 12; f++)
    flip(in, f);
  m = merge(c, in, zero);
  dg = diagnose(m);
  CHECK(dg.shell == 2 && dg.nested_shell == 0 && dg.flipped_face == 0);
  cmMeshReport r;
  CHECK(cm_mesh_check(m, "cavity.obj", &r, NULL, 0) == CM_OK);
  CHECK_REL(r.volume, 1 - 0.064, 1e-12);
  cm_mesh_free(m);
  cm_mesh_free(in);
  cm_mesh_free(c);
}

static void test_self_intersection(void) {
  cmMesh* c = cube(1);
  const double t[3] = {0.6, 0.6, 0.6};
  cmMesh* m = merge(c, c, t);
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.self_intersection > 0);
  CHECK(dg.self_first[0] < 12 && dg.self_first[1] >= 12);
  CHECK(dg.shell == 2 && dg.nested_shell == 0 && dg.nonmanifold_vert == 0);
  char text[1024], want[128];
  CHECK(cm_mesh_diagnosis_text(m, &dg, text, sizeof text) == 2);
  snprintf(want, sizeof want, "self-intersections: %d; first: faces %d and %d\n",
           dg.self_intersection, dg.self_first[0], dg.self_first[1]);
  CHECK(contains(text, want));
  cm_mesh_free(m);
  cm_mesh_free(c);
}

/* several defects in one mesh: each listed, the text truncated safely */
static void test_several(void) {
  cmMesh* c = cube(1);
  cmMesh* open = without(c, 7, 1);
  flip(open, 0);
  const double t[3] = {3, 0, 0};
  cmMesh* m = merge(open, c, t);
  /* the second cube's face 0 listed twice: replace its face 1 */
  memcpy(m->face + 3 * (11 + 1), m->face + 3 * 11, 3 * sizeof(int));
  cmMeshDiagnosis dg = diagnose(m);
  CHECK(dg.hole == 2 && dg.duplicate_face == 1 && dg.flipped_face == 1 && dg.shell == 2);
  char text[2048];
  CHECK(cm_mesh_diagnosis_text(m, &dg, text, sizeof text) == 4);
  CHECK(contains(text, "duplicate faces: 1; first: faces 11 and 12"));
  CHECK(contains(text, "holes: 2 (boundary loops of "));
  CHECK(contains(text, "flipped faces: 1; first: face 0 "));
  CHECK(contains(text, "shells: 2\n"));
  char small[16];
  cm_mesh_diagnosis_text(m, &dg, small, sizeof small);
  CHECK(strlen(small) == sizeof small - 1);
  cm_mesh_free(m);
  cm_mesh_free(open);
  cm_mesh_free(c);
}

int main(void) {
  RUN(test_valid);
  RUN(test_duplicate_faces);
  RUN(test_unwelded);
  RUN(test_holes);
  RUN(test_flipped);
  RUN(test_shared_vertex);
  RUN(test_shells);
  RUN(test_nested);
  RUN(test_self_intersection);
  RUN(test_several);
  return test_report();
}
