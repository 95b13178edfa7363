/* Range checks of scene definitions, shared by cm_scene_validate, the cm_scene_add_* builders
 * and the YAML parser, so that every range rule is written once (in scene.c).
 *
 * A check fills a cmCheck: the path of the offending field inside its definition, spelled as
 * in the YAML file ("mass", "geometry.sphere.radius", "bodies[1]", "scene.timestep"), and a
 * message naming the field, the expected value with its unit and the value found, e.g.
 * "mass must be >= 0 kg (got -1)". Callers prefix the location and the definition. Not
 * installed. */
#ifndef CM_SCENE_CHECK_H
#define CM_SCENE_CHECK_H

#include "comply/scene.h"

typedef struct cmCheck {
  cmStatus status;   /* CM_ERR_ARG (bad value) or CM_ERR_NOMEM */
  const char* field; /* path of the offending field in its definition ("" for the whole) */
  char msg[320];     /* "mass must be >= 0 kg (got -1)" */
} cmCheck;

/* the largest Euler angle, degrees: beyond it a double holds the angle modulo 360 to worse
 * than 1e-10 degrees, and at 6e305 degrees its radians overflow (-nan orientation before) */
#define CM_EULER_DEG_MAX 1e6

/* each returns 0 if valid, else 1 with c filled */
int cm_check_options(const cmOptions* opt, cmCheck* c);
int cm_check_rule(const cmRuleDef* rule, cmCheck* c);
/* the angles of euler_deg (a file's key; the definition holds the quaternion made from it) */
int cm_check_euler_deg(const double e[3], cmCheck* c);

/* add a definition with the checks (the body against the scene's other names, the joint's
 * bodies against the scene's bodies); returns the new index, or -1 with c filled */
int cm_scene_add_body_checked(cmScene* scene, const cmBodyDef* def, cmCheck* c);
int cm_scene_add_rule_checked(cmScene* scene, const cmRuleDef* def, cmCheck* c);
int cm_scene_add_joint_checked(cmScene* scene, const cmJointDef* def, cmCheck* c);

/* copy up to n bytes of s into a message-safe form (control characters as '?', "..." when
 * cut) in buf[bufsz]; returns buf */
const char* cm_msg_str(char* buf, size_t bufsz, const char* s, size_t n);

#endif
