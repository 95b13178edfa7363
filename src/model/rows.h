/* Solver rows: one per compliant contact (area_compliant, linear) or per body pair
 * (contact_time, whose x^{ij} is one number per pair: SPEC 3.2). Built by the laws stage,
 * consumed by the forces stage (explicit rows) and the solve stage (implicit rows). */
#ifndef CM_ROWS_H
#define CM_ROWS_H

#include "comply/data.h"

/* slip speed below which friction is proportional to the slip (stiction creeps at most this
 * fast), m/s */
#define CM_FRICTION_VS 1e-5

typedef struct cmRow {
  int body[2];    /* A (pushed along +n) and B; -1 for the world (joints) */
  int pair;       /* contact pair index */
  int contact;    /* first contact index; ncontact contacts from there belong to the row */
  int ncontact;   /* 1 for a per-contact row, the pair's points for a pair row */
  int implicit;   /* 1: solved in the implicit step; 0: explicit force */
  double n[3];    /* unit normal out of B toward A, world */
  double rA[3];   /* application point relative to A's com, world, m */
  double rB[3];   /* application point relative to B's com, world, m */
  double dist;    /* signed distance, m */
  double f;       /* restoring force f(dist) <= 0, N */
  double c;       /* compliance, m/N */
  double D;       /* effective damping, N s/m */
  double mu;      /* Coulomb friction coefficient */
  double t[2][3]; /* tangent basis (unit, orthogonal to n) */
  double lambda;  /* result: normal force on A along n, N (>= 0) */
  double ftan[2]; /* result: friction force on A along t[0], t[1], N */
} cmRow;

/* set r->t from r->n */
void cm_row_friction_basis(cmRow* r);

/* rate dir . (v_A(pA) - v_B(pB)) of a row along dir at the current velocities */
double cm_row_rate(const cmModel* m, const cmData* d, const cmRow* r, const double dir[3]);

#endif
