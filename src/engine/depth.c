/* The depth monitor (docs/outputs.md, "Warnings"), run by cm_step after every step.
 *
 * A compliant law lets bodies overlap by design, but only by a small fraction of their size: a
 * resting penetration of weight / (ka A) that is a large part of a body means a ka or a
 * contact_time far too soft (ka 5e4 instead of 5e10: a 50 mm ball sinks 91 mm into the ground),
 * and a deep penetration during a run means a contact the method does not hold (an edge sinking
 * into a face, a body crossing a thin wall). Either way the result is not what the user
 * modelled. A step in which some pair's deepest point exceeds CM_DEEP_FRACTION of the
 * thickness of the thinner of its two bodies (the smallest extent of its body-frame box; planes
 * have none) counts as CM_WARN_DEEP; the largest ratio of the run and its pair are kept. So
 * does a pair the contact method missed: boxes overlapping, no contact, one body's centre of
 * mass inside the other (vertex contact sees no overlap where no vertex is inside: a bar
 * falling edge-first through another bar's edge), or, for the methods without edge contacts
 * (`vertex`, `two_way`), edges of the two meshes linked across each other deeper than
 * CM_DEEP_FRACTION (the edge-edge contacts `vertex_edge` would make, collide_edge.c: boxes of a
 * pile sunk 43 mm into each other edge first with no vertex inside, silent before), or for
 * `vertex` a vertex of either body that deep inside the other (the one-way method tests one
 * body's: a box's corner 40 mm into another's face went unseen). These are tested for pairs in
 * contact too (a shallow vertex contact says nothing of a deep crossing elsewhere), in a step
 * not counted otherwise and when the world boxes overlap by that much.
 *
 * Tunnelling. Vertex-penetration contact sees a vertex only once it is inside the other body,
 * and pushes it out through the nearest face. A vertex that moves more than half a body's
 * thickness in one step can reach the far half of it (and is then pushed out the far side) or
 * jump it altogether, and neither may show in the contacts. After every step, each body near
 * another (their world boxes closer than the relative travel) is checked: the relative travel
 * (|v_a - v_b| + |w_a| r_a + |w_b| r_b) h, r half the diagonal of a body's box, against
 * half the thinner body's thickness; beyond it the step counts CM_WARN_TUNNEL, and the first
 * such step, pair, speed and thickness are kept for the message with the largest safe step
 * t / (2 v). Half-spaces have no far side and are not checked. Bodies whose travel is below half
 * the thinnest body of the scene are skipped at once, so the check costs O(n) in quiet scenes. */
#include <math.h>

#include "collide/collide.h"
#include "core/cm_math.h"
#include "core/sort.h"
#include "engine/engine.h"
#include "model/data_internal.h"
#include "model/state.h"

void cm_depth_start(cmData* d) {
  d->depth_ratio = 0;
  d->depth_first_step = 0;
  d->depth_body_a = d->depth_body_b = -1;
  d->tunnel_first_step = 0;
  d->tunnel_body_a = d->tunnel_body_b = -1;
  d->tunnel_speed = d->tunnel_thickness = 0;
}

/* half the diagonal of body b's box: about the largest distance of its points from the com (a
 * bound when the com is the box's centre, as for the primitives), m */
static double reach(const cmModel* m, int b) {
  const double* a = m->geom_aabb + 6 * m->body_geom[b];
  double dx = a[3] - a[0], dy = a[4] - a[1], dz = a[5] - a[2];
  return 0.5 * sqrt(dx * dx + dy * dy + dz * dz);
}

static int boxes_near(const double* a, const double* b, double gap) {
  for (int k = 0; k < 3; k++)
    if (a[k] - gap > b[3 + k] || b[k] - gap > a[3 + k]) return 0;
  return 1;
}

void cm_stage_tunnel(const cmModel* m, cmData* d, double h) {
  double tmin = INFINITY;
  for (int b = 0; b < m->nbody; b++) {
    double t = cm_body_thickness(m, b);
    if (t > 0 && t < tmin) tmin = t;
  }
  if (!isfinite(tmin)) return;
  /* the fastest prescribed body's points: a body at rest can be struck by one (until 2026-12-08
   * the filter below took the dynamic body's own speed only, and a prescribed plate passed
   * through a resting one with no warning) */
  double vp = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body_motion[b] == CM_MOTION_PRESCRIBED)
      vp = fmax(vp, cm_v3_norm(d->body_cvel + 3 * b) +
                        (m->geom_type[m->body_geom[b]] != CM_GEOM_PLANE
                             ? cm_v3_norm(d->body_angvel + 3 * b) * reach(m, b)
                             : 0));
  int risk = 0;
  for (int a = 0; a < m->nbody; a++) {
    if (m->body_motion[a] != CM_MOTION_DYNAMIC) continue;
    double ra = reach(m, a), wa = cm_v3_norm(d->body_angvel + 3 * a);
    if (!((cm_v3_norm(d->body_cvel + 3 * a) + wa * ra + vp) * h > 0.5 * tmin)) continue;
    for (int b = 0; b < m->nbody; b++) {
      if (cm_model_pair_rule(m, a, b) < 0) continue;
      double ta = cm_body_thickness(m, a), tb = cm_body_thickness(m, b);
      double t = ta > 0 && (tb <= 0 || ta < tb) ? ta : tb;
      if (!(t > 0)) continue;
      double dv[3];
      cm_v3_sub(dv, d->body_cvel + 3 * a, d->body_cvel + 3 * b);
      double speed = cm_v3_norm(dv) + wa * ra;
      if (m->geom_type[m->body_geom[b]] != CM_GEOM_PLANE)
        speed += cm_v3_norm(d->body_angvel + 3 * b) * reach(m, b);
      double travel = speed * h;
      if (!(travel > 0.5 * t) || !boxes_near(d->body_aabb + 6 * a, d->body_aabb + 6 * b, travel))
        continue;
      risk = 1;
      if (!d->tunnel_first_step) {
        d->tunnel_first_step = d->step + 1;
        d->tunnel_body_a = a;
        d->tunnel_body_b = b;
        d->tunnel_speed = speed;
        d->tunnel_thickness = t;
      }
    }
  }
  if (risk) d->warning[CM_WARN_TUNNEL]++;
}

/* the body pairs in contact as sorted (low, high) keys, from the step's arena (NULL: none, or
 * no memory: then every candidate counts as in contact and nothing is tested) */
static int* contact_keys(cmData* d) {
  if (!d->npair) return NULL;
  int* key = cm_arena_alloc(&cm_priv(d)->arena, (size_t)d->npair * 2 * sizeof *key);
  if (!key) return NULL;
  for (int k = 0; k < d->npair; k++) {
    int a = d->pair[k].body[0], b = d->pair[k].body[1];
    key[2 * k] = a < b ? a : b;
    key[2 * k + 1] = a < b ? b : a;
  }
  /* the pairs come in the broadphase's (a, b) order, so the keys are usually sorted already
   * (a heap sort of sorted keys was 0.8 % of a step of the S2 pile of 125 boxes) */
  int sorted = 1;
  for (int k = 1; k < d->npair && sorted; k++)
    sorted = cm_int2_cmp(key + 2 * (k - 1), key + 2 * k) < 0;
  if (!sorted) cm_sort(key, (size_t)d->npair, 2 * sizeof *key, cm_int2_cmp);
  return key;
}

/* the pair (a, b), a < b, is among the n sorted keys */
static int in_contact(const int* key, int n, int a, int b) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (key[2 * mid] < a || (key[2 * mid] == a && key[2 * mid + 1] < b))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && key[2 * lo] == a && key[2 * lo + 1] == b;
}

/* the deepest vertex of body a's mesh inside body b (0 if none) */
static double vertex_depth(const cmModel* m, const cmData* d, int a, int b) {
  double depth = 0;
  for (int v = 0; v < m->geom_nvert[m->body_geom[a]]; v++) {
    cmHit hit;
    cm_collide_vertex(m, d, a, b, v, &hit);
    if (hit.inside) depth = fmax(depth, -hit.dist);
  }
  return depth;
}

/* Two rigid boxes (box primitives, which fill their body-frame box): the depth of their
 * penetration, the least separating translation (cm_boxes_overlap); 0 for other pairs. The
 * contacts' own depths can say far less: a corner pressed deeper than half a box into another
 * is measured from the nearest face, and the 1000-box pile of the peer kit (ka 1e7) had box
 * pairs 32.7 mm inside each other, a third of a box, whose deepest contact was 17.9 mm, under
 * the warning's fifth (bench/README.md).
 * The caller's ratio is fmax(pen, depth) / th, which only counts if above lim (the run's largest
 * and CM_DEEP_FRACTION, whichever is less). Where the bound of the depth along A's axes
 * (cm_boxes_overlap_bound, not below the depth) already gives a ratio not above lim, the depth
 * cannot count, and 0 is returned instead (its ratio is then not above lim either: fmax, and the
 * division by th > 0, are monotone in rounded arithmetic too): the same warnings and the same
 * largest ratio; the S2 pile of 125 boxes at rest: 71 % of its pairs skip cm_boxes_overlap, 0.7 %
 * fewer instructions in its run. */
static double box_depth(const cmModel* m, const cmData* d, const double* rot, int a, int b,
                        double pen, double th, double lim) {
  int ga = m->body_geom[a], gb = m->body_geom[b];
  if (m->geom_type[ga] != CM_GEOM_BOX || m->geom_type[gb] != CM_GEOM_BOX) return 0;
  if (m->body_motion[a] == CM_MOTION_DEFORMABLE || m->body_motion[b] == CM_MOTION_DEFORMABLE)
    return 0;
  double R[9], t[3];
  if (rot)
    cm_pair_pose_mat(rot + 9 * a, rot + 9 * b, d->body_xpos + 3 * a, d->body_xpos + 3 * b, R, t);
  else
    cm_pair_pose(d, a, b, R, t);
  const double *A = m->geom_aabb + 6 * ga, *B = m->geom_aabb + 6 * gb;
  if (fmax(pen, fmax(0, cm_boxes_overlap_bound(A, B, R, t))) / th <= lim) return 0;
  return fmax(0, cm_boxes_overlap(A, B, R, t));
}

/* the rotation matrices (cm_quat_to_mat) of the rigid bodies box_depth takes, 9 a body, from the
 * step's arena (NULL: no pairs, or no memory: then box_depth computes its own). A body of a pile
 * is in several pairs: the S2 pile of 1000 boxes at rest has 2,400 pairs in contact, which
 * computed 4,800 matrices a step (cm_pair_pose) against these 1,000; the same matrices, the
 * same poses (cm_pair_pose_mat); the stage 50.2 -> 46.0 M instructions over its 20 steps. */
static double* box_rotations(const cmModel* m, cmData* d) {
  if (!d->npair) return NULL;
  double* rot = cm_arena_alloc(&cm_priv(d)->arena, 9 * (size_t)m->nbody * sizeof *rot);
  if (!rot) return NULL;
  for (int b = 0; b < m->nbody; b++)
    if (m->geom_type[m->body_geom[b]] == CM_GEOM_BOX && m->body_motion[b] != CM_MOTION_DEFORMABLE)
      cm_quat_to_mat(rot + 9 * (size_t)b, d->body_xquat + 4 * b);
  return rot;
}

/* is point p (world) inside body b, tested only when p is not outside b's world box by more
 * than rounding: the box holds the body's rotated body-frame box, and a point outside it by
 * 1e-9 of the sizes involved is outside that box in the body's frame too (the carried point
 * differs by rounding, 1e-16 of them), where cm_point_inside returns 0 at its first test. The
 * same answers; a pile of 125 spheres asks 600 such points per step, nearly all far outside. */
static int com_inside(const cmModel* m, const cmData* d, int b, const double p[3]) {
  const double* B = d->body_aabb + 6 * b;
  for (int k = 0; k < 3; k++) {
    double eps = 1e-9 * (fabs(p[k]) + fabs(B[k]) + fabs(B[3 + k]));
    if (p[k] < B[k] - eps || p[k] > B[3 + k] + eps) return 0;
  }
  return cm_point_inside(m, d, b, p);
}

void cm_stage_depth(const cmModel* m, cmData* d) {
  int deep = 0;
  const double* rot = box_rotations(m, d);
  /* the pairs in contact: their deepest point against the thinner body (two boxes: at least
   * their overlap, box_depth) */
  for (int k = 0; k < d->npair; k++) {
    const cmContactPair* P = &d->pair[k];
    double ta = cm_body_thickness(m, P->body[0]), tb = cm_body_thickness(m, P->body[1]);
    double t = ta > 0 && (tb <= 0 || ta < tb) ? ta : tb;
    if (!(t > 0)) continue;
    double lim = fmin(d->depth_ratio, CM_DEEP_FRACTION);
    double ratio = fmax(P->max_penetration,
                        box_depth(m, d, rot, P->body[0], P->body[1], P->max_penetration, t, lim)) /
                   t;
    if (ratio > d->depth_ratio) {
      d->depth_ratio = ratio;
      d->depth_body_a = P->body[0];
      d->depth_body_b = P->body[1];
    }
    deep |= ratio > CM_DEEP_FRACTION;
  }
  /* overlaps the method missed: a candidate pair of the broadphase (boxes overlapping, bounding
   * balls not apart: bodies whose balls are apart do not touch) with no contact and one body's
   * centre of mass inside the other (a bar that fell through another's
   * edge with method vertex, no vertex ever inside: silent before). Its depth is at least half
   * the thickness of the body whose centre is inside. */
  const cmDataPriv* p = cm_priv(d);
  int* key = contact_keys(d);
  if (d->npair && !key) p = NULL; /* no memory for the keys: skip this step's test */
  /* the candidates come sorted by (a, b) (broadphase.c), as the keys: a walk along both finds
   * each candidate's key (j), where the binary search of in_contact took 30 % of this stage on
   * the S4 spheres; should the candidates ever be out of order, the search answers (the same) */
  int j = 0, ordered = 1;
  for (int k = 0; p && k < p->ncand; k++) {
    int a = p->cand[3 * k], b = p->cand[3 * k + 1]; /* a < b */
    /* a pair in contact has had its deepest point checked above; its edges are checked below
     * all the same (a pair of tilted boxes with a vertex just inside can have edges crossed 40
     * mm deep: physics/test_pile_overlap) */
    if (k > 0 && (p->cand[3 * k - 3] > a || (p->cand[3 * k - 3] == a && p->cand[3 * k - 2] >= b)))
      ordered = 0;
    int inc;
    if (ordered) {
      while (j < d->npair && (key[2 * j] < a || (key[2 * j] == a && key[2 * j + 1] < b)))
        j++;
      inc = j < d->npair && key[2 * j] == a && key[2 * j + 1] == b;
    } else {
      inc = in_contact(key, d->npair, a, b);
    }
    /* a pair in contact whose method makes edge contacts has nothing more to test (the
     * conditions below would skip it all the same: no centre is tested, the method is not one
     * without edge contacts); the S2 pile of 1000 boxes: half its candidates stop here */
    cmMethod meth = m->rule[p->cand[3 * k + 2]].method;
    if (inc && meth != CM_METHOD_VERTEX && meth != CM_METHOD_TWO_WAY) continue;
    /* a deformable body's surface moves with its nodes: the inside test of its rest geometry
     * would not see it (docs/deformable.md) */
    if (m->body_motion[a] == CM_MOTION_DEFORMABLE || m->body_motion[b] == CM_MOTION_DEFORMABLE)
      continue;
    /* a plane's "centre" is its frame origin, not a point of the body: not tested */
    int pa = m->geom_type[m->body_geom[a]] == CM_GEOM_PLANE;
    int pb = m->geom_type[m->body_geom[b]] == CM_GEOM_PLANE;
    /* a centre counts only where it lies inside its own body: a ring's, a bowl's or an L's
     * centre of mass is in its hollow, where another body may rest apart from it (until
     * 2026-12-08 a ball above a bowl's bottom, a ring around a rod and a cube in a corner each
     * counted as an overlap of half a body) */
    int ain = !inc && !pa && com_inside(m, d, b, d->body_cpos + 3 * a) &&
              cm_point_inside(m, d, a, d->body_cpos + 3 * a);
    int bin = !ain && !inc && !pb && com_inside(m, d, a, d->body_cpos + 3 * b) &&
              cm_point_inside(m, d, b, d->body_cpos + 3 * b);
    /* no centre inside: only the methods without edge contacts go on (below), so the other
     * candidates stop here before their thicknesses are looked up (the thickness's lines took
     * 18 % of this stage's samples on the S4 bed of 1000 spheres, whose candidates nearly all
     * stop here) */
    if (!ain && !bin && (pa || pb || (meth != CM_METHOD_VERTEX && meth != CM_METHOD_TWO_WAY)))
      continue;
    double ta = cm_body_thickness(m, a), tb = cm_body_thickness(m, b);
    double t = ta > 0 && (tb <= 0 || ta < tb) ? ta : tb;
    double ratio;
    if (ain || bin) {
      ratio = t > 0 ? 0.5 * (ain ? ta : tb) / t : 1;
      if (!(ratio >= 0.5)) ratio = 0.5;
    } else {
      /* no centre inside: edges linked across each other, for the methods that make no edge
       * contacts (the others made theirs in the narrowphase) */
      if (!(t > 0)) continue;
      /* a penetration that deep needs the world boxes to overlap that much along every axis
       * (moving a body by the overlap of the projections on any direction separates them) */
      const double *ba = d->body_aabb + 6 * a, *bb = d->body_aabb + 6 * b;
      double ov = INFINITY;
      for (int i = 0; i < 3; i++)
        ov = fmin(ov, fmin(ba[3 + i], bb[3 + i]) - fmax(ba[i], bb[i]));
      /* only in a step not counted already (the edge search is the costliest test here) */
      if (deep || !(ov > CM_DEEP_FRACTION * t)) continue;
      cmEdgeHit* h;
      int nh = cm_collide_edges(m, d, a, b, &cm_priv(d)->arena, &h);
      double depth = 0;
      for (int i = 0; i < nh; i++)
        depth = fmax(depth, -h[i].dist);
      /* and, for `vertex` (one body's vertices only), the other body's corners inside */
      if (meth == CM_METHOD_VERTEX && depth <= CM_DEEP_FRACTION * t)
        depth = fmax(vertex_depth(m, d, a, b), vertex_depth(m, d, b, a));
      ratio = depth / t;
      if (!(ratio > CM_DEEP_FRACTION)) {
        if (ratio > d->depth_ratio) { /* the run's largest, below the threshold */
          d->depth_ratio = ratio;
          d->depth_body_a = a;
          d->depth_body_b = b;
        }
        continue;
      }
    }
    deep = 1;
    if (ratio > d->depth_ratio) {
      d->depth_ratio = ratio;
      d->depth_body_a = a;
      d->depth_body_b = b;
    }
  }
  if (!deep) return;
  d->warning[CM_WARN_DEEP]++;
  if (!d->depth_first_step) d->depth_first_step = d->step + 1;
}
