/* comply: the compiled, read-only model.
 *
 * cm_model_compile turns a cmScene into a cmModel: meshes loaded, validated and prepared, mass
 * properties computed, geometry shared between identical primitives, and the interaction rules
 * resolved once into a table over alias classes (aliases matching the same globs share a class).
 * Arrays are structure-of-arrays indexed by int; shapes are given as (rows x cols). */
#ifndef COMPLY_MODEL_H
#define COMPLY_MODEL_H

#include "comply/core.h"
#include "comply/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* two faces meeting at this angle (degrees) or more make a ridge (mesh_face_ridge) */
#define CM_RIDGE_DEG 25.0

/* vertices per group of mesh_vgroup_box (a power of 2) */
#define CM_VGROUP 8

typedef struct cmModel {
  /* sizes */
  int nbody;      /* bodies */
  int ngeom;      /* distinct geometries (identical primitives are shared) */
  int nvert;      /* mesh vertices over all geometries */
  int nface;      /* mesh faces over all geometries */
  int nrule;      /* rules; rule 0 is the built-in default ("*", "*") contact_time */
  int nalias;     /* distinct alias names */
  int nclass;     /* alias classes (aliases matched by the same globs) */
  int njoint;     /* joints */
  int nnode;      /* finite-element nodes of the deformable bodies */
  int ntet;       /* their tetrahedra */
  int ndvert;     /* nvert if the model has a deformable body, else 0: the rows of the data's
                     deformed-geometry arrays */
  int ndface;     /* nface likewise */
  int nridge;     /* ridges over all geometries (rows of mesh_ridge) */
  int nfacet;     /* facets of the convex meshes over all geometries (rows of facet_plane) */
  int nvgroup;    /* groups of CM_VGROUP consecutive vertices over all geometries (rows of
                     mesh_vgroup_box) */
  int ncell;      /* cells of the direction grids of the convex meshes of many facets (rows of
                     cell_facetadr, cell_nfacet) */
  int ncellfacet; /* the facets those cells list (rows of cell_facet) */

  char* name;    /* scene name */
  cmOptions opt; /* options; opt.steps resolved (> 0 unless duration is 0) */

  /* bodies */
  char** body_name;        /* (nbody) */
  int* body_alias;         /* alias index                                    (nbody) */
  int* body_motion;        /* cmMotion                                        (nbody) */
  int* body_geom;          /* geometry index                                  (nbody) */
  double* body_mass;       /* kg (from geometry for fixed bodies; 0 for planes) (nbody) */
  double* body_invmass;    /* 1/kg; 0 for infinite mass                        (nbody) */
  double* body_inertia;    /* about the com, body axes, kg m^2                 (nbody x 9) */
  double* body_invinertia; /* inverse of body_inertia; 0 for infinite mass     (nbody x 9) */
  double* body_com;        /* centre of mass in the body frame, m              (nbody x 3) */
  double* body_force;      /* constant outer force, world, N                   (nbody x 3) */
  double* body_moment;     /* constant outer moment, world, N m                (nbody x 3) */
  double* body_pos0;       /* initial frame origin, world, m                   (nbody x 3) */
  double* body_quat0;      /* initial orientation, w x y z                     (nbody x 4) */
  double* body_vel0;       /* initial frame origin velocity, world, m/s        (nbody x 3) */
  double* body_angvel0;    /* initial angular velocity, world, rad/s           (nbody x 3) */

  /* geometries */
  int* geom_type;           /* cmGeomType                                        (ngeom) */
  int* geom_vertadr;        /* first vertex in mesh_vert                         (ngeom) */
  int* geom_nvert;          /* vertices (0 for planes)                           (ngeom) */
  int* geom_faceadr;        /* first face in mesh_face                           (ngeom) */
  int* geom_nface;          /* faces (0 for planes)                              (ngeom) */
  double* geom_plane;       /* plane unit normal and offset, body frame          (ngeom x 4) */
  double* geom_aabb;        /* body-frame bounding box min xyz, max xyz, m       (ngeom x 6) */
  double* geom_ball;        /* body-frame bounding ball: the box's centre xyz and the largest
                               distance of a vertex from it (times 1 + 1e-12), m; a point
                               farther out is outside the mesh (planes: 0 0 0 inf) (ngeom x 4) */
  double* geom_volume;      /* m^3 (0 for planes)                                (ngeom) */
  double* geom_area;        /* surface area, m^2 (0 for planes)                  (ngeom) */
  int* geom_nridge;         /* ridges: edges whose faces meet at CM_RIDGE_DEG or more (ngeom) */
  int* geom_ridgeadr;       /* first ridge in mesh_ridge                         (ngeom) */
  int* geom_open_dir;       /* a mesh without facets: the axis direction (0..5: -x, +x, -y, +y,
                               -z, +z) along which most points around it that lie outside it
                               leave its box without meeting it (a tank's +z), whose segment
                               certifies a point outside at once (collide_mesh.c); -1 for none,
                               planes and meshes with facets (ngeom) */
  int* geom_nconcave;       /* concave ridges: ridges whose two faces each lie in front of the
                               other's plane (an inner corner); a vertex there gets a contact
                               per face (docs/contact-laws.md, "Concave corners") (ngeom) */
  int* geom_nfacet;         /* facets (coplanar faces) of a closed convex mesh of at most 2048
                               of them, whose contact queries decide from their planes where
                               they can (docs/meshes.md, "Convex meshes": all the planes up to
                               32, the planes of a direction-grid cell beyond); 0 for any other
                               mesh and for planes                              (ngeom) */
  int* geom_facetadr;       /* first facet in facet_plane                        (ngeom) */
  int* geom_vgroupadr;      /* first vertex group in mesh_vgroup_box             (ngeom) */
  int* geom_celladr;        /* first cell of the direction grid of a convex mesh of more than 32
                               and at most 2048 facets, whose queries decide from the facets
                               its cells list (docs/meshes.md, "Convex meshes"); -1 for none
                               (ngeom) */
  double* geom_grid;        /* that grid's centre, the centre of the mesh's bounding ball (body
                               frame, m); 0 for none                            (ngeom x 3) */
  double* mesh_vert;        /* vertices in the body frame, m                     (nvert x 3)
                               (reordered along a Morton curve for cache-friendly contact queries;
                               mesh_vert_source gives each one's index in the original mesh) */
  int* mesh_vert_source;    /* index of the vertex in the geometry's file or primitive (nvert; after
                               repair: true, of the vertex kept from its weld group) */
  int* mesh_face;           /* vertex indices local to the geometry              (nface x 3) */
  double* mesh_face_normal; /* unit outward normals, body frame              (nface x 3) */
  double* mesh_face_area;   /* m^2                                           (nface) */
  double* mesh_vert_areavec; /* sum_f A_f n_f / 3 over adjacent faces, m^2    (nvert x 3) */
  double* mesh_vert_pn;      /* angle-weighted vertex pseudonormals, unit     (nvert x 3) */
  double* mesh_edge_pn;      /* edge pseudonormals, edge k of face f at 9f+3k (nface x 9) */
  int* mesh_face_adj;        /* face across edge k of face f (edge k from vertex k to k+1), local
                                to the geometry; -1 if none (contour flood fill) (nface x 3) */
  int* mesh_face_ridge;      /* bit k set: edge k of face f is a ridge, its two faces meeting at
                                CM_RIDGE_DEG (25) degrees or more, or a border (vertex_edge) (nface) */
  int* mesh_ridge;           /* the ridges of each geometry, each once, in face order: lower and
                                higher vertex, the face it is listed from (the lower-numbered of
                                its two) and its edge k there, local to the geometry (nridge x 4) */
  double* facet_plane;       /* a facet's outward unit normal n (body frame) and offset c, m:
                                its plane is n . x = c                          (nfacet x 4) */
  int* facet_faceadr;        /* its first entry in mesh_facet_face            (nfacet) */
  int* facet_nface;          /* its faces                                     (nfacet) */
  int* mesh_facet_face;      /* the faces of each geometry with facets, facet by facet, local to
                                the geometry (unused for the other geometries) (nface) */
  double* mesh_facet_box;    /* the bounding box of each face of mesh_facet_face, in its order:
                                min x, min y, max x, max y, min z, max z, m, body frame (the
                                nearest-face search's bounds, facets.c) (nface x 6) */
  int* mesh_face_facet;      /* the facet of each face, local to its geometry (its index from
                                geom_facetadr); -1 on a geometry without facets (nface) */
  double* mesh_vgroup_box;   /* the body-frame bounding box (min xyz, max xyz, m) of each group
                                of CM_VGROUP consecutive vertices of a geometry (the last group
                                may hold fewer): the vertex queries reject a group at once where
                                the other body's ball or plane is out of its reach (nvgroup x 6) */
  int* cell_facetadr;        /* a grid cell's first entry in cell_facet       (ncell) */
  int* cell_nfacet;          /* the facets it lists                           (ncell) */
  double* cell_bound;        /* the bound on the planes of the facets it does not list, for a
                                point at distance d from the centre: min(u + max(0, d - R) a,
                                d a - c); R, u (m), a, c (m) (src/geom/facets.c) (ncell x 4) */
  int* cell_facet;           /* the facets (local to the geometry's) each cell lists, cell by
                                cell, each cell's in facet order              (ncellfacet) */
  void* geom_bvh;            /* internal: one face AABB tree per geometry     (ngeom) */

  /* interaction rules */
  cmRuleDef* rule;    /* resolved parameters (contact_time filled in), pair strings owned (nrule) */
  void** rule_law_fn; /* user law per rule (cmLawFn, NULL = built-in), see law.h  (nrule) */
  void** rule_law_ctx; /* its context                                             (nrule) */
  char** alias_name;   /* (nalias) */
  int* alias_class;    /* alias class, -1 if the alias matches no rule      (nalias) */
  int* class_rule;     /* rule index for a class pair, -1 none              (nclass x nclass) */
  int* class_first;    /* for `direction: first`: 0 if the row class alone matches the rule's
                          first glob, 1 if the column class alone does, -1 otherwise
                                                                             (nclass x nclass) */

  /* joints */
  int* joint_body;      /* body indices, -1 for the world                    (njoint x 2) */
  double* joint_anchor; /* anchor in each body's frame (world frame for -1)  (njoint x 6) */
  int* joint_rule;      /* rule giving the link's parameters                 (njoint) */

  /* deformable bodies (motion deformable, docs/deformable.md): linear tetrahedra over nodes.
   * Their geometry is the boundary of the tet mesh, in world coordinates at t = 0 (the body
   * frame is the world frame: position identity), each vertex a node (mesh_vert_node). */
  int* body_nodeadr;     /* first node of the body (0 for a rigid body)           (nbody) */
  int* body_nnode;       /* its nodes (0 for a rigid body)                        (nbody) */
  int* body_tetadr;      /* first tetrahedron                                     (nbody) */
  int* body_ntet;        /* its tetrahedra                                        (nbody) */
  int* body_material;    /* cmMaterial, -1 for a rigid body                       (nbody) */
  int* body_fem_scheme;  /* cmFemScheme                                           (nbody) */
  double* body_rayleigh; /* Rayleigh damping alpha (1/s) and beta (s); 0 rigid (nbody x 2) */
  double* body_lame;     /* Lame parameters mu, lambda, Pa                        (nbody x 2) */
  int* mesh_vert_node;   /* node of each vertex of a deformable geometry, else -1 (nvert) */
  int* node_body;        /* body of the node                                      (nnode) */
  int* node_attach;      /* the rigid body it moves with, -1 none (fixed wins)    (nnode) */
  double* node_anchor;   /* its position from that body's com in the body's axes  (nnode x 3) */
  int* node_fixed;       /* 1: held at its initial position                       (nnode) */
  double* node_pos0;     /* initial position, world, m                            (nnode x 3) */
  double* node_vel0;     /* initial velocity, world, m/s                          (nnode x 3) */
  double* node_mass;     /* lumped mass (a quarter of each adjacent tet's), kg    (nnode) */
  int* tet_node;         /* global node indices, positively oriented              (ntet x 4) */
  double* tet_dminv;     /* inverse of the rest edge matrix [X1-X0 X2-X0 X3-X0], 1/m (ntet x 9) */
  double* tet_vol;       /* rest volume, m^3                                      (ntet) */

  /* compile-time notes (warnings such as unstable damping), "FILE:LINE: ..." */
  int nnote;
  char** note; /* (nnote) */
} cmModel;

/* Compile a scene. Errors name the scene file and line where known. */
CM_API cmStatus cm_model_compile(const cmScene* scene, cmModel** out, char* err, size_t errsz);
CM_API void cm_model_free(cmModel* m);

/* the rule index used between two bodies, or -1 if they never interact (ignored bodies, two
 * non-dynamic bodies, law none, the same body) */
CM_API int cm_model_pair_rule(const cmModel* m, int body_a, int body_b);
/* body index by name, -1 if none */
CM_API int cm_model_body_index(const cmModel* m, const char* name);

/* How the contacts between two bodies are found, their rule's method resolved for the pair
 * (`auto` picks per pair: docs/contact-laws.md, "Contact methods"): the bodies whose vertices
 * are tested against the other, whether each such contact has half its area (two-way), and
 * whether edge-edge or contour-region contacts are added. */
typedef struct cmPairDetection {
  int vertex_body[2]; /* bodies whose vertices are tested; -1 for none */
  int half_area;      /* 1: two-way, each vertex contact carries half its area */
  int shared;         /* 1: two-way (auto), each side's contacts carry the side's share of
                         the pair's summed depths instead of half (docs/contact-laws.md) */
  int edges;          /* 1: edge-edge contacts between crossing edges */
  int contour;        /* 1: contour-region contacts (no vertex queries) */
} cmPairDetection;
/* 1 and *out filled if bodies a and b collide (cm_model_pair_rule >= 0), else 0. *out is
 * written either way: every field 0 and vertex_body[] -1 when 0 is returned (the same body twice,
 * an index out of range, bodies that never interact) */
CM_API int cm_model_pair_detection(const cmModel* m, int body_a, int body_b, cmPairDetection* out);
/* readable names of enum values (static storage) */
CM_API const char* cm_law_name(cmLawType law);
CM_API const char* cm_method_name(cmMethod method);
CM_API const char* cm_motion_name(cmMotion motion);

#ifdef __cplusplus
}
#endif
#endif
