/* VTK XML PolyData reader (.vtp), the format of OpenSim's geometry files, and UnstructuredGrid
 * reader (.vtu, tetrahedral meshes: cm_tetmesh_read_vtu at the end).
 *
 * The file is XML:
 *   <VTKFile type="PolyData" byte_order="LittleEndian|BigEndian" header_type="UInt32|UInt64"
 *            compressor="vtkZLibDataCompressor">
 *     <PolyData><Piece NumberOfPoints="N" NumberOfPolys="P" NumberOfStrips="S" ...>
 *       <Points><DataArray type="Float32" NumberOfComponents="3" format="..."/></Points>
 *       <Polys><DataArray Name="connectivity" .../><DataArray Name="offsets" .../></Polys>
 *       <Strips> the same </Strips>
 *       PointData, CellData, Verts, Lines: ignored
 *     </Piece></PolyData>
 *     <AppendedData encoding="raw|base64">_DATA</AppendedData>
 *   </VTKFile>
 * A DataArray's values are, by its `format`:
 *   ascii     whitespace-separated decimal numbers in the element's text;
 *   binary    base64 in the element's text: without a compressor, one header integer (the byte
 *             count; header_type, default UInt32) then the bytes; with vtkZLibDataCompressor a
 *             header [nblocks, block size, size of the last block (0: full), compressed size
 *             of each block] and the zlib streams of the blocks one after the other;
 *   appended  the same header and bytes at byte `offset` after the '_' that starts the
 *             AppendedData, raw or (encoding="base64") base64, where offset counts characters.
 * Base64 is decoded four characters at a time, so that a header and its data encoded as two
 * base64 strings (as VTK writes compressed arrays) and as one both read. Numbers are in the file's
 * byte order, of any VTK scalar type (Int8 .. UInt64, Float32, Float64); connectivity and offsets
 * must be integers. offsets[i] is the end of cell i in connectivity (cell 0 starts at 0).
 * Polygons are fan-triangulated and strips split into triangles (mesh_vtk_cells.c).
 *
 * UnstructuredGrid (type="UnstructuredGrid", <UnstructuredGrid><Piece NumberOfPoints
 * NumberOfCells>) has the same Points and a <Cells> element with three DataArrays:
 * connectivity, offsets (as for Polys) and types (one VTK cell type per cell: 10 is VTK_TETRA,
 * kept; the others are counted and skipped, mesh_vtk_cells.c).
 *
 * The XML is read by a small tokenizer of its own: elements, attributes in single or double
 * quotes, comments, processing instructions and declarations (skipped); the start and end tags
 * must match. Only the elements above are interpreted; one Piece. Entity references are not
 * expanded (no attribute of interest contains one). A DataArray's data is its text after its
 * last child element (VTK 9 writes InformationKey children, ranges of the array, before it).
 *
 * Robustness: every count is checked against what the file holds before anything is allocated
 * (ascii: at most one value per two characters; raw: the bytes; base64: 3 bytes per 4 characters;
 * zlib: at most 1032 bytes out per byte in, the format's limit), against the declared
 * NumberOfPoints and the header's byte count, and against CM_MESH_MAX_ELEMENTS; each block
 * inflates to exactly its declared size. Errors name the file and the line (ascii values, XML
 * structure) or the byte offset (binary data), and the array. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/internal.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

#define MAX_DEPTH 32
#define MAX_ATTR 24
#define ZLIB_RATIO 1032 /* deflate's largest expansion on inflation */

enum { T_I8 = 1, T_U8, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64, T_F32, T_F64 };
static const char* const type_names[] = {"",       "Int8",  "UInt8",  "Int16",   "UInt16", "Int32",
                                         "UInt32", "Int64", "UInt64", "Float32", "Float64"};
static const int type_size[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

enum { F_ASCII = 1, F_BINARY, F_APPENDED };
enum { S_NONE, S_POINTS, S_POLYS, S_STRIPS, S_CELLS, S_OTHER };

/* one DataArray of interest */
typedef struct Arr {
  int found;
  int type, ncomp, format;
  size_t start, end; /* the element's text (inline formats) */
  long long offset;  /* appended: offset after the '_' */
  int line;          /* line of the start tag */
  const char* what;  /* "Points", "Polys connectivity", ... */
} Arr;

typedef struct Vtp {
  const char* path;
  const char* buf;
  size_t len;
  char* err;
  size_t errsz;
  int big;      /* BigEndian */
  int hsize;    /* header integer size: 4 or 8 */
  int zlib;     /* vtkZLibDataCompressor */
  int appended; /* AppendedData found: 0 none, 1 raw, 2 base64 */
  size_t app;   /* offset of the first byte after '_' */
  int npiece, piece_line;
  int root_seen;                   /* the VTKFile start tag was read */
  int ugrid;                       /* UnstructuredGrid (cm_tetmesh_read_vtu), else PolyData */
  long long npts, npolys, nstrips; /* UnstructuredGrid: npolys is NumberOfCells */
  Arr pts, conn[2], offs[2];       /* [0] Polys or Cells, [1] Strips */
  Arr types;                       /* the Cells' types */
} Vtp;

/* ---- messages ---- */

static cmStatus fail_line(const Vtp* V, size_t off, const char* fmt, const char* a, const char* b) {
  char msg[400];
  snprintf(msg, sizeof msg, fmt, a, b);
  return cm_error(V->err, V->errsz, CM_ERR_PARSE, "%s:%d: %s", V->path, cm_io_line_of(V->buf, off),
                  msg);
}

static cmStatus fail_byte(const Vtp* V, size_t off, const char* what, const char* msg) {
  return cm_error(V->err, V->errsz, CM_ERR_PARSE, "%s: byte offset %zu: %s: %s", V->path, off, what,
                  msg);
}

/* ---- the XML tokenizer ---- */

typedef struct Attr {
  const char *name, *val;
  size_t nlen, vlen;
} Attr;

typedef struct Tag {
  const char* name;
  size_t nlen;
  int end, empty; /* </name>, <name/> */
  int nattr;
  Attr attr[MAX_ATTR];
} Tag;

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_name(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':' || c == '.' || c == '-';
}

static int name_is(const char* s, size_t n, const char* lit) {
  return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* the value of attribute `name` copied into out (truncated to outsz - 1); 0 if absent */
static int attr(const Tag* t, const char* name, char* out, size_t outsz) {
  for (int i = 0; i < t->nattr; i++)
    if (name_is(t->attr[i].name, t->attr[i].nlen, name)) {
      size_t n = t->attr[i].vlen < outsz - 1 ? t->attr[i].vlen : outsz - 1;
      memcpy(out, t->attr[i].val, n);
      out[n] = 0;
      return 1 + (t->attr[i].vlen >= outsz);
    }
  return 0;
}

/* skip from *pos (at '<') to the end of a comment, declaration or processing instruction;
 * 1 if it was one, -1 if unterminated */
static int skip_special(const Vtp* V, size_t* pos) {
  const char* s = V->buf + *pos;
  size_t left = V->len - *pos;
  const char* close;
  if (left >= 4 && !memcmp(s, "<!--", 4))
    close = "-->";
  else if (left >= 9 && !memcmp(s, "<![CDATA[", 9))
    close = "]]>";
  else if (left >= 2 && s[1] == '?')
    close = "?>";
  else if (left >= 2 && s[1] == '!')
    close = ">";
  else
    return 0;
  size_t cl = strlen(close);
  for (size_t i = 2; i + cl <= left; i++)
    if (!memcmp(s + i, close, cl)) {
      *pos += i + cl;
      return 1;
    }
  return -1;
}

/* parse the tag at *pos ('<'), advancing past its '>' */
static cmStatus parse_tag(const Vtp* V, size_t* pos, Tag* t) {
  size_t at = *pos, i = at + 1;
  const char* b = V->buf;
  memset(t, 0, sizeof *t);
  if (i < V->len && b[i] == '/') {
    t->end = 1;
    i++;
  }
  t->name = b + i;
  while (i < V->len && is_name(b[i]))
    i++;
  t->nlen = (size_t)(b + i - t->name);
  if (!t->nlen) return fail_line(V, at, "bad tag: no element name after '<'%s%s", "", "");
  for (;;) {
    while (i < V->len && is_ws(b[i]))
      i++;
    if (i >= V->len) return fail_line(V, at, "end of file inside the tag <%.40s%s", t->name, "");
    if (b[i] == '>') {
      *pos = i + 1;
      return CM_OK;
    }
    if (b[i] == '/' && !t->end && i + 1 < V->len && b[i + 1] == '>') {
      t->empty = 1;
      *pos = i + 2;
      return CM_OK;
    }
    if (t->end || !is_name(b[i]))
      return fail_line(V, i, "bad character in the tag <%.40s%s>", t->name, "");
    if (t->nattr == MAX_ATTR)
      return fail_line(V, i, "more than 24 attributes in the tag <%.40s%s>", t->name, "");
    Attr* a = &t->attr[t->nattr++];
    a->name = b + i;
    while (i < V->len && is_name(b[i]))
      i++;
    a->nlen = (size_t)(b + i - a->name);
    while (i < V->len && is_ws(b[i]))
      i++;
    if (i >= V->len || b[i] != '=')
      return fail_line(V, i, "attribute without '=\"value\"' in the tag <%.40s%s>", t->name, "");
    i++;
    while (i < V->len && is_ws(b[i]))
      i++;
    if (i >= V->len || (b[i] != '"' && b[i] != '\''))
      return fail_line(V, i, "attribute value not in quotes in the tag <%.40s%s>", t->name, "");
    char q = b[i++];
    a->val = b + i;
    while (i < V->len && b[i] != q && b[i] != '<')
      i++;
    if (i >= V->len || b[i] != q)
      return fail_line(V, at, "unterminated attribute value in the tag <%.40s%s>", t->name, "");
    a->vlen = (size_t)(b + i - a->val);
    i++;
  }
}

/* ---- attributes of interest ---- */

static int parse_type(const char* s) {
  for (int i = 1; i <= T_F64; i++)
    if (!strcmp(s, type_names[i])) return i;
  return 0;
}

/* a non-negative integer attribute (absent: def) */
static cmStatus count_attr(const Vtp* V, const Tag* t, size_t at, const char* name, long long def,
                           long long* out) {
  char v[64];
  int has = attr(t, name, v, sizeof v);
  if (!has) {
    *out = def;
    return CM_OK;
  }
  long long x;
  if (has > 1 || !cm_io_parse_llong(v, &x) || x < 0)
    return fail_line(V, at, "%s=\"%.40s\" is not a non-negative integer", name, v);
  if (x > CM_MESH_MAX_ELEMENTS)
    return cm_error(V->err, V->errsz, CM_ERR_LIMIT,
                    "%s:%d: %s=\"%s\" is more than the limit 2147483647", V->path,
                    cm_io_line_of(V->buf, at), name, v);
  *out = x;
  return CM_OK;
}

static cmStatus root_attrs(Vtp* V, const Tag* t, size_t at) {
  char v[64];
  const char* want = V->ugrid ? "UnstructuredGrid" : "PolyData";
  if (!attr(t, "type", v, sizeof v) || strcmp(v, want))
    return fail_line(V, at, "VTKFile type=\"%.40s\" is not supported: this file must hold %s",
                     attr(t, "type", v, sizeof v) ? v : "(none)", want);
  V->big = 0;
  if (attr(t, "byte_order", v, sizeof v)) {
    if (!strcmp(v, "BigEndian"))
      V->big = 1;
    else if (strcmp(v, "LittleEndian"))
      return fail_line(V, at, "byte_order=\"%.40s\" (expected LittleEndian or BigEndian)%s", v, "");
  }
  V->hsize = 4;
  if (attr(t, "header_type", v, sizeof v)) {
    if (!strcmp(v, "UInt64"))
      V->hsize = 8;
    else if (strcmp(v, "UInt32"))
      return fail_line(V, at, "header_type=\"%.40s\" (expected UInt32 or UInt64)%s", v, "");
  }
  if (attr(t, "compressor", v, sizeof v) && v[0]) {
    if (strcmp(v, "vtkZLibDataCompressor"))
      return fail_line(V, at,
                       "compressor=\"%.40s\" is not supported (only vtkZLibDataCompressor; write "
                       "the file uncompressed or with zlib)%s",
                       v, "");
    V->zlib = 1;
  }
  return CM_OK;
}

static cmStatus array_attrs(Vtp* V, const Tag* t, size_t at, int section) {
  char name[64] = "", v[64] = "";
  attr(t, "Name", name, sizeof name);
  Arr* a;
  int k = section == S_STRIPS;
  if (section == S_POINTS)
    a = &V->pts;
  else if (section == S_CELLS && !strcmp(name, "types"))
    a = &V->types;
  else if (!strcmp(name, "connectivity"))
    a = &V->conn[k];
  else if (!strcmp(name, "offsets"))
    a = &V->offs[k];
  else
    return CM_OK; /* another array of Polys or Strips */
  static const char* const what[2][2] = {{"Polys connectivity", "Polys offsets"},
                                         {"Strips connectivity", "Strips offsets"}};
  const char* w = section == S_POINTS  ? "Points"
                  : section != S_CELLS ? what[k][a == &V->offs[k]]
                  : a == &V->types     ? "Cells types"
                  : a == &V->offs[0]   ? "Cells offsets"
                                       : "Cells connectivity";
  if (a->found) return fail_line(V, at, "a second %s DataArray%s", w, "");
  a->found = 1;
  a->what = w;
  a->line = cm_io_line_of(V->buf, at);
  if (!attr(t, "type", v, sizeof v) || !(a->type = parse_type(v)))
    return fail_line(V, at,
                     "%s DataArray: bad or missing type=\"%.40s\" (Int8 .. UInt64, Float32, "
                     "Float64)",
                     w, v);
  long long nc;
  cmStatus st = count_attr(V, t, at, "NumberOfComponents", 1, &nc);
  if (st != CM_OK) return st;
  a->ncomp = (int)(nc < 100 ? nc : 100);
  if (section == S_POINTS && nc != 3)
    return fail_line(V, at, "Points DataArray has NumberOfComponents=\"%s\", expected 3%s",
                     attr(t, "NumberOfComponents", v, sizeof v) ? v : "1", "");
  if (section != S_POINTS && (nc != 1 || a->type >= T_F32))
    return fail_line(V, at, "%s DataArray must be one integer per value (type=\"%.40s\")", w,
                     type_names[a->type]);
  a->format = F_ASCII;
  if (attr(t, "format", v, sizeof v)) {
    if (!strcmp(v, "binary"))
      a->format = F_BINARY;
    else if (!strcmp(v, "appended"))
      a->format = F_APPENDED;
    else if (strcmp(v, "ascii"))
      return fail_line(V, at, "%s DataArray: format=\"%.40s\" (expected ascii, binary or appended)",
                       w, v);
  }
  if (a->format == F_APPENDED) {
    if (!attr(t, "offset", v, sizeof v))
      return fail_line(V, at, "%s DataArray: format=\"appended\" without an offset%s", w, "");
    if (!cm_io_parse_llong(v, &a->offset) || a->offset < 0)
      return fail_line(V, at, "%s DataArray: offset=\"%.40s\" is not a non-negative integer", w, v);
  }
  return CM_OK;
}

/* ---- the XML structure ---- */

/* 1 if the open element at depth d is named name[0..n) */
static int stack_is(const char* const* stack, const size_t* slen, int d, const char* name,
                    size_t n) {
  return slen[d] == n && memcmp(stack[d], name, n) == 0;
}

static cmStatus scan(Vtp* V) {
  const char* dataset = V->ugrid ? "UnstructuredGrid" : "PolyData";
  const char* stack[MAX_DEPTH];
  size_t slen[MAX_DEPTH];
  int depth = 0, section = S_NONE;
  Arr* open_arr = NULL;
  size_t pos = cm_io_bom(V->buf, V->len);
  while (pos < V->len) {
    const char* lt = memchr(V->buf + pos, '<', V->len - pos);
    if (!lt) {
      /* only whitespace may follow the root */
      for (size_t i = pos; i < V->len; i++)
        if (!is_ws(V->buf[i]) && depth == 0)
          return fail_line(V, i,
                           V->root_seen ? "text after the end of the VTKFile element%s%s"
                                        : "not a VTK XML file: text before any <VTKFile> "
                                          "element%s%s",
                           "", "");
      break;
    }
    size_t at = (size_t)(lt - V->buf);
    int sp = skip_special(V, &at);
    if (sp < 0) return fail_line(V, at, "unterminated comment or declaration%s%s", "", "");
    if (sp) {
      pos = at;
      continue;
    }
    Tag t;
    size_t next = at;
    cmStatus st = parse_tag(V, &next, &t);
    if (st != CM_OK) return st;
    if (t.end) {
      if (!depth || !stack_is(stack, slen, depth - 1, t.name, t.nlen))
        return cm_error(V->err, V->errsz, CM_ERR_PARSE,
                        "%s:%d: end tag </%.*s> does not match the open element <%.*s>", V->path,
                        cm_io_line_of(V->buf, at), (int)(t.nlen < 40 ? t.nlen : 40), t.name,
                        depth ? (int)(slen[depth - 1] < 40 ? slen[depth - 1] : 40) : 0,
                        depth ? stack[depth - 1] : "");
      depth--;
      if (open_arr && depth == 4) {
        open_arr->end = at;
        open_arr = NULL;
      }
      /* a child of the open DataArray (VTK 9 writes InformationKey elements before the data):
       * the data is the text after it */
      if (open_arr && depth == 5) open_arr->start = next;
      if (depth == 3) section = S_NONE;
      pos = next;
      continue;
    }

    /* a start tag: what it is depends on where */
    if (depth == 0) {
      if (!name_is(t.name, t.nlen, "VTKFile"))
        return fail_line(V, at, "not a VTK XML file: the root element is <%.40s>, not <VTKFile>",
                         t.name, "");
      if (V->root_seen) return fail_line(V, at, "a second root element <VTKFile>%s%s", "", "");
      V->root_seen = 1;
      if ((st = root_attrs(V, &t, at)) != CM_OK) return st;
    } else if (depth == 1 && name_is(t.name, t.nlen, "AppendedData")) {
      char v[64] = "raw";
      attr(&t, "encoding", v, sizeof v);
      if (strcmp(v, "raw") && strcmp(v, "base64"))
        return fail_line(V, at, "AppendedData encoding=\"%.40s\" (expected raw or base64)%s", v,
                         "");
      size_t u = next;
      while (u < V->len && is_ws(V->buf[u]))
        u++;
      if (t.empty || u >= V->len || V->buf[u] != '_')
        return fail_line(V, next, "AppendedData does not start with '_'%s%s", "", "");
      V->appended = strcmp(v, "raw") ? 2 : 1;
      V->app = u + 1;
      return CM_OK; /* the rest of the file is data */
    } else if (depth == 1 && name_is(t.name, t.nlen, dataset)) {
    } else if (depth == 2 && name_is(t.name, t.nlen, "Piece") &&
               stack_is(stack, slen, 1, dataset, strlen(dataset))) {
      if (++V->npiece > 1)
        return fail_line(V, at, "a second Piece: only one Piece per file is read%s%s", "", "");
      V->piece_line = cm_io_line_of(V->buf, at);
      if ((st = count_attr(V, &t, at, "NumberOfPoints", 0, &V->npts)) != CM_OK ||
          (st = count_attr(V, &t, at, V->ugrid ? "NumberOfCells" : "NumberOfPolys", 0,
                           &V->npolys)) != CM_OK ||
          (!V->ugrid && (st = count_attr(V, &t, at, "NumberOfStrips", 0, &V->nstrips)) != CM_OK))
        return st;
    } else if (depth == 3 && stack_is(stack, slen, 2, "Piece", 5)) {
      section = name_is(t.name, t.nlen, "Points")                ? S_POINTS
                : !V->ugrid && name_is(t.name, t.nlen, "Polys")  ? S_POLYS
                : !V->ugrid && name_is(t.name, t.nlen, "Strips") ? S_STRIPS
                : V->ugrid && name_is(t.name, t.nlen, "Cells")   ? S_CELLS
                                                                 : S_OTHER;
    } else if (depth == 4 && section != S_NONE && section != S_OTHER &&
               name_is(t.name, t.nlen, "DataArray")) {
      Arr* before[6] = {&V->pts, &V->conn[0], &V->conn[1], &V->offs[0], &V->offs[1], &V->types};
      int found[6];
      for (int i = 0; i < 6; i++)
        found[i] = before[i]->found;
      if ((st = array_attrs(V, &t, at, section)) != CM_OK) return st;
      for (int i = 0; i < 6; i++)
        if (!found[i] && before[i]->found) {
          open_arr = before[i];
          open_arr->start = next;
          open_arr->end = next;
        }
      if (t.empty) open_arr = NULL;
    }
    if (open_arr && depth == 5 && t.empty) open_arr->start = next; /* an empty child */
    if (!t.empty) {
      if (depth == MAX_DEPTH)
        return fail_line(V, at, "elements nested more than 32 deep%s%s", "", "");
      stack[depth] = t.name;
      slen[depth] = t.nlen;
      depth++;
    } else if (depth == 3) {
      section = S_NONE;
    }
    pos = next;
  }
  if (depth)
    return cm_error(V->err, V->errsz, CM_ERR_PARSE, "%s:%d: end of file inside <%.*s>", V->path,
                    cm_io_line_of(V->buf, V->len),
                    (int)(slen[depth - 1] < 40 ? slen[depth - 1] : 40), stack[depth - 1]);
  if (!V->npiece)
    return cm_error(V->err, V->errsz, CM_ERR_PARSE,
                    "%s:%d: no <VTKFile><%s><Piece> found before the end of the file", V->path,
                    cm_io_line_of(V->buf, V->len), dataset);
  return CM_OK;
}

/* ---- byte sources: raw bytes or base64 ---- */

typedef struct Src {
  const unsigned char *p, *end, *base;
  int b64;
  unsigned char pend[3];
  int npend, ipend;
} Src;

static int b64_val(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* the bytes the source can still give at most */
static size_t src_left(const Src* s) {
  size_t n = (size_t)(s->end - s->p);
  return (s->b64 ? n / 4 * 3 + 3 : n) + (size_t)(s->npend - s->ipend);
}

/* n bytes into out: 1, or 0 at the end of the data, -1 on a character that is not base64 (*bad:
 * its offset from base) */
static int src_read(Src* s, unsigned char* out, size_t n, size_t* bad) {
  if (!s->b64) {
    if ((size_t)(s->end - s->p) < n) return 0;
    memcpy(out, s->p, n);
    s->p += n;
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    if (s->ipend == s->npend) {
      /* the next group of four characters; '=' ends a group early */
      int v[4], k = 0;
      const unsigned char* g = NULL;
      while (k < 4) {
        while (s->p < s->end && is_ws((char)*s->p))
          s->p++;
        if (s->p >= s->end) return 0;
        if (!g) g = s->p;
        int x = *s->p == '=' ? -2 : b64_val(*s->p);
        if (x == -1 || (x == -2 && k < 2) || (x >= 0 && k > 0 && v[k - 1] == -2)) {
          *bad = (size_t)(s->p - s->base);
          return -1;
        }
        v[k++] = x;
        s->p++;
      }
      unsigned w = ((unsigned)v[0] << 18) | ((unsigned)v[1] << 12) |
                   ((unsigned)(v[2] < 0 ? 0 : v[2]) << 6) | (unsigned)(v[3] < 0 ? 0 : v[3]);
      s->pend[0] = (unsigned char)(w >> 16);
      s->pend[1] = (unsigned char)(w >> 8);
      s->pend[2] = (unsigned char)w;
      s->npend = v[2] < 0 ? 1 : v[3] < 0 ? 2 : 3;
      s->ipend = 0;
    }
    out[i] = s->pend[s->ipend++];
  }
  return 1;
}

/* an unsigned integer of sz bytes in the file's byte order */
static uint64_t get_uint(const Vtp* V, const unsigned char* b, int sz) {
  uint64_t u = 0;
  for (int k = 0; k < sz; k++)
    u |= (uint64_t)b[V->big ? sz - 1 - k : k] << (8 * k);
  return u;
}

/* value i of a decoded byte array of type t */
static double get_value(const Vtp* V, const unsigned char* b, int t) {
  int sz = type_size[t];
  uint64_t u = get_uint(V, b, sz);
  switch (t) {
  case T_I8:
    return (int8_t)(uint8_t)u;
  case T_U8:
    return (uint8_t)u;
  case T_I16:
    return (int16_t)(uint16_t)u;
  case T_U16:
    return (uint16_t)u;
  case T_I32:
    return (int32_t)(uint32_t)u;
  case T_U32:
    return (uint32_t)u;
  case T_I64:
    return (double)(int64_t)u;
  case T_U64:
    return (double)u;
  case T_F32: {
    uint32_t u32 = (uint32_t)u;
    float f;
    memcpy(&f, &u32, sizeof f);
    return f;
  }
  default: {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
  }
  }
}

/* ---- decoding one array into doubles ---- */

/* ascii: the whitespace-separated numbers of [a->start, a->end); `expect` values (< 0: any) */
static cmStatus decode_ascii(const Vtp* V, const Arr* a, long long expect, double** out,
                             size_t* n) {
  const char* b = V->buf;
  size_t cnt = 0;
  for (size_t i = a->start; i < a->end;) {
    while (i < a->end && is_ws(b[i]))
      i++;
    if (i >= a->end) break;
    cnt++;
    while (i < a->end && !is_ws(b[i]))
      i++;
  }
  if (expect >= 0 && cnt != (size_t)expect) {
    char msg[200];
    snprintf(msg, sizeof msg, "has %zu values, expected %lld", cnt, expect);
    return fail_line(V, a->start, "%s DataArray %s", a->what, msg);
  }
  if (cnt > CM_MESH_MAX_ELEMENTS)
    return cm_error(V->err, V->errsz, CM_ERR_LIMIT, "%s:%d: %s: more than 2147483647 values",
                    V->path, a->line, a->what);
  double* v = cm_malloc((cnt ? cnt : 1) * sizeof(double));
  if (!v) return CM_ERR_NOMEM;
  size_t k = 0;
  for (size_t i = a->start; i < a->end && k < cnt;) {
    while (i < a->end && is_ws(b[i]))
      i++;
    size_t s = i;
    while (i < a->end && !is_ws(b[i]))
      i++;
    char tok[72];
    size_t tl = i - s;
    int ok = tl < sizeof tok;
    if (ok) {
      memcpy(tok, b + s, tl);
      tok[tl] = 0;
      ok = cm_io_parse_double(tok, &v[k]);
    } else {
      memcpy(tok, b + s, 40);
      tok[40] = 0;
    }
    if (ok && a->type < T_F32 && v[k] != floor(v[k])) ok = 0;
    if (ok && !isfinite(v[k])) ok = 0;
    if (!ok) {
      cm_free(v);
      char msg[200];
      snprintf(msg, sizeof msg, "value %zu '%.40s' is not %s", k, tok,
               a->type < T_F32 ? "an integer" : "a finite decimal number");
      return fail_line(V, s, "%s DataArray: %s", a->what, msg);
    }
    k++;
  }
  *out = v;
  *n = cnt;
  return CM_OK;
}

/* binary (inline base64) or appended: header, then the bytes or the zlib blocks */
static cmStatus decode_binary(const Vtp* V, const Arr* a, long long expect, double** out,
                              size_t* n) {
  Src s = {0};
  s.base = (const unsigned char*)V->buf;
  size_t at; /* byte offset of the data, for messages */
  if (a->format == F_BINARY) {
    s.p = s.base + a->start;
    s.end = s.base + a->end;
    s.b64 = 1;
    at = a->start;
    while (at < a->end && is_ws(V->buf[at]))
      at++;
  } else {
    if (!V->appended)
      return fail_line(V, a->start,
                       "%s DataArray: format=\"appended\" but the file has no "
                       "AppendedData%s",
                       a->what, "");
    if ((unsigned long long)a->offset > V->len - V->app)
      return cm_error(V->err, V->errsz, CM_ERR_PARSE,
                      "%s:%d: %s DataArray: offset=\"%lld\" is past the end of the file (%zu bytes "
                      "of appended data)",
                      V->path, a->line, a->what, a->offset, V->len - V->app);
    s.p = s.base + V->app + (size_t)a->offset;
    s.end = s.base + V->len;
    s.b64 = V->appended == 2;
    at = V->app + (size_t)a->offset;
  }
  char msg[240];
  int hs = V->hsize, es = type_size[a->type];
  unsigned char h[8];
  size_t bad = 0;
  int r;
#define READ(dst, nb)                                                                              \
  do {                                                                                             \
    r = src_read(&s, (dst), (nb), &bad);                                                           \
    if (r < 0) return fail_byte(V, bad, a->what, "a character that is not base64");                \
    if (r == 0) return fail_byte(V, at, a->what, "unexpected end of the data");                    \
  } while (0)

  unsigned char* bytes = NULL;
  size_t nbytes;
  if (!V->zlib) {
    READ(h, (size_t)hs);
    uint64_t nb = get_uint(V, h, hs);
    if (nb % (uint64_t)es || (expect >= 0 && nb != (uint64_t)expect * (uint64_t)es) ||
        nb > src_left(&s)) {
      if (nb % (uint64_t)es || (expect >= 0 && nb != (uint64_t)expect * (uint64_t)es))
        snprintf(msg, sizeof msg, "the header says %llu bytes, expected %s%lld values of %d bytes",
                 (unsigned long long)nb, expect >= 0 ? "" : "a multiple of 1 x ",
                 expect >= 0 ? expect : 1LL, es);
      else
        snprintf(msg, sizeof msg, "the header says %llu bytes but at most %zu follow",
                 (unsigned long long)nb, src_left(&s));
      return fail_byte(V, at, a->what, msg);
    }
    nbytes = (size_t)nb;
    bytes = cm_malloc(nbytes ? nbytes : 1);
    if (!bytes) return CM_ERR_NOMEM;
    r = src_read(&s, bytes, nbytes, &bad);
    if (r <= 0) {
      cm_free(bytes);
      return fail_byte(V, r < 0 ? bad : at, a->what,
                       r < 0 ? "a character that is not base64" : "unexpected end of the data");
    }
  } else {
    /* [nblocks, block size, last block size (0: full), compressed sizes] */
    uint64_t hd[3];
    for (int i = 0; i < 3; i++) {
      READ(h, (size_t)hs);
      hd[i] = get_uint(V, h, hs);
    }
    uint64_t nblk = hd[0], bs = hd[1], last = hd[2];
    if (nblk > src_left(&s) / (size_t)hs || bs > ((uint64_t)1 << 31) || last > bs ||
        (nblk && !bs)) {
      snprintf(msg, sizeof msg,
               "bad compression header: %llu blocks of %llu bytes, the last %llu bytes",
               (unsigned long long)nblk, (unsigned long long)bs, (unsigned long long)last);
      return fail_byte(V, at, a->what, msg);
    }
    uint64_t total = nblk ? (nblk - 1) * bs + (last ? last : bs) : 0;
    if (total % (uint64_t)es || (expect >= 0 && total != (uint64_t)expect * (uint64_t)es)) {
      snprintf(msg, sizeof msg,
               "the compression header says %llu bytes, expected %lld values of %d bytes",
               (unsigned long long)total, expect >= 0 ? expect : 0LL, es);
      return fail_byte(V, at, a->what, msg);
    }
    uint64_t* csz = cm_malloc((nblk ? nblk : 1) * sizeof(uint64_t));
    if (!csz) return CM_ERR_NOMEM;
    uint64_t csum = 0, cmax = 0;
    for (uint64_t i = 0; i < nblk; i++) {
      r = src_read(&s, h, (size_t)hs, &bad);
      if (r <= 0) {
        cm_free(csz);
        return fail_byte(V, r < 0 ? bad : at, a->what,
                         r < 0 ? "a character that is not base64" : "unexpected end of the data");
      }
      csz[i] = get_uint(V, h, hs);
      /* the sum stays below 2^40 + the bytes left: no overflow over up to 2^61 blocks */
      csum += csz[i] < ((uint64_t)1 << 40) ? csz[i] : ((uint64_t)1 << 40);
      if (csz[i] > cmax) cmax = csz[i];
      if (csum > src_left(&s)) break;
    }
    if (csum > src_left(&s) || total > csum * ZLIB_RATIO || total > ((uint64_t)1 << 34)) {
      snprintf(msg, sizeof msg,
               "the compressed blocks take %llu bytes and inflate to %llu, but at most %zu bytes "
               "follow (a zlib block inflates at most %dx)",
               (unsigned long long)csum, (unsigned long long)total, src_left(&s), ZLIB_RATIO);
      cm_free(csz);
      return fail_byte(V, at, a->what, msg);
    }
    nbytes = (size_t)total;
    bytes = cm_malloc(nbytes ? nbytes : 1);
    unsigned char* cbuf = cm_malloc(cmax ? (size_t)cmax : 1);
    if (!bytes || !cbuf) {
      cm_free(bytes);
      cm_free(cbuf);
      cm_free(csz);
      return CM_ERR_NOMEM;
    }
    size_t done = 0;
    for (uint64_t i = 0; i < nblk; i++) {
      size_t want = i + 1 == nblk && last ? (size_t)last : (size_t)bs;
      size_t blk_at = (size_t)(s.p - s.base);
      r = src_read(&s, cbuf, (size_t)csz[i], &bad);
      uLongf got = (uLongf)want;
      int zr = r > 0 ? uncompress(bytes + done, &got, cbuf, (uLong)csz[i]) : Z_OK;
      if (r <= 0 || zr != Z_OK || got != want) {
        if (r < 0)
          snprintf(msg, sizeof msg, "a character that is not base64");
        else if (r == 0)
          snprintf(msg, sizeof msg, "unexpected end of the data");
        else
          snprintf(msg, sizeof msg,
                   "zlib block %llu of %llu does not inflate to its %zu bytes (%s)",
                   (unsigned long long)i + 1, (unsigned long long)nblk, want,
                   zr == Z_OK          ? "short"
                   : zr == Z_BUF_ERROR ? "longer or cut"
                                       : "corrupt stream");
        cm_free(bytes);
        cm_free(cbuf);
        cm_free(csz);
        return fail_byte(V, r < 0 ? bad : blk_at, a->what, msg);
      }
      done += want;
    }
    cm_free(cbuf);
    cm_free(csz);
  }
#undef READ

  size_t cnt = nbytes / (size_t)es;
  if (cnt > CM_MESH_MAX_ELEMENTS) {
    cm_free(bytes);
    return cm_error(V->err, V->errsz, CM_ERR_LIMIT,
                    "%s: byte offset %zu: %s: more than "
                    "2147483647 values",
                    V->path, at, a->what);
  }
  double* v = cm_malloc((cnt ? cnt : 1) * sizeof(double));
  if (!v) {
    cm_free(bytes);
    return CM_ERR_NOMEM;
  }
  for (size_t i = 0; i < cnt; i++) {
    v[i] = get_value(V, bytes + i * (size_t)es, a->type);
    if (!isfinite(v[i])) {
      cm_free(bytes);
      cm_free(v);
      snprintf(msg, sizeof msg, "value %zu is not finite", i);
      return fail_byte(V, at, a->what, msg);
    }
  }
  cm_free(bytes);
  *out = v;
  *n = cnt;
  return CM_OK;
}

static cmStatus decode(const Vtp* V, const Arr* a, long long expect, double** out, size_t* n) {
  *out = NULL;
  *n = 0;
  cmStatus st = a->format == F_ASCII ? decode_ascii(V, a, expect, out, n)
                                     : decode_binary(V, a, expect, out, n);
  if (st == CM_ERR_NOMEM)
    st = cm_error(V->err, V->errsz, st, "%s:%d: %s: out of memory", V->path, a->line, a->what);
  return st;
}

/* where value `idx` of an array is, for messages: its line (ascii) or the array's data offset */
static void value_where(const Vtp* V, const Arr* a, size_t idx, char* w, size_t wsz) {
  if (a->format == F_ASCII) {
    size_t k = 0, i = a->start;
    for (; i < a->end; k++) {
      while (i < a->end && is_ws(V->buf[i]))
        i++;
      if (k == idx || i >= a->end) break;
      while (i < a->end && !is_ws(V->buf[i]))
        i++;
    }
    snprintf(w, wsz, "%s:%d", V->path, cm_io_line_of(V->buf, i));
  } else {
    size_t at = a->format == F_BINARY ? a->start : V->app + (size_t)a->offset;
    snprintf(w, wsz, "%s: byte offset %zu (the data of the array)", V->path, at);
  }
}

/* one kind of cell (0 Polys, 1 Strips) into the builder */
static cmStatus read_cells(const Vtp* V, int k, long long ncell, cmMeshBuilder* b) {
  static const char* const sec[2] = {"Polys", "Strips"};
  const Arr *c = &V->conn[k], *o = &V->offs[k];
  if (!ncell) return CM_OK;
  if (!c->found || !o->found)
    return cm_error(V->err, V->errsz, CM_ERR_PARSE,
                    "%s:%d: the Piece has %lld %s but no %s DataArray Name=\"%s\"", V->path,
                    V->piece_line, ncell, k ? "strips" : "polygons", sec[k],
                    c->found ? "offsets" : "connectivity");
  double *off = NULL, *conn = NULL;
  size_t noff, nconn;
  cmStatus st = decode(V, o, ncell, &off, &noff);
  if (st == CM_OK) st = decode(V, c, -1, &conn, &nconn);
  if (st == CM_OK) {
    cmVtkCellError e;
    st = cm_io_vtk_cells(b, off, noff, 0, conn, nconn, V->npts, k, &e);
    if (st != CM_OK) {
      char w[400];
      value_where(V, e.array ? c : o, e.index, w, sizeof w);
      st = cm_error(V->err, V->errsz, st, "%s: %s %s: %s", w, sec[k],
                    e.array ? "connectivity" : "offsets", e.msg);
    }
  }
  cm_free(off);
  cm_free(conn);
  return st;
}

/* the file's structure and arrays (ugrid: UnstructuredGrid, else PolyData), with Points */
static cmStatus open_file(Vtp* V, const char* path, const char* buf, size_t len, int ugrid,
                          char* err, size_t errsz) {
  memset(V, 0, sizeof *V);
  V->path = path;
  V->buf = buf;
  V->len = len;
  V->err = err;
  V->errsz = errsz;
  V->hsize = 4;
  V->ugrid = ugrid;
  cmStatus st = scan(V);
  if (st == CM_OK && !V->pts.found)
    st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: the Piece has no Points DataArray", path,
                  V->piece_line);
  return st;
}

cmStatus cm_mesh_read_vtp(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  Vtp V;
  cmStatus st = open_file(&V, path, buf, len, 0, err, errsz);
  if (st != CM_OK) return st;
  if (!V.npolys && !V.nstrips)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "%s:%d: the Piece has no polygons (NumberOfPolys and NumberOfStrips are 0): "
                    "no surface to read",
                    path, V.piece_line);

  /* points, scaled and checked finite */
  cmMeshBuilder b = {0};
  double* p = NULL;
  size_t np;
  st = decode(&V, &V.pts, 3 * V.npts, &p, &np);
  for (size_t i = 0; st == CM_OK && i < np / 3; i++) {
    double x[3] = {p[3 * i] * scale, p[3 * i + 1] * scale, p[3 * i + 2] * scale};
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
      char w[400];
      value_where(&V, &V.pts, 3 * i, w, sizeof w);
      st = cm_error(err, errsz, CM_ERR_PARSE,
                    "%s: point %zu has a coordinate that is not finite times the scale %g", w, i,
                    scale);
    } else if ((st = cm_mb_add_vert(&b, x)) != CM_OK) {
      st = cm_error(err, errsz, st, "%s: out of memory", path);
    }
  }
  cm_free(p);
  if (st == CM_OK) st = read_cells(&V, 0, V.npolys, &b);
  if (st == CM_OK) st = read_cells(&V, 1, V.nstrips, &b);
  if (st == CM_OK) {
    *out = cm_mb_finish(&b);
    if (!*out) st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  }
  cm_mb_free(&b);
  return st;
}

/* ---- UnstructuredGrid: tetrahedral meshes ---- */

cmStatus cm_tetmesh_read_vtu(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz) {
  *out = NULL;
  Vtp V;
  cmStatus st = open_file(&V, path, buf, len, 1, err, errsz);
  if (st != CM_OK) return st;
  const Arr *c = &V.conn[0], *o = &V.offs[0], *ty = &V.types;
  if (!c->found || !o->found || !ty->found)
    return cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: the Piece has no Cells DataArray Name=\"%s\"",
                    path, V.piece_line,
                    !c->found   ? "connectivity"
                    : !o->found ? "offsets"
                                : "types");

  /* points, scaled and checked finite; then the cells */
  double *p = NULL, *off = NULL, *conn = NULL, *types = NULL;
  size_t np, noff, nconn, ntypes;
  st = decode(&V, &V.pts, 3 * V.npts, &p, &np);
  for (size_t i = 0; st == CM_OK && i < np; i++) {
    p[i] *= scale;
    if (!isfinite(p[i])) {
      char w[400];
      value_where(&V, &V.pts, i - i % 3, w, sizeof w);
      st = cm_error(err, errsz, CM_ERR_PARSE,
                    "%s: point %zu has a coordinate that is not finite times the scale %g", w,
                    i / 3, scale);
    }
  }
  if (st == CM_OK) st = decode(&V, o, V.npolys, &off, &noff);
  if (st == CM_OK) st = decode(&V, ty, V.npolys, &types, &ntypes);
  if (st == CM_OK) st = decode(&V, c, -1, &conn, &nconn);
  cmTetBuilder tb = {0};
  if (st == CM_OK) {
    cmVtkCellError e;
    st = cm_io_vtk_tets(&tb, off, noff, 0, conn, nconn, types, V.npts, &e);
    if (st != CM_OK) {
      char w[400];
      value_where(&V, e.array == 2 ? ty : e.array ? c : o, e.index, w, sizeof w);
      st = cm_error(err, errsz, st, "%s: Cells %s: %s", w,
                    e.array == 2 ? "types"
                    : e.array    ? "connectivity"
                                 : "offsets",
                    e.msg);
    }
  }
  if (st == CM_OK) st = cm_tb_finish(&tb, path, p, np / 3, cm_io_vtk_cell_name, out, err, errsz);
  cm_tb_free(&tb);
  cm_free(p);
  cm_free(off);
  cm_free(conn);
  cm_free(types);
  return st;
}
