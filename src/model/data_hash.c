/* cm_data_hash: a determinism hash of the simulation state.
 *
 * FNV-1a 64 over, in this order and each as 8 bytes least significant first:
 *   d->step (as a signed 64-bit integer), then for every body b = 0 .. nbody-1:
 *   body_cpos[3b..3b+2], body_xquat[4b..4b+3], body_cvel[3b..3b+2], body_angvel[3b..3b+2],
 *   body_dv[6b..6b+5]
 * then for every node n = 0 .. nnode-1 of the deformable bodies: node_pos[3n..3n+2],
 * node_vel[3n..3n+2] (CM_DATA_NODES; nothing for a scene of rigid bodies only), then, if any
 * contact keeps something from step to step (the private table of anchors, model/data_internal.h:
 * a friction spring's stretch, docs/contact-laws.md, "Friction", or an edge contact's birth
 * offset), their count and for each in table order its two bodies and four key integers (as
 * signed 64-bit integers), its stretch (3 doubles) and its birth offset (a double)
 * (the doubles as their IEEE-754 bit patterns), which are the rows of CM_DATA_STATE
 * (comply/fields.h) in their order. These 19 numbers per body, the nodes', the anchors' and the
 * step are the whole state that the next step depends on (every other field of cmData is derived
 * from them or is per-step scratch), so two data with equal hashes continue identically. d->time is
 * step * timestep and is not hashed separately. Bit patterns make the hash exact: -0.0 and 0.0
 * differ. */
#include <stdint.h>

#include "comply/fields.h"
#include "core/hash.h"
#include "model/data_internal.h"

uint64_t cm_data_hash(const cmModel* m, const cmData* d) {
  uint64_t h = cm_fnv1a_u64(CM_FNV_OFFSET, (uint64_t)(int64_t)d->step);
  for (int b = 0; b < m->nbody; b++) {
#define HASH_STATE(type, name, rows, cols)                                                         \
  for (int k = 0; k < (cols); k++)                                                                 \
    h = cm_fnv1a_u64(h, cm_double_bits(d->name[(size_t)b * (cols) + k]));
    CM_DATA_STATE(HASH_STATE)
  }
  for (int b = 0; b < m->nnode; b++) {
    CM_DATA_NODES(HASH_STATE)
#undef HASH_STATE
  }
  const cmDataPriv* p = cm_priv(d);
  if (p && p->nanchor) {
    h = cm_fnv1a_u64(h, (uint64_t)(int64_t)p->nanchor);
    for (int i = 0; i < p->nanchor; i++) {
      const cmAnchor* a = &p->anchor[i];
      for (int k = 0; k < 2; k++)
        h = cm_fnv1a_u64(h, (uint64_t)(int64_t)a->body[k]);
      for (int k = 0; k < 4; k++)
        h = cm_fnv1a_u64(h, (uint64_t)(int64_t)a->key[k]);
      for (int k = 0; k < 3; k++)
        h = cm_fnv1a_u64(h, cm_double_bits(a->s[k]));
      h = cm_fnv1a_u64(h, cm_double_bits(a->o));
    }
  }
  return h;
}
