/* The field lists (include/comply/fields.h), which generate allocation, free, copy, hash,
 * checkpoint and rollback of cmModel and cmData:
 *
 * - every field of the two structs is in a list: the listed fields tile the struct (offsets,
 *   sizes, padding) and the field names declared in the headers are the listed ones;
 * - a copy reproduces every listed field (all of which differ before it), the pair summaries
 *   included, and continues identically; out of memory it leaves its target unchanged;
 * - a checkpoint restores every state, scalar and total bit for bit, the derived fields follow,
 *   and both runs continue with identical hashes;
 * - the hash and the checkpoint bytes are the documented ones (docs/outputs.md), computed here by
 *   hand from the field names, not from the lists;
 * - the model and the data free everything they allocate, also when any one allocation fails.
 *
 * The comparisons walk the lists themselves, so a field dropped from a list would drop out of
 * both the copy and its check: the layout and name guards are what catch that. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "model/data_internal.h"
#include "test.h"

static char err[1024];
static const char* PATH = "test_fields.bin";

/* two boxes on a plane (aliases "crate"), a sphere falling onto the first box, and a bob on a
 * joint to the world: contacts in several pairs from about step 60, every kind of model array
 * (joints, several aliases and classes, a compile note from the vertex rule between boxes) */
static cmScene* scene_def(void) {
  cmScene* s = cm_scene_new("fields-test");
  s->opt.timestep = 1e-3;
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) >= 0);
  for (int i = 0; i < 2; i++) {
    cmBodyDef b = cm_body_def_default();
    b.name = i == 0 ? "box" : "box2";
    b.alias = "crate";
    b.geom.type = CM_GEOM_BOX;
    b.geom.size[0] = b.geom.size[1] = 0.1;
    b.geom.size[2] = 0.05;
    b.geom.divisions = 3;
    b.position[0] = 0.3 * i;
    b.position[2] = 0.045;
    b.angular_velocity[2] = 0.5;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) >= 0);
  }
  cmBodyDef ball = cm_body_def_default();
  ball.name = "ball";
  ball.geom.type = CM_GEOM_SPHERE;
  ball.geom.radius = 0.03;
  ball.geom.refine = 2;
  ball.position[2] = 0.2;
  ball.velocity[0] = 0.01;
  CHECK(cm_scene_add_body(s, &ball, err, sizeof err) >= 0);
  cmBodyDef bob = ball;
  bob.name = "bob";
  bob.geom.refine = 1;
  bob.position[0] = 1;
  bob.position[2] = 0.5;
  bob.velocity[0] = 0.1;
  CHECK(cm_scene_add_body(s, &bob, err, sizeof err) >= 0);
  /* a deformable cube on the ground, away from the others: the nodes' state */
  cmBodyDef jelly = cm_body_def_default();
  jelly.name = "jelly";
  jelly.motion = CM_MOTION_DEFORMABLE;
  jelly.geom.type = CM_GEOM_BOX;
  jelly.geom.size[0] = jelly.geom.size[1] = jelly.geom.size[2] = 0.05;
  jelly.deformable.cells[0] = jelly.deformable.cells[1] = jelly.deformable.cells[2] = 1;
  jelly.deformable.young = 1e5;
  jelly.position[0] = -0.5;
  jelly.position[2] = 0.03;
  jelly.velocity[0] = 0.01;
  CHECK(cm_scene_add_body(s, &jelly, err, sizeof err) >= 0);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.friction = 0.3;
  r.method = CM_METHOD_VERTEX; /* (not the default auto) for the compile note */
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  cmRuleDef link = cm_rule_def_default();
  link.pair[0] = "bob";
  link.pair[1] = "world";
  link.contact_time = 0.05;
  CHECK(cm_scene_add_rule(s, &link, err, sizeof err) >= 0);
  cmJointDef j = cm_joint_def_default();
  j.body[0] = "bob";
  j.body[1] = "world";
  j.anchor[0] = 1;
  j.anchor[2] = 0.55;
  CHECK(cm_scene_add_joint(s, &j, err, sizeof err) >= 0);
  return s;
}

static cmModel* scene(void) {
  cmScene* s = scene_def();
  cmModel* m = NULL;
  /* a failed compile is a failure (the callers' `if (!m) return;` skipped every check) */
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) {
    fprintf(stderr, "%s\n", err);
    CHECK(m != NULL);
  }
  cm_scene_free(s);
  return m;
}

static void steps(const cmModel* m, cmData* d, int n) {
  for (int i = 0; i < n; i++)
    CHECK(cm_step(m, d) == CM_OK);
}

/* ---- every field in a list ---------------------------------------------------------------- */

typedef struct Field {
  const char* name;
  size_t offset, size; /* in the struct */
  size_t listed;       /* size the list's row gives */
  size_t align;        /* alignment of the listed type */
} Field;

typedef struct Layout {
  Field f[128];
  int n;
} Layout;

static void add(Layout* l, const char* name, size_t offset, size_t size, size_t listed,
                size_t align) {
  if (l->n < 128) l->f[l->n++] = (Field){name, offset, size, listed, align};
}

static int by_offset(const void* a, const void* b) {
  const Field *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* the rows of the lists of cmModel and cmData as (name, offset, size) */
#define MEMBER_SIZE(S, name) sizeof(((S*)0)->name)
#define ROW_SCALAR(S, type, name)                                                                  \
  add(&l, #name, offsetof(S, name), MEMBER_SIZE(S, name), sizeof(type), _Alignof(type));
#define ROW_FIXED(S, type, name, count)                                                            \
  add(&l, #name, offsetof(S, name), MEMBER_SIZE(S, name), sizeof(type) * (count), _Alignof(type));
#define ROW_ARRAY(S, type, name)                                                                   \
  add(&l, #name, offsetof(S, name), MEMBER_SIZE(S, name), sizeof(type*), _Alignof(type*));

static Layout model_rows(void) {
  Layout l = {.n = 0};
#define M_SCALAR(type, name) ROW_SCALAR(cmModel, type, name)
#define M_ARRAY(type, name, rows, cols) ROW_ARRAY(cmModel, type, name)
  CM_MODEL_SIZES(M_SCALAR)
  CM_MODEL_SCALARS(M_SCALAR)
  CM_MODEL_ARRAYS(M_ARRAY)
  CM_MODEL_STRINGS(M_ARRAY)
  CM_MODEL_OWNING(M_ARRAY)
#undef M_SCALAR
#undef M_ARRAY
  return l;
}

static Layout data_rows(void) {
  Layout l = {.n = 0};
#define D_SCALAR(type, name) ROW_SCALAR(cmData, type, name)
#define D_FIXED(type, name, count) ROW_FIXED(cmData, type, name, count)
#define D_ARRAY(type, name, rows, cols) ROW_ARRAY(cmData, type, name)
#define D_BUFFER(type, name, count, capacity)                                                      \
  ROW_ARRAY(cmData, type, name) ROW_SCALAR(cmData, int, count) ROW_SCALAR(cmData, int, capacity)
  CM_DATA_SCALARS(D_SCALAR)
  CM_DATA_TOTALS(D_FIXED)
  CM_DATA_TEXT(D_FIXED)
  CM_DATA_BODY(D_ARRAY)
  CM_DATA_BUFFERS(D_BUFFER)
  CM_DATA_PRIVATE(D_SCALAR)
#undef D_SCALAR
#undef D_FIXED
#undef D_ARRAY
#undef D_BUFFER
  return l;
}

/* The listed fields must tile the struct. Sorted by offset, each field starts at the end of the
 * one before or after a gap smaller than its own alignment (the padding a compiler may put there,
 * whatever the ABI), and the struct ends less than the largest alignment after the last one. A
 * field in no list leaves a gap at least as large as itself, at least its own alignment, so it is
 * found: unless it fits into padding that was there already (an int between an int and a double
 * on x86-64: the struct keeps its size and every offset). Sizes cannot see such a field; the
 * names read from the header below can. The rows also say the fields' sizes: a list that gives
 * another type than the struct fails here. */
static void check_layout(Layout* l, const char* type, size_t size) {
  qsort(l->f, (size_t)l->n, sizeof l->f[0], by_offset);
  size_t end = 0, maxalign = 1;
  for (int i = 0; i < l->n; i++) {
    const Field* f = &l->f[i];
    if (f->size != f->listed) {
      CHECK(f->size == f->listed);
      fprintf(stderr, "  %s.%s: %zu bytes in the struct, %zu in its list\n", type, f->name, f->size,
              f->listed);
    }
    if (f->offset < end || f->offset - end >= f->align) {
      CHECK(f->offset >= end && f->offset - end < f->align);
      if (f->offset < end)
        fprintf(stderr, "  %s.%s overlaps the field before it (listed twice?)\n", type, f->name);
      else
        fprintf(stderr, "  %s: bytes %zu to %zu, before %s, are in no list of comply/fields.h\n",
                type, end, f->offset, f->name);
    }
    end = f->offset + f->size;
    if (f->align > maxalign) maxalign = f->align;
  }
  if (size < end || size - end >= maxalign) {
    CHECK(size >= end && size - end < maxalign);
    fprintf(stderr, "  %s: bytes %zu to %zu, at the end, are in no list of comply/fields.h\n", type,
            end, size);
  }
}

/* the field names of `typedef struct TYPE { ... } TYPE;` in a header: comments removed, the body
 * split into declarators at ';' and ','; a name is the last identifier before any array bound */
static int header_fields(const char* path, const char* type, char names[][48], int max) {
  static char text[1 << 17], body[1 << 15];
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char open[64], close[64];
  snprintf(open, sizeof open, "typedef struct %s {", type);
  snprintf(close, sizeof close, "} %s;", type);
  const char* a = strstr(text, open);
  const char* b = a ? strstr(a, close) : NULL;
  if (!a || !b) return -1;
  size_t k = 0;
  for (const char* p = a + strlen(open); p < b && k + 1 < sizeof body;) {
    if (p[0] == '/' && p[1] == '*') {
      const char* e = strstr(p + 2, "*/");
      p = e ? e + 2 : b;
    } else if (p[0] == '/' && p[1] == '/') {
      while (p < b && *p != '\n')
        p++;
    } else {
      body[k++] = *p++;
    }
  }
  body[k] = '\0';
  int count = 0;
  for (char* decl = strtok(body, ";,"); decl && count < max; decl = strtok(NULL, ";,")) {
    char* bound = strchr(decl, '[');
    if (bound) *bound = '\0';
    char* e = decl + strlen(decl);
    while (e > decl && strchr(" \t\r\n", e[-1]))
      e--;
    char* s = e;
    while (s > decl && (s[-1] == '_' || (s[-1] >= '0' && s[-1] <= '9') ||
                        ((s[-1] | 32) >= 'a' && (s[-1] | 32) <= 'z')))
      s--;
    if (s == e) continue;
    snprintf(names[count++], 48, "%.*s", (int)(e - s), s);
  }
  return count;
}

/* every field the header declares is a row of a list, and there are as many rows as fields */
static void check_names(const Layout* l, const char* header, const char* type) {
  char names[128][48];
  int n = header_fields(header, type, names, 128);
  CHECK(n > 0);
  if (n <= 0) fprintf(stderr, "  cannot read struct %s from %s\n", type, header);
  for (int i = 0; i < n; i++) {
    int found = 0;
    for (int j = 0; j < l->n && !found; j++)
      found = !strcmp(names[i], l->f[j].name);
    if (!found) {
      CHECK(found);
      fprintf(stderr, "  %s.%s (%s) is in no list of comply/fields.h\n", type, names[i], header);
    }
  }
  CHECK(n == l->n);
}

static void test_every_field_listed(void) {
  Layout lm = model_rows(), ld = data_rows();
  check_layout(&lm, "cmModel", sizeof(cmModel));
  check_layout(&ld, "cmData", sizeof(cmData));
  check_names(&lm, CM_SRC("include/comply/model.h"), "cmModel");
  check_names(&ld, CM_SRC("include/comply/data.h"), "cmData");
  printf("  cmModel: %d fields in %zu bytes; cmData: %d fields in %zu bytes\n", lm.n,
         sizeof(cmModel), ld.n, sizeof(cmData));
}

/* ---- copy --------------------------------------------------------------------------------- */

/* the listed fields of cmData in which a and b differ (bit patterns; buffers by count and
 * contents); named on stderr if `say` */
static int differing(const cmModel* m, const cmData* a, const cmData* b, int say) {
  int n = 0;
#define DIFF(name, differs)                                                                        \
  if (differs) {                                                                                   \
    n++;                                                                                           \
    if (say) fprintf(stderr, "  %s differs\n", #name);                                             \
  }
#define DIFF_SCALAR(type, name) DIFF(name, memcmp(&a->name, &b->name, sizeof a->name))
#define DIFF_FIXED(type, name, count) DIFF(name, memcmp(a->name, b->name, sizeof a->name))
#define DIFF_ARRAY(type, name, rows, cols)                                                         \
  DIFF(name, memcmp(a->name, b->name, sizeof(type) * (size_t)m->rows * (cols)))
#define DIFF_BUFFER(type, name, count, capacity)                                                   \
  DIFF(name, a->count != b->count ||                                                               \
                 (a->count && memcmp(a->name, b->name, (size_t)a->count * sizeof(type))))
  CM_DATA_SCALARS(DIFF_SCALAR)
  CM_DATA_TOTALS(DIFF_FIXED)
  CM_DATA_TEXT(DIFF_FIXED)
  CM_DATA_BODY(DIFF_ARRAY)
  CM_DATA_BUFFERS(DIFF_BUFFER)
  return n;
}

/* the rows that cm_data_copy copies */
#define ONE(...) +1
static const int NCOPIED = 0 CM_DATA_SCALARS(ONE) CM_DATA_TOTALS(ONE) CM_DATA_TEXT(ONE)
    CM_DATA_BODY(ONE) CM_DATA_BUFFERS(ONE);

/* an allocator that counts live blocks and can fail the allocation number fail_at (0: none) */
static long a_live = 0, a_calls = 0, a_fail_at = 0;
static void* a_malloc(size_t n, void* ctx) {
  (void)ctx;
  if (++a_calls == a_fail_at) return NULL;
  void* p = malloc(n);
  a_live += p != NULL;
  return p;
}
static void* a_realloc(void* p, size_t n, void* ctx) {
  (void)ctx;
  if (++a_calls == a_fail_at) return NULL;
  void* q = realloc(p, n);
  a_live += q && !p;
  return q;
}
static void a_free(void* p, void* ctx) {
  (void)ctx;
  a_live -= p != NULL;
  free(p);
}
static const cmAllocator COUNTING = {a_malloc, a_realloc, a_free, NULL};

static void test_copy(void) {
  cmModel* m = scene();
  if (!m) return;
  cmData* d = cm_data_new(m);
  cmData* e = cm_data_new(m);
  /* the monitors' bodies of a new data: none (-1, as data.h says; they were body 0) */
  CHECK(e->energy_body == -1 && e->depth_body_a == -1 && e->depth_body_b == -1 &&
        e->tunnel_body_a == -1 && e->tunnel_body_b == -1);
  steps(m, d, 150);
  CHECK(d->ncontact > 0 && d->npair >= 2);
  d->warning[CM_WARN_GYRO] += 3;
  d->solver_failed_solves += 2; /* no solve of this scene fails */
  d->solver_retries += 4;       /* nor is retried */
  d->soft_rows += 5;            /* nor softened (no min_period) */
  d->soft_factor = 0.125;
  d->energy_growth += 0.01; /* nor does it create energy */
  d->energy_first_step = 77;
  d->energy_body = 1;
  d->depth_first_step = 78; /* nor penetrate deeply */
  d->depth_body_a = 2;
  d->depth_body_b = 3;
  d->tunnel_first_step = 79; /* nor tunnel */
  d->tunnel_body_a = 4;
  d->tunnel_body_b = 5;
  d->tunnel_speed = 6;
  d->tunnel_thickness = 7;
  snprintf(d->message, sizeof d->message, "a message to copy");
  d->body_xfrc[4] = 0.5; /* an input the caller set */

  /* every listed field differs from a new data's, so that equal after the copy means copied */
  CHECK(differing(m, d, e, 0) == NCOPIED);
  if (differing(m, d, e, 0) != NCOPIED) {
    fprintf(stderr, "  before the copy, expected every field to differ, but the others:\n");
    differing(m, d, e, 1);
  }

  /* out of memory while the contact buffer grows: e unchanged */
  cmData* fresh = cm_data_new(m);
  cm_set_allocator(&COUNTING);
  a_calls = 0;
  a_fail_at = 1;
  CHECK(cm_data_copy(m, e, d) == CM_ERR_NOMEM);
  a_fail_at = 0;
  cm_set_allocator(NULL);
  CHECK(differing(m, e, fresh, 1) == 0);

  CHECK(cm_data_copy(m, e, d) == CM_OK);
  CHECK(differing(m, d, e, 1) == 0);
  CHECK(cm_data_hash(m, e) == cm_data_hash(m, d));
  /* the pair summaries, which an earlier copy forgot */
  CHECK(e->npair == d->npair);
  CHECK(e->npair == d->npair && memcmp(e->pair, d->pair, (size_t)d->npair * sizeof *d->pair) == 0);
  CHECK(strcmp(e->message, "a message to copy") == 0);

  /* both continue identically, and a second copy into buffers large enough is exact too */
  int same = 1;
  for (int i = 0; i < 100; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    CHECK(cm_step(m, e) == CM_OK);
    same = same && cm_data_hash(m, d) == cm_data_hash(m, e) && d->ncontact == e->ncontact;
  }
  CHECK(same);
  CHECK(cm_data_copy(m, fresh, e) == CM_OK);
  CHECK(cm_data_copy(m, e, d) == CM_OK);
  CHECK(differing(m, d, e, 1) == 0);
  cm_data_free(fresh);
  cm_data_free(d);
  cm_data_free(e);
  cm_model_free(m);
}

/* ---- checkpoint --------------------------------------------------------------------------- */

static void test_checkpoint_round_trip(void) {
  cmModel* m = scene();
  if (!m) return;
  cmData* d = cm_data_new(m);
  steps(m, d, 150);
  CHECK(d->ncontact > 0);
  d->warning[CM_WARN_BAD_AREA] += 5;
  CHECK(cm_checkpoint_write(m, d, PATH, err, sizeof err) == CM_OK);

  /* read into a data that has moved elsewhere */
  cmData* f = cm_data_new(m);
  steps(m, f, 7);
  CHECK(cm_checkpoint_read(m, f, PATH, err, sizeof err) == CM_OK);
  int bad = 0;
#define SAME_SCALAR(type, name) bad += memcmp(&f->name, &d->name, sizeof d->name) != 0;
#define SAME_FIXED(type, name, count) bad += memcmp(f->name, d->name, sizeof d->name) != 0;
#define SAME_ARRAY(type, name, rows, cols)                                                         \
  bad += memcmp(f->name, d->name, (size_t)m->rows * (size_t)(cols) * sizeof(type)) != 0;
  CM_DATA_SCALARS(SAME_SCALAR)
  CM_DATA_TOTALS(SAME_FIXED)
  CM_DATA_STATE(SAME_ARRAY)
  CM_DATA_DERIVED(SAME_ARRAY)
  CHECK(bad == 0);
  if (bad) differing(m, f, d, 1);
  /* the step's contacts and pairs as they were (saved since format 12, for the outputs of the
   * checkpoint's step; the next step finds its own) */
  CHECK(f->ncontact == d->ncontact && f->npair == d->npair);
  CHECK(!memcmp(f->contact, d->contact, (size_t)d->ncontact * sizeof *d->contact));
  CHECK(cm_data_hash(m, f) == cm_data_hash(m, d));

  int same = 1;
  for (int i = 0; i < 150; i++) {
    CHECK(cm_step(m, d) == CM_OK);
    CHECK(cm_step(m, f) == CM_OK);
    same = same && cm_data_hash(m, d) == cm_data_hash(m, f) && d->ncontact == f->ncontact &&
           d->npair == f->npair &&
           !memcmp(d->contact, f->contact, (size_t)d->ncontact * sizeof *d->contact);
  }
  CHECK(same);
  cm_data_free(d);
  cm_data_free(f);
  cm_model_free(m);
  remove(PATH);
}

/* ---- the documented hash and file, by hand -------------------------------------------------- */

static uint64_t fnv8(uint64_t h, uint64_t x) {
  for (int i = 0; i < 8; i++) {
    h ^= (x >> (8 * i)) & 0xff;
    h *= 0x100000001b3ULL;
  }
  return h;
}
static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}
static uint64_t le64(const unsigned char* p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--)
    x = x << 8 | p[i];
  return x;
}

/* docs/outputs.md: FNV-1a 64 over the step, then per body cpos, xquat, cvel, angvel, dv, then
 * per node of the deformable bodies its position and velocity, then (if any) the count of the
 * friction springs and per spring its two bodies, four key integers and stretch */
static uint64_t hash_by_hand(const cmModel* m, const cmData* d) {
  uint64_t h = fnv8(0xcbf29ce484222325ULL, (uint64_t)(int64_t)d->step);
  for (int b = 0; b < m->nbody; b++) {
    for (int k = 0; k < 3; k++)
      h = fnv8(h, bits(d->body_cpos[3 * b + k]));
    for (int k = 0; k < 4; k++)
      h = fnv8(h, bits(d->body_xquat[4 * b + k]));
    for (int k = 0; k < 3; k++)
      h = fnv8(h, bits(d->body_cvel[3 * b + k]));
    for (int k = 0; k < 3; k++)
      h = fnv8(h, bits(d->body_angvel[3 * b + k]));
    for (int k = 0; k < 6; k++)
      h = fnv8(h, bits(d->body_dv[6 * b + k]));
  }
  for (int n = 0; n < m->nnode; n++) {
    for (int k = 0; k < 3; k++)
      h = fnv8(h, bits(d->node_pos[3 * n + k]));
    for (int k = 0; k < 3; k++)
      h = fnv8(h, bits(d->node_vel[3 * n + k]));
  }
  const cmDataPriv* p = cm_priv(d);
  if (p->nanchor) {
    h = fnv8(h, (uint64_t)(int64_t)p->nanchor);
    for (int i = 0; i < p->nanchor; i++) {
      const cmAnchor* a = &p->anchor[i];
      for (int k = 0; k < 2; k++)
        h = fnv8(h, (uint64_t)(int64_t)a->body[k]);
      for (int k = 0; k < 4; k++)
        h = fnv8(h, (uint64_t)(int64_t)a->key[k]);
      for (int k = 0; k < 3; k++)
        h = fnv8(h, bits(a->s[k]));
      h = fnv8(h, bits(a->o));
    }
  }
  return h;
}

/* the checkpoint of format 12 byte by byte, as the table of src/output/checkpoint.c gives it */
static void test_documented_hash_and_file(void) {
  cmModel* m = scene();
  if (!m) return;
  cmData* d = cm_data_new(m);
  steps(m, d, 120);
  d->warning[CM_WARN_SOLVER] = 11;
  d->solver_retries = 13;
  d->soft_rows = 17;
  d->soft_factor = 0.25;
  CHECK(cm_data_hash(m, d) == hash_by_hand(m, d));
  CHECK(CM_CHECKPOINT_VERSION == 12);
  CHECK(m->nnode == 8);
  CHECK(cm_checkpoint_write(m, d, PATH, err, sizeof err) == CM_OK);
  static unsigned char buf[1 << 16];
  FILE* f = fopen(PATH, "rb");
  size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
  if (f) fclose(f);
  size_t W = CM_WARN_COUNT, T = CM_TIMER_COUNT, nb = (size_t)m->nbody, nn = (size_t)m->nnode;
  const cmDataPriv* pv = cm_priv(d);
  size_t na = (size_t)pv->nanchor, be = 72 + 224 + 8 * W + 8 * T + 8 * 19 * nb + 8 * 6 * nn;
  /* the contacts and pairs of the step after the anchors (format 12) */
  size_t nc = (size_t)d->ncontact, np = (size_t)d->npair, ce = be + 8 + 80 * na;
  CHECK(nc > 0 && np > 0);
  CHECK(n == ce + 16 + 168 * nc + 88 * np + 8);
  if (n != ce + 16 + 168 * nc + 88 * np + 8) goto done;
  CHECK(memcmp(buf, "CMCKPT\0\0", 8) == 0);
  CHECK((le64(buf + 8) & 0xffffffff) == 12 && le64(buf + 8) >> 32 == nb);
  CHECK(le64(buf + 48) == n);
  CHECK((le64(buf + 56) & 0xffffffff) == W && le64(buf + 56) >> 32 == T);
  CHECK(le64(buf + 32) == cm_model_fingerprint(m));
  CHECK(le64(buf + 64) == cm_model_scene_fingerprint(m));
  CHECK((int64_t)le64(buf + 72) == d->step);
  CHECK(le64(buf + 80) == bits(d->time));
  CHECK((int64_t)le64(buf + 88) == d->solver_iter);
  CHECK(le64(buf + 96) == bits(d->solver_residual));
  CHECK((int64_t)le64(buf + 104) == d->solver_max_iter);
  CHECK(le64(buf + 112) == bits(d->solver_max_residual));
  CHECK((int64_t)le64(buf + 120) == d->solver_solves);
  CHECK((int64_t)le64(buf + 128) == d->solver_total_iter);
  CHECK((int64_t)le64(buf + 136) == d->solver_failed_solves);
  CHECK(le64(buf + 144) == bits(d->energy));
  CHECK(le64(buf + 152) == bits(d->energy_low));
  CHECK(le64(buf + 160) == bits(d->energy_scale));
  CHECK(le64(buf + 168) == bits(d->energy_growth));
  CHECK((int64_t)le64(buf + 176) == d->energy_first_step);
  CHECK((int64_t)le64(buf + 184) == d->energy_body);
  CHECK((int64_t)le64(buf + 192) == d->energy_monitor);
  CHECK(le64(buf + 200) == bits(d->depth_ratio));
  CHECK((int64_t)le64(buf + 208) == d->depth_first_step);
  CHECK((int64_t)le64(buf + 216) == d->depth_body_a);
  CHECK((int64_t)le64(buf + 224) == d->depth_body_b);
  CHECK((int64_t)le64(buf + 232) == d->tunnel_first_step);
  CHECK((int64_t)le64(buf + 240) == d->tunnel_body_a);
  CHECK((int64_t)le64(buf + 248) == d->tunnel_body_b);
  CHECK(le64(buf + 256) == bits(d->tunnel_speed));
  CHECK(le64(buf + 264) == bits(d->tunnel_thickness));
  CHECK((int64_t)le64(buf + 272) == d->solver_retries);
  CHECK((int64_t)le64(buf + 280) == d->soft_rows);
  CHECK(le64(buf + 288) == bits(d->soft_factor));
  int ok = 1;
  for (size_t w = 0; w < W; w++)
    ok = ok && (int64_t)le64(buf + 296 + 8 * w) == d->warning[w];
  for (size_t t = 0; t < T; t++)
    ok = ok && le64(buf + 296 + 8 * W + 8 * t) == bits(d->timer[t]);
  for (size_t b = 0; b < nb; b++) {
    const unsigned char* s = buf + 296 + 8 * (W + T) + 8 * 19 * b;
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 8 * k) == bits(d->body_cpos[3 * b + k]);
    for (int k = 0; k < 4; k++)
      ok = ok && le64(s + 24 + 8 * k) == bits(d->body_xquat[4 * b + k]);
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 56 + 8 * k) == bits(d->body_cvel[3 * b + k]);
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 80 + 8 * k) == bits(d->body_angvel[3 * b + k]);
    for (int k = 0; k < 6; k++)
      ok = ok && le64(s + 104 + 8 * k) == bits(d->body_dv[6 * b + k]);
  }
  for (size_t k = 0; k < nn; k++) {
    const unsigned char* s = buf + 296 + 8 * (W + T) + 8 * 19 * nb + 8 * 6 * k;
    for (int c = 0; c < 3; c++)
      ok = ok && le64(s + 8 * c) == bits(d->node_pos[3 * k + c]) &&
           le64(s + 24 + 8 * c) == bits(d->node_vel[3 * k + c]);
  }
  ok = ok && le64(buf + be) == na;
  for (size_t i = 0; i < na; i++) {
    const unsigned char* s = buf + be + 8 + 80 * i;
    const cmAnchor* a = &pv->anchor[i];
    for (int k = 0; k < 2; k++)
      ok = ok && (int64_t)le64(s + 8 * k) == a->body[k];
    for (int k = 0; k < 4; k++)
      ok = ok && (int64_t)le64(s + 16 + 8 * k) == a->key[k];
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 48 + 8 * k) == bits(a->s[k]);
    ok = ok && le64(s + 72) == bits(a->o);
  }
  ok = ok && le64(buf + ce) == nc && le64(buf + ce + 8) == np;
  for (size_t i = 0; i < nc; i++) {
    const unsigned char* s = buf + ce + 16 + 168 * i;
    const cmContact* c = &d->contact[i];
    const int in[6] = {c->body[0], c->body[1], c->pair, c->vert, c->face, c->flags};
    for (int k = 0; k < 6; k++)
      ok = ok && (int64_t)le64(s + 8 * k) == in[k];
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 48 + 8 * k) == bits(c->p0[k]) && le64(s + 72 + 8 * k) == bits(c->p1[k]) &&
           le64(s + 96 + 8 * k) == bits(c->n[k]) && le64(s + 144 + 8 * k) == bits(c->ftan[k]);
    ok = ok && le64(s + 120) == bits(c->dist) && le64(s + 128) == bits(c->area) &&
         le64(s + 136) == bits(c->force);
  }
  for (size_t i = 0; i < np; i++) {
    const unsigned char* s = buf + ce + 16 + 168 * nc + 88 * i;
    const cmContactPair* P = &d->pair[i];
    const int in[5] = {P->body[0], P->body[1], P->rule, P->first, P->points};
    for (int k = 0; k < 5; k++)
      ok = ok && (int64_t)le64(s + 8 * k) == in[k];
    ok = ok && le64(s + 40) == bits(P->area) && le64(s + 48) == bits(P->max_penetration) &&
         le64(s + 80) == bits(P->max_pressure);
    for (int k = 0; k < 3; k++)
      ok = ok && le64(s + 56 + 8 * k) == bits(P->force[k]);
  }
  CHECK(ok);
  uint64_t sum = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n - 8; i++)
    sum = (sum ^ buf[i]) * 0x100000001b3ULL;
  CHECK(le64(buf + n - 8) == sum);
done:
  cm_data_free(d);
  cm_model_free(m);
  remove(PATH);
}

/* ---- free ------------------------------------------------------------------------------------ */

/* a whole life (compile, data, steps, copy, checkpoint) leaves no block allocated */
static void test_free_all(void) {
  cm_set_allocator(&COUNTING);
  a_live = 0;
  cmModel* m = scene();
  if (m) {
    CHECK(m->njoint == 1 && m->nnote >= 1 && m->nalias == 5 && m->nclass >= 2);
    cmData* d = cm_data_new(m);
    cmData* e = cm_data_new(m);
    steps(m, d, 100);
    CHECK(cm_data_copy(m, e, d) == CM_OK);
    CHECK(cm_checkpoint_write(m, d, PATH, err, sizeof err) == CM_OK);
    CHECK(cm_checkpoint_read(m, e, PATH, err, sizeof err) == CM_OK);
    cm_data_free(d);
    cm_data_free(e);
    cm_model_free(m);
    remove(PATH);
  }
  cm_set_allocator(NULL);
  CHECK(a_live == 0);
  if (a_live) fprintf(stderr, "  %ld blocks not freed\n", a_live);
}

/* the k-th allocation of cm_model_compile, and then of cm_data_new, fails, for every k until
 * none is left to fail: a status and no model, or NULL (or a data without its scratch buffer,
 * which grows later), and no block left allocated (every partial model and data is freed
 * through its lists) */
static void test_alloc_failures(void) {
  cmScene* s = scene_def();
  int ncompile = 0, nnew = 0, leaks = 0, bad = 0, other = 0;
  for (int k = 1;; k++) {
    cmModel* m = NULL;
    cm_set_allocator(&COUNTING);
    a_live = a_calls = 0;
    a_fail_at = k;
    cmStatus st = cm_model_compile(s, &m, err, sizeof err);
    int reached = a_calls >= k;
    a_fail_at = 0;
    bad += (st == CM_OK) != (m != NULL);
    other += st != CM_OK && st != CM_ERR_NOMEM;
    cm_model_free(m);
    cm_set_allocator(NULL);
    leaks += a_live != 0;
    if (!reached) break;
    ncompile++;
  }
  cmModel* m = scene();
  for (int k = 1; m; k++) {
    cm_set_allocator(&COUNTING);
    a_live = a_calls = 0;
    a_fail_at = k;
    cmData* d = cm_data_new(m);
    int reached = a_calls >= k;
    a_fail_at = 0;
    cm_data_free(d);
    cm_set_allocator(NULL);
    leaks += a_live != 0;
    if (!reached) break;
    nnew++;
  }
  CHECK(ncompile > 50 && nnew > 5);
  CHECK(bad == 0);
  CHECK(leaks == 0);
  printf("  each of %d allocations of the compiler and %d of cm_data_new failed once: %d leaks "
         "(%d failed compiles said another status than CM_ERR_NOMEM)\n",
         ncompile, nnew, leaks, other);
  cm_model_free(m);
  cm_scene_free(s);
}

int main(void) {
  RUN(test_every_field_listed);
  RUN(test_copy);
  RUN(test_checkpoint_round_trip);
  RUN(test_documented_hash_and_file);
  RUN(test_free_all);
  RUN(test_alloc_failures);
  return test_report();
}
