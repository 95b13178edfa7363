/* Tetrahedral volume meshes: creation, validation, the structured box and ball, the boundary.
 *
 * Orientation. A tet (a, b, c, d) is positive when 6 V = (b - a) . ((c - a) x (d - a)) > 0. Its
 * faces, listed counter-clockwise seen from outside (normal (q - p) x (r - p) pointing away from
 * the fourth node), are the faces opposite a, b, c, d:
 *   (b, c, d), (a, d, c), (a, b, d), (a, c, b).
 * (Check on a = 0, b = e1, c = e2, d = e3: (e2 - e1) x (e3 - e1) = (1, 1, 1) points away from a;
 * e3 x e2 = -e1 away from b; e1 x e3 = -e2 away from c; e2 x e1 = -e3 away from d.)
 *
 * Boundary. An interior face is shared by two tets that traverse it in opposite directions; a
 * boundary face belongs to one tet only. The 4 ntet faces are keyed by their sorted node
 * triple and sorted (cm_sort; the tet and local face break ties, so the order is total); a key
 * that occurs once is a boundary face, emitted with its tet's outward orientation. The surface's
 * vertices are the boundary nodes in increasing node order.
 *
 * Box (Kuhn / Freudenthal subdivision). A cell with corners at the lattice offsets b in {0,1}^3
 * is cut along its diagonal 000 -> 111 into the 6 tets 000, e_p, e_p + e_q, 111 for the 6
 * orders (p, q, r) of the axes. Each cell face is then cut along the diagonal through its
 * corner of lowest offset sum, the same on both cells that share it: the pattern is invariant
 * under lattice translations, hence conforming. Odd permutations give negative tets; their two
 * middle nodes are exchanged.
 *
 * Ball. A lattice of n x n x n cells (n rounded up to even) on [-1, 1]^3 is mapped onto the
 * ball: a lattice point p with r = max |p_i| lies on the cube shell of "radius" r; q = p / r
 * is on the unit cube's surface, and q'_i = tan(pi/4 q_i) its equiangular (gnomonic) version
 * (equal angles per cell along each face: the cubed-sphere map); the point goes to
 * R r q' / |q'|. Cube shells become concentric spheres of radii k h R (h = 2 / n), and a
 * spherical shell cell measures h R radially and about (pi/4) h R tangentially at every depth,
 * away from the 8 cube corners (where three faces meet at 120 degrees instead of 90). The
 * south pole (0, 0, -R) is the centre of a cube face: the most regular part of the surface.
 * Kuhn cells are mirrored per octant (the diagonal of a cell runs from its corner nearest the
 * centre to the farthest), which stays conforming across the mirror planes x, y, z = 0 (the
 * mirror image of a face diagonal through the lowest corner runs through the lowest corner of
 * the mirrored face): every tet then holds its cell's innermost node, so no tet has all four
 * nodes on the sphere (a flat sliver) in the surface cells. The chord error of a face of size
 * s on a sphere of radius R is about s^2 / (8 R): the volume converges as O(1 / n^2). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/mesh_internal.h"

cmTetMesh* cm_tetmesh_new(int nnode, int ntet) {
  if (nnode < 0 || ntet < 0) return NULL;
  cmTetMesh* m = cm_calloc(1, sizeof(cmTetMesh));
  if (!m) return NULL;
  m->nnode = nnode;
  m->ntet = ntet;
  m->node = cm_calloc((size_t)nnode * 3, sizeof(double));
  m->tet = cm_calloc((size_t)ntet * 4, sizeof(int));
  if (!m->node || !m->tet) {
    cm_tetmesh_free(m);
    return NULL;
  }
  return m;
}

void cm_tetmesh_free(cmTetMesh* mesh) {
  if (!mesh) return;
  cm_free(mesh->node);
  cm_free(mesh->tet);
  cm_free(mesh);
}

/* six times the signed volume of the tet of nodes a, b, c, d */
static double tet_vol6(const double* a, const double* b, const double* c, const double* d) {
  double e1[3], e2[3], e3[3], x[3];
  cm_v3_sub(e1, b, a);
  cm_v3_sub(e2, c, a);
  cm_v3_sub(e3, d, a);
  cm_v3_cross(x, e2, e3);
  return cm_v3_dot(e1, x);
}

cmStatus cm_tetmesh_check(const cmTetMesh* mesh, char* err, size_t errsz) {
  CM_ASSERT(mesh);
  CM_ASSERT(mesh->nnode >= 0 && mesh->ntet >= 0);
  if (mesh->ntet == 0) return cm_error(err, errsz, CM_ERR_MESH, "tet mesh: no tetrahedra");
  /* finite coordinates and the bounding box */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < mesh->nnode; v++) {
    const double* p = mesh->node + 3 * (size_t)v;
    if (!cm_mesh_coord_ok(p))
      return cm_error(err, errsz, CM_ERR_MESH,
                      "tet mesh: node %d has a non-finite coordinate (%g, %g, %g) (expected "
                      "finite, within +-%g m)",
                      v, p[0], p[1], p[2], CM_MESH_COORD_MAX);
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], p[k]);
      hi[k] = fmax(hi[k], p[k]);
    }
  }
  /* node indices in range */
  for (int t = 0; t < mesh->ntet; t++) {
    const int* n = mesh->tet + 4 * (size_t)t;
    for (int k = 0; k < 4; k++)
      if (n[k] < 0 || n[k] >= mesh->nnode)
        return cm_error(err, errsz, CM_ERR_MESH,
                        "tet mesh: tet %d (nodes %d %d %d %d): node index %d out of range "
                        "(expected 0 to %d)",
                        t, n[0], n[1], n[2], n[3], n[k], mesh->nnode - 1);
  }
  /* positive volumes, relative to the bounding box's diagonal cubed */
  double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
  double diag = sqrt(dx * dx + dy * dy + dz * dz);
  double vmin = 1e-12 * diag * diag * diag;
  for (int t = 0; t < mesh->ntet; t++) {
    const int* n = mesh->tet + 4 * (size_t)t;
    double v = tet_vol6(mesh->node + 3 * (size_t)n[0], mesh->node + 3 * (size_t)n[1],
                        mesh->node + 3 * (size_t)n[2], mesh->node + 3 * (size_t)n[3]) /
               6;
    if (!(v > vmin))
      return cm_error(err, errsz, CM_ERR_MESH,
                      "tet mesh: tet %d (nodes %d %d %d %d) is %s: volume %g m^3 (expected > "
                      "%g m^3, 1e-12 of the bounding box's diagonal cubed)",
                      t, n[0], n[1], n[2], n[3], v < -vmin ? "inverted" : "degenerate", v, vmin);
  }
  /* every node used: the smallest unused node is named */
  unsigned char* used = cm_calloc((size_t)mesh->nnode + 1, 1);
  if (!used) return cm_error(err, errsz, CM_ERR_NOMEM, "tet mesh: out of memory");
  for (size_t i = 0; i < 4 * (size_t)mesh->ntet; i++)
    used[mesh->tet[i]] = 1;
  int unused = -1, nunused = 0;
  for (int v = 0; v < mesh->nnode; v++)
    if (!used[v] && nunused++ == 0) unused = v;
  cm_free(used);
  if (nunused)
    return cm_error(err, errsz, CM_ERR_MESH,
                    "tet mesh: node %d is used by no tet (%d unused nodes; expected none)", unused,
                    nunused);
  if (err && errsz) err[0] = 0;
  return CM_OK;
}

/* the 6 axis orders of the Kuhn subdivision */
static const int KUHN[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

/* Cut the cells of an n0 x n1 x n2 lattice (node (i, j, k) = i + (n0+1) (j + (n1+1) k)) into 6
 * Kuhn tets each, into tet (6 n0 n1 n2 x 4). mirror: the cell at lattice index c along axis a
 * has its diagonal start at its corner nearest the lattice centre (mid[a]). Positive orientation
 * in lattice coordinates (the caller's map preserves it). */
static void kuhn_cells(const int n[3], int mirror, int* tet) {
  size_t t = 0;
  for (int k = 0; k < n[2]; k++)
    for (int j = 0; j < n[1]; j++)
      for (int i = 0; i < n[0]; i++) {
        int c[3] = {i, j, k};
        int base[3], step[3];
        for (int a = 0; a < 3; a++) {
          int neg = mirror && 2 * c[a] < n[a]; /* cell below the mid plane: start at its top */
          base[a] = neg ? c[a] + 1 : c[a];
          step[a] = neg ? -1 : 1;
        }
        /* orientation of the cell's map b -> base + step b: its determinant's sign */
        int sgn = step[0] * step[1] * step[2];
        for (int p = 0; p < 6; p++) {
          int b[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
          b[1][KUHN[p][0]] = 1;
          b[2][KUHN[p][0]] = 1;
          b[2][KUHN[p][1]] = 1;
          /* the Kuhn tet's orientation is the permutation's parity (p = 1, 2, 5 odd) */
          int parity = (p == 1 || p == 2 || p == 5) ? -1 : 1;
          int id[4];
          for (int v = 0; v < 4; v++) {
            int x = base[0] + step[0] * b[v][0], y = base[1] + step[1] * b[v][1],
                z = base[2] + step[2] * b[v][2];
            id[v] = x + (n[0] + 1) * (y + (n[1] + 1) * z);
          }
          if (parity * sgn < 0) {
            int s = id[1];
            id[1] = id[2];
            id[2] = s;
          }
          memcpy(tet + 4 * t, id, sizeof id);
          t++;
        }
      }
}

/* 1 if an n0 x n1 x n2 lattice's nodes and 6 n0 n1 n2 tets (x4 indices) fit an int */
static int lattice_fits(const int n[3]) {
  double nodes = ((double)n[0] + 1) * ((double)n[1] + 1) * ((double)n[2] + 1); /* n < INT_MAX */
  double tets = 24.0 * n[0] * n[1] * n[2];
  return nodes * 3 <= INT_MAX && tets <= INT_MAX;
}

cmStatus cm_tetmesh_box(const double size[3], const int div[3], cmTetMesh** out) {
  CM_ASSERT(size && div && out);
  *out = NULL;
  for (int a = 0; a < 3; a++) {
    if (!(size[a] > 0 && size[a] <= CM_MESH_COORD_MAX)) return CM_ERR_ARG;
    if (div[a] < 1) return CM_ERR_ARG;
  }
  if (!lattice_fits(div)) return CM_ERR_ARG;
  int nn = (div[0] + 1) * (div[1] + 1) * (div[2] + 1);
  cmTetMesh* m = cm_tetmesh_new(nn, 6 * div[0] * div[1] * div[2]);
  if (!m) return CM_ERR_NOMEM;
  for (int k = 0; k <= div[2]; k++)
    for (int j = 0; j <= div[1]; j++)
      for (int i = 0; i <= div[0]; i++) {
        double* p = m->node + 3 * (size_t)(i + (div[0] + 1) * (j + (div[1] + 1) * k));
        int c[3] = {i, j, k};
        /* exact ends: -size/2 at 0, +size/2 at div */
        for (int a = 0; a < 3; a++)
          p[a] = size[a] * ((double)(2 * c[a] - div[a]) / (2.0 * div[a]));
      }
  kuhn_cells(div, 0, m->tet);
  *out = m;
  return CM_OK;
}

cmStatus cm_tetmesh_ball(double radius, int n, cmTetMesh** out) {
  CM_ASSERT(out);
  *out = NULL;
  if (!(radius > 0 && radius <= CM_MESH_COORD_MAX) || n < 2) return CM_ERR_ARG;
  if (n > INT_MAX - 1) return CM_ERR_ARG;
  n += n & 1;
  int div[3] = {n, n, n};
  if (!lattice_fits(div)) return CM_ERR_ARG;
  cmTetMesh* m = cm_tetmesh_new((n + 1) * (n + 1) * (n + 1), 6 * n * n * n);
  if (!m) return CM_ERR_NOMEM;
  int half = n / 2;
  const double quarter_pi = 0.78539816339744830962;
  for (int k = 0; k <= n; k++)
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) {
        double* p = m->node + 3 * (size_t)(i + (n + 1) * (j + (n + 1) * k));
        int c[3] = {i - half, j - half, k - half};
        int r = abs(c[0]);
        if (abs(c[1]) > r) r = abs(c[1]);
        if (abs(c[2]) > r) r = abs(c[2]);
        if (r == 0) {
          cm_v3_set(p, 0, 0, 0);
          continue;
        }
        /* q on the unit cube's surface, its equiangular version, onto the sphere of r h R */
        double q[3];
        for (int a = 0; a < 3; a++) {
          double u = (double)c[a] / r;
          q[a] = abs(c[a]) == r ? (c[a] > 0 ? 1.0 : -1.0) : tan(quarter_pi * u);
        }
        double s = radius * ((double)r / half) / cm_v3_norm(q);
        cm_v3_scale(p, q, s);
      }
  kuhn_cells(div, 1, m->tet);
  *out = m;
  return CM_OK;
}

/* a face of a tet keyed by its sorted nodes; the tet and the local face break ties */
typedef struct FaceKey {
  int v[3];
  int tet, f;
} FaceKey;

static int face_key_cmp(const void* pa, const void* pb) {
  const FaceKey* x = pa;
  const FaceKey* y = pb;
  for (int k = 0; k < 3; k++)
    if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
  if (x->tet != y->tet) return x->tet < y->tet ? -1 : 1;
  return x->f < y->f ? -1 : x->f > y->f;
}

/* the outward faces (opposite node 0, 1, 2, 3) as local indices */
static const int TET_FACE[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

cmMesh* cm_tetmesh_surface(const cmTetMesh* mesh, int* surf_node) {
  CM_ASSERT(mesh);
  if (mesh->ntet < 0 || mesh->nnode < 0 || (mesh->ntet && (!mesh->tet || !mesh->node)))
    return NULL;
  /* node indices out of range (cm_tetmesh_check names them) would index past the nodes */
  for (size_t i = 0; i < 4 * (size_t)mesh->ntet; i++)
    if (mesh->tet[i] < 0 || mesh->tet[i] >= mesh->nnode) return NULL;
  size_t nf = 4 * (size_t)mesh->ntet;
  FaceKey* key = cm_calloc(nf ? nf : 1, sizeof(FaceKey));
  int* vid = cm_calloc((size_t)mesh->nnode + 1, sizeof(int));
  if (!key || !vid) {
    cm_free(key);
    cm_free(vid);
    return NULL;
  }
  for (size_t t = 0; t < (size_t)mesh->ntet; t++)
    for (int f = 0; f < 4; f++) {
      FaceKey* k = key + 4 * t + (size_t)f;
      int a = mesh->tet[4 * t + (size_t)TET_FACE[f][0]];
      int b = mesh->tet[4 * t + (size_t)TET_FACE[f][1]];
      int c = mesh->tet[4 * t + (size_t)TET_FACE[f][2]];
      /* sort three */
      if (a > b) {
        int s = a;
        a = b;
        b = s;
      }
      if (b > c) {
        int s = b;
        b = c;
        c = s;
      }
      if (a > b) {
        int s = a;
        a = b;
        b = s;
      }
      k->v[0] = a;
      k->v[1] = b;
      k->v[2] = c;
      k->tet = (int)t;
      k->f = f;
    }
  cm_sort(key, nf, sizeof(FaceKey), face_key_cmp);
  /* keep the keys that occur once (compacted to the front), mark their nodes */
  size_t nb = 0;
  for (size_t i = 0; i < nf;) {
    size_t j = i + 1;
    while (j < nf && memcmp(key[j].v, key[i].v, sizeof key[i].v) == 0)
      j++;
    if (j == i + 1) {
      key[nb++] = key[i];
      for (int k = 0; k < 3; k++)
        vid[key[i].v[k]] = 1;
    }
    i = j;
  }
  /* vertex numbers in increasing node order */
  int nv = 0;
  for (int v = 0; v < mesh->nnode; v++)
    vid[v] = vid[v] ? nv++ : -1;
  double* vert = cm_malloc((size_t)nv * 3 * sizeof(double));
  int* face = cm_malloc(nb * 3 * sizeof(int));
  if (!vert || !face) {
    cm_free(vert);
    cm_free(face);
    cm_free(key);
    cm_free(vid);
    return NULL;
  }
  for (int v = 0; v < mesh->nnode; v++)
    if (vid[v] >= 0) {
      memcpy(vert + 3 * (size_t)vid[v], mesh->node + 3 * (size_t)v, 3 * sizeof(double));
      if (surf_node) surf_node[vid[v]] = v;
    }
  for (size_t i = 0; i < nb; i++) {
    size_t t = (size_t)key[i].tet;
    int f = key[i].f;
    for (int k = 0; k < 3; k++)
      face[3 * i + (size_t)k] = vid[mesh->tet[4 * t + (size_t)TET_FACE[f][k]]];
  }
  cm_free(key);
  cm_free(vid);
  return cm_mesh_wrap(vert, nv, face, (int)nb);
}
