/* Output files, CSV part (SPEC 9): the output directory, bodies.csv and contacts.csv.
 *
 * bodies.csv: one row per body and written frame,
 *   step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz
 * with the frame origin position and velocity, the orientation quaternion (w x y z, body to
 * world) and the world angular velocity.
 *
 * contacts.csv: one row per body pair in contact and written frame,
 *   step,time,body_a,body_b,points,fx,fy,fz,area,max_pressure,max_penetration
 * The contact points of a step are grouped by their unordered body pair. The row's body_a is
 * the pair's body of lower index (so that a pair keeps its orientation from step to step,
 * whichever body penetrates), body_b the other one. With SPEC 2's conventions the force of one
 * contact on its body A (the penetrating side) is
 *   F_A = force n + ftan   (force >= 0 is the normal force magnitude, n points toward A),
 * and on its body B the opposite, so a contact whose A is the row's body_b contributes -F_A.
 * area is the sum of the point areas, max_pressure the largest force/area over points with
 * area > 0 (0 if none), max_penetration the largest -dist.
 *
 * Numbers are written with %.17g so that they read back exactly; a non-finite number (which a
 * successful step never produces) is written as an empty field rather than "nan". Names that
 * contain a comma, quote or line break are quoted as in RFC 4180. Both files are flushed after
 * every frame, so an interrupted run leaves complete rows only. cm_output_frame returns CM_ERR_IO
 * with errno set when a write fails (the API has no message buffer there). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/sort.h"
#include "output/output.h"

const char CM_BODIES_HEADER[] = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
const char CM_CONTACTS_HEADER[] =
    "step,time,body_a,body_b,points,fx,fy,fz,area,max_pressure,max_penetration\n";

char* cm_output_path(const char* dir, const char* name) {
  size_t nd = strlen(dir), nn = strlen(name);
  int slash = nd > 0 && dir[nd - 1] != '/';
  char* p = cm_malloc(nd + (size_t)slash + nn + 1);
  if (!p) return NULL;
  memcpy(p, dir, nd);
  if (slash) p[nd] = '/';
  memcpy(p + nd + slash, name, nn + 1);
  return p;
}

/* mkdir with "already there and a directory" as success */
static int make_one_dir(const char* path) {
  if (mkdir(path, 0777) == 0) return 0;
  int e = errno;
  struct stat st;
  if (e == EEXIST && stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return 0;
    errno = ENOTDIR;
    return -1;
  }
  errno = e;
  return -1;
}

/* mkdir -p: create every missing component of dir */
static cmStatus make_dirs(const char* dir, char* err, size_t errsz) {
  char* tmp = cm_strdup(dir);
  if (!tmp) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  cmStatus st = CM_OK;
  /* each prefix ending before a '/', then the whole path */
  for (char* p = tmp + 1; *p; p++) {
    if (*p != '/' || p[-1] == '/') continue;
    *p = '\0';
    if (make_one_dir(tmp) != 0) {
      st = cm_error(err, errsz, CM_ERR_IO, "cannot create output directory '%s' (at '%s'): %s", dir,
                    tmp, strerror(errno));
      break;
    }
    *p = '/';
  }
  if (st == CM_OK && make_one_dir(tmp) != 0)
    st = cm_error(err, errsz, CM_ERR_IO, "cannot create output directory '%s': %s", dir,
                  strerror(errno));
  cm_free(tmp);
  return st;
}

static cmStatus open_csv(const char* path, const char* header, FILE** f, char* err, size_t errsz) {
  *f = fopen(path, "w");
  if (!*f)
    return cm_error(err, errsz, CM_ERR_IO, "cannot open '%s' for writing: %s", path,
                    strerror(errno));
  if (fputs(header, *f) == EOF || fflush(*f) != 0)
    return cm_error(err, errsz, CM_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return CM_OK;
}

cmStatus cm_output_init(const cmModel* m, const char* dir, cmOutput** out, char* err,
                        size_t errsz) {
  CM_ASSERT(m && out);
  *out = NULL;
  if (!dir || !*dir) return cm_error(err, errsz, CM_ERR_ARG, "output directory: empty path");
  cmStatus st = make_dirs(dir, err, errsz);
  if (st != CM_OK) return st;

  cmOutput* o = cm_calloc(1, sizeof *o);
  if (!o) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  o->dir = cm_strdup(dir);
  o->bodies_path = cm_output_path(dir, "bodies.csv");
  o->contacts_path = cm_output_path(dir, "contacts.csv");
  if (!o->dir || !o->bodies_path || !o->contacts_path) {
    cm_output_close(o);
    return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  }
  if (m->opt.vtk && (st = cm_output_vtk_init(o, m, err, errsz)) != CM_OK) {
    cm_output_close(o);
    return st;
  }
  *out = o;
  return CM_OK;
}

cmStatus cm_output_open(const cmModel* m, const char* dir, cmOutput** out, char* err,
                        size_t errsz) {
  CM_ASSERT(out);
  *out = NULL;
  cmOutput* o = NULL;
  cmStatus st = cm_output_init(m, dir, &o, err, errsz);
  if (st != CM_OK) return st;
  /* a new run's files replace an earlier run's: the CSV files are truncated below, and its VTK
   * series goes (until 2026-12-08 its frames after this run's last, or of bodies this scene
   * does not have, stayed beside the new ones, and ParaView showed both runs as one) */
  st = cm_output_vtk_clear(o->dir, err, errsz);
  if (st == CM_OK) st = open_csv(o->bodies_path, CM_BODIES_HEADER, &o->bodies, err, errsz);
  if (st == CM_OK) st = open_csv(o->contacts_path, CM_CONTACTS_HEADER, &o->contacts, err, errsz);
  if (st != CM_OK) {
    cm_output_close(o);
    return st;
  }
  *out = o;
  return CM_OK;
}

void cm_output_close(cmOutput* out) {
  if (!out) return;
  if (out->bodies) fclose(out->bodies);
  if (out->contacts) fclose(out->contacts);
  cm_free(out->dir);
  cm_free(out->bodies_path);
  cm_free(out->contacts_path);
  cm_free(out->keys);
  cm_free(out->sums);
  cm_output_vtk_free(out);
  cm_free(out);
}

/* ---- contact aggregation ---- */

static int key_cmp(const void* pa, const void* pb) {
  const cmPairKey* a = pa;
  const cmPairKey* b = pb;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  if (a->b != b->b) return a->b < b->b ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

int cm_contacts_aggregate(const cmContact* c, int n, cmPairKey* keys, cmPairSum* sums) {
  /* sort contact indices by unordered pair, then by index */
  for (int i = 0; i < n; i++) {
    int a = c[i].body[0], b = c[i].body[1];
    keys[i].a = a < b ? a : b;
    keys[i].b = a < b ? b : a;
    keys[i].index = i;
  }
  cm_sort(keys, (size_t)n, sizeof *keys, key_cmp);

  /* sweep runs of equal pairs into sums */
  int npair = 0;
  cmPairSum* s = NULL;
  for (int i = 0; i < n; i++) {
    if (i == 0 || keys[i].a != keys[i - 1].a || keys[i].b != keys[i - 1].b) {
      s = &sums[npair++];
      memset(s, 0, sizeof *s);
      s->body[0] = keys[i].a;
      s->body[1] = keys[i].b;
      s->max_penetration = -INFINITY;
    }
    const cmContact* k = &c[keys[i].index];
    /* force on the contact's A; on the row's body_a with the pair's orientation */
    double sign = k->body[0] == s->body[0] ? 1.0 : -1.0;
    for (int j = 0; j < 3; j++)
      s->force[j] += sign * (k->force * k->n[j] + k->ftan[j]);
    s->points++;
    s->area += k->area;
    if (k->area > 0) {
      double p = k->force / k->area;
      if (p > s->max_pressure) s->max_pressure = p;
    }
    double pen = 0.0 - k->dist; /* +0, never -0, for a contact on the surface */
    if (pen > s->max_penetration) s->max_penetration = pen;
  }
  return npair;
}

/* ---- rows ---- */

/* ",%.17g", or "," alone for a non-finite number */
static void put_num(FILE* f, double x) {
  if (isfinite(x))
    fprintf(f, ",%.17g", x);
  else
    fputc(',', f);
}

/* a CSV field, quoted (RFC 4180) if it holds a separator, quote or line break */
static void put_name(FILE* f, const char* s) {
  fputc(',', f);
  if (!s) return;
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* flush; on failure CM_ERR_IO with errno kept for the caller's message */
static cmStatus flush_checked(FILE* f) {
  if (fflush(f) != 0 || ferror(f)) {
    int e = errno;
    clearerr(f);
    errno = e ? e : EIO;
    return CM_ERR_IO;
  }
  return CM_OK;
}

static cmStatus grow_scratch(cmOutput* out, int n) {
  if (n <= out->cap) return CM_OK;
  int cap = out->cap ? out->cap : 64;
  while (cap < n)
    cap = cap > 0x3fffffff ? n : cap * 2;
  cmPairKey* keys = cm_malloc((size_t)cap * sizeof *keys);
  cmPairSum* sums = cm_malloc((size_t)cap * sizeof *sums);
  if (!keys || !sums) {
    cm_free(keys);
    cm_free(sums);
    return CM_ERR_NOMEM;
  }
  cm_free(out->keys);
  cm_free(out->sums);
  out->keys = keys;
  out->sums = sums;
  out->cap = cap;
  return CM_OK;
}

static cmStatus frame_rows(cmOutput* out, const cmModel* m, const cmData* d);

/* cut f back to its size `at` (a frame that could not be written whole, e.g. past the file-size
 * limit: EFBIG), so that the file keeps complete rows only; errno is kept */
static void cut_back(FILE* f, off_t at) {
  int e = errno;
  if (at >= 0 && ftruncate(fileno(f), at) == 0) fseeko(f, at, SEEK_SET);
  clearerr(f);
  errno = e;
}

cmStatus cm_output_frame(cmOutput* out, const cmModel* m, const cmData* d) {
  CM_ASSERT(out && m && d);
  off_t b0 = ftello(out->bodies), c0 = ftello(out->contacts);
  cmStatus st = frame_rows(out, m, d);
  if (st == CM_ERR_IO) {
    cut_back(out->bodies, b0);
    cut_back(out->contacts, c0);
  }
  if (st == CM_OK && out->vtk) st = cm_output_vtk_frame(out, m, d);
  return st;
}

/* the rows of one frame in bodies.csv and contacts.csv, flushed */
static cmStatus frame_rows(cmOutput* out, const cmModel* m, const cmData* d) {
  /* bodies.csv */
  for (int i = 0; i < m->nbody; i++) {
    const double* x = d->body_xpos + 3 * i;
    const double* q = d->body_xquat + 4 * i;
    const double* v = d->body_xvel + 3 * i;
    const double* w = d->body_angvel + 3 * i;
    fprintf(out->bodies, "%ld", d->step);
    put_num(out->bodies, d->time);
    put_name(out->bodies, m->body_name[i]);
    for (int j = 0; j < 3; j++)
      put_num(out->bodies, x[j]);
    for (int j = 0; j < 4; j++)
      put_num(out->bodies, q[j]);
    for (int j = 0; j < 3; j++)
      put_num(out->bodies, v[j]);
    for (int j = 0; j < 3; j++)
      put_num(out->bodies, w[j]);
    fputc('\n', out->bodies);
  }
  cmStatus st = flush_checked(out->bodies);
  if (st != CM_OK) return st;

  /* contacts.csv */
  int n = d->ncontact > 0 && d->contact ? d->ncontact : 0;
  if (grow_scratch(out, n) != CM_OK) return CM_ERR_NOMEM;
  int npair = n ? cm_contacts_aggregate(d->contact, n, out->keys, out->sums) : 0;
  for (int p = 0; p < npair; p++) {
    const cmPairSum* s = &out->sums[p];
    int a = s->body[0], b = s->body[1];
    fprintf(out->contacts, "%ld", d->step);
    put_num(out->contacts, d->time);
    put_name(out->contacts, a >= 0 && a < m->nbody ? m->body_name[a] : "world");
    put_name(out->contacts, b >= 0 && b < m->nbody ? m->body_name[b] : "world");
    fprintf(out->contacts, ",%d", s->points);
    for (int j = 0; j < 3; j++)
      put_num(out->contacts, s->force[j]);
    put_num(out->contacts, s->area);
    put_num(out->contacts, s->max_pressure);
    put_num(out->contacts, s->max_penetration);
    fputc('\n', out->contacts);
  }
  return flush_checked(out->contacts);
}
