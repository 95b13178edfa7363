/* Initial overlaps (used by `check` and `run`): the body pairs in contact at t = 0, their depth
 * and the elastic energy their law stores there, as the speed it would give the pair.
 *
 * Energy stored by an overlap, from the law of the pair's rule (docs/contact-laws.md):
 *   area_compliant  sum_k ka A_k d_k^2 / 2 over the contact points (depth d_k, area A_k)
 *   linear          sum_k k d_k^2 / 2
 *   contact_time    m_rep (pi/T)^2 x^2 / 2, x = the deepest point minus the play
 * Released at once, it sets the two bodies apart at v = sqrt(2 E / m_red), m_red the reduced
 * mass of the pair (the dynamic body's mass against a fixed one): the "launch speed". A law
 * given as a C function has no known energy: its pairs get a depth but no speed.
 *
 * Nested and coincident bodies. Vertex contact finds a vertex inside the other body (or on its
 * surface and inside a hair into its own body: coincident boxes have contacts as deep as the
 * boxes), so a coarse body inside a finer one with method vertex (the finer one's vertices are
 * the ones tested, and none is inside the coarse one) gives no contact at all, hence no force:
 * they would stay inside each other. A pair that may
 * collide, has no contact, and has one body's centre of mass inside the other
 * (cm_point_inside) is reported as contained. */
#include <math.h>
#include <stdio.h>

#include "cli.h"

/* m_rep of the contact_time law: the smaller finite mass */
static double rep_mass(const cmModel* m, int a, int b) {
  double ma = m->body_invmass[a] > 0 ? m->body_mass[a] : INFINITY;
  double mb = m->body_invmass[b] > 0 ? m->body_mass[b] : INFINITY;
  return ma < mb ? ma : mb;
}

/* the launch speed of pair k of d (NAN when the law's energy is unknown) and its energy */
static double launch_speed(const cmModel* m, const cmData* d, int k, double* energy) {
  const cmContactPair* P = &d->pair[k];
  const cmRuleDef* r = &m->rule[P->rule];
  double inv = m->body_invmass[P->body[0]] + m->body_invmass[P->body[1]], E = 0;
  *energy = NAN;
  if (m->rule_law_fn[P->rule] || !(inv > 0)) return NAN;
  if (r->law == CM_LAW_CONTACT_TIME) {
    /* the compiled rule holds T itself (the default 100 steps resolved) */
    double x = P->max_penetration - r->play, w = 3.14159265358979323846 / r->contact_time;
    if (x > 0) E = 0.5 * rep_mass(m, P->body[0], P->body[1]) * w * w * x * x;
  } else if (r->law == CM_LAW_AREA_COMPLIANT || r->law == CM_LAW_LINEAR) {
    for (int i = 0; i < P->points; i++) {
      const cmContact* c = &d->contact[P->first + i];
      double K = r->law == CM_LAW_LINEAR ? r->stiffness : r->ka * c->area;
      if (c->dist < 0) E += 0.5 * K * c->dist * c->dist;
    }
  }
  *energy = E;
  return sqrt(2 * E * inv);
}

/* the world boxes of bodies a and b overlap (planes have infinite boxes) */
static int boxes_overlap(const cmData* d, int a, int b) {
  const double *x = d->body_aabb + 6 * a, *y = d->body_aabb + 6 * b;
  for (int k = 0; k < 3; k++)
    if (x[k] > y[3 + k] || y[k] > x[3 + k]) return 0;
  return 1;
}

/* Is pair k of d only touching: no point deeper than 1e-9 of the smaller extent of its bodies'
 * boxes (a plane's is infinite)? Far above the rounding of a pose that puts a body exactly on
 * another (a sphere on a plane tilted 30 degrees, placed tangent by trigonometry, was found
 * 6.9e-18 m deep and reported as an initial overlap), far below any depth a law means. */
static int only_touching(const cmData* d, int k) {
  const cmContactPair* P = &d->pair[k];
  double size = INFINITY;
  for (int s = 0; s < 2; s++) {
    const double* b = d->body_aabb + 6 * P->body[s];
    for (int i = 0; i < 3; i++)
      size = fmin(size, b[3 + i] - b[i]);
  }
  return isfinite(size) && P->max_penetration <= 1e-9 * size;
}

/* a contact pair of d joins a and b */
static int in_contact(const cmData* d, int a, int b) {
  for (int k = 0; k < d->npair; k++) {
    const int* p = d->pair[k].body;
    if ((p[0] == a && p[1] == b) || (p[0] == b && p[1] == a)) return 1;
  }
  return 0;
}

int cli_initial_overlaps(const cmModel* m, FILE* f, const char* prefix, int limit,
                         cliOverlaps* out) {
  cliOverlaps o = {0, 0, 0, {-1, -1}, 0, {-1, -1}};
  cmData* d = cm_data_new(m);
  if (!d) return -1;
  if (cm_collide(m, d) != CM_OK) {
    cm_data_free(d);
    return -1;
  }
  int shown_pairs = 0;
  for (int k = 0; k < d->npair; k++) {
    const cmContactPair* P = &d->pair[k];
    if (only_touching(d, k)) continue; /* (a body placed exactly on another) */
    o.pairs++;
    double E, v = launch_speed(m, d, k, &E);
    if (P->max_penetration > o.deepest) o.deepest = P->max_penetration;
    if (v > o.fastest) {
      o.fastest = v;
      o.body[0] = P->body[0];
      o.body[1] = P->body[1];
    }
    if (!f || shown_pairs++ >= limit) continue;
    fprintf(f, "%s%s <-> %s: %d points, area %.6g m^2, max penetration %.6g m", prefix,
            m->body_name[P->body[0]], m->body_name[P->body[1]], P->points, P->area,
            P->max_penetration);
    if (isnan(v))
      fprintf(f, " (law given as a function: stored energy unknown)\n");
    else
      fprintf(f, ", stores %.3g J: enough to set the pair apart at up to %.3g m/s\n", E, v);
  }
  if (f && o.pairs > limit) fprintf(f, "%s... and %d more pairs\n", prefix, o.pairs - limit);
  /* nested or coincident: collidable, boxes overlapping, no contact, a com inside the other */
  int shown = 0;
  for (int a = 0; a < m->nbody; a++)
    for (int b = a + 1; b < m->nbody; b++) {
      if (cm_model_pair_rule(m, a, b) < 0 || !boxes_overlap(d, a, b) || in_contact(d, a, b))
        continue;
      /* a plane's "centre" is its frame origin, not a point of the body: not tested */
      int pa = m->geom_type[m->body_geom[a]] == CM_GEOM_PLANE;
      int pb = m->geom_type[m->body_geom[b]] == CM_GEOM_PLANE;
      /* a centre counts only inside its own body (a ring's or a bowl's lies in its hollow,
       * where another body may sit apart from it) */
      const double *ca = d->body_cpos + 3 * a, *cb = d->body_cpos + 3 * b;
      if ((pa || !cm_point_inside(m, d, b, ca) || !cm_point_inside(m, d, a, ca)) &&
          (pb || !cm_point_inside(m, d, a, cb) || !cm_point_inside(m, d, b, cb)))
        continue;
      if (!o.contained++) {
        o.contain[0] = a;
        o.contain[1] = b;
      }
      if (f && shown++ < limit)
        fprintf(f,
                "%s%s <-> %s: no contact point, but one's centre of mass is inside the other "
                "(coincident or nested bodies): no force will separate them\n",
                prefix, m->body_name[a], m->body_name[b]);
    }
  cm_data_free(d);
  *out = o;
  return 0;
}
