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
#include <string.h>

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/arena.h"
#include "core/cm_math.h"
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
    for (int b = 0; b < 2; b++) {
      cm_m3_mulv(d->body_xpos + 3 * b, R, pos0[b]);
      cm_v3_add(d->body_xpos + 3 * b, d->body_xpos + 3 * b, t);
      cm_quat_mul(d->body_xquat + 4 * b, q, quat0[b]);
    }
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
    cmMesh* A = rand_mesh(1 + it % 3, 0.3, sa);
    cmMesh* B = rand_mesh(1 + (it / 3) % 3, 0.3, sb);
    cmBodyDef a = cm_body_def_default(), b = cm_body_def_default();
    a.name = "A";
    a.geom.type = CM_GEOM_MESH;
    a.geom.mesh = A;
    b.name = "B";
    b.geom.type = CM_GEOM_MESH;
    b.geom.mesh = B;
    cmModel* m = compile_pair(&a, &b, CM_METHOD_VERTEX_EDGE);
    cm_mesh_free(A);
    cm_mesh_free(B);
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
        CHECK_NEAR(c->dist, -cm_v3_norm(w), 1e-12);
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
      for (int bb = 0; bb < 2; bb++) {
        cm_m3_mulv(d->body_xpos + 3 * bb, R, pos[bb]);
        cm_v3_add(d->body_xpos + 3 * bb, d->body_xpos + 3 * bb, t);
        cm_quat_mul(d->body_xquat + 4 * bb, q, quat[bb]);
      }
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

int main(void) {
  RUN(test_crossed_bars);
  RUN(test_crossed_bars_contour);
  RUN(test_rigid_invariance_bars);
  RUN(test_random_meshes);
  RUN(test_pairs_contiguous);
  return test_report();
}
