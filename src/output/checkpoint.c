/* Checkpoints: the state of a cmData saved to a file and read back (docs/outputs.md).
 *
 * Layout (every number little-endian; doubles as IEEE-754 bit patterns, so a checkpoint reads
 * back bit for bit on any machine):
 *
 *   offset  size        field
 *   0       8           magic "CMCKPT\0\0"
 *   8       4           format version (u32, CM_CHECKPOINT_VERSION)
 *   12      4           nbody (u32)
 *   16      16          library version string, NUL padded ("0.1.0")
 *   32      8           model fingerprint (u64, cm_model_fingerprint)
 *   40      8           timestep, s (f64)
 *   48      8           total file size in bytes, checksum included (u64)
 *   56      4           warning kinds W (u32, CM_WARN_COUNT)
 *   60      4           timers T (u32, CM_TIMER_COUNT)
 *   64      8           scene fingerprint (u64, cm_model_scene_fingerprint; format 11)
 *   72      224         step (i64), time (f64), solver_iter (i64), solver_residual (f64),
 *                       solver_max_iter (i64), solver_max_residual (f64), solver_solves (i64),
 *                       solver_total_iter (i64), solver_failed_solves (i64), energy (f64),
 *                       energy_low (f64), energy_scale (f64), energy_growth (f64),
 *                       energy_first_step (i64), energy_body (i64), energy_monitor (i64),
 *                       depth_ratio (f64), depth_first_step (i64), depth_body_a (i64),
 *                       depth_body_b (i64), tunnel_first_step (i64), tunnel_body_a (i64),
 *                       tunnel_body_b (i64), tunnel_speed (f64), tunnel_thickness (f64),
 *                       solver_retries (i64; format 8), soft_rows (i64), soft_factor (f64)
 *                       (format 9)
 *   296     8 W         warning counts (i64 each)
 *   ..      8 T         cumulative stage timers, s (f64 each)
 *   ..      8 19 nbody  per body: body_cpos (3), body_xquat (4), body_cvel (3), body_angvel (3),
 *                       body_dv (6)
 *   ..      8 6 nnode   per node of the deformable bodies: node_pos (3), node_vel (3) (format 6;
 *                       nothing for rigid bodies only)
 *   ..      8           A, the number of anchors (u64; format 7)
 *   ..      80 A        per anchor (the private table of what a contact keeps from step to
 *                       step, model/data_internal.h): its contact's two bodies and four key
 *                       integers (i64 each), its friction spring's stretch, world, m (3 f64;
 *                       docs/contact-laws.md, "Friction"), its birth offset, m (f64, >= 0;
 *                       "Edge contacts that begin deeper than they approached"; format 10)
 *   ..      8           C, the number of contacts of the last step (u64; format 12)
 *   ..      8           P, the number of their body pairs (u64; format 12)
 *   ..      168 C       per contact (cmContact, comply/data.h): body[2], pair, vert, face, flags
 *                       (i64 each), p0 (3), p1 (3), n (3), dist, area, force, ftan (3) (f64 each)
 *   ..      88 P        per pair (cmContactPair): body[2], rule, first, points (i64 each), area,
 *                       max_penetration, force (3), max_pressure (f64 each)
 *   size-8  8           FNV-1a 64 of bytes [0, size - 8)
 *
 * The blocks after the header are generated from the field lists (comply/fields.h): the
 * CM_DATA_SCALARS (each as i64 or f64 by its C type), the CM_DATA_TOTALS, then per body the rows
 * of CM_DATA_STATE, then per node those of CM_DATA_NODES. A change of those lists changes this
 * layout: the static assertion below then fails until CM_CHECKPOINT_VERSION, this table and
 * docs/outputs.md follow.
 *
 * The state saved is all the next step depends on (the broadphase keeps nothing from step to
 * step; the solver's warm start is body_dv, saved with the state; the friction springs'
 * stretches and the edge contacts' birth offsets are the anchors), so a run continued from a
 * checkpoint is bit-identical to one that never stopped. The contacts and pairs of the last step
 * (format 12) are not state (the next step's narrowphase finds its own, and no stage reads the
 * last step's), but the outputs of the checkpoint's step read them (contacts.csv, the VTK
 * pressure and penetration) and they cannot be found again from the state (they are those of
 * the step that led to it): saved and restored as they were, so that a restart into an empty
 * folder writes the frame of step S that the run that wrote the checkpoint wrote. The contacts'
 * private keys (ckey, model/data_internal.h) are per-step work of the narrowphase and the laws,
 * not saved. Reading validates, in order: the magic,
 * the format version, the size, the checksum, the library version and the model (nbody, timestep
 * and the fingerprint), the step (>= 0), the integers (each must fit its field: an int count of
 * 2^32 would be read as 0; and each within its range: counts leave room to count on, first steps
 * at most the step, monitored bodies of the model: out_of_range), the body states (finite, as
 * a step leaves them), the nodes, the anchors, and the contacts and pairs (every index within its
 * range, every number finite, each contact within its pair's run: validate_contacts), and names
 * the file and the failed check (and field) in the message. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comply/io.h"
#include "core/file.h"
#include "core/hash.h"
#include "core/internal.h"
#include "model/data_internal.h"
#include "model/fields.h"
#include "model/state.h"

#define MAGIC "CMCKPT\0\0"
#define HEADER_SIZE 72
#define VERSION_LEN 16

/* numbers saved from the lists: scalars, totals (and CM_NSTATE per body) */
#define COUNT_SCALAR(type, name) +1
#define COUNT_FIXED(type, name, count) +(count)
enum { NSCALAR = 0 CM_DATA_SCALARS(COUNT_SCALAR), NTOTAL = 0 CM_DATA_TOTALS(COUNT_FIXED) };
#undef COUNT_SCALAR
#undef COUNT_FIXED
#define STATE_SIZE (8 * NSCALAR)
_Static_assert(NSCALAR == 28 && NTOTAL == CM_WARN_COUNT + CM_TIMER_COUNT && CM_NSTATE == 19 &&
                   CM_NNODE_STATE == 6,
               "the field lists changed the checkpoint layout of format 12: bump "
               "CM_CHECKPOINT_VERSION, update the layout above and docs/outputs.md");

uint64_t cm_model_fingerprint(const cmModel* m) {
  uint64_t h = CM_FNV_OFFSET;
  h = cm_fnv1a_u64(h, (uint64_t)m->nbody);
  h = cm_fnv1a_u64(h, (uint64_t)m->ngeom);
  h = cm_fnv1a_u64(h, (uint64_t)m->nvert);
  h = cm_fnv1a_u64(h, (uint64_t)m->nface);
  if (m->nnode) {
    h = cm_fnv1a_u64(h, (uint64_t)m->nnode);
    h = cm_fnv1a_u64(h, (uint64_t)m->ntet);
  }
  h = cm_fnv1a_u64(h, cm_double_bits(m->opt.timestep));
  h = cm_fnv1a_u64(h, (uint64_t)m->opt.substeps);
  h = cm_fnv1a_u64(h, (uint64_t)m->opt.integrator);
  for (int k = 0; k < 3; k++)
    h = cm_fnv1a_u64(h, cm_double_bits(m->opt.gravity[k]));
  /* a tolerance given changes the solves' last digits (auto leaves the fingerprint of the
   * scenes written before the option existed) */
  if (m->opt.solver_tolerance != CM_SOLVER_TOLERANCE_AUTO)
    h = cm_fnv1a_u64(h, cm_double_bits(m->opt.solver_tolerance));
  for (int b = 0; b < m->nbody; b++) {
    int g = m->body_geom[b];
    h = cm_fnv1a_u64(h, (uint64_t)m->body_motion[b]);
    h = cm_fnv1a_u64(h, cm_double_bits(m->body_mass[b]));
    for (int k = 0; k < 3; k++)
      h = cm_fnv1a_u64(h, cm_double_bits(m->body_com[3 * b + k]));
    h = cm_fnv1a_u64(h, (uint64_t)m->geom_type[g]);
    h = cm_fnv1a_u64(h, (uint64_t)m->geom_nvert[g]);
    h = cm_fnv1a_u64(h, (uint64_t)m->geom_nface[g]);
  }
  return h;
}

/* the numbers of a rule that change a step (not its pair strings or source location) */
static uint64_t rule_hash(uint64_t h, const cmRuleDef* r) {
  const double x[] = {r->ka,       r->step_damping,   r->stiffness_damping, r->elastic_repulsion,
                      r->play,     r->contact_time,   r->stiffness,         r->damping,
                      r->friction, r->stick_velocity, r->min_period};
  const int k[] = {(int)r->law, (int)r->mass, (int)r->method, (int)r->direction,
                   (int)r->integration};
  for (size_t i = 0; i < sizeof x / sizeof *x; i++)
    h = cm_fnv1a_u64(h, cm_double_bits(x[i]));
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    h = cm_fnv1a_u64(h, (uint64_t)(int64_t)k[i]);
  return h;
}

/* an array of the model: its numbers' bytes (ints and doubles have no padding), or for the user
 * laws and their contexts (pointers) whether each is set */
static uint64_t array_hash(uint64_t h, const void* a, size_t n, size_t size, int pointers) {
  if (!pointers) return cm_fnv1a(h, a, n * size);
  for (size_t i = 0; i < n; i++)
    h = cm_fnv1a_u64(h, ((void* const*)a)[i] != NULL);
  return h;
}

uint64_t cm_model_scene_fingerprint(const cmModel* m) {
  uint64_t h = cm_fnv1a_u64(CM_FNV_OFFSET, cm_model_fingerprint(m));
#define SIZE_HASH(type, name)                                                                      \
  if (strcmp(#name, "nnote") != 0) h = cm_fnv1a_u64(h, (uint64_t)(int64_t)m->name);
  CM_MODEL_SIZES(SIZE_HASH)
#undef SIZE_HASH
  const cmOptions* o = &m->opt;
  h = cm_fnv1a_u64(h, cm_double_bits(o->timestep));
  for (int k = 0; k < 3; k++)
    h = cm_fnv1a_u64(h, cm_double_bits(o->gravity[k]));
  h = cm_fnv1a_u64(h, (uint64_t)o->integrator);
  h = cm_fnv1a_u64(h, (uint64_t)(int64_t)o->substeps);
  h = cm_fnv1a_u64(h, cm_double_bits(o->solver_tolerance));
#define ARRAY_HASH(type, name, rows, cols)                                                         \
  if (m->name)                                                                                     \
    h = array_hash(h, m->name, (size_t)m->rows * (size_t)(cols), sizeof *m->name,                  \
                   strcmp(#type, "void*") == 0);
  CM_MODEL_ARRAYS(ARRAY_HASH)
#undef ARRAY_HASH
  for (int r = 0; r < m->nrule; r++)
    h = rule_hash(h, &m->rule[r]);
  return h;
}

/* ---- little-endian encoding ---- */

static void put_u64(unsigned char* p, uint64_t x) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(x >> (8 * i));
}
static void put_u32(unsigned char* p, uint32_t x) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(x >> (8 * i));
}
static uint64_t get_u64(const unsigned char* p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--)
    x = (x << 8) | p[i];
  return x;
}
static uint32_t get_u32(const unsigned char* p) {
  uint32_t x = 0;
  for (int i = 3; i >= 0; i--)
    x = (x << 8) | p[i];
  return x;
}
static void put_f64(unsigned char* p, double x) {
  put_u64(p, cm_double_bits(x));
}
static double get_f64(const unsigned char* p) {
  return cm_bits_double(get_u64(p));
}

/* one number of a field by its C type, the type column of the lists: integers as i64 */
static void put_long(unsigned char* p, long x) {
  put_u64(p, (uint64_t)(int64_t)x);
}
static void put_int(unsigned char* p, int x) {
  put_u64(p, (uint64_t)(int64_t)x);
}
static void put_double(unsigned char* p, double x) {
  put_f64(p, x);
}
static long get_long(const unsigned char* p) {
  return (long)(int64_t)get_u64(p);
}
static int get_int(const unsigned char* p) {
  return (int)(int64_t)get_u64(p);
}
static double get_double(const unsigned char* p) {
  return get_f64(p);
}

#define ANCHOR_BYTES 80   /* 6 integers and 4 doubles */
#define CONTACT_BYTES 168 /* 6 integers and 15 doubles (format 12) */
#define PAIR_BYTES 88     /* 5 integers and 6 doubles (format 12) */
_Static_assert(offsetof(cmContact, p0) == 6 * sizeof(int) &&
                   offsetof(cmContact, ftan) == offsetof(cmContact, p0) + 12 * sizeof(double) &&
                   sizeof(cmContact) == offsetof(cmContact, ftan) + 3 * sizeof(double) &&
                   offsetof(cmContactPair, area) >= 5 * sizeof(int) &&
                   offsetof(cmContactPair, area) < 5 * sizeof(int) + sizeof(double) &&
                   offsetof(cmContactPair, max_pressure) ==
                       offsetof(cmContactPair, area) + 5 * sizeof(double) &&
                   sizeof(cmContactPair) == offsetof(cmContactPair, max_pressure) + sizeof(double),
               "cmContact or cmContactPair changed: the checkpoint's contacts of format 12 "
               "(CONTACT_BYTES, PAIR_BYTES, encode, decode, validate_contacts) must follow");

/* the bytes before the anchors' count */
static size_t body_end(int nbody, int nnode) {
  return HEADER_SIZE + STATE_SIZE + 8 * (size_t)NTOTAL + 8 * (size_t)CM_NSTATE * (size_t)nbody +
         8 * (size_t)CM_NNODE_STATE * (size_t)nnode;
}

/* the bytes before the contacts' count */
static size_t anchor_end(int nbody, int nnode, int nanchor) {
  return body_end(nbody, nnode) + 8 + ANCHOR_BYTES * (size_t)nanchor;
}

/* (in 64 bits: a size read from a file is compared with it) */
static uint64_t file_size(int nbody, int nnode, int nanchor, int ncontact, int npair) {
  return (uint64_t)anchor_end(nbody, nnode, nanchor) + 16 + CONTACT_BYTES * (uint64_t)ncontact +
         PAIR_BYTES * (uint64_t)npair + 8;
}

/* the checkpoint of (m, d) in a new buffer of file_size(...) bytes */
static unsigned char* encode(const cmModel* m, const cmData* d, size_t* size) {
  const cmDataPriv* pv = cm_priv(d);
  size_t n = (size_t)file_size(m->nbody, m->nnode, pv->nanchor, d->ncontact, d->npair);
  unsigned char* buf = cm_calloc(1, n);
  if (!buf) return NULL;
  memcpy(buf, MAGIC, 8);
  put_u32(buf + 8, CM_CHECKPOINT_VERSION);
  put_u32(buf + 12, (uint32_t)m->nbody);
  strncpy((char*)buf + 16, cm_version(), VERSION_LEN - 1);
  put_u64(buf + 32, cm_model_fingerprint(m));
  put_f64(buf + 40, m->opt.timestep);
  put_u64(buf + 48, (uint64_t)n);
  put_u32(buf + 56, CM_WARN_COUNT);
  put_u32(buf + 60, CM_TIMER_COUNT);
  put_u64(buf + 64, cm_model_scene_fingerprint(m));
  unsigned char* p = buf + HEADER_SIZE;
#define PUT_SCALAR(type, name)                                                                     \
  put_##type(p, d->name);                                                                          \
  p += 8;
#define PUT_FIXED(type, name, count)                                                               \
  for (int i = 0; i < (count); i++, p += 8)                                                        \
    put_##type(p, d->name[i]);
  CM_DATA_SCALARS(PUT_SCALAR)
  CM_DATA_TOTALS(PUT_FIXED)
#undef PUT_SCALAR
#undef PUT_FIXED
  for (int b = 0; b < m->nbody; b++) {
#define PUT_STATE(type, name, rows, cols)                                                          \
  for (int k = 0; k < (cols); k++, p += 8)                                                         \
    put_##type(p, d->name[(size_t)b * (cols) + k]);
    CM_DATA_STATE(PUT_STATE)
  }
  for (int b = 0; b < m->nnode; b++) {
    CM_DATA_NODES(PUT_STATE)
#undef PUT_STATE
  }
  put_u64(p, (uint64_t)pv->nanchor);
  p += 8;
  for (int i = 0; i < pv->nanchor; i++) {
    const cmAnchor* a = &pv->anchor[i];
    for (int k = 0; k < 2; k++, p += 8)
      put_int(p, a->body[k]);
    for (int k = 0; k < 4; k++, p += 8)
      put_int(p, a->key[k]);
    for (int k = 0; k < 3; k++, p += 8)
      put_f64(p, a->s[k]);
    put_f64(p, a->o);
    p += 8;
  }
  /* the contacts and pairs of the last step (format 12) */
  put_u64(p, (uint64_t)d->ncontact);
  put_u64(p + 8, (uint64_t)d->npair);
  p += 16;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    const int in[6] = {c->body[0], c->body[1], c->pair, c->vert, c->face, c->flags};
    const double x[15] = {c->p0[0], c->p0[1], c->p0[2],   c->p1[0],   c->p1[1],
                          c->p1[2], c->n[0],  c->n[1],    c->n[2],    c->dist,
                          c->area,  c->force, c->ftan[0], c->ftan[1], c->ftan[2]};
    for (int k = 0; k < 6; k++, p += 8)
      put_int(p, in[k]);
    for (int k = 0; k < 15; k++, p += 8)
      put_f64(p, x[k]);
  }
  for (int i = 0; i < d->npair; i++) {
    const cmContactPair* P = &d->pair[i];
    const int in[5] = {P->body[0], P->body[1], P->rule, P->first, P->points};
    const double x[6] = {P->area,     P->max_penetration, P->force[0],
                         P->force[1], P->force[2],        P->max_pressure};
    for (int k = 0; k < 5; k++, p += 8)
      put_int(p, in[k]);
    for (int k = 0; k < 6; k++, p += 8)
      put_f64(p, x[k]);
  }
  CM_ASSERT(p == buf + n - 8);
  put_u64(p, cm_fnv1a(CM_FNV_OFFSET, buf, n - 8));
  *size = n;
  return buf;
}

cmStatus cm_checkpoint_write(const cmModel* m, const cmData* d, const char* path, char* err,
                             size_t errsz) {
  CM_ASSERT(m && d && path);
  size_t n = 0, np = strlen(path);
  unsigned char* buf = encode(m, d, &n);
  char* tmp = cm_malloc(np + 5);
  if (!buf || !tmp) {
    cm_free(buf);
    cm_free(tmp);
    return cm_error(err, errsz, CM_ERR_NOMEM, "checkpoint '%s': out of memory", path);
  }
  memcpy(tmp, path, np);
  memcpy(tmp + np, ".tmp", 5);

  /* the temporary file completely and durably, then the rename over the real one */
  cmStatus st = CM_OK;
  FILE* f = fopen(tmp, "wb");
  if (!f) {
    st = cm_error(err, errsz, CM_ERR_IO, "cannot open checkpoint '%s' for writing: %s", tmp,
                  strerror(errno));
  } else {
    int bad = fwrite(buf, 1, n, f) != n || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
      bad = 1;
      e = errno;
    }
    if (bad) {
      st = cm_error(err, errsz, CM_ERR_IO, "cannot write checkpoint '%s': %s", tmp, strerror(e));
      remove(tmp);
    } else if (rename(tmp, path) != 0) {
      st = cm_error(err, errsz, CM_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path,
                    strerror(errno));
      remove(tmp);
    }
  }
  cm_free(buf);
  cm_free(tmp);
  return st;
}

/* the whole file (a regular file only) in a new buffer */
static cmStatus read_all(const char* path, unsigned char** out, size_t* size, char* err,
                         size_t errsz) {
  char* buf;
  size_t n;
  cmFileStatus fs = cm_file_read(path, SIZE_MAX, CM_FILE_REGULAR, &buf, &n);
  *out = (unsigned char*)buf;
  *size = n;
  switch (fs) {
  case CM_FILE_OK:
    return CM_OK;
  case CM_FILE_OPEN:
    return cm_error(err, errsz, CM_ERR_IO, "cannot open checkpoint '%s': %s", path,
                    strerror(errno));
  case CM_FILE_NOT_REGULAR:
    return cm_error(err, errsz, CM_ERR_IO, "checkpoint '%s': not a regular file", path);
  case CM_FILE_NOMEM:
    return cm_error(err, errsz, CM_ERR_NOMEM, "checkpoint '%s': out of memory (%zu bytes)", path,
                    n);
  default: /* CM_FILE_READ (CM_FILE_LIMIT cannot happen without a limit) */
    return cm_error(err, errsz, CM_ERR_IO, "cannot read checkpoint '%s'", path);
  }
}

/* does the i64 x of the file fit the field's C type (the type column of the lists)? */
static int fits_long(int64_t x) {
  return (int64_t)(long)x == x;
}
static int fits_int(int64_t x) {
  return (int64_t)(int)x == x;
}
static int fits_double(int64_t x) {
  (void)x;
  return 1;
}

/* the name of the first scalar or total whose number does not fit its field (*value: that
 * number), or NULL: a file written by this library never has one, and the read would silently
 * truncate it */
static const char* misfit(const unsigned char* buf, long long* value) {
  const unsigned char* p = buf + HEADER_SIZE;
#define FIT_SCALAR(type, name)                                                                     \
  if (!fits_##type((int64_t)get_u64(p))) {                                                         \
    *value = (long long)(int64_t)get_u64(p);                                                       \
    return #name;                                                                                  \
  }                                                                                                \
  p += 8;
#define FIT_FIXED(type, name, count)                                                               \
  for (int i = 0; i < (count); i++, p += 8)                                                        \
    if (!fits_##type((int64_t)get_u64(p))) {                                                       \
      *value = (long long)(int64_t)get_u64(p);                                                     \
      return #name;                                                                                \
    }
  CM_DATA_SCALARS(FIT_SCALAR)
  CM_DATA_TOTALS(FIT_FIXED)
#undef FIT_SCALAR
#undef FIT_FIXED
  return NULL;
}

/* Room for a run to go on counting: every count (the step, the solver's totals, the warning
 * counts) at least 0 and at most COUNT_MAX (a long) or INT_COUNT_MAX (an int), so that the steps
 * after a restart cannot overflow it (a step of 2^63 - 1 read from a file made `step + 1`
 * undefined: the checkpoint fuzzer found it); a step number of a first event (energy, depth,
 * tunnelling; 0 for none) at most the step; a body named by a monitor -1 (none) or a body of the
 * model (the messages print its name). */
#define COUNT_MAX ((int64_t)1 << 62)
#define INT_COUNT_MAX ((int64_t)1 << 30)

static int count_ok(const cmModel* m, const char* name, const char* type, int64_t x,
                    int64_t step) {
  if (strcmp(type, "double") == 0) return 1;
  size_t n = strlen(name);
  if (n > 11 && strcmp(name + n - 11, "_first_step") == 0) return x >= 0 && x <= step;
  if (strcmp(name, "energy_body") == 0 || strstr(name, "_body_a") || strstr(name, "_body_b"))
    return x >= -1 && x < m->nbody;
  return x >= 0 && x <= (strcmp(type, "long") == 0 ? COUNT_MAX : INT_COUNT_MAX);
}

/* the name of the first scalar or total out of count_ok's range (*value: its number), or NULL */
static const char* out_of_range(const cmModel* m, const unsigned char* buf, long long* value) {
  const unsigned char* p = buf + HEADER_SIZE;
  int64_t step = (int64_t)get_u64(p);
#define RANGE_SCALAR(type, name)                                                                   \
  if (!count_ok(m, #name, #type, (int64_t)get_u64(p), step)) {                                     \
    *value = (long long)(int64_t)get_u64(p);                                                       \
    return #name;                                                                                  \
  }                                                                                                \
  p += 8;
#define RANGE_FIXED(type, name, count)                                                             \
  for (int i = 0; i < (count); i++, p += 8)                                                        \
    if (!count_ok(m, #name, #type, (int64_t)get_u64(p), step)) {                                   \
      *value = (long long)(int64_t)get_u64(p);                                                     \
      return #name;                                                                                \
    }
  CM_DATA_SCALARS(RANGE_SCALAR)
  CM_DATA_TOTALS(RANGE_FIXED)
#undef RANGE_SCALAR
#undef RANGE_FIXED
  return NULL;
}

/* the first body whose saved state has a number that is not finite (*field: which array), or -1:
 * a step never leaves one (the step is undone), so such a file was not written by a run */
/* the first body whose state has a non-finite number (*field its column, *what "not finite")
 * or a zero quaternion (*what "the zero quaternion"); -1 if none */
static int nonfinite_body(int nbody, const unsigned char* buf, const char** field,
                          const char** what) {
  const unsigned char* p = buf + HEADER_SIZE + STATE_SIZE + 8 * (size_t)NTOTAL;
  for (int b = 0; b < nbody; b++) {
#define FINITE_STATE(type, name, rows, cols)                                                       \
  {                                                                                                \
    int zero = 1;                                                                                  \
    for (int k = 0; k < (cols); k++, p += 8) {                                                     \
      double v = get_f64(p);                                                                       \
      if (!isfinite(v)) {                                                                          \
        *field = #name;                                                                            \
        *what = "not finite";                                                                      \
        return b;                                                                                  \
      }                                                                                            \
      zero = zero && v == 0;                                                                       \
    }                                                                                              \
    if (zero && !strcmp(#name, "body_xquat")) {                                                    \
      *field = #name;                                                                              \
      *what = "the zero quaternion";                                                               \
      return b;                                                                                    \
    }                                                                                              \
  }
    CM_DATA_STATE(FINITE_STATE)
#undef FINITE_STATE
  }
  return -1;
}

/* the checks of the file that need no model: a checkpoint of this format, its size, its
 * checksum and the library that wrote it */
static cmStatus validate_file(const unsigned char* buf, size_t n, const char* path, char* err,
                              size_t errsz) {
  if (n < 6 || memcmp(buf, MAGIC, 6) != 0)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "'%s' is not a comply checkpoint (it does not start with \"CMCKPT\")", path);
  if (n < HEADER_SIZE)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is truncated: %zu bytes, the header alone has %d", path, n,
                    HEADER_SIZE);
  uint32_t version = get_u32(buf + 8);
  if (memcmp(buf, MAGIC, 8) != 0 || version != CM_CHECKPOINT_VERSION)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' has format version %u; this library reads version %d", path,
                    (unsigned)version, CM_CHECKPOINT_VERSION);
  uint64_t stored = get_u64(buf + 48);
  if (stored != n)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is %s: %zu bytes, its header says %llu", path,
                    n < stored ? "truncated" : "too long", n, (unsigned long long)stored);
  uint32_t nbody = get_u32(buf + 12);
  /* at least the bodies, the anchors' count and the checksum (the nodes and anchors that follow
   * the bodies are checked against the model below) */
  uint64_t base = nbody > INT32_MAX ? 0 : file_size((int)nbody, 0, 0, 0, 0);
  if (get_u32(buf + 56) != CM_WARN_COUNT || get_u32(buf + 60) != CM_TIMER_COUNT ||
      nbody > INT32_MAX || n < base)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is inconsistent: its size %zu does not match %u bodies", path,
                    n, (unsigned)nbody);
  uint64_t sum = cm_fnv1a(CM_FNV_OFFSET, buf, n - 8);
  if (sum != get_u64(buf + n - 8))
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is corrupted: checksum mismatch (stored %016llx, computed "
                    "%016llx)",
                    path, (unsigned long long)get_u64(buf + n - 8), (unsigned long long)sum);
  char lib[VERSION_LEN];
  memcpy(lib, buf + 16, VERSION_LEN);
  lib[VERSION_LEN - 1] = '\0';
  if (strcmp(lib, cm_version()) != 0)
    return cm_error(err, errsz, CM_ERR_ARG,
                    "checkpoint '%s' was written by comply %s; this is comply %s (a restart is "
                    "bit-identical only with the same library version)",
                    path, lib, cm_version());
  return CM_OK;
}

/* the names of a saved contact's and pair's numbers, in the file's order (format 12) */
static const char* const CONTACT_INT[6] = {"body[0]", "body[1]", "pair", "vert", "face", "flags"};
static const char* const CONTACT_F64[15] = {"p0[0]", "p0[1]", "p0[2]",   "p1[0]",   "p1[1]",
                                            "p1[2]", "n[0]",  "n[1]",    "n[2]",    "dist",
                                            "area",  "force", "ftan[0]", "ftan[1]", "ftan[2]"};
static const char* const PAIR_INT[5] = {"body[0]", "body[1]", "rule", "first", "points"};
static const char* const PAIR_F64[6] = {"area",     "max_penetration", "force[0]",
                                        "force[1]", "force[2]",        "max_pressure"};

/* The contacts (nc, at q) and pairs (np, after them) of a checkpoint: every integer within the
 * range a step leaves it in (bodies and the pair's rule of the model; a pair's run of contacts,
 * [first, first + points), within the list; a contact's pair one of the pairs, the contact in
 * that pair's run and of its two bodies; its vertex -1 or one of body[0]'s geometry, its face -1
 * or one of body[1]'s, its flags CM_CONTACT_* bits) and every number finite. The outputs index
 * the geometry's vertices by vert and the pairs' runs by first and points: the first failure
 * names the file, the contact or pair and its field. (Counts against max_contacts are not
 * checked: it is not in the fingerprints, and the next step applies it.) */
static cmStatus validate_contacts(const cmModel* m, const unsigned char* q, int nc, int np,
                                  const char* path, char* err, size_t errsz) {
  const unsigned char* pq = q + CONTACT_BYTES * (size_t)nc;
  for (int k = 0; k < np; k++, pq += PAIR_BYTES) {
    int64_t v[5];
    for (int j = 0; j < 5; j++)
      v[j] = (int64_t)get_u64(pq + 8 * j);
    const int64_t lo[5] = {0, 0, 0, 0, 0};
    const int64_t hi[5] = {m->nbody - 1, m->nbody - 1, m->nrule - 1, nc,
                           v[3] >= 0 && v[3] <= nc ? nc - v[3] : 0};
    for (int j = 0; j < 5; j++)
      if (v[j] < lo[j] || v[j] > hi[j])
        return cm_error(err, errsz, CM_ERR_PARSE,
                        "checkpoint '%s' is corrupted: contact pair %d's %s = %lld is out of its "
                        "range %lld to %lld",
                        path, k, PAIR_INT[j], (long long)v[j], (long long)lo[j], (long long)hi[j]);
    for (int j = 0; j < 6; j++)
      if (!isfinite(get_f64(pq + 40 + 8 * j)))
        return cm_error(err, errsz, CM_ERR_PARSE,
                        "checkpoint '%s' is corrupted: contact pair %d's %s is %g, not a finite "
                        "number",
                        path, k, PAIR_F64[j], get_f64(pq + 40 + 8 * j));
  }
  pq = q + CONTACT_BYTES * (size_t)nc;
  for (int i = 0; i < nc; i++, q += CONTACT_BYTES) {
    int64_t v[6];
    for (int j = 0; j < 6; j++)
      v[j] = (int64_t)get_u64(q + 8 * j);
    int64_t nv = 0, nf = 0;
    if (v[0] >= 0 && v[0] < m->nbody) nv = m->geom_nvert[m->body_geom[v[0]]];
    if (v[1] >= 0 && v[1] < m->nbody) nf = m->geom_nface[m->body_geom[v[1]]];
    const int64_t lo[6] = {0, 0, 0, -1, -1, 0};
    const int64_t hi[6] = {
        m->nbody - 1, m->nbody - 1, (int64_t)np - 1,
        nv - 1,       nf - 1,       CM_CONTACT_TWO_WAY | CM_CONTACT_EDGE | CM_CONTACT_CONTOUR};
    for (int j = 0; j < 6; j++)
      if (v[j] < lo[j] || v[j] > hi[j])
        return cm_error(err, errsz, CM_ERR_PARSE,
                        "checkpoint '%s' is corrupted: contact %d's %s = %lld is out of its range "
                        "%lld to %lld",
                        path, i, CONTACT_INT[j], (long long)v[j], (long long)lo[j],
                        (long long)hi[j]);
    const unsigned char* P = pq + PAIR_BYTES * (size_t)v[2];
    int64_t pb0 = (int64_t)get_u64(P), pb1 = (int64_t)get_u64(P + 8);
    int64_t first = (int64_t)get_u64(P + 24), points = (int64_t)get_u64(P + 32);
    if (i < first || i >= first + points ||
        !((v[0] == pb0 && v[1] == pb1) || (v[0] == pb1 && v[1] == pb0)))
      return cm_error(err, errsz, CM_ERR_PARSE,
                      "checkpoint '%s' is corrupted: contact %d (bodies %lld and %lld) is not one "
                      "of its pair %lld's (contacts %lld to %lld, bodies %lld and %lld)",
                      path, i, (long long)v[0], (long long)v[1], (long long)v[2], (long long)first,
                      (long long)(first + points - 1), (long long)pb0, (long long)pb1);
    for (int j = 0; j < 15; j++)
      if (!isfinite(get_f64(q + 48 + 8 * j)))
        return cm_error(err, errsz, CM_ERR_PARSE,
                        "checkpoint '%s' is corrupted: contact %d's %s is %g, not a finite number",
                        path, i, CONTACT_F64[j], get_f64(q + 48 + 8 * j));
  }
  return CM_OK;
}

/* every check of the file against the format and the model */
static cmStatus validate(const cmModel* m, const unsigned char* buf, size_t n, const char* path,
                         char* err, size_t errsz) {
  cmStatus st = validate_file(buf, n, path, err, errsz);
  if (st != CM_OK) return st;
  uint32_t nbody = get_u32(buf + 12);
  double h = get_f64(buf + 40);
  if ((int)nbody != m->nbody || h != m->opt.timestep ||
      get_u64(buf + 32) != cm_model_fingerprint(m))
    return cm_error(err, errsz, CM_ERR_ARG,
                    "checkpoint '%s' is of another scene: it has %u bodies and timestep %.17g s, "
                    "this scene '%s' has %d bodies and timestep %.17g s%s",
                    path, (unsigned)nbody, h, m->name ? m->name : "", m->nbody, m->opt.timestep,
                    (int)nbody == m->nbody && h == m->opt.timestep
                        ? " (the masses, geometries or options differ)"
                        : "");
  int64_t step = (int64_t)get_u64(buf + HEADER_SIZE);
  if (step < 0)
    return cm_error(err, errsz, CM_ERR_PARSE, "checkpoint '%s': negative step %lld", path,
                    (long long)step);
  long long value = 0;
  const char* field = misfit(buf, &value);
  if (field)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is corrupted: %s = %lld does not fit its field's C type", path,
                    field, value);
  if ((field = out_of_range(m, buf, &value)))
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is corrupted: %s = %lld is out of its range (a count from 0 "
                    "to 2^62, or 2^30 for an int; a first step from 0 to the step; a body -1 to "
                    "the bodies' count - 1)",
                    path, field, value);
  /* the time is the step's, as cm_step computes it (a NaN or another time was read and written
   * to the outputs until the next step) */
  double t = get_f64(buf + HEADER_SIZE + 8);
  if (!(t == m->opt.timestep * (double)step))
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is corrupted: time %.17g s is not step %lld x timestep %.17g "
                    "s",
                    path, t, (long long)step, m->opt.timestep);
  const char* what = "";
  int b = nonfinite_body(m->nbody, buf, &field, &what);
  if (b >= 0)
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is corrupted: body %d ('%s') has a %s that is %s", path, b,
                    m->body_name[b], field, what);
  /* the model's nodes (the fingerprint counts them), then the anchors, then the contacts and
   * pairs (format 12): three counts, each where the one before puts it */
  size_t end = body_end(m->nbody, m->nnode);
  uint64_t na = n >= end + 8 + 24 ? get_u64(buf + end) : UINT64_MAX;
  uint64_t nc = UINT64_MAX, np = UINT64_MAX;
  if (na <= INT32_MAX && (uint64_t)n >= (uint64_t)anchor_end(m->nbody, m->nnode, (int)na) + 24) {
    size_t ce = anchor_end(m->nbody, m->nnode, (int)na);
    nc = get_u64(buf + ce);
    np = get_u64(buf + ce + 8);
  }
  if (na > INT32_MAX || nc > INT32_MAX || np > INT32_MAX ||
      (uint64_t)n != file_size(m->nbody, m->nnode, (int)na, (int)nc, (int)np))
    return cm_error(err, errsz, CM_ERR_PARSE,
                    "checkpoint '%s' is inconsistent: its size %zu does not match %d bodies, %d "
                    "nodes and its count of anchors (%llu), count of contacts (%llu) and count of "
                    "contact pairs (%llu)",
                    path, n, m->nbody, m->nnode, (unsigned long long)na, (unsigned long long)nc,
                    (unsigned long long)np);
  const unsigned char* q = buf + body_end(m->nbody, 0);
  for (int k = 0; k < CM_NNODE_STATE * m->nnode; k++, q += 8)
    if (!isfinite(get_f64(q)))
      return cm_error(err, errsz, CM_ERR_PARSE,
                      "checkpoint '%s' is corrupted: node %d of the deformable bodies has a "
                      "position or velocity that is not finite",
                      path, k / CM_NNODE_STATE);
  q = buf + end + 8;
  for (int i = 0; i < (int)na; i++, q += ANCHOR_BYTES) {
    int bad = 0;
    for (int k = 0; k < 2; k++) {
      int64_t body = (int64_t)get_u64(q + 8 * k);
      bad |= body < 0 || body >= m->nbody;
    }
    for (int k = 0; k < 4; k++) {
      int64_t v = (int64_t)get_u64(q + 16 + 8 * k);
      bad |= v < -2 || v > INT32_MAX;
    }
    for (int k = 0; k < 3; k++)
      bad |= !isfinite(get_f64(q + 48 + 8 * k));
    double o = get_f64(q + 72);
    bad |= !(o >= 0) || !isfinite(o);
    if (bad)
      return cm_error(err, errsz, CM_ERR_PARSE,
                      "checkpoint '%s' is corrupted: anchor %d (a contact's friction spring and "
                      "birth offset) has a body index, key, stretch or offset out of range",
                      path, i);
  }
  return validate_contacts(m, q + 16, (int)nc, (int)np, path, err, errsz);
}

/* d from a validated file; CM_ERR_NOMEM (*what: of what) with d's contents unchanged */
static cmStatus decode(const cmModel* m, cmData* d, const unsigned char* buf, const char** what) {
  const unsigned char* p = buf + HEADER_SIZE;
  /* the anchors' and the contacts' room first, so that d is unchanged when it cannot be had
   * (the state was written before, and CM_ERR_NOMEM left d half read); growing keeps the
   * arrays' contents */
  cmDataPriv* pv = cm_priv(d);
  size_t at = 8 * ((size_t)NSCALAR + NTOTAL + (size_t)CM_NSTATE * (size_t)m->nbody +
                   (size_t)CM_NNODE_STATE * (size_t)m->nnode);
  int na = (int)get_u64(p + at);
  const unsigned char* pc = buf + anchor_end(m->nbody, m->nnode, na);
  int nc = (int)get_u64(pc), np = (int)get_u64(pc + 8);
  *what = "friction springs";
  if (!cm_anchor_room(&pv->anchor, &pv->maxanchor, na)) return CM_ERR_NOMEM;
  *what = "contacts";
  if (!cm_contact_room(d, nc, np)) return CM_ERR_NOMEM;
#define GET_SCALAR(type, name)                                                                     \
  d->name = get_##type(p);                                                                         \
  p += 8;
#define GET_FIXED(type, name, count)                                                               \
  for (int i = 0; i < (count); i++, p += 8)                                                        \
    d->name[i] = get_##type(p);
  CM_DATA_SCALARS(GET_SCALAR)
  CM_DATA_TOTALS(GET_FIXED)
#undef GET_SCALAR
#undef GET_FIXED
  for (int b = 0; b < m->nbody; b++) {
#define GET_STATE(type, name, rows, cols)                                                          \
  for (int k = 0; k < (cols); k++, p += 8)                                                         \
    d->name[(size_t)b * (cols) + k] = get_##type(p);
    CM_DATA_STATE(GET_STATE)
  }
  for (int b = 0; b < m->nnode; b++) {
    CM_DATA_NODES(GET_STATE)
#undef GET_STATE
  }
  CM_ASSERT(p == buf + HEADER_SIZE + at);
  p += 8;
  for (int i = 0; i < na; i++) {
    cmAnchor* a = &pv->anchor[i];
    for (int k = 0; k < 2; k++, p += 8)
      a->body[k] = get_int(p);
    for (int k = 0; k < 4; k++, p += 8)
      a->key[k] = get_int(p);
    for (int k = 0; k < 3; k++, p += 8)
      a->s[k] = get_f64(p);
    a->o = get_f64(p);
    p += 8;
  }
  pv->nanchor = na;
  /* the contacts and pairs of the last step, as they were (format 12): the outputs of this step
   * read them; the next step finds its own */
  CM_ASSERT(p == pc);
  p += 16;
  for (int i = 0; i < nc; i++) {
    cmContact* c = &d->contact[i];
    int* in[6] = {&c->body[0], &c->body[1], &c->pair, &c->vert, &c->face, &c->flags};
    double* x[15] = {&c->p0[0], &c->p0[1], &c->p0[2],   &c->p1[0],   &c->p1[1],
                     &c->p1[2], &c->n[0],  &c->n[1],    &c->n[2],    &c->dist,
                     &c->area,  &c->force, &c->ftan[0], &c->ftan[1], &c->ftan[2]};
    for (int k = 0; k < 6; k++, p += 8)
      *in[k] = get_int(p);
    for (int k = 0; k < 15; k++, p += 8)
      *x[k] = get_f64(p);
  }
  for (int i = 0; i < np; i++) {
    cmContactPair* P = &d->pair[i];
    memset(P, 0, sizeof *P); /* (its padding too) */
    int* in[5] = {&P->body[0], &P->body[1], &P->rule, &P->first, &P->points};
    double* x[6] = {&P->area,     &P->max_penetration, &P->force[0],
                    &P->force[1], &P->force[2],        &P->max_pressure};
    for (int k = 0; k < 5; k++, p += 8)
      *in[k] = get_int(p);
    for (int k = 0; k < 6; k++, p += 8)
      *x[k] = get_f64(p);
  }
  d->ncontact = nc;
  d->npair = np;
  /* the derived fields from the state */
  cm_body_derive(m, d);
  return CM_OK;
}

cmStatus cm_checkpoint_read(const cmModel* m, cmData* d, const char* path, char* err,
                            size_t errsz) {
  CM_ASSERT(m && d && path);
  unsigned char* buf = NULL;
  size_t n = 0;
  cmStatus st = read_all(path, &buf, &n, err, errsz);
  if (st == CM_OK) st = validate(m, buf, n, path, err, errsz);
  const char* what = "";
  if (st == CM_OK && decode(m, d, buf, &what) != CM_OK)
    st =
        cm_error(err, errsz, CM_ERR_NOMEM, "checkpoint '%s': out of memory for its %s", path, what);
  cm_free(buf);
  return st;
}

cmStatus cm_checkpoint_info(const char* path, cmCheckpointInfo* info, char* err, size_t errsz) {
  CM_ASSERT(path && info);
  unsigned char* buf = NULL;
  size_t n = 0;
  cmStatus st = read_all(path, &buf, &n, err, errsz);
  if (st == CM_OK) st = validate_file(buf, n, path, err, errsz);
  if (st == CM_OK) {
    info->step = (long)(int64_t)get_u64(buf + HEADER_SIZE);
    info->time = get_f64(buf + HEADER_SIZE + 8);
    info->timestep = get_f64(buf + 40);
    info->nbody = (int)get_u32(buf + 12);
    info->model_fingerprint = get_u64(buf + 32);
    info->scene_fingerprint = get_u64(buf + 64);
  }
  cm_free(buf);
  return st;
}
