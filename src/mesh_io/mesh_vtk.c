/* Legacy VTK reader (.vtk): DATASET POLYDATA (surfaces, cm_mesh_load) and DATASET
 * UNSTRUCTURED_GRID (tet meshes, cm_tetmesh_load), ASCII or BINARY.
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
 * UNSTRUCTURED_GRID has POINTS, then CELLS (either layout, as POLYGONS) and CELL_TYPES n with n
 * int cell types (10: VTK_TETRA, kept; other types counted and skipped, mesh_vtk_cells.c).
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
  return cm_io_next_token(L->buf, L->len, &L->pos, tok, tsz, at, &L->line);
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

/* the arrays of a cell section in either layout, and where their values came from */
typedef struct Cells {
  double* end;  /* the end of each cell in conn (ncell) */
  double* off;  /* 5.1: the OFFSETS values (end = off + 1) */
  double* conn; /* point indices */
  size_t ncell, nconn;
  double first;                   /* where cell 0 starts */
  int v51;                        /* layout 5.1 */
  int have;                       /* the section was read */
  size_t off_at, conn_at, raw_at; /* starts of the value blocks (4.x: raw_at) */
  int off_size, conn_size;
} Cells;

static void cells_free(Cells* c) {
  cm_free(c->off ? c->off : c->end);
  cm_free(c->conn);
  *c = (Cells){0};
}

/* where the value a cell error points to is: its line or byte offset */
static void cell_where(const Vtk* L, const Cells* c, const cmVtkCellError* e, char* w, size_t wsz) {
  if (c->v51) {
    if (e->array)
      value_where(L, c->conn_at, e->index, c->conn_size, w, wsz);
    else
      value_where(L, c->off_at, c->ncell ? e->index + 1 : 0, c->off_size, w, wsz);
    return;
  }
  /* back to the raw index: cell j's count is at end[j-1] + j */
  size_t idx = 0;
  if (e->array) {
    size_t j = 0;
    while (j < c->ncell && c->end[j] <= (double)e->index)
      j++;
    idx = e->index + j + 1;
  } else {
    idx = (e->index ? (size_t)c->end[e->index - 1] : 0) + e->index;
  }
  value_where(L, c->raw_at, idx, 4, w, wsz);
}

/* a cell section (POLYGONS, TRIANGLE_STRIPS, VERTICES, LINES, CELLS) after its keyword, in
 * either layout */
static cmStatus cells(Vtk* L, const char* kw, long long npts, Cells* C) {
  long long a, c;
  cmStatus st;
  *C = (Cells){0};
  C->off_size = C->conn_size = 4;
  if ((st = count_arg(L, kw, "cell count", &a)) != CM_OK ||
      (st = count_arg(L, kw, "size", &c)) != CM_OK)
    return st;
  if (npts < 0)
    return cm_error(L->err, L->errsz, CM_ERR_PARSE, "%s:%d: %s before POINTS", L->path, L->line,
                    kw);
  if ((st = end_of_line(L)) != CM_OK) return st;
  C->have = 1;

  /* the 5.1 layout: OFFSETS comes next */
  size_t save = L->pos, at;
  int sline = L->line;
  char tok[64];
  int r = 0;
  if (!L->binary)
    r = token(L, tok, sizeof tok, &at);
  else if (L->len - L->pos >= 7 && !memcmp(L->buf + L->pos, "OFFSETS", 7))
    r = token(L, tok, sizeof tok, &at);
  C->v51 = r > 0 && !strcmp(tok, "OFFSETS");
  if (!C->v51) {
    L->pos = save;
    L->line = sline;
  }
  char what[80];
  if (C->v51) {
    int isint, sg;
    size_t noff = 0;
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
        C->off_size = size;
        noff = (size_t)a;
        st = values(L, noff, size, 1, sg, what, &C->off, &C->off_at);
      } else {
        C->conn_size = size;
        C->nconn = (size_t)c;
        st = values(L, C->nconn, size, 1, sg, what, &C->conn, &C->conn_at);
      }
    }
    if (st == CM_OK && !noff && C->nconn) {
      char w[400];
      value_where(L, C->off_at, 0, C->off_size, w, sizeof w);
      st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s: %s OFFSETS: no offsets for %zu "
                    "connectivity values",
                    w, kw, C->nconn);
    }
    if (st == CM_OK && noff) {
      C->end = C->off + 1;
      C->ncell = noff - 1;
      C->first = C->off[0];
    }
    return st;
  }

  /* the 4.x layout: per cell a count then the indices, all int */
  double* raw = NULL;
  snprintf(what, sizeof what, "%s", kw);
  st = values(L, (size_t)c, 4, 1, 1, what, &raw, &C->raw_at);
  size_t ncell = (size_t)a, i = 0, cell = 0;
  /* each cell takes one value at least (its count): more cells than values is an error before
   * the cell ends are allocated (a count of 2^31 cells would take 16 GiB) */
  if (st == CM_OK && a > c)
    st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                  "%s:%d: %s: %lld cells announced, but the size is %lld values (a count each at "
                  "least)",
                  L->path, L->kwline, kw, a, c);
  if (st == CM_OK) {
    C->end = cm_malloc((ncell ? ncell : 1) * sizeof(double));
    C->conn = cm_malloc((c ? (size_t)c : 1) * sizeof(double));
    if (!C->end || !C->conn)
      st = cm_error(L->err, L->errsz, CM_ERR_NOMEM, "%s: out of memory", L->path);
  }
  for (; st == CM_OK && cell < ncell; cell++) {
    double k = i < (size_t)c ? raw[i] : -1;
    if (i >= (size_t)c || !(k >= 0 && k <= (double)((size_t)c - i - 1))) {
      char w[400];
      value_where(L, C->raw_at, i < (size_t)c ? i : (size_t)c, 4, w, sizeof w);
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
    memcpy(C->conn + C->nconn, raw + i + 1, (size_t)k * sizeof(double));
    C->nconn += (size_t)k;
    C->end[cell] = (double)C->nconn;
    i += 1 + (size_t)k;
  }
  if (st == CM_OK && i != (size_t)c) {
    char w[400];
    value_where(L, C->raw_at, i, 4, w, sizeof w);
    st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                  "%s: %s: %zu cells take %zu values, but the size is %lld", w, kw, ncell, i, c);
  }
  C->ncell = ncell;
  cm_free(raw);
  return st;
}

/* what a file holds: its points (scaled, finite) and, by dataset, the surface or the tets */
typedef struct Geometry {
  int ugrid;        /* UNSTRUCTURED_GRID (else POLYDATA) */
  double* pts;      /* npts x 3 */
  long long npts;   /* -1 before POINTS */
  cmMeshBuilder mb; /* POLYDATA */
  cmTetBuilder tb;  /* UNSTRUCTURED_GRID */
} Geometry;

static cmStatus read_points(Vtk* L, double scale, Geometry* g) {
  char tok[64];
  size_t at;
  long long n;
  int isint, sg, size = 0;
  if (g->npts >= 0) return fail(L, "a second POINTS section%s%s", "", "");
  cmStatus st = count_arg(L, "POINTS", "point count", &n);
  if (st != CM_OK) return st;
  int r = token(L, tok, sizeof tok, &at);
  if (r > 0) size = type_of(tok, &isint, &sg);
  if (!size || isint)
    return fail(L, "POINTS: bad or missing type '%.40s' (float or double)%s", r > 0 ? tok : "", "");
  if ((st = end_of_line(L)) != CM_OK) return st;
  size_t p_at;
  st = values(L, 3 * (size_t)n, size, 0, 1, "POINTS", &g->pts, &p_at);
  g->npts = n;
  for (long long i = 0; st == CM_OK && i < n; i++) {
    double* x = g->pts + 3 * i;
    for (int k = 0; k < 3; k++)
      x[k] *= scale;
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
      char w[400];
      value_where(L, p_at, 3 * (size_t)i, size, w, sizeof w);
      st = cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s: POINTS: point %lld times the scale %g is not finite", w, i, scale);
    } else if (!g->ugrid && (st = cm_mb_add_vert(&g->mb, x)) != CM_OK) {
      st = cm_error(L->err, L->errsz, st, "%s: out of memory", L->path);
    }
  }
  return st;
}

/* the tets of CELLS and CELL_TYPES (after the keyword CELL_TYPES) */
static cmStatus cell_types(Vtk* L, Cells* C, Geometry* g) {
  long long n;
  cmStatus st = count_arg(L, "CELL_TYPES", "cell count", &n);
  if (st != CM_OK) return st;
  if (!C->have) return fail(L, "CELL_TYPES before CELLS%s%s", "", "");
  if ((size_t)n != C->ncell)
    return cm_error(L->err, L->errsz, CM_ERR_PARSE,
                    "%s:%d: CELL_TYPES: %lld types for the %zu cells of CELLS", L->path, L->line, n,
                    C->ncell);
  if ((st = end_of_line(L)) != CM_OK) return st;
  double* types;
  size_t t_at;
  if ((st = values(L, (size_t)n, 4, 1, 1, "CELL_TYPES", &types, &t_at)) != CM_OK) return st;
  cmVtkCellError e;
  st = cm_io_vtk_tets(&g->tb, C->end, C->ncell, C->first, C->conn, C->nconn, types, g->npts, &e);
  if (st != CM_OK) {
    char w[400];
    if (e.array == 2)
      value_where(L, t_at, e.index, 4, w, sizeof w);
    else
      cell_where(L, C, &e, w, sizeof w);
    const char* what = e.array == 2 ? "CELL_TYPES"
                       : !C->v51    ? "CELLS"
                       : e.array    ? "CELLS CONNECTIVITY"
                                    : "CELLS OFFSETS";
    st = cm_error(L->err, L->errsz, st, "%s: %s: %s", w, what, e.msg);
  }
  cm_free(types);
  return st;
}

static cmStatus parse(const char* path, char* buf, size_t len, double scale, Geometry* g, char* err,
                      size_t errsz) {
  Vtk L = {path, buf, len, cm_io_bom(buf, len), 1, 1, 0, err, errsz};
  const char* dataset = g->ugrid ? "UNSTRUCTURED_GRID" : "POLYDATA";

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
    return fail(&L, "expected 'DATASET %s', found '%.40s'", dataset, r > 0 ? tok : "");
  r = token(&L, tok, sizeof tok, &at);
  if (r <= 0 || strcmp(tok, dataset))
    return fail(&L, "DATASET %.40s is not supported: %s", r > 0 ? tok : "(none)",
                g->ugrid ? "a tet mesh is read from DATASET UNSTRUCTURED_GRID"
                         : "a mesh is read from DATASET POLYDATA");

  /* the sections, up to the end of the file or the point and cell data */
  cmStatus st = CM_OK;
  int nsurf = 0, ntypes = 0;
  Cells C = {0};
  while (st == CM_OK && (r = token(&L, tok, sizeof tok, &at)) != 0) {
    L.kwline = L.line;
    if (r < 0) {
      st = fail(&L, "unknown keyword '%.40s...'%s", tok, "");
    } else if (!strcmp(tok, "POINTS")) {
      st = read_points(&L, scale, g);
    } else if (!g->ugrid && (!strcmp(tok, "POLYGONS") || !strcmp(tok, "TRIANGLE_STRIPS"))) {
      int strip = tok[0] == 'T';
      const char* kw = strip ? "TRIANGLE_STRIPS" : "POLYGONS";
      if ((st = cells(&L, kw, g->npts, &C)) == CM_OK) {
        cmVtkCellError e;
        st = cm_io_vtk_cells(&g->mb, C.end, C.ncell, C.first, C.conn, C.nconn, g->npts, strip, &e);
        if (st != CM_OK) {
          char w[400];
          cell_where(&L, &C, &e, w, sizeof w);
          if (C.v51)
            st = cm_error(err, errsz, st, "%s: %s %s: %s", w, kw,
                          e.array ? "CONNECTIVITY" : "OFFSETS", e.msg);
          else
            st = cm_error(err, errsz, st, "%s: %s: %s", w, kw, e.msg);
        }
      }
      cells_free(&C);
      nsurf = 1;
    } else if (!g->ugrid && (!strcmp(tok, "VERTICES") || !strcmp(tok, "LINES"))) {
      st = cells(&L, tok[0] == 'V' ? "VERTICES" : "LINES", g->npts < 0 ? 0 : g->npts, &C);
      cells_free(&C);
    } else if (g->ugrid && !strcmp(tok, "CELLS")) {
      if (C.have)
        st = fail(&L, "a second CELLS section%s%s", "", "");
      else
        st = cells(&L, "CELLS", g->npts, &C);
    } else if (g->ugrid && !strcmp(tok, "CELL_TYPES")) {
      st = ntypes++ ? fail(&L, "a second CELL_TYPES section%s%s", "", "") : cell_types(&L, &C, g);
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
      st = fail(&L, "unknown keyword '%.40s' (expected %s)", tok,
                g->ugrid ? "POINTS, CELLS, CELL_TYPES, METADATA, POINT_DATA or CELL_DATA"
                         : "POINTS, POLYGONS, TRIANGLE_STRIPS, VERTICES, LINES, METADATA, "
                           "POINT_DATA or CELL_DATA");
    }
  }
  cells_free(&C);
  if (st == CM_OK && g->npts < 0)
    st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: end of the geometry without a POINTS section",
                  path, L.line);
  if (st == CM_OK && !g->ugrid && !nsurf)
    st = cm_error(err, errsz, CM_ERR_PARSE,
                  "%s:%d: end of the geometry without a POLYGONS or TRIANGLE_STRIPS section: no "
                  "surface to read",
                  path, L.line);
  if (st == CM_OK && g->ugrid && !ntypes)
    st = cm_error(err, errsz, CM_ERR_PARSE,
                  "%s:%d: end of the geometry without %s section: no cells to read", path, L.line,
                  C.have ? "a CELL_TYPES" : "CELLS and CELL_TYPES");
  return st;
}

cmStatus cm_mesh_read_vtk(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  Geometry g = {0};
  g.npts = -1;
  cmStatus st = parse(path, buf, len, scale, &g, err, errsz);
  if (st == CM_OK) {
    *out = cm_mb_finish(&g.mb);
    if (!*out) st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  }
  cm_mb_free(&g.mb);
  cm_free(g.pts);
  return st;
}

cmStatus cm_tetmesh_read_vtk(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz) {
  *out = NULL;
  Geometry g = {0};
  g.npts = -1;
  g.ugrid = 1;
  cmStatus st = parse(path, buf, len, scale, &g, err, errsz);
  if (st == CM_OK)
    st = cm_tb_finish(&g.tb, path, g.pts, (size_t)g.npts, cm_io_vtk_cell_name, out, err, errsz);
  cm_tb_free(&g.tb);
  cm_free(g.pts);
  return st;
}
