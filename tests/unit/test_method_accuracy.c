/* Accuracy of the four contact methods against exact intersections (issue 11; SPEC 4, 5;
 * docs/contact-laws.md, "Contact methods" and "Accuracy of the methods against exact box
 * intersections", where the measured table is).
 *
 * What is measured. The area-compliant law pushes with ka sum_k A_k (-dist_k). A compliant patch
 * whose depth along its normal is delta(x) over the projected patch P should push with
 * ka integral_P delta dA, and for a shallow overlap that integral is the volume V of the
 * intersection of the two solids (divergence theorem over A's surface inside B). So a method is
 * judged, pose by pose, by
 *   eV = sum_k A_k (-dist_k) / V - 1     (the law's force against ka V)
 *   ed = max_k (-dist_k) / depth - 1     (its deepest point against the penetration depth)
 * over the poses where it reports a contact, and by `none`, the fraction of the (all
 * overlapping) poses where it reports none. Printed: median e, mean |e|, the e of largest |e|.
 *
 * The exact reference, written here (no library code):
 *  - depth: the penetration depth (minimum translation distance) of two convex bodies is the
 *    least overlap of their projections over all directions; for two boxes it is reached on
 *    one of 15 axes (3 + 3 face normals, 9 edge cross products: SAT). n = that axis, out of B.
 *  - V: the boundary of A n B is (dA n B) u (dB n A). Each face of A clipped by the 6
 *    half-spaces of B (Sutherland-Hodgman on the face's square) is a convex polygon of dA n B
 *    oriented as A's face; the same for B. With S_P a polygon's vector area and p_P one of its
 *    points, V = (1/3) sum_P S_P . (p_P - o) for any o. The vector areas S_A (A's surface
 *    inside B) and S_B close: S_A + S_B = 0, checked on every pose. The corners of the clipped
 *    polygons on the other box's surface are the corners of the intersection curve dA n dB.
 *  - the vertices of a box primitive of d divisions are the lattice points (2 i - d)/(2 d) size
 *    on its surface; a point is inside a box when its 6 face slacks e_k - |x_k| are > 0, and
 *    its distance to the surface is then the least slack.
 * test_exact_reference checks it against closed forms: axis-aligned boxes (V = the product of
 * the three overlaps), a cube on its corner (body diagonal along n) sunk delta into a face (a
 * tetrahedron of legs sqrt3 delta: V = (sqrt3/2) delta^3, patch (3 sqrt3/2) delta^2), a cube on
 * an edge at 45 degrees (a prism: V = a delta^2, patch 2 a delta); test_crossed_bars: crossed
 * 45-degree ridges (the region |x| + |y| <= delta, thickness delta - |x| - |y|: V = (2/3)
 * delta^3, patch 2 delta^2).
 *
 * Poses (test_boxes). A (body 0) is 100 x 80 x 60 mm, B (body 1) 120 x 100 x 70 mm, both of
 * d = 1, 2, 4 divisions; A has more vertices per unit area, so it is the `vertex` method's
 * penetrating body. The depth is drawn uniformly in [1, 5] mm (1-8 % of the sizes) and the pose
 * solved for it by bisection (the SAT depth, a minimum of tents r_a - |a . (x_A - x_B)|, is
 * concave in the offset, so it crosses a level once). Cases:
 *  - random: both orientations uniform, B moved off A's centre along a random direction (about
 *    half of these have an edge pair as SAT axis: printed again as "random e-e");
 *  - face-face: A's bottom face over B's top face, turned about the normal at random, tilted by
 *    at most 2 mrad (0.13 mm across A's face: the whole footprint is in contact), shifted by up
 *    to 30 mm (A often overhangs B);
 *  - edge-face: a long edge of A down (A turned 30-60 degrees about it), horizontal, at a random
 *    heading and shift;
 *  - crossed: A's edge down across an edge of B pointing up (B turned 30-60 degrees), at 30-150
 *    degrees to each other, crossing within a quarter of each edge's half length of its middle.
 * Every pose then gets a random rigid motion of the pair (both sides are invariant). Also the
 * crossed bars of the issue (test_crossed_bars) and an icosphere on a box face (test_sphere,
 * derivation there).
 *
 * What the methods are documented to do, asserted on every pose (exact up to rounding: the
 * coordinates are ~1 m, so positions carry ~1e-16 m; depths compare to EPS_POS = 1e-12 m, and a
 * vertex within EPS_POS of a surface is not used to predict; areas of >= 1e-6 m^2 summed from
 * such coordinates compare to 1e-9 relative):
 *  - vertex: a contact iff a vertex of A is inside B, its depth the deepest such vertex's
 *    distance to B's surface; two_way: the same over the vertices of both bodies;
 *  - vertex_edge: two_way plus edge contacts, so at least two_way's depth, and a contact in every
 *    overlapping pose (its only miss is "edges with an end inside: the vertex contact of that end
 *    stands in");
 *  - contour: a contact in every overlapping pose ("misses nothing that intersects"); area
 *    |n . S_A| (A's surface inside B projected on its plane n); depth the deepest vertex (of
 *    either body) inside the other, or with none inside the extent of the intersection curve
 *    along n.
 *
 * What accuracy to expect:
 *  - face-face, vertex methods: a vertex's area is the integral of its hat function over the
 *    faces around it, projected, so sum_k A_k d_k integrates the linear interpolant of the depth
 *    of the vertices inside. It is exact on the triangles wholly inside or outside the footprint
 *    (the depth is linear there) and wrong on those B's outline crosses, a band ~h = size / d
 *    wide: |eV| = O(h / footprint width) = O(1/d). Asserted: the mean |eV| of vertex and two_way
 *    falls at each doubling of d.
 *  - edges and corners, vertex methods: a vertex carries a third of the faces around it whatever
 *    the depth, while the patch is only ~delta wide. An edge sunk delta (a prism,
 *    V ~ L delta^2) gets ~(L h / 3) delta: eV ~ h / delta = O(1/d); a corner (a tetrahedron,
 *    V ~ delta^3) gets ~(h^2 / 3) delta: eV ~ (h / delta)^2. At d <= 4 (h >= 15 mm against
 *    delta <= 5 mm) these are overestimates by factors of 3 to 1000: measured, not asserted.
 *  - contour puts the whole projected patch at one depth: with the exact depth, V times
 *    delta / (mean depth), i.e. eV = 0 for a parallel face (a slab), 1 for an edge in a face (a
 *    prism of tent section), 2 for a corner in a face or two crossed ridges (pyramids:
 *    V = patch delta / 3).
 *  - crossed ridges, vertex_edge at d = 1: the closest points of the two ridge lines are the
 *    overlap's depth apart along their cross product, the SAT axis: ed = 0 (asserted).
 * Where the measurement contradicts the documentation the test asserts only what holds and
 * prints the rest (issue 11): a contour through edges of both meshes (the crossed bars at d
 * = 2, 4) is degenerate and its area wrong (34x at d = 2); on coarse meshes vertex_edge pairs edges
 * other than the crossing ones into edge contacts up to 19x deeper than the overlap, 60-90 degrees
 * off its axis; the default method misses crossed boxes at every d (100 % of the poses at d = 1, 69
 * % at d = 2, 4). */
#include <string.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "core/sort.h"
#include "scenes.h"
#include "test.h"

enum { NMETHOD = 5, NDIV = 3, MAXPOLY = 16, MAXPOSE = 1024, MAXLAT = 6 * 16 + 2, MAXCURVE = 128 };
enum { M_VERTEX, M_TWO_WAY, M_VERTEX_EDGE, M_CONTOUR, M_AUTO };

static const cmMethod METHOD[NMETHOD] = {CM_METHOD_VERTEX, CM_METHOD_TWO_WAY, CM_METHOD_VERTEX_EDGE,
                                         CM_METHOD_CONTOUR, CM_METHOD_AUTO};
static const char* METHOD_NAME[NMETHOD] = {"vertex", "two_way", "vertex_edge", "contour", "auto"};
static const int DIV[NDIV] = {1, 2, 4};

static const double SIZE_A[3] = {0.10, 0.08, 0.06}, SIZE_B[3] = {0.12, 0.10, 0.07};

/* coordinates are up to ~1 m (the rigid motion), so positions carry ~1e-16 m of rounding; a
 * vertex this close to a surface may be called inside or outside */
#define EPS_POS 1e-12

static unsigned long long rng_state = 0x452821E638D01377ull;
static double urand(void) {
  return test_urand(&rng_state);
}
static double uniform(double a, double b) {
  return a + (b - a) * urand();
}
/* uniform on SO(3): a point uniform in the unit 4-ball (rejection), normalised */
static void rand_quat(double q[4]) {
  double s;
  do {
    for (int k = 0; k < 4; k++)
      q[k] = 2 * urand() - 1;
    s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  } while (s > 1 || s < 1e-6);
  cm_quat_normalize(q);
}
static void axis_quat(double q[4], int axis, double angle) {
  double a[3] = {0, 0, 0};
  a[axis] = 1;
  cm_quat_from_axis_angle(q, a, angle);
}

/* ---------------------------------------------------------------------------------------------
 * the exact reference */

/* a box: centre c, orientation q (R: columns = the box axes in world), half extents e */
typedef struct Box {
  double c[3], q[4], R[9], e[3];
} Box;

static Box make_box(const double size[3], const double q[4], const double c[3]) {
  Box b;
  memcpy(b.q, q, sizeof b.q);
  cm_quat_normalize(b.q);
  cm_quat_to_mat(b.R, b.q);
  cm_v3_copy(b.c, c);
  for (int k = 0; k < 3; k++)
    b.e[k] = 0.5 * size[k];
  return b;
}

static void box_axis(const Box* b, int k, double a[3]) {
  cm_v3_set(a, b->R[k], b->R[3 + k], b->R[6 + k]);
}

/* the rigid motion x -> G x + t (G the rotation of g) */
static void move_point(double p[3], const double g[4], const double t[3]) {
  double r[3];
  cm_quat_rotate(r, g, p);
  cm_v3_add(p, r, t);
}
static void move_quat(double q[4], const double g[4]) {
  double r[4];
  cm_quat_mul(r, g, q);
  memcpy(q, r, sizeof r);
  cm_quat_normalize(q);
}
static void move_box(Box* b, const double g[4], const double t[3]) {
  move_point(b->c, g, t);
  move_quat(b->q, g);
  cm_quat_to_mat(b->R, b->q);
}
static void rand_motion(double g[4], double t[3]) {
  rand_quat(g);
  cm_v3_set(t, uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
}

/* half width of the projection of box b on the unit direction u */
static double box_radius(const Box* b, const double u[3]) {
  double r = 0, a[3];
  for (int k = 0; k < 3; k++) {
    box_axis(b, k, a);
    r += b->e[k] * fabs(cm_v3_dot(a, u));
  }
  return r;
}

/* the least face slack of the world point p in box b: > 0 inside, and then the distance to b's
 * surface */
static double box_slack(const Box* b, const double p[3]) {
  double r[3], x[3], s = INFINITY;
  cm_v3_sub(r, p, b->c);
  cm_m3_mulvt(x, b->R, r);
  for (int k = 0; k < 3; k++)
    s = fmin(s, b->e[k] - fabs(x[k]));
  return s;
}

enum { AXIS_FACE_A, AXIS_FACE_B, AXIS_EDGES };

/* SAT: the least overlap of the projections on the 15 axes, its axis n (out of B toward A) and
 * its kind */
static double sat_depth(const Box* A, const Box* B, double n[3], int* kind) {
  double ax[15][3], dc[3], best = INFINITY;
  int kinds[15], na = 0;
  for (int k = 0; k < 3; k++) {
    box_axis(A, k, ax[na]);
    kinds[na++] = AXIS_FACE_A;
  }
  for (int k = 0; k < 3; k++) {
    box_axis(B, k, ax[na]);
    kinds[na++] = AXIS_FACE_B;
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double a[3], b[3];
      box_axis(A, i, a);
      box_axis(B, j, b);
      cm_v3_cross(ax[na], a, b);
      if (cm_v3_norm(ax[na]) < 1e-9) continue; /* parallel edges: the face axes cover them */
      cm_v3_normalize(ax[na]);
      kinds[na++] = AXIS_EDGES;
    }
  cm_v3_sub(dc, A->c, B->c);
  for (int i = 0; i < na; i++) {
    double s = cm_v3_dot(ax[i], dc);
    double o = box_radius(A, ax[i]) + box_radius(B, ax[i]) - fabs(s);
    if (o < best) {
      best = o;
      cm_v3_scale(n, ax[i], s < 0 ? -1 : 1);
      *kind = kinds[i];
    }
  }
  return best;
}

/* a convex polygon */
typedef struct Poly {
  int n;
  double p[MAXPOLY][3];
} Poly;

/* Sutherland-Hodgman against one plane: keep the part of P with g . x <= h */
static void clip(Poly* P, const double g[3], double h) {
  Poly out;
  out.n = 0;
  if (P->n > MAXPOLY - 2) { /* a convex polygon gains at most one corner per plane */
    CHECK(P->n <= MAXPOLY - 2);
    return;
  }
  for (int i = 0; i < P->n; i++) {
    const double *a = P->p[i], *b = P->p[(i + 1) % P->n];
    double sa = cm_v3_dot(g, a) - h, sb = cm_v3_dot(g, b) - h;
    if (sa <= 0) cm_v3_copy(out.p[out.n++], a);
    if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
      double d[3];
      cm_v3_sub(d, b, a);
      cm_v3_madd(out.p[out.n++], a, d, sa / (sa - sb));
    }
  }
  *P = out;
}

/* clip P by the 6 half-spaces of box b */
static void clip_box(Poly* P, const Box* b) {
  for (int k = 0; k < 3 && P->n; k++) {
    double a[3], na[3];
    box_axis(b, k, a);
    cm_v3_scale(na, a, -1);
    double m = cm_v3_dot(a, b->c);
    clip(P, a, m + b->e[k]);
    if (P->n) clip(P, na, -m + b->e[k]);
  }
}

/* vector area of P: (1/2) sum (p_i - p_0) x (p_i+1 - p_0) */
static void poly_area(const Poly* P, double S[3]) {
  cm_v3_set(S, 0, 0, 0);
  for (int i = 1; i + 1 < P->n; i++) {
    double u[3], v[3], w[3];
    cm_v3_sub(u, P->p[i], P->p[0]);
    cm_v3_sub(v, P->p[i + 1], P->p[0]);
    cm_v3_cross(w, u, v);
    cm_v3_madd(S, S, w, 0.5);
  }
}

/* face (axis i, side s = +-1) of box b, counter-clockwise seen from outside (a_j x a_k = a_i) */
static Poly box_face(const Box* b, int i, int s) {
  int j = (i + 1) % 3, k = (i + 2) % 3;
  static const double uv[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  double ai[3], aj[3], ak[3], fc[3];
  box_axis(b, i, ai);
  box_axis(b, j, aj);
  box_axis(b, k, ak);
  cm_v3_madd(fc, b->c, ai, s * b->e[i]);
  Poly P;
  P.n = 4;
  for (int q = 0; q < 4; q++) {
    int r = s > 0 ? q : 3 - q;
    cm_v3_madd(P.p[q], fc, aj, uv[r][0] * b->e[j]);
    cm_v3_madd(P.p[q], P.p[q], ak, uv[r][1] * b->e[k]);
  }
  return P;
}

/* the exact reference of a pose */
typedef struct Exact {
  double V;            /* volume of A n B, m^3 */
  double depth;        /* SAT penetration depth, m */
  double n[3];         /* SAT axis, out of B toward A */
  int kind;            /* AXIS_* of n */
  double SA[3], SB[3]; /* vector areas of A's surface inside B and of B's inside A, m^2 */
  double area;         /* |n . SA|: the patch projected on the plane normal to n, m^2 */
  int ncurve;          /* corners of the intersection curve dA n dB */
  double curve[MAXCURVE][3];
} Exact;

/* X's faces clipped by Y: S += their vector area, V += their share of the volume about o, and
 * their corners on Y's surface added to the curve */
static void surface_inside(const Box* X, const Box* Y, const double o[3], double S[3], Exact* x) {
  cm_v3_set(S, 0, 0, 0);
  for (int i = 0; i < 3; i++)
    for (int s = -1; s <= 1; s += 2) {
      Poly P = box_face(X, i, s);
      clip_box(&P, Y);
      if (P.n < 3) continue;
      double SP[3], r[3];
      poly_area(&P, SP);
      cm_v3_add(S, S, SP);
      cm_v3_sub(r, P.p[0], o);
      x->V += cm_v3_dot(SP, r) / 3;
      for (int k = 0; k < P.n; k++)
        if (box_slack(Y, P.p[k]) <= EPS_POS && x->ncurve < MAXCURVE)
          cm_v3_copy(x->curve[x->ncurve++], P.p[k]);
    }
}

static Exact exact_boxes(const Box* A, const Box* B) {
  Exact x;
  memset(&x, 0, sizeof x);
  x.depth = sat_depth(A, B, x.n, &x.kind);
  surface_inside(A, B, A->c, x.SA, &x);
  surface_inside(B, A, A->c, x.SB, &x);
  x.area = fabs(cm_v3_dot(x.n, x.SA));
  return x;
}

/* extent of the intersection curve along the unit direction u */
static double curve_extent(const Exact* x, const double u[3]) {
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < x->ncurve; i++) {
    double s = cm_v3_dot(u, x->curve[i]);
    lo = fmin(lo, s);
    hi = fmax(hi, s);
  }
  return x->ncurve ? hi - lo : 0;
}

/* the vertices of a box primitive of d divisions: the 6 d^2 + 2 lattice points
 * (2 i - d)/(2 d) size on its surface, in world coordinates */
static int box_lattice_n(const Box* b, int d, double* out, double* nrm) {
  int n = 0;
  for (int i = 0; i <= d; i++)
    for (int j = 0; j <= d; j++)
      for (int k = 0; k <= d; k++) {
        if (i > 0 && i < d && j > 0 && j < d && k > 0 && k < d) continue;
        int p[3] = {i, j, k};
        double x[3], w[3], s[3];
        for (int a = 0; a < 3; a++) {
          x[a] = (double)(2 * p[a] - d) / d * b->e[a];
          s[a] = p[a] == 0 ? -1 : p[a] == d ? 1 : 0;
        }
        cm_m3_mulv(w, b->R, x);
        cm_v3_add(out + 3 * n, w, b->c);
        if (nrm) cm_m3_mulv(nrm + 3 * n, b->R, s);
        n++;
      }
  return n;
}

/* the surface vertices of a box of d divisions (world); with box_lattice_n also the direction of
 * each one's pseudonormal (the sum of the normals of the box faces it lies on: the angle-weighted
 * pseudonormal's direction, whatever the triangulation) */
static int box_lattice(const Box* b, int d, double* out) {
  return box_lattice_n(b, d, out, NULL);
}

/* The vertex query's depth of a point p of outward normal direction nv inside box Y: its
 * distance to the nearest face, unless that face's normal does not face against nv (a flush
 * side face: collide_mesh.c, facing_face); then to the nearest face that does. For a point
 * inside the box the nearest point of face (k, +-) is the point's projection on its plane. */
static double box_slack_facing(const Box* Y, const double p[3], const double nv[3]) {
  double r[3], x[3], m[3];
  cm_v3_sub(r, p, Y->c);
  cm_m3_mulvt(x, Y->R, r);
  cm_m3_mulvt(m, Y->R, nv);
  int kn = 0;
  for (int k = 1; k < 3; k++)
    if (Y->e[k] - fabs(x[k]) < Y->e[kn] - fabs(x[kn])) kn = k;
  double near = Y->e[kn] - fabs(x[kn]);
  if (!(near > 0) || (x[kn] >= 0 ? m[kn] : -m[kn]) < 0) return near;
  double best = INFINITY;
  for (int k = 0; k < 3; k++)
    for (int sg = -1; sg <= 1; sg += 2)
      if (sg * m[k] < 0) best = fmin(best, Y->e[k] - sg * x[k]);
  return best < INFINITY ? best : near;
}

/* the depth of the deepest vertex of X (d divisions) inside Y (0 if none); *ambiguous counts
 * the vertices within rounding of Y's surface */
static double deepest_vertex(const Box* X, int d, const Box* Y, int* ambiguous) {
  double v[3 * MAXLAT], nv[3 * MAXLAT], best = 0;
  int n = box_lattice_n(X, d, v, nv);
  for (int i = 0; i < n; i++) {
    double s = box_slack(Y, v + 3 * i);
    if (fabs(s) <= EPS_POS) (*ambiguous)++;
    if (s > 0) s = box_slack_facing(Y, v + 3 * i, nv + 3 * i);
    if (s > best) best = s;
  }
  return best;
}

/* ---------------------------------------------------------------------------------------------
 * the methods, through the public API */

/* place body b's frame at (c, q): cm_collide derives the frame from the com */
static void set_pose(const cmModel* m, cmData* d, int b, const double c[3], const double q[4]) {
  double rc[3];
  memcpy(d->body_xquat + 4 * b, q, 4 * sizeof(double));
  cm_quat_rotate(rc, q, m->body_com + 3 * b);
  cm_v3_add(d->body_cpos + 3 * b, c, rc);
  cm_v3_copy(d->body_xpos + 3 * b, c);
}

/* what a method reports for a pose */
typedef struct Meas {
  int n;        /* contacts */
  double V;     /* sum area_k (-dist_k), m^3 */
  double depth; /* max -dist_k, m */
  double area;  /* sum area_k, m^2 */
  double nd[3]; /* normal of the deepest contact */
  int npair;    /* contact pairs */
} Meas;

static Meas measure(const cmData* d) {
  Meas r;
  memset(&r, 0, sizeof r);
  r.n = d->ncontact;
  r.npair = d->npair;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    r.V += c->area * -c->dist;
    r.area += c->area;
    if (-c->dist > r.depth) {
      r.depth = -c->dist;
      cm_v3_copy(r.nd, c->n);
    }
  }
  return r;
}

static Meas collide_boxes(const cmModel* m, cmData* d, const Box* A, const Box* B) {
  set_pose(m, d, 0, A->c, A->q);
  set_pose(m, d, 1, B->c, B->q);
  CHECK(cm_collide(m, d) == CM_OK);
  return measure(d);
}

/* the documented behaviour of method k on a pose of two boxes of d divisions (file header);
 * returns the measurement. `general`: no edge of one mesh meets an edge of the other (the
 * contour's documented area and depth assume it) */
static Meas check_boxes(const cmModel* m, cmData* dd, int k, int d, const Box* A, const Box* B,
                        const Exact* x, int general) {
  Meas r = collide_boxes(m, dd, A, B);
  int amb = 0;
  double vA = deepest_vertex(A, d, B, &amb), vB = deepest_vertex(B, d, A, &amb);
  double vmax = k == M_VERTEX ? vA : fmax(vA, vB);
  if (k == M_VERTEX || k == M_TWO_WAY) {
    if (amb == 0) CHECK((r.n > 0) == (vmax > 0));
    if (r.n > 0) CHECK_NEAR(r.depth, vmax, EPS_POS);
  } else {
    CHECK(r.n > 0);
    CHECK(r.depth >= vmax - EPS_POS);
  }
  if (k == M_CONTOUR && r.n > 0 && general) {
    CHECK(r.npair == 1);
    CHECK_REL(r.area, fabs(cm_v3_dot(r.nd, x->SA)), 1e-9);
    /* the deepest vertex; with none inside (beyond the pose's rounding), the extent of the
     * intersection curve along n */
    if (amb == 0) CHECK_NEAR(r.depth, vmax > 0 ? vmax : curve_extent(x, r.nd), EPS_POS);
  }
  return r;
}

/* the models of a pair of boxes: one per division and method */
typedef struct Models {
  cmModel* m[NDIV][NMETHOD];
  cmData* d[NDIV][NMETHOD];
} Models;

static int models_new(Models* M, const cmBodyDef* a, const cmBodyDef* b) {
  memset(M, 0, sizeof *M);
  int ok = 1;
  for (int i = 0; i < NDIV; i++)
    for (int k = 0; k < NMETHOD; k++) {
      cmBodyDef ai = *a, bi = *b;
      if (ai.geom.type == CM_GEOM_BOX) ai.geom.divisions = DIV[i];
      bi.geom.divisions = DIV[i];
      M->m[i][k] = scene_pair("accuracy", &ai, &bi, METHOD[k]);
      if (M->m[i][k])
        M->d[i][k] = cm_data_new(M->m[i][k]);
      else
        ok = 0;
    }
  return ok;
}

static void models_free(Models* M) {
  for (int i = 0; i < NDIV; i++)
    for (int k = 0; k < NMETHOD; k++) {
      if (M->d[i][k]) cm_data_free(M->d[i][k]);
      if (M->m[i][k]) cm_model_free(M->m[i][k]);
    }
}

/* ---------------------------------------------------------------------------------------------
 * statistics */

typedef struct Stat {
  int n, miss, nf;
  double ev[MAXPOSE], ed[MAXPOSE]; /* eV and ed of the poses with a contact */
} Stat;

typedef struct Summary {
  double mean, worst, median; /* mean |e|, the e of largest |e|, median e */
} Summary;

static int dbl_cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

static Summary summarise(const double* e, int n) {
  static double tmp[MAXPOSE];
  Summary s = {0, 0, NAN};
  if (n == 0) return s;
  for (int i = 0; i < n; i++) {
    s.mean += fabs(e[i]) / n;
    if (fabs(e[i]) > fabs(s.worst)) s.worst = e[i];
    tmp[i] = e[i];
  }
  cm_sort(tmp, (size_t)n, sizeof *tmp, dbl_cmp);
  s.median = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
  return s;
}

static void stat_add(Stat* s, const Meas* r, double V, double depth) {
  s->n++;
  if (r->n == 0) {
    s->miss++;
    return;
  }
  if (s->nf >= MAXPOSE) return;
  s->ev[s->nf] = r->V / V - 1;
  s->ed[s->nf] = r->depth / depth - 1;
  s->nf++;
}

static void table_head(void) {
  printf("  %-10s %-11s %s %5s %6s | %8s %8s %9s | %8s %8s %9s\n", "case", "method", "d", "poses",
         "none", "eV med", "|eV|mean", "eV worst", "ed med", "|ed|mean", "ed worst");
}

static void stat_print(const char* name, int k, int div, const Stat* s) {
  Summary v = summarise(s->ev, s->nf), d = summarise(s->ed, s->nf);
  printf("  %-10s %-11s %d %5d %5.1f%% | %8.3g %8.3g %9.3g | %8.2g %8.3g %9.3g\n", name,
         METHOD_NAME[k], div, s->n, 100.0 * s->miss / (s->n ? s->n : 1), v.median, v.mean, v.worst,
         d.median, d.mean, d.worst);
}

/* ---------------------------------------------------------------------------------------------
 * poses of two boxes */

enum { CASE_RANDOM, CASE_FACE, CASE_EDGE, CASE_CROSS, NCASE };
static const char* CASE_NAME[NCASE] = {"random", "face-face", "edge-face", "crossed"};

/* a configuration before its offset t: B moved by t along u (random case), or A raised to
 * height t (the others; B at the origin) */
typedef struct Config {
  int kind;
  double qa[4], qb[4], xa[3], u[3];
} Config;

static void config_boxes(const Config* c, double t, Box* A, Box* B) {
  double zero[3] = {0, 0, 0}, x[3];
  if (c->kind == CASE_RANDOM) {
    cm_v3_scale(x, c->u, t);
    *A = make_box(SIZE_A, c->qa, zero);
    *B = make_box(SIZE_B, c->qb, x);
    return;
  }
  cm_v3_set(x, c->xa[0], c->xa[1], t);
  *A = make_box(SIZE_A, c->qa, x);
  *B = make_box(SIZE_B, c->qb, zero);
}

/* the offset where the SAT depth is `depth`: the depth is concave in t (a minimum of tents),
 * > depth at t = 0 and < 0 at t = 0.5 m, so the level is crossed once between them */
static double config_solve(const Config* c, double depth) {
  double lo = 0, hi = 0.5, n[3];
  int kind;
  Box A, B;
  config_boxes(c, lo, &A, &B);
  CHECK(sat_depth(&A, &B, n, &kind) > depth);
  config_boxes(c, hi, &A, &B);
  CHECK(sat_depth(&A, &B, n, &kind) < 0);
  for (int it = 0; it < 100 && hi - lo > 1e-15; it++) {
    double mid = 0.5 * (lo + hi);
    config_boxes(c, mid, &A, &B);
    if (sat_depth(&A, &B, n, &kind) > depth)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* the corner of the section of a box (size, orientation q) across its axis `along` that is
 * lowest (sign +1) or highest (sign -1) in world z, in the box frame */
static void extreme_edge(const double size[3], const double q[4], int along, int sign,
                         double out[3]) {
  double best = INFINITY;
  int i = (along + 1) % 3, j = (along + 2) % 3;
  cm_v3_set(out, 0, 0, 0); /* written below; set so that -O3 sees it always is */
  for (int s = -1; s <= 1; s += 2)
    for (int t = -1; t <= 1; t += 2) {
      double x[3] = {0, 0, 0}, w[3];
      x[i] = 0.5 * s * size[i];
      x[j] = 0.5 * t * size[j];
      cm_quat_rotate(w, q, x);
      if (sign * w[2] < best) {
        best = sign * w[2];
        cm_v3_copy(out, x);
      }
    }
}

static Config config_random(int kind) {
  Config c;
  memset(&c, 0, sizeof c);
  c.kind = kind;
  cm_quat_identity(c.qb);
  if (kind == CASE_RANDOM) {
    rand_quat(c.qa);
    rand_quat(c.qb);
    do
      cm_v3_set(c.u, uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    while (cm_v3_norm(c.u) > 1 || cm_v3_norm(c.u) < 0.1);
    cm_v3_normalize(c.u);
  } else if (kind == CASE_FACE) {
    double qz[4], qt[4], ax[3], w = uniform(0, 2 * CM_PI);
    cm_v3_set(ax, cos(w), sin(w), 0);
    axis_quat(qz, 2, uniform(0, 2 * CM_PI));
    cm_quat_from_axis_angle(qt, ax, uniform(0, 0.002));
    cm_quat_mul(c.qa, qz, qt);
    cm_v3_set(c.xa, uniform(-0.03, 0.03), uniform(-0.03, 0.03), 0);
  } else if (kind == CASE_EDGE) {
    double qz[4], qx[4];
    axis_quat(qz, 2, uniform(0, 2 * CM_PI));
    axis_quat(qx, 0, uniform(CM_PI / 6, CM_PI / 3));
    cm_quat_mul(c.qa, qz, qx);
    cm_v3_set(c.xa, uniform(-0.03, 0.03), uniform(-0.03, 0.03), 0);
  } else {
    /* B's highest edge runs along y through (pb_x, ., pb_z); A's lowest along its x axis; A is
     * placed so that they cross, in plan, at y0 on B's edge and s0 on A's */
    double qz[4], qx[4], pb[3], pa[3], wb[3], wa[3];
    axis_quat(c.qb, 1, uniform(CM_PI / 6, CM_PI / 3));
    axis_quat(qz, 2, uniform(-CM_PI / 3, CM_PI / 3));
    axis_quat(qx, 0, uniform(CM_PI / 6, CM_PI / 3));
    cm_quat_mul(c.qa, qz, qx);
    extreme_edge(SIZE_B, c.qb, 1, -1, pb);
    cm_quat_rotate(wb, c.qb, pb);
    wb[1] = uniform(-0.25, 0.25) * 0.5 * SIZE_B[1];
    extreme_edge(SIZE_A, c.qa, 0, 1, pa);
    pa[0] = uniform(-0.25, 0.25) * 0.5 * SIZE_A[0];
    cm_quat_rotate(wa, c.qa, pa);
    cm_v3_set(c.xa, wb[0] - wa[0], wb[1] - wa[1], 0);
  }
  return c;
}

/* ---------------------------------------------------------------------------------------------
 * tests */

/* the exact reference against closed forms */
static void test_exact_reference(void) {
  const double big[3] = {1, 1, 0.2}, cube[3] = {0.1, 0.1, 0.1}, zero[3] = {0, 0, 0};
  double qi[4], g[4], t[3];
  cm_quat_identity(qi);
  for (int it = 0; it < 20; it++) {
    /* axis-aligned: V = the product of the three overlaps, depth = the least of them */
    double c[3] = {uniform(-0.1, 0.1), uniform(-0.09, 0.09), uniform(-0.06, 0.06)}, V = 1,
           dmin = INFINITY;
    Box A = make_box(SIZE_A, qi, c), B = make_box(SIZE_B, qi, zero);
    for (int k = 0; k < 3; k++) {
      double o = fmin(A.c[k] + A.e[k], B.e[k]) - fmax(A.c[k] - A.e[k], -B.e[k]);
      V *= o;
      dmin = fmin(dmin, A.e[k] + B.e[k] - fabs(A.c[k]));
    }
    rand_motion(g, t);
    move_box(&A, g, t);
    move_box(&B, g, t);
    Exact x = exact_boxes(&A, &B);
    CHECK_REL(x.V, V, 1e-12);
    CHECK_NEAR(x.depth, dmin, 1e-14);
    /* a cube on its corner, body diagonal along -z, sunk delta into a big box's top face */
    double delta = uniform(0.001, 0.01), ax[3] = {1 / sqrt(2.0), -1 / sqrt(2.0), 0}, q[4];
    cm_quat_from_axis_angle(q, ax, acos(1 / sqrt(3.0)));
    double cc[3] = {uniform(-0.2, 0.2), uniform(-0.2, 0.2), 0.1 - delta + 0.05 * sqrt(3.0)};
    Box C = make_box(cube, q, cc), G = make_box(big, qi, zero);
    move_box(&C, g, t);
    move_box(&G, g, t);
    x = exact_boxes(&C, &G);
    CHECK_REL(x.V, sqrt(3.0) / 2 * delta * delta * delta, 1e-9);
    CHECK_REL(x.depth, delta, 1e-9);
    CHECK_REL(x.area, 1.5 * sqrt(3.0) * delta * delta, 1e-9);
    CHECK(x.kind == AXIS_FACE_B);
    /* a cube on an edge (turned 45 degrees about x): a prism of section delta^2 */
    axis_quat(q, 0, CM_PI / 4);
    cm_v3_set(cc, uniform(-0.2, 0.2), uniform(-0.2, 0.2), 0.1 - delta + 0.05 * sqrt(2.0));
    C = make_box(cube, q, cc);
    G = make_box(big, qi, zero);
    move_box(&C, g, t);
    move_box(&G, g, t);
    x = exact_boxes(&C, &G);
    CHECK_REL(x.V, 0.1 * delta * delta, 1e-9);
    CHECK_REL(x.area, 2 * 0.1 * delta, 1e-9);
    CHECK_REL(x.depth, delta, 1e-9);
    double s[3];
    cm_v3_add(s, x.SA, x.SB);
    CHECK(cm_v3_norm(s) <= 1e-12 * cm_v3_norm(x.SA));
  }
}

static void test_boxes(void) {
  cmBodyDef a = scene_box("A", SIZE_A[0], SIZE_A[1], SIZE_A[2], 1);
  cmBodyDef b = scene_box("B", SIZE_B[0], SIZE_B[1], SIZE_B[2], 1);
  Models M;
  if (!models_new(&M, &a, &b)) {
    models_free(&M);
    return;
  }
  static Stat st[NCASE + 1][NDIV][NMETHOD]; /* + random poses whose SAT axis is an edge pair */
  memset(st, 0, sizeof st);
  int npose = test_trials(400, 8), nedge_axis = 0, vdeep = 0;
  double vdeep_worst = 0, edeep_worst = 0;
  int edeep = 0;
  for (int kind = 0; kind < NCASE; kind++)
    for (int it = 0; it < npose; it++) {
      Config c = config_random(kind);
      double depth = uniform(0.001, 0.005), g[4], t[3];
      Box A, B;
      config_boxes(&c, config_solve(&c, depth), &A, &B);
      rand_motion(g, t);
      move_box(&A, g, t);
      move_box(&B, g, t);
      Exact x = exact_boxes(&A, &B);
      double s[3];
      cm_v3_add(s, x.SA, x.SB);
      CHECK_NEAR(x.depth, depth, 1e-12);
      CHECK(cm_v3_norm(s) <= 1e-9 * cm_v3_norm(x.SA));
      CHECK(x.V > 0);
      if (kind == CASE_CROSS) CHECK(x.kind == AXIS_EDGES);
      int ee = kind == CASE_RANDOM && x.kind == AXIS_EDGES;
      nedge_axis += ee;
      Meas rve;
      memset(&rve, 0, sizeof rve);
      for (int i = 0; i < NDIV; i++)
        for (int k = 0; k < NMETHOD; k++) {
          Meas r = check_boxes(M.m[i][k], M.d[i][k], k, DIV[i], &A, &B, &x, 1);
          stat_add(&st[kind][i][k], &r, x.V, x.depth);
          /* auto has vertex_edge's contacts (k runs in order: vertex_edge's came first), with
           * the vertex contacts' areas shared by depth instead of halved */
          if (k == M_AUTO) CHECK(r.n == rve.n && r.depth == rve.depth);
          if (k == M_VERTEX_EDGE) {
            rve = r;
            /* every edge contact at most the SAT depth (the least overlap of the pair's hits'
             * axes caps them; the SAT axis is among the 15, so with it among the hits' axes the
             * cap is exact) */
            const cmData* dd = M.d[i][k];
            for (int q = 0; q < dd->ncontact; q++)
              if (dd->contact[q].flags & CM_CONTACT_EDGE) {
                double e = -dd->contact[q].dist / x.depth;
                edeep_worst = fmax(edeep_worst, e);
                edeep += e > 1 + 1e-9;
              }
          }
          /* a vertex contact at most 1.2 times the overlap (the least translation that
           * separates the boxes, the SAT depth). With the nearest face it was never deeper (a
           * vertex must move at least its distance to the surface to leave); with the facing
           * face (collide_mesh.c) a vertex whose nearest face runs along it is as deep as the
           * nearest face against it, which can be more than the overlap along another axis:
           * in 6 of the 1600 poses, by at most 15 %. With vertex_edge and auto the edge contacts
           * are at most the overlap (edeep, below) and the vertex contacts as above: 1.2 times
           * it too (measured 1.153; it allowed twice, from when edge contacts reached 1.8) */
          if (k == M_VERTEX || k == M_TWO_WAY) {
            CHECK(r.depth <= 1.2 * x.depth + EPS_POS);
            if (r.depth > x.depth * (1 + 1e-9) + EPS_POS) {
              vdeep++;
              vdeep_worst = fmax(vdeep_worst, r.depth / x.depth);
            }
          }
          if (k == M_VERTEX_EDGE || k == M_AUTO) CHECK(r.depth <= 1.2 * x.depth + EPS_POS);
          if (ee) stat_add(&st[NCASE][i][k], &r, x.V, x.depth);
        }
    }
  table_head();
  for (int kind = 0; kind <= NCASE; kind++)
    for (int k = 0; k < NMETHOD; k++)
      for (int i = 0; i < NDIV; i++)
        stat_print(kind < NCASE ? CASE_NAME[kind] : "random e-e", k, DIV[i], &st[kind][i][k]);
  printf("  random poses whose SAT axis is an edge pair: %d of %d\n", nedge_axis, npose);
  printf("  edge contacts deeper than the overlap: %d (worst %.6g x)\n", edeep, edeep_worst);
  /* no edge contact deeper than the separating-axis depth: the least translation that separates
   * the boxes bounds every penetration. Until 2026-12-07 a second pair of crossed edges gave the
   * overlap along its own axis: 7 contacts of these poses, up to 1.499 times it */
  CHECK(edeep == 0);
  printf("  vertex and two_way contacts deeper than the overlap: %d of %d (pose, division, "
         "method) (worst %.3g x)\n",
         vdeep, 2 * NDIV * NCASE * npose, vdeep_worst);

  /* contour, vertex_edge and auto report every overlap (docs; asserted per pose in
   * check_boxes): the default method holds crossed boxes at every subdivision */
  for (int kind = 0; kind < NCASE; kind++)
    for (int i = 0; i < NDIV; i++) {
      CHECK(st[kind][i][M_CONTOUR].miss == 0);
      CHECK(st[kind][i][M_VERTEX_EDGE].miss == 0);
      CHECK(st[kind][i][M_AUTO].miss == 0);
    }
  /* face-face: the vertex methods' volume error falls with the mesh spacing (O(1/d)) */
  for (int k = M_VERTEX; k <= M_TWO_WAY; k++)
    for (int i = 1; i < NDIV; i++) {
      Summary fine = summarise(st[CASE_FACE][i][k].ev, st[CASE_FACE][i][k].nf);
      Summary coarse = summarise(st[CASE_FACE][i - 1][k].ev, st[CASE_FACE][i - 1][k].nf);
      CHECK(fine.mean < coarse.mean);
    }
  /* crossed ridges: vertex_edge's depth is the SAT depth at every subdivision. Until
   * 2026-12-07 only at d = 1: a ridge also paired with the edges inside the other box's faces
   * (between two coplanar triangles, made by the triangulation), whose axis is no axis of the
   * shapes, and at d = 2 and 4 the worst pose's deepest contact was 52 % off */
  for (int i = 0; i < NDIV; i++) {
    Summary ve =
        summarise(st[CASE_CROSS][i][M_VERTEX_EDGE].ed, st[CASE_CROSS][i][M_VERTEX_EDGE].nf);
    CHECK(fabs(ve.worst) < 1e-9);
  }
  models_free(&M);
}

/* The crossed bars of issue 11 (scenes.h: 600 x 100 x 100 mm bars, ridges crossed at 90 degrees
 * and 45 degrees, drop 2 mm), at d = 1, 2, 4, crossed at the ridges' middles and shifted along
 * them (70 mm on the upper, 40 mm on the lower: no lattice vertex near the crossing). Exact:
 * V = (2/3) delta^3, depth delta, patch 2 delta^2 (file header). At the middles d = 2 and 4 put
 * a vertex of each ridge at the crossing, delta/sqrt2 inside the other bar: the vertex methods
 * find it there, and vertex_edge's ridge edges then have an end inside (no edge contact). */
static void test_crossed_bars(void) {
  const double L = 0.6, S = 0.1, delta = 2e-3;
  const double shift[2][2] = {{0, 0}, {0.07, 0.04}};
  printf("  %-8s %-11s %s %8s %8s %8s\n", "crossing", "method", "d", "contacts", "V/Vx", "depth/d");
  for (int sh = 0; sh < 2; sh++) {
    cmBodyDef up, low;
    scene_crossed_bars(L, S, delta, &up, &low);
    up.position[0] += shift[sh][0];
    low.position[1] += shift[sh][1];
    Models M;
    if (!models_new(&M, &up, &low)) {
      models_free(&M);
      return;
    }
    Box A = make_box(up.geom.size, up.orientation, up.position);
    Box B = make_box(low.geom.size, low.orientation, low.position);
    Exact x = exact_boxes(&A, &B);
    CHECK_REL(x.V, 2.0 / 3 * delta * delta * delta, 1e-9);
    CHECK_REL(x.depth, delta, 1e-9);
    CHECK_REL(x.area, 2 * delta * delta, 1e-9);
    for (int k = 0; k < NMETHOD; k++)
      for (int i = 0; i < NDIV; i++) {
        int vertex_there = sh == 0 && DIV[i] > 1; /* and a degenerate contour */
        Meas r = check_boxes(M.m[i][k], M.d[i][k], k, DIV[i], &A, &B, &x, !vertex_there);
        printf("  %-8s %-11s %d %8d %8.4g %8.4g\n", sh ? "shifted" : "middle", METHOD_NAME[k],
               DIV[i], r.n, r.V / x.V, r.depth / delta);
        if (k == M_VERTEX || k == M_TWO_WAY) CHECK((r.n > 0) == vertex_there);
        if ((k == M_VERTEX_EDGE || k == M_AUTO) && !vertex_there) CHECK_REL(r.depth, delta, 1e-9);
        /* contour at the middles with d = 2, 4: each ridge passes through an edge of the other
         * mesh (the edge down the face from the ridge's middle vertex lies in the ridge's
         * plane), a degenerate contour: area 34x and 0.89x the exact, depth +8 % and +30 %
         * (issue 11); found, not asserted beyond that */
        if (k == M_CONTOUR && !vertex_there) { /* the docs' crossed ridges: 3 V */
          CHECK_REL(r.depth, delta, 1e-9);
          CHECK_REL(r.V, 3 * x.V, 1e-9);
        }
      }
    models_free(&M);
  }
}

/* An icosphere (R = 50 mm, refine 3: 642 vertices, edges ~7 mm) pressed delta = 1-5 mm into the
 * top face of a 500 x 500 x 100 mm box (d = 1, 2, 4) at a random orientation and place (within
 * 100 mm of the face's centre): the cap (radius sqrt(2 R delta) <= 22 mm) lies within the top
 * face, so the sphere's part inside the box is its part below the top plane.
 *  - Exact: each triangle of the sphere clipped by the plane; V_poly = (1/3) sum S_P . (p_P - o)
 *    with o on the plane (the flat face then adds nothing); A_flat = |n . S| (the flat face,
 *    by closure); depth = that of the lowest vertex. The mesh is convex (checked), so it lies
 *    between the balls of radius r_in (the least distance from the centre to a face plane) and
 *    R: V_cap(r_in) <= V_poly <= V_cap(R), V_cap(r) = pi c^2 (3 r - c) / 3, c = r - h_centre.
 *    And as a convex body cut by a plane, V_poly lies between the cone A_flat delta / 3 and the
 *    cylinder A_flat delta.
 *  - vertex (the sphere's vertices: the finer mesh): the faces around the vertices inside face
 *    down (checked), so A_i = sum over faces f around i of |n . n_f| A_f / 3 and
 *    sum_i A_i d_i = sum_f |n . n_f| A_f (mean of d+ over f's vertices), d+ = max(0, depth):
 *    the integral of the linear interpolant of d+, while V_poly = sum_f |n . n_f| integral_f d+.
 *    d+ is convex on each face, so its interpolant lies above it: V_poly <= V_vertex, with
 *    equality on faces wholly below the plane, and V_vertex - V_poly <= U = the sum over the
 *    faces the plane crosses of |n . n_f| A_f (mean d+). Asserted: the method's sum equals the
 *    face sum (the SPEC 5 area), which lies in [V_poly, V_poly + U] (a check of the clipping);
 *    depth: the lowest vertex's.
 *  - two_way: when no vertex of the box is inside the sphere, the sphere's contacts at half
 *    area: exactly V_vertex / 2, the force halved. vertex_edge: no edge of the sphere crosses the
 *    face with both ends outside (an edge through the plane has an end below it), so no edge
 *    pair: exactly two_way.
 *  - contour: the contour lies on the plane, so its plane is the face's and its area A_flat; its
 *    depth is the deepest vertex's: V_contour = A_flat delta, 1 to 3 times V_poly (for a
 *    smooth cap 3 (2 R - c) / (3 R - c) -> 2). */
static void test_sphere(void) {
  const double R = 0.05, SB[3] = {0.5, 0.5, 0.1};
  cmBodyDef a = scene_sphere("A", R, 3), b = scene_box("B", SB[0], SB[1], SB[2], 1);
  Models M;
  if (!models_new(&M, &a, &b)) {
    models_free(&M);
    return;
  }
  /* the sphere's mesh as the methods see it (body frame, centred on the frame origin) */
  const cmModel* m0 = M.m[0][0];
  int g = m0->body_geom[0], nv = m0->geom_nvert[g], nf = m0->geom_nface[g];
  const double* v = m0->mesh_vert + 3 * (size_t)m0->geom_vertadr[g];
  const int* f = m0->mesh_face + 3 * (size_t)m0->geom_faceadr[g];
  double* fn = malloc((size_t)nf * 3 * sizeof *fn);
  double r_in = INFINITY, cvx = -INFINITY;
  for (int j = 0; j < nf; j++) {
    double e1[3], e2[3];
    cm_v3_sub(e1, v + 3 * f[3 * j + 1], v + 3 * f[3 * j]);
    cm_v3_sub(e2, v + 3 * f[3 * j + 2], v + 3 * f[3 * j]);
    cm_v3_cross(fn + 3 * j, e1, e2);
    cm_v3_normalize(fn + 3 * j);
    double off = cm_v3_dot(fn + 3 * j, v + 3 * f[3 * j]);
    r_in = fmin(r_in, off);
    for (int i = 0; i < nv; i++)
      cvx = fmax(cvx, cm_v3_dot(fn + 3 * j, v + 3 * i) - off);
  }
  CHECK(nv == 642 && cvx <= 1e-15); /* convex */
  static Stat st[NDIV][NMETHOD];
  memset(st, 0, sizeof st);
  int npose = test_trials(200, 4);
  double smooth = 0;
  int inside[NDIV] = {0, 0, 0}; /* poses with a vertex of the box inside the sphere */
  for (int it = 0; it < npose; it++) {
    double q[4], Rs[9], c[3], zl = INFINITY, depth = uniform(0.001, 0.005), gq[4], t[3], qi[4];
    rand_quat(q);
    cm_quat_to_mat(Rs, q);
    for (int i = 0; i < nv; i++)
      zl = fmin(zl, Rs[6] * v[3 * i] + Rs[7] * v[3 * i + 1] + Rs[8] * v[3 * i + 2]);
    cm_v3_set(c, uniform(-0.1, 0.1), uniform(-0.1, 0.1), 0.5 * SB[2] - depth - zl);
    cm_quat_identity(qi);
    double zero[3] = {0, 0, 0};
    Box B = make_box(SB, qi, zero);
    rand_motion(gq, t);
    move_box(&B, gq, t);
    move_point(c, gq, t);
    move_quat(q, gq);
    cm_quat_to_mat(Rs, q);
    /* the top plane n . x = top */
    double n[3], top, pt[3];
    box_axis(&B, 2, n);
    cm_v3_madd(pt, B.c, n, 0.5 * SB[2]);
    top = cm_v3_dot(n, pt);
    /* exact cap of the polyhedron, and the bound U */
    double V = 0, S[3] = {0, 0, 0}, U = 0, Vi = 0, dmax = 0;
    int down = 1;
    for (int j = 0; j < nf; j++) {
      Poly P;
      P.n = 3;
      double dp[3], dsum = 0, Sf[3];
      int below = 0;
      for (int k = 0; k < 3; k++) {
        double w[3];
        cm_m3_mulv(w, Rs, v + 3 * f[3 * j + k]);
        cm_v3_add(P.p[k], w, c);
        dp[k] = top - cm_v3_dot(n, P.p[k]);
        below += dp[k] > 0;
        dsum += fmax(0, dp[k]);
        dmax = fmax(dmax, dp[k]);
      }
      if (!below) continue;
      poly_area(&P, Sf);
      down = down && cm_v3_dot(n, Sf) < 0;
      Vi += fabs(cm_v3_dot(n, Sf)) * dsum / 3;
      if (below < 3) U += fabs(cm_v3_dot(n, Sf)) * dsum / 3;
      clip(&P, n, top);
      double SP[3], r[3];
      poly_area(&P, SP);
      cm_v3_add(S, S, SP);
      cm_v3_sub(r, P.p[0], pt);
      V += cm_v3_dot(SP, r) / 3;
    }
    double Aflat = fabs(cm_v3_dot(n, S)), hc = cm_v3_dot(n, c) - top;
    double cR = R - hc, ci = fmax(0, r_in - hc);
    double capR = CM_PI * cR * cR * (3 * R - cR) / 3, capi = CM_PI * ci * ci * (3 * r_in - ci) / 3;
    CHECK(down);
    CHECK_NEAR(dmax, depth, 1e-12);
    CHECK(capi <= V * (1 + 1e-12) && V <= capR * (1 + 1e-12));
    CHECK(Aflat * depth / 3 <= V * (1 + 1e-12) && V <= Aflat * depth * (1 + 1e-12));
    CHECK(V <= Vi * (1 + 1e-12) && Vi <= (V + U) * (1 + 1e-12));
    smooth += V / (CM_PI * depth * depth * (3 * R - depth) / 3) / npose;
    for (int i = 0; i < NDIV; i++) {
      /* the box's vertices inside the sphere: the deepest one's distance to its surface */
      double lat[3 * MAXLAT], vB = 0;
      int nl = box_lattice(&B, DIV[i], lat);
      for (int l = 0; l < nl; l++) {
        double rr[3], y[3], sl = INFINITY;
        cm_v3_sub(rr, lat + 3 * l, c);
        cm_m3_mulvt(y, Rs, rr);
        for (int j = 0; j < nf; j++)
          sl = fmin(sl, cm_v3_dot(fn + 3 * j, v + 3 * f[3 * j]) - cm_v3_dot(fn + 3 * j, y));
        vB = fmax(vB, sl);
      }
      inside[i] += vB > 0;
      Meas r[NMETHOD];
      for (int k = 0; k < NMETHOD; k++) {
        set_pose(M.m[i][k], M.d[i][k], 0, c, q);
        set_pose(M.m[i][k], M.d[i][k], 1, B.c, B.q);
        CHECK(cm_collide(M.m[i][k], M.d[i][k]) == CM_OK);
        r[k] = measure(M.d[i][k]);
        stat_add(&st[i][k], &r[k], V, depth);
        CHECK(r[k].n > 0);
      }
      CHECK_NEAR(r[M_VERTEX].depth, depth, EPS_POS);
      CHECK_REL(r[M_VERTEX].V, Vi, 1e-9);
      if (vB == 0) {
        CHECK_REL(r[M_TWO_WAY].V, 0.5 * r[M_VERTEX].V, 1e-12);
        CHECK(r[M_VERTEX_EDGE].n == r[M_TWO_WAY].n);
        CHECK_REL(r[M_VERTEX_EDGE].V, r[M_TWO_WAY].V, 1e-12);
      }
      /* auto: the sphere is smooth and far finer than the box (642 vertices on 0.031 m^2
       * against 8 to 98 on 0.7 m^2), so its vertices alone, as vertex (the box's ridges are 150
       * mm or more from the cap: no edge contact) */
      CHECK(r[M_AUTO].n == r[M_VERTEX].n && r[M_AUTO].V == r[M_VERTEX].V &&
            r[M_AUTO].depth == r[M_VERTEX].depth);
      CHECK_REL(r[M_CONTOUR].area, Aflat, 1e-9);
      CHECK_NEAR(r[M_CONTOUR].depth, fmax(depth, vB), EPS_POS);
      if (vB <= depth) CHECK(r[M_CONTOUR].V >= V * (1 - 1e-9) && r[M_CONTOUR].V <= 3 * V);
    }
  }
  table_head();
  for (int k = 0; k < NMETHOD; k++)
    for (int i = 0; i < NDIV; i++)
      stat_print("sphere", k, DIV[i], &st[i][k]);
  printf("  polyhedral cap / smooth cap of the same depth: %.4f (mean)\n", smooth);
  printf("  poses with a vertex of the box inside the sphere: %d, %d, %d of %d at d = 1, 2, 4\n",
         inside[0], inside[1], inside[2], npose);
  free(fn);
  models_free(&M);
}

int main(void) {
  RUN(test_exact_reference);
  RUN(test_boxes);
  RUN(test_crossed_bars);
  RUN(test_sphere);
  return test_report();
}
