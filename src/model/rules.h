/* Interaction rules: alias globs resolved once, at compile, into a table over alias classes. */
#ifndef CM_RULES_H
#define CM_RULES_H

#include "comply/model.h"

/* 1 if `s` matches the glob `pat` (* any run, ? one character; no escapes) */
int cm_glob_match(const char* pat, const char* s);

/* Resolve m->rule[0..nrule) against m->alias_name[0..nalias): fills m->alias_class (allocated
 * by the caller with the other arrays of nalias rows), m->nclass, m->class_rule and
 * m->class_first (allocated here by cm_model_alloc_rows). A pair of classes gets the LAST rule
 * whose two globs match the two aliases in either order. Returns CM_ERR_NOMEM on failure. */
cmStatus cm_rules_resolve(cmModel* m);

/* the last rule matching two alias names in either order, -1 if none (used for joints, whose
 * "world" side has no alias class) */
int cm_rules_match(const cmModel* m, const char* alias_a, const char* alias_b);

#endif
