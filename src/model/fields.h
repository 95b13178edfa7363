/* Code generated from the field lists of comply/fields.h that more than one file uses (fields.c):
 * the model's arrays allocated by their row count, and the dynamic state of the bodies packed
 * for the step's rollback. The data's own allocation, free and copy are in data.c, the hash in
 * data_hash.c, the checkpoint in output/checkpoint.c; all of them expand the same lists. */
#ifndef CM_MODEL_FIELDS_H
#define CM_MODEL_FIELDS_H

#include "comply/fields.h"

/* numbers of the dynamic state per body: the cols of CM_DATA_STATE (19) */
#define CM_FIELD_COLS_(type, name, rows, cols) +(cols)
enum { CM_NSTATE = 0 CM_DATA_STATE(CM_FIELD_COLS_) };
/* numbers of the dynamic state per node: the cols of CM_DATA_NODES (6) */
enum { CM_NNODE_STATE = 0 CM_DATA_NODES(CM_FIELD_COLS_) };

/* Allocate, zeroed, every array of CM_MODEL_ARRAYS and CM_MODEL_STRINGS whose rows are counted
 * by *rows, a size field of m that the compiler has just set (&m->nbody, &m->ngeom, ...); at
 * least one element each. 0 if out of memory (cm_model_free frees what was allocated). */
int cm_model_alloc_rows(cmModel* m, const int* rows);

/* the CM_NSTATE numbers of every body, in the order of CM_DATA_STATE, to s (nbody x CM_NSTATE),
 * and the CM_NNODE_STATE numbers of every node to sn (nnode x CM_NNODE_STATE), and back: the
 * state a failed step restores */
void cm_state_save(const cmModel* m, const cmData* d, double* s, double* sn);
void cm_state_load(const cmModel* m, cmData* d, const double* s, const double* sn);

#endif
