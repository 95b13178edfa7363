/* Concave corners: the further contacts of a vertex inside an inner corner of a mesh
 * (docs/contact-laws.md, "Concave corners").
 *
 * A vertex query (collide_mesh.c) gives a penetrating vertex one contact: with the nearest face
 * of B, or the nearest that faces against the vertex. In an inner corner of B (a floor meeting a
 * wall: a concave ridge, each face in front of the other's plane) a vertex of A can be behind
 * both faces' planes; the overlap there is the floor's depth under the part of the vertex's
 * patch that faces the floor plus the wall's depth beside the part that faces the wall, and one
 * contact counts only one of them. A cube in a corner lost the floor's share of its corner
 * vertices and rested 1.18-4 times deeper than the law's depth, and, frictionless, crept along
 * the corner's edge as that vertex's one contact jumped between the wall and the floor.
 *
 * So a vertex whose contact face F1 belongs to a mesh with concave ridges also gets a contact
 * with each face F of the faces around F1 (those sharing a vertex with it) that
 *  - meets F1 at a ridge's angle (CM_RIDGE_DEG or more) and inwards (each of F and F1 has its
 *    centroid in front of the other's plane),
 *  - has the vertex behind its plane: depth -(n_F . (p - x_F)) > 0,
 *  - and meets every face already taken the same way (a room's corner: floor and two walls),
 * up to CM_CORNER_MAX further faces, the shallowest first (ties: the lower face index). Its
 * depth is to F's plane, so a contact appears at depth 0 as the vertex crosses that plane: the
 * forces stay continuous. Why the faces around F1 suffice: the vertex lies within |p - p1| of
 * F1, and F1 lies in front of F's plane, so F's depth is at most that distance; a face that does
 * not touch F1 is at least a triangle away.
 *
 * The areas (cm_corner_areas). Contact i's area is the part of the vertex's area vector a that
 * faces its face: A_i = |n_i . a| (the primary's, as for any vertex contact) or max(0, -n_i . a)
 * (a further one). Where the faces are square to each other (n_i . n_j = 0, every box-shaped
 * corner) those parts are disjoint and exact: a cube's corner vertex carries its bottom third
 * against the floor and its side third against the wall. Where they are not, projections of one
 * patch overlap, and a vertex in the crease of a shallow valley would count its patch nearly
 * twice; the decomposition a = sum alpha_i n_i over the faces' normals (Gram system G alpha = A,
 * G_ij = n_i . n_j, alpha >= 0 by dropping the most negative) counts it once. The vertex takes
 * A_i + g (alpha_i - A_i), g = min(1, 4 (least depth) / (greatest depth)): the plain
 * projections where one face is barely touched, so that the primary's area does not jump as a
 * further contact appears at depth 0, the decomposition once the vertex sits at least a quarter
 * as deep behind each. Square faces give alpha = A whatever g. (With g the depth ratio itself,
 * an audit's prism flush in an asymmetric groove, faces at 30 and 45 degrees, each sunk by its
 * own load, rested 2.6 % and 2.3 % shallow at 2 divisions: its crease vertices are about half as
 * deep behind one face as behind the other, and took the plain projections half way; now the
 * law to 4e-6.) The system's right-hand side is the signed -n_i . a, not the plain area: in a
 * corner sharper than square (n_i . n_j < 0) a patch facing both faces can project negatively
 * on one of them, and its part there is still alpha_i > 0. */
#include <math.h>

#include "collide/collide.h"
#include "core/cm_math.h"

/* the faces around face f1 (sharing a vertex with it), f1 excluded, at most cap; walks each
 * vertex's fan across the faces' edges (face_adj), both ways where the fan is open */
static int ring_faces(const int* face, const int* adj, int f1, int* out, int cap) {
  int n = 0;
  for (int i = 0; i < 3; i++) {
    int v = face[3 * f1 + i];
    for (int dir = 0; dir < 2; dir++) {
      int f = f1, closed = 0;
      for (int step = 0; step < 64; step++) {
        const int* F = face + 3 * f;
        int j = F[0] == v ? 0 : F[1] == v ? 1 : 2;
        /* dir 0: across the edge from v to the next vertex; dir 1: from the previous one to v */
        int g = adj[3 * f + (dir == 0 ? j : (j + 2) % 3)];
        if (g < 0) break;
        if (g == f1) {
          closed = 1;
          break;
        }
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
          seen = out[k] == g;
        if (!seen) {
          if (n == cap) return n;
          out[n++] = g;
        }
        f = g;
      }
      if (closed) break; /* the fan went all the way round: no need to walk it back */
    }
  }
  return n;
}

/* does face f lie in front of face g's plane (its centroid, relative to g's first vertex)? */
static int in_front(const double* vert, const int* face, const double* normal, int f, int g) {
  const int* F = face + 3 * f;
  double c[3], t[3];
  for (int k = 0; k < 3; k++)
    c[k] = (vert[3 * F[0] + k] + vert[3 * F[1] + k] + vert[3 * F[2] + k]) / 3;
  cm_v3_sub(t, c, vert + 3 * (size_t)face[3 * g]);
  return cm_v3_dot(t, normal + 3 * (size_t)g) > 0;
}

int cm_corner_faces(const cmModel* m, const cmData* d, int b, const double RB[9], const cmHit* H,
                    cmHit* extra) {
  int g = m->body_geom[b];
  if (H->face < 0 || !H->inside || m->geom_nconcave[g] == 0 ||
      m->body_motion[b] == CM_MOTION_DEFORMABLE)
    return 0;
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g];
  const double* vert = m->mesh_vert + 3 * (size_t)va;
  const int* face = m->mesh_face + 3 * (size_t)fa;
  const double* normal = m->mesh_face_normal + 3 * (size_t)fa;
  const int* adj = m->mesh_face_adj + 3 * (size_t)fa;
  double r[3], p[3];
  cm_v3_sub(r, H->p0, d->body_xpos + 3 * b);
  cm_m3_mulvt(p, RB, r); /* the vertex in B's frame */
  int ring[96];
  int nr = ring_faces(face, adj, H->face, ring, (int)(sizeof ring / sizeof *ring));
  const double cs = cos(CM_RIDGE_DEG * CM_PI / 180);
  int taken[1 + CM_CORNER_MAX] = {H->face}, nt = 1;
  double depth[96];
  for (int i = 0; i < nr; i++) {
    double t[3];
    cm_v3_sub(t, p, vert + 3 * (size_t)face[3 * ring[i]]);
    depth[i] = -cm_v3_dot(t, normal + 3 * (size_t)ring[i]);
  }
  while (nt < 1 + CM_CORNER_MAX) {
    int best = -1;
    for (int i = 0; i < nr; i++) {
      int f = ring[i];
      if (!(depth[i] > 0)) continue;
      if (best >= 0 && (depth[i] > depth[best] || (depth[i] == depth[best] && f > ring[best])))
        continue;
      int ok = 1;
      for (int k = 0; k < nt && ok; k++) {
        int h = taken[k];
        ok = cm_v3_dot(normal + 3 * (size_t)f, normal + 3 * (size_t)h) < cs &&
             in_front(vert, face, normal, f, h) && in_front(vert, face, normal, h, f);
      }
      if (ok) best = i;
    }
    if (best < 0) break;
    int f = ring[best];
    cmHit* e = &extra[nt - 1];
    taken[nt++] = f;
    e->inside = 1;
    e->face = f;
    e->dist = -depth[best];
    cm_v3_copy(e->p0, H->p0);
    cm_m3_mulv(e->n, RB, normal + 3 * (size_t)f);
    cm_v3_madd(e->p1, H->p0, e->n, depth[best]);
  }
  return nt - 1;
}

/* solve the k x k system G x = A (k <= 3, G symmetric positive definite on its support) by
 * Gaussian elimination; 0 if singular */
static int solve_small(int k, double G[3][3], double A[3], double x[3]) {
  double M[3][4];
  for (int i = 0; i < k; i++) {
    for (int j = 0; j < k; j++)
      M[i][j] = G[i][j];
    M[i][3] = A[i];
  }
  for (int c = 0; c < k; c++) {
    if (!(fabs(M[c][c]) > 1e-12)) return 0;
    for (int i = c + 1; i < k; i++) {
      double f = M[i][c] / M[c][c];
      for (int j = c; j < k; j++)
        M[i][j] -= f * M[c][j];
      M[i][3] -= f * M[c][3];
    }
  }
  for (int i = k - 1; i >= 0; i--) {
    double s = M[i][3];
    for (int j = i + 1; j < k; j++)
      s -= M[i][j] * x[j];
    x[i] = s / M[i][i];
  }
  return 1;
}

void cm_corner_areas(int k, const double* n[], const double depth[], const double proj[],
                     double area[]) {
  /* the decomposition over the faces' normals, the most negative coefficient dropped until all
   * are >= 0 */
  int act[3] = {1, 1, 1};
  double alpha[3] = {0, 0, 0};
  for (int round = 0; round < k; round++) {
    int idx[3], na = 0;
    for (int i = 0; i < k; i++)
      if (act[i]) idx[na++] = i;
    double G[3][3], A[3], x[3];
    for (int i = 0; i < na; i++) {
      A[i] = proj[idx[i]]; /* signed: a part facing away counts against */
      for (int j = 0; j < na; j++)
        G[i][j] = cm_v3_dot(n[idx[i]], n[idx[j]]);
    }
    if (!na || !solve_small(na, G, A, x)) {
      for (int i = 0; i < k; i++)
        alpha[i] = area[i]; /* (faces at a ridge's angle apart: G is never near singular) */
      break;
    }
    int worst = -1;
    for (int i = 0; i < na; i++)
      if (x[i] < 0 && (worst < 0 || x[i] < x[worst])) worst = i;
    for (int i = 0; i < k; i++)
      alpha[i] = 0;
    for (int i = 0; i < na; i++)
      alpha[idx[i]] = x[i];
    if (worst < 0) break;
    act[idx[worst]] = 0;
    alpha[idx[worst]] = 0;
  }
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < k; i++) {
    lo = fmin(lo, fmax(0, depth[i]));
    hi = fmax(hi, depth[i]);
  }
  double w = hi > 0 ? fmin(1, 4 * lo / hi) : 0;
  for (int i = 0; i < k; i++)
    area[i] += w * (fmax(0, alpha[i]) - area[i]);
}
