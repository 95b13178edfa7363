/* Mesh file loading: dispatch by extension, whole-file reading, and the helpers shared by the
 * OBJ, STL, PLY and VTK readers (mesh builder, text tokens, numbers, vertex merging).
 *
 * Every reader works on the whole file in memory, so that counts announced by a file can be
 * checked against the bytes actually present before anything is allocated, and binary records
 * are decoded byte by byte (little-endian) independently of the host. Non-finite coordinates
 * (NaN, inf, or finite values that overflow when multiplied by the scale) are rejected by the
 * readers with the line or byte offset; cm_mesh_check catches them in meshes built otherwise. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

cmStatus cm_io_read_file(const char* path, char** buf, size_t* len, char* err, size_t errsz) {
  /* regular files of at most CM_MESH_FILE_MAX bytes: a FIFO would wait for a writer, and a
   * device such as /dev/zero never ends */
  switch (cm_file_read(path, CM_MESH_FILE_MAX, CM_FILE_REGULAR, buf, len)) {
  case CM_FILE_OK:
    return CM_OK;
  case CM_FILE_OPEN:
    return cm_error(err, errsz, CM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  case CM_FILE_NOT_REGULAR:
    return cm_error(err, errsz, CM_ERR_IO,
                    "%s: %s, not a regular file (a mesh is read from a file)", path,
                    cm_file_kind(path));
  case CM_FILE_LIMIT:
    return cm_error(err, errsz, CM_ERR_LIMIT,
                    "%s: file larger than the limit of %zu bytes (%zu MiB) for a mesh file", path,
                    (size_t)CM_MESH_FILE_MAX, (size_t)CM_MESH_FILE_MAX >> 20);
  case CM_FILE_NOMEM:
    *len = 0;
    return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory reading the file", path);
  default: /* CM_FILE_READ */
    return cm_error(err, errsz, CM_ERR_IO, "%s: read error: %s", path, strerror(errno));
  }
}

/* grow an array of `elem`-byte items to hold n + 1 */
static cmStatus grow(void** arr, size_t* cap, size_t n, size_t elem) {
  if (n < *cap) return CM_OK;
  if (n >= CM_MESH_MAX_ELEMENTS) return CM_ERR_LIMIT;
  size_t nc = *cap ? 2 * *cap : 64;
  if (nc > CM_MESH_MAX_ELEMENTS) nc = CM_MESH_MAX_ELEMENTS;
  void* p = cm_realloc(*arr, nc * elem);
  if (!p) return CM_ERR_NOMEM;
  *arr = p;
  *cap = nc;
  return CM_OK;
}

cmStatus cm_mb_add_vert(cmMeshBuilder* b, const double p[3]) {
  void* a = b->vert;
  cmStatus st = grow(&a, &b->capv, b->nvert, 3 * sizeof(double));
  b->vert = a;
  if (st != CM_OK) return st;
  for (int k = 0; k < 3; k++)
    b->vert[3 * b->nvert + (size_t)k] = p[k];
  b->nvert++;
  return CM_OK;
}

cmStatus cm_mb_add_face(cmMeshBuilder* b, int v0, int v1, int v2) {
  void* a = b->face;
  cmStatus st = grow(&a, &b->capf, b->nface, 3 * sizeof(int));
  b->face = a;
  if (st != CM_OK) return st;
  int* t = b->face + 3 * b->nface;
  t[0] = v0;
  t[1] = v1;
  t[2] = v2;
  b->nface++;
  return CM_OK;
}

cmMesh* cm_mb_finish(cmMeshBuilder* b) {
  double* v = b->vert ? b->vert : cm_malloc(3 * sizeof(double));
  int* f = b->face ? b->face : cm_malloc(3 * sizeof(int));
  if (!v || !f) {
    cm_free(v);
    cm_free(f);
    *b = (cmMeshBuilder){0};
    return NULL;
  }
  cmMesh* m = cm_mesh_wrap(v, (int)b->nvert, f, (int)b->nface);
  *b = (cmMeshBuilder){0};
  return m;
}

void cm_mb_free(cmMeshBuilder* b) {
  cm_free(b->vert);
  cm_free(b->face);
  *b = (cmMeshBuilder){0};
}

char* cm_io_line(char** pos, char* end) {
  char* s = *pos;
  if (s >= end) return NULL;
  char* nl = memchr(s, '\n', (size_t)(end - s));
  char* e = nl ? nl : end;
  *pos = nl ? nl + 1 : end;
  if (e > s && e[-1] == '\r') e--;
  *e = 0;
  return s;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char* cm_io_token(char** p) {
  char* s = *p;
  while (is_space(*s))
    s++;
  if (!*s) {
    *p = s;
    return NULL;
  }
  char* e = s;
  while (*e && !is_space(*e))
    e++;
  if (*e) *e++ = 0;
  *p = e;
  return s;
}

int cm_io_next_token(const char* buf, size_t len, size_t* pos, char* tok, size_t tsz, size_t* at,
                     int* lines) {
  size_t p = *pos;
  int nl = 0;
  while (p < len && (is_space(buf[p]) || buf[p] == '\n'))
    nl += buf[p++] == '\n';
  if (lines) *lines += nl;
  *at = p;
  size_t s = p;
  while (p < len && !is_space(buf[p]) && buf[p] != '\n')
    p++;
  *pos = p;
  size_t n = p - s;
  if (!n) return 0;
  size_t c = n < tsz - 1 ? n : tsz - 1;
  memcpy(tok, buf + s, c);
  tok[c] = 0;
  return n < tsz ? 1 : -1;
}

size_t cm_io_bom(const char* buf, size_t len) {
  return len >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb &&
                 (unsigned char)buf[2] == 0xbf
             ? 3
             : 0;
}

int cm_io_is_hex(const char* tok) {
  if (!tok) return 0;
  if (*tok == '+' || *tok == '-') tok++;
  return tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
}

int cm_io_parse_double(const char* tok, double* out) {
  char* end;
  if (!tok || !*tok || isspace((unsigned char)*tok) || cm_io_is_hex(tok)) return 0;
  errno = 0;
  double x = strtod(tok, &end);
  if (end == tok || *end) return 0;
  *out = x;
  return 1;
}

int cm_io_parse_llong(const char* tok, long long* out) {
  char* end;
  if (!tok || !*tok || isspace((unsigned char)*tok)) return 0;
  errno = 0;
  long long x = strtoll(tok, &end, 10);
  if (end == tok || *end || errno == ERANGE) return 0;
  *out = x;
  return 1;
}

int cm_io_ieq(const char* a, const char* b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

int cm_io_line_of(const char* buf, size_t off) {
  int line = 1;
  for (size_t i = 0; i < off; i++)
    line += buf[i] == '\n';
  return line;
}

/* a raw vertex and its position in the soup, sorted by coordinates to find equal ones */
typedef struct SoupVert {
  double p[3];
  size_t idx;
} SoupVert;

static int soup_cmp(const void* pa, const void* pb) {
  const SoupVert* x = pa;
  const SoupVert* y = pb;
  for (int k = 0; k < 3; k++)
    if (x->p[k] != y->p[k]) return x->p[k] < y->p[k] ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

cmStatus cm_io_mesh_from_soup(const double* tri, size_t ntri, double scale, cmMesh** out) {
  *out = NULL;
  if (ntri > CM_MESH_MAX_ELEMENTS / 3) return CM_ERR_LIMIT;
  size_t n = 3 * ntri;
  SoupVert* sv = cm_malloc(n * sizeof(SoupVert));
  int* face = cm_malloc(n * sizeof(int));
  double* vert = cm_malloc(n * 3 * sizeof(double));
  if (!sv || !face || !vert) {
    cm_free(sv);
    cm_free(face);
    cm_free(vert);
    return CM_ERR_NOMEM;
  }

  /* sort the 3 ntri corners by coordinates; runs of equal coordinates become one vertex */
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++)
      sv[i].p[k] = tri[3 * i + (size_t)k];
    sv[i].idx = i;
  }
  cm_sort(sv, n, sizeof(SoupVert), soup_cmp);
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) {
    int same = i > 0 && sv[i].p[0] == sv[i - 1].p[0] && sv[i].p[1] == sv[i - 1].p[1] &&
               sv[i].p[2] == sv[i - 1].p[2];
    if (!same) {
      for (int k = 0; k < 3; k++)
        vert[3 * nv + (size_t)k] = sv[i].p[k] * scale;
      nv++;
    }
    face[sv[i].idx] = (int)(nv - 1);
  }
  cm_free(sv);

  /* shrink the vertex array to the merged count */
  double* v2 = cm_realloc(vert, (nv ? nv : 1) * 3 * sizeof(double));
  if (v2) vert = v2;
  *out = cm_mesh_wrap(vert, (int)nv, face, (int)ntri);
  return *out ? CM_OK : CM_ERR_NOMEM;
}

const char* cm_io_extension(const char* path) {
  const char* base = path;
  for (const char* p = path; *p; p++)
    if (*p == '/' || *p == '\\') base = p + 1;
  return strrchr(base, '.');
}

cmStatus cm_mesh_load(const char* path, double scale, cmMesh** out, char* err, size_t errsz) {
  CM_ASSERT(path && out);
  *out = NULL;
  if (!(scale > 0) || !isfinite(scale))
    return cm_error(err, errsz, CM_ERR_ARG, "%s: scale %g must be positive and finite", path,
                    scale);

  /* the reader from the extension */
  const char* ext = cm_io_extension(path);
  cmStatus (*reader)(const char*, char*, size_t, double, cmMesh**, char*, size_t) = NULL;
  if (ext && cm_io_ieq(ext, ".obj"))
    reader = cm_mesh_read_obj;
  else if (ext && cm_io_ieq(ext, ".stl"))
    reader = cm_mesh_read_stl;
  else if (ext && cm_io_ieq(ext, ".ply"))
    reader = cm_mesh_read_ply;
  else if (ext && cm_io_ieq(ext, ".vtp"))
    reader = cm_mesh_read_vtp;
  else if (ext && cm_io_ieq(ext, ".vtk"))
    reader = cm_mesh_read_vtk;
  else
    return cm_error(err, errsz, CM_ERR_ARG,
                    "%s: unknown mesh file extension '%s' (expected .obj, .stl, .ply, .vtp or "
                    ".vtk)",
                    path, ext ? ext : "");

  /* read the whole file and parse it */
  char* buf;
  size_t len;
  cmStatus st = cm_io_read_file(path, &buf, &len, err, errsz);
  if (st != CM_OK) return st;
  st = reader(path, buf, len, scale, out, err, errsz);
  cm_free(buf);
  if (st != CM_OK) {
    cm_mesh_free(*out);
    *out = NULL;
  }
  return st;
}
