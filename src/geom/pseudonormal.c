/* Angle-weighted pseudonormals of a closed triangle mesh (Baerentzen and Aanaes, "Signed distance
 * computation using the angle weighted pseudonormal", IEEE TVCG 11(3), 2005).
 *
 * Let q be the point of the surface nearest to p and n the unit normal of the face holding q.
 * If q is inside a face, sign((p - q) . n) tells whether p is outside (+) or inside (-). If q is
 * on an edge or a vertex, a single face normal may give the wrong sign (p can be in front of one
 * incident face and behind another). Baerentzen and Aanaes prove that with
 *   vertex v:  n_v = sum_{f around v} alpha_f n_f   (alpha_f the angle of face f at v),
 *   edge e:    n_e = n_f + n_g                      (f, g the two faces sharing e),
 * normalised, sign((p - q) . n_feature) is the correct inside/outside sign for any p whose
 * nearest feature it is, on a closed, oriented, manifold surface: the pseudonormal of a feature
 * lies inside the cone of directions of its Voronoi region. The angle weights make n_v
 * independent of how the surface around v is triangulated (a flat fan of any tessellation gives
 * its plane's normal).
 *
 * Computation: face normals n_f = (b - a) x (c - a) / |.|; angles by atan2(|u x w|, u . w),
 * accurate at every angle; vertex sums in face order (deterministic). Edges: the 3 nface
 * half-edges are sorted by their (min, max) vertex key (cm_edge_sort, O(n log n)) so that the two
 * half-edges of each edge are adjacent; each edge must have exactly two faces. */
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/bvh.h"
#include "geom/mesh_internal.h"

/* unit normal of face f (zero for a degenerate face) */
static void face_unit_normal(const double* vert, const int* t, double n[3]) {
  double e1[3], e2[3];
  cm_v3_sub(e1, vert + 3 * (size_t)t[1], vert + 3 * (size_t)t[0]);
  cm_v3_sub(e2, vert + 3 * (size_t)t[2], vert + 3 * (size_t)t[0]);
  cm_v3_cross(n, e1, e2);
  cm_v3_normalize(n);
}

/* angle at vertex corner k of face t */
static double corner_angle(const double* vert, const int* t, int k) {
  const double* o = vert + 3 * (size_t)t[k];
  double u[3], w[3], c[3];
  cm_v3_sub(u, vert + 3 * (size_t)t[(k + 1) % 3], o);
  cm_v3_sub(w, vert + 3 * (size_t)t[(k + 2) % 3], o);
  cm_v3_cross(c, u, w);
  return atan2(cm_v3_norm(c), cm_v3_dot(u, w));
}

/* local edge index k of face t joining vertices a and b (either direction) */
static int edge_of_face(const int* t, int a, int b) {
  for (int k = 0; k < 3; k++) {
    int u = t[k], w = t[(k + 1) % 3];
    if ((u == a && w == b) || (u == b && w == a)) return k;
  }
  CM_ASSERT(0);
  return 0;
}

/* edge pseudonormals from sorted half-edges; CM_ERR_MESH if an edge has != 2 faces */
static cmStatus edge_pseudonormals(const int* face, size_t nf, const double* fn, cmEdgeRec* e,
                                   double* edge_pn) {
  size_t ne = 3 * nf;
  for (size_t f = 0; f < nf; f++)
    for (int k = 0; k < 3; k++) {
      int a = face[3 * f + k], b = face[3 * f + (k + 1) % 3];
      cmEdgeRec* r = e + 3 * f + k;
      r->a = a < b ? a : b;
      r->b = a < b ? b : a;
      r->face = (int)f;
      r->dir = a < b;
    }
  cm_edge_sort(e, ne);

  /* walk the groups of equal keys: each must be a pair (f, g) */
  for (size_t i = 0; i < ne; i += 2) {
    if (i + 1 >= ne || e[i + 1].a != e[i].a || e[i + 1].b != e[i].b) return CM_ERR_MESH;
    if (i + 2 < ne && e[i + 2].a == e[i].a && e[i + 2].b == e[i].b) return CM_ERR_MESH;
    int f = e[i].face, g = e[i + 1].face;
    double n[3];
    cm_v3_add(n, fn + 3 * (size_t)f, fn + 3 * (size_t)g);
    /* a fold (n_f = -n_g) has no meaningful average: keep each face's own normal */
    int fold = cm_v3_normalize(n) < 1e-12;
    int kf = edge_of_face(face + 3 * (size_t)f, e[i].a, e[i].b);
    int kg = edge_of_face(face + 3 * (size_t)g, e[i].a, e[i].b);
    cm_v3_copy(edge_pn + 9 * (size_t)f + 3 * kf, fold ? fn + 3 * (size_t)f : n);
    cm_v3_copy(edge_pn + 9 * (size_t)g + 3 * kg, fold ? fn + 3 * (size_t)g : n);
  }
  return CM_OK;
}

cmStatus cm_pseudonormals(const double* vert, int nvert, const int* face, int nface,
                          double* vert_pn, double* edge_pn) {
  if (nvert < 0 || nface < 0 || (nface > 0 && (!vert || !face))) return CM_ERR_ARG;
  size_t nv = (size_t)nvert, nf = (size_t)nface;
  for (size_t i = 0; i < 3 * nf; i++)
    if (face[i] < 0 || face[i] >= nvert) return CM_ERR_ARG;

  /* one block: face normals, then the half-edge records */
  size_t nbytes = nf * 3 * sizeof(double) + (edge_pn ? 3 * nf * sizeof(cmEdgeRec) : 0);
  double* fn = cm_malloc(nbytes ? nbytes : 1);
  if (!fn) return CM_ERR_NOMEM;
  for (size_t f = 0; f < nf; f++)
    face_unit_normal(vert, face + 3 * f, fn + 3 * f);

  /* vertices: angle-weighted sums in face order */
  if (vert_pn) {
    memset(vert_pn, 0, nv * 3 * sizeof(double));
    for (size_t f = 0; f < nf; f++)
      for (int k = 0; k < 3; k++) {
        double alpha = corner_angle(vert, face + 3 * f, k);
        double* r = vert_pn + 3 * (size_t)face[3 * f + k];
        cm_v3_madd(r, r, fn + 3 * f, alpha);
      }
    for (size_t v = 0; v < nv; v++)
      cm_v3_normalize(vert_pn + 3 * v);
  }

  cmStatus st = CM_OK;
  if (edge_pn && nf > 0) st = edge_pseudonormals(face, nf, fn, (cmEdgeRec*)(fn + 3 * nf), edge_pn);
  cm_free(fn);
  return st;
}
