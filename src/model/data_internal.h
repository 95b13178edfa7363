/* Private part of cmData (d->internal): scratch arena and per-step work arrays. */
#ifndef CM_DATA_INTERNAL_H
#define CM_DATA_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "comply/data.h"
#include "core/arena.h"
#include "core/par_gate.h"
#include "model/fields.h"
#include "model/rows.h"

/* What a contact keeps from one step to the next, by its identity (bodies and key, below): the
 * stretch s of its friction spring (world, m; docs/contact-laws.md, "Friction") and the birth
 * offset o of an edge-edge contact's normal law (m, >= 0; docs/contact-laws.md, "Edge contacts
 * that begin deeper than they approached"). */
typedef struct cmAnchor {
  int body[2];
  int key[4];
  double s[3];
  double o;
} cmAnchor;

typedef struct cmDataPriv {
  cmArena arena; /* per-step scratch, reset at the start of every step */
  /* per-thread scratch of the narrowphase's edge search (one per OpenMP thread the data was
   * created for), reset and rewound with the arena (cm_data_scratch_reset, _rewind); each on
   * its own cache lines (core/arena.h, cmArenaSlot) */
  cmArenaSlot* tarena;
  int ntarena;
  double* force;  /* total applied force on the com this step, world, N     (nbody x 3) */
  double* torque; /* total applied torque about the com, world, N m         (nbody x 3) */
  double* spin; /* rotation velocity minus end velocity (gyroscopic midpoint), world (nbody x 3) */
  double* lgyro; /* the world angular momentum the gyroscopic update kept out of the end velocity
                    in the start's axes, R (L1 - L2) (solve.c), world (nbody x 3) */
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
  /* the implicit solve's work since cm_data_new (tests, benchmarks; not state): factorisations,
   * Newton directions from a reused factor (conjugate gradients), coupled Newton steps taken */
  long solve_nfactor, solve_nreuse, solve_ncoupled;
  /* the largest relative residual of an island's Newton start in the last step (the warm start's
   * quality; tests) */
  double solve_res0;
  /* the symbolic analyses of the block-sparse islands, kept from step to step while an island's
   * pattern holds (solve/block_cholesky.c, cm_bchol_analyse_kept): not state, so neither
   * copied nor saved (the analysis is a function of the pattern alone). CM_BCHOL_KEPT entries,
   * each in its own arena and keyed by the island's first body; the least recently used is
   * replaced. */
#define CM_BCHOL_KEPT 8
  cmArena bc_arena[CM_BCHOL_KEPT];
  void* bc_kept[CM_BCHOL_KEPT];
  int bc_body[CM_BCHOL_KEPT]; /* first body + 1 (0: unused) */
  long bc_used[CM_BCHOL_KEPT], bc_clock;
  long bc_solve_clock;              /* bc_clock when the current implicit solve began */
  long solve_nanalyse, solve_nkept; /* analyses run, analyses kept from an earlier step */
  /* the gates of the parallel regions (core/par_gate.h): the narrowphase's vertex queries and
   * edge searches, the implicit solve's islands; speed only, not state */
  cmParGate gate_vert, gate_edge, gate_solve;
  /* the broadphase's kept pairs (collide/broadphase.c): the pairs of ordinary bodies whose boxes
   * widened by BP_MARGIN overlap, valid while every such body's box stays inside its widened
   * box of then (bp_fat); the large bodies of then. A cache, not state: neither copied nor
   * saved, and the candidates do not depend on it */
  int bp_valid, bp_nall, bp_nord, bp_nlarge, bp_npair, bp_maxpair;
  long bp_nkeep; /* the times the pairs were kept (the grid run on widened boxes) */
  int *bp_all, *bp_ord, *bp_large; /* collidable, ordinary, large bodies (nbody each) */
  unsigned char* bp_is_large;      /* (nbody) */
  double* bp_fat;                  /* (nbody x 6) */
  int* bp_pair;                    /* a < b, rule, sorted  (bp_npair x 3) */
  int ncand;                       /* broadphase candidate pairs this step */
  int maxcand;
  int* cand;     /* body a < body b, rule                                  (ncand x 3) */
  int limit_hit; /* 1 if this step exceeded opt.max_contacts */
  int law_bad;   /* 1 if a user law returned a response out of its range (d->message says) */
  int nrow;      /* solver rows this step (arena) */
  cmRow* row;
  /* the identity of every contact of this step (narrowphase): 4 ints per contact, with its
   * bodies the key of its tangential anchor (docs/contact-laws.md, "Friction"): a vertex
   * contact {vert, -1, -1, -1} (each of a vertex's contacts in an inner corner {vert, -1, -1,
   * its face normal's direction code}: narrowphase.c corner_key), an edge-edge contact {ea0,
   * ea1, eb0, eb1}, a contact without identity from step to step (contour) {-1, -1, -1, -1}
   * (maxckey x 4, >= maxcontact); the anchor of a contact_time pair row (one row per pair) has
   * the key {-2, -2, -2, -2} */
  int* ckey;
  int maxckey;
  /* The anchors: the stretch of the friction spring of every anchored contact and the birth
   * offset of every implicit edge-edge contact (laws.c) at the end of the last step (state,
   * like body_dv: hashed, saved in checkpoints, copied), in the order of the solver rows that
   * left them (the contacts' order: the same for any number of threads); the solve writes the
   * next table into anchor_new and swaps; anchor_save holds the table of the step's start for a
   * rollback. */
  cmAnchor* anchor;
  int nanchor, maxanchor;
  cmAnchor* anchor_new;
  int maxanchor_new;
  cmAnchor* anchor_save;
  int nanchor_save, maxanchor_save;
} cmDataPriv;

/* room for n anchors in *a (capacity *cap); 0 without memory */
int cm_anchor_room(cmAnchor** a, int* cap, int n);

/* room for ncontact contacts and npair pairs in d->contact and d->pair (their capacities
 * maxcontact and maxpair grow, doubling from 1024 and 256 as the narrowphase's do; the contents
 * kept); 0 without memory, the capacities then those of the arrays that could grow. The
 * contacts' private keys (ckey) are not grown here: the narrowphase grows them to maxcontact
 * before it writes a contact. */
int cm_contact_room(cmData* d, int ncontact, int npair);

/* A hash index of the anchors of p (open addressing, cap a power of two >= 2 nanchor, from the
 * caller's memory: idx holds cap ints): build it, then find the anchor of the identity id (bodies
 * a, b and the 4 ints of ckey, as cmAnchor's first 6 ints), NULL if none. The lookup is inline
 * (once a friction row and step: the call, the key's copy and the compares of a, b and key apart
 * were a third of its instructions) */
void cm_anchor_index(const cmDataPriv* p, int* idx, int cap);

static inline unsigned cm_anchor_hash(const int id[6]) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 6; i++)
    h = (h ^ (uint32_t)id[i]) * 1099511628211ull;
  return (unsigned)(h ^ (h >> 32));
}

static inline const cmAnchor* cm_anchor_find(const cmDataPriv* p, const int* idx, int cap,
                                             const int id[6]) {
  unsigned j = cm_anchor_hash(id) & (unsigned)(cap - 1);
  for (; idx[j] >= 0; j = (j + 1) & (unsigned)(cap - 1))
    if (!memcmp(&p->anchor[idx[j]], id, 6 * sizeof *id)) return &p->anchor[idx[j]];
  return NULL;
}

/* the private per-body arrays, allocated and freed with the data (data.c) like CM_DATA_BODY:
 * X(type, name, rows, cols). The arena and the candidates (grown by the broadphase) are freed by
 * hand. */
#define CM_PRIV_BODY(X)                                                                            \
  X(double, force, nbody, 3)                                                                       \
  X(double, torque, nbody, 3)                                                                      \
  X(double, spin, nbody, 3)                                                                        \
  X(double, lgyro, nbody, 3)                                                                       \
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
