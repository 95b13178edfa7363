/* The sweep file of `comply sweep` (docs/sweeps.md) and the variant scenes.
 *
 * The sweep file is read with libyaml's document API (every node with its line and column):
 *
 *   scene: base.yaml                  # relative to the sweep file's folder
 *   vary:
 *     - path: interactions[1].ka      # a path into the base scene's document
 *       values: [1.0e9, 1.0e10]       # or range: {from: A, to: B, count: N, scale: linear|log}
 *   combine: grid                     # or zip
 *   collect: [penetration(box), restitution(ball), max_pressure, wall_time]
 *
 * Paths. Segments separated by '.', each a mapping key followed by any number of selectors
 * [K]: K all digits selects the K-th item of a sequence (from 0), anything else the item of a
 * sequence of mappings whose `name` is K (bodies[ball]). The path must end on a scalar that
 * exists in the base scene (a typo cannot become a new key), and is checked when the sweep
 * file is read.
 *
 * Variants. Variant v takes for parameter p the value index (v / D_p) mod n_p with D_p the
 * product of the counts of the parameters after p (the first parameter varies slowest, as in
 * nested loops in the file's order), or v itself with `combine: zip` (equal counts). Its scene
 * is the base scene's document, loaded again, each parameter's scalar replaced by a new node
 * holding the value, relative mesh paths (bodies[*].geometry.mesh.file) made absolute (the
 * variant's scene lives in another folder), and emitted by libyaml: the scene parser reads it
 * like any scene file, with every check. A range's numbers: from + (to - from) i / (count - 1),
 * or with scale log 10^(a + (b - a) i / (count - 1)), a = log10 |from|, b = log10 |to|, with
 * from's sign; the last is exactly `to`; each rounded to 15 significant digits (so that a
 * decade is 1e7, not the 9999999.999999998 of a rounded power) and written in the shortest
 * form that reads back exactly (integers as integers). */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "cli.h"

/* ---- small helpers ---- */

static char* xstrdup(const char* s) {
  size_t n = strlen(s) + 1;
  char* p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static char* xstrndup(const char* s, size_t n) {
  char* p = malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int
fail(char* err, size_t errsz, const yaml_node_t* at, const char* fmt, ...);

static const char* g_file = ""; /* the sweep file named in messages (set by sweep_load) */

static int fail(char* err, size_t errsz, const yaml_node_t* at, const char* fmt, ...) {
  size_t used = 0;
  if (at)
    used =
        (size_t)snprintf(err, errsz, "%s:%lu:%lu: ", g_file, (unsigned long)at->start_mark.line + 1,
                         (unsigned long)at->start_mark.column + 1);
  else
    used = (size_t)snprintf(err, errsz, "%s: ", g_file);
  if (used < errsz) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + used, errsz - used, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* what a path that is not a regular file is, for the message */
static const char* file_kind(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO (named pipe)"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

/* the whole file into *text; -1 with errno set, or -2 with *kind set when the path is not a
 * regular file (opened without blocking and checked before anything is read: a FIFO with no
 * writer would block the sweep forever, /dev/zero would never end) */
static int read_file(const char* path, char** text, size_t* len, const char** kind) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    *kind = file_kind(sb.st_mode);
    close(fd);
    return -2;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    if (cap > ((size_t)64 << 20)) { /* the scene parser's limit */
      free(buf);
      buf = NULL;
      errno = EFBIG;
      break;
    }
    char* nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  int bad = buf && ferror(f);
  int e = errno;
  fclose(f);
  if (!buf || bad) {
    free(buf);
    errno = bad ? EIO : e;
    return -1;
  }
  *text = buf;
  *len = n;
  return 0;
}

void sweep_format_number(double x, char* buf, size_t n) {
  if (x == floor(x) && fabs(x) < 1e15) { /* integers as integers: 200, not 2e+02 */
    snprintf(buf, n, "%.0f", x == 0 ? 0.0 : x);
    return;
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, x);
    if (strtod(buf, NULL) == x) return;
  }
}

static yaml_node_t* node(yaml_document_t* d, int id) {
  return yaml_document_get_node(d, id);
}

static const char* scalar(const yaml_node_t* n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char*)n->data.scalar.value : NULL;
}

/* the value of key k in mapping m, NULL if none */
static yaml_node_t* map_get(yaml_document_t* d, yaml_node_t* m, const char* k) {
  if (!m || m->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t* p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const char* key = scalar(node(d, p->key));
    if (key && strcmp(key, k) == 0) return node(d, p->value);
  }
  return NULL;
}

/* every key of m is one of keys[], and none is given twice (map_get would take the first and
 * drop the other without a word); else an error naming the field */
static int known_keys(yaml_document_t* d, yaml_node_t* m, const char* field,
                      const char* const* keys, int nkey, char* err, size_t errsz) {
  for (yaml_node_pair_t* p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    yaml_node_t* kn = node(d, p->key);
    const char* key = scalar(kn);
    for (yaml_node_pair_t* q = m->data.mapping.pairs.start; key && q < p; q++) {
      const char* before = scalar(node(d, q->key));
      if (before && strcmp(before, key) == 0)
        return fail(err, errsz, kn, "%s%s%s: duplicate key (given at line %lu too)", field,
                    *field ? "." : "", key, (unsigned long)node(d, q->key)->start_mark.line + 1);
    }
    int ok = 0;
    for (int i = 0; key && i < nkey; i++)
      ok |= strcmp(key, keys[i]) == 0;
    if (!ok) {
      char list[256] = "";
      size_t u = 0;
      for (int i = 0; i < nkey && u < sizeof list; i++)
        u += (size_t)snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", keys[i]);
      return fail(err, errsz, kn, "%s%s%s: unknown key (expected one of: %s)", field,
                  *field ? "." : "", key ? key : "(not a scalar)", list);
    }
  }
  return 0;
}

static int parse_number(const char* s, double* out) {
  if (!s || !*s || isspace((unsigned char)*s)) return -1;
  for (const char* c = s; *c; c++)
    if (*c == 'x' || *c == 'X' || *c == 'n' || *c == 'N' || *c == 'i' || *c == 'I') return -1;
  errno = 0;
  char* end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int load_doc(const char* text, size_t len, yaml_document_t* doc) {
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) return -1;
  yaml_parser_set_input_string(&p, (const unsigned char*)text, len);
  int ok = yaml_parser_load(&p, doc);
  yaml_parser_delete(&p);
  return ok ? 0 : -1;
}

/* ---- paths ---- */

/* Resolve path in doc. On success *slot points at the node id to replace (a sequence item or
 * a mapping pair's value) and the target is a scalar. On error a message (no location). */
static int resolve(yaml_document_t* d, const char* path, yaml_node_item_t** slot, char* msg,
                   size_t msgsz) {
  yaml_node_t* cur = yaml_document_get_root_node(d);
  yaml_node_item_t* where = NULL;
  const char* c = path;
  char seen[512] = ""; /* the part resolved so far, for messages */
  size_t used = 0;
  if (!cur) return snprintf(msg, msgsz, "the base scene is empty"), -1;
  while (*c) {
    /* a key */
    const char* k0 = c;
    while (*c && (isalnum((unsigned char)*c) || *c == '_'))
      c++;
    if (c == k0) {
      snprintf(msg, msgsz, "'%s': expected a key at '%s'", path, k0);
      return -1;
    }
    char key[128];
    if ((size_t)(c - k0) >= sizeof key) return snprintf(msg, msgsz, "'%s': key too long", path), -1;
    memcpy(key, k0, (size_t)(c - k0));
    key[c - k0] = 0;
    if (cur->type != YAML_MAPPING_NODE) {
      snprintf(msg, msgsz, "'%s': %s is not a mapping (no key '%s')", path,
               used ? seen : "the document", key);
      return -1;
    }
    yaml_node_pair_t* hit = NULL;
    for (yaml_node_pair_t* p = cur->data.mapping.pairs.start; p < cur->data.mapping.pairs.top;
         p++) {
      const char* kk = scalar(node(d, p->key));
      if (kk && strcmp(kk, key) == 0) hit = p;
    }
    if (!hit) {
      snprintf(msg, msgsz,
               "'%s': no key '%s' in %s of the base scene (a varied value must be written in "
               "the base scene)",
               path, key, used ? seen : "the top level");
      return -1;
    }
    where = &hit->value;
    cur = node(d, hit->value);
    used += (size_t)snprintf(seen + used, used < sizeof seen ? sizeof seen - used : 0, "%s%s",
                             used ? "." : "", key);
    if (used >= sizeof seen) used = sizeof seen - 1;
    /* selectors */
    while (*c == '[') {
      const char* s0 = ++c;
      while (*c && *c != ']')
        c++;
      if (*c != ']' || c == s0) {
        snprintf(msg, msgsz, "'%s': a selector [..] is empty or not closed", path);
        return -1;
      }
      char sel[128];
      if ((size_t)(c - s0) >= sizeof sel)
        return snprintf(msg, msgsz, "'%s': selector too long", path), -1;
      memcpy(sel, s0, (size_t)(c - s0));
      sel[c - s0] = 0;
      c++;
      if (cur->type != YAML_SEQUENCE_NODE) {
        snprintf(msg, msgsz, "'%s': %s is not a list (cannot select [%s])", path, seen, sel);
        return -1;
      }
      long nitem = (long)(cur->data.sequence.items.top - cur->data.sequence.items.start);
      int digits = 1;
      for (const char* q = sel; *q; q++)
        digits &= isdigit((unsigned char)*q) != 0;
      yaml_node_item_t* item = NULL;
      if (digits) {
        long i = strtol(sel, NULL, 10);
        if (i >= nitem || strlen(sel) > 9) {
          snprintf(msg, msgsz, "'%s': %s has %ld item%s, no [%s] (items count from 0)", path, seen,
                   nitem, nitem == 1 ? "" : "s", sel);
          return -1;
        }
        item = cur->data.sequence.items.start + i;
      } else {
        for (yaml_node_item_t* it = cur->data.sequence.items.start;
             it < cur->data.sequence.items.top; it++) {
          const char* nm = scalar(map_get(d, node(d, *it), "name"));
          if (nm && strcmp(nm, sel) == 0) item = it;
        }
        if (!item) {
          snprintf(msg, msgsz, "'%s': no item of %s has name '%s'", path, seen, sel);
          return -1;
        }
      }
      where = item;
      cur = node(d, *item);
      used +=
          (size_t)snprintf(seen + used, used < sizeof seen ? sizeof seen - used : 0, "[%s]", sel);
      if (used >= sizeof seen) used = sizeof seen - 1;
    }
    if (*c == '.') {
      c++;
      if (!*c) return snprintf(msg, msgsz, "'%s': ends with '.'", path), -1;
    } else if (*c) {
      snprintf(msg, msgsz, "'%s': unexpected '%c' after %s", path, *c, seen);
      return -1;
    }
  }
  if (cur->type != YAML_SCALAR_NODE) {
    snprintf(msg, msgsz, "'%s': %s is a %s, not a single value", path, seen,
             cur->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
    return -1;
  }
  *slot = where;
  return 0;
}

/* ---- the sweep file ---- */

static const struct {
  const char* name;
  SweepQuantity q;
  int body; /* 1 required, 0 none, 2 optional */
} QUANTITIES[] = {
    {"penetration", SQ_PENETRATION, 1},
    {"max_penetration", SQ_MAX_PENETRATION, 1},
    {"restitution", SQ_RESTITUTION, 1},
    {"impact_speed", SQ_IMPACT_SPEED, 1},
    {"rebound_speed", SQ_REBOUND_SPEED, 1},
    {"max_pressure", SQ_MAX_PRESSURE, 2},
    {"final_position", SQ_FINAL_POSITION, 1},
    {"final_pose", SQ_FINAL_POSE, 1},
    {"wall_time", SQ_WALL_TIME, 0},
    {"newton_iterations", SQ_NEWTON, 0},
    {"steps", SQ_STEPS, 0},
    {"warnings", SQ_WARNINGS, 0},
};
enum { NQUANTITY = sizeof QUANTITIES / sizeof QUANTITIES[0] };

/* is there a body of that name in the base scene's bodies list? */
static int base_has_body(yaml_document_t* base, const char* name) {
  yaml_node_t* bodies = map_get(base, yaml_document_get_root_node(base), "bodies");
  if (!bodies || bodies->type != YAML_SEQUENCE_NODE) return 0;
  for (yaml_node_item_t* it = bodies->data.sequence.items.start;
       it < bodies->data.sequence.items.top; it++) {
    const char* nm = scalar(map_get(base, node(base, *it), "name"));
    if (nm && strcmp(nm, name) == 0) return 1;
  }
  return 0;
}

static int parse_collect(yaml_document_t* d, yaml_node_t* list, yaml_document_t* base, Sweep* s,
                         char* err, size_t errsz) {
  if (list->type != YAML_SEQUENCE_NODE)
    return fail(err, errsz, list, "collect: expected a list of quantities");
  long n = (long)(list->data.sequence.items.top - list->data.sequence.items.start);
  s->collect = calloc((size_t)(n ? n : 1), sizeof *s->collect);
  if (!s->collect) return fail(err, errsz, NULL, "out of memory");
  for (long i = 0; i < n; i++) {
    yaml_node_t* it = node(d, list->data.sequence.items.start[i]);
    const char* t = scalar(it);
    if (!t) return fail(err, errsz, it, "collect[%ld]: expected a quantity name", i);
    const char* open = strchr(t, '(');
    size_t nl = open ? (size_t)(open - t) : strlen(t);
    int k = -1;
    for (int q = 0; q < NQUANTITY; q++)
      if (strlen(QUANTITIES[q].name) == nl && strncmp(QUANTITIES[q].name, t, nl) == 0) k = q;
    if (k < 0) {
      char list_[512] = "";
      size_t u = 0;
      for (int q = 0; q < NQUANTITY && u < sizeof list_; q++)
        u += (size_t)snprintf(list_ + u, sizeof list_ - u, "%s%s%s", q ? ", " : "",
                              QUANTITIES[q].name,
                              QUANTITIES[q].body == 1   ? "(BODY)"
                              : QUANTITIES[q].body == 2 ? "[(BODY)]"
                                                        : "");
      return fail(err, errsz, it, "collect[%ld]: unknown quantity '%s' (expected one of: %s)", i, t,
                  list_);
    }
    char* body = NULL;
    if (open) {
      size_t tl = strlen(t);
      if (tl < nl + 3 || t[tl - 1] != ')')
        return fail(err, errsz, it, "collect[%ld]: '%s': expected NAME(BODY)", i, t);
      body = xstrndup(open + 1, tl - nl - 2);
    }
    SweepCollect* c = &s->collect[s->ncollect++];
    c->q = QUANTITIES[k].q;
    c->body = body;
    c->name = xstrdup(t);
    if (!c->name || (open && !body)) return fail(err, errsz, NULL, "out of memory");
    if (QUANTITIES[k].body == 1 && !body)
      return fail(err, errsz, it, "collect[%ld]: %s needs a body: %s(BODY)", i, t, t);
    if (QUANTITIES[k].body == 0 && body)
      return fail(err, errsz, it, "collect[%ld]: %s takes no body", i, QUANTITIES[k].name);
    if (body && !base_has_body(base, body))
      return fail(err, errsz, it, "collect[%ld]: no body named '%s' in the base scene %s", i, body,
                  s->scene_path);
  }
  return 0;
}

static int add_value(SweepParam* p, const char* text, int quoted) {
  p->value[p->nvalue] = xstrdup(text);
  p->quoted[p->nvalue] = quoted;
  if (!p->value[p->nvalue]) return -1;
  p->nvalue++;
  return 0;
}

static int parse_range(yaml_document_t* d, yaml_node_t* r, SweepParam* p, long i, char* err,
                       size_t errsz) {
  static const char* const keys[] = {"from", "to", "count", "scale"};
  char field[64];
  snprintf(field, sizeof field, "vary[%ld].range", i);
  if (r->type != YAML_MAPPING_NODE)
    return fail(err, errsz, r, "%s: expected {from: A, to: B, count: N[, scale: log]}", field);
  if (known_keys(d, r, field, keys, 4, err, errsz)) return -1;
  double v[3];
  for (int k = 0; k < 3; k++) {
    yaml_node_t* n = map_get(d, r, keys[k]);
    if (!n) return fail(err, errsz, r, "%s.%s: missing (a number)", field, keys[k]);
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
      return fail(err, errsz, n, "%s.%s: expected a number, not a quoted string (got '%s')",
                  field, keys[k], scalar(n));
    if (parse_number(scalar(n), &v[k]))
      return fail(err, errsz, n, "%s.%s: expected a finite number (got '%s')", field, keys[k],
                  scalar(n) ? scalar(n) : "a list or mapping");
  }
  yaml_node_t* cn = map_get(d, r, "count");
  if (v[2] < 1 || v[2] > 1e6 || v[2] != floor(v[2]))
    return fail(err, errsz, cn, "%s.count: expected an integer from 1 to 1000000 (got %s)", field,
                scalar(cn));
  int logscale = 0;
  yaml_node_t* sn = map_get(d, r, "scale");
  if (sn) {
    const char* st = scalar(sn);
    if (st && strcmp(st, "log") == 0)
      logscale = 1;
    else if (!st || strcmp(st, "linear") != 0)
      return fail(err, errsz, sn, "%s.scale: expected linear or log (got '%s')", field,
                  st ? st : "a list or mapping");
  }
  if (logscale && !((v[0] > 0 && v[1] > 0) || (v[0] < 0 && v[1] < 0)))
    return fail(err, errsz, r,
                "%s: a log range needs from and to of the same sign, not zero "
                "(got %s to %s)",
                field, scalar(map_get(d, r, "from")), scalar(map_get(d, r, "to")));
  long n = (long)v[2];
  if (n == 1 && v[0] != v[1])
    return fail(err, errsz, cn,
                "%s.count: 1 would take from alone and drop to (got %s to %s): give count >= 2, "
                "or values: [A] for one value",
                field, scalar(map_get(d, r, "from")), scalar(map_get(d, r, "to")));
  p->value = calloc((size_t)n, sizeof *p->value);
  p->quoted = calloc((size_t)n, sizeof *p->quoted);
  if (!p->value || !p->quoted) return fail(err, errsz, NULL, "out of memory");
  for (long k = 0; k < n; k++) {
    double t = n > 1 ? (double)k / (double)(n - 1) : 0;
    double x = v[0] + (v[1] - v[0]) * t;
    if (!isfinite(x)) x = v[0] * (1 - t) + v[1] * t; /* to - from beyond the largest double */
    if (logscale) {
      double a = log10(fabs(v[0])), b = log10(fabs(v[1]));
      x = copysign(pow(10, a + (b - a) * t), v[0]);
    }
    if (k == n - 1 && n > 1) x = v[1];
    /* 15 significant digits: 1e7, not the 9999999.999999998 of a rounded power */
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", x);
    if (!isfinite(strtod(buf, NULL)))
      return fail(err, errsz, r, "%s: value %ld of the range is not a finite number", field, k);
    sweep_format_number(strtod(buf, NULL), buf, sizeof buf);
    if (add_value(p, buf, 0)) return fail(err, errsz, NULL, "out of memory");
  }
  return 0;
}

static int parse_vary(yaml_document_t* d, yaml_node_t* list, yaml_document_t* base, Sweep* s,
                      char* err, size_t errsz) {
  if (list->type != YAML_SEQUENCE_NODE)
    return fail(err, errsz, list, "vary: expected a list of {path, values or range}");
  long n = (long)(list->data.sequence.items.top - list->data.sequence.items.start);
  if (n == 0) return fail(err, errsz, list, "vary: expected at least one parameter");
  if (n > 64) return fail(err, errsz, list, "vary: at most 64 parameters (got %ld)", n);
  s->param = calloc((size_t)n, sizeof *s->param);
  if (!s->param) return fail(err, errsz, NULL, "out of memory");
  for (long i = 0; i < n; i++) {
    yaml_node_t* it = node(d, list->data.sequence.items.start[i]);
    SweepParam* p = &s->param[s->nparam++];
    char field[64];
    snprintf(field, sizeof field, "vary[%ld]", i);
    if (it->type != YAML_MAPPING_NODE)
      return fail(err, errsz, it, "%s: expected {path: P, values: [..]} or {path: P, range: {..}}",
                  field);
    static const char* const keys[] = {"path", "values", "range"};
    if (known_keys(d, it, field, keys, 3, err, errsz)) return -1;
    yaml_node_t* pn = map_get(d, it, "path");
    if (!pn || !scalar(pn))
      return fail(err, errsz, pn ? pn : it, "%s.path: missing (a path such as interactions[0].ka)",
                  field);
    p->path = xstrdup(scalar(pn));
    p->line = (int)pn->start_mark.line + 1;
    p->col = (int)pn->start_mark.column + 1;
    if (!p->path) return fail(err, errsz, NULL, "out of memory");
    yaml_node_item_t* slot;
    char msg[768];
    if (resolve(base, p->path, &slot, msg, sizeof msg))
      return fail(err, errsz, pn, "%s.path: %s", field, msg);
    /* interactions[K].KEY with a numeric rule parameter: the model can be reused */
    p->rule = p->field = -1;
    if (strncmp(p->path, "interactions[", 13) == 0 && isdigit((unsigned char)p->path[13])) {
      char* end = NULL;
      long k = strtol(p->path + 13, &end, 10);
      if (end && end[0] == ']' && end[1] == '.' && (p->field = sweep_rule_field(end + 2)) >= 0)
        p->rule = (int)k;
      else
        p->field = -1;
    }
    /* bodies[SEL].position[k] (velocity, angular_velocity): the initial state */
    if (strncmp(p->path, "bodies[", 7) == 0) {
      static const char* const keys_[] = {"position", "velocity", "angular_velocity"};
      const char* close = strchr(p->path + 7, ']');
      for (int k = 0; close && close[1] == '.' && k < 3; k++) {
        size_t kl = strlen(keys_[k]);
        const char* c = close + 2;
        if (strncmp(c, keys_[k], kl) == 0 && c[kl] == '[' && c[kl + 1] >= '0' &&
            c[kl + 1] <= '2' && c[kl + 2] == ']' && !c[kl + 3]) {
          p->body = xstrndup(p->path + 7, (size_t)(close - p->path - 7));
          if (!p->body) return fail(err, errsz, NULL, "out of memory");
          p->field = SWEEP_BODY_FIELD + k;
          p->comp = c[kl + 1] - '0';
        }
      }
    }
    yaml_node_t* vn = map_get(d, it, "values");
    yaml_node_t* rn = map_get(d, it, "range");
    if (!!vn == !!rn)
      return fail(err, errsz, it, "%s: expected either values: [..] or range: {..}", field);
    if (rn) {
      if (parse_range(d, rn, p, i, err, errsz)) return -1;
      continue;
    }
    if (vn->type != YAML_SEQUENCE_NODE)
      return fail(err, errsz, vn, "%s.values: expected a list of values", field);
    long nv = (long)(vn->data.sequence.items.top - vn->data.sequence.items.start);
    if (nv == 0) return fail(err, errsz, vn, "%s.values: the list is empty", field);
    p->value = calloc((size_t)nv, sizeof *p->value);
    p->quoted = calloc((size_t)nv, sizeof *p->quoted);
    if (!p->value || !p->quoted) return fail(err, errsz, NULL, "out of memory");
    for (long k = 0; k < nv; k++) {
      yaml_node_t* x = node(d, vn->data.sequence.items.start[k]);
      if (!scalar(x))
        return fail(err, errsz, x, "%s.values[%ld]: expected a single value, not a %s", field, k,
                    x->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
      if (add_value(p, scalar(x), x->data.scalar.style != YAML_PLAIN_SCALAR_STYLE))
        return fail(err, errsz, NULL, "out of memory");
    }
  }
  return 0;
}

static int csv_field(char* buf, size_t n, const char* s);

static int make_header(Sweep* s) {
  size_t cap = 256;
  for (int p = 0; p < s->nparam; p++)
    cap += 2 * strlen(s->param[p].path) + 4;
  for (int c = 0; c < s->ncollect; c++)
    cap += 7 * (2 * strlen(s->collect[c].name) + 8);
  s->header = malloc(cap);
  if (!s->header) return -1;
  size_t u = (size_t)snprintf(s->header, cap, "variant");
  for (int p = 0; p < s->nparam; p++) {
    s->header[u++] = ',';
    u += (size_t)csv_field(s->header + u, cap - u, s->param[p].path);
  }
  u += (size_t)snprintf(s->header + u, cap - u, ",status");
  static const char* const pose[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  for (int c = 0; c < s->ncollect; c++) {
    int ncomp = s->collect[c].q == SQ_FINAL_POSE ? 7 : s->collect[c].q == SQ_FINAL_POSITION ? 3 : 0;
    for (int k = 0; k < (ncomp ? ncomp : 1); k++) {
      char name[600];
      snprintf(name, sizeof name, "%s%s%s", s->collect[c].name, ncomp ? "." : "",
               ncomp ? pose[k] : "");
      s->header[u++] = ',';
      u += (size_t)csv_field(s->header + u, cap - u, name);
    }
  }
  snprintf(s->header + u, cap - u, ",error");
  return 0;
}

/* a CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break; line
 * breaks become spaces so that a row is one line. Returns the length written. */
static int csv_field(char* buf, size_t n, const char* s) {
  int quote = strpbrk(s, ",\"\n\r") != NULL;
  size_t u = 0;
  if (quote && u + 1 < n) buf[u++] = '"';
  for (const char* c = s; *c && u + 2 < n; c++) {
    if (*c == '"') buf[u++] = '"';
    buf[u++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
  }
  if (quote && u + 1 < n) buf[u++] = '"';
  buf[u < n ? u : n - 1] = 0;
  return (int)u;
}

void sweep_free(Sweep* s) {
  for (int p = 0; p < s->nparam; p++) {
    for (int k = 0; k < s->param[p].nvalue; k++)
      free(s->param[p].value[k]);
    free(s->param[p].value);
    free(s->param[p].quoted);
    free(s->param[p].path);
    free(s->param[p].body);
  }
  for (int c = 0; c < s->ncollect; c++) {
    free(s->collect[c].body);
    free(s->collect[c].name);
  }
  free(s->param);
  free(s->collect);
  free(s->file);
  free(s->scene_path);
  free(s->scene_dir);
  free(s->scene_text);
  free(s->header);
  memset(s, 0, sizeof *s);
}

int sweep_load(const char* path, Sweep* s, char* err, size_t errsz) {
  memset(s, 0, sizeof *s);
  g_file = path;
  char* text = NULL;
  size_t len = 0;
  const char* kind = NULL;
  int rd = read_file(path, &text, &len, &kind);
  if (rd == -2) return fail(err, errsz, NULL, "the sweep file is %s, not a regular file", kind);
  if (rd) return fail(err, errsz, NULL, "cannot read the sweep file: %s", strerror(errno));
  yaml_document_t doc, base;
  int have_doc = 0, have_base = 0, rc = -1;
  {
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
      free(text);
      return fail(err, errsz, NULL, "out of memory");
    }
    yaml_parser_set_input_string(&p, (const unsigned char*)text, len);
    if (!yaml_parser_load(&p, &doc)) {
      snprintf(err, errsz, "%s:%lu:%lu: %s", path, (unsigned long)p.problem_mark.line + 1,
               (unsigned long)p.problem_mark.column + 1, p.problem ? p.problem : "YAML error");
      yaml_parser_delete(&p);
      free(text);
      return -1;
    }
    yaml_parser_delete(&p);
    have_doc = 1;
  }
  s->file = xstrdup(path);
  yaml_node_t* root = yaml_document_get_root_node(&doc);
  if (!root || root->type != YAML_MAPPING_NODE) {
    fail(err, errsz, root, "expected a mapping with scene, vary, combine and collect");
    goto done;
  }
  static const char* const keys[] = {"scene", "vary", "combine", "collect"};
  if (known_keys(&doc, root, "", keys, 4, err, errsz)) goto done;

  /* the base scene, relative to the sweep file's folder */
  yaml_node_t* sn = map_get(&doc, root, "scene");
  if (!sn || !scalar(sn) || !*scalar(sn)) {
    fail(err, errsz, sn ? sn : root, "scene: missing (the path of the base scene file)");
    goto done;
  }
  {
    const char* sp = scalar(sn);
    const char* slash = strrchr(path, '/');
    size_t dl = (sp[0] != '/' && slash) ? (size_t)(slash - path) + 1 : 0;
    s->scene_path = malloc(dl + strlen(sp) + 1);
    if (!s->scene_path) goto nomem;
    memcpy(s->scene_path, path, dl);
    strcpy(s->scene_path + dl, sp);
    const char* skind = NULL;
    int srd = read_file(s->scene_path, &s->scene_text, &s->scene_len, &skind);
    if (srd == -2) {
      fail(err, errsz, sn, "scene: '%s' is %s, not a regular file", s->scene_path, skind);
      goto done;
    }
    if (srd) {
      fail(err, errsz, sn, "scene: cannot read '%s': %s", s->scene_path, strerror(errno));
      goto done;
    }
    char* sl = strrchr(s->scene_path, '/');
    char* dir = sl ? xstrndup(s->scene_path, (size_t)(sl - s->scene_path) + (sl == s->scene_path))
                   : xstrdup(".");
    if (!dir) goto nomem;
    s->scene_dir = realpath(dir, NULL);
    free(dir);
    if (!s->scene_dir) goto nomem;
    if (load_doc(s->scene_text, s->scene_len, &base)) {
      fail(err, errsz, sn, "scene: '%s' is not valid YAML (comply check %s says where)",
           s->scene_path, s->scene_path);
      goto done;
    }
    have_base = 1;
  }

  /* parameters, combination, quantities */
  yaml_node_t* vn = map_get(&doc, root, "vary");
  if (!vn) {
    fail(err, errsz, root, "vary: missing (the list of parameters to vary)");
    goto done;
  }
  if (parse_vary(&doc, vn, &base, s, err, errsz)) goto done;
  yaml_node_t* cb = map_get(&doc, root, "combine");
  if (cb) {
    const char* t = scalar(cb);
    if (t && strcmp(t, "zip") == 0)
      s->zip = 1;
    else if (!t || strcmp(t, "grid") != 0) {
      fail(err, errsz, cb, "combine: expected grid or zip (got '%s')", t ? t : "a list or mapping");
      goto done;
    }
  }
  if (s->zip) {
    for (int p = 1; p < s->nparam; p++)
      if (s->param[p].nvalue != s->param[0].nvalue) {
        fail(err, errsz, cb,
             "combine: zip needs the same number of values for every parameter (%s has %d, %s "
             "has %d)",
             s->param[0].path, s->param[0].nvalue, s->param[p].path, s->param[p].nvalue);
        goto done;
      }
    s->nvariant = s->param[0].nvalue;
  } else {
    s->nvariant = 1;
    for (int p = 0; p < s->nparam; p++) {
      if (s->nvariant > 10000000 / s->param[p].nvalue) {
        fail(err, errsz, vn, "vary: the grid has more than 10,000,000 variants");
        goto done;
      }
      s->nvariant *= s->param[p].nvalue;
    }
  }
  yaml_node_t* cn = map_get(&doc, root, "collect");
  if (cn && parse_collect(&doc, cn, &base, s, err, errsz)) goto done;
  if (make_header(s)) goto nomem;
  s->reuse = s->nparam > 0;
  for (int p = 0; p < s->nparam; p++)
    s->reuse &= s->param[p].field >= 0;
  s->width = 4;
  for (long n = s->nvariant - 1; n >= 10000; n /= 10)
    s->width++;
  rc = 0;
  goto done;
nomem:
  fail(err, errsz, NULL, "out of memory");
done:
  if (have_doc) yaml_document_delete(&doc);
  if (have_base) yaml_document_delete(&base);
  free(text);
  if (rc) {
    sweep_free(s);
  }
  g_file = "";
  return rc;
}

int sweep_value_index(const Sweep* s, long v, int p) {
  if (s->zip) return (int)v;
  long div = 1;
  for (int q = p + 1; q < s->nparam; q++)
    div *= s->param[q].nvalue;
  return (int)((v / div) % s->param[p].nvalue);
}

/* ---- the variant's scene ---- */

typedef struct Buf {
  char* p;
  size_t n, cap;
  int oom;
} Buf;

static int buf_write(void* ctx, unsigned char* data, size_t size) {
  Buf* b = ctx;
  if (b->n + size + 1 > b->cap) {
    size_t cap = 2 * (b->n + size + 1);
    char* np = realloc(b->p, cap);
    if (!np) {
      b->oom = 1;
      return 0;
    }
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, size);
  b->n += size;
  b->p[b->n] = 0;
  return 1;
}

/* replace *slot by a new scalar node; 0 or -1 */
static int set_scalar(yaml_document_t* d, yaml_node_item_t* slot, const char* text, int quoted) {
  int id =
      yaml_document_add_scalar(d, NULL, (const yaml_char_t*)text, (int)strlen(text),
                               quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
  if (!id) return -1;
  *slot = id;
  return 0;
}

/* bodies[*].geometry.mesh.file relative to the base scene's folder -> absolute. Adding a node
 * may move the node array: every node is looked up again by index after it. */
static int absolute_meshes(yaml_document_t* d, const char* dir) {
  yaml_node_t* bodies = map_get(d, yaml_document_get_root_node(d), "bodies");
  if (!bodies || bodies->type != YAML_SEQUENCE_NODE) return 0;
  long nb = (long)(bodies->data.sequence.items.top - bodies->data.sequence.items.start);
  for (long i = 0; i < nb; i++) {
    bodies = map_get(d, yaml_document_get_root_node(d), "bodies");
    yaml_node_t* mesh =
        map_get(d, map_get(d, node(d, bodies->data.sequence.items.start[i]), "geometry"), "mesh");
    if (!mesh || mesh->type != YAML_MAPPING_NODE) continue;
    yaml_node_pair_t* pairs = mesh->data.mapping.pairs.start; /* not moved by adding nodes */
    long np = (long)(mesh->data.mapping.pairs.top - pairs);
    for (long k = 0; k < np; k++) {
      const char* key = scalar(node(d, pairs[k].key));
      yaml_node_t* vnode = node(d, pairs[k].value);
      const char* f = scalar(vnode);
      if (!key || strcmp(key, "file") != 0 || !f || !*f || f[0] == '/') continue;
      size_t n = strlen(dir) + strlen(f) + 2;
      char* abs = malloc(n);
      if (!abs) return -1;
      snprintf(abs, n, "%s/%s", dir, f);
      int quoted = vnode->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
      int bad = set_scalar(d, &pairs[k].value, abs, quoted);
      free(abs);
      if (bad) return -1;
    }
  }
  return 0;
}

int sweep_variant_text(const Sweep* s, long v, char** text, size_t* len, char* err, size_t errsz) {
  yaml_document_t d;
  if (load_doc(s->scene_text, s->scene_len, &d)) {
    snprintf(err, errsz, "%s: not valid YAML (comply check %s says where)", s->scene_path,
             s->scene_path);
    return -1;
  }
  for (int p = 0; p < s->nparam; p++) {
    yaml_node_item_t* slot = NULL;
    char msg[768];
    if (resolve(&d, s->param[p].path, &slot, msg, sizeof msg)) {
      snprintf(err, errsz, "%s:%d:%d: vary[%d].path: %s", s->file, s->param[p].line,
               s->param[p].col, p, msg);
      yaml_document_delete(&d);
      return -1;
    }
    int k = sweep_value_index(s, v, p);
    if (set_scalar(&d, slot, s->param[p].value[k], s->param[p].quoted[k])) {
      snprintf(err, errsz, "out of memory");
      yaml_document_delete(&d);
      return -1;
    }
  }
  if (absolute_meshes(&d, s->scene_dir)) {
    snprintf(err, errsz, "out of memory");
    yaml_document_delete(&d);
    return -1;
  }
  /* emit: yaml_emitter_dump takes the document (deletes it, on failure too) */
  Buf b = {NULL, 0, 0, 0};
  yaml_emitter_t e;
  if (!yaml_emitter_initialize(&e)) {
    yaml_document_delete(&d);
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  yaml_emitter_set_output(&e, buf_write, &b);
  yaml_emitter_set_width(&e, -1);
  yaml_emitter_set_unicode(&e, 1);
  int ok = yaml_emitter_open(&e);
  if (ok)
    ok = yaml_emitter_dump(&e, &d) && yaml_emitter_close(&e) && yaml_emitter_flush(&e);
  else
    yaml_document_delete(&d); /* not handed to the emitter */
  if (!ok)
    snprintf(err, errsz, "cannot write the variant's scene: %s",
             b.oom ? "out of memory" : (e.problem ? e.problem : "emitter error"));
  yaml_emitter_delete(&e);
  if (!ok) {
    free(b.p);
    return -1;
  }
  if (b.n && b.p[b.n - 1] != '\n') buf_write(&b, (unsigned char*)"\n", 1);
  if (b.oom) {
    free(b.p);
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  *text = b.p;
  *len = b.n;
  return 0;
}
