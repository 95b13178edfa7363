/* Parameter advice: the rules of thumb of area-compliant-contact.txt as functions.
 *
 * Stiffness per unit area. A compliant contact adds a spring per unit area: under pressure p it
 * penetrates delta = p / ka. Knowing pmax and an allowed delta_max gives ka = pmax / delta_max.
 * For a deformable body of effective thickness Le and effective modulus E_eff along the normal,
 * the body itself deforms deltaB = p Le / E_eff, and the ratio
 *
 *   rho = deltaB / delta = ka Le / E_eff   =>   ka = rho E_eff / Le,
 *
 * with rho 10..30 (large enough that delta is small against deltaB, small enough not to bring
 * back the noisy pressures of rigid vertex contact). Le (the depth over which the contact stress
 * stays concentrated) is, from the document's table: thin layer (L << dp) L; compact body
 * (L >> dp, body section >> patch) dp; slender body (L >> dp, section ~ patch) L. Le lies
 * between L and dp, so when the shape is not given and dp is, we take thin for L < dp and compact
 * otherwise: Le = min(L, dp) is then continuous at the threshold (no jump in ka as L crosses dp).
 * Slender cannot be inferred (it depends on the body's section, not on L and dp).
 * The default ka 5e10 N/m^3 is rho = 20, E = 5 MPa, Le = 2 mm: 20 * 5e6 / 0.002 = 5e10.
 *
 * Poisson's ratio. The document's deltaB = p Le / E assumes nu = 0. With nu > 0:
 *   - thin layer, bonded so that it cannot expand laterally (eps_xx = eps_yy = 0): Hooke's law
 *     sigma_zz = (lambda + 2 mu) eps_zz, the constrained (P-wave, oedometric) modulus
 *       M = E (1 - nu) / ((1 + nu)(1 - 2 nu)),   M/E = 0.55 / (1.45 * 0.1) = 3.793 at nu = 0.45,
 *     the document's "factor of about 3.8". It is an upper bound: a layer of finite width bulges
 *     at its free edges and is only partly confined; it diverges as nu -> 0.5 (incompressible),
 *     which is therefore rejected;
 *   - compact body (a patch on a half-space, Boussinesq): the surface displacement under a
 *     pressure patch is proportional to (1 - nu^2) / E, so E_eff = E / (1 - nu^2) (1.254 at 0.45);
 *   - slender body (uniaxial stress, free lateral surfaces): E_eff = E.
 * The document adds that for the stiffer confined layer "a smaller value of Ka can be used". The
 * algebra above says the opposite: the stiffer body deforms less, deltaB = p Le / E_eff, so
 * keeping delta = deltaB / rho needs ka = rho E_eff / Le, larger by E_eff / E. Keeping the nu = 0
 * value rho E / Le instead leaves the true ratio at rho E / E_eff (20 / 3.79 = 5.3), below the
 * advised 10..30: the contact then takes a larger share of the deformation. We follow the
 * algebra (SPEC: the physics wins) and report the nu = 0 value beside it.
 *
 * Damping. D/K = max(stiffness_damping, step_damping h) must be at least h/2. A body of mass M
 * on contacts of total stiffness Ktot oscillates at w = sqrt(Ktot / M); D = 2 zeta sqrt(Ktot M)
 * gives damping ratio zeta, i.e. D/K = 2 zeta / w. This matters only when the step resolves the
 * oscillation (w h < ~1); and if 2 zeta / w < h/2, step_damping >= 0.5 is still needed.
 * Step damping alone gives a light body striking a stiff contact the mean restitution
 * e = 0.5 / (0.5 + s) (validated in tests/physics/test_area_compliant.c), so s = 0.5/e - 0.5.
 *
 * Contact-time law. K = m (pi/T)^2, D = -2 m ln(e_r) / T, so w0 = pi/T and
 * zeta = D / (2 m w0) = -ln(e_r) / pi (m = m_rep: a body against a wall, or mass: effective).
 * The law comply integrates never pulls: F = max(0, K x + D x'). Entered at x = 0 with speed
 * v0, the body follows the linear spring-dashpot m x'' = -K x - D x' while F > 0 and leaves
 * when F = 0, i.e. when x'' = 0 -- before x returns to 0 (Schwager & Poeschel 2007, "Coefficient
 * of restitution and linear-dashpot model revisited", Granular Matter 9:465). In the phase
 * s = w0 t:
 *  - zeta < 1: x = (v0/wd) e^{-zeta s} sin(sqrt(1-zeta^2) s); x'' = 0 where
 *    tan(sqrt(1-zeta^2) s) = -2 zeta sqrt(1-zeta^2) / (1 - 2 zeta^2), i.e. (with zeta = sin phi)
 *    sqrt(1-zeta^2) s* = pi - 2 phi = 2 acos(zeta); there x'/v0 = -e^{-zeta s*} exactly
 *    (cos(pi - 2 phi) - tan(phi) sin(pi - 2 phi) = -1), so
 *      e = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2)),   t* = 2 acos(zeta) / (w0 sqrt(1-zeta^2));
 *  - zeta > 1, W = sqrt(zeta^2 - 1): x ~ e^{l1 s} - e^{l2 s}, l = -zeta +- W; x'' = 0 at
 *    s* = ln((zeta + W)/(zeta - W)) / W = 2 ln(zeta + W) / W (as (zeta+W)(zeta-W) = 1), and
 *      e = ((zeta + W)/(zeta - W))^(-zeta/W) = exp(-2 zeta ln(zeta + W) / W),
 *    so even an overdamped contact restitutes (the damper's push ends the contact);
 *  - zeta = 1: the limit of both, e = exp(-2), t* = 2/w0.
 * e(zeta) falls from 1 (zeta = 0) to 0 (~ 1/(4 zeta^2) for large zeta). For e_r = 0.5: e = 0.5433
 * and t* = 0.880 T; the spring-dashpot that may pull (the document's derivation) would give
 * e_r^(1/sqrt(1 - (ln e_r/pi)^2)) = 0.4913 after pi/wd = 1.026 T. The inverse has no closed
 * form: e(zeta) = e is solved by bisection in zeta (decreasing), and e_r = exp(-pi zeta). */
#include <math.h>
#include <string.h>

#include "comply/advise.h"
#include "core/cm_math.h"
#include "core/internal.h"

/* ---- validation: messages name the parameter and what was expected ---- */

static cmStatus need_positive(const char* name, const char* unit, double v, char* err,
                              size_t errsz) {
  if (isfinite(v) && v > 0) return CM_OK;
  return cm_error(err, errsz, CM_ERR_ARG, "%s: expected a finite number > 0%s%s, got %g", name,
                  *unit ? " " : "", unit, v);
}

static cmStatus need_range(const char* name, double v, double lo, int lo_open, double hi,
                           int hi_open, char* err, size_t errsz) {
  int ok = isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (ok) return CM_OK;
  return cm_error(err, errsz, CM_ERR_ARG, "%s: expected a number in %c%g, %g%c, got %g", name,
                  lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']', v);
}

/* ---- stiffness per unit area ---- */

cmStatus cm_advise_ka_pressure(double pmax, double delta_max, double* ka, char* err, size_t errsz) {
  CM_ASSERT(ka);
  cmStatus s;
  if ((s = need_positive("pmax", "(Pa)", pmax, err, errsz)) != CM_OK) return s;
  if ((s = need_positive("delta_max", "(m)", delta_max, err, errsz)) != CM_OK) return s;
  double k = pmax / delta_max;
  if (!isfinite(k) || !(k > 0))
    return cm_error(err, errsz, CM_ERR_ARG, "pmax / delta_max = %g / %g is not a finite ka > 0",
                    pmax, delta_max);
  *ka = k;
  return CM_OK;
}

const char* cm_advise_shape_name(cmAdviseShape s) {
  switch (s) {
  case CM_ADVISE_SHAPE_THIN:
    return "thin";
  case CM_ADVISE_SHAPE_COMPACT:
    return "compact";
  case CM_ADVISE_SHAPE_SLENDER:
    return "slender";
  case CM_ADVISE_SHAPE_AUTO:
    return "auto";
  }
  return "?";
}

int cm_advise_shape_parse(const char* name, cmAdviseShape* out) {
  static const cmAdviseShape all[] = {CM_ADVISE_SHAPE_AUTO, CM_ADVISE_SHAPE_THIN,
                                      CM_ADVISE_SHAPE_COMPACT, CM_ADVISE_SHAPE_SLENDER};
  if (!name) return -1;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char* n = cm_advise_shape_name(all[i]);
    size_t k = 0;
    while (n[k] && n[k] == name[k])
      k++;
    if (!n[k] && !name[k]) {
      *out = all[i];
      return 0;
    }
  }
  return -1;
}

cmAdviseMaterial cm_advise_material_default(void) {
  cmAdviseMaterial m;
  m.young = 0;
  m.thickness = 0;
  m.patch_width = 0;
  m.shape = CM_ADVISE_SHAPE_AUTO;
  m.rho = CM_ADVISE_RHO_DEFAULT;
  m.poisson = 0;
  return m;
}

double cm_advise_confined_factor(double nu) {
  return (1.0 - nu) / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

double cm_advise_half_space_factor(double nu) {
  return 1.0 / (1.0 - nu * nu);
}

const char* cm_advise_note_text(unsigned note) {
  switch (note) {
  case CM_ADVISE_NOTE_RHO_RANGE:
    return "rho is outside the document's advised range 10..30";
  case CM_ADVISE_NOTE_NO_PATCH:
    return "no patch width given: assumed a thin layer (Le = L); for a body thicker than the "
           "contact patch give the patch width";
  case CM_ADVISE_NOTE_SHAPE_MISMATCH:
    return "the shape contradicts the sizes: thin assumes L << dp, compact and slender L >> dp";
  case CM_ADVISE_NOTE_CONFINED:
    return "thin layer with nu > 0: the laterally confined (P-wave) modulus "
           "E (1-nu)/((1+nu)(1-2nu)) is used, an upper bound reached only when the layer cannot "
           "bulge (L << dp). The stiffer layer deforms less (deltaB = p Le / E_eff), so the same "
           "rho needs a LARGER ka; the document's remark that a smaller ka can be used does not "
           "follow from its own ratio rho = deltaB/delta";
  case CM_ADVISE_NOTE_HALF_SPACE:
    return "compact body with nu > 0: E_eff = E / (1-nu^2), the half-space (Boussinesq) modulus";
  case CM_ADVISE_NOTE_SLENDER_NU:
    return "slender body: free lateral expansion (uniaxial stress), nu does not change E_eff";
  default:
    return "";
  }
}

/* the shape to use and Le; patch width already validated */
static void choose_le(const cmAdviseMaterial* in, cmAdviseKa* out) {
  double L = in->thickness, dp = in->patch_width;
  cmAdviseShape s = in->shape;
  out->shape_inferred = s == CM_ADVISE_SHAPE_AUTO;
  if (s == CM_ADVISE_SHAPE_AUTO) {
    /* Le = min(L, dp): thin below the threshold L = dp, compact above */
    s = (dp > 0 && !(L < dp)) ? CM_ADVISE_SHAPE_COMPACT : CM_ADVISE_SHAPE_THIN;
    if (!(dp > 0)) out->notes |= CM_ADVISE_NOTE_NO_PATCH;
  } else if (dp > 0) {
    int thin_ok = L<dp, thick_ok = L> dp;
    if ((s == CM_ADVISE_SHAPE_THIN && !thin_ok) || (s != CM_ADVISE_SHAPE_THIN && !thick_ok))
      out->notes |= CM_ADVISE_NOTE_SHAPE_MISMATCH;
  }
  out->shape = s;
  out->le = s == CM_ADVISE_SHAPE_COMPACT ? dp : L;
}

/* E_eff / E for the shape (see the top of the file) */
static double poisson_factor(cmAdviseShape s, double nu, unsigned* notes) {
  if (!(nu > 0)) return 1.0;
  switch (s) {
  case CM_ADVISE_SHAPE_THIN:
    *notes |= CM_ADVISE_NOTE_CONFINED;
    return cm_advise_confined_factor(nu);
  case CM_ADVISE_SHAPE_COMPACT:
    *notes |= CM_ADVISE_NOTE_HALF_SPACE;
    return cm_advise_half_space_factor(nu);
  default:
    *notes |= CM_ADVISE_NOTE_SLENDER_NU;
    return 1.0;
  }
}

cmStatus cm_advise_ka_material(const cmAdviseMaterial* in, cmAdviseKa* out, char* err,
                               size_t errsz) {
  CM_ASSERT(in && out);
  cmStatus st;
  /* validate every input */
  if ((st = need_positive("young", "(Pa)", in->young, err, errsz)) != CM_OK) return st;
  if ((st = need_positive("thickness", "(m)", in->thickness, err, errsz)) != CM_OK) return st;
  if (!(isfinite(in->patch_width) && in->patch_width >= 0))
    return cm_error(err, errsz, CM_ERR_ARG,
                    "patch_width: expected a finite number > 0 (m), or 0 if unknown, got %g",
                    in->patch_width);
  if ((st = need_positive("rho", "", in->rho, err, errsz)) != CM_OK) return st;
  if (!(isfinite(in->poisson) && in->poisson >= 0 && in->poisson < 0.5)) {
    if (in->poisson >= 0.5 && isfinite(in->poisson))
      return cm_error(err, errsz, CM_ERR_ARG,
                      "poisson: expected a number in [0, 0.5), got %g (nu = 0.5 is "
                      "incompressible: the confined modulus E (1-nu)/((1+nu)(1-2nu)) is infinite; "
                      "above 0.5 the material is not stable)",
                      in->poisson);
    return need_range("poisson", in->poisson, 0, 0, 0.5, 1, err, errsz);
  }
  if (in->shape < CM_ADVISE_SHAPE_AUTO || in->shape > CM_ADVISE_SHAPE_SLENDER)
    return cm_error(err, errsz, CM_ERR_ARG,
                    "shape: expected thin, compact, slender or auto, got %d", (int)in->shape);
  if (in->shape == CM_ADVISE_SHAPE_COMPACT && !(in->patch_width > 0))
    return cm_error(err, errsz, CM_ERR_ARG,
                    "patch_width: required for the compact shape (Le = patch width, m)");

  /* Le from the table, E_eff from nu, then ka = rho E_eff / Le */
  cmAdviseKa r;
  r.notes = 0;
  choose_le(in, &r);
  r.rho = in->rho;
  if (in->rho < CM_ADVISE_RHO_MIN || in->rho > CM_ADVISE_RHO_MAX)
    r.notes |= CM_ADVISE_NOTE_RHO_RANGE;
  r.modulus_factor = poisson_factor(r.shape, in->poisson, &r.notes);
  r.e_eff = in->young * r.modulus_factor;
  r.ka = in->rho * r.e_eff / r.le;
  r.ka_nu0 = in->rho * in->young / r.le;
  if (!isfinite(r.ka) || !(r.ka > 0))
    return cm_error(err, errsz, CM_ERR_ARG, "rho E_eff / Le = %g * %g / %g is not a finite ka > 0",
                    in->rho, r.e_eff, r.le);
  *out = r;
  return CM_OK;
}

/* ---- damping ---- */

cmStatus cm_advise_omega(double ktot, double mass, double* omega, char* err, size_t errsz) {
  CM_ASSERT(omega);
  cmStatus s;
  if ((s = need_positive("ktot", "(N/m)", ktot, err, errsz)) != CM_OK) return s;
  if ((s = need_positive("mass", "(kg)", mass, err, errsz)) != CM_OK) return s;
  double w = sqrt(ktot / mass);
  if (!isfinite(w) || !(w > 0))
    return cm_error(err, errsz, CM_ERR_ARG, "sqrt(ktot / mass) = sqrt(%g / %g) is not finite > 0",
                    ktot, mass);
  *omega = w;
  return CM_OK;
}

double cm_advise_midstep_zeta(double omega, double h, double dk) {
  if (!(omega > 0 && h > 0 && dk >= 0)) return NAN;
  double wh = omega * h, a = 1 / (1 + 0.5 * wh * wh + omega * omega * dk * h);
  /* the step map [[1 - w^2 h^2 a, h a], [-w^2 h a, a]] (state x, v): trace, determinant a */
  double tr = 1 - wh * wh * a + a, det = a, disc = tr * tr - 4 * det;
  if (disc < 0) {
    double lnr = 0.5 * log(det), th = acos(fmax(-1, fmin(1, tr / (2 * sqrt(det)))));
    return -lnr / sqrt(lnr * lnr + th * th);
  }
  double l1 = 0.5 * (tr + sqrt(disc)), l2 = 0.5 * (tr - sqrt(disc));
  if (!(l2 > 0)) return NAN;
  double s1 = log(l1), s2 = log(l2); /* (per step; the ratio does not depend on the scale) */
  return -(s1 + s2) / (2 * sqrt(s1 * s2));
}

/* the D/K in [lo, hi] at which cm_advise_midstep_zeta is zeta (it increases with D/K), by
 * bisection to 1e-12 of hi */
static double dk_for_zeta(double omega, double h, double zeta, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    double mid = 0.5 * (lo + hi), z = cm_advise_midstep_zeta(omega, h, mid);
    if (z < zeta)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

cmStatus cm_advise_stiffness_damping(double zeta, double omega, double timestep,
                                     cmAdviseDamping* out, char* err, size_t errsz) {
  CM_ASSERT(out);
  cmStatus s;
  if ((s = need_positive("zeta", "", zeta, err, errsz)) != CM_OK) return s;
  if ((s = need_positive("omega", "(rad/s)", omega, err, errsz)) != CM_OK) return s;
  if (!(isfinite(timestep) && timestep >= 0))
    return cm_error(err, errsz, CM_ERR_ARG,
                    "timestep: expected a finite number > 0 (s), or 0 if not given, got %g",
                    timestep);
  cmAdviseDamping r;
  memset(&r, 0, sizeof r);
  r.omega = omega;
  r.stiffness_damping = 2.0 * zeta / omega;
  if (!isfinite(r.stiffness_damping))
    return cm_error(err, errsz, CM_ERR_ARG, "2 zeta / omega = 2 * %g / %g is not finite", zeta,
                    omega);
  /* the step checks: is the oscillation resolved, is the minimum D/K = h/2 reached */
  if (timestep > 0) {
    r.timestep = timestep;
    r.omega_h = omega * timestep;
    r.unresolved = r.omega_h > 1.0;
    r.below_half_step = r.stiffness_damping < 0.5 * timestep;
    double h = timestep;
    r.zeta_given = cm_advise_midstep_zeta(omega, h, fmax(r.stiffness_damping, h));
    r.zeta_min = cm_advise_midstep_zeta(omega, h, 0.5 * h);
    if (zeta >= r.zeta_min) {
      /* D/K from h/2 up: the ratio grows with it (to 1 and beyond, overdamped) */
      double hi = h;
      while (cm_advise_midstep_zeta(omega, h, hi) < zeta && hi < 1e12 * h)
        hi *= 2;
      double dk = dk_for_zeta(omega, h, zeta, 0.5 * h, hi);
      r.stiffness_damping_step = dk;
      r.step_damping_max = fmin(1, dk / h);
    } else {
      /* the longest h whose least ratio (D/K = h/2) is zeta: it grows with h */
      double lo = 0, hi = h;
      for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (cm_advise_midstep_zeta(omega, mid, 0.5 * mid) > zeta)
          hi = mid;
        else
          lo = mid;
      }
      r.timestep_for_zeta = lo;
    }
  }
  *out = r;
  return CM_OK;
}

cmStatus cm_advise_restitution(double step_damping, double* restitution, char* err, size_t errsz) {
  CM_ASSERT(restitution);
  if (!(isfinite(step_damping) && step_damping >= 0))
    return cm_error(err, errsz, CM_ERR_ARG, "step_damping: expected a finite number >= 0, got %g",
                    step_damping);
  *restitution = 0.5 / (0.5 + step_damping);
  return CM_OK;
}

cmStatus cm_advise_step_damping_for_restitution(double restitution, double* step_damping, char* err,
                                                size_t errsz) {
  CM_ASSERT(step_damping);
  cmStatus s;
  if ((s = need_range("restitution", restitution, 0, 1, 1, 0, err, errsz)) != CM_OK) return s;
  *step_damping = 0.5 / restitution - 0.5;
  if (!isfinite(*step_damping))
    return cm_error(err, errsz, CM_ERR_ARG, "restitution: %g is too small (step damping overflows)",
                    restitution);
  return CM_OK;
}

/* ---- contact-time law ---- */

/* restitution and contact duration (phase w0 t*) of the non-pulling spring-dashpot of damping
 * ratio zeta >= 0 (see the top of the file) */
static void clamped(double zeta, double* e, double* phase) {
  double lne, s;
  if (zeta < 1) {
    double c = sqrt((1 - zeta) * (1 + zeta));
    s = 2 * acos(zeta) / c;
  } else if (zeta > 1) {
    double w = sqrt((zeta - 1) * (zeta + 1));
    s = 2 * log1p(zeta - 1 + w) / w;
  } else {
    s = 2;
  }
  lne = -zeta * s;
  *e = exp(lne);
  *phase = s;
}

cmStatus cm_advise_contact_time_restitution(double elastic_repulsion, double* restitution,
                                            char* err, size_t errsz) {
  CM_ASSERT(restitution);
  cmStatus s;
  if ((s = need_range("elastic_repulsion", elastic_repulsion, 0, 1, 1, 0, err, errsz)) != CM_OK)
    return s;
  double phase;
  clamped(-log(elastic_repulsion) / CM_PI, restitution, &phase);
  return CM_OK;
}

cmStatus cm_advise_contact_time_duration(double elastic_repulsion, double* ratio, char* err,
                                         size_t errsz) {
  CM_ASSERT(ratio);
  cmStatus s;
  if ((s = need_range("elastic_repulsion", elastic_repulsion, 0, 1, 1, 0, err, errsz)) != CM_OK)
    return s;
  double e, phase;
  clamped(-log(elastic_repulsion) / CM_PI, &e, &phase);
  *ratio = phase / CM_PI; /* t* / T = (phase / w0) / (pi / w0) */
  return CM_OK;
}

cmStatus cm_advise_contact_time_er(double restitution, double* elastic_repulsion, char* err,
                                   size_t errsz) {
  CM_ASSERT(elastic_repulsion);
  cmStatus s;
  if ((s = need_range("restitution", restitution, 0, 1, 1, 0, err, errsz)) != CM_OK) return s;
  if (restitution == 1) {
    *elastic_repulsion = 1;
    return CM_OK;
  }
  /* bracket the zeta of e(zeta) = restitution (e decreases), then bisect to the last bit */
  double lo = 0, hi = 1, e, phase;
  for (clamped(hi, &e, &phase); e > restitution && hi < 1e300; clamped(hi, &e, &phase))
    hi *= 2;
  for (int it = 0; it < 2000; it++) {
    double mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    clamped(mid, &e, &phase);
    if (e > restitution)
      lo = mid;
    else
      hi = mid;
  }
  double er = exp(-CM_PI * 0.5 * (lo + hi));
  if (!(er > 0))
    return cm_error(err, errsz, CM_ERR_ARG,
                    "restitution: %g needs an elastic_repulsion below the smallest double "
                    "(damping ratio %g): give a restitution of at least 5e-6",
                    restitution, 0.5 * (lo + hi));
  *elastic_repulsion = er;
  return CM_OK;
}
