/* cmData: allocation, reset to the initial state, copy, energy and momentum. */
#include <string.h>

#include "comply/data.h"
#include "core/cm_math.h"
#include "core/internal.h"
#include "model/data_internal.h"
#include "model/state.h"

#define STATE_ARRAYS(X)                                                                            \
  X(body_xpos, 3)                                                                                  \
  X(body_xquat, 4) X(body_xvel, 3) X(body_cpos, 3) X(body_cvel, 3) X(body_angvel, 3)               \
      X(body_aabb, 6)

void cm_data_free(cmData* d) {
  if (!d) return;
#define FREE_ARRAY(name, n) cm_free(d->name);
  STATE_ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
  cm_free(d->contact);
  cm_free(d->pair);
  cmDataPriv* p = cm_priv(d);
  if (p) {
    cm_arena_destroy(&p->arena);
    cm_free(p->force);
    cm_free(p->torque);
    cm_free(p->spin);
    cm_free(p->cand);
    cm_free(p->save);
    cm_free(p);
  }
  cm_free(d);
}

cmData* cm_data_new(const cmModel* m) {
  cmData* d = cm_calloc(1, sizeof *d);
  if (!d) return NULL;
  size_t nb = (size_t)(m->nbody ? m->nbody : 1);
  int ok = 1;
#define ALLOC_ARRAY(name, n)                                                                       \
  d->name = cm_calloc(nb * (n), sizeof(double));                                                   \
  ok = ok && d->name;
  STATE_ARRAYS(ALLOC_ARRAY)
#undef ALLOC_ARRAY
  cmDataPriv* p = cm_calloc(1, sizeof *p);
  d->internal = p;
  if (!ok || !p) {
    cm_data_free(d);
    return NULL;
  }
  cm_arena_init(&p->arena, 64 * 1024);
  p->force = cm_calloc(nb * 3, sizeof(double));
  p->torque = cm_calloc(nb * 3, sizeof(double));
  p->spin = cm_calloc(nb * 3, sizeof(double));
  p->save = cm_calloc(nb * 13, sizeof(double));
  if (!p->force || !p->torque || !p->spin || !p->save) {
    cm_data_free(d);
    return NULL;
  }
  cm_data_reset(m, d);
  return d;
}

void cm_data_reset(const cmModel* m, cmData* d) {
  d->step = 0;
  d->time = 0;
  d->ncontact = 0;
  d->npair = 0;
  d->solver_iter = 0;
  d->solver_residual = 0;
  d->solver_max_iter = 0;
  d->solver_max_residual = 0;
  memset(d->warning, 0, sizeof d->warning);
  memset(d->timer, 0, sizeof d->timer);
  /* com state from the frame-origin state of the scene */
  for (int b = 0; b < m->nbody; b++) {
    const double* q = m->body_quat0 + 4 * b;
    double rc[3];
    memcpy(d->body_xquat + 4 * b, q, 4 * sizeof(double));
    cm_quat_rotate(rc, q, m->body_com + 3 * b);
    cm_v3_add(d->body_cpos + 3 * b, m->body_pos0 + 3 * b, rc);
    const double* w = m->body_angvel0 + 3 * b;
    double wxr[3];
    cm_v3_cross(wxr, w, rc);
    cm_v3_add(d->body_cvel + 3 * b, m->body_vel0 + 3 * b, wxr);
    cm_v3_copy(d->body_angvel + 3 * b, w);
  }
  cm_body_derive(m, d);
}

cmStatus cm_data_copy(const cmModel* m, cmData* dst, const cmData* src) {
  size_t nb = (size_t)m->nbody;
#define COPY_ARRAY(name, n) memcpy(dst->name, src->name, nb*(n) * sizeof(double));
  STATE_ARRAYS(COPY_ARRAY)
#undef COPY_ARRAY
  if (src->ncontact > dst->maxcontact) {
    cmContact* c = cm_realloc(dst->contact, (size_t)src->maxcontact * sizeof *c);
    if (!c) return CM_ERR_NOMEM;
    dst->contact = c;
    dst->maxcontact = src->maxcontact;
  }
  if (src->ncontact) memcpy(dst->contact, src->contact, (size_t)src->ncontact * sizeof(cmContact));
  dst->ncontact = src->ncontact;
  dst->step = src->step;
  dst->time = src->time;
  dst->solver_iter = src->solver_iter;
  dst->solver_residual = src->solver_residual;
  dst->solver_max_iter = src->solver_max_iter;
  dst->solver_max_residual = src->solver_max_residual;
  memcpy(dst->warning, src->warning, sizeof src->warning);
  memcpy(dst->timer, src->timer, sizeof src->timer);
  return CM_OK;
}

/* 1/2 w . I_world w with I_world = R I_body R^T, computed as 1/2 wb . I_body wb, wb = R^T w */
static double rot_energy(const cmModel* m, const cmData* d, int b, double Lw[3]) {
  double wb[3], Lb[3];
  cm_quat_rotate_inv(wb, d->body_xquat + 4 * b, d->body_angvel + 3 * b);
  cm_m3_mulv(Lb, m->body_inertia + 9 * b, wb);
  if (Lw) cm_quat_rotate(Lw, d->body_xquat + 4 * b, Lb);
  return 0.5 * cm_v3_dot(wb, Lb);
}

void cm_data_energy(const cmModel* m, const cmData* d, double* kinetic, double* potential) {
  double ke = 0, pe = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_invmass[b] == 0) continue;
    double mass = m->body_mass[b];
    const double* v = d->body_cvel + 3 * b;
    ke += 0.5 * mass * cm_v3_dot(v, v) + rot_energy(m, d, b, NULL);
    pe -= mass * cm_v3_dot(m->opt.gravity, d->body_cpos + 3 * b);
  }
  if (kinetic) *kinetic = ke;
  if (potential) *potential = pe;
}

void cm_data_momentum(const cmModel* m, const cmData* d, double p[3], double L[3]) {
  cm_v3_set(p, 0, 0, 0);
  cm_v3_set(L, 0, 0, 0);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_invmass[b] == 0) continue;
    double mv[3], rxmv[3], Lw[3];
    cm_v3_scale(mv, d->body_cvel + 3 * b, m->body_mass[b]);
    cm_v3_add(p, p, mv);
    cm_v3_cross(rxmv, d->body_cpos + 3 * b, mv);
    rot_energy(m, d, b, Lw);
    cm_v3_add(L, L, rxmv);
    cm_v3_add(L, L, Lw);
  }
}

const char* cm_warning_name(cmWarning w) {
  switch (w) {
  case CM_WARN_BAD_AREA:
    return "bad_area";
  case CM_WARN_SOLVER:
    return "solver_not_converged";
  case CM_WARN_CONTACT_LIMIT:
    return "contact_limit";
  case CM_WARN_GYRO:
    return "gyroscopic_not_converged";
  case CM_WARN_COUNT:
    break;
  }
  return "unknown";
}

const char* cm_timer_name(cmTimer t) {
  switch (t) {
  case CM_TIMER_STEP:
    return "step";
  case CM_TIMER_KINEMATICS:
    return "kinematics";
  case CM_TIMER_BROADPHASE:
    return "broadphase";
  case CM_TIMER_NARROWPHASE:
    return "narrowphase";
  case CM_TIMER_LAWS:
    return "laws";
  case CM_TIMER_FORCES:
    return "forces";
  case CM_TIMER_SOLVE:
    return "solve";
  case CM_TIMER_INTEGRATE:
    return "integrate";
  case CM_TIMER_RECORD:
    return "record";
  case CM_TIMER_COUNT:
    break;
  }
  return "unknown";
}
