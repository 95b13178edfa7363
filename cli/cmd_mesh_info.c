/* comply mesh-info FILE [--scale S]: load, validate and measure a mesh.
 *
 * Prints one "key: value" line per fact (machine-greppable), the validation counts, every
 * finding of the diagnosis ("finding: KIND: COUNT ...; first: ...", cm_mesh_diagnose with the
 * self-intersection test), and for a valid mesh the mass properties of the solid of unit
 * density. An unreadable or invalid mesh prints what was found and the error and exits 2. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "cli.h"

static const char* yes_no(int b) {
  return b ? "yes" : "no";
}

static void print_report(const cmMeshReport* r) {
  printf("vertices: %d\nfaces: %d\nedges: %d\n", r->nvert, r->nface, r->nedge);
  printf("closed: %s\nmanifold: %s\noriented: %s\n", yes_no(r->closed), yes_no(r->manifold),
         yes_no(r->oriented));
  const struct {
    const char* what;
    int n;
  } counts[] = {{"non-finite or out-of-range vertices (beyond 1e50 m)", r->nonfinite_vert},
                {"faces with bad indices", r->bad_index_face},
                {"degenerate faces", r->degenerate_face},
                {"boundary edges", r->boundary_edge},
                {"non-manifold edges", r->nonmanifold_edge},
                {"misoriented edges", r->misoriented_edge},
                {"unused vertices", r->unused_vert}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (counts[i].n) printf("%s: %d\n", counts[i].what, counts[i].n);
}

/* the diagnosis: "findings: N", then one "finding: KIND: COUNT ...; first: ..." line each */
static cmStatus print_findings(const cmMesh* mesh, const cmMeshReport* rep) {
  cmMeshDiagnosis dg;
  cmStatus st = cm_mesh_diagnose(mesh, CM_DIAGNOSE_SELF_INTERSECTIONS, &dg);
  if (st != CM_OK) return st;
  char text[8192];
  int n = cm_mesh_diagnosis_text(mesh, &dg, text, sizeof text);
  /* a closed, consistently oriented mesh of negative volume is inside out: every face faces in
   * (the diagnosis compares faces with their neighbours, so it has no finding for that; until
   * 2026-12-08 this printed "findings: 0" before the error) */
  int inside_out = n == 0 && dg.hole == 0 && dg.flipped_face == 0 && rep->volume < 0;
  printf("findings: %d\n", n + inside_out);
  if (inside_out)
    printf("finding: inside out: enclosed volume %.6g m^3 <= 0: every face is oriented inward "
           "(repair: true or comply mesh-repair reverses them)\n",
           rep->volume);
  for (char* line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    printf("finding: %s\n", line);
  return CM_OK;
}

int cmd_mesh_info(int argc, char** argv) {
  const char* path = NULL;
  double scale = 1.0;
  int only_positional = 0;
  for (int i = 1; i < argc;) {
    const char* a = argv[i];
    if (!only_positional && a[0] == '-' && a[1]) {
      int r;
      if (strcmp(a, "--") == 0) {
        only_positional = 1;
        i++;
      } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        cli_help(stdout, "mesh-info");
        return CLI_OK;
      } else if ((r = cli_positive_option("mesh-info", argc, argv, &i, "--scale",
                                          "a finite number > 0", &scale)) != 0) {
        if (r < 0) return CLI_USAGE;
      } else {
        return cli_usage_error("mesh-info", "unknown option '%s'", a);
      }
      continue;
    }
    if (path) return cli_usage_error("mesh-info", "more than one file: '%s' and '%s'", path, a);
    path = a;
    i++;
  }
  if (!path) return cli_usage_error("mesh-info", "missing FILE");

  char err[2048];
  cmMesh* mesh = NULL;
  if (cm_mesh_load(path, scale, &mesh, err, sizeof err) != CM_OK)
    return cli_error(CLI_USAGE, "%s", err);

  printf("file: %s\n", path);
  if (scale != 1.0) printf("scale: %.17g\n", scale);
  /* the bounding box, in metres after the scale: the check of a file's units (a part of 0.1 m
   * in millimetres shows as 100 m) */
  if (mesh->nvert > 0) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++)
      lo[k] = hi[k] = mesh->vert[k];
    for (int v = 1; v < mesh->nvert; v++)
      for (int k = 0; k < 3; k++) {
        double x = mesh->vert[3 * (size_t)v + k];
        lo[k] = x < lo[k] ? x : lo[k];
        hi[k] = x > hi[k] ? x : hi[k];
      }
    printf("bounds: %.9g %.9g %.9g .. %.9g %.9g %.9g m\n", lo[0], lo[1], lo[2], hi[0], hi[1],
           hi[2]);
    printf("size: %.9g %.9g %.9g m\n", hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  }
  cmMeshReport rep;
  memset(&rep, 0, sizeof rep);
  cmStatus st = cm_mesh_check(mesh, path, &rep, err, sizeof err);
  print_report(&rep);
  printf("area: %.17g m^2\n", rep.area);
  printf("volume: %.17g m^3\n", rep.volume);
  if (print_findings(mesh, &rep) != CM_OK) {
    cm_mesh_free(mesh);
    return cli_error(CLI_USAGE, "%s: out of memory diagnosing the mesh", path);
  }
  if (st != CM_OK) {
    cm_mesh_free(mesh);
    fflush(stdout);
    return cli_error(CLI_USAGE, "%s", err);
  }

  cmMassProperties mp;
  st = cm_mesh_mass_properties(mesh, &mp);
  cm_mesh_free(mesh);
  if (st != CM_OK) return cli_error(CLI_USAGE, "%s: mass properties: %s", path, cm_status_name(st));
  printf("com: %.17g %.17g %.17g m\n", mp.com[0], mp.com[1], mp.com[2]);
  printf("inertia per unit density (m^5, about the com):\n");
  for (int r = 0; r < 3; r++)
    printf("  %.17g %.17g %.17g\n", mp.inertia[3 * r], mp.inertia[3 * r + 1],
           mp.inertia[3 * r + 2]);
  printf("ok\n");
  return CLI_OK;
}
