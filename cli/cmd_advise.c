/* comply advise ka|damping|restitution|contact-time OPTIONS: the parameter rules of thumb of
 * area-compliant-contact.txt (SPEC 8), computed by the library (comply/advise.h).
 *
 * Prints "key: value unit" lines (the answer first), the formula with the numbers put in, and
 * "note:" / "warning:" lines. Exit 0 on success, 2 on a bad or missing option or value. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <string.h>

#include "cli.h"

/* one option of a subcommand: a number, or a string when `text` is set */
typedef struct Opt {
  const char* name; /* "--pmax" */
  double value;
  const char* text;
  int is_text;
  int seen;
} Opt;

/* scan argv[2..] (argv[0] "advise", argv[1] the subcommand) into opts. Returns -1 after printing a
 * usage error, 1 if help was printed, 0 otherwise. */
static int parse_opts(const char* sub, int argc, char** argv, Opt* opts, int nopt) {
  for (int i = 2; i < argc;) {
    const char* a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      cli_help(stdout, "advise");
      return 1;
    }
    if (strcmp(a, "--") == 0) { /* the end of the options: advise takes no other argument */
      if (i + 1 == argc) return 0;
      cli_usage_error("advise", "advise %s: unexpected argument '%s'", sub, argv[i + 1]);
      return -1;
    }
    int matched = 0;
    for (int k = 0; k < nopt && !matched; k++) {
      const char* v = NULL;
      int r = cli_option("advise", argc, argv, &i, opts[k].name, NULL, &v);
      if (r < 0) return -1;
      if (r == 0) continue;
      matched = 1;
      if (opts[k].seen) {
        cli_usage_error("advise", "advise %s: %s given twice", sub, opts[k].name);
        return -1;
      }
      opts[k].seen = 1;
      if (opts[k].is_text) {
        opts[k].text = v;
      } else if (cli_parse_number(v, &opts[k].value) != 0) {
        cli_usage_error("advise", "advise %s: %s: expected a finite number, got '%s'", sub,
                        opts[k].name, v);
        return -1;
      }
    }
    if (matched) continue;
    if (a[0] == '-' && a[1])
      cli_usage_error("advise", "advise %s: unknown option '%s'", sub, a);
    else
      cli_usage_error("advise", "advise %s: unexpected argument '%s'", sub, a);
    return -1;
  }
  return 0;
}

/* a library error: bad value, exit 2. The library's messages start with the parameter name
 * ("delta_max: ..."), which is the option's name with '_' for '-': print it as the option. */
static int bad_value(const char* sub, const char* err) {
  size_t n = strspn(err, "abcdefghijklmnopqrstuvwxyz_");
  if (n == 0 || n > 40 || err[n] != ':') return cli_error(CLI_USAGE, "advise %s: %s", sub, err);
  char opt[48];
  for (size_t k = 0; k < n; k++)
    opt[k] = err[k] == '_' ? '-' : err[k];
  opt[n] = 0;
  return cli_error(CLI_USAGE, "advise %s: --%s%s", sub, opt, err + n);
}

/* ---- ka ---- */

static int ka_pressure(double pmax, double delta_max) {
  char err[512];
  double ka = 0;
  if (cm_advise_ka_pressure(pmax, delta_max, &ka, err, sizeof err) != CM_OK)
    return bad_value("ka", err);
  printf("ka: %.6g N/m^3\n", ka);
  printf("formula: ka = pmax / delta_max = %.6g Pa / %.6g m\n", pmax, delta_max);
  return CLI_OK;
}

static const char* le_rule(cmAdviseShape s) {
  switch (s) {
  case CM_ADVISE_SHAPE_COMPACT:
    return "compact body, L >> dp: Le = patch width";
  case CM_ADVISE_SHAPE_SLENDER:
    return "slender body, L >> dp, section ~ patch: Le = L";
  default:
    return "thin layer, L << dp: Le = L";
  }
}

static const char* factor_rule(cmAdviseShape s) {
  switch (s) {
  case CM_ADVISE_SHAPE_COMPACT:
    return "half-space: E_eff = E / (1 - nu^2)";
  case CM_ADVISE_SHAPE_SLENDER:
    return "free lateral expansion: E_eff = E";
  default:
    return "laterally confined layer (P-wave modulus): E_eff = E (1-nu) / ((1+nu)(1-2nu))";
  }
}

static int ka_material(Opt* o) {
  /* o: young, thickness, patch-width, shape, rho, poisson */
  cmAdviseMaterial m = cm_advise_material_default();
  m.young = o[0].value;
  m.thickness = o[1].value;
  if (o[2].seen) {
    m.patch_width = o[2].value;
    if (!(m.patch_width > 0))
      return cli_error(CLI_USAGE,
                       "advise ka: --patch-width: expected a finite number > 0 (m), "
                       "got %g",
                       m.patch_width);
  }
  if (o[3].seen &&
      (cm_advise_shape_parse(o[3].text, &m.shape) != 0 || m.shape == CM_ADVISE_SHAPE_AUTO))
    return cli_usage_error("advise",
                           "advise ka: --shape: expected thin, compact or slender, "
                           "got '%s'",
                           o[3].text);
  if (o[4].seen) m.rho = o[4].value;
  if (o[5].seen) m.poisson = o[5].value;
  char err[512];
  cmAdviseKa r;
  if (cm_advise_ka_material(&m, &r, err, sizeof err) != CM_OK) return bad_value("ka", err);
  printf("ka: %.6g N/m^3\n", r.ka);
  printf("formula: ka = rho E_eff / Le = %.6g * %.6g Pa / %.6g m\n", r.rho, r.e_eff, r.le);
  const char* how = !r.shape_inferred ? "given"
                    : m.patch_width > 0
                        ? (r.shape == CM_ADVISE_SHAPE_THIN ? "inferred: L < patch width"
                                                           : "inferred: L >= patch width")
                        : "assumed: no patch width";
  printf("shape: %s (%s)\n", cm_advise_shape_name(r.shape), how);
  printf("Le: %.6g m (%s)\n", r.le, le_rule(r.shape));
  printf("E: %.6g Pa\n", m.young);
  printf("poisson: %.6g\n", m.poisson);
  if (r.modulus_factor != 1.0) {
    printf("modulus factor: %.6g (%s)\n", r.modulus_factor, factor_rule(r.shape));
    printf("E_eff: %.6g Pa\n", r.e_eff);
  } else {
    printf("modulus factor: 1 (E_eff = E)\n");
  }
  printf("rho: %.6g (deltaB / delta; advised %g..%g)\n", r.rho, CM_ADVISE_RHO_MIN,
         CM_ADVISE_RHO_MAX);
  if (r.modulus_factor != 1.0)
    printf("ka with nu = 0: %.6g N/m^3 (gives deltaB / delta = %.6g for this body, not %.6g)\n",
           r.ka_nu0, r.rho / r.modulus_factor, r.rho);
  printf("compliance: %.6g m/Pa (penetration per unit pressure, 1 / ka)\n", 1.0 / r.ka);
  for (unsigned bit = 1; bit <= CM_ADVISE_NOTE_SLENDER_NU; bit <<= 1)
    if (r.notes & bit) printf("note: %s\n", cm_advise_note_text(bit));
  if (r.notes & CM_ADVISE_NOTE_CONFINED)
    printf("note: confined-layer modulus factor %.4g at nu = %g: ka is this much larger than "
           "with nu = 0 for the same rho; the document's smaller (nu = 0) ka would leave "
           "deltaB / delta at %.3g\n",
           r.modulus_factor, m.poisson, r.rho / r.modulus_factor);
  return CLI_OK;
}

static int advise_ka(int argc, char** argv) {
  Opt o[] = {{"--young", 0, NULL, 0, 0},       {"--thickness", 0, NULL, 0, 0},
             {"--patch-width", 0, NULL, 0, 0}, {"--shape", 0, NULL, 1, 0},
             {"--rho", 0, NULL, 0, 0},         {"--poisson", 0, NULL, 0, 0},
             {"--pmax", 0, NULL, 0, 0},        {"--delta-max", 0, NULL, 0, 0}};
  int r = parse_opts("ka", argc, argv, o, (int)(sizeof o / sizeof o[0]));
  if (r) return r > 0 ? CLI_OK : CLI_USAGE;
  int material = 0, pressure = o[6].seen || o[7].seen;
  for (int k = 0; k < 6; k++)
    material |= o[k].seen;
  if (material && pressure)
    return cli_usage_error("advise", "advise ka: give either --pmax and --delta-max, or --young "
                                     "and --thickness, not both");
  if (pressure) {
    if (!o[6].seen) return cli_usage_error("advise", "advise ka: missing --pmax");
    if (!o[7].seen) return cli_usage_error("advise", "advise ka: missing --delta-max");
    return ka_pressure(o[6].value, o[7].value);
  }
  if (!material)
    return cli_usage_error("advise", "advise ka: missing --pmax and --delta-max, or --young and "
                                     "--thickness");
  if (!o[0].seen) return cli_usage_error("advise", "advise ka: missing --young");
  if (!o[1].seen) return cli_usage_error("advise", "advise ka: missing --thickness");
  return ka_material(o);
}

/* ---- damping ---- */

static int advise_damping(int argc, char** argv) {
  Opt o[] = {{"--zeta", 0, NULL, 0, 0},
             {"--omega", 0, NULL, 0, 0},
             {"--ktot", 0, NULL, 0, 0},
             {"--mass", 0, NULL, 0, 0},
             {"--timestep", 0, NULL, 0, 0}};
  int r = parse_opts("damping", argc, argv, o, (int)(sizeof o / sizeof o[0]));
  if (r) return r > 0 ? CLI_OK : CLI_USAGE;
  if (!o[0].seen) return cli_usage_error("advise", "advise damping: missing --zeta");
  int by_mass = o[2].seen || o[3].seen;
  if (o[1].seen && by_mass)
    return cli_usage_error("advise", "advise damping: give either --omega, or --ktot and --mass, "
                                     "not both");
  if (!o[1].seen && !by_mass)
    return cli_usage_error("advise", "advise damping: missing --omega (or --ktot and --mass)");
  if (by_mass && !o[2].seen) return cli_usage_error("advise", "advise damping: missing --ktot");
  if (by_mass && !o[3].seen) return cli_usage_error("advise", "advise damping: missing --mass");
  if (o[4].seen && !(o[4].value > 0))
    return cli_error(CLI_USAGE,
                     "advise damping: --timestep: expected a finite number > 0 (s), "
                     "got %g",
                     o[4].value);
  char err[512];
  double omega = o[1].value;
  if (by_mass && cm_advise_omega(o[2].value, o[3].value, &omega, err, sizeof err) != CM_OK)
    return bad_value("damping", err);
  cmAdviseDamping d;
  if (cm_advise_stiffness_damping(o[0].value, omega, o[4].seen ? o[4].value : 0, &d, err,
                                  sizeof err) != CM_OK)
    return bad_value("damping", err);

  printf("stiffness_damping: %.6g s\n", d.stiffness_damping);
  printf("formula: stiffness_damping = 2 zeta / omega = 2 * %.6g / %.6g rad/s\n", o[0].value,
         omega);
  if (by_mass)
    printf("omega: %.6g rad/s (= sqrt(ktot / mass) = sqrt(%.6g N/m / %.6g kg))\n", omega,
           o[2].value, o[3].value);
  else
    printf("omega: %.6g rad/s\n", omega);
  printf("period: %.6g s\n", 2.0 * 3.14159265358979323846 / omega);
  if (!o[4].seen) {
    printf("note: give --timestep to check that the step resolves the oscillation (omega h < 1)"
           " and that stiffness_damping >= h/2\n");
    return CLI_OK;
  }
  double h = d.timestep;
  printf("timestep: %.6g s\n", h);
  printf("omega h: %.6g\n", d.omega_h);
  if (d.unresolved)
    printf("warning: omega h = %.3g > 1: the step does not resolve the oscillation; step damping "
           "dominates and stiffness_damping matters little\n",
           d.omega_h);
  if (d.below_half_step)
    printf("warning: stiffness_damping %.6g s < h/2 = %.6g s: keep step_damping >= 0.5 (D/K must "
           "be at least h/2)\n",
           d.stiffness_damping, 0.5 * h);
  else
    printf("note: stiffness_damping >= h/2 = %.6g s, so step_damping may go below 0.5; "
           "D/K = max(stiffness_damping, step_damping h) = %.6g s with the default "
           "step_damping 1\n",
           0.5 * h, d.stiffness_damping > h ? d.stiffness_damping : h);
  /* what the step makes of it: the mid-step law's own damping, and step_damping h as a floor of
   * D/K (docs/contact-laws.md, "Damping: comply advise damping") */
  printf("at this timestep: stiffness_damping %.6g s gives the damping ratio %.4g with the "
         "default step_damping 1 (the implicit mid-step law adds about omega h / 4 = %.3g, and "
         "D/K is at least step_damping h)\n",
         d.stiffness_damping, d.zeta_given, 0.25 * d.omega_h);
  if (d.stiffness_damping_step > 0)
    printf("for zeta %.6g at this timestep: stiffness_damping %.6g s with step_damping <= %.4g\n",
           o[0].value, d.stiffness_damping_step, d.step_damping_max);
  else
    printf("warning: zeta %.6g is below the least damping ratio this timestep gives, %.4g (D/K = "
           "h/2, step_damping 0.5 and no stiffness_damping); a timestep <= %.3g s reaches it\n",
           o[0].value, d.zeta_min, d.timestep_for_zeta);
  return CLI_OK;
}

/* ---- restitution ---- */

static int advise_restitution(int argc, char** argv) {
  Opt o[] = {{"--step-damping", 0, NULL, 0, 0}, {"--restitution", 0, NULL, 0, 0}};
  int r = parse_opts("restitution", argc, argv, o, 2);
  if (r) return r > 0 ? CLI_OK : CLI_USAGE;
  if (o[0].seen == o[1].seen)
    return cli_usage_error("advise", "advise restitution: give exactly one of --step-damping "
                                     "and --restitution");
  char err[512];
  double s = o[0].value, e = o[1].value;
  if (o[0].seen) {
    if (cm_advise_restitution(s, &e, err, sizeof err) != CM_OK)
      return bad_value("restitution", err);
    printf("restitution: %.6g\n", e);
    printf("formula: e = 0.5 / (0.5 + step_damping) = 0.5 / (0.5 + %.6g)\n", s);
    printf("step_damping: %.6g\n", s);
  } else {
    if (cm_advise_step_damping_for_restitution(e, &s, err, sizeof err) != CM_OK)
      return bad_value("restitution", err);
    printf("step_damping: %.6g\n", s);
    printf("formula: step_damping = 0.5 / e - 0.5 = 0.5 / %.6g - 0.5\n", e);
    printf("restitution: %.6g\n", e);
  }
  printf(
      "note: mean restitution of a light rigid body striking a stiff area_compliant contact "
      "(step damping governing): one that closes within a step, K h^2 / m >> 1 (K = ka A, "
      "m the body's mass); a contact the step resolves keeps more of its speed (1/3 at K h^2 / m "
      "= 1000, 0.26 at 2, 0.44 at 0.2: docs/contact-laws.md, \"Restitution\"); with explicit "
      "integration the sub-step's h counts\n");
  if (s < 0.5)
    printf("warning: step_damping %.6g < 0.5: stiff contacts oscillate from step to step unless "
           "stiffness_damping >= h/2 (the formula is then only indicative)\n",
           s);
  return CLI_OK;
}

/* ---- contact-time ---- */

static int advise_contact_time(int argc, char** argv) {
  Opt o[] = {{"--restitution", 0, NULL, 0, 0}, {"--elastic-repulsion", 0, NULL, 0, 0}};
  int r = parse_opts("contact-time", argc, argv, o, 2);
  if (r) return r > 0 ? CLI_OK : CLI_USAGE;
  if (o[0].seen == o[1].seen)
    return cli_usage_error("advise", "advise contact-time: give exactly one of --restitution "
                                     "and --elastic-repulsion");
  char err[512];
  double e = o[0].value, er = o[1].value, ratio = 0;
  if (o[0].seen) {
    if (cm_advise_contact_time_er(e, &er, err, sizeof err) != CM_OK)
      return bad_value("contact-time", err);
    printf("elastic_repulsion: %.6g\n", er);
    printf("formula: e_r = exp(-pi zeta), zeta solving e(zeta) = %.6g (bisection) for the law "
           "that never pulls (below)\n",
           e);
    printf("restitution: %.6g\n", e);
  } else {
    if (cm_advise_contact_time_restitution(er, &e, err, sizeof err) != CM_OK)
      return bad_value("contact-time", err);
    printf("restitution: %.6g\n", e);
    printf("formula: e = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2)) (zeta < 1), "
           "exp(-2 zeta ln(zeta + W) / W) with W = sqrt(zeta^2 - 1) (zeta > 1), "
           "zeta = -ln(e_r)/pi, e_r = %.6g\n",
           er);
    printf("elastic_repulsion: %.6g\n", er);
  }
  double zeta = -log(er) / 3.14159265358979323846 + 0.0; /* + 0.0: e_r = 1 gives 0, not -0 */
  printf("zeta: %.6g (damping ratio -ln(e_r)/pi)\n", zeta);
  if (cm_advise_contact_time_duration(er, &ratio, err, sizeof err) == CM_OK)
    printf("duration: %.6g (contact duration / contact_time T)\n", ratio);
  printf("note: for the law comply integrates, F = max(0, K x + D x'), which never pulls: the "
         "contact ends when the force reaches 0, before the penetration does (Schwager & "
         "Poeschel 2007); it holds for a body against a wall or any pair with mass: effective; "
         "with mass: min two equal free bodies restitute less (docs/contact-laws.md)\n");
  printf("note: without gravity during the contact: under gravity g the rebound is lower unless "
         "g T is small against the impact speed v (a drop from 0.1 m, v = 1.4 m/s, with e_r = "
         "0.5: e = 0.51 at T = 0.02 s, 0.33 at the default T = 0.1 s)\n");
  if (zeta >= 1)
    printf("note: zeta >= 1 (e_r <= exp(-pi) = 0.0432): overdamped, the damper alone ends the "
           "contact\n");
  return CLI_OK;
}

int cmd_advise(int argc, char** argv) {
  if (argc < 2)
    return cli_usage_error("advise", "advise: missing what to advise on (ka, damping, "
                                     "restitution or contact-time)");
  const char* sub = argv[1];
  if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    cli_help(stdout, "advise");
    return CLI_OK;
  }
  if (strcmp(sub, "ka") == 0) return advise_ka(argc, argv);
  if (strcmp(sub, "damping") == 0) return advise_damping(argc, argv);
  if (strcmp(sub, "restitution") == 0) return advise_restitution(argc, argv);
  if (strcmp(sub, "contact-time") == 0) return advise_contact_time(argc, argv);
  if (sub[0] == '-') return cli_usage_error("advise", "advise: unknown option '%s'", sub);
  return cli_usage_error("advise",
                         "advise: unknown subject '%s' (ka, damping, restitution or "
                         "contact-time)",
                         sub);
}
