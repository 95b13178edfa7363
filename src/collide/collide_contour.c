/* Contour-region contacts between two closed meshes (SPEC 4 `contour`, SPEC 5 contour area).
 *
 * Everything is computed in A's body frame: B's vertices are carried in by y = R x + t with
 * R = R_A^T R_B, t = R_A^T (x_B - x_A) (one value per vertex, cm_tri_xform), so that contours,
 * regions, planes and point sets depend on the relative pose only. Only the vertex depths come
 * from the vertex query (cm_collide_vertex, world frame), as for the `vertex` method.
 *
 * 1. Segments. The intersecting face pairs (f of A, g of B) come from cm_bvh_tri_pairs. For a
 *    pair, each edge of f is tested against g and each edge of g against f with cm_seg_tri
 *    (exact, symmetric in the edge's direction; the edge is always passed from its smaller
 *    vertex index, so both faces sharing an edge compute bitwise the same point). A crossing is
 *    identified by (side, edge e0 < e1, face of the other mesh): the same crossing seen from the
 *    two faces around the edge has the same identifier. Two triangles in general position whose
 *    planes cross meet in a segment whose two endpoints are such crossings: a pair with exactly
 *    two crossings (and no coplanar overlap) gives the segment between them. Other pairs
 *    (touching, coplanar, an edge through an edge or a vertex) are degenerate: counted in
 *    `ndegenerate`, they give no segment, and the contour through them stays open.
 * 2. Chaining. Each crossing identifier is the endpoint of exactly two segments (the two faces
 *    around its edge, each paired with the same other face), so segments chain into closed
 *    polylines by matching identifiers, never by distance. A polyline whose end meets no second
 *    segment (degenerate input) is kept open. Orientation: the intersection line of f and g runs
 *    along t = n_f x n_g; walking along t, the part of f inside B lies on the left seen from
 *    outside A. A polyline is reversed if sum over its segments (q - p) . t < 0, so that it runs
 *    counter-clockwise around A's region inside B seen from outside A.
 * 3. Regions, on each surface s (A inside B, B inside A). The faces of s met by a segment are
 *    cut. A flood fill over the face adjacency (model field mesh_face_adj) starts from every
 *    unlabelled cut face and crosses an edge (u, w) iff the edge has a part inside the other body:
 *    u or w inside (the vertex query, evaluated lazily on the visited faces only) or the edge
 *    crossed by the other surface. An uncut face so reached lies wholly inside (it does not meet
 *    the other surface and has an inside vertex). Each connected component is a region.
 *    Area: a whole inside face counts A_f; a cut face counts the area of its inside part,
 *    clipped exactly along the segments: by Green's theorem on the face plane,
 *      A_in = n_f . (1/2) sum over the boundary pieces (p - o) x (q - o),
 *    the pieces being the face's segments (oriented as in 2, reversed for s = B) and the inside
 *    stretches of its three edges (split at their crossings, sorted along the edge, inside
 *    toggling at each crossing from the vertex query's answer at the edge's first vertex).
 *    The region's vector area S_s = sum A_in n_f is accumulated too.
 * 4. Contact regions are A's regions; B's regions are attached to the A region of the first
 *    segment through them. Per contact region:
 *    - plane: c = centroid of its contour points, C = sum (p - c)(p - c)^T, n = eigenvector of
 *      the smallest eigenvalue of C (cyclic Jacobi, cm_sym_eig3). If the points are too few or
 *      collinear (middle eigenvalue <= 1e-12 x largest), n = -S_A / |S_A|. Oriented out of B
 *      toward A: n . S_A <= 0 (A's penetrating surface faces B), ties by n . (x_A - x_B) >= 0.
 *    - depth = the deepest penetration of a vertex: max of -dist over A's vertices of the region
 *      inside B and B's vertices of the attached regions inside A (the same query and distance
 *      as the `vertex` method). A region with no vertex inside (two crossed ridges, coarse faces
 *      crossing) gets its depth from the contour alone: every vertex of the overlap is then a
 *      contour point, so the extent of the contour points along n is the overlap's depth.
 *    - area = |n . S_A|: A's region inside B projected on the contact plane, as SPEC 5 projects
 *      vertex and edge areas. By Stokes' theorem it equals |n . (1/2) sum_i p_i x p_(i+1)| over
 *      the region's closed contours (the vector area of any surface they bound), and equals the
 *      same for B's region (the two regions close the overlap volume).
 *    - points: the contour points projected on the plane, their 2-D convex hull (Andrew's
 *      monotone chain on the points snapped to a grid of 1e-10 of their extent, turns
 *      smaller than 1e-8 extent^2 dropped, so a straight side gives its two ends only), thinned
 * along the hull so that consecutive points are at least diam / 20 apart (diam the hull's
 * diameter). For hull point x on the plane: p0 = x - (depth/2) n (on A), p1 = x + (depth/2) n (on
 * B), dist = -depth, n, and area = region area / number of points. Arena memory only (the caller's
 * arena); cm_sort (no qsort). Output in world coordinates. */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "core/linalg.h"
#include "core/sort.h"
#include "geom/bvh.h"
#include "geom/tri_tri.h"

#define SPACING_DIV 20.0  /* hull points at least diam / SPACING_DIV apart */
#define EDGE_MAX_CROSS 32 /* crossings of one edge within one face used for clipping */

/* a crossing: edge (e0 < e1) of mesh `side` in its face `own` meets face `other` of the other
 * mesh at point x (A's frame) */
typedef struct Rec {
  int side, e0, e1, other, own;
  double x[3];
} Rec;

/* a segment of the contour: faces fa (A) and fb (B), endpoints = crossing ids */
typedef struct Seg {
  int fa, fb;
  int id[2];
  int key[2][4]; /* the two crossings' (side, e0, e1, other) */
} Seg;

/* a crossing identifier with its two segments */
typedef struct Node {
  int key[4];
  int seg[2], nseg;
  double x[3];
} Node;

/* per-side flood fill state */
typedef struct Side {
  int body, other_body, g, nface, nvert;
  const int* f;     /* faces */
  const int* adj;   /* face adjacency (nface x 3) */
  signed char* vst; /* vertex status: 0 unknown, 1 outside, 2 inside */
  double* vdepth;   /* -dist of inside vertices */
  int* label;       /* region of each face, -1 none */
  unsigned char* cut;
  int nreg;
  double* reg; /* per region: area, S[3], depth (5 doubles) */
} Side;

typedef struct Ctx {
  const cmModel* m;
  const cmData* d;
  int g[2];
  const double* v[2];
  const int* f[2];
  double R[9], t[3];
  Rec* rec; /* sorted by (side, own, e0, e1, other) */
  int nrec;
  Node* node; /* sorted by key */
  int nnode;
  Seg* seg; /* sorted by (fa, fb) */
  int nseg;
  int* segb; /* segment indices sorted by (fb, fa) */
  Side side[2];
} Ctx;

static int key_cmp(const int* a, const int* b) {
  for (int k = 0; k < 4; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int rec_cmp(const void* x, const void* y) {
  const Rec *p = x, *q = y;
  int a[5] = {p->side, p->own, p->e0, p->e1, p->other};
  int b[5] = {q->side, q->own, q->e0, q->e1, q->other};
  for (int k = 0; k < 5; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int node_cmp(const void* x, const void* y) {
  return key_cmp(((const Node*)x)->key, ((const Node*)y)->key);
}

/* vertex i of mesh side in A's frame */
static void vert_a(const Ctx* c, int side, int i, double y[3]) {
  const double* x = c->v[side] + 3 * (size_t)i;
  if (side == 0)
    cm_v3_copy(y, x);
  else
    cm_tri_xform(y, c->R, c->t, x);
}

/* unit normal of face f of mesh side, in A's frame */
static void normal_a(const Ctx* c, int side, int f, double n[3]) {
  const double* nf = c->m->mesh_face_normal + 3 * (size_t)(c->m->geom_faceadr[c->g[side]] + f);
  if (side == 0)
    cm_v3_copy(n, nf);
  else
    cm_m3_mulv(n, c->R, nf);
}

static double face_area(const Ctx* c, int side, int f) {
  return c->m->mesh_face_area[c->m->geom_faceadr[c->g[side]] + f];
}

/* the crossings of face pair (fa, fb); returns their count (-1 if some overlap is coplanar) */
static int pair_crossings(const Ctx* c, int fa, int fb, Rec* out) {
  double P[2][3][3];
  const int* F[2] = {c->f[0] + 3 * fa, c->f[1] + 3 * fb};
  int own[2] = {fa, fb}, n = 0, coplanar = 0;
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++)
      vert_a(c, s, F[s][k], P[s][k]);
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) {
      int u = F[s][k], w = F[s][(k + 1) % 3], ku = k, kw = (k + 1) % 3;
      if (u > w) {
        int tmp = u;
        u = w;
        w = tmp;
        ku = kw;
        kw = k;
      }
      Rec r = {s, u, w, own[1 - s], own[s], {0, 0, 0}};
      int res = cm_seg_tri(P[s][ku], P[s][kw], P[1 - s][0], P[1 - s][1], P[1 - s][2], r.x);
      if (res == CM_SEG_TRI_COPLANAR) coplanar = 1;
      if (res == CM_SEG_TRI_CROSS) out[n++] = r;
    }
  return coplanar ? -1 : n;
}

static int find_node(const Ctx* c, const int key[4]) {
  int lo = 0, hi = c->nnode - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, k = key_cmp(c->node[mid].key, key);
    if (k == 0) return mid;
    if (k < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* is edge (e0 < e1) of mesh side crossed by the other surface? */
static int edge_crossed(const Ctx* c, int side, int e0, int e1) {
  int key[4] = {side, e0, e1, -1};
  int lo = 0, hi = c->nnode;
  while (lo < hi) { /* first node with key >= (side, e0, e1, -1) */
    int mid = (lo + hi) / 2;
    if (key_cmp(c->node[mid].key, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->nnode && c->node[lo].key[0] == side && c->node[lo].key[1] == e0 &&
         c->node[lo].key[2] == e1;
}

/* 1: crossings and segments; returns 0 or -1 on no memory */
static int build_segments(Ctx* c, cmArena* arena, int* ndegenerate) {
  const cmBvh* tA = (const cmBvh*)c->m->geom_bvh + c->g[0];
  const cmBvh* tB = (const cmBvh*)c->m->geom_bvh + c->g[1];
  int cap = 256, np;
  cmTriPair* pairs;
  for (;;) {
    pairs = cm_arena_alloc(arena, (size_t)cap * sizeof *pairs);
    if (!pairs) return -1;
    np = cm_bvh_tri_pairs(tA, c->v[0], c->f[0], tB, c->v[1], c->f[1], c->R, c->t, pairs, cap);
    if (np <= cap) break;
    cap = np;
  }
  c->rec = cm_arena_alloc(arena, ((size_t)np * 2 + 1) * sizeof *c->rec);
  c->seg = cm_arena_alloc(arena, ((size_t)np + 1) * sizeof *c->seg);
  if (!c->rec || !c->seg) return -1;
  c->nrec = c->nseg = 0;
  *ndegenerate = 0;
  for (int i = 0; i < np; i++) {
    Rec r[6];
    int n = pair_crossings(c, pairs[i].fa, pairs[i].fb, r);
    if (n != 2 || (r[0].side == r[1].side && r[0].e0 == r[1].e0 && r[0].e1 == r[1].e1)) {
      if (n != 0) ++*ndegenerate;
      continue;
    }
    Seg* s = &c->seg[c->nseg++];
    s->fa = pairs[i].fa;
    s->fb = pairs[i].fb;
    for (int j = 0; j < 2; j++) {
      int key[4] = {r[j].side, r[j].e0, r[j].e1, r[j].other};
      memcpy(s->key[j], key, sizeof key);
      c->rec[c->nrec++] = r[j];
    }
  }
  /* the distinct crossing identifiers (nodes) */
  c->node = cm_arena_alloc(arena, ((size_t)c->nrec + 1) * sizeof *c->node);
  if (!c->node) return -1;
  for (int i = 0; i < c->nrec; i++) {
    Node* nd = &c->node[i];
    int key[4] = {c->rec[i].side, c->rec[i].e0, c->rec[i].e1, c->rec[i].other};
    memcpy(nd->key, key, sizeof key);
    cm_v3_copy(nd->x, c->rec[i].x);
    nd->nseg = 0;
  }
  cm_sort(c->node, (size_t)c->nrec, sizeof *c->node, node_cmp);
  int nn = 0;
  for (int i = 0; i < c->nrec; i++)
    if (nn == 0 || key_cmp(c->node[nn - 1].key, c->node[i].key) != 0) c->node[nn++] = c->node[i];
  c->nnode = nn;
  for (int s = 0; s < c->nseg; s++)
    for (int j = 0; j < 2; j++) {
      int id = find_node(c, c->seg[s].key[j]);
      c->seg[s].id[j] = id;
      Node* nd = &c->node[id];
      if (nd->nseg < 2) nd->seg[nd->nseg] = s;
      nd->nseg++;
    }
  cm_sort(c->rec, (size_t)c->nrec, sizeof *c->rec, rec_cmp);
  /* B's view of the segments: sorted by (fb, fa) */
  int* tmp = cm_arena_alloc(arena, ((size_t)c->nseg + 1) * 2 * sizeof *tmp);
  c->segb = cm_arena_alloc(arena, ((size_t)c->nseg + 1) * sizeof *c->segb);
  if (!tmp || !c->segb) return -1;
  for (int s = 0; s < c->nseg; s++) {
    tmp[2 * s] = c->seg[s].fb;
    tmp[2 * s + 1] = s; /* segments are in (fa, fb) order, so s orders by fa */
  }
  cm_sort(tmp, (size_t)c->nseg, 2 * sizeof *tmp, cm_int2_cmp);
  for (int s = 0; s < c->nseg; s++)
    c->segb[s] = tmp[2 * s + 1];
  return 0;
}

/* the node at the other end of segment s from node id */
static int other_end(const Seg* s, int id) {
  return s->id[0] == id ? s->id[1] : s->id[0];
}

/* the segment at node id other than s, -1 if none or a branch */
static int next_seg(const Ctx* c, int id, int s) {
  const Node* nd = &c->node[id];
  if (nd->nseg != 2) return -1;
  return nd->seg[0] == s ? nd->seg[1] : nd->seg[0];
}

/* direction along which A's inside part lies on the left: t = n_fa x n_fb */
static double seg_sense(const Ctx* c, const Seg* s, const double p[3], const double q[3]) {
  double na[3], nb[3], t[3], w[3];
  normal_a(c, 0, s->fa, na);
  normal_a(c, 1, s->fb, nb);
  cm_v3_cross(t, na, nb);
  cm_v3_sub(w, q, p);
  return cm_v3_dot(w, t);
}

/* 2: chain segments into polylines (node ids in out->...), oriented; returns 0 or -1 */
static int chain(Ctx* c, cmArena* arena, int** poly, int** closed, int** pts, int* npoly) {
  unsigned char* used = cm_arena_calloc(arena, (size_t)c->nseg + 1, 1);
  *poly = cm_arena_alloc(arena, ((size_t)c->nseg + 2) * sizeof **poly);
  *closed = cm_arena_alloc(arena, ((size_t)c->nseg + 1) * sizeof **closed);
  *pts = cm_arena_alloc(arena, ((size_t)c->nseg * 2 + 1) * sizeof **pts);
  int* segs = cm_arena_alloc(arena, ((size_t)c->nseg + 1) * sizeof *segs);
  if (!used || !*poly || !*closed || !*pts || !segs) return -1;
  int np = 0, npt = 0;
  (*poly)[0] = 0;
  for (int s0 = 0; s0 < c->nseg; s0++) {
    if (used[s0]) continue;
    /* walk backward from s0's first end to find the start of an open chain */
    int s = s0, at = c->seg[s0].id[0], is_closed = 0;
    for (int guard = 0; guard <= c->nseg; guard++) {
      int n = next_seg(c, at, s);
      if (n < 0 || used[n]) break;
      if (n == s0) {
        is_closed = 1;
        break;
      }
      s = n;
      at = other_end(&c->seg[n], at);
    }
    if (is_closed) {
      s = s0;
      at = c->seg[s0].id[0];
    }
    /* walk forward from (s, at) */
    int first = npt, ns = 0, start = s;
    (*pts)[npt++] = at;
    for (int guard = 0; guard <= c->nseg; guard++) {
      used[s] = 1;
      segs[ns++] = s;
      at = other_end(&c->seg[s], at);
      int n = next_seg(c, at, s);
      if (is_closed && n == start) break; /* back at the first point: not repeated */
      (*pts)[npt++] = at;
      if (n < 0 || used[n]) break;
      s = n;
    }
    /* orientation: the sum of (q - p) . t over the chain's segments */
    double sense = 0;
    int cnt = npt - first;
    for (int i = 0; i < ns; i++) {
      const Seg* sg = &c->seg[segs[i]];
      int ia = (*pts)[first + i], ib = (*pts)[first + (i + 1) % cnt];
      sense += seg_sense(c, sg, c->node[ia].x, c->node[ib].x);
    }
    if (sense < 0)
      for (int i = 0, j = cnt - 1; i < j; i++, j--) {
        int tmp = (*pts)[first + i];
        (*pts)[first + i] = (*pts)[first + j];
        (*pts)[first + j] = tmp;
      }
    (*closed)[np] = is_closed;
    (*poly)[++np] = npt;
  }
  *npoly = np;
  return 0;
}

/* status of vertex v of side S (queried once): 2 inside, 1 outside */
static int vstatus(const Ctx* c, Side* S, int v) {
  if (!S->vst[v]) {
    cmHit h;
    cm_collide_vertex(c->m, c->d, S->body, S->other_body, v, &h);
    S->vst[v] = h.inside ? 2 : 1;
    S->vdepth[v] = h.inside && h.dist < 0 ? -h.dist : 0;
  }
  return S->vst[v];
}

/* vector area (A's frame, times 2, relative to o) of the inside part of cut face f of side s */
static double cut_face_area(Ctx* c, int s, int f) {
  Side* S = &c->side[s];
  const int* F = c->f[s] + 3 * f;
  double o[3], nf[3], V[3] = {0, 0, 0};
  vert_a(c, s, F[0], o);
  normal_a(c, s, f, nf);
  /* contour segments in f, oriented with the inside on the left */
  int lo = 0, hi = c->nseg;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int key = s == 0 ? c->seg[mid].fa : c->seg[c->segb[mid]].fb;
    if (key < f)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int i = lo; i < c->nseg; i++) {
    const Seg* sg = s == 0 ? &c->seg[i] : &c->seg[c->segb[i]];
    if ((s == 0 ? sg->fa : sg->fb) != f) break;
    const double *p = c->node[sg->id[0]].x, *q = c->node[sg->id[1]].x;
    double sense = seg_sense(c, sg, p, q) * (s == 0 ? 1 : -1);
    if (sense < 0) {
      const double* tmp = p;
      p = q;
      q = tmp;
    }
    double a[3], b[3], x[3];
    cm_v3_sub(a, p, o);
    cm_v3_sub(b, q, o);
    cm_v3_cross(x, a, b);
    cm_v3_add(V, V, x);
  }
  /* inside stretches of the three edges */
  for (int k = 0; k < 3; k++) {
    int u = F[k], w = F[(k + 1) % 3], e0 = u < w ? u : w, e1 = u < w ? w : u;
    double pu[3], pw[3], dir[3], xs[EDGE_MAX_CROSS][3], ts[EDGE_MAX_CROSS];
    vert_a(c, s, u, pu);
    vert_a(c, s, w, pw);
    cm_v3_sub(dir, pw, pu);
    double len2 = cm_v3_dot(dir, dir);
    int nx = 0;
    Rec key = {s, e0, e1, -1, f, {0, 0, 0}};
    int a = 0, b = c->nrec;
    while (a < b) {
      int mid = (a + b) / 2;
      if (rec_cmp(&c->rec[mid], &key) < 0)
        a = mid + 1;
      else
        b = mid;
    }
    for (; a < c->nrec && nx < EDGE_MAX_CROSS; a++) {
      const Rec* r = &c->rec[a];
      if (r->side != s || r->own != f || r->e0 != e0 || r->e1 != e1) break;
      double dx[3];
      cm_v3_sub(dx, r->x, pu);
      double tt = len2 > 0 ? cm_v3_dot(dx, dir) / len2 : 0;
      int j = nx++;
      while (j > 0 && ts[j - 1] > tt) { /* insertion sort along the edge */
        ts[j] = ts[j - 1];
        cm_v3_copy(xs[j], xs[j - 1]);
        j--;
      }
      ts[j] = tt;
      cm_v3_copy(xs[j], r->x);
    }
    int in = vstatus(c, S, u) == 2;
    double prev[3], pa[3], pb[3], x[3];
    cm_v3_copy(prev, pu);
    for (int i = 0; i <= nx; i++) {
      const double* q = i < nx ? xs[i] : pw;
      if (in) {
        cm_v3_sub(pa, prev, o);
        cm_v3_sub(pb, q, o);
        cm_v3_cross(x, pa, pb);
        cm_v3_add(V, V, x);
      }
      in = !in;
      cm_v3_copy(prev, q);
    }
  }
  double A = 0.5 * cm_v3_dot(nf, V), Af = face_area(c, s, f);
  if (!(A > 0)) return 0;
  return A < Af ? A : Af;
}

/* 3: regions on side s by flood fill; returns 0 or -1 */
static int regions(Ctx* c, int s, cmArena* arena) {
  Side* S = &c->side[s];
  S->vst = cm_arena_calloc(arena, (size_t)S->nvert + 1, 1);
  S->vdepth = cm_arena_alloc(arena, ((size_t)S->nvert + 1) * sizeof *S->vdepth);
  S->label = cm_arena_alloc(arena, ((size_t)S->nface + 1) * sizeof *S->label);
  S->cut = cm_arena_calloc(arena, (size_t)S->nface + 1, 1);
  int* queue = cm_arena_alloc(arena, ((size_t)S->nface + 1) * sizeof *queue);
  S->reg = cm_arena_calloc(arena, ((size_t)c->nseg + 1) * 5, sizeof *S->reg);
  if (!S->vst || !S->vdepth || !S->label || !S->cut || !queue || !S->reg) return -1;
  for (int f = 0; f < S->nface; f++)
    S->label[f] = -1;
  for (int i = 0; i < c->nseg; i++)
    S->cut[s == 0 ? c->seg[i].fa : c->seg[i].fb] = 1;
  S->nreg = 0;
  for (int i = 0; i < c->nseg; i++) {
    int f0 = s == 0 ? c->seg[i].fa : c->seg[c->segb[i]].fb;
    if (S->label[f0] >= 0) continue;
    int r = S->nreg++, qh = 0, qt = 0;
    double* R = S->reg + 5 * r;
    S->label[f0] = r;
    queue[qt++] = f0;
    while (qh < qt) {
      int f = queue[qh++];
      const int* F = S->f + 3 * f;
      double nf[3], A;
      normal_a(c, s, f, nf);
      A = S->cut[f] ? cut_face_area(c, s, f) : face_area(c, s, f);
      R[0] += A;
      cm_v3_madd(R + 1, R + 1, nf, A);
      for (int k = 0; k < 3; k++) {
        int u = F[k], w = F[(k + 1) % 3];
        int iu = vstatus(c, S, u) == 2, iw = vstatus(c, S, w) == 2;
        if (iu && S->vdepth[u] > R[4]) R[4] = S->vdepth[u];
        int g = S->adj[3 * f + k];
        if (g < 0 || S->label[g] >= 0) continue;
        if (!iu && !iw && !edge_crossed(c, s, u < w ? u : w, u < w ? w : u)) continue;
        S->label[g] = r;
        queue[qt++] = g;
      }
    }
  }
  return 0;
}

/* a 2-D point with its source index */
typedef struct P2 {
  double x, y;
} P2;

static int p2_cmp(const void* a, const void* b) {
  const P2 *p = a, *q = b;
  if (p->x != q->x) return p->x < q->x ? -1 : 1;
  return (p->y > q->y) - (p->y < q->y);
}

static double cross2(const P2* o, const P2* a, const P2* b) {
  return (a->x - o->x) * (b->y - o->y) - (a->y - o->y) * (b->x - o->x);
}

/* convex hull, counter-clockwise, of pts[0..n) (sorted in place) into h; returns its size */
static int hull2(P2* pts, int n, P2* h, double eps) {
  cm_sort(pts, (size_t)n, sizeof *pts, p2_cmp);
  int k = 0;
  for (int i = 0; i < n; i++) {
    while (k >= 2 && cross2(&h[k - 2], &h[k - 1], &pts[i]) <= eps)
      k--;
    h[k++] = pts[i];
  }
  for (int i = n - 2, t = k + 1; i >= 0; i--) {
    while (k >= t && cross2(&h[k - 2], &h[k - 1], &pts[i]) <= eps)
      k--;
    h[k++] = pts[i];
  }
  return k > 1 ? k - 1 : k;
}

/* 4: plane, depth, area and points of contact region r (A's region r) */
static int region_contacts(const Ctx* c, int r, const int* poly, const int* pts, const int* preg,
                           int npoly, double depth, cmArena* arena, cmContourRegion* out,
                           cmContourHit* hits) {
  const double* RA = c->side[0].reg + 5 * r;
  double S[3] = {RA[1], RA[2], RA[3]}, ctr[3] = {0, 0, 0}, C[9] = {0};
  int np = 0;
  for (int i = 0; i < npoly; i++)
    if (preg[i] == r)
      for (int j = poly[i]; j < poly[i + 1]; j++) {
        cm_v3_add(ctr, ctr, c->node[pts[j]].x);
        np++;
      }
  if (np == 0) return 0;
  cm_v3_scale(ctr, ctr, 1.0 / np);
  P2* p2 = cm_arena_alloc(arena, (size_t)np * sizeof *p2);
  P2* h = cm_arena_alloc(arena, ((size_t)np * 2 + 2) * sizeof *h);
  if (!p2 || !h) return -1;
  for (int i = 0; i < npoly; i++)
    if (preg[i] == r)
      for (int j = poly[i]; j < poly[i + 1]; j++) {
        double w[3];
        cm_v3_sub(w, c->node[pts[j]].x, ctr);
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            C[3 * a + b] += w[a] * w[b];
      }
  /* the plane normal, oriented out of B toward A */
  double n[3], ev[3], V[9];
  cm_sym_eig3(C, ev, V);
  for (int k = 0; k < 3; k++)
    n[k] = V[3 * k]; /* column 0: the smallest eigenvalue's vector */
  double sl = cm_v3_norm(S);
  if (np < 3 || !(ev[1] > 1e-12 * ev[2])) {
    if (!(sl > 0)) return 0;
    cm_v3_scale(n, S, -1 / sl);
  }
  if (!(cm_v3_normalize(n) > 0) || !cm_v3_isfinite(n)) return 0;
  double sn = cm_v3_dot(n, S);
  if (sn > 0 || (sn == 0 && cm_v3_dot(n, c->t) > 0)) cm_v3_scale(n, n, -1);
  double area = fabs(cm_v3_dot(n, S));
  double size = sqrt(ev[2] / np); /* the RMS spread of the contour points, m */
  if (!(depth > 1e-9 * size)) {
    /* no vertex of either mesh inside the other (beyond rounding of the region's size: two
     * crossed ridges, coarse faces crossing): every vertex of the overlap is then a contour
     * point (a vertex of the intersection of two solids is a vertex of one inside the other or
     * a crossing of an edge of one with a face of the other), so the overlap's depth along n is
     * the extent of the contour points along n. With a vertex inside, its depth is kept: the
     * contour of two faces overlapping flat runs on both surfaces, its fitted plane tilts by a
     * degree or so, and its extent along that normal overstates the depth by 20-30 %
     * (unit/test_method_accuracy) */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < npoly; i++)
      if (preg[i] == r)
        for (int j = poly[i]; j < poly[i + 1]; j++) {
          double s = cm_v3_dot(n, c->node[pts[j]].x);
          lo = fmin(lo, s);
          hi = fmax(hi, s);
        }
    /* an extent within rounding of the region's size is a flat contour, not a depth */
    if (hi - lo > depth && hi - lo > 1e-9 * size) depth = hi - lo;
  }
  out->depth = depth;
  out->area = area;
  out->area_a = RA[0];
  out->area_b = 0;
  out->nhit = 0;
  cm_v3_copy(out->n, n);
  cm_v3_copy(out->c, ctr);
  if (!(depth > 0) || !(area > 0)) return 0;
  /* in-plane basis u, v with u x v = n */
  double u[3], v[3], e[3] = {0, 0, 0};
  int kmin = 0;
  for (int k = 1; k < 3; k++)
    if (fabs(n[k]) < fabs(n[kmin])) kmin = k;
  e[kmin] = 1;
  cm_v3_cross(u, e, n);
  cm_v3_normalize(u);
  cm_v3_cross(v, n, u);
  int k = 0;
  double ext = 0;
  for (int i = 0; i < npoly; i++)
    if (preg[i] == r)
      for (int j = poly[i]; j < poly[i + 1]; j++) {
        double w[3];
        cm_v3_sub(w, c->node[pts[j]].x, ctr);
        p2[k].x = cm_v3_dot(w, u);
        p2[k].y = cm_v3_dot(w, v);
        ext = fmax(ext, fmax(fabs(p2[k].x), fabs(p2[k].y)));
        k++;
      }
  /* snapped to a grid of 1e-10 ext: points equal but for rounding (on a side of the contour
   * parallel to an axis) sort by their other coordinate, as the monotone chain needs */
  double q = 1e-10 * ext;
  for (int i = 0; q > 0 && i < np; i++) {
    p2[i].x = q * nearbyint(p2[i].x / q);
    p2[i].y = q * nearbyint(p2[i].y / q);
  }
  int nh = hull2(p2, np, h, 1e-8 * ext * ext);
  /* diameter and thinning */
  double diam2 = 0;
  for (int i = 0; i < nh; i++)
    for (int j = i + 1; j < nh; j++) {
      double dx = h[i].x - h[j].x, dy = h[i].y - h[j].y;
      diam2 = fmax(diam2, dx * dx + dy * dy);
    }
  double sp = sqrt(diam2) / SPACING_DIV, sp2 = sp * sp;
  int nk = 0;
  for (int i = 0; i < nh; i++) {
    if (nk > 0) {
      double dx = h[i].x - h[nk - 1].x, dy = h[i].y - h[nk - 1].y;
      if (dx * dx + dy * dy < sp2) continue;
    }
    h[nk++] = h[i];
  }
  while (nk > 3) { /* the last point against the first */
    double dx = h[nk - 1].x - h[0].x, dy = h[nk - 1].y - h[0].y;
    if (dx * dx + dy * dy >= sp2) break;
    nk--;
  }
  if (nk == 0) return 0;
  for (int i = 0; i < nk; i++) {
    cmContourHit* H = &hits[i];
    double x[3];
    cm_v3_madd(x, ctr, u, h[i].x);
    cm_v3_madd(x, x, v, h[i].y);
    cm_v3_madd(H->p0, x, n, -0.5 * depth);
    cm_v3_madd(H->p1, x, n, 0.5 * depth);
    cm_v3_copy(H->n, n);
    H->dist = -depth;
    H->area = area / nk;
  }
  out->nhit = nk;
  return nk;
}

/* A's frame to world, in place */
static void to_world(const double RA[9], const double xa[3], double p[3], int is_point) {
  double w[3];
  cm_m3_mulv(w, RA, p);
  if (is_point) cm_v3_add(w, w, xa);
  cm_v3_copy(p, w);
}

int cm_collide_contour(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                       cmContour* out) {
  memset(out, 0, sizeof *out);
  Ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.d = d;
  c.g[0] = m->body_geom[a];
  c.g[1] = m->body_geom[b];
  for (int s = 0; s < 2; s++) {
    if (m->geom_type[c.g[s]] == CM_GEOM_PLANE || m->geom_nface[c.g[s]] == 0) return 0;
    c.v[s] = m->mesh_vert + 3 * (size_t)m->geom_vertadr[c.g[s]];
    c.f[s] = m->mesh_face + 3 * (size_t)m->geom_faceadr[c.g[s]];
    Side* S = &c.side[s];
    S->body = s == 0 ? a : b;
    S->other_body = s == 0 ? b : a;
    S->g = c.g[s];
    S->nface = m->geom_nface[c.g[s]];
    S->nvert = m->geom_nvert[c.g[s]];
    S->f = c.f[s];
    S->adj = m->mesh_face_adj + 3 * (size_t)m->geom_faceadr[c.g[s]];
  }
  cm_pair_pose(d, a, b, c.R, c.t); /* B into A's frame */
  double RA[9];                    /* A's frame into the world, for the results */
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);

  /* 1-2: segments and polylines */
  if (build_segments(&c, arena, &out->ndegenerate) < 0) return -1;
  if (c.nseg == 0) return 0;
  int *poly, *closed, *pts, npoly;
  if (chain(&c, arena, &poly, &closed, &pts, &npoly) < 0) return -1;
  /* 3: regions on both surfaces */
  if (regions(&c, 0, arena) < 0 || regions(&c, 1, arena) < 0) return -1;
  int nreg = c.side[0].nreg;
  int* preg = cm_arena_alloc(arena, ((size_t)npoly + 1) * sizeof *preg);
  int* bmap = cm_arena_alloc(arena, ((size_t)c.side[1].nreg + 1) * sizeof *bmap);
  double* depth = cm_arena_calloc(arena, (size_t)nreg + 1, sizeof *depth);
  double* area_b = cm_arena_calloc(arena, (size_t)nreg + 1, sizeof *area_b);
  if (!preg || !bmap || !depth || !area_b) return -1;
  for (int i = 0; i < npoly; i++)
    preg[i] = c.side[0].label[c.seg[c.node[pts[poly[i]]].seg[0]].fa];
  for (int i = 0; i < c.side[1].nreg; i++)
    bmap[i] = -1;
  for (int i = 0; i < c.nseg; i++) {
    int rb = c.side[1].label[c.seg[i].fb];
    if (bmap[rb] < 0) bmap[rb] = c.side[0].label[c.seg[i].fa];
  }
  for (int r = 0; r < nreg; r++)
    depth[r] = c.side[0].reg[5 * r + 4];
  for (int i = 0; i < c.side[1].nreg; i++) {
    const double* RB_ = c.side[1].reg + 5 * i;
    depth[bmap[i]] = fmax(depth[bmap[i]], RB_[4]);
    area_b[bmap[i]] += RB_[0];
  }
  /* 4: per region, plane and points */
  out->region = cm_arena_alloc(arena, ((size_t)nreg + 1) * sizeof *out->region);
  out->hit = cm_arena_alloc(arena, ((size_t)c.nnode + 1) * sizeof *out->hit);
  if (!out->region || !out->hit) return -1;
  int nhit = 0;
  for (int r = 0; r < nreg; r++) {
    cmContourRegion* R = &out->region[out->nregion];
    memset(R, 0, sizeof *R);
    int nh = region_contacts(&c, r, poly, pts, preg, npoly, depth[r], arena, R, out->hit + nhit);
    if (nh < 0) return -1;
    R->area_b = area_b[r];
    R->hit0 = nhit;
    for (int i = 0; i < nh; i++) {
      cmContourHit* H = &out->hit[nhit + i];
      H->region = out->nregion;
      to_world(RA, d->body_xpos + 3 * a, H->p0, 1);
      to_world(RA, d->body_xpos + 3 * a, H->p1, 1);
      to_world(RA, NULL, H->n, 0);
    }
    to_world(RA, d->body_xpos + 3 * a, R->c, 1);
    to_world(RA, NULL, R->n, 0);
    nhit += nh;
    out->nregion++;
  }
  out->nhit = nhit;
  /* polylines in world coordinates, with their region */
  out->npoly = npoly;
  out->npoint = poly[npoly];
  out->poly = poly;
  out->closed = closed;
  out->poly_region = preg;
  out->point = cm_arena_alloc(arena, ((size_t)out->npoint + 1) * 3 * sizeof *out->point);
  if (!out->point) return -1;
  for (int i = 0; i < out->npoint; i++) {
    cm_v3_copy(out->point + 3 * i, c.node[pts[i]].x);
    to_world(RA, d->body_xpos + 3 * a, out->point + 3 * i, 1);
  }
  return 0;
}
