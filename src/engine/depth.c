/* The depth monitor (docs/outputs.md, "Warnings"), run by cm_step after every step.
 *
 * A compliant law lets bodies overlap by design, but only by a small fraction of their size: a
 * resting penetration of weight / (ka A) that is a large part of a body means a ka or a
 * contact_time far too soft (ka 5e4 instead of 5e10: a 50 mm ball sinks 91 mm into the ground),
 * and a deep penetration during a run means a contact the method does not hold (an edge sinking
 * into a face, a body crossing a thin wall). Either way the result is not what the user
 * modelled. A step in which some pair's deepest point exceeds CM_DEEP_FRACTION of the
 * thickness of the thinner of its two bodies (the smallest extent of its body-frame box; planes
 * have none) counts as CM_WARN_DEEP; the largest ratio of the run and its pair are kept. */
#include "engine/engine.h"

static double thickness(const cmModel* m, int b) {
  int g = m->body_geom[b];
  if (m->geom_type[g] == CM_GEOM_PLANE) return 0;
  const double* a = m->geom_aabb + 6 * g;
  double t = a[3] - a[0];
  for (int k = 1; k < 3; k++)
    if (a[3 + k] - a[k] < t) t = a[3 + k] - a[k];
  return t;
}

void cm_depth_start(cmData* d) {
  d->depth_ratio = 0;
  d->depth_first_step = 0;
  d->depth_body_a = d->depth_body_b = -1;
}

void cm_stage_depth(const cmModel* m, cmData* d) {
  int deep = 0;
  for (int k = 0; k < d->npair; k++) {
    const cmContactPair* P = &d->pair[k];
    double ta = thickness(m, P->body[0]), tb = thickness(m, P->body[1]);
    double t = ta > 0 && (tb <= 0 || ta < tb) ? ta : tb;
    if (!(t > 0)) continue;
    double ratio = P->max_penetration / t;
    if (ratio > d->depth_ratio) {
      d->depth_ratio = ratio;
      d->depth_body_a = P->body[0];
      d->depth_body_b = P->body[1];
    }
    deep |= ratio > CM_DEEP_FRACTION;
  }
  if (!deep) return;
  d->warning[CM_WARN_DEEP]++;
  if (!d->depth_first_step) d->depth_first_step = d->step + 1;
}
