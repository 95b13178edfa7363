/* comply_bench: contact-detection benchmarks over named scenes (bench/README.md).
 *
 *   comply_bench [--quick] [--out FILE.csv] [--threads N] [SCENE...]
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
 *   pile             seconds per cm_step of one large island (pyramids of 55 and 91 boxes,
 *                    friction) with the dense and the block-sparse Newton factorisation, side by
 *                    side on the same steps, and their ratio
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

#include "comply/comply.h"
#include "core/arena.h"
#include "geom/bvh.h"
#include "model/data_internal.h"
#include "solve/block_cholesky.h"
#include "collide/collide.h"
#include "dynamics/dynamics.h"

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
 * the CLI */

static const char* const scenes[] = {
    "vertex_query",  "vertex_collide", "broadphase_1e3",     "broadphase_1e4", "broadphase_1e5",
    "method_vertex", "method_two_way", "method_vertex_edge", "method_contour", "pile"};
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
  default: {
    /* broadphase_1e3.. : --quick divides N by 100 */
    int n = k == 2 ? 1000 : k == 3 ? 10000 : 100000;
    if (o->quick) n /= 100;
    return bench_broadphase(o, scenes[k], n);
  }
  }
}

static void usage(FILE* f) {
  fprintf(f, "usage: comply_bench [--quick] [--out FILE.csv] [--threads N] [SCENE...]\n"
             "  --quick      small scenes and short measurements (a smoke run)\n"
             "  --out FILE   append the CSV rows to FILE (default bench/results/<hostname>.csv)\n"
             "  --threads N  thread count of the multi-threaded measurements (default 2)\n"
             "scenes (default: all):");
  for (int k = 0; k < NSCENE; k++)
    fprintf(f, " %s", scenes[k]);
  fprintf(f, "\n");
}

int main(int argc, char** argv) {
  Options o = {0, 2, 0.5, NULL};
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
