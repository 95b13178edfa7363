/* Legacy VTK reader (.vtk), DATASET POLYDATA, ASCII or BINARY.
 *
 *   # vtk DataFile Version 4.2        (any version)
 *   a title line
 *   ASCII | BINARY
 *   DATASET POLYDATA
 *   POINTS n float|double             then 3n values
 *   POLYGONS ncell size               4.x layout: size values, each cell its point count k
 *                                     then k point indices (size = ncell + sum of k)
 *   POLYGONS noffsets nconn           5.1 layout: followed by
 *   OFFSETS vtktypeint64              noffsets values: cell i is connectivity[off[i]..off[i+1])
 *   CONNECTIVITY vtktypeint64         nconn values
 *   TRIANGLE_STRIPS ...               the same two layouts
 *   VERTICES, LINES ...               read and ignored (no surface)
 *   METADATA ...                      skipped up to the next empty line
 *   POINT_DATA, CELL_DATA, FIELD      end of the geometry: the rest is not read
 * The layout of a cell section is told by the keyword after its values or counts: OFFSETS
 * follows at once in the 5.1 layout. BINARY data follow the keyword line's newline, big-endian
 * (as VTK writes them), of the type named: char, unsigned_char, short, unsigned_short, int,
 * unsigned_int (4 bytes), long, unsigned_long, vtktypeint64, vtktypeuint64 (8 bytes),
 * vtktypeint32, vtktypeuint32, float, double; cell counts and indices of the 4.x layout are int.
 * Polygons are fan-triangulated and strips split into triangles (mesh_vtk_cells.c).
 *
 * Robustness: every count is checked against the bytes left before anything is allocated
 * (ASCII: one value per two characters at most; BINARY: the values' bytes), counts above
 * 2^31-1 are errors, and each value is range-checked before it is used. Errors name the file and
 * the line (ASCII, and every keyword line) or the byte offset (BINARY values). A UTF-8 byte order
 * mark is skipped; ASCII numbers are decimal. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

typedef struct Vtk {
  const char* path;
  const char* buf;
  size_t len, pos;
  int line;
  int kwline; /* line of the last keyword */
  int binary;
  char* err;
  size_t errsz;
} Vtk;

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* the next whitespace-separated token (at most tsz - 1 characters); 0 at the end of the file,
 * -1 if longer. *at: its offset. Lines are counted. */
static int token(Vtk* L, char* tok, size_t tsz, size_t* at) {
  while (L->pos < L->len && is_ws(L->buf[L->pos]))
    L->line += L->buf[L->pos++] == '\n';
  *at = L->pos;
  size_t s = L->pos;
  while (L->pos < L->len && !is_ws(L->buf[L->pos]))
    L->pos++;
  size_t n = L->pos - s;
  if (!n) return 0;
  size_t c = n < tsz - 1 ? n : tsz - 1;
  memcpy(tok, L->buf + s, c);
  tok[c] = 0;
  return n < tsz ? 1 : -1;
}

/* the rest of the current line, which must be blank, and its newline: binary data follow */
static cmStatus end_of_line(Vtk* L) {
  while (L->pos < L->len && L->buf[L->pos] != '\n') {
    if (!is_ws(L->buf[L->pos]))
      return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                      "%s:%d: unexpected text after the keyword's arguments", L->path, L->line);
    L->pos++;
  }
  if (L->pos < L->len) {
    L->pos++;
    L->line++;
  }
  return CM_OK;
}

static cmStatus fail(const Vtk* L, const char* fmt, const char* a, const char* b) {
  char msg[400];
  snprintf(msg, sizeof msg, fmt, a, b);
  return cm_error(L->err, L->errsz, CM_ERR_PARSE, "%s:%d: %s", L->path, L->line, msg);
}

/* a keyword's integer argument: 0..2^31-1 */
static cmStatus count_arg(Vtk* L, const char* kw, const char* what, long long* n) {
  char tok[64];
  size_t at;
  int r = token(L, tok, sizeof tok, &at);
  if (r <= 0 || !cm_io_parse_llong(tok, n) || *n < 0)
    return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s:%d: %s: bad or missing %s (a non-negative integer)", L->path, L->line, kw,
                    what);
  if (*n > CM_MESH_MAX_ELEMENTS)
    return cm_error(L->err, L->errsz, CM_ERR_LIMIT,
                    "%s:%d: %s: %s %lld is more than the limit 2147483647", L->path, L->line, kw,
                    what, *n);
  return CM_OK;
}

/* a data type name: its size in bytes (0: unknown), *isint, *issigned */
static int type_of(const char* s, int* isint, int* issigned) {
  static const struct {
    const char* name;
    int size, isint, issigned;
  } types[] = {{"char", 1, 1, 1},           {"unsigned_char", 1, 1, 0}, {"short", 2, 1, 1},
               {"unsigned_short", 2, 1, 0}, {"int", 4, 1, 1},           {"unsigned_int", 4, 1, 0},
               {"vtktypeint32", 4, 1, 1},   {"vtktypeuint32", 4, 1, 0}, {"long", 8, 1, 1},
               {"unsigned_long", 8, 1, 0},  {"vtktypeint64", 8, 1, 1},  {"vtktypeuint64", 8, 1, 0},
               {"float", 4, 0, 1},          {"double", 8, 0, 1}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (!strcmp(s, types[i].name)) {
      *isint = types[i].isint;
      *issigned = types[i].issigned;
      return types[i].size;
    }
  return 0;
}

/* n values of a type into a new array: ASCII tokens or BINARY big-endian bytes */
static cmStatus values(Vtk* L, size_t n, int size, int isint, int issigned, const char* what,
                       double** out, size_t* start) {
  *out = NULL;
  size_t left = L->len - L->pos;
  *start = L->pos;
  if (L->binary ? n > left / (size_t)size : n > (left + 1) / 2)
    return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s:%d: %s: %zu values announced, but only %zu bytes follow (byte offset %zu)",
                    L->path, L->kwline, what, n, left, L->pos);
  double* v = cm_malloc((n ? n : 1) * sizeof(double));
  if (!v)
    return cm_error(L->err, L->errsz, CM_ERR_NOMEM, "%s:%d: %s: out of memory", L->path, L->line,
                    what);
  for (size_t i = 0; i < n; i++) {
    if (L->binary) {
      const unsigned char* b = (const unsigned char*)L->buf + L->pos;
      uint64_t u = 0;
      for (int k = 0; k < size; k++)
        u = (u << 8) | b[k];
      L->pos += (size_t)size;
      if (!isint && size == 4) {
        uint32_t u32 = (uint32_t)u;
        float f;
        memcpy(&f, &u32, sizeof f);
        v[i] = f;
      } else if (!isint) {
        memcpy(&v[i], &u, sizeof v[i]);
      } else if (issigned) {
        /* sign-extend the size-byte integer */
        int sh = 64 - 8 * size;
        v[i] = sh ? (double)((int64_t)(u << sh) >> sh) : (double)(int64_t)u;
      } else {
        v[i] = (double)u;
      }
      if (!isfinite(v[i])) {
        cm_free(v);
        return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                        "%s: byte offset %zu: %s: value %zu is not finite", L->path,
                        L->pos - (size_t)size, what, i);
      }
      continue;
    }
    char tok[72];
    size_t at;
    int r = token(L, tok, sizeof tok, &at);
    int ok = r > 0 && cm_io_parse_double(tok, &v[i]) && isfinite(v[i]) &&
             (!isint || v[i] == floor(v[i]));
    if (!ok) {
      cm_free(v);
      if (r == 0)
        return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                        "%s:%d: %s: end of file after %zu of %zu values", L->path, L->line, what, i,
                        n);
      return cm_error(L->err, L->errsz, CM_ERR_PARSE, "%s:%d: %s: value %zu '%.40s' is not %s%s",
                      L->path, L->line, what, i, tok,
                      isint ? "an integer" : "a finite decimal number",
                      cm_io_is_hex(tok) ? " (hexadecimal is not accepted)" : "");
    }
  }
  *out = v;
  return CM_OK;
}

/* where value idx of a block that started at `start` is: its line or byte offset */
static void value_where(const Vtk* L, size_t start, size_t idx, int size, char* w, size_t wsz) {
  if (L->binary) {
    snprintf(w, wsz, "%s: byte offset %zu", L->path, start + idx * (size_t)size);
    return;
  }
  size_t i = start, k = 0;
  for (;; k++) {
    while (i < L->len && is_ws(L->buf[i]))
      i++;
    if (k == idx || i >= L->len) break;
    while (i < L->len && !is_ws(L->buf[i]))
      i++;
  }
  snprintf(w, wsz, "%s:%d", L->path, cm_io_line_of(L->buf, i));
}

/* a cell section (POLYGONS, TRIANGLE_STRIPS, VERTICES, LINES) after its keyword; faces go to
 * the builder when b is not NULL */
static cmStatus cells(Vtk* L, const char* kw, long long npts, int strip, cmMeshBuilder* b) {
  long long a, c;
  cmStatus st;
  if ((st = count_arg(L, kw, "cell count", &a)) != CM_OK ||
      (st = count_arg(L, kw, "size", &c)) != CM_OK)
    return st;
  if (b && npts < 0)
    return cm_error(L->err, L->errsz, CM_ERR_PARSE, "%s:%d: %s before POINTS", L->path, L->line,
                    kw);
  if ((st = end_of_line(L)) != CM_OK) return st;

  /* the 5.1 layout: OFFSETS comes next */
  size_t save = L->pos, at;
  int sline = L->line;
  char tok[64];
  int r = 0;
  if (!L->binary)
    r = token(L, tok, sizeof tok, &at);
  else if (L->len - L->pos >= 7 && !memcmp(L->buf + L->pos, "OFFSETS", 7))
    r = token(L, tok, sizeof tok, &at);
  int v51 = r > 0 && !strcmp(tok, "OFFSETS");
  if (!v51) {
    L->pos = save;
    L->line = sline;
  }
  double *off = NULL, *conn = NULL;
  size_t noff = 0, nconn = 0, off_at = 0, conn_at = 0;
  int off_size = 4, conn_size = 4;
  char what[80];
  if (v51) {
    int isint, sg;
    for (int k = 0; k < 2 && st == CM_OK; k++) {
      if (k == 1) {
        r = token(L, tok, sizeof tok, &at);
        L->kwline = L->line;
        if (r <= 0 || strcmp(tok, "CONNECTIVITY")) {
          st = fail(L, "%s: expected CONNECTIVITY after the OFFSETS values, found '%.40s'", kw,
                    r > 0 ? tok : "");
          break;
        }
      }
      if (k == 0) L->kwline = L->line; /* OFFSETS was read above */
      r = token(L, tok, sizeof tok, &at);
      int size = r > 0 ? type_of(tok, &isint, &sg) : 0;
      if (!size || !isint) {
        st = fail(L, "%s: bad or missing integer type '%.40s' (vtktypeint64, int, ...)", kw,
                  r > 0 ? tok : "");
        break;
      }
      if ((st = end_of_line(L)) != CM_OK) break;
      snprintf(what, sizeof what, "%s %s", kw, k ? "CONNECTIVITY" : "OFFSETS");
      if (k == 0) {
        off_size = size;
        noff = (size_t)a;
        st = values(L, noff, size, 1, sg, what, &off, &off_at);
      } else {
        conn_size = size;
        nconn = (size_t)c;
        st = values(L, nconn, size, 1, sg, what, &conn, &conn_at);
      }
    }
    if (st == CM_OK && b) {
      cmVtkCellError e;
      st = noff ? cm_io_vtk_cells(b, off + 1, noff - 1, off[0], conn, nconn, npts, strip, &e)
                : CM_OK;
      if (st == CM_OK && !noff && nconn) {
        e.array = 0;
        e.index = 0;
        snprintf(e.msg, sizeof e.msg, "no offsets for %zu connectivity values", nconn);
        st = CM_ERR_PARSE;
      }
      if (st != CM_OK) {
        char w[400];
        if (e.array)
          value_where(L, conn_at, e.index, conn_size, w, sizeof w);
        else
          value_where(L, off_at, noff ? e.index + 1 : 0, off_size, w, sizeof w);
        st = cm_error(L->err, L->errsz, st, "%s: %s %s: %s", w, kw,
                      e.array ? "CONNECTIVITY" : "OFFSETS", e.msg);
      }
    }
  } else {
    /* the 4.x layout: per cell a count then the indices, all int */
    double* raw = NULL;
    size_t raw_at;
    snprintf(what, sizeof what, "%s", kw);
    st = values(L, (size_t)c, 4, 1, 1, what, &raw, &raw_at);
    size_t ncell = (size_t)a, i = 0, cell = 0;
    if (st == CM_OK) {
      off = cm_malloc((ncell ? ncell : 1) * sizeof(double));
      conn = cm_malloc((c ? (size_t)c : 1) * sizeof(double));
      if (!off || !conn)
        st = cm_error(L->err, L->errsz, CM_ERR_NOMEM, "%s: out of memory", L->path);
    }
    for (; st == CM_OK && cell < ncell; cell++) {
      double k = i < (size_t)c ? raw[i] : -1;
      if (i >= (size_t)c || !(k >= 0 && k <= (double)((size_t)c - i - 1))) {
        char w[400];
        value_where(L, raw_at, i < (size_t)c ? i : (size_t)c, 4, w, sizeof w);
        if (i >= (size_t)c)
          st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                        "%s: %s: the size %lld ends before cell %zu of %zu", w, kw, c, cell, ncell);
        else
          st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                        "%s: %s: cell %zu has %.17g points, more than the %zu values left of the "
                        "size %lld",
                        w, kw, cell, k, (size_t)c - i - 1, c);
        break;
      }
      memcpy(conn + nconn, raw + i + 1, (size_t)k * sizeof(double));
      nconn += (size_t)k;
      off[cell] = (double)nconn;
      i += 1 + (size_t)k;
    }
    if (st == CM_OK && i != (size_t)c) {
      char w[400];
      value_where(L, raw_at, i, 4, w, sizeof w);
      st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s: %s: %zu cells take %zu values, but the size is %lld", w, kw, ncell, i, c);
    }
    if (st == CM_OK && b) {
      cmVtkCellError e;
      st = cm_io_vtk_cells(b, off, ncell, 0, conn, nconn, npts, strip, &e);
      if (st != CM_OK) {
        /* back to the raw index: cell j's count is at off[j-1] + j */
        size_t idx = 0;
        if (e.array) {
          size_t j = 0;
          while (j < ncell && off[j] <= (double)e.index)
            j++;
          idx = e.index + j + 1;
        } else {
          idx = (e.index ? (size_t)off[e.index - 1] : 0) + e.index;
        }
        char w[400];
        value_where(L, raw_at, idx, 4, w, sizeof w);
        st = cm_error(L->err, L->errsz, st, "%s: %s: %s", w, kw, e.msg);
      }
    }
    cm_free(raw);
  }
  cm_free(off);
  cm_free(conn);
  return st;
}

cmStatus cm_mesh_read_vtk(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  Vtk L = {path, buf, len, cm_io_bom(buf, len), 1, 1, 0, err, errsz};

  /* the header: version line, title, ASCII | BINARY */
  static const char magic[] = "# vtk DataFile Version";
  if (len - L.pos < sizeof magic - 1 || memcmp(buf + L.pos, magic, sizeof magic - 1))
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "%s:1: not a legacy VTK file (the first line must start with '%s')", path,
                    magic);
  for (int k = 0; k < 2; k++) {
    const char* nl = memchr(buf + L.pos, '\n', len - L.pos);
    if (!nl)
      return cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: end of file in the header", path, L.line);
    L.pos = (size_t)(nl - buf) + 1;
    L.line++;
  }
  char tok[64];
  size_t at;
  int r = token(&L, tok, sizeof tok, &at);
  if (r > 0 && (cm_io_ieq(tok, "ASCII") || cm_io_ieq(tok, "BINARY")))
    L.binary = cm_io_ieq(tok, "BINARY");
  else
    return fail(&L, "expected ASCII or BINARY on the third line, found '%.40s'%s", r > 0 ? tok : "",
                "");
  r = token(&L, tok, sizeof tok, &at);
  if (r <= 0 || strcmp(tok, "DATASET"))
    return fail(&L, "expected 'DATASET POLYDATA', found '%.40s'%s", r > 0 ? tok : "", "");
  r = token(&L, tok, sizeof tok, &at);
  if (r <= 0 || strcmp(tok, "POLYDATA"))
    return fail(&L, "DATASET %.40s is not supported: a mesh is read from DATASET POLYDATA%s",
                r > 0 ? tok : "(none)", "");

  /* the sections, up to the end of the file or the point and cell data */
  cmMeshBuilder b = {0};
  cmStatus st = CM_OK;
  long long npts = -1;
  int npolys = 0;
  while (st == CM_OK && (r = token(&L, tok, sizeof tok, &at)) != 0) {
    L.kwline = L.line;
    if (r < 0) {
      st = fail(&L, "unknown keyword '%.40s...'%s", tok, "");
    } else if (!strcmp(tok, "POINTS")) {
      long long n;
      int isint, sg, size = 0;
      if (npts >= 0) {
        st = fail(&L, "a second POINTS section%s%s", "", "");
        break;
      }
      if ((st = count_arg(&L, "POINTS", "point count", &n)) != CM_OK) break;
      r = token(&L, tok, sizeof tok, &at);
      if (r > 0) size = type_of(tok, &isint, &sg);
      if (!size || isint) {
        st = fail(&L, "POINTS: bad or missing type '%.40s' (float or double)%s", r > 0 ? tok : "",
                  "");
        break;
      }
      if ((st = end_of_line(&L)) != CM_OK) break;
      double* p;
      size_t p_at;
      st = values(&L, 3 * (size_t)n, size, 0, 1, "POINTS", &p, &p_at);
      for (long long i = 0; st == CM_OK && i < n; i++) {
        double x[3] = {p[3 * i] * scale, p[3 * i + 1] * scale, p[3 * i + 2] * scale};
        if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
          char w[400];
          value_where(&L, p_at, 3 * (size_t)i, size, w, sizeof w);
          st = cm_error(err, errsz, CM_ERR_PARSE,
                        "%s: POINTS: point %lld times the scale %g is not finite", w, i, scale);
        } else if ((st = cm_mb_add_vert(&b, x)) != CM_OK) {
          st = cm_error(err, errsz, st, "%s: out of memory", path);
        }
      }
      cm_free(p);
      npts = n;
    } else if (!strcmp(tok, "POLYGONS") || !strcmp(tok, "TRIANGLE_STRIPS")) {
      int strip = tok[0] == 'T';
      st = cells(&L, strip ? "TRIANGLE_STRIPS" : "POLYGONS", npts, strip, &b);
      npolys = 1;
    } else if (!strcmp(tok, "VERTICES") || !strcmp(tok, "LINES")) {
      st = cells(&L, tok[0] == 'V' ? "VERTICES" : "LINES", npts, 0, NULL);
    } else if (!strcmp(tok, "METADATA")) {
      /* the rest of its line, then lines up to and including the next empty one */
      int blank = 0, first = 1;
      while (L.pos < L.len && !blank) {
        const char* nl = memchr(buf + L.pos, '\n', L.len - L.pos);
        size_t e = nl ? (size_t)(nl - buf) : L.len;
        blank = !first;
        for (size_t i = L.pos; i < e; i++)
          blank &= is_ws(buf[i]);
        first = 0;
        L.pos = e < L.len ? e + 1 : e;
        L.line += nl != NULL;
      }
    } else if (!strcmp(tok, "POINT_DATA") || !strcmp(tok, "CELL_DATA") || !strcmp(tok, "FIELD")) {
      break; /* attributes: not geometry */
    } else {
      st = fail(&L,
                "unknown keyword '%.40s' (expected POINTS, POLYGONS, TRIANGLE_STRIPS, VERTICES, "
                "LINES, METADATA, POINT_DATA or CELL_DATA)%s",
                tok, "");
    }
  }
  if (st == CM_OK && npts < 0)
    st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: end of the geometry without a POINTS section",
                  path, L.line);
  if (st == CM_OK && !npolys)
    st = cm_error(err, errsz, CM_ERR_PARSE,
                  "%s:%d: end of the geometry without a POLYGONS or TRIANGLE_STRIPS section: no "
                  "surface to read",
                  path, L.line);
  if (st == CM_OK) {
    *out = cm_mb_finish(&b);
    if (!*out) st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  }
  cm_mb_free(&b);
  return st;
}
