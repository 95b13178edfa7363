/* comply: the command-line tool. Dispatches to one function per command (cmd_*.c) and holds the
 * help texts, usage errors and option parsing they share. Exit statuses: see cli.h. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
  const char* usage; /* one line */
  const char* help;  /* the rest of `comply help NAME` */
} Command;

static const Command COMMANDS[] = {
    {"run", cmd_run,
     "comply run [SCENE] [-o DIR] [--duration T] [--steps N] [--checkpoint-every N]\n"
     "           [--restart FILE] [--quiet] [--strict]",
     "Simulate SCENE (a YAML scene file) and write bodies.csv, contacts.csv and summary.json\n"
     "into the output directory. With no SCENE, run a built-in demo: a sphere, a box and a box\n"
     "tumbling about its intermediate axis, thrown up, landing on a fixed ground and coming to\n"
     "rest (area-compliant contact with friction), 4 s.\n"
     "\n"
     "options:\n"
     "  -o, --output DIR  output directory, created with its parents if needed (default: out)\n"
     "  --duration T      simulate T seconds (T >= 0); steps = round(T / timestep)\n"
     "  --steps N         simulate N steps (N >= 0); overrides the scene's duration or steps\n"
     "  -q, --quiet       no progress bar and no final line (warnings are still printed)\n"
     "  --strict          exit 1 if the run had any warning (the output is still written)\n"
     "  --checkpoint-every N  write DIR/checkpoint.bin every N steps (N >= 1) and at the end\n"
     "  --restart FILE    continue from checkpoint FILE (same scene and options): the files in\n"
     "                    DIR are cut after the checkpoint's step and appended to, so they end\n"
     "                    up identical to those of an uninterrupted run (docs/outputs.md); a\n"
     "                    scene changed since (other laws, friction, joints, ...) is refused\n"
     "                    there, and continues with a warning into an empty folder\n"
     "  -h, --help        this help\n"
     "\n"
     "Frames are written at step 0, every `output: every` steps and at the last step; each is\n"
     "flushed, so the files are complete up to the last written step whatever happens. A\n"
     "progress bar with an estimated time left is drawn on stderr when it is a terminal.\n"
     "\n"
     "exit status:\n"
     "  0    done\n"
     "  1    the simulation failed: a non-finite state or a body faster than max_speed, more\n"
     "       than max_contacts contact points, or the output files or checkpoint could not be\n"
     "       written; the last good state is written and summary.json has \"failed\": true\n"
     "       and the message. With --strict, also a run that had warnings\n"
     "  2    bad scene, option or output directory, or initial overlaps whose elastic energy\n"
     "       would set a pair apart faster than 1 m/s, or nested or coincident bodies\n"
     "       (nothing simulated)\n"
     "  130  interrupted by SIGINT (143: SIGTERM): the step in progress is finished and written,\n"
     "       summary.json has \"interrupted\": true, DIR/checkpoint.bin holds the state. A\n"
     "       second signal ends the process at once.\n"
     "\n"
     "Warnings (a solve that did not converge, energy created by the numerics, initial\n"
     "overlaps, ...) are printed on stderr when they first occur, with what they mean and what\n"
     "to do, and counted in the final line and in summary.json (docs/outputs.md).\n"},
    {"check", cmd_check, "comply check SCENE",
     "Parse and compile SCENE without simulating. Prints the options, every body (name, alias,\n"
     "motion, geometry, vertices and faces, mass, volume), the interaction rule chosen for each\n"
     "body pair (per alias pair when there are more than 50 bodies), the joints and the\n"
     "compiler's notes (e.g. unstable damping), the initial overlaps, the stability,\n"
     "resting-penetration, resting-patch (spheres meshed coarser than their contact) and\n"
     "contact-period checks, then \"ok\".\n"
     "\n"
     "options:\n"
     "  -h, --help  this help\n"
     "\n"
     "exit status: 0 the scene is valid and `comply run` would start it; 2 it is not (the\n"
     "message names file, line and field), or `comply run` would refuse its initial overlaps.\n"},
    {"mesh-info", cmd_mesh_info, "comply mesh-info FILE [--scale S]",
     "Load a mesh (.obj, .stl, .ply, .vtp, .vtk), validate it and print its bounding box and\n"
     "size (m: check the file's units), vertices, faces, edges, whether it is closed, manifold\n"
     "and consistently oriented, its area (m^2), volume (m^3), centre of volume (m) and inertia\n"
     "tensor per unit density (m^5, about the centre of volume).\n"
     "\n"
     "options:\n"
     "  --scale S   multiply the coordinates by S > 0 (default 1)\n"
     "  -h, --help  this help\n"
     "\n"
     "exit status: 0 the mesh is valid; 2 it cannot be read or is not a valid closed solid.\n"},
    {"mesh-repair", cmd_mesh_repair, "comply mesh-repair IN OUT [--scale S] [--weld TOL]",
     "Load a mesh (.obj, .stl, .ply, .vtp, .vtk), apply the safe repairs and write the result\n"
     "to OUT as OBJ (OUT must end in .obj; it may be IN: it is replaced only once written\n"
     "whole): weld vertices within a tolerance, drop faces of zero area and duplicate faces,\n"
     "close holes of 3 edges and planar holes, flip faces against the majority of their shell\n"
     "and reverse shells of negative volume, drop unused vertices. Prints what changed, then\n"
     "whether the mesh now passes every check. A mesh that passes every check already is\n"
     "written unchanged (\"nothing to repair\": its unused vertices stay, and --weld is not\n"
     "applied). Other holes, non-manifold edges and vertices, nested shells and\n"
     "self-intersections are not repaired (docs/scene-format.md, \"Mesh checks\").\n"
     "\n"
     "options:\n"
     "  --scale S   multiply the coordinates by S > 0 (default 1)\n"
     "  --weld TOL  weld vertices within TOL m (default: the smallest tolerance that closes the\n"
     "              mesh, at most 1e-4 of its bounding-box diagonal, else exact duplicates)\n"
     "  -h, --help  this help\n"
     "\n"
     "exit status: 0 the repaired mesh passes every check; 2 it cannot be read or written, or\n"
     "it still fails a check (OUT is written all the same; the message names what remains).\n"},
    {"tetmesh", cmd_tetmesh,
     "comply tetmesh SURFACE -o OUT --size S [--scale K] [--remesh-surface]",
     "Fill a closed surface (.obj, .stl, .ply, .vtp, .vtk; checked as a body's mesh) with\n"
     "tetrahedra for a deformable body: runs gmsh (Debian package gmsh; found on the PATH, or\n"
     "$COMPLY_GMSH) with the largest tet edge S, writes OUT (.msh: gmsh 4.1 ASCII; .vtk: legacy\n"
     "VTK), reads it back and prints nodes, tets, the volume against the surface's and the\n"
     "smallest and largest tet volume. The surface's triangles are kept as the boundary of the\n"
     "tets (S bounds the tets inside); with --remesh-surface gmsh re-triangulates the surface\n"
     "at size S too, approximating curved parts (docs/meshes.md, \"Volume meshes\").\n"
     "\n"
     "options:\n"
     "  -o, --output OUT   the tet mesh file (.msh or .vtk)\n"
     "  --size S           the largest tet edge, m (> 0), after --scale\n"
     "  --scale K          multiply the surface's coordinates by K > 0 (default 1)\n"
     "  --remesh-surface   let gmsh re-triangulate the surface at size S\n"
     "  -h, --help         this help\n"
     "\n"
     "exit status: 0 done; 1 gmsh is missing or failed (its error lines are printed) or wrote\n"
     "a mesh that does not load or check; 2 bad options, or a surface that cannot be read or\n"
     "is not a valid closed solid.\n"},
    {"advise", cmd_advise, "comply advise ka|damping|restitution|contact-time OPTIONS",
     "Compute contact parameters from the rules of thumb of area-compliant-contact.txt\n"
     "(docs/contact-laws.md, \"Choosing parameters with comply advise\"). SI units.\n"
     "\n"
     "comply advise ka --pmax P --delta-max D\n"
     "  ka = P / D (N/m^3): penetration D (m) at the maximum contact pressure P (Pa).\n"
     "comply advise ka --young E --thickness L [--patch-width W] [--shape S] [--rho R]\n"
     "                 [--poisson NU]\n"
     "  ka = rho E_eff / Le, rho = deltaB/delta (default 20, advised 10..30). Le by shape:\n"
     "    thin     L << W          Le = L   (E_eff = E (1-nu)/((1+nu)(1-2nu)), confined layer)\n"
     "    compact  L >> W, wide    Le = W   (E_eff = E / (1-nu^2), half-space; needs W)\n"
     "    slender  L >> W, narrow  Le = L   (E_eff = E)\n"
     "  Without --shape: thin if L < W, compact if L >= W (Le = min(L, W)), thin if no W.\n"
     "  NU in [0, 0.5) (default 0); the confined factor is 3.79 at 0.45, and the stiffer\n"
     "  layer needs a LARGER ka for the same rho (the document says smaller; see the docs).\n"
     "  Worked example, the default ka: 20 * 5e6 Pa / 0.002 m = 5e10 N/m^3\n"
     "    comply advise ka --young 5e6 --thickness 0.002\n"
     "comply advise damping --zeta Z (--omega W | --ktot K --mass M) [--timestep H]\n"
     "  stiffness_damping = 2 Z / W (s), W = sqrt(K/M) rad/s; with H, warns if W H > 1 (step\n"
     "  damping dominates) and if 2 Z / W < H/2 (step_damping >= 0.5 still required).\n"
     "comply advise restitution (--step-damping S | --restitution E)\n"
     "  mean restitution 0.5 / (0.5 + S) of a light body on a stiff contact, or S = 0.5/E - 0.5;\n"
     "  warns if S < 0.5 (oscillation unless stiffness_damping >= h/2).\n"
     "comply advise contact-time (--restitution E | --elastic-repulsion R)\n"
     "  the contact_time law's e_r giving restitution E, or the restitution and contact\n"
     "  duration of a given R, for the law as integrated (it never pulls: the contact ends\n"
     "  when the force reaches 0), against a wall or with mass: effective.\n"
     "\n"
     "  -h, --help  this help\n"
     "\n"
     "exit status: 0 done; 2 a missing, unknown or out-of-range option (the message names it).\n"},
    {"plot", cmd_plot, "comply plot OUT [-o PNG_DIR] [--step N] [--body NAME] [--pair A,B]",
     "Draw PNG plots from the output files in OUT (a `comply run` output directory) into\n"
     "PNG_DIR (default OUT/plots): contact force |F| (N), largest penetration (m) and pressure\n"
     "(largest and mean |F| / area, Pa) per body pair over time; the kinetic energy per unit\n"
     "mass |v|^2 / 2 of each moving body over time (J/kg; the outputs hold no masses); and a\n"
     "pressure map of a contact face at one frame (Pa, on the contact plane, m), from the VTK\n"
     "series (the scene needs `output: {vtk: true}`). Runs `python3 -m comply.plot` (numpy,\n"
     "matplotlib): /usr/bin/python3, or $COMPLY_PYTHON if set (docs/outputs.md, \"Plots\").\n"
     "\n"
     "options:\n"
     "  -o, --output PNG_DIR  where to write the PNG files (created if needed)\n"
     "  --step N     frame (simulation step) of the pressure map (default: the frame of the\n"
     "               largest pressure)\n"
     "  --body NAME  body of the pressure map; also limits the other plots to its pairs\n"
     "  --pair A,B   limit the plots to the pair of bodies A and B\n"
     "  -h, --help   this help\n"
     "\n"
     "exit status: 0 done; 1 python3, numpy or matplotlib missing; 2 OUT lacks a file or\n"
     "column the plots need, an unknown body or pair, or a step that is not a frame (the\n"
     "message names the file and what is missing); 130 (143) interrupted by SIGINT (SIGTERM).\n"},
    {"sweep", cmd_sweep, "comply sweep SWEEP [-o DIR] [-j N] [--strict] [-q]",
     "Run the variants of a base scene that a sweep file describes (docs/sweeps.md): parameters\n"
     "given by paths into the scene (interactions[0].ka, bodies[ball].position[2]) with a list\n"
     "of values or a range (linear or log), combined as a grid or zipped; the quantities to\n"
     "collect per variant (penetration(BODY), restitution(BODY), max_pressure, final_pose(BODY),\n"
     "wall_time, newton_iterations, warnings, ...). Each variant's scene and outputs go to\n"
     "DIR/variant_NNNN/, its row to DIR/variant_NNNN/result.csv, and all rows, in variant order,\n"
     "to DIR/sweep.csv. A variant that fails is a row with its error. Run again, the sweep skips\n"
     "the variants whose folder holds a complete result.\n"
     "\n"
     "Alone, the variants run on the local cores (one process each, one OpenMP thread); under\n"
     "mpirun -n N (a build with MPI) they are shared out over the N ranks as each gets free.\n"
     "sweep.csv is the same byte for byte whatever N (unless it collects wall_time).\n"
     "\n"
     "options:\n"
     "  -o, --output DIR  output directory, created with its parents if needed (default: out)\n"
     "  -j, --jobs N      local worker processes (default: the number of cores; not with MPI)\n"
     "  --strict          a variant with warnings fails (its row says which)\n"
     "  -q, --quiet       no final line unless a variant failed (it says which)\n"
     "  -h, --help        this help\n"
     "\n"
     "exit status: 0 every variant ran; 1 some variant failed (sweep.csv is complete, the\n"
     "rows say why); 2 bad sweep file (FILE:LINE:COL: field: what) or usage; 130 (143)\n"
     "interrupted by SIGINT (SIGTERM): sweep.csv has the finished variants, the others are\n"
     "'missing'; the same command again completes it.\n"},
    {"help", NULL, "comply help [COMMAND]", "Print the overview, or the help of COMMAND.\n"},
};
enum { NCOMMAND = sizeof COMMANDS / sizeof COMMANDS[0] };

static const Command* find_command(const char* name) {
  for (int i = 0; i < NCOMMAND; i++)
    if (name && strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
  return NULL;
}

static void overview(FILE* f) {
  fprintf(f, "comply %s: compliant-contact rigid body simulation\n\nusage:\n", cm_version());
  for (int i = 0; i < NCOMMAND; i++)
    fprintf(f, "  %s\n", COMMANDS[i].usage);
  fprintf(f, "  comply --version\n\n"
             "Run 'comply help COMMAND' for the options of a command.\n"
             "exit status: 0 success, 1 the command failed (a simulation, or a program it\n"
             "             needs: see 'comply help COMMAND'), 2 bad input or usage,\n"
             "             130 interrupted by SIGINT, 143 by SIGTERM.\n");
}

int cli_help(FILE* f, const char* cmd) {
  if (!cmd || !*cmd) {
    overview(f);
    return 0;
  }
  const Command* c = find_command(cmd);
  if (!c) return -1;
  fprintf(f, "usage: %s\n\n%s", c->usage, c->help);
  return 0;
}

int cli_error(int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("comply: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return status;
}

int cli_usage_error(const char* cmd, const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* "comply: CMD: what", as plot's, advise's and sweep's other messages (a message that names
   * its command already, "advise ka: ...", is left as it is) */
  size_t n = cmd ? strlen(cmd) : 0;
  if (cmd && !(strncmp(msg, cmd, n) == 0 && (msg[n] == ':' || msg[n] == ' ')))
    fprintf(stderr, "comply: %s: %s\n", cmd, msg);
  else
    fprintf(stderr, "comply: %s\n", msg);
  const Command* c = find_command(cmd);
  if (c)
    fprintf(stderr, "usage: %s\n", c->usage);
  else
    fputs("usage: comply COMMAND ... (try 'comply help')\n", stderr);
  return CLI_USAGE;
}

int cli_parse_count(const char* s, long* out) {
  if (!s || !*s) return -1;
  for (const char* p = s; *p; p++)
    if (!isdigit((unsigned char)*p)) return -1;
  errno = 0;
  char* end = NULL;
  long v = strtol(s, &end, 10);
  if (errno == ERANGE || *end) return -1;
  *out = v;
  return 0;
}

int cli_parse_number(const char* s, double* out) {
  if (!s || !*s || isspace((unsigned char)*s)) return -1;
  /* decimal only, as in scene files: strtod also reads hexadecimal ("0x10" is 16), inf and nan */
  for (const char* c = s; *c; c++)
    if (!strchr("0123456789+-.eE", *c)) return -1;
  errno = 0;
  char* end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v)) return -1;
  /* ERANGE: an overflow is not finite (above); an underflow to a subnormal (1e-320) is a finite
   * number and is taken, one to zero (1e-400) is not the number written */
  if (errno == ERANGE && v == 0) return -1;
  *out = v;
  return 0;
}

int cli_option(const char* cmd, int argc, char** argv, int* i, const char* name,
               const char* short_name, const char** value) {
  const char* a = argv[*i];
  size_t n = strlen(name);
  /* --name=value and -oVALUE */
  if (strncmp(a, name, n) == 0 && a[n] == '=') {
    *value = a + n + 1;
    (*i)++;
    return 1;
  }
  int match = strcmp(a, name) == 0;
  if (!match && short_name) {
    size_t ns = strlen(short_name);
    if (strncmp(a, short_name, ns) == 0 && a[ns]) {
      *value = a + ns;
      (*i)++;
      return 1;
    }
    match = strcmp(a, short_name) == 0;
  }
  if (!match) return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(cmd, "option '%s' needs a value", a);
    return -1;
  }
  *value = argv[*i + 1];
  *i += 2;
  return 1;
}

int cli_positive_option(const char* cmd, int argc, char** argv, int* i, const char* name,
                        const char* what, double* out) {
  const char* v = NULL;
  int r = cli_option(cmd, argc, argv, i, name, NULL, &v);
  if (r <= 0) return r;
  if (cli_parse_number(v, out) != 0 || !(*out > 0)) {
    cli_usage_error(cmd, "%s: expected %s, got '%s'", name, what, v);
    return -1;
  }
  return 1;
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_help(int argc, char** argv) {
  /* `help -h` as every command's -h; `help -- run` as `help run`; `help --version` names the
   * command the overview lists */
  if (argc >= 2 && strcmp(argv[1], "--") == 0) argc--, argv++;
  if (argc > 2) return cli_usage_error("help", "too many arguments");
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
    return cli_help(stdout, NULL), CLI_OK;
  if (strcmp(argv[1], "--version") == 0) {
    printf("comply --version: print the version of comply (its library's, cm_version) and exit\n");
    return CLI_OK;
  }
  if (cli_help(stdout, argv[1]) != 0)
    return cli_usage_error("help", "unknown command '%s'", argv[1]);
  return CLI_OK;
}

/* OpenMP threads that wait at the end of a parallel region spin for a while before they sleep
 * (libgomp's default). On a machine whose cores are busy with other work, the spinning thread
 * takes the core from the one doing the work, and a run on 2 threads can take twice the time of
 * one on 1 (measured: pile of 125 boxes, load 5 on 2 cores, 14.5 s against 6.9 s). Waiting
 * threads that sleep at once (OMP_WAIT_POLICY=passive) cost nothing measurable on an idle
 * machine. The policy is read when the OpenMP runtime loads, before main, so unless the user set
 * it the command starts itself again with it set. */
static void passive_openmp_wait(char** argv) {
  if (getenv("OMP_WAIT_POLICY")) return;
  /* not under valgrind (its preload library is in LD_PRELOAD): the new process would run
   * outside it, or fail (/proc/self/exe is then valgrind's own tool) */
  const char* preload = getenv("LD_PRELOAD");
  if (preload && strstr(preload, "vgpreload")) return;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || (size_t)n >= sizeof self - 1) return;
  self[n] = 0;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv(self, argv); /* returns only on failure: then run as we are */
  unsetenv("OMP_WAIT_POLICY");
}

int main(int argc, char** argv) {
  passive_openmp_wait(argv);
  if (argc < 2) /* a usage error as any other: what is missing, and the usage line */
    return cli_usage_error(NULL, "missing COMMAND (run, check, ...; 'comply help' lists them)");
  const char* cmd = argv[1];
  if (strcmp(cmd, "--version") == 0) {
    if (argc > 2) return cli_usage_error(NULL, "--version takes no arguments");
    printf("comply %s\n", cm_version());
    return CLI_OK;
  }
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0)
    return cmd_help(argc - 1, argv + 1); /* `comply --help run` as `comply help run` */
  if (strcmp(cmd, "help") == 0) return cmd_help(argc - 1, argv + 1);
  const Command* c = find_command(cmd);
  if (c && c->run) return c->run(argc - 1, argv + 1);
  if (cmd[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", cmd);
  return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
