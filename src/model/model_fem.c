/* Compiling the deformable bodies (docs/deformable.md): nodes, tetrahedra and lumped masses from
 * each body's tet mesh, the fixed nodes, the contact surface's vertex-to-node map, and the
 * checks of what a deformable body may meet.
 *
 * Lumped masses: each tet gives a quarter of its mass rho V to each of its nodes (the row sums
 * of the consistent mass matrix of a linear tet), so the total is rho times the meshed volume
 * and the centre of mass is exact. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/cm_math.h"
#include "core/internal.h"
#include "fem/fem.h"
#include "model/fields.h"
#include "model/model_fem.h"

void cm_body_fem_material(const cmModel* m, int b, cmFemMaterial* mat) {
  /* cmMaterial (the public enum) to the element library's models */
  static const int model_of[3] = {CM_FEM_NEOHOOKEAN, CM_FEM_COROTATED, CM_FEM_LINEAR};
  mat->model = model_of[m->body_material[b]];
  mat->mu = m->body_lame[2 * b];
  mat->lambda = m->body_lame[2 * b + 1];
}

double cm_body_elastic_energy(const cmModel* m, int b, const double* x) {
  cmFemMaterial mat;
  cm_body_fem_material(m, b, &mat);
  double e = 0;
  for (int t = m->body_tetadr[b]; t < m->body_tetadr[b] + m->body_ntet[b]; t++) {
    double xe[12];
    for (int a = 0; a < 4; a++)
      cm_v3_copy(xe + 3 * a, x + 3 * (size_t)m->tet_node[4 * t + a]);
    e += cm_fem_tet_energy(&mat, m->tet_dminv + 9 * (size_t)t, m->tet_vol[t], xe, NULL, NULL);
  }
  return e;
}

static void where(char* buf, size_t sz, const cmScene* s, cmSourceLoc loc) {
  if (loc.line)
    snprintf(buf, sz, "%s:%d:%d: ", s->file ? s->file : "scene", loc.line, loc.col);
  else if (s->file)
    snprintf(buf, sz, "%s: ", s->file);
  else
    buf[0] = '\0';
}

/* the rules a deformable body meets: what the solve supports */
static cmStatus check_pairs(const cmScene* s, const cmModel* m, char* err, size_t errsz) {
  char at[256];
  for (int a = 0; a < m->nbody; a++) {
    if (m->body_motion[a] != CM_MOTION_DEFORMABLE) continue;
    for (int b = 0; b < m->nbody; b++) {
      int r = cm_model_pair_rule(m, a, b);
      if (r < 0) continue;
      const cmRuleDef* rule = &m->rule[r];
      where(at, sizeof at, s, rule->loc.line ? rule->loc : s->body[a].loc);
      const char* why = NULL;
      if (rule->law != CM_LAW_AREA_COMPLIANT && rule->law != CM_LAW_LINEAR)
        why = "a deformable body's contacts need law area_compliant or linear (contact_time is "
              "a law between two rigid bodies: one number per body pair)";
      else if (m->rule_law_fn[r])
        why = "a user law cannot act on a deformable body yet";
      else if (rule->integration == CM_INTEGRATION_EXPLICIT ||
               (rule->integration == CM_INTEGRATION_DEFAULT &&
                m->opt.integrator != CM_INTEGRATOR_IMPLICIT))
        why = "a deformable body's contacts are solved implicitly with its elements: give the "
              "rule integration: implicit (or the scene integrator: implicit)";
      else if (rule->method != CM_METHOD_VERTEX && rule->method != CM_METHOD_TWO_WAY &&
               rule->method != CM_METHOD_AUTO)
        why = "a deformable body's contacts use method vertex, two_way or auto (vertices "
              "against the other body's surface; auto adds no edge contacts on a deformable "
              "body); vertex_edge and contour are not supported yet";
      if (why)
        return cm_error(err, errsz, CM_ERR_ARG, "%sbodies '%s' and '%s' (rule %d): %s", at,
                        m->body_name[a], m->body_name[b], r, why);
    }
  }
  /* (joints to deformable bodies: refused by compile_joints, model_compile.c) */
  return CM_OK;
}

cmStatus cm_compile_fem(const cmScene* s, cmModel* m, const cmTetMesh* const* tet,
                        const int* const* surf, char* err, size_t errsz) {
  long nn = 0, nt = 0;
  for (int b = 0; b < m->nbody; b++) {
    m->body_material[b] = -1;
    if (m->body_motion[b] != CM_MOTION_DEFORMABLE) continue;
    const cmTetMesh* tm = tet[m->body_geom[b]];
    nn += tm->nnode;
    nt += tm->ntet;
  }
  for (int v = 0; v < m->nvert; v++)
    m->mesh_vert_node[v] = -1;
  if (nn > INT_MAX / 4 || nt > INT_MAX / 16)
    return cm_error(err, errsz, CM_ERR_LIMIT,
                    "the deformable bodies have %ld nodes and %ld tetrahedra, more than the "
                    "limit of 2^29 nodes and 2^27 tetrahedra",
                    nn, nt);
  m->nnode = (int)nn;
  m->ntet = (int)nt;
  m->ndvert = nn ? m->nvert : 0;
  m->ndface = nn ? m->nface : 0;
  if (!cm_model_alloc_rows(m, &m->nnode) || !cm_model_alloc_rows(m, &m->ntet))
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (%ld nodes, %ld tetrahedra)", nn, nt);
  int na = 0, ta = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_motion[b] != CM_MOTION_DEFORMABLE) continue;
    const cmBodyDef* def = &s->body[b];
    const cmDeformableDef* f = &def->deformable;
    int g = m->body_geom[b];
    const cmTetMesh* tm = tet[g];
    m->body_nodeadr[b] = na;
    m->body_nnode[b] = tm->nnode;
    m->body_tetadr[b] = ta;
    m->body_ntet[b] = tm->ntet;
    m->body_material[b] = f->material;
    m->body_fem_scheme[b] = f->scheme;
    m->body_rayleigh[2 * b] = f->rayleigh_mass;
    m->body_rayleigh[2 * b + 1] = f->rayleigh_stiffness;
    cm_fem_lame(f->young, f->poisson, &m->body_lame[2 * b], &m->body_lame[2 * b + 1]);
    /* the rigid body the attached nodes move with: its com and orientation at t = 0 */
    char at[256];
    where(at, sizeof at, s, def->loc);
    int ab = -1;
    double Ra[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, ca[3] = {0, 0, 0}, va[3] = {0, 0, 0};
    if (f->attach) {
      ab = cm_model_body_index(m, f->attach);
      const char* why = ab < 0 ? "there is no such body"
                        : m->body_motion[ab] == CM_MOTION_DEFORMABLE
                            ? "it is deformable (attach to a rigid body)"
                        : m->body_motion[ab] == CM_MOTION_IGNORED ? "its motion is ignored"
                                                                  : NULL;
      if (why)
        return cm_error(err, errsz, CM_ERR_ARG, "%sbody '%s': deformable.attach.body '%s': %s", at,
                        def->name, f->attach, why);
      double rc[3], wr[3];
      cm_quat_to_mat(Ra, m->body_quat0 + 4 * ab);
      cm_m3_mulv(rc, Ra, m->body_com + 3 * ab);
      cm_v3_add(ca, m->body_pos0 + 3 * ab, rc);
      cm_v3_cross(wr, m->body_angvel0 + 3 * ab, rc);
      cm_v3_add(va, m->body_vel0 + 3 * ab, wr);
    }
    /* nodes: position, initial velocity (the body's rigid motion about its position), held,
     * attached */
    int nfixed = 0, nattached = 0;
    for (int i = 0; i < tm->nnode; i++) {
      int n = na + i;
      const double* x = tm->node + 3 * (size_t)i;
      double r[3], wr[3];
      m->node_body[n] = b;
      cm_v3_copy(m->node_pos0 + 3 * (size_t)n, x);
      cm_v3_sub(r, x, def->position);
      cm_v3_cross(wr, def->angular_velocity, r);
      cm_v3_add(m->node_vel0 + 3 * (size_t)n, def->velocity, wr);
      int in = f->has_fixed;
      for (int k = 0; in && k < 3; k++)
        in = x[k] >= f->fixed_min[k] && x[k] <= f->fixed_max[k];
      m->node_fixed[n] = in;
      if (in) memset(m->node_vel0 + 3 * (size_t)n, 0, 3 * sizeof(double));
      nfixed += in;
      m->node_attach[n] = -1;
      int att = ab >= 0 && !in;
      for (int k = 0; att && k < 3; k++)
        att = x[k] >= f->attach_min[k] && x[k] <= f->attach_max[k];
      if (att) {
        /* its place in the rigid body (from the com, body axes) and the body's velocity there */
        double d[3];
        cm_v3_sub(d, x, ca);
        cm_m3_mulvt(m->node_anchor + 3 * (size_t)n, Ra, d);
        cm_v3_cross(wr, m->body_angvel0 + 3 * ab, d);
        cm_v3_add(m->node_vel0 + 3 * (size_t)n, va, wr);
        m->node_attach[n] = ab;
        nattached++;
      }
    }
    if (ab >= 0 && nattached == 0)
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sbody '%s': deformable.attach holds no node: the box (%g, %g, %g) .. (%g, "
                      "%g, %g) m contains none of its %d free nodes at t = 0",
                      at, def->name, f->attach_min[0], f->attach_min[1], f->attach_min[2],
                      f->attach_max[0], f->attach_max[1], f->attach_max[2], tm->nnode - nfixed);
    if (f->has_fixed && nfixed == 0)
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sbody '%s': deformable.fixed holds no node: the box (%g, %g, %g) .. (%g, "
                      "%g, %g) m contains none of its %d nodes at t = 0",
                      at, def->name, f->fixed_min[0], f->fixed_min[1], f->fixed_min[2],
                      f->fixed_max[0], f->fixed_max[1], f->fixed_max[2], tm->nnode);
    /* tetrahedra: rest data and the lumped masses */
    double mass = 0;
    for (int e = 0; e < tm->ntet; e++) {
      int t = ta + e;
      double X[12];
      for (int a = 0; a < 4; a++) {
        int ln = tm->tet[4 * (size_t)e + a];
        m->tet_node[4 * (size_t)t + a] = na + ln;
        cm_v3_copy(X + 3 * a, tm->node + 3 * (size_t)ln);
      }
      if (!cm_fem_tet_rest(X, m->tet_dminv + 9 * (size_t)t, &m->tet_vol[t]))
        return cm_error(err, errsz, CM_ERR_MESH,
                        "%sbody '%s': tetrahedron %d (nodes %d %d %d %d) has no positive volume",
                        at, def->name, e, tm->tet[4 * (size_t)e], tm->tet[4 * (size_t)e + 1],
                        tm->tet[4 * (size_t)e + 2], tm->tet[4 * (size_t)e + 3]);
      double me = def->density * m->tet_vol[t];
      for (int a = 0; a < 4; a++)
        m->node_mass[m->tet_node[4 * (size_t)t + a]] += 0.25 * me;
      mass += me;
    }
    if (!(mass >= CM_MASS_MIN && mass <= CM_MASS_MAX))
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sbody '%s': mass from density %g kg/m^3 x volume = %g kg is outside "
                      "%g..%g kg",
                      at, def->name, def->density, mass, CM_MASS_MIN, CM_MASS_MAX);
    m->body_mass[b] = mass;
    m->body_invmass[b] = 1 / mass;
    /* the contact surface: each vertex is a node */
    for (int v = 0; v < m->geom_nvert[g]; v++)
      m->mesh_vert_node[m->geom_vertadr[g] + v] = na + surf[g][v];
    na += tm->nnode;
    ta += tm->ntet;
  }
  return check_pairs(s, m, err, errsz);
}
