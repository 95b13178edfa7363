/* The rule of thumb of area-compliant-contact.txt (docs/contact-laws.md, "Choosing ka"),
 * measured on a thin elastic layer bonded to a rigid base and pressed by a rigid indenter.
 *
 * The document: a contact of stiffness ka per area penetrates delta = p / ka under the pressure
 * p; the body deforms deltaB = p Le / E (nu = 0, Le its effective thickness), so
 * ka = rho E / Le makes rho = deltaB / delta, and rho 10..30 is the compromise between a small
 * contact penetration (rho large) and the noisy pressures of stiff vertex contact (rho small).
 * A layer that cannot expand sideways (nu > 0, bonded, wide) is stiffer: sigma_zz =
 * M eps_zz with the constrained modulus M = E (1 - nu) / ((1 + nu)(1 - 2 nu)), M / E = 3.793
 * at nu = 0.45 (the document's "about 3.8"), so deltaB = p Le / M and
 *
 *     deltaB / delta = ka Le / M = rho E / M.
 *
 * The scenes (linear material: the rule's small strain; Le = 2 mm, E = 5 MPa, the document's
 * cartilage; quasi-static steps of 1 s without gravity, step_damping 0.5, so that a converged
 * step is the static solution, as in physics/test_hertz):
 *
 * - plane: a rigid half-space pressed 1 % of Le into a layer 12 Le wide, cells Le / 2: at the
 *   centre (6 Le from the free edges) the layer is confined, so deltaB / delta = rho E / M and
 *   the measured confined factor rho delta / deltaB is M / E (exact at nu = 0: uniaxial strain
 *   is a linear field, which linear tets represent exactly);
 * - sphere: a rigid icosphere (radius 50 Le, refine 5: facets of 3.3 mm, 1.6 Le) pressed 5 % of
 *   Le: the patch is about 3 Le across its radius. deltaB / delta at the patch centre, and the
 *   pressure noise over the patch: the rms deviation of the contact pressures (force / area
 *   of each node) from the best smooth fit c0 + c1 r^2 + c2 r^4 over the inner 80 % of the
 *   patch radius, over their mean (the fit takes out the pressure profile the indenter's shape
 *   gives; what is left is the node-to-node scatter). Its spread std / mean is printed too.
 *
 * Why the noise grows with rho and then saturates: the gap the indenter imposes has a smooth
 * part (the sphere) and a rough part of short wavelength lambda (the facets, the nodes' places
 * under them). A layer resists a surface wave of wavenumber k = 2 pi / lambda with a stiffness
 * per area of about E* k / 2 (a half-space, when lambda < Le) and the smooth part with E / Le;
 * the contact is in series with both. While ka << E* k / 2 the rough part's pressure is
 * ka s (s its amplitude) against a mean of about ka delta_tot / (1 + rho): the noise grows like
 * 1 + rho; once ka >> E* k / 2 it is held at (k Le / 2) s / delta_tot, whatever ka. In all,
 *
 *     noise(rho) = n0 (1 + rho) / (1 + rho / rho_k),   rho_k = k Le / 2 = pi Le / lambda,
 *
 * rising from n0 = s / delta_tot to n0 rho_k (the rigid contact's): the knee rho_k is 1.9 for
 * the facets here (lambda = 3.3 mm), and at most (pi / 2) Le / h for the nodes' spacing h.
 *
 * physics_test_layer_rule --sweep [refine [f]] prints the tables of docs/contact-laws.md (rho
 * 1 to 50, nu 0 and 0.45, ka = rho E / Le and rho M / Le; 11 s; refine 7 with cells Le / 4,
 * f = 2, 2 min); the test asserts its claims on a few of its rows. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comply/comply.h"
#include "core/cm_math.h"
#include "scenes.h"
#include "test.h"

static char err[1024];

enum { PLANE, SPHERE };

typedef struct {
  double ratio;  /* deltaB / delta at the centre */
  double factor; /* rho delta / deltaB: the apparent modulus over E */
  double noise;  /* rms deviation from the smooth fit over the mean pressure */
  double spread; /* std / mean of the pressure over the same nodes */
  double pmean, patch;
  double cpu; /* CPU seconds of the steps */
  int npatch, steps;
  long newton; /* Newton iterations over the steps */
} LayerRun;

/* least squares p = c0 + c1 r^2 + c2 r^4 (normal equations, Cramer) */
static void fit_even_quartic(int n, const double* r2, const double* p, double c[3]) {
  double A[9] = {0}, b[3] = {0};
  for (int i = 0; i < n; i++) {
    double f[3] = {1, r2[i], r2[i] * r2[i]};
    for (int j = 0; j < 3; j++) {
      b[j] += f[j] * p[i];
      for (int k = 0; k < 3; k++)
        A[3 * j + k] += f[j] * f[k];
    }
  }
  double Ai[9];
  if (!cm_m3_inverse(Ai, A)) {
    c[0] = c[1] = c[2] = 0;
    return;
  }
  cm_m3_mulv(c, Ai, b);
}

/* indenter PLANE or SPHERE on a layer of Poisson's ratio nu, ka = rho E / Le */
static int sphere_refine = 5; /* the sphere's icosphere refinement */
static int sphere_fine = 1;   /* the sphere's layer cells: Le / (2 sphere_fine) */
static LayerRun layer_run(int indenter, double nu, double rho) {
  const double Le = 0.002, E = 5e6, W = (indenter == PLANE ? 24 : 12) * Le;
  LayerRun out;
  memset(&out, 0, sizeof out);
  cmScene* s = cm_scene_new("layer");
  s->opt.timestep = 1;
  cm_v3_set(s->opt.gravity, 0, 0, 0);
  cmBodyDef b = scene_box("layer", W, W, Le, 1);
  b.motion = CM_MOTION_DEFORMABLE;
  b.deformable.material = CM_MATERIAL_LINEAR;
  b.deformable.young = E;
  b.deformable.poisson = nu;
  int fine = indenter == SPHERE ? sphere_fine : 1;
  b.deformable.cells[0] = b.deformable.cells[1] = 24 * fine; /* plane: Le, sphere: Le / (2 f) */
  b.deformable.cells[2] = 2 * fine;
  b.position[2] = Le / 2;
  b.deformable.has_fixed = 1;
  cm_v3_set(b.deformable.fixed_min, -1, -1, -1);
  cm_v3_set(b.deformable.fixed_max, 1, 1, 1e-9);
  double travel;
  cmBodyDef ind;
  if (indenter == PLANE) {
    travel = 0.01 * Le;
    ind = scene_ground();
    ind.name = "indenter";
    cm_v3_set(ind.geom.normal, 0, 0, -1); /* the half-space z >= Le - travel */
    ind.position[2] = Le - travel;
  } else {
    const double Rs = 50 * Le;
    travel = 0.05 * Le;
    ind = scene_sphere("indenter", Rs, sphere_refine);
    ind.motion = CM_MOTION_FIXED;
    /* the icosphere's lowest point: its facets lie inside the sphere */
    ind.position[2] = Le + Rs - travel;
  }
  CHECK(cm_scene_add_body(s, &b, err, sizeof err) == 0);
  CHECK(cm_scene_add_body(s, &ind, err, sizeof err) == 1);
  cmRuleDef r = cm_rule_def_default();
  r.law = CM_LAW_AREA_COMPLIANT;
  r.ka = rho * E / Le;
  r.step_damping = 0.5;
  CHECK(cm_scene_add_rule(s, &r, err, sizeof err) == 0);
  cmModel* m = scene_compile(s);
  if (!m) return out;
  cmData* d = cm_data_new(m);
  double F = 0, Fprev = -1;
  clock_t t0 = clock();
  int k;
  for (k = 0; k < 40 && (k < 3 || fabs(F - Fprev) > 1e-7 * F); k++) {
    CHECK(cm_step(m, d) == CM_OK);
    Fprev = F;
    F = 0;
    for (int c = 0; c < d->ncontact; c++)
      F += d->contact[c].force;
  }
  out.steps = k;
  out.cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
  out.newton = d->solver_total_iter;
  CHECK(d->warning[CM_WARN_SOLVER] == 0);
  /* each contact's node, at its rest place: the centre is the node at x = y = 0 on the top */
  int nc = d->ncontact, centre = -1, vadr = m->geom_vertadr[m->body_geom[0]];
  double rmax = 0;
  double* r2 = malloc(sizeof(double) * (size_t)(nc + 1));
  double* p = malloc(sizeof(double) * (size_t)(nc + 1));
  for (int c = 0; c < nc; c++) {
    const cmContact* ct = d->contact + c;
    CHECK(ct->body[0] == 0 && ct->vert >= 0);
    const double* x0 = m->node_pos0 + 3 * m->mesh_vert_node[vadr + ct->vert];
    r2[c] = x0[0] * x0[0] + x0[1] * x0[1];
    if (r2[c] < 1e-12 * Le * Le && x0[2] > 0.999 * Le) centre = c;
    if (ct->force > 0) rmax = fmax(rmax, sqrt(r2[c]));
  }
  CHECK(centre >= 0);
  if (centre >= 0) {
    const cmContact* ct = d->contact + centre;
    int node = m->mesh_vert_node[vadr + ct->vert];
    double delta = -ct->dist;
    double deltaB = m->node_pos0[3 * node + 2] - d->node_pos[3 * node + 2]; /* its drop */
    out.ratio = deltaB / delta;
    out.factor = rho / out.ratio;
  }
  /* the patch: the contacts within 0.8 of its radius */
  out.patch = rmax;
  int n = 0;
  for (int c = 0; c < nc; c++) {
    const cmContact* ct = d->contact + c;
    if (ct->force <= 0 || ct->area <= 0 || r2[c] > 0.64 * rmax * rmax) continue;
    r2[n] = r2[c];
    p[n++] = ct->force / ct->area;
  }
  out.npatch = n;
  if (n >= 6) {
    double c3[3], mean = 0, var = 0, res = 0;
    fit_even_quartic(n, r2, p, c3);
    for (int i = 0; i < n; i++)
      mean += p[i] / n;
    for (int i = 0; i < n; i++) {
      double f = c3[0] + c3[1] * r2[i] + c3[2] * r2[i] * r2[i];
      var += (p[i] - mean) * (p[i] - mean) / n;
      res += (p[i] - f) * (p[i] - f) / n;
    }
    out.pmean = mean;
    out.noise = sqrt(res) / mean;
    out.spread = sqrt(var) / mean;
  }
  free(r2);
  free(p);
  cm_data_free(d);
  cm_model_free(m);
  return out;
}

static double confined(double nu) {
  return (1 - nu) / ((1 + nu) * (1 - 2 * nu));
}

/* the table of docs/contact-laws.md: nu 0 and 0.45 at ka = rho E / Le, and nu 0.45 at
 * ka = rho M / Le (passed as rho M / E) */
static void sweep(void) {
  const double rhos[] = {1, 2, 5, 10, 20, 30, 50};
  const double nus[] = {0, 0.45, 0.45};
  const char* name[] = {"nu 0, ka = rho E / Le", "nu 0.45, ka = rho E / Le",
                        "nu 0.45, ka = rho M / Le"};
  for (int j = 0; j < 3; j++) {
    double scale = j == 2 ? confined(nus[j]) : 1;
    printf("  %s (M/E %.3f):\n", name[j], confined(nus[j]));
    printf("    rho | plane: dB/d  M/E   | sphere: dB/d  E_app/E noise   spread  nodes patch(m) "
           "| steps, Newton it., CPU s: plane; sphere\n");
    for (int i = 0; i < 7; i++) {
      LayerRun a = layer_run(PLANE, nus[j], rhos[i] * scale);
      LayerRun b = layer_run(SPHERE, nus[j], rhos[i] * scale);
      printf("    %3.0f |      %6.3f  %6.4f |       %6.3f  %6.4f  %.4f  %.4f  %4d  %.2e | %d %ld "
             "%.2f; %d %ld %.2f\n",
             rhos[i], a.ratio, a.factor, b.ratio, b.factor, b.noise, b.spread, b.npatch, b.patch,
             a.steps, a.newton, a.cpu, b.steps, b.newton, b.cpu);
    }
  }
}

/* the plane: deltaB / delta = rho E / M at the centre of a wide bonded layer; nu = 0 exactly
 * (uniaxial strain is linear), the confined factor M / E = 3.793 at nu 0.45 (12 Le from the
 * free edges, where the layer bulges), and ka = rho M / Le gives deltaB / delta = rho */
static void test_confined_layer(void) {
  LayerRun a = layer_run(PLANE, 0, 20);
  printf("  plane, nu 0, rho 20: deltaB / delta %.6f\n", a.ratio);
  CHECK_REL(a.ratio, 20, 1e-6);
  LayerRun b = layer_run(PLANE, 0.45, 20);
  printf("  plane, nu 0.45, rho 20: deltaB / delta %.4f, confined factor %.4f (M/E %.4f)\n",
         b.ratio, b.factor, confined(0.45));
  CHECK_REL(b.factor, confined(0.45), 0.01);
  LayerRun c = layer_run(PLANE, 0.45, 20 * confined(0.45));
  printf("  plane, nu 0.45, ka = 20 M / Le: deltaB / delta %.4f\n", c.ratio);
  CHECK_REL(c.ratio, 20, 0.01);
}

/* the sphere: the noise grows with rho and saturates (the knee at rho ~ pi Le / lambda, 1.9
 * for the facets of 3.3 mm): monotone, and the rise from rho 10 to 50 less than half that from
 * 1 to 10 (the series model of the header gives 0.3); the confined layer at ka = rho M / Le is
 * no noisier than the nu = 0 layer at ka = rho E / Le (its short-wave stiffness E / (1 - nu^2)
 * grows 1.25 times where M grows 3.8 times) */
static void test_noise(void) {
  const double rhos[] = {1, 10, 50};
  double n0[3], n45[3];
  for (int i = 0; i < 3; i++) {
    LayerRun a = layer_run(SPHERE, 0, rhos[i]);
    LayerRun b = layer_run(SPHERE, 0.45, rhos[i] * confined(0.45));
    n0[i] = a.noise;
    n45[i] = b.noise;
    printf("  sphere, rho %2.0f: nu 0: deltaB / delta %.3f, noise %.4f; nu 0.45 (ka = rho M / Le): "
           "deltaB / delta %.3f, noise %.4f\n",
           rhos[i], a.ratio, a.noise, b.ratio, b.noise);
    CHECK(a.npatch > 20 && b.npatch > 20);
    CHECK(b.noise <= a.noise);
  }
  CHECK(n0[0] < n0[1] && n0[1] < n0[2]);
  CHECK(n0[2] - n0[1] < 0.5 * (n0[1] - n0[0]));
  CHECK(n45[0] < n45[1] && n45[1] < n45[2]);
}

/* physics_test_layer_rule --sweep [refine [f]]: the table of docs/contact-laws.md (the sphere's
 * refinement 5 and the layer's cells Le / 2 under it unless given; f: cells Le / (2 f)) */
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--sweep") == 0) {
    if (argc > 2) sphere_refine = atoi(argv[2]);
    if (argc > 3) sphere_fine = atoi(argv[3]);
    sweep();
    return 0;
  }
  RUN(test_confined_layer);
  RUN_LONG(test_noise);
  return test_report();
}
