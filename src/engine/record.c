/* Stage 8, record: the contact forces for the outputs. Per contact the normal force of its row
 * (a contact_time pair row is spread over its points with the weights A_k x_k that define its
 * pressure centroid, so that the points' forces add up to the pair force), and per pair the
 * total force on the pair's body 0 and the largest pressure force/area over its points.
 * Also the per-vertex pressure query of the public API, which reads what this stage wrote. */
#include "core/cm_math.h"
#include "core/internal.h"
#include "engine/engine.h"
#include "model/data_internal.h"

void cm_stage_record(const cmModel* m, cmData* d) {
  (void)m;
  cmDataPriv* p = cm_priv(d);
  for (int i = 0; i < d->ncontact; i++) {
    d->contact[i].force = 0;
    cm_v3_set(d->contact[i].ftan, 0, 0, 0);
  }
  for (int k = 0; k < p->nrow; k++) {
    const cmRow* r = &p->row[k];
    if (r->contact < 0) continue; /* joints */
    double ft[3];
    cm_v3_scale(ft, r->t[0], r->ftan[0]);
    cm_v3_madd(ft, ft, r->t[1], r->ftan[1]);
    if (r->ncontact == 1) {
      d->contact[r->contact].force = r->lambda;
      cm_v3_copy(d->contact[r->contact].ftan, ft);
      continue;
    }
    double wsum = 0;
    for (int i = 0; i < r->ncontact; i++) {
      const cmContact* c = &d->contact[r->contact + i];
      wsum += c->area * -c->dist;
    }
    for (int i = 0; i < r->ncontact; i++) {
      cmContact* c = &d->contact[r->contact + i];
      double wk = wsum > 0 ? c->area * -c->dist / wsum : 1.0 / r->ncontact;
      double sgn = c->body[0] == r->body[0] ? 1 : -1; /* ftan is the force on the row's A */
      c->force = r->lambda * wk;
      cm_v3_scale(c->ftan, ft, sgn * wk);
    }
  }
  for (int k = 0; k < d->npair; k++) {
    cmContactPair* P = &d->pair[k];
    cm_v3_set(P->force, 0, 0, 0);
    P->max_pressure = 0;
    for (int i = 0; i < P->points; i++) {
      const cmContact* c = &d->contact[P->first + i];
      double s = c->body[0] == P->body[0] ? 1 : -1;
      cm_v3_madd(P->force, P->force, c->n, s * c->force);
      cm_v3_madd(P->force, P->force, c->ftan, s);
      if (c->area > 0 && c->force / c->area > P->max_pressure) P->max_pressure = c->force / c->area;
    }
  }
}

cmStatus cm_data_vertex_pressure(const cmModel* m, const cmData* d, int body, double* pressure,
                                 double* penetration, char* err, size_t errsz) {
  /* every argument checked before anything is written */
  if (!m || !d)
    return cm_error(err, errsz, CM_ERR_ARG, "cm_data_vertex_pressure: %s is NULL",
                    !m ? "the model" : "the data");
  if (body < 0 || body >= m->nbody)
    return cm_error(err, errsz, CM_ERR_ARG,
                    "cm_data_vertex_pressure: no body %d (the model has bodies 0 to %d)", body,
                    m->nbody - 1);
  if (!pressure || !penetration)
    return cm_error(err, errsz, CM_ERR_ARG,
                    "cm_data_vertex_pressure: the %s array of body '%s' is NULL",
                    !pressure ? "pressure" : "penetration", m->body_name[body]);
  int nv = m->geom_nvert[m->body_geom[body]];
  for (int v = 0; v < nv; v++)
    pressure[v] = penetration[v] = 0;
  for (int i = 0; i < d->ncontact; i++) {
    const cmContact* c = &d->contact[i];
    if (c->body[0] != body || c->vert < 0 || c->vert >= nv) continue;
    /* a vertex in an inner corner has a contact per face (docs/contact-laws.md, "Concave
     * corners"): its largest pressure and penetration */
    double pr = c->area > 0 ? c->force / c->area : 0;
    if (pr > pressure[c->vert]) pressure[c->vert] = pr;
    if (-c->dist > penetration[c->vert]) penetration[c->vert] = -c->dist;
  }
  return CM_OK;
}
