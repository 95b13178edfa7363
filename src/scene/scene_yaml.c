/* The YAML scene file (docs/scene-format.md), parsed with libyaml's document API.
 *
 * libyaml builds the node graph (its loader is not recursive); this file walks it with one
 * function per level of the fixed schema (root, scene, output, body, geometry, rule, joint), so
 * the walk has a bounded depth whatever the input, and aliases (which libyaml resolves to shared
 * nodes, possibly cycles) are harmless. Each mapping is first matched against its list of valid
 * keys (unknown keys get a "did you mean", duplicates are errors), then its values are read by
 * typed getters that check the YAML type, record the value's line and column under the field's
 * path, and convert (numbers must be plain scalars that strtod consumes whole and that are
 * finite; integers must be integral).
 *
 * Ranges are not checked here: every definition goes through the shared checks of scene.c
 * (cm_scene_add_*_checked, cm_check_options), and a failed check is reported at the recorded
 * line and column of the field it names.
 *
 * The parser stops at the first error; on error every allocation is freed. libyaml allocates
 * its own memory with malloc (it has no allocator hooks). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/cm_math.h"
#include "core/file.h"
#include "core/internal.h"
#include "scene/scene_check.h"

#define MAXLOC 64

/* where a field's value was found */
typedef struct FieldLoc {
  const char* field; /* path inside the definition, static string */
  int line, col;
} FieldLoc;

typedef struct Parser {
  yaml_document_t* doc;
  const char* file; /* for messages */
  char* err;
  size_t errsz;
  cmStatus st;
  char obj[48];        /* current definition: "bodies[2]", "" at the top */
  int objline, objcol; /* its mapping's position */
  FieldLoc loc[MAXLOC];
  int nloc;
} Parser;

/* ---- positions and messages ---- */

static int mark_line(const yaml_mark_t* m) {
  return m->line >= INT_MAX ? INT_MAX : (int)m->line + 1;
}
static int mark_col(const yaml_mark_t* m) {
  return m->column >= INT_MAX ? INT_MAX : (int)m->column + 1;
}

/* error at (line, col) (line 0: no position) */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int
errat(Parser* p, int line, int col, cmStatus st, const char* fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0)
    cm_error(p->err, p->errsz, st, "%s:%d:%d: %s", p->file, line, col, msg);
  else
    cm_error(p->err, p->errsz, st, "%s: %s", p->file, msg);
  p->st = st;
  return -1;
}

#define ERR(p, node, st, ...)                                                                      \
  errat((p), mark_line(&(node)->start_mark), mark_col(&(node)->start_mark), (st), __VA_ARGS__)

/* "bodies[2].mass", or just "scene.timestep" at the top */
static const char* fpath(const Parser* p, const char* field, char* buf, size_t n) {
  if (*p->obj && *field)
    snprintf(buf, n, "%s.%s", p->obj, field);
  else
    snprintf(buf, n, "%s", *p->obj ? p->obj : field);
  return buf;
}

static void record(Parser* p, const char* field, const yaml_node_t* n) {
  if (p->nloc >= MAXLOC) return;
  p->loc[p->nloc].field = field;
  p->loc[p->nloc].line = mark_line(&n->start_mark);
  p->loc[p->nloc].col = mark_col(&n->start_mark);
  p->nloc++;
}

/* position of a field: exact path, else its parents ("geometry.sphere", "geometry"), else the
 * definition's mapping */
static void loc_find(const Parser* p, const char* field, int* line, int* col) {
  char f[64];
  snprintf(f, sizeof f, "%s", field ? field : "");
  while (*f) {
    for (int i = p->nloc - 1; i >= 0; i--)
      if (strcmp(p->loc[i].field, f) == 0) {
        *line = p->loc[i].line;
        *col = p->loc[i].col;
        return;
      }
    char* cut = strrchr(f, '.');
    char* br = strrchr(f, '[');
    if (br > cut) cut = br;
    if (!cut) break;
    *cut = 0;
  }
  *line = p->objline;
  *col = p->objcol;
}

/* report a failed shared check at its field's position */
static int check_failed(Parser* p, const cmCheck* c, const char* name) {
  int line, col;
  loc_find(p, c->field, &line, &col);
  if (c->status == CM_ERR_NOMEM) return errat(p, line, col, CM_ERR_NOMEM, "out of memory");
  char nb[80] = "";
  if (name) {
    char tmp[72];
    snprintf(nb, sizeof nb, " '%s'", cm_msg_str(tmp, sizeof tmp, name, strlen(name)));
  }
  if (*p->obj) return errat(p, line, col, c->status, "%s%s: %s", p->obj, nb, c->msg);
  return errat(p, line, col, c->status, "%s", c->msg);
}

/* ---- scalars ---- */

static const char* sval(const yaml_node_t* n) {
  return (const char*)n->data.scalar.value;
}

/* is n the scalar `auto` (a field that takes `auto` or a number)? Recorded as field if so. */
static int is_auto(Parser* p, const yaml_node_t* n, const char* field) {
  if (n->type != YAML_SCALAR_NODE || strcmp(sval(n), "auto")) return 0;
  record(p, field, n);
  return 1;
}

static int is_null(const yaml_node_t* n) {
  if (!n || n->type != YAML_SCALAR_NODE) return !n;
  if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
  const char* s = sval(n);
  size_t len = n->data.scalar.length;
  return len == 0 || (len == 1 && s[0] == '~') ||
         (len == 4 && (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL")));
}

/* a plain decimal number: 0 ok, 1 not a number, 2 not finite */
static int scan_num(const yaml_node_t* n, double* v) {
  if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    return 1;
  const char* s = sval(n);
  size_t len = n->data.scalar.length, i = 0, digits = 0;
  if (len == 0 || len > 255) return 1;
#define ISDIG(ch) ((ch) >= '0' && (ch) <= '9')
  if (s[i] == '+' || s[i] == '-') i++;
  while (i < len && ISDIG(s[i]))
    i++, digits++;
  if (i < len && s[i] == '.') {
    i++;
    while (i < len && ISDIG(s[i]))
      i++, digits++;
  }
  if (!digits) return 1;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    size_t e = 0;
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && ISDIG(s[i]))
      i++, e++;
    if (!e) return 1;
  }
#undef ISDIG
  if (i != len) return 1;
  char buf[256];
  memcpy(buf, s, len);
  buf[len] = 0;
  char* end = NULL;
  *v = strtod(buf, &end);
  if (end != buf + len) return 1;
  return isfinite(*v) ? 0 : 2;
}

/* 0x..., with an optional sign: strtod would read it, the scene (and mesh) readers do not */
static int is_hex(const char* t) {
  if (*t == '+' || *t == '-') t++;
  return t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

/* "a mapping", "a list", "nothing (null)", "the number 5", "the string 'abc'" */
static const char* describe(const yaml_node_t* n, char* buf, size_t sz) {
  if (!n) return "nothing";
  if (n->type == YAML_MAPPING_NODE) return "a mapping";
  if (n->type == YAML_SEQUENCE_NODE) {
    snprintf(buf, sz, "a list of %d",
             (int)(n->data.sequence.items.top - n->data.sequence.items.start));
    return buf;
  }
  if (n->type != YAML_SCALAR_NODE) return "an empty node";
  if (is_null(n)) return "nothing (null)";
  char t[64];
  double v;
  int r = scan_num(n, &v);
  cm_msg_str(t, sizeof t, sval(n), n->data.scalar.length);
  if (r == 0)
    snprintf(buf, sz, "the number %s", t);
  else if (r == 2)
    snprintf(buf, sz, "%s, which is not a finite number", t);
  else if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_hex(t))
    snprintf(buf, sz, "the string '%.40s' (hexadecimal is not accepted)", t);
  else
    snprintf(buf, sz, "the string '%s'", t);
  return buf;
}

static const yaml_node_t* item(const Parser* p, const yaml_node_t* seq, int i) {
  return yaml_document_get_node(p->doc, seq->data.sequence.items.start[i]);
}
static int nitems(const yaml_node_t* seq) {
  return (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

/* ---- suggestions ---- */

/* Levenshtein distance (99 for long strings) */
static int lev(const char* a, size_t la, const char* b) {
  size_t lb = strlen(b);
  if (la > 63 || lb > 63) return 99;
  int prev[64], cur[64];
  for (size_t j = 0; j <= lb; j++)
    prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int d = prev[j - 1] + (a[i - 1] != b[j - 1]);
      if (prev[j] + 1 < d) d = prev[j] + 1;
      if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
      cur[j] = d;
    }
    memcpy(prev, cur, sizeof(int) * (lb + 1));
  }
  return prev[lb];
}

/* the closest valid name: distance <= 2, else a prefix match; NULL if none */
static const char* suggest(const char* s, size_t len, const char* const* names, int n) {
  const char* best = NULL;
  int bestd = 3;
  for (int i = 0; i < n; i++) {
    int d = lev(s, len, names[i]);
    if (d < bestd) bestd = d, best = names[i];
  }
  if (best) return best;
  for (int i = 0; i < n && len >= 3; i++) {
    size_t ln = strlen(names[i]);
    if ((len < ln && !strncmp(names[i], s, len)) || (ln < len && !strncmp(names[i], s, ln)))
      return names[i];
  }
  return NULL;
}

static void join(char* buf, size_t sz, const char* const* names, int n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < n && k < sz; i++) {
    int w = snprintf(buf + k, sz - k, "%s%s", i ? ", " : "", names[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

/* ---- typed getters: each records the field's position ---- */

/* match a mapping's keys against keys[n]: val[i] = value of keys[i] or NULL */
static int get_map(Parser* p, const yaml_node_t* map, const char* field, const char* const* keys,
                   int n, const yaml_node_t** val) {
  char fb[128], gb[96], kb[64], list[512];
  const yaml_node_t* keynode[32];
  CM_ASSERT(n <= 32);
  for (int i = 0; i < n; i++)
    val[i] = NULL, keynode[i] = NULL;
  const char* path = fpath(p, field, fb, sizeof fb);
  if (map->type != YAML_MAPPING_NODE) {
    join(list, sizeof list, keys, n);
    return ERR(p, map, CM_ERR_PARSE, "%s%sexpected a mapping (keys %s), got %s", path,
               *path ? ": " : "", list, describe(map, gb, sizeof gb));
  }
  for (yaml_node_pair_t* pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
       pr++) {
    const yaml_node_t* k = yaml_document_get_node(p->doc, pr->key);
    const yaml_node_t* v = yaml_document_get_node(p->doc, pr->value);
    if (!k || !v) return ERR(p, map, CM_ERR_PARSE, "%s: malformed mapping", path);
    if (k->type != YAML_SCALAR_NODE)
      return ERR(p, k, CM_ERR_PARSE, "%s%skeys must be names, got %s", path, *path ? ": " : "",
                 describe(k, gb, sizeof gb));
    int idx = -1;
    for (int i = 0; i < n && idx < 0; i++)
      if (k->data.scalar.length == strlen(keys[i]) && !strcmp(sval(k), keys[i])) idx = i;
    cm_msg_str(kb, sizeof kb, sval(k), k->data.scalar.length);
    if (idx < 0) {
      const char* s = suggest(sval(k), k->data.scalar.length, keys, n);
      join(list, sizeof list, keys, n);
      char sg[96] = "";
      if (s) snprintf(sg, sizeof sg, " (did you mean '%s'?)", s);
      return ERR(p, k, CM_ERR_PARSE, "%s%sunknown key '%s'%s; valid keys: %s", path,
                 *path ? ": " : "", kb, sg, list);
    }
    if (keynode[idx])
      return ERR(p, k, CM_ERR_PARSE, "%s%sduplicate key '%s' (first given at line %d)", path,
                 *path ? ": " : "", kb, mark_line(&keynode[idx]->start_mark));
    keynode[idx] = k;
    val[idx] = v;
  }
  return 0;
}

static int missing(Parser* p, const yaml_node_t* map, const char* field, const char* key,
                   const char* what) {
  char fb[128];
  const char* path = fpath(p, field, fb, sizeof fb);
  return ERR(p, map, CM_ERR_PARSE, "%s%smissing required key '%s' (%s)", path, *path ? ": " : "",
             key, what);
}

static int get_num(Parser* p, const yaml_node_t* n, const char* field, const char* unit,
                   double* out) {
  char fb[128], gb[128];
  record(p, field, n);
  int r = scan_num(n, out);
  if (r == 0) return 0;
  return ERR(p, n, CM_ERR_PARSE, "%s: expected a %snumber%s%s%s, got %s",
             fpath(p, field, fb, sizeof fb), r == 2 ? "finite " : "", *unit ? " (" : "", unit,
             *unit ? ")" : "", describe(n, gb, sizeof gb));
}

/* an integral number with |v| <= max */
static int get_integer(Parser* p, const yaml_node_t* n, const char* field, double max,
                       double* out) {
  char fb[128], gb[128];
  if (get_num(p, n, field, "", out)) return -1;
  if (*out != floor(*out) || fabs(*out) > max)
    return ERR(p, n, CM_ERR_PARSE, "%s: expected an integer%s, got %s",
               fpath(p, field, fb, sizeof fb), *out != floor(*out) ? "" : " of reasonable size",
               describe(n, gb, sizeof gb));
  return 0;
}

static int get_int(Parser* p, const yaml_node_t* n, const char* field, int* out) {
  double v;
  if (get_integer(p, n, field, (double)INT_MAX, &v)) return -1;
  *out = (int)v;
  return 0;
}

static int get_long(Parser* p, const yaml_node_t* n, const char* field, long* out) {
  double v, max = 9007199254740992.0;
  if ((double)LONG_MAX < max) max = (double)LONG_MAX;
  if (get_integer(p, n, field, max, &v)) return -1;
  *out = (long)v;
  return 0;
}

/* a list of exactly n numbers */
static int get_vec(Parser* p, const yaml_node_t* n, const char* field, int len, const char* unit,
                   double* out) {
  char fb[128], gb[128];
  record(p, field, n);
  if (n->type != YAML_SEQUENCE_NODE || nitems(n) != len)
    return ERR(p, n, CM_ERR_PARSE, "%s: expected a list of %d numbers%s%s%s, got %s",
               fpath(p, field, fb, sizeof fb), len, *unit ? " (" : "", unit, *unit ? ")" : "",
               describe(n, gb, sizeof gb));
  for (int i = 0; i < len; i++) {
    const yaml_node_t* e = item(p, n, i);
    int r = e ? scan_num(e, &out[i]) : 1;
    if (r)
      return ERR(p, e ? e : n, CM_ERR_PARSE, "%s[%d]: expected a %snumber%s%s%s, got %s",
                 fpath(p, field, fb, sizeof fb), i, r == 2 ? "finite " : "", *unit ? " (" : "",
                 unit, *unit ? ")" : "", describe(e, gb, sizeof gb));
  }
  return 0;
}

/* a non-null scalar without NUL bytes; *out points into the document */
static int get_str(Parser* p, const yaml_node_t* n, const char* field, const char** out) {
  char fb[128], gb[128];
  record(p, field, n);
  if (n->type != YAML_SCALAR_NODE || is_null(n))
    return ERR(p, n, CM_ERR_PARSE, "%s: expected a string, got %s", fpath(p, field, fb, sizeof fb),
               describe(n, gb, sizeof gb));
  if (strlen(sval(n)) != n->data.scalar.length)
    return ERR(p, n, CM_ERR_PARSE, "%s: strings must not contain NUL characters",
               fpath(p, field, fb, sizeof fb));
  *out = sval(n);
  return 0;
}

static int get_bool(Parser* p, const yaml_node_t* n, const char* field, int* out) {
  static const char* const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char* const f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  char fb[128], gb[128];
  record(p, field, n);
  if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
    for (int i = 0; i < 9; i++) {
      if (!strcmp(sval(n), t[i])) return *out = 1, 0;
      if (!strcmp(sval(n), f[i])) return *out = 0, 0;
    }
  }
  return ERR(p, n, CM_ERR_PARSE, "%s: expected true or false, got %s",
             fpath(p, field, fb, sizeof fb), describe(n, gb, sizeof gb));
}

/* one of names[n]: *out = its index */
static int get_enum(Parser* p, const yaml_node_t* n, const char* field, const char* const* names,
                    int len, int* out) {
  char fb[128], gb[128], list[256], sg[96] = "";
  record(p, field, n);
  if (n->type == YAML_SCALAR_NODE) {
    for (int i = 0; i < len; i++)
      if (n->data.scalar.length == strlen(names[i]) && !strcmp(sval(n), names[i]))
        return *out = i, 0;
    const char* s = suggest(sval(n), n->data.scalar.length, names, len);
    if (s) snprintf(sg, sizeof sg, " (did you mean '%s'?)", s);
  }
  join(list, sizeof list, names, len);
  return ERR(p, n, CM_ERR_PARSE, "%s: expected one of %s, got %s%s", fpath(p, field, fb, sizeof fb),
             list, describe(n, gb, sizeof gb), sg);
}

/* a list of exactly two strings (pair, joint bodies); elements recorded as f0, f1 */
static int get_str2(Parser* p, const yaml_node_t* n, const char* field, const char* f0,
                    const char* f1, const char** out) {
  char fb[128], gb[128];
  record(p, field, n);
  if (n->type != YAML_SEQUENCE_NODE || nitems(n) != 2)
    return ERR(p, n, CM_ERR_PARSE, "%s: expected a list of two names, got %s",
               fpath(p, field, fb, sizeof fb), describe(n, gb, sizeof gb));
  for (int i = 0; i < 2; i++) {
    const yaml_node_t* e = item(p, n, i);
    if (!e) return ERR(p, n, CM_ERR_PARSE, "%s: malformed list", fpath(p, field, fb, sizeof fb));
    if (get_str(p, e, i ? f1 : f0, &out[i])) return -1;
  }
  return 0;
}

/* inertia: 3 lists of 3, 9 numbers (row-major), or 3 numbers (the diagonal) */
static int get_inertia(Parser* p, const yaml_node_t* n, double I[9]) {
  char fb[128], gb[128];
  const char* f = "inertia";
  record(p, f, n);
  int len = n->type == YAML_SEQUENCE_NODE ? nitems(n) : 0;
  const yaml_node_t* first = len ? item(p, n, 0) : NULL;
  memset(I, 0, 9 * sizeof *I);
  if (len == 9) return get_vec(p, n, f, 9, "kg m^2", I);
  if (len == 3 && first && first->type != YAML_SEQUENCE_NODE) {
    double d[3];
    if (get_vec(p, n, f, 3, "kg m^2", d)) return -1;
    I[0] = d[0], I[4] = d[1], I[8] = d[2];
    return 0;
  }
  if (len == 3) {
    for (int i = 0; i < 3; i++) {
      const yaml_node_t* row = item(p, n, i);
      if (!row || row->type != YAML_SEQUENCE_NODE || nitems(row) != 3)
        return ERR(p, row ? row : n, CM_ERR_PARSE,
                   "%s[%d]: expected a row of 3 numbers (kg m^2), got %s",
                   fpath(p, f, fb, sizeof fb), i, describe(row, gb, sizeof gb));
      for (int j = 0; j < 3; j++) {
        const yaml_node_t* e = item(p, row, j);
        int r = e ? scan_num(e, &I[3 * i + j]) : 1;
        if (r)
          return ERR(p, e ? e : row, CM_ERR_PARSE,
                     "%s[%d][%d]: expected a %snumber (kg m^2), got %s", fpath(p, f, fb, sizeof fb),
                     i, j, r == 2 ? "finite " : "", describe(e, gb, sizeof gb));
      }
    }
    return 0;
  }
  return ERR(p, n, CM_ERR_PARSE,
             "%s: expected a 3x3 matrix (kg m^2): 3 lists of 3 numbers, 9 numbers, or 3 "
             "diagonal numbers; got %s",
             fpath(p, f, fb, sizeof fb), describe(n, gb, sizeof gb));
}

/* ---- sections ---- */

static const char* const integrator_names[] = {"implicit", "explicit"};
static const char* const motion_names[] = {"dynamic", "fixed", "prescribed", "ignored",
                                           "deformable"};
static const char* const material_names[] = {"neo_hookean", "corotated", "linear"};
static const char* const fem_scheme_names[] = {"backward_euler", "midpoint"};
static const char* const law_names[] = {"contact_time", "area_compliant", "linear", "none"};
static const char* const method_names[] = {"vertex", "two_way", "vertex_edge", "contour", "auto"};
static const char* const direction_names[] = {"auto", "first"};
static const char* const integration_names[] = {"default", "implicit", "explicit"};
static const char* const rep_mass_names[] = {"min", "effective"};

static void begin_obj(Parser* p, const char* obj, const yaml_node_t* n) {
  snprintf(p->obj, sizeof p->obj, "%s", obj);
  p->objline = n ? mark_line(&n->start_mark) : 0;
  p->objcol = n ? mark_col(&n->start_mark) : 0;
  p->nloc = 0;
}

static cmSourceLoc node_loc(const yaml_node_t* n) {
  cmSourceLoc l = {mark_line(&n->start_mark), mark_col(&n->start_mark)};
  return l;
}

enum {
  S_NAME,
  S_TIMESTEP,
  S_DURATION,
  S_STEPS,
  S_GRAVITY,
  S_INTEGRATOR,
  S_SUBSTEPS,
  S_MAX_SPEED,
  S_MAX_CONTACTS,
  S_ALLOW_OVERLAP,
  S_SOLVER_TOLERANCE,
  S_N
};
static const char* const scene_keys[] = {
    "name",       "timestep", "duration",  "steps",        "gravity",
    "integrator", "substeps", "max_speed", "max_contacts", "allow_initial_overlap",
    "solver_tolerance"};

static int parse_scene(Parser* p, const yaml_node_t* n, cmScene* s) {
  const yaml_node_t* v[S_N];
  if (is_null(n)) return 0;
  if (get_map(p, n, "scene", scene_keys, S_N, v)) return -1;
  cmOptions* o = &s->opt;
  if (v[S_NAME]) {
    const char* name;
    if (get_str(p, v[S_NAME], "scene.name", &name)) return -1;
    char* c = cm_strdup(name);
    if (!c) return ERR(p, v[S_NAME], CM_ERR_NOMEM, "out of memory");
    cm_free(s->name);
    s->name = c;
  }
  if (v[S_TIMESTEP] && get_num(p, v[S_TIMESTEP], "scene.timestep", "s", &o->timestep)) return -1;
  if (v[S_DURATION] && v[S_STEPS])
    return ERR(p, v[S_STEPS], CM_ERR_PARSE,
               "scene.steps: give either scene.duration or scene.steps, not both");
  if (v[S_DURATION] && get_num(p, v[S_DURATION], "scene.duration", "s", &o->duration)) return -1;
  if (v[S_STEPS] && get_long(p, v[S_STEPS], "scene.steps", &o->steps)) return -1;
  /* in the API 0 means "from duration"; a file that writes steps: 0 meant something else */
  if (v[S_STEPS] && o->steps < 1)
    return ERR(p, v[S_STEPS], CM_ERR_ARG,
               "scene.steps must be an integer >= 1 (got %ld); omit it to run round(duration / "
               "timestep) steps, or give duration: 0 for no step",
               o->steps);
  if (v[S_GRAVITY] && get_vec(p, v[S_GRAVITY], "scene.gravity", 3, "m/s^2", o->gravity)) return -1;
  if (v[S_INTEGRATOR]) {
    int e = 0;
    if (get_enum(p, v[S_INTEGRATOR], "scene.integrator", integrator_names, 2, &e)) return -1;
    o->integrator = (cmIntegrator)e;
  }
  if (v[S_SUBSTEPS]) {
    /* `auto` (CM_SUBSTEPS_AUTO, 0 in the API), or a count >= 1 stated explicitly */
    const yaml_node_t* ns = v[S_SUBSTEPS];
    if (is_auto(p, ns, "scene.substeps")) {
      o->substeps = CM_SUBSTEPS_AUTO;
    } else {
      if (get_int(p, ns, "scene.substeps", &o->substeps)) return -1;
      if (o->substeps < 1)
        return ERR(p, ns, CM_ERR_ARG, "scene.substeps must be an integer >= 1, or auto (got %d)",
                   o->substeps);
    }
  }
  if (v[S_MAX_SPEED] && get_num(p, v[S_MAX_SPEED], "scene.max_speed", "m/s", &o->max_speed))
    return -1;
  if (v[S_MAX_CONTACTS] && get_long(p, v[S_MAX_CONTACTS], "scene.max_contacts", &o->max_contacts))
    return -1;
  if (v[S_ALLOW_OVERLAP] &&
      get_bool(p, v[S_ALLOW_OVERLAP], "scene.allow_initial_overlap", &o->allow_initial_overlap))
    return -1;
  if (v[S_SOLVER_TOLERANCE]) {
    /* `auto` (CM_SOLVER_TOLERANCE_AUTO, 0 in the API), or a relative residual in range */
    const yaml_node_t* nt = v[S_SOLVER_TOLERANCE];
    if (is_auto(p, nt, "scene.solver_tolerance")) {
      o->solver_tolerance = CM_SOLVER_TOLERANCE_AUTO;
    } else {
      if (get_num(p, nt, "scene.solver_tolerance", "", &o->solver_tolerance)) return -1;
      if (!(o->solver_tolerance >= CM_SOLVER_TOLERANCE_MIN &&
            o->solver_tolerance <= CM_SOLVER_TOLERANCE_MAX))
        return ERR(p, nt, CM_ERR_ARG,
                   "scene.solver_tolerance must be auto or a relative residual from %g to %g "
                   "(got %.10g)",
                   CM_SOLVER_TOLERANCE_MIN, CM_SOLVER_TOLERANCE_MAX, o->solver_tolerance);
    }
  }
  return 0;
}

static int parse_output(Parser* p, const yaml_node_t* n, cmOptions* o) {
  static const char* const keys[] = {"every", "vtk"};
  const yaml_node_t* v[2];
  if (is_null(n)) return 0;
  if (get_map(p, n, "output", keys, 2, v)) return -1;
  if (v[0] && get_int(p, v[0], "output.every", &o->output_every)) return -1;
  if (v[1] && get_bool(p, v[1], "output.vtk", &o->vtk)) return -1;
  return 0;
}

static int parse_geom(Parser* p, const yaml_node_t* n, cmGeomDef* g) {
  static const char* const kinds[] = {"sphere", "box", "mesh", "plane"};
  static const char* const sphere_keys[] = {"radius", "refine"};
  static const char* const box_keys[] = {"size", "divisions"};
  static const char* const mesh_keys[] = {"file", "scale", "repair"};
  static const char* const plane_keys[] = {"normal", "offset"};
  const yaml_node_t* v[4];
  const yaml_node_t* w[3];
  char fb[128];
  record(p, "geometry", n);
  if (get_map(p, n, "geometry", kinds, 4, v)) return -1;
  int kind = -1;
  for (int i = 0; i < 4; i++) {
    if (!v[i]) continue;
    if (kind >= 0)
      return ERR(p, v[i], CM_ERR_PARSE,
                 "%s: give exactly one of sphere, box, mesh, plane (got both '%s' and '%s')",
                 fpath(p, "geometry", fb, sizeof fb), kinds[kind], kinds[i]);
    kind = i;
  }
  if (kind < 0)
    return ERR(p, n, CM_ERR_PARSE,
               "%s: expected one of sphere, box, mesh, plane, got an empty "
               "mapping",
               fpath(p, "geometry", fb, sizeof fb));
  g->loc = node_loc(n);
  const yaml_node_t* sub = v[kind];
  switch (kind) {
  case 0:
    g->type = CM_GEOM_SPHERE;
    record(p, "geometry.sphere", sub);
    if (get_map(p, sub, "geometry.sphere", sphere_keys, 2, w)) return -1;
    if (!w[0]) return missing(p, sub, "geometry.sphere", "radius", "the sphere radius in m");
    if (get_num(p, w[0], "geometry.sphere.radius", "m", &g->radius)) return -1;
    if (w[1] && get_int(p, w[1], "geometry.sphere.refine", &g->refine)) return -1;
    return 0;
  case 1:
    g->type = CM_GEOM_BOX;
    record(p, "geometry.box", sub);
    if (get_map(p, sub, "geometry.box", box_keys, 2, w)) return -1;
    if (!w[0]) return missing(p, sub, "geometry.box", "size", "edge lengths [a, b, c] in m");
    if (w[0]->type == YAML_SEQUENCE_NODE) {
      if (get_vec(p, w[0], "geometry.box.size", 3, "m", g->size)) return -1;
    } else {
      if (get_num(p, w[0], "geometry.box.size", "m", &g->size[0])) return -1;
      g->size[1] = g->size[2] = g->size[0];
    }
    if (w[1] && get_int(p, w[1], "geometry.box.divisions", &g->divisions)) return -1;
    return 0;
  case 2:
    g->type = CM_GEOM_MESH;
    record(p, "geometry.mesh", sub);
    if (get_map(p, sub, "geometry.mesh", mesh_keys, 3, w)) return -1;
    if (!w[0]) return missing(p, sub, "geometry.mesh", "file", "an OBJ, STL, PLY, VTP or VTK file");
    if (get_str(p, w[0], "geometry.mesh.file", &g->file)) return -1;
    if (w[1] && get_num(p, w[1], "geometry.mesh.scale", "", &g->scale)) return -1;
    if (w[2] && get_bool(p, w[2], "geometry.mesh.repair", &g->repair)) return -1;
    return 0;
  default:
    g->type = CM_GEOM_PLANE;
    record(p, "geometry.plane", sub);
    if (is_null(sub)) return 0;
    if (get_map(p, sub, "geometry.plane", plane_keys, 2, w)) return -1;
    if (w[0] && get_vec(p, w[0], "geometry.plane.normal", 3, "", g->normal)) return -1;
    if (w[1] && get_num(p, w[1], "geometry.plane.offset", "m", &g->offset)) return -1;
    return 0;
  }
}

enum {
  B_NAME,
  B_ALIAS,
  B_GEOM,
  B_DENSITY,
  B_MASS,
  B_COM,
  B_INERTIA,
  B_POSITION,
  B_ORIENTATION,
  B_EULER,
  B_VELOCITY,
  B_ANGVEL,
  B_MOTION,
  B_FORCE,
  B_MOMENT,
  B_DEFORMABLE,
  B_N
};
static const char* const body_keys[] = {"name",        "alias",     "geometry", "density",
                                        "mass",        "com",       "inertia",  "position",
                                        "orientation", "euler_deg", "velocity", "angular_velocity",
                                        "motion",      "force",     "moment",   "deformable"};

/* the deformable section of a body (docs/deformable.md) */
static int parse_deformable(Parser* p, const yaml_node_t* n, cmBodyDef* b) {
  static const char* const keys[] = {"material", "young",      "poisson", "cells",
                                     "fixed",    "integrator", "attach",  "rayleigh"};
  static const char* const rayleigh_keys[] = {"mass", "stiffness"};
  static const char* const fixed_keys[] = {"min", "max"};
  static const char* const attach_keys[] = {"body", "min", "max"};
  const yaml_node_t *v[8], *w[3];
  char fb[128];
  cmDeformableDef* f = &b->deformable;
  record(p, "deformable", n);
  if (get_map(p, n, "deformable", keys, 8, v)) return -1;
  f->loc = node_loc(n);
  int e = 0;
  if (v[0]) {
    if (get_enum(p, v[0], "deformable.material", material_names, 3, &e)) return -1;
    f->material = (cmMaterial)e;
  }
  if (v[1] && get_num(p, v[1], "deformable.young", "Pa", &f->young)) return -1;
  if (v[2] && get_num(p, v[2], "deformable.poisson", "", &f->poisson)) return -1;
  if (v[3]) {
    if (v[3]->type == YAML_SEQUENCE_NODE) {
      double c[3];
      if (get_vec(p, v[3], "deformable.cells", 3, "cells", c)) return -1;
      for (int i = 0; i < 3; i++) {
        /* a type error here; the range (1..CM_FEM_MAX_CELLS) is the validation's, CM_ERR_ARG,
         * as for one number (a list out of range was CM_ERR_PARSE, one number CM_ERR_ARG) */
        if (!(c[i] == floor(c[i]) && fabs(c[i]) <= INT_MAX))
          return ERR(p, v[3], CM_ERR_PARSE, "%s: expected integers, got %.10g",
                     fpath(p, "deformable.cells", fb, sizeof fb), c[i]);
        f->cells[i] = (int)c[i];
      }
    } else {
      if (get_int(p, v[3], "deformable.cells", &f->cells[0])) return -1;
      f->cells[1] = f->cells[2] = f->cells[0];
    }
    /* 0 given is out of range (0, 0, 0 is the API's "the geometry's default") */
    for (int i = 0; i < 3; i++)
      if (f->cells[i] == 0)
        return ERR(p, v[3], CM_ERR_ARG, "%s: must be an integer in 1..%d (got 0)",
                   fpath(p, "deformable.cells", fb, sizeof fb), CM_FEM_MAX_CELLS);
  }
  if (v[4]) {
    record(p, "deformable.fixed", v[4]);
    if (get_map(p, v[4], "deformable.fixed", fixed_keys, 2, w)) return -1;
    if (!w[0]) return missing(p, v[4], "deformable.fixed", "min", "the box's low corner, m");
    if (!w[1]) return missing(p, v[4], "deformable.fixed", "max", "the box's high corner, m");
    if (get_vec(p, w[0], "deformable.fixed.min", 3, "m", f->fixed_min)) return -1;
    if (get_vec(p, w[1], "deformable.fixed.max", 3, "m", f->fixed_max)) return -1;
    f->has_fixed = 1;
  }
  if (v[5]) {
    if (get_enum(p, v[5], "deformable.integrator", fem_scheme_names, 2, &e)) return -1;
    f->scheme = (cmFemScheme)e;
  }
  if (v[6]) {
    record(p, "deformable.attach", v[6]);
    if (get_map(p, v[6], "deformable.attach", attach_keys, 3, w)) return -1;
    if (!w[0]) return missing(p, v[6], "deformable.attach", "body", "a rigid body's name");
    if (!w[1]) return missing(p, v[6], "deformable.attach", "min", "the box's low corner, m");
    if (!w[2]) return missing(p, v[6], "deformable.attach", "max", "the box's high corner, m");
    if (get_str(p, w[0], "deformable.attach.body", &f->attach)) return -1;
    if (get_vec(p, w[1], "deformable.attach.min", 3, "m", f->attach_min)) return -1;
    if (get_vec(p, w[2], "deformable.attach.max", 3, "m", f->attach_max)) return -1;
  }
  if (v[7]) {
    record(p, "deformable.rayleigh", v[7]);
    if (get_map(p, v[7], "deformable.rayleigh", rayleigh_keys, 2, w)) return -1;
    if (w[0] && get_num(p, w[0], "deformable.rayleigh.mass", "1/s", &f->rayleigh_mass)) return -1;
    if (w[1] && get_num(p, w[1], "deformable.rayleigh.stiffness", "s", &f->rayleigh_stiffness))
      return -1;
  }
  return 0;
}

static int parse_body(Parser* p, const yaml_node_t* n, int index, cmScene* s) {
  const yaml_node_t* v[B_N];
  char obj[32], fb[128];
  snprintf(obj, sizeof obj, "bodies[%d]", index);
  begin_obj(p, obj, n);
  if (get_map(p, n, "", body_keys, B_N, v)) return -1;
  cmBodyDef b = cm_body_def_default();
  b.loc = node_loc(n);
  if (!v[B_NAME]) return missing(p, n, "", "name", "a unique body name");
  if (get_str(p, v[B_NAME], "name", &b.name)) return -1;
  if (v[B_ALIAS] && get_str(p, v[B_ALIAS], "alias", &b.alias)) return -1;
  if (!v[B_GEOM]) return missing(p, n, "", "geometry", "one of sphere, box, mesh, plane");
  if (parse_geom(p, v[B_GEOM], &b.geom)) return -1;
  if (v[B_DENSITY] && v[B_MASS])
    return ERR(p, v[B_MASS], CM_ERR_PARSE, "%s: give either density or mass, not both",
               fpath(p, "mass", fb, sizeof fb));
  if (v[B_DENSITY] && get_num(p, v[B_DENSITY], "density", "kg/m^3", &b.density)) return -1;
  if (v[B_MASS] && get_num(p, v[B_MASS], "mass", "kg", &b.mass)) return -1;
  if (v[B_COM]) {
    if (get_vec(p, v[B_COM], "com", 3, "m", b.com)) return -1;
    b.has_com = 1;
  }
  if (v[B_INERTIA]) {
    if (get_inertia(p, v[B_INERTIA], b.inertia)) return -1;
    b.has_inertia = 1;
  }
  if (v[B_POSITION] && get_vec(p, v[B_POSITION], "position", 3, "m", b.position)) return -1;
  if (v[B_ORIENTATION] && v[B_EULER])
    return ERR(p, v[B_EULER], CM_ERR_PARSE, "%s: give either orientation or euler_deg, not both",
               fpath(p, "euler_deg", fb, sizeof fb));
  if (v[B_ORIENTATION] &&
      get_vec(p, v[B_ORIENTATION], "orientation", 4, "quaternion w x y z", b.orientation))
    return -1;
  if (v[B_EULER]) {
    double e[3];
    if (get_vec(p, v[B_EULER], "euler_deg", 3, "degrees", e)) return -1;
    cmCheck c;
    if (cm_check_euler_deg(e, &c)) return check_failed(p, &c, b.name);
    record(p, "orientation", v[B_EULER]);
    cm_quat_from_euler_deg(b.orientation, e);
  }
  if (v[B_VELOCITY] && get_vec(p, v[B_VELOCITY], "velocity", 3, "m/s", b.velocity)) return -1;
  if (v[B_ANGVEL] && get_vec(p, v[B_ANGVEL], "angular_velocity", 3, "rad/s", b.angular_velocity))
    return -1;
  if (v[B_MOTION]) {
    int e = 0;
    if (get_enum(p, v[B_MOTION], "motion", motion_names, 5, &e)) return -1;
    b.motion = (cmMotion)e;
  }
  if (v[B_FORCE] && get_vec(p, v[B_FORCE], "force", 3, "N", b.force)) return -1;
  if (v[B_MOMENT] && get_vec(p, v[B_MOMENT], "moment", 3, "N m", b.moment)) return -1;
  if (v[B_DEFORMABLE]) {
    if (b.motion != CM_MOTION_DEFORMABLE)
      return ERR(p, v[B_DEFORMABLE], CM_ERR_PARSE,
                 "%s: a body with a deformable section needs motion: deformable",
                 fpath(p, "deformable", fb, sizeof fb));
    if (parse_deformable(p, v[B_DEFORMABLE], &b)) return -1;
  }

  cmCheck c;
  if (cm_scene_add_body_checked(s, &b, &c) < 0) return check_failed(p, &c, b.name);
  return 0;
}

enum {
  R_PAIR,
  R_LAW,
  R_KA,
  R_STEP_DAMPING,
  R_STIFFNESS_DAMPING,
  R_ELASTIC_REPULSION,
  R_PLAY,
  R_CONTACT_TIME,
  R_MASS,
  R_STIFFNESS,
  R_DAMPING,
  R_FRICTION,
  R_STICK_VELOCITY,
  R_MIN_PERIOD,
  R_METHOD,
  R_DIRECTION,
  R_INTEGRATION,
  R_N
};
static const char* const rule_keys[] = {"pair",
                                        "law",
                                        "ka",
                                        "step_damping",
                                        "stiffness_damping",
                                        "elastic_repulsion",
                                        "play",
                                        "contact_time",
                                        "mass",
                                        "stiffness",
                                        "damping",
                                        "friction",
                                        "stick_velocity",
                                        "min_period",
                                        "method",
                                        "direction",
                                        "integration"};

#define LAW_BIT(l) (1 << (l))
#define LAWS_ALL 15
#define LAWS_COLLIDING (LAWS_ALL & ~LAW_BIT(CM_LAW_NONE))
/* the laws each rule key belongs to */
static const int rule_key_laws[R_N] = {LAWS_ALL,
                                       LAWS_ALL,
                                       LAW_BIT(CM_LAW_AREA_COMPLIANT),
                                       LAW_BIT(CM_LAW_AREA_COMPLIANT),
                                       LAW_BIT(CM_LAW_AREA_COMPLIANT),
                                       LAW_BIT(CM_LAW_CONTACT_TIME),
                                       LAW_BIT(CM_LAW_CONTACT_TIME),
                                       LAW_BIT(CM_LAW_CONTACT_TIME),
                                       LAW_BIT(CM_LAW_CONTACT_TIME),
                                       LAW_BIT(CM_LAW_LINEAR),
                                       LAW_BIT(CM_LAW_LINEAR),
                                       LAWS_COLLIDING,
                                       LAWS_COLLIDING,
                                       LAW_BIT(CM_LAW_AREA_COMPLIANT) | LAW_BIT(CM_LAW_LINEAR),
                                       LAWS_COLLIDING,
                                       LAWS_COLLIDING,
                                       LAWS_COLLIDING};

static int parse_rule(Parser* p, const yaml_node_t* n, int index, cmScene* s) {
  const yaml_node_t* v[R_N];
  char obj[32], fb[128];
  snprintf(obj, sizeof obj, "interactions[%d]", index);
  begin_obj(p, obj, n);
  if (get_map(p, n, "", rule_keys, R_N, v)) return -1;
  cmRuleDef r = cm_rule_def_default();
  r.loc = node_loc(n);
  if (!v[R_PAIR]) return missing(p, n, "", "pair", "two alias globs, e.g. [\"*\", \"ground\"]");
  if (get_str2(p, v[R_PAIR], "pair", "pair[0]", "pair[1]", r.pair)) return -1;
  if (v[R_LAW]) {
    int e = 0;
    if (get_enum(p, v[R_LAW], "law", law_names, 4, &e)) return -1;
    r.law = (cmLawType)e;
  }

  /* every parameter must belong to the rule's law */
  for (int k = R_KA; k < R_N; k++) {
    if (!v[k] || (rule_key_laws[k] & LAW_BIT(r.law))) continue;
    if (r.law == CM_LAW_NONE)
      return ERR(p, v[k], CM_ERR_PARSE,
                 "%s: law none (the pair does not collide) takes no parameters, got '%s'",
                 fpath(p, rule_keys[k], fb, sizeof fb), rule_keys[k]);
    /* the laws it belongs to, "law X" or "laws X and Y" */
    char owners[64] = "";
    int nown = 0;
    for (int l = 0; l < 3; l++) {
      if (!(rule_key_laws[k] & LAW_BIT(l))) continue;
      size_t len = strlen(owners);
      snprintf(owners + len, sizeof owners - len, "%s%s", nown ? " and " : "", law_names[l]);
      nown++;
    }
    return ERR(p, v[k], CM_ERR_PARSE,
               "%s: '%s' is a parameter of law%s %s, but this rule's law is %s%s",
               fpath(p, rule_keys[k], fb, sizeof fb), rule_keys[k], nown > 1 ? "s" : "", owners,
               law_names[r.law], v[R_LAW] ? "" : " (the default)");
  }

  static const struct {
    int key;
    const char* unit;
  } nums[] = {{R_KA, "N/m^3"},
              {R_STEP_DAMPING, ""},
              {R_STIFFNESS_DAMPING, "s"},
              {R_ELASTIC_REPULSION, ""},
              {R_PLAY, "m"},
              {R_CONTACT_TIME, "s"},
              {R_STIFFNESS, "N/m"},
              {R_DAMPING, "N s/m"},
              {R_FRICTION, ""},
              {R_STICK_VELOCITY, "m/s"},
              {R_MIN_PERIOD, "sub-steps"}};
  double* dst[] = {&r.ka,       &r.step_damping,   &r.stiffness_damping, &r.elastic_repulsion,
                   &r.play,     &r.contact_time,   &r.stiffness,         &r.damping,
                   &r.friction, &r.stick_velocity, &r.min_period};
  for (int i = 0; i < (int)(sizeof nums / sizeof nums[0]); i++) {
    int k = nums[i].key;
    if (v[k] && get_num(p, v[k], rule_keys[k], nums[i].unit, dst[i])) return -1;
  }
  /* in the API 0 means "the default 100 steps"; a file states T explicitly or omits it */
  if (v[R_CONTACT_TIME] && !(r.contact_time > 0))
    return ERR(p, v[R_CONTACT_TIME], CM_ERR_ARG,
               "%s: contact_time T must be > 0 s (got %.10g); omit it for the default "
               "100 * timestep",
               fpath(p, "contact_time", fb, sizeof fb), r.contact_time);
  int e;
  if (v[R_METHOD]) {
    if (get_enum(p, v[R_METHOD], "method", method_names, 5, &e)) return -1;
    r.method = (cmMethod)e;
  }
  if (v[R_MASS]) {
    if (get_enum(p, v[R_MASS], "mass", rep_mass_names, 2, &e)) return -1;
    r.mass = (cmRepMass)e;
  }
  if (v[R_DIRECTION]) {
    if (get_enum(p, v[R_DIRECTION], "direction", direction_names, 2, &e)) return -1;
    r.direction = (cmDirection)e;
  }
  if (v[R_INTEGRATION]) {
    if (get_enum(p, v[R_INTEGRATION], "integration", integration_names, 3, &e)) return -1;
    r.integration = (cmIntegration)e;
  }
  cmCheck c;
  if (cm_scene_add_rule_checked(s, &r, &c) < 0) return check_failed(p, &c, NULL);
  return 0;
}

static int parse_joint(Parser* p, const yaml_node_t* n, int index, cmScene* s) {
  static const char* const keys[] = {"bodies", "anchor"};
  const yaml_node_t* v[2];
  char obj[32];
  snprintf(obj, sizeof obj, "joints[%d]", index);
  begin_obj(p, obj, n);
  if (get_map(p, n, "", keys, 2, v)) return -1;
  cmJointDef j = cm_joint_def_default();
  j.loc = node_loc(n);
  if (!v[0]) return missing(p, n, "", "bodies", "two body names, or a body and world");
  if (get_str2(p, v[0], "bodies", "bodies[0]", "bodies[1]", j.body)) return -1;
  if (!v[1]) return missing(p, n, "", "anchor", "the world point [x, y, z] of the link, m");
  if (get_vec(p, v[1], "anchor", 3, "m", j.anchor)) return -1;
  cmCheck c;
  if (cm_scene_add_joint_checked(s, &j, &c) < 0) return check_failed(p, &c, NULL);
  return 0;
}

/* a list section (bodies, interactions, joints); null is an empty list */
static int parse_list(Parser* p, const yaml_node_t* n, const char* name, cmScene* s,
                      int (*fn)(Parser*, const yaml_node_t*, int, cmScene*)) {
  char gb[128];
  if (!n || is_null(n)) return 0;
  if (n->type != YAML_SEQUENCE_NODE)
    return ERR(p, n, CM_ERR_PARSE, "%s: expected a list (items starting with '- '), got %s", name,
               describe(n, gb, sizeof gb));
  int len = nitems(n);
  for (int i = 0; i < len; i++) {
    const yaml_node_t* e = item(p, n, i);
    if (!e) return ERR(p, n, CM_ERR_PARSE, "%s: malformed list", name);
    if (fn(p, e, i, s)) return -1;
  }
  return 0;
}

enum { T_SCENE, T_OUTPUT, T_BODIES, T_INTERACTIONS, T_JOINTS, T_N };
static const char* const top_keys[] = {"scene", "output", "bodies", "interactions", "joints"};

static int parse_root(Parser* p, const yaml_node_t* root, cmScene* s) {
  const yaml_node_t* v[T_N];
  begin_obj(p, "", NULL);
  if (get_map(p, root, "", top_keys, T_N, v)) return -1;
  if (v[T_SCENE] && parse_scene(p, v[T_SCENE], s)) return -1;
  if (v[T_OUTPUT] && parse_output(p, v[T_OUTPUT], &s->opt)) return -1;
  cmCheck c;
  if (cm_check_options(&s->opt, &c)) return check_failed(p, &c, NULL);
  if (parse_list(p, v[T_BODIES], "bodies", s, parse_body)) return -1;
  if (parse_list(p, v[T_INTERACTIONS], "interactions", s, parse_rule)) return -1;
  if (parse_list(p, v[T_JOINTS], "joints", s, parse_joint)) return -1;
  return 0;
}

/* ---- entry points ---- */

static cmStatus yaml_failed(const yaml_parser_t* yp, const char* file, char* err, size_t errsz) {
  const char* problem = yp->problem ? yp->problem : "malformed YAML";
  if (yp->error == YAML_MEMORY_ERROR)
    return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", file);
  if (yp->error == YAML_READER_ERROR)
    return cm_error(err, errsz, CM_ERR_PARSE, "%s: invalid text at byte %zu: %s", file,
                    yp->problem_offset, problem);
  char ctx[160] = "";
  if (yp->context)
    snprintf(ctx, sizeof ctx, " (%s at line %d)", yp->context, mark_line(&yp->context_mark));
  return cm_error(err, errsz, CM_ERR_PARSE, "%s:%d:%d: YAML syntax error: %s%s", file,
                  mark_line(&yp->problem_mark), mark_col(&yp->problem_mark), problem, ctx);
}

/* folder of a path ("." if none) and base name without extension */
static char* path_dir(const char* path) {
  const char* slash = path ? strrchr(path, '/') : NULL;
  if (!slash) return cm_strdup(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char* d = cm_malloc(n + 1);
  if (d) memcpy(d, path, n), d[n] = 0;
  return d;
}

static char* path_stem(const char* path) {
  const char* b = path ? strrchr(path, '/') : NULL;
  b = b ? b + 1 : (path ? path : "");
  const char* dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  if (n == 0) return cm_strdup("scene");
  char* s = cm_malloc(n + 1);
  if (s) memcpy(s, b, n), s[n] = 0;
  return s;
}

/* libyaml's scanner takes time quadratic in the nesting depth of flow collections ([ and {), so
 * deep nesting is refused before parsing. Brackets in comments and quoted strings are skipped;
 * returns the offset of the first bracket deeper than max, or len */
static size_t deep_flow(const char* t, size_t len, int max) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < len; i++) {
    char ch = t[i];
    int token_start = i == 0 || strchr(" \t\r\n[{,:", t[i - 1]) != NULL;
    if (quote) {
      if (ch == '\\' && quote == '"')
        i++;
      else if (ch == quote)
        quote = 0;
    } else if ((ch == '"' || ch == '\'') && token_start) {
      quote = ch;
    } else if (ch == '#' && (i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n')) {
      while (i < len && t[i] != '\n')
        i++;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max) return i;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      depth--;
    }
  }
  return len;
}

/* ---- tags ---- */

/* A YAML tag (`!!str 1.0e-3`, `!!float 1`, `!custom x`) asks for a type; comply reads every
 * value by its schema and used to ignore tags silently, so a tagged node is refused. libyaml's
 * document gives every untagged scalar the tag !!str, so an explicit `!!str` is told apart only
 * by the events: the first node event that carries a tag is found there (its text offset, line
 * and column), then its path in the document by a walk from the root. The walk visits every
 * node once (aliases may share nodes or make cycles) and at most TAG_DEPTH levels deep (the
 * schema has 7); a node beyond that is reported without a path. */
#define TAG_DEPTH 32

typedef struct TagFind {
  const yaml_document_t* doc;
  size_t at;     /* text offset of the tagged node */
  char* visited; /* per node id - 1 */
  char* path;
  size_t pathsz;
} TagFind;

/* 1 if the node with id reached from path[0..k) starts at f->at; path completed */
static int tag_path(TagFind* f, int id, size_t k, int depth) {
  yaml_node_t* n = yaml_document_get_node((yaml_document_t*)f->doc, id);
  if (!n || f->visited[id - 1] || depth > TAG_DEPTH || k >= f->pathsz - 1) return 0;
  f->visited[id - 1] = 1;
  if (n->start_mark.index == f->at) return 1;
  if (n->type == YAML_SEQUENCE_NODE) {
    for (yaml_node_item_t* it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
      int w =
          snprintf(f->path + k, f->pathsz - k, "[%d]", (int)(it - n->data.sequence.items.start));
      if (w > 0 && tag_path(f, *it, k + (size_t)w, depth + 1)) return 1;
    }
  } else if (n->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t* pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
      yaml_node_t* key = yaml_document_get_node((yaml_document_t*)f->doc, pr->key);
      char kb[48] = "?";
      if (key && key->type == YAML_SCALAR_NODE)
        cm_msg_str(kb, sizeof kb, sval(key), key->data.scalar.length);
      int w = snprintf(f->path + k, f->pathsz - k, "%s%s", k ? "." : "", kb);
      if (w <= 0) continue;
      /* the key itself may be the tagged node */
      if (key && key->start_mark.index == f->at) return 1;
      if (tag_path(f, pr->value, k + (size_t)w, depth + 1)) return 1;
    }
  }
  f->path[k] = 0;
  return 0;
}

/* 0 if no node of the text has a tag; else an error naming the first one (-1) */
static int refuse_tags(const char* text, size_t len, yaml_document_t* doc, const char* file,
                       char* err, size_t errsz, cmStatus* st) {
  yaml_parser_t yp;
  if (!yaml_parser_initialize(&yp)) {
    *st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", file);
    return -1;
  }
  yaml_parser_set_input_string(&yp, (const unsigned char*)text, len);
  char tag[64] = "";
  yaml_mark_t mark = {0, 0, 0};
  int found = 0;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&yp, &ev)) break; /* the loader has reported syntax errors */
    const yaml_char_t* t = ev.type == YAML_SCALAR_EVENT           ? ev.data.scalar.tag
                           : ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.tag
                           : ev.type == YAML_MAPPING_START_EVENT  ? ev.data.mapping_start.tag
                                                                  : NULL;
    int end = ev.type == YAML_STREAM_END_EVENT;
    if (t) {
      /* tag:yaml.org,2002:str is written !!str */
      const char* ts = (const char*)t;
      const char* std = "tag:yaml.org,2002:";
      if (!strncmp(ts, std, strlen(std)))
        snprintf(tag, sizeof tag, "!!%.50s", ts + strlen(std));
      else
        cm_msg_str(tag, sizeof tag, ts, strlen(ts));
      mark = ev.start_mark;
      found = 1;
    }
    yaml_event_delete(&ev);
    if (found || end) break;
  }
  yaml_parser_delete(&yp);
  if (!found) return 0;

  /* the tagged node's path */
  char path[256] = "";
  TagFind f = {doc, mark.index, NULL, path, sizeof path};
  size_t nn = (size_t)(doc->nodes.top - doc->nodes.start);
  f.visited = cm_calloc(nn ? nn : 1, 1);
  if (!f.visited) {
    *st = cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory", file);
    return -1;
  }
  if (!tag_path(&f, 1, 0, 0)) path[0] = 0;
  cm_free(f.visited);
  *st = cm_error(err, errsz, CM_ERR_PARSE,
                 "%s:%d:%d: %s%sYAML tags such as '%s' are not supported: comply reads each value "
                 "by its key (write the value without the tag)",
                 file, mark_line(&mark), mark_col(&mark), path, *path ? ": " : "", tag);
  return -1;
}

#define MAX_FLOW_DEPTH 256

/* largest scene file read, bytes (64 MiB: a scene of some 300,000 bodies; docs/scene-format.md) */
#define SCENE_FILE_MAX ((size_t)64 << 20)

cmStatus cm_scene_parse(const char* text, size_t len, const char* name, cmScene** out, char* err,
                        size_t errsz) {
  CM_ASSERT(out);
  *out = NULL;
  char fb[256];
  const char* file = name ? cm_msg_str(fb, sizeof fb, name, strlen(name)) : "scene";
  size_t deep = text ? deep_flow(text, len, MAX_FLOW_DEPTH) : len;
  if (deep < len) {
    int line = 1, col = 1;
    for (size_t i = 0; i < deep; i++)
      text[i] == '\n' ? (line++, col = 1) : col++;
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "%s:%d:%d: lists and mappings nested deeper than %d levels", file, line, col,
                    MAX_FLOW_DEPTH);
  }
  yaml_parser_t yp;
  yaml_document_t doc, doc2;
  if (!yaml_parser_initialize(&yp)) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  yaml_parser_set_input_string(&yp, (const unsigned char*)(text ? text : ""), text ? len : 0);
  if (!yaml_parser_load(&yp, &doc)) {
    cmStatus st = yaml_failed(&yp, file, err, errsz);
    yaml_parser_delete(&yp);
    return st;
  }

  cmStatus st = CM_OK;
  cmScene* s = NULL;
  const yaml_node_t* root = yaml_document_get_root_node(&doc);
  if (!root || is_null(root)) {
    st = cm_error(err, errsz, CM_ERR_PARSE,
                  "%s: the scene is empty (expected a mapping with scene, output, bodies, "
                  "interactions, joints)",
                  file);
    goto done;
  }
  /* a second document is an error */
  if (!yaml_parser_load(&yp, &doc2)) {
    st = yaml_failed(&yp, file, err, errsz);
    goto done;
  }
  const yaml_node_t* root2 = yaml_document_get_root_node(&doc2);
  int line2 = root2 ? mark_line(&root2->start_mark) : 0;
  yaml_document_delete(&doc2);
  if (root2) {
    st = cm_error(err, errsz, CM_ERR_PARSE,
                  "%s:%d:1: only one YAML document is allowed in a scene file", file, line2);
    goto done;
  }

  if (refuse_tags(text ? text : "", text ? len : 0, &doc, file, err, errsz, &st)) goto done;

  s = cm_scene_new(NULL);
  if (!s) {
    st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
    goto done;
  }
  cm_free(s->name);
  cm_free(s->dir);
  s->name = path_stem(name);
  s->dir = path_dir(name);
  s->file = name ? cm_strdup(name) : NULL;
  if (!s->name || !s->dir || (name && !s->file)) {
    st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
    goto done;
  }

  Parser p;
  memset(&p, 0, sizeof p);
  p.doc = &doc;
  p.file = file;
  p.err = err;
  p.errsz = errsz;
  p.st = CM_OK;
  if (parse_root(&p, root, s)) {
    st = p.st != CM_OK ? p.st : CM_ERR_PARSE;
    goto done;
  }
  st = cm_scene_validate(s, err, errsz);

done:
  yaml_document_delete(&doc);
  yaml_parser_delete(&yp);
  if (st != CM_OK) {
    cm_scene_free(s);
    return st;
  }
  if (err && errsz) err[0] = 0;
  *out = s;
  return CM_OK;
}

cmStatus cm_scene_load(const char* path, cmScene** out, char* err, size_t errsz) {
  CM_ASSERT(path && out);
  *out = NULL;
  char fb[256];
  const char* file = cm_msg_str(fb, sizeof fb, path, strlen(path));

  /* the whole file: a regular file (a FIFO would wait for a writer, /dev/zero never ends) of
   * at most SCENE_FILE_MAX bytes */
  char* buf;
  size_t len;
  switch (cm_file_read(path, SCENE_FILE_MAX, CM_FILE_REGULAR, &buf, &len)) {
  case CM_FILE_OK:
    break;
  case CM_FILE_OPEN: /* (errno is open's: cm_file_read keeps it) */
    return cm_error(err, errsz, CM_ERR_IO, "%s: cannot open the scene file: %s", file,
                    strerror(errno));
  case CM_FILE_NOT_REGULAR:
    return cm_error(err, errsz, CM_ERR_IO,
                    "%s: %s, not a regular file (a scene is read from a file)", file,
                    cm_file_kind(path));
  case CM_FILE_LIMIT:
    return cm_error(err, errsz, CM_ERR_LIMIT,
                    "%s: file larger than the limit of %zu bytes (%zu MiB) for a scene file", file,
                    (size_t)SCENE_FILE_MAX, (size_t)SCENE_FILE_MAX >> 20);
  case CM_FILE_NOMEM:
    return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory reading the file", file);
  default: /* CM_FILE_READ */
    return cm_error(err, errsz, CM_ERR_IO, "%s: read error", file);
  }
  cmStatus st = cm_scene_parse(buf, len, path, out, err, errsz);
  cm_free(buf);
  return st;
}
