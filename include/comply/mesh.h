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
 * little-endian), .vtp (VTK XML PolyData: ascii, base64 binary or appended data, raw or zlib
 * compressed; polygons fan-triangulated, triangle strips split) and .vtk (legacy VTK, DATASET
 * POLYDATA, ASCII or big-endian BINARY, the 4.x and 5.1 cell layouts); docs/meshes.md. Vertices are multiplied by `scale` (> 0). STL vertices are merged when
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
 * consistently oriented, no vertex joining separate fans of faces, no shell nested in another
 * of the same orientation, positive volume. Fills `rep` (may be NULL) in any case and
 * returns CM_ERR_MESH with a message naming `name` (the file or body, may be NULL) and
 * the first offending face/vertex/edge index (0-based) and what is wrong. When the surface
 * checks fail, the message starts with the first cause found by cm_mesh_diagnose and what to do
 * about it ("NAME: duplicate faces: 12 (every face is listed twice); first: ...; remove the
 * duplicate faces ...; edge (0, 1) belongs to 4 faces ..."). A face is degenerate
 * when its area <= 1e-14 x (bounding-box diagonal)^2. */
CM_API cmStatus cm_mesh_check(const cmMesh* mesh, const char* name, cmMeshReport* rep, char* err,
                       size_t errsz);

/* The causes behind a failing cm_mesh_check, found by cm_mesh_diagnose. Vertices at the same
 * position (bitwise, -0 = +0) are welded and repeated faces set aside first, conceptually (the
 * mesh is not changed), so that each later finding names its own cause: an unwelded but
 * otherwise closed mesh shows no holes, a mesh whose every face is listed twice no non-manifold
 * edges. Counts are 0 and first examples -1 when there is nothing to report. Vertex and face
 * indices are the mesh's (0-based); a welded vertex is named by the smallest index at its
 * position. Faces with an index out of range or repeated are ignored. */
#define CM_MESH_DIAG_LOOPS 8 /* boundary loops whose lengths are kept */
typedef struct cmMeshDiagnosis {
  double diag;            /* bounding-box diagonal of the finite vertices, m */
  int duplicate_face;     /* faces with the three vertices of an earlier face (either
                             orientation, after welding) */
  int duplicate_first[2]; /* the first such pair: earlier face, later face */
  int unwelded_vert;      /* vertices at the position of another (welded away) */
  int coincident_group;   /* groups of two or more distinct vertices at one position */
  int unwelded_first[2];  /* the first such pair of vertices */
  double weld_tol;        /* smallest weld tolerance that closes the mesh, m: 0 when welding
                             exact duplicates closes it, -1 when no tolerance up to 1e-4 of
                             the diagonal does (or the mesh is closed without welding) */
  int hole;               /* boundary loops after welding exact duplicates */
  int hole_edge;          /* boundary edges in them */
  int hole_len[CM_MESH_DIAG_LOOPS]; /* edges of the first loops (in the order of their first
                                  vertex) */
  int hole_first_vert;              /* a vertex of the first loop */
  int flipped_face;                 /* faces oriented against the majority of their shell */
  int flipped_first;                /* the first of them */
  int nonmanifold_edge;             /* edges with more than two faces (after welding, duplicates
                                       set aside) */
  int nonmanifold_edge_first[2];    /* its vertices */
  int nonmanifold_edge_faces;       /* its number of faces */
  int nonmanifold_vert;             /* vertices whose faces form more than one fan */
  int nonmanifold_vert_first;       /* the first of them */
  int nonmanifold_vert_fans;        /* its number of fans */
  int shell;                        /* connected components (faces joined by shared edges) */
  int nested_shell;                 /* shells inside another shell of the same orientation: their
                                       volume is counted twice (-1: not checked, over 64 shells) */
  int nested_first[2];   /* the first: smallest face of the inner and of the outer shell */
  int self_intersection; /* pairs of faces sharing no vertex that intersect (touching
                            counts); -1 when not checked */
  int self_first[2];     /* the first such pair of faces */
} cmMeshDiagnosis;

/* flags of cm_mesh_diagnose */
#define CM_DIAGNOSE_SELF_INTERSECTIONS                                                             \
  1 /* also test every pair of faces near each other:                                              \
       a BVH over the faces and an exact triangle test per                                         \
       pair of overlapping leaf boxes */

/* Diagnose `mesh` (see cmMeshDiagnosis). Without CM_DIAGNOSE_SELF_INTERSECTIONS the cost is
 * that of a few sorts of the faces, O(n log n); with it, building a face tree and testing the
 * pairs of faces whose leaf boxes overlap (some 20 pairs per face on a fine mesh, plus one
 * buffer of 8 bytes per pair). CM_ERR_NOMEM, or CM_OK. */
CM_API cmStatus cm_mesh_diagnose(const cmMesh* mesh, int flags, cmMeshDiagnosis* out);

/* Write the findings of `dg` (from cm_mesh_diagnose of `mesh`), one line each, "KIND: COUNT ...;
 * first: ... (coordinates in m)", with shells and (when checked) self-intersections always
 * listed. Returns the number of findings (lines other than those two when their count is benign:
 * 1 shell, 0 self-intersections). Writes a terminated, possibly truncated text. */
CM_API int cm_mesh_diagnosis_text(const cmMesh* mesh, const cmMeshDiagnosis* dg, char* buf,
                                  size_t bufsz);

/* what cm_mesh_repair changed; all counts 0 when nothing was */
typedef struct cmMeshRepairReport {
  double weld_tol;        /* weld tolerance used, m (0: exactly coincident vertices only) */
  int welded_vert;        /* vertices in groups of two or more within the tolerance */
  int weld_group;         /* the vertices they became */
  int unused_vert;        /* vertices dropped because no face used them (after welding) */
  int duplicate_face;     /* faces dropped as copies of another (either orientation) */
  int degenerate_face;    /* faces dropped: zero area, or two corners welded into one */
  int filled_hole;        /* holes of three edges closed by a triangle */
  int filled_planar_hole; /* holes of 4 or more edges whose vertices lie in a plane, closed by
                             ear clipping in that plane */
  int filled_planar_face; /* triangles added to them */
  int filled_planar_max;  /* edges of the longest of them */
  int nonplanar_hole;     /* holes of 4 or more edges left open: not planar */
  int nonplanar_first_len;    /* edges of the first of them */
  double nonplanar_first_dev; /* its largest vertex distance from its best-fit plane, m */
  double nonplanar_first_tol; /* the planarity tolerance for it, m */
  int unfilled_hole;      /* planar holes left open: self-overlapping outline, or the fill
                             would reuse an edge of the mesh or add a zero-area triangle */
  int long_hole;          /* boundary loops of more than 1024 edges left open */
  int flipped_face;       /* faces flipped to agree with the majority of their shell */
  int flipped_shell;      /* shells of negative volume (not cavities) reversed whole */
  int flipped_shell_face; /* faces in them */
  int changes;            /* kinds of change made; 0: the mesh was not changed */
  double volume;          /* enclosed volume after the repair, m^3 */
} cmMeshRepairReport;

/* Apply the safe repairs to `mesh` in place, then cm_mesh_check it (a mesh that passes is not
 * changed): weld vertices within
 * `weld_tol` m of each other (< 0: the default, cm_mesh_diagnose's weld_tol, the smallest
 * tolerance up to 1e-4 of the bounding-box diagonal that closes the mesh, else 0: exactly
 * coincident vertices), each group at the position of its smallest index; drop faces with two
 * corners welded together or of zero area (as cm_mesh_check), and copies of a face (the first
 * is kept; the faces listed in both orientations are dropped altogether when they form a wall
 * between two closed parts: without them their edges have 2 faces or none); close each hole of
 * three edges by a triangle, and each longer hole (up to 1024 edges) whose vertices lie within
 * 1e-6 of its size (plus 2^-22 of its largest coordinate) of their best-fit plane by ear
 * clipping in that plane; flip the faces oriented against the
 * majority of their shell, then reverse each shell of negative volume that is not a cavity
 * inside another shell; drop unused vertices (the others keep their order). Non-planar holes
 * (counted in rep, named by cm_mesh_repair_text), non-manifold edges and vertices, nested
 * shells and self-intersections are not repaired.
 * When the repair changes the mesh (rep->changes > 0) its derived arrays are freed (call
 * cm_mesh_prepare again); a mesh left unchanged (one that already passes, or one no repair
 * applies to) keeps them. Fills `rep` (may be NULL) with what
 * changed (cm_mesh_repair_text writes it) and returns cm_mesh_check's status and message (naming
 * `name`) on the repaired mesh: CM_OK when it now passes, CM_ERR_MESH with what remains.
 * Non-finite coordinates or indices out of range: the mesh is not changed and the check's error
 * returned. CM_ERR_NOMEM (the mesh is not changed). */
CM_API cmStatus cm_mesh_repair(cmMesh* mesh, double weld_tol, const char* name,
                               cmMeshRepairReport* rep, char* err, size_t errsz);

/* cm_mesh_repair, also giving the input index of every vertex of the result: `source` (caller
 * owned, mesh->nvert ints before the call, may be NULL) gets source[j] = the index in the input
 * mesh of vertex j of the repaired mesh (the smallest index of its weld group; increasing in j,
 * since the survivors keep their order), for j < the new mesh->nvert; the identity when the mesh
 * is not changed. The VTK output writes it (docs/outputs.md, input_index). */
CM_API cmStatus cm_mesh_repair_map(cmMesh* mesh, double weld_tol, const char* name,
                                   cmMeshRepairReport* rep, int* source, char* err,
                                   size_t errsz);

/* Write what `rep` says changed, "welded 24 vertices into 8 (tolerance 0 m); dropped 12
 * duplicate faces; flipped 1 face", or "nothing to repair", followed by the holes left open and
 * why ("left 1 hole open: not planar (...)"); terminated, possibly truncated. Returns
 * rep->changes. */
CM_API int cm_mesh_repair_text(const cmMeshRepairReport* rep, char* buf, size_t bufsz);

/* Compute face normals, face areas and per-vertex area vectors (allocating them if absent,
 * recomputing them in place if present). CM_ERR_ARG, with nothing changed, if a face's vertex
 * index is outside [0, nvert); CM_ERR_NOMEM. */
CM_API cmStatus cm_mesh_prepare(cmMesh* mesh);

/* mass properties of the solid of unit density bounded by the mesh (divergence theorem) */
typedef struct cmMassProperties {
  double volume;     /* m^3 */
  double com[3];     /* centre of volume, m, mesh frame */
  double inertia[9]; /* inertia tensor about com, mesh axes, per unit density (m^5), row-major */
  double area;       /* surface area, m^2 */
} cmMassProperties;
/* the mass properties of `mesh` into *out. CM_ERR_ARG, with *out zeroed, if a face's vertex
 * index is outside [0, nvert); CM_ERR_MESH if the enclosed volume is not finite and > 0 (volume
 * and area are filled, com and inertia are not meaningful). */
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


/* ---- tetrahedral volume meshes (deformable bodies, docs/deformable.md) ----
 * A cmTetMesh lists nodes and linear tetrahedra. A tet's four node indices are positively
 * oriented: (x1 - x0) . ((x2 - x0) x (x3 - x0)) > 0 (six times its volume). Units are those of
 * the file times `scale` (metres by default). */
typedef struct cmTetMesh {
  int nnode;    /* number of nodes */
  int ntet;     /* number of tetrahedra */
  double* node; /* node positions                                      (nnode x 3) m */
  int* tet;     /* node indices, positively oriented                    (ntet x 4) */
} cmTetMesh;

/* a new tet mesh with zeroed arrays; NULL on no memory or a negative size */
CM_API cmTetMesh* cm_tetmesh_new(int nnode, int ntet);
CM_API void cm_tetmesh_free(cmTetMesh* mesh);

/* Check a tet mesh: node indices in range, finite coordinates, every tet of positive volume
 * (above 1e-12 of the bounding box's volume scale), no node unused. CM_OK or CM_ERR_MESH with
 * the first fault (tet index, nodes, volume) in err. */
CM_API cmStatus cm_tetmesh_check(const cmTetMesh* mesh, char* err, size_t errsz);

/* Structured meshes. A box of size[3] (m) centred at the origin, div[i] >= 1 cells along each
 * axis, every cell cut into tetrahedra (a conforming pattern); a ball of `radius` (m) with about
 * n cells across its diameter (n >= 2), positively oriented. CM_ERR_ARG for bad sizes. */
CM_API cmStatus cm_tetmesh_box(const double size[3], const int div[3], cmTetMesh** out);
CM_API cmStatus cm_tetmesh_ball(double radius, int n, cmTetMesh** out);

/* The boundary of a tet mesh: the faces that belong to one tet only, outward oriented, as a
 * closed triangle mesh over the boundary nodes, vertices in increasing node order. surf_node
 * (may be NULL; else room for mesh->nnode ints) receives the node index of each surface vertex:
 * surface vertex i is node surf_node[i]. NULL on no memory, or when a tet's node index is out
 * of range (cm_tetmesh_check names it). */
CM_API cmMesh* cm_tetmesh_surface(const cmTetMesh* mesh, int* surf_node);

/* Load a tet mesh, format by extension: .msh (gmsh 2.2 and 4.1, ASCII or binary), .vtu (VTK XML
 * UnstructuredGrid) and .vtk (legacy UNSTRUCTURED_GRID); only the linear tetrahedra are kept
 * (other cells are counted and skipped, see the report in err on success: empty if none).
 * Negatively oriented tets are flipped. Errors name the file and the line or byte offset, as
 * cm_mesh_load. */
CM_API cmStatus cm_tetmesh_load(const char* path, double scale, cmTetMesh** out, char* err,
                                size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
