/* Edge-edge contacts between two meshes (SPEC 4 `vertex_edge`, SPEC 5 edge-edge area).
 *
 * Vertex penetration misses a box edge resting across another box's edge: no vertex is inside.
 * There an edge eA of A passes through B and an edge eB of B passes through A, each entering
 * and leaving the other body through the faces around the other edge: the two edges are linked
 * like two links of a chain, and the contact joins their closest points.
 *
 * Everything is computed in A's body frame: B's vertices are carried in by y = R x + t with
 * R = R_A^T R_B, t = R_A^T (x_B - x_A) (one value per vertex, cm_tri_xform), so the result depends
 * on the relative pose only (invariant under a rigid motion of the pair up to that rounding).
 *
 * 1. Crossings. The intersecting face pairs (f of A, g of B) come from cm_bvh_tri_pairs (exact
 *    tests). For each pair, each edge of f is tested against g and each edge of g against f
 *    (cm_seg_tri, exact, symmetric in the edge's direction); a hit is a record
 *    (side, edge, own face, other face). An edge lies in both its faces, so each crossing is
 *    recorded from both faces: the records of an edge give its two adjacent faces (used for the
 *    area and the pseudonormal) and the set of faces of the other mesh it crosses.
 * 2. Candidate edges: an edge with records that has at most one endpoint inside the other body
 *    (cm_bvh_inside, the vertex query's test). With both endpoints outside, the edge crosses the
 *    other surface an even number of times, so it goes in and out: its middle part is inside.
 *    With one endpoint inside, that endpoint has a vertex contact from the two-way jobs, but its
 *    depth is its distance to the nearest face, which for a vertex just inside a face near the
 *    other body's ridge is small while the two ridges are crossed deep (S2 pile of 27 boxes:
 *    vertex contacts 0.3 and 0.6 mm deep on a pair overlapping 23.6 mm; keeping only edges with
 *    both ends outside left 25.5 mm of overlap in that pile, keeping these 2.2 mm): the edge
 *    contact gives the crossing its real depth. This is ArtiSynth's rule in its simplest form
 *    (it keeps such an edge when the vertex, moved to the surface by its contact, would still
 *    leave the edge inside). An edge with both endpoints inside is covered by its vertices.
 *    A pair needs a ridge on one side at least: an edge whose two faces meet at less than
 *    RIDGE_DEG (their normals' dot product above cos RIDGE_DEG) is part of a flat or smoothly
 *    curved surface (the diagonals and subdivision lines of a box's faces, the edges of a fine
 *    sphere). Such an edge paired with a ridge samples the ridge's way into the face (a box's
 *    edge pressed into another's face between its vertices); paired with another such edge it
 *    would give a contact whose normal (across the two edges) is not the surface's (a sphere
 *    pressed into a box's face paired its edges with the face's diagonal).
 * 3. Pairing rule (linking): candidate eA of A and candidate eB of B form a pair iff eA crosses
 *    a face adjacent to eB AND eB crosses a face adjacent to eA. The candidates eB are found
 *    from the records of eA: the three edges of every face of B that eA crosses. This is the
 *    local form of ArtiSynth's rule (edges of matching penetration regions whose closest
 *    points are inside the faces around the other edge), which pairs every edge of one region
 *    with every edge of the other and then filters by geometry; linking through adjacent faces
 *    needs no contour or region and gives exactly one pair for two crossed ridges. Pairs are
 *    sorted and made unique (no duplicate per edge pair).
 * 4. Geometry of a pair, with dA = a1 - a0, dB = b1 - b0, r = a0 - b0:
 *      den = |dA x dB|^2 = (dA.dA)(dB.dB) - (dA.dB)^2,
 *      s = ((dA.dB)(dB.r) - (dB.dB)(dA.r)) / den,  u = ((dA.dA)(dB.r) - (dA.dB)(dA.r)) / den,
 *      p0 = a0 + s dA, p1 = b0 + u dB  (closest points of the two lines; p0 - p1 || dA x dB).
 *    Nearly parallel edges (|dA x dB| <= 1e-9 |dA||dB|) and closest points outside either
 *    segment (beyond 1e-9 of its length) are rejected. n = (dA x dB)/|dA x dB|, negated if
 *    (p0 - p1).n > 0, so that dist = (p0 - p1).n = -|p0 - p1| (p0 lies inside B, below p1 as seen
 *    along n); when p0 = p1 exactly the edge pseudonormals orient it, n.(pn_B - pn_A) > 0. The
 *    pair is kept only if n points out of B at eB and into A at eA: n.pn_B > 0 > n.pn_A (pn the
 *    edge pseudonormals, the sums of the two adjacent face normals), which rejects linked pairs
 *    whose separation direction is not a way out of both bodies.
 *    Area (SPEC 5): A = |n . sum_{f adjacent to eA} A_f n_f| / 3.
 * Output in world: p = R_A p_local + x_A, n = R_A n_local, sorted by (eA, eB). */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "core/sort.h"
#include "geom/bvh.h"
#include "geom/tri_tri.h"

/* a crossing: the edge (e0 < e1) of mesh `side` (0 = A, 1 = B) in its face `own` meets face
 * `other` of the other mesh */
typedef struct Rec {
  int side, e0, e1, own, other;
} Rec;

/* an edge with crossings: records rec[r0 .. r1) */
typedef struct Edge {
  int side, e0, e1, r0, r1;
  int adj[2], nadj; /* adjacent faces seen in the records */
  int cand;         /* at most one endpoint inside the other body */
  int ridge;        /* its faces meet at RIDGE_DEG or more */
  int end_inside;   /* one endpoint inside the other body */
} Edge;

typedef struct Ctx {
  const cmModel* m;
  int g[2];           /* geometries of A and B */
  const double* v[2]; /* body-frame vertices */
  const int* f[2];    /* faces */
  double R[9], t[3];  /* B into A's frame */
} Ctx;

static int rec_cmp(const void* x, const void* y) {
  const Rec *p = x, *q = y;
  int a[5] = {p->side, p->e0, p->e1, p->other, p->own};
  int b[5] = {q->side, q->e0, q->e1, q->other, q->own};
  for (int k = 0; k < 5; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

/* vertex i of mesh side in A's frame */
static void vert_a(const Ctx* c, int side, int i, double y[3]) {
  const double* x = c->v[side] + 3 * (size_t)i;
  if (side == 0)
    cm_v3_copy(y, x);
  else
    cm_tri_xform(y, c->R, c->t, x);
}

/* is vertex i of mesh side inside the other mesh? */
static int vertex_inside(const Ctx* c, int side, int i) {
  double y[3], r[3], x[3];
  vert_a(c, side, i, y);
  if (side == 1) return cm_mesh_inside_local(c->m, c->g[0], y, NULL);
  /* A's vertex into B's frame: x = R^T (y - t) */
  cm_v3_sub(r, y, c->t);
  cm_m3_mulvt(x, c->R, r);
  return cm_mesh_inside_local(c->m, c->g[1], x, NULL);
}

/* two faces meeting at less than this angle (degrees) make a flat edge, not a ridge */
#define RIDGE_DEG 25.0

/* is the edge (e0, e1) of face f (local index) of mesh side a ridge? */
static int ridge(const Ctx* c, int side, int f, int e0, int e1) {
  const cmModel* m = c->m;
  int fa = m->geom_faceadr[c->g[side]];
  const int* F = c->f[side] + 3 * f;
  for (int k = 0; k < 3; k++) {
    int u = F[k], w = F[(k + 1) % 3];
    if (!((u == e0 && w == e1) || (u == e1 && w == e0))) continue;
    int g = m->mesh_face_adj[3 * (size_t)(fa + f) + k];
    if (g < 0) return 1;
    double cs = cm_v3_dot(m->mesh_face_normal + 3 * (size_t)(fa + f),
                          m->mesh_face_normal + 3 * (size_t)(fa + g));
    return cs < cos(RIDGE_DEG * CM_PI / 180);
  }
  return 1;
}

/* the records of the face pair (fa, fb) */
static int pair_records(const Ctx* c, int fa, int fb, Rec* out) {
  double P[2][3][3];
  const int* F[2] = {c->f[0] + 3 * fa, c->f[1] + 3 * fb};
  int own[2] = {fa, fb}, n = 0;
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++)
      vert_a(c, s, F[s][k], P[s][k]);
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) {
      int u = F[s][k], w = F[s][(k + 1) % 3];
      const double* o = P[1 - s][0];
      if (!cm_seg_tri(P[s][k], P[s][(k + 1) % 3], o, P[1 - s][1], P[1 - s][2], NULL)) continue;
      Rec r = {s, u < w ? u : w, u < w ? w : u, own[s], own[1 - s]};
      out[n++] = r;
    }
  return n;
}

/* index of the edge group (side, e0, e1), -1 if none (groups sorted by key) */
static int find_edge(const Edge* E, int ne, int side, int e0, int e1) {
  int lo = 0, hi = ne - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const Edge* x = &E[mid];
    int k[3] = {x->side - side, x->e0 - e0, x->e1 - e1}, c = 0;
    for (int i = 0; i < 3 && !c; i++)
      c = k[i];
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* does edge group x cross one of the faces adjacent to edge group y? */
static int crosses_adjacent(const Rec* rec, const Edge* x, const Edge* y) {
  for (int r = x->r0; r < x->r1; r++)
    for (int k = 0; k < y->nadj; k++)
      if (rec[r].other == y->adj[k]) return 1;
  return 0;
}

/* edge pseudonormal (body frame of its mesh) of edge group e, from its first adjacent face */
static const double* edge_pn(const Ctx* c, const Edge* e) {
  int f = e->adj[0], fa = c->m->geom_faceadr[c->g[e->side]];
  const int* F = c->f[e->side] + 3 * f;
  for (int k = 0; k < 3; k++) {
    int u = F[k], w = F[(k + 1) % 3];
    if ((u == e->e0 && w == e->e1) || (u == e->e1 && w == e->e0))
      return c->m->mesh_edge_pn + 9 * (size_t)(fa + f) + 3 * k;
  }
  return c->m->mesh_face_normal + 3 * (size_t)(fa + f); /* not reached */
}

/* the contact of edges ea (of A) and eb (of B), in A's frame; 0 if rejected */
static int edge_contact(const Ctx* c, const Edge* ea, const Edge* eb, double p0[3], double p1[3],
                        double n[3], double* area) {
  double a0[3], a1[3], b0[3], b1[3], dA[3], dB[3], r[3], w[3];
  vert_a(c, 0, ea->e0, a0);
  vert_a(c, 0, ea->e1, a1);
  vert_a(c, 1, eb->e0, b0);
  vert_a(c, 1, eb->e1, b1);
  cm_v3_sub(dA, a1, a0);
  cm_v3_sub(dB, b1, b0);
  cm_v3_sub(r, a0, b0);
  cm_v3_cross(n, dA, dB);
  double aa = cm_v3_dot(dA, dA), ee = cm_v3_dot(dB, dB), den = cm_v3_dot(n, n);
  if (!(den > 1e-18 * aa * ee)) return 0; /* parallel */
  double bb = cm_v3_dot(dA, dB), cc = cm_v3_dot(dA, r), ff = cm_v3_dot(dB, r);
  double s = (bb * ff - cc * ee) / den, u = (aa * ff - bb * cc) / den;
  const double tol = 1e-9;
  if (!(s >= -tol && s <= 1 + tol && u >= -tol && u <= 1 + tol)) return 0;
  s = fmin(fmax(s, 0), 1);
  u = fmin(fmax(u, 0), 1);
  cm_v3_madd(p0, a0, dA, s);
  cm_v3_madd(p1, b0, dB, u);
  cm_v3_scale(n, n, 1 / sqrt(den));
  /* orientation: dist = (p0 - p1).n <= 0; pseudonormals when the edges touch */
  double pnA[3], pnB[3], q[3];
  cm_v3_copy(pnA, edge_pn(c, ea));
  cm_m3_mulv(pnB, c->R, edge_pn(c, eb));
  cm_v3_sub(w, p0, p1);
  double sd = cm_v3_dot(w, n);
  cm_v3_sub(q, pnB, pnA);
  if (sd > 0 || (sd == 0 && cm_v3_dot(n, q) < 0)) cm_v3_scale(n, n, -1);
  /* n must lead out of B at eB and into A at eA */
  if (!(cm_v3_dot(n, pnB) > 0 && cm_v3_dot(n, pnA) < 0)) return 0;
  /* area of the faces adjacent to eA, projected */
  double sum[3] = {0, 0, 0};
  int fa = c->m->geom_faceadr[c->g[0]];
  for (int k = 0; k < ea->nadj; k++) {
    size_t f = (size_t)(fa + ea->adj[k]);
    cm_v3_madd(sum, sum, c->m->mesh_face_normal + 3 * f, c->m->mesh_face_area[f]);
  }
  *area = fabs(cm_v3_dot(n, sum)) / 3;
  return 1;
}

/* are the closest points inside the other body (p0, on A's edge, inside B; p1, on B's, inside
 * A; both in A's frame)? At a crossing of two linked ridges the two points bound the overlap
 * along n, so both are inside; an edge that ends inside the other body can be paired with an
 * edge it does not cross, and the closest points of their lines then lie outside, at a distance
 * that is not a penetration (up to 17 times the overlap in unit/test_method_accuracy's random
 * poses before this test). Asked only of pairs with such an edge: pairs of edges that both go
 * in and out are kept as they were (the test would drop some shallow ones on rounding). */
static int closest_points_inside(const Ctx* c, const double p0[3], const double p1[3]) {
  double r[3], x[3];
  cm_v3_sub(r, p0, c->t);
  cm_m3_mulvt(x, c->R, r); /* p0 into B's frame */
  return cm_mesh_inside_local(c->m, c->g[1], x, NULL) &&
         cm_mesh_inside_local(c->m, c->g[0], p1, NULL);
}

/* the crossing records of all intersecting face pairs, sorted; NULL on no memory */
static Rec* crossing_records(const Ctx* c, cmArena* arena, int* nrec) {
  const cmBvh* tA = (const cmBvh*)c->m->geom_bvh + c->g[0];
  const cmBvh* tB = (const cmBvh*)c->m->geom_bvh + c->g[1];
  int cap = 256, np;
  cmTriPair* pairs;
  for (;;) {
    pairs = cm_arena_alloc(arena, (size_t)cap * sizeof *pairs);
    if (!pairs) return NULL;
    np = cm_bvh_tri_pairs(tA, c->v[0], c->f[0], tB, c->v[1], c->f[1], c->R, c->t, pairs, cap);
    if (np <= cap) break;
    cap = np;
  }
  Rec* rec = cm_arena_alloc(arena, ((size_t)np * 6 + 1) * sizeof *rec);
  if (!rec) return NULL;
  int n = 0;
  for (int i = 0; i < np; i++)
    n += pair_records(c, pairs[i].fa, pairs[i].fb, rec + n);
  cm_sort(rec, (size_t)n, sizeof *rec, rec_cmp);
  *nrec = n;
  return rec;
}

/* group the records by edge; candidates have both endpoints outside the other body */
static int edge_groups(const Ctx* c, const Rec* rec, int nrec, Edge* E) {
  int ne = 0;
  for (int r = 0; r < nrec;) {
    Edge* e = &E[ne++];
    e->side = rec[r].side;
    e->e0 = rec[r].e0;
    e->e1 = rec[r].e1;
    e->r0 = r;
    e->nadj = 0;
    while (r < nrec && rec[r].side == e->side && rec[r].e0 == e->e0 && rec[r].e1 == e->e1) {
      int f = rec[r].own, seen = 0;
      for (int k = 0; k < e->nadj; k++)
        seen |= e->adj[k] == f;
      if (!seen && e->nadj < 2) e->adj[e->nadj++] = f;
      r++;
    }
    e->r1 = r;
    /* the smaller adjacent face first (pseudonormal lookup independent of record order) */
    if (e->nadj == 2 && e->adj[1] < e->adj[0]) {
      int f = e->adj[0];
      e->adj[0] = e->adj[1];
      e->adj[1] = f;
    }
    int i0 = vertex_inside(c, e->side, e->e0), i1 = vertex_inside(c, e->side, e->e1);
    e->cand = !(i0 && i1);
    e->end_inside = i0 || i1;
    e->ridge = e->cand && ridge(c, e->side, e->adj[0], e->e0, e->e1);
  }
  return ne;
}

int cm_collide_edges(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                     cmEdgeHit** out) {
  *out = NULL;
  Ctx c;
  c.m = m;
  c.g[0] = m->body_geom[a];
  c.g[1] = m->body_geom[b];
  for (int s = 0; s < 2; s++) {
    if (m->geom_type[c.g[s]] == CM_GEOM_PLANE || m->geom_nface[c.g[s]] == 0) return 0;
    c.v[s] = m->mesh_vert + 3 * (size_t)m->geom_vertadr[c.g[s]];
    c.f[s] = m->mesh_face + 3 * (size_t)m->geom_faceadr[c.g[s]];
  }
  cm_pair_pose(d, a, b, c.R, c.t); /* B into A's frame */
  double RA[9];                    /* A's frame into the world, for the results */
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);

  /* 1-2: crossings, grouped by edge */
  int nrec = 0;
  Rec* rec = crossing_records(&c, arena, &nrec);
  if (!rec) return -1;
  if (nrec == 0) return 0;
  Edge* E = cm_arena_alloc(arena, (size_t)nrec * sizeof *E);
  if (!E) return -1;
  int ne = edge_groups(&c, rec, nrec, E);

  /* 3: linked pairs (group indices), from the edges of the B faces each A edge crosses */
  int* pr = cm_arena_alloc(arena, ((size_t)nrec * 3 + 1) * 2 * sizeof *pr);
  if (!pr) return -1;
  int npr = 0;
  for (int i = 0; i < ne && E[i].side == 0; i++) {
    if (!E[i].cand) continue;
    for (int r = E[i].r0; r < E[i].r1; r++) {
      const int* G = c.f[1] + 3 * rec[r].other;
      for (int k = 0; k < 3; k++) {
        int u = G[k], w = G[(k + 1) % 3];
        int j = find_edge(E, ne, 1, u < w ? u : w, u < w ? w : u);
        if (j < 0 || !E[j].cand || !(E[i].ridge || E[j].ridge)) continue;
        if (!crosses_adjacent(rec, &E[j], &E[i])) continue;
        pr[2 * npr] = i;
        pr[2 * npr + 1] = j;
        npr++;
      }
    }
  }
  cm_sort(pr, (size_t)npr, 2 * sizeof *pr, cm_int2_cmp);

  /* 4: one contact per distinct pair, in world coordinates */
  cmEdgeHit* hit = cm_arena_alloc(arena, ((size_t)npr + 1) * sizeof *hit);
  if (!hit) return -1;
  int nh = 0;
  for (int k = 0; k < npr; k++) {
    if (k > 0 && pr[2 * k] == pr[2 * k - 2] && pr[2 * k + 1] == pr[2 * k - 1]) continue;
    const Edge *ea = &E[pr[2 * k]], *eb = &E[pr[2 * k + 1]];
    double p0[3], p1[3], n[3], w[3], area;
    if (!edge_contact(&c, ea, eb, p0, p1, n, &area)) continue;
    if ((ea->end_inside || eb->end_inside) && !closest_points_inside(&c, p0, p1)) continue;
    cmEdgeHit* h = &hit[nh++];
    h->ea[0] = ea->e0;
    h->ea[1] = ea->e1;
    h->eb[0] = eb->e0;
    h->eb[1] = eb->e1;
    cm_v3_sub(w, p0, p1);
    h->dist = -cm_v3_norm(w);
    h->area = area;
    cm_m3_mulv(h->p0, RA, p0);
    cm_v3_add(h->p0, h->p0, d->body_xpos + 3 * a);
    cm_m3_mulv(h->p1, RA, p1);
    cm_v3_add(h->p1, h->p1, d->body_xpos + 3 * a);
    cm_m3_mulv(h->n, RA, n);
  }
  *out = hit;
  return nh;
}
