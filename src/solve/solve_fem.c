/* The elements of deformable bodies inside the implicit solve (docs/deformable.md, "Time
 * integration").
 *
 * A deformable body's free nodes are variables of the island's Newton solve like rigid bodies
 * (a block of 6 each: the node's velocity, then 3 numbers that nothing couples and that stay 0).
 * The end velocities u minimise E(u) + W(u), E the island's mass and contact terms
 * (solve_implicit.c) and W the elastic energy at positions that depend on u:
 *
 *   backward Euler:  x = x_n + h u,              W = Psi(x)      (x = x_{n+1})
 *   midpoint rule:   x = x_n + h/4 (v_n + u),    W = 4 Psi(x)    (x = (x_n + x_{n+1}) / 2)
 *
 * (x_{n+1} = x_n + h u, or x_n + h (v_n + u) / 2 for the midpoint rule: the integrate stage)
 * so that the stationarity M (u - u*) + dW/du = J^T lambda is M (u - u*) = h (f_contact -
 * dPsi/dx) with the elastic force at the end of the step (backward Euler: stable and
 * dissipative) or at its middle (the implicit midpoint rule: conserves the energy of a free
 * elastic body, since the step's work h (v_n + u)/2 . f(x_mid) is the change of Psi to second
 * order and exactly for the quadratic linear material). The Hessian adds w a^2 d2Psi/dx2 (a = h
 * or h/4, w = 1 or 4), each element's projected onto positive semi-definite (fem/fem.h), so
 * every Newton direction is a descent direction; the line search sees the slope of W along the
 * direction, infinite where a Neo-Hookean element would invert, which keeps every iterate
 * uninverted. */
#include <math.h>
#include <string.h>

#include "comply/data.h"
#include "core/cm_math.h"
#include "fem/fem.h"
#include "model/model_fem.h"
#include "solve/island.h"

/* the six node pairs of a tet, in the order of tslot */
static const int PAIR[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

int cm_island_fem_setup(Island* is, const int* nloc, double h, cmArena* arena) {
  const cmModel* m = is->m;
  const cmData* d = is->d;
  is->ntet = 0;
  is->tet = NULL;
  is->tblk = NULL;
  is->tslot = NULL;
  is->xc = cm_arena_calloc(arena, 3 * (size_t)is->nb + 1, sizeof *is->xc);
  is->fa = cm_arena_calloc(arena, (size_t)is->nb + 1, sizeof *is->fa);
  if (!is->xc || !is->fa) return 1;
  /* the deformable bodies of the island: those of its node blocks (blocks of a body are
   * consecutive) */
  int ntet = 0;
  for (int l = 0; l < is->nb; l++) {
    int n = is->node[l];
    if (n < 0) continue;
    int b = is->body[l];
    double a = m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? 0.25 * h : h;
    is->fa[l] = a;
    for (int k = 0; k < 3; k++)
      is->xc[3 * l + k] =
          d->node_pos[3 * (size_t)n + k] +
          (m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? a * d->node_vel[3 * (size_t)n + k] : 0);
    if (l == 0 || is->body[l - 1] != b) ntet += m->body_ntet[b];
  }
  if (!ntet) return 0;
  is->tet = cm_arena_alloc(arena, (size_t)ntet * sizeof *is->tet);
  is->tblk = cm_arena_alloc(arena, (size_t)ntet * 4 * sizeof *is->tblk);
  if (!is->tet || !is->tblk) return 1;
  for (int l = 0; l < is->nb; l++) {
    if (is->node[l] < 0 || (l > 0 && is->body[l - 1] == is->body[l])) continue;
    int b = is->body[l];
    for (int t = m->body_tetadr[b]; t < m->body_tetadr[b] + m->body_ntet[b]; t++) {
      int* tb = is->tblk + 4 * (size_t)is->ntet;
      int any = 0;
      for (int k = 0; k < 4; k++) {
        tb[k] = nloc[m->tet_node[4 * (size_t)t + k]];
        any |= tb[k] >= 0;
      }
      if (any) is->tet[is->ntet++] = t;
    }
  }
  return 0;
}

int cm_island_fem_edges(const Island* is, int* edge) {
  int ne = 0;
  for (int e = 0; e < is->ntet; e++) {
    const int* tb = is->tblk + 4 * (size_t)e;
    for (int p = 0; p < 6; p++) {
      int a = tb[PAIR[p][0]], b = tb[PAIR[p][1]];
      if (a >= 0 && b >= 0) {
        edge[2 * ne] = a;
        edge[2 * ne + 1] = b;
        ne++;
      }
    }
  }
  return ne;
}

void cm_island_fem_slots(Island* is) {
  for (int e = 0; e < is->ntet; e++) {
    const int* tb = is->tblk + 4 * (size_t)e;
    for (int p = 0; p < 6; p++) {
      int a = tb[PAIR[p][0]], b = tb[PAIR[p][1]];
      is->tslot[6 * (size_t)e + p] = a >= 0 && b >= 0 ? cm_bchol_slot(is->bc, a, b) : -1;
    }
  }
}

/* the positions of tet e's nodes at u (x = xc + a u for free nodes, the node's position for a
 * fixed one); returns the weight w of its body's scheme and sets *a */
static double tet_positions(const Island* is, int e, const double* u, const double* du, double t,
                            double x[12], double* a) {
  const cmModel* m = is->m;
  int t0 = is->tet[e];
  const int* tb = is->tblk + 4 * (size_t)e;
  int b = m->node_body[m->tet_node[4 * (size_t)t0]];
  *a = m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? 0.25 * is->h : is->h;
  for (int k = 0; k < 4; k++) {
    int l = tb[k];
    if (l < 0) {
      cm_v3_copy(x + 3 * k, is->d->node_pos + 3 * (size_t)m->tet_node[4 * (size_t)t0 + k]);
      continue;
    }
    for (int i = 0; i < 3; i++)
      x[3 * k + i] = is->xc[3 * l + i] + *a * (u[6 * l + i] + (du ? t * du[6 * l + i] : 0));
  }
  return m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? 4 : 1;
}

int cm_island_fem_grad_hess(Island* is) {
  const cmModel* m = is->m;
  size_t n = 6 * (size_t)is->nb;
  double f2 = 0;
  for (int e = 0; e < is->ntet; e++) {
    int t0 = is->tet[e];
    double x[12], g[12], H[144], a;
    double w = tet_positions(is, e, is->u, NULL, 0, x, &a);
    cmFemMaterial mat;
    cm_body_fem_material(m, m->node_body[m->tet_node[4 * (size_t)t0]], &mat);
    double E = cm_fem_tet_energy(&mat, m->tet_dminv + 9 * (size_t)t0, m->tet_vol[t0], x, g, H);
    if (!isfinite(E)) return 0;
    double gs = w * a, hs = w * a * a;
    const int* tb = is->tblk + 4 * (size_t)e;
    for (int i = 0; i < 4; i++) {
      int li = tb[i];
      if (li < 0) continue;
      for (int k = 0; k < 3; k++) {
        is->g[6 * li + k] += gs * g[3 * i + k];
        f2 += gs * g[3 * i + k] * gs * g[3 * i + k];
      }
      for (int j = 0; j < 4; j++) {
        int lj = tb[j];
        if (lj < 0) continue;
        /* the 3x3 block of nodes (i, j), rows i */
        if (is->H) {
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              is->H[(6 * (size_t)li + r) * n + 6 * (size_t)lj + c] +=
                  hs * H[(3 * i + r) * 12 + 3 * j + c];
        } else if (i == j) {
          double* B = cm_bchol_diag(is->bc, li);
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              B[6 * r + c] += hs * H[(3 * i + r) * 12 + 3 * i + c];
        } else if (i < j) {
          /* the pair's stored block is the lower one: (li, lj) if li comes later in the
           * elimination order, else (lj, li), the transpose */
          int p = 0;
          while (!(PAIR[p][0] == i && PAIR[p][1] == j))
            p++;
          double* B = cm_bchol_block(is->bc, is->tslot[6 * (size_t)e + p]);
          int lower = is->bc->iperm[li] > is->bc->iperm[lj];
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              B[6 * r + c] +=
                  hs * (lower ? H[(3 * i + r) * 12 + 3 * j + c] : H[(3 * j + r) * 12 + 3 * i + c]);
        }
      }
    }
  }
  /* at least the rounding floor: an element's force is computed to about 1e-16 of its
   * stiffness (2 mu + lambda) vol^(2/3) (the rounding of its strain); with 1e-5 of it per element
   * the tolerance of the solve (1e-10) stays 10 times above rounding when nothing moves */
  double floor2 = 0;
  for (int e = 0; e < is->ntet; e++) {
    int t0 = is->tet[e], b = m->node_body[m->tet_node[4 * (size_t)t0]];
    double a = m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? 0.25 * is->h : is->h;
    double w = m->body_fem_scheme[b] == CM_FEM_MIDPOINT ? 4 : 1;
    double k = 1e-5 * w * a * (2 * m->body_lame[2 * b] + m->body_lame[2 * b + 1]) *
               cbrt(m->tet_vol[t0] * m->tet_vol[t0]);
    floor2 += k * k;
  }
  is->fscale = sqrt(f2) + sqrt(floor2);
  return 1;
}

double cm_island_fem_slope(const Island* is, double t) {
  const cmModel* m = is->m;
  double s = 0;
  for (int e = 0; e < is->ntet; e++) {
    int t0 = is->tet[e];
    double x[12], g[12], a;
    double w = tet_positions(is, e, is->u, is->du, t, x, &a);
    cmFemMaterial mat;
    cm_body_fem_material(m, m->node_body[m->tet_node[4 * (size_t)t0]], &mat);
    double E = cm_fem_tet_energy(&mat, m->tet_dminv + 9 * (size_t)t0, m->tet_vol[t0], x, g, NULL);
    if (!isfinite(E)) return INFINITY;
    const int* tb = is->tblk + 4 * (size_t)e;
    for (int i = 0; i < 4; i++) {
      int l = tb[i];
      if (l < 0) continue;
      for (int k = 0; k < 3; k++)
        s += w * a * g[3 * i + k] * is->du[6 * l + k];
    }
  }
  return s;
}

void cm_island_fem_start_at_rest(Island* is) {
  for (int l = 0; l < is->nb; l++) {
    int n = is->node[l];
    if (n < 0) continue;
    for (int k = 0; k < 3; k++)
      is->u[6 * l + k] = (is->d->node_pos[3 * (size_t)n + k] - is->xc[3 * l + k]) / is->fa[l];
  }
}
