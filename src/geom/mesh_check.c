/* Mesh validation: what the collision and mass computations assume of a body surface.
 *
 * Checks, in the order their failures are reported (the first failing check names its first
 * offending entity; the report counts every failure of every check):
 *   1. every vertex coordinate is finite;
 *   2. every face has three distinct vertex indices in 0..nvert-1;
 *   3. no face is degenerate: a face is degenerate when its area
 *        A_f <= 1e-14 D^2,   D = diagonal of the bounding box of the finite vertices,
 *      i.e. when its size is below ~1e-7 of the mesh size, where its normal is pure rounding;
 *   4. edges, found by sorting the 3 nface half-edges by their (min, max) vertex key so that
 *      equal edges are adjacent (O(n log n)): an edge with 1 face is a boundary edge (the mesh
 *      is not closed), with more than 2 faces non-manifold, and with 2 faces that traverse it
 *      in the same direction misoriented (a consistently oriented surface traverses every
 *      interior edge once each way);
 *   5. the signed enclosed volume  V = sum_f (a - r) . ((b - r) x (c - r)) / 6  is positive
 *      (negative means faces wound clockwise seen from outside: an inverted mesh);
 *   6. what the edges cannot show (mesh_diagnose.c, on the sorted edges of step 4): no face
 *      listed twice (a face and its reversed copy share their three edges: closed, manifold and
 *      oriented, of zero volume), no vertex where separate fans of faces meet, no shell inside
 *      another of the same orientation;
 *   7. the surface does not touch itself where distinct vertices share a position (checks 4-6
 *      go by index): with such vertices joined, the diagnosis finds none of the above either
 *      (touches_itself).
 * A failure of checks 4-6 is diagnosed (cm_mesh_diagnose) and its message starts with the cause
 * and what to do, before the symptom.
 * Vertices used by no face are counted in the report but allowed. Indices in messages are
 * 0-based. */
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/mesh_internal.h"

#define DEGENERATE_REL 1e-14

/* first offenders of each check, -1 if none */
typedef struct Offender {
  int nonfinite_vert;
  int bad_face, bad_vert, bad_repeat; /* face, offending index, 1 if repeated (else range) */
  int deg_face;
  double deg_area, deg_limit;
  int bnd_a, bnd_b, bnd_face;
  int nm_a, nm_b, nm_count, nm_face[3];
  int mis_a, mis_b, mis_from, mis_to, mis_f0, mis_f1;
} Offender;

/* vertices: finite coordinates, bounding box */
static void check_vertices(const cmMesh* m, cmMeshReport* r, Offender* o, double* diag2) {
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  int any = 0;
  for (int v = 0; v < m->nvert; v++) {
    const double* p = m->vert + 3 * (size_t)v;
    if (!cm_mesh_coord_ok(p)) {
      if (r->nonfinite_vert++ == 0) o->nonfinite_vert = v;
      continue;
    }
    for (int k = 0; k < 3; k++) {
      if (!any || p[k] < lo[k]) lo[k] = p[k];
      if (!any || p[k] > hi[k]) hi[k] = p[k];
    }
    any = 1;
  }
  double d[3];
  cm_v3_sub(d, hi, lo);
  *diag2 = cm_v3_dot(d, d);
}

/* 1 if face f has valid distinct indices; records the first bad face */
static int face_indices_ok(const cmMesh* m, int f, cmMeshReport* r, Offender* o) {
  const int* t = m->face + 3 * (size_t)f;
  for (int k = 0; k < 3; k++) {
    int range = t[k] < 0 || t[k] >= m->nvert;
    int repeat = !range && t[k] == t[(k + 1) % 3];
    if (range || repeat) {
      if (r->bad_index_face++ == 0) {
        o->bad_face = f;
        o->bad_vert = t[k];
        o->bad_repeat = repeat;
      }
      return 0;
    }
  }
  return 1;
}

/* faces: indices, degeneracy, vertex use, area and signed volume */
static void check_faces(const cmMesh* m, double diag2, unsigned char* used, cmMeshReport* r,
                        Offender* o) {
  double ref[3];
  cm_mesh_ref_point(m, ref);
  double limit = DEGENERATE_REL * diag2;
  for (int f = 0; f < m->nface; f++) {
    if (!face_indices_ok(m, f, r, o)) continue;
    const int* t = m->face + 3 * (size_t)f;
    for (int k = 0; k < 3; k++)
      used[t[k]] = 1;
    const double* p0 = m->vert + 3 * (size_t)t[0];
    const double* p1 = m->vert + 3 * (size_t)t[1];
    const double* p2 = m->vert + 3 * (size_t)t[2];
    if (!cm_mesh_coord_ok(p0) || !cm_mesh_coord_ok(p1) || !cm_mesh_coord_ok(p2)) continue;

    /* area from the edge cross product, volume of the tetrahedron from the reference point */
    double a[3], b[3], c[3], e1[3], e2[3], cr[3], bc[3];
    cm_v3_sub(a, p0, ref);
    cm_v3_sub(b, p1, ref);
    cm_v3_sub(c, p2, ref);
    cm_v3_sub(e1, b, a);
    cm_v3_sub(e2, c, a);
    cm_v3_cross(cr, e1, e2);
    double area = 0.5 * cm_v3_norm(cr);
    cm_v3_cross(bc, b, c);
    r->area += area;
    r->volume += cm_v3_dot(a, bc) / 6.0;
    if (area <= limit) {
      if (r->degenerate_face++ == 0) {
        o->deg_face = f;
        o->deg_area = area;
        o->deg_limit = limit;
      }
    }
  }
  for (int v = 0; v < m->nvert; v++)
    r->unused_vert += !used[v];
}

/* edges: sort half-edges of the valid faces, then classify each run of equal keys */
static cmStatus check_edges(const cmMesh* m, cmMeshReport* r, Offender* o, cmEdgeRec** out,
                            size_t* nout) {
  cmEdgeRec* e = cm_malloc((size_t)m->nface * 3 * sizeof(cmEdgeRec));
  if (!e) return CM_ERR_NOMEM;
  size_t n = 0;
  for (int f = 0; f < m->nface; f++) {
    const int* t = m->face + 3 * (size_t)f;
    int ok = 1;
    for (int k = 0; k < 3; k++)
      ok &= t[k] >= 0 && t[k] < m->nvert && t[k] != t[(k + 1) % 3];
    if (!ok) continue;
    for (int k = 0; k < 3; k++) {
      int u = t[k], w = t[(k + 1) % 3];
      e[n++] = (cmEdgeRec){u < w ? u : w, u < w ? w : u, f, u < w};
    }
  }
  cm_edge_sort(e, n);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && e[j].a == e[i].a && e[j].b == e[i].b)
      j++;
    size_t cnt = j - i;
    r->nedge++;
    if (cnt == 1) {
      if (r->boundary_edge++ == 0) {
        o->bnd_a = e[i].a;
        o->bnd_b = e[i].b;
        o->bnd_face = e[i].face;
      }
    } else if (cnt > 2) {
      if (r->nonmanifold_edge++ == 0) {
        o->nm_a = e[i].a;
        o->nm_b = e[i].b;
        o->nm_count = cnt > 1000000 ? 1000000 : (int)cnt;
        for (int k = 0; k < 3; k++)
          o->nm_face[k] = k < (int)cnt ? e[i + (size_t)k].face : -1;
      }
    } else if (e[i].dir == e[i + 1].dir) {
      if (r->misoriented_edge++ == 0) {
        o->mis_a = e[i].a;
        o->mis_b = e[i].b;
        o->mis_from = e[i].dir ? e[i].a : e[i].b;
        o->mis_to = e[i].dir ? e[i].b : e[i].a;
        o->mis_f0 = e[i].face;
        o->mis_f1 = e[i + 1].face;
      }
    }
    i = j;
  }
  *out = e;
  *nout = n;
  return CM_OK;
}

/* the message of the first failing check */
static cmStatus first_failure(const cmMesh* m, const char* nm, const cmMeshReport* r,
                              const Offender* o, char* err, size_t errsz) {
  if (m->nface == 0) return cm_error(err, errsz, CM_ERR_MESH, "%s: the mesh has no faces", nm);
  if (r->nonfinite_vert) {
    const double* p = m->vert + 3 * (size_t)o->nonfinite_vert;
    if (!cm_v3_isfinite(p))
      return cm_error(err, errsz, CM_ERR_MESH,
                      "%s: vertex %d has a non-finite coordinate (%g, %g, %g) (%d such vertices)",
                      nm, o->nonfinite_vert, p[0], p[1], p[2], r->nonfinite_vert);
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: vertex %d has a coordinate beyond %g m (%g, %g, %g): area, volume and "
                    "inertia would overflow (%d such vertices)",
                    nm, o->nonfinite_vert, CM_MESH_COORD_MAX, p[0], p[1], p[2], r->nonfinite_vert);
  }
  if (r->bad_index_face) {
    const int* t = m->face + 3 * (size_t)o->bad_face;
    if (o->bad_repeat)
      return cm_error(err, errsz, CM_ERR_MESH,
                      "%s: face %d (vertices %d, %d, %d) uses vertex %d twice (%d bad faces)", nm,
                      o->bad_face, t[0], t[1], t[2], o->bad_vert, r->bad_index_face);
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: face %d (vertices %d, %d, %d) refers to vertex %d, outside 0..%d "
                    "(%d bad faces)",
                    nm, o->bad_face, t[0], t[1], t[2], o->bad_vert, m->nvert - 1,
                    r->bad_index_face);
  }
  if (r->degenerate_face) {
    const int* t = m->face + 3 * (size_t)o->deg_face;
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: face %d (vertices %d, %d, %d) has zero area (%.3g m^2 <= 1e-14 x "
                    "bounding-box diagonal^2 = %.3g m^2) (%d degenerate faces)",
                    nm, o->deg_face, t[0], t[1], t[2], o->deg_area, o->deg_limit,
                    r->degenerate_face);
  }
  if (r->boundary_edge)
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: edge (%d, %d) belongs to 1 face (face %d): the mesh is not closed "
                    "(%d boundary edges)",
                    nm, o->bnd_a, o->bnd_b, o->bnd_face, r->boundary_edge);
  if (r->nonmanifold_edge)
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: edge (%d, %d) belongs to %d faces (faces %d, %d, %d%s): the mesh is not "
                    "edge-manifold (%d non-manifold edges)",
                    nm, o->nm_a, o->nm_b, o->nm_count, o->nm_face[0], o->nm_face[1], o->nm_face[2],
                    o->nm_count > 3 ? ", ..." : "", r->nonmanifold_edge);
  if (r->misoriented_edge)
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: edge (%d, %d) is traversed from vertex %d to vertex %d by both faces %d "
                    "and %d: the faces are not consistently oriented (%d misoriented edges)",
                    nm, o->mis_a, o->mis_b, o->mis_from, o->mis_to, o->mis_f0, o->mis_f1,
                    r->misoriented_edge);
  if (!(r->volume > 0)) {
    if (r->volume < 0)
      return cm_error(err, errsz, CM_ERR_MESH,
                      "%s: enclosed volume is %.6g m^3 <= 0: faces are oriented inward "
                      "(inverted mesh)",
                      nm, r->volume);
    return cm_error(err, errsz, CM_ERR_MESH,
                    "%s: enclosed volume is %.6g m^3 <= 0: the mesh encloses no volume", nm,
                    r->volume);
  }
  return CM_OK;
}

/* A mesh that passed every check, whose surface may still touch itself: distinct vertices at
 * exactly the same position (a pinched shell, two shells sharing an edge or a corner, as written
 * by some exporters or made by hand) are separate to the edge checks, which go by index, but
 * the surface passes through the same point twice, and inside that point the vertex queries'
 * pseudonormals belong to either sheet (the fuzzer's PLY of a box with two vertices moved onto
 * each other: closed, manifold and oriented by index, with four faces along one edge once they
 * are welded). Where such vertices exist, the diagnosis with them welded (cm_mesh_diagnose) must
 * find nothing wrong either: no non-manifold edge or vertex, hole, flipped or duplicate face or
 * nested shell. */
static cmStatus touches_itself(const cmMesh* m, const char* nm, char* err, size_t errsz) {
  int pair[2];
  int groups = cm_mesh_first_coincident(m, pair);
  if (groups == 0) return CM_OK;
  cmMeshDiagnosis dg;
  if (groups < 0 || cm_mesh_diagnose(m, 0, &dg) != CM_OK)
    return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory diagnosing the mesh", nm);
  if (dg.nonmanifold_edge == 0 && dg.nonmanifold_vert == 0 && dg.hole == 0 &&
      dg.flipped_face == 0 && dg.duplicate_face == 0 && dg.nested_shell <= 0)
    return CM_OK;
  char cause[1024];
  if (!cm_mesh_diagnosis_cause(m, &dg, cause, sizeof cause)) cause[0] = 0;
  const double* x = m->vert + 3 * (size_t)pair[0];
  char more[96] = "";
  if (groups > 1)
    snprintf(more, sizeof more, " (and %d other groups of vertices at one position)", groups - 1);
  return cm_error(err, errsz, CM_ERR_MESH,
                  "%s: the surface touches itself: vertices %d and %d are at the same position "
                  "(%.9g, %.9g, %.9g) m%s, and with them joined: %s",
                  nm, pair[0], pair[1], x[0], x[1], x[2], more,
                  cause[0] ? cause : "the surface is not a closed manifold");
}

/* The surface checks see symptoms (an edge with four faces, an edge with one); the diagnosis
 * (mesh_diagnose.c) names the cause. Prefix a failure's message with it, and fail a mesh that
 * passed the edge checks on what they cannot see: a face and its reversed copy (a closed pair),
 * vertices joining several fans of faces, and shells nested inside a shell of the same
 * orientation (volume counted twice). */
static cmStatus with_cause(const cmMesh* m, const char* nm, cmStatus st, cmEdgeRec* e, size_t ne,
                           char* err, size_t errsz) {
  cmMeshDiagnosis dg;
  cmStatus ds = st == CM_OK ? cm_mesh_diagnose_sorted(m, e, ne, &dg) : cm_mesh_diagnose(m, 0, &dg);
  if (ds != CM_OK)
    return st != CM_OK
               ? st
               : cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory diagnosing the mesh", nm);
  if (st == CM_OK && dg.duplicate_face == 0 && dg.nonmanifold_vert == 0 && dg.nested_shell <= 0)
    return touches_itself(m, nm, err, errsz);
  char cause[1024];
  if (!cm_mesh_diagnosis_cause(m, &dg, cause, sizeof cause)) return st;
  if (st == CM_OK) return cm_error(err, errsz, CM_ERR_MESH, "%s: %s", nm, cause);
  if (!err || errsz == 0) return st;
  /* "NAME: SYMPTOM" becomes "NAME: CAUSE; SYMPTOM" */
  char symptom[1024];
  size_t skip = strlen(nm) + 2;
  snprintf(symptom, sizeof symptom, "%s", strlen(err) > skip ? err + skip : err);
  return cm_error(err, errsz, st, "%s: %s; %s", nm, cause, symptom);
}

cmStatus cm_mesh_check(const cmMesh* mesh, const char* name, cmMeshReport* rep, char* err,
                       size_t errsz) {
  CM_ASSERT(mesh && mesh->nvert >= 0 && mesh->nface >= 0);
  const char* nm = name ? name : "mesh";
  cmMeshReport r = {0};
  Offender o;
  memset(&o, 0xff, sizeof o);
  r.nvert = mesh->nvert;
  r.nface = mesh->nface;

  /* run every check, counting all failures */
  double diag2;
  check_vertices(mesh, &r, &o, &diag2);
  unsigned char* used = cm_calloc((size_t)mesh->nvert + 1, 1);
  cmStatus st = used ? CM_OK : CM_ERR_NOMEM;
  if (used) check_faces(mesh, diag2, used, &r, &o);
  cm_free(used);
  cmEdgeRec* e = NULL;
  size_t ne = 0;
  if (st == CM_OK) st = check_edges(mesh, &r, &o, &e, &ne);
  r.closed = r.boundary_edge == 0;
  r.manifold = r.nonmanifold_edge == 0;
  r.oriented = r.misoriented_edge == 0;
  if (rep) *rep = r;
  if (st != CM_OK) {
    cm_free(e);
    return cm_error(err, errsz, st, "%s: out of memory checking the mesh", nm);
  }

  /* report the first failing check; for a failure of the surface, its cause first */
  st = first_failure(mesh, nm, &r, &o, err, errsz);
  if (mesh->nface > 0 && !r.nonfinite_vert && !r.bad_index_face && !r.degenerate_face)
    st = with_cause(mesh, nm, st, e, ne, err, errsz);
  cm_free(e);
  return st;
}
