/* Model queries: pair rules, names of enum values. */
#include <string.h>

#include "comply/law.h"
#include "comply/model.h"

int cm_model_pair_rule(const cmModel* m, int a, int b) {
  if (a == b || a < 0 || b < 0 || a >= m->nbody || b >= m->nbody) return -1;
  int ma = m->body_motion[a], mb = m->body_motion[b];
  /* ignored bodies never collide; two non-dynamic bodies never interact */
  if (ma == CM_MOTION_IGNORED || mb == CM_MOTION_IGNORED) return -1;
  int moves_a = ma == CM_MOTION_DYNAMIC || ma == CM_MOTION_DEFORMABLE;
  int moves_b = mb == CM_MOTION_DYNAMIC || mb == CM_MOTION_DEFORMABLE;
  if (!moves_a && !moves_b) return -1;
  int ca = m->alias_class[m->body_alias[a]], cb = m->alias_class[m->body_alias[b]];
  if (ca < 0 || cb < 0) return -1;
  int r = m->class_rule[ca * m->nclass + cb];
  if (r < 0 || m->rule[r].law == CM_LAW_NONE) return -1;
  return r;
}

int cm_model_body_index(const cmModel* m, const char* name) {
  for (int b = 0; b < m->nbody; b++)
    if (!strcmp(m->body_name[b], name)) return b;
  return -1;
}

const char* cm_law_name(cmLawType law) {
  switch (law) {
  case CM_LAW_CONTACT_TIME:
    return "contact_time";
  case CM_LAW_AREA_COMPLIANT:
    return "area_compliant";
  case CM_LAW_LINEAR:
    return "linear";
  case CM_LAW_NONE:
    return "none";
  }
  return "unknown";
}

const char* cm_method_name(cmMethod method) {
  switch (method) {
  case CM_METHOD_VERTEX:
    return "vertex";
  case CM_METHOD_TWO_WAY:
    return "two_way";
  case CM_METHOD_VERTEX_EDGE:
    return "vertex_edge";
  case CM_METHOD_CONTOUR:
    return "contour";
  case CM_METHOD_AUTO:
    return "auto";
  }
  return "unknown";
}

const char* cm_motion_name(cmMotion motion) {
  switch (motion) {
  case CM_MOTION_DYNAMIC:
    return "dynamic";
  case CM_MOTION_FIXED:
    return "fixed";
  case CM_MOTION_PRESCRIBED:
    return "prescribed";
  case CM_MOTION_IGNORED:
    return "ignored";
  case CM_MOTION_DEFORMABLE:
    return "deformable";
  }
  return "unknown";
}

cmStatus cm_model_set_law(cmModel* m, int rule, cmLawFn fn, void* ctx) {
  if (!m || rule < 0 || rule >= m->nrule || !fn) return CM_ERR_ARG;
  /* a function pointer stored as data: converted back in the laws stage */
  union {
    cmLawFn fn;
    void* p;
  } u;
  u.fn = fn;
  m->rule_law_fn[rule] = u.p;
  m->rule_law_ctx[rule] = ctx;
  return CM_OK;
}
