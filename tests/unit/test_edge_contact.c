/* Edge-edge contacts (SPEC 4 `vertex_edge`, SPEC 5 edge-edge area; src/collide/collide_edge.c).
 *
 * Crossed bars: A, a bar of length L along x and square section s, turned 45 degrees about x so
 * that one of its long edges points down (along x, at y = 0); B, the same bar along y turned 45
 * degrees about y so that an edge points up (along y, at x = 0). B's centre at the origin, its
 * ridge at z = s/sqrt2; A's centre at z = s sqrt2 - delta, its ridge at z = s/sqrt2 - delta. The
 * two ridges cross at x = y = 0, the lines being delta apart vertically: the closest points are
 * p0 = (0, 0, s/sqrt2 - delta) on A's ridge and p1 = (0, 0, s/sqrt2) on B's, so the geometric
 * factor is 1: dist = -delta exactly in exact arithmetic, n = x cross y = +z (out of B, up).
 * Area: the faces of A's box mesh around its ridge are one triangle of each of the two long faces
 * meeting there, each L s / 2, with unit normals (0, +-1/sqrt2, -1/sqrt2) after the turn, so
 * A = |n . sum A_f n_f| / 3 = (L s/2 + L s/2) / sqrt2 / 3 = L s / (3 sqrt2).
 * No vertex of either bar is inside the other (the bar ends are far away). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/arena.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/facets.h"
#include "geom/tri_tri.h"
#include "scenes.h"
#include "test.h"

static unsigned long long rng_state = 0x13198A2E03707344ull;
static double urand(void) {
  return test_urand(&rng_state);
}

static const double L = 0.6, S = 0.1;

static cmModel* compile_pair(const cmBodyDef* a, const cmBodyDef* b, cmMethod method) {
  return scene_pair("edges", a, b, method);
}

/* A = the upper bar, B = the lower (scenes.h) */
static cmModel* crossed_bars(double delta, cmMethod method) {
  cmBodyDef a, b;
  scene_crossed_bars(L, S, delta, &a, &b);
  return compile_pair(&a, &b, method);
}

/* `vertex` finds nothing; `vertex_edge` exactly one edge contact with the derived values */
static void test_crossed_bars(void) {
  const double delta = 2e-3;
  cmModel* mv = crossed_bars(delta, CM_METHOD_VERTEX);
  cmModel* me = crossed_bars(delta, CM_METHOD_VERTEX_EDGE);
  if (!mv || !me) return;
  cmData* dv = cm_data_new(mv);
  cmData* de = cm_data_new(me);
  cm_collide(mv, dv);
  cm_collide(me, de);
  CHECK(dv->ncontact == 0);
  CHECK(de->ncontact == 1);
  CHECK(de->npair == 1);
  if (de->ncontact == 1) {
    const cmContact* c = &de->contact[0];
    double z = S / sqrt(2.0);
    CHECK(c->flags == CM_CONTACT_EDGE && c->vert == -1);
    CHECK(c->body[0] == 0 && c->body[1] == 1);
    CHECK_NEAR(c->dist, -delta, 1e-14);
    CHECK_NEAR(c->n[0], 0, 1e-14);
    CHECK_NEAR(c->n[1], 0, 1e-14);
    CHECK_NEAR(c->n[2], 1, 1e-14);
    CHECK_NEAR(c->p0[0], 0, 1e-14);
    CHECK_NEAR(c->p0[1], 0, 1e-14);
    CHECK_NEAR(c->p0[2], z - delta, 1e-14);
    CHECK_NEAR(c->p1[2], z, 1e-14);
    CHECK_REL(c->area, L * S / (3 * sqrt(2.0)), 1e-12);
    CHECK_REL(de->pair[0].area, c->area, 1e-15);
    printf("  dist %.17g (-delta %.3g), area %.6g (L s/(3 sqrt2) = %.6g)\n", c->dist, -delta,
           c->area, L * S / (3 * sqrt(2.0)));
  }
  /* apart: no contact */
  cmModel* mf = crossed_bars(-1e-3, CM_METHOD_VERTEX_EDGE);
  cmData* df = cm_data_new(mf);
  cm_collide(mf, df);
  CHECK(df->ncontact == 0);
  cm_data_free(df);
  cm_model_free(mf);
  cm_data_free(dv);
  cm_data_free(de);
  cm_model_free(mv);
  cm_model_free(me);
}

/* `contour` on the same bars (unsubdivided boxes: faces of two triangles): no vertex is inside,
 * so the depth comes from the contour alone (src/collide/collide_contour.c, step 4). The contour
 * is the four crossings: A's ridge (z_A = s/sqrt2 - delta) leaves B's 45-degree faces at
 * x = +-delta, B's ridge (z_B = s/sqrt2) leaves A's at y = +-delta. Their scatter matrix is
 * diag(2, 2, 1) delta^2, so n = +z (out of B, toward the upper A), and the extent along n is
 * z_B - z_A = delta: every contact has dist = -delta. Area: the parts of A's two ridge faces
 * inside B are the triangles (-+delta, 0, z_A), (0, +-delta, z_B), area sqrt2 delta^2 each,
 * normals (0, +-1, -1)/sqrt2, so |n . S_A| = 2 delta^2. (This method used to give no contact
 * here: issue 11.) */
static void test_crossed_bars_contour(void) {
  const double delta = 2e-3;
  cmModel* m = crossed_bars(delta, CM_METHOD_CONTOUR);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  CHECK(d->npair == 1 && d->ncontact >= 1);
  double area = 0;
  int bad = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    area += c->area;
    bad += !(fabs(c->dist + delta) < 1e-12 && fabs(c->n[2] - 1) < 1e-12);
  }
  printf("  contour: %d contacts, dist %.17g (-delta %.3g), area %.6g (2 delta^2 = %.6g)\n",
         d->ncontact, d->ncontact ? d->contact[0].dist : 0.0, -delta, area, 2 * delta * delta);
  CHECK(bad == 0);
  CHECK_REL(area, 2 * delta * delta, 1e-9);
  cm_data_free(d);
  cm_model_free(m);
}

/* bodies 0 and 1 of d moved by the rigid motion x -> R x + t (q: R as a unit quaternion) from the
 * poses pos, quat */
static void move_pair(cmData* d, double pos[2][3], double quat[2][4], const double q[4],
                      const double R[9], const double t[3]) {
  for (int b = 0; b < 2; b++) {
    cm_m3_mulv(d->body_xpos + 3 * b, R, pos[b]);
    cm_v3_add(d->body_xpos + 3 * b, d->body_xpos + 3 * b, t);
    cm_quat_mul(d->body_xquat + 4 * b, q, quat[b]);
  }
}

/* the same through the kernel, after rigid motions of the pair: same contacts (edges, dist,
 * area) and the world points and normal carried by the motion */
static void test_rigid_invariance_bars(void) {
  cmModel* m = crossed_bars(3e-3, CM_METHOD_VERTEX_EDGE);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmArena arena;
  cm_arena_init(&arena, 1 << 16);
  cmEdgeHit* h0;
  int n0 = cm_collide_edges(m, d, 0, 1, &arena, &h0);
  CHECK(n0 == 1);
  cmEdgeHit ref = h0[0];
  double pos0[2][3], quat0[2][4];
  memcpy(pos0, d->body_xpos, sizeof pos0);
  memcpy(quat0, d->body_xquat, sizeof quat0);
  for (int it = 0; it < 50; it++) {
    double q[4] = {urand() - 0.5, urand() - 0.5, urand() - 0.5, urand() - 0.5}, R[9], t[3];
    cm_quat_normalize(q);
    cm_quat_to_mat(R, q);
    for (int k = 0; k < 3; k++)
      t[k] = 10 * (urand() - 0.5);
    move_pair(d, pos0, quat0, q, R, t);
    cm_arena_reset(&arena);
    cmEdgeHit* h;
    int n = cm_collide_edges(m, d, 0, 1, &arena, &h);
    CHECK(n == 1);
    if (n != 1) continue;
    CHECK(memcmp(h->ea, ref.ea, sizeof ref.ea) == 0 && memcmp(h->eb, ref.eb, sizeof ref.eb) == 0);
    CHECK_NEAR(h->dist, ref.dist, 1e-12);
    CHECK_REL(h->area, ref.area, 1e-12);
    double p[3], nn[3];
    cm_m3_mulv(p, R, ref.p0);
    cm_v3_add(p, p, t);
    cm_m3_mulv(nn, R, ref.n);
    for (int k = 0; k < 3; k++) {
      CHECK_NEAR(h->p0[k], p[k], 1e-12);
      CHECK_NEAR(h->n[k], nn[k], 1e-12);
    }
  }
  cm_arena_destroy(&arena);
  cm_data_free(d);
  cm_model_free(m);
}

/* ---------------------------------------------------------------------------------------------
 * random meshes */

static cmMesh* rand_mesh(int level, double amp, double scale[3]) {
  cmMesh* m = cm_mesh_icosphere(1.0, level);
  for (int v = 0; v < m->nvert; v++) {
    double f = 1 + amp * (2 * urand() - 1);
    for (int k = 0; k < 3; k++)
      m->vert[3 * v + k] *= f * scale[k];
  }
  return m;
}

/* place body b's frame at (pos, quat): cm_collide derives the frame origin from the com */
static void set_pose(const cmModel* m, cmData* d, int b, const double pos[3], const double q[4]) {
  double rc[3];
  for (int k = 0; k < 4; k++)
    d->body_xquat[4 * b + k] = q[k];
  cm_quat_rotate(rc, q, m->body_com + 3 * b);
  cm_v3_add(d->body_cpos + 3 * b, pos, rc);
  cm_v3_copy(d->body_xpos + 3 * b, pos);
}

static void rand_quat(double q[4]) {
  for (int k = 0; k < 4; k++)
    q[k] = urand() - 0.5;
  cm_quat_normalize(q);
}

/* Random poses of two random star-shaped meshes: never a crash, a NaN or a bad value; every
 * contact has dist < 0, a unit normal, dist = -|p0 - p1|, area >= 0, distinct edge pairs; and a
 * rigid motion of the pair gives the same edge pairs with the same dist and area (compared
 * where the configuration is not within rounding of a decision, i.e. contacts whose values are
 * well clear of the tolerances: both sets must match exactly in the generic case). */
static void test_random_meshes(void) {
  int total = 0, mismatch = 0, cases = 0;
  cmArena arena;
  cm_arena_init(&arena, 1 << 16);
  const int its = test_trials(60, 9); /* 9: every pair of mesh levels */
  for (int it = 0; it < its; it++) {
    double sa[3] = {1, 0.6 + urand(), 0.5 + urand()}, sb[3] = {0.5 + urand(), 1, 0.7};
    cmMesh* A = rand_mesh(1 + it % 3, 0.3, sa); /* (A's random numbers first) */
    cmMesh* B = rand_mesh(1 + (it / 3) % 3, 0.3, sb);
    cmModel* m = scene_mesh_pair("edges", A, B, CM_METHOD_VERTEX_EDGE);
    if (!m) continue;
    cmData* d = cm_data_new(m);
    for (int pose = 0; pose < 10; pose++) {
      /* a random relative pose with the bodies overlapping */
      double qa[4], qb[4], xa[3] = {0, 0, 0}, xb[3];
      rand_quat(qa);
      rand_quat(qb);
      for (int k = 0; k < 3; k++)
        xb[k] = 1.6 * (urand() - 0.5);
      set_pose(m, d, 0, xa, qa);
      set_pose(m, d, 1, xb, qb);
      cm_collide(m, d);
      cases++;
      int nedge = 0;
      for (int i = 0; i < d->ncontact; i++) {
        const cmContact* c = &d->contact[i];
        CHECK(cm_v3_isfinite(c->p0) && cm_v3_isfinite(c->p1) && cm_v3_isfinite(c->n));
        CHECK(isfinite(c->dist) && c->area >= 0 && isfinite(c->area));
        if (!(c->flags & CM_CONTACT_EDGE)) continue;
        nedge++;
        CHECK(c->dist <= 0 && c->body[0] == 0 && c->body[1] == 1);
        double w[3];
        cm_v3_sub(w, c->p0, c->p1);
        CHECK_NEAR(cm_v3_norm(c->n), 1, 1e-12);
        /* |p0 - p1|, or less where the bodies overlap less across a face (edge_depth) */
        CHECK(c->dist >= -cm_v3_norm(w) - 1e-12);
        CHECK(c->vert == -1);
      }
      total += nedge;
      /* the kernel directly, before and after a rigid motion of the pair */
      cm_arena_reset(&arena);
      cmEdgeHit *h0, *h1;
      int n0 = cm_collide_edges(m, d, 0, 1, &arena, &h0);
      CHECK(n0 == nedge);
      for (int i = 1; i < n0; i++)
        CHECK(memcmp(h0[i].ea, h0[i - 1].ea, sizeof h0->ea) != 0 ||
              memcmp(h0[i].eb, h0[i - 1].eb, sizeof h0->eb) != 0);
      double q[4], R[9], t[3], pos[2][3], quat[2][4];
      memcpy(pos, d->body_xpos, sizeof pos);
      memcpy(quat, d->body_xquat, sizeof quat);
      rand_quat(q);
      cm_quat_to_mat(R, q);
      for (int k = 0; k < 3; k++)
        t[k] = 4 * (urand() - 0.5);
      move_pair(d, pos, quat, q, R, t);
      int n1 = cm_collide_edges(m, d, 0, 1, &arena, &h1);
      int same = n0 == n1;
      for (int i = 0; same && i < n0; i++) {
        same = memcmp(h0[i].ea, h1[i].ea, sizeof h0->ea) == 0 &&
               memcmp(h0[i].eb, h1[i].eb, sizeof h0->eb) == 0 &&
               fabs(h0[i].dist - h1[i].dist) <= 1e-9 &&
               fabs(h0[i].area - h1[i].area) <= 1e-9 * (1 + h0[i].area);
        double nn[3];
        cm_m3_mulv(nn, R, h0[i].n);
        for (int k = 0; k < 3; k++)
          same = same && fabs(nn[k] - h1[i].n[k]) <= 1e-9;
      }
      mismatch += !same;
      memcpy(d->body_xpos, pos, sizeof pos);
      memcpy(d->body_xquat, quat, sizeof quat);
    }
    cm_data_free(d);
    cm_model_free(m);
  }
  printf("  %d poses, %d edge contacts, %d poses not invariant under a rigid motion\n", cases,
         total, mismatch);
  CHECK(mismatch == 0);
  CHECK(total > 0);
  cm_arena_destroy(&arena);
}

/* ---------------------------------------------------------------------------------------------
 * the pairing rule, brute force */

/* the rule of collide_edge.c's header evaluated on every edge of A against every edge of B,
 * with every edge tested against every face of the other mesh (no tree, no ridge search): the
 * reference for the kernel's search, which starts from the ridges near the other body and the
 * faces they cross (2026-12-03; before, from every intersecting face pair). In A's frame. */
typedef struct RefEdge {
  int e0, e1, f[2], nf;
} RefEdge;

static int ref_edges(const cmModel* m, int g, RefEdge* E) {
  int fa = m->geom_faceadr[g], nf = m->geom_nface[g], ne = 0;
  const int* F = m->mesh_face + 3 * (size_t)fa;
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < 3; k++) {
      int u = F[3 * f + k], w = F[3 * f + (k + 1) % 3];
      int h = m->mesh_face_adj[3 * (size_t)(fa + f) + k];
      if (h >= 0 && h < f) continue; /* once, from the smaller face */
      RefEdge* e = &E[ne++];
      e->e0 = u < w ? u : w;
      e->e1 = u < w ? w : u;
      e->f[0] = f;
      e->f[1] = h;
      e->nf = h >= 0 ? 2 : 1;
    }
  return ne;
}

typedef struct RefCtx {
  const cmModel* m;
  int g[2];
  double R[9], t[3];
} RefCtx;

static void ref_vert(const RefCtx* c, int side, int v, double y[3]) {
  const double* x = c->m->mesh_vert + 3 * (size_t)(c->m->geom_vertadr[c->g[side]] + v);
  if (side == 0)
    cm_v3_copy(y, x);
  else
    cm_tri_xform(y, c->R, c->t, x);
}

/* does edge e of mesh side cross face f of the other mesh? */
static int ref_cross(const RefCtx* c, int side, const RefEdge* e, int f) {
  double p[3], q[3], P[3][3];
  ref_vert(c, side, e->e0, p);
  ref_vert(c, side, e->e1, q);
  const int* F = c->m->mesh_face + 3 * (size_t)(c->m->geom_faceadr[c->g[1 - side]] + f);
  for (int k = 0; k < 3; k++)
    ref_vert(c, 1 - side, F[k], P[k]);
  return cm_seg_tri(p, q, P[0], P[1], P[2], NULL) != CM_SEG_TRI_NONE;
}

/* is the point y (A's frame) inside mesh side? */
static int ref_inside(const RefCtx* c, int side, const double y[3]) {
  if (side == 0) return cm_mesh_inside_local(c->m, c->g[0], y, NULL);
  double r[3], x[3];
  cm_v3_sub(r, y, c->t);
  cm_m3_mulvt(x, c->R, r);
  return cm_mesh_inside_local(c->m, c->g[1], x, NULL);
}

static int ref_ridge(const RefCtx* c, int side, const RefEdge* e) {
  if (e->nf < 2) return 1;
  const double* N = c->m->mesh_face_normal + 3 * (size_t)c->m->geom_faceadr[c->g[side]];
  return cm_v3_dot(N + 3 * e->f[0], N + 3 * e->f[1]) < cos(CM_RIDGE_DEG * CM_PI / 180);
}

/* is e between two coplanar faces (inside a planar facet: the kernel pairs no such edge)? */
static int ref_coplanar(const RefCtx* c, int side, const RefEdge* e) {
  if (e->nf < 2) return 0;
  const double* N = c->m->mesh_face_normal + 3 * (size_t)c->m->geom_faceadr[c->g[side]];
  return cm_v3_dot(N + 3 * e->f[0], N + 3 * e->f[1]) >= 1 - 1e-12;
}

/* the edge pseudonormal of e in its mesh's frame: the two face normals' sum, normalised */
static void ref_pn(const RefCtx* c, int side, const RefEdge* e, double pn[3]) {
  const double* N = c->m->mesh_face_normal + 3 * (size_t)c->m->geom_faceadr[c->g[side]];
  cm_v3_copy(pn, N + 3 * e->f[0]);
  if (e->nf == 2) cm_v3_add(pn, pn, N + 3 * e->f[1]);
  cm_v3_scale(pn, pn, 1 / cm_v3_norm(pn));
}

static int ref_pair_cmp(const void* x, const void* y) {
  const int *p = x, *q = y;
  for (int k = 0; k < 4; k++)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return 0;
}

/* the angle between unit u (perpendicular to edge e) and the arc of outward normals of e's faces
 * (carried into A's frame), by angles in the plane perpendicular to the edge */
static double ref_cone(const RefCtx* c, int side, const RefEdge* e, const double u[3]) {
  const double* N = c->m->mesh_face_normal + 3 * (size_t)c->m->geom_faceadr[c->g[side]];
  double n1[3], n2[3], x[3], y[3];
  if (side == 0) {
    cm_v3_copy(n1, N + 3 * e->f[0]);
    cm_v3_copy(n2, N + 3 * e->f[e->nf - 1]);
  } else {
    cm_m3_mulv(n1, c->R, N + 3 * e->f[0]);
    cm_m3_mulv(n2, c->R, N + 3 * e->f[e->nf - 1]);
  }
  cm_v3_copy(x, n1);
  cm_v3_cross(y, n1, n2); /* the edge's direction, oriented so that n2 is at a positive angle */
  if (cm_v3_norm(y) < 1e-15) return acos(fmin(1, fmax(-1, cm_v3_dot(u, n1))));
  double ax[3];
  cm_v3_scale(ax, y, 1 / cm_v3_norm(y));
  cm_v3_cross(y, ax, x);
  double t2 = atan2(cm_v3_dot(n2, y), cm_v3_dot(n2, x));
  double tu = atan2(cm_v3_dot(u, y), cm_v3_dot(u, x));
  if (tu >= 0 && tu <= t2) return 0;
  double d1 = fabs(tu), d2 = fabs(tu - t2);
  if (d2 > CM_PI) d2 = 2 * CM_PI - d2;
  return fmin(d1, d2);
}

/* the overlap of the two bodies' tree boxes projected on the unit direction u (A's frame) */
static double ref_overlap(const RefCtx* c, const double u[3]) {
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int s = 0; s < 2; s++) {
    const double* b = ((const cmBvh*)c->m->geom_bvh + c->g[s])->node[0].box;
    for (int k = 0; k < 8; k++) {
      double x[3] = {b[k & 1 ? 3 : 0], b[k & 2 ? 4 : 1], b[k & 4 ? 5 : 2]}, y[3];
      if (s == 0)
        cm_v3_copy(y, x);
      else {
        cm_m3_mulv(y, c->R, x);
        cm_v3_add(y, y, c->t);
      }
      double p = cm_v3_dot(y, u);
      lo[s] = fmin(lo[s], p);
      hi[s] = fmax(hi[s], p);
    }
  }
  return fmin(hi[0] - lo[1], hi[1] - lo[0]);
}

/* d capped by the overlaps across face f of mesh side */
static double ref_cap_face(const RefCtx* c, int side, int f, double d) {
  const double* N = c->m->mesh_face_normal + 3 * (size_t)(c->m->geom_faceadr[c->g[side]] + f);
  double u[3];
  if (side == 0)
    cm_v3_copy(u, N);
  else
    cm_m3_mulv(u, c->R, N);
  return fmin(d, fmax(0, ref_overlap(c, u)));
}

/* a corner pair's depth: d capped across the faces at both edges and at the vertices va (of A),
 * vb (of B) */
static double ref_corner_depth(const RefCtx* c, const RefEdge* ea, const RefEdge* eb, int va,
                               int vb, double d) {
  for (int s = 0; s < 2; s++) {
    const RefEdge* e = s ? eb : ea;
    for (int k = 0; k < e->nf; k++)
      d = ref_cap_face(c, s, e->f[k], d);
    int v = s ? vb : va, nf = c->m->geom_nface[c->g[s]];
    const int* F = c->m->mesh_face + 3 * (size_t)c->m->geom_faceadr[c->g[s]];
    for (int f = 0; f < nf; f++)
      if (F[3 * f] == v || F[3 * f + 1] == v || F[3 * f + 2] == v) d = ref_cap_face(c, s, f, d);
  }
  return d;
}

/* the ridge of E (mesh side) that continues ridge e straight on through its vertex v (sharing
 * v, its direction within a sine of 1e-6 of e's from its other vertex to v), or NULL */
static const RefEdge* ref_chain(const RefCtx* c, int side, const RefEdge* E, int ne,
                                const RefEdge* e, int v) {
  const double* X = c->m->mesh_vert + 3 * (size_t)c->m->geom_vertadr[c->g[side]];
  int u = e->e0 == v ? e->e1 : e->e0;
  double d0[3], d1[3], x[3];
  cm_v3_sub(d0, X + 3 * v, X + 3 * u);
  for (int i = 0; i < ne; i++) {
    const RefEdge* g = &E[i];
    if (g == e || (g->e0 != v && g->e1 != v) || !ref_ridge(c, side, g)) continue;
    int w = g->e0 == v ? g->e1 : g->e0;
    cm_v3_sub(d1, X + 3 * w, X + 3 * v);
    cm_v3_cross(x, d0, d1);
    if (cm_v3_dot(d0, d1) > 0 && cm_v3_dot(x, x) <= 1e-12 * cm_v3_dot(d0, d0) * cm_v3_dot(d1, d1))
      return g;
  }
  return NULL;
}

/* the lines of edges ea (A) and eb (B), A's frame: a0, b0, dA = a1 - a0, dB = b1 - b0,
 * nn = dA x dB and the parameters of their closest points (a0 + sa dA, b0 + ub dB); 0 if
 * parallel */
static int ref_lines(const RefCtx* c, const RefEdge* ea, const RefEdge* eb, double a0[3],
                     double b0[3], double dA[3], double dB[3], double nn[3], double* sa,
                     double* ub) {
  double a1[3], b1[3], r[3];
  ref_vert(c, 0, ea->e0, a0);
  ref_vert(c, 0, ea->e1, a1);
  ref_vert(c, 1, eb->e0, b0);
  ref_vert(c, 1, eb->e1, b1);
  cm_v3_sub(dA, a1, a0);
  cm_v3_sub(dB, b1, b0);
  cm_v3_sub(r, a0, b0);
  cm_v3_cross(nn, dA, dB);
  double aa = cm_v3_dot(dA, dA), ee = cm_v3_dot(dB, dB), den = cm_v3_dot(nn, nn);
  if (!(den > 1e-18 * aa * ee)) return 0;
  double bb = cm_v3_dot(dA, dB), cc = cm_v3_dot(dA, r), ff = cm_v3_dot(dB, r);
  *sa = (bb * ff - cc * ee) / den;
  *ub = (aa * ff - bb * cc) / den;
  return 1;
}

/* corner pairs the reference has given (below), and pairs linked at the facet level only */
static int ref_ncorner, ref_nfacet_only;

/* the facet (local index) of each face of geometry g, from the model's facet lists, or NULL
 * where the mesh has none or more than CM_FACET_MAX (the kernel links at the facet level only
 * on meshes of at most that many) */
static int* ref_facet_of(const cmModel* m, int g) {
  int nfc = m->geom_nfacet[g], j0 = m->geom_facetadr[g];
  if (nfc < 1 || nfc > CM_FACET_MAX) return NULL;
  int* of = malloc((size_t)m->geom_nface[g] * sizeof *of);
  for (int j = 0; j < nfc; j++)
    for (int i = 0; i < m->facet_nface[j0 + j]; i++)
      of[m->mesh_facet_face[m->facet_faceadr[j0 + j] + i]] = j;
  return of;
}

/* does edge e of mesh side cross a face of the other mesh's facet j (facet_of: its faces')? */
static int ref_cross_facet(const RefCtx* c, int side, const RefEdge* e, const int* facet_of,
                           int j) {
  int nf = c->m->geom_nface[c->g[1 - side]];
  for (int f = 0; f < nf; f++)
    if (facet_of[f] == j && ref_cross(c, side, e, f)) return 1;
  return 0;
}

/* does edge e of mesh side cross properly a facet of edge o's faces (the other mesh's, with
 * facet_of), or one of o's faces where that mesh has no facets: a face of it, with e's endpoints
 * on either side of its plane by more than the pair's margin (1e-9 of the sizes, as
 * cm_pair_box_eps)? The plane in the other mesh's frame: the facet's (facet_plane) or the
 * face's own through its first vertex */
static int ref_cross_proper(const RefCtx* c, int side, const RefEdge* e, const RefEdge* o,
                            const int* facet_of) {
  const cmModel* m = c->m;
  int go = c->g[1 - side];
  double p[3], q[3], r[3];
  ref_vert(c, side, e->e0, p);
  ref_vert(c, side, e->e1, q);
  if (side == 0) { /* A's edge into B's frame */
    cm_v3_sub(r, p, c->t);
    cm_m3_mulvt(p, c->R, r);
    cm_v3_sub(r, q, c->t);
    cm_m3_mulvt(q, c->R, r);
  }
  double eps = cm_pair_box_eps(((const cmBvh*)m->geom_bvh + c->g[0])->node[0].box,
                               ((const cmBvh*)m->geom_bvh + c->g[1])->node[0].box, c->t);
  for (int k = 0; k < o->nf; k++) {
    double P[4];
    int f = o->f[k];
    if (facet_of) {
      memcpy(P, m->facet_plane + 4 * (size_t)(m->geom_facetadr[go] + facet_of[f]), sizeof P);
    } else {
      cm_v3_copy(P, m->mesh_face_normal + 3 * (size_t)(m->geom_faceadr[go] + f));
      const int* F = m->mesh_face + 3 * (size_t)(m->geom_faceadr[go] + f);
      P[3] = cm_v3_dot(P, m->mesh_vert + 3 * (size_t)(m->geom_vertadr[go] + F[0]));
    }
    double sp = cm_v3_dot(P, p) - P[3], sq = cm_v3_dot(P, q) - P[3];
    if (!((sp > eps && sq < -eps) || (sp < -eps && sq > eps))) continue;
    if (facet_of ? ref_cross_facet(c, side, e, facet_of, facet_of[f]) : ref_cross(c, side, e, f))
      return 1;
  }
  return 0;
}

/* does pair q (overlap ov) come before pair best (overlap bd)? The lesser overlap, and within
 * eps (a tie: parallel pairs share an axis, their overlaps differ in rounding) the first in
 * (ea, eb) order */
static int ref_less(double ov, const int q[4], double bd, const int best[4], double eps) {
  return ov < bd - eps || (fabs(ov - bd) <= eps && ref_pair_cmp(q, best) < 0);
}

/* the reference's pairs (ea, eb as 4 vertex indices), sorted; returns the count */
static int ref_pairs(const cmModel* m, const cmData* d, int a, int b, int (*out)[4], int max) {
  RefCtx c = {m, {m->body_geom[a], m->body_geom[b]}, {0}, {0}};
  cm_pair_pose(d, a, b, c.R, c.t);
  RefEdge* E[2];
  int ne[2], nf[2], *inside[2], *facet_of[2];
  for (int s = 0; s < 2; s++) {
    facet_of[s] = ref_facet_of(m, c.g[s]);
    nf[s] = m->geom_nface[c.g[s]];
    E[s] = malloc((size_t)nf[s] * 3 * sizeof(RefEdge));
    ne[s] = ref_edges(m, c.g[s], E[s]);
    int nv = m->geom_nvert[c.g[s]];
    inside[s] = malloc((size_t)nv * sizeof(int));
    for (int v = 0; v < nv; v++) {
      double y[3];
      ref_vert(&c, s, v, y);
      inside[s][v] = ref_inside(&c, 1 - s, y);
    }
  }
  const double eps = cm_pair_box_eps(((const cmBvh*)m->geom_bvh + c.g[0])->node[0].box,
                                     ((const cmBvh*)m->geom_bvh + c.g[1])->node[0].box, c.t);
  int n = 0, corner[4] = {0, 0, 0, 0}, fonly_pair[4] = {0, 0, 0, 0};
  double corner_d = INFINITY, fonly_d = INFINITY, link_d = INFINITY;
  for (int i = 0; i < ne[0]; i++) {
    const RefEdge* ei = &E[0][i];
    for (int j = 0; j < ne[1]; j++) {
      const RefEdge *ea = ei, *eb = &E[1][j]; /* (a pair's chains may replace them) */
      if (!ref_ridge(&c, 0, ea) && !ref_ridge(&c, 1, eb)) continue;
      if (ref_coplanar(&c, 0, ea) || ref_coplanar(&c, 1, eb)) continue;
      /* an edge with both endpoints inside pairs only along a chain (below) */
      int both_a = inside[0][ea->e0] && inside[0][ea->e1];
      int both_b = inside[1][eb->e0] && inside[1][eb->e1];
      int ab = 0, ba = 0;
      for (int k = 0; k < eb->nf; k++)
        ab |= ref_cross(&c, 0, ea, eb->f[k]);
      for (int k = 0; k < ea->nf; k++)
        ba |= ref_cross(&c, 1, eb, ea->f[k]);
      /* two ridges, where either mesh has facets: each crossing properly a facet of the
       * other's faces (a face of it, the edge's endpoints on either side of its plane;
       * ref_cross_proper) is linked at the facet level */
      int rr = ref_ridge(&c, 0, ea) && ref_ridge(&c, 1, eb);
      /* unlinked: a pair of corner ridges (each a ridge with exactly one endpoint inside the
       * other body), of which only the nearest is kept (below) */
      int corner_ridges =
          rr && inside[0][ea->e0] != inside[0][ea->e1] && inside[1][eb->e0] != inside[1][eb->e1];
      int is_corner = corner_ridges;
      int linked = ab && ba && !both_a && !both_b;
      int linked_f = rr && (facet_of[0] || facet_of[1]) && !both_a && !both_b &&
                     ref_cross_proper(&c, 0, ea, eb, facet_of[1]) &&
                     ref_cross_proper(&c, 1, eb, ea, facet_of[0]);
      /* linked at the facet level only: deeper than 2 % of the thinner body linked (below), else
       * held to the corner pairs' slack and least overlap, and kept only where its overlap is
       * less than every other pair's */
      int fonly = !linked && linked_f;
      /* listed by the kernel from a ridge (not both endpoints inside) crossing a face at the
       * other edge, or as two ridges linked at the facet level: a candidate for a chain */
      int listed = (ref_ridge(&c, 0, ea) && !both_a && ab) ||
                   (ref_ridge(&c, 1, eb) && !both_b && ba) || linked_f;
      if (!linked && !fonly && !corner_ridges && !listed) continue;
      /* closest points of the two lines, inside both segments (1e-9 of their lengths) */
      double a0[3], b0[3], dA[3], dB[3], nn[3], p0[3], p1[3], w[3], sa, ub;
      if (!ref_lines(&c, ea, eb, a0, b0, dA, dB, nn, &sa, &ub)) continue;
      /* closest points beyond an endpoint inside the other body (the edge's other endpoint
       * outside; a corner ridge's inside endpoint): the ridges that continue the edges straight
       * on through those endpoints (chains), while the vertex passed is inside; the pair is a
       * corner pair, its depth capped at the chains' last inside vertices (va, vb; -1 for an
       * edge not followed) */
      int va = inside[0][ea->e0] ? ea->e0 : ea->e1, vb = inside[1][eb->e0] ? eb->e0 : eb->e1;
      int chained = 0;
      if ((corner_ridges || listed) &&
          !(sa >= -1e-9 && sa <= 1 + 1e-9 && ub >= -1e-9 && ub <= 1 + 1e-9)) {
        const RefEdge* ch[2] = {ea, eb};
        int vin[2] = {va, vb}, ok = 1;
        double st[2] = {sa, ub};
        if (!corner_ridges)
          for (int s = 0; s < 2 && ok; s++) {
            const RefEdge* e = ch[s];
            vin[s] = -1;
            if (st[s] >= -1e-9 && st[s] <= 1 + 1e-9) continue;
            int end = st[s] < 0 ? e->e0 : e->e1, other = st[s] < 0 ? e->e1 : e->e0;
            ok = inside[s][end] && !inside[s][other];
            vin[s] = end;
          }
        for (int s = 0; s < 2 && ok; s++)
          for (int step = 0; step < 8; step++) {
            const RefEdge* e = ch[s];
            int beyond = vin[s] >= 0 && ((st[s] < -1e-9 && vin[s] == e->e0) ||
                                         (st[s] > 1 + 1e-9 && vin[s] == e->e1));
            if (!beyond) {
              ok = st[s] >= -1e-9 && st[s] <= 1 + 1e-9;
              break;
            }
            ch[s] = ref_chain(&c, s, E[s], ne[s], e, vin[s]);
            if (!ch[s]) {
              ok = 0;
              break;
            }
            int wv = ch[s]->e0 == vin[s] ? ch[s]->e1 : ch[s]->e0;
            if (inside[s][wv]) vin[s] = wv;
            /* the same line: the parameter on the new piece from its lower vertex */
            double x0[3], x1[3], y[3], dx[3];
            ref_vert(&c, s, ch[s]->e0, x0);
            ref_vert(&c, s, ch[s]->e1, x1);
            ref_vert(&c, s, e->e0, y);
            cm_v3_madd(y, y, s ? dB : dA, st[s]); /* the closest point on the line */
            cm_v3_sub(dx, x1, x0);
            cm_v3_sub(y, y, x0);
            st[s] = cm_v3_dot(y, dx) / cm_v3_dot(dx, dx);
            if (s)
              cm_v3_copy(dB, dx);
            else
              cm_v3_copy(dA, dx);
          }
        if (!ok || (ch[0] == ea && ch[1] == eb)) continue;
        ea = ch[0];
        eb = ch[1];
        va = vin[0];
        vb = vin[1];
        linked = 0;
        fonly = 0;
        is_corner = 1;
        chained = 1;
        /* the new pieces' closest points, computed from their own vertices */
        if (!ref_lines(&c, ea, eb, a0, b0, dA, dB, nn, &sa, &ub)) continue;
      }
      if (!(sa >= -1e-9 && sa <= 1 + 1e-9 && ub >= -1e-9 && ub <= 1 + 1e-9)) continue;
      if (!linked && !fonly && !is_corner) continue; /* corner ridges not linked at the corners */
      cm_v3_madd(p0, a0, dA, fmin(fmax(sa, 0), 1));
      cm_v3_madd(p1, b0, dB, fmin(fmax(ub, 0), 1));
      /* n along dA x dB from p1 to p0's side reversed: (p0 - p1) . n <= 0; it must lead out
       * of B at eB and into A at eA (the pseudonormals); the pairs within rounding of
       * n . pn = 0 are skipped by the caller's comparison */
      cm_v3_sub(w, p0, p1);
      if (cm_v3_dot(w, nn) > 0) cm_v3_scale(nn, nn, -1);
      double pa[3], pbl[3], pb[3];
      ref_pn(&c, 0, ea, pa);
      ref_pn(&c, 1, eb, pbl);
      cm_m3_mulv(pb, c.R, pbl);
      if (!(cm_v3_dot(nn, pb) > 0 && cm_v3_dot(nn, pa) < 0)) continue;
      /* within 15 degrees of a ridge's normal cone, 60 of a flat edge's (the face's normal),
       * for B along n, for A along -n */
      double un[3], um[3];
      cm_v3_scale(un, nn, 1 / cm_v3_norm(nn));
      cm_v3_scale(um, un, -1);
      double tb = (ref_ridge(&c, 1, eb) ? 15 : 60) * CM_PI / 180;
      double ta = (ref_ridge(&c, 0, ea) ? 15 : 60) * CM_PI / 180;
      if (ref_cone(&c, 1, eb, un) > tb || ref_cone(&c, 0, ea, um) > ta) continue;
      int promoted = 0;
      if (fonly) {
        /* deeper than 2 % of the thinner tree box: linked */
        double thin = INFINITY;
        for (int sd = 0; sd < 2; sd++) {
          const double* bx = ((const cmBvh*)c.m->geom_bvh + c.g[sd])->node[0].box;
          for (int k = 0; k < 3; k++)
            thin = fmin(thin, bx[3 + k] - bx[k]);
        }
        if (ref_corner_depth(&c, ea, eb, -1, -1, cm_v3_norm(w)) > 0.02 * thin) {
          linked = 1;
          fonly = 0;
          promoted = 1;
        }
      }
      int end_inside = (!linked && !fonly) || inside[0][ea->e0] || inside[0][ea->e1] ||
                       inside[1][eb->e0] || inside[1][eb->e1];
      if (end_inside && !(ref_inside(&c, 1, p0) && ref_inside(&c, 0, p1))) continue;
      /* dropped where the vertex contact of an inside endpoint gives its whole depth along its
       * normal already (the kernel weighs it by the share not given; 0: none); the depth as
       * each kind caps it (the edges' faces; a corner pair's and a facet-level pair's also at
       * their inside endpoints) */
      if (end_inside) {
        double dd = cm_v3_norm(w), dep;
        int ia[2] = {ea->e0, ea->e1}, ib[2] = {eb->e0, eb->e1}, fa = -1, fb = -1;
        if (linked)
          dep = ref_corner_depth(&c, ea, eb, -1, -1, dd);
        else if (fonly) {
          fa = inside[0][ea->e0] ? ea->e0 : inside[0][ea->e1] ? ea->e1 : -1;
          fb = inside[1][eb->e0] ? eb->e0 : inside[1][eb->e1] ? eb->e1 : -1;
          dep = ref_corner_depth(&c, ea, eb, fa, fb, dd);
        } else
          dep = ref_corner_depth(&c, ea, eb, va, vb, dd);
        double RA[9], nw[3];
        cm_quat_to_mat(RA, d->body_xquat + 4 * a);
        cm_m3_mulv(nw, RA, un);
        int cov = 0;
        for (int k = 0; k < 2 && !cov; k++) {
          int xa = linked || fonly ? inside[0][ia[k]] : ia[k] == va;
          int xb = linked || fonly ? inside[1][ib[k]] : ib[k] == vb;
          cmHit h;
          if (xa) {
            cm_collide_vertex(m, d, a, b, ia[k], &h);
            cov |= h.inside && -h.dist * cm_v3_dot(h.n, nw) >= dep;
          }
          if (xb) {
            cm_collide_vertex(m, d, b, a, ib[k], &h);
            cov |= h.inside && h.dist * cm_v3_dot(h.n, nw) >= dep;
          }
        }
        if (cov) continue;
      }
      if (fonly) {
        /* capped at its inside endpoints, if any (the first of each edge), within the slack,
         * the least overlap first in (ea, eb) order */
        int q[4] = {ea->e0, ea->e1, eb->e0, eb->e1};
        int fa = inside[0][ea->e0] ? ea->e0 : inside[0][ea->e1] ? ea->e1 : -1;
        int fb = inside[1][eb->e0] ? eb->e0 : inside[1][eb->e1] ? eb->e1 : -1;
        double dd = cm_v3_norm(w), ov = ref_overlap(&c, un);
        if (!(dd <= 1.25 * ref_corner_depth(&c, ea, eb, fa, fb, dd))) continue;
        if (ref_less(ov, q, fonly_d, fonly_pair, eps)) {
          fonly_d = ov;
          memcpy(fonly_pair, q, sizeof q);
        }
        continue;
      }
      if (linked && (facet_of[0] || facet_of[1])) link_d = fmin(link_d, ref_overlap(&c, un));
      if (!linked) {
        /* of the corner pairs whose distance is at most 1.25 times their depth capped across
         * the faces at their edges and corners, the one whose axis the bodies' boxes overlap
         * least along; on a tie (within the pair's margin eps) the first in (ea, eb) order, as
         * the kernel's */
        int q[4] = {ea->e0, ea->e1, eb->e0, eb->e1};
        double dd = cm_v3_norm(w), ov = ref_overlap(&c, un);
        double cap = ref_corner_depth(&c, ea, eb, va, vb, dd);
        if (!(dd <= 1.25 * cap)) continue;
        /* a pair along chains only deeper than 2 % of the thinner tree box */
        double thin = INFINITY;
        for (int sd = 0; sd < 2; sd++) {
          const double* bx = ((const cmBvh*)c.m->geom_bvh + c.g[sd])->node[0].box;
          for (int k = 0; k < 3; k++)
            thin = fmin(thin, bx[3 + k] - bx[k]);
        }
        if (chained && !(cap > 0.02 * thin)) continue;
        if (ref_less(ov, q, corner_d, corner, eps)) {
          corner_d = ov;
          memcpy(corner, q, sizeof q);
        }
        continue;
      }
      if (n < max) {
        out[n][0] = ea->e0;
        out[n][1] = ea->e1;
        out[n][2] = eb->e0;
        out[n][3] = eb->e1;
      }
      n++;
      ref_nfacet_only += promoted;
    }
  }
  for (int s = 0; s < 2; s++) {
    free(E[s]);
    free(inside[s]);
    free(facet_of[s]);
  }
  /* the pair linked at the facet level only where its overlap is the least of all, else the
   * corner pair */
  /* the one kept, unless it is a linked pair found as well (a corner pair followed along
   * chains can end on a linked pair's edges): each pair of edges gives one contact */
  const int* kept = fonly_d < corner_d && fonly_d < link_d ? fonly_pair
                    : corner_d < INFINITY                  ? corner
                                                           : NULL;
  for (int i = 0; kept && i < n && i < max; i++)
    if (ref_pair_cmp(out[i], kept) == 0) kept = NULL;
  if (kept == fonly_pair) {
    ref_nfacet_only++;
    if (n < max) memcpy(out[n], fonly_pair, sizeof fonly_pair);
    n++;
  } else if (kept == corner) {
    ref_ncorner++;
    if (n < max) memcpy(out[n], corner, sizeof corner);
    n++;
  }
  if (n <= max) qsort(out, (size_t)n, sizeof *out, ref_pair_cmp);
  return n;
}

/* Two boxes (half sizes ha, hb) with A's edge down across B's edge pointing up (A turned 30-60
 * degrees about its x axis, B likewise and then 30-150 degrees about the vertical), crossing at
 * random points along both edges (near their ends too, where an edge enters the other box
 * beside a vertex) and overlapping by 5 to 35 % of the smaller half size: A at the origin */
static void crossed_pose(const double ha[3], const double hb[3], double qa[4], double qb[4],
                         double xb[3]) {
  const double X[3] = {1, 0, 0}, Z[3] = {0, 0, 1};
  double qx[4], qz[4], pa[3], pb[3], ya[3], yb[3];
  cm_quat_from_axis_angle(qa, X, (30 + 30 * urand()) * CM_PI / 180);
  cm_quat_from_axis_angle(qx, X, (30 + 30 * urand()) * CM_PI / 180);
  cm_quat_from_axis_angle(qz, Z, (30 + 120 * urand()) * CM_PI / 180);
  cm_quat_mul(qb, qz, qx);
  /* A's lowest edge (local y, z = -ha) and B's highest (+hb), at random points along x */
  double la[3] = {ha[0] * (2 * urand() - 1), -ha[1], -ha[2]};
  double lb[3] = {hb[0] * (2 * urand() - 1), hb[1], hb[2]};
  cm_quat_rotate(ya, qa, la);
  cm_quat_rotate(yb, qb, lb);
  double h = fmin(fmin(fmin(ha[0], ha[1]), ha[2]), fmin(fmin(hb[0], hb[1]), hb[2]));
  cm_v3_copy(pa, ya);
  pa[2] += (0.05 + 0.3 * urand()) * h; /* B's edge point above A's by the overlap */
  cm_v3_sub(pb, pa, yb);
  cm_v3_copy(xb, pb);
}

/* Random overlapping poses of two boxes (divisions 1, 2, 4, 8 on each side: 12 to 48 ridges are
 * searched from the ridge list, 96 from the face tree), a box and an
 * icosphere, and two random star-shaped meshes, boxes of 2 and 4 divisions with their edges
 * crossed (crossed_pose), a box with a star-shaped mesh (facets on one side only), and a prism
 * over an 8- or 12-gon (caps of 6 and 10 triangles, side facets of 2) with a box: the kernel's
 * edge pairs are the brute-force rule's, pair for pair (ea, eb), in the same (sorted) order, and
 * the same after a rigid motion of both bodies. */
static void rule_brute_force(void) {
  ref_ncorner = ref_nfacet_only = 0;
  cmArena arena;
  cm_arena_init(&arena, 1 << 16);
  int poses = 0, pairs = 0, differ = 0, moved_differ = 0;
  unsigned long long motion_state = 0x2545F4914F6CDD1DULL;
  const int its = test_trials(12, 4), its_crossed = test_trials(8, 4),
            its_mixed = test_trials(4, 2), its_prism = test_trials(4, 2);
  for (int it = 0; it < its + its_crossed + its_mixed + its_prism; it++) {
    cmMesh* M[2];
    double half[2], hsz[2][3];
    int kind = it < its                             ? it % 4
               : it < its + its_crossed             ? 4
               : it < its + its_crossed + its_mixed ? 5
                                                    : 6;
    for (int s = 0; s < 2; s++) {
      double size[3] = {0.6 + 0.8 * urand(), 0.6 + 0.8 * urand(), 0.4 + 0.8 * urand()};
      for (int k = 0; k < 3; k++)
        hsz[s][k] = 0.5 * size[k];
      /* mean half-size: a box's half its size, an icosphere's its radius */
      half[s] = (size[0] + size[1] + size[2]) / 6;
      if (kind == 4)
        M[s] = cm_mesh_box(size, 2 << ((it + s) % 2));
      else if (kind == 5 && s == (it & 1)) /* a box (facets) and a star-shaped mesh (none) */
        M[s] = cm_mesh_box(size, 2);
      else if (kind == 5) {
        M[s] = rand_mesh(1, 0.3, size);
        half[s] *= 2;
      } else if (kind == 6 && s == 0) { /* a prism over an 8- or 12-gon: facets of 2 and n - 2 */
        M[s] = scene_prism_mesh(8 + 4 * (it & 1), 0.5 * size[0], size[2]);
        half[s] = (size[0] + 0.5 * size[2]) / 2;
      } else if (kind == 6)
        M[s] = cm_mesh_box(size, 2);
      else if (kind == 0 || (kind == 1 && s == 0))
        M[s] = cm_mesh_box(size, 1 << ((it / 4 + s) % 4));
      else if (kind == 1)
        M[s] = cm_mesh_icosphere(half[s] = 0.6, 2);
      else {
        M[s] = rand_mesh(1 + (it + s) % 2, 0.3, size);
        half[s] *= 2;
      }
    }
    cmBodyDef a = cm_body_def_default(), b = cm_body_def_default();
    a.name = "A";
    a.geom.type = CM_GEOM_MESH;
    a.geom.mesh = M[0];
    b.name = "B";
    b.geom.type = CM_GEOM_MESH;
    b.geom.mesh = M[1];
    cmModel* m = compile_pair(&a, &b, CM_METHOD_VERTEX_EDGE);
    cm_mesh_free(M[0]);
    cm_mesh_free(M[1]);
    CHECK(m != NULL);
    if (!m) continue;
    cmData* d = cm_data_new(m);
    for (int pose = 0; pose < 25; pose++) {
      double qa[4], qb[4], xa[3] = {0, 0, 0}, xb[3];
      rand_quat(qa);
      rand_quat(qb);
      /* B's centre at 0.5 to 0.9 of the sum of the mean half-sizes from A's, in a random
       * direction: shallow to moderate overlaps, where edges cross (deep ones pair few edges) */
      double u[3] = {urand() - 0.5, urand() - 0.5, urand() - 0.5};
      double dist = (0.5 + 0.4 * urand()) * (half[0] + half[1]);
      cm_v3_scale(u, u, dist / cm_v3_norm(u));
      for (int k = 0; k < 3; k++)
        xb[k] = u[k];
      if (kind == 4) crossed_pose(hsz[0], hsz[1], qa, qb, xb);
      set_pose(m, d, 0, xa, qa);
      set_pose(m, d, 1, xb, qb);
      cm_arena_reset(&arena);
      cmEdgeHit* h;
      int nh = cm_collide_edges(m, d, 0, 1, &arena, &h);
      int ref[256][4];
      int nr = ref_pairs(m, d, 0, 1, ref, 256);
      CHECK(nr <= 256);
      int same = nh == nr;
      for (int i = 0; same && i < nh; i++)
        same = h[i].ea[0] == ref[i][0] && h[i].ea[1] == ref[i][1] && h[i].eb[0] == ref[i][2] &&
               h[i].eb[1] == ref[i][3];
      differ += !same;
      /* and the kernel's pairs after a rigid motion of both bodies (its own random numbers:
       * the poses above stay those of the sequence): the same, since the rule's choices depend
       * on the relative pose only, and its ties within rounding are taken by the edges' order */
      {
        double q[4], R[9], t[3], pos[2][3], quat[2][4];
        memcpy(pos, d->body_xpos, sizeof pos);
        memcpy(quat, d->body_xquat, sizeof quat);
        for (int k = 0; k < 4; k++)
          q[k] = test_urand(&motion_state) - 0.5;
        cm_quat_normalize(q);
        cm_quat_to_mat(R, q);
        for (int k = 0; k < 3; k++)
          t[k] = 4 * (test_urand(&motion_state) - 0.5);
        move_pair(d, pos, quat, q, R, t);
        cmEdgeHit* h1;
        int n1 = cm_collide_edges(m, d, 0, 1, &arena, &h1);
        int inv = n1 == nh;
        for (int i = 0; inv && i < nh; i++)
          inv = memcmp(h[i].ea, h1[i].ea, sizeof h->ea) == 0 &&
                memcmp(h[i].eb, h1[i].eb, sizeof h->eb) == 0;
        moved_differ += !inv;
        memcpy(d->body_xpos, pos, sizeof pos);
        memcpy(d->body_xquat, quat, sizeof quat);
      }
      if (!same && getenv("EDGE_DIFF")) {
        printf("  differ (mesh kind %d): kernel", kind);
        for (int i = 0; i < nh; i++)
          printf(" %d-%d/%d-%d", h[i].ea[0], h[i].ea[1], h[i].eb[0], h[i].eb[1]);
        printf("; reference");
        for (int i = 0; i < nr && i < 256; i++)
          printf(" %d-%d/%d-%d", ref[i][0], ref[i][1], ref[i][2], ref[i][3]);
        printf("\n");
      }
      poses++;
      pairs += nr;
    }
    cm_data_free(d);
    cm_model_free(m);
  }
  printf("  %d poses, %d edge pairs by brute force (%d of them corner pairs, %d linked at the "
         "facet level only), %d poses where the kernel differs, %d where a rigid motion changes "
         "its pairs\n",
         poses, pairs, ref_ncorner, ref_nfacet_only, differ, moved_differ);
  CHECK(differ == 0);
  CHECK(moved_differ == 0);
  CHECK(ref_ncorner > 0);     /* the corner rule is exercised */
  CHECK(ref_nfacet_only > 0); /* and the facet-level linking */
  CHECK(pairs >= 20);         /* the poses do produce pairs */
  cm_arena_destroy(&arena);
}

static void test_rule_brute_force(void) {
  rule_brute_force();
}

/* The same with two other random sequences (their own seeds; the test's sequence is restored
 * after). Over the seeds 1 to 30, 34 of 21,000 poses disagreed until 2026-12-07 (none with the
 * committed sequence): a chain followed from a corner listing kept the corner listing's inside
 * endpoints, not the chain's (seed 16: 4 poses), and parallel pairs whose overlaps tie within
 * rounding were taken by whichever came first (the prism's sides; seed 3: 2 poses). */
static void test_rule_brute_force_seeds(void) {
  unsigned long long saved = rng_state;
  const unsigned long long seeds[2] = {3, 16};
  for (int k = 0; k < 2; k++) {
    rng_state = seeds[k];
    rule_brute_force();
  }
  rng_state = saved;
}

/* The ridge list (mesh_ridge) of boxes of 1 to 8 divisions and an icosphere: each ridge once,
 * from the lower-numbered of its two faces, with that face's ridge bit, and for a box exactly the
 * segments of its 12 edges (both ends on two of the box's faces: 12 n of them), none on a
 * sphere (adjacent faces meet at about 12 degrees, under CM_RIDGE_DEG). */
static void test_ridge_list(void) {
  for (int k = 0; k < 4; k++) {
    cmBodyDef a = cm_body_def_default(), b = cm_body_def_default();
    int div = 1 << k;
    a.name = "a";
    a.geom.type = CM_GEOM_BOX;
    a.geom.size[0] = 0.3;
    a.geom.size[1] = 0.2;
    a.geom.size[2] = 0.1;
    a.geom.divisions = div;
    b.name = "b";
    b.geom.type = CM_GEOM_SPHERE;
    b.geom.radius = 0.1;
    b.geom.refine = 2;
    b.position[0] = 1;
    cmModel* m = compile_pair(&a, &b, CM_METHOD_VERTEX_EDGE);
    CHECK(m != NULL);
    if (!m) continue;
    int total = 0;
    for (int g = 0; g < m->ngeom; g++) {
      CHECK(m->geom_ridgeadr[g] == total);
      total += m->geom_nridge[g];
    }
    CHECK(m->nridge == total);
    int ga = m->body_geom[0], gb = m->body_geom[1], fa = m->geom_faceadr[ga];
    CHECK(m->geom_nridge[ga] == 12 * div);
    CHECK(m->geom_nridge[gb] == 0);
    const int* R = m->mesh_ridge + 4 * m->geom_ridgeadr[ga];
    const double* V = m->mesh_vert + 3 * m->geom_vertadr[ga];
    int bad = 0;
    for (int i = 0; i < m->geom_nridge[ga]; i++) {
      const int* r = R + 4 * i;
      const int* F = m->mesh_face + 3 * (fa + r[2]);
      int u = F[r[3]], w = F[(r[3] + 1) % 3], across = m->mesh_face_adj[3 * (fa + r[2]) + r[3]];
      bad += r[0] != (u < w ? u : w) || r[1] != (u < w ? w : u);
      bad += !(m->mesh_face_ridge[fa + r[2]] >> r[3] & 1) || across < r[2];
      if (i > 0) bad += R[4 * i - 2] > r[2] || (R[4 * i - 2] == r[2] && R[4 * i - 1] >= r[3]);
      for (int e = 0; e < 2; e++) { /* both ends on two faces of the box */
        const double* x = V + 3 * r[e];
        int on = 0;
        for (int c = 0; c < 3; c++)
          on += fabs(fabs(x[c]) - 0.5 * a.geom.size[c]) < 1e-12;
        bad += on < 2;
      }
    }
    printf("  box of %d divisions: %d ridges listed, %d wrong\n", div, m->geom_nridge[ga], bad);
    CHECK(bad == 0);
    cm_model_free(m);
  }
}

/* What auto does per pair: two boxes (24 ridges each at divisions 2: 12 edges of 2 segments):
 * both boxes' vertices (two-way, areas shared by depth) and the edge contacts; two icospheres
 * of refine 2 (no ridges: adjacent faces meet at about 12 degrees): the vertices of one
 * (vertex); a fine icosphere (smooth, 4 times finer or more) in a coarse box's face: the
 * sphere's vertices alone at their whole area, exactly vertex's sum, plus edge contacts.
 * Overlapping poses; the contacts' flags and areas tell. */
static void test_auto_choice(void) {
  cmBodyDef box[2], ball[2];
  for (int i = 0; i < 2; i++) {
    box[i] = scene_box(i ? "b1" : "b0", 0.1, 0.1, 0.1, 2);
    box[i].position[2] = 0.098 * i;
    box[i].position[0] = 0.02 * i;
    ball[i] = cm_body_def_default();
    ball[i].name = i ? "s1" : "s0";
    ball[i].geom.type = CM_GEOM_SPHERE;
    ball[i].geom.radius = 0.05;
    ball[i].geom.refine = 2;
    ball[i].position[2] = 0.098 * i;
  }
  cmBodyDef floor = scene_box("floor", 1, 1, 0.1, 1), fine = ball[1];
  fine.geom.refine = 3;
  fine.position[2] = 0.05 + 0.05 - 0.002;
  struct {
    const cmBodyDef *a, *b;
    int nridge[2], two_way, edges_allowed;
  } c[3] = {{&box[0], &box[1], {24, 24}, 1, 1},
            {&ball[0], &ball[1], {0, 0}, 0, 0},
            {&floor, &fine, {12, 0}, 0, 1}};
  for (int k = 0; k < 3; k++) {
    cmModel* m = scene_pair("auto", c[k].a, c[k].b, CM_METHOD_AUTO);
    CHECK(m != NULL);
    if (!m) continue;
    CHECK(m->geom_nridge[m->body_geom[0]] == c[k].nridge[0]);
    CHECK(m->geom_nridge[m->body_geom[1]] == c[k].nridge[1]);
    cmData* d = cm_data_new(m);
    CHECK(cm_collide(m, d) == CM_OK);
    int two = 0, one = 0, edge = 0, from[2] = {0, 0};
    for (int i = 0; i < d->ncontact; i++) {
      const cmContact* ct = &d->contact[i];
      edge += (ct->flags & CM_CONTACT_EDGE) != 0;
      if (ct->flags & CM_CONTACT_EDGE) continue;
      two += (ct->flags & CM_CONTACT_TWO_WAY) != 0;
      one += !(ct->flags & CM_CONTACT_TWO_WAY);
      from[ct->body[0]]++;
    }
    printf("  %s-%s: %d two-way, %d one-way, %d edge contacts; vertices of body 0: %d, 1: %d\n",
           c[k].a->name, c[k].b->name, two, one, edge, from[0], from[1]);
    CHECK(d->ncontact > 0);
    if (c[k].two_way) {
      CHECK(one == 0 && two > 0 && from[1] > 0);
      if (k == 0) CHECK(from[0] > 0);
    } else {
      CHECK(two == 0 && one > 0 && (from[0] == 0 || from[1] == 0));
    }
    if (!c[k].edges_allowed) CHECK(edge == 0);
    if (k == 2) {
      /* the fine sphere's vertices only, at their whole area: vertex's area sum */
      CHECK(from[0] == 0 && from[1] > 0);
      cmModel* mv = scene_pair("vertex", c[k].a, c[k].b, CM_METHOD_VERTEX);
      cmData* dv = cm_data_new(mv);
      CHECK(cm_collide(mv, dv) == CM_OK);
      CHECK(dv->npair == 1 && d->npair == 1);
      if (dv->npair == 1 && d->npair == 1) CHECK_REL(d->pair[0].area, dv->pair[0].area, 1e-15);
      cm_data_free(dv);
      cm_model_free(mv);
    }
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* Three pairs of crossed bars side by side (2 m apart, one rule), their faces divided in two:
 * every pair's contacts are
 * contiguous at [first, first + points) with the pair's bodies, and every contact with a
 * penetration gets its row's force after a step. Before the fix of 2026-12-03 the edge
 * (vertex_edge) and contour contacts of a batch of several pairs were appended after all the
 * pairs' vertex contacts, so a pair's range held the next pairs' contacts and some edge
 * contacts had no row (no force): the S2 pile of 27 boxes with vertex_edge overlapped 25 mm. */
static void test_pairs_contiguous(void) {
  const cmMethod methods[2] = {CM_METHOD_VERTEX_EDGE, CM_METHOD_CONTOUR};
  for (int k = 0; k < 2; k++) {
    cmScene* s = cm_scene_new("three_crossings");
    cm_v3_set(s->opt.gravity, 0, 0, 0);
    char names[6][32];
    for (int i = 0; i < 3; i++) {
      cmBodyDef up, low;
      scene_crossed_bars(L, S, 2e-3, &up, &low);
      /* divisions 2: each ridge's middle vertex lies at the crossing, inside the other bar,
       * so each pair has vertex contacts (two_way jobs) before its edge contacts */
      up.geom.divisions = low.geom.divisions = 2;
      snprintf(names[2 * i], sizeof names[0], "upper%d", i);
      snprintf(names[2 * i + 1], sizeof names[0], "lower%d", i);
      up.name = names[2 * i];
      low.name = names[2 * i + 1];
      up.position[0] = low.position[0] = 2.0 * i;
      CHECK(cm_scene_add_body(s, &up, scene_err, sizeof scene_err) >= 0);
      CHECK(cm_scene_add_body(s, &low, scene_err, sizeof scene_err) >= 0);
    }
    cmRuleDef r = cm_rule_def_default();
    r.method = methods[k];
    CHECK(cm_scene_add_rule(s, &r, scene_err, sizeof scene_err) >= 0);
    cmModel* m = scene_compile(s);
    if (!m) continue;
    cmData* d = cm_data_new(m);
    CHECK(cm_step(m, d) == CM_OK);
    CHECK(d->npair == 3);
    int total = 0;
    for (int p = 0; p < d->npair; p++) {
      const cmContactPair* P = &d->pair[p];
      CHECK(P->points > 0);
      total += P->points;
      for (int i = P->first; i < P->first + P->points; i++) {
        const cmContact* c = &d->contact[i];
        CHECK(c->pair == p);
        CHECK((c->body[0] == P->body[0] && c->body[1] == P->body[1]) ||
              (c->body[0] == P->body[1] && c->body[1] == P->body[0]));
        if (c->dist < 0 && c->area > 0) CHECK(c->force > 0);
      }
    }
    CHECK(total == d->ncontact);
    cm_data_free(d);
    cm_model_free(m);
  }
}

/* Boxes placed flush (a face exactly on the other's, sides exactly in one plane) or coincident
 * touch each other's facets all along: facet-level linking must pair nothing there (its
 * crossings are proper ones, the edge's ends on either side of the facet's plane beyond the
 * margin), so the edge pairs are those of triangle-level linking, pair for pair. Cubes of 0.1 m
 * at divisions 1, 2 and 4: stacked with the upper one shifted 0, 20 and 50 mm along x (its y
 * sides flush), side by side (touching along x, flush at top and bottom), and coincident. */
static void test_flush_no_facet_pairs(void) {
  cmArena arena;
  cm_arena_init(&arena, 1 << 16);
  const double shift[5][3] = {{0, 0, 0.1}, {0.02, 0, 0.1}, {0.05, 0, 0.1}, {0.1, 0, 0}, {0, 0, 0}};
  int cases = 0, same = 0, pairs = 0;
  for (int dv = 1; dv <= 4; dv *= 2)
    for (int k = 0; k < 5; k++) {
      cmBodyDef a = scene_box("A", S, S, S, dv), b = scene_box("B", S, S, S, dv);
      cm_v3_copy(b.position, shift[k]);
      cmModel* m = compile_pair(&a, &b, CM_METHOD_VERTEX_EDGE);
      CHECK(m != NULL);
      if (!m) continue;
      cmData* d = cm_data_new(m);
      cmEdgeHit *h0, *h1;
      int n[2];
      cm_collide_facet_link = 0;
      cm_arena_reset(&arena);
      n[0] = cm_collide_edges(m, d, 0, 1, &arena, &h0);
      int e0[256][4];
      for (int i = 0; i < n[0] && i < 256; i++) {
        e0[i][0] = h0[i].ea[0];
        e0[i][1] = h0[i].ea[1];
        e0[i][2] = h0[i].eb[0];
        e0[i][3] = h0[i].eb[1];
      }
      cm_collide_facet_link = 1;
      cm_arena_reset(&arena);
      n[1] = cm_collide_edges(m, d, 0, 1, &arena, &h1);
      int ok = n[0] == n[1] && n[0] <= 256;
      for (int i = 0; ok && i < n[1]; i++)
        ok = h1[i].ea[0] == e0[i][0] && h1[i].ea[1] == e0[i][1] && h1[i].eb[0] == e0[i][2] &&
             h1[i].eb[1] == e0[i][3];
      if (!ok)
        printf("  divisions %d, case %d: %d edge pairs by triangles, %d with facets\n", dv, k, n[0],
               n[1]);
      cases++;
      same += ok;
      pairs += n[0];
      cm_data_free(d);
      cm_model_free(m);
    }
  printf(
      "  %d flush or coincident poses (%d edge pairs): the same pairs with facet-level linking in "
      "%d\n",
      cases, pairs, same);
  CHECK(same == cases);
  cm_arena_destroy(&arena);
}

/* A cube of side 2h with each square side cut along one diagonal (flip 0) or the other (flip 1):
 * the same shape, the same vertices, another triangulation */
static cmMesh* cube_cut(double h, int flip) {
  static const int quad[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                 {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  cmMesh* m = cm_mesh_new(8, 12);
  if (!m) return NULL;
  for (int v = 0; v < 8; v++)
    for (int k = 0; k < 3; k++)
      m->vert[3 * v + k] = (v >> k & 1) ? h : -h;
  for (int f = 0; f < 6; f++) {
    const int* q = quad[f];
    int t[2][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}};
    int u[2][3] = {{q[0], q[1], q[3]}, {q[1], q[2], q[3]}};
    memcpy(m->face + 6 * f, flip ? u : t, sizeof t);
  }
  return m;
}

/* How a flat side is cut into triangles changes no contact's depth or normal: random overlapping
 * poses of two cubes cut along one diagonal of each side and of the same cubes cut along the
 * other give the same contacts (vertex, then edge-edge), depth and normal, to rounding, wherever
 * the cubes overlap by less than a quarter of their side (asserted). Until 2026-12-07 a ridge
 * also paired with the diagonals (edges between coplanar triangles), so the edge contacts
 * depended on the cut (docs/contact-laws.md, "Edges inside a face"). Deeper, a pair linked
 * through the triangles next to its edges in one cut can be linked only through the facets in
 * the other, which keeps fewer such pairs: counted, not asserted (2.6 % of the poses, all
 * beyond 30 % of the side). Areas are not compared: a vertex's area vector sums the triangles
 * around it, which the cut changes. */
static void test_triangulation_invariance(void) {
  cmModel* m[2];
  cmData* d[2];
  for (int cut = 0; cut < 2; cut++) {
    m[cut] =
        scene_mesh_pair("edges", cube_cut(0.05, cut), cube_cut(0.05, cut), CM_METHOD_VERTEX_EDGE);
    CHECK(m[cut] != NULL);
    if (!m[cut]) return;
    d[cut] = cm_data_new(m[cut]);
  }
  /* a sequence of its own: the other tests' poses stay those they were written against */
  unsigned long long saved = rng_state;
  rng_state = 0x9e3779b97f4a7c15ULL;
  int poses = test_trials(2000, 200), differ = 0, contacts = 0, edges = 0, ndeep = 0,
      differ_deep = 0, differ_all = 0;
  for (int it = 0; it < poses; it++) {
    double qa[4], qb[4], xa[3] = {0, 0, 0}, xb[3], u[3];
    rand_quat(qa);
    rand_quat(qb);
    /* half the poses at a separating-axis depth drawn in [0.5, 25] mm along a random direction
     * (bisection on the distance: the depth falls as B moves out along it), half anywhere within
     * 6 cm of A's centre (mostly deeper) */
    for (int k = 0; k < 3; k++)
      u[k] = urand() - 0.5;
    cm_v3_scale(u, u, 1 / cm_v3_norm(u));
    double box[6] = {-0.05, -0.05, -0.05, 0.05, 0.05, 0.05}, Ra[9], Rb[9], RaT[9], R[9], t[3];
    cm_quat_to_mat(Ra, qa);
    cm_quat_to_mat(Rb, qb);
    cm_m3_transpose(RaT, Ra);
    cm_m3_mul(R, RaT, Rb);
    if (it % 2 == 0) {
      double target = 0.0005 + 0.0245 * urand(), lo = 0, hi = 0.2;
      for (int b = 0; b < 80; b++) {
        double mid = 0.5 * (lo + hi);
        cm_v3_scale(xb, u, mid);
        cm_m3_mulvt(t, Ra, xb);
        if (cm_boxes_overlap(box, box, R, t) > target)
          lo = mid;
        else
          hi = mid;
      }
      cm_v3_scale(xb, u, 0.5 * (lo + hi));
    } else {
      for (int k = 0; k < 3; k++)
        xb[k] = 0.12 * (urand() - 0.5);
    }
    for (int cut = 0; cut < 2; cut++) {
      set_pose(m[cut], d[cut], 0, xa, qa);
      set_pose(m[cut], d[cut], 1, xb, qb);
      cm_collide(m[cut], d[cut]);
    }
    /* the contacts deeper than DEEP_CUT in each cut, in order: the same */
    const double DEEP_CUT = 0.0025;
    int same = 1, i0 = 0, i1 = 0, all = d[0]->ncontact == d[1]->ncontact;
    for (int i = 0; all && i < d[0]->ncontact; i++)
      all = fabs(d[0]->contact[i].dist - d[1]->contact[i].dist) <= 1e-12;
    for (;;) {
      while (i0 < d[0]->ncontact && !(-d[0]->contact[i0].dist > DEEP_CUT))
        i0++;
      while (i1 < d[1]->ncontact && !(-d[1]->contact[i1].dist > DEEP_CUT))
        i1++;
      if (i0 == d[0]->ncontact || i1 == d[1]->ncontact) {
        same = same && i0 == d[0]->ncontact && i1 == d[1]->ncontact;
        break;
      }
      const cmContact *c0 = &d[0]->contact[i0++], *c1 = &d[1]->contact[i1++];
      same = same && c0->flags == c1->flags && c0->vert == c1->vert && c0->body[0] == c1->body[0] &&
             fabs(c0->dist - c1->dist) <= 1e-12;
      for (int k = 0; k < 3; k++)
        same = same && fabs(c0->n[k] - c1->n[k]) <= 1e-9;
    }
    differ_all += !all;
    /* the pair's separating-axis depth (cm_boxes_overlap: B into A's frame) */
    cm_m3_mulvt(t, Ra, xb);
    int deep = cm_boxes_overlap(box, box, R, t) > 0.025;
    if (deep) {
      ndeep++;
      differ_deep += !same;
    } else {
      differ += !same;
    }
    contacts += d[0]->ncontact;
    for (int i = 0; i < d[0]->ncontact; i++)
      edges += (d[0]->contact[i].flags & CM_CONTACT_EDGE) != 0;
  }
  printf("  %d poses (%d contacts, %d edge-edge): contacts deeper than 2.5 mm differ between the "
         "two cuts in %d of the %d poses overlapping less than a quarter of the side, %d of the "
         "%d deeper; any contact in %d poses\n",
         poses, contacts, edges, differ, poses - ndeep, differ_deep, ndeep, differ_all);
  CHECK(differ == 0);
  CHECK(differ_deep == 0);
  CHECK(edges > 0);
  rng_state = saved;
  for (int cut = 0; cut < 2; cut++) {
    cm_data_free(d[cut]);
    cm_model_free(m[cut]);
  }
}

int main(void) {
  RUN(test_crossed_bars);
  RUN(test_crossed_bars_contour);
  RUN(test_rigid_invariance_bars);
  RUN(test_random_meshes);
  RUN(test_triangulation_invariance);
  RUN(test_rule_brute_force);
  RUN_LONG(test_rule_brute_force_seeds);
  RUN(test_flush_no_facet_pairs);
  RUN(test_ridge_list);
  RUN(test_auto_choice);
  RUN(test_pairs_contiguous);
  return test_report();
}
