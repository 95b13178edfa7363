/* Primitive meshes: icospheres and subdivided boxes, closed and oriented outward.
 *
 * Icosphere. The 12 vertices of the regular icosahedron are the cyclic permutations of
 * (0, +-1, +-phi), phi = (1 + sqrt 5) / 2, projected on the unit sphere. Each refinement splits
 * every triangle (a, b, c) into four, (a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca), where
 * ab is the midpoint of edge (a, b) projected on the sphere. Midpoints are shared between the two
 * faces of an edge through an edge map (the sorted list of (min, max) keys; the midpoint of the
 * k-th edge is vertex nvert + k), so the mesh stays closed. Counts: F_r = 20 4^r, E_r = 30 4^r,
 * V_r = V_{r-1} + E_{r-1} = 10 4^r + 2. Faces are oriented so that (b - a) x (c - a) . a > 0.
 *
 * Box. With d divisions the surface lattice points (i, j, k) in 0..d^3 having some coordinate
 * 0 or d number 2 (d+1)^2 (bottom and top layers) + (d-1) 4d (rings of the middle layers)
 * = 6 d^2 + 2. They are numbered in closed form by layer k: bottom i (d+1) + j, each middle
 * ring by its position along the perimeter, top like the bottom; every face grid addresses its
 * corners through that numbering, so edges and corners are shared. Each face is a grid of d x d
 * squares in directions (u, v) with u x v the outward normal, each square split into the
 * triangles (p00, p10, p11) and (p00, p11, p01): 12 d^2 faces, 18 d^2 edges (Euler). */
#include <stdint.h>
#include <stdlib.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"

/* edge keys (min << 32 | max) for the icosphere midpoint map, compared by cm_u64_cmp */
static uint64_t edge_key(int a, int b) {
  uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
  return lo << 32 | hi;
}

/* index of the midpoint vertex of edge (a, b): nvert + rank of its key */
static int midpoint_of(const uint64_t* keys, size_t nkey, int nvert, int a, int b) {
  uint64_t k = edge_key(a, b);
  const uint64_t* p = bsearch(&k, keys, nkey, sizeof(uint64_t), cm_u64_cmp);
  CM_ASSERT(p);
  return nvert + (int)(p - keys);
}

/* one refinement of a unit icosphere: a new mesh, NULL on no memory */
static cmMesh* ico_refine(const cmMesh* m) {
  size_t nkey = 0, nf = (size_t)m->nface;
  uint64_t* keys = cm_malloc(nf * 3 * sizeof(uint64_t));
  if (!keys) return NULL;

  /* the edge map: sorted unique keys */
  for (size_t f = 0; f < nf; f++)
    for (int k = 0; k < 3; k++)
      keys[nkey++] = edge_key(m->face[3 * f + k], m->face[3 * f + (k + 1) % 3]);
  cm_sort(keys, nkey, sizeof(uint64_t), cm_u64_cmp);
  size_t ne = 0;
  for (size_t i = 0; i < nkey; i++)
    if (i == 0 || keys[i] != keys[ne - 1]) keys[ne++] = keys[i];

  cmMesh* r = cm_mesh_new(m->nvert + (int)ne, (int)(4 * nf));
  if (!r) {
    cm_free(keys);
    return NULL;
  }

  /* old vertices, then projected edge midpoints */
  for (size_t i = 0; i < 3 * (size_t)m->nvert; i++)
    r->vert[i] = m->vert[i];
  for (size_t e = 0; e < ne; e++) {
    int a = (int)(keys[e] >> 32), b = (int)(keys[e] & 0xffffffffu);
    double* p = r->vert + 3 * ((size_t)m->nvert + e);
    cm_v3_add(p, m->vert + 3 * (size_t)a, m->vert + 3 * (size_t)b);
    cm_v3_normalize(p);
  }

  /* four children per face, same orientation as the parent */
  for (size_t f = 0; f < nf; f++) {
    int a = m->face[3 * f], b = m->face[3 * f + 1], c = m->face[3 * f + 2];
    int ab = midpoint_of(keys, ne, m->nvert, a, b);
    int bc = midpoint_of(keys, ne, m->nvert, b, c);
    int ca = midpoint_of(keys, ne, m->nvert, c, a);
    int t[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
    for (int k = 0; k < 12; k++)
      r->face[12 * f + (size_t)k] = t[k];
  }
  cm_free(keys);
  return r;
}

/* the unit icosahedron, faces oriented outward */
static cmMesh* icosahedron(void) {
  static const int tri[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  double t = (1.0 + sqrt(5.0)) / 2.0;
  double v[12][3] = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                     {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
  cmMesh* m = cm_mesh_new(12, 20);
  if (!m) return NULL;
  for (int i = 0; i < 12; i++) {
    cm_v3_normalize(v[i]);
    cm_v3_copy(m->vert + 3 * i, v[i]);
  }
  for (int f = 0; f < 20; f++) {
    double e1[3], e2[3], c[3];
    const double *a = v[tri[f][0]], *b = v[tri[f][1]], *cc = v[tri[f][2]];
    cm_v3_sub(e1, b, a);
    cm_v3_sub(e2, cc, a);
    cm_v3_cross(c, e1, e2);
    /* swap to outward if the table's winding is inward */
    int flip = cm_v3_dot(c, a) < 0;
    m->face[3 * f] = tri[f][0];
    m->face[3 * f + 1] = tri[f][flip ? 2 : 1];
    m->face[3 * f + 2] = tri[f][flip ? 1 : 2];
  }
  return m;
}

cmMesh* cm_mesh_icosphere(double radius, int refine) {
  if (!(radius > 0) || !isfinite(radius) || refine < 0 || refine > 8) return NULL;
  cmMesh* m = icosahedron();
  for (int r = 0; m && r < refine; r++) {
    cmMesh* next = ico_refine(m);
    cm_mesh_free(m);
    m = next;
  }
  if (!m) return NULL;
  for (size_t i = 0; i < 3 * (size_t)m->nvert; i++)
    m->vert[i] *= radius;
  return m;
}

/* closed-form index of surface lattice point p = (i, j, k) of a box with d divisions */
static int box_index(const int p[3], int d) {
  int i = p[0], j = p[1], k = p[2], n = d + 1;
  if (k == 0) return i * n + j;
  if (k == d) return n * n + (d - 1) * 4 * d + i * n + j;
  int base = n * n + (k - 1) * 4 * d, ring;
  if (j == 0 && i < d)
    ring = i;
  else if (i == d && j < d)
    ring = d + j;
  else if (j == d && i > 0)
    ring = 2 * d + (d - i);
  else
    ring = 3 * d + (d - j);
  CM_ASSERT(i == 0 || i == d || j == 0 || j == d);
  return base + ring;
}

cmMesh* cm_mesh_box(const double size[3], int divisions) {
  if (!size || divisions < 1 || divisions > CM_BOX_MAX_DIVISIONS) return NULL;
  for (int k = 0; k < 3; k++)
    if (!(size[k] > 0) || !isfinite(size[k])) return NULL;
  int d = divisions;
  cmMesh* m = cm_mesh_new(6 * d * d + 2, 12 * d * d);
  if (!m) return NULL;

  /* faces: fixed axis, fixed lattice value, u axis, v axis with e_u x e_v outward */
  static const int side[6][4] = {{2, 0, 1, 0}, {2, 1, 0, 1}, {1, 0, 0, 2},
                                 {1, 1, 2, 0}, {0, 0, 2, 1}, {0, 1, 1, 2}};
  size_t nf = 0;
  for (int s = 0; s < 6; s++) {
    int ax = side[s][0], fixed = side[s][1] * d, u = side[s][2], v = side[s][3];
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        /* the square's corners p00, p10, p11, p01 */
        int c[4], p[3];
        static const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
        for (int q = 0; q < 4; q++) {
          p[ax] = fixed;
          p[u] = a + du[q];
          p[v] = b + dv[q];
          c[q] = box_index(p, d);
          double* x = m->vert + 3 * (size_t)c[q];
          for (int k = 0; k < 3; k++)
            x[k] = (double)(2 * p[k] - d) / (2.0 * d) * size[k];
        }
        int t[6] = {c[0], c[1], c[2], c[0], c[2], c[3]};
        for (int q = 0; q < 6; q++)
          m->face[3 * nf + (size_t)q] = t[q];
        nf += 2;
      }
  }
  CM_ASSERT(nf == (size_t)m->nface);
  return m;
}
