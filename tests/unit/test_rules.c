/* Interaction rules: glob matching, last matching rule wins, symmetry, ignored bodies, non-dynamic
 * pairs, alias classes, the first-glob side table. */
#include <string.h>

#include "comply/comply.h"
#include "model/rules.h"
#include "test.h"

static char err[1024];

static void test_glob(void) {
  CHECK(cm_glob_match("*", ""));
  CHECK(cm_glob_match("*", "femur"));
  CHECK(cm_glob_match("femur*", "femur"));
  CHECK(cm_glob_match("femur*", "femur_left"));
  CHECK(!cm_glob_match("femur*", "tibia"));
  CHECK(cm_glob_match("?ibia", "tibia"));
  CHECK(!cm_glob_match("?ibia", "ibia"));
  CHECK(cm_glob_match("a*b*c", "a-xx-b-yy-c"));
  CHECK(!cm_glob_match("a*b*c", "a-xx-b-yy-d"));
  CHECK(cm_glob_match("*ball*", "big_ball_3"));
  CHECK(!cm_glob_match("ball", "ball2"));
  CHECK(cm_glob_match("**a", "a"));
  /* backtracking: the first '*' must give back characters */
  CHECK(cm_glob_match("*aab", "aaaab"));
  CHECK(!cm_glob_match("", "x"));
}

static void add_box(cmScene* s, const char* name, const char* alias, cmMotion motion) {
  cmBodyDef b = cm_body_def_default();
  b.name = name;
  b.alias = alias;
  b.motion = motion;
  b.geom.type = CM_GEOM_BOX;
  b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 0.1;
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) >= 0);
}

static void add_rule(cmScene* s, const char* a, const char* b, cmLawType law) {
  cmRuleDef r = cm_rule_def_default();
  r.pair[0] = a;
  r.pair[1] = b;
  r.law = law;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
}

static void test_pair_table(void) {
  cmScene* s = cm_scene_new("rules");
  add_box(s, "femur_l", NULL, CM_MOTION_DYNAMIC);   /* 0 */
  add_box(s, "femur_r", NULL, CM_MOTION_DYNAMIC);   /* 1 */
  add_box(s, "tibia", NULL, CM_MOTION_DYNAMIC);     /* 2 */
  add_box(s, "g1", "grain", CM_MOTION_DYNAMIC);     /* 3 */
  add_box(s, "g2", "grain", CM_MOTION_DYNAMIC);     /* 4 */
  add_box(s, "ghost", NULL, CM_MOTION_IGNORED);     /* 5 */
  add_box(s, "wall", NULL, CM_MOTION_FIXED);        /* 6 */
  add_box(s, "floor", NULL, CM_MOTION_FIXED);       /* 7 */
  add_rule(s, "femur*", "tibia", CM_LAW_AREA_COMPLIANT);  /* rule 1 */
  add_rule(s, "tibia", "femur_r", CM_LAW_LINEAR);         /* rule 2: later, wins for femur_r */
  add_rule(s, "grain", "grain", CM_LAW_NONE);             /* rule 3 */
  add_rule(s, "*", "wall", CM_LAW_AREA_COMPLIANT);        /* rule 4 */
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  if (!m) return;
  CHECK(m->nrule == 5);
  /* last matching rule wins, whatever the order of the pair in the rule */
  CHECK(cm_model_pair_rule(m, 0, 2) == 1);
  CHECK(cm_model_pair_rule(m, 1, 2) == 2);
  /* symmetric */
  for (int a = 0; a < m->nbody; a++)
    for (int b = 0; b < m->nbody; b++) CHECK(cm_model_pair_rule(m, a, b) == cm_model_pair_rule(m, b, a));
  /* unmatched pairs fall back to the built-in default rule 0 (contact_time) */
  CHECK(cm_model_pair_rule(m, 0, 1) == 0);
  CHECK(m->rule[0].law == CM_LAW_CONTACT_TIME);
  CHECK(cm_model_pair_rule(m, 0, 3) == 0);
  /* law none: no interaction */
  CHECK(cm_model_pair_rule(m, 3, 4) == -1);
  /* ignored bodies never match, not even through "*" */
  for (int b = 0; b < m->nbody; b++) CHECK(cm_model_pair_rule(m, 5, b) == -1);
  /* wildcard rule against a fixed body; two fixed bodies never interact */
  CHECK(cm_model_pair_rule(m, 3, 6) == 4);
  CHECK(cm_model_pair_rule(m, 6, 7) == -1);
  /* a body never collides with itself */
  CHECK(cm_model_pair_rule(m, 2, 2) == -1);
  /* the two grains share one alias; femur_l and femur_r differ (rule 2 names femur_r) */
  CHECK(m->body_alias[3] == m->body_alias[4]);
  CHECK(m->alias_class[m->body_alias[0]] != m->alias_class[m->body_alias[1]]);
  /* ghost, floor and g-less aliases matched by "*" only share a class */
  CHECK(m->alias_class[m->body_alias[5]] == m->alias_class[m->body_alias[7]]);
  /* the compiled side table (direction: first) agrees with matching the globs directly */
  for (int a = 0; a < m->nbody; a++)
    for (int b = 0; b < m->nbody; b++) {
      int r = cm_model_pair_rule(m, a, b);
      if (r < 0) continue;
      int fa = cm_glob_match(m->rule[r].pair[0], m->alias_name[m->body_alias[a]]);
      int fb = cm_glob_match(m->rule[r].pair[0], m->alias_name[m->body_alias[b]]);
      int ca = m->alias_class[m->body_alias[a]], cb = m->alias_class[m->body_alias[b]];
      CHECK(m->class_first[ca * m->nclass + cb] == (fa && !fb ? 0 : fb && !fa ? 1 : -1));
    }
  /* femur_l (first glob "femur*") against tibia: femur_l's side */
  CHECK(m->class_first[m->alias_class[m->body_alias[0]] * m->nclass +
                       m->alias_class[m->body_alias[2]]] == 0);
  /* the default contact time is 100 steps */
  CHECK_NEAR(m->rule[0].contact_time, 100 * m->opt.timestep, 1e-18);
  cm_model_free(m);
}

/* 10,000 bodies with distinct names: the table stays small (classes, not aliases) */
static void test_many_aliases(void) {
  cmScene* s = cm_scene_new("many");
  char name[32];
  for (int i = 0; i < 10000; i++) {
    snprintf(name, sizeof name, "%s%d", i % 2 ? "sand" : "rock", i);
    add_box(s, name, NULL, CM_MOTION_DYNAMIC);
  }
  add_rule(s, "sand*", "rock*", CM_LAW_AREA_COMPLIANT);
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  if (!m) return;
  CHECK(m->nalias == 10000);
  CHECK(m->nclass == 2);
  CHECK(m->ngeom == 1); /* identical boxes share one geometry */
  CHECK(cm_model_pair_rule(m, 0, 1) == 1);
  CHECK(cm_model_pair_rule(m, 0, 2) == 0);
  CHECK(cm_model_pair_rule(m, 9999, 9998) == 1);
  cm_model_free(m);
}

int main(void) {
  RUN(test_glob);
  RUN(test_pair_table);
  RUN(test_many_aliases);
  return test_report();
}
