/* cmData: allocation, reset to the initial state, copy, energy and momentum. Allocation, free
 * and copy are generated from the field lists (comply/fields.h, CM_PRIV_BODY in
 * model/data_internal.h). */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "comply/data.h"
#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/bvh.h"
#include "model/data_internal.h"
#include "model/model_fem.h"
#include "model/state.h"

/* the per-body arrays of cmData and of its private part: (rows or 1) x cols zeroed elements */
#define ALLOC_BODY(type, name, rows, cols)                                                         \
  name = cm_calloc((size_t)(m->rows ? m->rows : 1) * (size_t)(cols), sizeof(type));                \
  ok = ok && name;
#define FREE_ARRAY(type, name, rows, cols) cm_free(name);

void cm_data_scratch_reset(cmData* d) {
  cmDataPriv* p = cm_priv(d);
  cm_arena_reset(&p->arena);
  for (int i = 0; i < p->ntarena; i++)
    cm_arena_reset(&p->tarena[i].a);
}

void cm_data_scratch_rewind(cmData* d) {
  cmDataPriv* p = cm_priv(d);
  cm_arena_rewind(&p->arena);
  for (int i = 0; i < p->ntarena; i++)
    cm_arena_rewind(&p->tarena[i].a);
}

void cm_data_free(cmData* d) {
  if (!d) return;
#define FREE_DATA(type, name, rows, cols) FREE_ARRAY(type, d->name, rows, cols)
  CM_DATA_BODY(FREE_DATA)
  CM_DATA_BUFFERS(FREE_DATA)
#undef FREE_DATA
  cmDataPriv* p = cm_priv(d);
  if (p) {
    cm_arena_destroy(&p->arena);
    for (int i = 0; p->tarena && i < p->ntarena; i++)
      cm_arena_destroy(&p->tarena[i].a);
    cm_free(p->tarena);
    for (int i = 0; i < CM_BCHOL_KEPT; i++)
      cm_arena_destroy(&p->bc_arena[i]);
#define FREE_PRIV(type, name, rows, cols) FREE_ARRAY(type, p->name, rows, cols)
    CM_PRIV_BODY(FREE_PRIV)
#undef FREE_PRIV
    cm_free(p->cand);
    cm_free(p->bp_all);
    cm_free(p->bp_is_large);
    cm_free(p->bp_ord);
    cm_free(p->bp_large);
    cm_free(p->bp_fat);
    cm_free(p->bp_pair);
    cm_free(p->ckey);
    cm_free(p->anchor);
    cm_free(p->anchor_new);
    cm_free(p->anchor_save);
    for (int g = 0; p->dbvh && g < p->ngeom; g++)
      cm_bvh_free((cmBvh*)p->dbvh + g);
    cm_free(p->dbvh);
    cm_free(p);
  }
  cm_free(d);
}

cmData* cm_data_new(const cmModel* m) {
  cmData* d = cm_calloc(1, sizeof *d);
  if (!d) return NULL;
  int ok = 1;
#define ALLOC_DATA(type, name, rows, cols) ALLOC_BODY(type, d->name, rows, cols)
  CM_DATA_BODY(ALLOC_DATA)
#undef ALLOC_DATA
  cmDataPriv* p = cm_calloc(1, sizeof *p);
  d->internal = p;
  if (!ok || !p) {
    cm_data_free(d);
    return NULL;
  }
  cm_arena_init(&p->arena, 64 * 1024);
#ifdef _OPENMP
  p->ntarena = omp_get_max_threads() > 0 ? omp_get_max_threads() : 1;
#else
  p->ntarena = 1;
#endif
  p->tarena = cm_calloc((size_t)p->ntarena, sizeof *p->tarena);
  ok = ok && p->tarena;
  for (int i = 0; p->tarena && i < p->ntarena; i++)
    cm_arena_init(&p->tarena[i].a, 16 * 1024);
#define ALLOC_PRIV(type, name, rows, cols) ALLOC_BODY(type, p->name, rows, cols)
  CM_PRIV_BODY(ALLOC_PRIV)
#undef ALLOC_PRIV
  /* the face trees of the deformable geometries, refitted every step (model/state.c) */
  if (ok && m->nnode) {
    p->ngeom = m->ngeom;
    p->dbvh = cm_calloc((size_t)m->ngeom, sizeof(cmBvh));
    ok = p->dbvh != NULL;
    for (int g = 0; ok && g < m->ngeom; g++)
      if (m->geom_nvert[g] && m->mesh_vert_node[m->geom_vertadr[g]] >= 0)
        ok = cm_bvh_copy((cmBvh*)p->dbvh + g, (const cmBvh*)m->geom_bvh + g) == CM_OK;
  }
  if (!ok) {
    cm_data_free(d);
    return NULL;
  }
  cm_data_reset(m, d);
  return d;
}

void cm_data_reset(const cmModel* m, cmData* d) {
  /* scalars and totals zero, no contacts (the message stays until the next step) */
#define ZERO_SCALAR(type, name) d->name = 0;
#define ZERO_FIXED(type, name, count) memset(d->name, 0, sizeof d->name);
#define EMPTY_BUFFER(type, name, count, capacity) d->count = 0;
  CM_DATA_SCALARS(ZERO_SCALAR)
  CM_DATA_TOTALS(ZERO_FIXED)
  CM_DATA_BUFFERS(EMPTY_BUFFER)
#undef ZERO_SCALAR
#undef ZERO_FIXED
#undef EMPTY_BUFFER
  /* the monitors' bodies: none (-1, as their first step sets them; they were body 0 until then,
   * and a run of no step wrote body 0 as the deepest pair's) */
  d->energy_body = d->depth_body_a = d->depth_body_b = d->tunnel_body_a = d->tunnel_body_b = -1;
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
  memset(d->body_dv, 0, (size_t)m->nbody * 6 * sizeof *d->body_dv);
  memset(d->body_xfrc, 0, (size_t)m->nbody * 6 * sizeof *d->body_xfrc);
  cm_priv(d)->nanchor = 0; /* no friction spring stretched */
  if (m->nnode) {
    memcpy(d->node_pos, m->node_pos0, (size_t)m->nnode * 3 * sizeof *d->node_pos);
    memcpy(d->node_vel, m->node_vel0, (size_t)m->nnode * 3 * sizeof *d->node_vel);
  }
  cm_body_derive(m, d);
}

cmStatus cm_data_copy(const cmModel* m, cmData* dst, const cmData* src) {
  /* room for the contacts and pairs first, so that running out of memory changes nothing */
#define GROW(type, name, count, capacity)                                                          \
  if (src->count > dst->capacity) {                                                                \
    type* grown_ = cm_realloc(dst->name, (size_t)src->capacity * sizeof(type));                    \
    if (!grown_) return CM_ERR_NOMEM;                                                              \
    dst->name = grown_;                                                                            \
    dst->capacity = src->capacity;                                                                 \
  }
  CM_DATA_BUFFERS(GROW)
#undef GROW
  /* and for the tangential anchors (state, private) */
  const cmDataPriv* ps = cm_priv(src);
  cmDataPriv* pd = cm_priv(dst);
  if (!cm_anchor_room(&pd->anchor, &pd->maxanchor, ps->nanchor)) return CM_ERR_NOMEM;
  if (ps->nanchor) memcpy(pd->anchor, ps->anchor, (size_t)ps->nanchor * sizeof *pd->anchor);
  pd->nanchor = ps->nanchor;
  /* then every field of the lists but the private part */
#define COPY_SCALAR(type, name) dst->name = src->name;
#define COPY_FIXED(type, name, count) memcpy(dst->name, src->name, sizeof dst->name);
#define COPY_ARRAY(type, name, rows, cols)                                                         \
  memcpy(dst->name, src->name, sizeof(type) * (size_t)m->rows * (cols));
#define COPY_BUFFER(type, name, count, capacity)                                                   \
  if (src->count) memcpy(dst->name, src->name, (size_t)src->count * sizeof(type));                 \
  dst->count = src->count;
  CM_DATA_SCALARS(COPY_SCALAR)
  CM_DATA_TOTALS(COPY_FIXED)
  CM_DATA_TEXT(COPY_FIXED)
  CM_DATA_BODY(COPY_ARRAY)
  CM_DATA_BUFFERS(COPY_BUFFER)
#undef COPY_SCALAR
#undef COPY_FIXED
#undef COPY_ARRAY
#undef COPY_BUFFER
  return CM_OK;
}

int cm_anchor_room(cmAnchor** a, int* cap, int n) {
  if (n <= *cap) return 1;
  int c = *cap ? *cap : 256;
  while (c < n)
    c *= 2;
  cmAnchor* g = cm_realloc(*a, (size_t)c * sizeof *g);
  if (!g) return 0;
  *a = g;
  *cap = c;
  return 1;
}

/* *p (of *cap elements of size `size`) grown to hold n, doubling from `first`; 0 if out of
 * memory (*p unchanged) */
static int room(void** p, int* cap, int n, size_t size, int first) {
  if (n <= *cap) return 1;
  int c = *cap ? *cap : first;
  while (c < n)
    c = c > INT_MAX / 2 ? n : 2 * c;
  void* g = cm_realloc(*p, (size_t)c * size);
  if (!g) return 0;
  *p = g;
  *cap = c;
  return 1;
}

int cm_contact_room(cmData* d, int ncontact, int npair) {
  void* c = d->contact;
  int ok = room(&c, &d->maxcontact, ncontact, sizeof *d->contact, 1024);
  d->contact = c;
  if (!ok) return 0;
  void* p = d->pair;
  ok = room(&p, &d->maxpair, npair, sizeof *d->pair, 256);
  d->pair = p;
  return ok;
}

void cm_anchor_index(const cmDataPriv* p, int* idx, int cap) {
  for (int i = 0; i < cap; i++)
    idx[i] = -1;
  for (int i = 0; i < p->nanchor; i++) {
    int id[6];
    memcpy(id, &p->anchor[i], sizeof id); /* body, key */
    unsigned j = cm_anchor_hash(id) & (unsigned)(cap - 1);
    while (idx[j] >= 0)
      j = (j + 1) & (unsigned)(cap - 1);
    idx[j] = i;
  }
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
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      /* the nodes' kinetic and potential energy (not the attached ones': their mass is not
       * simulated, docs/deformable.md); the elastic energy is potential */
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
        if (m->node_attach[n] >= 0 && !m->node_fixed[n]) continue;
        const double* vn = d->node_vel + 3 * (size_t)n;
        ke += 0.5 * m->node_mass[n] * cm_v3_dot(vn, vn);
        pe -= m->node_mass[n] * cm_v3_dot(m->opt.gravity, d->node_pos + 3 * (size_t)n);
      }
      pe += cm_body_elastic_energy(m, b, d->node_pos);
      continue;
    }
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
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE) {
      for (int n = m->body_nodeadr[b]; n < m->body_nodeadr[b] + m->body_nnode[b]; n++) {
        if (m->node_attach[n] >= 0 && !m->node_fixed[n]) continue; /* not simulated */
        cm_v3_scale(mv, d->node_vel + 3 * (size_t)n, m->node_mass[n]);
        cm_v3_add(p, p, mv);
        cm_v3_cross(rxmv, d->node_pos + 3 * (size_t)n, mv);
        cm_v3_add(L, L, rxmv);
      }
      continue;
    }
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
  case CM_WARN_ENERGY:
    return "energy_growth";
  case CM_WARN_DEEP:
    return "deep_penetration";
  case CM_WARN_TUNNEL:
    return "tunnelling";
  case CM_WARN_SUBSTEPS:
    return "substeps_capped";
  case CM_WARN_COUNT:
    break;
  }
  return "unknown";
}

const char* cm_warning_help(cmWarning w) {
  switch (w) {
  case CM_WARN_BAD_AREA:
    return "contacts of zero area carried no force (degenerate faces or vertices of a mesh); "
           "check the meshes with `comply mesh-info`";
  case CM_WARN_SOLVER:
    return "the implicit contact solve stopped before its tolerance even with the step split "
           "into 8 sub-steps, so the contact forces of those steps are approximate; stiff "
           "contacts (ka 1e10 and up) with a friction coefficient near a body's width / height "
           "(a cube at mu 1 is at its tipping limit) make its friction fixed point nearly "
           "singular: a lower friction or ka helps most, then a smaller timestep "
           "(docs/contact-laws.md, \"Retried steps\")";
  case CM_WARN_CONTACT_LIMIT:
    return "the contact buffer could not grow (out of memory): contacts were dropped, or a "
           "rule's min_period could not soften a sub-step's rows; coarsen the meshes or free "
           "memory";
  case CM_WARN_GYRO:
    return "the gyroscopic update of a fast-spinning body did not converge, so its rotation is "
           "approximate; use a smaller timestep";
  case CM_WARN_ENERGY:
    return "the energy of the bodies grew by more than 5 % of the largest kinetic energy of the "
           "run above the lowest total energy: the numerics created energy (step_damping below "
           "0.5, an explicit law too stiff for the timestep, a contact_time far below the "
           "timestep); use a smaller timestep, step_damping >= 0.5 or implicit integration "
           "(docs/outputs.md, \"Energy monitor\")";
  case CM_WARN_SUBSTEPS:
    return "substeps: auto needed more than CM_SUBSTEPS_AUTO_MAX = 100 sub-steps in a step to "
           "resolve an explicit contact or joint (w h <= 1): those steps ran at the cap, less "
           "accurately (unstable ones stop the run); use integration: implicit for that rule, a "
           "longer contact_time or, for a contact pair, mass: effective (docs/contact-laws.md, "
           "\"Explicit stability\")";
  case CM_WARN_DEEP:
    return "a body pair penetrated deeper than 20 % of the thinner body, or one body's centre "
           "of mass is inside the other with no contact point: the law is far too soft for the "
           "load (resting penetration weight / (ka A): raise ka, or shorten contact_time), or "
           "the contact method misses the overlap (an edge sinking into a face or crossing an "
           "edge with method vertex or two_way: method auto, the default, or vertex_edge or "
           "contour), or a body crossed a thin wall at speed (smaller timestep); an edge "
           "resting across an edge or a face sinks d = (1.5 W/ka)^(1/3) or sqrt(W/(ka L)) by the "
           "law itself (docs/contact-laws.md, \"Contact methods\")";
  case CM_WARN_TUNNEL:
    return "a body moved, relative to a body it can touch, more than half the thinner one's "
           "thickness in one step: a vertex can cross the middle of a thin body (and be pushed "
           "out the far side) or jump it unseen; use a step below thickness / (2 speed), or "
           "substeps, or a thicker wall";
  case CM_WARN_COUNT:
    break;
  }
  return "unknown warning";
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
