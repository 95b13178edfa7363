/* Mesh objects: creation, deep copy, release, and the derived per-face and per-vertex data.
 *
 * For a face f with vertices (p0, p1, p2) counter-clockwise seen from outside,
 *   c_f = (p1 - p0) x (p2 - p0),   A_f = |c_f| / 2,   n_f = c_f / |c_f|,
 * so A_f n_f = c_f / 2 exactly, even for a degenerate face (whose normal is left 0).
 * The area vector of a vertex is a third of the area vectors of its faces,
 *   a_v = sum_{f ni v} A_f n_f / 3,
 * the vertex's share of the surface used for vertex contact areas (SPEC 5). For a closed mesh
 * sum_v a_v = sum_f A_f n_f = 0 (the surface integral of n over a closed surface vanishes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"

cmMesh* cm_mesh_new(int nvert, int nface) {
  if (nvert < 0 || nface < 0) return NULL;
  cmMesh* m = cm_calloc(1, sizeof(cmMesh));
  if (!m) return NULL;
  m->nvert = nvert;
  m->nface = nface;
  m->vert = cm_calloc((size_t)nvert * 3, sizeof(double));
  m->face = cm_calloc((size_t)nface * 3, sizeof(int));
  if (!m->vert || !m->face) {
    cm_mesh_free(m);
    return NULL;
  }
  return m;
}

cmMesh* cm_mesh_wrap(double* vert, int nvert, int* face, int nface) {
  cmMesh* m = cm_calloc(1, sizeof(cmMesh));
  if (!m) {
    cm_free(vert);
    cm_free(face);
    return NULL;
  }
  m->nvert = nvert;
  m->nface = nface;
  m->vert = vert;
  m->face = face;
  return m;
}

/* a copy of n elements of `size` bytes, NULL for NULL; *fail set on no memory */
static void* dup_array(const void* src, size_t n, size_t size, int* fail) {
  if (!src) return NULL;
  void* d = cm_calloc(n ? n : 1, size);
  if (!d) {
    *fail = 1;
    return NULL;
  }
  memcpy(d, src, n * size);
  return d;
}

cmMesh* cm_mesh_copy(const cmMesh* mesh) {
  CM_ASSERT(mesh);
  cmMesh* m = cm_calloc(1, sizeof(cmMesh));
  if (!m) return NULL;
  size_t nv = (size_t)mesh->nvert, nf = (size_t)mesh->nface;
  int fail = 0;
  m->nvert = mesh->nvert;
  m->nface = mesh->nface;
  m->vert = dup_array(mesh->vert, nv * 3, sizeof(double), &fail);
  m->face = dup_array(mesh->face, nf * 3, sizeof(int), &fail);
  m->face_normal = dup_array(mesh->face_normal, nf * 3, sizeof(double), &fail);
  m->face_area = dup_array(mesh->face_area, nf, sizeof(double), &fail);
  m->vert_areavec = dup_array(mesh->vert_areavec, nv * 3, sizeof(double), &fail);
  if (fail) {
    cm_mesh_free(m);
    return NULL;
  }
  return m;
}

void cm_mesh_free(cmMesh* mesh) {
  if (!mesh) return;
  cm_free(mesh->vert);
  cm_free(mesh->face);
  cm_free(mesh->face_normal);
  cm_free(mesh->face_area);
  cm_free(mesh->vert_areavec);
  cm_free(mesh);
}

int cm_mesh_indices_valid(const cmMesh* mesh) {
  for (long i = 0; i < 3L * mesh->nface; i++)
    if (mesh->face[i] < 0 || mesh->face[i] >= mesh->nvert) return 0;
  return 1;
}

void cm_mesh_ref_point(const cmMesh* mesh, double r[3]) {
  double s[3] = {0, 0, 0};
  long n = 0;
  for (int v = 0; v < mesh->nvert; v++) {
    const double* p = mesh->vert + 3 * (size_t)v;
    if (!cm_mesh_coord_ok(p)) continue;
    cm_v3_add(s, s, p);
    n++;
  }
  if (n)
    cm_v3_scale(r, s, 1.0 / (double)n);
  else
    cm_v3_set(r, 0, 0, 0);
  /* unused vertices far away (allowed, reported) can put the mean off the mesh, and the volume's
   * products then cancel catastrophically (a unit tetrahedron with 996 unused vertices 1e6 m
   * away came out -40 m^3, "inverted"): outside the box of the vertices the faces use, the
   * point is that box's centre. A mean of the used vertices alone is always inside it, so a
   * mesh that uses every vertex keeps its point. */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < 3 * (size_t)(mesh->nface > 0 ? mesh->nface : 0); i++) {
    int v = mesh->face[i];
    if (v < 0 || v >= mesh->nvert) continue;
    const double* p = mesh->vert + 3 * (size_t)v;
    if (!cm_mesh_coord_ok(p)) continue;
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], p[k]);
      hi[k] = fmax(hi[k], p[k]);
    }
  }
  if (!(lo[0] <= hi[0])) return; /* no face uses a finite vertex */
  for (int k = 0; k < 3; k++)
    if (!(r[k] >= lo[k] && r[k] <= hi[k])) {
      for (int j = 0; j < 3; j++)
        r[j] = 0.5 * lo[j] + 0.5 * hi[j];
      return;
    }
}

static int edge_cmp(const void* pa, const void* pb) {
  const cmEdgeRec* x = pa;
  const cmEdgeRec* y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  if (x->face != y->face) return x->face < y->face ? -1 : 1;
  return 0;
}

void cm_edge_sort(cmEdgeRec* e, size_t n) {
  cm_sort(e, n, sizeof(cmEdgeRec), edge_cmp);
}

cmStatus cm_mesh_prepare(cmMesh* mesh) {
  CM_ASSERT(mesh);
  if (!cm_mesh_indices_valid(mesh)) return CM_ERR_ARG;
  size_t nv = (size_t)mesh->nvert, nf = (size_t)mesh->nface;

  /* allocate the derived arrays once; later calls recompute in place */
  if (!mesh->face_normal) mesh->face_normal = cm_calloc(nf * 3, sizeof(double));
  if (!mesh->face_area) mesh->face_area = cm_calloc(nf, sizeof(double));
  if (!mesh->vert_areavec) mesh->vert_areavec = cm_calloc(nv * 3, sizeof(double));
  if (!mesh->face_normal || !mesh->face_area || !mesh->vert_areavec) return CM_ERR_NOMEM;
  memset(mesh->vert_areavec, 0, nv * 3 * sizeof(double));

  for (size_t f = 0; f < nf; f++) {
    const int* t = mesh->face + 3 * f;
    const double* p0 = mesh->vert + 3 * (size_t)t[0];
    const double* p1 = mesh->vert + 3 * (size_t)t[1];
    const double* p2 = mesh->vert + 3 * (size_t)t[2];
    double e1[3], e2[3], c[3], av[3];

    /* c = (p1 - p0) x (p2 - p0) = 2 A n */
    cm_v3_sub(e1, p1, p0);
    cm_v3_sub(e2, p2, p0);
    cm_v3_cross(c, e1, e2);
    double* n = mesh->face_normal + 3 * f;
    cm_v3_copy(n, c);
    mesh->face_area[f] = 0.5 * cm_v3_normalize(n);

    /* each vertex gets A n / 3 = c / 6 */
    cm_v3_scale(av, c, 1.0 / 6.0);
    for (int k = 0; k < 3; k++) {
      double* a = mesh->vert_areavec + 3 * (size_t)t[k];
      cm_v3_add(a, a, av);
    }
  }
  return CM_OK;
}
