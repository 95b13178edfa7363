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
 * or h/4, w = 1 or 4): each element's exact one, and if that makes a Newton system indefinite
 * (an element's exact stiffness is indefinite under compression or large strain and the mass
 * does not make up for it: static loads, long steps) the island's solve goes on with each
 * element's projected onto positive semi-definite (fem/fem.h), whose directions always descend.
 * The projection drops a stiffness of order lambda x strain under compression, which left
 * Newton converging linearly (a factor 10 per iteration: 12-16 iterations per step for a
 * condyle on a nu = 0.45 cartilage layer, against 3.3 with the exact stiffness). The line search
 * sees the slope of W along the direction, infinite where a Neo-Hookean element would invert,
 * which keeps every iterate uninverted. */
#include <math.h>
#include <string.h>

#include "comply/data.h"
#include "core/cm_math.h"
#include "fem/fem.h"
#include "model/data_internal.h"
#include "model/model_fem.h"
#include "solve/island.h"

/* the six node pairs of a tet, in the order of tslot */
static const int PAIR[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* a, h for backward Euler or h/4 for the midpoint rule, and the weight w (1 or 4) of body b */
static double scheme_a(const cmModel* m, int b, double h, double* w) {
  int mid = m->body_fem_scheme[b] == CM_FEM_MIDPOINT;
  if (w) *w = mid ? 4 : 1;
  return mid ? 0.25 * h : h;
}

int cm_island_fem_setup(Island* is, const int* loc, const int* nloc, double h, cmArena* arena) {
  const cmModel* m = is->m;
  const cmData* d = is->d;
  const cmDataPriv* p = cm_priv(d);
  is->ntet = 0;
  is->tet = NULL;
  is->tblk = NULL;
  is->tslot = NULL;
  is->xc = cm_arena_calloc(arena, 3 * (size_t)is->nb + 1, sizeof *is->xc);
  is->fa = cm_arena_calloc(arena, (size_t)is->nb + 1, sizeof *is->fa);
  if (!is->xc || !is->fa) return 1;
  /* the free nodes' blocks: x = xc + a u */
  for (int l = 0; l < is->nb; l++) {
    int n = is->node[l];
    if (n < 0) continue;
    int b = is->body[l];
    double a = scheme_a(m, b, h, NULL);
    int mid = m->body_fem_scheme[b] == CM_FEM_MIDPOINT;
    is->fa[l] = a;
    for (int k = 0; k < 3; k++)
      is->xc[3 * l + k] =
          d->node_pos[3 * (size_t)n + k] + (mid ? a * d->node_vel[3 * (size_t)n + k] : 0);
  }
  /* the deformable bodies of the island: those of its free nodes (a body's blocks are
   * consecutive) */
  int ntet = 0;
  for (int l = 0; l < is->nb; l++)
    if (is->node[l] >= 0 && (l == 0 || is->body[l - 1] != is->body[l]))
      ntet += m->body_ntet[is->body[l]];
  if (!ntet) return 0;
  is->tet = cm_arena_alloc(arena, (size_t)ntet * sizeof *is->tet);
  is->tblk = cm_arena_alloc(arena, (size_t)ntet * 4 * sizeof *is->tblk);
  is->tr = cm_arena_alloc(arena, (size_t)ntet * 12 * sizeof *is->tr);
  is->txc = cm_arena_alloc(arena, (size_t)ntet * 12 * sizeof *is->txc);
  if (!is->tet || !is->tblk || !is->tr || !is->txc) return 1;
  for (int l = 0; l < is->nb; l++) {
    if (is->node[l] < 0 || (l > 0 && is->body[l - 1] == is->body[l])) continue;
    int b = is->body[l], mid = m->body_fem_scheme[b] == CM_FEM_MIDPOINT;
    double a = scheme_a(m, b, h, NULL);
    for (int t = m->body_tetadr[b]; t < m->body_tetadr[b] + m->body_ntet[b]; t++) {
      size_t e = (size_t)is->ntet;
      int* tb = is->tblk + 4 * e;
      double* tr = is->tr + 12 * e;
      double* txc = is->txc + 12 * e;
      int any = 0;
      for (int k = 0; k < 4; k++) {
        int n = m->tet_node[4 * (size_t)t + k], ab = m->node_attach[n];
        const double* xn = d->node_pos + 3 * (size_t)n;
        cm_v3_set(tr + 3 * k, 0, 0, 0);
        if (!m->node_fixed[n] && ab >= 0 && loc[ab] >= 0) {
          /* attached to a dynamic body: its velocity is v + w x r of that body's block */
          tb[k] = loc[ab];
          cm_v3_sub(tr + 3 * k, xn, d->body_cpos + 3 * ab);
        } else {
          tb[k] = nloc[n];
        }
        if (tb[k] >= 0) {
          for (int c = 0; c < 3; c++)
            txc[3 * k + c] = xn[c] + (mid ? a * d->node_vel[3 * (size_t)n + c] : 0);
        } else {
          /* fixed, or moved by a fixed or prescribed body: where it is at the end (backward
           * Euler) or the middle (midpoint rule) of the step, from its velocity over the step */
          for (int c = 0; c < 3; c++)
            txc[3 * k + c] = xn[c] + (mid ? 0.5 : 1) * h * p->node_vx[3 * (size_t)n + c];
        }
        any |= nloc[n] >= 0;
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
      if (a >= 0 && b >= 0 && a != b) {
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
      is->tslot[6 * (size_t)e + p] = a >= 0 && b >= 0 && a != b ? cm_bchol_slot(is->bc, a, b) : -1;
    }
  }
}

/* the velocity of a tet node whose side is block l with lever r: v + w x r of x (6 per block) */
static void side_velocity(const double* x, int l, const double r[3], double out[3]) {
  if (r[0] == 0 && r[1] == 0 && r[2] == 0) { /* a free node (w x 0 = 0 exactly) */
    cm_v3_copy(out, x + 6 * l);
    return;
  }
  cm_v3_cross(out, x + 6 * l + 3, r);
  for (int k = 0; k < 3; k++)
    out[k] += x[6 * l + k];
}

/* the positions of tet e's nodes at u + t du (x = xc + a (v + w x r) on a variable side, else
 * xc); returns the weight w of its body's scheme and sets *a */
static double tet_positions(const Island* is, int e, const double* u, const double* du, double t,
                            double x[12], double* a) {
  const cmModel* m = is->m;
  int b = m->node_body[m->tet_node[4 * (size_t)is->tet[e]]];
  double w;
  *a = scheme_a(m, b, is->h, &w);
  const int* tb = is->tblk + 4 * (size_t)e;
  const double* tr = is->tr + 12 * (size_t)e;
  const double* txc = is->txc + 12 * (size_t)e;
  for (int k = 0; k < 4; k++) {
    if (tb[k] < 0) {
      cm_v3_copy(x + 3 * k, txc + 3 * k);
      continue;
    }
    double v[3], dv[3] = {0, 0, 0};
    side_velocity(u, tb[k], tr + 3 * k, v);
    if (du) side_velocity(du, tb[k], tr + 3 * k, dv);
    for (int i = 0; i < 3; i++)
      x[3 * k + i] = txc[3 * k + i] + *a * (v[i] + t * dv[i]);
  }
  return w;
}

/* B (6x6 at stride) += J_i^T K J_j, J = [I, -[r]x]: [[K, -K [rj]x], [[ri]x K, -[ri]x K [rj]x]] */
static void add_sides(double* B, size_t stride, const double K[9], const double ri[3],
                      const double rj[3]) {
  if (ri[0] == 0 && ri[1] == 0 && ri[2] == 0 && rj[0] == 0 && rj[1] == 0 && rj[2] == 0) {
    /* two free nodes: the other three blocks are exactly 0 */
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        B[(size_t)r * stride + c] += K[3 * r + c];
    return;
  }
  double RK[9], KR[9], RKR[9];
  for (int c = 0; c < 3; c++) { /* column c of [ri]x K: ri x (column c of K) */
    double col[3] = {K[c], K[3 + c], K[6 + c]}, o[3];
    cm_v3_cross(o, ri, col);
    RK[c] = o[0], RK[3 + c] = o[1], RK[6 + c] = o[2];
  }
  for (int r = 0; r < 3; r++) { /* row r of -K [rj]x: rj x (row r of K) */
    double row[3] = {K[3 * r], K[3 * r + 1], K[3 * r + 2]}, o[3];
    cm_v3_cross(o, rj, row);
    KR[3 * r] = o[0], KR[3 * r + 1] = o[1], KR[3 * r + 2] = o[2];
  }
  for (int r = 0; r < 3; r++) { /* -[ri]x K [rj]x: row r of [ri]x K crossed likewise */
    double row[3] = {RK[3 * r], RK[3 * r + 1], RK[3 * r + 2]}, o[3];
    cm_v3_cross(o, rj, row);
    RKR[3 * r] = o[0], RKR[3 * r + 1] = o[1], RKR[3 * r + 2] = o[2];
  }
  for (int r = 0; r < 3; r++) {
    double* top = B + (size_t)r * stride;
    double* bot = B + (size_t)(r + 3) * stride;
    for (int c = 0; c < 3; c++) {
      top[c] += K[3 * r + c];
      top[3 + c] += KR[3 * r + c];
      bot[c] += RK[3 * r + c];
      bot[3 + c] += RKR[3 * r + c];
    }
  }
}

/* The square of element t0's rounding floor (its force's share of the convergence test's
 * scale, cm_island_fem_grad_hess), wa = w a its factor to the gradient, x its nodes' positions
 * (12). An element's force is computed from its strain, which rounds at about 1e-16 of
 * |x| / size (the positions' differences lose the digits of their distance from the origin),
 * times its stiffness (2 mu + lambda) vol^(2/3): the floor takes 1e-5 of that stiffness times
 * max(1, |x| / vol^(1/3)), so that the solve's tolerance (1e-10) stays about 10 times above the
 * rounding wherever the body is. Until 2026-12-08 the floor left |x| / size out: a 6^3-cell
 * cube 10 m from the origin spent hundreds of Newton iterations a step and warned
 * solver_not_converged (docs/deformable.md). */
static double rounding_floor2(const cmModel* m, int t0, double wa, const double x[12]) {
  int b = m->node_body[m->tet_node[4 * (size_t)t0]];
  double vol = m->tet_vol[t0], size = cbrt(vol), xm = 0;
  for (int i = 0; i < 12; i++)
    xm = fmax(xm, fabs(x[i]));
  double k = 1e-5 * wa * (2 * m->body_lame[2 * b] + m->body_lame[2 * b + 1]) * size * size *
             fmax(1, xm / size);
  return k * k;
}

/* The stiffness that Rayleigh's beta multiplies, for element t0 of body b at the positions x of
 * the solve (tet_positions) with the nodes' velocities v (12 each). With backward Euler and the
 * corotated or Neo-Hookean material: the small-strain stiffness vol B^T C B (the linear material's
 * Hessian) of the element's shape at the middle of the step, y = x - (h/2) v, written to Kd and
 * returned. Its force vanishes for every rigid velocity: the chord of a rotation R over the step,
 * v = (R - I) x_n / h, has the gradient (R - I)(R + I)^-1 2/h on y = (I + R) x_n / 2, which is
 * skew (the Cayley transform of R). The material's own Hessian H at the end of the step does
 * not vanish there: the chord is off the end's tangent by h w / 2, and an audit (2026-12-08)
 * found a free cube spinning at 10 rad/s at beta 0.01 s gaining 6-10 times its angular momentum
 * in 0.5 s, and an attached pad on a turning plate squeezed radially by O(h w beta). Else (the
 * linear material, which does not follow rotations anyway; the midpoint rule, whose velocity
 * is not the chord; an element inverted at y) H, returned as it is. */
static const double* damping_stiffness(const cmModel* m, int b, const cmFemMaterial* mat, double h,
                                       const double x[12], const double v[12], const double* H,
                                       double Kd[144]) {
  if (mat->model == CM_FEM_LINEAR || m->body_fem_scheme[b] == CM_FEM_MIDPOINT) return H;
  double y[12], Dminv[9], vol;
  for (int i = 0; i < 12; i++)
    y[i] = x[i] - 0.5 * h * v[i];
  if (!cm_fem_tet_rest(y, Dminv, &vol)) return H;
  cmFemMaterial lin = {CM_FEM_LINEAR, mat->mu, mat->lambda};
  cm_fem_tet_energy_ex(&lin, Dminv, vol, y, NULL, Kd, 0);
  return Kd;
}

int cm_island_fem_grad_hess(Island* is) {
  const cmModel* m = is->m;
  size_t n = 6 * (size_t)is->nb;
  double f2 = 0, floor2 = 0;
  for (int e = 0; e < is->ntet; e++) {
    int t0 = is->tet[e];
    double x[12], g[12], H[144], a;
    double w = tet_positions(is, e, is->u, NULL, 0, x, &a);
    cmFemMaterial mat;
    cm_body_fem_material(m, m->node_body[m->tet_node[4 * (size_t)t0]], &mat);
    double E = cm_fem_tet_energy_ex(&mat, m->tet_dminv + 9 * (size_t)t0, m->tet_vol[t0], x, g, H,
                                    !is->fem_exact);
    if (!isfinite(E)) return 0;
    double gs = w * a, hs = w * a * a;
    floor2 += rounding_floor2(m, t0, w * a, x);
    const int* tb = is->tblk + 4 * (size_t)e;
    const double* tr = is->tr + 12 * (size_t)e;
    double beta = m->body_rayleigh[2 * m->node_body[m->tet_node[4 * (size_t)t0]] + 1];
    if (beta > 0) {
      /* Rayleigh's stiffness-proportional damping: the force h beta K v at the nodes'
       * velocities (K this element's stiffness now), its Hessian h beta K */
      double v[12];
      for (int k = 0; k < 4; k++) {
        if (tb[k] >= 0)
          side_velocity(is->u, tb[k], tr + 3 * k, v + 3 * k);
        else /* fixed (0) or carried by a fixed or prescribed body */
          cm_v3_copy(v + 3 * k,
                     cm_priv(is->d)->node_vx + 3 * (size_t)m->tet_node[4 * (size_t)t0 + k]);
      }
      double hb = is->h * beta, Kd[144];
      const double* D =
          damping_stiffness(m, m->node_body[m->tet_node[4 * (size_t)t0]], &mat, is->h, x, v, H, Kd);
      for (int r = 0; r < 12; r++) {
        double s = 0;
        for (int c = 0; c < 12; c++)
          s += D[12 * r + c] * v[c];
        g[r] += hb / gs * s; /* scaled back by gs below */
      }
      if (D == H) {
        hs += hb;
      } else {
        /* H + (hb / hs) Kd, scaled by hs below */
        for (int i = 0; i < 144; i++)
          H[i] += hb / hs * Kd[i];
      }
    }
    int free[4];
    for (int k = 0; k < 4; k++)
      free[k] = tr[3 * k] == 0 && tr[3 * k + 1] == 0 && tr[3 * k + 2] == 0;
    for (int i = 0; i < 4; i++) {
      int li = tb[i], free_i = free[i];
      if (li < 0) continue;
      /* the force on the side: (f, r x f) */
      double f[3] = {gs * g[3 * i], gs * g[3 * i + 1], gs * g[3 * i + 2]}, rf[3];
      cm_v3_cross(rf, tr + 3 * i, f);
      for (int k = 0; k < 3; k++) {
        is->g[6 * li + k] += f[k];
        is->g[6 * li + 3 + k] += rf[k];
        f2 += f[k] * f[k];
      }
      for (int j = 0; j < 4; j++) {
        int lj = tb[j];
        if (lj < 0) continue;
        double K[9];
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            K[3 * r + c] = hs * H[(3 * i + r) * 12 + 3 * j + c];
        /* the destination: the dense Hessian, a diagonal block, or the stored (lower) block of
         * the pair (li, lj) (the other order is implied) */
        double* B = NULL;
        size_t stride = 6;
        if (is->H) {
          B = is->H + (6 * (size_t)li) * n + 6 * (size_t)lj;
          stride = n;
        } else if (li == lj) {
          B = cm_bchol_diag(is->bc, li);
        } else if (is->bc->iperm[li] > is->bc->iperm[lj]) {
          int p = 0;
          while (!((PAIR[p][0] == i && PAIR[p][1] == j) || (PAIR[p][0] == j && PAIR[p][1] == i)))
            p++;
          B = cm_bchol_block(is->bc, is->tslot[6 * (size_t)e + p]);
        }
        if (!B) continue;
        if (free_i && free[j]) {
          /* two free nodes (the common case): their 3x3 block, in place */
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              B[(size_t)r * stride + c] += K[3 * r + c];
        } else {
          add_sides(B, stride, K, tr + 3 * i, tr + 3 * j);
        }
      }
    }
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
    const double* tr = is->tr + 12 * (size_t)e;
    for (int i = 0; i < 4; i++) {
      if (tb[i] < 0) continue;
      double dv[3];
      side_velocity(is->du, tb[i], tr + 3 * i, dv);
      s += w * a * (g[3 * i] * dv[0] + g[3 * i + 1] * dv[1] + g[3 * i + 2] * dv[2]);
    }
  }
  return s;
}

void cm_island_fem_damping_line(const Island* is, double* a, double* c) {
  const cmModel* m = is->m;
  for (int e = 0; e < is->ntet; e++) {
    int t0 = is->tet[e], b = m->node_body[m->tet_node[4 * (size_t)t0]];
    double beta = m->body_rayleigh[2 * b + 1];
    if (!(beta > 0)) continue;
    double x[12], H[144], Kd[144], as, v[12], dv[12];
    tet_positions(is, e, is->u, NULL, 0, x, &as);
    cmFemMaterial mat;
    cm_body_fem_material(m, b, &mat);
    double E = cm_fem_tet_energy_ex(&mat, m->tet_dminv + 9 * (size_t)t0, m->tet_vol[t0], x, NULL, H,
                                    !is->fem_exact);
    if (!isfinite(E)) continue;
    const int* tb = is->tblk + 4 * (size_t)e;
    const double* tr = is->tr + 12 * (size_t)e;
    for (int k = 0; k < 4; k++) {
      if (tb[k] >= 0) {
        side_velocity(is->u, tb[k], tr + 3 * k, v + 3 * k);
        side_velocity(is->du, tb[k], tr + 3 * k, dv + 3 * k);
      } else { /* as in cm_island_fem_grad_hess; it does not move along du */
        cm_v3_copy(v + 3 * k,
                   cm_priv(is->d)->node_vx + 3 * (size_t)m->tet_node[4 * (size_t)t0 + k]);
        cm_v3_set(dv + 3 * k, 0, 0, 0);
      }
    }
    double hb = is->h * beta;
    const double* D = damping_stiffness(m, b, &mat, is->h, x, v, H, Kd);
    for (int r = 0; r < 12; r++) {
      double Kv = 0, Kdv = 0;
      for (int q = 0; q < 12; q++) {
        Kv += D[12 * r + q] * v[q];
        Kdv += D[12 * r + q] * dv[q];
      }
      *a += hb * dv[r] * Kv;
      *c += hb * dv[r] * Kdv;
    }
  }
}

void cm_island_fem_start_at_rest(Island* is) {
  for (int l = 0; l < is->nb; l++) {
    int n = is->node[l];
    if (n < 0) continue;
    for (int k = 0; k < 3; k++)
      is->u[6 * l + k] = (is->d->node_pos[3 * (size_t)n + k] - is->xc[3 * l + k]) / is->fa[l];
  }
}
