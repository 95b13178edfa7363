/* Mass properties of the solid bounded by a closed, outward-oriented triangle mesh.
 *
 * Divergence theorem. Choose a reference point r (the mean vertex, near the centroid, so that
 * the products below do not cancel catastrophically for a mesh far from the origin) and write
 * every vertex relative to it. Each face (a, b, c) with the point r spans a tetrahedron T_f of
 * signed volume
 *     V_f = a . (b x c) / 6,
 * positive when the face is seen counter-clockwise from outside and r is behind it. For a closed
 * surface the signed tetrahedra cover the solid exactly once (points outside are covered as many
 * times positively as negatively), so for any polynomial g,  int_solid g = sum_f int_{T_f} g.
 *
 * Exact integrals over a tetrahedron with vertices 0, a, b, c (map x = a u + b v + c w from the
 * unit simplex, Jacobian 6 V_f, and use the Dirichlet integrals  int u = 1/24,  int u^2 = 1/60,
 * int u v = 1/120  over the unit simplex of volume 1/6):
 *     int 1       = V_f
 *     int x_i     = V_f (a_i + b_i + c_i) / 4
 *     int x_i x_j = V_f / 20 [ a_i a_j + b_i b_j + c_i c_j + s_i s_j ],   s = a + b + c.
 * (Check: a, b, c = e_x, e_y, e_z gives int x^2 = (1/6)(2/20) = 1/60, int x y = 1/120.)
 *
 * Summing: volume V, first moment m1 and second moments S_ij = int x_i x_j about r. The centre
 * of volume is g = m1 / V (relative to r), the second moments about it S'_ij = S_ij - V g_i g_j,
 * and the inertia tensor per unit density  I = tr(S') 1 - S'. */
#include "core/cm_math.h"
#include "core/internal.h"
#include "geom/mesh_internal.h"

cmStatus cm_mesh_mass_properties(const cmMesh* mesh, cmMassProperties* out) {
  CM_ASSERT(mesh && out);
  *out = (cmMassProperties){0};
  if (!cm_mesh_indices_valid(mesh)) return CM_ERR_ARG;

  double r[3];
  cm_mesh_ref_point(mesh, r);

  /* accumulate volume, first and second moments and area over the face tetrahedra */
  double vol = 0, area = 0, m1[3] = {0, 0, 0}, S[9] = {0};
  for (int f = 0; f < mesh->nface; f++) {
    const int* t = mesh->face + 3 * (size_t)f;
    double a[3], b[3], c[3], bc[3], ab[3], ac[3], cr[3], s[3];
    cm_v3_sub(a, mesh->vert + 3 * (size_t)t[0], r);
    cm_v3_sub(b, mesh->vert + 3 * (size_t)t[1], r);
    cm_v3_sub(c, mesh->vert + 3 * (size_t)t[2], r);
    cm_v3_cross(bc, b, c);
    double vf = cm_v3_dot(a, bc) / 6.0;
    cm_v3_add(s, a, b);
    cm_v3_add(s, s, c);
    vol += vf;
    cm_v3_madd(m1, m1, s, vf / 4.0);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        S[3 * i + j] += vf / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);

    /* face area from the edge cross product */
    cm_v3_sub(ab, b, a);
    cm_v3_sub(ac, c, a);
    cm_v3_cross(cr, ab, ac);
    area += 0.5 * cm_v3_norm(cr);
  }
  out->volume = vol;
  out->area = area;
  if (!(vol > 0) || !isfinite(vol)) {
    cm_v3_copy(out->com, r);
    return CM_ERR_MESH;
  }

  /* shift to the centre of volume (parallel axis) and form the inertia tensor */
  double g[3];
  cm_v3_scale(g, m1, 1.0 / vol);
  cm_v3_add(out->com, r, g);
  double Sc[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      Sc[3 * i + j] = S[3 * i + j] - vol * g[i] * g[j];
  double tr = Sc[0] + Sc[4] + Sc[8];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out->inertia[3 * i + j] = (i == j ? tr : 0.0) - Sc[3 * i + j];
  return CM_OK;
}
