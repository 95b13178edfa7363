/* Interaction rules: alias globs -> per-pair rule table.
 *
 * A scene may have many bodies (1e5 grains) but few rules. Two aliases that are matched by
 * exactly the same globs of every rule are indistinguishable for the rule lookup, so they are put
 * in one *alias class*; the class of an alias is identified by its signature, the bit vector
 * sig[2 r + s] = match(rule r, side s, alias). The table class_rule (nclass x nclass) then holds,
 * for every class pair (c1, c2), the last rule r with
 *   (match(r, 0, c1) and match(r, 1, c2)) or (match(r, 0, c2) and match(r, 1, c1)),
 * which is symmetric by construction. Lookup for a body pair is two array reads. The table
 * class_first gives the side of a class pair that matches the first glob of its rule (for
 * `direction: first`), so that the narrowphase never matches globs. */
#include "model/rules.h"

#include <string.h>

#include "core/internal.h"
#include "model/fields.h"

int cm_glob_match(const char* pat, const char* s) {
  /* iterative matcher with one backtrack point for the last '*' (linear in practice) */
  const char* star = NULL;
  const char* retry = NULL;
  while (*s) {
    if (*pat == '*') {
      star = pat++;
      retry = s;
    } else if (*pat == '?' || *pat == *s) {
      pat++;
      s++;
    } else if (star) {
      pat = star + 1;
      s = ++retry;
    } else {
      return 0;
    }
  }
  while (*pat == '*')
    pat++;
  return *pat == 0;
}

int cm_rules_match(const cmModel* m, const char* a, const char* b) {
  for (int r = m->nrule - 1; r >= 0; r--) {
    const char* p0 = m->rule[r].pair[0];
    const char* p1 = m->rule[r].pair[1];
    if ((cm_glob_match(p0, a) && cm_glob_match(p1, b)) ||
        (cm_glob_match(p0, b) && cm_glob_match(p1, a)))
      return r;
  }
  return -1;
}

cmStatus cm_rules_resolve(cmModel* m) {
  int nr = m->nrule, na = m->nalias, nsig = 2 * nr;
  unsigned char* sig = cm_calloc((size_t)na * (size_t)(nsig ? nsig : 1), 1);
  int* rep = cm_malloc((size_t)(na ? na : 1) * sizeof *rep); /* representative alias of a class */
  if (!sig || !rep) {
    cm_free(sig);
    cm_free(rep);
    return CM_ERR_NOMEM;
  }

  /* signatures and classes: an alias joins the class of an earlier alias with equal signature */
  int nclass = 0;
  for (int a = 0; a < na; a++) {
    unsigned char* s = sig + (size_t)a * nsig;
    int any = 0;
    for (int r = 0; r < nr; r++)
      for (int side = 0; side < 2; side++) {
        s[2 * r + side] = (unsigned char)cm_glob_match(m->rule[r].pair[side], m->alias_name[a]);
        any |= s[2 * r + side];
      }
    m->alias_class[a] = -1;
    if (!any) continue;
    for (int c = 0; c < nclass; c++)
      if (!memcmp(s, sig + (size_t)rep[c] * nsig, (size_t)nsig)) {
        m->alias_class[a] = c;
        break;
      }
    if (m->alias_class[a] < 0) {
      rep[nclass] = a;
      m->alias_class[a] = nclass++;
    }
  }

  /* the table: last matching rule per class pair */
  m->nclass = nclass;
  if (!cm_model_alloc_rows(m, &m->nclass)) {
    cm_free(sig);
    cm_free(rep);
    return CM_ERR_NOMEM;
  }
  for (int c1 = 0; c1 < nclass; c1++) {
    const unsigned char* s1 = sig + (size_t)rep[c1] * nsig;
    for (int c2 = 0; c2 < nclass; c2++) {
      const unsigned char* s2 = sig + (size_t)rep[c2] * nsig;
      int rule = -1;
      for (int r = nr - 1; r >= 0 && rule < 0; r--)
        if ((s1[2 * r] && s2[2 * r + 1]) || (s2[2 * r] && s1[2 * r + 1])) rule = r;
      m->class_rule[c1 * nclass + c2] = rule;
      /* which side matches the rule's first glob, if only one does */
      int f1 = rule >= 0 && s1[2 * rule], f2 = rule >= 0 && s2[2 * rule];
      m->class_first[c1 * nclass + c2] = f1 && !f2 ? 0 : f2 && !f1 ? 1 : -1;
    }
  }
  cm_free(sig);
  cm_free(rep);
  return CM_OK;
}
