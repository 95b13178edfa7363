/* AABB tree over the faces of a triangle mesh; closest point on a triangle; nearest-point and
 * signed-distance queries by branch and bound.
 *
 * The closest point on a triangle and the box bounds are in closest.h (shared with facets.c).
 *
 * Tree. Binned SAH (Wald 2007): the centroids of a node's faces are binned into 16 slabs along
 * each axis; the split between slabs minimising  A_L N_L + A_R N_R  (A the half surface area of
 * the side's box, N its face count) is taken. SAH rather than the centroid median because meshes
 * built for simulation mix large and small triangles (a box with a few large faces next to a
 * fine sphere, CAD parts): SAH cuts the empty space around small detail, so boxes are tighter and
 * near-surface queries open fewer leaves; on uniform meshes it costs as little as the median
 * split (one O(n) pass per level, O(n log n) in all). Surface area is a ray metric, not a
 * distance metric, but tight boxes are what both queries need. Every node with more than 4 faces
 * is split; from depth 32 on (or when all centroids coincide along every axis) the split is the
 * centroid median (quickselect), which halves the count and bounds the depth by 32 + 29 < 64.
 * Children are stored as adjacent pairs so the query reads both boxes at once, and each node
 * record holds its box with its child index (one cache-line pair per level, not two arrays).
 *
 * Query (nearest point within max_dist). Depth-first branch and bound: best = max_dist^2; at an
 * inner node the squared distances from p to both child boxes are computed (together, in the
 * two lanes of a pair of doubles), the nearer child is entered and the farther one pushed with
 * its box distance (if <= best); a popped node is skipped if its box distance now exceeds best.
 * A leaf computes the closest point on each of its faces. The stack holds at most one node per
 * level (fixed array of CM_BVH_MAX_DEPTH entries). Boxes at exactly the best distance are
 * visited, and among equal squared distances the smaller face index wins, so exact ties resolve
 * to the smallest face index whatever the tree shape. */
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/bvh.h"
#include "geom/closest.h"

#define NBIN 16
#define SAH_DEPTH 32

double cm_triangle_closest(const double* vert, int i0, int i1, int i2, const double p[3],
                           double q[3], int* feature, int* index) {
  const int i[3] = {i0, i1, i2};
  const double* const v[3] = {vert + 3 * (size_t)i0, vert + 3 * (size_t)i1, vert + 3 * (size_t)i2};
  return tri_closest(v, i, p, q, feature, index);
}

/* ---------------------------------------------------------------------------------------------
 * building */

typedef struct Build {
  const double* fbox; /* per-face boxes (nface x 6) */
  const double* cent; /* per-face centroids (nface x 3) */
  int* order;         /* face permutation being partitioned */
  cmBvhNode* node;    /* nodes (capacity 2 nface - 1) */
  int nnode;
} Build;

typedef struct Task {
  int node, start, count, depth;
} Task;

static void box_empty(double b[6]) {
  b[0] = b[1] = b[2] = INFINITY;
  b[3] = b[4] = b[5] = -INFINITY;
}

static void box_grow(double b[6], const double c[6]) {
  for (int j = 0; j < 3; j++) {
    if (c[j] < b[j]) b[j] = c[j];
    if (c[3 + j] > b[3 + j]) b[3 + j] = c[3 + j];
  }
}

/* half surface area (0 for an empty box) */
static double box_half_area(const double b[6]) {
  double dx = b[3] - b[0], dy = b[4] - b[1], dz = b[5] - b[2];
  if (!(dx >= 0)) return 0;
  return dx * dy + dy * dz + dz * dx;
}

/* slab of a centroid coordinate x in [lo, lo + NBIN/scale]; clamped before the conversion to
 * int: an extent of a few subnormals makes scale infinite (NBIN / 1e-320), and (x - lo) * scale
 * then inf, or NaN at x = lo (fuzz/crashers/vtk/bvh_bin_tiny_extent.vtk) */
static int bin_of(double x, double lo, double scale) {
  double k = (x - lo) * scale;
  return !(k >= 1) ? 0 : k >= NBIN ? NBIN - 1 : (int)k;
}

/* best SAH split: returns the axis (-1 if none) and the first right slab in *split */
static int sah_split(const Build* b, const Task* t, const double cmin[3], const double cmax[3],
                     int* split) {
  double best = INFINITY;
  int best_axis = -1;
  for (int axis = 0; axis < 3; axis++) {
    double ext = cmax[axis] - cmin[axis];
    if (!(ext > 0)) continue;
    double scale = NBIN / ext, bbox[NBIN][6], rarea[NBIN];
    int cnt[NBIN] = {0}, rcnt[NBIN];
    for (int k = 0; k < NBIN; k++)
      box_empty(bbox[k]);

    /* bin the centroids */
    for (int i = t->start; i < t->start + t->count; i++) {
      int f = b->order[i], k = bin_of(b->cent[3 * (size_t)f + axis], cmin[axis], scale);
      cnt[k]++;
      box_grow(bbox[k], b->fbox + 6 * (size_t)f);
    }

    /* sweep from the right, then from the left evaluating each split */
    double acc[6];
    box_empty(acc);
    int n = 0;
    for (int k = NBIN - 1; k > 0; k--) {
      box_grow(acc, bbox[k]);
      n += cnt[k];
      rarea[k] = box_half_area(acc);
      rcnt[k] = n;
    }
    box_empty(acc);
    n = 0;
    for (int k = 1; k < NBIN; k++) {
      box_grow(acc, bbox[k - 1]);
      n += cnt[k - 1];
      if (n == 0 || rcnt[k] == 0) continue;
      double cost = box_half_area(acc) * n + rarea[k] * rcnt[k];
      if (cost < best) {
        best = cost;
        best_axis = axis;
        *split = k;
      }
    }
  }
  return best_axis;
}

/* order[start..start+count) partially sorted so that the k-th (by centroid along axis) is at k */
static void quickselect(const Build* b, int start, int count, int kth, int axis) {
  int lo = start, hi = start + count - 1, k = start + kth;
  while (lo < hi) {
    double pivot = b->cent[3 * (size_t)b->order[lo + (hi - lo) / 2] + axis];
    int i = lo, j = hi;
    while (i <= j) {
      while (b->cent[3 * (size_t)b->order[i] + axis] < pivot)
        i++;
      while (b->cent[3 * (size_t)b->order[j] + axis] > pivot)
        j--;
      if (i <= j) {
        int s = b->order[i];
        b->order[i++] = b->order[j];
        b->order[j--] = s;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

/* split a task's faces; returns the number going left (1 .. count-1) */
static int split_task(const Build* b, const Task* t) {
  double cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = t->start; i < t->start + t->count; i++) {
    const double* c = b->cent + 3 * (size_t)b->order[i];
    for (int j = 0; j < 3; j++) {
      if (c[j] < cmin[j]) cmin[j] = c[j];
      if (c[j] > cmax[j]) cmax[j] = c[j];
    }
  }

  /* binned SAH, partitioning by slab */
  int split = 0, axis = t->depth < SAH_DEPTH ? sah_split(b, t, cmin, cmax, &split) : -1;
  if (axis >= 0) {
    double scale = NBIN / (cmax[axis] - cmin[axis]);
    int i = t->start, j = t->start + t->count - 1;
    while (i <= j) {
      if (bin_of(b->cent[3 * (size_t)b->order[i] + axis], cmin[axis], scale) < split) {
        i++;
      } else {
        int s = b->order[i];
        b->order[i] = b->order[j];
        b->order[j--] = s;
      }
    }
    int nleft = i - t->start;
    if (nleft > 0 && nleft < t->count) return nleft;
  }

  /* centroid median along the longest centroid extent */
  axis = 0;
  for (int j = 1; j < 3; j++)
    if (cmax[j] - cmin[j] > cmax[axis] - cmin[axis]) axis = j;
  quickselect(b, t->start, t->count, t->count / 2, axis);
  return t->count / 2;
}

/* build the nodes of the tree into b (capacity 2 nface - 1 nodes); returns the depth */
static int build_nodes(Build* b, int nface) {
  Task stack[2 * CM_BVH_MAX_DEPTH + 2];
  int sp = 0, depth = 0;
  b->nnode = 1;
  stack[sp++] = (Task){0, 0, nface, 0};
  while (sp > 0) {
    Task t = stack[--sp];
    cmBvhNode* nd = b->node + t.node;
    double* nb = nd->box;
    box_empty(nb);
    for (int i = t.start; i < t.start + t.count; i++)
      box_grow(nb, b->fbox + 6 * (size_t)b->order[i]);
    if (t.depth > depth) depth = t.depth;

    /* leaf */
    if (t.count <= CM_BVH_LEAF_SIZE) {
      nd->child = -1 - t.start;
      nd->count = t.count;
      continue;
    }

    /* inner node: two adjacent children */
    int nleft = split_task(b, &t), c = b->nnode;
    b->nnode += 2;
    nd->child = c;
    nd->count = 0;
    CM_ASSERT(sp + 2 <= (int)(sizeof stack / sizeof stack[0]));
    stack[sp++] = (Task){c + 1, t.start + nleft, t.count - nleft, t.depth + 1};
    stack[sp++] = (Task){c, t.start, nleft, t.depth + 1};
  }
  CM_ASSERT(depth < CM_BVH_MAX_DEPTH);
  return depth;
}

/* seg_n of face F (cmBvh): the unit normal of its cross product (v1 - v0) x (v2 - v0), or 0 0 0 0
 * where the face's sine of angle is at most 1e-6 (a sliver's normal is mostly rounding). A pure
 * function of the mesh: until 2026-12-05 cm_bvh_seg_faces computed it for every face it tested,
 * by these same operations (so the same bits), 54 instructions a face; kept with the tree, a
 * resting S2 125 run takes 0.987x the instructions (cm_bvh_seg_faces 266 M -> 228 M). */
static void seg_normal(const double* vert, const int F[3], double out[4]) {
  const double *v0 = vert + 3 * (size_t)F[0], *v1 = vert + 3 * (size_t)F[1],
               *v2 = vert + 3 * (size_t)F[2];
  double e1[3], e2[3], nf[3];
  cm_v3_sub(e1, v1, v0);
  cm_v3_sub(e2, v2, v0);
  cm_v3_cross(nf, e1, e2);
  double cc = cm_v3_dot(nf, nf);
  if (!(cc > 1e-12 * cm_v3_dot(e1, e1) * cm_v3_dot(e2, e2))) {
    memset(out, 0, 4 * sizeof *out);
    return;
  }
  cm_v3_scale(out, nf, 1 / sqrt(cc));
  out[3] = 1;
}

/* seg_n of every face and seg_same of every node */
static void seg_normals(cmBvh* bvh, const double* vert, const int* face) {
  for (int k = 0; k < bvh->nface; k++)
    seg_normal(vert, face + 3 * (size_t)bvh->order[k], bvh->seg_n + 4 * (size_t)k);
  if (bvh->nnode > 0) bvh->seg_same[0] = 0;
  for (int i = 0; i < bvh->nnode; i++) {
    const cmBvhNode* nd = bvh->node + i;
    if (nd->count > 0) continue;
    for (int c = nd->child; c < nd->child + 2; c++)
      bvh->seg_same[c] = memcmp(bvh->node[c].box, nd->box, sizeof nd->box) == 0;
  }
}

/* every node's cone: no bound (cmBvh.cone) */
static void cones_none(cmBvh* bvh) {
  for (int i = 0; i < bvh->nnode; i++) {
    double* c = bvh->cone + 4 * (size_t)i;
    c[0] = c[1] = c[2] = 0;
    c[3] = 2;
  }
}

/* the angle between unit vectors a and b, rad (atan2 of the cross and dot products: accurate
 * near 0, where acos of a dot product near 1 loses half the digits) */
static double unit_angle(const double a[3], const double b[3]) {
  double x[3];
  cm_v3_cross(x, a, b);
  return atan2(cm_v3_norm(x), cm_v3_dot(a, b));
}

/* Every node's cone (cmBvh.cone) from seg_n, children before parents: a leaf's axis is the
 * normalised sum of its faces' normals and its half-angle the largest angle between the axis and
 * a normal; an inner node's axis bisects its children's and its half-angle is the largest of
 * (angle to a child's axis + that child's half-angle), which holds every normal below it. The
 * half-angles are kept in the sine slots until the end (the parents need them). */
static void cones_build(cmBvh* bvh) {
  const double half_pi = 0.5 * CM_PI;
  for (int i = bvh->nnode - 1; i >= 0; i--) {
    const cmBvhNode* nd = bvh->node + i;
    double* c = bvh->cone + 4 * (size_t)i;
    double a[3] = {0, 0, 0}, th = 0;
    int none = 0;
    if (nd->child < 0) {
      int k0 = -1 - nd->child;
      for (int k = k0; k < k0 + nd->count; k++) {
        const double* n = bvh->seg_n + 4 * (size_t)k;
        if (n[3] == 0) none = 1; /* a sliver: its model normal is mostly rounding */
        cm_v3_add(a, a, n);
      }
      double l = cm_v3_norm(a);
      if (!none && l > 1e-6) {
        cm_v3_scale(a, a, 1 / l);
        for (int k = k0; k < k0 + nd->count; k++)
          th = fmax(th, unit_angle(a, bvh->seg_n + 4 * (size_t)k));
      } else {
        none = 1;
      }
    } else {
      const double *c0 = bvh->cone + 4 * (size_t)nd->child, *c1 = c0 + 4;
      none = c0[3] >= half_pi || c1[3] >= half_pi;
      cm_v3_add(a, c0, c1);
      double l = cm_v3_norm(a);
      if (!none && l > 1e-6) {
        cm_v3_scale(a, a, 1 / l);
        th = fmax(unit_angle(a, c0) + c0[3], unit_angle(a, c1) + c1[3]);
      } else {
        none = 1;
      }
    }
    if (none || th >= half_pi) {
      c[0] = c[1] = c[2] = 0;
      c[3] = half_pi; /* (no bound) */
    } else {
      cm_v3_copy(c, a);
      c[3] = th;
    }
  }
  for (int i = 0; i < bvh->nnode; i++) {
    double* c = bvh->cone + 4 * (size_t)i;
    c[3] = c[3] >= half_pi ? 2 : sin(c[3]) + CM_BVH_CONE_MARGIN;
  }
}

void cm_bvh_refit(cmBvh* bvh, const double* vert, const int* face) {
  for (int i = bvh->nnode - 1; i >= 0; i--) {
    cmBvhNode* nd = bvh->node + i;
    double* nb = nd->box;
    box_empty(nb);
    if (nd->child < 0) {
      for (int k = -1 - nd->child; k < -1 - nd->child + nd->count; k++) {
        const int* f = face + 3 * (size_t)bvh->order[k];
        for (int v = 0; v < 3; v++) {
          const double* x = vert + 3 * (size_t)f[v];
          double pb[6] = {x[0], x[1], x[2], x[0], x[1], x[2]};
          box_grow(nb, pb);
        }
      }
    } else {
      CM_ASSERT(nd->child > i);
      box_grow(nb, bvh->node[nd->child].box);
      box_grow(nb, bvh->node[nd->child + 1].box);
    }
  }
  seg_normals(bvh, vert, face);
  cones_none(bvh); /* the faces moved; the facing search is asked of rigid trees only */
}

/* the bytes of node and order, and where seg_n starts (8-aligned) */
static size_t bytes_before(int nnode, int nface) {
  return (size_t)nnode * sizeof(cmBvhNode) + (size_t)nface * sizeof(int);
}
static size_t seg_n_at(int nnode, int nface) {
  return (bytes_before(nnode, nface) + 7) / 8 * 8;
}

/* where seg_same starts */
static size_t seg_same_at(int nnode, int nface) {
  return seg_n_at(nnode, nface) + 4 * (size_t)nface * sizeof(double);
}

/* where cone starts */
static size_t cone_at(int nnode, int nface) {
  return seg_same_at(nnode, nface) + ((size_t)nnode + 7) / 8 * 8;
}

size_t cm_bvh_bytes(int nnode, int nface) {
  return cone_at(nnode, nface) + 4 * (size_t)nnode * sizeof(double);
}

void cm_bvh_view(cmBvh* view, int nnode, int nface, int depth, void* mem) {
  CM_ASSERT(view && nnode >= 0 && nface >= 0);
  view->nnode = nnode;
  view->nface = nface;
  view->depth = depth;
  view->owned = 0;
  view->block = mem;
  view->node = mem;
  view->order = (int*)(view->node + nnode);
  view->seg_n = (double*)((char*)mem + seg_n_at(nnode, nface));
  view->seg_same = (unsigned char*)mem + seg_same_at(nnode, nface);
  view->cone = (double*)((char*)mem + cone_at(nnode, nface));
}

void cm_bvh_write(const cmBvh* src, void* mem) {
  CM_ASSERT(src && mem);
  cmBvh v;
  cm_bvh_view(&v, src->nnode, src->nface, src->depth, mem);
  if (src->nnode > 0) memcpy(v.node, src->node, (size_t)src->nnode * sizeof(cmBvhNode));
  if (src->nface > 0) memcpy(v.order, src->order, (size_t)src->nface * sizeof(int));
  size_t at = bytes_before(src->nnode, src->nface), n = 4 * (size_t)src->nface * sizeof(double);
  memset((char*)mem + at, 0, seg_n_at(src->nnode, src->nface) - at); /* the padding: same bytes */
  if (n > 0) {
    if (src->seg_n)
      memcpy(v.seg_n, src->seg_n, n);
    else
      memset(v.seg_n, 0, n);
  }
  /* seg_same and its padding */
  at = seg_same_at(src->nnode, src->nface);
  memset((char*)mem + at, 0, cone_at(src->nnode, src->nface) - at);
  if (src->seg_same && src->nnode > 0) memcpy(v.seg_same, src->seg_same, (size_t)src->nnode);
  /* the cones (none: no bound) */
  if (src->cone && src->nnode > 0)
    memcpy(v.cone, src->cone, 4 * (size_t)src->nnode * sizeof(double));
  else
    cones_none(&v);
}

cmStatus cm_bvh_copy(cmBvh* dst, const cmBvh* src) {
  CM_ASSERT(dst && src);
  void* mem = cm_malloc(cm_bvh_bytes(src->nnode, src->nface) + 1);
  if (!mem) return CM_ERR_NOMEM;
  cm_bvh_write(src, mem);
  cm_bvh_view(dst, src->nnode, src->nface, src->depth, mem);
  dst->owned = 1;
  return CM_OK;
}

void cm_bvh_free(cmBvh* bvh) {
  if (!bvh) return;
  if (bvh->owned) cm_free(bvh->block);
  memset(bvh, 0, sizeof *bvh);
}

cmStatus cm_bvh_build(cmBvh* bvh, const double* vert, const int* face, int nface) {
  CM_ASSERT(bvh);
  memset(bvh, 0, sizeof *bvh);
  if (nface < 0 || (nface > 0 && (!vert || !face)) || nface > (1 << 30)) return CM_ERR_ARG;
  size_t nf = (size_t)nface, cap = nf > 0 ? 2 * nf - 1 : 0;

  /* scratch: nodes, face boxes, centroids, order */
  size_t nbytes = cap * sizeof(cmBvhNode) + nf * 9 * sizeof(double) + nf * sizeof(int);
  cmBvhNode* nodes = cm_malloc(nbytes ? nbytes : 1);
  if (!nodes) return CM_ERR_NOMEM;
  double* fbox = (double*)(nodes + cap);
  Build b = {fbox, fbox + 6 * nf, (int*)(fbox + 9 * nf), nodes, 0};

  /* face boxes and centroids */
  for (size_t f = 0; f < nf; f++) {
    double* fb = fbox + 6 * f;
    double* c = fbox + 6 * nf + 3 * f;
    box_empty(fb);
    for (int k = 0; k < 3; k++) {
      const double* v = vert + 3 * (size_t)face[3 * f + k];
      double pt[6] = {v[0], v[1], v[2], v[0], v[1], v[2]};
      box_grow(fb, pt);
    }
    for (int j = 0; j < 3; j++)
      c[j] = 0.5 * (fb[j] + fb[3 + j]);
    b.order[f] = (int)f;
  }

  int depth = nf > 0 ? build_nodes(&b, nface) : 0;

  /* move into one exact-size block */
  cmBvh tmp = {b.nnode, nface, depth, 0, b.node, b.order, NULL, NULL, NULL, NULL};
  cmStatus st = cm_bvh_copy(bvh, &tmp);
  cm_free(nodes);
  if (st == CM_OK) {
    seg_normals(bvh, vert, face);
    cones_build(bvh);
  }
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * queries */

typedef struct StackEntry {
  int node;
  double d2;
} StackEntry;

/* cm_bvh_nearest, and with dir (not NULL) cm_bvh_nearest_facing: only the faces whose normal
 * (face_normal) has a negative dot product with dir are candidates (the bounds stay valid: a
 * box's distance bounds every face in it, skipped or not). Inlined into both, so the plain query
 * carries no test per face. */
static inline __attribute__((always_inline)) int nearest(const cmBvh* bvh, const double* vert,
                                                         const int* face, const double* face_normal,
                                                         const double* dir, const double p[3],
                                                         double max_dist, cmNearest* out) {
  CM_ASSERT(bvh && out && p);
  StackEntry stack[CM_BVH_MAX_DEPTH];
  /* p's coordinates once, in registers (the stores to out might alias p) and in pairs */
  const double pp[3] = {p[0], p[1], p[2]};
  const v2d P0 = {pp[0], pp[0]}, P1 = {pp[1], pp[1]}, P2 = {pp[2], pp[2]}, P01 = {pp[0], pp[1]};
  double best = max_dist * max_dist, q[3];
  int bestf = -1, sp = 0, node = 0, feature, index;
  /* the facing search: dir as a unit vector for the normal cones (none for a zero dir, which
   * no face faces against) */
  double un[3] = {0, 0, 0};
  const double* cones = NULL;
  if (dir) {
    double l = cm_v3_norm(dir);
    if (l > 0) {
      cm_v3_scale(un, dir, 1 / l);
      cones = bvh->cone;
    }
  }
  out->face = -1;
  out->dist2 = INFINITY;
  if (bvh->nnode == 0 || !(max_dist >= 0)) return 0;
  const cmBvhNode* nodes = bvh->node;
  if (box_dist2(nodes[0].box, pp) > best) return 0;

  for (;;) {
    int c = nodes[node].child;
    if (c < 0) {
      /* leaf: closest point on each face; ties go to the smaller face index */
      const int* ord = bvh->order + (-1 - c);
      int n = nodes[node].count;
      for (int j = 0; j < n; j++) {
        int f = ord[j];
        if (dir && !(cm_v3_dot(face_normal + 3 * (size_t)f, dir) < 0)) continue;
        const int* t = face + 3 * (size_t)f;
        const double* const v[3] = {vert + 3 * (size_t)t[0], vert + 3 * (size_t)t[1],
                                    vert + 3 * (size_t)t[2]};
        if (tri_box_dist2(v, P01, pp[2]) > best) continue;
        double d2 = tri_closest(v, t, pp, q, &feature, &index);
        if (d2 < best || (d2 == best && (unsigned)f < (unsigned)bestf)) {
          best = d2;
          bestf = f;
          out->feature = feature;
          out->index = index;
          cm_v3_copy(out->point, q);
        }
      }
    } else {
      /* inner: enter the nearer child, push the farther one */
      v2d d = box_dist2_pair(nodes[c].box, nodes[c + 1].box, P0, P1, P2);
      double dl = d[0], dr = d[1];
      int near = c, far = c + 1;
      if (dr < dl) {
        double t = dl;
        dl = dr;
        dr = t;
        near = c + 1;
        far = c;
      }
      if (dir && cones) {
        /* a child whose cone holds no normal facing against dir (cos(angle to the axis) above
         * the sine of the half-angle: every normal within 90 degrees of dir) has no candidate */
        int skip_near = cm_v3_dot(cones + 4 * (size_t)near, un) > cones[4 * (size_t)near + 3];
        int skip_far = cm_v3_dot(cones + 4 * (size_t)far, un) > cones[4 * (size_t)far + 3];
        if (skip_near) {
          near = far;
          dl = dr;
          skip_near = skip_far;
          skip_far = 1;
        }
        if (!skip_near && dl <= best) {
          if (!skip_far && dr <= best) stack[sp++] = (StackEntry){far, dr};
          node = near;
          continue;
        }
      } else if (dl <= best) {
        if (dr <= best) stack[sp++] = (StackEntry){far, dr};
        node = near;
        continue;
      }
    }

    /* pop the next subtree still within reach */
    for (;;) {
      if (sp == 0) goto done;
      StackEntry e = stack[--sp];
      if (e.d2 <= best) {
        node = e.node;
        break;
      }
    }
  }
done:
  if (bestf < 0) return 0;
  out->face = bestf;
  out->dist2 = best;
  return 1;
}

int cm_bvh_nearest(const cmBvh* bvh, const double* vert, const int* face, const double p[3],
                   double max_dist, cmNearest* out) {
  return nearest(bvh, vert, face, NULL, NULL, p, max_dist, out);
}

int cm_bvh_nearest_facing(const cmBvh* bvh, const double* vert, const int* face,
                          const double* face_normal, const double dir[3], const double p[3],
                          double max_dist, cmNearest* out) {
  return nearest(bvh, vert, face, face_normal, dir, p, max_dist, out);
}

double cm_bvh_signed_distance(const cmBvh* bvh, const double* vert, const int* face,
                              const double* face_normal, const double* vert_pn,
                              const double* edge_pn, const double p[3], double max_dist,
                              cmNearest* out) {
  cmNearest tmp;
  if (!out) out = &tmp;
  if (!cm_bvh_nearest(bvh, vert, face, p, max_dist, out)) return INFINITY;
  if (out->dist2 == 0) return 0;

  /* the pseudonormal of the feature holding the closest point */
  size_t f = (size_t)out->face;
  double n[3], d[3];
  if (out->feature == CM_FEATURE_VERTEX) {
    cm_v3_copy(n, vert_pn + 3 * (size_t)face[3 * f + out->index]);
  } else if (out->feature == CM_FEATURE_EDGE) {
    cm_v3_copy(n, edge_pn + 9 * f + 3 * (size_t)out->index);
  } else if (face_normal) {
    cm_v3_copy(n, face_normal + 3 * f);
  } else {
    double e1[3], e2[3];
    const double* a = vert + 3 * (size_t)face[3 * f];
    cm_v3_sub(e1, vert + 3 * (size_t)face[3 * f + 1], a);
    cm_v3_sub(e2, vert + 3 * (size_t)face[3 * f + 2], a);
    cm_v3_cross(n, e1, e2);
  }
  cm_v3_sub(d, p, out->point);
  double dist = sqrt(out->dist2);
  return cm_v3_dot(d, n) < 0 ? -dist : dist;
}

int cm_bvh_inside(const cmBvh* bvh, const double* vert, const int* face, const double* face_normal,
                  const double* vert_pn, const double* edge_pn, const double p[3], double max_dist,
                  cmNearest* out) {
  return cm_bvh_signed_distance(bvh, vert, face, face_normal, vert_pn, edge_pn, p, max_dist, out) <
         0;
}
