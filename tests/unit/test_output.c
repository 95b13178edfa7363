/* Output writers (src/output/out_csv.c, out_summary.c): contact aggregation per body pair with the
 * pair's orientation, CSV rows, directory creation with mkdir -p semantics, JSON escaping and
 * null for non-finite numbers, atomic summary. Uses a hand-built model and data so that it
 * depends on nothing but the writers. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comply/comply.h"
#include "output/output.h"
#include "test.h"

/* ---- helpers ---- */

static char g_tmp[256];

static char* read_all(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

static void join(char* buf, size_t n, const char* a, const char* b) {
  snprintf(buf, n, "%s/%s", a, b);
}

static cmContact contact(int a, int b, double nx, double ny, double nz, double force, double area,
                         double dist) {
  cmContact c;
  memset(&c, 0, sizeof c);
  c.body[0] = a;
  c.body[1] = b;
  c.n[0] = nx;
  c.n[1] = ny;
  c.n[2] = nz;
  c.force = force;
  c.area = area;
  c.dist = dist;
  c.vert = -1;
  return c;
}

/* ---- aggregation ---- */

static void test_aggregate_orientation(void) {
  cmContact c[5];
  /* pair (0,1): two contacts with 1 penetrating 0 (n out of 0 toward 1 = +z), one with 0
   * penetrating 1 (n out of 1 toward 0 = -z) */
  c[0] = contact(1, 0, 0, 0, 1, 10, 0.5, -0.001);
  c[0].ftan[0] = 1;                              /* friction on body 1 along +x */
  c[1] = contact(2, 1, 1, 0, 0, 4, 0.0, -0.004); /* pair (1,2), zero area */
  c[2] = contact(0, 1, 0, 0, -1, 6, 2.0, -0.003);
  c[3] = contact(1, 0, 0, 0, 1, 30, 1.0, 0.0005); /* separated point, still counted */
  c[4] = contact(2, 1, 1, 0, 0, 2, 0.25, -0.002);
  cmPairKey keys[5];
  cmPairSum sums[5];
  int np = cm_contacts_aggregate(c, 5, keys, sums);
  CHECK(np == 2);
  /* row (0,1): force on body 0 */
  CHECK(sums[0].body[0] == 0 && sums[0].body[1] == 1);
  CHECK(sums[0].points == 3);
  /* SPEC 2: the force on A is +force n (n points out of B toward A)
   * c0: on A=1: 10 n + ftan = (1,0,10); on 0: (-1,0,-10)
   * c2: on A=0: 6 (0,0,-1) = (0,0,-6)
   * c3: on A=1: (0,0,30); on 0: (0,0,-30) */
  CHECK_NEAR(sums[0].force[0], -1, 1e-15);
  CHECK_NEAR(sums[0].force[1], 0, 1e-15);
  CHECK_NEAR(sums[0].force[2], -46, 1e-12);
  CHECK_NEAR(sums[0].area, 3.5, 1e-15);
  CHECK_NEAR(sums[0].max_pressure, 30, 1e-12); /* max(20, 3, 30) */
  CHECK_NEAR(sums[0].max_penetration, 0.003, 1e-15);
  /* row (1,2): force on body 1 = -(force on A=2) = -f n */
  CHECK(sums[1].body[0] == 1 && sums[1].body[1] == 2);
  CHECK(sums[1].points == 2);
  CHECK_NEAR(sums[1].force[0], -6, 1e-15);
  CHECK_NEAR(sums[1].area, 0.25, 1e-15);
  CHECK_NEAR(sums[1].max_pressure, 8, 1e-15); /* the zero-area point is skipped */
  CHECK_NEAR(sums[1].max_penetration, 0.004, 1e-15);
}

static void test_aggregate_empty_and_newton(void) {
  cmPairKey keys[2];
  cmPairSum sums[2];
  CHECK(cm_contacts_aggregate(NULL, 0, keys, sums) == 0);
  /* the same contact seen from either side gives the same row (action = reaction) */
  cmContact c1 = contact(3, 7, 0, 1, 0, 5, 1, -0.1);
  cmContact c2 = contact(7, 3, 0, -1, 0, 5, 1, -0.1);
  CHECK(cm_contacts_aggregate(&c1, 1, keys, sums) == 1);
  double f1 = sums[0].force[1];
  CHECK(cm_contacts_aggregate(&c2, 1, keys, sums) == 1);
  CHECK(sums[0].body[0] == 3 && sums[0].body[1] == 7);
  CHECK_NEAR(sums[0].force[1], f1, 0);
  CHECK_NEAR(f1, 5, 0);
  /* a contact exactly on the surface (dist +0) has penetration +0, never "-0" in the CSV */
  cmContact c0 = contact(3, 7, 0, 1, 0, 5, 1, 0.0);
  CHECK(cm_contacts_aggregate(&c0, 1, keys, sums) == 1);
  CHECK(sums[0].max_penetration == 0 && !signbit(sums[0].max_penetration));
}

/* ---- JSON ---- */

static char* json_of(const char* s) {
  FILE* f = tmpfile();
  cm_json_string(f, s);
  long n = ftell(f);
  rewind(f);
  char* r = calloc((size_t)n + 1, 1);
  size_t got = fread(r, 1, (size_t)n, f);
  r[got] = '\0';
  fclose(f);
  return r;
}

static void test_json_escape(void) {
  struct {
    const char* in;
    const char* out;
  } cases[] = {
      {"plain", "\"plain\""},
      {"q\"b\\s/", "\"q\\\"b\\\\s/\""},
      {"n\nr\rt\tb\bf\f", "\"n\\nr\\rt\\tb\\bf\\f\""},
      {"\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\""},
      {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
      {"bad\xff\xc3(", "\"bad\\ufffd\\ufffd(\""}, /* invalid byte, truncated sequence */
      {"\xc0\xaf\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* overlong, surrogate */
      {"", "\"\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char* got = json_of(cases[i].in);
    CHECK(strcmp(got, cases[i].out) == 0);
    if (strcmp(got, cases[i].out) != 0) fprintf(stderr, "  case %zu: got %s\n", i, got);
    free(got);
  }
  char* n = json_of(NULL);
  CHECK(strcmp(n, "null") == 0);
  free(n);

  FILE* f = tmpfile();
  cm_json_number(f, NAN);
  fputc(' ', f);
  cm_json_number(f, -INFINITY);
  fputc(' ', f);
  cm_json_number(f, 0.1);
  rewind(f);
  char buf[128] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  buf[got] = '\0';
  fclose(f);
  CHECK(strcmp(buf, "null null 0.10000000000000001") == 0);
}

/* ---- files with a hand-built model ---- */

typedef struct Fake {
  cmModel m;
  cmData d;
  char* names[2];
  double invmass[2], mass[2];
  double xpos[6], xquat[8], xvel[6], angvel[6], cpos[6], cvel[6];
  cmContact contact[3];
} Fake;

static void fake_init(Fake* f) {
  memset(f, 0, sizeof *f);
  f->names[0] = "ground";
  f->names[1] = "odd, \"name\"";
  f->m.nbody = 2;
  f->m.name = "scene \"x\"\n\\";
  f->m.opt.timestep = 0.01;
  f->m.body_name = f->names;
  f->m.body_invmass = f->invmass; /* all infinite mass: energies 0 */
  f->m.body_mass = f->mass;
  f->d.body_xpos = f->xpos;
  f->d.body_xquat = f->xquat;
  f->d.body_xvel = f->xvel;
  f->d.body_angvel = f->angvel;
  f->d.body_cpos = f->cpos;
  f->d.body_cvel = f->cvel;
  for (int i = 0; i < 2; i++)
    f->xquat[4 * i] = 1;
  f->xpos[5] = 0.1;
  f->xvel[5] = -1.0 / 3.0;
  f->d.contact = f->contact;
  f->d.maxcontact = 3;
}

static void test_files(void) {
  Fake fk;
  fake_init(&fk);
  char dir[512], path[600], err[512];
  join(dir, sizeof dir, g_tmp, "a/b//c/");
  cmOutput* out = NULL;
  CHECK(cm_output_open(&fk.m, dir, &out, err, sizeof err) == CM_OK);
  if (!out) return;

  /* frame 0: no contacts; frame 1: two contacts of one pair */
  CHECK(cm_output_frame(out, &fk.m, &fk.d) == CM_OK);
  fk.d.step = 1;
  fk.d.time = 0.01;
  fk.contact[0] = contact(1, 0, 0, 0, 1, 2, 0.5, -0.01);
  fk.contact[1] = contact(1, 0, 0, 0, 1, 3, 0.5, -0.02);
  fk.d.ncontact = 2;
  CHECK(cm_output_frame(out, &fk.m, &fk.d) == CM_OK);

  /* files are flushed per frame: readable before close */
  join(path, sizeof path, dir, "bodies.csv");
  char* b = read_all(path);
  CHECK(b != NULL);
  const char* expect_b =
      "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n"
      "0,0,ground,0,0,0,1,0,0,0,0,0,0,0,0,0\n"
      "0,0,\"odd, \"\"name\"\"\",0,0,0.10000000000000001,1,0,0,0,0,0,-0.33333333333333331,0,0,0\n"
      "1,0.01,ground,0,0,0,1,0,0,0,0,0,0,0,0,0\n"
      "1,0.01,\"odd, \"\"name\"\"\",0,0,0.10000000000000001,1,0,0,0,0,0,-0.33333333333333331,0,"
      "0,0\n";
  CHECK(b && strcmp(b, expect_b) == 0);
  if (b && strcmp(b, expect_b) != 0) fprintf(stderr, "bodies.csv:\n%s", b);
  free(b);
  join(path, sizeof path, dir, "contacts.csv");
  char* c = read_all(path);
  const char* expect_c =
      "step,time,body_a,body_b,points,fx,fy,fz,area,max_pressure,max_penetration\n"
      "1,0.01,ground,\"odd, \"\"name\"\"\",2,0,0,-5,1,6,0.02\n"; /* force on ground: -5 z */
  CHECK(c && strcmp(c, expect_c) == 0);
  if (c && strcmp(c, expect_c) != 0) fprintf(stderr, "contacts.csv:\n%s", c);
  free(c);

  /* summary: escaping, null for non-finite, atomic replace, callable twice */
  fk.d.solver_max_residual = NAN;
  fk.d.solver_max_iter = 7;
  fk.d.warning[CM_WARN_SOLVER] = 3;
  cmRunInfo info = {1.5, 1, 0, "stopped: \"sig\"\tINT \x01"};
  CHECK(cm_output_summary(out, &fk.m, &fk.d, &info) == CM_OK);
  info.interrupted = 0;
  info.failed = 1;
  CHECK(cm_output_summary(out, &fk.m, &fk.d, &info) == CM_OK);
  join(path, sizeof path, dir, "summary.json.tmp");
  CHECK(access(path, F_OK) != 0);
  join(path, sizeof path, dir, "summary.json");
  char* s = read_all(path);
  CHECK(s != NULL);
  if (s) {
    CHECK(strstr(s, "\"scene\": \"scene \\\"x\\\"\\n\\\\\"") != NULL);
    CHECK(strstr(s, "\"message\": \"stopped: \\\"sig\\\"\\tINT \\u0001\"") != NULL);
    CHECK(strstr(s, "\"max_residual\": null") != NULL);
    CHECK(strstr(s, "\"max_iterations\": 7") != NULL);
    CHECK(strstr(s, "\"solver\": 3") != NULL || strstr(s, ": 3") != NULL);
    CHECK(strstr(s, "\"interrupted\": false") != NULL);
    CHECK(strstr(s, "\"failed\": true") != NULL);
    CHECK(strstr(s, "\"steps\": 1,") != NULL);
    CHECK(strstr(s, "\"timestep\": 0.01") != NULL);
    CHECK(strstr(s, "\"wall_time\": 1.5") != NULL);
    CHECK(strstr(s, "\"bodies\": 2") != NULL);
    CHECK(strstr(s, "\"files\": [\"bodies.csv\", \"contacts.csv\", \"summary.json\"]") != NULL);
    CHECK(strstr(s, "nan") == NULL && strstr(s, "NaN") == NULL);
  }
  free(s);
  cm_output_close(out);

  /* clean up */
  const char* files[] = {"bodies.csv", "contacts.csv", "summary.json"};
  for (int i = 0; i < 3; i++) {
    join(path, sizeof path, dir, files[i]);
    remove(path);
  }
  join(path, sizeof path, g_tmp, "a/b/c");
  rmdir(path);
  join(path, sizeof path, g_tmp, "a/b");
  rmdir(path);
  join(path, sizeof path, g_tmp, "a");
  rmdir(path);
}

static void test_open_errors(void) {
  Fake fk;
  fake_init(&fk);
  char err[512], path[600];
  cmOutput* out = (cmOutput*)&fk; /* must be reset to NULL on failure */

  CHECK(cm_output_open(&fk.m, "/proc/comply-no/such", &out, err, sizeof err) == CM_ERR_IO);
  CHECK(out == NULL);
  CHECK(strstr(err, "/proc/comply-no/such") != NULL);

  /* a component that is a regular file */
  join(path, sizeof path, g_tmp, "file");
  FILE* f = fopen(path, "w");
  fclose(f);
  join(path, sizeof path, g_tmp, "file/sub");
  CHECK(cm_output_open(&fk.m, path, &out, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, path) != NULL);
  join(path, sizeof path, g_tmp, "file");
  CHECK(cm_output_open(&fk.m, path, &out, err, sizeof err) == CM_ERR_IO);
  CHECK(strstr(err, "Not a directory") != NULL);
  remove(path);

  CHECK(cm_output_open(&fk.m, "", &out, err, sizeof err) == CM_ERR_ARG);
  /* a resume before step 0 (every row cut, the initial one too): refused, nothing touched */
  out = (cmOutput*)&fk;
  CHECK(cm_output_resume(&fk.m, g_tmp, -1, &out, err, sizeof err) == CM_ERR_ARG && out == NULL);
  CHECK(strstr(err, "last_step must be >= 0 (got -1)") != NULL);
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/comply-test-output-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  RUN(test_aggregate_orientation);
  RUN(test_aggregate_empty_and_newton);
  RUN(test_json_escape);
  RUN(test_files);
  RUN(test_open_errors);
  rmdir(g_tmp);
  return test_report();
}
