/* The scene builder API and cm_scene_validate: defaults, deep copies, and the range checks
 * with their messages. The YAML parser is tested in test_scene_yaml.c. */
#include <string.h>

#include "comply/mesh.h"
#include "comply/model.h"
#include "comply/scene.h"
#include "core/internal.h"
#include "test.h"

static char err[1024];

static cmBodyDef sphere_body(const char* name) {
  cmBodyDef b = cm_body_def_default();
  b.name = name;
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.1;
  return b;
}

static void test_defaults(void) {
  cmOptions o = cm_options_default();
  CHECK(o.timestep == 1e-3);
  CHECK(o.duration == 1.0);
  CHECK(o.steps == 0);
  CHECK(o.gravity[0] == 0 && o.gravity[1] == 0 && o.gravity[2] == -9.81);
  CHECK(o.integrator == CM_INTEGRATOR_IMPLICIT);
  CHECK(o.substeps == CM_SUBSTEPS_AUTO && o.output_every == 1 && o.vtk == 0);

  cmBodyDef b = cm_body_def_default();
  CHECK(b.name == NULL && b.alias == NULL);
  CHECK(b.geom.type == CM_GEOM_NONE);
  CHECK(b.density == 1000 && b.mass == 0 && !b.has_com && !b.has_inertia);
  CHECK(b.orientation[0] == 1 && b.orientation[1] == 0 && b.orientation[2] == 0 &&
        b.orientation[3] == 0);
  CHECK(b.geom.refine == 3 && b.geom.divisions == 1 && b.geom.scale == 1);
  CHECK(b.geom.normal[0] == 0 && b.geom.normal[1] == 0 && b.geom.normal[2] == 1);
  CHECK(b.motion == CM_MOTION_DYNAMIC);

  cmRuleDef r = cm_rule_def_default();
  CHECK(!strcmp(r.pair[0], "*") && !strcmp(r.pair[1], "*"));
  CHECK(r.law == CM_LAW_CONTACT_TIME);
  CHECK(r.ka == 5e10 && r.step_damping == 1 && r.stiffness_damping == 0);
  CHECK(r.elastic_repulsion == 0.5 && r.play == 0 && r.contact_time == 0);
  CHECK(r.stiffness == 1e5 && r.damping == 0 && r.friction == 0);
  CHECK(r.method == CM_METHOD_AUTO && r.direction == CM_DIRECTION_AUTO &&
        r.integration == CM_INTEGRATION_DEFAULT);

  cmJointDef j = cm_joint_def_default();
  CHECK(j.body[0] == NULL && j.body[1] == NULL && j.anchor[2] == 0);

  cmScene* s = cm_scene_new(NULL);
  CHECK(s && !strcmp(s->name, "scene") && !strcmp(s->dir, ".") && s->file == NULL);
  CHECK(s->nbody == 0 && s->nrule == 0 && s->njoint == 0);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  s = cm_scene_new("demo");
  CHECK(s && !strcmp(s->name, "demo"));
  cm_scene_free(s);
  cm_scene_free(NULL);
}

/* the add functions copy strings: the caller's buffers may change afterwards */
static void test_add_copies(void) {
  cmScene* s = cm_scene_new("t");
  char name[16] = "ball", alias[16] = "balls", file[32] = "part.obj";
  cmBodyDef b = sphere_body(name);
  b.alias = alias;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmBodyDef m = cm_body_def_default();
  m.name = "part";
  m.geom.type = CM_GEOM_MESH;
  m.geom.file = file;
  CHECK(cm_scene_add_body(s, &m, err, sizeof err) == 1);
  strcpy(name, "XXXX");
  strcpy(alias, "YYYY");
  strcpy(file, "ZZZZ");
  CHECK(!strcmp(s->body[0].name, "ball"));
  CHECK(!strcmp(s->body[0].alias, "balls"));
  CHECK(!strcmp(s->body[1].geom.file, "part.obj"));
  CHECK(s->body[1].alias == NULL);

  char g0[8] = "ba*", g1[8] = "ground";
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = g0;
  r.pair[1] = g1;
  r.law = CM_LAW_AREA_COMPLIANT;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  strcpy(g0, "??");
  strcpy(g1, "??");
  CHECK(!strcmp(s->rule[0].pair[0], "ba*") && !strcmp(s->rule[0].pair[1], "ground"));
  CHECK(s->rule[0].law == CM_LAW_AREA_COMPLIANT);

  char jb[8] = "ball";
  cmJointDef j = cm_joint_def_default();
  j.body[0] = jb;
  j.body[1] = NULL; /* world */
  j.anchor[2] = 1;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);
  strcpy(jb, "part");
  CHECK(!strcmp(s->joint[0].body[0], "ball") && s->joint[0].body[1] == NULL);
  CHECK(s->joint[0].anchor[2] == 1);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  cm_scene_free(s);
}

/* an API mesh is deep-copied */
static void test_add_mesh_copy(void) {
  double size[3] = {1, 2, 3};
  cmMesh* mesh = cm_mesh_box(size, 2);
  CHECK(mesh != NULL);
  if (!mesh) return;
  cmScene* s = cm_scene_new("t");
  cmBodyDef b = cm_body_def_default();
  b.name = "m";
  b.geom.type = CM_GEOM_MESH;
  b.geom.mesh = mesh;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  CHECK(s->body[0].geom.mesh != NULL && s->body[0].geom.mesh != mesh);
  int nv = mesh->nvert, nf = mesh->nface;
  double v0 = mesh->vert[0];
  cm_mesh_free(mesh);
  CHECK(s->body[0].geom.mesh->nvert == nv && s->body[0].geom.mesh->nface == nf);
  CHECK(s->body[0].geom.mesh->vert[0] == v0);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  cm_scene_free(s);
}

static void test_duplicate_and_reserved_names(void) {
  cmScene* s = cm_scene_new("t");
  cmBodyDef b = sphere_body("ball");
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  b.loc.line = 12;
  b.loc.col = 5;
  err[0] = 0;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "scene:12:5: body 'ball': name 'ball' is already used by bodies[0]") != NULL);
  CHECK(s->nbody == 1);
  b.name = "world";
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "reserved") != NULL);
  b.name = "";
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "name must be a non-empty string") != NULL);
  b.name = NULL;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  /* many bodies: the name index grows and still finds every one */
  char nm[32];
  for (int i = 0; i < 300; i++) {
    snprintf(nm, sizeof nm, "b%d", i);
    b = sphere_body(nm);
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == i + 1);
  }
  b = sphere_body("b123");
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "bodies[124]") != NULL);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  /* a duplicate made by editing the scene directly is found by validate */
  cm_free((void*)s->body[5].name);
  s->body[5].name = cm_strdup("b200");
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "'b200' is already used") != NULL);
  cm_scene_free(s);
}

/* messages: FILE:LINE:COL when known, the body, the field, the expected value */
static void test_messages(void) {
  cmScene* s = cm_scene_new("t");
  cmBodyDef b = sphere_body("ball");
  b.mass = -1;
  b.loc.line = 7;
  b.loc.col = 3;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(!strcmp(err, "scene:7:3: body 'ball': mass must be >= 0 kg (got -1)"));
  s->file = cm_strdup("x.yaml");
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(!strcmp(err, "x.yaml:7:3: body 'ball': mass must be >= 0 kg (got -1)"));
  b.loc.line = 0;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(!strcmp(err, "x.yaml: body 'ball': mass must be >= 0 kg (got -1)"));
  /* geometry errors use the geometry's location */
  b = sphere_body("ball");
  b.loc.line = 7;
  b.geom.loc.line = 9;
  b.geom.loc.col = 15;
  b.geom.radius = 0;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "x.yaml:9:15: body 'ball': geometry.sphere.radius must be > 0 m (got 0)"));
  cm_scene_free(s);
}

/* every body range rule */
static void test_body_ranges(void) {
  cmScene* s = cm_scene_new("t");
  struct {
    const char* want;
    cmBodyDef b;
  } c[48];
  int n = 0;
#define CASE(WANT, STMT)                                                                           \
  do {                                                                                             \
    cmBodyDef b = sphere_body("x");                                                                \
    STMT;                                                                                          \
    c[n].want = WANT;                                                                              \
    c[n++].b = b;                                                                                  \
  } while (0)
  CASE("geometry is required", b.geom.type = CM_GEOM_NONE);
  CASE("radius must be > 0 m", b.geom.radius = -1);
  CASE("radius must be > 0 m", b.geom.radius = NAN);
  CASE("refine must be an integer in 0..8 (got 9)", b.geom.refine = 9);
  CASE("refine must be an integer in 0..8 (got -1)", b.geom.refine = -1);
  CASE("size[1] must be > 0 m",
       (b.geom.type = CM_GEOM_BOX, b.geom.size[0] = 1, b.geom.size[2] = 1));
  CASE("divisions must be an integer in 1..330 (got 0)",
       (b.geom.type = CM_GEOM_BOX, b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 1,
        b.geom.divisions = 0));
  CASE("divisions must be an integer in 1..330 (got 1025)",
       (b.geom.type = CM_GEOM_BOX, b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 1,
        b.geom.divisions = 1025));
  /* the limit where the cost is known: 12 d^2 triangles, at most those of the finest sphere */
  CASE("divisions must be an integer in 1..330 (got 331): a box of d divisions has 12 d^2 = "
       "1314732 triangles, more than the limit of 1310720 triangles of a primitive",
       (b.geom.type = CM_GEOM_BOX, b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 1,
        b.geom.divisions = 331));
  /* mass and density: the real cause, not a singular inertia tensor later */
  CASE("mass must be in 1e-30..1e+30 kg, or 0 for density x volume (got 1e+300)", b.mass = 1e300);
  CASE("mass must be in 1e-30..1e+30 kg, or 0 for density x volume (got 1e-31)", b.mass = 1e-31);
  CASE("density must be in 1e-30..1e+30 kg/m^3 (got 1e+31)", b.density = 1e31);
  CASE("density must be in 1e-30..1e+30 kg/m^3 (got 1e-300)", b.density = 1e-300);
  CASE("geometry.mesh.file must be a non-empty", b.geom.type = CM_GEOM_MESH);
  CASE("geometry.mesh.file must be a non-empty", (b.geom.type = CM_GEOM_MESH, b.geom.file = ""));
  CASE("geometry.mesh.scale must be > 0",
       (b.geom.type = CM_GEOM_MESH, b.geom.file = "a.obj", b.geom.scale = 0));
  CASE("must have motion fixed (got motion dynamic)", b.geom.type = CM_GEOM_PLANE);
  CASE("normal must be non-zero",
       (b.geom.type = CM_GEOM_PLANE, b.motion = CM_MOTION_FIXED, b.geom.normal[2] = 0));
  CASE("normal[0] must be a finite number",
       (b.geom.type = CM_GEOM_PLANE, b.motion = CM_MOTION_FIXED, b.geom.normal[0] = INFINITY));
  CASE("position[2] must be at most 1e+50 m in magnitude (got 1e+300)", b.position[2] = 1e300);
  CASE("com[0] must be at most 1e+50 m in magnitude (got -1e+51)",
       (b.has_com = 1, b.com[0] = -1e51));
  CASE("velocity must be zero on a body of motion fixed, which never moves (got [0, 1, 0])",
       (b.motion = CM_MOTION_FIXED, b.velocity[1] = 1));
  CASE("angular_velocity must be zero on a body of motion fixed",
       (b.motion = CM_MOTION_FIXED, b.angular_velocity[2] = 3));
  CASE("force must be zero on a body of motion fixed",
       (b.motion = CM_MOTION_FIXED, b.force[0] = 1));
  CASE("moment must be zero on a body of motion fixed",
       (b.motion = CM_MOTION_FIXED, b.moment[0] = 1));
  CASE("force must be zero on a body of motion prescribed, which moves at its given velocity",
       (b.motion = CM_MOTION_PRESCRIBED, b.force[2] = -9.81));
  CASE("moment must be zero on a body of motion prescribed",
       (b.motion = CM_MOTION_PRESCRIBED, b.moment[1] = 2));
  CASE("inertia entries must be at most 1e+90 kg m^2 in magnitude (got 1e+300)",
       (b.has_inertia = 1, b.inertia[0] = b.inertia[4] = b.inertia[8] = 1e300));
  CASE("density must be > 0 kg/m^3 (got 0)", b.density = 0);
  CASE("mass must be >= 0 kg (got -2)", b.mass = -2);
  CASE("mass must be >= 0 kg (got inf)", b.mass = INFINITY);
  CASE("com[2] must be a finite number", (b.has_com = 1, b.com[2] = NAN));
  CASE("position[0] must be a finite number", b.position[0] = NAN);
  CASE("orientation must be a non-zero quaternion", b.orientation[0] = 0);
  CASE("orientation[3] must be a finite number", b.orientation[3] = INFINITY);
  CASE("velocity[1] must be a finite number", b.velocity[1] = NAN);
  CASE("angular_velocity[2] must be a finite number", b.angular_velocity[2] = -INFINITY);
  CASE("force[0] must be a finite number", b.force[0] = NAN);
  CASE("moment[1] must be a finite number", b.moment[1] = NAN);
  CASE("motion must be one of dynamic, fixed, prescribed, ignored", b.motion = (cmMotion)9);
  CASE("alias must be a non-empty string", b.alias = "");
  /* inertia: symmetric, positive definite, triangle inequality */
  CASE("inertia must be symmetric",
       (b.has_inertia = 1, b.inertia[0] = b.inertia[4] = b.inertia[8] = 1, b.inertia[1] = 0.1));
  CASE("inertia must be positive definite",
       (b.has_inertia = 1, b.inertia[0] = b.inertia[4] = 1, b.inertia[8] = -1));
  CASE("inertia must be positive definite",
       (b.has_inertia = 1, b.inertia[0] = b.inertia[4] = b.inertia[8] = 1, b.inertia[1] = 2,
        b.inertia[3] = 2));
  CASE("triangle inequality",
       (b.has_inertia = 1, b.inertia[0] = b.inertia[4] = 1, b.inertia[8] = 3));
  CASE("inertia[4] must be a finite number", (b.has_inertia = 1, b.inertia[4] = NAN));
#undef CASE
  for (int i = 0; i < n; i++) {
    err[0] = 0;
    int r = cm_scene_add_body(s, &c[i].b, err, sizeof err);
    CHECK(r == -1);
    if (!strstr(err, c[i].want)) {
      fprintf(stderr, "case %d: '%s' not in '%s'\n", i, c[i].want, err);
      CHECK(0);
    }
  }
  CHECK(s->nbody == 0);

  /* valid edge cases: a flat plate (I3 = I1 + I2), a rotated tensor, mass 0, a fixed plane */
  cmBodyDef b = sphere_body("plate");
  b.has_inertia = 1;
  b.inertia[0] = 1, b.inertia[4] = 2, b.inertia[8] = 3;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  b = sphere_body("rotated"); /* diag(1, 2, 2.5) rotated 45 degrees about z */
  b.has_inertia = 1;
  b.inertia[0] = b.inertia[4] = 1.5, b.inertia[1] = b.inertia[3] = 0.5, b.inertia[8] = 2.5;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 1);
  b = sphere_body("rod"); /* diag(0.5, 1, 2) rotated about z: 0.5 + 1 < 2 */
  b.has_inertia = 1;
  b.inertia[0] = b.inertia[4] = 0.75, b.inertia[1] = b.inertia[3] = 0.25, b.inertia[8] = 2;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == -1);
  CHECK(strstr(err, "triangle") != NULL);
  b = cm_body_def_default();
  b.name = "ground";
  b.geom.type = CM_GEOM_PLANE;
  b.motion = CM_MOTION_FIXED;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 2);
  /* orientation is normalised when added */
  b = sphere_body("q");
  b.orientation[0] = 2;
  b.orientation[3] = 2;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 3);
  CHECK_NEAR(s->body[3].orientation[0], sqrt(0.5), 1e-15);
  CHECK_NEAR(s->body[3].orientation[3], sqrt(0.5), 1e-15);
  /* tiny and huge quaternions normalise too */
  b = sphere_body("tiny");
  b.orientation[0] = 1e-200;
  b.orientation[2] = -1e-200;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 4);
  CHECK_NEAR(s->body[4].orientation[0], sqrt(0.5), 1e-15);
  CHECK_NEAR(s->body[4].orientation[2], -sqrt(0.5), 1e-15);
  b = sphere_body("huge");
  b.orientation[0] = 1e300;
  b.orientation[1] = 1e300;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 5);
  CHECK_NEAR(s->body[5].orientation[1], sqrt(0.5), 1e-15);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  cm_scene_free(s);
}

static void test_rule_ranges(void) {
  cmScene* s = cm_scene_new("t");
  struct {
    const char* want;
    cmRuleDef r;
  } c[40];
  int n = 0;
#define CASE(WANT, STMT)                                                                           \
  do {                                                                                             \
    cmRuleDef r = cm_rule_def_default();                                                           \
    STMT;                                                                                          \
    c[n].want = WANT;                                                                              \
    c[n++].r = r;                                                                                  \
  } while (0)
  CASE("pair must be two non-empty alias globs", r.pair[0] = "");
  CASE("pair must be two non-empty alias globs", r.pair[1] = NULL);
  CASE("ka must be > 0 N/m^3 (got -1)", r.ka = -1);
  CASE("ka must be > 0 N/m^3 (got 0)", r.ka = 0);
  CASE("step_damping must be >= 0 (got -0.5)", r.step_damping = -0.5);
  CASE("stiffness_damping must be >= 0 s", r.stiffness_damping = -1e-3);
  CASE("elastic_repulsion (e_r) must be in (0, 1] (got 0)", r.elastic_repulsion = 0);
  CASE("elastic_repulsion (e_r) must be in (0, 1] (got 1.5)", r.elastic_repulsion = 1.5);
  CASE("play must be >= 0 m", r.play = -0.001);
  CASE("contact_time T must be > 0 s", r.contact_time = -0.01);
  CASE("contact_time T must be > 0 s", r.contact_time = NAN);
  CASE("stiffness must be > 0 N/m", r.stiffness = 0);
  CASE("damping must be >= 0 N s/m", r.damping = -1);
  CASE("friction (mu) must be >= 0 (got -0.1)", r.friction = -0.1);
  CASE("friction must be at most 1e+06 (got 2000000)", r.friction = 2e6);
  CASE("contact_time T must be at most 1e+06 s (got 1e+300)", r.contact_time = 1e300);
  CASE("step_damping must be at most 1e+06 (got 1e+300)", r.step_damping = 1e300);
  CASE("stiffness_damping must be at most 1e+06 s (got 2000000)", r.stiffness_damping = 2e6);
  CASE("play must be at most 1e+50 m (got 1e+51)", r.play = 1e51);
  CASE("damping must be at most 1e+20 N s/m (got 1e+21)", r.damping = 1e21);
  CASE("min_period must be >= 0 sub-steps (got -1)",
       (r.law = CM_LAW_AREA_COMPLIANT, r.min_period = -1));
  CASE("min_period must be >= 0 sub-steps (got nan)", (r.law = CM_LAW_LINEAR, r.min_period = NAN));
  CASE("min_period must be at most 1e+06 sub-steps",
       (r.law = CM_LAW_AREA_COMPLIANT, r.min_period = 2e6));
  CASE("min_period applies to laws area_compliant and linear (got 4 on a rule of law contact_time)",
       r.min_period = 4);
  CASE("law must be one of", r.law = (cmLawType)7);
  CASE("method must be one of", r.method = (cmMethod)-1);
  CASE("direction must be one of", r.direction = (cmDirection)2);
  CASE("integration must be one of", r.integration = (cmIntegration)3);
#undef CASE
  for (int i = 0; i < n; i++) {
    err[0] = 0;
    CHECK(cm_scene_add_rule(s, &c[i].r, err, sizeof err) == -1);
    if (!strstr(err, c[i].want) || !strstr(err, "scene: interactions[0]: ")) {
      fprintf(stderr, "case %d: '%s' not in '%s'\n", i, c[i].want, err);
      CHECK(0);
    }
  }
  CHECK(s->nrule == 0);
  cmRuleDef r = cm_rule_def_default();
  r.elastic_repulsion = 1; /* the closed end of (0, 1] */
  r.contact_time = 0.01;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cm_scene_free(s);
}

static void test_joints_and_options(void) {
  cmScene* s = cm_scene_new("t");
  cmBodyDef b = sphere_body("arm");
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "arm";
  j.body[1] = "nope";
  j.loc.line = 30;
  j.loc.col = 5;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == -1);
  CHECK(strstr(err, "scene:30:5: joints[0]: bodies[1] must name a body or world") != NULL);
  CHECK(strstr(err, "'nope'") != NULL);
  j.body[1] = "arm";
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == -1);
  CHECK(strstr(err, "two different bodies") != NULL);
  j.body[0] = "world";
  j.body[1] = NULL;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == -1);
  j.body[1] = "arm";
  j.anchor[1] = NAN;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == -1);
  CHECK(strstr(err, "anchor[1] must be a finite number") != NULL);
  j.anchor[1] = 0;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) == 0);

  /* options are checked by validate */
  struct {
    const char* want;
    cmOptions o;
  } c[16];
  int n = 0;
#define CASE(WANT, STMT)                                                                           \
  do {                                                                                             \
    cmOptions o = cm_options_default();                                                            \
    STMT;                                                                                          \
    c[n].want = WANT;                                                                              \
    c[n++].o = o;                                                                                  \
  } while (0)
  CASE("scene.timestep must be > 0 s (got 0)", o.timestep = 0);
  CASE("scene.timestep must be > 0 s (got nan)", o.timestep = NAN);
  CASE("scene.duration must be >= 0 s (got -1)", o.duration = -1);
  CASE("scene.steps must be an integer >= 0 (got -5)", o.steps = -5);
  CASE("scene.gravity[2] must be a finite number", o.gravity[2] = INFINITY);
  CASE("scene.substeps must be auto or an integer from 1 to 10000 (got -1)", o.substeps = -1);
  CASE("scene.substeps must be auto or an integer from 1 to 10000 (got 10001)",
       o.substeps = CM_SUBSTEPS_MAX + 1);
  CASE("scene.gravity[0] must be at most 1e+10 m/s^2 in magnitude (got -2e+10)",
       o.gravity[0] = -2e10);
  CASE("scene.duration (0.0004 s) is shorter than half a step (scene.timestep 0.001 s), so no "
       "step would run",
       (o.timestep = 1e-3, o.duration = 4e-4));
  CASE("scene.duration / scene.timestep = 1e+16 steps, more than the limit of 1e+15",
       (o.timestep = 1e-16, o.duration = 1));
  CASE("output.every must be an integer >= 1 (got 0)", o.output_every = 0);
  CASE("scene.integrator must be one of implicit, explicit", o.integrator = (cmIntegrator)5);
  CASE("scene.solver_tolerance must be auto or a relative residual from 1e-12 to 0.0001 (got "
       "1e-20)",
       o.solver_tolerance = 1e-20);
  CASE("scene.solver_tolerance must be auto or a relative residual from 1e-12 to 0.0001 (got "
       "nan)",
       o.solver_tolerance = NAN);
#undef CASE
  for (int i = 0; i < n; i++) {
    s->opt = c[i].o;
    CHECK(cm_scene_validate(s, err, sizeof err) == CM_ERR_ARG);
    if (!strstr(err, c[i].want)) {
      fprintf(stderr, "case %d: '%s' not in '%s'\n", i, c[i].want, err);
      CHECK(0);
    }
  }
  s->opt = cm_options_default();
  s->opt.duration = 0; /* a zero-length run is allowed */
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
  /* validate sees values changed after adding */
  s->body[0].mass = -3;
  s->body[0].loc.line = 4;
  s->body[0].loc.col = 5;
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_ERR_ARG);
  CHECK(!strcmp(err, "scene:4:5: body 'arm': mass must be >= 0 kg (got -3)"));
  s->body[0].mass = 0;
  cm_free((void*)s->joint[0].body[1]);
  s->joint[0].body[1] = NULL; /* world to world: not allowed */
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "joints[0]: bodies must be two different bodies") != NULL);
  cm_scene_free(s);
}

/* a plane's normal is any non-zero finite vector: one beyond 1e154 (its square overflows) or
 * below 1e-154 (underflows) is the same plane as the unit vector; it disabled the plane (a zero
 * normal) or was called zero before */
static void test_plane_normal_scale(void) {
  static const double scale[] = {1, 1e160, 1e-300, 4e-320};
  for (int i = 0; i < 4; i++) {
    cmScene* s = cm_scene_new("t");
    cmBodyDef b = cm_body_def_default();
    b.name = "ground";
    b.geom.type = CM_GEOM_PLANE;
    b.motion = CM_MOTION_FIXED;
    b.geom.normal[0] = 0;
    b.geom.normal[1] = -3 * scale[i];
    b.geom.normal[2] = 4 * scale[i];
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
    b = sphere_body("ball");
    b.position[2] = 1;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 1);
    cmModel* m = NULL;
    CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
    if (m) {
      const double* pl = m->geom_plane + 4 * m->body_geom[0];
      CHECK_NEAR(pl[0], 0, 0);
      CHECK_NEAR(pl[1], -0.6, 1e-15);
      CHECK_NEAR(pl[2], 0.8, 1e-15);
    }
    cm_model_free(m);
    cm_scene_free(s);
  }
}

int main(void) {
  RUN(test_defaults);
  RUN(test_add_copies);
  RUN(test_add_mesh_copy);
  RUN(test_duplicate_and_reserved_names);
  RUN(test_messages);
  RUN(test_body_ranges);
  RUN(test_rule_ranges);
  RUN(test_joints_and_options);
  RUN(test_plane_normal_scale);
  return test_report();
}
