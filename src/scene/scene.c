/* The scene description: defaults, the builder API (cm_scene_add_*), and the value checks.
 *
 * Every range rule of a scene lives in this file, in the check_* functions below. They fill a
 * cmCheck (scene_check.h) with the offending field's path and a message such as
 * "mass must be >= 0 kg (got -1)"; cm_scene_validate and the cm_scene_add_* functions prefix
 * it with "FILE:LINE:COL: body 'ball': ", and the YAML parser (scene_yaml.c) calls the same
 * checks and reports at the field's own line and column.
 *
 * Orientation: any finite non-zero quaternion is accepted and normalised when the body is
 * added, so rounded values such as [0.7071, 0, 0, 0.7071] work; the scene always holds unit
 * quaternions.
 *
 * Body names are looked up through a hash index (open addressing, FNV-1a) kept next to the
 * public struct, so adding n bodies costs O(n) and validation is O(n) too. The index stores
 * body indices only and every hit is confirmed with strcmp, so a stale index can only miss;
 * cm_scene_validate builds its own fresh index. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/hash.h"
#include "core/internal.h"
#include "scene/scene_check.h"

/* ---- defaults ---- */

cmOptions cm_options_default(void) {
  cmOptions o;
  memset(&o, 0, sizeof o);
  o.timestep = 1e-3;
  o.duration = 1.0;
  o.steps = 0;
  o.gravity[2] = -9.81;
  o.integrator = CM_INTEGRATOR_IMPLICIT;
  o.substeps = CM_SUBSTEPS_AUTO;
  o.max_speed = 1e4;
  o.max_contacts = 10000000;
  o.output_every = 1;
  o.vtk = 0;
  return o;
}

cmBodyDef cm_body_def_default(void) {
  cmBodyDef b;
  memset(&b, 0, sizeof b);
  b.geom.type = CM_GEOM_NONE;
  b.geom.refine = 3;
  b.geom.divisions = 1;
  b.geom.scale = 1.0;
  b.geom.normal[2] = 1.0;
  b.density = 1000.0;
  b.orientation[0] = 1.0;
  b.motion = CM_MOTION_DYNAMIC;
  b.deformable.material = CM_MATERIAL_NEO_HOOKEAN;
  b.deformable.young = 1e6;
  b.deformable.poisson = 0.3;
  /* cells 0, 0, 0: the geometry's default, resolved at compile (a box 4 x 4 x 4, a sphere 8
   * across; the sphere's 8 was set by the scene file's reader alone, so a sphere built through
   * the API or from Python got 4) */
  b.deformable.cells[0] = b.deformable.cells[1] = b.deformable.cells[2] = 0;
  b.deformable.scheme = CM_FEM_BACKWARD_EULER;
  return b;
}

cmRuleDef cm_rule_def_default(void) {
  cmRuleDef r;
  memset(&r, 0, sizeof r);
  r.pair[0] = "*";
  r.pair[1] = "*";
  r.law = CM_LAW_CONTACT_TIME;
  r.ka = 5e10;
  r.step_damping = 1.0;
  r.stiffness_damping = 0.0;
  r.elastic_repulsion = 0.5;
  r.play = 0.0;
  r.contact_time = 0.0;
  r.mass = CM_REP_MASS_MIN;
  r.stiffness = 1e5;
  r.damping = 0.0;
  r.friction = 0.0;
  r.stick_velocity = 1e-5;
  r.min_period = 0.0;
  r.method = CM_METHOD_AUTO;
  r.direction = CM_DIRECTION_AUTO;
  r.integration = CM_INTEGRATION_DEFAULT;
  return r;
}

cmJointDef cm_joint_def_default(void) {
  cmJointDef j;
  memset(&j, 0, sizeof j);
  return j;
}

/* ---- body name index ---- */

typedef struct NameIndex {
  int* slot;  /* body index or -1 (cap) */
  size_t cap; /* power of two, 0 when empty */
  int n;      /* entries */
} NameIndex;

/* FNV-1a of the name; the seed is this index's since its first version (the FNV offset basis
 * with a digit short), so its probe order stays as it was */
static uint64_t hash_str(const char* s) {
  return cm_fnv1a(1469598103934665603ull, s, strlen(s));
}

static void index_free(NameIndex* ix) {
  cm_free(ix->slot);
  ix->slot = NULL;
  ix->cap = 0;
  ix->n = 0;
}

/* index of the body named `name` in body[0..nbody), or -1 */
static int index_find(const NameIndex* ix, const cmBodyDef* body, int nbody, const char* name) {
  if (!ix->cap || !name) return -1;
  size_t mask = ix->cap - 1;
  for (size_t k = hash_str(name) & mask;; k = (k + 1) & mask) {
    int i = ix->slot[k];
    if (i < 0) return -1;
    if (i < nbody && body[i].name && strcmp(body[i].name, name) == 0) return i;
  }
}

/* insert body i (its name must not be present); 0 or -1 on no memory */
static int index_insert(NameIndex* ix, const cmBodyDef* body, int i) {
  if ((size_t)(ix->n + 1) * 2 > ix->cap) {
    size_t cap = ix->cap ? ix->cap * 2 : 16;
    int* slot = cm_malloc(cap * sizeof *slot);
    if (!slot) return -1;
    for (size_t k = 0; k < cap; k++)
      slot[k] = -1;
    /* rehash the old entries */
    for (size_t k = 0; k < ix->cap; k++) {
      int j = ix->slot[k];
      if (j < 0) continue;
      size_t m = hash_str(body[j].name) & (cap - 1);
      while (slot[m] >= 0)
        m = (m + 1) & (cap - 1);
      slot[m] = j;
    }
    cm_free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
  }
  size_t m = hash_str(body[i].name) & (ix->cap - 1);
  while (ix->slot[m] >= 0)
    m = (m + 1) & (ix->cap - 1);
  ix->slot[m] = i;
  ix->n++;
  return 0;
}

/* a scene from cm_scene_new: the public struct first, then the private index */
typedef struct ScenePriv {
  cmScene pub;
  NameIndex names;
  int cap_body, cap_rule, cap_joint;
} ScenePriv;

static ScenePriv* priv(cmScene* s) {
  return (ScenePriv*)(void*)s;
}

/* ---- message helpers ---- */

const char* cm_msg_str(char* buf, size_t bufsz, const char* s, size_t n) {
  if (!bufsz) return buf;
  size_t k = 0, max = bufsz - 1;
  int cut = 0;
  for (size_t i = 0; i < n && s[i]; i++) {
    if (k + 1 > max || (k + 4 > max && i + 1 < n && s[i + 1])) {
      cut = 1;
      break;
    }
    unsigned char ch = (unsigned char)s[i];
    buf[k++] = (ch < 32 || ch == 127) ? '?' : (char)ch;
  }
  if (cut) {
    while (k + 3 > max && k > 0)
      k--;
    for (int d = 0; d < 3 && k < max; d++)
      buf[k++] = '.';
  }
  buf[k] = 0;
  return buf;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(cmCheck* c, const char* field, const char* fmt, ...) {
  va_list ap;
  c->status = CM_ERR_ARG;
  c->field = field;
  va_start(ap, fmt);
  vsnprintf(c->msg, sizeof c->msg, fmt, ap);
  va_end(ap);
  return 1;
}

static int nomem(cmCheck* c) {
  c->status = CM_ERR_NOMEM;
  c->field = "";
  snprintf(c->msg, sizeof c->msg, "out of memory");
  return 1;
}

/* ---- the range rules ---- */

typedef enum Range {
  R_FINITE, /* any finite number */
  R_POS,    /* > 0 */
  R_NONNEG, /* >= 0 */
  R_UNIT    /* in (0, 1] */
} Range;

static int range_ok(Range r, double v) {
  if (!isfinite(v)) return 0;
  switch (r) {
  case R_FINITE:
    return 1;
  case R_POS:
    return v > 0;
  case R_NONNEG:
    return v >= 0;
  case R_UNIT:
    return v > 0 && v <= 1;
  }
  return 0;
}

static const char* range_text(Range r) {
  switch (r) {
  case R_FINITE:
    return "a finite number";
  case R_POS:
    return "> 0";
  case R_NONNEG:
    return ">= 0";
  case R_UNIT:
    return "in (0, 1]";
  }
  return "?";
}

/* a number field: 1 (and c filled) if v is outside r; name is the field as printed */
static int num(cmCheck* c, const char* field, const char* name, double v, Range r,
               const char* unit) {
  if (range_ok(r, v)) return 0;
  int unit_ok = unit && *unit && r != R_FINITE;
  return fail(c, field, "%s must be %s%s%s (got %.10g)", name, range_text(r), unit_ok ? " " : "",
              unit_ok ? unit : "", v);
}

/* a vector of n finite numbers */
static int vec(cmCheck* c, const char* field, const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return fail(c, field, "%s[%d] must be a finite number (got %g)", field, i, v[i]);
  return 0;
}

/* a finite vector whose components are at most max in magnitude (unit for the message) */
static int vec_max(cmCheck* c, const char* field, const double* v, int n, double max,
                   const char* unit) {
  if (vec(c, field, v, n)) return 1;
  for (int i = 0; i < n; i++)
    if (fabs(v[i]) > max)
      return fail(c, field, "%s[%d] must be at most %g %s in magnitude (got %.10g)", field, i, max,
                  unit, v[i]);
  return 0;
}

/* a number at most max (unit and why for the message) */
static int at_most(cmCheck* c, const char* field, double v, double max, const char* unit,
                   const char* why) {
  if (v <= max) return 0;
  return fail(c, field, "%s must be at most %g%s%s (got %.10g): %s", field, max, *unit ? " " : "",
              unit, v, why);
}

/* an integer field in lo..hi (hi < 0: no upper bound) */
static int intr(cmCheck* c, const char* field, long v, long lo, long hi) {
  if (v >= lo && (hi < 0 || v <= hi)) return 0;
  if (hi < 0) return fail(c, field, "%s must be an integer >= %ld (got %ld)", field, lo, v);
  return fail(c, field, "%s must be an integer in %ld..%ld (got %ld)", field, lo, hi, v);
}

/* an enumeration stored as int: 0..n-1 */
static int enm(cmCheck* c, const char* field, int v, int n, const char* names) {
  if (v >= 0 && v < n) return 0;
  return fail(c, field, "%s must be one of %s (got %d)", field, names, v);
}

static int nonempty(cmCheck* c, const char* field, const char* s, const char* what) {
  if (s && *s) return 0;
  return fail(c, field, "%s must be a non-empty %s", field, what);
}

/* eigenvalues (ascending) of a symmetric 3x3 matrix, closed form. Not cm_sym_eig3 (Jacobi,
 * core/linalg.c): near a double eigenvalue the two differ by up to 1e-8 of the largest, which
 * would move the triangle-inequality verdict below for inertias at its tolerance (thin rods)
 * and the digits of its message. */
static void sym_eig3(const double A[9], double e[3]) {
  double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  double q = (A[0] + A[4] + A[8]) / 3;
  if (p1 == 0) {
    e[0] = A[0], e[1] = A[4], e[2] = A[8];
  } else {
    double p2 =
        (A[0] - q) * (A[0] - q) + (A[4] - q) * (A[4] - q) + (A[8] - q) * (A[8] - q) + 2 * p1;
    double p = sqrt(p2 / 6);
    double B[9];
    for (int i = 0; i < 9; i++)
      B[i] = (A[i] - ((i % 4 == 0) ? q : 0)) / p;
    double r = cm_m3_det(B) / 2;
    r = r < -1 ? -1 : (r > 1 ? 1 : r);
    double phi = acos(r) / 3;
    e[2] = q + 2 * p * cos(phi);
    e[0] = q + 2 * p * cos(phi + 2 * CM_PI / 3);
    e[1] = 3 * q - e[0] - e[2];
  }
  /* sort */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (e[j] > e[j + 1]) {
        double t = e[j];
        e[j] = e[j + 1];
        e[j + 1] = t;
      }
}

/* inertia about the com: finite, symmetric, positive definite, triangle inequalities */
static int check_inertia(cmCheck* c, const double I[9]) {
  const char* f = "inertia";
  if (vec(c, f, I, 9)) return 1;
  double scale = 0;
  for (int i = 0; i < 9; i++)
    scale = fmax(scale, fabs(I[i]));
  /* its minors and eigenvalues multiply three entries (1e300 became nan and inf, reported as a
   * tensor of the body's line); 1e90 kg m^2 is a mass of 1e30 kg 1e30 m from its centre */
  if (scale > CM_INERTIA_MAX)
    return fail(c, f, "inertia entries must be at most %g kg m^2 in magnitude (got %.10g)",
                CM_INERTIA_MAX, scale);
  static const int off[3][2] = {{1, 3}, {2, 6}, {5, 7}};
  for (int k = 0; k < 3; k++) {
    int a = off[k][0], b = off[k][1];
    if (fabs(I[a] - I[b]) > 1e-9 * scale)
      return fail(c, f, "inertia must be symmetric (I[%d][%d] = %g but I[%d][%d] = %g, kg m^2)",
                  a / 3, a % 3, I[a], b / 3, b % 3, I[b]);
  }
  /* Sylvester's criterion on the symmetrised tensor */
  double S[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      S[3 * i + j] = 0.5 * (I[3 * i + j] + I[3 * j + i]);
  double m1 = S[0], m2 = S[0] * S[4] - S[1] * S[3], m3 = cm_m3_det(S);
  if (!(m1 > 0 && m2 > 0 && m3 > 0))
    return fail(c, f,
                "inertia must be positive definite (leading minors %g, %g, %g must all be > 0)", m1,
                m2, m3);
  /* principal moments: each at most the sum of the other two */
  double e[3];
  sym_eig3(S, e);
  double tol = 1e-6 * (e[0] + e[1] + e[2]);
  if (e[0] + e[1] < e[2] - tol)
    return fail(c, f,
                "inertia must satisfy the triangle inequality I1 + I2 >= I3 of its principal "
                "moments (got %g, %g, %g kg m^2)",
                e[0], e[1], e[2]);
  return 0;
}

/* geometry values (motion needed for planes) */
static int check_geom(cmCheck* c, const cmGeomDef* g, cmMotion motion) {
  switch (g->type) {
  case CM_GEOM_NONE:
    return fail(c, "geometry", "geometry is required (one of sphere, box, mesh, plane)");
  case CM_GEOM_SPHERE:
    if (num(c, "geometry.sphere.radius", "geometry.sphere.radius", g->radius, R_POS, "m")) return 1;
    return intr(c, "geometry.sphere.refine", g->refine, 0, 8);
  case CM_GEOM_BOX:
    for (int i = 0; i < 3; i++)
      if (!range_ok(R_POS, g->size[i]))
        return fail(c, "geometry.box.size", "geometry.box.size[%d] must be > 0 m (got %.10g)", i,
                    g->size[i]);
    /* bounded where the cost is known: 12 d^2 triangles, at most as many as the finest sphere
     * (1024 divisions took 267 s and 3.8 GB before failing for want of memory) */
    if (g->divisions > CM_BOX_MAX_DIVISIONS)
      return fail(c, "geometry.box.divisions",
                  "geometry.box.divisions must be an integer in 1..%d (got %d): a box of d "
                  "divisions has 12 d^2 = %.0f triangles, more than the limit of %d triangles of "
                  "a primitive (as many as the finest sphere, refine 8)",
                  CM_BOX_MAX_DIVISIONS, g->divisions, 12.0 * g->divisions * g->divisions,
                  CM_PRIMITIVE_MAX_FACES);
    return intr(c, "geometry.box.divisions", g->divisions, 1, CM_BOX_MAX_DIVISIONS);
  case CM_GEOM_MESH:
    if (!g->mesh && nonempty(c, "geometry.mesh.file", g->file, "file path")) return 1;
    return num(c, "geometry.mesh.scale", "geometry.mesh.scale", g->scale, R_POS, "");
  case CM_GEOM_PLANE:
    if (vec(c, "geometry.plane.normal", g->normal, 3)) return 1;
    double unit[3];
    if (cm_v3_unit(g->normal, unit))
      return fail(c, "geometry.plane.normal", "geometry.plane.normal must be non-zero");
    if (num(c, "geometry.plane.offset", "geometry.plane.offset", g->offset, R_FINITE, "m"))
      return 1;
    if (!(fabs(g->offset) <= CM_COORD_MAX))
      return fail(c, "geometry.plane.offset",
                  "geometry.plane.offset must be at most %g m in magnitude (got %.10g)",
                  CM_COORD_MAX, g->offset);
    if (motion != CM_MOTION_FIXED)
      return fail(c, "geometry.plane",
                  "a plane (half-space) body must have motion fixed (got motion %s)",
                  motion == CM_MOTION_DYNAMIC      ? "dynamic"
                  : motion == CM_MOTION_PRESCRIBED ? "prescribed"
                  : motion == CM_MOTION_IGNORED    ? "ignored"
                                                   : "deformable");
    return 0;
  }
  return fail(c, "geometry", "geometry type must be one of sphere, box, mesh, plane (got %d)",
              (int)g->type);
}

/* a deformable body's elements and material (docs/deformable.md) */
static int check_deformable(cmCheck* c, const cmBodyDef* b) {
  const cmDeformableDef* f = &b->deformable;
  if (b->geom.type == CM_GEOM_PLANE)
    return fail(c, "geometry",
                "a deformable body needs a volume: a box, a sphere or a tet mesh "
                "file, not a plane");
  if (b->mass != 0 || b->has_com || b->has_inertia)
    return fail(c,
                b->mass != 0 ? "mass"
                : b->has_com ? "com"
                             : "inertia",
                "a deformable body's mass, centre and inertia come from its density and elements: "
                "give density (kg/m^3) only");
  if (enm(c, "deformable.material", (int)f->material, 3, "neo_hookean, corotated, linear"))
    return 1;
  if (enm(c, "deformable.integrator", (int)f->scheme, 2, "backward_euler, midpoint")) return 1;
  if (num(c, "deformable.young", "deformable.young", f->young, R_POS, "Pa")) return 1;
  if (f->young > 1e15)
    return fail(c, "deformable.young",
                "deformable.young must be at most 1e15 Pa (got %.10g): stiffer than any material "
                "(diamond is 1.2e12 Pa)",
                f->young);
  if (!(f->poisson >= 0 && f->poisson <= 0.49))
    return fail(c, "deformable.poisson",
                "deformable.poisson must be in 0..0.49 (got %.10g): linear tetrahedra lock as "
                "nu approaches 0.5 (docs/deformable.md)",
                f->poisson);
  int auto_cells = f->cells[0] == 0 && f->cells[1] == 0 && f->cells[2] == 0;
  if (auto_cells) {
    /* the geometry's default (model_compile.c) */
  } else if (b->geom.type == CM_GEOM_SPHERE) {
    if (intr(c, "deformable.cells", f->cells[0], 2, CM_FEM_MAX_CELLS)) return 1;
    if (f->cells[1] != f->cells[0] || f->cells[2] != f->cells[0])
      return fail(c, "deformable.cells",
                  "a deformable sphere takes one number of cells, across its diameter (got [%d, "
                  "%d, %d]): three are for a box",
                  f->cells[0], f->cells[1], f->cells[2]);
  } else if (b->geom.type == CM_GEOM_BOX) {
    for (int i = 0; i < 3; i++)
      if (intr(c, "deformable.cells", f->cells[i], 1, CM_FEM_MAX_CELLS)) return 1;
    if ((double)f->cells[0] * f->cells[1] * f->cells[2] > 2e6)
      return fail(c, "deformable.cells",
                  "deformable.cells %d x %d x %d is %.0f cells (6 tets each), more than the "
                  "limit of 2e6 cells",
                  f->cells[0], f->cells[1], f->cells[2],
                  (double)f->cells[0] * f->cells[1] * f->cells[2]);
  }
  if (num(c, "deformable.rayleigh.mass", "deformable.rayleigh.mass", f->rayleigh_mass, R_NONNEG,
          "1/s"))
    return 1;
  if (num(c, "deformable.rayleigh.stiffness", "deformable.rayleigh.stiffness",
          f->rayleigh_stiffness, R_NONNEG, "s"))
    return 1;
  if (f->attach) {
    if (nonempty(c, "deformable.attach.body", f->attach, "body name")) return 1;
    if (!strcmp(f->attach, b->name))
      return fail(c, "deformable.attach.body", "a body cannot be attached to itself");
    if (vec_max(c, "deformable.attach.min", f->attach_min, 3, CM_COORD_MAX, "m")) return 1;
    if (vec_max(c, "deformable.attach.max", f->attach_max, 3, CM_COORD_MAX, "m")) return 1;
    for (int i = 0; i < 3; i++)
      if (!(f->attach_min[i] <= f->attach_max[i]))
        return fail(c, "deformable.attach",
                    "deformable.attach.min[%d] = %.10g m is above max[%d] = %.10g m", i,
                    f->attach_min[i], i, f->attach_max[i]);
  }
  if (f->has_fixed) {
    if (vec_max(c, "deformable.fixed.min", f->fixed_min, 3, CM_COORD_MAX, "m")) return 1;
    if (vec_max(c, "deformable.fixed.max", f->fixed_max, 3, CM_COORD_MAX, "m")) return 1;
    for (int i = 0; i < 3; i++)
      if (!(f->fixed_min[i] <= f->fixed_max[i]))
        return fail(c, "deformable.fixed",
                    "deformable.fixed.min[%d] = %.10g m is above max[%d] = %.10g m", i,
                    f->fixed_min[i], i, f->fixed_max[i]);
  }
  return 0;
}

/* body values, except the uniqueness of the name */
static int check_body(cmCheck* c, const cmBodyDef* b) {
  if (nonempty(c, "name", b->name, "string")) return 1;
  if (strcmp(b->name, "world") == 0)
    return fail(c, "name", "name 'world' is reserved for the fixed world frame");
  if (b->alias && nonempty(c, "alias", b->alias, "string")) return 1;
  if (b->alias && strcmp(b->alias, "world") == 0)
    return fail(c, "alias",
                "alias 'world' is reserved for the fixed world frame (the other side "
                "of a joint to the world)");
  if (enm(c, "motion", (int)b->motion, 5, "dynamic, fixed, prescribed, ignored, deformable"))
    return 1;
  if (check_geom(c, &b->geom, b->motion)) return 1;
  if (b->motion == CM_MOTION_DEFORMABLE && check_deformable(c, b)) return 1;
  if (num(c, "density", "density", b->density, R_POS, "kg/m^3")) return 1;
  if (b->density < CM_MASS_MIN || b->density > CM_MASS_MAX)
    return fail(c, "density", "density must be in %g..%g kg/m^3 (got %.10g)", CM_MASS_MIN,
                CM_MASS_MAX, b->density);
  if (num(c, "mass", "mass", b->mass, R_NONNEG, "kg")) return 1;
  if (b->mass != 0 && (b->mass < CM_MASS_MIN || b->mass > CM_MASS_MAX))
    return fail(c, "mass", "mass must be in %g..%g kg, or 0 for density x volume (got %.10g)",
                CM_MASS_MIN, CM_MASS_MAX, b->mass);
  if (b->has_com && vec_max(c, "com", b->com, 3, CM_COORD_MAX, "m")) return 1;
  if (b->has_inertia && check_inertia(c, b->inertia)) return 1;
  if (vec_max(c, "position", b->position, 3, CM_COORD_MAX, "m")) return 1;
  if (vec(c, "orientation", b->orientation, 4)) return 1;
  const double* q = b->orientation;
  if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
    return fail(c, "orientation", "orientation must be a non-zero quaternion (w, x, y, z)");
  if (vec(c, "velocity", b->velocity, 3)) return 1;
  if (vec(c, "angular_velocity", b->angular_velocity, 3)) return 1;
  if (vec(c, "force", b->force, 3)) return 1;
  if (vec(c, "moment", b->moment, 3)) return 1;
  /* a fixed body never moves: a velocity it was given would be written to bodies.csv while
   * it stays put, and a force or moment would do nothing; a prescribed body moves as given
   * whatever acts on it: a force or moment would do nothing either */
  if (b->motion == CM_MOTION_FIXED || b->motion == CM_MOTION_PRESCRIBED) {
    static const char* const what[4] = {"velocity", "angular_velocity", "force", "moment"};
    const double* v[4] = {b->velocity, b->angular_velocity, b->force, b->moment};
    int fixed = b->motion == CM_MOTION_FIXED;
    for (int k = fixed ? 0 : 2; k < 4; k++)
      if (v[k][0] != 0 || v[k][1] != 0 || v[k][2] != 0)
        return fail(c, what[k], "%s must be zero on a body of motion %s (got [%g, %g, %g])%s",
                    what[k],
                    fixed ? "fixed, which never moves"
                          : "prescribed, which moves at its given velocity and angular velocity "
                            "whatever acts on it",
                    v[k][0], v[k][1], v[k][2],
                    fixed ? "; a body that moves at a given velocity is motion prescribed" : "");
  }
  return 0;
}

static int dup_name(cmCheck* c, const char* name, int other) {
  char nb[80];
  return fail(c, "name", "name '%s' is already used by bodies[%d]",
              cm_msg_str(nb, sizeof nb, name, strlen(name)), other);
}

int cm_check_euler_deg(const double e[3], cmCheck* c) {
  for (int i = 0; i < 3; i++)
    if (!(fabs(e[i]) <= CM_EULER_DEG_MAX))
      return fail(c, "euler_deg",
                  "euler_deg[%d] must be a finite angle of at most %g degrees in magnitude (got "
                  "%.10g): angles repeat every 360 degrees, and larger ones lose the digits that "
                  "matter",
                  i, CM_EULER_DEG_MAX, e[i]);
  return 0;
}

int cm_check_options(const cmOptions* o, cmCheck* c) {
  if (num(c, "scene.timestep", "scene.timestep", o->timestep, R_POS, "s")) return 1;
  if (num(c, "scene.duration", "scene.duration", o->duration, R_NONNEG, "s")) return 1;
  if (o->steps < 0)
    return fail(c, "scene.steps", "scene.steps must be an integer >= 0 (got %ld)", o->steps);
  if ((double)o->steps > CM_STEPS_MAX)
    return fail(c, "scene.steps", "scene.steps must be at most %g (got %ld)", CM_STEPS_MAX,
                o->steps);
  if (o->steps == 0) { /* the steps of the duration: round(duration / timestep) */
    double n = floor(o->duration / o->timestep + 0.5);
    if (!(n <= CM_STEPS_MAX))
      return fail(c, "scene.duration",
                  "scene.duration / scene.timestep = %.4g steps, more than the limit of %g "
                  "(duration %.10g s, timestep %.10g s)",
                  n, CM_STEPS_MAX, o->duration, o->timestep);
    if (n == 0 && o->duration > 0)
      return fail(c, "scene.duration",
                  "scene.duration (%.10g s) is shorter than half a step (scene.timestep %.10g "
                  "s), so no step would run: give a duration of at least one step, or 0 for "
                  "the initial state alone",
                  o->duration, o->timestep);
  }
  if (vec_max(c, "scene.gravity", o->gravity, 3, CM_GRAVITY_MAX, "m/s^2")) return 1;
  if (enm(c, "scene.integrator", (int)o->integrator, 2, "implicit, explicit")) return 1;
  if (o->substeps < 0 || o->substeps > CM_SUBSTEPS_MAX)
    return fail(c, "scene.substeps",
                "scene.substeps must be auto or an integer from 1 to %d (got %d): for a finer "
                "step, lower scene.timestep",
                CM_SUBSTEPS_MAX, o->substeps);
  if (num(c, "scene.max_speed", "scene.max_speed", o->max_speed, R_POS, "m/s")) return 1;
  if (o->max_contacts < 1)
    return fail(c, "scene.max_contacts", "scene.max_contacts must be an integer >= 1 (got %ld)",
                o->max_contacts);
  if (o->solver_tolerance != CM_SOLVER_TOLERANCE_AUTO &&
      !(o->solver_tolerance >= CM_SOLVER_TOLERANCE_MIN &&
        o->solver_tolerance <= CM_SOLVER_TOLERANCE_MAX))
    return fail(c, "scene.solver_tolerance",
                "scene.solver_tolerance must be auto or a relative residual from %g to %g (got "
                "%.10g): below it rounding ends the solve, above it the impulses are off by more "
                "than that part of the momentum",
                CM_SOLVER_TOLERANCE_MIN, CM_SOLVER_TOLERANCE_MAX, o->solver_tolerance);
  if (intr(c, "output.every", o->output_every, 1, -1)) return 1;
  return intr(c, "output.vtk", o->vtk, 0, 1);
}

int cm_check_rule(const cmRuleDef* r, cmCheck* c) {
  if (!r->pair[0] || !*r->pair[0] || !r->pair[1] || !*r->pair[1])
    return fail(c, "pair", "pair must be two non-empty alias globs");
  if (enm(c, "law", (int)r->law, 4, "contact_time, area_compliant, linear, none")) return 1;
  if (num(c, "ka", "ka", r->ka, R_POS, "N/m^3")) return 1;
  /* beyond these the law cannot work in double precision: K = ka A or m (pi/T)^2 overflows the
   * implicit step's scale (its compliance 1/K underflows, and the contact gives no force at
   * all: a ball with contact_time 1e-300 fell through the ground), or a resting body is
   * launched by rounding (ka 1e300). The limits are many orders beyond any material: steel on a
   * 1 mm layer is ka = E / Le = 2e14 N/m^3, the shortest contact a 1 ns step resolves 1e-8 s. */
  if (r->ka > CM_KA_MAX)
    return fail(c, "ka",
                "ka must be at most %g N/m^3 (got %.10g): stiffer than any material (steel on a "
                "1 mm layer is about 2e14), and the implicit step loses the contact force in "
                "rounding; for a nearly rigid contact 1e12-1e15 is enough",
                CM_KA_MAX, r->ka);
  if (r->stiffness > CM_STIFFNESS_MAX)
    return fail(c, "stiffness", "stiffness must be at most %g N/m (got %.10g)", CM_STIFFNESS_MAX,
                r->stiffness);
  if (r->contact_time > 0 && r->contact_time < CM_CONTACT_TIME_MIN)
    return fail(c, "contact_time",
                "contact_time T must be at least %g s (got %.10g): a contact cannot last less "
                "than a step, and below that the law's stiffness m (pi/T)^2 loses the force in "
                "rounding; use a timestep and a T of at least a few steps",
                CM_CONTACT_TIME_MIN, r->contact_time);
  if (r->contact_time > CM_CONTACT_TIME_MAX)
    return fail(c, "contact_time",
                "contact_time T must be at most %g s (got %.10g): a contact that long holds "
                "nothing up (its stiffness m (pi/T)^2 is nearly 0)",
                CM_CONTACT_TIME_MAX, r->contact_time);
  if (num(c, "step_damping", "step_damping", r->step_damping, R_NONNEG, "")) return 1;
  if (at_most(c, "step_damping", r->step_damping, CM_STEP_DAMPING_MAX, "",
              "the restitution 0.5 / (0.5 + step_damping) is already 0 to 6 digits"))
    return 1;
  if (num(c, "stiffness_damping", "stiffness_damping", r->stiffness_damping, R_NONNEG, "s"))
    return 1;
  if (at_most(c, "stiffness_damping", r->stiffness_damping, CM_STIFFNESS_DAMPING_MAX, "s",
              "a damping time of 11 days damps every contact fully"))
    return 1;
  if (num(c, "elastic_repulsion", "elastic_repulsion (e_r)", r->elastic_repulsion, R_UNIT, ""))
    return 1;
  if (num(c, "play", "play", r->play, R_NONNEG, "m")) return 1;
  if (at_most(c, "play", r->play, CM_COORD_MAX, "m", "the largest coordinate a scene accepts"))
    return 1;
  if (!range_ok(R_NONNEG, r->contact_time))
    return fail(c, "contact_time",
                "contact_time T must be > 0 s, or 0 for the default 100 * timestep (got %.10g)",
                r->contact_time);
  if (enm(c, "mass", (int)r->mass, 2, "min, effective")) return 1;
  if (num(c, "stiffness", "stiffness", r->stiffness, R_POS, "N/m")) return 1;
  if (num(c, "damping", "damping", r->damping, R_NONNEG, "N s/m")) return 1;
  if (at_most(c, "damping", r->damping, CM_STIFFNESS_MAX, "N s/m",
              "the bound of the stiffness; the implicit step loses the force in rounding"))
    return 1;
  if (num(c, "friction", "friction (mu)", r->friction, R_NONNEG, "")) return 1;
  if (at_most(c, "friction", r->friction, CM_FRICTION_MAX, "",
              "measured dry friction coefficients are below 10"))
    return 1;
  if (!(r->stick_velocity >= 1e-9 && r->stick_velocity <= 1))
    return fail(c, "stick_velocity",
                "stick_velocity must be in [1e-9, 1] m/s (got %.10g): the slip speed below which "
                "a sticking contact without a friction spring (contour) creeps",
                r->stick_velocity);
  if (num(c, "min_period", "min_period", r->min_period, R_NONNEG, "sub-steps")) return 1;
  if (r->min_period > CM_MIN_PERIOD_MAX)
    return fail(c, "min_period",
                "min_period must be at most %g sub-steps (got %.10g): a contact ringing that "
                "slowly holds nothing up",
                CM_MIN_PERIOD_MAX, r->min_period);
  if (r->min_period > 0 && r->law != CM_LAW_AREA_COMPLIANT && r->law != CM_LAW_LINEAR)
    return fail(c, "min_period",
                "min_period applies to laws area_compliant and linear (got %.10g on a rule of law "
                "%s): a contact_time pair rings with its contact_time",
                r->min_period, r->law == CM_LAW_CONTACT_TIME ? "contact_time" : "none");
  if (enm(c, "method", (int)r->method, 5, "vertex, two_way, vertex_edge, contour, auto")) return 1;
  if (enm(c, "direction", (int)r->direction, 2, "auto, first")) return 1;
  return enm(c, "integration", (int)r->integration, 3, "default, implicit, explicit");
}

static int is_world(const char* s) {
  return !s || strcmp(s, "world") == 0;
}

static int check_joint(cmCheck* c, const cmJointDef* j, const cmBodyDef* body, int nbody,
                       const NameIndex* ix) {
  static const char* const field[2] = {"bodies[0]", "bodies[1]"};
  char nb[80];
  for (int k = 0; k < 2; k++) {
    const char* s = j->body[k];
    if (s && !*s) return fail(c, field[k], "%s must be a body name or world (got '')", field[k]);
    if (!is_world(s) && index_find(ix, body, nbody, s) < 0)
      return fail(c, field[k], "%s must name a body or world (no body is named '%s')", field[k],
                  cm_msg_str(nb, sizeof nb, s, strlen(s)));
  }
  int same = is_world(j->body[0]) ? is_world(j->body[1])
                                  : (!is_world(j->body[1]) && !strcmp(j->body[0], j->body[1]));
  if (same)
    return fail(c, "bodies", "bodies must be two different bodies (got '%s' twice)",
                is_world(j->body[0]) ? "world"
                                     : cm_msg_str(nb, sizeof nb, j->body[0], strlen(j->body[0])));
  return vec_max(c, "anchor", j->anchor, 3, CM_COORD_MAX, "m");
}

/* ---- scene ---- */

cmScene* cm_scene_new(const char* name) {
  ScenePriv* p = cm_calloc(1, sizeof *p);
  if (!p) return NULL;
  cmScene* s = &p->pub;
  s->name = cm_strdup(name ? name : "scene");
  s->dir = cm_strdup(".");
  s->opt = cm_options_default();
  if (!s->name || !s->dir) {
    cm_scene_free(s);
    return NULL;
  }
  return s;
}

static void free_body(cmBodyDef* b) {
  cm_free((void*)b->name);
  cm_free((void*)b->alias);
  cm_free((void*)b->geom.file);
  cm_free((void*)b->deformable.attach);
  if (b->geom.mesh) cm_mesh_free((cmMesh*)b->geom.mesh);
}

void cm_scene_free(cmScene* s) {
  if (!s) return;
  for (int i = 0; i < s->nbody; i++)
    free_body(&s->body[i]);
  for (int i = 0; i < s->nrule; i++) {
    cm_free((void*)s->rule[i].pair[0]);
    cm_free((void*)s->rule[i].pair[1]);
  }
  for (int i = 0; i < s->njoint; i++) {
    cm_free((void*)s->joint[i].body[0]);
    cm_free((void*)s->joint[i].body[1]);
  }
  cm_free(s->body);
  cm_free(s->rule);
  cm_free(s->joint);
  cm_free(s->name);
  cm_free(s->file);
  cm_free(s->dir);
  index_free(&priv(s)->names);
  cm_free(priv(s));
}

/* make room for one more element in an array of capacity *cap holding n; 0 or -1 */
static int grow(void** arr, int* cap, int n, size_t elem) {
  if (n < *cap) return 0;
  if (n > (1 << 29)) return -1;
  int ncap = *cap ? *cap * 2 : 8;
  if (ncap < n + 1) ncap = n + 1;
  void* a = cm_realloc(*arr, (size_t)ncap * elem);
  if (!a) return -1;
  *arr = a;
  *cap = ncap;
  return 0;
}

/* rebuild the name index when it does not cover exactly the scene's bodies */
static int refresh_index(ScenePriv* p) {
  cmScene* s = &p->pub;
  if (p->names.n == s->nbody) return 0;
  index_free(&p->names);
  for (int i = 0; i < s->nbody; i++)
    if (s->body[i].name && index_find(&p->names, s->body, i, s->body[i].name) < 0 &&
        index_insert(&p->names, s->body, i))
      return -1;
  p->names.n = s->nbody;
  return 0;
}

int cm_scene_add_body_checked(cmScene* s, const cmBodyDef* def, cmCheck* c) {
  CM_ASSERT(s && def && c);
  ScenePriv* p = priv(s);
  if (check_body(c, def)) return -1;
  if (refresh_index(p)) return nomem(c), -1;
  int other = index_find(&p->names, s->body, s->nbody, def->name);
  if (other >= 0) return dup_name(c, def->name, other), -1;
  if (grow((void**)&s->body, &p->cap_body, s->nbody, sizeof *s->body)) return nomem(c), -1;

  /* deep copy: strings, API mesh; orientation normalised */
  cmBodyDef b = *def;
  b.name = cm_strdup(def->name);
  b.alias = cm_strdup(def->alias);
  b.geom.file = cm_strdup(def->geom.file);
  b.deformable.attach = cm_strdup(def->deformable.attach);
  b.geom.mesh = def->geom.mesh ? cm_mesh_copy(def->geom.mesh) : NULL;
  if (!b.name || (def->alias && !b.alias) || (def->geom.file && !b.geom.file) ||
      (def->geom.mesh && !b.geom.mesh) || (def->deformable.attach && !b.deformable.attach)) {
    free_body(&b);
    return nomem(c), -1;
  }
  /* normalise without overflow or underflow of the squares */
  double qmax = 0;
  for (int k = 0; k < 4; k++)
    qmax = fmax(qmax, fabs(b.orientation[k]));
  for (int k = 0; k < 4; k++)
    b.orientation[k] /= qmax;
  cm_quat_normalize(b.orientation);
  int i = s->nbody;
  s->body[i] = b;
  if (index_insert(&p->names, s->body, i)) {
    free_body(&s->body[i]);
    return nomem(c), -1;
  }
  s->nbody++;
  return i;
}

int cm_scene_add_rule_checked(cmScene* s, const cmRuleDef* def, cmCheck* c) {
  CM_ASSERT(s && def && c);
  ScenePriv* p = priv(s);
  if (cm_check_rule(def, c)) return -1;
  if (grow((void**)&s->rule, &p->cap_rule, s->nrule, sizeof *s->rule)) return nomem(c), -1;
  cmRuleDef r = *def;
  r.pair[0] = cm_strdup(def->pair[0]);
  r.pair[1] = cm_strdup(def->pair[1]);
  if (!r.pair[0] || !r.pair[1]) {
    cm_free((void*)r.pair[0]);
    cm_free((void*)r.pair[1]);
    return nomem(c), -1;
  }
  s->rule[s->nrule] = r;
  return s->nrule++;
}

int cm_scene_add_joint_checked(cmScene* s, const cmJointDef* def, cmCheck* c) {
  CM_ASSERT(s && def && c);
  ScenePriv* p = priv(s);
  if (refresh_index(p)) return nomem(c), -1;
  if (check_joint(c, def, s->body, s->nbody, &p->names)) return -1;
  if (grow((void**)&s->joint, &p->cap_joint, s->njoint, sizeof *s->joint)) return nomem(c), -1;
  cmJointDef j = *def;
  j.body[0] = cm_strdup(def->body[0]);
  j.body[1] = cm_strdup(def->body[1]);
  if ((def->body[0] && !j.body[0]) || (def->body[1] && !j.body[1])) {
    cm_free((void*)j.body[0]);
    cm_free((void*)j.body[1]);
    return nomem(c), -1;
  }
  s->joint[s->njoint] = j;
  return s->njoint++;
}

/* "FILE:LINE:COL: " (or "FILE: " when the line is unknown) */
static void loc_prefix(char* buf, size_t n, const cmScene* s, cmSourceLoc loc) {
  char fb[200];
  const char* f = s->file ? cm_msg_str(fb, sizeof fb, s->file, strlen(s->file)) : "scene";
  if (loc.line > 0)
    snprintf(buf, n, "%s:%d:%d: ", f, loc.line, loc.col);
  else
    snprintf(buf, n, "%s: ", f);
}

/* write "PREFIX: what 'name': msg" for a failed check */
static cmStatus report(const cmScene* s, cmSourceLoc loc, const char* what, const cmCheck* c,
                       char* err, size_t errsz) {
  char pre[256];
  loc_prefix(pre, sizeof pre, s, loc);
  if (c->status == CM_ERR_NOMEM) return cm_error(err, errsz, CM_ERR_NOMEM, "%sout of memory", pre);
  return cm_error(err, errsz, c->status, "%s%s%s%s", pre, what, *what ? ": " : "", c->msg);
}

static void body_what(char* buf, size_t n, const cmBodyDef* b, int i) {
  char nb[80];
  if (b->name && *b->name)
    snprintf(buf, n, "body '%s'", cm_msg_str(nb, sizeof nb, b->name, strlen(b->name)));
  else
    snprintf(buf, n, "bodies[%d]", i);
}

static cmSourceLoc body_loc(const cmBodyDef* b, const cmCheck* c) {
  if (c->field && strncmp(c->field, "geometry", 8) == 0 && b->geom.loc.line > 0) return b->geom.loc;
  return b->loc;
}

int cm_scene_add_body(cmScene* s, const cmBodyDef* def, char* err, size_t errsz) {
  cmCheck c;
  int i = cm_scene_add_body_checked(s, def, &c);
  if (i < 0) {
    char what[128];
    body_what(what, sizeof what, def, s->nbody);
    report(s, body_loc(def, &c), what, &c, err, errsz);
  }
  return i;
}

int cm_scene_add_rule(cmScene* s, const cmRuleDef* def, char* err, size_t errsz) {
  cmCheck c;
  int i = cm_scene_add_rule_checked(s, def, &c);
  if (i < 0) {
    char what[64];
    snprintf(what, sizeof what, "interactions[%d]", s->nrule);
    report(s, def->loc, what, &c, err, errsz);
  }
  return i;
}

int cm_scene_add_joint(cmScene* s, const cmJointDef* def, char* err, size_t errsz) {
  cmCheck c;
  int i = cm_scene_add_joint_checked(s, def, &c);
  if (i < 0) {
    char what[64];
    snprintf(what, sizeof what, "joints[%d]", s->njoint);
    report(s, def->loc, what, &c, err, errsz);
  }
  return i;
}

cmStatus cm_scene_validate(const cmScene* s, char* err, size_t errsz) {
  CM_ASSERT(s);
  cmCheck c;
  cmSourceLoc none = {0, 0};
  char what[128];
  if (cm_check_options(&s->opt, &c)) return report(s, none, "", &c, err, errsz);

  /* bodies: values, then unique names through a fresh index */
  NameIndex ix = {NULL, 0, 0};
  cmStatus st = CM_OK;
  for (int i = 0; i < s->nbody && st == CM_OK; i++) {
    const cmBodyDef* b = &s->body[i];
    body_what(what, sizeof what, b, i);
    if (check_body(&c, b)) {
      st = report(s, body_loc(b, &c), what, &c, err, errsz);
      break;
    }
    int other = index_find(&ix, s->body, i, b->name);
    if (other >= 0) {
      dup_name(&c, b->name, other);
      st = report(s, b->loc, what, &c, err, errsz);
    } else if (index_insert(&ix, s->body, i)) {
      st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
    }
  }
  for (int i = 0; i < s->nrule && st == CM_OK; i++) {
    if (cm_check_rule(&s->rule[i], &c)) {
      snprintf(what, sizeof what, "interactions[%d]", i);
      st = report(s, s->rule[i].loc, what, &c, err, errsz);
    }
  }
  for (int i = 0; i < s->njoint && st == CM_OK; i++) {
    if (check_joint(&c, &s->joint[i], s->body, s->nbody, &ix)) {
      snprintf(what, sizeof what, "joints[%d]", i);
      st = report(s, s->joint[i].loc, what, &c, err, errsz);
    }
  }
  index_free(&ix);
  if (st == CM_OK && err && errsz) err[0] = 0;
  return st;
}
