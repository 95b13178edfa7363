/* The layout of the public structs as the C compiler sees it, for tests/python/test_layout.py:
 * one line "STRUCT FIELD OFFSET" per field and "STRUCT sizeof SIZE" per struct, and the type and
 * shape of every array of cmModel and per-body array of cmData. cmModel and cmData are walked through the field lists of comply/fields.h, so a field added there is
 * printed without a change here and the Python mirror (python/comply/_lib.py) must follow. */
#include <stddef.h>
#include <stdio.h>

#include "comply/comply.h"

#define FIELD(s, f) printf("%s %s %zu\n", #s, #f, offsetof(s, f));
#define SIZE(s) printf("%s sizeof %zu\n", #s, sizeof(s));

/* the rows of the lists have 2, 3 or 4 arguments (fields.h) */
#define M2(type, name) FIELD(cmModel, name)
#define M4(type, name, rows, cols) FIELD(cmModel, name)
/* the shapes of the arrays, as the list writes them: "array NAME TYPE ROWS COLS" */
#define MSHAPE(type, name, rows, cols) printf("array %s %s %s %s\n", #name, #type, #rows, #cols);
#define DSHAPE(type, name, rows, cols) MSHAPE(type, name, rows, cols)
#define D2(type, name) FIELD(cmData, name)
#define D3(type, name, count) FIELD(cmData, name)
#define D4(type, name, rows, cols) FIELD(cmData, name)
#define DB(type, name, count, capacity) FIELD(cmData, name) FIELD(cmData, count) FIELD(cmData, capacity)

int main(void) {
  SIZE(cmSourceLoc)
  FIELD(cmSourceLoc, line) FIELD(cmSourceLoc, col)

      SIZE(cmOptions) FIELD(cmOptions, timestep) FIELD(cmOptions, duration) FIELD(
          cmOptions, steps) FIELD(cmOptions,
                                  gravity) FIELD(cmOptions,
                                                 integrator) FIELD(cmOptions,
                                                                   substeps) FIELD(cmOptions,
                                                                                   output_every)
          FIELD(cmOptions, max_speed) FIELD(cmOptions, max_contacts) FIELD(cmOptions, vtk) FIELD(
              cmOptions, allow_initial_overlap) FIELD(cmOptions, solver_tolerance)

              SIZE(cmGeomDef) FIELD(cmGeomDef, type) FIELD(cmGeomDef, radius) FIELD(
                  cmGeomDef, refine) FIELD(cmGeomDef, size) FIELD(cmGeomDef, divisions)
                  FIELD(cmGeomDef, file) FIELD(cmGeomDef, scale) FIELD(cmGeomDef, repair) FIELD(
                      cmGeomDef, mesh) FIELD(cmGeomDef, normal) FIELD(cmGeomDef,
                                                                      offset) FIELD(cmGeomDef, loc)

                      SIZE(cmMesh) FIELD(cmMesh, nvert) FIELD(cmMesh, nface) FIELD(
                          cmMesh,
                          vert) FIELD(cmMesh,
                                      face) FIELD(cmMesh,
                                                  face_normal) FIELD(cmMesh,
                                                                     face_area) FIELD(cmMesh,
                                                                                      vert_areavec)

                          SIZE(cmDeformableDef) FIELD(cmDeformableDef, material) FIELD(
                              cmDeformableDef, young) FIELD(cmDeformableDef,
                                                            poisson) FIELD(cmDeformableDef, cells)
                              FIELD(cmDeformableDef, has_fixed) FIELD(cmDeformableDef, fixed_min) FIELD(
                                  cmDeformableDef,
                                  fixed_max) FIELD(cmDeformableDef,
                                                   attach) FIELD(cmDeformableDef,
                                                                 attach_min) FIELD(cmDeformableDef, attach_max)
                                  FIELD(cmDeformableDef, scheme) FIELD(cmDeformableDef, rayleigh_mass) FIELD(
                                      cmDeformableDef, rayleigh_stiffness) FIELD(cmDeformableDef,
                                                                                 loc)

                                      SIZE(
                                          cmBodyDef) FIELD(cmBodyDef,
                                                           name) FIELD(cmBodyDef, alias)
                                          FIELD(cmBodyDef, geom) FIELD(cmBodyDef, density) FIELD(cmBodyDef, mass) FIELD(cmBodyDef, has_com) FIELD(
                                              cmBodyDef,
                                              com) FIELD(cmBodyDef,
                                                         has_inertia) FIELD(cmBodyDef, inertia)
                                              FIELD(cmBodyDef, position) FIELD(cmBodyDef, orientation) FIELD(
                                                  cmBodyDef,
                                                  velocity) FIELD(cmBodyDef, angular_velocity)
                                                  FIELD(cmBodyDef, motion) FIELD(cmBodyDef, force) FIELD(
                                                      cmBodyDef, moment) FIELD(cmBodyDef,
                                                                               deformable) FIELD(cmBodyDef, loc)

                                                      SIZE(
                                                          cmRuleDef) FIELD(cmRuleDef, pair)
                                                          FIELD(cmRuleDef, law) FIELD(cmRuleDef, ka) FIELD(cmRuleDef, step_damping) FIELD(
                                                              cmRuleDef,
                                                              stiffness_damping) FIELD(cmRuleDef,
                                                                                       elastic_repulsion)
                                                              FIELD(cmRuleDef, play) FIELD(cmRuleDef, contact_time) FIELD(
                                                                  cmRuleDef,
                                                                  mass) FIELD(cmRuleDef, stiffness)
                                                                  FIELD(cmRuleDef, damping) FIELD(cmRuleDef, friction) FIELD(
                                                                      cmRuleDef,
                                                                      stick_velocity) FIELD(cmRuleDef, min_period)
                                                                      FIELD(cmRuleDef, method) FIELD(
                                                                          cmRuleDef,
                                                                          direction) FIELD(cmRuleDef,
                                                                                           integration) FIELD(cmRuleDef, loc)

                                                                          SIZE(cmJointDef) FIELD(cmJointDef, body) FIELD(
                                                                              cmJointDef,
                                                                              anchor) FIELD(cmJointDef, loc)

                                                                              SIZE(cmScene) FIELD(cmScene, name) FIELD(cmScene, file) FIELD(
                                                                                  cmScene,
                                                                                  dir) FIELD(cmScene,
                                                                                             opt)
                                                                                  FIELD(cmScene, nbody) FIELD(
                                                                                      cmScene,
                                                                                      body) FIELD(cmScene, nrule)
                                                                                      FIELD(cmScene, rule) FIELD(
                                                                                          cmScene,
                                                                                          njoint) FIELD(cmScene, joint)

                                                                                          SIZE(
                                                                                              cmContact) FIELD(cmContact,
                                                                                                               body)
                                                                                              FIELD(cmContact, pair) FIELD(
                                                                                                  cmContact,
                                                                                                  vert) FIELD(cmContact, face)
                                                                                                  FIELD(
                                                                                                      cmContact,
                                                                                                      flags) FIELD(cmContact,
                                                                                                                   p0)
                                                                                                      FIELD(cmContact, p1) FIELD(
                                                                                                          cmContact,
                                                                                                          n) FIELD(cmContact,
                                                                                                                   dist)
                                                                                                          FIELD(
                                                                                                              cmContact,
                                                                                                              area)
                                                                                                              FIELD(
                                                                                                                  cmContact,
                                                                                                                  force)
                                                                                                                  FIELD(
                                                                                                                      cmContact,
                                                                                                                      ftan)

                                                                                                                      SIZE(
                                                                                                                          cmContactPair) FIELD(cmContactPair, body) FIELD(cmContactPair, rule) FIELD(cmContactPair, first) FIELD(cmContactPair,
                                                                                                                                                                                                                                 points) FIELD(cmContactPair,
                                                                                                                                                                                                                                               area) FIELD(cmContactPair,
                                                                                                                                                                                                                                                           max_penetration) FIELD(cmContactPair,
                                                                                                                                                                                                                                                                                  force) FIELD(cmContactPair,
                                                                                                                                                                                                                                                                                               max_pressure)

                                                                                                                          SIZE(
                                                                                                                              cmCheckpointInfo)
                                                                                                                              FIELD(
                                                                                                                                  cmCheckpointInfo, step)
                                                                                                                                  FIELD(cmCheckpointInfo, time)
                                                                                                                                      FIELD(cmCheckpointInfo, timestep)
                                                                                                                                          FIELD(cmCheckpointInfo, nbody)
                                                                                                                                              FIELD(
                                                                                                                                                  cmCheckpointInfo,
                                                                                                                                                  model_fingerprint)
                                                                                                                                                  FIELD(cmCheckpointInfo, scene_fingerprint)

                                                                                                                                                      SIZE(
                                                                                                                                                          cmModel)
                                                                                                                                                          CM_MODEL_SIZES(M2) CM_MODEL_SCALARS(M2) CM_MODEL_ARRAYS(M4) CM_MODEL_STRINGS(M4) CM_MODEL_OWNING(
                                                                                                                                                              M4)

                                                                                                                                                              SIZE(
                                                                                                                                                                  cmData)
                                                                                                                                                                  CM_DATA_SCALARS(
                                                                                                                                                                      D2)
                                                                                                                                                                      CM_DATA_TOTALS(
                                                                                                                                                                          D3) CM_DATA_TEXT(D3) CM_DATA_BODY(D4) CM_DATA_BUFFERS(DB) CM_DATA_PRIVATE(D2) CM_MODEL_ARRAYS(MSHAPE) CM_DATA_BODY(DSHAPE) printf("constant CM_WARN_COUNT %d\nconstant CM_TIMER_COUNT %d\n",
                                                                                                                                                                                                                                                                                                            (int)
                                                                                                                                                                                                                                                                                                                CM_WARN_COUNT,
                                                                                                                                                                                                                                                                                                            (int)
                                                                                                                                                                                                                                                                                                                CM_TIMER_COUNT);
  return 0;
}
