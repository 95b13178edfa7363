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
 * one its length, point indices in 0..npts-1. */
#include <math.h>
#include <stdio.h>

#include "core/internal.h"
#include "mesh_io/mesh_io.h"

cmStatus cm_io_vtk_cells(cmMeshBuilder* b, const double* ends, size_t ncell, double first,
                         const double* conn, size_t nconn, long long npts, int strip,
                         cmVtkCellError* e) {
  const char* kind = strip ? "strip" : "polygon";
  double start = first;
  e->array = 0;
  e->index = 0;
  if (!(start >= 0 && start == floor(start) && start <= (double)nconn)) {
    snprintf(e->msg, sizeof e->msg, "the first cell starts at %.17g, outside 0..%zu", start, nconn);
    return CM_ERR_PARSE;
  }
  for (size_t i = 0; i < ncell; i++) {
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
    size_t s = (size_t)start, n = (size_t)end - s;
    if (n < 3) {
      e->array = 0;
      e->index = i;
      snprintf(e->msg, sizeof e->msg, "%s %zu has %zu points, needs at least 3", kind, i, n);
      return CM_ERR_PARSE;
    }
    for (size_t j = s; j < s + n; j++) {
      double v = conn[j];
      if (!(v >= 0 && v < (double)npts && v == floor(v))) {
        e->array = 1;
        e->index = j;
        snprintf(e->msg, sizeof e->msg, "%s %zu refers to point %.17g, outside 0..%lld", kind, i, v,
                 npts - 1);
        return CM_ERR_PARSE;
      }
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
      cmStatus st = cm_mb_add_face(b, v0, v1, v2);
      if (st != CM_OK) {
        snprintf(e->msg, sizeof e->msg, "%s",
                 st == CM_ERR_NOMEM ? "out of memory" : "more than 2147483647 triangles");
        return st;
      }
    }
    start = end;
  }
  if (start != (double)nconn) {
    e->array = 0;
    e->index = ncell ? ncell - 1 : 0;
    snprintf(e->msg, sizeof e->msg,
             "the cells end at %.17g but the connectivity array has %zu values", start, nconn);
    return CM_ERR_PARSE;
  }
  return CM_OK;
}
