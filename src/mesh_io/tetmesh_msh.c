/* gmsh mesh reader (.msh), versions 2.2 and 4.1, ASCII and binary: the nodes and the linear
 * tetrahedra (element type 4); other elements are counted and skipped.
 *
 * A file is a list of sections "$Name" ... "$EndName". The first is
 *   $MeshFormat
 *   version file-type data-size        2.2 or 4.1; 0 ASCII, 1 binary; 8 (sizeof double, size_t)
 *   [binary: the int 1 in 4 bytes, then a newline: tells the byte order]
 *   $EndMeshFormat
 * then, in the order gmsh writes them, $Nodes and $Elements; every other section ($PhysicalNames,
 * $Entities, $NodeData, ...) is skipped up to its $End line. Version 2.2:
 *   $Nodes: n, then n times "tag x y z"
 *     binary: n in text, a newline, then n records (int tag, 3 doubles)
 *   $Elements: m, then m times "tag type ntags tag... node..." (the node count fixed by the type)
 *     binary: m in text, a newline, then blocks of elements of one type: a header (int type,
 *     int count, int ntags) and count records (int tag, ntags ints, the node ints)
 * Version 4.1 (nodes and elements in blocks, one per geometric entity):
 *   $Nodes: numBlocks numNodes minTag maxTag, then per block "dim entity parametric count", the
 *     count node tags, then the count coordinate rows x y z (with dim more parametric
 *     coordinates u, v, w when parametric is 1)
 *   $Elements: numBlocks numElements minTag maxTag, then per block "dim entity type count", then
 *     count rows "tag node...";
 *   binary: the same values, counts and tags as 8-byte size_t, dim, entity, parametric and type
 *     as 4-byte int, coordinates as doubles, with no text between them.
 * Binary data are read little-endian whatever the host; a file whose byte-order int reads as
 * 2^24 was written big-endian and is refused, as is a data-size other than 8.
 *
 * Node tags are positive integers, in any order and with gaps (4.1 numbers the nodes of each
 * entity; partitioned or renumbered meshes skip tags): a tag is mapped to its index in file order
 * directly when the tags are 1..n in order (gmsh's usual output), else by binary search in the
 * sorted tags (a tag listed twice is an error).
 *
 * Robustness: every count is checked against the bytes left (ASCII: a value takes at least two
 * characters; binary: the record sizes) and against 2^31-1 before anything is allocated; each
 * value is range-checked. Errors name the file and the line (ASCII) or the byte offset (binary). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

#define TET 4        /* gmsh's 4-node tetrahedron */
#define MAX_TAGS 100 /* element tags of version 2 (physical, elementary, partitions) */

typedef struct Msh {
  const char* path;
  const char* buf;
  size_t len, pos;
  int binary, v4;
  double scale;
  char* err;
  size_t errsz;
  double* node; /* scaled coordinates (nnode x 3) */
  long long* tag;
  long long* sorted; /* (tag, index) pairs sorted by tag, when not dense */
  size_t nnode;
  int have_nodes, have_elements, dense;
  cmTetBuilder tb;
} Msh;

/* ---- messages: the line of a text file, the byte offset of a binary one ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static cmStatus
fail(const Msh* M, cmStatus s, size_t at, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (M->binary) return cm_error(M->err, M->errsz, s, "%s: byte offset %zu: %s", M->path, at, msg);
  return cm_error(M->err, M->errsz, s, "%s:%d: %s", M->path, cm_io_line_of(M->buf, at), msg);
}

/* ---- element types ---- */

/* the node count of a gmsh element type, 0 if unknown */
static int type_nodes(long long t) {
  static const signed char n[32] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                                    8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
  if (t >= 1 && t < 32) return n[t];
  return t == 92 ? 64 : t == 93 ? 125 : 0;
}

static const char* type_name(int t) {
  switch (t) {
  case 1:
    return "line";
  case 2:
    return "triangle";
  case 3:
    return "quadrangle";
  case 5:
    return "hexahedron";
  case 6:
    return "prism";
  case 7:
    return "pyramid";
  case 8:
    return "3-node line";
  case 9:
    return "6-node triangle";
  case 11:
    return "10-node tetrahedron";
  case 15:
    return "point";
  default:
    return NULL;
  }
}

/* ---- text ---- */

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* the next whitespace-separated token (at most tsz - 1 characters) and its offset; 0 at the end
 * of the file, -1 if longer */
static int token(Msh* M, char* tok, size_t tsz, size_t* at) {
  return cm_io_next_token(M->buf, M->len, &M->pos, tok, tsz, at, NULL);
}

/* the rest of the line, blank, and its newline: binary data follow */
static cmStatus end_of_line(Msh* M) {
  while (M->pos < M->len && M->buf[M->pos] != '\n') {
    if (M->buf[M->pos] != ' ' && M->buf[M->pos] != '\t' && M->buf[M->pos] != '\r')
      return fail(M, CM_ERR_PARSE, M->pos, "unexpected text before the binary data");
    M->pos++;
  }
  if (M->pos >= M->len) return fail(M, CM_ERR_PARSE, M->pos, "end of file before the binary data");
  M->pos++;
  return CM_OK;
}

/* a text integer in lo..hi */
static cmStatus text_int(Msh* M, const char* what, long long lo, long long hi, long long* v) {
  char tok[64];
  size_t at;
  int r = token(M, tok, sizeof tok, &at);
  if (r == 0) return fail(M, CM_ERR_PARSE, at, "%s: end of file", what);
  if (r < 0 || !cm_io_parse_llong(tok, v))
    return fail(M, CM_ERR_PARSE, at, "%s: '%.40s' is not an integer%s", what, tok,
                cm_io_is_hex(tok) ? " (hexadecimal is not accepted)" : "");
  if (*v < lo || *v > hi)
    return fail(M, hi == CM_MESH_MAX_ELEMENTS && *v > hi ? CM_ERR_LIMIT : CM_ERR_PARSE, at,
                "%s: %lld is outside %lld..%lld", what, *v, lo, hi);
  return CM_OK;
}

/* ---- numbers: text tokens or little-endian binary ---- */

static uint64_t get_le(const unsigned char* p, int sz) {
  uint64_t u = 0;
  for (int k = 0; k < sz; k++)
    u |= (uint64_t)p[k] << (8 * k);
  return u;
}

/* an integer: a text token, or binary of sz bytes (4: int, 8: size_t), in lo..hi */
static cmStatus get_int(Msh* M, int sz, const char* what, long long lo, long long hi,
                        long long* v) {
  if (!M->binary) return text_int(M, what, lo, hi, v);
  size_t at = M->pos;
  if (M->len - M->pos < (size_t)sz) return fail(M, CM_ERR_PARSE, at, "%s: end of file", what);
  uint64_t u = get_le((const unsigned char*)M->buf + M->pos, sz);
  M->pos += (size_t)sz;
  if (sz == 4) {
    *v = (int32_t)(uint32_t)u;
  } else if (u > (uint64_t)INT64_MAX) {
    return fail(M, CM_ERR_PARSE, at, "%s: %llu is outside %lld..%lld", what, (unsigned long long)u,
                lo, hi);
  } else {
    *v = (long long)u;
  }
  if (*v < lo || *v > hi)
    return fail(M, hi == CM_MESH_MAX_ELEMENTS && *v > hi ? CM_ERR_LIMIT : CM_ERR_PARSE, at,
                "%s: %lld is outside %lld..%lld", what, *v, lo, hi);
  return CM_OK;
}

/* a finite double: a text token or 8 binary bytes */
static cmStatus get_double(Msh* M, const char* what, double* v) {
  size_t at;
  if (M->binary) {
    at = M->pos;
    if (M->len - M->pos < 8) return fail(M, CM_ERR_PARSE, at, "%s: end of file", what);
    uint64_t u = get_le((const unsigned char*)M->buf + M->pos, 8);
    memcpy(v, &u, sizeof *v);
    M->pos += 8;
  } else {
    char tok[72];
    int r = token(M, tok, sizeof tok, &at);
    if (r == 0) return fail(M, CM_ERR_PARSE, at, "%s: end of file", what);
    if (r < 0 || !cm_io_parse_double(tok, v))
      return fail(M, CM_ERR_PARSE, at, "%s: '%.40s' is not a decimal number%s", what, tok,
                  cm_io_is_hex(tok) ? " (hexadecimal is not accepted)" : "");
  }
  if (!isfinite(*v)) return fail(M, CM_ERR_PARSE, at, "%s is not finite", what);
  return CM_OK;
}

/* n records of `bin` bytes (binary) or at least `text` characters (ASCII) must fit in what is
 * left */
static cmStatus fits(const Msh* M, size_t at, const char* what, long long n, size_t bin,
                     size_t text) {
  size_t left = M->len - M->pos;
  if ((unsigned long long)n <= left / (M->binary ? bin : text)) return CM_OK;
  return fail(M, CM_ERR_PARSE, at, "%s: %lld announced, but only %zu bytes follow", what, n, left);
}

/* ---- sections ---- */

/* the next section's name (after '$'); 0 at the end of the file */
static cmStatus section(Msh* M, char* name, size_t nsz, size_t* at, int* found) {
  char tok[72];
  int r = token(M, tok, sizeof tok, at);
  *found = r != 0;
  if (!r) return CM_OK;
  if (r < 0 || tok[0] != '$' || !tok[1])
    return fail(M, CM_ERR_PARSE, *at, "expected a section ($Nodes, $Elements, ...), found '%.40s'",
                tok);
  snprintf(name, nsz, "%s", tok + 1);
  /* binary data start on the next line */
  return M->binary ? end_of_line(M) : CM_OK;
}

/* the "$EndName" of the section being read */
static cmStatus section_end(Msh* M, const char* name) {
  char tok[72], want[80]; /* "$End" and a name of up to 71 bytes */
  size_t at;
  snprintf(want, sizeof want, "$End%s", name);
  int r = token(M, tok, sizeof tok, &at);
  if (r <= 0 || strcmp(tok, want))
    return fail(M, CM_ERR_PARSE, at, "expected %s, found '%.40s'", want, r ? tok : "end of file");
  return CM_OK;
}

/* skip a section up to and including its "$EndName" at the start of a line */
static cmStatus skip_section(Msh* M, const char* name, size_t at) {
  char want[80];
  int n = snprintf(want, sizeof want, "$End%s", name);
  for (size_t i = M->pos; i + (size_t)n <= M->len; i++) {
    if (i > 0 && M->buf[i] == '$' && M->buf[i - 1] == '\n' &&
        !memcmp(M->buf + i, want, (size_t)n) &&
        (i + (size_t)n == M->len || is_ws(M->buf[i + (size_t)n]))) {
      M->pos = i + (size_t)n;
      return CM_OK;
    }
  }
  return fail(M, CM_ERR_PARSE, at, "section $%.40s has no %.44s line", name, want);
}

static cmStatus mesh_format(Msh* M) {
  char tok[64];
  size_t at;
  int r = token(M, tok, sizeof tok, &at);
  if (r <= 0 || strcmp(tok, "$MeshFormat"))
    return fail(M, CM_ERR_PARSE, at, "not a gmsh mesh: the file must start with $MeshFormat");
  r = token(M, tok, sizeof tok, &at);
  if (r > 0 &&
      (!strcmp(tok, "2.2") || !strcmp(tok, "2.1") || !strcmp(tok, "2") || !strcmp(tok, "2.0")))
    M->v4 = 0;
  else if (r > 0 && !strcmp(tok, "4.1"))
    M->v4 = 1;
  else
    return fail(M, CM_ERR_PARSE, at,
                "MSH version '%.40s' is not read (2.2 or 4.1: gmsh -format msh22 or msh41)",
                r > 0 ? tok : "");
  long long ft, ds;
  cmStatus st;
  if ((st = text_int(M, "$MeshFormat file-type", 0, 1, &ft)) != CM_OK) return st;
  if ((st = text_int(M, "$MeshFormat data-size", 0, 64, &ds)) != CM_OK) return st;
  if (ds != 8)
    return fail(M, CM_ERR_PARSE, M->pos,
                "$MeshFormat data-size %lld: only 8 (8-byte doubles and size_t) is read", ds);
  if (ft == 1) {
    if ((st = end_of_line(M)) != CM_OK) return st;
    M->binary = 1;
    at = M->pos;
    if (M->len - M->pos < 4) return fail(M, CM_ERR_PARSE, at, "end of file in $MeshFormat");
    uint64_t one = get_le((const unsigned char*)M->buf + M->pos, 4);
    M->pos += 4;
    if (one == (uint64_t)1 << 24)
      return fail(M, CM_ERR_PARSE, at,
                  "the file is big-endian (its byte-order int reads 16777216): only little-endian "
                  "binary is read");
    if (one != 1)
      return fail(M, CM_ERR_PARSE, at, "the byte-order int is %llu, not 1",
                  (unsigned long long)one);
  }
  return section_end(M, "MeshFormat");
}

/* ---- nodes ---- */

static int pair_cmp(const void* a, const void* b) {
  const long long *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* the index lookup of the node tags: dense (1..n in order) or the sorted pairs */
static cmStatus index_nodes(Msh* M, size_t at) {
  M->dense = 1;
  for (size_t i = 0; i < M->nnode && M->dense; i++)
    M->dense = M->tag[i] == (long long)i + 1;
  if (M->dense) return CM_OK;
  M->sorted = cm_malloc((M->nnode ? M->nnode : 1) * 2 * sizeof(long long));
  if (!M->sorted) return fail(M, CM_ERR_NOMEM, at, "$Nodes: out of memory");
  for (size_t i = 0; i < M->nnode; i++) {
    M->sorted[2 * i] = M->tag[i];
    M->sorted[2 * i + 1] = (long long)i;
  }
  cm_sort(M->sorted, M->nnode, 2 * sizeof(long long), pair_cmp);
  for (size_t i = 1; i < M->nnode; i++)
    if (M->sorted[2 * i] == M->sorted[2 * i - 2])
      return fail(M, CM_ERR_PARSE, at, "$Nodes: node tag %lld is listed twice", M->sorted[2 * i]);
  return CM_OK;
}

/* the index of a node tag, -1 if no node has it */
static long long node_index(const Msh* M, long long tag) {
  if (M->dense) return tag >= 1 && tag <= (long long)M->nnode ? tag - 1 : -1;
  size_t lo = 0, hi = M->nnode;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (M->sorted[2 * mid] < tag)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < M->nnode && M->sorted[2 * lo] == tag ? M->sorted[2 * lo + 1] : -1;
}

static cmStatus alloc_nodes(Msh* M, long long n, size_t at) {
  M->nnode = (size_t)n;
  M->node = cm_malloc((n ? (size_t)n : 1) * 3 * sizeof(double));
  M->tag = cm_malloc((n ? (size_t)n : 1) * sizeof(long long));
  if (!M->node || !M->tag) return fail(M, CM_ERR_NOMEM, at, "$Nodes: out of memory");
  return CM_OK;
}

/* the coordinates of node i, scaled and finite */
static cmStatus coords(Msh* M, size_t i) {
  for (int k = 0; k < 3; k++) {
    size_t at = M->pos;
    double x;
    cmStatus st = get_double(M, "$Nodes: a coordinate", &x);
    if (st != CM_OK) return st;
    x *= M->scale;
    if (!isfinite(x))
      return fail(M, CM_ERR_PARSE, at, "$Nodes: node %zu times the scale %g is not finite", i,
                  M->scale);
    M->node[3 * i + (size_t)k] = x;
  }
  return CM_OK;
}

static cmStatus nodes(Msh* M, size_t sec_at) {
  cmStatus st;
  long long n, nblock = 1, v;
  const long long big = CM_MESH_MAX_ELEMENTS, tmax = INT64_MAX / 2;
  size_t at = M->pos;
  if (M->have_nodes) return fail(M, CM_ERR_PARSE, sec_at, "a second $Nodes section");
  M->have_nodes = 1;
  if (!M->v4) {
    /* 2.2: the count in text, then "tag x y z" or binary (int, 3 doubles) */
    int bin = M->binary;
    M->binary = 0;
    st = text_int(M, "$Nodes: the node count", 0, big, &n);
    M->binary = bin;
    if (st == CM_OK && bin) st = end_of_line(M);
    if (st == CM_OK) st = fits(M, at, "$Nodes: nodes", n, 28, 8);
    if (st == CM_OK) st = alloc_nodes(M, n, at);
    for (size_t i = 0; st == CM_OK && i < (size_t)n; i++) {
      st = get_int(M, 4, "$Nodes: a node tag", 1, tmax, &M->tag[i]);
      if (st == CM_OK) st = coords(M, i);
    }
  } else {
    /* 4.1: numBlocks numNodes minTag maxTag, then the blocks */
    long long lo, hi;
    if ((st = get_int(M, 8, "$Nodes: numEntityBlocks", 0, big, &nblock)) != CM_OK ||
        (st = get_int(M, 8, "$Nodes: numNodes", 0, big, &n)) != CM_OK ||
        (st = get_int(M, 8, "$Nodes: minNodeTag", 0, tmax, &lo)) != CM_OK ||
        (st = get_int(M, 8, "$Nodes: maxNodeTag", 0, tmax, &hi)) != CM_OK)
      return st;
    if ((st = fits(M, at, "$Nodes: entity blocks", nblock, 20, 8)) != CM_OK ||
        (st = fits(M, at, "$Nodes: nodes", n, 32, 8)) != CM_OK ||
        (st = alloc_nodes(M, n, at)) != CM_OK)
      return st;
    size_t done = 0;
    for (long long b = 0; st == CM_OK && b < nblock; b++) {
      long long dim, par, cnt;
      size_t bat = M->pos;
      if ((st = get_int(M, 4, "$Nodes: entityDim", 0, 3, &dim)) != CM_OK ||
          (st = get_int(M, 4, "$Nodes: entityTag", INT32_MIN, INT32_MAX, &v)) != CM_OK ||
          (st = get_int(M, 4, "$Nodes: parametric", 0, 1, &par)) != CM_OK ||
          (st = get_int(M, 8, "$Nodes: numNodesInBlock", 0, big, &cnt)) != CM_OK)
        break;
      if ((size_t)cnt > M->nnode - done) {
        st = fail(M, CM_ERR_PARSE, bat,
                  "$Nodes: block %lld has %lld nodes, more than the %zu left of numNodes %zu", b,
                  cnt, M->nnode - done, M->nnode);
        break;
      }
      for (size_t i = done; st == CM_OK && i < done + (size_t)cnt; i++)
        st = get_int(M, 8, "$Nodes: a node tag", 1, tmax, &M->tag[i]);
      for (size_t i = done; st == CM_OK && i < done + (size_t)cnt; i++) {
        st = coords(M, i);
        for (long long k = 0; st == CM_OK && par && k < dim; k++) {
          double u;
          st = get_double(M, "$Nodes: a parametric coordinate", &u);
        }
      }
      done += (size_t)cnt;
    }
    if (st == CM_OK && done != M->nnode)
      st = fail(M, CM_ERR_PARSE, M->pos, "$Nodes: the blocks hold %zu nodes, numNodes is %zu", done,
                M->nnode);
  }
  if (st == CM_OK) st = index_nodes(M, sec_at);
  return st;
}

/* ---- elements ---- */

/* one element of type `type` after its tag(s): its nn node tags (4-byte or 8-byte in binary),
 * kept as a tet or counted */
static cmStatus element(Msh* M, long long type, int nn, int sz, long long k) {
  if (type != TET) {
    if (M->binary) {
      M->pos += (size_t)nn * (size_t)sz; /* the caller checked that the bytes are there */
    } else {
      for (int j = 0; j < nn; j++) {
        long long t;
        cmStatus st = get_int(M, sz, "$Elements: a node tag", 1, INT64_MAX, &t);
        if (st != CM_OK) return st;
      }
    }
    cm_tb_skip(&M->tb, (int)type);
    return CM_OK;
  }
  int v[4];
  for (int j = 0; j < 4; j++) {
    size_t at = M->pos;
    long long t;
    cmStatus st = get_int(M, sz, "$Elements: a node tag", 1, INT64_MAX, &t);
    if (st != CM_OK) return st;
    long long idx = node_index(M, t);
    if (idx < 0)
      return fail(M, CM_ERR_PARSE, at,
                  "$Elements: element %lld refers to node tag %lld, not in $Nodes", k, t);
    v[j] = (int)idx;
  }
  cmStatus st = cm_tb_add(&M->tb, v);
  if (st != CM_OK)
    return fail(M, st, M->pos, "$Elements: %s",
                st == CM_ERR_NOMEM ? "out of memory" : "more than 536870911 tetrahedra");
  return CM_OK;
}

static cmStatus unknown_type(const Msh* M, size_t at, long long type) {
  return fail(M, CM_ERR_PARSE, at,
              "$Elements: element type %lld is unknown (types 1-31, 92, 93 are read)", type);
}

static cmStatus elements(Msh* M, size_t sec_at) {
  cmStatus st = CM_OK;
  const long long big = CM_MESH_MAX_ELEMENTS;
  long long m, nblock, v;
  size_t at = M->pos;
  if (!M->have_nodes) return fail(M, CM_ERR_PARSE, sec_at, "$Elements before $Nodes");
  if (M->have_elements) return fail(M, CM_ERR_PARSE, sec_at, "a second $Elements section");
  M->have_elements = 1;
  if (!M->v4 && !M->binary) {
    /* 2.2 ASCII: "tag type ntags tags... nodes..." */
    if ((st = text_int(M, "$Elements: the element count", 0, big, &m)) != CM_OK ||
        (st = fits(M, at, "$Elements: elements", m, 16, 8)) != CM_OK)
      return st;
    for (long long k = 0; st == CM_OK && k < m; k++) {
      long long type, ntag;
      size_t tat;
      if ((st = text_int(M, "$Elements: an element tag", 1, INT64_MAX, &v)) != CM_OK) break;
      tat = M->pos;
      if ((st = text_int(M, "$Elements: an element type", 1, 1000, &type)) != CM_OK) break;
      if (!type_nodes(type)) return unknown_type(M, tat, type);
      if ((st = text_int(M, "$Elements: the number of tags", 0, MAX_TAGS, &ntag)) != CM_OK) break;
      for (long long j = 0; st == CM_OK && j < ntag; j++)
        st = text_int(M, "$Elements: a tag", INT64_MIN, INT64_MAX, &v);
      if (st == CM_OK) st = element(M, type, type_nodes(type), 4, k);
    }
    return st;
  }
  if (!M->v4) {
    /* 2.2 binary: the count in text, then blocks (type, count, ntags) of int records */
    M->binary = 0;
    st = text_int(M, "$Elements: the element count", 0, big, &m);
    M->binary = 1;
    if (st == CM_OK) st = end_of_line(M);
    if (st == CM_OK) st = fits(M, at, "$Elements: elements", m, 8, 8);
    for (long long k = 0; st == CM_OK && k < m;) {
      long long type, cnt, ntag;
      size_t bat = M->pos;
      if ((st = get_int(M, 4, "$Elements: a block's element type", 1, 1000, &type)) != CM_OK ||
          (st = get_int(M, 4, "$Elements: a block's element count", 1, m - k, &cnt)) != CM_OK ||
          (st = get_int(M, 4, "$Elements: a block's number of tags", 0, MAX_TAGS, &ntag)) != CM_OK)
        break;
      int nn = type_nodes(type);
      if (!nn) return unknown_type(M, bat, type);
      if ((size_t)cnt > (M->len - M->pos) / (4 * (size_t)(1 + ntag + nn)))
        return fail(M, CM_ERR_PARSE, bat,
                    "$Elements: a block of %lld elements of type %lld, "
                    "but only %zu bytes follow",
                    cnt, type, M->len - M->pos);
      for (long long e = 0; st == CM_OK && e < cnt; e++, k++) {
        M->pos += 4 * (size_t)(1 + ntag); /* the element's tag and tags */
        st = element(M, type, nn, 4, k);
      }
    }
    return st;
  }
  /* 4.1: numBlocks numElements minTag maxTag, then per block "dim entity type count" and rows
   * "tag node..." */
  if ((st = get_int(M, 8, "$Elements: numEntityBlocks", 0, big, &nblock)) != CM_OK ||
      (st = get_int(M, 8, "$Elements: numElements", 0, big, &m)) != CM_OK ||
      (st = get_int(M, 8, "$Elements: minElementTag", 0, INT64_MAX, &v)) != CM_OK ||
      (st = get_int(M, 8, "$Elements: maxElementTag", 0, INT64_MAX, &v)) != CM_OK ||
      (st = fits(M, at, "$Elements: entity blocks", nblock, 20, 8)) != CM_OK ||
      (st = fits(M, at, "$Elements: elements", m, 16, 4)) != CM_OK)
    return st;
  long long k = 0;
  for (long long b = 0; st == CM_OK && b < nblock; b++) {
    long long type, cnt;
    size_t bat = M->pos;
    if ((st = get_int(M, 4, "$Elements: entityDim", 0, 3, &v)) != CM_OK ||
        (st = get_int(M, 4, "$Elements: entityTag", INT32_MIN, INT32_MAX, &v)) != CM_OK)
      break;
    size_t tat = M->pos;
    if ((st = get_int(M, 4, "$Elements: elementType", 1, 1000, &type)) != CM_OK) break;
    if (!type_nodes(type)) return unknown_type(M, tat, type);
    if ((st = get_int(M, 8, "$Elements: numElementsInBlock", 0, m - k, &cnt)) != CM_OK) break;
    int nn = type_nodes(type);
    if (M->binary && (size_t)cnt > (M->len - M->pos) / (8 * (size_t)(1 + nn)))
      return fail(M, CM_ERR_PARSE, bat,
                  "$Elements: block %lld of %lld elements of type %lld, but only %zu bytes follow",
                  b, cnt, type, M->len - M->pos);
    for (long long e = 0; st == CM_OK && e < cnt; e++, k++) {
      st = get_int(M, 8, "$Elements: an element tag", 1, INT64_MAX, &v);
      if (st == CM_OK) st = element(M, type, nn, 8, k);
    }
  }
  if (st == CM_OK && k != m)
    st = fail(M, CM_ERR_PARSE, M->pos,
              "$Elements: the blocks hold %lld elements, numElements is %lld", k, m);
  return st;
}

cmStatus cm_tetmesh_read_msh(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz) {
  *out = NULL;
  Msh M = {0};
  M.path = path;
  M.buf = buf;
  M.len = len;
  M.pos = cm_io_bom(buf, len);
  M.scale = scale;
  M.err = err;
  M.errsz = errsz;
  cmStatus st = mesh_format(&M);

  /* the sections up to the end of the file */
  while (st == CM_OK) {
    char name[72];
    size_t at;
    int found;
    if ((st = section(&M, name, sizeof name, &at, &found)) != CM_OK || !found) break;
    if (!strcmp(name, "Nodes"))
      st = nodes(&M, at);
    else if (!strcmp(name, "Elements"))
      st = elements(&M, at);
    else if (!strcmp(name, "MeshFormat"))
      st = fail(&M, CM_ERR_PARSE, at, "a second $MeshFormat section");
    else {
      st = skip_section(&M, name, at);
      continue;
    }
    if (st == CM_OK) st = section_end(&M, name);
  }
  if (st == CM_OK && !M.have_elements)
    st = fail(&M, CM_ERR_PARSE, M.len, "no %s section", M.have_nodes ? "$Elements" : "$Nodes");
  if (st == CM_OK) st = cm_tb_finish(&M.tb, path, M.node, M.nnode, type_name, out, err, errsz);
  cm_tb_free(&M.tb);
  cm_free(M.node);
  cm_free(M.tag);
  cm_free(M.sorted);
  return st;
}
