/* Resting penetration estimates (used by `check` and `run`): how deep each dynamic body would
 * sink into each fixed body it may rest on, under its weight, with the law of their rule
 * (docs/contact-laws.md; tests/cli/test_cli_warnings.py checks the numbers):
 *
 *   area_compliant, sphere of radius R (Winkler foundation: pressure ka (delta - r^2 / 2R) over
 *     the cap, force pi R ka delta^2):  delta = sqrt(W / (pi R ka))
 *   area_compliant, other shapes, resting on the largest face A of their box (the least depth
 *     any side gives):                   delta = W / (ka A)
 *   contact_time (K = m (pi/T)^2 against a fixed body): delta = g T^2 / pi^2 + play
 *
 * with W = m |g|. An estimate above CM_DEEP_FRACTION of the body's thickness (the smallest
 * extent of its box) is what the run's depth monitor would count as deep_penetration at rest:
 * reported before the run, with the ka or contact_time that gives 1 % of the thickness. Pairs of
 * two dynamic bodies and the linear law (stiffness per point: the depth depends on the point
 * count) are not estimated. */
#include <math.h>
#include <stdio.h>

#include "cli.h"

#define CM_PI 3.14159265358979323846

static double extent(const cmModel* m, int b, int k) {
  const double* a = m->geom_aabb + 6 * m->body_geom[b];
  return a[3 + k] - a[k];
}

int cli_resting_estimates(const cmModel* m, FILE* f, const char* prefix) {
  double g = sqrt(m->opt.gravity[0] * m->opt.gravity[0] + m->opt.gravity[1] * m->opt.gravity[1] +
                  m->opt.gravity[2] * m->opt.gravity[2]);
  int count = 0;
  if (!(g > 0)) return 0;
  for (int b = 0; b < m->nbody; b++) {
    int gb = m->body_geom[b];
    if (m->body_motion[b] != CM_MOTION_DYNAMIC || m->geom_type[gb] == CM_GEOM_PLANE) continue;
    double ex[3] = {extent(m, b, 0), extent(m, b, 1), extent(m, b, 2)};
    double t = fmin(ex[0], fmin(ex[1], ex[2]));
    double A = fmax(ex[0] * ex[1], fmax(ex[1] * ex[2], ex[0] * ex[2]));
    double W = m->body_mass[b] * g, target = 0.01 * t;
    for (int s = 0; s < m->nbody; s++) {
      if (m->body_motion[s] != CM_MOTION_FIXED) continue;
      int r = cm_model_pair_rule(m, b, s);
      if (r < 0 || r >= m->nrule || m->rule_law_fn[r]) continue;
      const cmRuleDef* rule = &m->rule[r];
      double delta, fix;
      const char* what;
      if (rule->law == CM_LAW_AREA_COMPLIANT && rule->ka > 0) {
        if (m->geom_type[gb] == CM_GEOM_SPHERE) {
          double R = 0.5 * t;
          delta = sqrt(W / (CM_PI * R * rule->ka));
          fix = W / (CM_PI * R * target * target);
        } else {
          delta = W / (rule->ka * A);
          fix = W / (A * target);
        }
        what = "ka";
      } else if (rule->law == CM_LAW_CONTACT_TIME) {
        double T = rule->contact_time; /* resolved by the compiler (default 100 steps) */
        delta = g * T * T / (CM_PI * CM_PI) + rule->play;
        fix = target > rule->play ? CM_PI * sqrt((target - rule->play) / g) : 0;
        what = "contact_time";
      } else {
        continue;
      }
      if (!(delta > CM_DEEP_FRACTION * t)) continue;
      count++;
      if (!f) continue;
      fprintf(f,
              "%s'%s' resting on '%s' (rule %d, %s) would sink about %.3g m, %.0f %% of its "
              "thickness %.3g m",
              prefix, m->body_name[b], m->body_name[s], r, cm_law_name(rule->law), delta,
              100 * delta / t, t);
      if (fix > 0)
        fprintf(f, "; %s %s %.3g %s gives 1 %%\n", what, what[0] == 'k' ? ">=" : "<=", fix,
                what[0] == 'k' ? "N/m^3" : "s");
      else
        fprintf(f, "; the play alone is more than 1 %%\n");
    }
  }
  return count;
}
