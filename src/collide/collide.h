/* Contact detection kernels (narrowphase). */
#ifndef CM_COLLIDE_H
#define CM_COLLIDE_H

#include "comply/data.h"

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

#endif
