/* Solver rows: one per compliant contact (area_compliant, linear) or per body pair
 * (contact_time, whose x^{ij} is one number per pair: SPEC 3.2). Built by the laws stage,
 * consumed by the forces stage (explicit rows) and the solve stage (implicit rows). */
#ifndef CM_ROWS_H
#define CM_ROWS_H

#include <math.h>

#include "comply/data.h"
#include "core/cm_math.h"

typedef struct cmRow {
  int body[2];       /* A (pushed along +n) and B; -1 for the world (joints) */
  int pair;          /* contact pair index */
  int contact;       /* first contact index; ncontact contacts from there belong to the row */
  int joint;         /* joint index for a joint's row, -1 for a contact row */
  int ncontact;      /* 1 for a per-contact row, the pair's points for a pair row */
  int implicit;      /* 1: solved in the implicit step; 0: explicit force */
  int node[2];       /* the node whose velocity side A / B has, for a side that is a vertex of a
                        deformable body (its lever arm rA / rB is then 0), else -1 */
  int fnode[3];      /* side B a point of a deformable body's face: its three nodes, whose
                        velocities weighted by fw give B's (rB is then 0); fnode[0] = -1 if not */
  double fw[3];      /* the point's barycentric weights on that face (sum 1, each >= 0) */
  double n[3];       /* unit normal out of B toward A, world */
  double rA[3];      /* application point relative to A's com, world, m */
  double rB[3];      /* application point relative to B's com, world, m */
  double dist;       /* signed distance, m */
  double f;          /* restoring force f(dist) <= 0, N */
  double c;          /* compliance, m/N */
  double D;          /* effective damping, N s/m */
  double mu;         /* Coulomb friction coefficient */
  double vs;         /* stick velocity: friction is proportional to slips below it, m/s (rows
                        without an anchored spring, solve_implicit.c) */
  double t[2][3];    /* tangent basis (unit, orthogonal to n) */
  double lambda;     /* result: normal force on A along n, N (>= 0) */
  double ftan[2];    /* result: friction force on A along t[0], t[1], N */
  int anchored;      /* result: the row's friction spring has a stretch to keep (stretch) */
  double stretch[3]; /* result: that stretch at the end of the step, world, m */
  double off;        /* the birth offset its law is shifted by (an implicit edge-edge contact's,
                        laws.c: dist and f are those of the depth less it), m; -1 for a row
                        that keeps none */
} cmRow;

/* set r->t from r->n: an orthonormal tangent basis of n. Inline with cm_row_rate (in rows.c
 * until 2026-12-08: their calls, once per row and stage, were 0.3 % of the instructions of the
 * resting S2 pile of 125 boxes) */
static inline void cm_row_friction_basis(cmRow* r) {
  double a[3] = {1, 0, 0};
  if (fabs(r->n[0]) > 0.6) cm_v3_set(a, 0, 1, 0);
  cm_v3_cross(r->t[0], r->n, a);
  cm_v3_normalize(r->t[0]);
  cm_v3_cross(r->t[1], r->n, r->t[0]);
}

/* rate dir . (v_A(pA) - v_B(pB)) of a row along dir at the current velocities */
static inline double cm_row_rate(const cmModel* m, const cmData* d, const cmRow* r,
                                 const double dir[3]) {
  (void)m;
  double rate = 0, wxr[3];
  for (int k = 0; k < 2; k++) {
    int b = r->body[k];
    if (b < 0) continue; /* the world does not move */
    const double* rr = k ? r->rB : r->rA;
    double v;
    if (k == 1 && r->fnode[0] >= 0) {
      v = 0;
      for (int i = 0; i < 3; i++)
        v += r->fw[i] * cm_v3_dot(dir, d->node_vel + 3 * (size_t)r->fnode[i]);
    } else if (r->node[k] >= 0) {
      v = cm_v3_dot(dir, d->node_vel + 3 * (size_t)r->node[k]);
    } else {
      cm_v3_cross(wxr, d->body_angvel + 3 * b, rr);
      v = cm_v3_dot(dir, d->body_cvel + 3 * b) + cm_v3_dot(dir, wxr);
    }
    rate += k ? -v : v;
  }
  return rate;
}

/* Effective mass (rows.c derives it). Body b's inverse mass at the point r (relative to its
 * com, world axes) along the unit direction dir, 1/m + (r x dir)^T I_world^-1 (r x dir), 1/kg;
 * 0 for the world (b < 0) and for a body of infinite mass. */
double cm_body_invmass_at(const cmModel* m, const cmData* d, int b, const double r[3],
                          const double dir[3]);

/* the same for a force f (N) at the com and a moment tau (N m), world axes:
 * |f|^2 / m + tau^T I_world^-1 tau (the squared M^-1 norm of the wrench); 0 for the world or
 * an infinite mass. cm_body_invmass_at is the wrench (dir, r x dir). */
double cm_body_invmass_wrench(const cmModel* m, const cmData* d, int b, const double f[3],
                              const double tau[3]);

/* W += body b's inverse mass matrix at the point r, 1/m I - [r]x I_world^-1 [r]x (1/kg, 3x3,
 * symmetric): dir^T W dir is cm_body_invmass_at; nothing for the world or an infinite mass */
void cm_body_invmass_matrix(const cmModel* m, const cmData* d, int b, const double r[3],
                            double W[9]);

/* the inverse effective mass of row r along dir, J M^-1 J^T = the sum over its two sides of
 * cm_body_invmass_at (1/kg); share (may be NULL) receives the two terms. The row's effective
 * mass is its inverse (infinite between two infinite masses). */
double cm_row_invmass(const cmModel* m, const cmData* d, const cmRow* r, const double dir[3],
                      double share[2]);

#endif
