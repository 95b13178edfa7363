/* The facets of a convex mesh: its triangles grouped by plane (a box of any divisions has 6), and
 * the inside and nearest-face queries answered from the planes where they are clear, with the
 * same answers as the face tree (facets.c). */
#ifndef CM_GEOM_FACETS_H
#define CM_GEOM_FACETS_H

#include "geom/bvh.h"

/* at most this many facets are searched plane by plane (cm_facets_inside); a mesh of more, up to
 * CM_FACET_GRID_MAX, is searched through a direction grid (cm_facets_grid_inside) where it has
 * one; a mesh of more still has none (its queries go to the face tree) */
#define CM_FACET_MAX 32
#define CM_FACET_GRID_MAX 2048
/* The direction grid: each face of a cube about the mesh's centre o (its ball's) cut into
 * CM_FACET_GRID x CM_FACET_GRID cells; a point p falls in the cell its direction p - o crosses.
 * A cell lists the facets whose plane can come within CM_FACET_GRID_DEPTH times the ball's
 * radius of a point of the mesh in the cell's cone, and bounds the planes of the others
 * (facets.c): the points less deep than that, and most deeper ones, are decided from the cell's
 * facets alone. Where the cells would list more than CM_FACET_GRID_MEAN facets on average, the
 * depth is halved, CM_FACET_GRID_TRIES tries in all (a sphere of 1280 faces gets its grid at
 * an eighth); a mesh that still would (a long or flat one) gets no grid. */
#define CM_FACET_GRID 8
#define CM_FACET_GRID_CELLS (6 * CM_FACET_GRID * CM_FACET_GRID)
#define CM_FACET_GRID_DEPTH 0.05
#define CM_FACET_GRID_MEAN 32
#define CM_FACET_GRID_TRIES 4
/* the nearest face is searched among a facet's faces when it has at most this many, else in the
 * face tree */
#define CM_FACET_FACES_MAX 16

/* The facets of a closed convex mesh (every edge between two faces, V - E + F = 2, every vertex on
 * or behind every facet's plane within 1e-12 r, r the radius of the mesh's bounding ball), in the
 * order of their first faces. Writes plane (facet x 4: the outward unit normal n of the facet's
 * first face and the offset c = n . v of its first vertex; the facet is n . x = c), nface_of
 * (facet: its face count) and order (the mesh's faces, facet by facet, each facet's in face
 * order; not written when NULL). Returns the number of facets, 0 when the mesh is not such a mesh
 * of at most max facets (plane, nface_of and order are then unspecified). */
int cm_facets_build(const double* vert, int nvert, const int* face, int nface,
                    const double* face_normal, const int* face_adj, double r, int max,
                    double* plane, int* nface_of, int* order);

/* Is p (the mesh's frame) inside the convex mesh of the facets (plane, nfacet; facet j's faces
 * order[first[j] .. first[j] + count[j] - 1], their boxes (tri_box) from box + 6 first[j])? 1
 * inside, 0 outside, -1 when the planes do not decide it (p within 1e-7 r of the surface): the
 * caller asks the face tree. With out (not NULL) a 1 also gives the nearest face as
 * cm_bvh_inside(..., p, bound, out) would, bit for bit, and -1 whenever that is not certain (two
 * facets or two faces about as near, a facet of more than CM_FACET_FACES_MAX faces, the nearest
 * point not inside its face). */
int cm_facets_inside(const double* plane, int nfacet, const int* first, const int* count,
                     const int* order, const double* box, const double* vert, const int* face,
                     double r, const double p[3], double bound, cmNearest* out);

/* The direction grid of the nfacet facets (plane) of a convex mesh whose bounding ball has centre
 * o and radius r: bound (4 per cell: the bound on the planes of the facets the cell does not
 * list, facets.c) and, when list is not NULL, cell_n (CM_FACET_GRID_CELLS: the facets each cell
 * lists) and the lists cell after cell, each in facet order (the caller's cell addresses are the
 * running sums of cell_n). Returns the total of the lists, or 0 when the mesh gets no grid (o not
 * inside by more than the grid's depth, or too many facets per cell at every depth tried). */
long cm_facets_grid_build(const double* plane, int nfacet, const double o[3], double r, int* cell_n,
                          double* bound, int* list);

/* cm_facets_inside from the direction grid about o (each cell's first entry cell_adr and count
 * cell_n in list, its bound cell_bound): the same answers, bit for bit, or -1 (the caller asks
 * the face tree); a point at the centre gets -1. */
int cm_facets_grid_inside(const double* plane, const double o[3], const int* cell_adr,
                          const int* cell_n, const double* cell_bound, const int* list,
                          const int* first, const int* count, const int* order, const double* box,
                          const double* vert, const int* face, double r, const double p[3],
                          double bound, cmNearest* out);

#endif
