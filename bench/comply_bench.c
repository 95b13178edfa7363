/* comply_bench: contact-detection benchmarks over named scenes (bench/README.md).
 *
 *   comply_bench [--quick] [--out FILE.csv] [--threads N] [--steps N|full]
 *                [--tiled-sides A[,B]] [--tiled-fit] [SCENE...]
 *   comply_bench --check-peer-scenes DIR
 *
 * Scenes (all when none is named):
 *   vertex_query     the raw kernel (geom/bvh.h): nearest face on the BVH of a ~100k-face mesh and
 *                    the pseudonormal inside test, for the 40,962 vertices of an icosphere lying
 *                    within 3 % of the mesh's radius from its surface; queries/s with 1 and N
 *                    threads and the fraction inside; diagnostics of what bounds the kernel:
 *                    the cost with each search bounded by the exact distance, with the points
 *                    in Morton order, and of one triangle test
 *   vertex_collide   the same two meshes as bodies through the public API (cm_collide, rule
 *                    `method: vertex`, the icosphere penetrating): the whole narrowphase
 *                    (transform, box cull, query, compaction); queries/s with 1 and N threads
 *   broadphase_1e3   N = 1e3, 1e4, 1e5 small boxes (one shared geometry) at random positions
 *   broadphase_1e4   and orientations, at constant density (mean spacing twice the box size);
 *   broadphase_1e5   seconds per broadphase call and per body, candidate pairs, and the whole
 *                    cm_collide (kinematics + broadphase + narrowphase) with its contacts
 *   method_vertex    the cost of each collision method (rule `method:`) per cm_collide call, one
 *   method_two_way   thread, on a box pile (27 boxes of divisions 2 in a 3 x 3 x 3 stack, 1 mm
 *   method_vertex_edge  interpenetrating) and on two perturbed icospheres of 20,480 faces each
 *   method_contour   overlapping by 5 % of their radius (--quick: 1,280 faces)
 *   method_auto      (the default)
 *   pile             seconds per cm_step of one large island (pyramids of 55 and 91 boxes,
 *                    friction) with the dense and the block-sparse Newton factorisation, side by
 *                    side on the same steps, and their ratio
 *   pile_125         the peer comparison scenes (../shared/peers, rebuilt here from the same
 *   pile_1000        numbers): the S2 pile of 5^3 and 10^3 boxes thrown into an open box and
 *   spheres_1000     the S4 box of 10^3 spheres, ka 1e7, a fixed number of steps from t = 0
 *                    (--steps), one thread; CPU seconds per step, Newton iterations per step
 *                    (mean, max), steps with a solver warning, retried steps, contacts
 *   pile_125_stiff   pile_125 at the default ka 5e10 (issue 10's stiff case; the contact's
 *                    period is 0.2 of a step), its first 1.5 s
 *   pile_125_soft    pile_125_stiff with min_period 4: the rows of every body that rings
 *                    faster than 4 sub-steps softened to ring at 4 (docs/contact-laws.md), 3 s
 *   tiled_pile       the kit's S2 pile and S4 sphere bed of 5 x 5 x 5 bodies and the same scene
 *   tiled_spheres    tiled to 14 x 14 x 5 (980) in a box 14/5 times as wide (bench_tiled below):
 *                    the growth of the CPU cost per step with N on scenes that differ in size
 *                    only, as an exponent, with the stages, contacts and candidates per body
 *   fem_10k          a deformable Neo-Hookean slab of 10k, 50k, 100k tets settling on a plane
 *   fem_50k          (bench_fem below): CPU s per step, per tet, Newton iterations
 *   fem_100k
 *
 * The target mesh of vertex_query is a "bumpy sphere": cm_mesh_box(2, 2, 2; divisions 91) has
 * 6 * 2 * 91^2 = 99,372 faces; every vertex is projected radially to the radius
 *   r(u) = 1 + A f(u),  f(u) = (sin 6u_x + sin 6u_y + sin 6u_z) / 3,  A = 0.03,
 * u the unit direction, and the mesh is then rotated by 0.7 rad about (1, 2, 3). The query
 * points are the vertices of cm_mesh_icosphere(1, 6): each is within A = 3 % of the radius from
 * the surface, and since f is odd and the icosphere centrally symmetric, about half are inside.
 * Triangles are non-uniform (cube-sphere distortion), the surface is curved in every direction
 * and the bumps are ~17 faces wide, so the query is neither a plane nor a sphere special case.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC); one warm-up call, then a measurement repeats the call
 * until at least 0.5 s have passed (--quick: 5 ms, and smaller scenes) and gives the mean time
 * per call; the best (smallest) of 3 repetitions is kept. Random numbers come from a fixed-seed
 * xorshift64* so that every run measures the same scenes.
 *
 * Output: a table on stdout and rows `date,commit,machine,benchmark,threads,n,value,unit`
 * appended to bench/results/<hostname>.csv (or --out FILE). The commit is
 * `git rev-parse --short HEAD` of the source tree, with "-dirty" appended when tracked files
 * differ from it (the numbers then belong to a tree that no commit holds). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "collide/collide.h"
#include "comply/comply.h"
#include "core/arena.h"
#include "dynamics/dynamics.h"
#include "geom/bvh.h"
#include "model/data_internal.h"
#include "solve/block_cholesky.h"

#ifndef CM_SOURCE_DIR
#define CM_SOURCE_DIR "."
#endif

/* ---------------------------------------------------------------------------------------------
 * options, clock, random numbers */

typedef struct Options {
  int quick;       /* small scenes, short measurements */
  int threads;     /* the multi-threaded measurements use this many threads */
  double budget;   /* seconds per repetition */
  const char* out; /* CSV path (NULL: bench/results/<hostname>.csv) */
  long steps;      /* steps of the peer scenes: 0 their default, -1 the peer kit's duration */
  int tiled[2];    /* lattice sides of tiled_pile, tiled_spheres (0, 0: 5 and 14; the second 0:
                      the first size alone) */
  int tiled_fit;   /* 1: the tiled scenes in boxes as wide as their lattices (packed beds) */
} Options;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

/* xorshift64*: a uniform double in [0, 1) */
static double rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* are multi-threaded measurements possible and asked for? */
static int multi_threaded(const Options* o) {
#ifdef _OPENMP
  return o->threads > 1;
#else
  (void)o;
  return 0;
#endif
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* seconds per call: wall clock, and CPU time of the process (all threads) */
typedef struct Timing {
  double wall;
  double cpu;
} Timing;

/* Best of 3 repetitions of the mean seconds per call of fn(ctx), each repetition calling it
 * until `budget` seconds have passed; one warm-up call first (arena growth, caches). The CPU
 * time is that of the repetition with the best wall time: on an idle machine cpu = wall x
 * threads, on a shared one less (the process waited for a core), which the table flags. */
typedef void (*BenchFn)(void* ctx);
static Timing time_best(BenchFn fn, void* ctx, double budget) {
  fn(ctx);
  Timing best = {INFINITY, INFINITY};
  for (int rep = 0; rep < 3; rep++) {
    long calls = 0;
    double t0 = now(), c0 = cpu_now(), t;
    do {
      fn(ctx);
      calls++;
      t = now() - t0;
    } while (t < budget);
    double c = cpu_now() - c0;
    if (t / (double)calls < best.wall) {
      best.wall = t / (double)calls;
      best.cpu = c / (double)calls;
    }
  }
  return best;
}

/* warn when the process got much less than `threads` cores during a measurement */
static void check_share(const char* what, Timing t, int threads) {
  double share = t.cpu / (t.wall * threads);
  if (share < 0.9)
    printf("  (%s: the process ran %.0f %% of the wall time on each of its %d thread(s): "
           "the machine is busy, wall-clock rates are low)\n",
           what, 100 * share, threads);
}

/* ---------------------------------------------------------------------------------------------
 * results: a table on stdout, rows kept for the CSV */

typedef struct Row {
  char bench[48];
  int threads;
  long n;
  double value;
  char unit[24];
} Row;

static Row rows[256];
static int nrows;

static void result(const char* bench, int threads, long n, double value, const char* unit) {
  printf("  %-18s %7d %9ld %14.6g  %s\n", bench, threads, n, value, unit);
  fflush(stdout);
  if (nrows == (int)(sizeof rows / sizeof rows[0])) return;
  Row* r = &rows[nrows++];
  snprintf(r->bench, sizeof r->bench, "%s", bench);
  r->threads = threads;
  r->n = n;
  r->value = value;
  snprintf(r->unit, sizeof r->unit, "%s", unit);
}

/* ---------------------------------------------------------------------------------------------
 * meshes */

#define BUMP_AMPLITUDE 0.03

static double bump(const double u[3]) {
  return (sin(6 * u[0]) + sin(6 * u[1]) + sin(6 * u[2])) / 3.0;
}

/* rotate v by the unit quaternion q = (w, x, y, z) */
static void rotate(const double q[4], double v[3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  double r[3];
  for (int i = 0; i < 3; i++)
    r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
  memcpy(v, r, sizeof r);
}

static void axis_angle(double q[4], double x, double y, double z, double angle) {
  double n = sqrt(x * x + y * y + z * z), s = sin(0.5 * angle) / n;
  q[0] = cos(0.5 * angle);
  q[1] = x * s;
  q[2] = y * s;
  q[3] = z * s;
}

/* the bumpy sphere of the header comment, prepared (face normals); NULL on failure */
static cmMesh* bumpy_sphere(int divisions) {
  double size[3] = {2, 2, 2}, q[4];
  cmMesh* mesh = cm_mesh_box(size, divisions);
  if (!mesh) return NULL;
  axis_angle(q, 1, 2, 3, 0.7);
  for (int i = 0; i < mesh->nvert; i++) {
    double* v = mesh->vert + 3 * i;
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
      v[k] /= len;
    double r = 1 + BUMP_AMPLITUDE * bump(v);
    for (int k = 0; k < 3; k++)
      v[k] *= r;
    rotate(q, v);
  }
  char err[256];
  if (cm_mesh_check(mesh, "bumpy sphere", NULL, err, sizeof err) != CM_OK ||
      cm_mesh_prepare(mesh) != CM_OK) {
    fprintf(stderr, "comply_bench: %s\n", err);
    cm_mesh_free(mesh);
    return NULL;
  }
  return mesh;
}

/* scene sizes: the full scenes, or small ones for --quick */
static int target_divisions(const Options* o) {
  return o->quick ? 23 : 91;
}
static int probe_refine(const Options* o) {
  return o->quick ? 4 : 6;
}

/* ---------------------------------------------------------------------------------------------
 * vertex_query: the raw BVH kernel */

typedef struct QueryCtx {
  const cmMesh* target;
  cmBvh bvh;
  double* vert_pn; /* (nvert x 3) */
  double* edge_pn; /* (nface x 9) */
  double box[6];   /* the target's bounding box */
  const cmMesh* probe;
  const double* oracle; /* NULL, or per probe vertex the search bound to use (nvert) */
  int threads;
  long inside; /* result of the last pass */
} QueryCtx;

/* One query as the narrowphase makes it (collide_mesh.c): a point outside the target's box is
 * outside; inside the box, the search is bounded by the distance to the nearest box face (or by
 * the given oracle bound). */
static int query(const QueryCtx* c, const double p[3], double oracle) {
  double bound = INFINITY;
  for (int k = 0; k < 3; k++) {
    double lo = p[k] - c->box[k], hi = c->box[3 + k] - p[k];
    if (lo < 0 || hi < 0) return 0;
    if (lo < bound) bound = lo;
    if (hi < bound) bound = hi;
  }
  if (oracle < bound) bound = oracle;
  cmNearest near;
  return cm_bvh_inside(&c->bvh, c->target->vert, c->target->face, c->target->face_normal,
                       c->vert_pn, c->edge_pn, p, bound, &near);
}

/* one pass: every probe vertex queried once */
static void query_pass(void* ctx) {
  QueryCtx* c = ctx;
  long inside = 0;
  int n = c->probe->nvert;
  const double* pv = c->probe->vert;
  const double* oracle = c->oracle;
#ifdef _OPENMP
#pragma omp parallel for num_threads(c->threads) schedule(static) reduction(+ : inside)
#endif
  for (int i = 0; i < n; i++)
    inside += query(c, pv + 3 * (size_t)i, oracle ? oracle[i] : INFINITY);
  c->inside = inside;
}

/* cost of one exact point-triangle test, for scale: random points near random faces */
typedef struct TriCtx {
  const cmMesh* mesh;
  int npts;
  const int* fidx;   /* (npts) */
  const double* pts; /* (npts x 3) */
  double sink;
} TriCtx;

static void tri_pass(void* ctx) {
  TriCtx* c = ctx;
  double s = 0, q[3];
  int feature, index;
  for (int i = 0; i < c->npts; i++) {
    const int* t = c->mesh->face + 3 * (size_t)c->fidx[i];
    s += cm_triangle_closest(c->mesh->vert, t[0], t[1], t[2], c->pts + 3 * (size_t)i, q, &feature,
                             &index);
  }
  c->sink += s;
}

/* CPU seconds of one cm_triangle_closest call */
static double triangle_test_seconds(const cmMesh* mesh, const Options* o) {
  enum { NPTS = 4096 };
  static int fidx[NPTS];
  static double pts[3 * NPTS];
  for (int i = 0; i < NPTS; i++) {
    int f = (int)(rnd() * mesh->nface);
    fidx[i] = f;
    /* a point near the face's centroid, off the face by up to 3 % of the radius */
    for (int k = 0; k < 3; k++) {
      double cen = 0;
      for (int j = 0; j < 3; j++)
        cen += mesh->vert[3 * mesh->face[3 * f + j] + k] / 3.0;
      pts[3 * i + k] = cen + 0.03 * (2 * rnd() - 1);
    }
  }
  TriCtx c = {mesh, NPTS, fidx, pts, 0};
  Timing t = time_best(tri_pass, &c, o->budget / 2);
  if (c.sink == -1) printf("%g\n", c.sink); /* keep the calls */
  return t.cpu / NPTS;
}

/* 3 x 10-bit Morton code of a point in [lo, lo + ext)^3 */
static unsigned morton(const double p[3], const double lo[3], double ext) {
  unsigned code = 0;
  for (int k = 0; k < 3; k++) {
    double t = (p[k] - lo[k]) / ext;
    unsigned x = t <= 0 ? 0 : t >= 1 ? 1023 : (unsigned)(t * 1024);
    for (int bit = 0; bit < 10; bit++)
      code |= ((x >> bit) & 1u) << (3 * bit + k);
  }
  return code;
}

typedef struct Keyed {
  unsigned key;
  int index;
} Keyed;

static int cmp_keyed(const void* a, const void* b) {
  const Keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* a copy of the mesh with its vertices in Morton order (faces dropped: only the points are
 * queried), so that consecutive queries walk nearby parts of the tree; NULL on no memory */
static cmMesh* morton_sorted_points(const cmMesh* mesh) {
  cmMesh* out = cm_mesh_new(mesh->nvert, 0);
  Keyed* key = malloc((size_t)mesh->nvert * sizeof *key);
  if (!out || !key) {
    cm_mesh_free(out);
    free(key);
    return NULL;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < mesh->nvert; i++) {
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], mesh->vert[3 * i + k]);
      hi[k] = fmax(hi[k], mesh->vert[3 * i + k]);
    }
  }
  double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) * (1 + 1e-9);
  for (int i = 0; i < mesh->nvert; i++) {
    key[i].key = morton(mesh->vert + 3 * i, lo, ext);
    key[i].index = i;
  }
  qsort(key, (size_t)mesh->nvert, sizeof *key, cmp_keyed);
  for (int i = 0; i < mesh->nvert; i++)
    memcpy(out->vert + 3 * i, mesh->vert + 3 * key[i].index, 3 * sizeof(double));
  free(key);
  return out;
}

/* the fraction inside found by vertex_query, to cross-check vertex_collide's contacts */
static long query_inside = -1;

static int bench_vertex_query(const Options* o) {
  QueryCtx c;
  memset(&c, 0, sizeof c);
  cmMesh* target = bumpy_sphere(target_divisions(o));
  cmMesh* probe = cm_mesh_icosphere(1.0, probe_refine(o));
  double* oracle = NULL;
  int ok = 0;
  if (!target || !probe) goto done;
  c.target = target;
  c.probe = probe;
  c.vert_pn = malloc((size_t)target->nvert * 3 * sizeof(double));
  c.edge_pn = malloc((size_t)target->nface * 9 * sizeof(double));
  oracle = malloc((size_t)probe->nvert * sizeof(double));
  if (!c.vert_pn || !c.edge_pn || !oracle) goto done;
  double t0 = now();
  if (cm_pseudonormals(target->vert, target->nvert, target->face, target->nface, c.vert_pn,
                       c.edge_pn) != CM_OK ||
      cm_bvh_build(&c.bvh, target->vert, target->face, target->nface) != CM_OK)
    goto done;
  double t_build = now() - t0;
  for (int k = 0; k < 3; k++) {
    c.box[k] = INFINITY;
    c.box[3 + k] = -INFINITY;
  }
  for (int i = 0; i < target->nvert; i++) {
    for (int k = 0; k < 3; k++) {
      double x = target->vert[3 * i + k];
      if (x < c.box[k]) c.box[k] = x;
      if (x > c.box[3 + k]) c.box[3 + k] = x;
    }
  }
  /* the exact distance of every probe vertex from the surface, and how near they are */
  double dmax = 0, dsum = 0;
  for (int i = 0; i < probe->nvert; i++) {
    double sd =
        cm_bvh_signed_distance(&c.bvh, target->vert, target->face, target->face_normal, c.vert_pn,
                               c.edge_pn, probe->vert + 3 * (size_t)i, INFINITY, NULL);
    oracle[i] = fabs(sd) * (1 + 1e-9) + 1e-15;
    dsum += fabs(sd);
    if (fabs(sd) > dmax) dmax = fabs(sd);
  }
  printf("vertex_query: %d probe vertices against %d faces (%d nodes, depth %d; pseudonormals + "
         "BVH built in %.3f s); distance to the surface: mean %.4f, max %.4f (radius 1)\n",
         probe->nvert, target->nface, c.bvh.nnode, c.bvh.depth, t_build, dsum / probe->nvert, dmax);

  /* queries per second, 1 thread and N threads, bounded as in the narrowphase */
  double ns1 = 0;
  int tlist[2] = {1, o->threads};
  for (int i = 0; i < 2; i++) {
    if (i == 1 && !multi_threaded(o)) break;
    c.threads = tlist[i];
    Timing t = time_best(query_pass, &c, o->budget);
    double qps = probe->nvert / t.wall;
    if (i == 0) {
      ns1 = 1e9 * t.cpu / probe->nvert;
      query_inside = c.inside;
      result("vertex_query", 1, target->nface, (double)c.inside / probe->nvert, "fraction_inside");
      result("vertex_query", 1, target->nface, ns1, "cpu_ns/query");
    }
    result("vertex_query", c.threads, target->nface, qps, "query/s");
    result("vertex_query", c.threads, target->nface, probe->nvert / t.cpu, "query/cpu_s");
    check_share("vertex_query", t, c.threads);
  }

  /* the same with the search bounded by each point's exact distance: the nodes and faces that
   * any bounded nearest-face search of this tree must visit */
  c.threads = 1;
  c.oracle = oracle;
  Timing to = time_best(query_pass, &c, o->budget);
  c.oracle = NULL;
  result("vertex_query", 1, target->nface, 1e9 * to.cpu / probe->nvert, "cpu_ns/query_oracle");

  /* the same queries in Morton order of the points: how much memory latency costs */
  cmMesh* sorted = morton_sorted_points(probe);
  if (!sorted) goto done;
  c.probe = sorted;
  Timing ts = time_best(query_pass, &c, o->budget);
  c.probe = probe;
  cm_mesh_free(sorted);
  result("vertex_query", 1, target->nface, 1e9 * ts.cpu / probe->nvert, "cpu_ns/query_sorted");

  /* what one query costs in exact triangle tests */
  double t_tri = triangle_test_seconds(target, o);
  result("vertex_query", 1, target->nface, 1e9 * t_tri, "cpu_ns/triangle_test");
  result("vertex_query", 1, target->nface, 1e-9 * ns1 / t_tri, "triangle_tests/query");
  printf("  target 2e6 query/s/core: %s (%.2f M query per CPU-second on 1 thread)\n",
         1e9 / ns1 >= 2e6 ? "met" : "NOT met", 1e3 / ns1);
  ok = 1;
done:
  if (!ok) fprintf(stderr, "comply_bench: vertex_query: setup failed\n");
  cm_bvh_free(&c.bvh);
  free(c.vert_pn);
  free(c.edge_pn);
  free(oracle);
  cm_mesh_free(target);
  cm_mesh_free(probe);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * vertex_collide: the same meshes through the public API */

typedef struct CollideCtx {
  const cmModel* m;
  cmData* d;
} CollideCtx;

static void collide_call(void* ctx) {
  CollideCtx* c = ctx;
  cm_collide(c->m, c->d);
}

static int bench_vertex_collide(const Options* o) {
  char err[512] = "";
  cmMesh* target = bumpy_sphere(target_divisions(o));
  cmMesh* probe = cm_mesh_icosphere(1.0, probe_refine(o));
  cmScene* s = cm_scene_new("bench_vertex_collide");
  cmModel* m = NULL;
  cmData* d = NULL;
  int ok = 0;
  if (!target || !probe || !s) goto done;

  /* the target is fixed, the probe dynamic (two fixed bodies never collide); the rule makes the
   * probe's vertices penetrate (the default `auto` direction would pick the target, whose
   * vertices are denser) */
  cmBodyDef b = cm_body_def_default();
  b.name = "target";
  b.geom.type = CM_GEOM_MESH;
  b.geom.mesh = target;
  b.motion = CM_MOTION_FIXED;
  if (cm_scene_add_body(s, &b, err, sizeof err) < 0) goto done;
  b = cm_body_def_default();
  b.name = "probe";
  b.geom.type = CM_GEOM_MESH;
  b.geom.mesh = probe;
  if (cm_scene_add_body(s, &b, err, sizeof err) < 0) goto done;
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = "probe";
  r.pair[1] = "target";
  r.method = CM_METHOD_VERTEX;
  r.direction = CM_DIRECTION_FIRST;
  if (cm_scene_add_rule(s, &r, err, sizeof err) < 0) goto done;
  double t0 = now();
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) goto done;
  double t_compile = now() - t0;
  if (!(d = cm_data_new(m))) goto done;
  printf("vertex_collide: %d probe vertices against %d faces (model compiled in %.3f s)\n",
         probe->nvert, target->nface, t_compile);

  CollideCtx c = {m, d};
  int tlist[2] = {1, o->threads};
  for (int i = 0; i < 2; i++) {
    if (i == 1 && !multi_threaded(o)) break;
    set_threads(tlist[i]);
    Timing t = time_best(collide_call, &c, o->budget);
    result("vertex_collide", tlist[i], target->nface, t.wall, "s/call");
    result("vertex_collide", tlist[i], target->nface, probe->nvert / t.wall, "query/s");
    result("vertex_collide", tlist[i], target->nface, probe->nvert / t.cpu, "query/cpu_s");
    result("vertex_collide", tlist[i], target->nface, d->ncontact, "contacts");
    check_share("vertex_collide", t, tlist[i]);
  }
  set_threads(o->threads);
  if (query_inside >= 0)
    printf("  contacts %s the raw kernel's inside count (%d vs %ld)\n",
           d->ncontact == query_inside ? "match" : "DIFFER FROM", d->ncontact, query_inside);
  ok = 1;
done:
  if (!ok) fprintf(stderr, "comply_bench: vertex_collide: setup failed: %s\n", err);
  cm_data_free(d);
  cm_model_free(m);
  cm_scene_free(s);
  cm_mesh_free(target);
  cm_mesh_free(probe);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * broadphase_N: many small boxes at constant density */

#define GRAIN_SIZE 0.1    /* box edge, m */
#define GRAIN_SPACING 0.2 /* mean spacing (cube root of the volume per body), m */

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The number of body pairs whose x ranges overlap: the pairs a sweep along x meets (a count
 * over the world boxes, for the report; the broadphase itself is not repeated here). With the
 * lower bounds sorted, the bodies starting inside body i's range number
 * #{lo <= hi_i} - #{lo <= lo_i}, which counts every pair once. */
static double x_overlaps(const double* aabb, int n) {
  double* lo = malloc((size_t)n * sizeof *lo);
  double count = -1;
  if (lo) {
    for (int i = 0; i < n; i++)
      lo[i] = aabb[6 * i];
    qsort(lo, (size_t)n, sizeof *lo, cmp_double);
    /* per body, two binary searches in the sorted lower bounds */
    count = 0;
    for (int i = 0; i < n; i++) {
      double h = aabb[6 * i + 3], l = aabb[6 * i];
      int a = 0, b = n; /* first index with lo > h */
      while (a < b) {
        int mid = (a + b) / 2;
        if (lo[mid] <= h)
          a = mid + 1;
        else
          b = mid;
      }
      int c0 = 0, c1 = n; /* first index with lo > l */
      while (c0 < c1) {
        int mid = (c0 + c1) / 2;
        if (lo[mid] <= l)
          c0 = mid + 1;
        else
          c1 = mid;
      }
      count += a - c0;
    }
  }
  free(lo);
  return count;
}

static void broadphase_call(void* ctx) {
  CollideCtx* c = ctx;
  /* the stage as cm_collide runs it: scratch released, candidates rebuilt (poses unchanged) */
  cm_arena_reset(&cm_priv(c->d)->arena);
  cm_stage_broadphase(c->m, c->d);
}

static int bench_broadphase(const Options* o, const char* name, int n) {
  char err[512] = "";
  char bname[32];
  cmScene* s = cm_scene_new(name);
  cmModel* m = NULL;
  cmData* d = NULL;
  int ok = 0;
  if (!s) goto done;
  rng_state = 0x9E3779B97F4A7C15ull ^ (unsigned long long)n;
  double side = GRAIN_SPACING * cbrt((double)n);
  for (int i = 0; i < n; i++) {
    cmBodyDef b = cm_body_def_default();
    snprintf(bname, sizeof bname, "g%d", i);
    b.name = bname;
    b.alias = "grain";
    b.geom.type = CM_GEOM_BOX;
    b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = GRAIN_SIZE;
    for (int k = 0; k < 3; k++)
      b.position[k] = side * rnd();
    /* a random orientation: a normalised Gaussian-free 4-vector from the unit ball */
    double q[4], qq;
    do {
      qq = 0;
      for (int k = 0; k < 4; k++) {
        q[k] = 2 * rnd() - 1;
        qq += q[k] * q[k];
      }
    } while (qq > 1 || qq < 1e-6);
    for (int k = 0; k < 4; k++)
      b.orientation[k] = q[k] / sqrt(qq);
    if (cm_scene_add_body(s, &b, err, sizeof err) < 0) goto done;
  }
  double t0 = now();
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) goto done;
  double t_compile = now() - t0;
  if (!(d = cm_data_new(m))) goto done;
  printf("%s: %d boxes of %g m in a cube of %.3g m (model compiled in %.3f s)\n", name, n,
         GRAIN_SIZE, side, t_compile);

  /* the broadphase stage alone (internal: cm_collide does not time its stages) */
  set_threads(1);
  CollideCtx c = {m, d};
  cm_arena_reset(&cm_priv(d)->arena);
  cm_stage_kinematics(m, d, d->time);
  Timing tb = time_best(broadphase_call, &c, o->budget);
  int ncand = cm_priv(d)->ncand;
  result(name, 1, n, tb.wall, "s/broadphase");
  result(name, 1, n, 1e9 * tb.cpu / n, "cpu_ns/body");
  result(name, 1, n, 1e9 * tb.cpu / (n * log2((double)n)), "cpu_ns/(body*log2n)");
  result(name, 1, n, ncand, "candidate_pairs");
  result(name, 1, n, x_overlaps(d->body_aabb, n), "x_overlaps");
  check_share(name, tb, 1);

  /* the whole cm_collide: kinematics + broadphase + narrowphase (box-box vertex queries) */
  Timing tc = time_best(collide_call, &c, o->budget);
  result(name, 1, n, tc.wall, "s/collide");
  result(name, 1, n, 1e9 * tc.cpu / n, "cpu_ns/body_collide");
  result(name, 1, n, d->ncontact, "contacts");
  check_share(name, tc, 1);
  set_threads(o->threads);
  ok = 1;
done:
  if (!ok) fprintf(stderr, "comply_bench: %s: setup failed: %s\n", name, err);
  cm_data_free(d);
  cm_model_free(m);
  cm_scene_free(s);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * the CSV */

/* the short commit id of the source tree, "-dirty" appended when tracked files differ */
static void commit_id(char* out, size_t n) {
  snprintf(out, n, "unknown");
  FILE* f = popen("git -C '" CM_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null", "r");
  if (!f) return;
  char buf[64] = "";
  if (fgets(buf, sizeof buf, f)) buf[strcspn(buf, "\r\n")] = 0;
  if (pclose(f) != 0 || !buf[0]) return;
  snprintf(out, n, "%s", buf);
  f = popen("git -C '" CM_SOURCE_DIR "' status --porcelain --untracked-files=no 2>/dev/null", "r");
  if (!f) return;
  int dirty = fgetc(f) != EOF;
  pclose(f);
  if (dirty && strlen(out) + 7 < n) strcat(out, "-dirty");
}

static int write_csv(const Options* o) {
  char host[256] = "unknown", path[1024], commit[80], date[32];
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
  host[sizeof host - 1] = 0;
  if (o->out) {
    snprintf(path, sizeof path, "%s", o->out);
  } else {
    if (mkdir(CM_SOURCE_DIR "/bench/results", 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "comply_bench: cannot create %s/bench/results: %s\n", CM_SOURCE_DIR,
              strerror(errno));
      return 0;
    }
    snprintf(path, sizeof path, "%s/bench/results/%s.csv", CM_SOURCE_DIR, host);
  }
  commit_id(commit, sizeof commit);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);

  FILE* f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "comply_bench: cannot open %s: %s\n", path, strerror(errno));
    return 0;
  }
  if (ftell(f) == 0) fprintf(f, "date,commit,machine,benchmark,threads,n,value,unit\n");
  for (int i = 0; i < nrows; i++) {
    const Row* r = &rows[i];
    fprintf(f, "%s,%s,%s,%s,%d,%ld,%.6g,%s\n", date, commit, host, r->bench, r->threads, r->n,
            r->value, r->unit);
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "comply_bench: cannot write %s\n", path);
    return 0;
  }
  printf("%d rows appended to %s (commit %s)\n", nrows, path, commit);
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * method_<name>: the cost of each collision method (SPEC 4) per cm_collide call */

/* an icosphere of radius 1 with a smooth radial perturbation of 1 % (valid, no flat faces) */
static cmMesh* perturbed_icosphere(int refine, double phase) {
  cmMesh* me = cm_mesh_icosphere(1.0, refine);
  for (int i = 0; me && i < me->nvert; i++) {
    double* v = me->vert + 3 * i;
    double r = 1 + 0.01 * sin(5 * v[0] + phase) * sin(4 * v[1] + 2 * phase) * sin(3 * v[2]);
    for (int k = 0; k < 3; k++)
      v[k] *= r;
  }
  return me;
}

/* scene 0: 27 boxes (0.1 m, divisions 2) in a 3 x 3 x 3 stack, 1 mm interpenetrating, turned by
 * up to 0.02 rad; scene 1: two perturbed icospheres (refine 5, 20,480 faces each; --quick:
 * refine 3) overlapping by 0.05 of their radius */
static cmModel* method_scene(const Options* o, int which, cmMethod method, long* size, char* err,
                             size_t errsz) {
  cmScene* s = cm_scene_new("bench_method");
  cmMesh* mesh[2] = {NULL, NULL};
  cmModel* m = NULL;
  if (!s) return NULL;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.method = method;
  if (which == 0) {
    for (int i = 0; i < 27; i++) {
      char name[16];
      snprintf(name, sizeof name, "box%d", i);
      cmBodyDef b = cm_body_def_default();
      b.name = name;
      b.alias = "box";
      b.geom.type = CM_GEOM_BOX;
      b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 0.1;
      b.geom.divisions = 2;
      b.position[0] = 0.099 * (i % 3);
      b.position[1] = 0.099 * (i / 3 % 3);
      b.position[2] = 0.099 * (i / 9);
      axis_angle(b.orientation, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, 0.02 * rnd());
      if (cm_scene_add_body(s, &b, err, errsz) < 0) goto done;
    }
    *size = 27;
  } else {
    int refine = o->quick ? 3 : 5;
    for (int k = 0; k < 2; k++) {
      mesh[k] = perturbed_icosphere(refine, 0.7 * k);
      if (!mesh[k]) goto done;
      cmBodyDef b = cm_body_def_default();
      b.name = k ? "b" : "a";
      b.geom.type = CM_GEOM_MESH;
      b.geom.mesh = mesh[k];
      b.position[0] = k * 1.95;
      axis_angle(b.orientation, 1, 2, 3, 0.3 * k);
      if (cm_scene_add_body(s, &b, err, errsz) < 0) goto done;
    }
    *size = mesh[0]->nface;
  }
  if (cm_scene_add_rule(s, &r, err, errsz) < 0) goto done;
  if (cm_model_compile(s, &m, err, errsz) != CM_OK) m = NULL;
done:
  cm_mesh_free(mesh[0]);
  cm_mesh_free(mesh[1]);
  cm_scene_free(s);
  return m;
}

static int bench_method(const Options* o, const char* name, cmMethod method) {
  const char* what[2] = {"box pile (27 boxes)", "two 20k-face meshes"};
  for (int which = 0; which < 2; which++) {
    char err[512] = "", bench[48];
    long size = 0;
    cmModel* m = method_scene(o, which, method, &size, err, sizeof err);
    cmData* d = m ? cm_data_new(m) : NULL;
    if (!d) {
      fprintf(stderr, "comply_bench: %s: setup failed: %s\n", name, err);
      cm_model_free(m);
      return 0;
    }
    set_threads(1);
    CollideCtx c = {m, d};
    Timing t = time_best(collide_call, &c, o->budget);
    printf("%s: %s, %d contacts in %d pairs\n", name, what[which], d->ncontact, d->npair);
    snprintf(bench, sizeof bench, "%s_%s", name, which ? "meshes" : "pile");
    result(bench, 1, size, t.wall, "s/call");
    result(bench, 1, size, d->ncontact, "contacts");
    check_share(bench, t, 1);
    set_threads(o->threads);
    cm_data_free(d);
    cm_model_free(m);
  }
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * pile: the implicit solve of one large island, dense versus block-sparse Cholesky */

/* a square pyramid of `layers` layers of 0.1 m cubes (divisions 4) on a fixed plane: layer j
 * holds (layers - j)^2 boxes on a 0.102 m pitch, offset by half a pitch from the layer below so
 * that each box rests on four (one island, a 3D grid graph); interfaces 1e-7 m interpenetrating,
 * area_compliant ka 5e10, friction 0.5, h = 1 ms (tests/physics/test_pile.c) */
static cmModel* pile_scene(int layers, char* err, size_t errsz) {
  cmScene* s = cm_scene_new("bench_pile");
  cmModel* m = NULL;
  if (!s) return NULL;
  s->opt.timestep = 1e-3;
  s->opt.gravity[0] = s->opt.gravity[1] = 0;
  s->opt.gravity[2] = -9.81;
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  if (cm_scene_add_body(s, &g, err, errsz) < 0) goto done;
  for (int j = 0; j < layers; j++) {
    int k = layers - j;
    for (int i = 0; i < k * k; i++) {
      char name[32];
      snprintf(name, sizeof name, "box_%d_%d", j, i);
      cmBodyDef b = cm_body_def_default();
      b.name = name;
      b.geom.type = CM_GEOM_BOX;
      b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 0.1;
      b.geom.divisions = 4;
      b.position[0] = (i % k - 0.5 * (k - 1)) * 0.102;
      b.position[1] = (i / k - 0.5 * (k - 1)) * 0.102;
      b.position[2] = j * (0.1 - 1e-7) - 1e-7 + 0.05;
      if (cm_scene_add_body(s, &b, err, errsz) < 0) goto done;
    }
  }
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 5e10;
  r.friction = 0.5;
  if (cm_scene_add_rule(s, &r, err, errsz) < 0) goto done;
  if (cm_model_compile(s, &m, err, errsz) != CM_OK) m = NULL;
done:
  cm_scene_free(s);
  return m;
}

/* seconds per cm_step of pyramids of 5 and 6 layers (55 and 91 boxes; --quick: 3 layers, 14
 * boxes) with the dense Cholesky (the solver before the block-sparse one) and the block-sparse
 * one, measured side by side in one run, and their ratio. Both paths run the same steps (from
 * the initial state, 2 warm-up steps, then a fixed count timed), since the Newton iterations per
 * step fall as the pile settles; the ratio per Newton iteration is printed too. */
static int bench_pile(const Options* o) {
  int sizes[2] = {5, 6}, nsteps[2] = {20, 8}, nsize = o->quick ? 1 : 2;
  if (o->quick) sizes[0] = 3, nsteps[0] = 5;
  set_threads(1);
  int saved = cm_bchol_dense_max;
  for (int q = 0; q < nsize; q++) {
    char err[512] = "", bench[48];
    cmModel* m = pile_scene(sizes[q], err, sizeof err);
    if (!m) {
      fprintf(stderr, "comply_bench: pile: setup failed: %s\n", err);
      set_threads(o->threads);
      return 0;
    }
    Timing t[2];
    long iters[2] = {0, 0};
    int warn[2] = {0, 0}, ncontact = 0, npair = 0;
    for (int k = 0; k < 2; k++) {
      cm_bchol_dense_max = k == 0 ? 1 << 30 : saved; /* dense, then the default (sparse) */
      cmData* d = cm_data_new(m);
      if (!d) {
        cm_model_free(m);
        cm_bchol_dense_max = saved;
        set_threads(o->threads);
        return 0;
      }
      for (int i = 0; i < 2; i++) /* arena growth, the first contacts */
        cm_step(m, d);
      double t0 = now(), c0 = cpu_now();
      for (int i = 0; i < nsteps[q]; i++) {
        cm_step(m, d);
        iters[k] += d->solver_iter;
      }
      t[k].wall = (now() - t0) / nsteps[q];
      t[k].cpu = (cpu_now() - c0) / nsteps[q];
      warn[k] = d->warning[CM_WARN_SOLVER];
      ncontact = d->ncontact;
      npair = d->npair;
      cm_data_free(d);
    }
    cm_bchol_dense_max = saved;
    long n = m->nbody - 1;
    printf("pile: %ld boxes, %d contacts in %d pairs, %d steps timed; Newton iterations per step "
           "dense %.1f, sparse %.1f; solver warnings dense %d, sparse %d; dense/sparse per Newton "
           "iteration %.3g\n",
           n, ncontact, npair, nsteps[q], (double)iters[0] / nsteps[q],
           (double)iters[1] / nsteps[q], warn[0], warn[1],
           t[0].wall / (double)iters[0] / (t[1].wall / (double)iters[1]));
    snprintf(bench, sizeof bench, "pile_%ld", n);
    result(bench, 1, n, t[0].wall, "dense_s/step");
    result(bench, 1, n, t[1].wall, "sparse_s/step");
    result(bench, 1, n, t[0].wall / t[1].wall, "dense/sparse");
    result(bench, 1, n, t[0].cpu / t[1].cpu, "cpu_dense/sparse");
    check_share(bench, t[1], 1);
    cm_model_free(m);
  }
  set_threads(o->threads);
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * pile_125, pile_1000, spheres_1000: the peer comparison scenes S2 and S4
 *
 * The scenes of the peer kit (../shared/peers: src/common.h defines them for every engine,
 * comply_scenes.py writes comply's YAML of them) built here through the builder API from the
 * same numbers, copied below: the bench reads nothing from ../shared. The lattices follow
 * common.h's pb_pile_init / pb_spheres_init (the same 64-bit LCG, the same operations in the
 * same order, the same libm calls), so the compiled initial state is bit-identical to the one
 * of the kit's YAML (`comply_bench --check-peer-scenes DIR` compares them). The comply-side
 * choices are those of comply_scenes.py's defaults: one rule `* *` area_compliant, ka 1e7,
 * friction PB_MU, the other rule fields default; boxes of divisions 2, spheres as icospheres
 * of refine 2; implicit integrator, h = PB_DT. */

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* common.h: global */
#define PB_GRAVITY (-9.81)
#define PB_DT 1e-3
#define PB_MU 1.0
/* comply_scenes.py defaults: --ka, --box-div, --s4-refine */
#define PB_KA 1e7
#define PB_BOX_DIV 2
#define PB_S4_REFINE 2
/* the stiff variant of the S2 pile: the rule's default ka (issue 10) */
#define PB_KA_STIFF 5e10
/* pile_125_soft: the stiff pile with its rows softened to ring at 4 sub-steps at least
 * (min_period, docs/contact-laws.md "Softened contacts: min_period") */
#define PB_MIN_PERIOD 4.0
/* common.h: S2 pile */
#define S2_HALF 0.05
#define S2_MASS 1.0
#define S2_SPACING 0.15
#define S2_Z0 0.15
#define S2_BOX_IN 0.80
#define S2_WALL_H 1.2
#define S2_WALL_T 0.10
#define S2_MAX_ANG 0.25
#define S2_JITTER 0.002
#define S2_T 3.0
#define S2_VXY 0.5
#define S2_W 5.0
/* common.h: S4 spheres (S4_MASS as comply_scenes.py computes it: rho 4/3 pi r**3) */
#define S4_R 0.01
#define S4_RHO 1000.0
#define S4_MASS (S4_RHO * 4.0 / 3.0 * M_PI * pow(S4_R, 3))
#define S4_I (0.4 * S4_MASS * S4_R * S4_R)
#define S4_BOX_IN 0.25
#define S4_WALL_H 0.7
#define S4_WALL_T 0.05
#define S4_SPACING 0.024
#define S4_Z0 0.02
#define S4_JITTER 0.001
#define S4_T 1.0

/* the steps from t = 0 that each scene runs by default (--steps overrides): pile_125 the whole
 * 3 s of the peer kit; the 1000-body scenes up to where a step costs ~1 CPU s (bench/README.md),
 * about 1.5 min for the three together. --quick: lattices of a fifth of the side (1, 8 and 8
 * bodies) and enough steps to land (the piles' lowest layer touches the floor after ~143 steps,
 * the spheres' after ~45) */
enum {
  PILE_125_STEPS = 3000,
  PILE_STIFF_STEPS = 1500, /* the collapse and the start of the rest (bench/README.md) */
  PILE_1000_STEPS = 300,
  SPHERES_1000_STEPS = 150,
  PILE_QUICK_STEPS = 200,
  SPHERES_QUICK_STEPS = 80,
  TILED_PILE_STEPS = 1500 /* the collapse and the start of the rest, as PILE_STIFF_STEPS */
};

/* the peer kit's generator: 64-bit LCG (Knuth's MMIX constants), top 53 bits as a double */
typedef struct PeerRng {
  unsigned long long s;
} PeerRng;

static double peer_u01(PeerRng* r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

/* uniform in [-a, a) */
static double peer_sym(PeerRng* r, double a) {
  return a * (2.0 * peer_u01(r) - 1.0);
}

/* quaternion of a rotation by `ang` about (ax, ay, az), in common.h's operation order */
static void peer_axis_angle(double q[4], double ax, double ay, double az, double ang) {
  double n = sqrt(ax * ax + ay * ay + az * az), s = sin(0.5 * ang);
  q[0] = cos(0.5 * ang);
  q[1] = s * ax / n;
  q[2] = s * ay / n;
  q[3] = s * az / n;
}

/* the fixed plane z = 0 and four fixed wall boxes around the square [-in, in]^2 (common.h
 * pb_walls: wall w lies across axis w / 2, on the + side for even w) */
static int peer_open_box(cmScene* s, double in, double height, double thick, char* err,
                         size_t errsz) {
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  if (cm_scene_add_body(s, &g, err, errsz) < 0) return 0;
  for (int w = 0; w < 4; w++) {
    int ax = w / 2;
    double sign = (w % 2) ? -1.0 : 1.0, h[3];
    char name[16];
    snprintf(name, sizeof name, "wall%d", w);
    cmBodyDef b = cm_body_def_default();
    b.name = name;
    b.motion = CM_MOTION_FIXED;
    b.geom.type = CM_GEOM_BOX;
    b.position[2] = 0.5 * height;
    b.position[ax] = sign * (in + 0.5 * thick);
    h[2] = 0.5 * height;
    h[ax] = 0.5 * thick;
    h[1 - ax] = in + thick;
    for (int k = 0; k < 3; k++)
      b.geom.size[k] = 2 * h[k];
    if (cm_scene_add_body(s, &b, err, errsz) < 0) return 0;
  }
  return 1;
}

/* The S2 pile: the open box, and an nx x ny x nz lattice of 0.1 m boxes (1 kg, divisions 2)
 * centred over the floor, S2_SPACING apart, the lowest layer at S2_Z0, each tilted by up to
 * S2_MAX_ANG about a random axis, jittered in x and y, and thrown with a random horizontal
 * velocity and a random angular velocity (common.h pb_pile_init with vscale 1) */
static int peer_pile_bodies(cmScene* s, int nx, int ny, int nz, char* err, size_t errsz) {
  PeerRng r = {12345ull};
  int n = 0;
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      for (int i = 0; i < nx; i++, n++) {
        /* the draws in common.h's order: axis, angle, jitter x, jitter y, velocities */
        double ax = peer_sym(&r, 1), ay = peer_sym(&r, 1), az = peer_sym(&r, 1);
        double ang = S2_MAX_ANG * peer_u01(&r);
        char name[16];
        snprintf(name, sizeof name, "box%d", n);
        cmBodyDef b = cm_body_def_default();
        b.name = name;
        b.alias = "box";
        b.geom.type = CM_GEOM_BOX;
        b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 2 * S2_HALF;
        b.geom.divisions = PB_BOX_DIV;
        b.mass = S2_MASS;
        b.position[0] = (i - 0.5 * (nx - 1)) * S2_SPACING + peer_sym(&r, S2_JITTER);
        b.position[1] = (j - 0.5 * (ny - 1)) * S2_SPACING + peer_sym(&r, S2_JITTER);
        b.position[2] = S2_Z0 + k * S2_SPACING;
        if (ax * ax + ay * ay + az * az < 1e-6) ax = 1;
        peer_axis_angle(b.orientation, ax, ay, az, ang);
        b.velocity[0] = peer_sym(&r, S2_VXY);
        b.velocity[1] = peer_sym(&r, S2_VXY);
        for (int c = 0; c < 3; c++)
          b.angular_velocity[c] = peer_sym(&r, S2_W);
        if (cm_scene_add_body(s, &b, err, errsz) < 0) return 0;
      }
    }
  }
  return 1;
}

/* The S4 spheres: the smaller open box, and an nx x ny x nz lattice of spheres of radius
 * S4_R (icospheres of refine 2, water density, solid-sphere inertia) S4_SPACING apart from
 * S4_Z0 up, jittered in x and y, at rest (common.h pb_spheres_init) */
static int peer_sphere_bodies(cmScene* s, int nx, int ny, int nz, char* err, size_t errsz) {
  PeerRng r = {987654321ull};
  int n = 0;
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      for (int i = 0; i < nx; i++, n++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", n);
        cmBodyDef b = cm_body_def_default();
        b.name = name;
        b.alias = "sphere";
        b.geom.type = CM_GEOM_SPHERE;
        b.geom.radius = S4_R;
        b.geom.refine = PB_S4_REFINE;
        b.mass = S4_MASS;
        b.has_inertia = 1;
        b.inertia[0] = b.inertia[4] = b.inertia[8] = S4_I;
        b.position[0] = (i - 0.5 * (nx - 1)) * S4_SPACING + peer_sym(&r, S4_JITTER);
        b.position[1] = (j - 0.5 * (ny - 1)) * S4_SPACING + peer_sym(&r, S4_JITTER);
        b.position[2] = S4_Z0 + k * S4_SPACING;
        if (cm_scene_add_body(s, &b, err, errsz) < 0) return 0;
      }
    }
  }
  return 1;
}

/* the compiled S2 pile (spheres == 0) or S4 spheres (spheres == 1) of an nx x ny x nz
 * lattice, in the kit's open box (in = 0) or one of inner half width `in`; NULL with a message
 * on failure */
static cmModel* peer_scene(int spheres, int nx, int ny, int nz, double ka, double min_period,
                           double in, char* err, size_t errsz) {
  char name[32];
  snprintf(name, sizeof name, "%s_%d", spheres ? "s4_spheres" : "s2_pile", nx * ny * nz);
  cmScene* s = cm_scene_new(name);
  cmModel* m = NULL;
  if (!s) {
    snprintf(err, errsz, "no memory");
    return NULL;
  }
  s->opt.timestep = PB_DT;
  s->opt.duration = spheres ? S4_T : S2_T;
  s->opt.gravity[0] = s->opt.gravity[1] = 0;
  s->opt.gravity[2] = PB_GRAVITY;
  s->opt.integrator = CM_INTEGRATOR_IMPLICIT;
  int ok = spheres ? peer_open_box(s, in > 0 ? in : S4_BOX_IN, S4_WALL_H, S4_WALL_T, err, errsz) &&
                         peer_sphere_bodies(s, nx, ny, nz, err, errsz)
                   : peer_open_box(s, in > 0 ? in : S2_BOX_IN, S2_WALL_H, S2_WALL_T, err, errsz) &&
                         peer_pile_bodies(s, nx, ny, nz, err, errsz);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = ka;
  r.friction = PB_MU;
  r.min_period = min_period;
  if (ok && cm_scene_add_rule(s, &r, err, errsz) >= 0 &&
      cm_model_compile(s, &m, err, errsz) != CM_OK)
    m = NULL;
  cm_scene_free(s);
  return m;
}

/* what a run of a peer scene measured (peer_steps) */
typedef struct PeerRun {
  long done, iters, contacts, cands; /* cands: broadphase candidate pairs, summed */
  int iter_max, warn_steps, contact_peak;
  double cpu, wall;
} PeerRun;

/* `steps` steps of m from d's state on one thread, each cm_step timed in process CPU time and
 * wall time; 0 (with a message) if a step failed */
static int peer_steps(const char* bench, const cmModel* m, cmData* d, long steps, PeerRun* r) {
  memset(r, 0, sizeof *r);
  for (; r->done < steps; r->done++) {
    int warned = d->warning[CM_WARN_SOLVER];
    double w0 = now(), c0 = cpu_now();
    cmStatus st = cm_step(m, d);
    r->cpu += cpu_now() - c0;
    r->wall += now() - w0;
    if (st != CM_OK) {
      fprintf(stderr, "comply_bench: %s: step %ld failed: %s: %s\n", bench, r->done,
              cm_status_name(st), d->message);
      return 0;
    }
    r->iters += d->solver_iter;
    if (d->solver_iter > r->iter_max) r->iter_max = d->solver_iter;
    r->warn_steps += d->warning[CM_WARN_SOLVER] > warned;
    r->contacts += d->ncontact;
    r->cands += cm_priv(d)->ncand;
    if (d->ncontact > r->contact_peak) r->contact_peak = d->ncontact;
  }
  return 1;
}

/* The peer scenes as benchmarks: a fresh run from t = 0 for a fixed number of steps (the
 * scene's default, --steps N, or --steps full: the peer kit's duration), one thread (the
 * peer harness's comply(1T) rows), each cm_step timed in process CPU time and wall time.
 * Per step: mean CPU and wall seconds, mean and max Newton iterations (d->solver_iter), the
 * steps that counted a CM_WARN_SOLVER, and the contact count (mean, peak, last step). */
static int bench_peer(const Options* o, const char* bench, int spheres, int lattice, double ka,
                      double min_period, long default_steps) {
  char err[512] = "";
  if (o->quick) lattice /= 5; /* the smoke run */
  int nx = lattice, ny = lattice, nz = lattice;
  double t0 = now();
  cmModel* m = peer_scene(spheres, nx, ny, nz, ka, min_period, 0, err, sizeof err);
  double t_compile = now() - t0;
  cmData* d = m ? cm_data_new(m) : NULL;
  if (!d) {
    fprintf(stderr, "comply_bench: %s: setup failed: %s\n", bench, err[0] ? err : "no memory");
    cm_model_free(m);
    return 0;
  }
  long steps = o->steps > 0 ? o->steps : o->steps < 0 ? m->opt.steps : default_steps;
  if (o->quick && o->steps == 0) steps = spheres ? SPHERES_QUICK_STEPS : PILE_QUICK_STEPS;
  long n = (long)nx * ny * nz;
  PeerRun r;
  set_threads(1);
  int ok = peer_steps(bench, m, d, steps, &r);
  set_threads(o->threads);
  if (r.done > 0) {
    double per = 1.0 / (double)r.done;
    const char* what = spheres ? "spheres" : "boxes";
    printf("%s: %ld %s, %ld steps to t = %.3f s (model compiled in %.2f s); per step: %.4g CPU s "
           "(%.4g s wall), Newton iterations mean %.1f max %d, contacts mean %.0f peak %d last %d; "
           "%d steps with a solver warning, %ld retried\n",
           bench, n, what, r.done, d->time, t_compile, r.cpu * per, r.wall * per,
           (double)r.iters * per, r.iter_max, (double)r.contacts * per, r.contact_peak, d->ncontact,
           r.warn_steps, d->solver_retries);
    result(bench, 1, n, (double)r.done, "steps");
    result(bench, 1, n, r.cpu * per, "cpu_s/step");
    result(bench, 1, n, r.wall * per, "s/step");
    result(bench, 1, n, (double)r.iters * per, "newton_it/step");
    result(bench, 1, n, r.iter_max, "newton_it_max");
    result(bench, 1, n, r.warn_steps, "solver_warn_steps");
    result(bench, 1, n, (double)d->solver_retries, "retried_steps");
    result(bench, 1, n, (double)r.contacts * per, "contacts_mean");
    result(bench, 1, n, r.contact_peak, "contacts_peak");
    result(bench, 1, n, d->ncontact, "contacts_last");
    Timing t = {r.wall * per, r.cpu * per};
    check_share(bench, t, 1);
  }
  cm_data_free(d);
  cm_model_free(m);
  return ok;
}

/* tiled_pile, tiled_spheres: the kit's S2 and S4 scenes of 5 x 5 x 5 bodies, and the same
 * scene tiled to 14 x 14 x 5 bodies (980) in an open box whose inner width grows with the
 * lattice (14 / 5 times the kit's), so that the floor area per body, the layers and the
 * contacts per body stay those of the small scene: the growth of the cost per step from 125 to
 * 980 bodies, as an exponent of N, on scenes that differ in size only (the kit's 1000-body
 * scenes pile 8 times the bodies on the same floor). ka 1e7, one thread, from t = 0:
 * TILED_PILE_STEPS (the piles) or the kit's 1 s (the spheres), or --steps. --quick: 1 x 1 x 5
 * and 2 x 2 x 5. */
static int bench_tiled(const Options* o, const char* bench, int spheres) {
  int side[2] = {5, 14}, nz = 5, nsize = 2;
  if (o->quick) side[0] = 1, side[1] = 2;
  if (o->tiled[0] > 0) {
    side[0] = o->tiled[0], side[1] = o->tiled[1];
    nsize = o->tiled[1] > 0 ? 2 : 1;
  }
  double cpu[2] = {0, 0}, contacts[2] = {0, 0};
  long n[2];
  int ok = 1;
  for (int k = 0; k < nsize && ok; k++) {
    char err[512] = "";
    double in = (spheres ? S4_BOX_IN : S2_BOX_IN) * side[k] / 5.0;
    if (o->tiled_fit) /* the lattice's half width, and a body's half size of play */
      in = spheres ? 0.5 * side[k] * S4_SPACING + S4_R : 0.5 * side[k] * S2_SPACING + S2_HALF;
    cmModel* m = peer_scene(spheres, side[k], side[k], nz, PB_KA, 0, in, err, sizeof err);
    cmData* d = m ? cm_data_new(m) : NULL;
    if (!d) {
      fprintf(stderr, "comply_bench: %s: setup failed: %s\n", bench, err[0] ? err : "no memory");
      cm_model_free(m);
      return 0;
    }
    long steps = o->steps > 0              ? o->steps
                 : o->steps < 0 || spheres ? m->opt.steps
                                           : TILED_PILE_STEPS;
    if (o->quick && o->steps == 0) steps = spheres ? SPHERES_QUICK_STEPS : PILE_QUICK_STEPS;
    n[k] = (long)side[k] * side[k] * nz;
    PeerRun r;
    set_threads(1);
    ok = peer_steps(bench, m, d, steps, &r);
    set_threads(o->threads);
    if (r.done > 0) {
      double per = 1.0 / (double)r.done;
      cpu[k] = r.cpu * per;
      contacts[k] = (double)r.contacts * per;
      printf("%s: %ld %s in a box %.2f m wide, %ld steps: %.4g CPU s per step (wall: "
             "broadphase %.3g, narrowphase %.3g, solve %.3g ms), Newton iterations mean %.2f "
             "max %d, contacts mean %.0f (%.2f per body), candidate pairs %.2f per body, %d "
             "steps with a solver warning\n",
             bench, n[k], spheres ? "spheres" : "boxes", 2 * in, r.done, cpu[k],
             1e3 * d->timer[CM_TIMER_BROADPHASE] * per, 1e3 * d->timer[CM_TIMER_NARROWPHASE] * per,
             1e3 * d->timer[CM_TIMER_SOLVE] * per, (double)r.iters * per, r.iter_max, contacts[k],
             contacts[k] / (double)n[k], (double)r.cands * per / (double)n[k], r.warn_steps);
      result(bench, 1, n[k], (double)r.cands * per / (double)n[k], "candidates/body");
      result(bench, 1, n[k], d->timer[CM_TIMER_NARROWPHASE] * per, "narrowphase_s/step");
      result(bench, 1, n[k], d->timer[CM_TIMER_SOLVE] * per, "solve_s/step");
      result(bench, 1, n[k], cpu[k], "cpu_s/step");
      result(bench, 1, n[k], (double)r.iters * per, "newton_it/step");
      result(bench, 1, n[k], contacts[k] / (double)n[k], "contacts/body");
    }
    cm_data_free(d);
    cm_model_free(m);
  }
  if (ok && nsize == 2 && cpu[0] > 0 && cpu[1] > 0) {
    double e = log(cpu[1] / cpu[0]) / log((double)n[1] / (double)n[0]);
    char ce[32] = "n/a: no contact"; /* (it printed N^-nan) */
    if (contacts[0] > 0 && contacts[1] > 0)
      snprintf(ce, sizeof ce, "N^%.2f",
               log(contacts[1] / contacts[0]) / log((double)n[1] / (double)n[0]));
    printf("%s: cost per step grows as N^%.2f from %ld to %ld bodies (contacts as %s)\n", bench, e,
           n[0], n[1], ce);
    result(bench, 1, n[1], e, "growth_exponent");
  }
  return ok;
}

/* --check-peer-scenes DIR: compare the bench's peer scenes with the YAML the peer kit writes
 * (`comply_scenes.py DIR --s2 5 5 5 10 10 10`: s2_125.yaml, s2_1000.yaml, s4_1000.yaml),
 * both compiled: every body's initial pose and velocities, mass, inertia, centre of mass,
 * motion and geometry, the mesh vertices, the rules and the physical options, bit for bit. */

/* first difference of two double arrays, bit for bit (memcmp: -0 differs from 0); 1 if same */
static int same_doubles(const char* file, const char* what, const double* a, const double* b,
                        long n) {
  for (long i = 0; i < n; i++) {
    if (memcmp(a + i, b + i, sizeof(double))) {
      printf("  %s: %s[%ld] differs: bench %.17g, peer YAML %.17g\n", file, what, i, a[i], b[i]);
      return 0;
    }
  }
  return 1;
}

static int same_ints(const char* file, const char* what, const int* a, const int* b, long n) {
  for (long i = 0; i < n; i++) {
    if (a[i] != b[i]) {
      printf("  %s: %s[%ld] differs: bench %d, peer YAML %d\n", file, what, i, a[i], b[i]);
      return 0;
    }
  }
  return 1;
}

static int same_models(const char* file, const cmModel* a, const cmModel* b) {
  if (a->nbody != b->nbody || a->ngeom != b->ngeom || a->nvert != b->nvert ||
      a->nface != b->nface || a->nrule != b->nrule) {
    printf("  %s: sizes differ: bench %d bodies %d geometries %d vertices %d faces %d rules, "
           "peer YAML %d %d %d %d %d\n",
           file, a->nbody, a->ngeom, a->nvert, a->nface, a->nrule, b->nbody, b->ngeom, b->nvert,
           b->nface, b->nrule);
    return 0;
  }
  long nb = a->nbody;
  for (int i = 0; i < a->nbody; i++) {
    if (strcmp(a->body_name[i], b->body_name[i]) ||
        strcmp(a->alias_name[a->body_alias[i]], b->alias_name[b->body_alias[i]])) {
      printf("  %s: body %d: bench '%s' (alias '%s'), peer YAML '%s' (alias '%s')\n", file, i,
             a->body_name[i], a->alias_name[a->body_alias[i]], b->body_name[i],
             b->alias_name[b->body_alias[i]]);
      return 0;
    }
  }
  const cmRuleDef *ra = a->rule + a->nrule - 1, *rb = b->rule + b->nrule - 1;
  double rule_a[] = {ra->law,      ra->ka,           ra->step_damping, ra->stiffness_damping,
                     ra->play,     ra->contact_time, ra->stiffness,    ra->damping,
                     ra->friction, ra->method,       ra->direction,    ra->integration};
  double rule_b[] = {rb->law,      rb->ka,           rb->step_damping, rb->stiffness_damping,
                     rb->play,     rb->contact_time, rb->stiffness,    rb->damping,
                     rb->friction, rb->method,       rb->direction,    rb->integration};
  double opt_a[] = {a->opt.timestep,   (double)a->opt.steps, a->opt.gravity[0], a->opt.gravity[1],
                    a->opt.gravity[2], a->opt.integrator,    a->opt.substeps,   a->opt.max_speed};
  double opt_b[] = {b->opt.timestep,   (double)b->opt.steps, b->opt.gravity[0], b->opt.gravity[1],
                    b->opt.gravity[2], b->opt.integrator,    b->opt.substeps,   b->opt.max_speed};
  return same_doubles(file, "body_pos0", a->body_pos0, b->body_pos0, 3 * nb) &&
         same_doubles(file, "body_quat0", a->body_quat0, b->body_quat0, 4 * nb) &&
         same_doubles(file, "body_vel0", a->body_vel0, b->body_vel0, 3 * nb) &&
         same_doubles(file, "body_angvel0", a->body_angvel0, b->body_angvel0, 3 * nb) &&
         same_doubles(file, "body_mass", a->body_mass, b->body_mass, nb) &&
         same_doubles(file, "body_inertia", a->body_inertia, b->body_inertia, 9 * nb) &&
         same_doubles(file, "body_com", a->body_com, b->body_com, 3 * nb) &&
         same_ints(file, "body_motion", a->body_motion, b->body_motion, nb) &&
         same_ints(file, "body_geom", a->body_geom, b->body_geom, nb) &&
         same_ints(file, "geom_type", a->geom_type, b->geom_type, a->ngeom) &&
         same_ints(file, "geom_nvert", a->geom_nvert, b->geom_nvert, a->ngeom) &&
         same_doubles(file, "geom_plane", a->geom_plane, b->geom_plane, 4L * a->ngeom) &&
         same_doubles(file, "mesh_vert", a->mesh_vert, b->mesh_vert, 3L * a->nvert) &&
         same_ints(file, "mesh_face", a->mesh_face, b->mesh_face, 3L * a->nface) &&
         same_doubles(file, "rule (law, ka, ..., friction, method, ...)", rule_a, rule_b,
                      (long)(sizeof rule_a / sizeof rule_a[0])) &&
         same_doubles(file, "options (timestep, steps, gravity, integrator, ...)", opt_a, opt_b,
                      (long)(sizeof opt_a / sizeof opt_a[0]));
}

static int check_peer_scenes(const char* dir) {
  static const struct {
    const char* file;
    int spheres, lattice;
  } peer[] = {{"s2_125.yaml", 0, 5}, {"s2_1000.yaml", 0, 10}, {"s4_1000.yaml", 1, 10}};
  int same = 0, found = 0;
  for (size_t k = 0; k < sizeof peer / sizeof peer[0]; k++) {
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, "%s/%s", dir, peer[k].file);
    struct stat st;
    if (stat(path, &st) != 0) {
      printf("%s: not found (comply_scenes.py %s --s2 5 5 5 10 10 10 writes it)\n", path, dir);
      continue;
    }
    found++;
    cmScene* s = NULL;
    cmModel *yaml = NULL, *bench = NULL;
    int n = peer[k].lattice;
    if (cm_scene_load(path, &s, err, sizeof err) != CM_OK ||
        cm_model_compile(s, &yaml, err, sizeof err) != CM_OK ||
        !(bench = peer_scene(peer[k].spheres, n, n, n, PB_KA, 0, 0, err, sizeof err))) {
      printf("%s: %s\n", path, err);
    } else if (same_models(peer[k].file, bench, yaml)) {
      printf("%s: identical to the bench's scene: %d bodies, initial poses and velocities, "
             "masses, inertias, geometry (%d vertices), rule and options, bit for bit\n",
             path, bench->nbody, bench->nvert);
      same++;
    }
    cm_model_free(yaml);
    cm_model_free(bench);
    cm_scene_free(s);
  }
  return found > 0 && same == found;
}

/* ---------------------------------------------------------------------------------------------
 * fem_10k, fem_50k, fem_100k: a deformable body resting on a plane (docs/deformable.md)
 *
 * A 0.2 x 0.2 x 0.05 m Neo-Hookean slab (E = 1e5 Pa, nu = 0.3, density 1000: soft tissue) cut
 * into cells of 6 tets (16 x 16 x 7, 28 x 28 x 11, 40 x 40 x 11: 10,752, 51,744 and 105,600
 * tets), its bottom face on a fixed plane (area_compliant, ka 1e10), settling under gravity from
 * rest at h = 1 ms: every step solves all its nodes with the contacts (block-Jacobi conjugate
 * gradients). Per step (--steps, default 20 from t = 0; --quick: half the cells, 5 steps): CPU
 * and wall seconds, Newton iterations (mean, max), contacts, and the CPU time per tet. */
static int bench_fem(const Options* o, const char* bench, int cx, int cy, int cz) {
  char err[512] = "";
  if (o->quick) {
    cx /= 2;
    cy /= 2;
    cz = cz / 2 > 0 ? cz / 2 : 1;
  }
  cmScene* s = cm_scene_new(bench);
  s->opt.timestep = 1e-3;
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  cmBodyDef b = cm_body_def_default();
  b.name = "slab";
  b.motion = CM_MOTION_DEFORMABLE;
  b.geom.type = CM_GEOM_BOX;
  b.geom.size[0] = b.geom.size[1] = 0.2;
  b.geom.size[2] = 0.05;
  b.position[2] = 0.025;
  b.deformable.young = 1e5;
  b.deformable.poisson = 0.3;
  b.deformable.cells[0] = cx;
  b.deformable.cells[1] = cy;
  b.deformable.cells[2] = cz;
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = 1e10;
  cmModel* m = NULL;
  double t0 = now();
  if (cm_scene_add_body(s, &g, err, sizeof err) < 0 ||
      cm_scene_add_body(s, &b, err, sizeof err) < 0 ||
      cm_scene_add_rule(s, &r, err, sizeof err) < 0 ||
      cm_model_compile(s, &m, err, sizeof err) != CM_OK)
    m = NULL;
  double t_compile = now() - t0;
  cm_scene_free(s);
  cmData* d = m ? cm_data_new(m) : NULL;
  if (!d) {
    fprintf(stderr, "comply_bench: %s: setup failed: %s\n", bench, err[0] ? err : "no memory");
    cm_model_free(m);
    return 0;
  }
  long steps = o->steps > 0 ? o->steps : o->quick ? 5 : 20;
  long done = 0, iters = 0;
  int iter_max = 0, ok = 1;
  double cpu = 0, wall = 0;
  set_threads(1);
  for (; done < steps; done++) {
    double w0 = now(), c0 = cpu_now();
    cmStatus st = cm_step(m, d);
    cpu += cpu_now() - c0;
    wall += now() - w0;
    if (st != CM_OK) {
      fprintf(stderr, "comply_bench: %s: step %ld failed: %s\n", bench, done, d->message);
      ok = 0;
      break;
    }
    iters += d->solver_iter;
    if (d->solver_iter > iter_max) iter_max = d->solver_iter;
  }
  set_threads(o->threads);
  if (done > 0) {
    double per = 1.0 / (double)done;
    printf("%s: %d tets, %d nodes, %ld steps (compiled in %.2f s); per step: %.4g CPU s (%.4g s "
           "wall), %.3g CPU us per tet, Newton iterations mean %.1f max %d, %d contacts, %d "
           "solver warnings\n",
           bench, m->ntet, m->nnode, done, t_compile, cpu * per, wall * per,
           1e6 * cpu * per / m->ntet, (double)iters * per, iter_max, d->ncontact,
           d->warning[CM_WARN_SOLVER]);
    result(bench, 1, m->ntet, cpu * per, "cpu_s/step");
    result(bench, 1, m->ntet, wall * per, "s/step");
    result(bench, 1, m->ntet, 1e6 * cpu * per / m->ntet, "cpu_us/tet/step");
    result(bench, 1, m->ntet, (double)iters * per, "newton_it/step");
    result(bench, 1, m->ntet, iter_max, "newton_it_max");
    result(bench, 1, m->ntet, d->warning[CM_WARN_SOLVER], "solver_warn_steps");
  }
  cm_data_free(d);
  cm_model_free(m);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * the CLI */

static const char* const scenes[] = {
    "vertex_query",  "vertex_collide", "broadphase_1e3",     "broadphase_1e4", "broadphase_1e5",
    "method_vertex", "method_two_way", "method_vertex_edge", "method_contour", "pile",
    "pile_125",      "pile_1000",      "spheres_1000",       "fem_10k",        "fem_50k",
    "fem_100k",      "method_auto",    "pile_125_stiff",     "pile_125_soft",  "tiled_pile",
    "tiled_spheres"};
enum { NSCENE = sizeof scenes / sizeof scenes[0] };

static int run_scene(const Options* o, int k) {
  switch (k) {
  case 0:
    return bench_vertex_query(o);
  case 1:
    return bench_vertex_collide(o);
  case 5:
  case 6:
  case 7:
  case 8:
    return bench_method(o, scenes[k], (cmMethod)(CM_METHOD_VERTEX + (k - 5)));
  case 9:
    return bench_pile(o);
  case 10:
    return bench_peer(o, scenes[k], 0, 5, PB_KA, 0, PILE_125_STEPS);
  case 11:
    return bench_peer(o, scenes[k], 0, 10, PB_KA, 0, PILE_1000_STEPS);
  case 12:
    return bench_peer(o, scenes[k], 1, 10, PB_KA, 0, SPHERES_1000_STEPS);
  case 13:
    return bench_fem(o, scenes[k], 16, 16, 7);
  case 14:
    return bench_fem(o, scenes[k], 28, 28, 11);
  case 15:
    return bench_fem(o, scenes[k], 40, 40, 11);
  case 16:
    return bench_method(o, scenes[k], CM_METHOD_AUTO);
  case 17:
    return bench_peer(o, scenes[k], 0, 5, PB_KA_STIFF, 0, PILE_STIFF_STEPS);
  case 18:
    return bench_peer(o, scenes[k], 0, 5, PB_KA_STIFF, PB_MIN_PERIOD, PILE_125_STEPS);
  case 19:
  case 20:
    return bench_tiled(o, scenes[k], k == 20);
  default: {
    /* broadphase_1e3.. : --quick divides N by 100 */
    int n = k == 2 ? 1000 : k == 3 ? 10000 : 100000;
    if (o->quick) n /= 100;
    return bench_broadphase(o, scenes[k], n);
  }
  }
}

static void usage(FILE* f) {
  fprintf(
      f,
      "usage: comply_bench [--quick] [--out FILE.csv] [--threads N] [--steps N|full] "
      "[SCENE...]\n"
      "       comply_bench --check-peer-scenes DIR\n"
      "  --quick      small scenes and short measurements (a smoke run)\n"
      "  --out FILE   append the CSV rows to FILE (default bench/results/<hostname>.csv)\n"
      "  --threads N  thread count of the multi-threaded measurements (default 2)\n"
      "  --steps N    steps of pile_125, pile_1000, spheres_1000, pile_125_stiff (and "
      "pile_125_soft: as pile_125) from t = 0 "
      "(default %d, %d, %d, %d;\n"
      "               tiled_pile %d, tiled_spheres full; full: the peer kit's duration, "
      "3000 steps for\n"
      "               the piles, 1000 for the spheres); also the steps of fem_10k, fem_50k,\n"
      "               fem_100k (default 20, 5 with --quick)\n"
      "  --tiled-sides A[,B]  lattice sides of tiled_pile and tiled_spheres (default 5,14: 125\n"
      "               and 980 bodies in 5 layers); one side alone runs that size only (profiles)\n"
      "  --tiled-fit  the tiled scenes in open boxes as wide as their lattices (packed beds)\n"
      "  --check-peer-scenes DIR  compare those scenes with the peer kit's YAML in DIR\n"
      "               (comply_scenes.py DIR --s2 5 5 5 10 10 10) bit for bit, and exit\n"
      "scenes (default: all):",
      PILE_125_STEPS, PILE_1000_STEPS, SPHERES_1000_STEPS, PILE_STIFF_STEPS, TILED_PILE_STEPS);
  for (int k = 0; k < NSCENE; k++)
    fprintf(f, " %s", scenes[k]);
  fprintf(f, "\n");
}

int main(int argc, char** argv) {
  Options o = {0, 2, 0.5, NULL, 0, {0, 0}, 0};
  const char* check_dir = NULL;
  int selected[NSCENE] = {0}, any = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!strcmp(a, "--quick")) {
      o.quick = 1;
    } else if (!strcmp(a, "--out") && i + 1 < argc) {
      o.out = argv[++i];
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      char* end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1024) {
        fprintf(stderr, "comply_bench: --threads wants an integer 1..1024, got '%s'\n", argv[i]);
        return 2;
      }
      o.threads = (int)n;
    } else if (!strcmp(a, "--steps") && i + 1 < argc) {
      char* end;
      long n = strtol(argv[++i], &end, 10);
      if (!strcmp(argv[i], "full")) {
        o.steps = -1;
      } else if (*end || n < 1) {
        fprintf(stderr, "comply_bench: --steps wants a positive integer or 'full', got '%s'\n",
                argv[i]);
        return 2;
      } else {
        o.steps = n;
      }
    } else if (!strcmp(a, "--tiled-sides") && i + 1 < argc) {
      int a0 = 0, a1 = 0, used = 0;
      const char* v = argv[++i];
      int got = sscanf(v, "%d%n,%d%n", &a0, &used, &a1, &used);
      if (got < 1 || v[used] || a0 < 1 || a0 > 200 || (got == 2 && (a1 < 1 || a1 > 200))) {
        fprintf(stderr,
                "comply_bench: --tiled-sides wants A or A,B (lattice sides 1..200), got '%s'\n", v);
        return 2;
      }
      o.tiled[0] = a0, o.tiled[1] = got == 2 ? a1 : 0;
    } else if (!strcmp(a, "--tiled-fit")) {
      o.tiled_fit = 1;
    } else if (!strcmp(a, "--check-peer-scenes") && i + 1 < argc) {
      check_dir = argv[++i];
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else {
      int k = 0;
      while (k < NSCENE && strcmp(a, scenes[k]))
        k++;
      if (k == NSCENE) {
        fprintf(stderr, "comply_bench: unknown scene or option '%s'\n", a);
        usage(stderr);
        return 2;
      }
      selected[k] = any = 1;
    }
  }
  if (check_dir) return check_peer_scenes(check_dir) ? 0 : 1;
  if (o.quick) o.budget = 0.005;
#ifndef _OPENMP
  if (o.threads > 1) printf("(built without OpenMP: multi-threaded measurements skipped)\n");
#endif
  printf("comply %s benchmarks%s; %d thread(s) for the multi-threaded runs\n", cm_version(),
         o.quick ? " (quick)" : "", o.threads);
  printf("  %-18s %7s %9s %14s  %s\n", "benchmark", "threads", "n", "value", "unit");
  int ok = 1;
  for (int k = 0; k < NSCENE; k++)
    if (!any || selected[k]) ok &= run_scene(&o, k);
  if (!write_csv(&o)) return 1;
  return ok ? 0 : 1;
}
