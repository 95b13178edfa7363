/* comply check SCENE: parse and compile only, and print what the compiler made of the scene:
 * options, bodies, the rule of every body pair (per alias pair, or per alias class pair, when
 * the scene is large), joints and the compile notes, then "ok". */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { PAIR_LIMIT = 50 }; /* above this many bodies (or aliases), print per alias (class) */

static const char* geom_type_name(int t) {
  switch (t) {
  case CM_GEOM_SPHERE:
    return "sphere";
  case CM_GEOM_BOX:
    return "box";
  case CM_GEOM_MESH:
    return "mesh";
  case CM_GEOM_PLANE:
    return "plane";
  default:
    return "none";
  }
}

static const char* integrator_name(cmIntegrator i) {
  return i == CM_INTEGRATOR_EXPLICIT ? "explicit" : "implicit";
}

/* "rule N (law, line L)" or "none" */
/* the rule of a pair (no newline) */
static void print_rule(const cmModel* m, int r) {
  if (r < 0 || r >= m->nrule) {
    printf("none");
    return;
  }
  const cmRuleDef* rule = &m->rule[r];
  printf("rule %d (%s, ", r, cm_law_name(rule->law));
  if (rule->loc.line > 0)
    printf("line %d)", rule->loc.line);
  else if (r == 0)
    printf("built-in default)");
  else
    printf("defined by the API)");
}

/* how the contacts of bodies a and b are found (the rule's method resolved for the pair) */
static void print_detection(const cmModel* m, int a, int b) {
  cmPairDetection pd;
  if (!cm_model_pair_detection(m, a, b, &pd)) return;
  const char* method = cm_method_name(m->rule[cm_model_pair_rule(m, a, b)].method);
  if (pd.contour) {
    printf("; %s: contour regions", method);
    return;
  }
  if (pd.vertex_body[1] >= 0)
    printf("; %s: vertices of both, %s", method,
           pd.shared ? "areas shared by depth" : "half area each");
  else
    printf("; %s: vertices of %s", method, m->body_name[pd.vertex_body[0]]);
  if (pd.edges) printf(", edge-edge");
}

/* geometry details from the scene definition */
static void geom_detail(char* buf, size_t n, const cmGeomDef* g) {
  switch (g->type) {
  case CM_GEOM_SPHERE:
    snprintf(buf, n, "sphere r=%g", g->radius);
    break;
  case CM_GEOM_BOX:
    snprintf(buf, n, "box %gx%gx%g", g->size[0], g->size[1], g->size[2]);
    break;
  case CM_GEOM_MESH:
    snprintf(buf, n, "mesh %s", g->file ? g->file : g->mesh ? "(API mesh)" : "?");
    break;
  case CM_GEOM_PLANE:
    snprintf(buf, n, "plane n=(%g,%g,%g) d=%g", g->normal[0], g->normal[1], g->normal[2],
             g->offset);
    break;
  default:
    snprintf(buf, n, "%s", geom_type_name(g->type));
    break;
  }
}

static int max_len(int n, char** names, int w) {
  for (int i = 0; i < n; i++) {
    int l = names[i] ? (int)strlen(names[i]) : 0;
    if (l > w) w = l;
  }
  return w;
}

static void print_bodies(const cmScene* s, const cmModel* m) {
  printf("bodies: %d\n", m->nbody);
  int wn = max_len(m->nbody, m->body_name, 4);
  int wa = max_len(m->nalias, m->alias_name, 5);
  printf("  %-*s  %-*s  %-10s  %-28s  %8s  %8s  %-12s  %s\n", wn, "name", wa, "alias", "motion",
         "geometry", "vertices", "faces", "mass_kg", "volume_m3");
  for (int i = 0; i < m->nbody; i++) {
    int g = m->body_geom[i];
    char geom[256];
    const cmBodyDef* def = i < s->nbody ? &s->body[i] : NULL;
    if (def && def->name && strcmp(def->name, m->body_name[i]) == 0)
      geom_detail(geom, sizeof geom, &def->geom);
    else
      snprintf(geom, sizeof geom, "%s", geom_type_name(m->geom_type[g]));
    char mass[32], vol[32];
    if (m->body_invmass[i] > 0)
      snprintf(mass, sizeof mass, "%.6g", m->body_mass[i]);
    else
      snprintf(mass, sizeof mass, "inf");
    if (m->geom_type[g] == CM_GEOM_PLANE)
      snprintf(vol, sizeof vol, "-");
    else
      snprintf(vol, sizeof vol, "%.6g", m->geom_volume[g]);
    int a = m->body_alias[i];
    printf("  %-*s  %-*s  %-10s  %-28s  %8d  %8d  %-12s  %s\n", wn, m->body_name[i], wa,
           a >= 0 && a < m->nalias ? m->alias_name[a] : "?",
           cm_motion_name((cmMotion)m->body_motion[i]), geom, m->geom_nvert[g], m->geom_nface[g],
           mass, vol);
  }
  /* the elements of the deformable bodies (docs/deformable.md) */
  static const char* const material[] = {"neo_hookean", "corotated", "linear"};
  static const char* const scheme[] = {"backward_euler", "midpoint"};
  for (int i = 0; i < m->nbody; i++) {
    if (m->body_motion[i] != CM_MOTION_DEFORMABLE) continue;
    int n0 = m->body_nodeadr[i], nn = m->body_nnode[i], held = 0, att = 0, to = -1;
    for (int n = n0; n < n0 + nn; n++) {
      held += m->node_fixed[n];
      if (m->node_attach[n] >= 0 && !m->node_fixed[n]) {
        att++;
        to = m->node_attach[n];
      }
    }
    /* E and nu back from the Lame parameters: E = mu (3 lambda + 2 mu) / (lambda + mu) */
    double mu = m->body_lame[2 * i], la = m->body_lame[2 * i + 1];
    printf("  %s: %d nodes (%d fixed, %d attached%s%s), %d tetrahedra, %s E %.6g Pa nu %.6g, "
           "%s\n",
           m->body_name[i], nn, held, att, to >= 0 ? " to " : "", to >= 0 ? m->body_name[to] : "",
           m->body_ntet[i], material[m->body_material[i]], mu * (3 * la + 2 * mu) / (la + mu),
           la / (2 * (la + mu)), scheme[m->body_fem_scheme[i]]);
  }
}

static void print_rules(const cmModel* m) {
  printf("rules: %d\n", m->nrule);
  for (int r = 0; r < m->nrule; r++) {
    const cmRuleDef* rule = &m->rule[r];
    printf("  rule %d: [%s, %s] %s, method %s", r, rule->pair[0] ? rule->pair[0] : "*",
           rule->pair[1] ? rule->pair[1] : "*", cm_law_name(rule->law),
           cm_method_name(rule->method));
    if (rule->loc.line > 0)
      printf(", line %d\n", rule->loc.line);
    else
      printf(r == 0 ? ", built-in default\n" : "\n");
  }
}

static int class_pair_rule(const cmModel* m, int ca, int cb) {
  if (ca < 0 || cb < 0 || ca >= m->nclass || cb >= m->nclass) return -1;
  return m->class_rule[ca * m->nclass + cb];
}

static void print_pairs(const cmModel* m) {
  if (m->nbody <= PAIR_LIMIT) {
    printf("pairs:\n");
    for (int i = 0; i < m->nbody; i++)
      for (int j = i + 1; j < m->nbody; j++) {
        printf("  %s <-> %s: ", m->body_name[i], m->body_name[j]);
        print_rule(m, cm_model_pair_rule(m, i, j));
        print_detection(m, i, j);
        printf("\n");
      }
    return;
  }
  if (m->nalias <= PAIR_LIMIT) {
    printf("pairs by alias (%d bodies; fixed, prescribed and ignored bodies not taken into "
           "account):\n",
           m->nbody);
    /* an alias pairs with itself only if several bodies share it */
    int* count = calloc((size_t)m->nalias + 1, sizeof *count);
    for (int b = 0; count && b < m->nbody; b++)
      if (m->body_alias[b] >= 0 && m->body_alias[b] < m->nalias) count[m->body_alias[b]]++;
    for (int i = 0; i < m->nalias; i++)
      for (int j = i; j < m->nalias; j++) {
        if (j == i && count && count[i] < 2) continue;
        printf("  %s <-> %s: ", m->alias_name[i], m->alias_name[j]);
        print_rule(m, class_pair_rule(m, m->alias_class[i], m->alias_class[j]));
        printf("\n");
      }
    free(count);
    return;
  }
  /* many aliases: per alias class, with an example alias of each */
  printf("pairs by alias class (%d bodies, %d aliases; fixed, prescribed and ignored bodies not "
         "taken into account):\n",
         m->nbody, m->nalias);
  for (int ca = 0; ca < m->nclass; ca++)
    for (int cb = ca; cb < m->nclass; cb++) {
      const char* ea = "?";
      const char* eb = "?";
      for (int k = 0; k < m->nalias; k++) {
        if (m->alias_class[k] == ca && !strcmp(ea, "?")) ea = m->alias_name[k];
        if (m->alias_class[k] == cb && !strcmp(eb, "?")) eb = m->alias_name[k];
      }
      printf("  class %d (e.g. %s) <-> class %d (e.g. %s): ", ca, ea, cb, eb);
      print_rule(m, class_pair_rule(m, ca, cb));
      printf("\n");
    }
  int unmatched = 0;
  for (int k = 0; k < m->nalias; k++)
    unmatched += m->alias_class[k] < 0;
  if (unmatched) printf("  %d aliases match no rule: none\n", unmatched);
}

static void print_joints(const cmScene* s, const cmModel* m) {
  printf("joints: %d\n", m->njoint);
  for (int j = 0; j < m->njoint; j++) {
    int a = m->joint_body[2 * j], b = m->joint_body[2 * j + 1];
    printf("  joint %d: %s <-> %s", j, a >= 0 ? m->body_name[a] : "world",
           b >= 0 ? m->body_name[b] : "world");
    if (j < s->njoint) {
      const double* p = s->joint[j].anchor;
      printf(", anchor (%g, %g, %g) m", p[0], p[1], p[2]);
      if (s->joint[j].loc.line > 0) printf(", line %d", s->joint[j].loc.line);
    }
    printf(", ");
    print_rule(m, m->joint_rule[j]);
    printf("\n");
  }
}

/* contacts at t = 0: the body pairs that already overlap, with their points, depth and the
 * speed the stored elastic energy would give them */
static int print_overlaps(const cmModel* m) {
  cliOverlaps o;
  if (cli_initial_overlaps(m, NULL, "", 0, &o) != 0) {
    printf("initial overlaps: not checked (out of memory)\n");
    return 0;
  }
  printf("initial overlaps: %d", o.pairs + o.contained);
  if (o.contained)
    printf(" (%d nested or coincident: `comply run` refuses the scene unless "
           "scene.allow_initial_overlap is true)",
           o.contained);
  else if (o.pairs)
    printf(" (deepest %.6g m, fastest launch %.3g m/s%s)", o.deepest, o.fastest,
           o.fastest > CLI_OVERLAP_SPEED && !m->opt.allow_initial_overlap
               ? ": above 1 m/s, `comply run` refuses the scene unless "
                 "scene.allow_initial_overlap is true"
               : "");
  printf("\n");
  cli_initial_overlaps(m, stdout, "  ", 1 << 30, &o);
  /* 1 if `comply run` refuses the scene for them (cmd_run.c's rule) */
  return !m->opt.allow_initial_overlap && (o.contained || o.fastest > CLI_OVERLAP_SPEED);
}

/* the explicit contacts and joints at t = 0 (cm_data_stability, comply/law.h): the least stable
 * one, whether the scene's sub-step keeps it stable, and what substeps: auto takes */
static void print_stability(const cmModel* m) {
  cmData* d = cm_data_new(m);
  cmStability st;
  if (!d || cm_collide(m, d) != CM_OK || cm_data_stability(m, d, &st) != CM_OK) {
    printf("explicit stability: not checked (out of memory)\n");
    cm_data_free(d);
    return;
  }
  if (!st.explicit_rows) {
    printf("explicit stability: no explicit contact or joint at t = 0 (contacts that start "
           "later are checked while running)\n");
    cm_data_free(d);
    return;
  }
  char what[256];
  const char* a = st.body[0] >= 0 ? m->body_name[st.body[0]] : "world";
  const char* b = st.body[1] >= 0 ? m->body_name[st.body[1]] : "world";
  if (st.joint >= 0 && st.implicit)
    snprintf(what, sizeof what,
             "joint %d (%s <-> %s, rule %d, implicit: across its link, where it acts explicitly)",
             st.joint, a, b, st.rule);
  else if (st.joint >= 0)
    snprintf(what, sizeof what, "joint %d (%s <-> %s, rule %d, along its weakest direction)",
             st.joint, a, b, st.rule);
  else
    snprintf(what, sizeof what, "pair %s <-> %s (rule %d)", a, b, st.rule);
  int unstable = st.lambda >= 1, autosub = m->opt.substeps == CM_SUBSTEPS_AUTO;
  printf("explicit stability at h = %g s (explicit rows at t = 0: %d): least stable %s: "
         "effective mass %.6g kg, w h = %.4g, zeta %.4g, limit w h < %.4g: %s\n",
         st.h, st.explicit_rows, what, st.m_eff, st.omega_h, st.zeta, st.limit,
         !unstable ? "stable"
         : autosub ? "unstable without sub-steps"
                   : "UNSTABLE");
  if (autosub)
    printf("  substeps: auto takes %d sub-step%s per step while these rows act%s\n", st.substeps,
           st.substeps == 1 ? "" : "s",
           st.substeps >= CM_SUBSTEPS_AUTO_MAX ? " (the cap: those steps are less accurate)" : "");
  else if (unstable)
    printf("warning: %s is unstable at substeps %d (the run stops there): use substeps: auto "
           "(%d sub-steps), or >= %.0f, a timestep below %.3g s, integration: implicit%s\n",
           what, m->opt.substeps, st.substeps, ceil(m->opt.substeps * st.h / st.h_max),
           st.h_max * m->opt.substeps,
           st.contact_time_min > 0 && st.joint < 0 ? ", a longer contact_time or mass: effective"
           : st.contact_time_min > 0               ? ", a longer contact_time"
                                                   : "");
  if (!unstable && st.lambda_coupled >= 1)
    printf("%s: the explicit rows on the bodies they share are unstable together: lambda = "
           "%.4g >= 1 (each alone is stable)%s\n",
           autosub ? "  note" : "warning", st.lambda_coupled,
           autosub ? ": substeps: auto splits them" : ": the run stops there; use substeps: auto");
  if (!autosub && unstable && st.contact_time_min > 0 && st.joint < 0)
    printf("  contact_time T > %.3g s keeps it stable at this sub-step; with mass: effective its "
           "w h is pi h / T whatever the lever arm\n",
           st.contact_time_min);
  cm_data_free(d);
}

int cmd_check(int argc, char** argv) {
  const char* path = NULL;
  int only_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!only_positional && a[0] == '-' && a[1]) {
      if (strcmp(a, "--") == 0) {
        only_positional = 1;
        continue;
      }
      if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return cli_help(stdout, "check"), 0;
      return cli_usage_error("check", "unknown option '%s'", a);
    }
    if (path) return cli_usage_error("check", "more than one scene: '%s' and '%s'", path, a);
    path = a;
  }
  if (!path) return cli_usage_error("check", "missing SCENE");

  char err[2048];
  cmScene* s = NULL;
  if (cm_scene_load(path, &s, err, sizeof err) != CM_OK) return cli_error(CLI_USAGE, "%s", err);
  cmModel* m = NULL;
  cmStatus st = cm_model_compile(s, &m, err, sizeof err);
  if (st != CM_OK) {
    cm_scene_free(s);
    return cli_error(st == CM_ERR_NOMEM ? CLI_FAILED : CLI_USAGE, "%s", err);
  }

  const cmOptions* o = &m->opt;
  printf("scene: %s (%s)\n", m->name ? m->name : "scene", path);
  char sub[16] = "auto", tol[48] = "auto (1e-8, 1e-10 with elements)";
  if (o->substeps != CM_SUBSTEPS_AUTO) snprintf(sub, sizeof sub, "%d", o->substeps);
  if (o->solver_tolerance != CM_SOLVER_TOLERANCE_AUTO)
    snprintf(tol, sizeof tol, "%g", o->solver_tolerance);
  printf("options: timestep %g s, steps %ld (%g s), gravity (%g, %g, %g) m/s^2, integrator %s, "
         "substeps %s, solver tolerance %s, output every %d\n",
         o->timestep, o->steps, (double)o->steps * o->timestep, o->gravity[0], o->gravity[1],
         o->gravity[2], integrator_name(o->integrator), sub, tol, o->output_every);
  print_bodies(s, m);
  print_rules(m);
  print_pairs(m);
  print_joints(s, m);
  printf("notes: %d\n", m->nnote);
  for (int i = 0; i < m->nnote; i++)
    printf("  %s\n", m->note[i]);
  int refused = print_overlaps(m);
  print_stability(m);
  int deep = cli_resting_estimates(m, NULL, "");
  printf("resting penetration: %d too deep%s\n", deep,
         deep ? " (warning: the law is too soft for these bodies' weight)" : "");
  cli_resting_estimates(m, stdout, "  warning: ");
  int coarse = cli_patch_notes(m, NULL, "");
  printf("resting patch: %d sphere%s meshed coarser than its contact at rest\n", coarse,
         coarse == 1 ? "" : "s");
  cli_patch_notes(m, stdout, "  note: ");
  cliPeriod per;
  cli_contact_period(m, &per);
  if (per.period > 0)
    cli_contact_period_print(m, &per, stdout, "contact period: ");
  else
    printf("contact period: no resting implicit contact to estimate\n");
  cm_model_free(m);
  cm_scene_free(s);
  /* a scene `comply run` would refuse is not "ok" (it was, exit 0) */
  if (refused)
    return cli_error(CLI_USAGE,
                     "%s: `comply run` refuses the scene for its initial overlaps (above); move "
                     "the bodies apart or set scene.allow_initial_overlap: true",
                     path);
  printf("ok\n");
  return CLI_OK;
}
