/* Vertex penetration query (SPEC 4, `vertex`): is vertex v of body A inside body B?
 *
 * The vertex is carried to world coordinates, p0 = R_A v + x_A.
 *  - B a half-space {n . x <= c} (body frame): in world n_w = R_B n, c_w = c + n_w . x_B; the
 *    vertex is inside when s = n_w . p0 - c_w < 0; then p1 = p0 - s n_w, n = n_w, dist = s.
 *  - B a mesh: p0 is carried into B's frame, rejected outside B's bounding box, and the nearest
 *    point p1 on B's surface is found with B's BVH; the sign of (p0 - p1) . pseudonormal of the
 *    nearest feature (face, edge or vertex) says inside or outside (robust near edges and
 *    vertices). n = normal of the nearest face, dist = (p0 - p1) . n; where that face does not
 *    face against the vertex's pseudonormal (a flush side face), the nearest face that does
 *    (collide_mesh.c, facing_face; docs/contact-laws.md "Flush faces"). */
#include <math.h>

#include "collide/collide.h"
#include "core/cm_math.h"

static void to_world(const cmData* d, int b, const double local[3], double world[3]) {
  cm_quat_rotate(world, d->body_xquat + 4 * b, local);
  cm_v3_add(world, world, d->body_xpos + 3 * b);
}

static void plane_query(const cmModel* m, const cmData* d, int b, const double p0[3], cmHit* hit) {
  const double* pl = m->geom_plane + 4 * m->body_geom[b];
  double n[3];
  cm_quat_rotate(n, d->body_xquat + 4 * b, pl);
  double c = pl[3] + cm_v3_dot(n, d->body_xpos + 3 * b);
  double s = cm_v3_dot(n, p0) - c;
  if (!(s < 0)) return;
  hit->inside = 1;
  hit->dist = s;
  cm_v3_copy(hit->p0, p0);
  cm_v3_madd(hit->p1, p0, n, -s);
  cm_v3_copy(hit->n, n);
}

void cm_collide_vertex(const cmModel* m, const cmData* d, int a, int b, int v, cmHit* hit) {
  hit->inside = 0;
  hit->face = -1;
  int ga = m->body_geom[a], gb = m->body_geom[b];
  double p0[3];
  to_world(d, a, cm_geom_vert(m, d, ga) + 3 * (size_t)v, p0);
  if (m->geom_type[gb] == CM_GEOM_PLANE) {
    plane_query(m, d, b, p0, hit);
    return;
  }
  /* the vertex's pseudonormal in world (a deformable body's frame has the world's axes and an
   * identity orientation) */
  double vn[3];
  cm_quat_rotate(vn, d->body_xquat + 4 * a, cm_geom_vert_pn(m, d, ga) + 3 * (size_t)v);
  cm_collide_mesh_point(m, d, b, p0, vn, hit);
}
