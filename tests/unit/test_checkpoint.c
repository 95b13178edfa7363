/* Checkpoints (src/output/checkpoint.c) and the state hash (src/model/data_hash.c): a round trip
 * restores the state bit for bit, a run continued from a checkpoint is identical to the run that
 * never stopped, and every damaged or foreign file is rejected with a message naming it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "core/hash.h"
#include "model/data_internal.h"
#include "scenes.h"
#include "test.h"

static char err[1024];
/* the header's size (docs/outputs.md, "Checkpoints": the step at 72 since format 11) */
enum { H = 72 };
static const char* PATH = "test_checkpoint.bin";
static const char* BAD = "test_checkpoint_bad.bin";

/* the change scene() makes (test_scene_fingerprint): 0 none */
static int g_variant;

/* a box dropped onto a plane and a sphere falling onto the box: contacts from step ~60 on */
static cmModel* scene(int nbox, double h) {
  cmScene* s = cm_scene_new("checkpoint-test");
  s->opt.timestep = h;
  const int v = g_variant;
  if (v == 100) s->opt.steps = 5000;
  if (v == 101) s->opt.output_every = 10;
  if (v == 102) s->opt.vtk = 1;
  if (v == 103) s->opt.max_speed = 100;
  if (v == 104) s->opt.max_contacts = 1000;
  if (v == 105) s->opt.duration = 7;
  cmBodyDef g = scene_ground();
  CHECK(cm_scene_add_body(s, &g, err, sizeof err) >= 0);
  for (int i = 0; i < nbox; i++) {
    cmBodyDef b = scene_box(i == 0 ? "box" : "box2", 0.1, 0.1, 0.05, 3);
    b.position[0] = 0.3 * i;
    b.position[2] = 0.045;
    b.angular_velocity[2] = 0.5;
    if (v == 3) b.force[0] = 0.5;
    if (v == 4) b.moment[2] = 0.01;
    if (v == 5) b.position[2] = 0.0451;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) >= 0);
  }
  cmBodyDef ball = scene_sphere(v == 106 ? "marble" : "ball", 0.03, 2);
  ball.position[2] = 0.2;
  ball.velocity[0] = v == 6 ? 0.02 : 0.01;
  if (v == 7) ball.geom.refine = 3;
  CHECK(cm_scene_add_body(s, &ball, err, sizeof err) >= 0);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.friction = v == 1 ? 0.31 : 0.3;
  if (v == 2) r.ka = 6e10;
  if (v == 8) r.step_damping = 0.5;
  if (v == 9) r.min_period = 4;
  if (v == 10) r.method = CM_METHOD_VERTEX;
  if (v == 11) r.stick_velocity = 1e-4;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) >= 0);
  return scene_compile(s);
}

static void steps(const cmModel* m, cmData* d, int n) {
  for (int i = 0; i < n; i++)
    CHECK(cm_step(m, d) == CM_OK);
}

/* the file's bytes in a static buffer */
static unsigned char file[1 << 16];
static size_t load(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(file, 1, sizeof file, f);
  fclose(f);
  return n;
}
static void save(const char* path, const unsigned char* p, size_t n) {
  FILE* f = fopen(path, "wb");
  fwrite(p, 1, n, f);
  fclose(f);
}

static void test_hash(void) {
  cmModel* m = scene(1, 1e-3);
  if (!m) return;
  cmData* a = cm_data_new(m);
  cmData* b = cm_data_new(m);
  CHECK(cm_data_hash(m, a) == cm_data_hash(m, b));
  steps(m, a, 1);
  CHECK(cm_data_hash(m, a) != cm_data_hash(m, b));
  steps(m, b, 1);
  CHECK(cm_data_hash(m, a) == cm_data_hash(m, b));
  /* the sign of a zero counts: the hash is over bit patterns */
  double keep = b->body_cvel[3];
  b->body_cvel[3] = keep == 0 ? -0.0 : -keep;
  CHECK(cm_data_hash(m, a) != cm_data_hash(m, b));
  b->body_cvel[3] = keep;
  /* the derived fields and the time do not count */
  b->body_xpos[3] += 1;
  b->time += 1;
  CHECK(cm_data_hash(m, a) == cm_data_hash(m, b));
  cm_data_free(a);
  cm_data_free(b);
  cm_model_free(m);
}

/* an allocator that fails once nalloc_left allocations have been made */
static int nalloc_left;
static void* failing_malloc(size_t n, void* ctx) {
  (void)ctx;
  return nalloc_left-- > 0 ? malloc(n) : NULL;
}
static void* failing_realloc(void* p, size_t n, void* ctx) {
  (void)ctx;
  return nalloc_left-- > 0 ? realloc(p, n) : NULL;
}
static void plain_free(void* p, void* ctx) {
  (void)ctx;
  free(p);
}
static const cmAllocator FAILING = {failing_malloc, failing_realloc, plain_free, NULL};

/* the friction springs a data holds (private: model/data_internal.h) */
static int cm_priv_nanchor_of(cmData* d) {
  return cm_priv(d)->nanchor;
}

static void test_round_trip_and_continue(void) {
  cmModel* m = scene(1, 1e-3);
  if (!m) return;
  cmData* ref = cm_data_new(m);
  steps(m, ref, 150);
  CHECK(ref->ncontact > 0);
  ref->warning[CM_WARN_SOLVER] = 7; /* counters travel too */
  CHECK(cm_checkpoint_write(m, ref, PATH, err, sizeof err) == CM_OK);
  char tmp[256];
  snprintf(tmp, sizeof tmp, "%s.tmp", PATH);
  CHECK(access(tmp, F_OK) != 0); /* renamed away */

  cmData* d = cm_data_new(m);
  /* out of memory for the friction springs: CM_ERR_NOMEM with d as it was (the state was read
   * into d first, and d was left half read) */
  CHECK(cm_priv_nanchor_of(ref) > 0);
  uint64_t before = cm_data_hash(m, d);
  long step0 = d->step;
  nalloc_left = 1; /* the file's buffer, not the springs' table */
  cm_set_allocator(&FAILING);
  cmStatus st = cm_checkpoint_read(m, d, PATH, err, sizeof err);
  cm_set_allocator(NULL);
  CHECK(st == CM_ERR_NOMEM && strstr(err, "friction springs") != NULL);
  CHECK(cm_data_hash(m, d) == before && d->step == step0);
  /* and for the contacts or their pairs (format 12; a fresh data has room for neither): the
   * same, with no contacts read */
  for (int t = 0; t < 2; t++) {
    /* the file's buffer and the springs' table, then the contacts' fails; the second time the
     * springs have their room from the first: the file's buffer and the contacts', then the
     * pairs' fails */
    nalloc_left = 2;
    cm_set_allocator(&FAILING);
    st = cm_checkpoint_read(m, d, PATH, err, sizeof err);
    cm_set_allocator(NULL);
    CHECK(st == CM_ERR_NOMEM && strstr(err, "out of memory for its contacts") != NULL &&
          strstr(err, PATH) != NULL);
    CHECK(cm_data_hash(m, d) == before && d->step == step0 && d->ncontact == 0 && d->npair == 0);
  }
  CHECK(cm_checkpoint_read(m, d, PATH, err, sizeof err) == CM_OK);
  CHECK(cm_data_hash(m, d) == cm_data_hash(m, ref));
  CHECK(d->step == 150 && d->time == ref->time);
  CHECK(d->warning[CM_WARN_SOLVER] == 7);
  CHECK(d->solver_max_iter == ref->solver_max_iter);
  CHECK(d->solver_max_residual == ref->solver_max_residual);
  CHECK(memcmp(d->body_xpos, ref->body_xpos, 3 * (size_t)m->nbody * sizeof(double)) == 0);
  CHECK(memcmp(d->body_xvel, ref->body_xvel, 3 * (size_t)m->nbody * sizeof(double)) == 0);
  CHECK(memcmp(d->body_aabb + 6, ref->body_aabb + 6, 6 * (size_t)(m->nbody - 1) * sizeof(double)) ==
        0);
  /* the contacts and pairs of step 150 as the run had them (format 12: the outputs of the
   * checkpoint's step read them; they were emptied before), bit for bit */
  printf("  %d contacts in %d pair(s) at step 150\n", ref->ncontact, ref->npair);
  CHECK(d->ncontact == ref->ncontact && d->npair == ref->npair && ref->npair >= 1);
  CHECK(memcmp(d->contact, ref->contact, (size_t)ref->ncontact * sizeof *ref->contact) == 0);
  int pairs_same = 1;
  for (int k = 0; k < ref->npair; k++) {
    const cmContactPair *P = &d->pair[k], *Q = &ref->pair[k];
    pairs_same = pairs_same && P->body[0] == Q->body[0] && P->body[1] == Q->body[1] &&
                 P->rule == Q->rule && P->first == Q->first && P->points == Q->points &&
                 memcmp(&P->area, &Q->area, 6 * sizeof(double)) == 0;
  }
  CHECK(pairs_same);
  int with_force = 0;
  for (int i = 0; i < ref->ncontact; i++)
    with_force += ref->contact[i].force > 0;
  CHECK(with_force > 0);
  /* the state hash leaves the contacts out, as before format 12: the same without them */
  {
    int nc = d->ncontact, np = d->npair;
    d->ncontact = d->npair = 0;
    CHECK(cm_data_hash(m, d) == cm_data_hash(m, ref));
    d->ncontact = nc;
    d->npair = np;
  }

  /* continued: identical to the run that never stopped, step after step */
  int same = 1;
  for (int i = 0; i < 200; i++) {
    CHECK(cm_step(m, ref) == CM_OK);
    CHECK(cm_step(m, d) == CM_OK);
    same = same && cm_data_hash(m, d) == cm_data_hash(m, ref) && d->ncontact == ref->ncontact;
  }
  CHECK(same);
  printf("  hash after 350 steps: %016llx\n", (unsigned long long)cm_data_hash(m, d));
  cm_data_free(ref);
  cm_data_free(d);
  cm_model_free(m);
}

/* The birth offsets of edge contacts are state (docs/contact-laws.md, "Edge contacts that begin
 * deeper than they approached"): the stiff stack of five (tests/scenes.h) at 0.6 s, still
 * settling, has edge contacts with an offset; a run continued from its checkpoint is the run
 * that never stopped, and the same checkpoint with the offsets zeroed is not (so the offsets
 * are what the file carries, not something the next step finds again). */
static void test_birth_offsets_travel(void) {
  cmModel* m = scene_stack(5, 0.02, 5e10, 1.0);
  if (!m) return;
  cmData* ref = cm_data_new(m);
  steps(m, ref, 600);
  const cmDataPriv* pr = cm_priv(ref);
  int with_offset = 0;
  for (int i = 0; i < pr->nanchor; i++)
    with_offset += pr->anchor[i].o > 0;
  printf("  %d anchors at step 600, %d with a birth offset\n", pr->nanchor, with_offset);
  CHECK(with_offset > 0);
  CHECK(cm_checkpoint_write(m, ref, PATH, err, sizeof err) == CM_OK);
  cmData* d = cm_data_new(m);
  cmData* z = cm_data_new(m);
  CHECK(cm_checkpoint_read(m, d, PATH, err, sizeof err) == CM_OK);
  CHECK(cm_checkpoint_read(m, z, PATH, err, sizeof err) == CM_OK);
  CHECK(cm_data_hash(m, d) == cm_data_hash(m, ref));
  cmDataPriv* pz = cm_priv(z);
  for (int i = 0; i < pz->nanchor; i++)
    pz->anchor[i].o = 0;
  CHECK(cm_data_hash(m, z) != cm_data_hash(m, ref));
  steps(m, ref, 300);
  steps(m, d, 300);
  steps(m, z, 300);
  CHECK(cm_data_hash(m, d) == cm_data_hash(m, ref));
  CHECK(memcmp(z->body_cpos, ref->body_cpos, 3 * (size_t)m->nbody * sizeof(double)) != 0);
  cm_data_free(ref);
  cm_data_free(d);
  cm_data_free(z);
  cm_model_free(m);
  remove(PATH);
}

/* read BAD into a data that has moved: the status, a message naming the file and the problem,
 * and the data untouched */
static void expect_reject(const cmModel* m, const char* path, cmStatus want, const char* what) {
  cmData* d = cm_data_new(m);
  steps(m, d, 3);
  uint64_t h = cm_data_hash(m, d);
  err[0] = '\0';
  cmStatus st = cm_checkpoint_read(m, d, path, err, sizeof err);
  CHECK(st == want);
  CHECK(strstr(err, path) != NULL);
  CHECK(strstr(err, what) != NULL);
  if (st != want || !strstr(err, what)) fprintf(stderr, "  got %d: %s\n", (int)st, err);
  CHECK(cm_data_hash(m, d) == h && d->step == 3);
  cm_data_free(d);
}

static void test_rejects(void) {
  cmModel* m = scene(1, 1e-3);
  if (!m) return;
  cmData* d = cm_data_new(m);
  steps(m, d, 150); /* the ball has landed: its contacts' friction springs are in the file */
  CHECK(cm_checkpoint_write(m, d, PATH, err, sizeof err) == CM_OK);
  size_t n = load(PATH);
  CHECK(n > H && n < sizeof file);
  unsigned char good[1 << 16];
  memcpy(good, file, n);

  /* truncated: by one byte, inside the header, empty */
  save(BAD, good, n - 1);
  expect_reject(m, BAD, CM_ERR_PARSE, "truncated");
  save(BAD, good, 40);
  expect_reject(m, BAD, CM_ERR_PARSE, "truncated");
  save(BAD, good, 0);
  expect_reject(m, BAD, CM_ERR_PARSE, "not a comply checkpoint");
  /* a byte too many */
  memcpy(file, good, n);
  file[n] = 0;
  save(BAD, file, n + 1);
  expect_reject(m, BAD, CM_ERR_PARSE, "too long");
  /* one flipped bit anywhere in the state or the checksum */
  size_t where[4] = {64, n / 2, n - 9, n - 1}; /* (64: the scene fingerprint) */
  for (int k = 0; k < 4; k++) {
    memcpy(file, good, n);
    file[where[k]] ^= 0x10;
    save(BAD, file, n);
    expect_reject(m, BAD, CM_ERR_PARSE, "checksum");
  }
  /* wrong magic, another format version */
  memcpy(file, good, n);
  file[0] = 'X';
  save(BAD, file, n);
  expect_reject(m, BAD, CM_ERR_PARSE, "not a comply checkpoint");
  memcpy(file, good, n);
  file[8] = 99;
  save(BAD, file, n);
  expect_reject(m, BAD, CM_ERR_PARSE, "format version 99");
  /* checksum right, content no run writes (docs/outputs.md, the layout): a negative step (at
   * H = 72), solver_iter (an int, at H + 16) of 2^32 + 5, which a read would truncate to 5, a NaN
   * in the last body's angular velocity (its last number is 7 numbers before the end of the bodies,
   * be: body_dv follows it) and one in its warm start body_dv (just before be); fuzz_checkpoint
   * found the second and third (fuzz/README.md); after the bodies (no nodes here) the count of
   * anchors (this ball rests with friction: at least one), then 80 bytes per anchor: a count one
   * too large, a body index out of range, a NaN stretch, a negative birth offset */
  size_t be = H + 224 + 8 * (size_t)(CM_WARN_COUNT + CM_TIMER_COUNT) + 8 * 19 * (size_t)m->nbody;
  uint64_t na = 0;
  for (int i = 7; i >= 0; i--)
    na = na << 8 | good[be + i];
  /* after the anchors (format 12) the count of contacts C and of pairs P, then 168 bytes per
   * contact (6 integers: body[2], pair, vert, face, flags; 15 doubles: p0, p1, n, dist, area,
   * force, ftan) and 88 per pair (5 integers: body[2], rule, first, points; 6 doubles) */
  size_t ce = be + 8 + 80 * (size_t)na;
  uint64_t nc = 0, np = 0;
  for (int i = 7; i >= 0; i--) {
    nc = nc << 8 | good[ce + i];
    np = np << 8 | good[ce + 8 + i];
  }
  CHECK(na >= 1 && nc >= 2 && np >= 1 && n == ce + 16 + 168 * nc + 88 * np + 8);
  size_t c1 = ce + 16 + 168, p0 = ce + 16 + 168 * (size_t)nc; /* contact 1, pair 0 */
  const struct {
    size_t at;
    uint64_t bits;
    const char* what;
  } edit[] = {{H, (uint64_t)-1, "negative step -1"},
              /* the time (after the step, at H + 8): a NaN, and the time of another step */
              {H + 8, 0x7ff8000000000000ull, "is not step 150 x timestep"},
              {H + 8, 0x3fc999999999999aull, "time 0.20000000000000001 s is not step 150"},
              {H + 16, (1ull << 32) + 5, "solver_iter = 4294967301 does not fit"},
              /* counts that leave no room to count on (a step of 2^63 - 1 made the next step's
               * number overflow: fuzz_checkpoint), a first step beyond the step, a monitored
               * body the model does not have (its name would be read beyond body_name) */
              {H, 0x7fffffffffffffffull, "step = 9223372036854775807 is out of its range"},
              {H + 224, 0x7fffffffull, "warning = 2147483647 is out of its range"},
              {H + 136, 1ull << 40, "depth_first_step = 1099511627776 is out of its range"},
              {H + 144, 1000000, "depth_body_a = 1000000 is out of its range"},
              {be - 7 * 8, 0x7ff8000000000000ull, "body_angvel that is not finite"},
              {be - 8, 0x7ff0000000000000ull, "body_dv that is not finite"},
              {be, na + 1, "count of anchors ("},
              {be + 8, (uint64_t)m->nbody,
               "anchor 0 (a contact's friction spring and birth "
               "offset) has a body index"},
              {be + 8 + 48, 0x7ff8000000000000ull,
               "has a body index, key, stretch or offset out "
               "of range"},
              {be + 8 + 72, 0xbff0000000000000ull,
               "has a body index, key, stretch or offset out "
               "of range"},
              /* the contacts and pairs: a count one too large (either), each integer out of
               * its range, a contact outside its pair's run, numbers not finite */
              {ce, nc + 1, "count of contacts ("},
              {ce + 8, np + 1, "count of contact pairs ("},
              {ce, 1ull << 40, "does not match"},
              {c1, (uint64_t)m->nbody, "contact 1's body[0] = 3 is out of its range 0 to 2"},
              {c1 + 8, (uint64_t)-1, "contact 1's body[1] = -1 is out of its range 0 to 2"},
              {c1 + 16, np, "contact 1's pair = "},
              {c1 + 24, 1000000, "contact 1's vert = 1000000 is out of its range -1 to"},
              {c1 + 24, (uint64_t)-2, "contact 1's vert = -2 is out"},
              {c1 + 32, 1000000, "contact 1's face = 1000000 is out of its range -1 to"},
              {c1 + 40, 8, "contact 1's flags = 8 is out of its range 0 to 7"},
              {c1 + 48, 0x7ff8000000000000ull, "contact 1's p0[0] is nan, not a finite number"},
              {c1 + 120, 0x7ff0000000000000ull, "contact 1's dist is inf, not a finite number"},
              {c1 + 160, 0xfff0000000000000ull, "contact 1's ftan[2] is -inf, not a finite number"},
              {p0, 7, "contact pair 0's body[0] = 7 is out of its range 0 to 2"},
              {p0 + 16, 99, "contact pair 0's rule = 99 is out of its range 0 to"},
              {p0 + 24, nc + 1, "contact pair 0's first = "},
              {p0 + 32, nc + 1, "contact pair 0's points = "},
              /* a contact outside its pair's run, or of other bodies (the box on the ground:
               * bodies 0 and 1; the ball is 2) */
              {p0 + 32, 1, "contact 1 (bodies 1 and 0) is not one of its pair 0's"},
              {c1 + 8, 2, "contact 1 (bodies 1 and 2) is not one of its pair 0's"},
              {p0 + 40, 0x7ff8000000000000ull, "contact pair 0's area is nan, not a finite number"},
              {p0 + 80, 0x7ff0000000000000ull,
               "contact pair 0's max_pressure is inf, not a finite number"}};
  for (size_t k = 0; k < sizeof edit / sizeof *edit; k++) {
    memcpy(file, good, n);
    for (int i = 0; i < 8; i++)
      file[edit[k].at + i] = (unsigned char)(edit[k].bits >> (8 * i));
    uint64_t sum = cm_fnv1a(CM_FNV_OFFSET, file, n - 8);
    for (int i = 0; i < 8; i++)
      file[n - 8 + i] = (unsigned char)(sum >> (8 * i));
    save(BAD, file, n);
    expect_reject(m, BAD, CM_ERR_PARSE, edit[k].what);
  }
  /* the last body's orientation the zero quaternion (after its 3 position numbers): refused,
   * as cm_step refuses it (it was read, and the step replaced it by the identity) */
  memcpy(file, good, n);
  memset(file + be - 8 * 19 + 8 * 3, 0, 8 * 4);
  {
    uint64_t sum = cm_fnv1a(CM_FNV_OFFSET, file, n - 8);
    for (int i = 0; i < 8; i++)
      file[n - 8 + i] = (unsigned char)(sum >> (8 * i));
  }
  save(BAD, file, n);
  expect_reject(m, BAD, CM_ERR_PARSE, "has a body_xquat that is the zero quaternion");
  /* no such file */
  expect_reject(m, "no-such-checkpoint.bin", CM_ERR_IO, "cannot open");

  /* another scene: other bodies; same bodies with another timestep */
  cmModel* m2 = scene(2, 1e-3);
  cmModel* m3 = scene(1, 5e-4);
  if (m2 && m3) {
    expect_reject(m2, PATH, CM_ERR_ARG, "another scene");
    expect_reject(m3, PATH, CM_ERR_ARG, "another scene");
    CHECK(cm_model_fingerprint(m2) != cm_model_fingerprint(m));
    CHECK(cm_model_fingerprint(m3) != cm_model_fingerprint(m));
  }
  /* the good file still reads */
  cmData* e = cm_data_new(m);
  CHECK(cm_checkpoint_read(m, e, PATH, err, sizeof err) == CM_OK);
  CHECK(cm_data_hash(m, e) == cm_data_hash(m, d));
  /* an unwritable place: a message naming the path */
  CHECK(cm_checkpoint_write(m, d, "no-such-dir/x.bin", err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "no-such-dir/x.bin") != NULL);
  cm_data_free(e);
  cm_model_free(m2);
  cm_model_free(m3);
  cm_data_free(d);
  cm_model_free(m);
  remove(BAD);
  remove(PATH);
}

/* a user law (cm_model_set_law), never called here */
static cmResponse no_law(void* ctx, double dist, const cmContact* contact) {
  (void)ctx;
  (void)dist;
  (void)contact;
  cmResponse r;
  memset(&r, 0, sizeof r);
  return r;
}

/* The scene's fingerprint (cm_model_scene_fingerprint, stored in checkpoints since format 11):
 * every change to what a step reads changes it (a rule's friction, ka, damping, min_period,
 * method, stick velocity; a body's force, moment, start position and velocity; a mesh's
 * refinement; a user law set on a rule), none of what a step does not read does (steps,
 * duration, output_every, vtk, max_speed, max_contacts, a body's name), and the model's
 * fingerprint, which a read checks, is the same for the first kind (same bodies, masses and
 * timestep) but for the refined mesh; cm_checkpoint_info gives the header of a good file and the
 * read's message for a bad one */
static void test_scene_fingerprint(void) {
  g_variant = 0;
  cmModel* m = scene(1, 1e-3);
  if (!m) return;
  uint64_t fm = cm_model_fingerprint(m), fs = cm_model_scene_fingerprint(m);
  CHECK(cm_model_scene_fingerprint(m) == fs); /* a pure function */
  int changed = 0, kept = 0;
  const int change[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  for (size_t i = 0; i < sizeof change / sizeof *change; i++) {
    g_variant = change[i];
    cmModel* v = scene(1, 1e-3);
    if (!v) continue;
    int ok = cm_model_scene_fingerprint(v) != fs;
    /* the model's own fingerprint (what a read refuses) holds but for the mesh refined */
    ok &= (cm_model_fingerprint(v) == fm) == (change[i] != 7);
    if (!ok) fprintf(stderr, "  variant %d: fingerprints %d\n", change[i], ok);
    changed += ok;
    cm_model_free(v);
  }
  CHECK(changed == (int)(sizeof change / sizeof *change));
  const int same[] = {100, 101, 102, 103, 104, 105, 106};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    g_variant = same[i];
    cmModel* v = scene(1, 1e-3);
    if (!v) continue;
    int ok = cm_model_scene_fingerprint(v) == fs && cm_model_fingerprint(v) == fm;
    if (!ok) fprintf(stderr, "  variant %d changed a fingerprint\n", same[i]);
    kept += ok;
    cm_model_free(v);
  }
  CHECK(kept == (int)(sizeof same / sizeof *same));
  g_variant = 0;

  /* the header of a checkpoint as written, then a user law on the rule: another scene */
  cmData* d = cm_data_new(m);
  steps(m, d, 40);
  CHECK(cm_checkpoint_write(m, d, PATH, err, sizeof err) == CM_OK);
  cmCheckpointInfo ci;
  memset(&ci, 0, sizeof ci);
  CHECK(cm_checkpoint_info(PATH, &ci, err, sizeof err) == CM_OK);
  CHECK(ci.step == 40 && ci.time == d->time && ci.timestep == 1e-3 && ci.nbody == m->nbody);
  CHECK(ci.model_fingerprint == fm && ci.scene_fingerprint == fs);
  CHECK(cm_model_set_law(m, m->nrule - 1, no_law, NULL) == CM_OK);
  CHECK(cm_model_scene_fingerprint(m) != fs && cm_model_fingerprint(m) == fm);
  /* a read takes it (the caller decides: comply run refuses it into the run's folder) */
  cmData* e = cm_data_new(m);
  CHECK(cm_checkpoint_read(m, e, PATH, err, sizeof err) == CM_OK);
  CHECK(cm_data_hash(m, e) == cm_data_hash(m, d));

  /* a bad file: the read's message, info unchanged */
  size_t n = load(PATH);
  file[n / 2] ^= 1;
  save(BAD, file, n);
  cmCheckpointInfo before = ci;
  CHECK(cm_checkpoint_info(BAD, &ci, err, sizeof err) == CM_ERR_PARSE);
  CHECK(strstr(err, BAD) != NULL && strstr(err, "checksum") != NULL);
  CHECK(memcmp(&before, &ci, sizeof ci) == 0);
  CHECK(cm_checkpoint_info("no-such-checkpoint.bin", &ci, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "no-such-checkpoint.bin") != NULL);
  cm_data_free(e);
  cm_data_free(d);
  cm_model_free(m);
  remove(BAD);
  remove(PATH);
}

static void test_vtk_body_errors(void) {
  cmModel* m = scene(1, 1e-3);
  if (!m) return;
  cmData* d = cm_data_new(m);
  CHECK(cm_vtk_write_body(m, d, 0, "plane.vtu", err, sizeof err) == CM_ERR_ARG);
  CHECK(strstr(err, "ground") != NULL);
  CHECK(cm_vtk_write_body(m, d, 1, "no-such-dir/box.vtu", err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "no-such-dir/box.vtu") != NULL);
  CHECK(cm_vtk_write_body(m, d, 1, "test_checkpoint_box.vtu", err, sizeof err) == CM_OK);
  CHECK(access("test_checkpoint_box.vtu", F_OK) == 0);
  remove("test_checkpoint_box.vtu");
  cm_data_free(d);
  cm_model_free(m);
}

int main(void) {
  RUN(test_hash);
  RUN(test_round_trip_and_continue);
  RUN(test_birth_offsets_travel);
  RUN(test_rejects);
  RUN(test_scene_fingerprint);
  RUN(test_vtk_body_errors);
  return test_report();
}
