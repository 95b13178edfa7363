/* Tetrahedral volume mesh loading (cm_tetmesh_load): dispatch by extension and the tet builder
 * shared by the .msh, .vtu and .vtk readers.
 *
 * Orientation. A tet (x0, x1, x2, x3) has six times its signed volume
 *   6 V = (x1 - x0) . ((x2 - x0) x (x3 - x0)),
 * positive when x3 lies on the side of the triangle (x0, x1, x2) that its counter-clockwise
 * normal points to. Swapping two nodes changes the sign, so a tet with 6 V < 0 is stored as
 * (x0, x2, x1, x3). gmsh and VTK both number a tet's nodes positively, but files written by other
 * tools (or by hand) need not; the flip is computed on the scaled coordinates, so that a
 * negative scale cannot come through (it is refused) and the stored order is positive in the
 * units of the result. A tet of zero volume is left as it is: cm_tetmesh_check reports it.
 *
 * Skipped cells. Files hold more than tets: gmsh writes the boundary triangles, edges and points
 * of the geometry with the tets, a VTK grid may mix hexahedra in. Only linear tets are read; the
 * others are counted per type and reported in err on success, so that a user who meant a tet10
 * or a hex mesh finds out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "geom/mesh_internal.h"
#include "mesh_io/mesh_io.h"

cmStatus cm_tb_add(cmTetBuilder* b, const int v[4]) {
  if (b->ntet == b->cap) {
    if (b->ntet >= CM_MESH_MAX_ELEMENTS / 4) return CM_ERR_LIMIT;
    size_t nc = b->cap ? 2 * b->cap : 64;
    if (nc > CM_MESH_MAX_ELEMENTS / 4) nc = CM_MESH_MAX_ELEMENTS / 4;
    int* p = cm_realloc(b->tet, nc * 4 * sizeof(int));
    if (!p) return CM_ERR_NOMEM;
    b->tet = p;
    b->cap = nc;
  }
  memcpy(b->tet + 4 * b->ntet, v, 4 * sizeof(int));
  b->ntet++;
  return CM_OK;
}

void cm_tb_skip(cmTetBuilder* b, int type) {
  for (int i = 0; i < b->ntype; i++)
    if (b->type[i] == type) {
      b->count[i]++;
      return;
    }
  if (b->ntype == CM_TB_TYPES) {
    b->other++;
    return;
  }
  b->type[b->ntype] = type;
  b->count[b->ntype++] = 1;
}

void cm_tb_free(cmTetBuilder* b) {
  cm_free(b->tet);
  *b = (cmTetBuilder){0};
}

/* the report of the skipped cells into err: "" if none */
static void skip_report(const cmTetBuilder* b, const char* path, const char* (*type_name)(int),
                        char* err, size_t errsz) {
  if (!err || !errsz) return;
  err[0] = 0;
  long long total = b->other;
  for (int i = 0; i < b->ntype; i++)
    total += b->count[i];
  if (!total) return;
  size_t n = (size_t)snprintf(err, errsz,
                              "%s: kept %zu tetrahedra; skipped %lld cells of other "
                              "types:",
                              path, b->ntet, total);
  for (int i = 0; i < b->ntype && n < errsz; i++) {
    const char* name = type_name ? type_name(b->type[i]) : NULL;
    n += (size_t)snprintf(err + n, errsz - n, "%s %lld %s%s(type %d)", i ? "," : "", b->count[i],
                          name ? name : "", name ? " " : "", b->type[i]);
  }
  if (b->other && n < errsz) snprintf(err + n, errsz - n, ", %lld of further types", b->other);
}

cmStatus cm_tb_finish(cmTetBuilder* b, const char* path, const double* node, size_t nnode,
                      const char* (*type_name)(int), cmTetMesh** out, char* err, size_t errsz) {
  *out = NULL;
  if (nnode > CM_MESH_MAX_ELEMENTS || b->ntet > CM_MESH_MAX_ELEMENTS) {
    cm_tb_free(b);
    return cm_error(err, errsz, CM_ERR_LIMIT, "%s: more than 2147483647 nodes or tetrahedra", path);
  }
  if (!b->ntet) {
    skip_report(b, path, type_name, err, errsz);
    char rep[400];
    snprintf(rep, sizeof rep, "%s", err && errsz ? err : "");
    size_t pl = strlen(path) + 2;
    cm_tb_free(b);
    return cm_error(err, errsz, CM_ERR_PARSE, "%s: no tetrahedra in the file%s%s", path,
                    strlen(rep) > pl ? ": " : "", strlen(rep) > pl ? rep + pl : "");
  }
  cmTetMesh* m = cm_tetmesh_new((int)nnode, (int)b->ntet);
  if (!m) {
    cm_tb_free(b);
    return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", path);
  }
  if (nnode) memcpy(m->node, node, 3 * nnode * sizeof(double));
  if (b->ntet) memcpy(m->tet, b->tet, 4 * b->ntet * sizeof(int));

  /* flip the negatively oriented tets */
  for (int t = 0; t < m->ntet; t++) {
    int* v = m->tet + 4 * (size_t)t;
    const double* x0 = m->node + 3 * (size_t)v[0];
    double a[3], c[3], d[3];
    for (int k = 0; k < 3; k++) {
      a[k] = m->node[3 * (size_t)v[1] + (size_t)k] - x0[k];
      c[k] = m->node[3 * (size_t)v[2] + (size_t)k] - x0[k];
      d[k] = m->node[3 * (size_t)v[3] + (size_t)k] - x0[k];
    }
    double vol6 = a[0] * (c[1] * d[2] - c[2] * d[1]) + a[1] * (c[2] * d[0] - c[0] * d[2]) +
                  a[2] * (c[0] * d[1] - c[1] * d[0]);
    if (vol6 < 0) {
      int s = v[1];
      v[1] = v[2];
      v[2] = s;
    }
  }
  skip_report(b, path, type_name, err, errsz);
  cm_tb_free(b);
  *out = m;
  return CM_OK;
}

cmStatus cm_tetmesh_load(const char* path, double scale, cmTetMesh** out, char* err, size_t errsz) {
  CM_ASSERT(path && out);
  *out = NULL;
  if (err && errsz) err[0] = 0;
  if (!(scale > 0) || !isfinite(scale))
    return cm_error(err, errsz, CM_ERR_ARG, "%s: scale %g must be positive and finite", path,
                    scale);

  /* the reader from the extension */
  const char* ext = cm_io_extension(path);
  cmStatus (*reader)(const char*, char*, size_t, double, cmTetMesh**, char*, size_t) = NULL;
  if (ext && cm_io_ieq(ext, ".msh"))
    reader = cm_tetmesh_read_msh;
  else if (ext && cm_io_ieq(ext, ".vtu"))
    reader = cm_tetmesh_read_vtu;
  else if (ext && cm_io_ieq(ext, ".vtk"))
    reader = cm_tetmesh_read_vtk;
  else
    return cm_error(err, errsz, CM_ERR_ARG,
                    "%s: unknown tet mesh file extension '%s' (expected .msh, .vtu or .vtk)", path,
                    ext ? ext : "");

  /* read the whole file and parse it */
  char* buf;
  size_t len;
  cmStatus st = cm_io_read_file(path, &buf, &len, err, errsz);
  if (st != CM_OK) return st;
  st = reader(path, buf, len, scale, out, err, errsz);
  cm_free(buf);
  if (st != CM_OK) {
    cm_tetmesh_free(*out);
    *out = NULL;
  }
  return st;
}
