/* The compiler's part for deformable bodies (model_fem.c). */
#ifndef CM_MODEL_FEM_H
#define CM_MODEL_FEM_H

#include "comply/model.h"

/* Fill the node and tetrahedron arrays of the deformable bodies from their tet meshes (tet[g]
 * for geometry g: world coordinates at t = 0, NULL for rigid geometries; surf[g][i] the node of
 * vertex i of the geometry), and refuse the interactions they do not support yet (every rule a
 * deformable body meets must be an implicit area_compliant or linear vertex rule against a rigid
 * body; no joints). Errors name the scene line. */
cmStatus cm_compile_fem(const cmScene* s, cmModel* m, const cmTetMesh* const* tet,
                        const int* const* surf, char* err, size_t errsz);

/* the material of deformable body b (element library's model and Lame parameters) */
struct cmFemMaterial;
void cm_body_fem_material(const cmModel* m, int b, struct cmFemMaterial* mat);

/* the elastic energy (J) of deformable body b at the node positions x (nnode x 3, world) */
double cm_body_elastic_energy(const cmModel* m, int b, const double* x);

#endif
