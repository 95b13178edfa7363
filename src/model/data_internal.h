/* Private part of cmData (d->internal): scratch arena and per-step work arrays. */
#ifndef CM_DATA_INTERNAL_H
#define CM_DATA_INTERNAL_H

#include "comply/data.h"
#include "core/arena.h"
#include "model/fields.h"
#include "model/rows.h"

typedef struct cmDataPriv {
  cmArena arena; /* per-step scratch, reset at the start of every step */
  /* per-thread scratch of the narrowphase's edge search (one per OpenMP thread the data was
   * created for), reset and rewound with the arena (cm_data_scratch_reset, _rewind) */
  cmArena* tarena;
  int ntarena;
  double* force;  /* total applied force on the com this step, world, N     (nbody x 3) */
  double* torque; /* total applied torque about the com, world, N m         (nbody x 3) */
  double* spin; /* rotation velocity minus end velocity (gyroscopic midpoint), world (nbody x 3) */
  double* save; /* state at the start of the step, for rollback (nbody x CM_NSTATE) */
  double* node_save; /* the nodes' state at the start of the step   (nnode x CM_NNODE_STATE) */
  /* the deformed geometry of the deformable bodies, from node_pos (model/state.c): vertex
   * positions (world) and area vectors sum_f A_f n_f / 3; only the vertices of deformable
   * geometries are written                                         (nvert x 3 each) */
  double* dvert;
  double* dareavec;
  /* and the inside-test structures of those geometries: vertex pseudonormals (ndvert x 3),
   * unit face normals (ndface x 3), edge pseudonormals (ndface x 9), and a face tree per
   * geometry (dbvh: ngeom cmBvh, copied from the model's and refitted every step; NULL
   * without deformable bodies) */
  double* dvert_pn;
  double* dface_normal;
  double* dedge_pn;
  void* dbvh;
  int ngeom; /* entries of dbvh */
  double*
      node_vx; /* the velocity that moves each node over the step (solve, integrate) (nnode x 3) */
  int ncand;   /* broadphase candidate pairs this step */
  int maxcand;
  int* cand;     /* body a < body b, rule                                  (ncand x 3) */
  int limit_hit; /* 1 if this step exceeded opt.max_contacts */
  int nrow;      /* solver rows this step (arena) */
  cmRow* row;
} cmDataPriv;

/* the private per-body arrays, allocated and freed with the data (data.c) like CM_DATA_BODY:
 * X(type, name, rows, cols). The arena and the candidates (grown by the broadphase) are freed by
 * hand. */
#define CM_PRIV_BODY(X)                                                                            \
  X(double, force, nbody, 3)                                                                       \
  X(double, torque, nbody, 3)                                                                      \
  X(double, spin, nbody, 3)                                                                        \
  X(double, save, nbody, CM_NSTATE)                                                                \
  X(double, node_save, nnode, CM_NNODE_STATE)                                                      \
  X(double, dvert, ndvert, 3)                                                                      \
  X(double, dareavec, ndvert, 3)                                                                   \
  X(double, dvert_pn, ndvert, 3)                                                                   \
  X(double, dface_normal, ndface, 3)                                                               \
  X(double, dedge_pn, ndface, 9)                                                                   \
  X(double, node_vx, nnode, 3)

static inline cmDataPriv* cm_priv(const cmData* d) {
  return (cmDataPriv*)d->internal;
}

/* the scratch arenas (the step's and the threads'): release everything and grow each to the peak
 * it saw (between steps), or release without growing (between sub-steps) */
void cm_data_scratch_reset(cmData* d);
void cm_data_scratch_rewind(cmData* d);

#endif
