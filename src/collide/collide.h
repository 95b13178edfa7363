/* The collision stages of cm_step, broadphase (stage 2) and narrowphase (stage 3), and the
 * contact detection kernels they call. cm_collide (public, data.h) runs both alone. */
#ifndef CM_COLLIDE_H
#define CM_COLLIDE_H

#include "comply/data.h"
#include "core/arena.h"
#include "model/data_internal.h"

/* The body-frame vertices (nvert x 3), vertex pseudonormals and vertex area vectors of geometry
 * g: the model's, or
 * for a deformable body's geometry its deformed ones of this step (world = body frame:
 * model/state.c). */
static inline const double* cm_geom_vert(const cmModel* m, const cmData* d, int g) {
  size_t va = (size_t)m->geom_vertadr[g];
  if (m->nnode && m->geom_nvert[g] && m->mesh_vert_node[va] >= 0) return cm_priv(d)->dvert + 3 * va;
  return m->mesh_vert + 3 * va;
}
static inline const double* cm_geom_vert_pn(const cmModel* m, const cmData* d, int g) {
  size_t va = (size_t)m->geom_vertadr[g];
  if (m->nnode && m->geom_nvert[g] && m->mesh_vert_node[va] >= 0)
    return cm_priv(d)->dvert_pn + 3 * va;
  return m->mesh_vert_pn + 3 * va;
}
static inline const double* cm_geom_areavec(const cmModel* m, const cmData* d, int g) {
  size_t va = (size_t)m->geom_vertadr[g];
  if (m->nnode && m->geom_nvert[g] && m->mesh_vert_node[va] >= 0)
    return cm_priv(d)->dareavec + 3 * va;
  return m->mesh_vert_areavec + 3 * va;
}

/* stage 2, broadphase: candidate body pairs whose world boxes overlap, filtered by the pair
 * table, less the pairs of meshes whose bounding balls are apart by more than rounding
 * (broadphase.c) */
void cm_stage_broadphase(const cmModel* m, cmData* d);

/* stage 3, narrowphase: the contact points of every candidate pair, by the method of its rule
 * (narrowphase.c) */
void cm_stage_narrowphase(const cmModel* m, cmData* d);

/* the vertex jobs of one slice of the narrowphase (narrowphase.c, "Slices"; default 512, values
 * below 1 count as 1). The contacts do not depend on it; tests set it small to prove that. Not
 * to be written while a step runs. */
extern int cm_narrowphase_slice;
/* and a slice ends once its jobs hold this many vertex queries or more (default 16384; the pair
 * that reaches it is its last) */
extern long cm_narrowphase_slice_hits;

/* Method auto (mesh pairs): both bodies' vertices, their areas shared by depth, when neither is
 * deformable and one has ridges, unless the finer is smooth and CM_AUTO_FINE times finer (vertices
 * per unit area); else the finer body's only (vertex); plus vertex_edge's edge contacts when
 * neither is deformable and one has ridges (narrowphase.c) */
#define CM_AUTO_FINE 4.0

/* A vertex of A within this fraction of B's size (the largest extent of its box) of B's surface,
 * not strictly inside, is inside for the vertex contact if it is inside a hair into its own body
 * (collide_mesh.c, on_surface_inside): the corners of a box resting on an identical box with
 * flush sides lie in the lower box's side planes, and rounding or a tilt of a few nanoradians
 * puts them a few nanometres either side. The jobs' culls are widened by as much
 * (narrowphase.c). Far below any mesh's spacing (a box of 330 divisions), far above rounding. */
#define CM_SURFACE_BAND 1e-6

/* CM_SURFACE_BAND times the largest extent of geometry g's box, m */
static inline double cm_surface_band(const cmModel* m, int g) {
  const double* b = m->geom_aabb + 6 * g;
  double e = b[3] - b[0];
  if (b[4] - b[1] > e) e = b[4] - b[1];
  if (b[5] - b[2] > e) e = b[5] - b[2];
  return CM_SURFACE_BAND * e;
}
int cm_auto_two_way(const cmModel* m, int a, int b);

/* result of one vertex query, world frame */
typedef struct cmHit {
  int inside;   /* 1 if the vertex penetrates the other body */
  double dist;  /* (p0 - p1) . n, m (< 0) */
  double p0[3]; /* the vertex */
  double p1[3]; /* nearest point on the penetrated surface */
  double n[3];  /* normal of the contact face (the nearest face facing against the vertex:
                   collide_mesh.c) or the plane, out of the penetrated body */
  int face;     /* that face (within the penetrated body's geometry), -1 for a plane */
} cmHit;

/* Does vertex v of body a's mesh lie inside body b (a mesh or a half-space)? Pure function of
 * the model and the poses in d; safe to call from several threads. */
void cm_collide_vertex(const cmModel* m, const cmData* d, int a, int b, int v, cmHit* hit);

/* What the vertex queries of body a's mesh against body b share (collide_vertex.c): A's
 * vertices and pseudonormals, both bodies' rotation matrices R(q) (cm_quat_to_mat: the very
 * values cm_quat_rotate multiplies by), and B a half-space its world plane n . x <= c (as
 * cm_collide_vertex computes them). cm_collide_vertex_posed(m, d, P, v, hit) is then
 * bit-identical to cm_collide_vertex(m, d, a, b, v, hit), without the two to six quaternion
 * conversions per vertex (the narrowphase's jobs keep one per job). */
typedef struct cmVertexPose {
  int a, b;
  int plane;             /* B a half-space */
  const double* vert;    /* cm_geom_vert of A */
  const double* vert_pn; /* cm_geom_vert_pn of A */
  double RA[9], RB[9];   /* R(q_a), R(q_b) */
  double n[3], c;        /* B a half-space: its world plane */
} cmVertexPose;
void cm_vertex_pose(const cmModel* m, const cmData* d, int a, int b, cmVertexPose* P);
/* cm_vertex_pose with the matrices R(q_a), R(q_b) the caller has made already */
void cm_vertex_pose_mats(const cmModel* m, const cmData* d, int a, int b, const double RA[9],
                         const double RB[9], cmVertexPose* P);
void cm_collide_vertex_posed(const cmModel* m, const cmData* d, const cmVertexPose* P, int v,
                             cmHit* hit);

/* relative pose of body b in body a's frame: x_a = R x_b + t, R = R_a^T R_b,
 * t = R_a^T (x_b - x_a) (frame origins) */
void cm_pair_pose(const cmData* d, int a, int b, double R[9], double t[3]);
/* the same from the bodies' rotation matrices (cm_quat_to_mat of their quaternions) and frame
 * origins: the same bits */
void cm_pair_pose_mat(const double RA[9], const double RB[9], const double xa[3],
                      const double xb[3], double R[9], double t[3]);

/* Are two boxes apart: box A (min xyz, max xyz, in A's frame) and box B (in B's frame, placed
 * in A's by x_A = R x_B + t) separated by more than eps along one of the 15 axes of the
 * separating-axis test (the 3 + 3 box axes and their 9 cross products; nearly parallel pairs,
 * covered by the box axes, skipped)? Then nothing in one box touches anything in the other.
 * cm_pair_box_eps: 1e-9 of the sizes involved, far above the rounding of the pose, far below
 * any contact depth (collide_mesh.c). */
int cm_boxes_apart(const double A[6], const double B[6], const double R[9], const double t[3],
                   double eps);

/* The boxes' least overlap over those axes (each projection's overlap divided by its axis'
 * length), m: for two boxes, the depth of their penetration (the least translation that
 * separates them); negative when apart. */
double cm_boxes_overlap(const double A[6], const double B[6], const double R[9], const double t[3]);
/* The least overlap over A's three axes alone, by the same expressions: never below
 * cm_boxes_overlap's (its least over a superset; fmin is exact), at a fifth of its cost */
double cm_boxes_overlap_bound(const double A[6], const double B[6], const double R[9],
                              const double t[3]);
double cm_pair_box_eps(const double A[6], const double B[6], const double t[3]);

/* Is the point p, in the body frame of mesh geometry g, strictly inside that mesh? The search is
 * bounded by the distance to the mesh's box (collide_mesh.c); out (may be NULL) gets the
 * nearest surface point. */
struct cmNearest;
int cm_mesh_inside_local(const cmModel* m, int g, const double p[3], struct cmNearest* out);
/* Is the point x (geometry g's frame) within CM_SURFACE_BAND of g's surface (cm_surface_band)?
 * *out (may be NULL): its nearest point then (cm_bvh_nearest) */
int cm_mesh_near_surface(const cmModel* m, int g, const double x[3], struct cmNearest* out);
/* the same from geometry g's facets alone (cm_facets_inside, or its direction grid's
 * cm_facets_grid_inside), with the tree's starting bound: 1, 0, or -1 where they do not decide
 * (or g has none) */
int cm_mesh_facets_inside(const cmModel* m, int g, const double p[3], double bound,
                          struct cmNearest* out);

/* Concave corners (collide_corner.c): the further contacts of the penetrating vertex of hit H
 * (its contact face H->face of body b, a rigid mesh; RB = R(q_b)) with the faces of an inner
 * corner of b around that face, at most CM_CORNER_MAX, written to extra; returns their number
 * (0 at once where b's mesh has no concave ridge). cm_corner_areas then turns the k contacts'
 * plain areas (area[0] = |n_0 . a|, area[i] = max(0, -n_i . a), a the vertex's area vector)
 * into the areas they carry, given their normals n, depths (> 0) and the signed projections
 * proj[i] = -n_i . a (the decomposition's right-hand side). */
#define CM_CORNER_MAX 2
int cm_corner_faces(const cmModel* m, const cmData* d, int b, const double RB[9], const cmHit* H,
                    cmHit* extra);
void cm_corner_areas(int k, const double* n[], const double depth[], const double proj[],
                     double area[]);

/* Is the world point p0 inside the mesh of body b? Fills hit (p0, p1, n, dist) if so. RB: b's
 * rotation matrix, cm_quat_to_mat of its orientation (the caller's, once per body pair). vn
 * (world, may be NULL): the outward normal of the penetrating surface at p0 (its vertex
 * pseudonormal); where the nearest face of b does not face against it, the contact is with the
 * nearest face that does (collide_mesh.c; a deformable b keeps the nearest face). */
void cm_collide_mesh_point(const cmModel* m, const cmData* d, int b, const double RB[9],
                           const double p0[3], const double* vn, cmHit* hit);

/* one edge-edge contact (SPEC 4 `vertex_edge`), world frame */
typedef struct cmEdgeHit {
  int ea[2];    /* the edge of A: vertex indices within A's geometry, ea[0] < ea[1] */
  int eb[2];    /* the edge of B, eb[0] < eb[1] */
  double p0[3]; /* closest point of eA to eB's line, m */
  double p1[3]; /* closest point of eB to eA's line, m */
  double n[3];  /* unit normal eA_dir x eB_dir, oriented out of B toward A */
  double dist;  /* -|p0 - p1|, at most the projected overlaps (edge_depth), m */
  double area;  /* |n . sum A_f n_f| / 3 over the two faces adjacent to eA, m^2 */
} cmEdgeHit;

/* 1 (default): two ridges whose crossings pass through faces of each other's facets, not the
 * triangles at the edges, can pair (collide_edge.c, step 3, facet-level linking); 0: only
 * through the triangles, as until 2026-12-07 (tests and benchmarks compare the two; not
 * thread-safe to write during a step) */
extern int cm_collide_facet_link;
/* 1 (default): an edge contact with an endpoint inside is weighed by the share of its depth that
 * its inside endpoints' vertex contacts do not give along its normal (collide_edge.c, step 4,
 * "Edges that a vertex contact covers"); 0: kept whole, as before 2026-12-07 (for tests and
 * benchmarks) */
extern int cm_collide_cover;

/* The edge-edge contacts between the meshes of bodies a (A, the first edges) and b (B) at the
 * poses of d (collide_edge.c): pairs of edges that cross each other's surface with no endpoint
 * inside and pass through each other's adjacent faces. *out points to an array from `arena`
 * (valid until its reset), sorted by (ea, eb), one entry per edge pair. Returns the count, or -1
 * if the arena could not allocate. Pure function of (model, poses); thread-safe if each thread
 * passes its own arena. */
int cm_collide_edges(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                     cmEdgeHit** out);

/* cm_collide_edges for a pair whose tree boxes cm_boxes_apart (with cm_pair_box_eps, at the
 * pose of cm_pair_pose) has found not apart already: the narrowphase's pairs with jobs, which
 * ran that very test (rigid_apart) */
int cm_collide_edges_near(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                          cmEdgeHit** out);

/* one contact region of the `contour` method (collide_contour.c), world frame */
typedef struct cmContourRegion {
  double n[3];    /* unit normal of the plane fitted to the region's contour, out of B toward A */
  double c[3];    /* centroid of the region's contour points, m */
  double depth;   /* deepest vertex penetration of the region (A's in B, B's in A), m (>= 0) */
  double area;    /* contact area: A's surface inside B projected on the plane, |n . S_A|, m^2 */
  double area_a;  /* surface area of A inside B (whole faces plus clipped cut faces), m^2 */
  double area_b;  /* surface area of B inside A attached to this region, m^2 */
  int hit0, nhit; /* its contact points: hit[hit0 .. hit0 + nhit) */
} cmContourRegion;

/* one contact point of the `contour` method, world frame */
typedef struct cmContourHit {
  double p0[3]; /* hull point on the plane moved by -depth/2 along n, m */
  double p1[3]; /* the same moved by +depth/2 along n, m */
  double n[3];  /* the region's normal */
  double dist;  /* -depth, m */
  double area;  /* region area / number of points, m^2 */
  int region;   /* index into cmContour.region */
} cmContourHit;

/* the intersection contours of two meshes and their contact regions; arrays from the arena */
typedef struct cmContour {
  int npoly;        /* polylines */
  int* poly;        /* (npoly + 1) polyline i is point[poly[i] .. poly[i+1]) */
  int* closed;      /* (npoly) 1 if the polyline's last point joins its first */
  int* poly_region; /* (npoly) its region */
  int npoint;       /* contour points */
  double* point;    /* (npoint x 3) m, counter-clockwise around A's region seen from outside A */
  int nregion;
  cmContourRegion* region; /* (nregion) */
  int nhit;
  cmContourHit* hit; /* (nhit) grouped by region */
  int ndegenerate;   /* intersecting face pairs that gave no clean segment (touching, coplanar) */
} cmContour;

/* The contours, regions and contact points (SPEC 4 `contour`) of the meshes of bodies a (A) and b
 * (B) at the poses of d. Arrays from `arena` (valid until its reset). Returns 0, or -1 if the
 * arena could not allocate. Pure function of (model, poses); deterministic; thread-safe if each
 * thread passes its own arena. Planes and empty meshes give nothing. */
int cm_collide_contour(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                       cmContour* out);

#endif
