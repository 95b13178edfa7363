/* Mesh diagnosis: the causes behind a failing cm_mesh_check, each counted with a first example.
 *
 * cm_mesh_check sees symptoms: an edge with four faces, an edge with one. Exported meshes fail
 * for a few causes, each of which shows as a symptom that names another: a face listed twice
 * makes each of its edges carry four faces ("non-manifold"), vertices written once per face
 * make every edge a boundary edge ("not closed"). The diagnosis undoes the causes one at a time,
 * conceptually (the mesh is not changed), so that each finding is counted after the ones before
 * it are set aside:
 *   1. exact weld: vertices used by a valid face are sorted by position (-0 = +0, index last)
 *      and each is mapped to the smallest index at its position; faces are rewritten with these
 *      indices, and a face whose vertices merge is set aside;
 *   2. duplicate faces: the welded faces sorted by their sorted vertex triple; every face of a
 *      run after the first repeats an earlier face (either orientation) and is set aside;
 *   3. edges: the half-edges of the remaining faces sorted by (min, max) vertex key; a run of 1
 *      is a boundary edge, of more than 2 a non-manifold edge;
 *   4. holes: boundary edges chained end to end into loops (counted with their lengths),
 *      whatever the orientation of their faces;
 *   5. weld tolerance: if boundary edges remain, the pairs of boundary vertices at most 1e-4 of
 *      the bounding-box diagonal apart (a sweep along x) are sorted by distance d; welding the
 *      pairs up to d (union-find) and recounting the edges tells whether tolerance d closes the
 *      mesh. If welding all of them closes it, a bisection over the sorted distances finds the
 *      smallest closing d (weld_tol; closing is taken as monotone in d), and the later findings
 *      use this weld. A larger gap is a hole;
 *   6. flipped faces and shells: faces joined by shared edges, visited breadth first; crossing
 *      an edge traversed in the same direction by both faces flips the expected orientation, so
 *      each face gets an orientation relative to the first face of its shell, and the minority
 *      of each shell is counted as flipped (an inverted whole shell is the volume check's);
 *   7. non-manifold vertices: the corners (face, vertex) of faces sharing an edge are joined
 *      (union-find); the corners of a vertex form one group per fan of faces around it, and a
 *      vertex with more than one fan (two cubes sharing a corner) is non-manifold;
 *   8. nested shells (at most 64 shells): shell j lies inside shell i when the winding number
 *        w_i(c) = sum over faces of shell i of the solid angle at c / (4 pi)
 *      rounds to the same +-1 at the area centroid of shell j and at a vertex of it (solid angle of
 * a triangle a, b, c seen from the origin: 2 atan2(a . (b x c), |a||b||c| + (a . b)|c| + (b . c)|a|
 * + (c . a)|b|), van Oosterom and Strackee 1983); when the sign of w equals that of shell j's
 *      signed volume the volume of j is counted twice (an inward inner shell is a cavity);
 *   9. self-intersections (on request): a face tree over the remaining faces queried against
 *      itself (cm_bvh_tri_pairs, exact triangle tests); pairs of faces sharing a welded vertex
 *      touch by construction and are skipped.
 * Steps 1-8 cost a few sorts, O(n log n); step 9 one tree and an exact test per pair of faces
 * whose leaf boxes overlap. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"
#include "geom/tri_tri.h"

#define WELD_REL_MAX 1e-4 /* largest weld tolerance tried, relative to the diagonal */
#define NESTED_MAX_SHELLS 64

/* the working state: welded faces (row -1 when set aside) and their sorted half-edges */
typedef struct Work {
  const cmMesh* m;
  int* rep;     /* welded vertex of each vertex                       (nvert) */
  int* wf;      /* welded faces (the mesh's own when nothing is welded)   (nface x 3) */
  cmEdgeRec* e; /* sorted half-edges of the kept faces                (ne) */
  size_t ne;
} Work;

static const double* vtx(const cmMesh* m, int v) {
  return m->vert + 3 * (size_t)v;
}

static int face_valid(const cmMesh* m, int f) {
  const int* t = m->face + 3 * (size_t)f;
  for (int k = 0; k < 3; k++)
    if (t[k] < 0 || t[k] >= m->nvert || t[k] == t[(k + 1) % 3]) return 0;
  for (int k = 0; k < 3; k++)
    if (!cm_mesh_coord_ok(vtx(m, t[k]))) return 0;
  return 1;
}

/* ---- 1. exact weld ----------------------------------------------------------------------- */

typedef struct VRec {
  double x[3];
  int v;
} VRec;

static int vrec_cmp(const void* a, const void* b) {
  const VRec *p = a, *q = b;
  for (int k = 0; k < 3; k++)
    if (p->x[k] != q->x[k]) return p->x[k] < q->x[k] ? -1 : 1;
  return (p->v > q->v) - (p->v < q->v);
}

static cmStatus weld_exact(Work* w, double* diag) {
  const cmMesh* m = w->m;
  unsigned char* used = cm_calloc((size_t)m->nvert + 1, 1);
  VRec* r = cm_malloc(((size_t)m->nvert + 1) * sizeof(VRec));
  if (!used || !r) {
    cm_free(used);
    cm_free(r);
    return CM_ERR_NOMEM;
  }
  for (int f = 0; f < m->nface; f++)
    if (face_valid(m, f))
      for (int k = 0; k < 3; k++)
        used[m->face[3 * (size_t)f + k]] = 1;
  size_t n = 0;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int v = 0; v < m->nvert; v++) {
    w->rep[v] = v;
    if (!used[v]) continue;
    for (int k = 0; k < 3; k++) {
      r[n].x[k] = vtx(m, v)[k] + 0.0; /* -0 + 0 = +0 */
      if (n == 0 || r[n].x[k] < lo[k]) lo[k] = r[n].x[k];
      if (n == 0 || r[n].x[k] > hi[k]) hi[k] = r[n].x[k];
    }
    r[n++].v = v;
  }
  double d[3];
  cm_v3_sub(d, hi, lo);
  *diag = cm_v3_norm(d);
  cm_sort(r, n, sizeof(VRec), vrec_cmp);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && memcmp(r[j].x, r[i].x, sizeof r[i].x) == 0)
      j++;
    for (size_t k = i; k < j; k++)
      w->rep[r[k].v] = r[i].v;
    i = j;
  }
  cm_free(used);
  cm_free(r);
  return CM_OK;
}

int cm_mesh_first_coincident(const cmMesh* m, int pair[2]) {
  pair[0] = pair[1] = -1;
  VRec* r = cm_malloc(((size_t)m->nvert + 1) * sizeof(VRec));
  unsigned char* used = cm_calloc((size_t)m->nvert + 1, 1);
  if (!r || !used) {
    cm_free(r);
    cm_free(used);
    return -1;
  }
  for (int f = 0; f < m->nface; f++)
    if (face_valid(m, f))
      for (int k = 0; k < 3; k++)
        used[m->face[3 * (size_t)f + k]] = 1;
  size_t n = 0;
  for (int v = 0; v < m->nvert; v++) {
    if (!used[v]) continue;
    for (int k = 0; k < 3; k++)
      r[n].x[k] = vtx(m, v)[k] + 0.0; /* -0 + 0 = +0 */
    r[n++].v = v;
  }
  cm_sort(r, n, sizeof(VRec), vrec_cmp);
  int groups = 0;
  for (size_t i = 0; i + 1 < n;) {
    size_t j = i + 1;
    while (j < n && memcmp(r[j].x, r[i].x, sizeof r[i].x) == 0)
      j++;
    if (j > i + 1 && groups++ == 0) {
      pair[0] = r[i].v;
      pair[1] = r[i + 1].v;
    }
    i = j;
  }
  cm_free(r);
  cm_free(used);
  return groups;
}

/* welded faces; a face whose vertices merge is set aside */
static void weld_faces(Work* w) {
  const cmMesh* m = w->m;
  for (int f = 0; f < m->nface; f++) {
    int* t = w->wf + 3 * (size_t)f;
    if (!face_valid(m, f)) {
      t[0] = t[1] = t[2] = -1;
      continue;
    }
    for (int k = 0; k < 3; k++)
      t[k] = w->rep[m->face[3 * (size_t)f + k]];
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) t[0] = t[1] = t[2] = -1;
  }
}

/* ---- 2. duplicate faces ------------------------------------------------------------------ */

typedef struct FKey {
  int k[3];
  int f;
} FKey;

static int fkey_cmp(const void* a, const void* b) {
  const FKey *p = a, *q = b;
  for (int i = 0; i < 3; i++)
    if (p->k[i] != q->k[i]) return p->k[i] < q->k[i] ? -1 : 1;
  return (p->f > q->f) - (p->f < q->f);
}

static cmStatus duplicates(Work* w, cmMeshDiagnosis* dg) {
  int nf = w->m->nface;
  FKey* r = cm_malloc(((size_t)nf + 1) * sizeof(FKey));
  if (!r) return CM_ERR_NOMEM;
  size_t n = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = w->wf + 3 * (size_t)f;
    if (t[0] < 0) continue;
    int a = t[0], b = t[1], c = t[2], s;
    if (a > b) s = a, a = b, b = s;
    if (b > c) s = b, b = c, c = s;
    if (a > b) s = a, a = b, b = s;
    r[n++] = (FKey){{a, b, c}, f};
  }
  cm_sort(r, n, sizeof(FKey), fkey_cmp);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && memcmp(r[j].k, r[i].k, sizeof r[i].k) == 0)
      j++;
    if (j - i > 1) {
      dg->duplicate_face += (int)(j - i - 1);
      if (dg->duplicate_first[0] < 0 || r[i].f < dg->duplicate_first[0]) {
        dg->duplicate_first[0] = r[i].f;
        dg->duplicate_first[1] = r[i + 1].f;
      }
      for (size_t k = i + 1; k < j; k++)
        w->wf[3 * (size_t)r[k].f] = w->wf[3 * (size_t)r[k].f + 1] = w->wf[3 * (size_t)r[k].f + 2] =
            -1;
    }
    i = j;
  }
  cm_free(r);
  return CM_OK;
}

/* ---- 3. edges ---------------------------------------------------------------------------- */

/* sorted half-edges of the kept faces of `wf` into w->e (replacing them) */
static cmStatus edges(Work* w, const int* wf) {
  cm_free(w->e);
  w->ne = 0;
  w->e = cm_malloc(((size_t)w->m->nface * 3 + 1) * sizeof(cmEdgeRec));
  if (!w->e) return CM_ERR_NOMEM;
  for (int f = 0; f < w->m->nface; f++) {
    const int* t = wf + 3 * (size_t)f;
    if (t[0] < 0) continue;
    for (int k = 0; k < 3; k++) {
      int u = t[k], v = t[(k + 1) % 3];
      w->e[w->ne++] = (cmEdgeRec){u < v ? u : v, u < v ? v : u, f, u < v};
    }
  }
  cm_edge_sort(w->e, w->ne);
  return CM_OK;
}

/* end of the run of equal edges starting at i */
static size_t run_end(const Work* w, size_t i) {
  size_t j = i + 1;
  while (j < w->ne && w->e[j].a == w->e[i].a && w->e[j].b == w->e[i].b)
    j++;
  return j;
}

static int count_boundary(const Work* w) {
  int n = 0;
  for (size_t i = 0; i < w->ne;) {
    size_t j = run_end(w, i);
    n += j - i == 1;
    i = j;
  }
  return n;
}

/* ---- 4. holes ---------------------------------------------------------------------------- */

static cmStatus holes(const Work* w, cmMeshDiagnosis* dg) {
  int nb = count_boundary(w);
  dg->hole_edge = nb;
  if (nb == 0) return CM_OK;
  int* ed = cm_malloc((size_t)nb * 2 * sizeof(int));  /* the edges (a, b) */
  int* inc = cm_malloc((size_t)nb * 4 * sizeof(int)); /* (vertex, edge) for both ends, sorted */
  unsigned char* seen = cm_calloc((size_t)nb, 1);
  if (!ed || !inc || !seen) {
    cm_free(ed);
    cm_free(inc);
    cm_free(seen);
    return CM_ERR_NOMEM;
  }
  int n = 0;
  for (size_t i = 0; i < w->ne;) {
    size_t j = run_end(w, i);
    if (j - i == 1) {
      ed[2 * n] = w->e[i].a;
      ed[2 * n + 1] = w->e[i].b;
      inc[4 * n] = w->e[i].a;
      inc[4 * n + 1] = n;
      inc[4 * n + 2] = w->e[i].b;
      inc[4 * n + 3] = n;
      n++;
    }
    i = j;
  }
  cm_sort(inc, (size_t)n * 2, 2 * sizeof(int), cm_int2_cmp);
  for (int s = 0; s < n; s++) {
    if (seen[s]) continue;
    int len = 0;
    for (int cur = s, at = ed[2 * s + 1]; cur >= 0;) {
      seen[cur] = 1;
      len++;
      /* an unseen boundary edge at vertex `at` (binary search), and its other end */
      int lo = 0, hi = 2 * n, next = -1;
      while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (inc[2 * mid] < at)
          lo = mid + 1;
        else
          hi = mid;
      }
      for (int k = lo; k < 2 * n && inc[2 * k] == at; k++)
        if (!seen[inc[2 * k + 1]]) {
          next = inc[2 * k + 1];
          break;
        }
      if (next >= 0) at = ed[2 * next] == at ? ed[2 * next + 1] : ed[2 * next];
      cur = next;
    }
    if (dg->hole == 0) dg->hole_first_vert = ed[2 * s];
    if (dg->hole < CM_MESH_DIAG_LOOPS) dg->hole_len[dg->hole] = len;
    dg->hole++;
  }
  cm_free(ed);
  cm_free(inc);
  cm_free(seen);
  return CM_OK;
}

/* ---- 5. weld within a tolerance ---------------------------------------------------------- */

static int uf_find(int* p, int x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}

static void uf_union(int* p, int a, int b) {
  a = uf_find(p, a);
  b = uf_find(p, b);
  if (a != b) p[a > b ? a : b] = a < b ? a : b; /* the smaller index is the root */
}

static double dist(const cmMesh* m, int a, int b) {
  double d[3];
  cm_v3_sub(d, vtx(m, a), vtx(m, b));
  return cm_v3_norm(d);
}

/* a pair of boundary vertices and their distance */
typedef struct Pair {
  double d;
  int a, b;
} Pair;

static int pair_cmp(const void* x, const void* y) {
  const Pair *p = x, *q = y;
  if (p->d != q->d) return p->d < q->d ? -1 : 1;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

/* the pairs of boundary vertices (sorted by x in b) at most `cap` apart, sorted by distance, into
 * *out (allocated); their number, -1 on no memory */
static long long near_pairs(const cmMesh* m, const VRec* b, int nb, double cap, Pair** out) {
  long long n = 0, size = 0;
  Pair* p = NULL;
  for (int i = 0; i < nb; i++)
    for (int j = i + 1; j < nb && b[j].x[0] - b[i].x[0] <= cap; j++) {
      double d = dist(m, b[i].v, b[j].v);
      if (!(d <= cap)) continue;
      if (n == size) {
        size = 2 * size + 64;
        Pair* q = cm_realloc(p, (size_t)size * sizeof(Pair));
        if (!q) {
          cm_free(p);
          return -1;
        }
        p = q;
      }
      p[n++] = (Pair){d, b[i].v, b[j].v};
    }
  cm_sort(p, (size_t)n, sizeof(Pair), pair_cmp);
  *out = p;
  return n;
}

/* weld the first k pairs (on top of the exact weld) into wf2 and par; 1 if the mesh closes */
static cmStatus weld_closes(const Work* w, const Pair* p, long long k, int* par, int* wf2,
                            cmEdgeRec** e2, size_t* ne2, int* closed) {
  const cmMesh* m = w->m;
  for (int v = 0; v < m->nvert; v++)
    par[v] = v;
  for (long long i = 0; i < k; i++)
    uf_union(par, p[i].a, p[i].b);
  for (size_t f = 0; f < (size_t)m->nface; f++) {
    int* t = wf2 + 3 * f;
    for (int c = 0; c < 3; c++)
      t[c] = w->wf[3 * f + c] < 0 ? -1 : uf_find(par, w->wf[3 * f + c]);
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) t[0] = t[1] = t[2] = -1;
  }
  Work w2 = {m, NULL, NULL, NULL, 0};
  cmStatus st = edges(&w2, wf2);
  *closed = st == CM_OK && count_boundary(&w2) == 0;
  cm_free(*e2);
  *e2 = w2.e;
  *ne2 = w2.ne;
  return st;
}

/* If welding the boundary vertices within some tolerance up to WELD_REL_MAX of the diagonal
 * closes the mesh, the smallest such tolerance into dg->weld_tol and the weld into w->rep, w->wf
 * and w->e. The candidates are the distances of the pairs of boundary vertices, sorted; a weld
 * that closes the mesh at one tolerance is assumed to close it at any larger one (a bisection). */
static cmStatus weld_tolerant(Work* w, double diag, cmMeshDiagnosis* dg) {
  const cmMesh* m = w->m;
  int nb = 0;
  unsigned char* isb = cm_calloc((size_t)m->nvert + 1, 1);
  if (!isb) return CM_ERR_NOMEM;
  for (size_t i = 0; i < w->ne;) {
    size_t j = run_end(w, i);
    if (j - i == 1) isb[w->e[i].a] = isb[w->e[i].b] = 1;
    i = j;
  }
  for (int v = 0; v < m->nvert; v++)
    nb += isb[v];
  VRec* b = cm_malloc((size_t)nb * sizeof(VRec) + 1);
  int* par = cm_malloc(((size_t)m->nvert + 1) * sizeof(int));
  int* wf2 = cm_malloc(((size_t)m->nface * 3 + 1) * sizeof(int));
  Pair* p = NULL;
  cmEdgeRec* e2 = NULL;
  size_t ne2 = 0;
  cmStatus st = b && par && wf2 ? CM_OK : CM_ERR_NOMEM;
  long long np = 0;
  if (st == CM_OK) {
    int n = 0;
    for (int v = 0; v < m->nvert; v++)
      if (isb[v]) {
        memcpy(b[n].x, vtx(m, v), sizeof b[n].x);
        b[n++].v = v;
      }
    cm_sort(b, (size_t)nb, sizeof(VRec), vrec_cmp);
    np = near_pairs(m, b, nb, WELD_REL_MAX * diag, &p);
    if (np < 0) st = CM_ERR_NOMEM;
  }
  int closed = 0;
  if (st == CM_OK && np > 0) st = weld_closes(w, p, np, par, wf2, &e2, &ne2, &closed);
  if (st == CM_OK && closed) {
    /* the smallest k (pairs welded, through ties of distance) that closes the mesh */
    long long lo = 1, hi = np;
    while (st == CM_OK && lo < hi) {
      long long mid = lo + (hi - lo) / 2;
      while (mid + 1 < hi && p[mid].d == p[mid - 1].d)
        mid++;
      st = weld_closes(w, p, mid, par, wf2, &e2, &ne2, &closed);
      if (closed)
        hi = mid;
      else
        lo = mid + 1;
    }
    while (st == CM_OK && hi < np && p[hi].d == p[hi - 1].d)
      hi++;
    if (st == CM_OK) st = weld_closes(w, p, hi, par, wf2, &e2, &ne2, &closed);
    if (st == CM_OK && closed) {
      dg->weld_tol = p[hi - 1].d;
      for (int v = 0; v < m->nvert; v++)
        w->rep[v] = uf_find(par, w->rep[v]);
      memcpy(w->wf, wf2, (size_t)m->nface * 3 * sizeof(int));
      cm_free(w->e);
      w->e = e2;
      w->ne = ne2;
      e2 = NULL;
    }
  }
  cm_free(e2);
  cm_free(p);
  cm_free(isb);
  cm_free(b);
  cm_free(par);
  cm_free(wf2);
  return st;
}

/* coincident groups and welded vertices from the final weld */
static cmStatus count_unwelded(const Work* w, cmMeshDiagnosis* dg) {
  const cmMesh* m = w->m;
  int* cnt = cm_calloc((size_t)m->nvert + 1, sizeof(int));
  if (!cnt) return CM_ERR_NOMEM;
  for (int v = 0; v < m->nvert; v++)
    if (w->rep[v] != v) {
      if (cnt[w->rep[v]]++ == 0) dg->coincident_group++;
      dg->unwelded_vert++;
      if (dg->unwelded_first[0] < 0) {
        dg->unwelded_first[0] = w->rep[v];
        dg->unwelded_first[1] = v;
      }
    }
  cm_free(cnt);
  return CM_OK;
}

/* ---- 6. shells and flipped faces; 7. non-manifold edges and vertices --------------------- */

static int corner(const int* wf, int f, int v) {
  const int* t = wf + 3 * (size_t)f;
  return 3 * f + (t[0] == v ? 0 : t[1] == v ? 1 : 2);
}

/* comp[f]: shell of each kept face (-1 for faces set aside); shell_face[s]: its smallest face */
static cmStatus shells(const Work* w, int* comp, int** shell_face, cmMeshDiagnosis* dg) {
  int nf = w->m->nface;
  /* links between consecutive faces of each edge run, both ways (CSR) */
  int* deg = cm_calloc((size_t)nf + 1, sizeof(int));
  int* adj = cm_malloc((w->ne * 2 + 1) * sizeof(int));
  unsigned char* same = cm_malloc(w->ne * 2 + 1);
  unsigned char* flip = cm_calloc((size_t)nf + 1, 1);
  int* queue = cm_malloc(((size_t)nf + 1) * sizeof(int));
  int* sf = cm_malloc(((size_t)nf + 1) * sizeof(int));
  cmStatus st = deg && adj && same && flip && queue && sf ? CM_OK : CM_ERR_NOMEM;
  if (st == CM_OK) {
    for (size_t i = 0; i + 1 < w->ne; i++)
      if (w->e[i + 1].a == w->e[i].a && w->e[i + 1].b == w->e[i].b) {
        deg[w->e[i].face + 1]++;
        deg[w->e[i + 1].face + 1]++;
      }
    for (int f = 0; f < nf; f++)
      deg[f + 1] += deg[f];
    int* fill = queue; /* reused as the fill pointer */
    memcpy(fill, deg, (size_t)nf * sizeof(int));
    for (size_t i = 0; i + 1 < w->ne; i++)
      if (w->e[i + 1].a == w->e[i].a && w->e[i + 1].b == w->e[i].b) {
        int f0 = w->e[i].face, f1 = w->e[i + 1].face, s = w->e[i].dir == w->e[i + 1].dir;
        same[fill[f0]] = (unsigned char)s;
        adj[fill[f0]++] = f1;
        same[fill[f1]] = (unsigned char)s;
        adj[fill[f1]++] = f0;
      }
    for (int f = 0; f < nf; f++)
      comp[f] = -1;
    int ns = 0;
    for (int f0 = 0; f0 < nf; f0++) {
      if (w->wf[3 * (size_t)f0] < 0 || comp[f0] >= 0) continue;
      /* breadth first from f0: orientation relative to f0 */
      int qn = 0, c1 = 0;
      queue[qn++] = f0;
      comp[f0] = ns;
      for (int q = 0; q < qn; q++) {
        int f = queue[q];
        c1 += flip[f];
        for (int k = deg[f]; k < deg[f + 1]; k++)
          if (comp[adj[k]] < 0) {
            comp[adj[k]] = ns;
            flip[adj[k]] = flip[f] ^ same[k];
            queue[qn++] = adj[k];
          }
      }
      int minority = c1 <= qn - c1 ? 1 : 0, first = -1;
      dg->flipped_face += minority ? c1 : qn - c1;
      for (int q = 0; q < qn; q++)
        if (flip[queue[q]] == minority && (first < 0 || queue[q] < first)) first = queue[q];
      if (first >= 0 && (dg->flipped_first < 0 || first < dg->flipped_first))
        dg->flipped_first = first;
      sf[ns++] = f0;
    }
    dg->shell = ns;
  }
  cm_free(deg);
  cm_free(adj);
  cm_free(same);
  cm_free(flip);
  cm_free(queue);
  if (st != CM_OK) cm_free(sf);
  *shell_face = st == CM_OK ? sf : NULL;
  return st;
}

static cmStatus nonmanifold(const Work* w, cmMeshDiagnosis* dg) {
  const cmMesh* m = w->m;
  for (size_t i = 0; i < w->ne;) {
    size_t j = run_end(w, i);
    if (j - i > 2 && dg->nonmanifold_edge++ == 0) {
      dg->nonmanifold_edge_first[0] = w->e[i].a;
      dg->nonmanifold_edge_first[1] = w->e[i].b;
      dg->nonmanifold_edge_faces = j - i > 1000000 ? 1000000 : (int)(j - i);
    }
    i = j;
  }
  int* par = cm_malloc(((size_t)m->nface * 3 + 1) * sizeof(int));
  int* fans = cm_calloc((size_t)m->nvert + 1, sizeof(int));
  if (!par || !fans) {
    cm_free(par);
    cm_free(fans);
    return CM_ERR_NOMEM;
  }
  for (int c = 0; c < 3 * m->nface; c++)
    par[c] = c;
  for (size_t i = 0; i + 1 < w->ne; i++)
    if (w->e[i + 1].a == w->e[i].a && w->e[i + 1].b == w->e[i].b) {
      int f0 = w->e[i].face, f1 = w->e[i + 1].face;
      uf_union(par, corner(w->wf, f0, w->e[i].a), corner(w->wf, f1, w->e[i].a));
      uf_union(par, corner(w->wf, f0, w->e[i].b), corner(w->wf, f1, w->e[i].b));
    }
  for (int c = 0; c < 3 * m->nface; c++)
    if (w->wf[c] >= 0 && uf_find(par, c) == c) fans[w->wf[c]]++;
  for (int v = 0; v < m->nvert; v++)
    if (fans[v] > 1 && dg->nonmanifold_vert++ == 0) {
      dg->nonmanifold_vert_first = v;
      dg->nonmanifold_vert_fans = fans[v];
    }
  cm_free(par);
  cm_free(fans);
  return CM_OK;
}

/* ---- 8. nested shells -------------------------------------------------------------------- */

/* solid angle of triangle (a, b, c) seen from p */
static double solid_angle(const double* a0, const double* b0, const double* c0, const double* p) {
  double a[3], b[3], c[3], bc[3];
  cm_v3_sub(a, a0, p);
  cm_v3_sub(b, b0, p);
  cm_v3_sub(c, c0, p);
  double la = cm_v3_norm(a), lb = cm_v3_norm(b), lc = cm_v3_norm(c);
  cm_v3_cross(bc, b, c);
  double den = la * lb * lc + cm_v3_dot(a, b) * lc + cm_v3_dot(b, c) * la + cm_v3_dot(c, a) * lb;
  return 2.0 * atan2(cm_v3_dot(a, bc), den);
}

static cmStatus nested(const Work* w, const int* comp, const int* shell_face, cmMeshDiagnosis* dg) {
  const cmMesh* m = w->m;
  int ns = dg->shell;
  if (ns > NESTED_MAX_SHELLS) {
    dg->nested_shell = -1;
    return CM_OK;
  }
  if (ns < 2) return CM_OK;
  double vol[NESTED_MAX_SHELLS] = {0}, area[NESTED_MAX_SHELLS] = {0};
  double cen[NESTED_MAX_SHELLS][3] = {{0}}, wind[2][NESTED_MAX_SHELLS];
  double ref[3];
  cm_mesh_ref_point(m, ref);
  for (int f = 0; f < m->nface; f++) {
    if (comp[f] < 0) continue;
    const int* t = w->wf + 3 * (size_t)f;
    double a[3], b[3], c[3], e1[3], e2[3], cr[3];
    cm_v3_sub(a, vtx(m, t[0]), ref);
    cm_v3_sub(b, vtx(m, t[1]), ref);
    cm_v3_sub(c, vtx(m, t[2]), ref);
    cm_v3_sub(e1, b, a);
    cm_v3_sub(e2, c, a);
    cm_v3_cross(cr, e1, e2);
    double ar = 0.5 * cm_v3_norm(cr);
    cm_v3_cross(cr, b, c);
    vol[comp[f]] += cm_v3_dot(a, cr) / 6.0;
    area[comp[f]] += ar;
    for (int k = 0; k < 3; k++)
      cen[comp[f]][k] += ar * (a[k] + b[k] + c[k]) / 3.0;
  }
  /* shell j is inside shell i when both its area centroid and a vertex of it are (a vertex alone
   * may lie on shell i, a centroid alone inside a hollow shell) */
  for (int j = 0; j < ns; j++) {
    double p[2][3];
    for (int k = 0; k < 3; k++) {
      p[0][k] = (area[j] > 0 ? cen[j][k] / area[j] : 0) + ref[k];
      p[1][k] = vtx(m, w->wf[3 * (size_t)shell_face[j]])[k];
    }
    for (int i = 0; i < ns; i++)
      wind[0][i] = wind[1][i] = 0;
    for (int f = 0; f < m->nface; f++) {
      if (comp[f] < 0 || comp[f] == j) continue;
      const int* t = w->wf + 3 * (size_t)f;
      for (int q = 0; q < 2; q++)
        wind[q][comp[f]] += solid_angle(vtx(m, t[0]), vtx(m, t[1]), vtx(m, t[2]), p[q]);
    }
    for (int i = 0; i < ns; i++) {
      double n = round(wind[0][i] / (4.0 * CM_PI)), n1 = round(wind[1][i] / (4.0 * CM_PI));
      if (i == j || n == 0 || n1 != n || (n > 0) != (vol[j] > 0)) continue;
      if (dg->nested_shell++ == 0) {
        dg->nested_first[0] = shell_face[j];
        dg->nested_first[1] = shell_face[i];
      }
      break;
    }
  }
  return CM_OK;
}

/* ---- 9. self-intersections --------------------------------------------------------------- */

static cmStatus self_intersections(const Work* w, cmMeshDiagnosis* dg) {
  const cmMesh* m = w->m;
  /* the face tree bins boxes by coordinate: non-finite coordinates, or a box whose extent
   * overflows (1e308 apart), cannot be binned; such a mesh fails the finiteness check anyway:
   * self-intersections stay "not checked" (-1) */
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < (size_t)m->nvert * 3; i++) {
    if (!isfinite(m->vert[i])) return CM_OK;
    lo = fmin(lo, m->vert[i]);
    hi = fmax(hi, m->vert[i]);
  }
  if (!isfinite(hi - lo)) return CM_OK;
  int nk = 0;
  int* cf = cm_malloc(((size_t)m->nface * 3 + 1) * sizeof(int));
  int* orig = cm_malloc(((size_t)m->nface + 1) * sizeof(int));
  cmBvh t;
  memset(&t, 0, sizeof t);
  cmTriPair* pair = NULL;
  cmStatus st = cf && orig ? CM_OK : CM_ERR_NOMEM;
  if (st == CM_OK) {
    for (int f = 0; f < m->nface; f++)
      if (w->wf[3 * (size_t)f] >= 0) {
        memcpy(cf + 3 * (size_t)nk, w->wf + 3 * (size_t)f, 3 * sizeof(int));
        orig[nk++] = f;
      }
    st = cm_bvh_build(&t, m->vert, cf, nk);
  }
  /* every face meets itself and its neighbours: room for some 32 pairs per face first */
  int max = 32 * nk + 64, total = 0;
  static const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, T[3] = {0, 0, 0};
  for (int pass = 0; st == CM_OK && pass < 2; pass++) {
    cm_free(pair);
    pair = cm_malloc((size_t)max * sizeof(cmTriPair));
    if (!pair) {
      st = CM_ERR_NOMEM;
      break;
    }
    total = cm_bvh_tri_pairs(&t, m->vert, cf, &t, m->vert, cf, R, T, pair, max);
    if (total <= max) break;
    max = total;
  }
  dg->self_intersection = 0;
  for (int i = 0; st == CM_OK && i < total; i++) {
    int a = pair[i].fa, b = pair[i].fb, shared = 0;
    if (a >= b) continue;
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++)
        shared |= cf[3 * (size_t)a + k] == cf[3 * (size_t)b + l];
    if (shared) continue;
    if (dg->self_intersection++ == 0) {
      dg->self_first[0] = orig[a];
      dg->self_first[1] = orig[b];
    }
  }
  cm_bvh_free(&t);
  cm_free(pair);
  cm_free(cf);
  cm_free(orig);
  return st;
}

/* ---- the diagnosis ----------------------------------------------------------------------- */

/* Duplicate faces of a closed edge-manifold mesh, from its edges alone: a face and its copy
 * (reversed, as a closed oriented mesh has it) share all three edges, so the partner across each
 * of the face's edges is the same face. `part` is scratch (nface). */
static cmStatus closed_duplicates(const Work* w, int* part, cmMeshDiagnosis* dg) {
  int nf = w->m->nface;
  unsigned char* n = cm_calloc((size_t)nf + 1, 1);
  if (!n) return CM_ERR_NOMEM;
  for (int f = 0; f < nf; f++)
    part[f] = -1;
  for (size_t i = 0; i + 1 < w->ne; i++) {
    if (w->e[i + 1].a != w->e[i].a || w->e[i + 1].b != w->e[i].b) continue;
    for (int k = 0; k < 2; k++) {
      int f = w->e[i + (size_t)k].face, g = w->e[i + 1 - (size_t)k].face;
      if (part[f] < 0) part[f] = g;
      n[f] += part[f] == g;
    }
  }
  for (int f = 0; f < nf; f++)
    if (n[f] == 3 && f < part[f] && dg->duplicate_face++ == 0) {
      dg->duplicate_first[0] = f;
      dg->duplicate_first[1] = part[f];
    }
  cm_free(n);
  return CM_OK;
}

static void diag_init(cmMeshDiagnosis* dg) {
  memset(dg, 0, sizeof *dg);
  dg->duplicate_first[0] = dg->duplicate_first[1] = dg->unwelded_first[0] = dg->unwelded_first[1] =
      -1;
  dg->weld_tol = -1;
  dg->hole_first_vert = dg->flipped_first = -1;
  dg->nonmanifold_edge_first[0] = dg->nonmanifold_edge_first[1] = dg->nonmanifold_vert_first = -1;
  dg->nested_first[0] = dg->nested_first[1] = dg->self_first[0] = dg->self_first[1] = -1;
  dg->self_intersection = -1;
}

cmStatus cm_mesh_diagnose_sorted(const cmMesh* mesh, cmEdgeRec* e, size_t ne,
                                 cmMeshDiagnosis* out) {
  CM_ASSERT(mesh && out && e);
  cmMeshDiagnosis dg;
  diag_init(&dg);
  Work w = {mesh, NULL, mesh->face, e, ne};
  int* comp = cm_malloc(((size_t)mesh->nface + 1) * sizeof(int));
  int* shell_face = NULL;
  cmStatus st = comp ? CM_OK : CM_ERR_NOMEM;
  if (st == CM_OK) st = closed_duplicates(&w, comp, &dg);
  if (st == CM_OK) st = shells(&w, comp, &shell_face, &dg);
  if (st == CM_OK) st = nonmanifold(&w, &dg);
  if (st == CM_OK) st = nested(&w, comp, shell_face, &dg);
  cm_free(comp);
  cm_free(shell_face);
  *out = dg;
  return st;
}

cmStatus cm_mesh_diagnose(const cmMesh* mesh, int flags, cmMeshDiagnosis* out) {
  CM_ASSERT(mesh && out && mesh->nvert >= 0 && mesh->nface >= 0);
  cmMeshDiagnosis dg;
  diag_init(&dg);

  Work w = {mesh, NULL, NULL, NULL, 0};
  w.rep = cm_malloc(((size_t)mesh->nvert + 1) * sizeof(int));
  w.wf = cm_malloc(((size_t)mesh->nface * 3 + 1) * sizeof(int));
  int* comp = cm_malloc(((size_t)mesh->nface + 1) * sizeof(int));
  int* shell_face = NULL;
  cmStatus st = w.rep && w.wf && comp ? CM_OK : CM_ERR_NOMEM;
  /* is the mesh open before welding? (welding then closes it, or not) */
  int raw_open = 0;
  for (int f = 0; st == CM_OK && f < mesh->nface; f++)
    for (int k = 0; k < 3; k++)
      w.wf[3 * (size_t)f + k] = face_valid(mesh, f) ? mesh->face[3 * (size_t)f + k] : -1;
  if (st == CM_OK) st = edges(&w, w.wf);
  if (st == CM_OK) raw_open = count_boundary(&w) > 0;
  if (st == CM_OK) st = weld_exact(&w, &dg.diag);
  if (st == CM_OK) {
    weld_faces(&w);
    st = duplicates(&w, &dg);
  }
  if (st == CM_OK) st = edges(&w, w.wf);
  if (st == CM_OK) st = holes(&w, &dg);
  int welded = 0;
  for (int v = 0; st == CM_OK && v < mesh->nvert && !welded; v++)
    welded = w.rep[v] != v;
  if (st == CM_OK && dg.hole == 0 && welded && raw_open) dg.weld_tol = 0;
  if (st == CM_OK && dg.hole > 0) st = weld_tolerant(&w, dg.diag, &dg);
  if (st == CM_OK) st = count_unwelded(&w, &dg);
  if (st == CM_OK) st = shells(&w, comp, &shell_face, &dg);
  if (st == CM_OK) st = nonmanifold(&w, &dg);
  if (st == CM_OK) st = nested(&w, comp, shell_face, &dg);
  if (st == CM_OK && (flags & CM_DIAGNOSE_SELF_INTERSECTIONS)) st = self_intersections(&w, &dg);
  cm_free(w.rep);
  cm_free(w.wf);
  cm_free(w.e);
  cm_free(comp);
  cm_free(shell_face);
  *out = dg;
  return st;
}

/* ---- text -------------------------------------------------------------------------------- */

typedef struct Text {
  char* buf;
  size_t size, len;
} Text;

static void put(Text* t, const char* fmt, ...) {
  if (!t->buf || t->size == 0) return;
  size_t room = t->len < t->size ? t->size - t->len : 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + (t->size - room), room, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len >= t->size) t->len = t->size; /* truncated: stop writing */
}

static void put_vert(Text* t, const cmMesh* m, int v) {
  const double* p = vtx(m, v);
  put(t, "vertex %d (%.9g, %.9g, %.9g)", v, p[0], p[1], p[2]);
}

static void put_weld(Text* t, const cmMeshDiagnosis* dg) {
  if (dg->weld_tol == 0)
    put(t, "welding exactly coincident vertices closes the mesh");
  else if (dg->weld_tol > 0)
    put(t, "welding within %.3g m (%.3g of the bounding-box diagonal) closes the mesh",
        dg->weld_tol, dg->diag > 0 ? dg->weld_tol / dg->diag : 0);
  else
    put(t, "welding them does not close the mesh");
}

/* the lines of cm_mesh_diagnosis_text from finding `only` (all if -1); the number written */
static int findings(Text* t, const cmMesh* m, const cmMeshDiagnosis* dg, int only) {
  int n = 0;
  for (int kind = 0; kind < 9; kind++) {
    if (only >= 0 && kind != only) continue;
    switch (kind) {
    case 0:
      if (!dg->duplicate_face) continue;
      put(t, "duplicate faces: %d%s; first: faces %d and %d (vertices %d, %d, %d)",
          dg->duplicate_face,
          2 * dg->duplicate_face == m->nface ? " (every face is listed twice)" : "",
          dg->duplicate_first[0], dg->duplicate_first[1], m->face[3 * dg->duplicate_first[0]],
          m->face[3 * dg->duplicate_first[0] + 1], m->face[3 * dg->duplicate_first[0] + 2]);
      break;
    case 1:
      if (!dg->unwelded_vert) continue;
      put(t, "unwelded vertices: %d in %d groups of coincident vertices; first: vertex %d and ",
          dg->unwelded_vert, dg->coincident_group, dg->unwelded_first[0]);
      put_vert(t, m, dg->unwelded_first[1]);
      put(t, "; ");
      put_weld(t, dg);
      break;
    case 2:
      if (!dg->hole) continue;
      put(t, "holes: %d (boundary loops of ", dg->hole);
      for (int i = 0; i < dg->hole && i < CM_MESH_DIAG_LOOPS; i++)
        put(t, "%s%d", i ? ", " : "", dg->hole_len[i]);
      put(t, "%s edges; %d boundary edges); first: at ",
          dg->hole > CM_MESH_DIAG_LOOPS ? ", ..." : "", dg->hole_edge);
      put_vert(t, m, dg->hole_first_vert);
      if (dg->weld_tol > 0) {
        put(t, "; ");
        put_weld(t, dg);
      }
      break;
    case 3:
      if (!dg->nonmanifold_edge) continue;
      put(t, "non-manifold edges: %d; first: edge (%d, %d) with %d faces, from ",
          dg->nonmanifold_edge, dg->nonmanifold_edge_first[0], dg->nonmanifold_edge_first[1],
          dg->nonmanifold_edge_faces);
      put_vert(t, m, dg->nonmanifold_edge_first[0]);
      break;
    case 4:
      if (!dg->nonmanifold_vert) continue;
      put(t, "non-manifold vertices: %d; first: ", dg->nonmanifold_vert);
      put_vert(t, m, dg->nonmanifold_vert_first);
      put(t, " where %d fans of faces meet", dg->nonmanifold_vert_fans);
      break;
    case 5:
      if (!dg->flipped_face) continue;
      put(t,
          "flipped faces: %d; first: face %d (vertices %d, %d, %d), oriented against its "
          "neighbours",
          dg->flipped_face, dg->flipped_first, m->face[3 * dg->flipped_first],
          m->face[3 * dg->flipped_first + 1], m->face[3 * dg->flipped_first + 2]);
      break;
    case 6:
      if (only < 0) put(t, "shells: %d\n", dg->shell);
      if (dg->shell < 2) continue;
      if (only >= 0) put(t, "shells: %d", dg->shell);
      n++;
      continue;
    case 7:
      if (dg->nested_shell == 0) continue;
      if (dg->nested_shell < 0) {
        put(t, "nested shells: not checked (over %d shells)", NESTED_MAX_SHELLS);
      } else {
        put(t,
            "nested shells: %d; first: the shell of face %d lies inside the shell of face %d "
            "(its volume is counted twice)",
            dg->nested_shell, dg->nested_first[0], dg->nested_first[1]);
        n++;
      }
      if (only < 0) put(t, "\n");
      continue;
    case 8:
      if (dg->self_intersection < 0) continue;
      if (only < 0 && dg->self_intersection == 0) put(t, "self-intersections: 0\n");
      if (dg->self_intersection == 0) continue;
      put(t, "self-intersections: %d; first: faces %d and %d", dg->self_intersection,
          dg->self_first[0], dg->self_first[1]);
      break;
    }
    if (only < 0) put(t, "\n");
    n++;
  }
  return n;
}

int cm_mesh_diagnosis_text(const cmMesh* mesh, const cmMeshDiagnosis* dg, char* buf, size_t bufsz) {
  CM_ASSERT(mesh && dg);
  Text t = {buf, bufsz, 0};
  if (buf && bufsz) buf[0] = '\0';
  return findings(&t, mesh, dg, -1);
}

/* the first cause, in the order a fix should go, with what to do about it */
int cm_mesh_diagnosis_cause(const cmMesh* mesh, const cmMeshDiagnosis* dg, char* buf,
                            size_t bufsz) {
  static const struct {
    int kind;
    const char* fix;
  } order[] = {
      {0, "remove the duplicate faces (or repair: true, comply mesh-repair)"},
      {1, "weld coincident vertices when exporting (or repair: true, comply mesh-repair)"},
      {3, "an edge may join two faces only: split the mesh or fix it in a mesh editor"},
      {2, "close the holes in a mesh editor (repair: true fills holes of 3 edges and planar "
          "ones that share no vertex with another hole)"},
      {4, "separate the parts that touch at a vertex (or make them separate bodies)"},
      {5, "orient the faces consistently (or repair: true, comply mesh-repair)"},
      {7, "remove the inner shell, or reverse its faces if it is meant as a cavity"},
  };
  Text t = {buf, bufsz, 0};
  if (buf && bufsz) buf[0] = '\0';
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if (order[i].kind == 1 && dg->weld_tol < 0) continue; /* welding fixes nothing */
    if (order[i].kind == 7 && dg->nested_shell <= 0) continue;
    size_t len = t.len;
    if (findings(&t, mesh, dg, order[i].kind) == 0) continue;
    if (t.len > len) {
      put(&t, "; %s", order[i].fix);
      return 1;
    }
  }
  return 0;
}
