/* Mesh-mesh vertex penetration (SPEC 4 `vertex`, `two_way`; SPEC 5 areas). */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/cm_math.h"
#include "core/par_gate.h"
#include "scenes.h"
#include "test.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static cmModel* two_bodies(const cmBodyDef* a, const cmBodyDef* b, cmMethod method) {
  return scene_pair("pair", a, b, method); /* area_compliant */
}

/* a finely meshed small box sunk delta into a coarse big box: the small box's bottom vertices
 * penetrate (it is the finer mesh), each delta deep along the big box's top normal, and their
 * areas add up to the bottom face area */
static void test_box_on_box(void) {
  const double delta = 1e-3;
  cmBodyDef big = scene_box("big", 1, 1, 0.2, 1);
  big.motion = CM_MOTION_FIXED;
  cmBodyDef small = scene_box("small", 0.2, 0.1, 0.05, 6);
  small.position[0] = 0.13;
  small.position[1] = -0.07;
  small.position[2] = 0.1 + 0.025 - delta;
  cmModel* m = two_bodies(&big, &small, CM_METHOD_VERTEX);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  CHECK(d->ncontact == 7 * 7);
  CHECK(d->npair == 1);
  double area = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    CHECK(c->body[0] == 1 && c->body[1] == 0);
    CHECK_NEAR(c->dist, -delta, 1e-14);
    CHECK_NEAR(c->n[2], 1, 1e-15);
    CHECK_NEAR(c->p1[2], 0.1, 1e-14);
    area += c->area;
  }
  CHECK_REL(area, 0.2 * 0.1, 1e-12);
  cm_data_free(d);
  cm_model_free(m);
}

/* two-way: both bodies' vertices; each contact carries half its area and the two directions'
 * totals agree (each covers the same patch). The grids are arranged so that no vertex lies
 * on the other body's surface: B's top vertices inside A's footprint are a 4 x 4 block of
 * interior vertices of spacing 0.05 (area 0.05^2 each), covering A's 0.2 x 0.2 footprint. */
static void test_two_way(void) {
  const double delta = 1e-3;
  cmBodyDef B = scene_box("B", 0.4, 0.4, 0.1, 8);
  B.motion = CM_MOTION_FIXED;
  cmBodyDef A = scene_box("A", 0.2, 0.2, 0.1, 4);
  A.position[0] = 0.025;
  A.position[1] = 0.025;
  A.position[2] = 0.1 - delta;
  cmModel* m = two_bodies(&B, &A, CM_METHOD_TWO_WAY);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  double area[2] = {0, 0};
  int count[2] = {0, 0};
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    int k = c->body[0]; /* 0: B's vertices in A, 1: A's vertices in B */
    CHECK(c->flags & CM_CONTACT_TWO_WAY);
    CHECK_NEAR(c->dist, -delta, 1e-14);
    CHECK_NEAR(c->n[2], k ? 1 : -1, 1e-15);
    area[k] += c->area;
    count[k]++;
  }
  CHECK(count[1] == 5 * 5 && count[0] == 4 * 4);
  CHECK(d->npair == 1 && d->pair[0].points == 41);
  CHECK_REL(area[1], 0.5 * 0.2 * 0.2, 1e-12);
  CHECK_REL(area[0], area[1], 1e-12);
  cm_data_free(d);
  cm_model_free(m);
}

/* statistics of a contact list that do not depend on the frame */
typedef struct Stats {
  int n;
  double area, depth, dsum;
} Stats;

static Stats collide_posed(const double q[4], const double t[3], cmMethod method) {
  /* sphere pressed into a box, both moved by the rigid motion (q, t) */
  cmBodyDef a = scene_box("block", 0.3, 0.3, 0.1, 3);
  cmBodyDef b = scene_sphere("ball", 0.05, 4);
  double pb[3] = {0.01, -0.02, 0.05 + 0.05 - 0.004}, qa[4] = {1, 0, 0, 0};
  double ea[3] = {20, 10, 5}, qb[4];
  cm_quat_from_euler_deg(qb, ea);
  double r[3];
  cm_quat_rotate(r, q, pb);
  cm_v3_add(b.position, r, t);
  cm_v3_copy(a.position, t);
  cm_quat_mul(a.orientation, q, qa);
  cm_quat_mul(b.orientation, q, qb);
  cmModel* m = two_bodies(&a, &b, method);
  Stats st = {0, 0, 0, 0};
  if (!m) return st;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  st.n = d->ncontact;
  for (int i = 0; i < d->ncontact; i++) {
    st.area += d->contact[i].area;
    st.dsum += d->contact[i].dist;
    if (-d->contact[i].dist > st.depth) st.depth = -d->contact[i].dist;
  }
  cm_data_free(d);
  cm_model_free(m);
  return st;
}

/* rotating and translating the whole pair changes nothing but rounding */
static void test_invariance(void) {
  for (int method = 0; method < 2; method++) {
    double q0[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0};
    Stats s0 = collide_posed(q0, t0, (cmMethod)method);
    CHECK(s0.n > 20);
    for (int k = 0; k < 5; k++) {
      double axis[3] = {1 + k, 2 - k, 0.5 * k + 0.3}, q[4], t[3] = {3.0 * k, -k, 0.5};
      cm_v3_normalize(axis);
      cm_quat_from_axis_angle(q, axis, 0.4 + k);
      Stats s = collide_posed(q, t, (cmMethod)method);
      CHECK(s.n == s0.n);
      CHECK_REL(s.area, s0.area, 1e-9);
      CHECK_NEAR(s.depth, s0.depth, 1e-12);
      CHECK_NEAR(s.dsum, s0.dsum, 1e-11);
    }
  }
}

/* the contact list is the same with 1 and 2 threads, bit for bit */
static void test_threads(void) {
#ifdef _OPENMP
  cmBodyDef a = scene_sphere("a", 0.1, 6);
  cmBodyDef b = a;
  b.name = "b";
  b.position[0] = 0.17;
  b.position[1] = 0.03;
  cmModel* m = two_bodies(&a, &b, CM_METHOD_TWO_WAY);
  if (!m) return;
  cmData* d1 = cm_data_new(m);
  cmData* d2 = cm_data_new(m);
  omp_set_num_threads(1);
  cm_collide(m, d1);
  omp_set_num_threads(2);
  int saved = cm_par_mode;
  cm_par_mode = 1; /* parallel: a first call would run serially (core/par_gate.h) */
  cm_collide(m, d2);
  cm_par_mode = saved;
  CHECK(d1->ncontact > 100 && d1->ncontact == d2->ncontact);
  CHECK(!memcmp(d1->contact, d2->contact, (size_t)d1->ncontact * sizeof(cmContact)));
  cm_data_free(d1);
  cm_data_free(d2);
  cm_model_free(m);
#else
  printf("  (built without OpenMP: single-threaded)\n");
#endif
}

/* Flush faces (collide_mesh.c, facing_face): a box on another of the same mesh (so the lower
 * one, body 0, penetrates: the tie rule), their y faces flush but for 1e-6 m, sunk delta = 1 mm.
 * The lower box's top vertices on its -y edge are 1e-6 m inside the upper box's -y face and
 * delta above its bottom face: the nearest face is the side one, which runs along them (its
 * normal, -y, does not face against their pseudonormals), so the contact is with the bottom face:
 * normal -z, depth delta, the point straight above on that face (with the nearest face it was
 * the side: depth 1e-6 m, normal -y). The other top vertices inside have the bottom face as their
 * nearest face anyway. */
static void test_flush_faces(void) {
  const double delta = 1e-3, gap = 1e-6;
  cmBodyDef low = scene_box("low", 0.1, 0.1, 0.1, 2);
  low.motion = CM_MOTION_FIXED;
  cmBodyDef up = scene_box("up", 0.1, 0.1, 0.1, 2);
  up.position[0] = 0.01;
  up.position[1] = -gap;
  up.position[2] = 0.1 - delta;
  cmModel* m = two_bodies(&low, &up, CM_METHOD_VERTEX);
  if (!m) return;
  cmData* d = cm_data_new(m);
  cm_collide(m, d);
  int flush = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    CHECK(c->body[0] == 0 && c->body[1] == 1);
    CHECK_NEAR(c->dist, -delta, 1e-12);
    CHECK_NEAR(c->n[2], -1, 1e-12);
    CHECK_NEAR(c->p1[2], 0.05 - delta, 1e-12);
    CHECK_NEAR(c->p1[0], c->p0[0], 1e-12);
    CHECK_NEAR(c->p1[1], c->p0[1], 1e-12);
    flush += fabs(c->p0[1] + 0.05) < 1e-9;
  }
  /* the lower box's top vertices (x, y in -0.05, 0, 0.05) inside the upper box (x from -0.04,
   * y up to 0.05 - gap): x = 0, 0.05 and y = -0.05, 0, of which the y = -0.05 ones are flush */
  CHECK(d->ncontact == 4);
  CHECK(flush == 2);
  cm_data_free(d);
  cm_model_free(m);
}

/* The vertices of side va inside body vb, by querying every vertex (cm_collide_vertex), against
 * the contacts of d whose penetrating body is va (in vertex order, compact_jobs): the
 * mismatches; *hits counts the vertices inside */
static int cull_mismatches(const cmModel* m, cmData* d, int va, int vb, int* hits) {
  int nv = m->geom_nvert[m->body_geom[va]], k = 0, j = 0, bad = 0;
  static const cmContact* c[4096];
  for (int i = 0; i < d->ncontact && k < 4096; i++)
    if (d->contact[i].body[0] == va) c[k++] = &d->contact[i];
  for (int v = 0; v < nv; v++) {
    cmHit h;
    cm_collide_vertex(m, d, va, vb, v, &h);
    if (!h.inside) continue;
    (*hits)++;
    if (j >= k || c[j]->vert != v || c[j]->dist != h.dist || c[j]->face != h.face) bad++;
    j++;
  }
  return bad + (j != k);
}

/* The vertex jobs reject most vertices before the query (narrowphase.c: groups of CM_VGROUP
 * vertices by their boxes against B's bounding ball or plane, for meshes of 512 vertices or
 * more, then B's bounding ball, then its box, in A's frame, widened by 1e-9 of the sizes): the
 * contacts must be those of querying every vertex (cm_collide_vertex), bit for bit. A ball
 * (642 vertices: grouped) and a box (56: not) in random poses, touching, apart and deep, each
 * side's vertices against the other (two_way); the ball on a plane at random heights. And the
 * groups' boxes are those of their vertices. */
static void test_cull_exact(void) {
  int poses = 0, touching = 0, bad = 0, hits = 0;
  unsigned long long r = 0x2545F4914F6CDD1Dull;
  for (int it = 0; it < 60; it++) {
    double u[8];
    for (int k = 0; k < 8; k++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      u[k] = (double)(r >> 11) / 9007199254740992.0;
    }
    cmBodyDef a = scene_box("block", 0.3, 0.2, 0.1, 3);
    cmBodyDef b = scene_sphere("ball", 0.05, 3);
    double ea[3] = {360 * u[0], 180 * u[1], 90 * u[2]}, eb[3] = {90 * u[3], 45 * u[4], 0};
    cm_quat_from_euler_deg(a.orientation, ea);
    cm_quat_from_euler_deg(b.orientation, eb);
    /* the ball's centre about 0.04-0.2 m from the block's */
    double dir[3] = {u[5] - 0.5, u[6] - 0.5, u[7] - 0.5};
    cm_v3_normalize(dir);
    cm_v3_scale(b.position, dir, 0.04 + 0.16 * u[(it + 3) % 8]);
    a.position[0] = 1.5;
    cm_v3_add(b.position, b.position, a.position);
    cmModel* m = two_bodies(&a, &b, CM_METHOD_TWO_WAY);
    if (!m) return;
    cmData* d = cm_data_new(m);
    cm_collide(m, d);
    poses++;
    touching += d->ncontact > 0;
    for (int side = 0; side < 2; side++)
      bad += cull_mismatches(m, d, side, 1 - side, &hits);
    if (it == 0)
      for (int g = 0; g < m->ngeom; g++) {
        const double* x = m->mesh_vert + 3 * (size_t)m->geom_vertadr[g];
        for (int v = 0; v < m->geom_nvert[g]; v++) {
          const double* B = m->mesh_vgroup_box + 6 * (size_t)(m->geom_vgroupadr[g] + v / CM_VGROUP);
          for (int k = 0; k < 3; k++) {
            bad += !(B[k] <= x[3 * v + k] && x[3 * v + k] <= B[3 + k]);
            /* tight: each face of the box touches a vertex of its group */
            int first = v % CM_VGROUP == 0, lo = 1, hi = 1;
            for (int w = v; first && w < v + CM_VGROUP && w < m->geom_nvert[g]; w++) {
              lo &= B[k] != x[3 * w + k];
              hi &= B[3 + k] != x[3 * w + k];
            }
            bad += first && (lo || hi);
          }
        }
      }
    cm_data_free(d);
    cm_model_free(m);
  }
  printf("  %d poses, %d touching, %d vertices inside, %d mismatches\n", poses, touching, hits,
         bad);
  CHECK(bad == 0);
  CHECK(touching > 20 && touching < poses && hits > 500);
  /* the ball on the ground plane, its centre from 0.04 m below to 0.06 m above it */
  int pbad = 0, phits = 0, ptouch = 0;
  for (int it = 0; it < 40; it++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(r >> 11) / 9007199254740992.0;
    cmBodyDef g = scene_ground(), b = scene_sphere("ball", 0.05, 3);
    double eb[3] = {360 * u, 170 * u, 77 * u};
    cm_quat_from_euler_deg(b.orientation, eb);
    b.position[0] = 0.3 * u;
    b.position[2] = -0.04 + 0.1 * u;
    cmModel* m = two_bodies(&g, &b, CM_METHOD_VERTEX);
    if (!m) return;
    cmData* d = cm_data_new(m);
    cm_collide(m, d);
    ptouch += d->ncontact > 0;
    pbad += cull_mismatches(m, d, 1, 0, &phits);
    cm_data_free(d);
    cm_model_free(m);
  }
  printf("  on a plane: 40 poses, %d touching, %d vertices inside, %d mismatches\n", ptouch, phits,
         pbad);
  CHECK(pbad == 0);
  CHECK(ptouch > 10 && ptouch < 40 && phits > 500);
}

int main(void) {
  RUN(test_box_on_box);
  RUN(test_flush_faces);
  RUN(test_two_way);
  RUN(test_invariance);
  RUN(test_threads);
  RUN(test_cull_exact);
  return test_report();
}
