/* Contact detection kernels (narrowphase). */
#ifndef CM_COLLIDE_H
#define CM_COLLIDE_H

#include "comply/data.h"
#include "core/arena.h"

/* result of one vertex query, world frame */
typedef struct cmHit {
  int inside;    /* 1 if the vertex penetrates the other body */
  double dist;   /* (p0 - p1) . n, m (< 0) */
  double p0[3];  /* the vertex */
  double p1[3];  /* nearest point on the penetrated surface */
  double n[3];   /* normal of the nearest face (or the plane), out of the penetrated body */
} cmHit;

/* Does vertex v of body a's mesh lie inside body b (a mesh or a half-space)? Pure function of
 * the model and the poses in d; safe to call from several threads. */
void cm_collide_vertex(const cmModel* m, const cmData* d, int a, int b, int v, cmHit* hit);

/* Is the world point p0 inside the mesh of body b? Fills hit (p0, p1, n, dist) if so. */
void cm_collide_mesh_point(const cmModel* m, const cmData* d, int b, const double p0[3],
                           cmHit* hit);

/* one edge-edge contact (SPEC 4 `vertex_edge`), world frame */
typedef struct cmEdgeHit {
  int ea[2];    /* the edge of A: vertex indices within A's geometry, ea[0] < ea[1] */
  int eb[2];    /* the edge of B, eb[0] < eb[1] */
  double p0[3]; /* closest point of eA to eB's line, m */
  double p1[3]; /* closest point of eB to eA's line, m */
  double n[3];  /* unit normal eA_dir x eB_dir, oriented out of B toward A */
  double dist;  /* -|p0 - p1|, m */
  double area;  /* |n . sum A_f n_f| / 3 over the two faces adjacent to eA, m^2 */
} cmEdgeHit;

/* The edge-edge contacts between the meshes of bodies a (A, the first edges) and b (B) at the
 * poses of d (collide_edge.c): pairs of edges that cross each other's surface with no endpoint
 * inside and pass through each other's adjacent faces. *out points to an array from `arena`
 * (valid until its reset), sorted by (ea, eb), one entry per edge pair. Returns the count, or -1
 * if the arena could not allocate. Pure function of (model, poses); thread-safe if each thread
 * passes its own arena. */
int cm_collide_edges(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                     cmEdgeHit** out);

#endif
