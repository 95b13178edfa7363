/* One variant of `comply sweep` (docs/sweeps.md): its scene text is written to
 * DIR/variant_NNNN/scene.yaml and parsed under the name "variant_NNNN/scene.yaml" (so that an
 * invalid value is reported with the variant, the line and the field, the same whatever DIR),
 * compiled, simulated with the outputs of `comply run` (bodies.csv, contacts.csv, summary.json)
 * in the same folder, and its row written last, atomically, to result.csv.
 *
 * The quantities are collected from the data after every step (finer than the output frames):
 *   penetration(B)      max over B's contact pairs of max_penetration at the last step, m
 *   max_penetration(B)  the same, largest over the run
 *   impact_speed(B)     -v.u at the end of the last step before B's first contact (u = -g/|g|,
 *                       z if there is no gravity): the speed it arrives with, to within |g| h
 *   rebound_speed(B)    v.u at the end of the first step after that contact in which B has no
 *                       contact: the speed it leaves with; 0 if it never leaves
 *   restitution(B)      rebound_speed / impact_speed (empty if B never touched anything)
 *   max_pressure[(B)]   the largest pair max_pressure over the run (of B's pairs), Pa
 *   final_position(B), final_pose(B)  the body frame's origin (and orientation) at the end
 *   wall_time, newton_iterations (solver_total_iter), steps, warnings (the data's warning
 *   counts plus the initial overlaps and the resting penetration estimates, as comply run
 *   counts them)
 * A quantity that has no value (no contact) is an empty field. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* the mark of a variant run with --strict: an empty file in its folder */
#define STRICT_MARK "strict"

char* sweep_variant_dir(const Sweep* s, const char* outdir, long v) {
  size_t n = strlen(outdir) + 48;
  char* p = malloc(n);
  if (p) snprintf(p, n, "%s/variant_%0*ld", outdir, s->width, v);
  return p;
}

/* whole file into a malloc'ed string; NULL if it cannot be read */
static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char* b = malloc(cap);
  while (b) {
    n += fread(b + n, 1, cap - n - 1, f);
    if (n < cap - 1) break;
    char* nb = realloc(b, cap * 2);
    if (!nb) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2;
  }
  fclose(f);
  if (b) b[n] = 0;
  if (len) *len = n;
  return b;
}

static char* join(const char* dir, const char* name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char* p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

int sweep_variant_done(const Sweep* s, const char* outdir, long v, int strict) {
  char* dir = sweep_variant_dir(s, outdir, v);
  char* rp = dir ? join(dir, "result.csv") : NULL;
  char* sp = dir ? join(dir, "scene.yaml") : NULL;
  char* mp = dir ? join(dir, STRICT_MARK) : NULL;
  char *res = rp ? slurp(rp, NULL) : NULL, *scene = NULL, *text = NULL;
  size_t slen = 0, tlen = 0;
  int done = 0;
  size_t hl = strlen(s->header);
  char err[256];
  /* the variant's row holds for the mode it was run in: a row "ok" without --strict may have
   * had warnings, which --strict makes "warnings" (a re-run with --strict kept it "ok") */
  int was_strict = mp && access(mp, F_OK) == 0;
  if (res && was_strict == !!strict && strncmp(res, s->header, hl) == 0 && res[hl] == '\n' &&
      (scene = slurp(sp, &slen)) && sweep_variant_text(s, v, &text, &tlen, err, sizeof err) == 0)
    done = slen == tlen && memcmp(scene, text, tlen) == 0;
  free(text);
  free(scene);
  free(res);
  free(mp);
  free(sp);
  free(rp);
  free(dir);
  return done;
}

/* Before a variant runs: its old row removed (an interrupted run must not leave the row of the
 * other mode next to this mode's mark), and the mark of this mode written (an empty file
 * STRICT_MARK with --strict, none without); 0 on success */
static int set_mode(const char* dir, int strict) {
  char* rp = join(dir, "result.csv");
  char* mp = join(dir, STRICT_MARK);
  int rc = -1;
  if (rp && mp && (unlink(rp) == 0 || errno == ENOENT)) {
    if (strict) {
      FILE* f = fopen(mp, "w");
      rc = f && fclose(f) == 0 ? 0 : -1;
    } else {
      rc = unlink(mp) == 0 || errno == ENOENT ? 0 : -1;
    }
  }
  free(mp);
  free(rp);
  return rc;
}

/* ---- the row ---- */

typedef struct Row {
  char* p;
  size_t n, cap;
} Row;

static void put(Row* r, const char* s, int csv) {
  size_t need = r->n + 2 * strlen(s) + 8;
  if (need > r->cap) {
    size_t cap = 2 * need;
    char* np = realloc(r->p, cap);
    if (!np) return; /* the row is cut; reported when written */
    r->p = np;
    r->cap = cap;
  }
  if (!csv) {
    r->n += (size_t)snprintf(r->p + r->n, r->cap - r->n, "%s", s);
    return;
  }
  int quote = strpbrk(s, ",\"\n\r") != NULL;
  if (quote) r->p[r->n++] = '"';
  for (const char* c = s; *c; c++) {
    if (*c == '"') r->p[r->n++] = '"';
    r->p[r->n++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
  }
  if (quote) r->p[r->n++] = '"';
  r->p[r->n] = 0;
}

static void put_num(Row* r, double x) {
  char b[40] = "";
  if (isfinite(x)) sweep_format_number(x, b, sizeof b);
  put(r, ",", 0);
  put(r, b, 0);
}

static int ncomponent(SweepQuantity q) {
  return q == SQ_FINAL_POSE ? 7 : q == SQ_FINAL_POSITION ? 3 : 1;
}

/* "v,params,status" */
static void row_start(Row* r, const Sweep* s, long v, const char* status) {
  char b[32];
  snprintf(b, sizeof b, "%ld", v);
  put(r, b, 0);
  for (int p = 0; p < s->nparam; p++) {
    put(r, ",", 0);
    put(r, s->param[p].value[sweep_value_index(s, v, p)], 1);
  }
  put(r, ",", 0);
  put(r, status, 0);
}

static int write_row(const Sweep* s, const char* dir, Row* r) {
  char* path = join(dir, "result.csv");
  size_t hl = strlen(s->header);
  char* text = malloc(hl + r->n + 3);
  int rc = -1;
  if (path && text && r->p) {
    snprintf(text, hl + r->n + 3, "%s\n%s\n", s->header, r->p);
    rc = cli_write_atomic(path, text, hl + r->n + 2);
    if (rc) fprintf(stderr, "comply: cannot write '%s': %s\n", path, strerror(errno));
  } else {
    fprintf(stderr, "comply: out of memory writing the result of %s\n", dir);
  }
  free(text);
  free(path);
  return rc;
}

int sweep_mkdir_parents(const char* path) {
  char* p = malloc(strlen(path) + 1);
  if (!p) return -1;
  strcpy(p, path);
  for (char* c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return -1;
    }
    *c = '/';
  }
  struct stat st;
  int rc = (mkdir(p, 0777) != 0 && errno != EEXIST) || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)
               ? -1
               : 0;
  free(p);
  return rc;
}

int sweep_write_failure(const Sweep* s, const char* outdir, long v, const char* status,
                        const char* error) {
  char* dir = sweep_variant_dir(s, outdir, v);
  if (!dir || sweep_mkdir_parents(dir)) {
    fprintf(stderr, "comply: cannot create the folder of variant %ld\n", v);
    free(dir);
    return -1;
  }
  Row r = {NULL, 0, 0};
  row_start(&r, s, v, status);
  for (int c = 0; c < s->ncollect; c++)
    for (int k = 0; k < ncomponent(s->collect[c].q); k++)
      put(&r, ",", 0);
  put(&r, ",", 0);
  put(&r, error, 1);
  int rc = write_row(s, dir, &r);
  free(r.p);
  free(dir);
  return rc;
}

/* ---- the run ---- */

/* what is tracked per collected quantity */
typedef struct Track {
  int body;    /* index, -1 none */
  int phase;   /* restitution: 0 before the first contact, 1 in it, 2 after */
  double v_in; /* speed along u at the end of the last step without contact */
  double v_out;
  double pen, pen_max, pmax;
} Track;

/* deepest penetration and largest pressure of body b's pairs (every pair if b < 0) in the
 * current step; returns whether b has a contact */
static int body_contacts(const cmData* d, int b, double* pen, double* pmax) {
  int any = 0;
  *pen = 0;
  *pmax = 0;
  for (int i = 0; i < d->npair; i++) {
    const cmContactPair* p = &d->pair[i];
    if (b >= 0 && p->body[0] != b && p->body[1] != b) continue;
    if (p->points <= 0) continue;
    any = 1;
    if (p->max_penetration > *pen) *pen = p->max_penetration;
    if (p->max_pressure > *pmax) *pmax = p->max_pressure;
  }
  return any;
}

static void track_step(const cmData* d, const double u[3], Track* t, int nt) {
  for (int i = 0; i < nt; i++) {
    double pen, pmax;
    int touch = body_contacts(d, t[i].body, &pen, &pmax);
    t[i].pen = pen;
    if (pen > t[i].pen_max) t[i].pen_max = pen;
    if (pmax > t[i].pmax) t[i].pmax = pmax;
    if (t[i].body < 0) continue;
    const double* v = d->body_cvel + 3 * t[i].body;
    double vu = v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
    if (t[i].phase == 0 && !touch) t[i].v_in = vu;
    if (t[i].phase == 0 && touch) t[i].phase = 1;
    if (t[i].phase == 1 && !touch) {
      t[i].v_out = vu;
      t[i].phase = 2;
    }
  }
}

/* ---- reusing a compiled model ----
 *
 * A sweep whose every parameter is a numeric parameter of a rule (interactions[K].ka, ...) or
 * a body's initial position, velocity or angular velocity (bodies[ball].position[2]) has one
 * geometry for all its variants. The compiler copies a rule's parameters into m->rule[K + 1]
 * (rule 0 is the built-in default) and derives from them only compile notes (which a sweep
 * does not print) and contact_time's default (not in the list below); it copies the initial
 * state into body_pos0, body_vel0 and body_angvel0 and derives from the positions only the
 * joints' anchors (a scene with joints compiles each variant). The step and cm_data_new read
 * them from there. So instead of a new compile the variant's values, parsed and checked
 * from its own scene like any other, are written into a model compiled once: in the parent
 * before the local pool forks (each worker has its copy), or by a rank on its first variant.
 * tests/cli/test_cli_sweep.py checks that the outputs are those of `comply run` of the
 * variant's scene, byte for byte. */
static const char* const RULE_FIELDS[] = {
    "ka",        "step_damping", "stiffness_damping", "elastic_repulsion", "play",
    "stiffness", "damping",      "friction",          "stick_velocity",    "min_period"};
enum { NRULE_FIELD = sizeof RULE_FIELDS / sizeof RULE_FIELDS[0] };

int sweep_rule_field(const char* key) {
  for (int i = 0; i < NRULE_FIELD; i++)
    if (strcmp(key, RULE_FIELDS[i]) == 0) return i;
  return -1;
}

static double* rule_field(cmRuleDef* r, int f) {
  double* const fields[NRULE_FIELD] = {&r->ka,
                                       &r->step_damping,
                                       &r->stiffness_damping,
                                       &r->elastic_repulsion,
                                       &r->play,
                                       &r->stiffness,
                                       &r->damping,
                                       &r->friction,
                                       &r->stick_velocity,
                                       &r->min_period};
  return fields[f];
}

/* the scene's body that a selector names (digits: its index), -1 none */
static int scene_body(const cmScene* scene, const char* sel) {
  int digits = *sel != 0;
  for (const char* c = sel; *c; c++)
    digits &= *c >= '0' && *c <= '9';
  if (digits) {
    long i = strtol(sel, NULL, 10);
    return i < scene->nbody ? (int)i : -1;
  }
  for (int b = 0; b < scene->nbody; b++)
    if (scene->body[b].name && strcmp(scene->body[b].name, sel) == 0) return b;
  return -1;
}

/* the variant's values into the cached model; -1 if the scene does not match it (then the
 * variant compiles its own) */
static int patch_model(const Sweep* s, const cmScene* scene, cmModel* m) {
  if (scene->nrule + 1 != m->nrule || scene->nbody != m->nbody) return -1;
  for (int p = 0; p < s->nparam; p++) {
    const SweepParam* q = &s->param[p];
    if (q->field >= SWEEP_BODY_FIELD) {
      /* a joint's anchor, a deformable body's nodes and the nodes an attachment selects are
       * compiled from the initial positions and velocities: not reused then (until 2026-12-08
       * a deformable body's variants all ran from the first one's nodes, reported ok) */
      if (m->njoint > 0 || m->nnode > 0) return -1;
      int sb = scene_body(scene, q->body);
      int mb = sb >= 0 ? cm_model_body_index(m, scene->body[sb].name) : -1;
      if (mb < 0) return -1;
      const cmBodyDef* def = &scene->body[sb];
      const double* from[3] = {def->position, def->velocity, def->angular_velocity};
      double* to[3] = {m->body_pos0, m->body_vel0, m->body_angvel0};
      int f = q->field - SWEEP_BODY_FIELD;
      to[f][3 * mb + q->comp] = from[f][q->comp];
      continue;
    }
    int k = q->rule;
    if (k < 0 || k >= scene->nrule) return -1;
    *rule_field(&m->rule[k + 1], q->field) = *rule_field(&scene->rule[k], q->field);
  }
  return 0;
}

cmModel* sweep_template_model(const Sweep* s, long v) {
  char err[1024];
  char* text = NULL;
  size_t len = 0;
  cmScene* scene = NULL;
  cmModel* m = NULL;
  if (sweep_variant_text(s, v, &text, &len, err, sizeof err)) return NULL;
  char rel[64]; /* the name the variant's own parse would give (the model's name is its stem) */
  snprintf(rel, sizeof rel, "variant_%0*ld/scene.yaml", s->width, v);
  if (cm_scene_parse(text, len, rel, &scene, err, sizeof err) == CM_OK &&
      cm_model_compile(scene, &m, err, sizeof err) != CM_OK)
    m = NULL;
  cm_scene_free(scene);
  free(text);
  return m;
}

/* the failure row for an error before the run */
static int invalid(const Sweep* s, const char* outdir, long v, const char* msg) {
  return sweep_write_failure(s, outdir, v, "invalid", msg) ? -1 : 1;
}

int sweep_run_variant(const Sweep* s, const char* outdir, long v, int strict, cmModel** cache) {
  char err[2048] = "", msg[2400];
  char* dir = sweep_variant_dir(s, outdir, v);
  if (!dir || sweep_mkdir_parents(dir)) {
    fprintf(stderr, "comply: cannot create the folder of variant %ld: %s\n", v, strerror(errno));
    free(dir);
    return -1;
  }
  char rel[64];
  snprintf(rel, sizeof rel, "variant_%0*ld/scene.yaml", s->width, v);
  char* text = NULL;
  size_t len = 0;
  int rc;
  if (sweep_variant_text(s, v, &text, &len, err, sizeof err)) {
    rc = invalid(s, outdir, v, err);
    free(dir);
    return rc;
  }
  char* sp = join(dir, "scene.yaml");
  if (!sp || set_mode(dir, strict) || cli_write_atomic(sp, text, len)) {
    snprintf(msg, sizeof msg, "cannot write '%s': %s", sp ? sp : dir, strerror(errno));
    rc = invalid(s, outdir, v, msg);
    free(sp);
    free(text);
    free(dir);
    return rc;
  }
  free(sp);

  /* parse and compile */
  cmScene* scene = NULL;
  cmModel* m = NULL;
  cmStatus st = cm_scene_parse(text, len, rel, &scene, err, sizeof err);
  free(text);
  int owned = 1; /* m is this variant's own, freed at the end */
  if (st == CM_OK) {
    if (s->reuse && cache && *cache && patch_model(s, scene, *cache) == 0) {
      m = *cache;
      owned = 0;
    } else {
      st = cm_model_compile(scene, &m, err, sizeof err);
      if (st == CM_OK && s->reuse && cache && !*cache) {
        *cache = m;
        owned = 0;
      }
    }
    cm_scene_free(scene);
  }
  if (st != CM_OK) {
    snprintf(msg, sizeof msg, "variant %ld: %s", v, err);
    rc = invalid(s, outdir, v, msg);
    free(dir);
    return rc;
  }
  cmData* d = cm_data_new(m);
  if (!d) {
    if (owned) cm_model_free(m);
    rc = invalid(s, outdir, v, "out of memory creating the simulation data");
    free(dir);
    return rc;
  }

  /* initial overlaps: warnings, or refused as by `comply run` */
  cliOverlaps o;
  int overlaps = 0;
  msg[0] = 0;
  if (cli_initial_overlaps(m, NULL, "", 0, &o) == 0) {
    overlaps = o.pairs + o.contained;
    if (!m->opt.allow_initial_overlap && o.contained)
      snprintf(msg, sizeof msg,
               "variant %ld: %s and %s start inside each other with no contact point", v,
               m->body_name[o.contain[0]], m->body_name[o.contain[1]]);
    else if (!m->opt.allow_initial_overlap && o.fastest > CLI_OVERLAP_SPEED)
      snprintf(msg, sizeof msg,
               "variant %ld: the initial overlap of %s <-> %s would set the pair apart at %.3g "
               "m/s (more than %g m/s; scene.allow_initial_overlap: true allows it)",
               v, m->body_name[o.body[0]], m->body_name[o.body[1]], o.fastest, CLI_OVERLAP_SPEED);
  }
  cmOutput* out = NULL;
  if (!msg[0] && cm_output_open(m, dir, &out, err, sizeof err) != CM_OK)
    snprintf(msg, sizeof msg, "variant %ld: %s", v, err);
  if (msg[0]) {
    cm_data_free(d);
    if (owned) cm_model_free(m);
    rc = invalid(s, outdir, v, msg);
    free(dir);
    return rc;
  }

  /* the resting penetration estimates, counted as warnings as by `comply run` */
  int soft = cli_resting_estimates(m, NULL, "");

  /* the quantities' bodies and the up direction */
  Track* t = calloc((size_t)(s->ncollect ? s->ncollect : 1), sizeof *t);
  double g = sqrt(m->opt.gravity[0] * m->opt.gravity[0] + m->opt.gravity[1] * m->opt.gravity[1] +
                  m->opt.gravity[2] * m->opt.gravity[2]);
  double u[3] = {0, 0, 1};
  if (g > 0)
    for (int k = 0; k < 3; k++)
      u[k] = -m->opt.gravity[k] / g;
  for (int c = 0; t && c < s->ncollect; c++) {
    t[c].body = s->collect[c].body ? cm_model_body_index(m, s->collect[c].body) : -1;
    t[c].v_out = 0;
    if (t[c].body >= 0) {
      const double* v0 = d->body_cvel + 3 * t[c].body;
      t[c].v_in = v0[0] * u[0] + v0[1] * u[1] + v0[2] * u[2];
    }
  }

  /* the run, as `comply run --quiet` without checkpoints */
  double t0 = cli_now();
  long total = m->opt.steps;
  long every = m->opt.output_every > 0 ? m->opt.output_every : 1;
  int io_failed = !t || cm_output_frame(out, m, d) != CM_OK;
  long written = 0;
  cmStatus step_st = CM_OK;
  while (!io_failed && d->step < total) {
    step_st = cm_step(m, d);
    if (step_st != CM_OK) break;
    track_step(d, u, t, s->ncollect);
    if (d->step % every == 0 || d->step == total) {
      io_failed = cm_output_frame(out, m, d) != CM_OK;
      written = d->step;
    }
  }
  if (!io_failed && written != d->step) io_failed = cm_output_frame(out, m, d) != CM_OK;
  int io_errno = errno;
  cmRunInfo info = {cli_now() - t0, 0, step_st != CM_OK || io_failed, NULL};
  msg[0] = 0;
  if (step_st != CM_OK)
    snprintf(msg, sizeof msg, "variant %ld: %s in step %ld (from t = %.9g s): %s", v,
             cm_status_name(step_st), d->step + 1, d->time,
             d->message[0] ? d->message : "the state became non-finite");
  else if (io_failed)
    snprintf(msg, sizeof msg, "variant %ld: cannot write the output files in '%s': %s", v, dir,
             t ? strerror(io_errno) : "out of memory");
  if (msg[0]) info.message = msg;
  if (cm_output_summary(out, m, d, &info) != CM_OK && !msg[0])
    snprintf(msg, sizeof msg, "variant %ld: cannot write '%s/summary.json': %s", v, dir,
             strerror(errno));
  cm_output_close(out);

  /* warnings */
  long nwarn = overlaps + soft;
  char wlist[512] = "";
  size_t wu = 0;
  if (overlaps) wu += (size_t)snprintf(wlist, sizeof wlist, "initial_overlap %d", overlaps);
  if (soft)
    wu += (size_t)snprintf(wlist + wu, sizeof wlist - wu, "%sresting_penetration %d",
                           wu ? ", " : "", soft);
  for (int w = 0; w < CM_WARN_COUNT; w++) {
    if (!d->warning[w]) continue;
    nwarn += d->warning[w];
    if (wu < sizeof wlist)
      wu += (size_t)snprintf(wlist + wu, sizeof wlist - wu, "%s%s %d", wu ? ", " : "",
                             cm_warning_name((cmWarning)w), d->warning[w]);
  }
  const char* status = "ok";
  if (msg[0])
    status = "failed";
  else if (strict && nwarn) {
    status = "warnings";
    snprintf(msg, sizeof msg, "variant %ld: --strict: %ld warning%s (%s)", v, nwarn,
             nwarn == 1 ? "" : "s", wlist);
  }

  /* the row */
  Row r = {NULL, 0, 0};
  row_start(&r, s, v, status);
  for (int c = 0; c < s->ncollect; c++) {
    const Track* tc = t ? &t[c] : NULL;
    int b = tc ? tc->body : -1;
    switch (s->collect[c].q) {
    case SQ_PENETRATION:
      put_num(&r, tc ? tc->pen : NAN);
      break;
    case SQ_MAX_PENETRATION:
      put_num(&r, tc ? tc->pen_max : NAN);
      break;
    case SQ_IMPACT_SPEED:
      put_num(&r, tc && tc->phase ? -tc->v_in : NAN);
      break;
    case SQ_REBOUND_SPEED:
      put_num(&r, tc && tc->phase ? tc->v_out : NAN);
      break;
    case SQ_RESTITUTION:
      put_num(&r, tc && tc->phase && tc->v_in < 0 ? tc->v_out / -tc->v_in : NAN);
      break;
    case SQ_MAX_PRESSURE:
      put_num(&r, tc ? tc->pmax : NAN);
      break;
    case SQ_FINAL_POSITION:
    case SQ_FINAL_POSE:
      for (int k = 0; k < 3; k++)
        put_num(&r, b >= 0 ? d->body_xpos[3 * b + k] : NAN);
      if (s->collect[c].q == SQ_FINAL_POSE)
        for (int k = 0; k < 4; k++)
          put_num(&r, b >= 0 ? d->body_xquat[4 * b + k] : NAN);
      break;
    case SQ_WALL_TIME:
      put_num(&r, info.wall_time);
      break;
    case SQ_NEWTON:
      put_num(&r, (double)d->solver_total_iter);
      break;
    case SQ_STEPS:
      put_num(&r, (double)d->step);
      break;
    case SQ_WARNINGS:
      put_num(&r, (double)nwarn);
      break;
    case SQ_COUNT:
      break;
    }
  }
  put(&r, ",", 0);
  put(&r, msg, 1);
  rc = write_row(s, dir, &r) ? -1 : msg[0] ? 1 : 0;
  free(r.p);
  free(t);
  cm_data_free(d);
  if (owned) cm_model_free(m);
  free(dir);
  return rc;
}

/* ---- sweep.csv ---- */

int sweep_gather(const Sweep* s, const char* outdir, long* failed) {
  Row all = {NULL, 0, 0};
  put(&all, s->header, 0);
  put(&all, "\n", 0);
  size_t hl = strlen(s->header);
  *failed = 0;
  for (long v = 0; v < s->nvariant; v++) {
    char* dir = sweep_variant_dir(s, outdir, v);
    char* rp = dir ? join(dir, "result.csv") : NULL;
    char* res = rp ? slurp(rp, NULL) : NULL;
    const char* row = NULL;
    if (res && strncmp(res, s->header, hl) == 0 && res[hl] == '\n') {
      row = res + hl + 1;
      char* nl = strchr(row, '\n');
      if (nl) *nl = 0;
    }
    if (row && *row) {
      /* the status is the field after the parameters */
      put(&all, row, 0);
      const char* c = row;
      int quoted = 0, field = 0;
      for (; *c && field < s->nparam + 1; c++) {
        if (*c == '"') quoted = !quoted;
        if (*c == ',' && !quoted) field++;
      }
      if (strncmp(c, "ok,", 3) != 0) (*failed)++;
    } else {
      Row r = {NULL, 0, 0};
      row_start(&r, s, v, "missing");
      for (int q = 0; q < s->ncollect; q++)
        for (int k = 0; k < ncomponent(s->collect[q].q); k++)
          put(&r, ",", 0);
      put(&r, ",no result: the variant did not finish (run the sweep again to complete it)", 0);
      if (r.p) put(&all, r.p, 0);
      free(r.p);
      (*failed)++;
    }
    put(&all, "\n", 0);
    free(res);
    free(rp);
    free(dir);
  }
  char* path = join(outdir, "sweep.csv");
  int rc = -1;
  if (!path || !all.p)
    fprintf(stderr, "comply: out of memory writing sweep.csv\n");
  else if ((rc = cli_write_atomic(path, all.p, all.n)) != 0)
    fprintf(stderr, "comply: cannot write '%s': %s\n", path, strerror(errno));
  free(path);
  free(all.p);
  return rc;
}
