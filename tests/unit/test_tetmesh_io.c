/* cm_tetmesh_load on the files of tests/data/tet/ (tests/data/tet/make_tet_meshes.py) and the
 * malformed ones of tests/data/bad/tet/ (make_bad_tet.py).
 *
 * What the test knows without the library: the box files hold the box [-0.5, 0.5] x [-1, 1] x
 * [-1.5, 1.5] filled by gmsh with 78 tets on 34 nodes, every node of its faces on them, so the
 * tets' volumes sum to 1 x 2 x 3 = 6 whatever the mesh; the volume of each tet is computed here
 * from its nodes, (x1 - x0) . ((x2 - x0) x (x3 - x0)) / 6, and must be positive (the readers flip
 * the reversed tets of the derived variants: every other one). The derived variants encode the
 * nodes of box_msh22_ascii.msh in its order, so their coordinates are those of that file bit for
 * bit. The cells of other types in the files are known from how they were written: gmsh writes
 * the box's 8 corner points, 20 edge segments and 64 face triangles with the tets; the derived
 * files keep the 64 triangles. The tetgen ball fills the 80-triangle icosphere of radius 0.5
 * (Steiner points on its facets), so its volume is that polyhedron's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "test.h"
#include "test_alloc.h"

#define TET_DIR CM_SOURCE_DIR "/tests/data/tet/"
#define BAD_DIR CM_SOURCE_DIR "/tests/data/bad/tet/"

/* six times the signed volume of tet t, computed here */
static double vol6(const cmTetMesh* m, int t) {
  const int* v = m->tet + 4 * t;
  const double* p0 = m->node + 3 * v[0];
  double a[3], b[3], c[3];
  for (int k = 0; k < 3; k++) {
    a[k] = m->node[3 * v[1] + k] - p0[k];
    b[k] = m->node[3 * v[2] + k] - p0[k];
    c[k] = m->node[3 * v[3] + k] - p0[k];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* the sum of the tet volumes; *npos: how many are positive */
static double volume(const cmTetMesh* m, int* npos) {
  double v = 0;
  *npos = 0;
  for (int t = 0; t < m->ntet; t++) {
    double d = vol6(m, t);
    v += d / 6;
    *npos += d > 0;
  }
  return v;
}

static cmTetMesh* load(const char* name, double scale, char* err, size_t errsz) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s", TET_DIR, name);
  cmTetMesh* m = NULL;
  cmStatus st = cm_tetmesh_load(path, scale, &m, err, errsz);
  if (st != CM_OK) fprintf(stderr, "%s: %s\n", name, err);
  CHECK(st == CM_OK && m != NULL);
  return m;
}

static void test_box_variants(void) {
  static const struct {
    const char* name;
    const char* skipped; /* the report of the cells of other types */
  } files[] = {
      {"box_msh22_ascii.msh", "skipped 92 cells of other types: 8 point (type 15), 20 line (type "
                              "1), 64 triangle (type 2)"},
      {"box_msh22_bin.msh", "skipped 92 cells of other types: 8 point (type 15), 20 line (type 1), "
                            "64 triangle (type 2)"},
      {"box_msh41_ascii.msh", "skipped 92 cells of other types: 8 point (type 15), 20 line (type "
                              "1), 64 triangle (type 2)"},
      {"box_msh41_bin.msh", "skipped 92 cells of other types: 8 point (type 15), 20 line (type 1), "
                            "64 triangle (type 2)"},
      {"box_msh41_sparse.msh", "skipped 64 cells of other types: 64 triangle (type 2)"},
      {"box_gmsh_ascii.vtk", "skipped 92 cells of other types: 8 vertex (type 1), 20 line (type "
                             "3), 64 triangle (type 5)"},
      {"box_gmsh_bin.vtk", "skipped 92 cells of other types: 8 vertex (type 1), 20 line (type 3), "
                           "64 triangle (type 5)"},
      {"box_51_ascii.vtk", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_51_bin.vtk", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_ascii.vtu", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_base64.vtu", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_appended_raw.vtu", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_appended_base64.vtu", "skipped 64 cells of other types: 64 triangle (type 5)"},
      {"box_zlib.vtu", "skipped 64 cells of other types: 64 triangle (type 5)"},
  };
  char err[1024];
  cmTetMesh* ref = load("box_msh22_ascii.msh", 1.0, err, sizeof err);
  if (!ref) return;
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    cmTetMesh* m = load(files[i].name, 1.0, err, sizeof err);
    if (!m) continue;
    int npos;
    double v = volume(m, &npos);
    CHECK(m->nnode == 34 && m->ntet == 78);
    CHECK_NEAR(v, 6.0, 1e-13);
    CHECK(npos == m->ntet);
    if (!strstr(err, files[i].skipped) || !strstr(err, files[i].name))
      fprintf(stderr, "%s: report '%s'\n", files[i].name, err);
    CHECK(strstr(err, files[i].skipped) != NULL && strstr(err, files[i].name) != NULL);
    /* the same nodes in the same order (the sparse variant shuffles them): bit for bit in the
     * files derived from box_msh22_ascii.msh, to gmsh's 16 printed digits in its binary ones */
    if (!strstr(files[i].name, "sparse") && m->nnode == ref->nnode) {
      int derived = !strstr(files[i].name, "msh") && !strstr(files[i].name, "gmsh");
      double dmax = 0;
      for (int k = 0; k < 3 * m->nnode; k++)
        dmax = fmax(dmax, fabs(m->node[k] - ref->node[k]));
      if (derived)
        CHECK(memcmp(m->node, ref->node, 3 * (size_t)ref->nnode * sizeof(double)) == 0);
      else
        CHECK(dmax <= 1e-15);
    }
    char cerr[512];
    CHECK(cm_tetmesh_check(m, cerr, sizeof cerr) == CM_OK);
    cm_tetmesh_free(m);
  }
  cm_tetmesh_free(ref);

  /* the scale multiplies the coordinates: the volume by its cube */
  cmTetMesh* m = load("box_msh41_bin.msh", 2.0, err, sizeof err);
  if (m) {
    int npos;
    CHECK_NEAR(volume(m, &npos), 48.0, 1e-12);
    CHECK(npos == m->ntet);
    cm_tetmesh_free(m);
  }
}

static void test_balls(void) {
  char err[1024];
  const double ball = 4.0 / 3.0 * 3.14159265358979323846 * 0.125;
  /* gmsh: an inscribed polyhedron, slightly smaller than the ball; only tets and a report of
   * the points, lines and triangles of the sphere's geometry */
  cmTetMesh* m = load("ball_msh41_ascii.msh", 1.0, err, sizeof err);
  if (m) {
    int npos;
    double v = volume(m, &npos);
    CHECK(npos == m->ntet && m->ntet > 100);
    CHECK(v < ball && v > 0.9 * ball);
    CHECK(strstr(err, "triangle (type 2)") != NULL);
    CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
    cm_tetmesh_free(m);
  }
  /* tetgen: the icosphere of 80 triangles filled; its volume is the polyhedron's */
  m = load("ball_tetgen.vtk", 1.0, err, sizeof err);
  if (m) {
    int npos;
    double v = volume(m, &npos);
    CHECK(npos == m->ntet && err[0] == 0);
    cmMesh* ico = cm_mesh_icosphere(0.5, 1);
    cmMassProperties mp;
    CHECK(ico && cm_mesh_mass_properties(ico, &mp) == CM_OK);
    if (ico) CHECK_NEAR(v, mp.volume, 1e-12);
    cm_mesh_free(ico);
    CHECK(cm_tetmesh_check(m, err, sizeof err) == CM_OK);
    cm_tetmesh_free(m);
  }
}

static void test_bad_files(void) {
  /* the status, and where: "NAME:LINE:" (a text position), "byte offset N" or another text */
  static const struct {
    const char* name;
    cmStatus st;
    const char* where;
  } bad[] = {
      {"msh_no_format.msh", CM_ERR_PARSE, ":1:"},
      {"msh_version_3.msh", CM_ERR_PARSE, ":2:"},
      {"msh_data_size_4.msh", CM_ERR_PARSE, ":2:"},
      {"msh_hex_number.msh", CM_ERR_PARSE, ":11:"},    /* node 6 on line 5 + 6 */
      {"msh22_node_nan.msh", CM_ERR_PARSE, ":12:"},    /* node 7 */
      {"msh22_tet_bad_tag.msh", CM_ERR_PARSE, ":20:"}, /* element 4: lines 17..21 hold 1..5 */
      {"msh22_truncated.msh", CM_ERR_PARSE, ":"},
      {"msh22_count_huge.msh", CM_ERR_LIMIT, ":5:"},
      {"msh22_count_vs_bytes.msh", CM_ERR_PARSE, ":"},
      {"msh22_unknown_type.msh", CM_ERR_PARSE, ":17:"},
      {"msh22_missing_end.msh", CM_ERR_PARSE, ":14:"},
      {"msh_no_tets.msh", CM_ERR_PARSE, "no tetrahedra"},
      {"msh22_bin_big_endian.msh", CM_ERR_PARSE, "byte offset 20"}, /* after "...\n2.2 1 8\n" */
      {"msh22_bin_byte_order_2.msh", CM_ERR_PARSE, "byte offset 20"},
      {"msh22_bin_node_inf.msh", CM_ERR_PARSE, "byte offset 137"}, /* 53 + 3 x 28 */
      {"msh41_bin_truncated.msh", CM_ERR_PARSE, "byte offset"},
      {"msh41_duplicate_tag.msh", CM_ERR_PARSE, ":4:"},
      {"msh41_block_too_big.msh", CM_ERR_PARSE, ":"},
      {"vtu_polydata.vtu", CM_ERR_PARSE, ":2:"},
      {"vtu_tet_3_points.vtu", CM_ERR_PARSE, ":"},
      {"vtu_index_out_of_range.vtu", CM_ERR_PARSE, ":12:"},
      {"vtu_bad_type.vtu", CM_ERR_PARSE, ":18:"},
      {"vtu_points_nan.vtu", CM_ERR_PARSE, ":7:"},
      {"vtu_missing_types.vtu", CM_ERR_PARSE, ":4:"},
      {"vtu_zlib_corrupt.vtu", CM_ERR_PARSE, "byte offset"},
      {"vtk_polydata.vtk", CM_ERR_PARSE, ":4:"},
      {"vtk_cell_types_count.vtk", CM_ERR_PARSE, ":20:"},
      {"vtk_types_before_cells.vtk", CM_ERR_PARSE, ":14:"},
      {"vtk_points_inf.vtk", CM_ERR_PARSE, ":13:"},
      {"vtk_51_offsets_decreasing.vtk", CM_ERR_PARSE, ":16:"},
      {"vtk_bin_index_out_of_range.vtk", CM_ERR_PARSE, "byte offset 332"}, /* value 21 of CELLS */
      {"vtk_cells_count_huge.vtk", CM_ERR_PARSE, ":14:"},                  /* the CELLS line */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char path[4096], err[1024] = "", want[512];
    snprintf(path, sizeof path, "%s%s", BAD_DIR, bad[i].name);
    snprintf(want, sizeof want, "%s%s%s", bad[i].name, bad[i].where[0] == ':' ? "" : ": ",
             bad[i].where);
    cmTetMesh* m = NULL;
    cmStatus st = cm_tetmesh_load(path, 1.0, &m, err, sizeof err);
    int ok = st == bad[i].st && m == NULL && strstr(err, want) != NULL;
    if (!ok)
      fprintf(stderr, "%s: status %d, '%s' (expected %d and '%s')\n", bad[i].name, st, err,
              bad[i].st, want);
    CHECK(ok);
  }

  /* arguments and files */
  char err[1024];
  cmTetMesh* m = NULL;
  CHECK(cm_tetmesh_load(TET_DIR "box_ascii.vtu", 0, &m, err, sizeof err) == CM_ERR_ARG);
  CHECK(cm_tetmesh_load(TET_DIR "box.obj", 1, &m, err, sizeof err) == CM_ERR_ARG &&
        strstr(err, ".msh, .vtu or .vtk"));
  CHECK(cm_tetmesh_load(TET_DIR "missing.msh", 1, &m, err, sizeof err) == CM_ERR_IO &&
        strstr(err, "missing.msh"));
  CHECK(cm_tetmesh_load(CM_SOURCE_DIR "/tests/data/tet.msh", 1, &m, err, sizeof err) == CM_ERR_IO);
  CHECK(m == NULL);
}

static void test_no_memory(void) {
  /* every allocation of a load fails in turn: CM_ERR_NOMEM naming the file, no mesh, no leak
   * (the sanitizer build checks leaks) */
  static const char* const names[] = {"box_msh22_bin.msh", "box_msh41_sparse.msh",
                                      "box_zlib.vtu",      "box_appended_raw.vtu",
                                      "box_51_bin.vtk",    "box_gmsh_ascii.vtk"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s", TET_DIR, names[i]);
    int n = 0, bad = 0;
    for (long k = 1;; k++) {
      char err[1024] = "";
      cmTetMesh* m = NULL;
      t_fail_start(k);
      cmStatus st = cm_tetmesh_load(path, 1.0, &m, err, sizeof err);
      if (t_fail_stop() < k) {
        CHECK(st == CM_OK && m != NULL);
        cm_tetmesh_free(m);
        break;
      }
      n++;
      if (st == CM_OK) { /* a shrinking realloc it can do without */
        cm_tetmesh_free(m);
        continue;
      }
      if (!(st == CM_ERR_NOMEM && m == NULL && strstr(err, names[i]) && strstr(err, "memory"))) {
        fprintf(stderr, "%s: allocation %ld failed: status %d, '%s'\n", names[i], k, st, err);
        bad++;
      }
    }
    CHECK(n >= 3 && bad == 0);
  }
}

int main(void) {
  RUN(test_box_variants);
  RUN(test_balls);
  RUN(test_bad_files);
  RUN(test_no_memory);
  return test_report();
}
