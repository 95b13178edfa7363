/* Small test meshes shared by the mesh tests (unit/test_mesh_diagnose, unit/test_mesh_repair):
 * unit cubes, a cube whose sides have their own vertices, merging, face flips. */
#ifndef CM_TEST_MESHES_H
#define CM_TEST_MESHES_H

#include <math.h>
#include <string.h>

#include "comply/mesh.h"
#include "test.h"

static inline cmMesh* cube(double size) {
  const double s[3] = {size, size, size};
  return cm_mesh_box(s, 1);
}

static inline int contains(const char* s, const char* sub) {
  if (!strstr(s, sub)) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", s, sub);
    return 0;
  }
  return 1;
}

/* a and b in one mesh, b's vertices moved by t (b's face indices shifted) */
static inline cmMesh* merge(const cmMesh* a, const cmMesh* b, const double t[3]) {
  cmMesh* m = cm_mesh_new(a->nvert + b->nvert, a->nface + b->nface);
  memcpy(m->vert, a->vert, sizeof(double) * 3 * (size_t)a->nvert);
  memcpy(m->face, a->face, sizeof(int) * 3 * (size_t)a->nface);
  for (int v = 0; v < b->nvert; v++)
    for (int k = 0; k < 3; k++)
      m->vert[3 * (a->nvert + v) + k] = b->vert[3 * v + k] + t[k];
  for (int i = 0; i < 3 * b->nface; i++)
    m->face[3 * a->nface + i] = b->face[i] + a->nvert;
  return m;
}

static inline void flip(cmMesh* m, int f) {
  int t = m->face[3 * f + 1];
  m->face[3 * f + 1] = m->face[3 * f + 2];
  m->face[3 * f + 2] = t;
}

/* the unit cube with every face listed twice (as a UR10 part's STL): 8 vertices unused, the
 * copies (faces 12-23) on the first 8 vertices, half of them (18-23) reversed */
static inline cmMesh* doubled_cube(void) {
  cmMesh* c = cube(1);
  const double zero[3] = {0, 0, 0};
  cmMesh* m = merge(c, c, zero);
  cm_mesh_free(c);
  for (int f = 12; f < 24; f++) {
    for (int k = 0; k < 3; k++)
      m->face[3 * f + k] -= 8;
    if (f >= 18) flip(m, f);
  }
  return m;
}

/* the side (0..5: -x, +x, -y, +y, -z, +z) of a face of the cube, from its centroid */
static inline int side(const cmMesh* m, int f) {
  double c[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++)
      c[i] += m->vert[3 * m->face[3 * f + k] + i] / 3;
  int axis = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(c[i]) > fabs(c[axis])) axis = i;
  return 2 * axis + (c[axis] > 0);
}

/* each side of the cube with its own 4 vertices, the sides in bit mask `moved` moved out by d */
static inline cmMesh* unwelded(int moved, double d) {
  cmMesh* c = cube(1);
  cmMesh* m = cm_mesh_new(24, 12);
  int map[6][8];
  memset(map, 0xff, sizeof map);
  int nv = 0;
  for (int f = 0; f < 12; f++) {
    int s = side(c, f);
    for (int k = 0; k < 3; k++) {
      int v = c->face[3 * f + k];
      if (map[s][v] < 0) {
        map[s][v] = nv;
        for (int i = 0; i < 3; i++)
          m->vert[3 * nv + i] = c->vert[3 * v + i];
        if (moved >> s & 1) m->vert[3 * nv + s / 2] += (s % 2 ? d : -d);
        nv++;
      }
      m->face[3 * f + k] = map[s][v];
    }
  }
  CHECK(nv == 24);
  cm_mesh_free(c);
  return m;
}

#endif
