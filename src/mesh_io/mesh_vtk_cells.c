/* VTK cells to triangles, shared by the VTK XML PolyData (.vtp) and legacy (.vtk) readers.
 *
 * Both formats describe polygons and triangle strips as a connectivity array (point indices of
 * every cell, one cell after the other) and the end of each cell in it. A polygon (v0, ..., vn-1),
 * n >= 3, is fan-triangulated into (v0, vi, vi+1), i = 1..n-2, which keeps its winding (exact
 * for convex planar polygons; a concave polygon may give overlapping triangles, which the mesh
 * checks then report). A triangle strip (v0, ..., vn-1), n >= 3, is the triangles (vj, vj+1, vj+2)
 * for even j and (vj+1, vj, vj+2) for odd j: every second triangle of a strip is listed clockwise
 * and reversed, so that all share the first one's orientation (as VTK renders them).
 *
 * The values arrive as doubles (every reader decodes to double); each is checked to be an integer
 * in range before it is used: cell ends non-decreasing within the connectivity array, the last
 * one its length, point indices in 0..npts-1. Volume meshes (cm_io_vtk_tets) carry a type per
 * cell as well: the VTK_TETRA cells (type 10, 4 points) are kept, the others counted. */
#include <math.h>
#include <stdio.h>

#include "core/internal.h"
#include "mesh_io/mesh_io.h"

/* check that cell i ends at an integer in [start, nconn] and that its points are indices in
 * 0..npts-1; its size into *n */
static cmStatus check_cell(const double* ends, size_t i, double start, const double* conn,
                           size_t nconn, long long npts, const char* kind, size_t* n,
                           cmVtkCellError* e) {
  double end = ends[i];
  if (!(end == floor(end) && end >= start && end <= (double)nconn)) {
    e->array = 0;
    e->index = i;
    snprintf(e->msg, sizeof e->msg,
             "%s %zu ends at %.17g, not an integer in %.17g..%zu (the previous end .. the "
             "connectivity length)",
             kind, i, end, start, nconn);
    return CM_ERR_PARSE;
  }
  size_t s = (size_t)start;
  *n = (size_t)end - s;
  for (size_t j = s; j < s + *n; j++) {
    double v = conn[j];
    if (!(v >= 0 && v < (double)npts && v == floor(v))) {
      e->array = 1;
      e->index = j;
      snprintf(e->msg, sizeof e->msg, "%s %zu refers to point %.17g, outside 0..%lld", kind, i, v,
               npts - 1);
      return CM_ERR_PARSE;
    }
  }
  return CM_OK;
}

/* the first cell's start and, after the cells, their end against the connectivity length */
static cmStatus check_first(double first, size_t nconn, cmVtkCellError* e) {
  e->array = 0;
  e->index = 0;
  if (first >= 0 && first == floor(first) && first <= (double)nconn) return CM_OK;
  snprintf(e->msg, sizeof e->msg, "the first cell starts at %.17g, outside 0..%zu", first, nconn);
  return CM_ERR_PARSE;
}

static cmStatus check_last(double start, size_t ncell, size_t nconn, cmVtkCellError* e) {
  if (start == (double)nconn) return CM_OK;
  e->array = 0;
  e->index = ncell ? ncell - 1 : 0;
  snprintf(e->msg, sizeof e->msg,
           "the cells end at %.17g but the connectivity array has %zu values", start, nconn);
  return CM_ERR_PARSE;
}

static cmStatus no_room(cmStatus st, const char* what, cmVtkCellError* e) {
  snprintf(e->msg, sizeof e->msg, "%s", st == CM_ERR_NOMEM ? "out of memory" : what);
  return st;
}

cmStatus cm_io_vtk_cells(cmMeshBuilder* b, const double* ends, size_t ncell, double first,
                         const double* conn, size_t nconn, long long npts, int strip,
                         cmVtkCellError* e) {
  const char* kind = strip ? "strip" : "polygon";
  double start = first;
  cmStatus st = check_first(first, nconn, e);
  if (st != CM_OK) return st;
  for (size_t i = 0; i < ncell; i++) {
    size_t s = (size_t)start, n;
    if ((st = check_cell(ends, i, start, conn, nconn, npts, kind, &n, e)) != CM_OK) return st;
    if (n < 3) {
      e->array = 0;
      e->index = i;
      snprintf(e->msg, sizeof e->msg, "%s %zu has %zu points, needs at least 3", kind, i, n);
      return CM_ERR_PARSE;
    }
    for (size_t j = 0; j + 2 < n; j++) {
      int v0, v1, v2;
      if (strip) {
        v0 = (int)conn[s + j + (j & 1)];
        v1 = (int)conn[s + j + 1 - (j & 1)];
        v2 = (int)conn[s + j + 2];
      } else {
        v0 = (int)conn[s];
        v1 = (int)conn[s + j + 1];
        v2 = (int)conn[s + j + 2];
      }
      st = cm_mb_add_face(b, v0, v1, v2);
      if (st != CM_OK) return no_room(st, "more than 2147483647 triangles", e);
    }
    start = ends[i];
  }
  return check_last(start, ncell, nconn, e);
}

#define VTK_TETRA 10

cmStatus cm_io_vtk_tets(cmTetBuilder* b, const double* ends, size_t ncell, double first,
                        const double* conn, size_t nconn, const double* types, long long npts,
                        cmVtkCellError* e) {
  double start = first;
  cmStatus st = check_first(first, nconn, e);
  if (st != CM_OK) return st;
  for (size_t i = 0; i < ncell; i++) {
    double ty = types[i];
    if (!(ty >= 0 && ty <= 255 && ty == floor(ty))) {
      e->array = 2;
      e->index = i;
      snprintf(e->msg, sizeof e->msg, "cell %zu has type %.17g, not a VTK cell type (0..255)", i,
               ty);
      return CM_ERR_PARSE;
    }
    size_t s = (size_t)start, n;
    if ((st = check_cell(ends, i, start, conn, nconn, npts, "cell", &n, e)) != CM_OK) return st;
    if ((int)ty == VTK_TETRA) {
      if (n != 4) {
        e->array = 0;
        e->index = i;
        snprintf(e->msg, sizeof e->msg, "cell %zu is a tetrahedron (type 10) of %zu points, not 4",
                 i, n);
        return CM_ERR_PARSE;
      }
      int v[4] = {(int)conn[s], (int)conn[s + 1], (int)conn[s + 2], (int)conn[s + 3]};
      if ((st = cm_tb_add(b, v)) != CM_OK) return no_room(st, "more than 536870911 tetrahedra", e);
    } else {
      cm_tb_skip(b, (int)ty);
    }
    start = ends[i];
  }
  return check_last(start, ncell, nconn, e);
}

const char* cm_io_vtk_cell_name(int type) {
  switch (type) {
  case 1:
    return "vertex";
  case 3:
    return "line";
  case 5:
    return "triangle";
  case 7:
    return "polygon";
  case 9:
    return "quad";
  case 12:
    return "hexahedron";
  case 13:
    return "wedge";
  case 14:
    return "pyramid";
  case 22:
    return "quadratic triangle";
  case 24:
    return "quadratic tetrahedron";
  case 42:
    return "polyhedron";
  default:
    return NULL;
  }
}
