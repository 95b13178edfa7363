/* Geometric queries of the public API on the current state, without simulation (data.h). */
#include "collide/collide.h"
#include "core/cm_math.h"
#include "engine/engine.h"

int cm_point_inside(const cmModel* m, const cmData* d, int body, const double p[3]) {
  if (!m || !d || !p || body < 0 || body >= m->nbody) return 0;
  if (!cm_v3_isfinite(p)) return 0; /* (a NaN passed every test of the inside query as inside) */
  int g = m->body_geom[body];
  double t[3], local[3];
  cm_v3_sub(t, p, d->body_xpos + 3 * body);
  cm_quat_rotate_inv(local, d->body_xquat + 4 * body, t);
  if (m->geom_type[g] == CM_GEOM_PLANE) {
    const double* pl = m->geom_plane + 4 * g;
    return cm_v3_dot(pl, local) < pl[3];
  }
  if (m->geom_nface[g] <= 0) return 0;
  return cm_mesh_inside_local(m, g, local, NULL);
}
