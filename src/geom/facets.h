/* The facets of a convex mesh: its triangles grouped by plane (a box of any divisions has 6), and
 * the inside and nearest-face queries answered from the planes where they are clear, with the
 * same answers as the face tree (facets.c). */
#ifndef CM_GEOM_FACETS_H
#define CM_GEOM_FACETS_H

#include "geom/bvh.h"

/* at most this many facets: a mesh with more has none (its queries go to the face tree) */
#define CM_FACET_MAX 32
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
 * order[first[j] .. first[j] + count[j] - 1])? 1 inside, 0 outside, -1 when the planes do not
 * decide it (p within 1e-7 r of the surface): the caller asks the face tree. With out (not NULL)
 * a 1 also gives the nearest face as cm_bvh_inside(..., p, bound, out) would, bit for bit, and
 * -1 whenever that is not certain (two facets or two faces about as near, a facet of more than
 * CM_FACET_FACES_MAX faces, the nearest point not inside its face). */
int cm_facets_inside(const double* plane, int nfacet, const int* first, const int* count,
                     const int* order, const double* vert, const int* face, double r,
                     const double p[3], double bound, cmNearest* out);

#endif
