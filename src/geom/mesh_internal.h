/* Internal mesh helpers shared by src/geom and src/mesh_io: an edge list sorted by vertex pair, a
 * mesh that adopts arrays, index validation and a well-conditioned reference point. Not installed.
 */
#ifndef CM_MESH_INTERNAL_H
#define CM_MESH_INTERNAL_H

#include <stddef.h>

#include "comply/mesh.h"

/* largest number of vertices or faces a mesh may have */
#define CM_MESH_MAX_ELEMENTS 2147483647

/* one half-edge of a face: the undirected key (a < b), the face and whether the face traverses
 * it from a to b (dir = 1) or from b to a (dir = 0) */
typedef struct cmEdgeRec {
  int a, b;
  int face;
  int dir;
} cmEdgeRec;

/* sort half-edges by (a, b, face): equal edges become adjacent, O(n log n) */
void cm_edge_sort(cmEdgeRec* e, size_t n);

/* a mesh adopting `vert` (nvert x 3) and `face` (nface x 3), both from cm_malloc; on failure
 * (NULL returned) the arrays are freed */
cmMesh* cm_mesh_wrap(double* vert, int nvert, int* face, int nface);

/* 1 if every face index is in 0..nvert-1 */
int cm_mesh_indices_valid(const cmMesh* mesh);

/* the mean of the finite vertices (origin if none), or the centre of the box of the vertices
 * the faces use where the mean is outside that box (unused vertices far away): subtracting it
 * before forming products keeps volume and moment integrals accurate for meshes far from the
 * origin */
void cm_mesh_ref_point(const cmMesh* mesh, double r[3]);

/* The findings of cm_mesh_diagnose that need no weld (duplicate faces of a closed mesh, shells,
 * flipped faces, non-manifold vertices, nested shells), for a mesh whose faces all have valid
 * indices, given the half-edges of all its faces sorted by cm_edge_sort (not modified): what
 * cm_mesh_check asks of a mesh that passed its edge checks, at the cost of a union-find and a
 * breadth-first pass. */
cmStatus cm_mesh_diagnose_sorted(const cmMesh* mesh, cmEdgeRec* e, size_t ne, cmMeshDiagnosis* out);

/* The groups of two or more distinct vertices (used by valid faces) at exactly the same
 * position (-0 = +0), and the first such pair (lowest position, then indices) into pair (-1, -1
 * if none); -1 without memory. O(n log n). */
int cm_mesh_first_coincident(const cmMesh* mesh, int pair[2]);

/* The first cause found by cm_mesh_diagnose, in the order a fix should go (duplicate faces,
 * unwelded vertices that welding would close, non-manifold edges, holes, non-manifold vertices,
 * flipped faces, nested shells), as "KIND: COUNT ...; first: ...; WHAT TO DO" into buf; 1 if
 * there is one, else 0 (buf empty). */
int cm_mesh_diagnosis_cause(const cmMesh* mesh, const cmMeshDiagnosis* dg, char* buf, size_t bufsz);

/* largest coordinate magnitude of a valid mesh, m: the mass properties multiply up to five
 * coordinates (inertia integrals), which must stay finite in double */
#define CM_MESH_COORD_MAX 1e50
/* 1 if the three coordinates are finite and within CM_MESH_COORD_MAX */
static inline int cm_mesh_coord_ok(const double p[3]) {
  for (int k = 0; k < 3; k++)
    if (!(p[k] >= -CM_MESH_COORD_MAX && p[k] <= CM_MESH_COORD_MAX)) return 0;
  return 1;
}

#endif
