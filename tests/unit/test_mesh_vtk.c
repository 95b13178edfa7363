/* VTK mesh readers (.vtp XML PolyData, legacy .vtk): the files of tests/data/meshes written by
 * make_vtk_meshes.py (a 1 x 2 x 3 box from (1, 2, 3) in every format variant, and an icosphere
 * built as cm_mesh_icosphere builds it) against the box's closed-form volume, centre and inertia
 * and the library icosphere's mass properties; then malformed inputs, each refused with the file,
 * the line or byte offset, and the cause. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comply/mesh.h"
#include "mesh_io/mesh_io.h"
#include "test.h"

#define DATA(f) CM_SRC("tests/data/meshes/" f)

static int contains(const char* s, const char* sub) {
  if (!strstr(s, sub)) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", s, sub);
    return 0;
  }
  return 1;
}

/* the 1 x 2 x 3 box from (1, 2, 3): V = 6, centre (1.5, 3, 4.5), I = V (b^2 + h^2) / 12 ... */
static void check_box(const char* file, int nface) {
  cmMesh* m = NULL;
  char err[512] = "";
  cmStatus st = cm_mesh_load(file, 1.0, &m, err, sizeof err);
  CHECK(st == CM_OK);
  if (!m) {
    fprintf(stderr, "  %s\n", err);
    return;
  }
  CHECK(m->nvert == 8 && m->nface == nface);
  CHECK(cm_mesh_check(m, file, NULL, err, sizeof err) == CM_OK);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  const double a = 1, b = 2, h = 3, V = 6;
  CHECK_REL(mp.volume, V, 1e-13);
  CHECK_NEAR(mp.com[0], 1.5, 1e-13);
  CHECK_NEAR(mp.com[1], 3.0, 1e-13);
  CHECK_NEAR(mp.com[2], 4.5, 1e-13);
  CHECK_REL(mp.inertia[0], V * (b * b + h * h) / 12, 1e-12);
  CHECK_REL(mp.inertia[4], V * (a * a + h * h) / 12, 1e-12);
  CHECK_REL(mp.inertia[8], V * (a * a + b * b) / 12, 1e-12);
  CHECK(fabs(mp.inertia[1]) + fabs(mp.inertia[2]) + fabs(mp.inertia[5]) < 1e-12);
  cm_mesh_free(m);
}

/* every variant: quads fan-triangulated into 12 triangles */
static void test_vtp_variants(void) {
  static const char* const files[] = {
      "box_ascii.vtp",           "box_binary.vtp", "box_binary64.vtp",      "box_appended_raw.vtp",
      "box_appended_b64_be.vtp", "box_zlib.vtp",   "box_zlib_appended.vtp", "box_strips.vtp"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/meshes/%s", CM_SOURCE_DIR, files[i]);
    printf("     %s\n", files[i]);
    check_box(path, 12);
  }
}

static void test_vtk_variants(void) {
  static const char* const files[] = {"box_ascii.vtk", "box_binary.vtk", "box51_ascii.vtk",
                                      "box51_binary.vtk"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/meshes/%s", CM_SOURCE_DIR, files[i]);
    printf("     %s\n", files[i]);
    check_box(path, 12);
  }
}

/* the icosphere (refine 2: 162 vertices, 320 faces) as ascii and zlib-compressed .vtp: the same
 * solid as cm_mesh_icosphere(1, 2), written with 17 digits, so the same mass properties */
static void test_vtp_sphere(void) {
  cmMesh* ref = cm_mesh_icosphere(1.0, 2);
  CHECK(ref != NULL);
  if (!ref) return;
  cmMassProperties mr;
  cm_mesh_mass_properties(ref, &mr);
  const char* files[2] = {DATA("sphere_ascii.vtp"), DATA("sphere_zlib.vtp")};
  for (int i = 0; i < 2; i++) {
    cmMesh* m = NULL;
    char err[512] = "";
    CHECK(cm_mesh_load(files[i], 2.0, &m, err, sizeof err) == CM_OK);
    if (!m) {
      fprintf(stderr, "  %s\n", err);
      continue;
    }
    CHECK(m->nvert == 162 && m->nface == 320);
    CHECK(cm_mesh_check(m, files[i], NULL, err, sizeof err) == CM_OK);
    cmMassProperties mp;
    cm_mesh_mass_properties(m, &mp);
    /* scale 2: volume x 8, inertia x 32 */
    CHECK_REL(mp.volume, 8 * mr.volume, 1e-13);
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(mp.com[k], 0, 1e-14);
    for (int k = 0; k < 9; k++)
      CHECK_NEAR(mp.inertia[k], 32 * mr.inertia[k], 1e-12);
    cm_mesh_free(m);
  }
  cm_mesh_free(ref);
}

/* OpenSim-style: each side of the box with its own 4 points (24, for per-face normals): the
 * check fails naming the unwelded vertices first (8 groups of 3, welding exact duplicates closes
 * it), the repair welds 24 into 8 at tolerance 0 and the box's mass properties follow */
static void test_vtp_unwelded_repaired(void) {
  cmMesh* m = NULL;
  char err[1024] = "";
  CHECK(cm_mesh_load(DATA("box_unwelded.vtp"), 1.0, &m, err, sizeof err) == CM_OK);
  if (!m) return;
  CHECK(m->nvert == 24 && m->nface == 12);
  CHECK(cm_mesh_check(m, "box_unwelded.vtp", NULL, err, sizeof err) == CM_ERR_MESH);
  /* 8 groups of 3: 16 vertices at the position of another */
  CHECK(contains(err, "box_unwelded.vtp: unwelded vertices: 16 in 8 groups"));
  CHECK(contains(err, "welding exactly coincident vertices closes the mesh"));
  cmMeshRepairReport r;
  CHECK(cm_mesh_repair(m, -1, "box_unwelded.vtp", &r, err, sizeof err) == CM_OK);
  CHECK(r.welded_vert == 24 && r.weld_group == 8 && r.weld_tol == 0 && m->nvert == 8);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  CHECK_REL(mp.volume, 6, 1e-13);
  CHECK_NEAR(mp.com[0], 1.5, 1e-13);
  CHECK_NEAR(mp.com[1], 3.0, 1e-13);
  CHECK_NEAR(mp.com[2], 4.5, 1e-13);
  CHECK_REL(mp.inertia[0], 6 * (4 + 9) / 12.0, 1e-12);
  CHECK_REL(mp.inertia[4], 6 * (1 + 9) / 12.0, 1e-12);
  CHECK_REL(mp.inertia[8], 6 * (1 + 4) / 12.0, 1e-12);
  cm_mesh_free(m);
}

typedef cmStatus (*Reader)(const char*, char*, size_t, double, cmMesh**, char*, size_t);

/* read text (len bytes) under `name`; the status must be `want` and the message hold each of
 * the NULL-terminated fragments */
static void refused(Reader rd, const char* name, const char* text, size_t len, cmStatus want,
                    const char* const* frag) {
  char* buf = malloc(len + 1);
  memcpy(buf, text, len);
  buf[len] = 0;
  cmMesh* m = NULL;
  char err[1024] = "";
  cmStatus st = rd(name, buf, len, 1.0, &m, err, sizeof err);
  CHECK(st == want);
  if (st != want) fprintf(stderr, "  status %d, message \"%s\"\n", (int)st, err);
  CHECK(contains(err, name));
  for (int i = 0; frag[i]; i++)
    CHECK(contains(err, frag[i]));
  cm_mesh_free(m);
  free(buf);
}

#define REFUSED(rd, name, text, want, ...)                                                         \
  do {                                                                                             \
    const char* const f_[] = {__VA_ARGS__, NULL};                                                  \
    refused(rd, name, text, strlen(text), want, f_);                                               \
  } while (0)

/* a valid ascii .vtp of one tetrahedron, to be broken in one place */
#define TET_HEAD                                                                                   \
  "<?xml version=\"1.0\"?>\n"                                                                      \
  "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"                      \
  "<PolyData>\n"                                                                                   \
  "<Piece NumberOfPoints=\"4\" NumberOfPolys=\"4\">\n"
#define TET_POINTS                                                                                 \
  "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n"               \
  "0 0 0 1 0 0 0 1 0 0 0 1\n"                                                                      \
  "</DataArray></Points>\n"
#define TET_TAIL "</Piece>\n</PolyData>\n</VTKFile>\n"
#define TET_POLYS(conn, offs)                                                                      \
  "<Polys>\n"                                                                                      \
  "<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n" conn "\n"                  \
  "</DataArray>\n"                                                                                 \
  "<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n" offs "\n"                       \
  "</DataArray>\n"                                                                                 \
  "</Polys>\n"
#define TET_CONN "0 2 1\n0 1 3\n0 3 2\n1 2 3"
#define TET_OFFS "3 6 9 12"

static void test_vtp_malformed(void) {
  /* the intact tetrahedron reads (volume 1/6) */
  {
    static const char ok[] = TET_HEAD TET_POINTS TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL;
    char buf[sizeof ok];
    memcpy(buf, ok, sizeof ok);
    cmMesh* m = NULL;
    char err[512] = "";
    CHECK(cm_mesh_read_vtp("tet.vtp", buf, sizeof ok - 1, 1.0, &m, err, sizeof err) == CM_OK);
    if (m) {
      cmMassProperties mp;
      cm_mesh_mass_properties(m, &mp);
      CHECK_REL(mp.volume, 1.0 / 6, 1e-14);
    } else {
      fprintf(stderr, "  %s\n", err);
    }
    cm_mesh_free(m);
  }
  Reader rd = cm_mesh_read_vtp;
  /* index out of range: line 12 holds "1 2 4" (lines: 1 xml, 2 VTKFile, 3 PolyData, 4 Piece,
   * 5-7 Points, 8 Polys, 9 DataArray, 10-12 connectivity) */
  REFUSED(rd, "idx.vtp",
          TET_HEAD TET_POINTS TET_POLYS("0 2 1\n0 1 3\n0 3 2\n1 2 4", TET_OFFS) TET_TAIL,
          CM_ERR_PARSE, "idx.vtp:13:", "refers to point 4, outside 0..3");
  REFUSED(rd, "pts.vtp",
          TET_HEAD
          "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n"
          "0 0 0 1 0 0 0 1 0 0 0\n"
          "</DataArray></Points>\n" TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL,
          CM_ERR_PARSE, "pts.vtp:5:", "Points DataArray has 11 values, expected 12");
  REFUSED(rd, "num.vtp",
          TET_HEAD
          "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n"
          "0 0 0 1 0 0\n0 1 0 0 0 1e999\n"
          "</DataArray></Points>\n" TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL,
          CM_ERR_PARSE, "num.vtp:7:", "value 11 '1e999' is not a finite decimal number");
  REFUSED(rd, "offs.vtp", TET_HEAD TET_POINTS TET_POLYS(TET_CONN, "3 6 5 12") TET_TAIL,
          CM_ERR_PARSE, "offs.vtp:", "polygon 2 ends at 5");
  REFUSED(rd, "two.vtp", TET_HEAD TET_POINTS TET_POLYS(TET_CONN, "3 6 9 11") TET_TAIL, CM_ERR_PARSE,
          "two.vtp:", "polygon 3 has 2 points, needs at least 3");
  REFUSED(
      rd, "tag.vtp", TET_HEAD TET_POINTS TET_POLYS(TET_CONN, TET_OFFS) "</PolyData>\n</VTKFile>\n",
      CM_ERR_PARSE, "tag.vtp:19:", "end tag </PolyData> does not match the open element <Piece>");
  REFUSED(rd, "cut.vtp", TET_HEAD TET_POINTS, CM_ERR_PARSE,
          "cut.vtp:", "end of file inside <Piece>");
  REFUSED(rd, "ug.vtp", "<VTKFile type=\"UnstructuredGrid\">\n</VTKFile>\n", CM_ERR_PARSE,
          "ug.vtp:1:", "type=\"UnstructuredGrid\" is not supported");
  REFUSED(rd, "root.vtp", "<?xml version=\"1.0\"?>\n<html></html>\n", CM_ERR_PARSE,
          "root.vtp:2:", "not a VTK XML file");
  REFUSED(rd, "lz4.vtp",
          "<VTKFile type=\"PolyData\" compressor=\"vtkLZ4DataCompressor\">\n</VTKFile>\n",
          CM_ERR_PARSE, "lz4.vtp:1:", "vtkLZ4DataCompressor");
  REFUSED(rd, "big.vtp",
          "<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"99999999999\">",
          CM_ERR_LIMIT, "big.vtp:1:", "NumberOfPoints");
  /* binary: a header announcing 48 bytes (4 points, expected 48 for 4 x 3 Float32) then only 8 */
  {
    /* the byte offsets: of the base64 text, of the bad character */
    static const char head[] = TET_HEAD
        "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"binary\">\n";
    char w1[64], w2[64];
    snprintf(w1, sizeof w1, "short.vtp: byte offset %zu", sizeof head - 1);
    snprintf(w2, sizeof w2, "b64.vtp: byte offset %zu", sizeof head - 1 + 4);
    REFUSED(rd, "short.vtp",
            TET_HEAD
            "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"binary\">\n"
            "MAAAAAAAAAAAAAAA\n"
            "</DataArray></Points>\n" TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL,
            CM_ERR_PARSE, w1, "Points", "the header says 48 bytes but at most");
    REFUSED(rd, "b64.vtp",
            TET_HEAD
            "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"binary\">\n"
            "MAAA*AAAAAAAAAAA\n"
            "</DataArray></Points>\n" TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL,
            CM_ERR_PARSE, w2, "not base64");
  }
  /* appended offset past the end of the data */
  REFUSED(rd, "app.vtp",
          TET_HEAD
          "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"appended\" "
          "offset=\"500\"/></Points>\n" TET_POLYS(
              TET_CONN, TET_OFFS) "</Piece>\n</PolyData>\n<AppendedData "
                                  "encoding=\"raw\">\n_abc\n</AppendedData>\n"
                                  "</VTKFile>\n",
          CM_ERR_PARSE, "app.vtp:", "offset=", "past the end");
  REFUSED(rd, "noapp.vtp",
          TET_HEAD
          "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"appended\" "
          "offset=\"0\"/></Points>\n" TET_POLYS(TET_CONN, TET_OFFS) TET_TAIL,
          CM_ERR_PARSE, "noapp.vtp:", "no AppendedData");
}

/* zlib: a corrupt block and a header that claims more than the blocks can inflate to */
static void test_vtp_zlib_malformed(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s", DATA("box_zlib_appended.vtp"));
  char* buf;
  size_t len;
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  fseek(f, 0, SEEK_END);
  len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc(len + 1);
  CHECK(fread(buf, 1, len, f) == len);
  fclose(f);
  buf[len] = 0;
  const char* us = strstr(buf, "encoding=\"raw\">");
  CHECK(us != NULL);
  size_t app = (size_t)(strchr(us, '_') - buf) + 1; /* the first array (Points) starts here */

  /* a byte of the first zlib stream (after the 4 + 1 UInt64 header words of Points' 3 blocks of
   * 64, 64, 64 bytes: 192 = 3 x 64, so 3 + 3 words) changed */
  char* b2 = malloc(len + 1);
  memcpy(b2, buf, len + 1);
  size_t z = app + 6 * 8 + 2;
  b2[z] ^= 0x55;
  cmMesh* m = NULL;
  char err[1024] = "";
  cmStatus st = cm_mesh_read_vtp("corrupt.vtp", b2, len, 1.0, &m, err, sizeof err);
  CHECK(st == CM_ERR_PARSE);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", app + 6 * 8);
  CHECK(contains(err, "corrupt.vtp: ") && contains(err, want) &&
        contains(err, "zlib block 1 of 3"));
  cm_mesh_free(m);

  /* the header's block size raised to 2^30: more than 1032 x the compressed bytes */
  memcpy(b2, buf, len + 1);
  b2[app + 8 + 3] = 0x40;
  m = NULL;
  st = cm_mesh_read_vtp("bomb.vtp", b2, len, 1.0, &m, err, sizeof err);
  CHECK(st == CM_ERR_PARSE);
  CHECK(contains(err, "bomb.vtp: byte offset") && contains(err, "Points"));
  cm_mesh_free(m);
  free(b2);
  free(buf);
}

#define VTK_HEAD "# vtk DataFile Version 4.2\ntitle\nASCII\nDATASET POLYDATA\n"
#define VTK_POINTS "POINTS 4 float\n0 0 0 1 0 0\n0 1 0 0 0 1\n"

static void test_vtk_malformed(void) {
  Reader rd = cm_mesh_read_vtk;
  REFUSED(rd, "idx.vtk", VTK_HEAD VTK_POINTS "POLYGONS 4 16\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 7\n",
          CM_ERR_PARSE, "idx.vtk:12:", "refers to point 7, outside 0..3");
  REFUSED(rd, "size.vtk", VTK_HEAD VTK_POINTS "POLYGONS 4 15\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2\n",
          CM_ERR_PARSE, "size.vtk:12:", "cell 3 has 3 points, more than the 2 values left");
  REFUSED(rd, "pts.vtk", VTK_HEAD "POINTS 4 float\n0 0 0 1 0 0\n0 1 0 0 0 x\n", CM_ERR_PARSE,
          "pts.vtk:7:", "POINTS: value 11 'x' is not a finite decimal number");
  REFUSED(rd, "many.vtk", VTK_HEAD "POINTS 1000000 float\n0 0 0\n", CM_ERR_PARSE,
          "many.vtk:5:", "3000000 values announced, but only 6 bytes follow");
  REFUSED(rd, "ug.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n",
          CM_ERR_PARSE, "ug.vtk:4:", "DATASET UNSTRUCTURED_GRID is not supported");
  REFUSED(rd, "magic.vtk", "solid x\n", CM_ERR_PARSE, "magic.vtk:1:", "not a legacy VTK file");
  REFUSED(rd, "order.vtk", VTK_HEAD "POLYGONS 1 4\n3 0 1 2\n", CM_ERR_PARSE,
          "order.vtk:5:", "POLYGONS before POINTS");
  REFUSED(rd, "kw.vtk", VTK_HEAD VTK_POINTS "SPHERES 1\n", CM_ERR_PARSE,
          "kw.vtk:8:", "unknown keyword 'SPHERES'");
  REFUSED(rd, "v51.vtk",
          VTK_HEAD VTK_POINTS "POLYGONS 5 12\nOFFSETS vtktypeint64\n0 3 6 9 13\n"
                              "CONNECTIVITY vtktypeint64\n0 2 1 0 1 3 0 3 2 1 2 3\n",
          CM_ERR_PARSE, "v51.vtk:10:", "polygon 3 ends at 13");
  /* binary: 4 points of float announced, 40 of the 48 bytes there */
  {
    char text[256];
    int n = snprintf(text, sizeof text,
                     "# vtk DataFile Version 4.2\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4 float\n");
    memset(text + n, 0, 40);
    static const char* const f[] = {"bin.vtk:5:", "12 values announced, but only 40 bytes follow",
                                    NULL};
    refused(rd, "bin.vtk", text, (size_t)n + 40, CM_ERR_PARSE, f);
  }
  /* binary: an index out of range names its byte offset */
  {
    char text[512];
    int n = snprintf(text, sizeof text,
                     "# vtk DataFile Version 4.2\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4 float\n");
    memset(text + n, 0, 48);
    n += 48;
    n += snprintf(text + n, sizeof text - (size_t)n, "\nPOLYGONS 1 4\n");
    static const unsigned char cell[16] = {0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9};
    memcpy(text + n, cell, 16);
    char want[64];
    snprintf(want, sizeof want, "byte offset %d", n + 12);
    const char* f[] = {want, "refers to point 9, outside 0..3", NULL};
    refused(rd, "bidx.vtk", text, (size_t)n + 16, CM_ERR_PARSE, f);
  }
}

int main(void) {
  RUN(test_vtp_variants);
  RUN(test_vtk_variants);
  RUN(test_vtp_sphere);
  RUN(test_vtp_unwelded_repaired);
  RUN(test_vtp_malformed);
  RUN(test_vtp_zlib_malformed);
  RUN(test_vtk_malformed);
  return test_report();
}
