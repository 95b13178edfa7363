/* Stage 3, narrowphase: the contact points of every candidate pair (SPEC 4 and 5).
 *
 * Work is organised as *jobs*: one job is "the vertices of body A tested against body B" (a
 * vertex query). A `vertex` rule gives one job per pair (A = the finer-sampled mesh, or the
 * rule's first alias with `direction: first`), `two_way` gives two jobs (each contact flagged
 * CM_CONTACT_TWO_WAY, area halved), a half-space gives one job with the mesh as A.
 *
 * Every (job, vertex) is an independent query (collide_vertex.c), so the queries of a batch of
 * jobs run in parallel (OpenMP, in chunks of consecutive hits) into a per-vertex hit array; the
 * hits are then compacted in (pair, job, vertex) order by one thread. The contact list is
 * therefore identical whatever the number of threads. Batches bound the scratch memory to
 * CM_BATCH hits.
 *
 * Slices. The candidates are taken a slice at a time: the jobs of at most
 * cm_narrowphase_slice (512) jobs' worth of pairs are made, their edge searches and vertex queries
 * run, their contacts appended, and the next slice reuses the same job buffer and the threads'
 * edge-search scratch. A job is 472 bytes (its poses, culling boxes and both rotation matrices):
 * all the jobs of the step at once were 3.7 MB for the tiled pile of 980 boxes and 78 MB for a bed
 * of 8000 spheres, written by pair_jobs and read back by the queries and the compaction after the
 * whole list was made, out of the 1 MB L2 of a core; a slice's 240 kB stay in it. The same contacts
 * in the same order (the slices keep the candidate order, and a pair's jobs are never split), bit
 * for bit. One thread, process CPU, alternating with the commit before (medians of 3): the tiled
 * pile of 980 boxes 0.86x the narrowphase's time and 0.92x the step's, the tiled bed of 980 spheres
 * 0.82x and 0.88x, the kit's S4 bed of 1000 spheres (first 0.4 s) 0.87x the run, S2 125 0.95x; two
 * threads, S2 1000 (first 1000 steps) 0.92x the wall time (bench/README.md, "Slices"). Slices
 * of 128 jobs saved more on one thread but closed the parallel regions on two (their gates:
 * too little work per slice), and 2048 kept less of the gain. A slice also ends once its jobs
 * hold cm_narrowphase_slice_hits (16384) vertex queries: 512 jobs of the S4 bed's spheres (162
 * vertices) had 83,000 hits of 88 bytes, 7.3 MB, so the queries that pass the cull wrote theirs
 * to lines no longer cached, and the compaction read them back from memory. Bounded, the bed's
 * vertex query (cm_collide_vertex_posed) fell from 2.3-3.4 % to 1.1-1.2 % of its samples and the
 * narrowphase's own from 3.4-4.1 % to 3.1 % (perf, alternating runs), the narrowphase's share of
 * the step from 24-26 % to 22 % on two threads; boxes (26 vertices) fill 512 jobs before the
 * bound.
 *
 * Most vertices of a mesh job lie outside B's bounding box (two spheres in contact: all but a
 * cap). A job against a mesh keeps A's frame carried into B's (R, t, once per job) and B's box
 * widened by a margin far above rounding, and rejects such vertices with one matrix product
 * before the query proper, which carries the vertex through the world as before: the contacts
 * are bit-identical to querying every vertex, and the rejection costs a few nanoseconds. Before
 * that, B's bounding ball (geom_ball, the query's own second test) carried into A's frame once
 * per job rejects the vertices outside it with a squared distance, without the product: the
 * kit's S4 (icospheres) 0.89x the instructions of cm_collide, S2 (boxes) 0.98x, the same
 * contacts (unit/test_contact_mesh test_cull_exact against querying every vertex). Each job
 * also keeps what its queries share (cmVertexPose: both bodies' rotation matrices, a half-space's
 * world plane), which the query made from the quaternions for every vertex, as did the
 * compaction for every contact's area vector: the same bits, and 1.7 % fewer instructions in
 * the whole run of the S2 pile of 125 boxes at rest (2990 -> 2939 M).
 *
 * `auto` (mesh pairs) = the two vertex jobs with the areas shared by depth (share_areas: each
 * side's contacts get the side's share of the summed depths instead of half their area) and
 * the edge-edge contacts, when neither body is deformable and one has ridges; two meshes
 * without ridges (no corner that could reach between the other's vertices) get the `vertex`
 * job of the finer one, a deformable body the `vertex` job; `direction: first` makes it the
 * `vertex` job of the first body plus the edge-edge contacts.
 *
 * `vertex_edge` = the two `two_way` jobs plus the pair's edge-edge contacts (collide_edge.c),
 * computed in parallel before the batches (edge_hits) and appended after the pair's last
 * vertex job, sorted by edge pair: flag CM_CONTACT_EDGE, vert = -1, body A = the pair's lower body
 * index, area of the faces around A's edge (SPEC 5), not halved.
 *
 * `contour` (mesh pairs) runs no vertex query: the pair gets one empty job (nvert = 0) that keeps
 * its place in the pair order, and its contour-region contacts (collide_contour.c) are appended
 * serially after it, in the same way: flag CM_CONTACT_CONTOUR, vert = -1, body A = the lower body
 * index. A contour rule between a mesh and a plane falls back to the vertex query.
 *
 * Contact area (SPEC 5): A = |n . a_v| with a_v = sum_f A_f n_f / 3 the vertex's precomputed area
 * vector (in world axes), halved for two-way contacts. A contact whose area is 0 (degenerate
 * geometry) is kept for the record but counted as a warning (the laws give it no force). */
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#include <string.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/bvh.h"
#include "geom/closest.h"
#include "model/data_internal.h"

#define CM_BATCH (1 << 17)
/* the jobs of a slice of the candidate pairs (module comment) */
int cm_narrowphase_slice = 512;
long cm_narrowphase_slice_hits = 16384;

typedef struct Job {
  int a, b;  /* penetrating body (vertices) and penetrated body */
  int pair;  /* index of the candidate pair */
  int flags; /* CM_CONTACT_* */
  int share; /* auto's two-way: the areas are shared by depth (share_areas), not halved */
  int nvert; /* vertices of A */
  long hit0; /* first hit of this job in the batch */
  /* B a mesh (cull 1): A's vertices (vert: cm_geom_vert) into B's frame, y = R x + t, and B's
   * box widened by a margin (lo, hi). B a plane and A rigid (cull 2): the plane in A's frame,
   * n . x <= c inside, c widened by the margin (pl). cull = 0: no culling */
  int cull;
  const double* vert;
  /* A rigid (cull 1 and 2): the boxes of its vertex groups (mesh_vgroup_box), each tested
   * against the ball or plane before its CM_VGROUP vertices; NULL: every vertex is tested */
  const double* vgb;
  double R[9], t[3], lo[3], hi[3];
  double pl[4];
  /* B rigid (cull 1): its bounding ball (geom_ball) in A's frame, centre and squared radius
   * widened by the margin: a vertex outside it is outside B, rejected without the transform */
  double ball[4];
  /* what the job's queries share: A's vertices, both rotation matrices, B's world plane
   * (cm_collide_vertex_posed) */
  cmVertexPose vp;
} Job;

/* meshes of fewer vertices are culled vertex by vertex. The groups of a box of divisions 2 (26
 * vertices, 4 groups) cost more instructions than they saved (1.008x on the resting S2 pile of
 * 125 boxes); those of the icospheres of S4 (162 vertices) saved instructions (0.977x on the
 * resting bed of 1000 spheres) but not time (1.02-1.04x its CPU time in the peer kit): about
 * half their groups pass, unpredictably, and the mispredicted branches (callgrind's branch
 * simulation: 0.56 M -> 2.9 M in the vertex loop over 30 steps) cost more than the tests saved.
 * Two icospheres of 10,242 vertices overlapping by 5 % of their radius (comply_bench
 * method_vertex), where most groups lie far from the other body: 0.875x the time per call */
#define VGROUP_MIN_VERT 512

/* the vertex groups' boxes of the job's A, when its vertices are those of its model (a rigid
 * body: the deformed vertices of a deformable one are not) and it has VGROUP_MIN_VERT of them,
 * else NULL */
static const double* group_boxes(const cmModel* m, const Job* j) {
  int ga = m->body_geom[j->a];
  if (m->geom_nvert[ga] < VGROUP_MIN_VERT || m->body_motion[j->a] == CM_MOTION_DEFORMABLE ||
      j->vp.vert != m->mesh_vert + 3 * (size_t)m->geom_vertadr[ga])
    return NULL;
  return m->mesh_vgroup_box + 6 * (size_t)m->geom_vgroupadr[ga];
}

/* body a's frame carried into body b's, y = R x + t: R = R_b^T R_a, t = R_b^T (x_a - x_b), from
 * the bodies' rotation matrices Ra, Rb. Swapping a and b gives R^T bit for bit (each entry the
 * same products, commuted, summed in the same order): the two jobs of a two-way pair and the
 * pair's rigid_apart test share one product (three until 2026-12-07; job_init) */
static void frame_into(const cmData* d, int a, int b, const double Ra[9], const double Rb[9],
                       double R[9], double t[3]) {
  double dx[3];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      R[3 * i + k] = Rb[i] * Ra[k] + Rb[3 + i] * Ra[3 + k] + Rb[6 + i] * Ra[6 + k];
  cm_v3_sub(dx, d->body_xpos + 3 * a, d->body_xpos + 3 * b);
  cm_m3_mulvt(t, Rb, dx);
}

/* the culling transform and box of a job whose B is a mesh: R, t = frame_into(A, B) */
static void job_cull(const cmModel* m, const cmData* d, Job* j, const double R[9],
                     const double t[3]) {
  int ga = m->body_geom[j->a], gb = m->body_geom[j->b];
  memcpy(j->R, R, sizeof j->R);
  memcpy(j->t, t, sizeof j->t);
  /* the query carries the vertex through the world: its local point differs from R x + t by
   * rounding of the world coordinates and the vertex; 1e-9 of their size is far above it */
  const double* box = m->geom_aabb + 6 * gb;
  const double* ba = m->geom_aabb + 6 * ga;
  double dbox[6];
  if (m->body_motion[j->b] == CM_MOTION_DEFORMABLE) {
    /* B deformable: its deformed box, in its frame (the world's axes at its com) */
    for (int k = 0; k < 3; k++) {
      dbox[k] = d->body_aabb[6 * j->b + k] - d->body_xpos[3 * j->b + k];
      dbox[3 + k] = d->body_aabb[6 * j->b + 3 + k] - d->body_xpos[3 * j->b + k];
    }
    box = dbox;
  }
  double size = 1 + cm_v3_norm(d->body_xpos + 3 * j->a) + cm_v3_norm(d->body_xpos + 3 * j->b);
  for (int k = 0; k < 3; k++)
    size += fabs(box[k]) + fabs(box[3 + k]) + fabs(ba[k]) + fabs(ba[3 + k]);
  /* and a rigid B's surface band (CM_SURFACE_BAND: vertices that close count as on its surface) */
  double eps =
      1e-9 * size + (m->body_motion[j->b] == CM_MOTION_DEFORMABLE ? 0 : cm_surface_band(m, gb));
  for (int k = 0; k < 3; k++) {
    j->lo[k] = box[k] - eps;
    j->hi[k] = box[3 + k] + eps;
  }
  j->vert = j->vp.vert;
  j->vgb = group_boxes(m, j);
  j->cull = 1;
  /* B's ball in A's frame: x = R^T (c - t); no ball for a deformable B (infinite radius) */
  const double* gball = m->geom_ball + 4 * gb;
  double r = m->body_motion[j->b] == CM_MOTION_DEFORMABLE ? INFINITY : gball[3] + eps, ct[3];
  cm_v3_sub(ct, gball, j->t);
  cm_m3_mulvt(j->ball, j->R, ct);
  j->ball[3] = r * r;
}

/* the plane B in the frame of the rigid mesh A, for the cull: a vertex above it by more than the
 * margin is outside (the query itself carries the vertex through the world: its distance there
 * differs by rounding, which 1e-9 of the pose's size covers) */
static void plane_cull(const cmModel* m, const cmData* d, Job* j) {
  if (m->body_motion[j->a] == CM_MOTION_DEFORMABLE) return;
  const double* n = j->vp.n; /* the plane in world, as the query has it */
  double c = j->vp.c;
  cm_m3_mulvt(j->pl, j->vp.RA, n);
  const double* ba = m->geom_aabb + 6 * m->body_geom[j->a];
  double size = 1 + fabs(c) + cm_v3_norm(d->body_xpos + 3 * j->a);
  for (int k = 0; k < 6; k++)
    size += fabs(ba[k]);
  j->pl[3] = c - cm_v3_dot(n, d->body_xpos + 3 * j->a) + 1e-9 * size;
  j->vert = j->vp.vert;
  j->vgb = group_boxes(m, j);
  j->cull = 2;
}

/* the finer-sampled mesh (vertices per unit area) penetrates; ties: the lower body index. A
 * deformable body always penetrates (its vertices are nodes; the compiler allows it no other
 * role). */
static int pick_penetrating(const cmModel* m, int a, int b, const cmRuleDef* rule) {
  int ga = m->body_geom[a], gb = m->body_geom[b];
  /* a deformable body against a rigid one penetrates it (its vertices are nodes); two deformable
   * bodies as any two meshes */
  int defa = m->body_motion[a] == CM_MOTION_DEFORMABLE;
  int defb = m->body_motion[b] == CM_MOTION_DEFORMABLE;
  if (defa != defb) return defa ? a : b;
  if (rule->direction == CM_DIRECTION_FIRST) {
    /* the side whose alias alone matches the rule's first glob (compiled pair table) */
    int ca = m->alias_class[m->body_alias[a]], cb = m->alias_class[m->body_alias[b]];
    int first = m->class_first[ca * m->nclass + cb];
    if (first == 0) return a;
    if (first == 1) return b;
  }
  double da = m->geom_nvert[ga] / m->geom_area[ga], db = m->geom_nvert[gb] / m->geom_area[gb];
  return db > da ? b : a;
}

int cm_auto_two_way(const cmModel* m, int a, int b) {
  if (m->body_motion[a] == CM_MOTION_DEFORMABLE || m->body_motion[b] == CM_MOTION_DEFORMABLE)
    return 0;
  int ga = m->body_geom[a], gb = m->body_geom[b];
  if (!m->geom_nridge[ga] && !m->geom_nridge[gb]) return 0; /* smooth: no corner to miss */
  /* a smooth mesh CM_AUTO_FINE times finer than the other samples the patch alone: the other's
   * corners that reach in are caught by the edge-edge contacts (a ball on a box, on a terrain) */
  double da = m->geom_nvert[ga] / m->geom_area[ga], db = m->geom_nvert[gb] / m->geom_area[gb];
  int fine = da >= db ? ga : gb;
  return !(m->geom_nridge[fine] == 0 && fmax(da, db) >= CM_AUTO_FINE * fmin(da, db));
}

/* room for `need` contacts; 0 (and the limit flag) beyond max_contacts or without memory */
static int grow_contacts_slow(const cmModel* m, cmData* d, int need) {
  if (need > m->opt.max_contacts) {
    cm_priv(d)->limit_hit = 1;
    return 0;
  }
  if (need > d->maxcontact) {
    int n = d->maxcontact ? d->maxcontact : 1024;
    while (n < need)
      n *= 2;
    cmContact* c = cm_realloc(d->contact, (size_t)n * sizeof *c);
    if (!c) return 0;
    d->contact = c;
    d->maxcontact = n;
  }
  /* the contacts' keys, as many (cm_data_copy may have grown the contacts alone) */
  cmDataPriv* p = cm_priv(d);
  if (p->maxckey < d->maxcontact) {
    int* k = cm_realloc(p->ckey, (size_t)d->maxcontact * 4 * sizeof *k);
    if (!k) return 0;
    p->ckey = k;
    p->maxckey = d->maxcontact;
  }
  return 1;
}

/* grow_contacts_slow where it has something to do: the room is there nearly always (the
 * compaction's check inline, once per contact) */
static inline int grow_contacts(const cmModel* m, cmData* d, int need) {
  if (need <= d->maxcontact && need <= m->opt.max_contacts && cm_priv(d)->maxckey >= d->maxcontact)
    return 1;
  return grow_contacts_slow(m, d, need);
}

/* the identity of contact i (ckey, model/data_internal.h) */
static void set_key(cmData* d, int i, int k0, int k1, int k2, int k3) {
  int* k = cm_priv(d)->ckey + 4 * (size_t)i;
  k[0] = k0;
  k[1] = k1;
  k[2] = k2;
  k[3] = k3;
}

static int grow_pairs(cmData* d, int need) {
  if (need <= d->maxpair) return 1;
  int n = d->maxpair ? d->maxpair : 256;
  while (n < need)
    n *= 2;
  cmContactPair* c = cm_realloc(d->pair, (size_t)n * sizeof *c);
  if (!c) return 0;
  d->pair = c;
  d->maxpair = n;
  return 1;
}

/* is the world box of body b entirely outside the half-space of plane body pl? */
static int above_plane(const cmModel* m, const cmData* d, int pl, int b) {
  const double* g = m->geom_plane + 4 * m->body_geom[pl];
  double n[3];
  cm_quat_rotate(n, d->body_xquat + 4 * pl, g);
  double c = g[3] + cm_v3_dot(n, d->body_xpos + 3 * pl), low = 0;
  const double* box = d->body_aabb + 6 * b;
  for (int k = 0; k < 3; k++)
    low += n[k] * (n[k] > 0 ? box[k] : box[3 + k]);
  return low >= c;
}

/* Is the mesh with tree box B and bounding ball radius r round: its ball of less volume than its
 * box (an icosphere: 4.2 r^3 against about 7.6 r^3; a cube: 21.8 h^3 against 8 h^3)? */
static int round_mesh(const double B[6], double r) {
  return 4.0 / 3.0 * CM_PI * r * r * r < (B[3] - B[0]) * (B[4] - B[1]) * (B[5] - B[2]);
}

/* Two rigid meshes whose bounding balls or tree boxes are apart (cm_boxes_apart): no vertex of
 * one is inside the other, no edges cross, so the pair has no job at all. The broadphase's world
 * boxes of tilted bodies overlap far more often than the bodies' own boxes do: about half the
 * candidate pairs of a settled pile of boxes, whose vertices the jobs would otherwise carry into
 * the other body's frame one by one to cull them (8 % of the S2 pile of 125 boxes' step). R, t:
 * b's frame carried into a's (frame_into(b, a)). */
static int rigid_apart(const cmModel* m, int a, int b, const double R[9], const double t[3]) {
  if (m->body_motion[a] == CM_MOTION_DEFORMABLE || m->body_motion[b] == CM_MOTION_DEFORMABLE)
    return 0; /* their rest geometry's box does not bound the deformed mesh */
  if (!m->geom_nface[m->body_geom[a]] || !m->geom_nface[m->body_geom[b]]) return 0;
  const double* A = ((const cmBvh*)m->geom_bvh + m->body_geom[a])->node[0].box;
  const double* B = ((const cmBvh*)m->geom_bvh + m->body_geom[b])->node[0].box;
  /* R, t: cm_pair_pose, R = R_a^T R_b, t = R_a^T (x_b - x_a) (frame_into(b, a): the same
   * expressions) */
  double eps = cm_pair_box_eps(A, B, t);
  /* the bounding balls (geom_ball) apart: the test that separates rounded meshes, whose boxes
   * overlap at the corners */
  const double* ba = m->geom_ball + 4 * m->body_geom[a];
  const double* bb = m->geom_ball + 4 * m->body_geom[b];
  double cb[3], dc[3];
  cm_m3_mulv(cb, R, bb);
  cm_v3_add(cb, cb, t);
  cm_v3_sub(dc, cb, ba);
  double rr = ba[3] + bb[3] + eps;
  if (cm_v3_dot(dc, dc) > rr * rr) return 1;
  /* two round meshes (round_mesh: spheres, not boxes) skip the box test: where their balls meet
   * their boxes nearly always do (the kit's S4 bed of 1000 spheres: 2 of 1.41 M pairs past the
   * ball test were apart by the boxes, which cost 1.2 % of its step). A pair the box test would
   * have rejected has no vertex inside the other's box and no edge crossing it: its jobs cull
   * every vertex (job_cull's box), the edge search tests the boxes itself, and no contact comes
   * of it, so the contacts are the same either way. */
  if (round_mesh(A, ba[3]) && round_mesh(B, bb[3])) return 0;
  return cm_boxes_apart(A, B, R, t, eps);
}

/* job J of body a's vertices against body b for candidate pair k, its fields other than the
 * cull's (R .. ball) and the poses (vp) cleared: the callers set those a job reads, in the list
 * itself (a memset of the 472 bytes and a copy of the whole job into the list, with the shared
 * frame_into: the S2 pile of 1000 boxes at rest 0.994x the run's instructions, the S4 bed of
 * 1000 spheres 0.994x) */
static void job_init(Job* J, int a, int b, int k) {
  J->a = a;
  J->b = b;
  J->pair = k;
  J->flags = J->share = J->nvert = J->cull = 0;
  J->hit0 = 0;
  J->vert = NULL;
  J->vgb = NULL;
}

/* the jobs of candidate pair k (written to jobs; returns the count) */
static int pair_jobs(const cmModel* m, const cmData* d, const int* cand, int k, Job* jobs) {
  int a = cand[3 * k], b = cand[3 * k + 1];
  const cmRuleDef* rule = &m->rule[cand[3 * k + 2]];
  int ta = m->geom_type[m->body_geom[a]], tb = m->geom_type[m->body_geom[b]];
  if (ta == CM_GEOM_PLANE && tb == CM_GEOM_PLANE) return 0;
  Job* J = &jobs[0];
  if (ta == CM_GEOM_PLANE || tb == CM_GEOM_PLANE) {
    /* the mesh's vertices against the half-space */
    int pl = ta == CM_GEOM_PLANE ? a : b, mesh = ta == CM_GEOM_PLANE ? b : a;
    if (above_plane(m, d, pl, mesh)) return 0;
    job_init(J, mesh, pl, k);
    cm_vertex_pose(m, d, mesh, pl, &J->vp);
    plane_cull(m, d, J);
    J->nvert = m->geom_nvert[m->body_geom[mesh]];
    return 1;
  }
  /* both bodies' rotation matrices, once for the pair's test and its one or two jobs (six
   * conversions of the quaternions were two: the S2 pile of 125 boxes at rest 0.2 % fewer
   * instructions in its run), and b's frame in a's (frame_into) */
  double RA[9], RB[9], Rba[9], tba[3], Rab[9], tab[3];
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);
  cm_quat_to_mat(RB, d->body_xquat + 4 * b);
  frame_into(d, b, a, RB, RA, Rba, tba);
  if (rigid_apart(m, a, b, Rba, tba)) return 0;
  if (rule->method == CM_METHOD_CONTOUR) {
    /* contour: no vertex queries; an empty job marks the pair for append_contour */
    job_init(J, a, b, k);
    J->flags = CM_CONTACT_CONTOUR;
    return 1;
  }
  int share = rule->method == CM_METHOD_AUTO && rule->direction != CM_DIRECTION_FIRST &&
              cm_auto_two_way(m, a, b);
  int two = rule->method == CM_METHOD_TWO_WAY || rule->method == CM_METHOD_VERTEX_EDGE || share;
  int pa = two ? a : pick_penetrating(m, a, b, rule);
  if (pa == a) {
    /* a's frame in b's: R the transpose of Rba (frame_into), t its own */
    double dx[3];
    cm_m3_transpose(Rab, Rba);
    cm_v3_sub(dx, d->body_xpos + 3 * a, d->body_xpos + 3 * b);
    cm_m3_mulvt(tab, RB, dx);
    job_init(J, a, b, k);
    cm_vertex_pose_mats(m, d, a, b, RA, RB, &J->vp);
    job_cull(m, d, J, Rab, tab);
    J->nvert = m->geom_nvert[m->body_geom[a]];
    J++;
  }
  if (pa == b || two) {
    job_init(J, b, a, k);
    cm_vertex_pose_mats(m, d, b, a, RB, RA, &J->vp);
    job_cull(m, d, J, Rba, tba);
    J->nvert = m->geom_nvert[m->body_geom[b]];
    J++;
  }
  if (two) {
    /* two_way (each contact flagged two-way); vertex_edge adds its edge contacts after these
     * jobs (append_edges) */
    jobs[0].flags = jobs[1].flags = CM_CONTACT_TWO_WAY;
    jobs[0].share = jobs[1].share = share;
  }
  return (int)(J - jobs);
}

/* the queries of chunk c (hits c CHUNK .. of the batch jobs[j0..j1), indexed from base) */
#define CHUNK 256
/* Is every vertex of the group of box B (A's frame) outside the ball bc (centre, squared radius),
 * as the vertex's own test dx^2 + dy^2 + dz^2 > r^2 (dx = x - c) would find? Per axis the box's
 * nearest coordinate gives the least |x - c| over the box, and rounding is monotone: fl(x - c)
 * is not nearer 0 than the same difference at the box's face, nor its square or the sums less.
 * The squared radius is widened by 1e-12 of itself all the same (far above any difference of
 * rounding between the two expressions, say from a compiler's fused multiply-adds), so a group
 * is rejected only where every vertex test would reject each of its vertices. */
static inline int group_outside_ball(const double* B, const double* bc) {
  double e[3];
  for (int k = 0; k < 3; k++)
    e[k] = bc[k] < B[k] ? B[k] - bc[k] : bc[k] > B[3 + k] ? B[3 + k] - bc[k] : 0;
  return e[0] * e[0] + e[1] * e[1] + e[2] * e[2] > bc[3] * (1 + 1e-12);
}

/* Is every vertex of the group of box B above the plane pl (A's frame: n . x > c outside), as
 * the vertex's own test finds? The box's corner with the least n . x (per axis its lower face
 * where n_k >= 0) bounds every vertex's products from below, term by term (rounding is
 * monotone), so their sum; the offset widened by 1e-12 of the terms' sizes, as above. */
static inline int group_above(const double* B, const double* pl) {
  double x[3], size = fabs(pl[3]);
  for (int k = 0; k < 3; k++) {
    x[k] = pl[k] >= 0 ? B[k] : B[3 + k];
    size += fabs(pl[k]) * fmax(fabs(B[k]), fabs(B[3 + k]));
  }
  return pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3] + 1e-12 * size;
}

/* in[h..seg) = 0 for a rejected group; returns seg (a whole group as one 8-byte store: a call
 * to memset, or a loop of byte stores, cost more than the group's tests) */
static inline long reject_group(unsigned char* in, long h, long seg) {
  if (seg - h == CM_VGROUP) {
    static const unsigned char zero[CM_VGROUP];
    memcpy(in + h, zero, CM_VGROUP);
    return seg;
  }
  for (; h < seg; h++)
    in[h] = 0;
  return seg;
}

/* the end of the run of vertices from hit h (vertex h - first of its job) that the cull tests
 * one by one: with group boxes gb, the end of h's group; without, the chunk's end */
static inline long segment(const double* gb, long h, long first, long end) {
  if (!gb) return end;
  long next = h + CM_VGROUP - ((h - first) & (CM_VGROUP - 1));
  return next < end ? next : end;
}

/* a mesh job's cull (Job: R, t, lo, hi, ball), copied into the chunk's locals: the stores into
 * in[], a char array, may alias the job's fields (read through the job, they were loaded again
 * for every vertex) */
typedef struct MeshCull {
  double R[9], t[3], lo[3], hi[3], ball[4];
} MeshCull;

/* Is vertex x outside the ball (centre, squared radius): dx dx + dy dy + dz dz > r^2 with
 * dx = x - c? (B's bounding ball in A's frame, job_cull) */
static inline int vertex_outside(const double* x, const double ball[4]) {
  double dx = x[0] - ball[0], dy = x[1] - ball[1], dz = x[2] - ball[2];
  return dx * dx + dy * dy + dz * dz > ball[3];
}

/* vertex_outside of the vertices x and x + 3 (bits 0 and 1), in the two lanes of pairs of doubles
 * (geom/closest.h): lane by lane the same IEEE operations in the same order, so the same
 * answers. Most vertices of a job lie outside the ball (all but the cap of a sphere touching
 * another): run_chunk tests four at a time (two pairs, their bits together) and stores the
 * four zeros at once, and takes a pair's vertices one by one only where one passed. The kit's
 * S4 bed of 1000 spheres (20 steps from t = 0.6 s): 0.950x the instructions of the run (the
 * cull's loop 134 -> 85 M); the S2 pile of 1000 boxes 0.992x; the same contacts bit for bit. */
static inline int vertices_outside(const double* x, const double ball[4]) {
  v2d dx = (v2d){x[0], x[3]} - ball[0], dy = (v2d){x[1], x[4]} - ball[1];
  v2d dz = (v2d){x[2], x[5]} - ball[2];
  v2l o = dx * dx + dy * dy + dz * dz > ball[3];
#ifdef __SSE2__
  return _mm_movemask_pd((v2d)o);
#else
  return (int)(o[0] & 1) | (int)(o[1] & 2);
#endif
}

/* Is vertex x above the plane pl (A's frame, n . x <= c inside: plane_cull)? */
static inline int vertex_above(const double* x, const double pl[4]) {
  return pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3];
}

/* vertex_above of the vertices x and x + 3 (bits 0 and 1), as vertices_outside (the S4 bed's
 * spheres on the ground: 0.993x the run's instructions) */
static inline int vertices_above(const double* x, const double pl[4]) {
  v2d X = {x[0], x[3]}, Y = {x[1], x[4]}, Z = {x[2], x[5]};
  v2l o = pl[0] * X + pl[1] * Y + pl[2] * Z > pl[3];
#ifdef __SSE2__
  return _mm_movemask_pd((v2d)o);
#else
  return (int)(o[0] & 1) | (int)(o[1] & 2);
#endif
}

/* vertex v (at x, in A's frame) of a job, past its ball or plane test (out = 0: not outside):
 * with a mesh's cull C, rejected if R x + t is outside B's widened box; else queried (hit, in:
 * its entries) */
static inline void cull_query(const cmModel* m, const cmData* d, const Job* J, const MeshCull* C,
                              int out, const double* x, long v, cmHit* hit, unsigned char* in) {
  for (int k = 0; C && k < 3 && !out; k++) {
    double y = C->R[3 * k] * x[0] + C->R[3 * k + 1] * x[1] + C->R[3 * k + 2] * x[2] + C->t[k];
    out |= y < C->lo[k] || y > C->hi[k];
  }
  if (out) {
    *in = 0; /* the hit is not written: the compaction reads in[] first */
    return;
  }
  cm_collide_vertex_posed(m, d, &J->vp, (int)v, hit);
  *in = (unsigned char)hit->inside;
}

/* cull_query of the vertices v and v + 1 (at x and x + 3) with the bits of vertices_outside or
 * vertices_above */
static inline void pair_query(const cmModel* m, const cmData* d, const Job* J, const MeshCull* C,
                              int out2, const double* x, long v, cmHit* hit, unsigned char* in) {
  if (out2 == 3) {
    in[0] = in[1] = 0;
    return;
  }
  cull_query(m, d, J, C, out2 & 1, x, v, hit, in);
  cull_query(m, d, J, C, out2 & 2, x + 3, v + 1, hit + 1, in + 1);
}

static void run_chunk(const cmModel* m, const cmData* d, const Job* jobs, int j0, int j1,
                      cmHit* hits, unsigned char* in, long base, long total, long c) {
  long h0 = c * CHUNK, h1 = h0 + CHUNK < total ? h0 + CHUNK : total;
  /* the job of hit h0: binary search on hit0; then forward */
  int lo = j0, hi = j1 - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (jobs[mid].hit0 - base <= h0)
      lo = mid;
    else
      hi = mid - 1;
  }
  for (long h = h0; h < h1;) {
    while (jobs[lo].hit0 - base + jobs[lo].nvert <= h)
      lo++;
    /* the job's vertices in this chunk, with its cull in locals (the stores into in[], a
     * char array, may alias the job's fields: read through J, they were loaded again for
     * every vertex) */
    const Job* J = &jobs[lo];
    long first = J->hit0 - base, end = first + J->nvert < h1 ? first + J->nvert : h1;
    const double* vert = J->vert;
    const double* gb = J->vgb;
    if (J->cull == 2) {
      double pl[4];
      memcpy(pl, J->pl, sizeof pl);
      while (h < end) {
        /* the vertices up to seg: the rest of a group (with group boxes), else of the chunk */
        long seg = segment(gb, h, first, end);
        if (gb && ((h - first) & (CM_VGROUP - 1)) == 0 &&
            group_above(gb + 6 * ((h - first) / CM_VGROUP), pl)) {
          h = reject_group(in, h, seg);
          continue;
        }
        /* the plane test four vertices at a time (vertices_above), the segment's last alone */
        const double* x = vert + 3 * (size_t)(h - first);
        for (; h + 3 < seg; h += 4, x += 12) {
          int o01 = vertices_above(x, pl), o23 = vertices_above(x + 6, pl);
          if ((o01 & o23) == 3) {
            static const unsigned char zero[4];
            memcpy(in + h, zero, sizeof zero);
            continue;
          }
          pair_query(m, d, J, NULL, o01, x, h - first, hits + h, in + h);
          pair_query(m, d, J, NULL, o23, x + 6, h + 2 - first, hits + h + 2, in + h + 2);
        }
        for (; h < seg; h++, x += 3)
          cull_query(m, d, J, NULL, vertex_above(x, pl), x, h - first, hits + h, in + h);
      }
    } else if (J->cull) {
      MeshCull C;
      memcpy(C.R, J->R, sizeof C.R);
      memcpy(C.t, J->t, sizeof C.t);
      memcpy(C.lo, J->lo, sizeof C.lo);
      memcpy(C.hi, J->hi, sizeof C.hi);
      memcpy(C.ball, J->ball, sizeof C.ball);
      while (h < end) {
        long seg = segment(gb, h, first, end);
        if (gb && ((h - first) & (CM_VGROUP - 1)) == 0 &&
            group_outside_ball(gb + 6 * ((h - first) / CM_VGROUP), C.ball)) {
          h = reject_group(in, h, seg);
          continue;
        }
        /* the ball test four vertices at a time (vertices_outside), the segment's last alone */
        const double* x = vert + 3 * (size_t)(h - first);
        for (; h + 3 < seg; h += 4, x += 12) {
          int o01 = vertices_outside(x, C.ball), o23 = vertices_outside(x + 6, C.ball);
          if ((o01 & o23) == 3) {
            static const unsigned char zero[4];
            memcpy(in + h, zero, sizeof zero);
            continue;
          }
          pair_query(m, d, J, &C, o01, x, h - first, hits + h, in + h);
          pair_query(m, d, J, &C, o23, x + 6, h + 2 - first, hits + h + 2, in + h + 2);
        }
        for (; h < seg; h++, x += 3)
          cull_query(m, d, J, &C, vertex_outside(x, C.ball), x, h - first, hits + h, in + h);
      }
    } else {
      for (; h < end; h++) {
        cm_collide_vertex_posed(m, d, &J->vp, (int)(h - first), &hits[h]);
        in[h] = (unsigned char)hits[h].inside;
      }
    }
  }
}

/* run the queries of jobs[j0..j1) (hits indexed from jobs[j0].hit0): in chunks, in parallel
 * when the gate predicts a saving (core/par_gate.h; else a plain loop: an OpenMP region with a
 * false `if` still costs the team's setup and a call per chunk, 9 % of the step of one cube on
 * a plane with the solve's). The gate's unit is a vertex slot of the batch. */
static void run_batch(const cmModel* m, const cmData* d, const Job* jobs, int j0, int j1,
                      cmHit* hits, unsigned char* in) {
  long base = jobs[j0].hit0, total = jobs[j1 - 1].hit0 + jobs[j1 - 1].nvert - base;
  long nchunk = (total + CHUNK - 1) / CHUNK;
  cmParGate* gate = &cm_priv(d)->gate_vert;
  int nth = cm_par_threads(0);
  double busy = 0, t0 = cm_clock();
  if (nchunk < 2 || !cm_par_open(gate, (double)total * (1 - 1.0 / nth), nth)) {
    for (long c = 0; c < nchunk; c++)
      run_chunk(m, d, jobs, j0, j1, hits, in, base, total, c);
    busy = cm_clock() - t0;
  } else {
#pragma omp parallel num_threads(nth) reduction(+ : busy)
    {
      double t1 = cm_clock(); /* each thread's own time in the loop (not its wake-up) */
#pragma omp for schedule(dynamic, 1) nowait
      for (long c = 0; c < nchunk; c++)
        run_chunk(m, d, jobs, j0, j1, hits, in, base, total, c);
      busy += cm_clock() - t1;
    }
  }
  cm_par_record(gate, (double)total, busy);
}

/* the summary of candidate pair k, opened (at the current end of the contact list) at its first
 * contact; -1 (warning counted) if the pair array cannot grow */
static int open_pair(cmData* d, const int* cand, int k, int* pair_of_cand) {
  int p = pair_of_cand[k];
  if (p >= 0) return p;
  if (!grow_pairs(d, d->npair + 1)) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return -1;
  }
  p = pair_of_cand[k] = d->npair++;
  cmContactPair* P = &d->pair[p];
  memset(P, 0, sizeof *P);
  P->body[0] = cand[3 * k];
  P->body[1] = cand[3 * k + 1];
  P->rule = cand[3 * k + 2];
  P->first = d->ncontact;
  return p;
}

/* contact c, just appended, counted into its pair's summary (a zero area: a warning) */
static inline void count_contact(cmData* d, const cmContact* c) {
  if (!(c->area > 0)) d->warning[CM_WARN_BAD_AREA]++;
  cmContactPair* P = &d->pair[c->pair];
  P->points++;
  P->area += c->area;
  if (-c->dist > P->max_penetration) P->max_penetration = -c->dist;
}

/* contact i of vertex v of job J, from hit H, of area `area` and anchor key {v, -1, -1, k3};
 * pair summary p */
static inline void put_vertex_contact(cmData* d, const Job* J, int p, int v, const cmHit* H,
                                      double area, int k3) {
  set_key(d, d->ncontact, v, -1, -1, k3);
  cmContact* c = &d->contact[d->ncontact++];
  /* every field set (a memset of the 144 bytes first, a `rep stos`, was half of this
   * stage's own time on the bed of 1000 spheres) */
  c->force = 0;
  c->ftan[0] = c->ftan[1] = c->ftan[2] = 0;
  c->body[0] = J->a;
  c->body[1] = J->b;
  c->pair = p;
  c->vert = v;
  c->face = H->face;
  c->flags = J->flags;
  cm_v3_copy(c->p0, H->p0);
  cm_v3_copy(c->p1, H->p1);
  cm_v3_copy(c->n, H->n);
  c->dist = H->dist;
  c->area = area;
  count_contact(d, c);
}

/* the anchor key of one of the contacts of a vertex in an inner corner: its face's normal in
 * B's frame rounded to one of 26 directions (each component to -1, 0 or 1 at +-0.5), 1..27, so
 * that a contact keeps its friction anchor while the order of the vertex's contacts changes
 * (the nearest face of a vertex in a floor-wall corner alternates between the two) */
static int corner_key(const double n[3]) {
  int c = 0;
  for (int k = 2; k >= 0; k--)
    c = 3 * c + (n[k] > 0.5 ? 2 : n[k] < -0.5 ? 0 : 1);
  return 1 + c;
}

/* the contacts of vertex v of job J (its hit H; RA, areavec: the job's), appended: one, or in
 * an inner corner of B one per face of the corner (collide_corner.c); p the pair's summary,
 * opened at the job's first contact (-1 before). 0 if the list cannot grow. */
static inline int compact_vertex(const cmModel* m, cmData* d, const int* cand, const Job* J,
                                 const double* RA, const double* areavec, int v, const cmHit* H,
                                 int* pair_of_cand, int* pp) {
  cmHit ex[CM_CORNER_MAX];
  int ne = m->geom_nconcave[m->body_geom[J->b]] ? cm_corner_faces(m, d, J->b, J->vp.RB, H, ex) : 0;
  if (!grow_contacts(m, d, d->ncontact + 1 + ne)) {
    /* out of memory (a warning); beyond max_contacts the step fails instead (limit_hit) */
    if (!cm_priv(d)->limit_hit) d->warning[CM_WARN_CONTACT_LIMIT]++;
    return 0;
  }
  /* the pair summary, opened at its first contact (then the job's) */
  int p = *pp;
  if (p < 0) {
    p = *pp = open_pair(d, cand, J->pair, pair_of_cand);
    if (p < 0) return 0;
  }
  /* area: |n . a_v| in world axes, halved for two-way contacts */
  double av[3], half = J->flags & CM_CONTACT_TWO_WAY ? 0.5 : 1.0;
  cm_m3_mulv(av, RA, areavec + 3 * (size_t)v);
  if (!ne) {
    put_vertex_contact(d, J, p, v, H, fabs(cm_v3_dot(H->n, av)) * half, -1);
    return 1;
  }
  /* an inner corner: the faces the vertex's patch faces, their areas shared (cm_corner_areas).
   * The decomposition takes the signed parts -n_i . a: in a corner sharper than square (n_i .
   * n_j < 0) a patch that faces both faces can have a negative plain projection on one of them
   * (a crease vertex of a prism flush in a V-groove of 50 degrees, its patch 1:2 between the
   * faces), which |.| turned positive (the decomposition then counted that face's part twice) or
   * which left a further face out (its part lost); a further face keeps a contact if its shared
   * area is > 0 */
  const cmHit* h[1 + CM_CORNER_MAX] = {H};
  const double* nn[1 + CM_CORNER_MAX] = {H->n};
  double proj[1 + CM_CORNER_MAX] = {-cm_v3_dot(H->n, av)};
  double area[1 + CM_CORNER_MAX] = {fabs(proj[0])}, depth[1 + CM_CORNER_MAX];
  int k = 1;
  for (int i = 0; i < ne; i++) {
    h[k] = &ex[i];
    nn[k] = ex[i].n;
    proj[k] = -cm_v3_dot(ex[i].n, av);
    area[k] = fmax(0, proj[k]);
    k++;
  }
  for (int i = 0; i < k; i++)
    depth[i] = -h[i]->dist;
  if (k > 1) cm_corner_areas(k, nn, depth, proj, area);
  {
    int kk = 1; /* further faces that carry nothing are left out */
    for (int i = 1; i < k; i++)
      if (area[i] > 0) {
        h[kk] = h[i];
        area[kk++] = area[i];
      }
    k = kk;
  }
  const double* fn = m->mesh_face_normal + 3 * (size_t)m->geom_faceadr[m->body_geom[J->b]];
  /* two faces rounded to one direction (the faces of a 120-degree groove, normals (+-0.5, 0,
   * 0.87)): each takes 32 more per such face whose normal comes before its own in lexicographic
   * order, whichever of them is the vertex's nearest this step, so that each keeps its anchor */
  int code[1 + CM_CORNER_MAX];
  for (int i = 0; i < k; i++)
    code[i] = k > 1 ? corner_key(fn + 3 * (size_t)h[i]->face) : -1;
  for (int i = 0; i < k; i++) {
    int key = code[i];
    const double* a = fn + 3 * (size_t)h[i]->face;
    for (int j = 0; j < k; j++) {
      const double* b = fn + 3 * (size_t)h[j]->face;
      if (j != i && code[j] == code[i] &&
          (b[0] != a[0]   ? b[0] < a[0]
           : b[1] != a[1] ? b[1] < a[1]
                          : b[2] < a[2]))
        key += 32;
    }
    put_vertex_contact(d, J, p, v, h[i], area[i] * half, key);
  }
  return 1;
}

/* append the contacts of jobs[j0..j1) in order (hits indexed from base); pair summaries are
 * opened as pairs appear */
static void compact_jobs(const cmModel* m, cmData* d, const int* cand, const Job* jobs, int j0,
                         int j1, long base, const cmHit* hits, const unsigned char* in,
                         int* pair_of_cand) {
  for (int j = j0; j < j1; j++) {
    const Job* J = &jobs[j];
    const double* RA = J->vp.RA;
    const double* areavec = cm_geom_areavec(m, d, m->body_geom[J->a]);
    /* the job's vertices eight at a time, a word of their flags at once: most are 0 (the S2
     * pile of 125 boxes at rest: 890 contacts of 6500 vertices a step; this stage's own
     * instructions 79 -> 68 M in its run, the S4 pile of 125 spheres 2.0 % fewer in all). The
     * job's fields are read through J once per contact only (the stores into the contacts may
     * alias it). The words in a loop of their own (the vertex loop tested each vertex for a
     * word's start) and grow_contacts' check inline: the S4 bed of 1000 spheres 0.993x */
    const unsigned char* inj = in + (J->hit0 - base);
    const cmHit* hj = hits + (J->hit0 - base);
    int nv = J->nvert, p = -1, v = 0;
    for (; v + 8 <= nv; v += 8) {
      uint64_t w;
      memcpy(&w, inj + v, sizeof w);
      if (!w) continue;
      for (int i = v; i < v + 8; i++)
        if (inj[i] && !compact_vertex(m, d, cand, J, RA, areavec, i, &hj[i], pair_of_cand, &p))
          return;
    }
    for (; v < nv; v++)
      if (inj[v] && !compact_vertex(m, d, cand, J, RA, areavec, v, &hj[v], pair_of_cand, &p))
        return;
  }
}

/* one contact of candidate pair k from a pair-level method (edge-edge, contour): body A = the
 * pair's lower body index, no vertex; updates the pair summary. 0 if the list cannot grow. */
static int append_contact(const cmModel* m, cmData* d, const int* cand, int k, int* pair_of_cand,
                          int flags, const double p0[3], const double p1[3], const double n[3],
                          double dist, double area) {
  if (!grow_contacts(m, d, d->ncontact + 1)) {
    /* out of memory (a warning); beyond max_contacts the step fails instead (limit_hit) */
    if (!cm_priv(d)->limit_hit) d->warning[CM_WARN_CONTACT_LIMIT]++;
    return 0;
  }
  int p = open_pair(d, cand, k, pair_of_cand);
  if (p < 0) return 0;
  set_key(d, d->ncontact, -1, -1, -1, -1); /* an edge contact sets its own after */
  cmContact* c = &d->contact[d->ncontact++];
  c->force = 0; /* every field set (compact_jobs) */
  c->ftan[0] = c->ftan[1] = c->ftan[2] = 0;
  c->body[0] = cand[3 * k];
  c->body[1] = cand[3 * k + 1];
  c->pair = p;
  c->vert = -1;
  c->face = -1;
  c->flags = flags;
  cm_v3_copy(c->p0, p0);
  cm_v3_copy(c->p1, p1);
  cm_v3_copy(c->n, n);
  c->dist = dist;
  c->area = area;
  count_contact(d, c);
  return 1;
}

/* auto's two-way pairs: the vertex contacts of the pair just compacted (contacts [P->first,
 * ncontact), body[0] the penetrating side, areas halved) get, instead of half their area, the
 * share w_s = D_s / (D_A + D_B) of their side, D_s the sum of the side's penetration depths.
 * Where both meshes' vertices sample the overlap the shares are about 1/2 (SPEC 5's halving);
 * where one side has no vertex inside (a fine ball in a coarse box's face, a box on a coarse
 * base) the other carries the whole force, which halving would cut by half; and a vertex that
 * enters at depth 0 takes no share, so the forces stay continuous. */
static void share_areas(cmData* d, int p) {
  cmContactPair* P = &d->pair[p];
  double D[2] = {0, 0};
  for (int i = P->first; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    D[c->body[0] != P->body[0]] += fmax(0, -c->dist);
  }
  double tot = D[0] + D[1], w[2] = {0.5, 0.5};
  if (tot > 0) {
    w[0] = D[0] / tot;
    w[1] = D[1] / tot;
  }
  P->area = 0;
  for (int i = P->first; i < d->ncontact; i++) {
    cmContact* c = &d->contact[i];
    c->area *= 2 * w[c->body[0] != P->body[0]];
    P->area += c->area;
  }
}

/* The edge-edge contacts (collide_edge.c) of the candidate pairs k0..k1 (a slice) that have
 * them, computed in parallel before the slice's batches: pair k's are hit[slot[k]],
 * nhit[slot[k]] of them (slot -1: none, nhit -1: no memory; slot is the caller's, one entry per
 * candidate, written here for the slice). Each thread works in its own scratch arena
 * (cm_priv(d)->tarena), and a pair's contacts do not depend on the thread that computes them.
 * NULL slot without memory. */
typedef struct EdgeHits {
  int* slot;
  cmEdgeHit** hit;
  int* nhit;
} EdgeHits;

static int wants_edges(const cmModel* m, const int* cand, int k);

/* the edge search of the i-th listed pair, in thread tid's scratch arena */
static void edge_job(const cmModel* m, cmData* d, const int* list, EdgeHits* e, int i, int tid) {
  cmDataPriv* p = cm_priv(d);
  int k = list[i];
  /* (a pair with a job: rigid_apart found its tree boxes not apart) */
  e->nhit[i] =
      cm_collide_edges_near(m, d, p->cand[3 * k], p->cand[3 * k + 1], &p->tarena[tid].a, &e->hit[i]);
}

static EdgeHits edge_hits(const cmModel* m, cmData* d, const int* first_job, int* slot, int k0,
                          int k1) {
  cmDataPriv* p = cm_priv(d);
  EdgeHits e = {NULL, NULL, NULL};
  int ne = 0;
  int* list = cm_arena_alloc(&p->arena, ((size_t)(k1 - k0) + 1) * sizeof *list);
  if (!list) return e;
  for (int k = k0; k < k1; k++) {
    slot[k] = -1;
    /* a pair with no job (rigid_apart: bounding balls or tree boxes apart) has no edge contact
     * either, and append_edges is never asked for it (until 2026-12-04 the search ran for it
     * all the same, to stop at its own box test: 0.36 us per pair, half the candidates of a
     * settled pile) */
    if (first_job[k] >= 0 && wants_edges(m, p->cand, k)) {
      slot[k] = ne;
      list[ne++] = k;
    }
  }
  e.hit = cm_arena_alloc(&p->arena, ((size_t)ne + 1) * sizeof *e.hit);
  e.nhit = cm_arena_alloc(&p->arena, ((size_t)ne + 1) * sizeof *e.nhit);
  if (!e.hit || !e.nhit) return e;
  /* one scratch arena per thread: at most the threads cm_data_new saw, and no more than the
   * caller allows now (omp_set_num_threads after cm_data_new: comply_bench's one-thread runs of
   * the peer scenes ran this region on two threads, the second one spinning, 4x their CPU time) */
  int nth = cm_par_threads(p->ntarena);
  double busy = 0, t0 = cm_clock();
  /* in parallel when the gate predicts a saving (core/par_gate.h; else no OpenMP region at all:
   * run_batch); the gate's unit is a pair searched */
  if (ne < 2 || !cm_par_open(&p->gate_edge, ne * (1 - 1.0 / nth), nth)) {
    for (int i = 0; i < ne; i++)
      edge_job(m, d, list, &e, i, 0);
    busy = cm_clock() - t0;
  } else {
#pragma omp parallel num_threads(nth) reduction(+ : busy)
    {
      double t1 = cm_clock();
      int tid = 0;
#ifdef _OPENMP
      tid = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 1) nowait
      for (int i = 0; i < ne; i++)
        edge_job(m, d, list, &e, i, tid);
      busy += cm_clock() - t1;
    }
  }
  if (ne) cm_par_record(&p->gate_edge, ne, busy);
  e.slot = slot;
  return e;
}

/* vertex_edge and auto: the edge-edge contacts of candidate pair k (computed by edge_hits),
 * appended after the pair's vertex contacts, in pair order, so the list stays deterministic.
 * Flag CM_CONTACT_EDGE, no vertex (vert = -1), area as computed (not halved). */
static void append_edges(const cmModel* m, cmData* d, const int* cand, int k, int* pair_of_cand,
                         const EdgeHits* e) {
  if (!e->slot || e->slot[k] < 0) {
    if (!e->slot) d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  cmEdgeHit* hit = e->hit[e->slot[k]];
  int nh = e->nhit[e->slot[k]];
  if (nh < 0) d->warning[CM_WARN_CONTACT_LIMIT]++;
  for (int i = 0; i < nh; i++) {
    if (!append_contact(m, d, cand, k, pair_of_cand, CM_CONTACT_EDGE, hit[i].p0, hit[i].p1,
                        hit[i].n, hit[i].dist, hit[i].area))
      return;
    set_key(d, d->ncontact - 1, hit[i].ea[0], hit[i].ea[1], hit[i].eb[0], hit[i].eb[1]);
  }
}

/* contour: the contour-region contacts of candidate pair k (collide_contour.c), appended
 * serially like the edge contacts: flag CM_CONTACT_CONTOUR, vert = -1, body A = the pair's lower
 * body index, area = region area / number of points (SPEC 5). */
static void append_contour(const cmModel* m, cmData* d, const int* cand, int k, int* pair_of_cand) {
  int a = cand[3 * k], b = cand[3 * k + 1];
  cmContour ct;
  if (cm_collide_contour(m, d, a, b, &cm_priv(d)->arena, &ct) < 0) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  for (int i = 0; i < ct.nhit; i++)
    if (!append_contact(m, d, cand, k, pair_of_cand, CM_CONTACT_CONTOUR, ct.hit[i].p0, ct.hit[i].p1,
                        ct.hit[i].n, ct.hit[i].dist, ct.hit[i].area))
      return;
}

/* is candidate pair k a mesh pair with the given method? */
static int is_mesh_method(const cmModel* m, const int* cand, int k, cmMethod method) {
  int ta = m->geom_type[m->body_geom[cand[3 * k]]];
  int tb = m->geom_type[m->body_geom[cand[3 * k + 1]]];
  return m->rule[cand[3 * k + 2]].method == method && ta != CM_GEOM_PLANE && tb != CM_GEOM_PLANE;
}

/* does auto add edge contacts to candidate pair k? Not on a deformable body, nor between two
 * meshes without ridges (an edge pair needs a ridge on one side) */
static int auto_edges_ab(const cmModel* m, int a, int b) {
  if (m->body_motion[a] == CM_MOTION_DEFORMABLE || m->body_motion[b] == CM_MOTION_DEFORMABLE)
    return 0;
  return m->geom_nridge[m->body_geom[a]] > 0 || m->geom_nridge[m->body_geom[b]] > 0;
}

static int auto_edges(const cmModel* m, const int* cand, int k) {
  return auto_edges_ab(m, cand[3 * k], cand[3 * k + 1]);
}

int cm_model_pair_detection(const cmModel* m, int a, int b, cmPairDetection* out) {
  memset(out, 0, sizeof *out);
  out->vertex_body[0] = out->vertex_body[1] = -1;
  int r = cm_model_pair_rule(m, a, b);
  if (r < 0) return 0;
  const cmRuleDef* rule = &m->rule[r];
  int ta = m->geom_type[m->body_geom[a]], tb = m->geom_type[m->body_geom[b]];
  if (ta == CM_GEOM_PLANE && tb == CM_GEOM_PLANE) return 0;
  if (ta == CM_GEOM_PLANE || tb == CM_GEOM_PLANE) {
    out->vertex_body[0] = ta == CM_GEOM_PLANE ? b : a; /* the mesh against the half-space */
    return 1;
  }
  cmMethod k = rule->method;
  if (k == CM_METHOD_CONTOUR) {
    out->contour = 1;
    return 1;
  }
  int both =
      k == CM_METHOD_TWO_WAY || k == CM_METHOD_VERTEX_EDGE ||
      (k == CM_METHOD_AUTO && rule->direction != CM_DIRECTION_FIRST && cm_auto_two_way(m, a, b));
  if (both) {
    out->vertex_body[0] = a;
    out->vertex_body[1] = b;
    out->half_area = k != CM_METHOD_AUTO;
    out->shared = k == CM_METHOD_AUTO;
  } else {
    out->vertex_body[0] = pick_penetrating(m, a, b, rule);
  }
  out->edges = k == CM_METHOD_VERTEX_EDGE || (k == CM_METHOD_AUTO && auto_edges_ab(m, a, b));
  return 1;
}

/* does candidate pair k get edge-edge contacts (vertex_edge; auto with a ridge and no deformable
 * body)? */
static int wants_edges(const cmModel* m, const int* cand, int k) {
  return is_mesh_method(m, cand, k, CM_METHOD_VERTEX_EDGE) ||
         (is_mesh_method(m, cand, k, CM_METHOD_AUTO) && auto_edges(m, cand, k));
}

void cm_stage_narrowphase(const cmModel* m, cmData* d) {
  cmDataPriv* p = cm_priv(d);
  d->ncontact = 0;
  d->npair = 0;
  int nc = p->ncand;
  if (!nc) return;
  /* the jobs of one slice of the candidates at a time (module comment): at most `slice`, plus
   * the one or two of the slice's last pair, and at most two per candidate */
  int slice = cm_narrowphase_slice > 1 ? cm_narrowphase_slice : 1;
  size_t njob_max = 2 * (size_t)nc < (size_t)slice + 2 ? 2 * (size_t)nc : (size_t)slice + 2;
  Job* jobs = cm_arena_alloc(&p->arena, njob_max * sizeof *jobs);
  int* pair_of_cand = cm_arena_alloc(&p->arena, (size_t)nc * sizeof *pair_of_cand);
  int* first_job = cm_arena_alloc(&p->arena, (size_t)nc * sizeof *first_job);
  int* slot = cm_arena_alloc(&p->arena, ((size_t)nc + 1) * sizeof *slot);
  if (!jobs || !pair_of_cand || !first_job || !slot) {
    d->warning[CM_WARN_CONTACT_LIMIT]++;
    return;
  }
  cmHit* hits = NULL;
  unsigned char* inside = NULL;
  long hits_cap = 0;
  for (int k0 = 0; k0 < nc;) {
    int nj = 0, k1 = k0;
    long nhit = 0; /* queries of the slice's jobs */
    for (; k1 < nc && nj < slice && nhit < cm_narrowphase_slice_hits; k1++) {
      pair_of_cand[k1] = -1;
      int n = pair_jobs(m, d, p->cand, k1, jobs + nj);
      first_job[k1] = n > 0 ? nj : -1;
      for (int j = nj; j < nj + n; j++)
        nhit += jobs[j].nvert;
      nj += n;
    }
    /* the batch buffer: as many hits as the jobs have queries, at most CM_BATCH (a sphere on
     * the ground needs kilobytes, not the 11.5 MB of a full batch); for a later slice that
     * needs more, a new one at least twice as large (the step's arena holds both) */
    if (nhit > CM_BATCH) nhit = CM_BATCH;
    if (nhit > hits_cap || !hits) { /* (never NULL: the compaction offsets it) */
      long want = nhit > 2 * hits_cap ? nhit : 2 * hits_cap;
      if (want > CM_BATCH) want = CM_BATCH;
      hits = cm_arena_alloc(&p->arena, ((size_t)want + 1) * sizeof *hits);
      inside = cm_arena_alloc(&p->arena, (size_t)want + 1);
      if (!hits || !inside) {
        d->warning[CM_WARN_CONTACT_LIMIT]++;
        return;
      }
      hits_cap = want;
    }
    EdgeHits eh = edge_hits(m, d, first_job, slot, k0, k1);
    /* batches of whole jobs holding at most CM_BATCH hits; a job larger than that is a batch
     * of its own with scratch from the arena */
    int j0 = 0;
    while (j0 < nj) {
      long n = 0;
      int j1 = j0;
      while (j1 < nj && (j1 == j0 || n + jobs[j1].nvert <= CM_BATCH)) {
        jobs[j1].hit0 = n;
        n += jobs[j1].nvert;
        j1++;
      }
      cmHit* hb = hits;
      unsigned char* ib = inside;
      if (n > CM_BATCH) { /* one job larger than a batch: scratch from the arena */
        hb = cm_arena_alloc(&p->arena, (size_t)n * sizeof *hb);
        ib = cm_arena_alloc(&p->arena, (size_t)n);
        if (!hb || !ib) {
          d->warning[CM_WARN_CONTACT_LIMIT]++;
          return;
        }
      }
      run_batch(m, d, jobs, j0, j1, hb, ib);
      /* job by job; vertex_edge: a pair's edge contacts right after its last vertex job,
       * contour: its contacts at its (empty) job, so that every pair's contacts are contiguous
       * (cmContactPair.first, .points). (Appending them after the whole batch, as before
       * 2026-12-03, gave a pair the contacts of the next pairs whenever a batch held several
       * pairs: the edge and contour contacts of piles were given to the wrong rows or none.) */
      for (int j = j0; j < j1; j++) {
        compact_jobs(m, d, p->cand, jobs, j, j + 1, jobs[j0].hit0, hb, ib, pair_of_cand);
        if (j + 1 < nj && jobs[j + 1].pair == jobs[j].pair) continue;
        if (jobs[j].share && pair_of_cand[jobs[j].pair] >= 0)
          share_areas(d, pair_of_cand[jobs[j].pair]);
        if (wants_edges(m, p->cand, jobs[j].pair))
          append_edges(m, d, p->cand, jobs[j].pair, pair_of_cand, &eh);
        else if (is_mesh_method(m, p->cand, jobs[j].pair, CM_METHOD_CONTOUR))
          append_contour(m, d, p->cand, jobs[j].pair, pair_of_cand);
      }
      j0 = j1;
    }
    /* the slice's edge hits are appended: the threads' scratch is free for the next slice */
    for (int t = 0; t < p->ntarena; t++)
      cm_arena_rewind(&p->tarena[t].a);
    k0 = k1;
  }
}
