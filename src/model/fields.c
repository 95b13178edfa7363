/* Code generated from the field lists (comply/fields.h, model/fields.h): the model's arrays
 * allocated by row count and freed, and the bodies' dynamic state packed for the rollback.
 *
 * What the lists cannot say is written here by hand: the strings the rules own (cmRuleDef.pair)
 * and the face trees (cmBvh, an internal type), the two rows of CM_MODEL_OWNING. */
#include <string.h>

#include "core/internal.h"
#include "geom/bvh.h"
#include "model/fields.h"

int cm_model_alloc_rows(cmModel* m, const int* rows) {
  int ok = 1;
#define ALLOC_ROWS(type, name, r, cols)                                                            \
  if (rows == &m->r) {                                                                             \
    size_t n_ = (size_t)m->r * (size_t)(cols);                                                     \
    CM_ASSERT(m->name == NULL);                                                                    \
    m->name = cm_calloc(n_ ? n_ : 1, sizeof(type));                                                \
    ok = ok && m->name != NULL;                                                                    \
  }
  CM_MODEL_ARRAYS(ALLOC_ROWS)
  CM_MODEL_STRINGS(ALLOC_ROWS)
#undef ALLOC_ROWS
  return ok;
}

void cm_model_free(cmModel* m) {
  if (!m) return;
    /* what the arrays own: the strings, the rules' glob strings, the face trees */
#define FREE_STRINGS(type, name, rows, cols)                                                       \
  for (size_t i = 0; m->name && i < (size_t)m->rows * (size_t)(cols); i++)                         \
    cm_free(m->name[i]);
  CM_MODEL_STRINGS(FREE_STRINGS)
#undef FREE_STRINGS
  for (int i = 0; m->rule && i < m->nrule; i++) {
    cm_free((void*)m->rule[i].pair[0]);
    cm_free((void*)m->rule[i].pair[1]);
  }
  for (int g = 0; m->geom_bvh && g < m->ngeom; g++)
    cm_bvh_free((cmBvh*)m->geom_bvh + g);
    /* the arrays, the scene name, the model */
#define FREE_ARRAY(type, name, rows, cols) cm_free(m->name);
  CM_MODEL_ARRAYS(FREE_ARRAY)
  CM_MODEL_STRINGS(FREE_ARRAY)
  CM_MODEL_OWNING(FREE_ARRAY)
#undef FREE_ARRAY
  cm_free(m->name);
  cm_free(m);
}

void cm_state_save(const cmModel* m, const cmData* d, double* s, double* sn) {
  for (int b = 0; b < m->nbody; b++) {
#define SAVE(type, name, rows, cols)                                                               \
  memcpy(s, d->name + (size_t)b * (cols), (cols) * sizeof(type));                                  \
  s += (cols);
    CM_DATA_STATE(SAVE)
  }
  s = sn;
  for (int n = 0; n < m->nnode; n++) {
    int b = n;
    CM_DATA_NODES(SAVE)
#undef SAVE
  }
}

void cm_state_load(const cmModel* m, cmData* d, const double* s, const double* sn) {
  for (int b = 0; b < m->nbody; b++) {
#define LOAD(type, name, rows, cols)                                                               \
  memcpy(d->name + (size_t)b * (cols), s, (cols) * sizeof(type));                                  \
  s += (cols);
    CM_DATA_STATE(LOAD)
  }
  s = sn;
  for (int n = 0; n < m->nnode; n++) {
    int b = n;
    CM_DATA_NODES(LOAD)
#undef LOAD
  }
}
