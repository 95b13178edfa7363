/* Geometric query kernel for vertex-penetration contact: angle-weighted pseudonormals, an AABB
 * tree over the faces of a closed triangle mesh, closest point on a triangle with its Voronoi
 * feature, nearest-point and signed-distance queries. Internal API (not installed).
 *
 * Inputs are plain arrays: vertices `vert` (nvert x 3, m) and faces `face` (nface x 3 vertex
 * indices, CCW seen from outside, closed and manifold as checked by cm_mesh_check). Edge k of
 * face f runs from vertex face[3f+k] to face[3f+(k+1)%3]; vertex k of face f is face[3f+k].
 *
 * Every query is a pure, thread-safe function of its arguments: no allocation, no recursion, no
 * global state. Ties between faces at the same computed squared distance go to the smallest face
 * index (see cm_bvh_nearest). */
#ifndef CM_BVH_H
#define CM_BVH_H

#include <stddef.h>

#include "comply/core.h"

/* ---------------------------------------------------------------------------------------------
 * pseudonormals (pseudonormal.c) */

/* Angle-weighted vertex pseudonormals and edge pseudonormals (Baerentzen and Aanaes 2005).
 *   vert_pn (nvert x 3, caller-allocated): unit sum over the faces around each vertex of the face
 *     angle at the vertex times the unit face normal; (0, 0, 0) for a vertex used by no face;
 *   edge_pn (nface x 9, caller-allocated): for face f and edge k, at edge_pn[9f+3k], the unit sum
 *     of the unit normals of the two faces sharing the edge (the face's own normal if the two
 *     normals cancel, i.e. the surface folds back onto itself along the edge).
 * Either output may be NULL to skip it. Edge adjacency is found by sorting half-edges,
 * O(n log n); one temporary allocation. Returns CM_ERR_ARG for an index out of range,
 * CM_ERR_MESH if some edge is not shared by exactly two faces (edge_pn requested only),
 * CM_ERR_NOMEM. */
cmStatus cm_pseudonormals(const double* vert, int nvert, const int* face, int nface,
                          double* vert_pn, double* edge_pn);

/* ---------------------------------------------------------------------------------------------
 * closest point on a triangle */

/* the Voronoi feature of a triangle that holds the closest point */
typedef enum cmFeature {
  CM_FEATURE_FACE = 0,  /* the interior of the face */
  CM_FEATURE_EDGE = 1,  /* edge `index`, from vertex index to (index+1)%3, endpoints excluded */
  CM_FEATURE_VERTEX = 2 /* vertex `index` */
} cmFeature;

/* result of a nearest-point query */
typedef struct cmNearest {
  int face;        /* index of the nearest face, -1 if none */
  int feature;     /* cmFeature of that face holding the closest point */
  int index;       /* edge or vertex 0..2 of the face (0 for CM_FEATURE_FACE) */
  double point[3]; /* the closest point on the surface, m */
  double dist2;    /* squared distance from the query point to `point`, m^2 */
} cmNearest;

/* Closest point q on the triangle (vert[i0], vert[i1], vert[i2]) to p (Ericson, Real-Time
 * Collision Detection 5.1.5). Returns |p - q|^2, writes q and the feature (`index` as in
 * cmNearest). A point on an edge is computed from the edge's endpoint of smaller vertex index, so
 * that the two faces sharing an edge return bitwise-equal points and distances. */
double cm_triangle_closest(const double* vert, int i0, int i1, int i2, const double p[3],
                           double q[3], int* feature, int* index);

/* ---------------------------------------------------------------------------------------------
 * the bounding volume hierarchy */

/* largest depth of a tree (root at depth 0); the query's fixed stack holds this many nodes */
#define CM_BVH_MAX_DEPTH 64
/* most faces in a leaf */
#define CM_BVH_LEAF_SIZE 4
/* added to the sine of a normal cone's half-angle (cmBvh.cone): far above the rounding of the
 * cone's and the faces' normals (1e-16), far below any angle a mesh means */
#define CM_BVH_CONE_MARGIN 1e-9

/* a node of the tree: 56 bytes, its box and where its children or faces are */
typedef struct cmBvhNode {
  double box[6]; /* bounding box: min x y z, max x y z, m */
  int child;     /* inner node: index of the first of its two adjacent children (the second is
                    child + 1); leaf: -1 - first, its faces being order[first .. first+count-1] */
  int count;     /* leaf: number of faces, 1..CM_BVH_LEAF_SIZE; inner node: 0 */
} cmBvhNode;

/* An AABB tree over faces: a node array and a face permutation in one allocation. Node 0 is the
 * root; the two children of a node are adjacent so that the query reads both boxes from 112
 * contiguous bytes, and a node's child index lies in the same record as its box. */
typedef struct cmBvh {
  int nnode;       /* number of nodes (0 for an empty mesh, else <= 2 nface - 1) */
  int nface;       /* number of faces */
  int depth;       /* depth of the deepest leaf (root 0), < CM_BVH_MAX_DEPTH */
  int owned;       /* 1 if `block` is owned (freed by cm_bvh_free), 0 for a view */
  cmBvhNode* node; /* the nodes                                                      (nnode) */
  int* order;      /* face indices in leaf order, a permutation of 0..nface-1         (nface) */
  /* per face in leaf order (face order[k] at 4 k), of the vertices the tree was built or last
   * refit on: its unit normal and 1, or 0 0 0 0 for a sliver (cm_bvh_seg_faces' plane test,
   * tri_tri.c seg_face_class)                                                    (nface x 4) */
  double* seg_n;
  /* per node, of the boxes the tree was built or last refit on: 1 where its box is its parent's,
   * bit for bit (cm_bvh_seg_faces tests the segment against it once), else 0      (nnode) */
  unsigned char* seg_same;
  /* per node, a cone holding the unit normals of every face below it, of the vertices the tree
   * was built on: its unit axis (3) and the sine of its half-angle plus CM_BVH_CONE_MARGIN, or 2
   * where the half-angle reaches 90 degrees or a face below is a sliver (no bound). Set by
   * cm_bvh_build; cm_bvh_refit sets every one to 2 (the faces moved). cm_bvh_nearest_facing
   * skips a node whose cone holds no normal facing against its direction.          (nnode x 4) */
  double* cone;
  void* block; /* the one block holding node, order, seg_n, seg_same and cone (cm_bvh_bytes) */
} cmBvh;

/* Build the tree over faces by binned SAH on face centroids (16 bins per axis), leaves of at most
 * 4 faces; from depth 32 on the split is always the centroid median, which bounds the depth. The
 * result depends only on the input arrays (deterministic). `bvh` is overwritten (not freed).
 * Returns CM_ERR_ARG for nface < 0 or > 2^30, CM_ERR_NOMEM. */
cmStatus cm_bvh_build(cmBvh* bvh, const double* vert, const int* face, int nface);

/* Refit: the boxes of every node (and seg_n) recomputed from new vertex positions (the same
 * faces), the topology kept: leaves bound their faces' vertices, inner nodes their children
 * (children come after their parent, so one backward pass). For a surface that deforms (a
 * deformable body's): the queries stay exact, the pruning only gets worse as the faces move from
 * where the tree was built. Allocates nothing. */
void cm_bvh_refit(cmBvh* bvh, const double* vert, const int* face);

/* free an owned tree's block and zero the struct (safe on a zeroed struct) */
void cm_bvh_free(cmBvh* bvh);

/* size in bytes of the block of a tree of nnode nodes over nface faces (a multiple of 8) */
size_t cm_bvh_bytes(int nnode, int nface);

/* deep copy into dst (owned); CM_ERR_NOMEM */
cmStatus cm_bvh_copy(cmBvh* dst, const cmBvh* src);

/* Serialisation: cm_bvh_write copies the tree into caller memory `mem` (8-byte aligned,
 * cm_bvh_bytes(src->nnode, src->nface) bytes, position-independent); cm_bvh_view makes `view` a
 * non-owning tree over such memory (which must outlive it). */
void cm_bvh_write(const cmBvh* src, void* mem);
void cm_bvh_view(cmBvh* view, int nnode, int nface, int depth, void* mem);

/* ---------------------------------------------------------------------------------------------
 * queries */

/* Nearest point of the surface to p within max_dist (m; INFINITY for unbounded). Returns 1 and
 * fills `out` if some face has |p - q| <= max_dist, else 0 (out->face = -1, dist2 = INFINITY).
 * Branch and bound: depth-first, nearer child box first, subtrees whose box is farther than the
 * best distance so far are pruned (boxes at exactly the best distance are still visited).
 * Ties: among faces with the same computed squared distance the smallest face index wins, so
 * that a point nearest to an edge or vertex reports the same face whatever the tree. */
int cm_bvh_nearest(const cmBvh* bvh, const double* vert, const int* face, const double p[3],
                   double max_dist, cmNearest* out);

/* cm_bvh_nearest over the faces that face against dir only: those whose normal (face_normal,
 * nface x 3) has a negative dot product with dir. The vertex query's contact face where the
 * nearest face runs along the penetrating vertex instead of against it (collide_mesh.c).
 * face_normal must be the faces' unit normals of the vertices the tree was built on (to within
 * CM_BVH_CONE_MARGIN): subtrees whose normal cone (cmBvh.cone) holds no normal with a negative
 * dot product with dir are skipped, which leaves the result as it was bit for bit (the same
 * candidates, the same tie rule) and spares the search the faces that do not face against dir
 * (two spheres one inside the other: every inside vertex's facing face is on the far side). */
int cm_bvh_nearest_facing(const cmBvh* bvh, const double* vert, const int* face,
                          const double* face_normal, const double dir[3], const double p[3],
                          double max_dist, cmNearest* out);

/* Signed distance from p to the surface, negative inside, by cm_bvh_nearest and the sign of
 * (p - q) . n with n the pseudonormal of the closest feature: the face normal (face_normal,
 * nface x 3 unit, may be NULL to compute it), the edge pseudonormal (edge_pn) or the vertex
 * pseudonormal (vert_pn) from cm_pseudonormals. Exactly 0 for a point on the surface.
 * Returns +INFINITY (out->face = -1) if no surface point is within max_dist: the point may then
 * be inside or outside. `out` may be NULL. */
double cm_bvh_signed_distance(const cmBvh* bvh, const double* vert, const int* face,
                              const double* face_normal, const double* vert_pn,
                              const double* edge_pn, const double p[3], double max_dist,
                              cmNearest* out);

/* 1 if p is strictly inside the closed surface (signed distance < 0) and within max_dist of it,
 * else 0; `out` (may be NULL) as for cm_bvh_signed_distance */
int cm_bvh_inside(const cmBvh* bvh, const double* vert, const int* face, const double* face_normal,
                  const double* vert_pn, const double* edge_pn, const double p[3], double max_dist,
                  cmNearest* out);

#endif
