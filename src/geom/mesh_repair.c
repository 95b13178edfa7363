/* cm_mesh_repair: the safe repairs of a mesh, each counted, then cm_mesh_check.
 *
 * A repair is safe when it changes no part of the surface that a correct mesh would have: it
 * only merges what is one point, removes what encloses nothing and turns faces so that the
 * surface encloses what it already bounds. In order:
 *
 *   1. weld: vertices within a tolerance t of each other become one (union-find over the pairs
 *      found in a grid of cells of side t, 27 neighbouring cells per vertex; for t = 0 a sort
 *      of the positions, -0 = +0), each group at the position of its smallest index. The
 *      default t is cm_mesh_diagnose's weld_tol: the smallest tolerance that closes the mesh,
 *      at most 1e-4 of the bounding-box diagonal D, or 0 (exact duplicates only);
 *   2. faces: a face with two corners welded together, or of area <= 1e-14 D^2 (the check's
 *      degenerate face) is dropped. Faces with the same three vertices (sorted) are copies:
 *      the first is kept. Faces whose copies include both orientations may be an inner wall
 *      between two closed parts (each lists it once): when, without all such faces, each of
 *      their edges has 2 faces (the wall's rim) or none (inside the wall), and some have 2, they
 *      are dropped altogether, which joins the parts; else one of each is kept (a lone
 *      triangle and its reversed copy stay one open triangle);
 *   2b. holes: a loop of three boundary edges x -> y -> z -> x (as their faces traverse them;
 *      each vertex on one boundary edge leaving it) is closed by the face (x, z, y), which
 *      traverses the edges the other way round, unless its area is zero. A triangle is planar,
 *      so this adds no surface that was not implied. A longer loop (up to 1024 edges) whose
 *      vertices lie in a plane (within 1e-6 of its size plus float32 rounding) is closed by
 *      ear clipping in that plane (fill_polygon: the flat patch the outline bounds, again
 *      nothing that was not implied); non-planar loops are left and counted (a non-planar
 *      fill is a guess at a surface);
 *   3. orientation: faces joined by an edge with exactly two faces must traverse it in opposite
 *      directions. A breadth-first pass over each shell gives every face a parity relative to
 *      the shell's first face; the faces of the minority parity are flipped (ties keep the
 *      first face's). Then each shell's signed volume V_s = sum over its faces of
 *      (v0 - r) . ((v1 - r) x (v2 - r)) / 6 is computed; a shell with V_s < 0 is reversed
 *      unless it lies inside another shell (winding number sum of solid angles / 4 pi of the
 *      other shells' faces at its first face's centroid > 1/2): that is a cavity;
 *   4. vertices used by no face are dropped, the others keep their order.
 *
 * A mesh that passes cm_mesh_check is not changed (welding two closed parts that touch at a
 * vertex would make it non-manifold). Nothing else is touched: non-planar holes, non-manifold
 * edges or vertices, nested shells and self-intersections remain and cm_mesh_check names
 * them. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/linalg.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"

#define DEGENERATE_REL 1e-14
#define MAX_NEG_SHELLS                                                                             \
  64 /* negative shells tested for being a cavity; more are left as they are                       \
      */

/* ---- union-find, the smallest index as root ----------------------------------------------- */

static int find(int* p, int i) {
  while (p[i] != i) {
    p[i] = p[p[i]];
    i = p[i];
  }
  return i;
}

static void unite(int* p, int a, int b) {
  a = find(p, a);
  b = find(p, b);
  if (a < b)
    p[b] = a;
  else if (b < a)
    p[a] = b;
}

/* ---- 1. weld ------------------------------------------------------------------------------ */

typedef struct Cell {
  int64_t c[3];
  int v;
} Cell;

static int cell_cmp(const void* x, const void* y) {
  const Cell *p = x, *q = y;
  for (int k = 0; k < 3; k++)
    if (p->c[k] != q->c[k]) return p->c[k] < q->c[k] ? -1 : 1;
  return (p->v > q->v) - (p->v < q->v);
}

static int64_t cell_of(double x, double h) {
  double c = floor(x / h);
  if (c > 4e18) c = 4e18;
  if (c < -4e18) c = -4e18;
  return (int64_t)c;
}

/* the first entry of `cells` (n, sorted) at cell c, or n */
static size_t lower_bound(const Cell* cells, size_t n, const int64_t c[3]) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    Cell key = {{c[0], c[1], c[2]}, -1};
    if (cell_cmp(&cells[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* union every pair of used vertices within tol (cells of side tol; tol = 0: equal positions) */
static cmStatus weld(const cmMesh* m, double tol, const char* used, int* parent) {
  size_t nv = (size_t)m->nvert, n = 0;
  for (size_t i = 0; i < nv; i++)
    parent[i] = (int)i;
  Cell* cells = cm_malloc((nv + 1) * sizeof *cells);
  if (!cells) return CM_ERR_NOMEM;
  for (size_t v = 0; v < nv; v++) {
    if (!used[v]) continue;
    size_t i = n++;
    const double* p = m->vert + 3 * v;
    for (int k = 0; k < 3; k++) {
      if (tol > 0) {
        cells[i].c[k] = cell_of(p[k], tol);
      } else {
        /* the bits of the coordinate as an order-free key (-0 made +0) */
        double x = p[k] + 0.0;
        memcpy(&cells[i].c[k], &x, sizeof x);
      }
    }
    cells[i].v = (int)v;
  }
  cm_sort(cells, n, sizeof *cells, cell_cmp);
  if (tol > 0) {
    /* every pair within tol lies in neighbouring cells */
    for (size_t i = 0; i < n; i++) {
      int v = cells[i].v;
      const double* p = m->vert + 3 * (size_t)v;
      for (int d = 0; d < 27; d++) {
        int64_t c[3] = {cells[i].c[0] + d % 3 - 1, cells[i].c[1] + d / 3 % 3 - 1,
                        cells[i].c[2] + d / 9 - 1};
        for (size_t j = lower_bound(cells, n, c); j < n && !memcmp(cells[j].c, c, sizeof c); j++) {
          int w = cells[j].v;
          if (w <= v) continue;
          double dv[3];
          cm_v3_sub(dv, m->vert + 3 * (size_t)w, p);
          if (cm_v3_norm(dv) <= tol) unite(parent, v, w);
        }
      }
    }
  } else {
    for (size_t i = 1; i < n; i++)
      if (!memcmp(cells[i].c, cells[i - 1].c, sizeof cells[i].c))
        unite(parent, cells[i - 1].v, cells[i].v);
  }
  cm_free(cells);
  return CM_OK;
}

/* ---- 2. faces ----------------------------------------------------------------------------- */

typedef struct FaceKey {
  int s[3]; /* sorted vertices */
  int par;  /* parity of the permutation that sorts the face */
  int f;
} FaceKey;

static int face_key_cmp(const void* x, const void* y) {
  const FaceKey *p = x, *q = y;
  for (int k = 0; k < 3; k++)
    if (p->s[k] != q->s[k]) return p->s[k] < q->s[k] ? -1 : 1;
  return (p->f > q->f) - (p->f < q->f);
}

static FaceKey face_key(const int* t, int f) {
  FaceKey k = {{t[0], t[1], t[2]}, 0, f};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (k.s[j] > k.s[j + 1]) {
        int x = k.s[j];
        k.s[j] = k.s[j + 1];
        k.s[j + 1] = x;
        k.par ^= 1;
      }
  return k;
}

/* the index of the first half-edge of edge (a, b) in the sorted half-edges e, or of where it
 * would be; a and b come back in increasing order */
static size_t edge_first(const cmEdgeRec* e, size_t ne, int* a, int* b) {
  if (*a > *b) {
    int x = *a;
    *a = *b;
    *b = x;
  }
  size_t lo = 0, hi = ne;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e[mid].a < *a || (e[mid].a == *a && e[mid].b < *b))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* the number of faces of edge (a, b) in the sorted half-edges e */
static int edge_faces(const cmEdgeRec* e, size_t ne, int a, int b) {
  size_t lo = edge_first(e, ne, &a, &b);
  int n = 0;
  while (lo < ne && e[lo].a == a && e[lo].b == b) {
    n++;
    lo++;
  }
  return n;
}

/* a face of edge (a, b) in the sorted half-edges e, -1 if none */
static int edge_face_of(const cmEdgeRec* e, size_t ne, int a, int b) {
  size_t lo = edge_first(e, ne, &a, &b);
  return lo < ne && e[lo].a == a && e[lo].b == b ? e[lo].face : -1;
}

/* half-edges of the faces `face` (nf x 3), sorted */
static cmEdgeRec* half_edges(const int* face, int nf) {
  cmEdgeRec* e = cm_malloc((size_t)(3 * (size_t)nf + 1) * sizeof *e);
  if (!e) return NULL;
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < 3; k++) {
      int a = face[3 * f + k], b = face[3 * f + (k + 1) % 3];
      cmEdgeRec* r = &e[3 * f + k];
      r->a = a < b ? a : b;
      r->b = a < b ? b : a;
      r->face = f;
      r->dir = a < b;
    }
  cm_edge_sort(e, 3 * (size_t)nf);
  return e;
}

/* drop collapsed, zero-area and repeated faces of `face` (nf x 3) in place; the new count */
static int clean_faces(const cmMesh* m, double diag, int* face, int nf, cmMeshRepairReport* r,
                       cmStatus* st) {
  /* collapsed and zero-area faces */
  int n = 0;
  for (int f = 0; f < nf; f++) {
    const int* t = face + 3 * f;
    int bad = t[0] == t[1] || t[1] == t[2] || t[2] == t[0];
    if (!bad) {
      double e1[3], e2[3], c[3];
      cm_v3_sub(e1, m->vert + 3 * (size_t)t[1], m->vert + 3 * (size_t)t[0]);
      cm_v3_sub(e2, m->vert + 3 * (size_t)t[2], m->vert + 3 * (size_t)t[0]);
      cm_v3_cross(c, e1, e2);
      bad = 0.5 * cm_v3_norm(c) <= DEGENERATE_REL * diag * diag;
    }
    if (bad) {
      r->degenerate_face++;
      continue;
    }
    memmove(face + 3 * n, t, 3 * sizeof *t);
    n++;
  }
  nf = n;
  /* copies: keep the first of each group */
  FaceKey* k = cm_malloc((size_t)(nf + 1) * sizeof *k);
  char* keep = cm_malloc((size_t)nf + 1);
  char* mixed = cm_calloc((size_t)nf + 1, 1);
  if (!k || !keep || !mixed) {
    cm_free(k);
    cm_free(keep);
    cm_free(mixed);
    *st = CM_ERR_NOMEM;
    return nf;
  }
  for (int f = 0; f < nf; f++)
    k[f] = face_key(face + 3 * f, f);
  cm_sort(k, (size_t)nf, sizeof *k, face_key_cmp);
  for (int i = 0, j; i < nf; i = j) {
    keep[k[i].f] = 1;
    for (j = i + 1; j < nf && !memcmp(k[j].s, k[i].s, sizeof k[i].s); j++) {
      keep[k[j].f] = 0;
      if (k[j].par != k[i].par) mixed[k[i].f] = 1;
    }
  }
  /* the kept faces, with the faces listed in both orientations marked as a possible wall */
  n = 0;
  char* wall = cm_calloc((size_t)nf + 1, 1);
  int* rest = cm_malloc((3 * (size_t)nf + 1) * sizeof *rest);
  if (!wall || !rest) {
    *st = CM_ERR_NOMEM;
    goto out;
  }
  int nwall = 0, nrest = 0;
  for (int f = 0; f < nf; f++) {
    if (!keep[f]) continue;
    wall[n] = mixed[f];
    nwall += mixed[f];
    if (!mixed[f]) memcpy(rest + 3 * nrest++, face + 3 * f, 3 * sizeof(int));
    memmove(face + 3 * n++, face + 3 * f, 3 * sizeof(int));
  }
  r->duplicate_face += nf - n;
  /* an inner wall, listed once by each closed part it separates: without it every edge of it
   * has 2 faces (its rim) or none (inside it); the wall is then dropped altogether */
  int drop = 0;
  if (nwall) {
    cmEdgeRec* e = half_edges(rest, nrest);
    if (!e) {
      *st = CM_ERR_NOMEM;
      goto out;
    }
    int ok = 1, rim = 0;
    for (int f = 0; f < n; f++)
      for (int c = 0; wall[f] && c < 3; c++) {
        int cnt = edge_faces(e, 3 * (size_t)nrest, face[3 * f + c], face[3 * f + (c + 1) % 3]);
        ok &= cnt == 0 || cnt == 2;
        rim |= cnt == 2;
      }
    cm_free(e);
    drop = ok && rim;
  }
  if (drop) {
    memcpy(face, rest, 3 * (size_t)nrest * sizeof(int));
    r->duplicate_face += n - nrest;
    n = nrest;
  }
out:
  cm_free(wall);
  cm_free(rest);
  cm_free(k);
  cm_free(keep);
  cm_free(mixed);
  return n;
}

/* ---- 2b. holes of three edges ------------------------------------------------------------ */

typedef struct Next {
  int from, to;
} Next;

/* the boundary edge leaving x, or -1 when none or several */
static int next_of(const Next* nx, size_t n, int x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (nx[mid].from < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo >= n || nx[lo].from != x) return -1;
  if (lo + 1 < n && nx[lo + 1].from == x) return -1;
  return nx[lo].to;
}

/* The fill of one boundary loop L = (l_0 -> l_1 -> ... -> l_{k-1} -> l_0), k >= 4, as the faces
 * traverse it: the fill polygon is the loop reversed, so that its triangles traverse each loop
 * edge the other way. Planarity: the best-fit plane through the centroid c has as normal the
 * eigenvector of the smallest eigenvalue of the scatter matrix sum (l_i - c)(l_i - c)^T; the
 * loop is planar when every vertex lies within tol = 1e-6 (loop bounding-box diagonal) + 2^-22
 * max |coordinate| of the plane (the second term: a few float32 roundings, the precision of
 * most mesh files). The normal is turned along the polygon's Newell normal (the sum of
 * l_i x l_{i+1} over the fill polygon, twice its area vector); a loop whose Newell normal is
 * zero (a figure of eight) is left. The polygon is projected on the plane (axes u, v with
 * u x v = n) and ear-clipped: repeatedly, a vertex whose corner turns left (2D cross product
 * > 0) and whose triangle with its two neighbours contains no other polygon vertex (boundary
 * included) is cut off. A fan is what ear clipping gives on a convex polygon; collinear
 * vertices (a subdivided side) are never ears themselves but go with their neighbours'. A
 * polygon with no ear left (self-overlapping) is left open. The new triangles must not reuse an
 * existing edge of the mesh other than the loop's own (a diagonal that already exists would
 * get three faces), and no face along the loop may lie in the plane on the fill's side (the
 * loop of a flat open patch, a lone square say: its fill would be the patch again, reversed,
 * a closed shell of no volume). */
#define HOLE_MAX_EDGES 1024 /* longest loop filled: ear clipping is O(k^2) to O(k^3) */
#define HOLE_PLANE_REL 1e-6
#define HOLE_PLANE_ULP (1.0 / 4194304.0) /* 2^-22 */
#define DONE SIZE_MAX

/* 1 if p lies in the closed 2D triangle (a, b, c) of positive orientation */
static int in_triangle(const double* p, const double* a, const double* b, const double* c) {
  double d1 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  double d2 = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0]);
  double d3 = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0]);
  return d1 >= 0 && d2 >= 0 && d3 >= 0;
}

/* Triangulate the fill polygon poly[0..k) (vertex indices): the triangles into tri (k - 2 of
 * them), returning 1; 0 when the loop is not planar (*dev: its largest distance from the plane,
 * *tol the tolerance) or cannot be ear-clipped (*dev = -1). work: 3 k doubles and k ints. */
static int fill_polygon(const cmMesh* m, const int* face, const cmEdgeRec* e, size_t ne,
                        const int* poly, int k, int* tri, double* work, int* idx, double* dev,
                        double* tol) {
  double c[3] = {0, 0, 0}, lo[3], hi[3], amax = 0;
  *dev = -1;
  *tol = 0;
  for (int j = 0; j < 3; j++)
    lo[j] = hi[j] = m->vert[3 * (size_t)poly[0] + (size_t)j];
  for (int i = 0; i < k; i++)
    for (int j = 0; j < 3; j++) {
      double x = m->vert[3 * (size_t)poly[i] + (size_t)j];
      c[j] += x / k;
      lo[j] = fmin(lo[j], x);
      hi[j] = fmax(hi[j], x);
      amax = fmax(amax, fabs(x));
    }
  double S[9] = {0}, nw[3] = {0, 0, 0};
  for (int i = 0; i < k; i++) {
    double d[3], g[3], x[3];
    cm_v3_sub(d, m->vert + 3 * (size_t)poly[i], c);
    cm_v3_sub(g, m->vert + 3 * (size_t)poly[(i + 1) % k], c);
    for (int r = 0; r < 3; r++)
      for (int q = 0; q < 3; q++)
        S[3 * r + q] += d[r] * d[q];
    cm_v3_cross(x, d, g);
    cm_v3_add(nw, nw, x);
  }
  double ev[3], V[9], n[3];
  cm_sym_eig3(S, ev, V);
  n[0] = V[0];
  n[1] = V[3];
  n[2] = V[6];
  double ext[3];
  cm_v3_sub(ext, hi, lo);
  *tol = HOLE_PLANE_REL * cm_v3_norm(ext) + HOLE_PLANE_ULP * amax;
  double worst = 0;
  for (int i = 0; i < k; i++) {
    double d[3];
    cm_v3_sub(d, m->vert + 3 * (size_t)poly[i], c);
    worst = fmax(worst, fabs(cm_v3_dot(d, n)));
  }
  *dev = worst;
  if (!(worst <= *tol)) return 0;
  *dev = -1;
  double nwn = cm_v3_dot(nw, n);
  if (!(fabs(nwn) > 0.5 * cm_v3_norm(nw)) || !(cm_v3_norm(nw) > 0)) return 0;
  if (nwn < 0) cm_v3_scale(n, n, -1);
  /* in-plane axes u, v with u x v = n */
  double u[3], v[3], t[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.6) t[0] = 0, t[1] = 1;
  cm_v3_cross(u, t, n);
  cm_v3_scale(u, u, 1 / cm_v3_norm(u));
  cm_v3_cross(v, n, u);
  for (int i = 0; i < k; i++) {
    double d[3];
    cm_v3_sub(d, m->vert + 3 * (size_t)poly[i], c);
    work[2 * i] = cm_v3_dot(d, u);
    work[2 * i + 1] = cm_v3_dot(d, v);
    idx[i] = i;
  }
  /* the face along each polygon edge p -> q must not lie in the plane on the fill's side (left
   * of p -> q): then the loop bounds a flat open patch, and the fill would double it */
  for (int i = 0; i < k; i++) {
    int p = poly[i], q = poly[(i + 1) % k];
    int f = edge_face_of(e, ne, p, q);
    if (f < 0) return 0;
    int o = face[3 * f];
    if (o == p || o == q) o = face[3 * f + 1];
    if (o == p || o == q) o = face[3 * f + 2];
    double d[3];
    cm_v3_sub(d, m->vert + 3 * (size_t)o, c);
    if (fabs(cm_v3_dot(d, n)) > *tol) continue;
    double ox = cm_v3_dot(d, u), oy = cm_v3_dot(d, v);
    const double *a = work + 2 * i, *b = work + 2 * ((i + 1) % k);
    if ((b[0] - a[0]) * (oy - a[1]) - (b[1] - a[1]) * (ox - a[0]) > 0) return 0;
  }
  /* ear clipping on the remaining vertices idx[0..left) */
  int left = k, nt = 0, guard = 0;
  while (left > 3) {
    int cut = -1;
    for (int i = 0; i < left && cut < 0; i++) {
      const double* a = work + 2 * idx[(i + left - 1) % left];
      const double* b = work + 2 * idx[i];
      const double* cc = work + 2 * idx[(i + 1) % left];
      double cr = (b[0] - a[0]) * (cc[1] - b[1]) - (b[1] - a[1]) * (cc[0] - b[0]);
      if (!(cr > 0)) continue;
      int inside = 0;
      for (int j = 0; j < left && !inside; j++) {
        if (j == i || j == (i + left - 1) % left || j == (i + 1) % left) continue;
        const double* p = work + 2 * idx[j];
        /* a vertex at a corner's position (a pinched loop) counts as inside */
        inside = in_triangle(p, a, b, cc);
      }
      if (!inside) cut = i;
    }
    if (cut < 0 || ++guard > k) return 0;
    tri[3 * nt] = poly[idx[(cut + left - 1) % left]];
    tri[3 * nt + 1] = poly[idx[cut]];
    tri[3 * nt + 2] = poly[idx[(cut + 1) % left]];
    nt++;
    memmove(idx + cut, idx + cut + 1, (size_t)(left - cut - 1) * sizeof *idx);
    left--;
  }
  tri[3 * nt] = poly[idx[0]];
  tri[3 * nt + 1] = poly[idx[1]];
  tri[3 * nt + 2] = poly[idx[2]];
  return 1;
}

/* Close the holes: each loop of boundary edges x -> y -> ... -> x (as its faces traverse them,
 * each vertex leaving the boundary once), walked from its smallest vertex. A loop of three
 * edges gets the face (x, z, y), which traverses them the other way, if its area is not zero; a
 * longer planar one (up to HOLE_MAX_EDGES) the ear-clipped fill polygon (fill_polygon), if no
 * triangle has zero area and no diagonal is an edge of the mesh already; others are left and
 * counted. *face grows; returns the new face count. */
static int fill_holes(const cmMesh* m, double diag, int** face, int n, cmMeshRepairReport* r,
                      cmStatus* st) {
  cmEdgeRec* e = half_edges(*face, n);
  Next* nx = cm_malloc((3 * (size_t)n + 1) * sizeof *nx);
  int *add = NULL, *loop = NULL, *idx = NULL, *tri = NULL;
  size_t* seen = cm_calloc((size_t)m->nvert + 1, sizeof *seen); /* walk number, or DONE */
  double* work = NULL;
  size_t nadd = 0, nb = 0, ne = 3 * (size_t)n;
  if (!e || !nx || !seen) goto nomem;
  for (size_t i = 0; i < ne; i++) {
    if ((i > 0 && e[i - 1].a == e[i].a && e[i - 1].b == e[i].b) ||
        (i + 1 < ne && e[i + 1].a == e[i].a && e[i + 1].b == e[i].b))
      continue;
    nx[nb].from = e[i].dir ? e[i].a : e[i].b;
    nx[nb].to = e[i].dir ? e[i].b : e[i].a;
    nb++;
  }
  cm_sort(nx, nb, sizeof *nx, cm_int2_cmp);
  /* room for every added face: a loop of k edges gets k - 2 triangles */
  add = cm_malloc((3 * nb + 1) * sizeof *add);
  loop = cm_malloc((HOLE_MAX_EDGES + 1) * sizeof *loop);
  idx = cm_malloc((HOLE_MAX_EDGES + 1) * sizeof *idx);
  tri = cm_malloc((3 * HOLE_MAX_EDGES + 1) * sizeof *tri);
  work = cm_malloc((2 * HOLE_MAX_EDGES + 1) * sizeof *work);
  if (!add || !loop || !idx || !tri || !work) goto nomem;
  for (size_t i = 0; i < nb; i++) {
    int x = nx[i].from;
    if (seen[x] == DONE || next_of(nx, nb, x) != nx[i].to) continue;
    /* walk the loop from x; it must come back to x through vertices leaving it once */
    size_t walk = i + 1;
    int k = 0, y = x, closed = 0;
    for (;;) {
      if (k < HOLE_MAX_EDGES + 1) loop[k] = y;
      k += k <= HOLE_MAX_EDGES;
      seen[y] = walk;
      y = next_of(nx, nb, y);
      if (y < 0) break;
      if (y == x) {
        closed = 1;
        break;
      }
      if (seen[y] == walk || seen[y] == DONE) break;
    }
    if (!closed) continue;
    /* a closed loop is handled once: its vertices are done */
    y = x;
    do {
      seen[y] = DONE;
      y = next_of(nx, nb, y);
    } while (y != x);
    if (k > HOLE_MAX_EDGES) {
      r->long_hole++;
      continue;
    }
    /* the fill polygon: the loop reversed */
    int poly[3];
    int ntri = k - 2;
    const int* t;
    if (k == 3) {
      poly[0] = loop[0];
      poly[1] = loop[2];
      poly[2] = loop[1];
      t = poly;
    } else {
      for (int a = 0, b = k - 1; a < b; a++, b--) {
        int sw = loop[a];
        loop[a] = loop[b];
        loop[b] = sw;
      }
      double dev, tol;
      if (!fill_polygon(m, *face, e, ne, loop, k, tri, work, idx, &dev, &tol)) {
        if (dev >= 0) {
          if (!r->nonplanar_hole++) {
            r->nonplanar_first_len = k;
            r->nonplanar_first_dev = dev;
            r->nonplanar_first_tol = tol;
          }
        } else {
          r->unfilled_hole++;
        }
        continue;
      }
      t = tri;
    }
    /* no zero-area triangle, no diagonal that is already an edge (nor used twice here) */
    int ok = 1;
    for (int j = 0; j < ntri && ok; j++) {
      double e1[3], e2[3], cr[3];
      const int* f = t + 3 * j;
      cm_v3_sub(e1, m->vert + 3 * (size_t)f[1], m->vert + 3 * (size_t)f[0]);
      cm_v3_sub(e2, m->vert + 3 * (size_t)f[2], m->vert + 3 * (size_t)f[0]);
      cm_v3_cross(cr, e1, e2);
      ok = 0.5 * cm_v3_norm(cr) > DEGENERATE_REL * diag * diag;
      for (int q = 0; q < 3 && ok && k > 3; q++) {
        int a = f[q], b = f[(q + 1) % 3];
        int on_loop = 0;
        for (int l = 0; l < k && !on_loop; l++)
          on_loop =
              (loop[l] == a && loop[(l + 1) % k] == b) || (loop[l] == b && loop[(l + 1) % k] == a);
        if (!on_loop) ok = edge_faces(e, ne, a, b) == 0;
      }
    }
    if (!ok) {
      r->unfilled_hole++;
      continue;
    }
    memcpy(add + 3 * nadd, t, 3 * (size_t)ntri * sizeof *add);
    nadd += (size_t)ntri;
    if (k == 3) {
      r->filled_hole++;
    } else {
      r->filled_planar_hole++;
      r->filled_planar_face += ntri;
      if (k > r->filled_planar_max) r->filled_planar_max = k;
    }
  }
  if (nadd) {
    int* f = cm_realloc(*face, (3 * ((size_t)n + nadd) + 1) * sizeof *f);
    if (!f) goto nomem;
    memcpy(f + 3 * (size_t)n, add, 3 * nadd * sizeof *f);
    *face = f;
  }
  cm_free(e);
  cm_free(nx);
  cm_free(add);
  cm_free(loop);
  cm_free(idx);
  cm_free(tri);
  cm_free(work);
  cm_free(seen);
  return n + (int)nadd;
nomem:
  cm_free(e);
  cm_free(nx);
  cm_free(add);
  cm_free(loop);
  cm_free(idx);
  cm_free(tri);
  cm_free(work);
  cm_free(seen);
  *st = CM_ERR_NOMEM;
  return n;
}

/* ---- 3. orientation ----------------------------------------------------------------------- */

static void flip_face(int* t) {
  int x = t[1];
  t[1] = t[2];
  t[2] = x;
}

/* the solid angle of triangle (a, b, c) seen from p (Van Oosterom and Strackee) */
static double solid_angle(const double* p, const double* a, const double* b, const double* c) {
  double u[3], v[3], w[3], x[3];
  cm_v3_sub(u, a, p);
  cm_v3_sub(v, b, p);
  cm_v3_sub(w, c, p);
  double lu = cm_v3_norm(u), lv = cm_v3_norm(v), lw = cm_v3_norm(w);
  cm_v3_cross(x, v, w);
  double num = cm_v3_dot(u, x);
  double den = lu * lv * lw + cm_v3_dot(u, v) * lw + cm_v3_dot(v, w) * lu + cm_v3_dot(w, u) * lv;
  return 2 * atan2(num, den);
}

static cmStatus orient(const cmMesh* m, int* face, int nf, cmMeshRepairReport* r) {
  cmEdgeRec* e = half_edges(face, nf);
  int* nbr = cm_malloc((3 * (size_t)nf + 1) * sizeof *nbr); /* the face across, or -1 */
  char* rel = cm_malloc(3 * (size_t)nf + 1);                /* 1: its parity must differ */
  int* par = cm_malloc(((size_t)nf + 1) * sizeof *par);
  int* shell = cm_malloc(((size_t)nf + 1) * sizeof *shell);
  int* queue = cm_malloc(((size_t)nf + 1) * sizeof *queue);
  int* first = cm_malloc(((size_t)nf + 1) * sizeof *first); /* first face of each shell */
  double* vol = cm_calloc((size_t)nf + 1, sizeof *vol);
  cmStatus st = CM_OK;
  if (!e || !nbr || !rel || !par || !shell || !queue || !first || !vol) {
    st = CM_ERR_NOMEM;
    goto done;
  }
  /* face adjacency across edges with exactly two faces */
  for (size_t i = 0; i < 3 * (size_t)nf; i++)
    nbr[i] = -1;
  size_t ne = 3 * (size_t)nf;
  for (size_t i = 0, j; i < ne; i = j) {
    for (j = i + 1; j < ne && e[j].a == e[i].a && e[j].b == e[i].b; j++) {
    }
    if (j - i != 2) continue;
    for (int s = 0; s < 2; s++) {
      const cmEdgeRec *h = &e[i + (size_t)s], *o = &e[i + 1 - (size_t)s];
      int k = 0;
      while (k < 3 && !(face[3 * h->face + k] == (h->dir ? h->a : h->b) &&
                        face[3 * h->face + (k + 1) % 3] == (h->dir ? h->b : h->a)))
        k++;
      if (k == 3) continue;
      nbr[3 * h->face + k] = o->face;
      rel[3 * h->face + k] = (char)(h->dir == o->dir);
    }
  }
  /* parities per shell, breadth first */
  int nshell = 0;
  for (int f = 0; f < nf; f++)
    par[f] = -1;
  for (int f0 = 0; f0 < nf; f0++) {
    if (par[f0] >= 0) continue;
    int head = 0, tail = 0, ones = 0;
    par[f0] = 0;
    queue[tail++] = f0;
    first[nshell] = f0;
    while (head < tail) {
      int f = queue[head++];
      shell[f] = nshell;
      ones += par[f];
      for (int k = 0; k < 3; k++) {
        int g = nbr[3 * f + k];
        if (g < 0 || par[g] >= 0) continue;
        par[g] = par[f] ^ rel[3 * f + k];
        queue[tail++] = g;
      }
    }
    /* flip the minority (ties keep the first face's parity) */
    int flip_par = 2 * ones > tail ? 0 : 1;
    for (int i = 0; i < tail; i++)
      if (par[queue[i]] == flip_par) {
        flip_face(face + 3 * queue[i]);
        r->flipped_face++;
      }
    nshell++;
  }
  /* signed volume per shell */
  double ref[3];
  cm_mesh_ref_point(m, ref);
  for (int f = 0; f < nf; f++) {
    double a[3], b[3], c[3], x[3];
    cm_v3_sub(a, m->vert + 3 * (size_t)face[3 * f], ref);
    cm_v3_sub(b, m->vert + 3 * (size_t)face[3 * f + 1], ref);
    cm_v3_sub(c, m->vert + 3 * (size_t)face[3 * f + 2], ref);
    cm_v3_cross(x, b, c);
    vol[shell[f]] += cm_v3_dot(a, x) / 6;
  }
  int nneg = 0;
  for (int s = 0; s < nshell; s++)
    nneg += vol[s] < 0;
  if (nneg == 0 || nneg > MAX_NEG_SHELLS) goto done;
  /* reverse each negative shell that is not a cavity of another */
  for (int s = 0; s < nshell; s++) {
    if (!(vol[s] < 0)) continue;
    const int* t = face + 3 * first[s];
    double p[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++)
        p[i] += m->vert[3 * (size_t)t[k] + i] / 3;
    double w = 0;
    for (int f = 0; f < nf; f++) {
      if (shell[f] == s || vol[shell[f]] < 0) continue;
      const int* u = face + 3 * f;
      w += solid_angle(p, m->vert + 3 * (size_t)u[0], m->vert + 3 * (size_t)u[1],
                       m->vert + 3 * (size_t)u[2]);
    }
    if (w / (4 * CM_PI) > 0.5) continue;
    r->flipped_shell++;
    for (int f = 0; f < nf; f++)
      if (shell[f] == s) {
        flip_face(face + 3 * f);
        r->flipped_shell_face++;
      }
  }
done:
  cm_free(e);
  cm_free(nbr);
  cm_free(rel);
  cm_free(par);
  cm_free(shell);
  cm_free(queue);
  cm_free(first);
  cm_free(vol);
  return st;
}

/* ---- the repair --------------------------------------------------------------------------- */

static void free_derived(cmMesh* m) {
  cm_free(m->face_normal);
  cm_free(m->face_area);
  cm_free(m->vert_areavec);
  m->face_normal = m->face_area = m->vert_areavec = NULL;
}

cmStatus cm_mesh_repair(cmMesh* mesh, double weld_tol, const char* name, cmMeshRepairReport* out,
                        char* err, size_t errsz) {
  return cm_mesh_repair_map(mesh, weld_tol, name, out, NULL, err, errsz);
}

cmStatus cm_mesh_repair_map(cmMesh* mesh, double weld_tol, const char* name,
                            cmMeshRepairReport* out, int* source, char* err, size_t errsz) {
  CM_ASSERT(mesh);
  /* unless the mesh changes, every vertex is its own source */
  for (int v = 0; source && v < mesh->nvert; v++)
    source[v] = v;
  cmMeshRepairReport r;
  memset(&r, 0, sizeof r);
  if (err && errsz) err[0] = 0; /* CM_OK leaves it empty */
  const char* nm = name ? name : "mesh";
  if (out) *out = r;
  /* what the repair cannot fix: non-finite coordinates, indices out of range */
  cmMeshReport rep;
  cmStatus st = cm_mesh_check(mesh, name, &rep, err, errsz);
  if (rep.nonfinite_vert || !cm_mesh_indices_valid(mesh)) {
    r.volume = rep.volume;
    if (out) *out = r;
    return st;
  }
  /* a mesh that passes is left as it is (welding two touching parts would join them) */
  if (st == CM_OK) {
    r.volume = rep.volume;
    if (out) *out = r;
    return st;
  }
  cmMeshDiagnosis dg;
  st = cm_mesh_diagnose(mesh, 0, &dg);
  if (st != CM_OK) return cm_error(err, errsz, st, "%s: out of memory repairing the mesh", nm);
  r.weld_tol = weld_tol >= 0 ? weld_tol : (dg.weld_tol > 0 ? dg.weld_tol : 0);

  size_t nv = (size_t)mesh->nvert, nf = (size_t)mesh->nface;
  int* parent = cm_malloc((nv + 1) * sizeof *parent);
  int* size = cm_calloc(nv + 1, sizeof *size);
  int* face = cm_malloc((3 * nf + 1) * sizeof *face);
  int* newidx = cm_malloc((nv + 1) * sizeof *newidx);
  char* used = cm_calloc(nv + 1, 1);
  double* vert = NULL;
  if (!parent || !size || !face || !newidx || !used) goto nomem;
  /* 1. weld the vertices that faces use */
  for (size_t i = 0; i < 3 * nf; i++)
    used[mesh->face[i]] = 1;
  if (weld(mesh, r.weld_tol, used, parent) != CM_OK) goto nomem;
  for (size_t v = 0; v < nv; v++)
    size[find(parent, (int)v)]++;
  for (size_t v = 0; v < nv; v++)
    if (size[v] >= 2) {
      r.welded_vert += size[v];
      r.weld_group++;
    }
  for (size_t i = 0; i < 3 * nf; i++)
    face[i] = find(parent, mesh->face[i]);
  /* 2. faces */
  st = CM_OK;
  int n = clean_faces(mesh, dg.diag, face, (int)nf, &r, &st);
  if (st != CM_OK) goto nomem;
  n = fill_holes(mesh, dg.diag, &face, n, &r, &st);
  if (st != CM_OK) goto nomem;
  /* 3. orientation */
  if (orient(mesh, face, n, &r) != CM_OK) goto nomem;
  /* 4. vertices used by a face, in their order */
  for (size_t v = 0; v < nv; v++)
    newidx[v] = -1;
  for (int i = 0; i < 3 * n; i++)
    newidx[face[i]] = 0;
  int m = 0;
  for (size_t v = 0; v < nv; v++)
    if (newidx[v] == 0) newidx[v] = m++;
  r.unused_vert = (int)nv - m - (r.welded_vert - r.weld_group);
  vert = cm_malloc((3 * (size_t)m + 1) * sizeof *vert);
  if (!vert) goto nomem;
  for (size_t v = 0; v < nv; v++)
    if (newidx[v] >= 0) memcpy(vert + 3 * (size_t)newidx[v], mesh->vert + 3 * v, 3 * sizeof *vert);
  for (int i = 0; i < 3 * n; i++)
    face[i] = newidx[face[i]];
  r.changes = (r.weld_group > 0) + (r.unused_vert > 0) + (r.duplicate_face > 0) +
              (r.degenerate_face > 0) + (r.filled_hole > 0) + (r.filled_planar_hole > 0) +
              (r.flipped_face > 0) + (r.flipped_shell > 0);
  /* the mesh adopts the new arrays when anything changed */
  if (r.changes) {
    /* a surviving vertex is the smallest index of its weld group: its own index */
    for (size_t v = 0; source && v < nv; v++)
      if (newidx[v] >= 0) source[newidx[v]] = (int)v;
    free_derived(mesh);
    cm_free(mesh->vert);
    cm_free(mesh->face);
    mesh->vert = vert;
    mesh->face = face;
    mesh->nvert = m;
    mesh->nface = n;
    vert = NULL;
    face = NULL;
  }
  cm_free(parent);
  cm_free(size);
  cm_free(face);
  cm_free(newidx);
  cm_free(used);
  cm_free(vert);
  if (err && errsz) err[0] = 0; /* (the first check's message, of the mesh before the repair) */
  st = cm_mesh_check(mesh, name, &rep, err, errsz);
  r.volume = rep.volume;
  if (out) *out = r;
  return st;
nomem:
  cm_free(parent);
  cm_free(size);
  cm_free(face);
  cm_free(newidx);
  cm_free(used);
  cm_free(vert);
  return cm_error(err, errsz, CM_ERR_NOMEM, "%s: out of memory repairing the mesh", nm);
}

/* append "; " and a formatted part */
static void part(char* buf, size_t sz, size_t* at, const char* fmt, ...) {
  if (*at >= sz) return;
  if (*at > 0) *at += (size_t)snprintf(buf + *at, sz - *at, "; ");
  if (*at >= sz) return;
  va_list ap;
  va_start(ap, fmt);
  *at += (size_t)vsnprintf(buf + *at, sz - *at, fmt, ap);
  va_end(ap);
}

#define S(n) ((n) == 1 ? "" : "s")

int cm_mesh_repair_text(const cmMeshRepairReport* r, char* buf, size_t bufsz) {
  CM_ASSERT(r);
  if (!buf || bufsz == 0) return r->changes; /* (core.h: a buffer may be NULL/0) */
  size_t at = 0;
  buf[0] = 0;
  if (r->weld_group)
    part(buf, bufsz, &at, "welded %d vertices into %d (tolerance %.3g m)", r->welded_vert,
         r->weld_group, r->weld_tol);
  if (r->unused_vert)
    part(buf, bufsz, &at, "dropped %d unused %s", r->unused_vert,
         r->unused_vert == 1 ? "vertex" : "vertices");
  if (r->duplicate_face)
    part(buf, bufsz, &at, "dropped %d duplicate face%s", r->duplicate_face, S(r->duplicate_face));
  if (r->degenerate_face)
    part(buf, bufsz, &at, "dropped %d degenerate face%s (zero area)", r->degenerate_face,
         S(r->degenerate_face));
  if (r->filled_hole)
    part(buf, bufsz, &at, "filled %d hole%s of 3 edges with a triangle", r->filled_hole,
         S(r->filled_hole));
  if (r->filled_planar_hole)
    part(buf, bufsz, &at,
         "filled %d planar hole%s of 4 to %d edges with %d triangles (ear clipping)",
         r->filled_planar_hole, S(r->filled_planar_hole), r->filled_planar_max,
         r->filled_planar_face);
  if (r->flipped_face)
    part(buf, bufsz, &at, "flipped %d face%s", r->flipped_face, S(r->flipped_face));
  if (r->flipped_shell)
    part(buf, bufsz, &at, "reversed %d shell%s of negative volume (%d faces)", r->flipped_shell,
         S(r->flipped_shell), r->flipped_shell_face);
  if (!r->changes) snprintf(buf, bufsz, "nothing to repair");
  /* what was left, and why */
  if (r->nonplanar_hole || r->unfilled_hole || r->long_hole) at = strlen(buf);
  if (r->nonplanar_hole)
    part(buf, bufsz, &at,
         "left %d hole%s open: not planar (the first, of %d edges, has a vertex %.3g m from its "
         "best-fit plane; tolerance %.3g m): close it in a mesh editor",
         r->nonplanar_hole, S(r->nonplanar_hole), r->nonplanar_first_len, r->nonplanar_first_dev,
         r->nonplanar_first_tol);
  if (r->unfilled_hole)
    part(buf, bufsz, &at,
         "left %d planar hole%s open: its outline overlaps itself or its fill would reuse an "
         "edge or make a zero-area triangle",
         r->unfilled_hole, S(r->unfilled_hole));
  if (r->long_hole)
    part(buf, bufsz, &at, "left %d hole%s of more than %d edges open", r->long_hole,
         S(r->long_hole), HOLE_MAX_EDGES);
  return r->changes;
}
