/* STL reader, binary and ASCII.
 *
 * Binary: an 80-byte header, a little-endian uint32 triangle count at byte 80, then one 50-byte
 * record per triangle (normal, 3 vertices as 3 float32 each, a uint16 attribute). ASCII:
 *   solid NAME / facet normal nx ny nz / outer loop / vertex x y z (3 times) / endloop /
 *   endfacet / ... / endsolid NAME
 * (keywords case-insensitive, one statement per line; several solids are concatenated).
 * A file is binary when its size is exactly 84 + 50 count, otherwise ASCII when it starts with
 * "solid" (after an optional UTF-8 byte order mark, which is skipped; numbers are decimal, hex is
 * refused as in scene files); anything else is an error that says why it is neither. The stored
 * normals are ignored
 * (the winding defines the orientation). STL stores each triangle's corners separately; corners
 * with equal coordinates are merged into one vertex (cm_io_mesh_from_soup). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

static uint32_t get_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float get_f32(const unsigned char* p) {
  uint32_t u = get_u32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static cmStatus soup_error(const char* path, cmStatus st, char* err, size_t errsz) {
  if (st == CM_ERR_LIMIT)
    return cm_error(err, errsz, st, "%s: more than 2147483647 vertices or faces", path);
  return cm_error(err, errsz, st, "%s: out of memory", path);
}

static cmStatus read_binary(const char* path, const unsigned char* buf, size_t ntri, double scale,
                            cmMesh** out, char* err, size_t errsz) {
  if (ntri > CM_MESH_MAX_ELEMENTS / 3)
    return cm_error(err, errsz, CM_ERR_LIMIT, "%s: %zu triangles exceed the limit", path, ntri);
  double* tri = cm_malloc((ntri ? ntri : 1) * 9 * sizeof(double));
  if (!tri) return soup_error(path, CM_ERR_NOMEM, err, errsz);

  /* 9 float32 coordinates per record, after the 12-byte normal */
  for (size_t t = 0; t < ntri; t++) {
    size_t off = 84 + 50 * t;
    for (int k = 0; k < 9; k++) {
      double x = get_f32(buf + off + 12 + 4 * k);
      if (!isfinite(x) || !isfinite(x * scale)) {
        cm_free(tri);
        return cm_error(err, errsz, CM_ERR_PARSE,
                        "%s: byte offset %zu: triangle %zu has a non-finite vertex coordinate",
                        path, off + 12 + 4 * (size_t)k, t);
      }
      tri[9 * t + (size_t)k] = x;
    }
  }
  cmStatus st = cm_io_mesh_from_soup(tri, ntri, scale, out);
  cm_free(tri);
  return st == CM_OK ? st : soup_error(path, st, err, errsz);
}

/* states of the ASCII grammar, named by what is expected next */
enum { S_SOLID, S_FACET, S_LOOP, S_VERTEX, S_ENDLOOP, S_ENDFACET, S_AFTER };
static const char* const expected[] = {
    "solid",   "facet or endsolid", "outer loop",          "vertex",
    "endloop", "endfacet",          "solid or end of file"};

/* the next token must be keyword kw (case-insensitive) */
static int want(char** p, const char* kw) {
  char* t = cm_io_token(p);
  return t && cm_io_ieq(t, kw);
}

/* parse n numbers from the rest of the line into x (may be NULL to only validate); *hex set
 * when a number failed for being hexadecimal */
static int numbers(char** p, int n, double* x, int* hex) {
  for (int k = 0; k < n; k++) {
    double v;
    char* t = cm_io_token(p);
    if (!cm_io_parse_double(t, &v)) {
      *hex = cm_io_is_hex(t);
      return 0;
    }
    if (x) x[k] = v;
  }
  return 1;
}

static cmStatus read_ascii(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                           char* err, size_t errsz) {
  const char* nul = memchr(buf, 0, len);
  if (nul)
    return cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: NUL byte: binary data in an ASCII STL", path,
                    cm_io_line_of(buf, (size_t)(nul - buf)));
  double* tri = NULL;
  size_t ntri = 0, cap = 0;
  int state = S_SOLID, nv = 0, lineno = 0;
  char *pos = buf, *line;
  cmStatus st = CM_OK;
  while ((line = cm_io_line(&pos, buf + len))) {
    lineno++;
    char* p = line;
    char* kw = cm_io_token(&p);
    if (!kw) continue;
    int ok = 1, rest_free = 0, hex = 0;
    if ((state == S_SOLID || state == S_AFTER) && cm_io_ieq(kw, "solid")) {
      state = S_FACET;
      rest_free = 1;
    } else if (state == S_FACET && cm_io_ieq(kw, "endsolid")) {
      state = S_AFTER;
      rest_free = 1;
    } else if (state == S_FACET && cm_io_ieq(kw, "facet")) {
      ok = want(&p, "normal") && numbers(&p, 3, NULL, &hex);
      state = S_LOOP;
    } else if (state == S_LOOP && cm_io_ieq(kw, "outer")) {
      ok = want(&p, "loop");
      state = S_VERTEX;
      nv = 0;
    } else if (state == S_VERTEX && cm_io_ieq(kw, "vertex")) {
      /* a corner: grow the soup by one triangle at its first corner */
      if (nv == 0 && ntri == cap) {
        size_t nc = cap ? 2 * cap : 256;
        double* t =
            ntri >= CM_MESH_MAX_ELEMENTS / 3 ? NULL : cm_realloc(tri, nc * 9 * sizeof(double));
        if (!t) {
          st = ntri >= CM_MESH_MAX_ELEMENTS / 3 ? CM_ERR_LIMIT : CM_ERR_NOMEM;
          break;
        }
        tri = t;
        cap = nc;
      }
      double* x = tri + 9 * ntri + 3 * (size_t)nv;
      ok = numbers(&p, 3, x, &hex);
      if (ok && !(isfinite(x[0] * scale) && isfinite(x[1] * scale) && isfinite(x[2] * scale))) {
        st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: vertex coordinate is not finite", path,
                      lineno);
        break;
      }
      if (++nv == 3) {
        ntri++;
        state = S_ENDLOOP;
      }
    } else if (state == S_ENDLOOP && cm_io_ieq(kw, "endloop")) {
      state = S_ENDFACET;
    } else if (state == S_ENDFACET && cm_io_ieq(kw, "endfacet")) {
      state = S_FACET;
    } else {
      st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: expected '%s', found '%.40s'", path, lineno,
                    expected[state], kw);
      break;
    }
    char* extra = rest_free || !ok ? NULL : cm_io_token(&p);
    if (!ok || extra) {
      st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: malformed '%s' statement%s%.40s%s", path,
                    lineno, kw, extra ? " (unexpected '" : "", extra ? extra : "",
                    extra ? "')"
                    : hex ? " (hexadecimal is not accepted: write decimal numbers)"
                          : "");
      break;
    }
  }
  if (st == CM_OK && state != S_AFTER)
    st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: unexpected end of file, expected '%s'", path,
                  lineno, expected[state]);
  if (st == CM_OK) {
    st = cm_io_mesh_from_soup(tri, ntri, scale, out);
    if (st != CM_OK) st = soup_error(path, st, err, errsz);
  } else if (st == CM_ERR_NOMEM || st == CM_ERR_LIMIT) {
    st = soup_error(path, st, err, errsz);
  }
  cm_free(tri);
  return st;
}

/* 1 if the buffer starts with "solid" after optional blanks */
static int starts_solid(const char* buf, size_t len) {
  size_t i = 0;
  while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
    i++;
  if (len - i < 5) return 0;
  char w[6];
  memcpy(w, buf + i, 5);
  w[5] = 0;
  return cm_io_ieq(w, "solid");
}

cmStatus cm_mesh_read_stl(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  const unsigned char* u = (const unsigned char*)buf;

  /* binary when the size matches the announced count exactly */
  uint64_t count = len >= 84 ? get_u32(u + 80) : 0;
  uint64_t need = 84 + 50 * count;
  if (len >= 84 && need == len) return read_binary(path, u, (size_t)count, scale, out, err, errsz);
  size_t bom = cm_io_bom(buf, len);
  if (starts_solid(buf + bom, len - bom))
    return read_ascii(path, buf + bom, len - bom, scale, out, err, errsz);

  /* neither: say what the binary reading found */
  if (len < 84)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "%s: byte offset %zu: end of file inside the 84-byte binary STL header, and "
                    "the file does not start with 'solid' (not an ASCII STL)",
                    path, len);
  if (len < need)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "%s: byte offset %zu: file truncated inside triangle %llu of the %llu "
                    "announced at byte offset 80 (a binary STL of that count has %llu bytes); "
                    "not an ASCII STL either (does not start with 'solid')",
                    path, len, (unsigned long long)((len - 84) / 50), (unsigned long long)count,
                    (unsigned long long)need);
  return cm_error(err, errsz, CM_ERR_PARSE,
                  "%s: byte offset %llu: %llu bytes of unexpected data after the %llu triangles "
                  "announced at byte offset 80; not an ASCII STL either (does not start with "
                  "'solid')",
                  path, (unsigned long long)need, (unsigned long long)(len - need),
                  (unsigned long long)count);
}
