/* Mesh loaders: files of known solids (tests/data/meshes, written by make_meshes.py) against
 * closed-form volume, centre and inertia, and every error path with its status and the line or
 * byte offset in the message. */
#include <stdio.h>
#include <string.h>

#include "comply/mesh.h"
#include "core/cm_math.h"
#include "test.h"

#define DATA(f) CM_SRC("tests/data/meshes/" f)

static int contains(const char* s, const char* sub) {
  if (!strstr(s, sub)) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", s, sub);
    return 0;
  }
  return 1;
}

/* load, check and compare with a box of edge lengths s centred at c (times scale) */
static void check_box_file(const char* path, double scale, const double s[3], const double c[3],
                           int nvert, int nface) {
  cmMesh* m = NULL;
  char err[512] = "";
  CHECK(cm_mesh_load(path, scale, &m, err, sizeof err) == CM_OK);
  if (!m) {
    fprintf(stderr, "  %s\n", err);
    return;
  }
  CHECK(m->nvert == nvert && m->nface == nface);
  CHECK(cm_mesh_check(m, path, NULL, err, sizeof err) == CM_OK);
  cmMassProperties mp;
  CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
  double a = s[0] * scale, b = s[1] * scale, h = s[2] * scale, V = a * b * h;
  CHECK_REL(mp.volume, V, 1e-13);
  for (int k = 0; k < 3; k++)
    CHECK_NEAR(mp.com[k], c[k] * scale, 1e-13 * scale);
  CHECK_REL(mp.inertia[0], V * (b * b + h * h) / 12, 1e-12);
  CHECK_REL(mp.inertia[4], V * (a * a + h * h) / 12, 1e-12);
  CHECK_REL(mp.inertia[8], V * (a * a + b * b) / 12, 1e-12);
  CHECK(fabs(mp.inertia[1]) + fabs(mp.inertia[2]) + fabs(mp.inertia[5]) < 1e-12 * mp.inertia[8]);
  cm_mesh_free(m);
}

/* OBJ: 1 x 2 x 3 box at (1, 2, 3) written with quads, every corner syntax, relative indices,
 * CRLF and LF lines, ignored statements; quads fan-triangulated: 8 vertices, 12 triangles */
static void test_obj(void) {
  const double s[3] = {1, 2, 3}, c[3] = {1.5, 3, 4.5};
  check_box_file(DATA("cube_mixed.obj"), 1.0, s, c, 8, 12);
  check_box_file(DATA("cube_mixed.obj"), 0.01, s, c, 8, 12);
}

/* STL binary: a 2 x 3 x 4 box from (-0.5, -2.5, 0); 36 corners merged into 8 vertices */
static void test_stl_binary(void) {
  const double s[3] = {2, 3, 4}, c[3] = {0.5, -1, 2};
  check_box_file(DATA("box_binary.stl"), 1.0, s, c, 8, 12);
}

/* STL ASCII: the unit tetrahedron, V = 1/6, com = 1/4, I_xx = 1/80, I_xy = 1/480 (see
 * test_mesh_mass.c for the derivation); scale 2 multiplies V by 8 and I by 2^5 */
static void test_stl_ascii(void) {
  cmMesh* m = NULL;
  char err[256];
  CHECK(cm_mesh_load(DATA("tetra_ascii.stl"), 2.0, &m, err, sizeof err) == CM_OK);
  if (!m) return;
  CHECK(m->nvert == 4 && m->nface == 4);
  CHECK(cm_mesh_check(m, "tetra", NULL, err, sizeof err) == CM_OK);
  cmMassProperties mp;
  cm_mesh_mass_properties(m, &mp);
  CHECK_REL(mp.volume, 8.0 / 6, 1e-14);
  for (int k = 0; k < 3; k++)
    CHECK_REL(mp.com[k], 0.5, 1e-14);
  CHECK_REL(mp.inertia[0], 32.0 / 80, 1e-13);
  CHECK_REL(mp.inertia[1], 32.0 / 480, 1e-13);
  cm_mesh_free(m);
}

/* PLY ASCII: octahedron |x|+|y|+|z| <= 1 with extra vertex properties, an extra element with a
 * list, and a per-face property: V = 4/3, I = V/5 (int x^2 = 8 int_simplex x^2 = 8/60), so
 * scaled by 3: V = 36, I_xx = V 9/5 */
static void test_ply_ascii(void) {
  cmMesh* m = NULL;
  char err[256];
  CHECK(cm_mesh_load(DATA("octa_ascii.ply"), 3.0, &m, err, sizeof err) == CM_OK);
  if (!m) {
    fprintf(stderr, "  %s\n", err);
    return;
  }
  CHECK(m->nvert == 6 && m->nface == 8);
  CHECK(cm_mesh_check(m, "octa", NULL, err, sizeof err) == CM_OK);
  cmMassProperties mp;
  cm_mesh_mass_properties(m, &mp);
  CHECK_REL(mp.volume, 36.0, 1e-14);
  for (int k = 0; k < 3; k++)
    CHECK(fabs(mp.com[k]) < 1e-14);
  for (int k = 0; k < 3; k++)
    CHECK_REL(mp.inertia[4 * k], 36.0 * 9 / 5, 1e-13);
  CHECK_REL(mp.area, 8 * sqrt(3.0) / 2 * 9, 1e-14);
  cm_mesh_free(m);
}

/* PLY binary little-endian: centred 1 x 2 x 3 box, double/short/float vertex properties, quads
 * with a uint8 property before the list, an extra element with lists after the faces */
static void test_ply_binary(void) {
  const double s[3] = {1, 2, 3}, c[3] = {0, 0, 0};
  check_box_file(DATA("box_binary.ply"), 1.0, s, c, 8, 12);
}

/* the examples shipped for the docs are valid solids of the stated size */
static void test_examples(void) {
  const double s[3] = {1, 1, 1}, c[3] = {0, 0, 0};
  check_box_file(CM_SRC("examples/meshes/unit_cube.obj"), 1.0, s, c, 8, 12);
  const char* other[2] = {CM_SRC("examples/meshes/tetrahedron.stl"),
                          CM_SRC("examples/meshes/octahedron.ply")};
  const double vol[2] = {1.0 / 6, 4.0 / 3};
  for (int i = 0; i < 2; i++) {
    cmMesh* m = NULL;
    char err[256];
    CHECK(cm_mesh_load(other[i], 1.0, &m, err, sizeof err) == CM_OK);
    if (!m) continue;
    cmMeshReport r;
    CHECK(cm_mesh_check(m, other[i], &r, err, sizeof err) == CM_OK);
    CHECK_REL(r.volume, vol[i], 1e-14);
    cm_mesh_free(m);
  }
}

/* one failing load: status and message fragments */
static void expect_error(const char* path, double scale, cmStatus want, const char* frag1,
                         const char* frag2) {
  cmMesh* m = (cmMesh*)&m; /* must be reset to NULL */
  char err[512] = "";
  cmStatus st = cm_mesh_load(path, scale, &m, err, sizeof err);
  CHECK(st == want);
  CHECK(m == NULL);
  if (st != want) fprintf(stderr, "  %s: status %d, expected %d: %s\n", path, st, want, err);
  if (frag1) CHECK(contains(err, frag1));
  if (frag2) CHECK(contains(err, frag2));
}

static void test_errors_general(void) {
  expect_error(DATA("does_not_exist.obj"), 1, CM_ERR_IO, "does_not_exist.obj: cannot open", NULL);
  expect_error(DATA("shape.xyz"), 1, CM_ERR_ARG, "shape.xyz", "unknown mesh file extension '.xyz'");
  expect_error(DATA("noext"), 1, CM_ERR_ARG, "noext", "unknown mesh file extension");
  expect_error(DATA("cube_mixed.obj"), 0, CM_ERR_ARG, "scale", NULL);
  expect_error(DATA("cube_mixed.obj"), NAN, CM_ERR_ARG, "scale", NULL);
  /* a directory cannot be read as a file */
  expect_error(CM_SRC("tests/data/meshes/.ply"), 1, CM_ERR_IO, ".ply", NULL);
  /* overflow of a finite coordinate by the scale */
  expect_error(DATA("cube_mixed.obj"), 1e308, CM_ERR_PARSE, "cube_mixed.obj:5:", "not finite");
}

static void test_errors_obj(void) {
  expect_error(DATA("bad_index.obj"), 1, CM_ERR_PARSE,
               "bad_index.obj:6:", "refers to vertex 9 but 4 vertices are defined");
  expect_error(DATA("bad_number.obj"), 1, CM_ERR_PARSE, "bad_number.obj:2:", "bad number 'x'");
  expect_error(DATA("bad_corner.obj"), 1, CM_ERR_PARSE, "bad_corner.obj:5:", "1/1/1/1");
  expect_error(DATA("garbage.obj"), 1, CM_ERR_PARSE, "garbage.obj:", NULL);
}

static void test_errors_stl(void) {
  /* 5 full records + 17 bytes: the 6th triangle (index 5) is cut at byte 351 */
  expect_error(DATA("box_truncated.stl"), 1, CM_ERR_PARSE, "byte offset 351",
               "inside triangle 5 of the 12");
  expect_error(DATA("box_nan.stl"), 1, CM_ERR_PARSE, "byte offset 250",
               "triangle 3 has a non-finite");
  expect_error(DATA("garbage.stl"), 1, CM_ERR_PARSE, "garbage.stl: byte offset",
               "not an ASCII STL");
  expect_error(DATA("tetra_truncated.stl"), 1, CM_ERR_PARSE,
               "tetra_truncated.stl:27:", "unexpected end of file, expected 'endloop'");
  expect_error(DATA("tetra_badnum.stl"), 1, CM_ERR_PARSE, "tetra_badnum.stl:11:", "vertex");
}

static void test_errors_ply(void) {
  expect_error(DATA("bigendian.ply"), 1, CM_ERR_PARSE,
               "bigendian.ply:2:", "binary_big_endian PLY is not supported");
  expect_error(DATA("huge_count.ply"), 1, CM_ERR_PARSE,
               "huge_count.ply:3:", "announces 1000000000000 entries");
  expect_error(DATA("huge_count_bin.ply"), 1, CM_ERR_PARSE,
               "huge_count_bin.ply:3:", "only 36 bytes follow the header (byte offset 121)");
  expect_error(DATA("bad_index.ply"), 1, CM_ERR_PARSE,
               "bad_index.ply:27:", "face 2 refers to vertex 6, outside 0..5");
  expect_error(DATA("truncated.ply"), 1, CM_ERR_PARSE, "truncated.ply: byte offset 575",
               "list vertex_indices of element face 5 has 4 items, more than the file holds");
  expect_error(DATA("garbage.ply"), 1, CM_ERR_PARSE, "garbage.ply:1:", "not a PLY file");
}

/* headers written here: each a clean error (no allocation from the announced counts) */
static void test_errors_ply_written(void) {
  static const struct {
    const char* text;
    cmStatus st;
    const char* frag;
  } cases[] = {
      {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nend_header\n"
       "0 0\n1 0\n0 1\n",
       CM_ERR_PARSE, ":3: element vertex has no scalar property z"},
      {"ply\nformat ascii 2.0\nend_header\n", CM_ERR_PARSE, ":2: bad format line"},
      {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n", CM_ERR_PARSE,
       ":4: bad property line"},
      {"ply\nformat ascii 1.0\nelement vertex 0\n", CM_ERR_PARSE, ":3: end of file in the header"},
      {"ply\nformat binary_little_endian 1.0\nelement face 1\n"
       "property list uint int vertex_indices\nend_header\n\xff\xff\xff\xff",
       CM_ERR_PARSE, "byte offset 100: list vertex_indices of element face 0 has 4294967295 items"},
      {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
       "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
       "0 0 0\n1 0 0\n0 1 0\n2 0 1\n",
       CM_ERR_PARSE, ":13: face 0 has 2 vertices, needs at least 3"},
      {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
       "property float z\nend_header\n0 nan 0\n",
       CM_ERR_PARSE, ":8: vertex 0 has a non-finite coordinate"},
      {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
       "property float z\nend_header\n0 1.5q 0\n",
       CM_ERR_PARSE, ":8: bad number '1.5q'"},
      {"ply\nformat ascii 1.0\nelement vertex 3000000000\nproperty float x\nend_header\n",
       CM_ERR_PARSE, ":3: element vertex announces 3000000000 entries"},
  };
  char path[512];
  snprintf(path, sizeof path, "%s/test_mesh_io_tmp.ply", CM_BINARY_DIR);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(cases[i].text, 1, strlen(cases[i].text), f);
    fclose(f);
    expect_error(path, 1, cases[i].st, cases[i].frag, NULL);
  }
  remove(path);
}

/* an STL written here with a facet cut short, and an OBJ with relative indices going too far */
static void test_errors_text_written(void) {
  static const struct {
    const char* name;
    const char* text;
    const char* frag;
  } cases[] = {
      {"a.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\n",
       ":5: expected 'vertex', found 'endloop'"},
      {"b.stl", "solid x\nfacet normal 0 0\n", ":2: malformed 'facet' statement"},
      {"c.stl", "solid x\nfacet normal 0 0 1 extra\n",
       ":2: malformed 'facet' statement (unexpected 'extra')"},
      {"d.obj", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\n", ":3: face refers to vertex -3 but 2 vertices"},
      {"e.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ":4: vertex index 0"},
      {"f.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", ":3: face has 2 vertices, needs at least 3"},
      {"g.obj", "v 0 0\n", ":1: vertex has 2 numbers"},
      {"h.obj", "v 0 0 0\ncurv 0 1\n", ":2: unknown statement 'curv'"},
      {"i.obj", "v 0 0 1e999\n", ":1: vertex coordinate is not finite"},
      {"j.stl", "", "byte offset 0: end of file inside the 84-byte binary STL header"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/test_mesh_io_%s", CM_BINARY_DIR, cases[i].name);
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(cases[i].text, 1, strlen(cases[i].text), f);
    fclose(f);
    expect_error(path, 1, CM_ERR_PARSE, cases[i].frag, NULL);
    remove(path);
  }
}

/* write text to a file of the given name in the build folder; its path in path */
static void write_text(char* path, size_t n, const char* name, const char* text) {
  snprintf(path, n, "%s/test_mesh_io_%s", CM_BINARY_DIR, name);
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  fwrite(text, 1, strlen(text), f);
  fclose(f);
}

/* The three text formats read as the scene reader does: a UTF-8 byte order mark at the start is
 * skipped (OBJ and PLY used to refuse it: "unknown statement", "not a PLY file"), and
 * hexadecimal numbers are refused with a message that says so (strtod read 0x1p0 as 1). The
 * unit tetrahedron in each format, V = 1/6; the same file with one coordinate in hexadecimal
 * fails at its line. */
static void test_bom_and_hex(void) {
#define BOM "\xef\xbb\xbf"
#define OBJ_TETRA(X) "v 0 0 0\nv " X " 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
#define STL_FACET(A, B, C)                                                                         \
  "facet normal 0 0 0\nouter loop\nvertex " A "\nvertex " B "\nvertex " C "\nendloop\nendfacet\n"
#define STL_TETRA(X)                                                                               \
  "solid t\n" STL_FACET("0 0 0", "0 1 0", X " 0 0") STL_FACET("0 0 0", X " 0 0", "0 0 1")          \
      STL_FACET("0 0 0", "0 0 1", "0 1 0") STL_FACET(X " 0 0", "0 1 0", "0 0 1") "endsolid t\n"
#define PLY_TETRA(X)                                                                               \
  "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"                  \
  "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"         \
  "0 0 0\n" X " 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"
  static const struct {
    const char* name;
    const char* good; /* with a BOM */
    const char* hex;
    const char* want; /* the message of the hexadecimal file */
  } c[] = {
      {"bom.obj", BOM OBJ_TETRA("1"), OBJ_TETRA("0x1p0"),
       "test_mesh_io_bom.obj:2: bad number '0x1p0' in vertex (hexadecimal is not accepted"},
      {"bom.stl", BOM STL_TETRA("1"), STL_TETRA("0x1"),
       "test_mesh_io_bom.stl:6: malformed 'vertex' statement (hexadecimal is not accepted"},
      {"bom.ply", BOM PLY_TETRA("1"), PLY_TETRA("-0X1"),
       "test_mesh_io_bom.ply:11: bad number '-0X1' in element vertex 1 (hexadecimal is not "
       "accepted"},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    char path[512], err[512] = "";
    write_text(path, sizeof path, c[i].name, c[i].good);
    cmMesh* m = NULL;
    CHECK(cm_mesh_load(path, 1, &m, err, sizeof err) == CM_OK);
    if (!m) fprintf(stderr, "  %s: %s\n", c[i].name, err);
    if (m) {
      CHECK(m->nvert == 4 && m->nface == 4);
      CHECK(cm_mesh_check(m, c[i].name, NULL, err, sizeof err) == CM_OK);
      cmMassProperties mp;
      CHECK(cm_mesh_mass_properties(m, &mp) == CM_OK);
      CHECK_REL(mp.volume, 1.0 / 6, 1e-14);
    }
    cm_mesh_free(m);
    write_text(path, sizeof path, c[i].name, c[i].hex);
    expect_error(path, 1, CM_ERR_PARSE, c[i].want, NULL);
    remove(path);
  }
#undef BOM
#undef OBJ_TETRA
#undef STL_FACET
#undef STL_TETRA
#undef PLY_TETRA
}

/* the header limits of the PLY reader are reported with their own cause: a 17th element used
 * to be reported as "more than 2147483647 faces" */
static void test_ply_header_limits(void) {
  char text[8192], path[512];
  int k = snprintf(text, sizeof text, "ply\nformat ascii 1.0\n");
  for (int e = 0; e < 17; e++)
    k += snprintf(text + k, sizeof text - (size_t)k, "element e%d 0\nproperty float a\n", e);
  snprintf(text + k, sizeof text - (size_t)k, "end_header\n");
  write_text(path, sizeof path, "elements.ply", text);
  /* the 17th element line is line 3 + 2 * 16 */
  expect_error(path, 1, CM_ERR_LIMIT,
               "test_mesh_io_elements.ply:35: element 'e16' is the header's element 17, more "
               "than the limit of 16 elements",
               NULL);
  k = snprintf(text, sizeof text, "ply\nformat ascii 1.0\nelement vertex 0\n");
  for (int q = 0; q < 65; q++)
    k += snprintf(text + k, sizeof text - (size_t)k, "property float p%d\n", q);
  snprintf(text + k, sizeof text - (size_t)k, "end_header\n");
  write_text(path, sizeof path, "props.ply", text);
  /* the 65th property is line 3 + 65 */
  expect_error(path, 1, CM_ERR_LIMIT,
               "test_mesh_io_props.ply:68: element vertex has more than the limit of 64 "
               "properties",
               NULL);
  remove(path);
  snprintf(path, sizeof path, "%s/test_mesh_io_elements.ply", CM_BINARY_DIR);
  remove(path);
}

/* every prefix of a valid binary file: a clean error or a valid mesh, never a crash */
static void test_truncation_sweep(void) {
  const char* src[3] = {DATA("box_binary.stl"), DATA("box_binary.ply"), DATA("octa_ascii.ply")};
  const char* ext[3] = {"stl", "ply", "ply"};
  for (int s = 0; s < 3; s++) {
    FILE* f = fopen(src[s], "rb");
    static unsigned char buf[4096];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    CHECK(n > 100);
    char path[512];
    snprintf(path, sizeof path, "%s/test_mesh_io_cut.%s", CM_BINARY_DIR, ext[s]);
    int ok = 1;
    for (size_t len = 0; len < n; len++) {
      FILE* g = fopen(path, "wb");
      if (!g) break;
      fwrite(buf, 1, len, g);
      fclose(g);
      cmMesh* m = NULL;
      char err[512] = "";
      cmStatus st = cm_mesh_load(path, 1, &m, err, sizeof err);
      /* a text file cut at a line end may still be complete; otherwise an error with a place */
      if (st == CM_OK) {
        ok &= m != NULL;
        cm_mesh_free(m);
      } else {
        ok &= m == NULL && (strstr(err, "byte offset") || strstr(err, ".ply:"));
      }
    }
    CHECK(ok);
    remove(path);
  }
}

/* random byte mutations of every valid file (fixed seed): a mesh or an error with a message,
 * never a crash (run under the sanitizer build to catch out-of-bounds reads) */
static void test_mutation_fuzz(void) {
  const char* src[6] = {DATA("cube_mixed.obj"), DATA("tetra_ascii.stl"), DATA("box_binary.stl"),
                        DATA("octa_ascii.ply"), DATA("box_binary.ply"),  DATA("bad_index.ply")};
  const char* ext[6] = {"obj", "stl", "stl", "ply", "ply", "ply"};
  static const unsigned char tokens[] = {'\n', ' ', '-', '/', '#', '0', '9', 0, 0xff, '.', 'e'};
  unsigned long long rng = 88172645463325252ull;
  int ok = 1;
  for (int s = 0; s < 6; s++) {
    static unsigned char orig[4096], buf[4096];
    FILE* f = fopen(src[s], "rb");
    size_t n = f ? fread(orig, 1, sizeof orig, f) : 0;
    if (f) fclose(f);
    char path[512];
    snprintf(path, sizeof path, "%s/test_mesh_io_fuzz.%s", CM_BINARY_DIR, ext[s]);
    for (int it = 0; it < 300; it++) {
      memcpy(buf, orig, n);
      int nmut = 1 + it % 4;
      for (int k = 0; k < nmut; k++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        size_t at = (size_t)(rng % n);
        buf[at] =
            (rng >> 32) & 1 ? (unsigned char)(rng >> 40) : tokens[(rng >> 40) % sizeof tokens];
      }
      FILE* g = fopen(path, "wb");
      if (!g) break;
      fwrite(buf, 1, n, g);
      fclose(g);
      cmMesh* m = NULL;
      char err[512] = "";
      cmStatus st = cm_mesh_load(path, 1, &m, err, sizeof err);
      if (st == CM_OK) {
        ok &= m != NULL;
        if (m) cm_mesh_check(m, path, NULL, NULL, 0);
        cm_mesh_free(m);
      } else {
        ok &= m == NULL && strlen(err) > 0;
      }
    }
    remove(path);
  }
  CHECK(ok);
}

int main(void) {
  RUN(test_obj);
  RUN(test_stl_binary);
  RUN(test_stl_ascii);
  RUN(test_ply_ascii);
  RUN(test_ply_binary);
  RUN(test_examples);
  RUN(test_errors_general);
  RUN(test_errors_obj);
  RUN(test_errors_stl);
  RUN(test_errors_ply);
  RUN(test_errors_ply_written);
  RUN(test_errors_text_written);
  RUN(test_bom_and_hex);
  RUN(test_ply_header_limits);
  RUN(test_truncation_sweep);
  RUN(test_mutation_fuzz);
  return test_report();
}
