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
#include <string.h>

#include "collide/collide.h"
#include "core/cm_math.h"

/* The per-pair constants of the queries (cmVertexPose): cm_quat_rotate(r, q, v) is
 * cm_m3_mulv(r, R(q), v), so the matrices made once give the same bits as the conversion per
 * vertex and per rotation did (two for a vertex against a half-space, up to six against a mesh:
 * on the S2 pile of 125 boxes at rest the queries' own instructions fell from 87 to 40 M, plus
 * 16 M for the jobs' poses; 196 000 of its 267 000 queries are against the ground) */
static void pose_rest(const cmModel* m, const cmData* d, int a, int b, cmVertexPose* P) {
  int ga = m->body_geom[a], gb = m->body_geom[b];
  P->a = a;
  P->b = b;
  P->vert = cm_geom_vert(m, d, ga);
  P->vert_pn = cm_geom_vert_pn(m, d, ga);
  P->plane = m->geom_type[gb] == CM_GEOM_PLANE;
  if (P->plane) {
    const double* pl = m->geom_plane + 4 * gb;
    cm_m3_mulv(P->n, P->RB, pl);
    P->c = pl[3] + cm_v3_dot(P->n, d->body_xpos + 3 * b);
  } else {
    P->n[0] = P->n[1] = P->n[2] = P->c = 0;
  }
}

void cm_vertex_pose(const cmModel* m, const cmData* d, int a, int b, cmVertexPose* P) {
  cm_quat_to_mat(P->RA, d->body_xquat + 4 * a);
  cm_quat_to_mat(P->RB, d->body_xquat + 4 * b);
  pose_rest(m, d, a, b, P);
}

void cm_vertex_pose_mats(const cmModel* m, const cmData* d, int a, int b, const double RA[9],
                         const double RB[9], cmVertexPose* P) {
  memcpy(P->RA, RA, sizeof P->RA);
  memcpy(P->RB, RB, sizeof P->RB);
  pose_rest(m, d, a, b, P);
}

void cm_collide_vertex_posed(const cmModel* m, const cmData* d, const cmVertexPose* P, int v,
                             cmHit* hit) {
  hit->inside = 0;
  hit->face = -1;
  double p0[3];
  cm_m3_mulv(p0, P->RA, P->vert + 3 * (size_t)v);
  cm_v3_add(p0, p0, d->body_xpos + 3 * P->a);
  if (P->plane) {
    double s = cm_v3_dot(P->n, p0) - P->c;
    if (!(s < 0)) return;
    hit->inside = 1;
    hit->dist = s;
    cm_v3_copy(hit->p0, p0);
    cm_v3_madd(hit->p1, p0, P->n, -s);
    cm_v3_copy(hit->n, P->n);
    return;
  }
  /* the vertex's pseudonormal in world (a deformable body's frame has the world's axes and an
   * identity orientation) */
  double vn[3];
  cm_m3_mulv(vn, P->RA, P->vert_pn + 3 * (size_t)v);
  cm_collide_mesh_point(m, d, P->b, P->RB, p0, vn, hit);
}

void cm_collide_vertex(const cmModel* m, const cmData* d, int a, int b, int v, cmHit* hit) {
  cmVertexPose P;
  cm_vertex_pose(m, d, a, b, &P);
  cm_collide_vertex_posed(m, d, &P, v, hit);
}
