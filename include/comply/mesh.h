/* comply: triangle meshes: loading, validation, mass properties, primitives.
 *
 * A cmMesh is a closed, outward-oriented triangle surface. Units are those of the
 * file times `scale` (comply's defaults assume metres). Faces list vertex indices
 * counter-clockwise seen from outside, so that (v1-v0)x(v2-v0) points outward. */
#ifndef COMPLY_MESH_H
#define COMPLY_MESH_H

#include "comply/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmMesh {
  int nvert;          /* number of vertices */
  int nface;          /* number of triangles */
  double* vert;       /* vertex positions                               (nvert x 3) m */
  int* face;          /* vertex indices, CCW seen from outside           (nface x 3) */
  /* derived by cm_mesh_prepare (NULL before) */
  double* face_normal;  /* unit outward face normals                     (nface x 3) */
  double* face_area;    /* face areas                                    (nface) m^2 */
  double* vert_areavec; /* sum over adjacent faces of A_f n_f / 3        (nvert x 3) m^2 */
} cmMesh;

/* a new mesh with zeroed arrays of the given sizes (derived arrays NULL); NULL on no memory */
CM_API cmMesh* cm_mesh_new(int nvert, int nface);
/* a deep copy (including derived arrays); NULL on no memory */
CM_API cmMesh* cm_mesh_copy(const cmMesh* mesh);
CM_API void cm_mesh_free(cmMesh* mesh);

/* Load a mesh file, format by extension (case-insensitive): .obj (Wavefront; polygons are
 * fan-triangulated), .stl (ASCII or binary, detected from content), .ply (ASCII or binary
 * little-endian). Vertices are multiplied by `scale` (> 0). STL vertices are merged when
 * bitwise equal (except that -0 and +0 also merge). Non-finite coordinates are rejected here.
 * The mesh is not validated: call cm_mesh_check. Errors name the file and the line (text) or
 * byte offset (binary). A UTF-8 byte order mark before a text file is skipped; hexadecimal
 * numbers are refused. Statuses: CM_ERR_ARG (bad scale, unknown extension), CM_ERR_IO (cannot
 * open or read; not a regular file: a FIFO or a device is refused before reading), CM_ERR_PARSE,
 * CM_ERR_LIMIT (over 2^31-1 elements, a file over 256 MiB, a PLY header over 16 elements or 64
 * properties), CM_ERR_NOMEM. */
CM_API cmStatus cm_mesh_load(const char* path, double scale, cmMesh** out, char* err, size_t errsz);

/* what cm_mesh_check found; counts are 0 for a valid mesh */
typedef struct cmMeshReport {
  int nvert, nface, nedge;
  int nonfinite_vert;     /* vertices with a NaN, infinite or beyond +-1e50 coordinate */
  int bad_index_face;     /* faces referencing a vertex out of range or twice */
  int degenerate_face;    /* faces of zero area (relative to the mesh size) */
  int boundary_edge;      /* edges with one face: the mesh is not closed */
  int nonmanifold_edge;   /* edges with more than two faces */
  int misoriented_edge;   /* edges traversed in the same direction by both faces */
  int unused_vert;        /* vertices referenced by no face (allowed, reported) */
  int closed;             /* 1 if no boundary edges */
  int manifold;           /* 1 if no non-manifold edges */
  int oriented;           /* 1 if consistently oriented */
  double area;            /* surface area, m^2 */
  double volume;          /* signed enclosed volume, m^3 (must be > 0) */
} cmMeshReport;

/* Validate: finite vertices, valid indices, no degenerate faces, closed, edge-manifold,
 * consistently oriented, positive volume. Fills `rep` (may be NULL) in any case and
 * returns CM_ERR_MESH with a message naming `name` (the file or body, may be NULL) and
 * the first offending face/vertex/edge index (0-based) and what is wrong. A face is degenerate
 * when its area <= 1e-14 x (bounding-box diagonal)^2. */
CM_API cmStatus cm_mesh_check(const cmMesh* mesh, const char* name, cmMeshReport* rep, char* err,
                       size_t errsz);

/* Compute face normals, face areas and per-vertex area vectors (allocating them). */
CM_API cmStatus cm_mesh_prepare(cmMesh* mesh);

/* mass properties of the solid of unit density bounded by the mesh (divergence theorem) */
typedef struct cmMassProperties {
  double volume;     /* m^3 */
  double com[3];     /* centre of volume, m, mesh frame */
  double inertia[9]; /* inertia tensor about com, mesh axes, per unit density (m^5), row-major */
  double area;       /* surface area, m^2 */
} cmMassProperties;
CM_API cmStatus cm_mesh_mass_properties(const cmMesh* mesh, cmMassProperties* out);

/* Icosphere of `radius` (m, > 0): an icosahedron subdivided `refine` times (0..8), vertices
 * projected on the sphere. 10*4^refine+2 vertices. NULL on bad arguments or no memory. */
CM_API cmMesh* cm_mesh_icosphere(double radius, int refine);

/* Box of edge lengths size[3] (m, > 0) centred at the origin, each face divided into
 * divisions x divisions squares (each two triangles): 12 divisions^2 triangles, divisions in
 * 1..CM_BOX_MAX_DIVISIONS. NULL on bad arguments or no memory. */
CM_API cmMesh* cm_mesh_box(const double size[3], int divisions);

/* The largest primitive has CM_PRIMITIVE_MAX_FACES triangles, as many as the finest icosphere
 * (refine 8: 20 4^8); building and compiling it takes some 10 s and 0.5 GB. A box of d
 * divisions has 12 d^2 triangles, hence d <= 330. */
#define CM_PRIMITIVE_MAX_FACES 1310720
#define CM_BOX_MAX_DIVISIONS 330

#ifdef __cplusplus
}
#endif
#endif
