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
 * 1. Ridges near the other body. A pair needs a ridge on one side at least: an edge whose two
 *    faces meet at CM_RIDGE_DEG or more (their normals' dot product below its cosine;
 *    model field mesh_face_ridge, set at compile). An edge
 *    whose faces meet at less is part of a flat or smoothly curved surface (the diagonals and
 *    subdivision lines of a box's faces, the edges of a fine sphere). Such an edge of a curved
 *    surface paired with a ridge samples the ridge's way into it; paired with another such edge
 *    it would give a contact whose normal (across the two edges) is not the surface's (a sphere
 *    pressed into a box's face paired its edges with the face's diagonal). An edge between two
 *    coplanar faces (their normals' dot product at least COPLANAR_COS: the diagonals and
 *    subdivision lines of a box's faces) is no edge of the shape at all, only of its
 *    triangulation, and pairs with nothing (coplanar_edge): a ridge paired with it got the
 *    normal across the two edges, which depends on how the face was cut (a ridge lying along
 *    another box's edge, paired with the subdivision line of one face there, was pushed 0.97 mm
 *    across that face while the two boxes overlapped 0.09 mm across the other; crossed box
 *    edges at 2 and 4 divisions got contacts up to 52 % too deep). Until 2026-12-07 such edges
 *    paired with ridges like those of curved surfaces (bench/README.md, "Edges inside a
 *    face"). So the search starts from the ridges of each mesh that
 *    meet the other body's box (cm_seg_box, in the other body's frame): from the mesh's ridge
 *    list (model field mesh_ridge) when it has at most RIDGE_LIST_MAX ridges (a box of 2
 *    divisions has 24), else from the faces in leaves of its tree overlapping that box
 *    (cm_bvh_box_faces). Before anything, a
 *    pair whose two tree boxes are apart along one of the 15 axes of the separating-axis test
 *    (boxes_apart) has no contact: about half the candidate pairs of a settled pile of boxes.
 *    These filters, and B's vertices carried into A's frame once per call, cut the search's
 *    instructions by a third on the S2 pile of 27 boxes (bench/README.md) with the same
 *    contacts, bit for bit.
 * 2. Crossings. Each such ridge is tested against the faces of the other mesh near it
 *    (cm_bvh_seg_faces: exact, symmetric in the edge's direction; a face missed or crossed by far
 *    more than rounding is decided in its own frame, the rest by cm_seg_tri). The partners of a
 *    ridge that crosses faces are the edges of every face it crosses (pairing rule below), but
 *    not those between coplanar faces.
 *    A ridge with both endpoints inside the other body is not searched: every pair it would
 *    make has it as one edge, and step 3 drops an edge with both endpoints inside (the same
 *    contacts bit for bit; the S2 pile of 125 boxes 0.94x the time while it collapses, 0.98x at
 *    rest, where a box resting inside another's top face has its bottom ridges inside).
 *    Until 2026-12-03 every intersecting face pair of the two meshes was found first
 *    (cm_bvh_tri_pairs) and every edge of both faces tested against the other: the same crossings
 *    for the edges that can pair, at 5-10 times the cost of the vertex queries on a pile of
 *    boxes resting face on face, where most intersecting face pairs hold no ridge.
 * 3. Pairing rule (linking): edge eA of A and edge eB of B, one of them a ridge and neither
 *    between coplanar faces (step 1), form a pair iff
 *    eA crosses a face adjacent to eB AND eB crosses a face adjacent to eA, and each is a
 *    candidate: an edge with at most one endpoint inside the other body (cm_mesh_inside_local,
 *    the vertex query's test). With both endpoints outside, an edge that crosses the other
 *    surface crosses it an even number of times, so it goes in and out: its middle part is
 *    inside. With one endpoint inside, that endpoint has a vertex contact from the vertex jobs,
 *    but its depth is its distance to the nearest face, which for a vertex just inside a face
 *    near the other body's ridge is small while the two ridges are crossed deep (S2 pile of 27
 *    boxes: vertex contacts 0.3 and 0.6 mm deep on a pair overlapping 23.6 mm; keeping only edges
 *    with both ends outside left 25.5 mm of overlap in that pile, keeping these 2.2 mm): the edge
 *    contact gives the crossing its real depth. This is ArtiSynth's rule in its simplest form (it
 *    keeps such an edge when the vertex, moved to the surface by its contact, would still leave
 *    the edge inside). An edge with both endpoints inside is covered by its vertices. Linking
 *    through adjacent faces is the local form of ArtiSynth's rule (edges of matching penetration
 *    regions whose closest points are inside the faces around the other edge), which pairs every
 *    edge of one region with every edge of the other and then filters by geometry; it needs no
 *    contour or region and gives exactly one pair for two crossed ridges. Pairs are sorted and
 *    made unique (two crossed ridges are found from both).
 *    Corners. Where a corner of each body is inside the other (two corners interlocked), the
 *    edges at each corner enter the other body through the third face at the other's corner,
 *    not through a face adjacent to the other edge: no pair is linked, and the two vertex
 *    contacts (each as deep as its corner is from the nearest face) held a pair of boxes of the
 *    S2 pile of 125 boxes 10.6 mm inside each other to the end of the run, the vertex contacts
 *    2.3 and 2.8 mm deep. So a corner ridge (a ridge with exactly one endpoint inside the other
 *    body: it crosses the other surface an odd number of times, and the inside tests confirm
 *    it) pairs with every corner ridge of the other body. Such a pair that passes step 4 with
 *    its closest points inside is capped also by the projected overlaps across the faces at both
 *    corners
 *    (vertex_depth_cap), which bound the separating depth where the faces at its edges do not,
 *    and kept only if its closest points are at most CORNER_SLACK (1.25) times that depth
 *    apart: its own axis is then about the least overlap known, the direction the bodies
 *    separate along (boxes face on face with flush sides pair corner ridges across the flush
 *    faces, with a normal along the faces and a depth of the faces' overlap); of the kept ones
 *    the one whose axis the bodies' boxes overlap least along (projected_overlap: the
 *    separating-axis test's choice; the nearest, the least dist, until 2026-12-07; overlaps
 *    within the pair's rounding margin are a tie, taken by the edges' order: less_overlap)
 *    stands for the interlock. The interlocked pair of the S2 pile gets a contact
 *    10.63 mm deep (its separating-axis depth is 10.64 mm) and is pushed apart within 40 ms
 *    (physics/test_pile_overlap). Over four S2 piles of 120-128 boxes (lattices 5x5x5, 6x5x4,
 *    4x4x8, 5x4x6, t = 1 to 3 s) the deepest box-box overlap averages 2.7, 2.9, 2.5, 4.1 mm
 *    and ends at 2.6, 2.7, 1.5, 3.6 mm, against 10.6, 19.2, 1.9, 2.3 and 10.6, 18.8, 1.3,
 *    1.8 mm before. In unit/test_method_accuracy's random poses every corner pair was up to 9
 *    times the overlap before the cap and the slack, none beyond twice with them. Until
 *    2026-12-07 two corner ridges paired only when each crossed a face at the other's inside
 *    endpoint ("linked at the corners"); in the S2 pile of 1000 boxes two corners interlocked
 *    27.7 mm deep (the separating-axis depth) had one such pair, which step 4 rejects (its
 *    normal leads into B at eB), while the pair of ridges along the separating axis crosses no
 *    face at the other's corner. The caps, the slack and the least-overlap choice keep a
 *    corner pair to the separating direction; with every pair of corner ridges listed that
 *    pose gets a contact 27.7 mm deep, and unit/test_edge_contact's random poses give a corner
 *    pair in 114 of 300 (15 before), none deeper than twice the overlap
 *    (unit/test_method_accuracy).
 *    Chains. A box of 2 or more divisions splits each edge into collinear ridges. Where two box
 *    edges cross deep, the corner of each and the next vertex along its edge inside the other
 *    box, the pieces that cross have both endpoints inside (no pair), and the corner ridges
 *    next to them have their lines' closest points beyond their inside endpoints (step 4
 *    rejects them): only the vertex contacts were left, each as deep as its vertex is from the
 *    nearest face. In the S2 pile of 1000 boxes impacts during the collapse drove pairs into
 *    this pose and its vertex contacts held them there to the end (33.5 mm deep against 6 to
 *    13 mm for the vertex contacts; 399 pairs more than 3 mm deep at rest). So a candidate
 *    whose lines' closest points lie beyond an endpoint of an edge, where that endpoint is
 *    inside the other body and the edge's other one outside (a corner ridge's inside endpoint;
 *    for a listing from a crossing, tested), is followed along the chain (chain_pair): the
 *    edge is replaced by the ridge that continues it straight on through that endpoint (its
 *    direction within a sine of 1e-6; chain_next, walking the faces around the vertex), while
 *    the closest point lies beyond and the vertex passed is inside. A listing from a crossing
 *    covers a box edge entering the other body at one piece whose next piece crosses the
 *    other's edge (in the pile: the other body's ridge crosses both, no vertex of its own
 *    inside). The pair found is a corner pair as above (the same caps, at the chains' last
 *    inside vertices, and slack, its closest points inside both bodies, the least overlap
 *    kept); physics/test_pile_overlap's crossed edges get one edge contact as deep as the
 *    separating-axis depth, along its axis. unit/test_edge_contact's brute-force reference
 *    follows the same rules.
 *    Facets. On a mesh of planar facets (a convex mesh of at most CM_FACET_MAX: a box of any
 *    divisions has 6) an edge can enter the other body beside its partner through a triangle of
 *    the same facet that is adjacent to neither: a box edge crossing the other's edge next to
 *    its middle vertex (the pieces on either side of that vertex, each with one end inside), or
 *    a corner pressed into a face near the face's corner, whose edges enter through the face's
 *    facet away from the ridges they pass. Triangle-level linking pairs nothing there and the
 *    vertex contacts push towards the nearest faces: unit/test_method_accuracy's crossed poses
 *    had a pose whose deepest contact was 98 % too shallow, the S2 pile of 1000 boxes two pairs
 *    12.8 and 16.4 mm deep with contacts of 2.7 and 5.4 mm, a pile of 120 boxes two corners 12
 *    mm deep along a face normal. So two ridges also pair when each crosses properly a facet of
 *    the other's two faces (model field mesh_face_facet; on a mesh without facets each face is
 *    its own): a face of it, listed by the ridge's crossings in step 2, with the ridge's
 *    endpoints on either side of the facet's plane by more than pair_eps (exactly coincident or
 *    flush boxes touch each other's facets all along: those touchings link nothing). The
 *    crossings of the two sides are matched facet by facet (Crossing), not listed edge by edge
 *    (all the ridges of a crossed facet listed as partners cost 2.15x the search's
 *    instructions, 1.44x a resting step of the pile of 125 boxes). A pair linked so and not
 *    through the triangles at its edges, and no deeper than CHAIN_MIN_DEPTH of the thinner body,
 *    is held to the corner pairs' rule: slack, caps at its inside endpoints, the least
 *    projected overlap; and only the one of least overlap is kept, where that overlap is also
 *    less than the corner pair's and every linked pair's (else it would add a second contact
 *    beside the right one). The crossed poses' mean depth error 0.0328 -> 0.0055, the random
 *    poses' 0.0088, 0.0183, 0.0236 -> 0.0043, 0.0104, 0.0102 at 1, 2, 4 divisions
 *    (physics/test_pile_overlap, test_corner_into_face; bench/README.md, "Crossings through
 *    facets"). Deeper, it is linked like a pair linked through the triangles (since
 *    2026-12-07, latest): which triangles lie next to an edge depends on how its faces were cut,
 *    and two cubes cut along one diagonal of each side or the other got different edge
 *    contacts (deeper than 2.5 mm) in 127 of 1002 random poses overlapping less than a quarter
 *    of the side and 27 of 998 deeper ones, one pose losing its only edge contact (12.4 mm
 *    against a separating-axis depth of 14.2 mm); now in none (unit/test_edge_contact,
 *    test_triangulation_invariance). Shallower pairs keep the rule: linked at every depth,
 *    the pairs of a resting pile that cross each other's facets by a hair came and went
 *    (physics/test_pile_overlap's steady contacts: 0.62 % of its pairs changed per step, 0
 *    before), and the pair's least overlap (step 4) holds the second contact the rule guarded
 *    against to the separating depth.
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
 *    Depth: |p0 - p1|, but no more than the bodies' projected overlap along the normals of the
 *    faces around the two edges (edge_depth): unit/test_method_accuracy's poses with an edge
 *    contact deeper than twice the overlap 11 -> 0 of 2,824.
 *    The pair's least overlap. Two bodies crossed edge on edge in two places (two linked pairs,
 *    or a linked pair and the corner pair) give each contact the overlap along its own axis,
 *    and only one of those axes is the way the bodies separate: the other contact pushed up to
 *    1.5 times the separating-axis depth along a direction the bodies need not move in. Moving a
 *    body by the overlap of the two bodies' projections on a direction separates them, so no
 *    penetration of the pair is deeper than the least such overlap along the hits' normals:
 *    every hit's depth is capped by it once the pair's hits are known (since 2026-12-07;
 *    unit/test_method_accuracy's random poses: mean depth error 0.00345 / 0.00362 / 0.00143 ->
 *    0.00066 / 0.00083 / 0.00066 at 1, 2, 4 divisions, the worst +0.499 -> +0.110, which is a
 *    vertex contact's). The reported depth is the capped one; the areas are not changed.
 *    Edges that a vertex contact covers. A pair with an endpoint inside the other body (a
 *    corner pair, a chain, or a linked pair one of whose edges ends inside) has a vertex
 *    contact at that endpoint too. Its edge axis n is perpendicular to both edges, so the
 *    endpoint lies exactly as deep along n as the edge's closest point; where that vertex
 *    contact's normal is n as well (an edge lying parallel to a face at the other edge: boxes
 *    resting flush on each other with an overhang), the two contacts measure one overlap and
 *    the pair would count its area twice. So the pair's area is weighed by the share of its
 *    depth d along n that no such vertex contact gives: a vertex contact of depth d_v and
 *    normal m gives q = d_v (m . n); q >= d covers the pair (dropped), q <= (1 - COVER_BAND) d
 *    leaves it whole, linearly between (covered; the vertex contact is the vertex job's own,
 *    cm_collide_vertex). Until 2026-12-07 such pairs were kept whole, and in the flush case
 *    their closest points lie on the other body's side plane, so the pile's jitter put them
 *    in and out of it from one step to the next (closest_points_inside): the contact
 *    came and went at full force, in 2 % of the pairs of the resting pile of 1000 boxes every
 *    step, some 40 N each (bench/README.md, "Edge contacts that came and went"). A vertex
 *    contact whose face changes carries the weight with it: its push along n and the edge
 *    contact's change together. A corner pair followed along chains that ends on the edges of
 *    a linked pair found as well is not given again (it was, at twice the force).
 * Output in world: p = R_A p_local + x_A, n = R_A n_local, sorted by (eA, eB). */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "geom/bvh.h"
#include "geom/closest.h"
#include "geom/facets.h"
#include "geom/tri_tri.h"

/* an edge (e0 < e1) of mesh `side` (0 = A, 1 = B), with its adjacent faces (smaller first) */
typedef struct Edge {
  int side, e0, e1;
  int adj[2], nadj;
  int ridge;        /* its faces meet at CM_RIDGE_DEG or more */
  const double* pn; /* its pseudonormal (mesh_edge_pn) when taken from face adj[0], else NULL */
  int end_inside;   /* one endpoint inside the other body */
} Edge;

/* a candidate pair: A's edge (a0 < a1) as edge ka of face fa, B's (b0 < b1) as edge kb of fb */
typedef struct Cand {
  int a0, a1, b0, b1;
  int fa, ka, fb, kb;
  /* two corner ridges (one endpoint inside the other body each), listed as such: 1, plus 2 if
   * A's inside endpoint is a1 (else a0), plus 4 if B's is b1; 0 otherwise */
  int corner;
  /* listed from a crossing (step 2): 1 if A's edge is a ridge found crossing fb (a face at B's
   * edge), 2 if B's edge is one found crossing fa; 0 for a corner listing */
  int from;
} Cand;

typedef struct Ctx {
  const cmModel* m;
  int g[2];              /* geometries of A and B */
  const double* v[2];    /* body-frame vertices */
  const int* f[2];       /* faces */
  const double* root[2]; /* their trees' root boxes (each in its body's frame) */
  /* each mesh's rows of the model's per-face fields, from geom_faceadr once per pair rather
   * than through the model at each use (the same numbers; 1000-box pile at rest 0.995x the
   * instructions) */
  const int* adj[2];       /* mesh_face_adj */
  const int* ridge[2];     /* mesh_face_ridge */
  const double* normal[2]; /* mesh_face_normal */
  const double* epn[2];    /* mesh_edge_pn */
  double R[9], t[3];       /* B into A's frame */
  double eps;              /* pair_eps */
  /* the cosines of CONE_FLAT_DEG and CONE_RIDGE_DEG, once per call (edge_contact, no longer
   * inlined into its two callers, computed them twice per candidate) */
  double cos_flat, cos_ridge;
  /* B's vertices carried into A's frame, computed once per call when first asked for (ydone[i]
   * set): the same values as cm_tri_xform each time, which the search asked for 5-10 times per
   * vertex */
  double* yb;
  unsigned char* ydone;
  /* inside tests of the vertices of each side, cached per pair (-1: not yet asked) */
  signed char* ins[2];
  /* the centre of B's tree box carried into A's frame (projected_overlap) */
  double bw[3];
  /* A's tree box's centre and half extents and B's half extents, each in its own frame
   * (projected_overlap's terms, once per pair rather than per call: the same numbers, 0.997x
   * the search's instructions) */
  double ac[3], ah[3], bh[3];
  /* face_cap's projected overlap across each face of each side, cached per pair (set where
   * fdone[side][f] is; a face is asked for by every edge pair around it), for meshes of at most
   * FOVER_MAX faces (NULL beyond) */
  double* fover[2];
  unsigned char* fdone[2];
  /* facet-level linking: the facet (local) of each face of each side (model field
   * mesh_face_facet), NULL for a mesh without facets or of more than CM_FACET_MAX (then
   * triangle-level) */
  const int* facet_of[2];
  /* the vertex contacts of the inside endpoints (covered): the data, the scratch arena and the
   * two bodies, each side's vertex pose (against the other body) once made (vp_done), and each
   * vertex's contact once asked for (vh_done, taken with the pose on meshes of at most
   * FOVER_MAX vertices; NULL beyond or without memory: asked each time) */
  const cmData* d;
  cmArena* arena;
  int body[2];
  cmVertexPose vp[2];
  int vp_done[2];
  cmHit* vh[2];
  unsigned char* vh_done[2];
} Ctx;

#define FOVER_MAX 512
/* two faces whose unit normals' dot product is at least this are coplanar (an angle below
 * 1.4e-6 rad; the facets' own test, cm_facets_build, holds normals within 1e-12) */
#define COPLANAR_COS (1 - 1e-12)

int cm_collide_facet_link = 1;
int cm_collide_cover = 1;

static int cand_cmp(const void* x, const void* y) {
  const Cand *p = x, *q = y;
  if (p->a0 != q->a0) return p->a0 < q->a0 ? -1 : 1;
  if (p->a1 != q->a1) return p->a1 < q->a1 ? -1 : 1;
  if (p->b0 != q->b0) return p->b0 < q->b0 ? -1 : 1;
  return (p->b1 > q->b1) - (p->b1 < q->b1);
}

/* the candidates of cand[lo, hi) by their edges (cand_cmp), by insertion */
static void insertion_cands(Cand* cand, int lo, int hi) {
  for (int i = lo + 1; i < hi; i++) {
    Cand x = cand[i];
    int j = i;
    for (; j > lo && cand_cmp(&cand[j - 1], &x) > 0; j--)
      cand[j] = cand[j - 1];
    cand[j] = x;
  }
}

/* the candidates by their edges (cand_cmp): runs of 16 by insertion, then merged bottom-up
 * through the scratch tmp (nc entries); by insertion alone when tmp is NULL. A pair of boxes
 * lists 0 to a few hundred candidates, listed ridge by ridge and so partly in order (cm_sort's
 * heap sort through the comparison pointer cost 2 % of a resting S2 125 step). Equal
 * candidates (the same two edges, found from both ridges) differ only in the faces they were
 * reached from, which give the same edges and geometry (edge_of, edge_pn): their order does
 * not change the contacts. */
static void sort_cands(Cand* cand, int nc, Cand* tmp) {
  enum { RUN = 16 };
  if (!tmp || nc <= RUN) {
    insertion_cands(cand, 0, nc);
    return;
  }
  for (int lo = 0; lo < nc; lo += RUN)
    insertion_cands(cand, lo, lo + RUN < nc ? lo + RUN : nc);
  Cand *src = cand, *dst = tmp;
  for (int w = RUN; w < nc; w *= 2) {
    for (int lo = 0; lo < nc; lo += 2 * w) {
      int mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc;
      int i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        dst[o++] = cand_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid)
        dst[o++] = src[i++];
      while (j < hi)
        dst[o++] = src[j++];
    }
    Cand* t = src;
    src = dst;
    dst = t;
  }
  if (src != cand) memcpy(cand, src, (size_t)nc * sizeof *cand);
}

/* a candidate's edges as one key k (a0, a1, b0, b1 in 16 bits each, a0 highest: as numbers the
 * keys order as cand_cmp orders the candidates, where every index is below 2^16; equal keys,
 * equal edges) and its index i in the array of candidates */
typedef struct Key {
  uint64_t k;
  int i;
} Key;

/* the keys of key[lo, hi) by k, by insertion */
static void insertion_keys(Key* key, int lo, int hi) {
  for (int i = lo + 1; i < hi; i++) {
    Key x = key[i];
    int j = i;
    for (; j > lo && key[j - 1].k > x.k; j--)
      key[j] = key[j - 1];
    key[j] = x;
  }
}

/* sort_cands through the keys of the nc candidates, for meshes of at most 2^16 vertices each:
 * the same sort (runs of 16 by insertion, merged bottom-up; stable) on 16 bytes and one
 * comparison per step rather than 40 bytes and up to four comparisons, so the same order; the
 * candidates themselves stay where they are. key holds 2 nc entries (the second half the
 * merge's scratch); returns the sorted keys (key or key + nc). The 1000-box pile at rest:
 * 0.988x the search's instructions. */
static const Key* sort_cands_keyed(const Cand* cand, int nc, Key* key) {
  enum { RUN = 16 };
  for (int i = 0; i < nc; i++) {
    const Cand* C = &cand[i];
    key[i].k =
        (uint64_t)C->a0 << 48 | (uint64_t)C->a1 << 32 | (uint64_t)C->b0 << 16 | (uint64_t)C->b1;
    key[i].i = i;
  }
  if (nc <= RUN) {
    /* one run (most pairs list at most 16 candidates): each key put at its rank, the number of
     * keys before it in a stable order (less, or equal and listed earlier), counted without a
     * branch on the keys (the insertion's comparisons were mispredicted); a stable sort's order
     * is the one order of that kind, so the same as the insertion's */
    Key* dst = key + nc;
    for (int i = 0; i < nc; i++) {
      uint64_t x = key[i].k;
      int r = 0;
      for (int j = 0; j < nc; j++)
        r += (key[j].k < x) | ((key[j].k == x) & (j < i));
      dst[r] = key[i];
    }
    return dst;
  }
  for (int lo = 0; lo < nc; lo += RUN)
    insertion_keys(key, lo, lo + RUN < nc ? lo + RUN : nc);
  Key *src = key, *dst = key + nc;
  for (int w = RUN; w < nc; w *= 2) {
    for (int lo = 0; lo < nc; lo += 2 * w) {
      int mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc;
      int i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        dst[o++] = src[j].k < src[i].k ? src[j++] : src[i++];
      while (i < mid)
        dst[o++] = src[i++];
      while (j < hi)
        dst[o++] = src[j++];
    }
    Key* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/* vertex i of mesh side in A's frame, where it is kept (A's own, B's carried: yb) */
static inline const double* vert_p(const Ctx* c, int side, int i) {
  if (side == 0) return c->v[0] + 3 * (size_t)i;
  double* z = c->yb + 3 * (size_t)i;
  if (!c->ydone[i]) {
    cm_tri_xform(z, c->R, c->t, c->v[1] + 3 * (size_t)i);
    c->ydone[i] = 1;
  }
  return z;
}

/* vertex i of mesh side in A's frame, copied to y */
static void vert_a(const Ctx* c, int side, int i, double y[3]) {
  cm_v3_copy(y, vert_p(c, side, i));
}

/* is vertex i of mesh side inside the other mesh? (not yet cached: vertex_inside) */
static int vertex_inside_query(Ctx* c, int side, int i) {
  double y[3], r[3], x[3];
  int in;
  vert_a(c, side, i, y);
  if (side == 1)
    in = cm_mesh_inside_local(c->m, c->g[0], y, NULL);
  else {
    /* A's vertex into B's frame: x = R^T (y - t) */
    cm_v3_sub(r, y, c->t);
    cm_m3_mulvt(x, c->R, r);
    in = cm_mesh_inside_local(c->m, c->g[1], x, NULL);
  }
  c->ins[side][i] = (signed char)in;
  return in;
}

/* is vertex i of mesh side inside the other mesh? From the cache when asked before (most
 * calls), inlined; the query kept out of line (a call of the whole cost its frame on every ask:
 * 0.987x the search's instructions on the 1000-box pile at rest) */
static inline __attribute__((always_inline)) int vertex_inside(Ctx* c, int side, int i) {
  int in = c->ins[side][i];
  return in >= 0 ? in : vertex_inside_query(c, side, i);
}

/* the face across edge k of face f (local index) of mesh side, -1 if none */
static int face_across(const Ctx* c, int side, int f, int k) {
  return c->adj[side][3 * (size_t)f + k];
}

/* is edge k of face f of mesh side between two coplanar faces (their normals within
 * COPLANAR_COS: an edge inside a planar facet, which the triangulation made, not the shape)? */
static int coplanar_edge(const Ctx* c, int side, int f, int k) {
  int g = face_across(c, side, f, k);
  if (g < 0) return 0;
  return cm_v3_dot(c->normal[side] + 3 * (size_t)f, c->normal[side] + 3 * (size_t)g) >=
         COPLANAR_COS;
}

/* the ridge bits of face f of mesh side (model field mesh_face_ridge) */
static int ridges_of(const Ctx* c, int side, int f) {
  return c->ridge[side][f];
}

/* edge k of face f of mesh side, with its adjacent faces (inlined into edge_contact, its only
 * caller: 560 k calls in a resting S2 125 run) */
static inline __attribute__((always_inline)) void edge_of(const Ctx* c, int side, int f, int k,
                                                          Edge* e) {
  const int* F = c->f[side] + 3 * f;
  int u = F[k], w = F[(k + 1) % 3], g = face_across(c, side, f, k);
  e->side = side;
  e->e0 = u < w ? u : w;
  e->e1 = u < w ? w : u;
  e->ridge = ridges_of(c, side, f) >> k & 1;
  e->nadj = 1;
  e->adj[0] = f;
  if (g >= 0) {
    e->nadj = 2;
    e->adj[0] = f < g ? f : g;
    e->adj[1] = f < g ? g : f;
  }
  e->pn = e->adj[0] == f ? c->epn[side] + 9 * (size_t)f + 3 * k : NULL;
}

/* face f of mesh side in A's frame */
static void face_a(const Ctx* c, int side, int f, double P[3][3]) {
  const int* F = c->f[side] + 3 * f;
  for (int k = 0; k < 3; k++)
    vert_a(c, side, F[k], P[k]);
}

/* the facet of face f of mesh side for facet-level linking: its facet, or f itself on a mesh
 * without facets */
static int facet_id(const Ctx* c, int side, int f) {
  return c->facet_of[side] ? c->facet_of[side][f] : f;
}

/* does the segment pq (mesh side's frame) cross the plane of face f's facet (facet_id F) of mesh
 * side properly: its endpoints on either side beyond pair_eps? The facet's plane (facet_plane),
 * or on a mesh without facets the face's own (its normal through its first vertex) */
static int crosses_plane(const Ctx* c, int side, int f, int F, const double p[3],
                         const double q[3]) {
  const cmModel* m = c->m;
  double P[4];
  if (c->facet_of[side]) {
    memcpy(P, m->facet_plane + 4 * (size_t)(m->geom_facetadr[c->g[side]] + F), sizeof P);
  } else {
    cm_v3_copy(P, c->normal[side] + 3 * (size_t)f);
    P[3] = cm_v3_dot(P, c->v[side] + 3 * (size_t)c->f[side][3 * f]);
  }
  double sp = cm_v3_dot(P, p) - P[3], sq = cm_v3_dot(P, q) - P[3];
  /* (& and | of the comparisons, no short-circuit: the same answer, fewer mispredicted branches) */
  return ((sp > c->eps) & (sq < -c->eps)) | ((sp < -c->eps) & (sq > c->eps));
}

/* does edge x cross one of the faces adjacent to edge y (of the other mesh)? */
static int crosses_adjacent(const Ctx* c, const Edge* x, const Edge* y) {
  double p[3], q[3], P[3][3];
  vert_a(c, x->side, x->e0, p);
  vert_a(c, x->side, x->e1, q);
  for (int k = 0; k < y->nadj; k++) {
    face_a(c, y->side, y->adj[k], P);
    if (cm_seg_tri(p, q, P[0], P[1], P[2], NULL) != CM_SEG_TRI_NONE) return 1;
  }
  return 0;
}

/* edge pseudonormal (body frame of its mesh) of edge e, from its first adjacent face */
static const double* edge_pn(const Ctx* c, const Edge* e) {
  if (e->pn) return e->pn;
  int f = e->adj[0];
  const int* F = c->f[e->side] + 3 * f;
  for (int k = 0; k < 3; k++) {
    int u = F[k], w = F[(k + 1) % 3];
    if ((u == e->e0 && w == e->e1) || (u == e->e1 && w == e->e0))
      return c->epn[e->side] + 9 * (size_t)f + 3 * k;
  }
  return c->normal[e->side] + 3 * (size_t)f; /* not reached */
}

/* Is the unit direction u (A's frame) farther than the angle of cosine cos_max from the normal
 * cone of edge e (the arc of outward directions between its two faces' normals, all three
 * perpendicular to the edge)? 0 inside the arc; outside it, the angle to the nearer end exceeds
 * the limit when the larger of the cosines to the two ends is below cos_max (compared as cosines:
 * no arccosine, 1 % of a step of the S2 pile). */
static int outside_cone(const Ctx* c, const Edge* e, const double u[3], double cos_max) {
  const double* N = c->normal[e->side];
  double n1[3], n2[3];
  if (e->side == 0) {
    cm_v3_copy(n1, N + 3 * e->adj[0]);
    cm_v3_copy(n2, N + 3 * e->adj[e->nadj - 1]);
  } else {
    cm_m3_mulv(n1, c->R, N + 3 * e->adj[0]);
    cm_m3_mulv(n2, c->R, N + 3 * e->adj[e->nadj - 1]);
  }
  double x1[3], x2[3], mid[3];
  cm_v3_cross(x1, n1, u);
  cm_v3_cross(x2, u, n2);
  cm_v3_add(mid, n1, n2);
  if (cm_v3_dot(x1, x2) >= 0 && cm_v3_dot(u, mid) > 0) return 0;
  /* both cosines below the limit (clamping them to [-1, 1] first would not change that) */
  return cm_v3_dot(u, n1) < cos_max && cm_v3_dot(u, n2) < cos_max;
}

/* how far (degrees) the pair's normal may lie outside an edge's normal cone: a flat edge (faces
 * meeting at less than CM_RIDGE_DEG) stands for its face, whose normal the normal of a ridge
 * pressed into it tilts from by the ridge's slope; a ridge's cone is its own */
#define CONE_FLAT_DEG 60.0
#define CONE_RIDGE_DEG 15.0

/* a corner pair is kept only where its closest points are at most this factor farther apart
 * than its capped depth (module comment, step 3) */
#define CORNER_SLACK 1.25

/* the band of depths, in units of an edge contact's own, over which a vertex contact along its
 * normal takes its place (covered) */
#define COVER_BAND 0.05

/* meshes with at most this many ridges are searched from their ridge list (listed_ridges) */
#define RIDGE_LIST_MAX 64

/* the lines of candidate C's edges (A's frame): a0 and b0 (where vert_p keeps them, not
 * copied: the same values, 0.997x the search's instructions), the directions dA = a1 - a0 and dB =
 * b1 - b0, n = dA x dB, den = |n|^2, and the parameters st of their closest points (a0 + st[0] dA,
 * b0 + st[1] dB); 0 if the edges are parallel (st not set) */
static inline __attribute__((always_inline)) int
lines_closest(const Ctx* c, const Cand* C, const double** pa0, const double** pb0, double dA[3],
              double dB[3], double n[3], double* den, double st[2]) {
  double r[3];
  const double *a0 = vert_p(c, 0, C->a0), *a1 = vert_p(c, 0, C->a1);
  const double *b0 = vert_p(c, 1, C->b0), *b1 = vert_p(c, 1, C->b1);
  *pa0 = a0;
  *pb0 = b0;
  cm_v3_sub(dA, a1, a0);
  cm_v3_sub(dB, b1, b0);
  cm_v3_sub(r, a0, b0);
  cm_v3_cross(n, dA, dB);
  double aa = cm_v3_dot(dA, dA), ee = cm_v3_dot(dB, dB);
  *den = cm_v3_dot(n, n);
  if (!(*den > 1e-18 * aa * ee)) return 0;
  double bb = cm_v3_dot(dA, dB), cc = cm_v3_dot(dA, r), ff = cm_v3_dot(dB, r);
  st[0] = (bb * ff - cc * ee) / *den;
  st[1] = (aa * ff - bb * cc) / *den;
  return 1;
}

/* the contact of the edges of candidate C (A's a0-a1 as edge ka of face fa, B's b0-b1 as edge
 * kb of fb), in A's frame; 0 if rejected. The lines' closest points first, from the vertices
 * alone: most candidates are rejected there, before their edges' faces are looked up (edge_of;
 * the same edges, a0 < a1 and b0 < b1 as edge_of orders them, so the same result).
 * range_only: 0 as soon as the closest points are found on both edges (a pair that could not
 * be kept there: the caller's unlinked runs). Forced inline into its one caller: with the
 * facet-level linking GCC stopped inlining it */
static inline __attribute__((always_inline)) int
edge_contact(const Ctx* c, const Cand* C, double p0[3], double p1[3], double n[3], double* area,
             Edge* eas, Edge* ebs, double st[2], int range_only) {
  const double *a0, *b0;
  double dA[3], dB[3], w[3], den;
  if (!lines_closest(c, C, &a0, &b0, dA, dB, n, &den, st)) return 0; /* parallel */
  double s = st[0], u = st[1]; /* (st also for the chains: module comment, step 3) */
  const double tol = 1e-9;
  /* (one branch on the four comparisons, which have no side effects: the same answer) */
  if (!((s >= -tol) & (s <= 1 + tol) & (u >= -tol) & (u <= 1 + tol))) return 0;
  if (range_only) return 0;
  s = s < 0 ? 0 : s > 1 ? 1 : s;
  u = u < 0 ? 0 : u > 1 ? 1 : u;
  const Edge *ea = eas, *eb = ebs;
  edge_of(c, 0, C->fa, C->ka, eas);
  edge_of(c, 1, C->fb, C->kb, ebs);
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
  /* and lie in (or near) both edges' normal cones: out of B at eB, out of A along -n at eA */
  double mn[3];
  cm_v3_scale(mn, n, -1);
  const double tf = c->cos_flat, tr = c->cos_ridge;
  if (outside_cone(c, eb, n, eb->ridge ? tr : tf) || outside_cone(c, ea, mn, ea->ridge ? tr : tf))
    return 0;
  /* area of the faces adjacent to eA, projected */
  double sum[3] = {0, 0, 0};
  const double* fa = c->m->mesh_face_area + c->m->geom_faceadr[c->g[0]];
  for (int k = 0; k < ea->nadj; k++) {
    size_t f = (size_t)ea->adj[k];
    cm_v3_madd(sum, sum, c->normal[0] + 3 * f, fa[f]);
  }
  *area = fabs(cm_v3_dot(n, sum)) / 3;
  return 1;
}

/* The overlap of the two bodies' projections on the unit direction u (A's frame), from their
 * tree boxes (each box in its body's frame, B's carried by R, t): min(max_A - min_B, max_B -
 * min_A). Moving one body by that much along u separates the projections and so the bodies
 * (whatever their shapes), so no penetration is deeper; the boxes contain the meshes, so it is
 * at least the meshes' own projections' overlap. */
static double projected_overlap(const Ctx* c, const double u[3]) {
  double ca = 0, ra = 0, cb, rb = 0;
  for (int k = 0; k < 3; k++) {
    ca += c->ac[k] * u[k];
    ra += c->ah[k] * fabs(u[k]);
  }
  cb = cm_v3_dot(c->bw, u);
  for (int k = 0; k < 3; k++) {
    /* B's axis k in A's frame: column k of R */
    double ak = c->R[k] * u[0] + c->R[3 + k] * u[1] + c->R[6 + k] * u[2];
    rb += c->bh[k] * fabs(ak);
  }
  return fmin(ca + ra - (cb - rb), cb + rb - (ca - ra));
}

/* The depth of an edge contact: |p0 - p1| along its normal, which is the overlap along that
 * axis, but no more than the bodies' projected overlap along the normals of the faces around
 * the two edges: where the bodies separate by less along one of those (two boxes crossed edge
 * on edge whose least overlap is across a face), the depth along the edges' axis would push far
 * harder than the overlap warrants (20 mm where the bodies overlap less than 14 mm, seen in the
 * S2 pile of 125 boxes). */
/* d, but no more than the bodies' projected overlap along the normal of face f of mesh side */
static double face_cap(const Ctx* c, int side, int f, double d) {
  double x, *o = c->fover[side] ? c->fover[side] + f : &x;
  if (!c->fover[side] || !c->fdone[side][f]) {
    const double* n = c->normal[side] + 3 * (size_t)f;
    double u[3];
    if (side == 0)
      cm_v3_copy(u, n);
    else
      cm_m3_mulv(u, c->R, n);
    *o = fmax(0, projected_overlap(c, u));
    if (c->fover[side]) c->fdone[side][f] = 1;
  }
  return fmin(d, *o);
}

static double edge_depth(const Ctx* c, const Edge* ea, const Edge* eb, double d) {
  for (int s = 0; s < 2; s++) {
    const Edge* e = s ? eb : ea;
    for (int k = 0; k < e->nadj; k++)
      d = face_cap(c, s, e->adj[k], d);
  }
  return d;
}

/* d, but no more than the bodies' projected overlap along the normals of the faces around vertex
 * v of mesh side, walked from face f (which has v) across the edges at v: at a corner inside
 * the other body, the overlaps across the corner's faces bound the depth of a corner pair
 * (module comment, step 3) where those across its edges' faces alone do not */
static double vertex_depth_cap(const Ctx* c, int side, int f, int v, double d) {
  for (int start = f, step = 0; f >= 0 && step < 64; step++) {
    const int* F = c->f[side] + 3 * f;
    int j = F[0] == v ? 0 : F[1] == v ? 1 : 2;
    d = face_cap(c, side, f, d);
    f = face_across(c, side, f, j); /* across the edge from v to the next vertex */
    if (f == start) break;
  }
  return d;
}

/* are the closest points inside the other body (p0, on A's edge, inside B; p1, on B's, inside
 * A; both in A's frame)? At a crossing of two linked ridges the two points bound the overlap
 * along n, so both are inside; an edge that ends inside the other body can be paired with an
 * edge it does not cross, and the closest points of their lines then lie outside, at a distance
 * that is not a penetration (up to 17 times the overlap in unit/test_method_accuracy's random
 * poses before this test). Asked only of pairs with such an edge: pairs of edges that both go
 * in and out are kept as they were (the test would drop some shallow ones on rounding). */
static int inside_or_on(const cmModel* m, int g, const double x[3]) {
  if (cm_mesh_inside_local(m, g, x, NULL)) return 1;
  /* within the surface band of a mesh with ridges (CM_SURFACE_BAND, as the vertex contacts):
   * two ridges crossed square have their closest points in the faces at the other's ridge (an
   * edge under a box's top ridge: its closest point lies in the box's side plane), and a tilt
   * of rounding's size put one of two mirror-image crossings in and the other out: a box
   * overhanging another's edge, held by two such crossings, kept one of them each step,
   * alternately, and rocked to the end (2026-12-07, an audit) */
  return m->geom_nridge[g] > 0 && cm_mesh_near_surface(m, g, x, NULL);
}

static int closest_points_inside(const Ctx* c, const double p0[3], const double p1[3]) {
  double r[3], x[3];
  cm_v3_sub(r, p0, c->t);
  cm_m3_mulvt(x, c->R, r); /* p0 into B's frame */
  return inside_or_on(c->m, c->g[1], x) && inside_or_on(c->m, c->g[0], p1);
}

/* How much of an edge contact of depth `depth` along the world unit normal nw (out of B toward
 * A) the vertex contact of vertex v of mesh side (inside the other body) already gives: its
 * depth along nw (for a vertex of B along -nw), -dist (n . nw), at least `depth`: 1; at most
 * (1 - COVER_BAND) depth: 0; linearly between (module comment, step 4, "Edges that a vertex
 * contact covers"). The vertex contact is the vertex job's own (cm_collide_vertex_posed:
 * nearest face, or the nearest facing against it), asked once per pair and vertex. */
static double covered(Ctx* c, int side, int v, const double nw[3], double depth) {
  if (!c->vp_done[side]) {
    cm_vertex_pose(c->m, c->d, c->body[side], c->body[1 - side], &c->vp[side]);
    c->vp_done[side] = 1;
    /* the contacts' cache, taken on first use (most pairs never ask); without memory, none */
    size_t nv = (size_t)c->m->geom_nvert[c->g[side]];
    if (nv <= FOVER_MAX) {
      c->vh[side] = cm_arena_alloc(c->arena, nv * sizeof *c->vh[side]);
      c->vh_done[side] = cm_arena_alloc(c->arena, nv);
      if (c->vh_done[side]) memset(c->vh_done[side], 0, nv);
      if (!c->vh[side] || !c->vh_done[side]) c->vh[side] = NULL;
    }
  }
  cmHit local, *h = &local;
  if (c->vh[side]) {
    h = &c->vh[side][v];
    if (!c->vh_done[side][v]) {
      cm_collide_vertex_posed(c->m, c->d, &c->vp[side], v, h);
      c->vh_done[side][v] = 1;
    }
  } else {
    cm_collide_vertex_posed(c->m, c->d, &c->vp[side], v, h);
  }
  if (!h->inside) return 0;
  double q = -h->dist * cm_v3_dot(h->n, nw), lo = (1 - COVER_BAND) * depth;
  if (side == 1) q = -q;
  return q >= depth ? 1 : q > lo ? (q - lo) / (depth - lo) : 0;
}

/* 1e-9 of the sizes of the pair (root boxes, offset): far above the rounding of anything
 * computed from the pose, far below any contact depth */
static double pair_eps(const Ctx* c) {
  return cm_pair_box_eps(((const cmBvh*)c->m->geom_bvh + c->g[0])->node[0].box,
                         ((const cmBvh*)c->m->geom_bvh + c->g[1])->node[0].box, c->t);
}

/* the two bodies' tree boxes apart (cm_boxes_apart): no edge of one crosses a face of the other
 * (each lies in its body's box), so the pair has no edge contact. About half the candidate pairs
 * of a settled pile of boxes. */
static int boxes_apart(const Ctx* c, double eps) {
  return cm_boxes_apart(((const cmBvh*)c->m->geom_bvh + c->g[0])->node[0].box,
                        ((const cmBvh*)c->m->geom_bvh + c->g[1])->node[0].box, c->R, c->t, eps);
}

/* the other body's tree box carried into mesh side's frame (the 8 corners, widened by far more
 * than rounding) */
static void other_box(const Ctx* c, int side, double box[6]) {
  const cmBvh* t = (const cmBvh*)c->m->geom_bvh + c->g[1 - side];
  const double* b = t->node[0].box;
  double ctr[3], e[3], y[3], r[3];
  for (int k = 0; k < 3; k++) {
    ctr[k] = 0.5 * (b[k] + b[3 + k]);
    e[k] = 0.5 * (b[3 + k] - b[k]);
  }
  if (side == 0)
    cm_tri_xform(y, c->R, c->t, ctr); /* B's centre into A's frame */
  else {
    cm_v3_sub(r, ctr, c->t);
    cm_m3_mulvt(y, c->R, r); /* A's centre into B's frame */
  }
  for (int k = 0; k < 3; k++) {
    /* the half-extent along axis k: |R| e (side 0) or |R|^T e (side 1) */
    double h = 0;
    for (int j = 0; j < 3; j++)
      h += e[j] * fabs(side == 0 ? c->R[3 * k + j] : c->R[3 * j + k]);
    box[k] = y[k] - h - c->eps;
    box[3 + k] = y[k] + h + c->eps;
  }
}

/* does the ridge u-w of mesh side meet the other body's tree box, in that
 * body's frame (widened by pair_eps)? The carried box of other_box is an axis-aligned box around
 * a rotated one, far larger for a tilted pair: a ridge passing it can be far from the body. (The
 * box from Ctx.root and cm_seg_box inline: 1000-box pile at rest 0.995x the instructions) */
static __attribute__((noinline)) int meets_other_box(const Ctx* c, int side, int u, int w) {
  const double* b = c->root[1 - side];
  /* B's ridge into A's frame, read where the call keeps it (not copied: the 1000-box pile at
   * rest 0.997x the instructions; vert_p) */
  if (side == 1) return cm_seg_box(vert_p(c, 1, u), vert_p(c, 1, w), b, c->eps);
  double x[3], y[3], r[3];
  const double* v = c->v[0];
  cm_v3_sub(r, v + 3 * (size_t)u, c->t); /* A's ridge into B's frame */
  cm_m3_mulvt(x, c->R, r);
  cm_v3_sub(r, v + 3 * (size_t)w, c->t);
  cm_m3_mulvt(y, c->R, r);
  return cm_seg_box(x, y, b, c->eps);
}

/* the carried box's test of ridge u-w of mesh side (its own frame): 0 if both endpoints lie
 * beyond one of its faces */
static inline __attribute__((always_inline)) int ridge_in_box(const Ctx* c, int side,
                                                              const double box[6], int u, int w) {
  const double *p = c->v[side] + 3 * (size_t)u, *q = c->v[side] + 3 * (size_t)w;
  for (int r = 0; r < 3; r++)
    if ((p[r] > box[3 + r] && q[r] > box[3 + r]) || (p[r] < box[r] && q[r] < box[r])) return 0;
  return 1;
}

/* does the ridge u-w of mesh side (its own frame) meet the other body's box, as carried (box) and
 * then in that body's frame? Inlined into its two callers, the second test kept out of line:
 * the first rejects 73 % of the 1.6 M ridges asked in a resting S2 125 run, which paid a call
 * saving and restoring six registers each (ridge_near's 92 M instructions, 67 M since with
 * meets_other_box; the run 0.991x) */
static inline __attribute__((always_inline)) int ridge_near(const Ctx* c, int side,
                                                            const double box[6], int u, int w) {
  return ridge_in_box(c, side, box, u, w) && meets_other_box(c, side, u, w);
}

/* the vertex codes of listed_ridges, against the box cm_seg_box tests a ridge against (the other
 * body's tree box widened by pair_eps, in that body's frame; lo and hi its faces along axis k):
 * bit k (k + 3) where the vertex, carried as meets_other_box carries it, lies below lo - pair_eps
 * (above hi + pair_eps); CODE_SHALLOW where it lies outside [lo + pair_eps, hi - pair_eps] along
 * some axis (not deep inside the box) */
enum { CODE_BEYOND = 63, CODE_SHALLOW = 64 };

/* The codes of the vertices of mesh side (at most 2 RIDGE_LIST_MAX) against the other body's
 * box; 0 (no codes) where the pose is not finite or R's entries are not a rotation's. The codes
 * decide cm_seg_box's answer for a ridge, whatever the rounding, in two cases. pair_eps is 1e-9
 * of the sum of the pair's box coordinates and offset (and at least 1e-9), so the endpoints p, q
 * of a ridge and d = q - p are at most 1e10 pair_eps along every axis, and pair_eps is far above
 * the rounding of lo, hi and of the codes' bounds:
 * - both endpoints share a bit (both beyond the slab of axis k by more than pair_eps): the
 *   ridge misses the box. For q above p beyond lo, lo - p > pair_eps + d, so the slab's interval
 *   along axis k starts at (lo - p) (1 / d) > 1 after the roundings of lo - p, d, 1 / d and the
 *   product (as (1 + 1e-10)(1 - 5e-16) > 1); for q below p both its ends are negative, never
 *   rounded to zero (at least 1e-10 in size); beyond hi alike. Then t0 > t1.
 * - either endpoint deep inside the box (no CODE_SHALLOW): the ridge meets it. With p deep,
 *   lo - p < 0 < hi - p by at least pair_eps on every axis, so each axis' interval has a negative
 *   start and a positive end and t0 stays 0 <= t1. With q deep, lo - p <= d - pair_eps and hi - p
 *   >= d + pair_eps in the same rounding bound give each interval a start below 1 and an end above
 *   it, so t0 < 1 = t1. (An axis along which d = 0 passes: its p lies in the slab.)
 * Two vertices at a time, in the lanes of a pair of doubles (closest.h): the same IEEE operations
 * per lane as meets_other_box's carrying of A's vertices and cm_tri_xform's of B's, which are
 * kept in yb for the rest of the search; the codes from the lanes' comparison masks, without a
 * branch. */
static int vertex_codes(const Ctx* c, int side, unsigned char* code) {
  const double *R = c->R, *t = c->t, eps = c->eps;
  /* a finite pose whose coordinates are far from overflow (pair_eps finite and far below it) and
   * R's entries at most 2 (a rotation's are at most 1 in size): every carried coordinate finite */
  int ok = eps < 1e280;
  for (int k = 0; k < 9; k++)
    ok &= fabs(R[k]) <= 2;
  if (!ok) return 0;
  const double* b = c->root[1 - side];
  v2d lo2[3], hi2[3], lo1[3], hi1[3], M[9], T[3];
  for (int k = 0; k < 3; k++) {
    double l = b[k] - eps, h = b[3 + k] + eps; /* the box cm_seg_box tests against */
    lo2[k] = (v2d){l - eps, l - eps};
    hi2[k] = (v2d){h + eps, h + eps};
    lo1[k] = (v2d){l + eps, l + eps};
    hi1[k] = (v2d){h - eps, h - eps};
    T[k] = (v2d){t[k], t[k]};
  }
  for (int k = 0; k < 9; k++)
    M[k] = (v2d){R[k], R[k]};
  int nv = c->m->geom_nvert[c->g[side]];
  const double* v = c->v[side];
  for (int i = 0; i < nv; i += 2) {
    const double *p = v + 3 * (size_t)i, *q = i + 1 < nv ? p + 3 : p;
    v2d x0, x1, x2;
    if (side == 0) {
      /* A's vertices into B's frame: R^T (p - t), as meets_other_box */
      v2d r0 = (v2d){p[0], q[0]} - T[0], r1 = (v2d){p[1], q[1]} - T[1];
      v2d r2 = (v2d){p[2], q[2]} - T[2];
      x0 = M[0] * r0 + M[3] * r1 + M[6] * r2;
      x1 = M[1] * r0 + M[4] * r1 + M[7] * r2;
      x2 = M[2] * r0 + M[5] * r1 + M[8] * r2;
    } else {
      /* B's vertices into A's frame: R p + t, as cm_tri_xform, kept */
      v2d a0 = {p[0], q[0]}, a1 = {p[1], q[1]}, a2 = {p[2], q[2]};
      x0 = M[0] * a0 + M[1] * a1 + M[2] * a2 + T[0];
      x1 = M[3] * a0 + M[4] * a1 + M[5] * a2 + T[1];
      x2 = M[6] * a0 + M[7] * a1 + M[8] * a2 + T[2];
      for (int j = 0; j < 2 && i + j < nv; j++) {
        double* y = c->yb + 3 * (size_t)(i + j);
        y[0] = x0[j];
        y[1] = x1[j];
        y[2] = x2[j];
        c->ydone[i + j] = 1;
      }
    }
    v2l m = ((x0 < lo2[0]) & 1) | ((x1 < lo2[1]) & 2) | ((x2 < lo2[2]) & 4) | ((x0 > hi2[0]) & 8) |
            ((x1 > hi2[1]) & 16) | ((x2 > hi2[2]) & 32) |
            (((x0 < lo1[0]) | (x0 > hi1[0]) | (x1 < lo1[1]) | (x1 > hi1[1]) | (x2 < lo1[2]) |
              (x2 > hi1[2])) &
             CODE_SHALLOW);
    code[i] = (unsigned char)m[0];
    if (i + 1 < nv) code[i + 1] = (unsigned char)m[1];
  }
  return 1;
}

/* near_ridges for a mesh of at most RIDGE_LIST_MAX ridges: its ridge list (model field
 * mesh_ridge) tested one by one, in place of the tree query for the faces near the other body
 * and the walk over their ridge bits (5 % of a step of the S2 pile of 125 boxes, 24 ridges per
 * box). The same ridges; their order does not matter (the candidates are sorted).
 * On a mesh of at most two vertices per ridge (a box of 1 or 2 divisions: 8 and 26 vertices for
 * 12 and 24 ridges) each vertex is carried into the other body's frame and coded once
 * (vertex_codes). A ridge the codes reject is not tested further; one they accept takes the
 * carried box's test alone; only the others take the slab test, with its two carried endpoints
 * and up to three divisions. The same ridges, in the same order (the S2 pile of 125 boxes, 3 s:
 * 15.5 M ridges asked, 4.26 M slab tests before, 0.43 M now; bench/README.md, "Vertex codes for
 * the near-ridge filter"). */
static int listed_ridges(Ctx* c, int side, const double box[6], cmArena* arena, int** list) {
  int g = c->g[side], n = c->m->geom_nridge[g], nr = 0;
  const int* rl = c->m->mesh_ridge + 4 * (size_t)c->m->geom_ridgeadr[g];
  int* out = cm_arena_alloc(arena, ((size_t)n + 1) * 4 * sizeof *out);
  if (!out) return -1;
  unsigned char code[2 * RIDGE_LIST_MAX];
  if (c->m->geom_nvert[g] <= 2 * n && vertex_codes(c, side, code)) {
    for (int i = 0; i < n; i++) {
      int u = rl[4 * i], w = rl[4 * i + 1], cu = code[u], cw = code[w];
      if (cu & cw & CODE_BEYOND) continue;
      if (!ridge_in_box(c, side, box, u, w)) continue;
      if (cu & cw & CODE_SHALLOW && !meets_other_box(c, side, u, w)) continue;
      memcpy(out + 4 * nr++, rl + 4 * i, 4 * sizeof *out);
    }
  } else {
    for (int i = 0; i < n; i++)
      if (ridge_near(c, side, box, rl[4 * i], rl[4 * i + 1]))
        memcpy(out + 4 * nr++, rl + 4 * i, 4 * sizeof *out);
  }
  *list = out;
  return nr;
}

/* the ridges of mesh side whose box overlaps the other body's box, as (e0, e1, face, local edge),
 * each once: from the smaller of its two faces (both lie in leaves overlapping that box when the
 * edge's own box does, so cm_bvh_box_faces lists both); returns the count, -1 on no memory */
static int near_ridges(Ctx* c, int side, cmArena* arena, int** list) {
  const cmBvh* tree = (const cmBvh*)c->m->geom_bvh + c->g[side];
  double box[6];
  other_box(c, side, box);
  if (c->m->geom_nridge[c->g[side]] <= RIDGE_LIST_MAX)
    return listed_ridges(c, side, box, arena, list);
  int cap = 64, n;
  int* faces;
  for (;;) {
    faces = cm_arena_alloc(arena, (size_t)cap * sizeof *faces);
    if (!faces) return -1;
    n = cm_bvh_box_faces(tree, box, faces, cap);
    if (n <= cap) break;
    cap = n;
  }
  int* out = cm_arena_alloc(arena, ((size_t)n * 3 + 1) * 4 * sizeof *out);
  if (!out) return -1;
  int nr = 0;
  for (int i = 0; i < n; i++) {
    int f = faces[i], bits = ridges_of(c, side, f);
    if (!bits) continue;
    const int* F = c->f[side] + 3 * f;
    for (int k = 0; k < 3; k++) {
      if (!(bits >> k & 1)) continue;
      int g = face_across(c, side, f, k);
      if (g >= 0 && g < f) continue; /* listed from g */
      int u = F[k], w = F[(k + 1) % 3];
      if (!ridge_near(c, side, box, u, w)) continue;
      int* o = out + 4 * nr++;
      o[0] = u < w ? u : w;
      o[1] = u < w ? w : u;
      o[2] = f;
      o[3] = k;
    }
  }
  *list = out;
  return nr;
}

/* a corner ridge: a ridge with exactly one endpoint (vin) inside the other body, and the faces
 * of the other mesh it crosses (an odd number) */
typedef struct Corner {
  int r[4]; /* e0, e1, face, local edge (as in the ridge lists) */
  int vin;  /* its endpoint inside the other body */
} Corner;

/* a ridge crossing a facet of the other mesh (facet-level linking, step 3): the ridge (as in the
 * ridge lists), the facets of its own two faces, and the facet it crosses (a mesh without facets:
 * a face's facet is the face itself) */
typedef struct Crossing {
  int r[4];
  int ridge;   /* its index in the side's list of near ridges */
  int face[2]; /* its two faces */
  int own[2];  /* their facets */
  int facet;   /* the facet crossed */
  int tri[2];  /* the first two faces of that facet it crosses (-1: none) */
} Crossing;

/* the first capacities of the arrays of candidates, of each side's crossings and of the faces
 * an edge crosses (each grown from the arena when short) */
enum { CAND_FIRST = 64, CROSS_FIRST = 16, FACES_FIRST = 16 };

/* the offset of a piece of size bytes carved from a block at *at, which it advances (16-byte
 * aligned pieces, as the arena's) */
static size_t carve(size_t* at, size_t size) {
  size_t o = *at;
  *at += (size + 15) & ~(size_t)15;
  return o;
}

/* room for need candidates in the array of capacity *cap, grown to twice need when short; 0
 * without memory */
static int reserve(cmArena* arena, Cand** cand, int* cap, int need) {
  if (need <= *cap) return 1;
  int n = 2 * need;
  Cand* c2 = cm_arena_alloc(arena, (size_t)n * sizeof *c2);
  if (!c2) return 0;
  memcpy(c2, *cand, (size_t)*cap * sizeof *c2);
  *cand = c2;
  *cap = n;
  return 1;
}

/* The per-pair scratch of c in one block from the arena (carve: 16-byte aligned pieces), and
 * the facets of each side (facet_of); the first arrays of candidates and (where either mesh
 * has facets) of each side's crossings. Returns whether either mesh has facets, -1 without
 * memory. */
static int pair_scratch(Ctx* c, cmArena* arena, Cand** cand, Crossing* xr[2], int** faces) {
  const cmModel* m = c->m;
  /* the doubles first (B's carried vertices, the faces' overlaps, the first arrays of candidates,
   * crossings and crossed faces), then the bytes: the inside tests (-1, one memset) and ydone
   * and the faces' fdone (0, one memset). One allocation and two memsets per pair rather than
   * nine and five, the faces' overlaps marked by a byte rather than by NaN in their doubles
   * (a memset of 8 bytes per face: a sphere's 320 faces took a `rep stos`, one instruction per
   * byte). The same values: only the addresses change; the 1000-box pile at rest 0.985x the
   * search's instructions */
  size_t nva = (size_t)m->geom_nvert[c->g[0]], nvb = (size_t)m->geom_nvert[c->g[1]], nf[2];
  for (int s = 0; s < 2; s++) {
    nf[s] = (size_t)m->geom_nface[c->g[s]];
    if (nf[s] > FOVER_MAX) nf[s] = 0; /* a large mesh: not cached, computed each time */
  }
  for (int s = 0; s < 2; s++) {
    int nfc = m->geom_nfacet[c->g[s]];
    c->facet_of[s] = cm_collide_facet_link && nfc > 0 && nfc <= CM_FACET_MAX
                         ? m->mesh_face_facet + m->geom_faceadr[c->g[s]]
                         : NULL;
  }
  int facets = c->facet_of[0] || c->facet_of[1];
  size_t used = 0, o_yb = carve(&used, 3 * nvb * sizeof *c->yb),
         o_fo0 = carve(&used, nf[0] * sizeof *c->fover[0]),
         o_fo1 = carve(&used, nf[1] * sizeof *c->fover[1]),
         o_cand = carve(&used, CAND_FIRST * sizeof(Cand)),
         o_xr = carve(&used, facets ? 2 * CROSS_FIRST * sizeof(Crossing) : 0),
         o_faces = carve(&used, FACES_FIRST * sizeof(int)), o_ins0 = carve(&used, nva),
         o_ins1 = carve(&used, nvb), o_yd = carve(&used, nvb), o_fd0 = carve(&used, nf[0]),
         o_fd1 = carve(&used, nf[1]);
  char* blk = cm_arena_alloc(arena, used);
  if (!blk) return -1;
  memset(blk + o_ins0, 0xff, o_yd - o_ins0);
  memset(blk + o_yd, 0, used - o_yd);
  c->yb = (double*)(blk + o_yb);
  c->ydone = (unsigned char*)(blk + o_yd);
  c->ins[0] = (signed char*)(blk + o_ins0);
  c->ins[1] = (signed char*)(blk + o_ins1);
  c->fover[0] = nf[0] ? (double*)(blk + o_fo0) : NULL;
  c->fover[1] = nf[1] ? (double*)(blk + o_fo1) : NULL;
  c->fdone[0] = (unsigned char*)(blk + o_fd0);
  c->fdone[1] = (unsigned char*)(blk + o_fd1);
  *cand = (Cand*)(blk + o_cand);
  xr[0] = facets ? (Crossing*)(blk + o_xr) : NULL;
  xr[1] = facets ? xr[0] + CROSS_FIRST : NULL;
  *faces = (int*)(blk + o_faces);
  return facets;
}

/* the faces of the other mesh that edge e of mesh side (endpoints in A's frame) crosses, into
 * the array *out of capacity *cap, grown from the arena when short (and kept for the next
 * edges: one array per pair rather than one per edge, the same faces in the same order, 0.995x
 * the search's instructions on the 1000-box pile at rest); returns the count, -1 on no memory */
static int crossed_faces(const Ctx* c, int side, const double p[3], const double q[3],
                         cmArena* arena, int** out, int* cap) {
  int o = 1 - side;
  const cmBvh* tree = (const cmBvh*)c->m->geom_bvh + c->g[o];
  for (;;) {
    /* B's faces are carried into A's frame by (R, t); A's are in it */
    int n = cm_bvh_seg_faces(tree, c->v[o], c->f[o], o == 1 ? c->R : NULL, o == 1 ? c->t : NULL,
                             o == 1 ? c->yb : NULL, o == 1 ? c->ydone : NULL, p, q, *out, *cap);
    if (n <= *cap) return n;
    *cap = n;
    if (!(*out = cm_arena_alloc(arena, (size_t)n * sizeof **out))) return -1;
  }
}

/* the parameters s, u of the closest points of the lines of candidate C's edges (a0 + s dA,
 * b0 + u dB; edge_contact's numbers); 0 if the edges are parallel */
static int line_params(const Ctx* c, const Cand* C, double* s, double* u) {
  const double *a0, *b0;
  double dA[3], dB[3], n[3], den, st[2];
  if (!lines_closest(c, C, &a0, &b0, dA, dB, n, &den, st)) return 0;
  *s = st[0];
  *u = st[1];
  return 1;
}

/* have hits x and y the same two edges? */
static int same_edges(const cmEdgeHit* x, const cmEdgeHit* y) {
  return x->ea[0] == y->ea[0] && x->ea[1] == y->ea[1] && x->eb[0] == y->eb[0] &&
         x->eb[1] == y->eb[1];
}

/* are the edges p (eA's and eB's vertices) before those of hit y in the (eA, eB) order? */
static int edges_before(const int p[4], const cmEdgeHit* y) {
  const int q[4] = {y->ea[0], y->ea[1], y->eb[0], y->eb[1]};
  for (int k = 0; k < 4; k++)
    if (p[k] != q[k]) return p[k] < q[k];
  return 0;
}

/* is hit x before hit y in the (eA, eB) order of the output? */
static int hit_before(const cmEdgeHit* x, const cmEdgeHit* y) {
  const int p[4] = {x->ea[0], x->ea[1], x->eb[0], x->eb[1]};
  return edges_before(p, y);
}

/* The ridge of mesh side that continues the ridge u-v straight on beyond v (its direction within
 * a sine of CHAIN_SINE of v - u: the next piece of a subdivided box edge), found by walking the
 * faces around v from face f (which has v); returns its far vertex, with a face fo holding it as
 * its edge ko, or -1 if there is none (v a corner) */
#define CHAIN_SINE 1e-6
/* a pair found along chains is kept only deeper than this fraction of the thinner body's
 * least extent (thinner) */
#define CHAIN_MIN_DEPTH 0.02
/* the least extent of the two meshes' tree boxes (each in its own frame), m */
static double thinner(const Ctx* c) {
  double t = INFINITY;
  for (int s = 0; s < 2; s++) {
    const double* b = ((const cmBvh*)c->m->geom_bvh + c->g[s])->node[0].box;
    for (int k = 0; k < 3; k++)
      t = fmin(t, b[3 + k] - b[k]);
  }
  return t;
}
/* the distance of the points at parameters st on candidate C's lines (A's frame), m: a chain
 * does not change it (its pieces lie on the same lines), and a pair's depth is at most it */
static double line_dist(const Ctx* c, const Cand* C, const double st[2]) {
  double a0[3], a1[3], b0[3], b1[3], d[3], p[3], q[3];
  vert_a(c, 0, C->a0, a0);
  vert_a(c, 0, C->a1, a1);
  vert_a(c, 1, C->b0, b0);
  vert_a(c, 1, C->b1, b1);
  cm_v3_sub(d, a1, a0);
  cm_v3_madd(p, a0, d, st[0]);
  cm_v3_sub(d, b1, b0);
  cm_v3_madd(q, b0, d, st[1]);
  cm_v3_sub(d, p, q);
  return cm_v3_norm(d);
}
/* the most ridges a chain is followed through */
#define CHAIN_MAX 8
static int chain_next(const Ctx* c, int side, int f, int u, int v, int* fo, int* ko) {
  const double* X = c->v[side];
  double d0[3], d1[3], x[3];
  cm_v3_sub(d0, X + 3 * (size_t)v, X + 3 * (size_t)u);
  for (int start = f, step = 0; f >= 0 && step < 64; step++) {
    const int* F = c->f[side] + 3 * f;
    int j = F[0] == v ? 0 : F[1] == v ? 1 : 2, w = F[(j + 1) % 3];
    if (w != u && (ridges_of(c, side, f) >> j & 1)) {
      cm_v3_sub(d1, X + 3 * (size_t)w, X + 3 * (size_t)v);
      cm_v3_cross(x, d0, d1);
      if (cm_v3_dot(d0, d1) > 0 &&
          cm_v3_dot(x, x) <= CHAIN_SINE * CHAIN_SINE * cm_v3_dot(d0, d0) * cm_v3_dot(d1, d1)) {
        *fo = f;
        *ko = j;
        return w;
      }
    }
    f = face_across(c, side, f, j); /* across the edge from v to the next vertex */
    if (f == start) break;
  }
  return -1;
}

/* Does the pair (e: eA's and eB's vertices) overlap less than the pair kept so far (overlap
 * best, edges those of h)? Overlaps within tol (the pair's rounding margin, pair_eps) are a tie,
 * taken by the (eA, eB) order: parallel pairs (the vertical sides of a prism against the pieces
 * of a box edge) share one axis, and their overlaps, computed from different edges, differ in
 * the last bits only, which a rigid motion of the scene changes (module comment, step 3) */
static int less_overlap(double ov, const int e[4], double best, const cmEdgeHit* h, double tol) {
  if (ov < best - tol) return 1;
  return fabs(ov - best) <= tol && edges_before(e, h);
}

/* A pair whose lines' closest points lie beyond an endpoint of either edge, that endpoint inside
 * the other body and the edge's other one outside (module comment, step 3, "Chains"): each such
 * edge replaced by the ridge that continues it straight on through that endpoint, while the
 * endpoint passed is inside, until both closest points lie on the pair's edges (at most
 * CHAIN_MAX pieces per side). bits: the pair's corner bits (Cand.corner: the inside endpoints
 * of two corner ridges), or 0 for a listing from a crossing, whose endpoints are then tested.
 * C is changed in place; vin[s] is the inside end of side s's edge as the caps take it (the
 * last inside vertex of the chain), -1 for a side not followed. Returns 1 if C was changed and
 * now has its closest points on its edges, 0 otherwise. st0: the parameters of the closest
 * points of C's lines as given (line_params, which edge_contact has found already: not
 * computed again, the same numbers; 0.97x the search's instructions on the 1000-box pile at
 * rest). */
static int chain_pair(Ctx* c, Cand* C, int bits, int vin[2], const double st0[2]) {
  const double tol = 1e-9;
  int moved = 0;
  if (bits) {
    vin[0] = bits >> 1 & 1 ? C->a1 : C->a0;
    vin[1] = bits >> 2 & 1 ? C->b1 : C->b0;
  } else {
    const double* st = st0;
    for (int s = 0; s < 2; s++) {
      int x0 = s ? C->b0 : C->a0, x1 = s ? C->b1 : C->a1;
      vin[s] = -1;
      if (st[s] >= -tol && st[s] <= 1 + tol) continue;
      int end = st[s] < 0 ? x0 : x1, other = st[s] < 0 ? x1 : x0;
      if (!vertex_inside(c, s, end) || vertex_inside(c, s, other)) return 0;
      vin[s] = end;
    }
  }
  for (int it = 0; it < 2 * CHAIN_MAX; it++) {
    double st[2] = {st0[0], st0[1]};
    if (moved && !line_params(c, C, &st[0], &st[1])) return 0; /* (else C as given) */
    int side = -1;
    for (int s = 0; s < 2 && side < 0; s++) {
      int lo = s ? C->b0 : C->a0; /* the parameter runs from the lower vertex (0) to the higher */
      if (vin[s] >= 0 && ((st[s] < -tol && vin[s] == lo) || (st[s] > 1 + tol && vin[s] != lo)))
        side = s;
      else if (!(st[s] >= -tol && st[s] <= 1 + tol))
        return 0; /* beyond the outside end */
    }
    if (side < 0) return moved;
    int *x0 = side ? &C->b0 : &C->a0, *x1 = side ? &C->b1 : &C->a1;
    int *fx = side ? &C->fb : &C->fa, *kx = side ? &C->kb : &C->ka;
    int v = vin[side], u = v == *x0 ? *x1 : *x0, fo, ko;
    int w = chain_next(c, side, *fx, u, v, &fo, &ko);
    if (w < 0) return 0;
    *x0 = v < w ? v : w;
    *x1 = v < w ? w : v;
    *fx = fo;
    *kx = ko;
    if (vertex_inside(c, side, w)) vin[side] = w; /* else the chain leaves the other body: v */
    moved = 1;
  }
  return 0;
}

static int collide_edges(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                         cmEdgeHit** out, int test_apart) {
  *out = NULL;
  Ctx c;
  c.m = m;
  c.g[0] = m->body_geom[a];
  c.g[1] = m->body_geom[b];
  for (int s = 0; s < 2; s++) {
    if (m->geom_type[c.g[s]] == CM_GEOM_PLANE || m->geom_nface[c.g[s]] == 0) return 0;
    c.v[s] = m->mesh_vert + 3 * (size_t)m->geom_vertadr[c.g[s]];
    size_t fa = (size_t)m->geom_faceadr[c.g[s]];
    c.f[s] = m->mesh_face + 3 * fa;
    c.adj[s] = m->mesh_face_adj + 3 * fa;
    c.ridge[s] = m->mesh_face_ridge + fa;
    c.normal[s] = m->mesh_face_normal + 3 * fa;
    c.epn[s] = m->mesh_edge_pn + 9 * fa;
    c.root[s] = ((const cmBvh*)m->geom_bvh + c.g[s])->node[0].box;
  }
  cm_pair_pose(d, a, b, c.R, c.t); /* B into A's frame */
  c.cos_flat = cos(CONE_FLAT_DEG * CM_PI / 180);
  c.cos_ridge = cos(CONE_RIDGE_DEG * CM_PI / 180);
  c.eps = pair_eps(&c);
  if (test_apart && boxes_apart(&c, c.eps)) return 0;
  Cand* cand;
  Crossing* xr[2];
  int* faces; /* the faces crossed by an edge (crossed_faces), of capacity nfaces */
  int facets = pair_scratch(&c, arena, &cand, xr, &faces); /* the facets each side's ridges cross */
  if (facets < 0) return -1;
  c.d = d;
  c.arena = arena;
  c.body[0] = a;
  c.body[1] = b;
  for (int s = 0; s < 2; s++) {
    c.vp_done[s] = 0;
    c.vh[s] = NULL;
    c.vh_done[s] = NULL;
  }
  {
    const double* ab = ((const cmBvh*)m->geom_bvh + c.g[0])->node[0].box;
    const double* bb = ((const cmBvh*)m->geom_bvh + c.g[1])->node[0].box;
    double bl[3];
    for (int k = 0; k < 3; k++) {
      bl[k] = 0.5 * (bb[k] + bb[3 + k]);
      c.bh[k] = 0.5 * (bb[3 + k] - bb[k]);
      c.ac[k] = 0.5 * (ab[k] + ab[3 + k]);
      c.ah[k] = 0.5 * (ab[3 + k] - ab[k]);
    }
    cm_tri_xform(c.bw, c.R, c.t, bl);
  }
  double RA[9]; /* A's frame into the world, for the results */
  cm_quat_to_mat(RA, d->body_xquat + 4 * a);

  /* 1-2: the ridges of each mesh near the other, the faces they cross, and as candidates every
   * edge of those faces; and each side's corner ridges */
  int cap = CAND_FIRST, nc = 0, ncorner[2] = {0, 0}, nx[2] = {0, 0};
  int xcap[2] = {CROSS_FIRST, CROSS_FIRST}, nfaces = FACES_FIRST;
  Corner* corner[2] = {NULL, NULL};
  for (int s = 0; s < 2; s++) {
    if (m->geom_nridge[c.g[s]] == 0) continue; /* a smooth mesh: no ridge to start from */
    int* rl;
    int nr = near_ridges(&c, s, arena, &rl);
    if (nr < 0) return -1;
    corner[s] = cm_arena_alloc(arena, ((size_t)nr + 1) * sizeof *corner[s]);
    if (!corner[s]) return -1;
    for (int i = 0; i < nr; i++) {
      double p[3], q[3];
      /* a ridge with both ends inside the other body pairs only into candidates that step 3
       * drops (an edge with both endpoints inside): its crossings are not needed */
      if (vertex_inside(&c, s, rl[4 * i]) && vertex_inside(&c, s, rl[4 * i + 1])) continue;
      vert_a(&c, s, rl[4 * i], p);
      vert_a(&c, s, rl[4 * i + 1], q);
      int ng = crossed_faces(&c, s, p, q, arena, &faces, &nfaces);
      const int* g = faces;
      if (ng < 0) return -1;
      /* a corner ridge: an odd number of crossings, so one endpoint inside: the first if the
       * test above found it inside (the second was then found outside), else the second (step
       * 3 tests both endpoints of every candidate) */
      if (ng & 1) {
        Corner* x = &corner[s][ncorner[s]++];
        memcpy(x->r, rl + 4 * i, sizeof x->r);
        x->vin = vertex_inside(&c, s, rl[4 * i]) ? rl[4 * i] : rl[4 * i + 1];
      }
      if (!reserve(arena, &cand, &cap, nc + 3 * ng)) return -1;
      for (int j = 0; j < ng; j++) {
        const int* G = c.f[1 - s] + 3 * g[j];
        /* each edge written, and kept (nc advanced) unless between coplanar faces (no edge
         * of the shape): the same candidates without a branch on that test (the slot of one
         * not kept is overwritten by the next; reserve made room for 3 per face) */
        for (int k = 0; k < 3; k++) {
          int u = G[k], w = G[(k + 1) % 3];
          int x0 = u < w ? u : w, x1 = u < w ? w : u;
          if (s == 0)
            cand[nc] = (Cand){rl[4 * i],     rl[4 * i + 1], x0, x1, rl[4 * i + 2],
                              rl[4 * i + 3], g[j],          k,  0,  1};
          else
            cand[nc] = (Cand){
                x0, x1, rl[4 * i], rl[4 * i + 1], g[j], k, rl[4 * i + 2], rl[4 * i + 3], 0, 2};
          nc += !coplanar_edge(&c, 1 - s, g[j], k);
        }
      }
      /* the facets it crosses properly, each once (consecutive crossings of one facet are the
       * rule): crossing a face of the facet with its endpoints on either side of the facet's
       * plane (exactly coincident or flush boxes touch faces of each other's facets all along) */
      if (!facets || ng == 0) continue;
      int face[2] = {rl[4 * i + 2], face_across(&c, s, rl[4 * i + 2], rl[4 * i + 3])};
      int own[2] = {facet_id(&c, s, face[0]), facet_id(&c, s, face[1])};
      double po[3], qo[3]; /* the ridge in the crossed mesh's frame */
      if (s == 0) {
        double r[3];
        cm_v3_sub(r, p, c.t);
        cm_m3_mulvt(po, c.R, r);
        cm_v3_sub(r, q, c.t);
        cm_m3_mulvt(qo, c.R, r);
      } else {
        cm_v3_copy(po, p);
        cm_v3_copy(qo, q);
      }
      for (int j = 0; j < ng; j++) {
        int F = facet_id(&c, 1 - s, g[j]);
        Crossing* seen = NULL;
        for (int x = nx[s] - 1; x >= 0 && !seen && xr[s][x].ridge == i; x--)
          if (xr[s][x].facet == F) seen = &xr[s][x];
        if (seen) {
          if (seen->tri[1] < 0) seen->tri[1] = g[j];
          continue;
        }
        if (!crosses_plane(&c, 1 - s, g[j], F, po, qo)) continue;
        if (nx[s] == xcap[s]) {
          Crossing* grown = cm_arena_alloc(arena, 2 * (size_t)xcap[s] * sizeof *grown);
          if (!grown) return -1;
          memcpy(grown, xr[s], (size_t)nx[s] * sizeof *grown);
          xr[s] = grown;
          xcap[s] *= 2;
        }
        Crossing* x = &xr[s][nx[s]++];
        memcpy(x->r, rl + 4 * i, sizeof x->r);
        x->ridge = i;
        x->face[0] = face[0];
        x->face[1] = face[1];
        x->own[0] = own[0];
        x->own[1] = own[1];
        x->facet = F;
        x->tri[0] = g[j];
        x->tri[1] = -1;
      }
    }
  }
  /* the pairs of ridges linked at the facet level: each crosses a facet of the other's faces
   * (module comment, step 3) */
  for (int i = 0; i < nx[0]; i++) {
    const Crossing* x = &xr[0][i];
    for (int j = 0; j < nx[1]; j++) {
      const Crossing* y = &xr[1][j];
      /* (the comparisons combined without a branch between them: the same answer) */
      if (((x->facet != y->own[0]) & (x->facet != y->own[1])) |
          ((y->facet != x->own[0]) & (y->facet != x->own[1])))
        continue;
      /* each crossing a face at the other ridge: listed from both crossings already, so linked
       * through the triangles (a facet listing would change nothing) */
      if ((x->tri[0] == y->face[0] || x->tri[0] == y->face[1] || x->tri[1] == y->face[0] ||
           x->tri[1] == y->face[1]) &&
          (y->tri[0] == x->face[0] || y->tri[0] == x->face[1] || y->tri[1] == x->face[0] ||
           y->tri[1] == x->face[1]))
        continue;
      if (!reserve(arena, &cand, &cap, nc + 1)) return -1;
      cand[nc++] =
          (Cand){x->r[0], x->r[1], y->r[0], y->r[1], x->r[2], x->r[3], y->r[2], y->r[3], 0, 4};
    }
  }
  /* the pairs of corner ridges (module comment, step 3) */
  for (int i = 0; i < ncorner[0]; i++) {
    if (!reserve(arena, &cand, &cap, nc + ncorner[1])) return -1;
    for (int j = 0; j < ncorner[1]; j++) {
      const int *x = corner[0][i].r, *y = corner[1][j].r;
      int bits = 1 | (corner[0][i].vin == x[1]) << 1 | (corner[1][j].vin == y[1]) << 2;
      cand[nc++] = (Cand){x[0], x[1], y[0], y[1], x[2], x[3], y[2], y[3], bits, 0};
    }
  }
  if (nc == 0) return 0;
  /* the candidates in order, cand[order[i].i], a run of equal ones (the same edges) with equal
   * keys order[i].k */
  Key* key = cm_arena_alloc(arena, 2 * (size_t)nc * sizeof *key);
  if (!key) return -1;
  const Key* order = key;
  if (m->geom_nvert[c.g[0]] <= 65536 && m->geom_nvert[c.g[1]] <= 65536) {
    order = sort_cands_keyed(cand, nc, key);
  } else {
    /* the candidates themselves, keyed by their runs' numbers (without memory for the scratch,
     * by insertion: the same order of distinct edges) */
    sort_cands(cand, nc, nc > 16 ? cm_arena_alloc(arena, (size_t)nc * sizeof *cand) : NULL);
    for (int i = 0; i < nc; i++) {
      key[i].k = i == 0 ? 0 : key[i - 1].k + (cand_cmp(&cand[i - 1], &cand[i]) != 0);
      key[i].i = i;
    }
  }

  cmEdgeHit* hit = cm_arena_alloc(arena, ((size_t)nc + 1) * sizeof *hit);
  /* each hit's overlap along its own normal (projected_overlap): for link_d and the cap of every
   * hit's depth below */
  double* hov = cm_arena_alloc(arena, ((size_t)nc + 1) * sizeof *hov);
  if (!hit || !hov) return -1;

  /* 3-4: the linked candidates, one contact per distinct pair, and the nearest pair of corner
   * ridges, in world coordinates */
  int nh = 0, best = -1; /* best: the hit of the corner (or facet-only) pair, once placed */
  const double thin = thinner(&c);
  double best_d = INFINITY; /* its axis's projected overlap */
  /* the corner pair of least overlap (hc, found: have_corner), and the pair of ridges linked at
   * the facet level only of least overlap (hf, bestf_d), kept only where its overlap is also
   * less than that of every other pair found (link_d) */
  int have_corner = 0, have_fonly = 0;
  double bestf_d = INFINITY, link_d = INFINITY;
  cmEdgeHit hc = {0}, hf = {0}; /* (read by less_overlap only once set) */
  for (int next = 0; next < nc;) {
    /* a run of equal candidates (the same two edges, found from both ridges or also as
     * corners): the first stands for it, a corner if any is */
    const Cand* ck = &cand[order[next].i];
    int is_corner = ck->corner, plain = !ck->corner, from = ck->from;
    uint64_t kk = order[next].k;
    for (next++; next < nc && order[next].k == kk; next++) {
      const Cand* cn = &cand[order[next].i];
      is_corner |= cn->corner; /* (all corner entries of a run have the same bits) */
      plain |= !cn->corner;
      from |= cn->from;
    }
    /* the pair's geometry first (the cheapest of the rule's conditions: most runs fail it, and
     * the order of the conditions does not change the result), once per run: the candidates of
     * a run have the same edges, so the same geometry (edge_of and edge_pn do not depend on the
     * face an edge was reached from). Computed per listing before 2026-12-05: a resting S2 125
     * step listed 2.4 candidates per distinct pair that passed it. */
    double G[10];
    Edge ea, eb; /* (its edges, as edge_contact found them) */
    /* (one call of edge_contact, kept inline: two cost 1.08x the search's instructions) */
    int chain = 0, vin[2], found;
    double st[2] = {0, 0};
    Cand x = *ck;
    /* A run listed only from A's ridge crossing a face at eB (from 1), where eB is a ridge, is
     * not linked: eB crossing a face at eA (crosses_adjacent) would have listed it from B's side
     * as well (a ridge crossing a face of A meets A's box, so it is among B's near ridges, unless
     * both its ends are inside A, which drops the pair below; cm_bvh_seg_faces lists the faces
     * that cm_seg_tri finds crossed on the same vertices, as `linked` below takes it), and
     * conversely (from 2, eA a ridge). Neither a corner nor a facet-level listing, such a run
     * gives a contact only along the chains, where its closest points lie beyond an end: found
     * on both edges, it is dropped there (the same hits; 1000-box pile at rest: 137 k of 632 k
     * runs, 65 k of them with the points on both edges, 1.3 k of those passing edge_contact) */
    int unlinked = !is_corner && !(from & 4) &&
                   ((from == 1 && ridges_of(&c, 1, ck->fb) >> ck->kb & 1) ||
                    (from == 2 && ridges_of(&c, 0, ck->fa) >> ck->ka & 1));
    while (!(found = edge_contact(&c, &x, G, G + 3, G + 6, G + 9, &ea, &eb, st, unlinked)) &&
           !chain) {
      /* closest points beyond an end: along the chains of ridges through the inside ends */
      if ((st[0] >= -1e-9 && st[0] <= 1 + 1e-9 && st[1] >= -1e-9 && st[1] <= 1 + 1e-9) ||
          !(line_dist(&c, &x, st) > CHAIN_MIN_DEPTH * thin) ||
          !chain_pair(&c, &x, is_corner, vin, st))
        break;
      chain = 1;
      unlinked = 0; /* (a corner pair from here on) */
      plain = 0;    /* a chain's ridges are not linked: both their ends may be inside */
      /* a corner pair from here on, its inside endpoints those the chains end at (a corner
       * listing's bits name its first edges' endpoints: until 2026-12-07 kept as they were, so
       * a chain's pair was weighed by the vertex contact of an endpoint not inside) */
      is_corner = 1 | (vin[0] == x.a1) << 1 | (vin[1] == x.b1) << 2;
    }
    if (!found) continue;
    const double *p0 = G, *p1 = G + 3, *n = G + 6, area = G[9];
    /* the crossings, then the inside queries */
    double w[3];
    /* a linked pair is also listed from the faces its ridge crosses (step 2): a pair listed
     * only as corners is not linked. A listing from A's ridge crossing fb, a face at eB, says
     * already that eA crosses a face adjacent to eB (cm_bvh_seg_faces decides as cm_seg_tri
     * does on the same carried vertices), one from B's ridge the converse: those tests are
     * not made again (the same pairs; the S2 pile's resting step 0.98x the instructions) */
    /* (a pair linked through the triangles is listed from both ridges' crossings: from 4
     * alone, a facet-level listing, is not linked so) */
    int linked = plain && (from & 3) && ((from & 1) || crosses_adjacent(&c, &ea, &eb)) &&
                 ((from & 2) || crosses_adjacent(&c, &eb, &ea));
    /* two ridges linked at the facet level only (not through the triangles at the two edges):
     * their crossings may lie far from each other, so their axis need not be one the bodies
     * separate along. Such a pair is held to the corner pairs' rule (slack, least overlap, the
     * caps at its inside endpoints) */
    int fonly = plain && !linked && (from & 4);
    if (!linked && !fonly && !is_corner) continue;
    int ia0, ia1, ib0, ib1;
    if (plain) {
      ia0 = vertex_inside(&c, 0, ea.e0);
      ia1 = vertex_inside(&c, 0, ea.e1);
      if (ia0 && ia1) continue;
      ib0 = vertex_inside(&c, 1, eb.e0);
      ib1 = vertex_inside(&c, 1, eb.e1);
      if (ib0 && ib1) continue;
      /* a corner pair has exactly one endpoint inside on each side */
      if (!linked && !fonly && (ia0 == ia1 || ib0 == ib1)) continue;
    } else {
      /* listed only as corners: the inside endpoints as the corner ridges' crossings gave them
       * (an odd number: one endpoint inside), without testing the other endpoints again */
      ia1 = is_corner >> 1 & 1;
      ia0 = !ia1;
      ib1 = is_corner >> 2 & 1;
      ib0 = !ib1;
    }
    ea.end_inside = ia0 || ia1;
    eb.end_inside = ib0 || ib1;
    cm_v3_sub(w, p0, p1);
    double dist = cm_v3_norm(w), depth = edge_depth(&c, &ea, &eb, dist), ov = 0;
    /* a pair linked through the facets deeper than CHAIN_MIN_DEPTH of the thinner body is linked
     * like one linked through the triangles at its edges, so that how the facets were cut does
     * not decide whether it is kept; shallower it keeps the corner pairs' rule, which holds a
     * resting pile's pairs that cross each other's facets by a hair to one contact */
    if (fonly && depth > CHAIN_MIN_DEPTH * thin) {
      linked = 1;
      fonly = 0;
    }
    if (!linked) {
      /* a corner pair: capped also across the faces at both corners, and kept only if its own
       * axis is about the least of those overlaps (else it would push along a direction the
       * bodies do not separate along: boxes face on face with flush sides pair corner ridges
       * across the flush faces); of those, the one whose axis the bodies overlap least along
       * (the separating axis test's choice: the overlap of their boxes projected on n; tested
       * before the costlier inside queries below, the order of the conditions does not change
       * the result). Until 2026-12-07 the nearest (the least dist): with the chains' pairs a
       * pair of lines nearer than the crossing along the separating axis, 23.4 mm against
       * 33.5 mm, took the crossed edges of physics/test_pile_overlap. */
      /* (the slack and the chains' depth first with the edges' caps alone: the corners' caps
       * only lower the depth, and most candidates fail there; the same pairs) */
      if (!(dist <= CORNER_SLACK * depth) || (chain && !(depth > CHAIN_MIN_DEPTH * thin))) continue;
      ov = projected_overlap(&c, n);
      const int e4[4] = {ea.e0, ea.e1, eb.e0, eb.e1};
      if (!less_overlap(ov, e4, fonly ? bestf_d : best_d, fonly ? &hf : &hc, c.eps)) continue;
      int va = chain ? vin[0] : ia0 ? ea.e0 : ia1 ? ea.e1 : -1;
      int vb = chain ? vin[1] : ib0 ? eb.e0 : ib1 ? eb.e1 : -1;
      if (va >= 0) depth = vertex_depth_cap(&c, 0, ea.adj[0], va, depth);
      if (vb >= 0) depth = vertex_depth_cap(&c, 1, eb.adj[0], vb, depth);
      if (!(dist <= CORNER_SLACK * depth)) continue;
      /* a chain only where it is deep (CHAIN_MIN_DEPTH of the thinner body): shallower, the
       * vertex contacts' nearest faces are the pair's own (module comment, step 3) */
      if (chain && !(depth > CHAIN_MIN_DEPTH * thin)) continue;
    }
    if ((ea.end_inside || eb.end_inside) && !closest_points_inside(&c, p0, p1)) continue;
    /* the share of it that the vertex contacts of its inside endpoints do not give already */
    double wt = 1;
    if (cm_collide_cover && (ea.end_inside || eb.end_inside)) {
      double nw[3], cov = 0;
      cm_m3_mulv(nw, RA, n);
      const int va[2] = {ea.e0, ea.e1}, vb[2] = {eb.e0, eb.e1};
      const int ina[2] = {ia0, ia1}, inb[2] = {ib0, ib1};
      for (int e = 0; e < 2 && cov < 1; e++) {
        if (ina[e]) cov = fmax(cov, covered(&c, 0, va[e], nw, depth));
        if (inb[e] && cov < 1) cov = fmax(cov, covered(&c, 1, vb[e], nw, depth));
      }
      wt = 1 - cov;
      if (!(wt > 0)) continue;
    }
    if (!linked) {
      if (fonly) {
        have_fonly = 1;
        bestf_d = ov;
      } else {
        have_corner = 1;
        best_d = ov;
      }
    } else {
      hov[nh] = projected_overlap(&c, n);
    }
    cmEdgeHit* h = linked ? &hit[nh++] : fonly ? &hf : &hc;
    h->ea[0] = ea.e0;
    h->ea[1] = ea.e1;
    h->eb[0] = eb.e0;
    h->eb[1] = eb.e1;
    h->dist = -depth;
    h->area = area * wt;
    cm_m3_mulv(h->p0, RA, p0);
    cm_v3_add(h->p0, h->p0, d->body_xpos + 3 * a);
    cm_m3_mulv(h->p1, RA, p1);
    cm_v3_add(h->p1, h->p1, d->body_xpos + 3 * a);
    cm_m3_mulv(h->n, RA, n);
  }
  /* the facet-only pair where its overlap is the least of all pairs found, else the corner
   * pair (the same as without facet-level linking) */
  if (have_fonly && bestf_d < best_d)
    for (int i = 0; i < nh && bestf_d < link_d; i++)
      link_d = fmin(link_d, hov[i]);
  if (have_fonly && bestf_d < best_d && bestf_d < link_d) {
    hov[nh] = bestf_d;
    hit[nh] = hf;
    best = nh++;
  } else if (have_corner) {
    hov[nh] = best_d;
    hit[nh] = hc;
    best = nh++;
  }
  /* a corner pair followed along chains can end on the edges of a linked pair found as well:
   * the same contact, once (until 2026-12-07 it was given twice, twice the force) */
  for (int i = 0; best >= 0 && i < best; i++)
    if (same_edges(&hit[i], &hit[best])) {
      nh--;
      best = -1;
    }
  /* no hit deeper than the bodies overlap along any hit's normal (the least overlap found): moving
   * a body by its overlap along a direction separates the two, so no penetration of the pair is
   * deeper (module comment, step 4, "The pair's least overlap") */
  if (nh > 1) {
    double least = INFINITY;
    for (int i = 0; i < nh; i++)
      least = fmin(least, hov[i]);
    least = fmax(0, least);
    for (int i = 0; i < nh; i++)
      if (-hit[i].dist > least) hit[i].dist = -least;
  }
  /* a corner pair found along chains has other edges than its listing (and a facet-only pair is
   * placed last): into its place in the (eA, eB) order of the hits (the others are in it: their
   * runs were) */
  if (best >= 0) {
    cmEdgeHit x = hit[best];
    int at = best;
    for (; at > 0 && hit_before(&x, &hit[at - 1]); at--)
      hit[at] = hit[at - 1];
    for (; at + 1 < nh && hit_before(&hit[at + 1], &x); at++)
      hit[at] = hit[at + 1];
    hit[at] = x;
  }
  *out = hit;
  return nh;
}

int cm_collide_edges(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                     cmEdgeHit** out) {
  return collide_edges(m, d, a, b, arena, out, 1);
}

int cm_collide_edges_near(const cmModel* m, const cmData* d, int a, int b, cmArena* arena,
                          cmEdgeHit** out) {
  return collide_edges(m, d, a, b, arena, out, 0);
}
