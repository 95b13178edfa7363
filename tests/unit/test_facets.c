/* The facets of a convex mesh (src/geom/facets.c): which meshes get them (and a direction grid),
 * and the inside and nearest-face queries from their planes against the face tree's
 * (cm_bvh_inside), which they must equal bit for bit wherever they answer, on boxes of 1-3
 * divisions, a sheared box, icospheres of 20, 80, 320 and 1280 faces (the last three through
 * their direction grids), a squashed icosphere and a prism over a 40-gon (grids too), and points
 * drawn near the surface, on the faces' diagonals and at the facets' ridges (where they must leave
 * the answer to the tree). */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/facets.h"
#include "scenes.h"
#include "test.h"

static unsigned long long rng = 7;

/* a model of one fixed body with the given mesh (owned by the call) */
static cmModel* mesh_model(cmMesh* mesh) {
  if (!mesh) return NULL;
  cmBodyDef b = cm_body_def_default();
  b.name = "m";
  b.motion = CM_MOTION_FIXED;
  b.geom.type = CM_GEOM_MESH;
  b.geom.mesh = mesh;
  cmScene* s = cm_scene_new("facets");
  cmModel* m = NULL;
  if (s && cm_scene_add_body(s, &b, NULL, 0) >= 0)
    m = scene_compile(s);
  else
    cm_scene_free(s);
  cm_mesh_free(mesh);
  return m;
}

/* the bound cm_mesh_inside_local starts the tree from (box and ball); -1 when p is outside them */
static double start_bound(const cmModel* m, int g, const double p[3]) {
  const double *box = m->geom_aabb + 6 * g, *ball = m->geom_ball + 4 * g;
  double bound = INFINITY;
  for (int k = 0; k < 3; k++) {
    double lo = p[k] - box[k], hi = box[3 + k] - p[k];
    if (lo < 0 || hi < 0) return -1;
    bound = fmin(bound, fmin(lo, hi));
  }
  double dx = p[0] - ball[0], dy = p[1] - ball[1], dz = p[2] - ball[2];
  double r2 = dx * dx + dy * dy + dz * dz;
  if (r2 > ball[3] * ball[3]) return -1;
  /* widened as there: a face on the box is at the bound up to rounding */
  return fmin(bound, ball[3] - sqrt(r2)) * (1 + 1e-9);
}

/* the facets' answer on geometry 0 of m (cm_facets_inside, or cm_facets_grid_inside beyond
 * CM_FACET_MAX facets), and cm_bvh_inside on its tree */
static int facets_query(const cmModel* m, const double p[3], double bound, cmNearest* out) {
  return cm_mesh_facets_inside(m, 0, p, bound, out);
}
static int tree_query(const cmModel* m, const double p[3], double bound, cmNearest* out) {
  return cm_bvh_inside((const cmBvh*)m->geom_bvh, m->mesh_vert, m->mesh_face, m->mesh_face_normal,
                       m->mesh_vert_pn, m->mesh_edge_pn, p, bound, out);
}

typedef struct Tally {
  int asked, decided, near_asked, near_decided, wrong;
} Tally;

/* both queries at p (geometry 0), with and without the nearest face */
static void compare_at(const cmModel* m, const double p[3], Tally* t) {
  double bound = start_bound(m, 0, p);
  if (bound < 0) return;
  for (int want = 0; want < 2; want++) {
    cmNearest a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int f = facets_query(m, p, bound, want ? &a : NULL);
    int r = tree_query(m, p, bound, &b);
    if (want && r)
      t->near_asked++;
    else if (!want)
      t->asked++;
    if (f < 0) continue;
    if (want && r)
      t->near_decided++;
    else if (!want)
      t->decided++;
    int same = f == r;
    if (same && want && f == 1)
      same = a.face == b.face && a.feature == b.feature && a.index == b.index &&
             memcmp(a.point, b.point, sizeof a.point) == 0 && a.dist2 == b.dist2;
    if (!same && t->wrong++ < 5)
      printf("  differ at (%.17g, %.17g, %.17g): facets %d (face %d), tree %d (face %d)\n", p[0],
             p[1], p[2], f, a.face, r, b.face);
  }
}

/* random points in the box grown by a third, points near random surface points (within 1e-3 to
 * 1e-12 of the size, either side), and points at depth on the faces' edges (a divided box's
 * diagonals: two faces equally near) */
static Tally sweep(const cmModel* m, int n) {
  Tally t = {0, 0, 0, 0, 0};
  const double* box = m->geom_aabb;
  double size = m->geom_ball[3];
  for (int i = 0; i < n; i++) {
    double p[3];
    for (int k = 0; k < 3; k++) {
      double c = 0.5 * (box[k] + box[3 + k]), h = 0.5 * (box[3 + k] - box[k]);
      p[k] = c + (2 * test_urand(&rng) - 1) * h * 1.33;
    }
    compare_at(m, p, &t);
    /* near a random point of a random face, along its normal */
    int f = (int)(test_urand(&rng) * m->nface) % m->nface;
    const int* F = m->mesh_face + 3 * f;
    double u = test_urand(&rng), v = test_urand(&rng);
    if (u + v > 1) {
      u = 1 - u;
      v = 1 - v;
    }
    double s = (test_urand(&rng) < 0.5 ? -1 : 1) * size * pow(10, -3 - 9 * test_urand(&rng));
    for (int k = 0; k < 3; k++)
      p[k] = m->mesh_vert[3 * F[0] + k] * (1 - u - v) + m->mesh_vert[3 * F[1] + k] * u +
             m->mesh_vert[3 * F[2] + k] * v + s * m->mesh_face_normal[3 * f + k];
    compare_at(m, p, &t);
    /* on an edge of that face, pushed in by up to a tenth of the size */
    double w = test_urand(&rng), d = 0.1 * size * test_urand(&rng);
    for (int k = 0; k < 3; k++)
      p[k] = m->mesh_vert[3 * F[0] + k] * (1 - w) + m->mesh_vert[3 * F[1] + k] * w -
             d * m->mesh_face_normal[3 * f + k];
    compare_at(m, p, &t);
  }
  return t;
}

/* an icosphere of the radius and refinement scaled by (1, 1, sz): convex, an ellipsoid's facets */
static cmMesh* squashed(double radius, int refine, double sz) {
  cmMesh* me = cm_mesh_icosphere(radius, refine);
  for (int v = 0; me && v < me->nvert; v++)
    me->vert[3 * v + 2] *= sz;
  return me;
}

static void test_which_meshes(void) {
  double size[3] = {0.3, 0.2, 0.1};
  struct {
    cmMesh* mesh;
    int nfacet, faces_first, grid; /* expected facets, faces of the first, a direction grid */
    const char* what;
  } c[12] = {
      {cm_mesh_box(size, 1), 6, 2, 0, "box of 1 division"},
      {cm_mesh_box(size, 2), 6, 8, 0, "box of 2 divisions"},
      {cm_mesh_box(size, 3), 6, 18, 0, "box of 3 divisions"},
      {cm_mesh_icosphere(0.1, 0), 20, 1, 0, "icosphere of 20 faces"},
      {cm_mesh_icosphere(0.1, 2), 320, 1, 1, "icosphere of 320 faces (a direction grid)"},
      {squashed(0.1, 2, 0.7), 320, 1, 1, "icosphere of 320 faces squashed to 0.7"},
      {squashed(0.1, 2, 0.2), 320, 1, 0, "icosphere of 320 faces squashed to 0.2 (too flat)"},
      {cm_mesh_icosphere(0.1, 4), 0, 0, 0, "icosphere of 5120 faces (more than CM_FACET_GRID_MAX)"},
      {cm_mesh_box(size, 2), 0, 0, 0, "box of 2 divisions with a dent"},
      {cm_mesh_icosphere(0.1, 1), 80, 1, 1, "icosphere of 80 faces"},
      {scene_prism_mesh(40, 0.1, 0.15), 42, 2, 1, "prism over a 40-gon (a roller)"},
      {cm_mesh_icosphere(0.1, 3), 1280, 1, 1, "icosphere of 1280 faces (the default sphere)"},
  };
  /* the dent: the vertex at the middle of the top face pushed in by 1 mm */
  for (int v = 0; c[8].mesh && v < c[8].mesh->nvert; v++) {
    double* x = c[8].mesh->vert + 3 * v;
    if (fabs(x[0]) < 1e-12 && fabs(x[1]) < 1e-12 && x[2] > 0) x[2] -= 1e-3;
  }
  for (int i = 0; i < 12; i++) {
    cmModel* m = mesh_model(c[i].mesh);
    CHECK(m != NULL);
    if (!m) continue;
    int cells = m->geom_celladr[0] >= 0;
    printf("  %s: %d facets, %s\n", c[i].what, m->geom_nfacet[0],
           cells ? "a direction grid" : "no grid");
    CHECK(m->geom_nfacet[0] == c[i].nfacet && m->nfacet == c[i].nfacet);
    CHECK(cells == c[i].grid && m->ncell == (cells ? CM_FACET_GRID_CELLS : 0));
    if (cells) {
      /* every cell's list in facet order, within the facets, the lists back to back */
      int ok = 1, at = 0;
      for (int k = 0; k < m->ncell; k++) {
        ok &= m->cell_facetadr[k] == at && m->cell_nfacet[k] >= 0;
        for (int e = 0; e < m->cell_nfacet[k]; e++) {
          int f = m->cell_facet[at + e];
          ok &= f >= 0 && f < m->nfacet && (e == 0 || f > m->cell_facet[at + e - 1]);
        }
        at += m->cell_nfacet[k];
      }
      printf("    %d cells listing %.1f facets each on average\n", m->ncell,
             (double)m->ncellfacet / m->ncell);
      CHECK(ok && at == m->ncellfacet && m->ncellfacet <= CM_FACET_GRID_MEAN * m->ncell);
    }
    if (c[i].nfacet > 0) {
      CHECK(m->facet_nface[0] == c[i].faces_first);
      /* every face once, on its facet's plane */
      static int seen[6000];
      int total = 0, onplane = 1;
      memset(seen, 0, sizeof seen);
      for (int j = 0; j < m->nfacet; j++)
        for (int k = 0; k < m->facet_nface[j]; k++) {
          int f = m->mesh_facet_face[m->facet_faceadr[j] + k];
          seen[f]++;
          total++;
          for (int v = 0; v < 3; v++) {
            const double* P = m->facet_plane + 4 * j;
            onplane &=
                fabs(cm_v3_dot(P, m->mesh_vert + 3 * m->mesh_face[3 * f + v]) - P[3]) < 1e-15;
          }
        }
      int once = total == m->nface;
      for (int f = 0; f < m->nface; f++)
        once &= seen[f] == 1;
      CHECK(once && onplane);
    }
    cm_model_free(m);
  }
}

/* the answers on the convex meshes: equal to the tree's wherever given, and given for nearly
 * every point away from the surface */
static void test_same_answers(void) {
  double size[3] = {0.3, 0.2, 0.1};
  cmMesh* sheared = cm_mesh_box(size, 2);
  if (sheared) {
    /* sheared and turned: a parallelepiped, whose facets are not along the axes */
    double q[4] = {0.9, 0.2, -0.3, 0.25}, R[9];
    cm_quat_normalize(q);
    cm_quat_to_mat(R, q);
    for (int v = 0; v < sheared->nvert; v++) {
      double *x = sheared->vert + 3 * v, y[3] = {x[0] + 0.4 * x[2], x[1] - 0.2 * x[0], x[2]};
      cm_m3_mulv(x, R, y);
    }
  }
  /* the last five through their direction grids */
  cmMesh* meshes[10] = {cm_mesh_box(size, 1),
                        cm_mesh_box(size, 2),
                        cm_mesh_box(size, 3),
                        sheared,
                        cm_mesh_icosphere(0.1, 0),
                        cm_mesh_icosphere(0.1, 2),
                        squashed(0.1, 2, 0.7),
                        cm_mesh_icosphere(0.1, 1),
                        scene_prism_mesh(40, 0.1, 0.15),
                        cm_mesh_icosphere(0.1, 3)};
  int n = test_trials(20000, 500);
  for (int i = 0; i < 10; i++) {
    cmModel* m = mesh_model(meshes[i]);
    CHECK(m != NULL && m->geom_nfacet[0] > 0);
    if (!m || m->geom_nfacet[0] == 0) continue;
    Tally t = sweep(m, n);
    printf("  mesh %d: %d facets; inside verdicts given for %d of %d points, nearest faces for %d "
           "of %d inside; %d differ from the tree\n",
           i, m->geom_nfacet[0], t.decided, t.asked, t.near_decided, t.near_asked, t.wrong);
    CHECK(t.wrong == 0);
    /* a third of the points are within 1e-3 of the size of the surface, a third on the faces'
     * edges (the nearest face then tied with the next one on a divided facet) */
    CHECK(t.decided > 0.5 * t.asked);
    /* a box of 3 divisions has 18 faces per facet, more than CM_FACET_FACES_MAX: its nearest
     * faces are the tree's to find */
    if (i == 2)
      CHECK(t.near_decided == 0);
    else if (i == 8) /* the prism's caps: 38 faces each, the tree's too (half the faces drawn) */
      CHECK(t.near_decided > 0.1 * t.near_asked);
    else
      CHECK(t.near_decided > 0.2 * t.near_asked);
    cm_model_free(m);
  }
}

/* the verdicts against the closed form for the box, at random depths: inside by more than 1e-6
 * of the size always answered, and right */
static void test_box_closed_form(void) {
  double size[3] = {0.3, 0.2, 0.1};
  cmModel* m = mesh_model(cm_mesh_box(size, 2));
  CHECK(m != NULL);
  if (!m) return;
  int wrong = 0, undecided = 0, n = test_trials(20000, 500);
  for (int i = 0; i < n; i++) {
    double p[3], depth = INFINITY;
    for (int k = 0; k < 3; k++) {
      p[k] = (2 * test_urand(&rng) - 1) * 0.6 * size[k];
      depth = fmin(depth, 0.5 * size[k] - fabs(p[k]));
    }
    if (fabs(depth) < 1e-6 * m->geom_ball[3]) continue;
    int f = facets_query(m, p, INFINITY, NULL);
    undecided += f < 0;
    wrong += f >= 0 && f != (depth > 0);
  }
  printf("  %d points: %d undecided, %d wrong\n", n, undecided, wrong);
  CHECK(wrong == 0 && undecided == 0);
  cm_model_free(m);
}

/* A vertex 1.1e-7 m inside a wall of the S2 pile's tank (a 0.1 x 1.8 x 1.2 m box), near its
 * bottom face: the nearest face lies on the box, at the bound up to rounding, and the tree found
 * no face within the bound until it was widened (cm_mesh_inside_local): the vertex was outside.
 * The facets and the tree both find it inside now, at the same face. */
static void test_wall_vertex(void) {
  double size[3] = {0.1, 1.8, 1.2};
  cmModel* m = mesh_model(cm_mesh_box(size, 1));
  CHECK(m != NULL);
  if (!m) return;
  const double p[3] = {-0.049862680322702711, 0.48133924701524899, -0.59999988800098292};
  double bound = start_bound(m, 0, p);
  cmNearest b;
  int r = cm_bvh_inside((const cmBvh*)m->geom_bvh, m->mesh_vert, m->mesh_face, m->mesh_face_normal,
                        m->mesh_vert_pn, m->mesh_edge_pn, p, bound, &b);
  printf("  bound %.6g m: the tree says %d (face %d, depth %.6g m)\n", bound, r, b.face,
         r ? sqrt(b.dist2) : 0.0);
  CHECK(r == 1 && fabs(sqrt(b.dist2) - (0.6 + p[2])) < 1e-12);
  Tally t = {0, 0, 0, 0, 0};
  compare_at(m, p, &t);
  CHECK(t.wrong == 0);
  cmData* d = cm_data_new(m);
  CHECK(d && cm_point_inside(m, d, 0, p) == 1);
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_wall_vertex);
  RUN(test_which_meshes);
  RUN(test_same_answers);
  RUN(test_box_closed_form);
  return test_report();
}
