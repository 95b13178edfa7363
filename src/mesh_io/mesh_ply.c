/* PLY reader (Stanford polygon format), ascii and binary_little_endian 1.0.
 *
 * The header lists elements in file order, each with a count and properties; a property is a
 * scalar of a PLY type, or a list (a count of one integer type followed by that many items of
 * another). Used: element `vertex` with scalar properties x, y, z (any numeric type; other
 * properties skipped), and element `face` with a list property `vertex_indices` (or
 * `vertex_index`) of integer items; other elements are skipped. Polygons are fan-triangulated
 * (v0, vi, vi+1). binary_big_endian is rejected as not supported.
 *
 * Robustness: before anything is allocated, the smallest body size implied by the header (each
 * scalar at least 1 byte of text plus a separator, or its binary size; each list at least its
 * count) is compared with the bytes after end_header, so a header announcing 10^12 vertices in a
 * small file is an error, not an allocation; counts above 2^31-1 are errors; every list length
 * and every binary read is bounds-checked. Errors name the header line, the body line (ascii)
 * or the byte offset (binary). A UTF-8 byte order mark before `ply` is skipped; ascii numbers are
 * decimal (hexadecimal is refused, as in scene files).
 *
 * Limits, each reported with its own cause: MAX_ELEM elements and MAX_PROP properties per
 * element in the header, 2^31-1 entries per element, 2^31-1 vertices and faces in the mesh. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

#define MAX_ELEM 16
#define MAX_PROP 64

enum { T_I8 = 1, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 };
static const char* const type_name[][2] = {
    {"char", "int8"}, {"uchar", "uint8"}, {"short", "int16"},   {"ushort", "uint16"},
    {"int", "int32"}, {"uint", "uint32"}, {"float", "float32"}, {"double", "float64"}};
static const int type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};

typedef struct Prop {
  int type;       /* scalar or list item type */
  int count_type; /* list count type, 0 for a scalar */
  char name[32];
} Prop;

typedef struct Elem {
  char name[32];
  long long count;
  int line; /* header line */
  int nprop;
  Prop prop[MAX_PROP];
} Elem;

typedef struct Ply {
  const char* path;
  char* buf;
  size_t len, body; /* body: offset of the first byte after end_header */
  int ascii;
  int nelem;
  Elem elem[MAX_ELEM];
  /* reading state */
  size_t pos; /* binary: byte offset; ascii: scan position */
  int line;   /* ascii: current line */
  char* err;
  size_t errsz;
} Ply;

static int parse_type(const char* s) {
  for (int i = 0; i < 8; i++)
    if (s && (!strcmp(s, type_name[i][0]) || !strcmp(s, type_name[i][1]))) return i + 1;
  return 0;
}

/* header: one keyword line at a time until end_header */
static cmStatus parse_header(Ply* P) {
  char *pos = P->buf + cm_io_bom(P->buf, P->len), *end = P->buf + P->len, *line;
  int lineno = 0, have_format = 0;
  while ((line = cm_io_line(&pos, end))) {
    lineno++;
    char* p = line;
    char* kw = cm_io_token(&p);
    if (lineno == 1) {
      if (!kw || strcmp(kw, "ply") || cm_io_token(&p))
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s:1: not a PLY file (the first line must be 'ply')", P->path);
      continue;
    }
    if (!kw || !strcmp(kw, "comment") || !strcmp(kw, "obj_info")) continue;
    if (!strcmp(kw, "end_header")) {
      if (!have_format)
        return cm_error(P->err, P->errsz, CM_ERR_PARSE, "%s:%d: no 'format' line in the header",
                        P->path, lineno);
      P->body = (size_t)(pos - P->buf);
      P->line = lineno + 1;
      return CM_OK;
    }
    if (!strcmp(kw, "format")) {
      char* f = cm_io_token(&p);
      char* v = cm_io_token(&p);
      if (f && !strcmp(f, "binary_big_endian"))
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s:%d: binary_big_endian PLY is not supported (use ascii or "
                        "binary_little_endian)",
                        P->path, lineno);
      if (!f || (strcmp(f, "ascii") && strcmp(f, "binary_little_endian")) || !v ||
          (strcmp(v, "1.0") && strcmp(v, "1")) || cm_io_token(&p))
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s:%d: bad format line (expected 'format ascii 1.0' or 'format "
                        "binary_little_endian 1.0')",
                        P->path, lineno);
      P->ascii = !strcmp(f, "ascii");
      have_format = 1;
    } else if (!strcmp(kw, "element")) {
      char* name = cm_io_token(&p);
      long long n;
      if (!name || !cm_io_parse_llong(cm_io_token(&p), &n) || n < 0 || cm_io_token(&p))
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s:%d: bad element line (expected 'element NAME COUNT')", P->path, lineno);
      if (P->nelem == MAX_ELEM)
        return cm_error(P->err, P->errsz, CM_ERR_LIMIT,
                        "%s:%d: element '%.31s' is the header's element %d, more than the limit "
                        "of %d elements a PLY file may declare",
                        P->path, lineno, name, MAX_ELEM + 1, MAX_ELEM);
      Elem* e = &P->elem[P->nelem++];
      snprintf(e->name, sizeof e->name, "%s", name);
      e->count = n;
      e->line = lineno;
    } else if (!strcmp(kw, "property")) {
      if (!P->nelem)
        return cm_error(P->err, P->errsz, CM_ERR_PARSE, "%s:%d: property before any element",
                        P->path, lineno);
      Elem* e = &P->elem[P->nelem - 1];
      if (e->nprop == MAX_PROP)
        return cm_error(P->err, P->errsz, CM_ERR_LIMIT,
                        "%s:%d: element %s has more than the limit of %d properties", P->path,
                        lineno, e->name, MAX_PROP);
      Prop pr = {0};
      char* t = cm_io_token(&p);
      if (t && !strcmp(t, "list")) {
        pr.count_type = parse_type(cm_io_token(&p));
        pr.type = parse_type(cm_io_token(&p));
        if (pr.count_type >= T_F32) pr.count_type = 0;
      } else {
        pr.type = parse_type(t);
        pr.count_type = -1;
      }
      char* name = cm_io_token(&p);
      if (!pr.type || !pr.count_type || !name || cm_io_token(&p))
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s:%d: bad property line (expected 'property TYPE NAME' or 'property "
                        "list INTTYPE TYPE NAME' with PLY types char uchar short ushort int uint "
                        "float double or int8 ... float64)",
                        P->path, lineno);
      if (pr.count_type < 0) pr.count_type = 0;
      snprintf(pr.name, sizeof pr.name, "%s", name);
      e->prop[e->nprop++] = pr;
    } else {
      return cm_error(P->err, P->errsz, CM_ERR_PARSE, "%s:%d: unknown header keyword '%.40s'",
                      P->path, lineno, kw);
    }
  }
  return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                  "%s:%d: end of file in the header (no end_header)", P->path,
                  lineno ? lineno : 1);
}

/* compare every element's smallest possible size with the body; enforce the count limit */
static cmStatus check_counts(const Ply* P) {
  size_t left = P->len - P->body;
  for (int i = 0; i < P->nelem; i++) {
    const Elem* e = &P->elem[i];
    size_t min = 0;
    for (int k = 0; k < e->nprop; k++) {
      const Prop* pr = &e->prop[k];
      min += P->ascii ? 2 : (size_t)type_size[pr->count_type ? pr->count_type : pr->type];
    }
    /* ascii: the last value needs no separator */
    if (min && (unsigned long long)e->count > (left + (P->ascii ? 1 : 0)) / min)
      return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                      "%s:%d: element %s announces %lld entries, needing at least %zu bytes "
                      "each, but only %zu bytes follow the header (byte offset %zu)",
                      P->path, e->line, e->name, e->count, min, left, P->body);
    if (e->count > CM_MESH_MAX_ELEMENTS)
      return cm_error(P->err, P->errsz, CM_ERR_LIMIT,
                      "%s:%d: element %s has %lld entries, more than the limit 2147483647", P->path,
                      e->line, e->name, e->count);
    size_t used = (size_t)e->count * min;
    left = used >= left ? 0 : left - used;
  }
  return CM_OK;
}

/* where the reading is, for messages: "FILE:LINE" (ascii) or "FILE: byte offset N" */
static void where(const Ply* P, char* s, size_t n) {
  if (P->ascii)
    snprintf(s, n, "%s:%d", P->path, P->line);
  else
    snprintf(s, n, "%s: byte offset %zu", P->path, P->pos);
}

/* read one value of type t at the reading position into *v */
static cmStatus read_value(Ply* P, int t, double* v, const Elem* e, long long item) {
  char w[300];
  if (!P->ascii) {
    size_t sz = (size_t)type_size[t];
    if (P->len - P->pos < sz) {
      where(P, w, sizeof w);
      return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                      "%s: unexpected end of file in element %s %lld", w, e->name, item);
    }
    const unsigned char* b = (const unsigned char*)P->buf + P->pos;
    uint64_t u = 0;
    for (size_t k = 0; k < sz; k++)
      u |= (uint64_t)b[k] << (8 * k);
    P->pos += sz;
    switch (t) {
    case T_I8:
      *v = (int8_t)(uint8_t)u;
      break;
    case T_U8:
      *v = (uint8_t)u;
      break;
    case T_I16:
      *v = (int16_t)(uint16_t)u;
      break;
    case T_U16:
      *v = (uint16_t)u;
      break;
    case T_I32:
      *v = (int32_t)(uint32_t)u;
      break;
    case T_U32:
      *v = (uint32_t)u;
      break;
    case T_F32: {
      uint32_t u32 = (uint32_t)u;
      float f;
      memcpy(&f, &u32, sizeof f);
      *v = f;
      break;
    }
    default:
      memcpy(v, &u, sizeof *v);
      break;
    }
    return CM_OK;
  }

  /* ascii: the next whitespace-separated token, lines counted */
  char* s = P->buf + P->pos;
  while (isspace((unsigned char)*s))
    P->line += *s++ == '\n';
  char* tok = s;
  while (*s && !isspace((unsigned char)*s))
    s++;
  char save = *s;
  *s = 0;
  int ok = *tok && cm_io_parse_double(tok, v);
  P->pos = (size_t)(s - P->buf);
  if (!ok) {
    where(P, w, sizeof w);
    cmStatus st =
        cm_error(P->err, P->errsz, CM_ERR_PARSE,
                 *tok ? "%s: bad number '%.40s' in element %s %lld%s"
                      : "%s: unexpected end of file%.0s in element %s %lld%s",
                 w, tok, e->name, item,
                 cm_io_is_hex(tok) ? " (hexadecimal is not accepted: write decimal numbers)" : "");
    *s = save;
    return st;
  }
  *s = save;
  if (t <= T_U32 && *v != floor(*v)) {
    where(P, w, sizeof w);
    return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                    "%s: '%.40s' is not an integer (element %s %lld)", w, tok, e->name, item);
  }
  return CM_OK;
}

/* a list count: a non-negative integer whose items fit in the rest of the file */
static cmStatus read_count(Ply* P, const Prop* pr, const Elem* e, long long item, size_t* n) {
  double c;
  size_t at = P->pos;
  int line = P->line;
  cmStatus st = read_value(P, pr->count_type, &c, e, item);
  if (st != CM_OK) return st;
  size_t min = P->ascii ? 2 : (size_t)type_size[pr->type];
  if (!(c >= 0) || c > (double)((P->len - P->pos + 1) / min)) {
    char w[300];
    P->pos = at;
    P->line = line;
    where(P, w, sizeof w);
    return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                    "%s: list %s of element %s %lld has %.0f items, more than the file holds", w,
                    pr->name, e->name, item, c);
  }
  *n = (size_t)c;
  return CM_OK;
}

/* read or skip every element; x, y, z of vertices and the faces go to the builder */
static cmStatus read_body(Ply* P, long long nvert, cmMeshBuilder* b, double scale) {
  char w[300];
  P->pos = P->body;
  for (int i = 0; i < P->nelem; i++) {
    const Elem* e = &P->elem[i];
    int is_vert = !strcmp(e->name, "vertex"), is_face = !strcmp(e->name, "face");
    for (long long it = 0; it < e->count && e->nprop; it++) {
      double x[3] = {0, 0, 0};
      for (int k = 0; k < e->nprop; k++) {
        const Prop* pr = &e->prop[k];
        double v;
        cmStatus st;
        if (!pr->count_type) {
          /* a scalar: maybe a coordinate */
          if ((st = read_value(P, pr->type, &v, e, it)) != CM_OK) return st;
          if (is_vert && pr->name[0] >= 'x' && pr->name[0] <= 'z' && !pr->name[1])
            x[pr->name[0] - 'x'] = v * scale;
          continue;
        }

        /* a list: maybe the face's vertex indices, fan-triangulated */
        size_t n = 0;
        if ((st = read_count(P, pr, e, it, &n)) != CM_OK) return st;
        int use =
            is_face && (!strcmp(pr->name, "vertex_indices") || !strcmp(pr->name, "vertex_index"));
        if (use && n < 3) {
          where(P, w, sizeof w);
          return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                          "%s: face %lld has %zu vertices, needs at least 3", w, it, n);
        }
        double first = 0, prev = 0;
        for (size_t j = 0; j < n; j++) {
          if ((st = read_value(P, pr->type, &v, e, it)) != CM_OK) return st;
          if (!use) continue;
          if (!(v >= 0 && v < (double)nvert && v == floor(v))) {
            where(P, w, sizeof w);
            return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                            "%s: face %lld refers to vertex %.17g, outside 0..%lld", w, it, v,
                            nvert - 1);
          }
          if (j >= 2 && (st = cm_mb_add_face(b, (int)first, (int)prev, (int)v)) != CM_OK) return st;
          if (j == 0) first = v;
          prev = v;
        }
      }
      if (!is_vert) continue;
      if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
        where(P, w, sizeof w);
        return cm_error(P->err, P->errsz, CM_ERR_PARSE,
                        "%s: vertex %lld has a non-finite coordinate", w, it);
      }
      cmStatus st = cm_mb_add_vert(b, x);
      if (st != CM_OK) return st;
    }
  }
  return CM_OK;
}

cmStatus cm_mesh_read_ply(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz) {
  *out = NULL;
  Ply* P = cm_calloc(1, sizeof(Ply));
  if (!P) return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  P->path = path;
  P->buf = buf;
  P->len = len;
  P->err = err;
  P->errsz = errsz;
  cmMeshBuilder b = {0};

  /* header, counts against the file size, required properties */
  cmStatus st = parse_header(P);
  if (st == CM_OK) st = check_counts(P);
  long long nvert = 0;
  for (int i = 0; st == CM_OK && i < P->nelem; i++) {
    const Elem* e = &P->elem[i];
    if (!strcmp(e->name, "vertex")) {
      nvert = e->count;
      for (int c = 0; c < 3 && st == CM_OK; c++) {
        char nm[2] = {(char)('x' + c), 0};
        int found = 0;
        for (int k = 0; k < e->nprop; k++)
          found |= !e->prop[k].count_type && !strcmp(e->prop[k].name, nm);
        if (!found)
          st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: element vertex has no scalar property %s",
                        path, e->line, nm);
      }
    }
    if (!strcmp(e->name, "face")) {
      int found = 0;
      for (int k = 0; k < e->nprop; k++) {
        const Prop* pr = &e->prop[k];
        int named = !strcmp(pr->name, "vertex_indices") || !strcmp(pr->name, "vertex_index");
        found |= named && pr->count_type && pr->type <= T_U32;
      }
      if (!found)
        st = cm_error(err, errsz, CM_ERR_PARSE,
                      "%s:%d: element face has no integer list property vertex_indices", path,
                      e->line);
    }
  }
  if (st == CM_OK && P->ascii) {
    const char* nul = memchr(buf + P->body, 0, len - P->body);
    if (nul)
      st = cm_error(err, errsz, CM_ERR_PARSE, "%s:%d: NUL byte: binary data in an ascii PLY", path,
                    cm_io_line_of(buf, (size_t)(nul - buf)));
  }

  /* body; the builder's failures get their message here (the header's have theirs) */
  if (st == CM_OK) {
    st = read_body(P, nvert, &b, scale);
    if (st == CM_ERR_NOMEM || st == CM_ERR_LIMIT)
      st = cm_error(err, errsz, st, "%s: %s", path,
                    st == CM_ERR_NOMEM ? "out of memory" : "more than 2147483647 faces");
  }
  if (st == CM_OK) {
    *out = cm_mb_finish(&b);
    if (!*out) st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  }
  cm_mb_free(&b);
  cm_free(P);
  return st;
}
