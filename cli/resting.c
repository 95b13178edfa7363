/* Resting contact estimates (used by `check` and `run`).
 *
 * 1. Resting penetration: how deep each dynamic body would
 * sink into each fixed body it may rest on, under its weight, with the law of their rule
 * (docs/contact-laws.md; tests/cli/test_cli_warnings.py checks the numbers):
 *
 *   area_compliant, sphere of radius R (Winkler foundation: pressure ka (delta - r^2 / 2R) over
 *     the cap, force pi R ka delta^2):  delta = sqrt(W / (pi R ka))
 *   area_compliant, other shapes, resting on the largest face A of their box (the least depth
 *     any side gives):                   delta = W / (ka A)
 *   contact_time (K = m (pi/T)^2 against a fixed body): delta = g T^2 / pi^2 + play
 *   area_compliant with min_period beta, not a sphere, where ka A wbar > cap = (2 pi / (beta
 *     h))^2 (docs/contact-laws.md, "Softened contacts: min_period"): delta = W wbar / cap,
 *     wbar the rows' mean inverse effective mass on the face (face_wbar)
 *
 * with W = m |g|. An estimate above CM_DEEP_FRACTION of the body's thickness (the smallest
 * extent of its box) is what the run's depth monitor would count as deep_penetration at rest:
 * reported before the run, with the ka or contact_time that gives 1 % of the thickness. Pairs of
 * two dynamic bodies and the linear law (stiffness per point: the depth depends on the point
 * count) are not estimated.
 *
 * 2. Contact period: how fast the stiffest resting implicit contact rings, against the sub-step
 *    (cli_contact_period). A body of mass m on a spring k rings with the period
 *    2 pi sqrt(m / k); with k = ka A (A the largest face of its box: the stiffest way to rest),
 *    or the Winkler sphere's stiffness at its resting depth, dF/ddelta = 2 pi R ka delta =
 *    2 sqrt(pi R ka W). Against a fixed body m is the body's mass; against a body like itself
 *    (its alias class has a rule with itself: a pile) the pair rings on the reduced mass m / 2.
 *    contact_time rows ring with the period 2 T by construction. The implicit solve stays exact
 *    at any period, but where it is shorter than a few sub-steps a step can no longer follow a
 *    contact closing and opening, and bodies piling up need many Newton iterations per step
 *    (the S2 pile of 125 boxes of 1 kg on 0.01 m^2, bench/README.md "The stiff pile's floor",
 *    first 1.5 s, with the period of two such boxes on each other: 2.9 per step at 14 sub-steps
 *    per period (ka 1e7), 4.6 at 4.4 (1e8), 9.6 at 1.4 (1e9), 21 at 0.44 (1e10), 42 at 0.2
 *    (ka 5e10)). Below CLI_PERIOD_STEPS (5) sub-steps per period a contact counts as not
 *    resolved; `comply check` says so, and `comply run` when its solves averaged more than
 *    CLI_SLOW_SOLVE_ITER iterations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CM_PI 3.14159265358979323846

/* |gravity|, m/s^2 */
static double gravity_norm(const cmModel* m) {
  const double* g = m->opt.gravity;
  return sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
}

static double extent(const cmModel* m, int b, int k) {
  const double* a = m->geom_aabb + 6 * m->body_geom[b];
  return a[3 + k] - a[k];
}

/* does the rule's law act through implicit rows? */
static int implicit_rule(const cmModel* m, const cmRuleDef* rule) {
  return rule->integration == CM_INTEGRATION_IMPLICIT ||
         (rule->integration == CM_INTEGRATION_DEFAULT && rule->law != CM_LAW_CONTACT_TIME &&
          m->opt.integrator == CM_INTEGRATOR_IMPLICIT);
}

/* The mean inverse effective mass (1/kg) of body b resting on the largest face of its box,
 * along the face's normal e_k: for a point r of the face (from the centre of mass) it is
 * 1/m + r_j^2 J_ii + r_i^2 J_jj (r x e_k has the components r_j and -r_i; J the inverse inertia
 * in the body frame, its diagonal used). Averaged as the rows average it: over the mesh's
 * vertices on that face of the box, weighted by their contact areas |e_k . areavec| (a box
 * of divisions 1 rests on its corners, whose w is more than twice the face's mean); a mesh
 * with no vertex there gets the face's mean, r uniform over its widths e: mean r^2 = e^2 / 12. */
static double face_wbar(const cmModel* m, int b) {
  double ex[3] = {extent(m, b, 0), extent(m, b, 1), extent(m, b, 2)};
  int k = ex[0] <= ex[1] && ex[0] <= ex[2] ? 0 : ex[1] <= ex[2] ? 1 : 2; /* the normal's axis */
  int i = (k + 1) % 3, j = (k + 2) % 3, g = m->body_geom[b];
  const double *J = m->body_invinertia + 9 * b, *c = m->body_com + 3 * b;
  const double* box = m->geom_aabb + 6 * g;
  double sa = 0, saw = 0, tol = 1e-9 * (1 + fabs(box[k]) + ex[k]);
  for (int v = 0; v < m->geom_nvert[g]; v++) {
    const double* x = m->mesh_vert + 3 * ((size_t)m->geom_vertadr[g] + (size_t)v);
    if (!(fabs(x[k] - box[k]) <= tol)) continue;
    double a = fabs(m->mesh_vert_areavec[3 * ((size_t)m->geom_vertadr[g] + (size_t)v) + k]);
    double ri = x[i] - c[i], rj = x[j] - c[j];
    sa += a;
    saw += a * (m->body_invmass[b] + rj * rj * J[4 * i] + ri * ri * J[4 * j]);
  }
  if (sa > 0) return saw / sa;
  return m->body_invmass[b] + ex[j] * ex[j] / 12 * J[4 * i] + ex[i] * ex[i] / 12 * J[4 * j];
}

int cli_resting_estimates(const cmModel* m, FILE* f, const char* prefix) {
  double g = gravity_norm(m);
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
          what = "ka";
        } else {
          delta = W / (rule->ka * A);
          fix = W / (A * target);
          what = "ka";
          /* a rule's min_period (docs/contact-laws.md, "Softened contacts: min_period"): the
           * face's rows sum to cap / wbar where ka A wbar exceeds cap; the min_period whose
           * bound gives the target depth: target = W wbar (beta h / 2 pi)^2 */
          double wbar = face_wbar(m, b);
          double h = m->opt.timestep / (m->opt.substeps > 1 ? m->opt.substeps : 1);
          double cap = rule->min_period > 0 ? pow(2 * CM_PI / (rule->min_period * h), 2) : 0;
          if (cap > 0 && rule->ka * A * wbar > cap && implicit_rule(m, rule)) {
            delta = W * wbar / cap;
            fix = 2 * CM_PI / h * sqrt(target / (W * wbar));
            what = "min_period";
          }
        }
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
      fprintf(f, "%s'%s' resting on '%s' (rule %d, %s", prefix, m->body_name[b], m->body_name[s], r,
              cm_law_name(rule->law));
      if (what[0] == 'm') fprintf(f, ", min_period %g", rule->min_period);
      /* (3 digits, %g: a play of 1e40 m is 1e+43 %, not a number of 44 digits) */
      fprintf(f, ") would sink about %.3g m, %.3g %% of its thickness %.3g m", delta,
              100 * delta / t, t);
      if (fix > 0)
        fprintf(f, "; %s %s %.3g %s gives 1 %%\n", what, what[0] == 'k' ? ">=" : "<=", fix,
                what[0] == 'k'   ? "N/m^3"
                : what[0] == 'm' ? "sub-steps"
                                 : "s");
      else
        fprintf(f, "; the play alone is more than 1 %%\n");
    }
  }
  return count;
}

/* 3. Resting patch: a sphere (icosphere) resting on a fixed body under area_compliant touches it
 *    over the cap of radius a = sqrt(2 R delta) at the Winkler depth delta above. Where a is
 *    below half the mesh's mean edge e, the cap holds no more than one vertex: the mesh rests on
 *    single vertices, whose area A_v = 4 pi R^2 / nvert carries the weight, so it sinks
 *    delta_v = W / (ka A_v) and its pressure is ka delta_v, not ka delta (the default sphere,
 *    refine 3, at the default ka 5e10, 0.5 kg: 2.0 um deep instead of 25 um, its pressure 12
 *    times too low; an audit, 2026-12-07), and rings with the period 2 pi sqrt(m / (ka A_v)).
 *    The law is exact on the mesh; the mesh is not the sphere. Reported as a note with the
 *    refine (each halves e) that makes e <= 2 a. */
int cli_patch_notes(const cmModel* m, FILE* f, const char* prefix) {
  double g = gravity_norm(m);
  int count = 0;
  if (!(g > 0)) return 0;
  for (int b = 0; b < m->nbody; b++) {
    int gb = m->body_geom[b];
    if (m->body_motion[b] != CM_MOTION_DYNAMIC || m->geom_type[gb] != CM_GEOM_SPHERE) continue;
    int nv = m->geom_nvert[gb], nf = m->geom_nface[gb];
    if (nv < 4 || nf < 4) continue;
    /* the mesh's mean edge (each edge of a closed mesh lies on two faces) */
    const double* V = m->mesh_vert + 3 * (size_t)m->geom_vertadr[gb];
    const int* F = m->mesh_face + 3 * (size_t)m->geom_faceadr[gb];
    double sum = 0;
    for (int k = 0; k < nf; k++)
      for (int j = 0; j < 3; j++) {
        const double *x = V + 3 * (size_t)F[3 * k + j], *y = V + 3 * (size_t)F[3 * k + (j + 1) % 3];
        sum += sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                    (x[2] - y[2]) * (x[2] - y[2]));
      }
    double e = sum / (3.0 * nf), R = 0.5 * extent(m, b, 0), W = m->body_mass[b] * g;
    for (int s = 0; s < m->nbody; s++) {
      if (m->body_motion[s] != CM_MOTION_FIXED) continue;
      int r = cm_model_pair_rule(m, b, s);
      if (r < 0 || r >= m->nrule || m->rule_law_fn[r]) continue;
      const cmRuleDef* rule = &m->rule[r];
      if (rule->law != CM_LAW_AREA_COMPLIANT || !(rule->ka > 0)) continue;
      double delta = sqrt(W / (CM_PI * R * rule->ka)), a = sqrt(2 * R * delta);
      if (!(a < 0.5 * e)) continue;
      double Av = 4 * CM_PI * R * R / nv, dv = W / (rule->ka * Av);
      double Tv = 2 * CM_PI * sqrt(m->body_mass[b] / (rule->ka * Av));
      int more = (int)ceil(log2(e / (2 * a)));
      count++;
      if (!f) continue;
      fprintf(f,
              "%s'%s' on '%s' (rule %d, area_compliant): its cap at rest (radius %.2g m, %.2g m "
              "deep on the sphere) is smaller than its mesh (edges of %.2g m), so it rests on "
              "single vertices: about %.2g m deep, its pressure %.2g times the sphere's, ringing "
              "in %.2g s; %d more refine level%s (or a lower ka) resolve%s the cap "
              "(docs/contact-laws.md, \"Resting patch\")\n",
              prefix, m->body_name[b], m->body_name[s], r, a, delta, e, dv, dv / delta, Tv, more,
              more == 1 ? "" : "s", more == 1 ? "s" : "");
    }
  }
  return count;
}

/* the period, s, of body b (mass mu on the pair) resting on a contact of rule r, 0 if the rule
 * has no period estimate (an explicit row, whose stability the guard checks; a user law; the
 * linear law, whose stiffness is per point) */
static double period_of(const cmModel* m, int b, int r, double mu, double g) {
  const cmRuleDef* rule = &m->rule[r];
  if (m->rule_law_fn[r]) return 0;
  int implicit = rule->integration == CM_INTEGRATION_IMPLICIT ||
                 (rule->integration == CM_INTEGRATION_DEFAULT && rule->law != CM_LAW_CONTACT_TIME &&
                  m->opt.integrator == CM_INTEGRATOR_IMPLICIT);
  if (!implicit) return 0;
  if (rule->law == CM_LAW_CONTACT_TIME) return 2 * rule->contact_time;
  if (rule->law != CM_LAW_AREA_COMPLIANT || !(rule->ka > 0)) return 0;
  int gb = m->body_geom[b];
  double ex[3] = {extent(m, b, 0), extent(m, b, 1), extent(m, b, 2)}, k;
  if (m->geom_type[gb] == CM_GEOM_SPHERE) {
    double R = 0.5 * fmin(ex[0], fmin(ex[1], ex[2]));
    k = 2 * sqrt(CM_PI * R * rule->ka * m->body_mass[b] * g);
  } else {
    k = rule->ka * fmax(ex[0] * ex[1], fmax(ex[1] * ex[2], ex[0] * ex[2]));
  }
  return k > 0 ? 2 * CM_PI * sqrt(mu / k) : 0;
}

int cli_contact_period(const cmModel* m, cliPeriod* out) {
  memset(out, 0, sizeof *out);
  out->body = out->other = out->rule = -1;
  out->h = m->opt.timestep / (m->opt.substeps > 1 ? m->opt.substeps : 1);
  double g = gravity_norm(m);
  /* the dynamic bodies of each alias class (a pile needs two) */
  int* ndyn = calloc((size_t)m->nclass + 1, sizeof *ndyn);
  if (!ndyn) return -1;
  for (int b = 0; b < m->nbody; b++) {
    int c = m->alias_class[m->body_alias[b]];
    if (c >= 0 && m->body_motion[b] == CM_MOTION_DYNAMIC) ndyn[c]++;
  }
  for (int b = 0; b < m->nbody; b++) {
    int gb = m->body_geom[b];
    if (m->body_motion[b] != CM_MOTION_DYNAMIC || m->geom_type[gb] == CM_GEOM_PLANE ||
        !(m->body_mass[b] > 0) || !isfinite(m->body_mass[b]))
      continue;
    int cb = m->alias_class[m->body_alias[b]];
    /* partners: every fixed body, and a body like b itself (partner -1) where another dynamic
     * body of its alias class could pile on it */
    int like = cb >= 0 && ndyn[cb] > 1;
    for (int s = -1; s < m->nbody; s++) {
      int r;
      double mu;
      if (s < 0) {
        r = cb >= 0 && like ? m->class_rule[cb * m->nclass + cb] : -1;
        if (r >= 0 && m->rule[r].law == CM_LAW_NONE) r = -1;
        mu = 0.5 * m->body_mass[b];
      } else {
        if (m->body_motion[s] != CM_MOTION_FIXED) continue;
        r = cm_model_pair_rule(m, b, s);
        mu = m->body_mass[b];
      }
      if (r < 0 || r >= m->nrule) continue;
      double T = period_of(m, b, r, mu, g);
      if (!(T > 0) || (out->period > 0 && !(T < out->period))) continue;
      out->period = T;
      out->body = b;
      out->other = s;
      out->rule = r;
    }
  }
  free(ndyn);
  if (!(out->period > 0)) return 0;
  /* what resolves it: T scales as ka^-1/2 (ka^-1/4 for a sphere: k ~ sqrt(ka)); a contact_time
   * T rings at 2T */
  double want = CLI_PERIOD_STEPS * out->h, ratio = out->period / want;
  const cmRuleDef* rule = &m->rule[out->rule];
  if (rule->law == CM_LAW_AREA_COMPLIANT) {
    int sphere = m->geom_type[m->body_geom[out->body]] == CM_GEOM_SPHERE;
    out->fix = rule->ka * (sphere ? pow(ratio, 4) : ratio * ratio);
  } else {
    out->fix = 0.5 * want;
  }
  out->h_fix = out->period / CLI_PERIOD_STEPS;
  return out->period < want;
}

void cli_contact_period_print(const cmModel* m, const cliPeriod* p, FILE* f, const char* prefix) {
  const cmRuleDef* rule = &m->rule[p->rule];
  int area = rule->law == CM_LAW_AREA_COMPLIANT;
  fprintf(f, "%s%.4g s, %.4g sub-steps of %.3g s: '%s' on %s%s%s (rule %d, %s)", prefix, p->period,
          p->period / p->h, p->h, m->body_name[p->body], p->other < 0 ? "a body like it" : "'",
          p->other < 0 ? "" : m->body_name[p->other], p->other < 0 ? "" : "'", p->rule,
          cm_law_name(rule->law));
  if (!(p->period < CLI_PERIOD_STEPS * p->h)) {
    fprintf(f, ", resolved\n");
    return;
  }
  fprintf(f,
          ", fewer than %d sub-steps per period: the implicit solve stays exact, but bodies "
          "piling up need many Newton iterations per step (S2 pile of 125 boxes: 2.9 at 14 "
          "sub-steps per period, 4.6 at 4.4, 9.6 at 1.4, 42 at 0.2); %s %s %.3g %s or a sub-step "
          "of at most %.3g s resolves it (docs/contact-laws.md, \"Choosing ka\")",
          CLI_PERIOD_STEPS, area ? "ka" : "contact_time", area ? "<=" : ">=", p->fix,
          area ? "N/m^3" : "s", p->h_fix);
  /* the third way, for the laws it applies to: the rule's min_period (its own rows, each on
   * its effective mass: the period above is the law's, before any softening) */
  if (rule->min_period > 0)
    fprintf(f,
            "; the rule's min_period %g softens its rows on each body that rings faster than %g "
            "sub-steps on its contacts (docs/contact-laws.md, \"Softened contacts: min_period\")\n",
            rule->min_period, rule->min_period);
  else if (area || rule->law == CM_LAW_LINEAR)
    fprintf(f, "; or min_period: 4 in the rule softens only the rows of the bodies that ring "
               "faster than 4 "
               "sub-steps (docs/contact-laws.md, \"Softened contacts: min_period\")\n");
  else
    fprintf(f, "\n");
}
