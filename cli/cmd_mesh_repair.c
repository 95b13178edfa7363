/* comply mesh-repair IN OUT [--scale S] [--weld TOL]: apply the safe repairs of cm_mesh_repair to
 * a mesh and write the result as OBJ.
 *
 * Prints what changed ("repaired: welded 24 vertices into 8 (tolerance 0 m); ..." or "repaired:
 * nothing to repair"), then "ok: the mesh now passes every check (volume V m^3)". When the
 * repaired mesh still fails a check, OUT is written all the same (what was repaired stays
 * repaired) and the remaining cause is printed; the exit status is then 2. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* OBJ: "v x y z" with round-trip precision, "f a b c" 1-based, written whole or not at all
 * (cli_write_atomic: OUT may be IN, and a failed write must not lose it); 0 on success, else -1
 * with errno set */
static int write_obj(const char* path, const cmMesh* m) {
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return -1;
  fprintf(f, "# written by comply mesh-repair\n");
  for (int v = 0; v < m->nvert; v++)
    fprintf(f, "v %.17g %.17g %.17g\n", m->vert[3 * v], m->vert[3 * v + 1], m->vert[3 * v + 2]);
  for (int t = 0; t < m->nface; t++)
    fprintf(f, "f %d %d %d\n", m->face[3 * t] + 1, m->face[3 * t + 1] + 1, m->face[3 * t + 2] + 1);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || !text) {
    free(text);
    errno = ENOMEM;
    return -1;
  }
  int rc = cli_write_atomic(path, text, len);
  int e = errno;
  free(text);
  errno = e;
  return rc;
}

/* 1 if path ends in ".obj" (any case) */
static int is_obj(const char* path) {
  size_t n = strlen(path);
  return n > 4 && strcasecmp(path + n - 4, ".obj") == 0;
}

int cmd_mesh_repair(int argc, char** argv) {
  const char* path[2] = {NULL, NULL};
  int npath = 0;
  double scale = 1.0, weld = -1;
  int only_positional = 0;
  for (int i = 1; i < argc;) {
    const char* a = argv[i];
    if (!only_positional && a[0] == '-' && a[1]) {
      const char* v = NULL;
      int r;
      if (strcmp(a, "--") == 0) {
        only_positional = 1;
        i++;
      } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        cli_help(stdout, "mesh-repair");
        return CLI_OK;
      } else if ((r = cli_positive_option("mesh-repair", argc, argv, &i, "--scale",
                                          "a finite number > 0", &scale)) != 0) {
        if (r < 0) return CLI_USAGE;
      } else if ((r = cli_option("mesh-repair", argc, argv, &i, "--weld", NULL, &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (cli_parse_number(v, &weld) != 0 || !(weld >= 0))
          return cli_usage_error("mesh-repair",
                                 "--weld: expected a finite tolerance >= 0 in m, got '%s'", v);
      } else {
        return cli_usage_error("mesh-repair", "unknown option '%s'", a);
      }
      continue;
    }
    if (npath == 2)
      return cli_usage_error("mesh-repair", "more than two files: '%s', '%s' and '%s'", path[0],
                             path[1], a);
    path[npath++] = a;
    i++;
  }
  if (npath < 2) return cli_usage_error("mesh-repair", npath ? "missing OUT" : "missing IN");
  /* the format of a mesh file is its extension: OBJ text in a .stl or .ply could not be read
   * back (and OUT = IN destroyed the input) */
  if (!is_obj(path[1]))
    return cli_usage_error("mesh-repair",
                           "OUT '%s' must end in .obj: mesh-repair writes Wavefront OBJ, and a "
                           "mesh file's format is its extension",
                           path[1]);

  char err[2048];
  cmMesh* mesh = NULL;
  if (cm_mesh_load(path[0], scale, &mesh, err, sizeof err) != CM_OK)
    return cli_error(CLI_USAGE, "%s", err);
  cmMeshRepairReport rep;
  cmStatus st = cm_mesh_repair(mesh, weld, path[0], &rep, err, sizeof err);
  if (st == CM_ERR_NOMEM) {
    cm_mesh_free(mesh);
    return cli_error(CLI_USAGE, "%s", err);
  }
  char text[1024];
  cm_mesh_repair_text(&rep, text, sizeof text);
  printf("file: %s\nrepaired: %s\n", path[0], text);
  if (write_obj(path[1], mesh) != 0) {
    cm_mesh_free(mesh);
    return cli_error(CLI_USAGE, "'%s': cannot write the repaired mesh: %s", path[1],
                     strerror(errno));
  }
  printf("wrote: %s (%d vertices, %d faces)\n", path[1], mesh->nvert, mesh->nface);
  cm_mesh_free(mesh);
  if (st != CM_OK) {
    fflush(stdout);
    return cli_error(CLI_USAGE, "the repaired mesh still fails: %s", err);
  }
  printf("ok: the mesh now passes every check (volume %.17g m^3)\n", rep.volume);
  return CLI_OK;
}
