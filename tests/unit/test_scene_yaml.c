/* The YAML scene parser: every key lands in the right field, defaults, euler_deg, steps, source
 * locations, every error kind with its status, line and field, the example scenes, and
 * robustness on truncated and hostile inputs. */
#include <string.h>

#include "comply/model.h"
#include "comply/scene.h"
#include "core/cm_math.h"
#include "test.h"

static char err[2048];

static cmStatus parse(const char* text, cmScene** s) {
  return cm_scene_parse(text, strlen(text), "t.yaml", s, err, sizeof err);
}

/* 1-based line of the n-th (1-based) occurrence of needle, -1 if absent */
static int line_of_nth(const char* text, const char* needle, int n) {
  const char* p = text;
  for (int k = 0; k < n; k++) {
    p = strstr(k ? p + 1 : p, needle);
    if (!p) return -1;
  }
  int line = 1;
  for (const char* q = text; q < p; q++)
    line += *q == '\n';
  return line;
}
static int line_of(const char* text, const char* needle) {
  return line_of_nth(text, needle, 1);
}

/* the parse fails with status st, the message starts with t.yaml:LINE: and contains w1 and w2 */
static void expect_err(int at, const char* text, cmStatus st, int line, const char* w1,
                       const char* w2) {
  cmScene* s = (cmScene*)1;
  err[0] = 0;
  cmStatus r = parse(text, &s);
  char want[64];
  snprintf(want, sizeof want, "t.yaml:%d:", line);
  int ok = r == st && s == NULL && strncmp(err, want, strlen(want)) == 0 &&
           (!w1 || strstr(err, w1)) && (!w2 || strstr(err, w2));
  CHECK(ok);
  if (!ok)
    fprintf(stderr,
            "  (test line %d) status %d (want %d), message: %s\n  want '%s' + '%s' + '%s'\n", at, r,
            st, err, want, w1 ? w1 : "", w2 ? w2 : "");
}
#define EXPECT_ERR(text, st, line, w1, w2) expect_err(__LINE__, text, st, line, w1, w2)

#define BALL "bodies:\n  - name: a\n    geometry: {sphere: {radius: 1}}\n"

/* ---- successful parses ---- */

static void test_almost_empty(void) {
  const char* texts[] = {"scene: {}\n", "bodies: []\n", "bodies:\n", "scene:\noutput:\n"};
  for (int i = 0; i < 4; i++) {
    cmScene* s = NULL;
    CHECK(parse(texts[i], &s) == CM_OK);
    if (!s) continue;
    CHECK(err[0] == 0);
    CHECK(!strcmp(s->name, "t") && !strcmp(s->file, "t.yaml") && !strcmp(s->dir, "."));
    CHECK(s->nbody == 0 && s->nrule == 0 && s->njoint == 0);
    cmOptions d = cm_options_default();
    CHECK(memcmp(&s->opt, &d, sizeof d) == 0);
    cm_scene_free(s);
  }
  /* name and folder from the path */
  cmScene* s = NULL;
  CHECK(cm_scene_parse("scene: {}", 9, "some/dir/my.scene.yaml", &s, err, sizeof err) == CM_OK);
  CHECK(s && !strcmp(s->name, "my.scene") && !strcmp(s->dir, "some/dir"));
  cm_scene_free(s);
  CHECK(cm_scene_parse("scene: {}", 9, "/abs", &s, err, sizeof err) == CM_OK);
  CHECK(s && !strcmp(s->name, "abs") && !strcmp(s->dir, "/"));
  cm_scene_free(s);
  CHECK(cm_scene_parse("scene: {}", 9, NULL, &s, err, sizeof err) == CM_OK);
  CHECK(s && !strcmp(s->name, "scene") && !strcmp(s->dir, ".") && s->file == NULL);
  cm_scene_free(s);
  /* a body with only the required keys gets every default */
  CHECK(parse(BALL, &s) == CM_OK);
  if (s) {
    cmBodyDef d = cm_body_def_default();
    const cmBodyDef* b = &s->body[0];
    CHECK(s->nbody == 1 && !strcmp(b->name, "a") && b->alias == NULL);
    CHECK(b->geom.type == CM_GEOM_SPHERE && b->geom.radius == 1 && b->geom.refine == 3);
    CHECK(b->density == d.density && b->mass == 0 && !b->has_com && !b->has_inertia);
    CHECK(b->orientation[0] == 1 && b->motion == CM_MOTION_DYNAMIC);
    CHECK(b->position[2] == 0 && b->velocity[0] == 0 && b->force[2] == 0);
  }
  cm_scene_free(s);
}

static const char* full = "scene:\n"
                          "  name: full\n"
                          "  timestep: 2.0e-4\n"
                          "  steps: 500\n"
                          "  gravity: [0, -1, -9.8]\n"
                          "  integrator: explicit\n"
                          "  substeps: 4\n"
                          "output:\n"
                          "  every: 10\n"
                          "  vtk: true\n"
                          "bodies:\n"
                          "  - name: ground\n"
                          "    alias: floor\n"
                          "    geometry: {plane: {normal: [0, 0, 2], offset: 0.5}}\n"
                          "    motion: fixed\n"
                          "  - name: ball\n"
                          "    geometry: {sphere: {radius: 0.05, refine: 2}}\n"
                          "    density: 7800\n"
                          "    position: [0, 0, 0.5]\n"
                          "    orientation: [0, 1, 0, 0]\n"
                          "    velocity: [1, 2, 3]\n"
                          "    angular_velocity: [4, 5, 6]\n"
                          "    force: [0.1, 0.2, 0.3]\n"
                          "    moment: [0.4, 0.5, 0.6]\n"
                          "    motion: dynamic\n"
                          "  - name: brick\n"
                          "    alias: bricks\n"
                          "    geometry:\n"
                          "      box:\n"
                          "        size: [0.1, 0.2, 0.3]\n"
                          "        divisions: 4\n"
                          "    mass: 2.5\n"
                          "    com: [0.01, 0.02, 0.03]\n"
                          "    inertia: [[1, 0, 0], [0, 2, 0], [0, 0, 2.5]]\n"
                          "    euler_deg: [0, 0, 90]\n"
                          "    motion: prescribed\n"
                          "  - name: part\n"
                          "    geometry: {mesh: {file: meshes/part.obj, scale: 0.001}}\n"
                          "    mass: 1\n"
                          "    inertia: [1, 1.5, 2]\n"
                          "    motion: ignored\n"
                          "  - name: cube\n"
                          "    geometry: {box: {size: 0.2}}\n"
                          "    mass: 3\n"
                          "    inertia: [2, 0.1, 0, 0.1, 2, 0, 0, 0, 3]\n"
                          "interactions:\n"
                          "  - pair: [\"*\", \"*\"]\n"
                          "    law: contact_time\n"
                          "    elastic_repulsion: 0.8\n"
                          "    play: 0.001\n"
                          "    contact_time: 0.01\n"
                          "    mass: effective\n"
                          "    friction: 0.3\n"
                          "    integration: implicit\n"
                          "  - pair: [bricks, floor]\n"
                          "    law: area_compliant\n"
                          "    ka: 1.0e9\n"
                          "    step_damping: 0.5\n"
                          "    stiffness_damping: 0.002\n"
                          "    method: two_way\n"
                          "    direction: first\n"
                          "  - pair: [\"b?ll\", part]\n"
                          "    law: linear\n"
                          "    stiffness: 2e4\n"
                          "    damping: 3\n"
                          "    method: vertex_edge\n"
                          "    integration: explicit\n"
                          "  - pair: [cube, \"*\"]\n"
                          "    law: none\n"
                          "  - pair: [a, b]\n"
                          "    method: contour\n"
                          "joints:\n"
                          "  - bodies: [ball, world]\n"
                          "    anchor: [0, 0, 1]\n"
                          "  - {bodies: [brick, cube], anchor: [0.5, 0.5, 0.5]}\n";

static void test_full_scene(void) {
  cmScene* s = NULL;
  CHECK(parse(full, &s) == CM_OK);
  if (!s) {
    fprintf(stderr, "  %s\n", err);
    return;
  }
  /* options */
  CHECK(!strcmp(s->name, "full"));
  CHECK(s->opt.timestep == 2e-4 && s->opt.steps == 500 && s->opt.duration == 1.0);
  CHECK(s->opt.gravity[0] == 0 && s->opt.gravity[1] == -1 && s->opt.gravity[2] == -9.8);
  CHECK(s->opt.integrator == CM_INTEGRATOR_EXPLICIT && s->opt.substeps == 4);
  CHECK(s->opt.output_every == 10 && s->opt.vtk == 1);
  CHECK(s->nbody == 5 && s->nrule == 5 && s->njoint == 2);
  if (s->nbody != 5 || s->nrule != 5 || s->njoint != 2) goto out;

  /* ground: plane */
  const cmBodyDef* b = &s->body[0];
  CHECK(!strcmp(b->name, "ground") && !strcmp(b->alias, "floor"));
  CHECK(b->geom.type == CM_GEOM_PLANE && b->geom.normal[2] == 2 && b->geom.offset == 0.5);
  CHECK(b->motion == CM_MOTION_FIXED);
  CHECK(b->loc.line == line_of(full, "- name: ground") && b->loc.col == 5);
  CHECK(b->geom.loc.line == line_of(full, "{plane") && b->geom.loc.col == 15);

  /* ball: sphere, every state vector */
  b = &s->body[1];
  CHECK(b->geom.type == CM_GEOM_SPHERE && b->geom.radius == 0.05 && b->geom.refine == 2);
  CHECK(b->density == 7800 && b->mass == 0);
  CHECK(b->position[0] == 0 && b->position[1] == 0 && b->position[2] == 0.5);
  CHECK(b->orientation[0] == 0 && b->orientation[1] == 1 && b->orientation[2] == 0 &&
        b->orientation[3] == 0);
  CHECK(b->velocity[0] == 1 && b->velocity[1] == 2 && b->velocity[2] == 3);
  CHECK(b->angular_velocity[0] == 4 && b->angular_velocity[1] == 5 && b->angular_velocity[2] == 6);
  CHECK(b->force[0] == 0.1 && b->force[1] == 0.2 && b->force[2] == 0.3);
  CHECK(b->moment[0] == 0.4 && b->moment[1] == 0.5 && b->moment[2] == 0.6);
  CHECK(b->motion == CM_MOTION_DYNAMIC && b->alias == NULL);
  CHECK(b->loc.line == line_of(full, "- name: ball"));

  /* brick: box, mass, com, 3x3 inertia, euler */
  b = &s->body[2];
  CHECK(!strcmp(b->alias, "bricks") && b->geom.type == CM_GEOM_BOX);
  CHECK(b->geom.size[0] == 0.1 && b->geom.size[1] == 0.2 && b->geom.size[2] == 0.3);
  CHECK(b->geom.divisions == 4 && b->mass == 2.5 && b->has_com);
  CHECK(b->com[0] == 0.01 && b->com[1] == 0.02 && b->com[2] == 0.03);
  CHECK(b->has_inertia && b->inertia[0] == 1 && b->inertia[4] == 2 && b->inertia[8] == 2.5);
  CHECK(b->inertia[1] == 0 && b->inertia[5] == 0);
  CHECK_NEAR(b->orientation[0], cos(CM_PI / 4), 1e-15);
  CHECK_NEAR(b->orientation[3], sin(CM_PI / 4), 1e-15);
  CHECK(b->motion == CM_MOTION_PRESCRIBED);
  CHECK(b->geom.loc.line == line_of(full, "      box:"));

  /* part: mesh, diagonal inertia */
  b = &s->body[3];
  CHECK(b->geom.type == CM_GEOM_MESH && !strcmp(b->geom.file, "meshes/part.obj"));
  CHECK(b->geom.scale == 0.001 && b->motion == CM_MOTION_IGNORED);
  CHECK(b->inertia[0] == 1 && b->inertia[4] == 1.5 && b->inertia[8] == 2 && b->inertia[1] == 0);

  /* cube: a single number is a cube, flat inertia */
  b = &s->body[4];
  CHECK(b->geom.size[0] == 0.2 && b->geom.size[1] == 0.2 && b->geom.size[2] == 0.2);
  CHECK(b->geom.divisions == 1);
  CHECK(b->inertia[1] == 0.1 && b->inertia[3] == 0.1 && b->inertia[8] == 3);

  /* rules */
  const cmRuleDef* r = &s->rule[0];
  CHECK(!strcmp(r->pair[0], "*") && !strcmp(r->pair[1], "*") && r->law == CM_LAW_CONTACT_TIME);
  CHECK(r->elastic_repulsion == 0.8 && r->play == 0.001 && r->contact_time == 0.01);
  CHECK(r->friction == 0.3 && r->integration == CM_INTEGRATION_IMPLICIT);
  CHECK(r->mass == CM_REP_MASS_EFFECTIVE && s->rule[1].mass == CM_REP_MASS_MIN);
  CHECK(r->loc.line == line_of(full, "- pair: [\"*\", \"*\"]") && r->loc.col == 5);
  r = &s->rule[1];
  CHECK(!strcmp(r->pair[0], "bricks") && !strcmp(r->pair[1], "floor"));
  CHECK(r->law == CM_LAW_AREA_COMPLIANT && r->ka == 1e9 && r->step_damping == 0.5);
  CHECK(r->stiffness_damping == 0.002 && r->method == CM_METHOD_TWO_WAY);
  CHECK(r->direction == CM_DIRECTION_FIRST && r->elastic_repulsion == 0.5);
  r = &s->rule[2];
  CHECK(!strcmp(r->pair[0], "b?ll") && r->law == CM_LAW_LINEAR && r->stiffness == 2e4);
  CHECK(r->damping == 3 && r->method == CM_METHOD_VERTEX_EDGE);
  CHECK(r->integration == CM_INTEGRATION_EXPLICIT);
  CHECK(s->rule[3].law == CM_LAW_NONE);
  CHECK(s->rule[4].law == CM_LAW_CONTACT_TIME && s->rule[4].method == CM_METHOD_CONTOUR);

  /* joints */
  const cmJointDef* j = &s->joint[0];
  CHECK(!strcmp(j->body[0], "ball") && !strcmp(j->body[1], "world") && j->anchor[2] == 1);
  CHECK(j->loc.line == line_of(full, "- bodies: [ball"));
  j = &s->joint[1];
  CHECK(!strcmp(j->body[0], "brick") && !strcmp(j->body[1], "cube") && j->anchor[0] == 0.5);
  CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
out:
  cm_scene_free(s);
}

static void test_euler_and_steps(void) {
  struct {
    const char* key;
    double q[4];
  } c[] = {{"euler_deg: [0, 0, 90]", {cos(CM_PI / 4), 0, 0, sin(CM_PI / 4)}},
           {"euler_deg: [90, 0, 0]", {cos(CM_PI / 4), sin(CM_PI / 4), 0, 0}},
           {"euler_deg: [0, -90, 0]", {cos(CM_PI / 4), 0, -sin(CM_PI / 4), 0}},
           /* extrinsic x then z: 120 degrees about (1, 1, 1) */
           {"euler_deg: [90, 0, 90]", {0.5, 0.5, 0.5, 0.5}},
           {"orientation: [0.5, 0.5, 0.5, 0.5]", {0.5, 0.5, 0.5, 0.5}},
           /* a rounded quaternion is accepted and normalised */
           {"orientation: [0.7071, 0, 0, 0.7071]", {sqrt(0.5), 0, 0, sqrt(0.5)}}};
  for (int i = 0; i < (int)(sizeof c / sizeof c[0]); i++) {
    char text[256];
    snprintf(text, sizeof text, BALL "    %s\n", c[i].key);
    cmScene* s = NULL;
    CHECK(parse(text, &s) == CM_OK);
    if (!s) continue;
    for (int k = 0; k < 4; k++)
      CHECK_NEAR(s->body[0].orientation[k], c[i].q[k], 1e-15);
    cm_scene_free(s);
  }

  cmScene* s = NULL;
  CHECK(parse("scene: {steps: 250}", &s) == CM_OK);
  CHECK(s && s->opt.steps == 250 && s->opt.duration == 1.0);
  cm_scene_free(s);
  CHECK(parse("scene: {steps: 1e3}", &s) == CM_OK); /* integral in exponent form */
  CHECK(s && s->opt.steps == 1000);
  cm_scene_free(s);
  CHECK(parse("scene: {duration: 2.5, timestep: 0.01}", &s) == CM_OK);
  CHECK(s && s->opt.steps == 0 && s->opt.duration == 2.5 && s->opt.timestep == 0.01);
  cm_scene_free(s);
  CHECK(parse("output: {vtk: no, every: 3}", &s) == CM_OK);
  CHECK(s && s->opt.vtk == 0 && s->opt.output_every == 3);
  cm_scene_free(s);
}

/* ---- errors: status, line, field ---- */

static void test_missing_and_types(void) {
  const char* t;
  t = "bodies:\n  - name: a\n    mass: 1\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "bodies[0]: missing required key 'geometry'", NULL);
  t = "bodies:\n  - geometry: {sphere: {radius: 1}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "bodies[0]: missing required key 'name'", NULL);
  t = "interactions:\n  - law: linear\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "interactions[0]: missing required key 'pair'", NULL);
  t = "bodies:\n  - name: a\n    geometry: {sphere: {refine: 2}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "geometry.sphere: missing required key 'radius'", NULL);
  t = BALL "joints:\n  - bodies: [a, world]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 5, "joints[0]: missing required key 'anchor'", NULL);

  t = BALL "    mass: {value: 3}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].mass: expected a number (kg), got a mapping", NULL);
  t = BALL "    mass: abc\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].mass: expected a number (kg), got the string 'abc'",
             NULL);
  t = BALL "    mass:\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].mass", "got nothing");
  t = BALL "    position: [1, 2]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].position: expected a list of 3 numbers (m)",
             "got a list of 2");
  t = BALL "    position:\n      - 1\n      - x\n      - 3\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 6, "bodies[0].position[1]: expected a number (m)", "'x'");
  t = "bodies:\n  - name: [a]\n    geometry: {sphere: {radius: 1}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "bodies[0].name: expected a string, got a list of 1", NULL);
  t = "scene:\n  timestep: \"0.1\"\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "scene.timestep: expected a number (s)", "the string '0.1'");
  t = "bodies: {a: 1}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 1, "bodies: expected a list", "got a mapping");
  t = "bodies:\n  - just a string\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "bodies[0]: expected a mapping", NULL);
  t = "- a\n- b\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 1, "expected a mapping", "bodies");
  t = BALL "    inertia: [1, 2]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].inertia: expected a 3x3 matrix", NULL);
  t = BALL "    inertia: [[1, 0, 0], [0, 1], [0, 0, 1]]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0].inertia[1]: expected a row of 3 numbers", NULL);
  t = "output:\n  vtk: maybe\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "output.vtk: expected true or false", "'maybe'");
  t = "interactions:\n  - pair: [a]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "interactions[0].pair: expected a list of two names", NULL);
  t = "bodies:\n  - name: a\n    geometry: {sphere: {radius: 1}, box: {size: 1}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "geometry: give exactly one of", "'sphere' and 'box'");
  t = "bodies:\n  - name: a\n    geometry: {}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "bodies[0].geometry: expected one of sphere, box", NULL);
}

static void test_unknown_keys_and_enums(void) {
  const char* t;
  t = BALL "    densty: 5\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "bodies[0]: unknown key 'densty' (did you mean 'density'?)",
             "valid keys: name, alias");
  t = "bodys: []\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 1, "unknown key 'bodys' (did you mean 'bodies'?)", NULL);
  t = BALL "    angular: [0, 0, 1]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "did you mean 'angular_velocity'?", NULL);
  t = "interactions:\n  - pair: [a, b]\n    law: linear\n    stifness: 5\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "interactions[0]: unknown key 'stifness'",
             "did you mean 'stiffness'?");
  t = "scene:\n  timestep: 0.1\n  qqqqqqqq: 1\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "scene: unknown key 'qqqqqqqq'; valid keys", NULL);
  t = "bodies:\n  - name: a\n    geometry: {sphere: {raduis: 1}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "bodies[0].geometry.sphere: unknown key 'raduis'",
             "did you mean 'radius'?");

  t = BALL "    motion: dynamc\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4,
             "bodies[0].motion: expected one of dynamic, fixed, prescribed, "
             "ignored, deformable, got the string 'dynamc'",
             "did you mean 'dynamic'?");
  t = "interactions:\n  - pair: [a, b]\n    law: area\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "contact_time, area_compliant, linear, none",
             "did you mean 'area_compliant'?");
  t = "interactions:\n  - pair: [a, b]\n    method: edges\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "interactions[0].method: expected one of vertex, two_way", NULL);
  t = "scene: {integrator: rk4}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 1, "scene.integrator: expected one of implicit, explicit", NULL);

  /* duplicates */
  t = BALL "    mass: 1\n    mass: 2\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 5, "bodies[0]: duplicate key 'mass' (first given at line 4)", NULL);
  t = "scene: {}\nscene: {}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "duplicate key 'scene'", NULL);
  t = BALL "  - name: a\n    geometry: {box: {size: 1}}\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "bodies[1] 'a': name 'a' is already used by bodies[0]", NULL);
}

static void test_numbers(void) {
  const char* bad[] = {"1e999", "nan", ".nan", ".inf", "-inf", "1.5x", "0x10",
                       "1,5",   "--1", "1e",   ".",    "+",    "1 e3", "inf"};
  for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
    char text[256];
    snprintf(text, sizeof text, BALL "    mass: %s\n", bad[i]);
    EXPECT_ERR(text, CM_ERR_PARSE, 4, "bodies[0].mass: expected a", NULL);
  }
  EXPECT_ERR(BALL "    mass: 1e999\n", CM_ERR_PARSE, 4, "expected a finite number (kg)",
             "1e999, which is not a finite number");
  EXPECT_ERR(BALL "    velocity: [0, -1e400, 0]\n", CM_ERR_PARSE, 4, "velocity[1]",
             "finite number");
  const char* good[] = {"2", "+2.5", "-0.5e1", ".5", "5.", "1E2", "1e-400"};
  double want[] = {2, 2.5, -5, 0.5, 5, 100, 0};
  for (int i = 0; i < (int)(sizeof good / sizeof good[0]); i++) {
    char text[256];
    snprintf(text, sizeof text, BALL "    position: [%s, 0, 0]\n", good[i]);
    cmScene* s = NULL;
    CHECK(parse(text, &s) == CM_OK);
    CHECK(s && s->body[0].position[0] == want[i]);
    cm_scene_free(s);
  }
  /* integers */
  const char* t = "bodies:\n  - name: a\n    geometry: {sphere: {radius: 1, refine: 2.5}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "geometry.sphere.refine: expected an integer", "2.5");
  EXPECT_ERR("scene:\n  steps: 1e30\n", CM_ERR_PARSE, 2, "scene.steps: expected an integer", NULL);
  EXPECT_ERR("output:\n  every: 1e10\n", CM_ERR_PARSE, 2, "output.every: expected an integer",
             NULL);
}

static void test_range_errors(void) {
  const char* t;
  t = BALL "    mass: -1\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "bodies[0] 'a': mass must be >= 0 kg (got -1)", NULL);
  t = BALL "    density: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "density must be > 0 kg/m^3", NULL);
  t = "bodies:\n  - name: a\n    geometry:\n      box:\n        divisions: 2\n        size: [1, 0, "
      "1]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 6, "geometry.box.size[1] must be > 0 m (got 0)", NULL);
  t = "bodies:\n  - name: a\n    geometry:\n      sphere:\n        radius: 1\n        refine: 9\n";
  EXPECT_ERR(t, CM_ERR_ARG, 6, "geometry.sphere.refine must be an integer in 0..8 (got 9)", NULL);
  t = "bodies:\n  - name: ground\n    geometry:\n      plane: {normal: [0, 0, 1]}\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "bodies[0] 'ground': a plane", "must have motion fixed");
  t = "bodies:\n  - name: g\n    motion: fixed\n    geometry: {plane: {normal: [0, 0, 0]}}\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "geometry.plane.normal must be non-zero", NULL);
  t = "bodies:\n  - name: world\n    geometry: {sphere: {radius: 1}}\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "reserved", NULL);
  t = BALL "    orientation: [0, 0, 0, 0]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "orientation must be a non-zero quaternion", NULL);
  t = BALL "    mass: 1\n    inertia: [1, 1, 3]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 5, "inertia must satisfy the triangle inequality", NULL);
  t = BALL "    mass: 1\n    inertia: [[1, 0, 0], [0, -1, 0], [0, 0, 1]]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 5, "inertia must be positive definite", NULL);
  t = BALL "    mass: 1\n    inertia: [1, 0.5, 0, 0, 1, 0, 0, 0, 1]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 5, "inertia must be symmetric", NULL);
  t = "scene:\n  timestep: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "scene.timestep must be > 0 s (got 0)", NULL);
  t = "scene:\n  duration: -1\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "scene.duration must be >= 0 s", NULL);
  t = "scene:\n  substeps: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "scene.substeps must be an integer >= 1, or auto (got 0)", NULL);
  cmScene* sa = NULL;
  CHECK(parse("scene: {substeps: auto}\n", &sa) == CM_OK && sa &&
        sa->opt.substeps == CM_SUBSTEPS_AUTO);
  cm_scene_free(sa);
  t = "scene:\n  substeps: autom\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "scene.substeps", "'autom'");
  /* solver_tolerance: auto, or a number in range; 0 in a file is not auto */
  t = "scene:\n  solver_tolerance: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2,
             "scene.solver_tolerance must be auto or a relative residual from 1e-12 to 0.0001 "
             "(got 0)",
             NULL);
  t = "scene:\n  solver_tolerance: 1.0e-3\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "scene.solver_tolerance must be auto", "(got 0.001)");
  t = "scene:\n  solver_tolerance: fast\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "scene.solver_tolerance", "'fast'");
  CHECK(parse("scene: {solver_tolerance: auto}\n", &sa) == CM_OK && sa &&
        sa->opt.solver_tolerance == CM_SOLVER_TOLERANCE_AUTO);
  cm_scene_free(sa);
  CHECK(parse("scene: {solver_tolerance: 1.0e-12}\n", &sa) == CM_OK && sa &&
        sa->opt.solver_tolerance == 1e-12);
  cm_scene_free(sa);
  t = "output:\n  every: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "output.every must be an integer >= 1", NULL);

  /* rules */
  t = "interactions:\n  - pair: [a, b]\n    elastic_repulsion: 1.5\n";
  EXPECT_ERR(t, CM_ERR_ARG, 3,
             "interactions[0]: elastic_repulsion (e_r) must be in (0, 1] (got 1.5)", NULL);
  t = "interactions:\n  - pair: [a, b]\n    elastic_repulsion: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 3, "elastic_repulsion (e_r) must be in (0, 1] (got 0)", NULL);
  t = "interactions:\n  - pair: [a, b]\n    law: area_compliant\n    ka: -5\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "interactions[0]: ka must be > 0 N/m^3 (got -5)", NULL);
  t = "interactions:\n  - pair: [a, b]\n    contact_time: -0.1\n";
  EXPECT_ERR(t, CM_ERR_ARG, 3, "contact_time T must be > 0 s", "(got -0.1)");
  t = "interactions:\n  - pair: [a, b]\n    friction: -0.2\n";
  EXPECT_ERR(t, CM_ERR_ARG, 3, "friction (mu) must be >= 0 (got -0.2)", NULL);
  t = "interactions:\n  - pair: [a, b]\n    play: -1\n";
  EXPECT_ERR(t, CM_ERR_ARG, 3, "play must be >= 0 m (got -1)", NULL);
  t = "interactions:\n  - pair: [a, b]\n    law: area_compliant\n    step_damping: -1\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "step_damping must be >= 0", NULL);
  t = "interactions:\n  - pair: [a, b]\n    law: linear\n    stiffness: 0\n";
  EXPECT_ERR(t, CM_ERR_ARG, 4, "stiffness must be > 0 N/m", NULL);
  t = "interactions:\n  - pair: [\"\", b]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 2, "pair must be two non-empty alias globs", NULL);
}

static void test_semantic_errors(void) {
  const char* t;
  /* parameters of another law */
  t = "interactions:\n  - pair: [a, b]\n    ka: 1e9\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "interactions[0].ka: 'ka' is a parameter of law area_compliant",
             "this rule's law is contact_time (the default)");
  t = "interactions:\n  - pair: [a, b]\n    law: linear\n    elastic_repulsion: 0.5\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "parameter of law contact_time", "law is linear");
  t = "interactions:\n  - pair: [a, b]\n    law: area_compliant\n    stiffness: 5\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "'stiffness' is a parameter of law linear", NULL);
  t = "interactions:\n  - pair: [a, b]\n    law: none\n    friction: 0.5\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "law none", "takes no parameters");
  t = "interactions:\n  - pair: [a, b]\n    law: area_compliant\n    mass: effective\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 4, "'mass' is a parameter of law contact_time", NULL);
  t = "interactions:\n  - pair: [a, b]\n    mass: reduced\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "interactions[0].mass: expected one of min, effective", NULL);

  /* unknown and repeated joint bodies */
  t = "bodies:\n  - name: arm\n    geometry: {sphere: {radius: 1}}\n"
      "joints:\n  - anchor: [0, 0, 1]\n    bodies: [arm, nope]\n";
  EXPECT_ERR(t, CM_ERR_ARG, 6, "joints[0]: bodies[1] must name a body or world",
             "no body is named 'nope'");
  t = "bodies:\n  - name: arm\n    geometry: {sphere: {radius: 1}}\n"
      "joints:\n  - {bodies: [arm, arm], anchor: [0, 0, 1]}\n";
  EXPECT_ERR(t, CM_ERR_ARG, 5, "joints[0]: bodies must be two different bodies", NULL);
  /* joints may come before bodies in the file */
  cmScene* s = NULL;
  t = "joints:\n  - {bodies: [world, arm], anchor: [0, 0, 1]}\n"
      "bodies:\n  - name: arm\n    geometry: {sphere: {radius: 1}}\n";
  CHECK(parse(t, &s) == CM_OK);
  CHECK(s && s->njoint == 1);
  cm_scene_free(s);

  /* exclusive keys */
  t = "scene:\n  duration: 1\n  steps: 10\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "scene.steps: give either scene.duration or scene.steps", NULL);
  t = BALL "    orientation: [1, 0, 0, 0]\n    euler_deg: [0, 0, 0]\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 5, "either orientation or euler_deg", NULL);
  t = BALL "    density: 1\n    mass: 1\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 5, "either density or mass", NULL);
}

static void test_syntax_and_empty(void) {
  cmScene* s = (cmScene*)1;
  const char* t = "bodies:\n  - name: a\n    geometry: {sphere: {radius: 1}\n";
  CHECK(parse(t, &s) == CM_ERR_PARSE && s == NULL);
  CHECK(strstr(err, "YAML syntax error") != NULL && !strncmp(err, "t.yaml:", 7));
  t = "scene:\n  timestep: 1\n duration: 2\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "YAML syntax error", NULL);
  t = "scene:\n\ttimestep: 1\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "YAML syntax error", NULL);
  t = "a: [1, 2\n";
  CHECK(parse(t, &s) == CM_ERR_PARSE && strstr(err, "YAML syntax error"));
  t = "scene: {}\n---\nscene: {}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 3, "only one YAML document", NULL);
  t = "bodies: [*undefined]\n";
  CHECK(parse(t, &s) == CM_ERR_PARSE && s == NULL);
  const char* empty[] = {"", "# only a comment\n", "\n\n", "---\n", "~\n"};
  for (int i = 0; i < 5; i++) {
    s = (cmScene*)1;
    CHECK(parse(empty[i], &s) == CM_ERR_PARSE && s == NULL);
    CHECK(strstr(err, "t.yaml: the scene is empty") != NULL);
  }
  CHECK(cm_scene_parse(NULL, 0, NULL, &s, err, sizeof err) == CM_ERR_PARSE);
  CHECK(strstr(err, "scene: the scene is empty") != NULL);
  /* invalid UTF-8 and control bytes */
  CHECK(parse("scene: \xff\xfe\n", &s) == CM_ERR_PARSE && s == NULL);
  CHECK(cm_scene_parse("a: \0b", 5, "t.yaml", &s, err, sizeof err) == CM_ERR_PARSE);
  /* a NUL inside a quoted string */
  t = "bodies:\n  - name: \"a\\0b\"\n    geometry: {sphere: {radius: 1}}\n";
  EXPECT_ERR(t, CM_ERR_PARSE, 2, "must not contain NUL", NULL);
  /* files */
  CHECK(cm_scene_load("/nonexistent/dir/x.yaml", &s, err, sizeof err) == CM_ERR_IO && !s);
  CHECK(strstr(err, "/nonexistent/dir/x.yaml: cannot open") != NULL);
  /* small error buffers are fine */
  char small[8];
  CHECK(cm_scene_parse(BALL "    mass: -1\n", strlen(BALL) + 13, "t.yaml", &s, small,
                       sizeof small) == CM_ERR_ARG);
  CHECK(strlen(small) == 7);
  CHECK(cm_scene_parse(BALL "    mass: -1\n", strlen(BALL) + 13, "t.yaml", &s, NULL, 0) ==
        CM_ERR_ARG);
}

/* YAML anchors and aliases are resolved by libyaml; cycles do not hang the parser */
static void test_aliases(void) {
  cmScene* s = NULL;
  const char* t = "bodies:\n  - name: a\n    geometry: &g {sphere: {radius: 2}}\n"
                  "  - name: b\n    geometry: *g\n";
  CHECK(parse(t, &s) == CM_OK);
  CHECK(s && s->nbody == 2 && s->body[1].geom.radius == 2);
  cm_scene_free(s);
  t = "bodies:\n  - &b {name: a, geometry: {sphere: {radius: 1}}}\n  - *b\n";
  CHECK(parse(t, &s) == CM_ERR_ARG && strstr(err, "already used"));
  const char* cyc[] = {"bodies: &x [*x]\n", "scene: &x {name: *x}\n",
                       "bodies:\n  - name: a\n    geometry: &g {sphere: *g}\n",
                       "bodies:\n  - name: a\n    geometry: {sphere: {radius: 1}}\n"
                       "    inertia: &i [*i, *i, *i]\n"};
  for (int i = 0; i < 4; i++) {
    s = NULL;
    CHECK(parse(cyc[i], &s) == CM_ERR_PARSE && s == NULL);
  }
}

/* YAML tags are refused where they are (they used to be ignored: `!!str 1.0e-3` was read as a
 * number), with the field's path; the same text without the tag parses */
static void test_tags(void) {
  const struct {
    const char* text;
    int line;
    const char* want;
  } c[] = {
      {"scene:\n  timestep: !!str 1.0e-3\n", 2,
       "t.yaml:2:13: scene.timestep: YAML tags such as '!!str' are not supported"},
      {"scene:\n  steps: !!int 5\n", 2, "t.yaml:2:10: scene.steps: YAML tags such as '!!int'"},
      {BALL "    velocity: [0, !!float 1, 0]\n", 4,
       "t.yaml:4:19: bodies[0].velocity[1]: YAML tags such as '!!float'"},
      {BALL "    motion: !custom fixed\n", 4,
       "t.yaml:4:13: bodies[0].motion: YAML tags such as '!custom'"},
      {"output: !!map {vtk: true}\n", 1, "t.yaml:1:9: output: YAML tags such as '!!map'"},
      {"bodies: !!seq\n  - name: a\n    geometry: {sphere: {radius: 1}}\n", 1,
       "t.yaml:1:9: bodies: YAML tags such as '!!seq'"},
      {"output: {vtk: ! true}\n", 1, "t.yaml:1:15: output.vtk: YAML tags such as '!' are"},
      /* behind an alias: the path of the anchored node */
      {"bodies:\n  - name: a\n    geometry: &g {sphere: {radius: !!float 1}}\n"
       "  - {name: b, geometry: *g}\n",
       3, "t.yaml:3:36: bodies[0].geometry.sphere.radius: YAML tags such as '!!float'"},
      /* at the root */
      {"!!map\nscene: {}\n", 1, "t.yaml:1:1: YAML tags such as '!!map'"},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    expect_err((int)i, c[i].text, CM_ERR_PARSE, c[i].line, c[i].want, NULL);
  cmScene* s = NULL;
  CHECK(parse("scene:\n  timestep: 1.0e-3\n", &s) == CM_OK && s && s->opt.timestep == 1e-3);
  cm_scene_free(s);
  /* an anchor before the tag, and a tag in a cycle of aliases: still refused, no hang */
  EXPECT_ERR("scene: {timestep: &t !!float 1}\n", CM_ERR_PARSE, 1, "scene.timestep: YAML tags",
             NULL);
  EXPECT_ERR("bodies: &x [!!str a, *x]\n", CM_ERR_PARSE, 1, "bodies[0]: YAML tags", NULL);
}

/* faults of issue 12 in the scene keys: steps: 0 ran 1000 steps; a huge euler_deg was reported
 * as orientation[0] ... -nan; mass 1e300 as a singular inertia tensor; box divisions 1024 took
 * minutes and gigabytes; hexadecimal numbers and a byte order mark */
static void test_key_faults(void) {
  EXPECT_ERR("scene:\n  steps: 0\n", CM_ERR_ARG, 2,
             "t.yaml:2:10: scene.steps must be an integer >= 1 (got 0); omit it to run "
             "round(duration / timestep) steps, or give duration: 0 for no step",
             NULL);
  EXPECT_ERR("scene:\n  steps: -3\n", CM_ERR_ARG, 2, "scene.steps must be an integer >= 1 (got -3)",
             NULL);
  cmScene* s = NULL;
  CHECK(parse("scene: {steps: 1}", &s) == CM_OK && s && s->opt.steps == 1);
  cm_scene_free(s);
  CHECK(parse("scene: {duration: 0}", &s) == CM_OK && s && s->opt.duration == 0);
  cm_scene_free(s);

  EXPECT_ERR(BALL "    euler_deg: [0, 1e308, 0]\n", CM_ERR_ARG, 4,
             "t.yaml:4:16: bodies[0] 'a': euler_deg[1] must be a finite angle of at most 1e+06 "
             "degrees in magnitude (got 1e+308)",
             NULL);
  EXPECT_ERR(BALL "    euler_deg: [0, 0, -1000001]\n", CM_ERR_ARG, 4, "euler_deg[2] must be",
             "(got -1000001)");
  CHECK(parse(BALL "    euler_deg: [1e6, -1e6, 720]\n", &s) == CM_OK);
  if (s) CHECK(isfinite(s->body[0].orientation[0]) && fabs(s->body[0].orientation[0]) <= 1);
  cm_scene_free(s);

  EXPECT_ERR(BALL "    mass: 1e300\n", CM_ERR_ARG, 4,
             "t.yaml:4:11: bodies[0] 'a': mass must be in 1e-30..1e+30 kg, or 0 for density x "
             "volume (got 1e+300)",
             NULL);
  EXPECT_ERR(BALL "    density: 1e-300\n", CM_ERR_ARG, 4,
             "t.yaml:4:14: bodies[0] 'a': density must be in 1e-30..1e+30 kg/m^3 (got 1e-300)",
             NULL);
  CHECK(parse(BALL "    mass: 1e30\n", &s) == CM_OK);
  cm_scene_free(s);

  const char* box = "bodies:\n  - name: a\n    geometry: {box: {size: 1, divisions: %d}}\n";
  char t[256];
  snprintf(t, sizeof t, box, 1024);
  EXPECT_ERR(t, CM_ERR_ARG, 3,
             "t.yaml:3:42: bodies[0] 'a': geometry.box.divisions must be an integer in 1..330 "
             "(got 1024): a box of d divisions has 12 d^2 = 12582912 triangles, more than the "
             "limit of 1310720",
             NULL);
  snprintf(t, sizeof t, box, 330);
  CHECK(parse(t, &s) == CM_OK && s && s->body[0].geom.divisions == 330);
  cm_scene_free(s);

  EXPECT_ERR("scene:\n  gravity: [0, 0, -0x9.cp0]\n", CM_ERR_PARSE, 2,
             "t.yaml:2:19: scene.gravity[2]: expected a number (m/s^2), got the string "
             "'-0x9.cp0' (hexadecimal is not accepted)",
             NULL);
  /* a UTF-8 byte order mark starts a scene file as it may start a mesh file */
  CHECK(parse("\xef\xbb\xbfscene: {steps: 7}\n", &s) == CM_OK && s && s->opt.steps == 7);
  cm_scene_free(s);
}

/* every prefix and many single-byte corruptions of the full scene parse or fail cleanly */
static void test_robustness(void) {
  size_t n = strlen(full);
  char* buf = malloc(n + 1);
  int ok = 0, failed = 0;
  for (size_t len = 0; len <= n; len++) {
    cmScene* s = NULL;
    err[0] = 0;
    cmStatus st = cm_scene_parse(full, len, "t.yaml", &s, err, sizeof err);
    if (st == CM_OK) {
      ok++;
      cm_scene_free(s);
    } else {
      failed++;
      CHECK(s == NULL && err[0] != 0);
    }
  }
  CHECK(ok > 0 && failed > 0);
  const char subst[] = {'x',  ':', '[', ']', '{', '}', '-', ' ',
                        '\n', '&', '*', '#', '"', '0', '\t'};
  unsigned seed = 12345;
  for (int k = 0; k < 3000; k++) {
    memcpy(buf, full, n + 1);
    seed = seed * 1103515245u + 12345u;
    size_t pos = (seed >> 8) % n;
    seed = seed * 1103515245u + 12345u;
    buf[pos] = subst[(seed >> 8) % sizeof subst];
    cmScene* s = NULL;
    err[0] = 0;
    cmStatus st = cm_scene_parse(buf, n, "t.yaml", &s, err, sizeof err);
    if (st == CM_OK)
      cm_scene_free(s);
    else
      CHECK(s == NULL && err[0] != 0);
  }
  free(buf);
  /* deep nesting is refused without recursion trouble */
  size_t depth = 100000;
  char* deep = malloc(2 * depth + 16);
  memcpy(deep, "bodies: ", 8);
  memset(deep + 8, '[', depth);
  memset(deep + 8 + depth, ']', depth);
  cmScene* s = NULL;
  CHECK(cm_scene_parse(deep, 8 + 2 * depth, "t.yaml", &s, err, sizeof err) == CM_ERR_PARSE);
  CHECK(strstr(err, "t.yaml:1:265: lists and mappings nested deeper than 256 levels") != NULL);
  /* 256 levels pass the depth limit and fail on the schema; brackets in quotes and comments
   * do not count */
  CHECK(cm_scene_parse(deep, 8 + 256, "t.yaml", &s, err, sizeof err) == CM_ERR_PARSE);
  CHECK(strstr(err, "YAML syntax error") != NULL);
  memset(deep + 8 + 256, ']', 256);
  CHECK(cm_scene_parse(deep, 8 + 512, "t.yaml", &s, err, sizeof err) == CM_ERR_PARSE);
  CHECK(strstr(err, "bodies[0]: expected a mapping") != NULL);
  char* q = malloc(4000);
  snprintf(q, 4000, "# %.300s\nscene: {name: \"%.300s\"}\n", deep + 8 + 512, deep + 8 + 512);
  CHECK(cm_scene_parse(q, strlen(q), "t.yaml", &s, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  free(q);
  free(deep);
}

/* the deformable section (docs/deformable.md): every key read, and its faults located */
static void test_deformable(void) {
  const char* t = "bodies:\n"
                  "  - name: plate\n"
                  "    geometry: {box: {size: 1}}\n"
                  "    motion: fixed\n"
                  "  - name: pad\n"
                  "    geometry: {box: {size: [0.2, 0.1, 0.02]}}\n"
                  "    motion: deformable\n"
                  "    deformable:\n"
                  "      material: corotated\n"
                  "      young: 2e6\n"
                  "      poisson: 0.45\n"
                  "      cells: [10, 5, 2]\n"
                  "      fixed: {min: [-1, -1, -1], max: [1, 1, -0.009]}\n"
                  "      attach: {body: plate, min: [-1, -1, 0.009], max: [1, 1, 1]}\n"
                  "      integrator: midpoint\n"
                  "      rayleigh: {mass: 2, stiffness: 1e-4}\n"
                  "  - name: ball\n"
                  "    geometry: {sphere: {radius: 0.1}}\n"
                  "    motion: deformable\n";
  cmScene* s = NULL;
  CHECK(parse(t, &s) == CM_OK);
  if (s) {
    const cmDeformableDef* f = &s->body[1].deformable;
    CHECK(s->body[1].motion == CM_MOTION_DEFORMABLE && f->material == CM_MATERIAL_COROTATED);
    CHECK(f->young == 2e6 && f->poisson == 0.45 && f->scheme == CM_FEM_MIDPOINT);
    CHECK(f->cells[0] == 10 && f->cells[1] == 5 && f->cells[2] == 2);
    CHECK(f->has_fixed && f->fixed_max[2] == -0.009 && f->fixed_min[0] == -1);
    CHECK(f->attach && !strcmp(f->attach, "plate") && f->attach_min[2] == 0.009);
    CHECK(f->rayleigh_mass == 2 && f->rayleigh_stiffness == 1e-4);
    /* defaults: Neo-Hookean, backward Euler, the geometry's cells (0, 0, 0: 8 across for a
     * sphere, set at compile, physics/test_deformable test_sphere_default_cells) */
    const cmDeformableDef* g = &s->body[2].deformable;
    CHECK(g->material == CM_MATERIAL_NEO_HOOKEAN && g->scheme == CM_FEM_BACKWARD_EULER);
    CHECK(g->cells[0] == 0 && g->cells[1] == 0 && g->cells[2] == 0 && !g->has_fixed && !g->attach);
    cm_scene_free(s);
  }
  const char* head = "bodies:\n  - name: pad\n    geometry: {box: {size: 1}}\n";
  char buf[512];
  snprintf(buf, sizeof buf, "%s    deformable: {young: 1e6}\n", head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 4, "bodies[0].deformable", "motion: deformable");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {youngs: 1e6}\n", head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "youngs", "young");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {material: rubber}\n", head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "deformable.material", "neo_hookean");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {poisson: 0.5}\n", head);
  EXPECT_ERR(buf, CM_ERR_ARG, 5, "deformable.poisson", "0..0.49");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {cells: [2, 0, 2]}\n", head);
  /* out of range: CM_ERR_ARG as for one number (it was CM_ERR_PARSE in a list); a fraction is
   * a type error */
  EXPECT_ERR(buf, CM_ERR_ARG, 5, "deformable.cells", "1..200");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {cells: [2, 2.5, 2]}\n",
           head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "deformable.cells", "expected integers");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {cells: [2, 1e300, 2]}\n",
           head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "deformable.cells", "expected integers");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {fixed: {min: [0, 0, 0]}}\n",
           head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "deformable.fixed", "max");
  snprintf(buf, sizeof buf,
           "%s    motion: deformable\n    deformable: {attach: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
           head);
  EXPECT_ERR(buf, CM_ERR_PARSE, 5, "deformable.attach", "body");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    deformable: {rayleigh: {mass: -1}}\n",
           head);
  EXPECT_ERR(buf, CM_ERR_ARG, 5, "deformable.rayleigh.mass", ">= 0");
  snprintf(buf, sizeof buf, "%s    motion: deformable\n    mass: 2\n", head);
  EXPECT_ERR(buf, CM_ERR_ARG, 5, "mass", "density");
}

static void test_examples(void) {
  const char* files[] = {"examples/falling_boxes.yaml", "examples/spinning_top.yaml",
                         "examples/scene_reference.yaml", "examples/cartilage_pad.yaml",
                         "examples/stiff_pile.yaml"};
  for (int i = 0; i < 5; i++) {
    cmScene* s = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CM_SOURCE_DIR, files[i]);
    cmStatus st = cm_scene_load(path, &s, err, sizeof err);
    CHECK(st == CM_OK);
    if (st != CM_OK) {
      fprintf(stderr, "  %s\n", err);
      continue;
    }
    CHECK(!strcmp(s->file, path) && !strcmp(s->dir, CM_SOURCE_DIR "/examples"));
    CHECK(s->nbody > 0);
    if (i == 0) CHECK(!strcmp(s->name, "falling_boxes") && s->body[0].motion == CM_MOTION_FIXED);
    if (i == 1) {
      CHECK(!strcmp(s->name, "spinning_top"));
      CHECK(s->body[0].angular_velocity[2] != 0);
    }
    CHECK(cm_scene_validate(s, err, sizeof err) == CM_OK);
    if (i == 4) CHECK(s->nbody == 32 && s->nrule == 1 && s->rule[0].min_period == 4);
    if (i == 3) {
      /* the deformable example compiles: the layer attached, its rules accepted */
      cmModel* m = NULL;
      CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
      if (m) CHECK(m->nnode == 13 * 13 * 3 && m->node_attach[0] == 0);
      cm_model_free(m);
    }
    cm_scene_free(s);
  }
}

int main(void) {
  RUN(test_almost_empty);
  RUN(test_full_scene);
  RUN(test_euler_and_steps);
  RUN(test_missing_and_types);
  RUN(test_unknown_keys_and_enums);
  RUN(test_numbers);
  RUN(test_range_errors);
  RUN(test_semantic_errors);
  RUN(test_syntax_and_empty);
  RUN(test_aliases);
  RUN(test_tags);
  RUN(test_key_faults);
  RUN(test_robustness);
  RUN(test_deformable);
  RUN(test_examples);
  return test_report();
}
