/* The command-line target (fuzz_targets.h): the input split at newlines into the arguments of
 * `comply`, run by the command's own main (cli/comply.c, renamed comply_main by
 * fuzz_cli_main.c) in the private folder of the file-based targets, with the files the
 * arguments may name: s.yaml (a valid scene), bad.yaml (an invalid one), m.obj (a valid mesh).
 *
 * `run` goes to its option parser alone (cli_run_parse, cli/run_args.c), not to a simulation:
 * the options it accepts must be consistent (no --steps with --duration, counts and times in
 * range, a non-empty output folder). Any argument with a '/' is skipped, so that no file
 * outside the folder is read. The command's stdout goes to /dev/null and its stderr
 * into a buffer (the FILE pointers are swapped, which glibc allows; file descriptors 1 and 2
 * stay, so a sanitizer report still reaches the terminal). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz_targets.h"

int comply_main(int argc, char** argv);

#define require(cond) cm_fuzz_require((cond), #cond, "fuzz_targets_cli.c", __LINE__)

static const char SCENE[] =
    "scene: {timestep: 1.0e-3, duration: 0.01}\n"
    "bodies:\n"
    "  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}\n"
    "  - {name: box, geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 1}}, "
    "position: [0, 0, 0.0499]}\n"
    "  - {name: cube, geometry: {mesh: {file: m.obj, scale: 0.1}}, position: [0.3, 0, 0.1]}\n"
    "interactions:\n"
    "  - {pair: [box, \"*\"], law: area_compliant, friction: 0.3}\n";

static const char BAD_SCENE[] = "scene: {timestep: -1.0e-3}\nbodies: []\n";

static const char MESH[] = "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv -0.5 0.5 -0.5\n"
                           "v 0.5 0.5 -0.5\nv -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\n"
                           "v -0.5 0.5 0.5\nv 0.5 0.5 0.5\n"
                           "f 1 5 7 3\nf 2 4 8 6\nf 1 2 6 5\nf 3 7 8 4\nf 1 3 4 2\nf 5 6 8 7\n";

static void put(const char* dir, const char* name, const char* text) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  require(f != NULL);
  require(fputs(text, f) != EOF);
  require(fclose(f) == 0);
}

/* the files, /dev/null, and the OpenMP wait policy set (else main starts itself again) */
static FILE* setup(void) {
  static FILE* devnull;
  if (!devnull) {
    const char* dir = cm_fuzz_dir();
    put(dir, "s.yaml", SCENE);
    put(dir, "bad.yaml", BAD_SCENE);
    put(dir, "m.obj", MESH);
    devnull = fopen("/dev/null", "w");
    require(devnull != NULL);
    setenv("OMP_WAIT_POLICY", "passive", 0);
    /* comply tetmesh runs no mesher here: it stops at "the mesher was not found" */
    setenv("COMPLY_GMSH", "/nonexistent/comply-fuzz/gmsh", 1);
  }
  return devnull;
}

int cm_fuzz_cli(const uint8_t* data, size_t size) {
  /* the arguments: "comply", then the input's lines (a NUL ends an argument early) */
  char* text = malloc(size + 1);
  require(text != NULL);
  if (size) memcpy(text, data, size);
  text[size] = 0;
  char* argv[CM_FUZZ_MAX_ARGS + 2];
  int argc = 0, skip = 0;
  argv[argc++] = "comply";
  for (char* p = text; size;) {
    if (argc > CM_FUZZ_MAX_ARGS) {
      skip = 1;
      break;
    }
    argv[argc++] = p;
    char* nl = memchr(p, '\n', size - (size_t)(p - text));
    if (!nl) break;
    *nl = 0;
    p = nl + 1;
  }
  argv[argc] = NULL;
  for (int i = 1; i < argc && !skip; i++)
    skip = strchr(argv[i], '/') != NULL;
  int run_only = argc > 1 && strcmp(argv[1], "run") == 0;
  if (skip) {
    free(text);
    return 0;
  }

  /* run it in the folder, stdout to /dev/null, stderr into a buffer */
  FILE* devnull = setup();
  char here[4096];
  require(getcwd(here, sizeof here) != NULL);
  require(chdir(cm_fuzz_dir()) == 0);
  char* msg = NULL;
  size_t nmsg = 0;
  FILE* cap = open_memstream(&msg, &nmsg);
  require(cap != NULL);
  fflush(stdout);
  fflush(stderr);
  FILE* out = stdout;
  FILE* err = stderr;
  stdout = devnull;
  stderr = cap;
  int rc;
  if (run_only) {
    cliRunArgs a;
    rc = cli_run_parse(argc - 1, argv + 1, &a);
    require(rc == -1 || rc == 0 || rc == 2);
    if (rc == 0) {
      require(!(a.has_steps && a.has_duration));
      require(a.steps >= 0 && a.checkpoint_every >= 0);
      require(!a.has_duration || (a.duration >= 0 && isfinite(a.duration)));
      require(a.outdir && a.outdir[0]);
      require(!a.restart || a.restart[0]);
    }
    if (rc == -1) rc = 0;
  } else {
    rc = comply_main(argc, argv);
  }
  fflush(stdout);
  stdout = out;
  stderr = err;
  require(fclose(cap) == 0);
  require(chdir(here) == 0);

  /* an exit status of cli.h; a usage error says what is wrong */
  require(rc == 0 || rc == 1 || rc == 2);
  if (rc == 2) require(nmsg > 0 && strncmp(msg, "comply", 6) == 0);
  free(msg);
  free(text);
  return 0;
}
