/* comply tetmesh SURFACE -o OUT [--size S] [--scale K] [--remesh-surface]: fill a closed surface
 * with tetrahedra by running gmsh, then read the result back and measure it.
 *
 * The surface is loaded and checked as a body's mesh is (cm_mesh_load, cm_mesh_check: a surface
 * that fails is refused before gmsh sees it, with the same message), written into a private
 * folder as a gmsh 2.2 mesh of its triangles (coordinates with 17 digits; gmsh writes 16, so the
 * volume mesh's boundary nodes are the surface's vertices to a unit of the 16th digit) and
 * meshed by
 *   gmsh -3 mesh.geo -clmax S -format msh41|vtk -o OUT
 * with mesh.geo: Merge the surface; [ClassifySurfaces; CreateGeometry;] Surface Loop; Volume;
 * Physical Volume (so that only the tets are saved). gmsh (Debian's package `gmsh`, GPL) runs as
 * a separate program, found on the PATH or named by $COMPLY_GMSH, started by fork and execv (no
 * shell); it is never linked. Without --remesh-surface the surface triangles are kept as they
 * are (S bounds the tets inside); with it gmsh re-triangulates the surface at size S as well,
 * which approximates curved parts (docs/meshes.md, "Volume meshes").
 *
 * The result is read with cm_tetmesh_load and checked with cm_tetmesh_check; the command prints
 * nodes, tets, the volume against the surface's, the smallest and largest tet volume and the
 * smallest dihedral angle (the quality measure of docs/meshes.md). Exit
 * status: 0 done; 1 gmsh is missing, failed (its error lines are printed) or wrote a mesh that
 * does not load or check; 2 bad options or a bad surface. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

enum { PATH_SIZE = 4096 };

/* the program `name` (a path if it holds '/', else searched on $PATH) into out; 0 if found */
static int find_program(const char* name, char* out, size_t outsz) {
  if (strchr(name, '/')) {
    snprintf(out, outsz, "%s", name);
    return access(out, X_OK);
  }
  const char* path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  for (const char* p = path;;) {
    const char* e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    int w = n ? snprintf(out, outsz, "%.*s/%s", (int)n, p, name) : snprintf(out, outsz, "%s", name);
    struct stat st;
    if (w > 0 && (size_t)w < outsz && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
        access(out, X_OK) == 0)
      return 0;
    if (!e) return -1;
    p = e + 1;
  }
}

/* run argv[0] (a path) with stdout and stderr into the file `log`; its exit status (128 + signal
 * if killed), or -1 with errno when it could not be started */
static int run_logged(char** argv, const char* log) {
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fd);
  /* Ctrl-C reaches gmsh too; SIGTERM is passed on to it (cli/child.c) */
  return cli_wait_child(pid, NULL);
}

/* print gmsh's error lines from its log (else its last lines) to stderr */
static void print_log_errors(const char* log) {
  FILE* f = fopen(log, "r");
  if (!f) return;
  char line[512], tail[8][512];
  int nerr = 0, nline = 0;
  while (fgets(line, sizeof line, f)) {
    snprintf(tail[nline++ % 8], sizeof tail[0], "%s", line);
    /* the error lines, without gmsh's summary frame */
    int frame = strstr(line, "-----") || strstr(line, "summary") || strstr(line, " warnings") ||
                strstr(line, " errors") || strstr(line, "full log");
    if (strstr(line, "Error") && !frame && nerr < 12) {
      fprintf(stderr, "  gmsh: %s", line);
      nerr++;
    }
  }
  fclose(f);
  for (int i = nline > 8 ? nline - 8 : 0; !nerr && i < nline; i++)
    fprintf(stderr, "  gmsh: %s", tail[i % 8]);
}

/* the surface as a gmsh 2.2 mesh: its vertices and triangles on one discrete surface */
static int write_surface(const char* path, const cmMesh* m) {
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", m->nvert);
  for (int v = 0; v < m->nvert; v++)
    fprintf(f, "%d %.17g %.17g %.17g\n", v + 1, m->vert[3 * v], m->vert[3 * v + 1],
            m->vert[3 * v + 2]);
  fprintf(f, "$EndNodes\n$Elements\n%d\n", m->nface);
  for (int t = 0; t < m->nface; t++)
    fprintf(f, "%d 2 2 1 1 %d %d %d\n", t + 1, m->face[3 * t] + 1, m->face[3 * t + 1] + 1,
            m->face[3 * t + 2] + 1);
  fprintf(f, "$EndElements\n");
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  return bad ? -1 : 0;
}

static int write_geo(const char* path, const char* surface, int remesh) {
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "// written by comply tetmesh\nMerge \"%s\";\n", surface);
  /* remeshed: the new surfaces' corner points carry gmsh's default size, which would bound the
   * size from above; S alone sets it */
  if (remesh)
    fprintf(f, "ClassifySurfaces{40 * Pi / 180, 1, 1, Pi};\nCreateGeometry;\n"
               "Mesh.MeshSizeFromPoints = 0;\n");
  fprintf(f, "Surface Loop(1) = Surface{:};\nVolume(1) = {1};\nPhysical Volume(1) = {1};\n");
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  return bad ? -1 : 0;
}

/* six times the signed volume of tet t */
static double tet_vol6(const cmTetMesh* m, int t) {
  const int* v = m->tet + 4 * (size_t)t;
  const double* x0 = m->node + 3 * (size_t)v[0];
  double a[3], b[3], c[3];
  for (int k = 0; k < 3; k++) {
    a[k] = m->node[3 * (size_t)v[1] + (size_t)k] - x0[k];
    b[k] = m->node[3 * (size_t)v[2] + (size_t)k] - x0[k];
    c[k] = m->node[3 * (size_t)v[3] + (size_t)k] - x0[k];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* the smallest dihedral angle of tet t, degrees: at edge (a, b) the faces meet at
 * pi - angle(n_c, n_d), n_c and n_d the outward normals of the faces opposite c and d */
static double tet_min_dihedral(const cmTetMesh* m, int t) {
  const int* v = m->tet + 4 * (size_t)t;
  double n[4][3];
  for (int f = 0; f < 4; f++) {
    /* face f opposite node f, its normal pointing away from node f */
    const double* p[3];
    for (int k = 0, j = 0; k < 4; k++)
      if (k != f) p[j++] = m->node + 3 * (size_t)v[k];
    const double* q = m->node + 3 * (size_t)v[f];
    double a[3], b[3], len = 0, side = 0;
    for (int k = 0; k < 3; k++) {
      a[k] = p[1][k] - p[0][k];
      b[k] = p[2][k] - p[0][k];
    }
    n[f][0] = a[1] * b[2] - a[2] * b[1];
    n[f][1] = a[2] * b[0] - a[0] * b[2];
    n[f][2] = a[0] * b[1] - a[1] * b[0];
    for (int k = 0; k < 3; k++) {
      len += n[f][k] * n[f][k];
      side += n[f][k] * (p[0][k] - q[k]);
    }
    len = sqrt(len) * (side < 0 ? -1 : 1);
    for (int k = 0; k < 3; k++)
      n[f][k] = len > 0 || len < 0 ? n[f][k] / len : 0;
  }
  double amin = 180;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++) {
      double c = n[i][0] * n[j][0] + n[i][1] * n[j][1] + n[i][2] * n[j][2];
      c = c > 1 ? 1 : c < -1 ? -1 : c;
      amin = fmin(amin, 180 - acos(c) * (180 / 3.14159265358979323846));
    }
  return amin;
}

/* the private folder's files */
typedef struct Work {
  char dir[PATH_SIZE], surf[PATH_SIZE + 16], geo[PATH_SIZE + 16], log[PATH_SIZE + 16];
} Work;

static void work_remove(const Work* w) {
  if (!w->dir[0]) return;
  unlink(w->surf);
  unlink(w->geo);
  unlink(w->log);
  rmdir(w->dir);
}

static int ends_with(const char* s, const char* ext) {
  size_t n = strlen(s), k = strlen(ext);
  if (n < k) return 0;
  for (size_t i = 0; i < k; i++) {
    char c = s[n - k + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != ext[i]) return 0;
  }
  return 1;
}

/* gmsh on the surface (read from file `name`), writing out; CLI_OK or the status with the
 * message printed */
static int mesh_with_gmsh(const cmMesh* surf, const char* name, const char* out, double size,
                          int remesh) {
  const char* prog = getenv("COMPLY_GMSH");
  if (!prog || !*prog) prog = "gmsh";
  char exe[PATH_SIZE];
  if (find_program(prog, exe, sizeof exe) != 0)
    return cli_error(CLI_FAILED,
                     "the mesher '%s' was not found%s: install the Debian package gmsh "
                     "(apt-get install gmsh), or set COMPLY_GMSH to the gmsh program",
                     prog, strchr(prog, '/') ? "" : " on the PATH");

  /* the surface and the script in a private folder */
  Work w;
  memset(&w, 0, sizeof w);
  const char* tmp = getenv("TMPDIR");
  snprintf(w.dir, sizeof w.dir, "%s/comply-tetmesh-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(w.dir)) {
    int e = errno;
    return cli_error(CLI_USAGE, "%s: cannot create a temporary folder: %s", w.dir, strerror(e));
  }
  snprintf(w.surf, sizeof w.surf, "%s/surface.msh", w.dir);
  snprintf(w.geo, sizeof w.geo, "%s/mesh.geo", w.dir);
  snprintf(w.log, sizeof w.log, "%s/gmsh.log", w.dir);
  if (write_surface(w.surf, surf) != 0 || write_geo(w.geo, "surface.msh", remesh) != 0) {
    work_remove(&w);
    return cli_error(CLI_USAGE, "%s: cannot write the mesher's input", w.dir);
  }

  /* gmsh -3 mesh.geo -clmax S -format F -o OUT (-nt 1: one thread, reproducible) */
  char clmax[64];
  snprintf(clmax, sizeof clmax, "%.17g", size);
  char* argv[] = {
      exe,   "-3", w.geo, "-clmax",   clmax, "-format", ends_with(out, ".vtk") ? "vtk" : "msh41",
      "-nt", "1",  "-o",  (char*)out, NULL};
  double t0 = cli_now();
  int rc = run_logged(argv, w.log);
  double dt = cli_now() - t0;
  if (rc != 0) {
    int e = errno;
    if (rc < 0) {
      work_remove(&w);
      return cli_error(CLI_FAILED, "%s: cannot run it: %s", exe, strerror(e));
    }
    if (rc == 128 + SIGINT || rc == 128 + SIGTERM) {
      /* Ctrl-C or SIGTERM: not a fault of the surface; what gmsh wrote of OUT is incomplete */
      work_remove(&w);
      remove(out);
      fprintf(stderr, "comply: interrupted (%s) while %s meshed %s; %s not written\n",
              rc == 128 + SIGINT ? "SIGINT" : "SIGTERM", exe, name, out);
      return rc;
    }
    fprintf(stderr, "comply: %s failed (exit status %d) meshing %s:\n", exe, rc, name);
    print_log_errors(w.log);
    fprintf(stderr,
            "  (a surface that crosses itself fails so: comply mesh-info %s lists its "
            "self-intersections)\n",
            name);
    work_remove(&w);
    return CLI_FAILED;
  }
  printf("mesher: %s -clmax %.6g%s (%.2f s)\n", exe, size, remesh ? ", surface remeshed" : "", dt);
  work_remove(&w);
  return CLI_OK;
}

int cmd_tetmesh(int argc, char** argv) {
  const char *in = NULL, *out = NULL;
  double scale = 1.0, size = -1;
  int remesh = 0, only_positional = 0;
  for (int i = 1; i < argc;) {
    const char* a = argv[i];
    if (!only_positional && a[0] == '-' && a[1]) {
      const char* v = NULL;
      int r;
      if (strcmp(a, "--") == 0) {
        only_positional = 1;
        i++;
      } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        cli_help(stdout, "tetmesh");
        return CLI_OK;
      } else if (strcmp(a, "--remesh-surface") == 0) {
        remesh = 1;
        i++;
      } else if ((r = cli_option("tetmesh", argc, argv, &i, "--output", "-o", &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        out = v;
      } else if ((r = cli_positive_option("tetmesh", argc, argv, &i, "--size",
                                          "a finite length > 0 in m", &size)) != 0) {
        if (r < 0) return CLI_USAGE;
      } else if ((r = cli_positive_option("tetmesh", argc, argv, &i, "--scale",
                                          "a finite number > 0", &scale)) != 0) {
        if (r < 0) return CLI_USAGE;
      } else {
        return cli_usage_error("tetmesh", "unknown option '%s'", a);
      }
      continue;
    }
    if (in) return cli_usage_error("tetmesh", "more than one surface: '%s' and '%s'", in, a);
    in = a;
    i++;
  }
  if (!in) return cli_usage_error("tetmesh", "missing SURFACE");
  if (!out) return cli_usage_error("tetmesh", "missing -o OUT (a .msh or .vtk file)");
  if (!*out) return cli_usage_error("tetmesh", "-o: the output file name is empty");
  if (!ends_with(out, ".msh") && !ends_with(out, ".vtk"))
    return cli_usage_error("tetmesh", "-o %s: expected a .msh or .vtk file name", out);
  if (size < 0) return cli_usage_error("tetmesh", "missing --size S (the largest tet edge, m)");
  /* OUT writable before gmsh runs: gmsh's failure to open it was blamed on the surface */
  {
    struct stat ost;
    int existed = stat(out, &ost) == 0;
    if (existed && !S_ISREG(ost.st_mode))
      return cli_usage_error("tetmesh", "-o %s: exists and is not a regular file", out);
    FILE* probe = fopen(out, "a");
    if (!probe)
      return cli_usage_error("tetmesh", "-o %s: cannot be written: %s", out, strerror(errno));
    fclose(probe);
    if (!existed) remove(out); /* (gmsh writes it) */
  }

  /* the surface: a valid closed solid, as a body's mesh must be */
  char err[2048];
  cmMesh* surf = NULL;
  if (cm_mesh_load(in, scale, &surf, err, sizeof err) != CM_OK)
    return cli_error(CLI_USAGE, "%s", err);
  cmMeshReport rep;
  if (cm_mesh_check(surf, in, &rep, err, sizeof err) != CM_OK) {
    cm_mesh_free(surf);
    return cli_error(CLI_USAGE, "%s (comply mesh-info and mesh-repair tell more)", err);
  }
  double vsurf = rep.volume;
  printf("surface: %s (%d vertices, %d faces, volume %.17g m^3)\n", in, surf->nvert, surf->nface,
         vsurf);
  int rc = mesh_with_gmsh(surf, in, out, size, remesh);
  cm_mesh_free(surf);
  if (rc != CLI_OK) return rc;

  /* the result, read back and measured */
  cmTetMesh* tm = NULL;
  if (cm_tetmesh_load(out, 1.0, &tm, err, sizeof err) != CM_OK)
    return cli_error(CLI_FAILED, "the mesher's output does not load: %s", err);
  if (cm_tetmesh_check(tm, err, sizeof err) != CM_OK) {
    cm_tetmesh_free(tm);
    return cli_error(CLI_FAILED, "%s: the mesher's output fails the check: %s", out, err);
  }
  double vol = 0, vmin = INFINITY, vmax = 0, dmin = 180;
  for (int t = 0; t < tm->ntet; t++) {
    double v = tet_vol6(tm, t) / 6;
    vol += v;
    vmin = fmin(vmin, v);
    vmax = fmax(vmax, v);
    dmin = fmin(dmin, tet_min_dihedral(tm, t));
  }
  printf("wrote: %s (%d nodes, %d tets)\n", out, tm->nnode, tm->ntet);
  printf("volume: %.17g m^3 (surface %.17g m^3, relative difference %.3g)\n", vol, vsurf,
         (vol - vsurf) / vsurf);
  printf("tet volume: min %.6g m^3, max %.6g m^3\n", vmin, vmax);
  printf("smallest dihedral angle: %.2f degrees (70.53 for the regular tet)\n", dmin);
  printf("ok\n");
  cm_tetmesh_free(tm);
  return CLI_OK;
}
