/* Wavefront OBJ reader: `v x y z [w | r g b]` and `f` statements; everything else that a mesh
 * file commonly carries (vt, vn, vp, g, o, s, usemtl, mtllib, l, p, comments) is ignored, and
 * any other statement is an error.
 *
 * A face corner is `v`, `v/vt`, `v/vt/vn` or `v//vn`; only v is used. Indices are 1-based, or
 * negative to count back from the last vertex defined so far (-1 is the latest); a corner must
 * refer to a vertex already defined. A polygon (v0, v1, ..., vn-1), n >= 3, is fan-triangulated
 * into (v0, vi, vi+1), i = 1..n-2, which keeps its winding. Errors read "FILE:LINE: what".
 * A UTF-8 byte order mark at the start is skipped; numbers are decimal (hexadecimal is refused,
 * as in scene files). */
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "mesh_io/mesh_io.h"

/* statements without geometry that are skipped */
static const char* const ignored[] = {"vt", "vn",     "vp",     "g", "o",
                                      "s",  "usemtl", "mtllib", "l", "p"};

/* skip an optional signed integer at *s; the number of digits skipped (0: nothing skipped) */
static int skip_int(const char** s) {
  const char* p = *s;
  if (*p == '-' || *p == '+') p++;
  const char* d = p;
  while (*p >= '0' && *p <= '9')
    p++;
  if (p == d) return 0;
  *s = p;
  return (int)(p - d);
}

/* the 0-based vertex index of a face corner token, or an error message in msg */
static int corner_index(const char* tok, size_t nvert, long long* idx, char* msg, size_t msz) {
  /* the vertex field: an integer up to the first '/' */
  const char* slash = strchr(tok, '/');
  size_t vl = slash ? (size_t)(slash - tok) : strlen(tok);
  char vbuf[32];
  long long v;
  if (vl == 0 || vl >= sizeof vbuf) {
    snprintf(msg, msz, "bad face corner '%.40s'", tok);
    return 0;
  }
  memcpy(vbuf, tok, vl);
  vbuf[vl] = 0;
  if (!cm_io_parse_llong(vbuf, &v)) {
    snprintf(msg, msz, "bad vertex index '%.40s' in face corner '%.40s'", vbuf, tok);
    return 0;
  }

  /* the optional /vt, /vt/vn or //vn fields must be integers */
  if (slash) {
    const char* s = slash + 1;
    int vt = skip_int(&s), ok;
    if (*s == '/') {
      s++;
      ok = skip_int(&s) > 0 && *s == 0;
    } else {
      ok = vt > 0 && *s == 0;
    }
    if (!ok) {
      snprintf(msg, msz, "bad face corner '%.40s' (expected v, v/vt, v/vt/vn or v//vn)", tok);
      return 0;
    }
  }

  /* resolve relative and 1-based indices */
  if (v == 0) {
    snprintf(msg, msz, "vertex index 0 in face corner '%.40s' (indices start at 1)", tok);
    return 0;
  }
  long long i = v > 0 ? v - 1 : (long long)nvert + v;
  if (i < 0 || i >= (long long)nvert) {
    snprintf(msg, msz, "face refers to vertex %lld but %zu vertices are defined so far", v, nvert);
    return 0;
  }
  *idx = i;
  return 1;
}

cmStatus cm_mesh_read_obj(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  const char* nul = memchr(buf, 0, len);
  if (nul)
    return cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: NUL byte: binary data in a text file", path,
                    cm_io_line_of(buf, (size_t)(nul - buf)));

  cmMeshBuilder b = {0};
  char msg[160];
  char *pos = buf + cm_io_bom(buf, len), *line;
  int lineno = 0;
  cmStatus st = CM_OK;
  while (st == CM_OK && (line = cm_io_line(&pos, buf + len))) {
    lineno++;
    /* a '#' starts a comment, also after a statement */
    char* hash = strchr(line, '#');
    if (hash) *hash = 0;
    char* p = line;
    char* kw = cm_io_token(&p);
    if (!kw) continue;

    if (!strcmp(kw, "v")) {
      /* a vertex: 3 coordinates, then an optional w or colour */
      double x[3], extra;
      int n = 0;
      char* tok;
      while ((tok = cm_io_token(&p))) {
        double* dst = n < 3 ? &x[n] : &extra;
        if (!cm_io_parse_double(tok, dst)) {
          st = cm_error(
              err, errsz, CM_ERR_PARSE, "%s:%d: bad number '%.40s' in vertex%s", path, lineno, tok,
              cm_io_is_hex(tok) ? " (hexadecimal is not accepted: write decimal numbers)" : "");
          break;
        }
        n++;
      }
      if (st != CM_OK) break;
      if (n < 3 || n > 7) {
        st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: vertex has %d numbers, expected 3 to 7",
                      path, lineno, n);
        break;
      }
      cm_v3_scale(x, x, scale);
      if (!cm_v3_isfinite(x)) {
        st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: vertex coordinate is not finite", path,
                      lineno);
        break;
      }
      st = cm_mb_add_vert(&b, x);
    } else if (!strcmp(kw, "f")) {
      /* a polygon, fan-triangulated from its first corner */
      long long first = -1, prev = -1, idx;
      int n = 0;
      char* tok;
      while (st == CM_OK && (tok = cm_io_token(&p))) {
        if (!corner_index(tok, b.nvert, &idx, msg, sizeof msg)) {
          st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: %s", path, lineno, msg);
          break;
        }
        if (n >= 2) st = cm_mb_add_face(&b, (int)first, (int)prev, (int)idx);
        if (n == 0) first = idx;
        prev = idx;
        n++;
      }
      if (st == CM_OK && n < 3)
        st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: face has %d vertices, needs at least 3",
                      path, lineno, n);
    } else {
      int known = 0;
      for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        known |= !strcmp(kw, ignored[i]);
      if (!known)
        st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: unknown statement '%.40s'", path, lineno,
                      kw);
    }
  }

  /* allocation and size-limit failures from the builder */
  if (st == CM_ERR_NOMEM || st == CM_ERR_LIMIT)
    st = cm_error(err, errsz, st, "%s:%d: %s", path, lineno,
                  st == CM_ERR_NOMEM ? "out of memory" : "more than 2147483647 vertices or faces");
  if (st != CM_OK) {
    cm_mb_free(&b);
    return st;
  }
  *out = cm_mb_finish(&b);
  return *out ? CM_OK : cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
}
