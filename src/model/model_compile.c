/* Compile a cmScene into a read-only cmModel.
 *
 * 1. validate the scene (cm_scene_validate: every range check lives there);
 * 2. geometries: generate or load each distinct geometry once (identical primitives and the same
 *    file at the same scale are shared, found through a hash of their parameters), validate and
 *    prepare its mesh, compute its unit-density mass properties;
 * 3. bodies: mass, centre of mass and inertia from density and geometry unless given (a given
 *    com moves the inertia by the parallel-axis theorem), initial state of the com;
 * 4. rules: rule 0 is the built-in default ("*", "*") contact_time, user rules follow; a pair
 *    uses the last rule that matches it; resolved into a table over alias classes (rules.c);
 * 5. joints: anchors expressed in each body's frame;
 * 6. notes: warnings a user should see before running (comply check prints them): unstable
 *    damping (compile_rules), a `vertex` rule between meshes with large flat faces
 *    (note_vertex_on_flat). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "comply/model.h"
#include "core/cm_math.h"
#include "core/hash.h"
#include "core/internal.h"
#include "core/sort.h"
#include "geom/bvh.h"
#include "geom/closest.h"
#include "geom/facets.h"
#include "geom/tri_tri.h"
#include "model/fields.h"
#include "model/model_fem.h"
#include "model/rules.h"

#define ERRSZ 512

/* "FILE:LINE:COL: " prefix for a definition's location */
static void loc_prefix(char* buf, size_t sz, const cmScene* s, cmSourceLoc loc) {
  const char* file = s->file ? s->file : "scene";
  if (loc.line > 0)
    snprintf(buf, sz, "%s:%d:%d: ", file, loc.line, loc.col);
  else
    snprintf(buf, sz, "%s: ", file);
}

static cmStatus add_note(cmModel* m, const char* text) {
  char** t = cm_realloc(m->note, (size_t)(m->nnote + 1) * sizeof *t);
  if (!t) return CM_ERR_NOMEM;
  m->note = t;
  m->note[m->nnote] = cm_strdup(text);
  if (!m->note[m->nnote]) return CM_ERR_NOMEM;
  m->nnote++;
  return CM_OK;
}

/* a note on rule r (R, its definition): "FILE:LINE:COL: rule R (A, B): " and the message */
static cmStatus rule_note(cmModel* m, const cmScene* s, const cmRuleDef* R, int r, char* err,
                          size_t errsz, const char* fmt, ...) __attribute__((format(printf, 7, 8)));
static cmStatus rule_note(cmModel* m, const cmScene* s, const cmRuleDef* R, int r, char* err,
                          size_t errsz, const char* fmt, ...) {
  char where[256], msg[640], note[1024];
  loc_prefix(where, sizeof where, s, R->loc);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(note, sizeof note, "%srule %d (%s, %s): %s", where, r, R->pair[0], R->pair[1], msg);
  if (add_note(m, note) != CM_OK)
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (the notes)");
  return CM_OK;
}

/* ---- geometry sharing ---------------------------------------------------------------------- */

/* FNV-1a of the defining fields; the seed is this table's since its first version (the FNV
 * offset basis with a digit short), so its probe order stays as it was */
static uint64_t geom_hash(const cmGeomDef* g) {
  uint64_t h = 1469598103934665603ull;
  h = cm_fnv1a(h, &g->type, sizeof g->type);
  switch (g->type) {
  case CM_GEOM_SPHERE:
    h = cm_fnv1a(h, &g->radius, sizeof g->radius);
    h = cm_fnv1a(h, &g->refine, sizeof g->refine);
    break;
  case CM_GEOM_BOX:
    h = cm_fnv1a(h, g->size, sizeof g->size);
    h = cm_fnv1a(h, &g->divisions, sizeof g->divisions);
    break;
  case CM_GEOM_MESH:
    if (g->mesh) h = cm_fnv1a(h, &g->mesh, sizeof g->mesh);
    if (g->file) h = cm_fnv1a(h, g->file, strlen(g->file));
    h = cm_fnv1a(h, &g->scale, sizeof g->scale);
    h = cm_fnv1a(h, &g->repair, sizeof g->repair);
    break;
  case CM_GEOM_PLANE:
    h = cm_fnv1a(h, g->normal, sizeof g->normal);
    h = cm_fnv1a(h, &g->offset, sizeof g->offset);
    break;
  default:
    break;
  }
  return h;
}

static int geom_equal(const cmGeomDef* a, const cmGeomDef* b) {
  if (a->type != b->type) return 0;
  switch (a->type) {
  case CM_GEOM_SPHERE:
    return a->radius == b->radius && a->refine == b->refine;
  case CM_GEOM_BOX:
    return !memcmp(a->size, b->size, sizeof a->size) && a->divisions == b->divisions;
  case CM_GEOM_MESH:
    if (a->repair != b->repair) return 0;
    if (a->mesh || b->mesh) return a->mesh == b->mesh;
    return a->file && b->file && !strcmp(a->file, b->file) && a->scale == b->scale;
  case CM_GEOM_PLANE:
    return !memcmp(a->normal, b->normal, sizeof a->normal) && a->offset == b->offset;
  default:
    return 0;
  }
}

/* ---- building one geometry ---------------------------------------------------------------- */

typedef struct GeomBuild {
  cmMesh* mesh;        /* NULL for planes */
  int* source;         /* original index of every (reordered) vertex */
  cmMassProperties mp; /* unit density */
  double plane[4];
  char* repaired; /* what repair: true changed, for a compile note (NULL: nothing) */
  cmTetMesh* tet; /* a deformable body's elements, world coordinates at t = 0 (else NULL) */
  int* surf_node; /* its node (in tet) of every (reordered) vertex of mesh */
} GeomBuild;

/* spread the low 21 bits of x to every third bit */
static uint64_t spread3(uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

typedef struct MortonKey {
  uint64_t code;
  int index;
} MortonKey;

/* by (code, index): a total order, so the sort is deterministic */
static int morton_cmp(const void* x, const void* y) {
  const MortonKey *p = x, *q = y;
  if (p->code != q->code) return p->code < q->code ? -1 : 1;
  return (p->index > q->index) - (p->index < q->index);
}

/* Reorder the vertices of a mesh along a Morton (Z-order) curve over its bounding box, so that
 * the vertex queries of the narrowphase, which run in vertex order, visit nearby points one
 * after the other (the tree nodes they need stay in cache: 1.3-1.6x measured, bench/README.md).
 * source[new] = old index. */
static cmStatus morton_order(cmMesh* me, int** source) {
  int n = me->nvert;
  MortonKey* k = cm_malloc((size_t)(n ? n : 1) * sizeof *k);
  double* v = cm_malloc((size_t)(n ? n : 1) * 3 * sizeof *v);
  int* inv = cm_malloc((size_t)(n ? n : 1) * sizeof *inv);
  *source = cm_malloc((size_t)(n ? n : 1) * sizeof **source);
  if (!k || !v || !inv || !*source) {
    cm_free(k);
    cm_free(v);
    cm_free(inv);
    return CM_ERR_NOMEM;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      lo[a] = fmin(lo[a], me->vert[3 * i + a]);
      hi[a] = fmax(hi[a], me->vert[3 * i + a]);
    }
  for (int i = 0; i < n; i++) {
    uint64_t c = 0;
    for (int a = 0; a < 3; a++) {
      double ext = hi[a] - lo[a], t = ext > 0 ? (me->vert[3 * i + a] - lo[a]) / ext : 0;
      c |= spread3((uint64_t)(t * 2097151.0)) << a;
    }
    k[i].code = c;
    k[i].index = i;
  }
  cm_sort(k, (size_t)n, sizeof *k, morton_cmp);
  for (int i = 0; i < n; i++) {
    (*source)[i] = k[i].index;
    inv[k[i].index] = i;
    memcpy(v + 3 * i, me->vert + 3 * k[i].index, 3 * sizeof(double));
  }
  memcpy(me->vert, v, (size_t)n * 3 * sizeof *v);
  for (int f = 0; f < 3 * me->nface; f++)
    me->face[f] = inv[me->face[f]];
  cm_free(k);
  cm_free(v);
  cm_free(inv);
  return CM_OK;
}

static int is_abs_path(const char* p) {
  return p[0] == '/';
}

/* a deformable body's geometry: its tetrahedra (a box or sphere cut into cells, or a tet mesh
 * file), placed in the world at t = 0 by the body's position and orientation, and their boundary
 * as the contact surface (each vertex a node) */
static cmStatus build_deformable(const cmScene* s, const cmBodyDef* b, GeomBuild* gb,
                                 const char* where, char* err, size_t errsz) {
  const cmGeomDef* g = &b->geom;
  const cmDeformableDef* f = &b->deformable;
  char msg[ERRSZ] = "";
  cmStatus st = CM_OK;
  switch (g->type) {
  case CM_GEOM_BOX: { /* cells 0, 0, 0: 4 x 4 x 4 */
    int auto_cells = f->cells[0] == 0 && f->cells[1] == 0 && f->cells[2] == 0;
    const int four[3] = {4, 4, 4};
    st = cm_tetmesh_box(g->size, auto_cells ? four : f->cells, &gb->tet);
    break;
  }
  case CM_GEOM_SPHERE: /* cells 0: 8 across */
    st = cm_tetmesh_ball(g->radius, f->cells[0] ? f->cells[0] : 8, &gb->tet);
    break;
  case CM_GEOM_MESH:
    if (g->mesh)
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sbody '%s': a deformable body needs tetrahedra: a box, a sphere or a tet "
                      "mesh file (.msh, .vtu, .vtk), not a surface mesh given through the API",
                      where, b->name);
    {
      char path[4096];
      if (is_abs_path(g->file) || !s->dir)
        snprintf(path, sizeof path, "%s", g->file);
      else
        snprintf(path, sizeof path, "%s/%s", s->dir, g->file);
      st = cm_tetmesh_load(path, g->scale, &gb->tet, msg, sizeof msg);
      if (st != CM_OK)
        return cm_error(err, errsz, st, "%sbody '%s': geometry: %s", where, b->name, msg);
    }
    break;
  default:
    return cm_error(err, errsz, CM_ERR_ARG, "%sbody '%s': a deformable body needs a volume", where,
                    b->name);
  }
  if (st != CM_OK || !gb->tet)
    return cm_error(err, errsz, st != CM_OK ? st : CM_ERR_NOMEM,
                    "%sbody '%s': out of memory while building its tetrahedra", where, b->name);
  cmTetMesh* tm = gb->tet;
  st = cm_tetmesh_check(tm, msg, sizeof msg);
  if (st != CM_OK) return cm_error(err, errsz, st, "%sbody '%s': %s", where, b->name, msg);
  /* to the world */
  double q[4], R[9];
  memcpy(q, b->orientation, sizeof q);
  cm_quat_normalize(q);
  cm_quat_to_mat(R, q);
  for (int i = 0; i < tm->nnode; i++) {
    double x[3];
    cm_m3_mulv(x, R, tm->node + 3 * i);
    cm_v3_add(tm->node + 3 * i, x, b->position);
  }
  int* sn = cm_malloc(((size_t)tm->nnode + 1) * sizeof *sn);
  gb->mesh = sn ? cm_tetmesh_surface(tm, sn) : NULL;
  if (!gb->mesh) {
    cm_free(sn);
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "%sbody '%s': out of memory while building the surface of its %d tetrahedra",
                    where, b->name, tm->ntet);
  }
  st = cm_mesh_check(gb->mesh, b->name, NULL, msg, sizeof msg);
  if (st == CM_OK) st = morton_order(gb->mesh, &gb->source);
  if (st == CM_OK) {
    gb->surf_node = cm_malloc(((size_t)gb->mesh->nvert + 1) * sizeof *gb->surf_node);
    if (!gb->surf_node) st = CM_ERR_NOMEM;
  }
  for (int i = 0; st == CM_OK && i < gb->mesh->nvert; i++)
    gb->surf_node[i] = sn[gb->source[i]];
  cm_free(sn);
  if (st == CM_OK) st = cm_mesh_prepare(gb->mesh);
  if (st == CM_OK) st = cm_mesh_mass_properties(gb->mesh, &gb->mp);
  if (st != CM_OK) {
    if (st == CM_ERR_NOMEM)
      snprintf(msg, sizeof msg, "out of memory while preparing the surface of its tetrahedra");
    return cm_error(err, errsz, st, "%sbody '%s': the boundary of its tetrahedra: %s", where,
                    b->name, msg);
  }
  return CM_OK;
}

static cmStatus build_geom(const cmScene* s, const cmBodyDef* b, GeomBuild* gb, char* err,
                           size_t errsz) {
  const cmGeomDef* g = &b->geom;
  char where[256], msg[ERRSZ];
  loc_prefix(where, sizeof where, s, g->loc.line ? g->loc : b->loc);
  memset(gb, 0, sizeof *gb);
  if (b->motion == CM_MOTION_DEFORMABLE) return build_deformable(s, b, gb, where, err, errsz);
  switch (g->type) {
  case CM_GEOM_SPHERE:
    gb->mesh = cm_mesh_icosphere(g->radius, g->refine);
    break;
  case CM_GEOM_BOX:
    gb->mesh = cm_mesh_box(g->size, g->divisions);
    break;
  case CM_GEOM_MESH:
    if (g->mesh) {
      gb->mesh = cm_mesh_copy(g->mesh);
    } else {
      char path[4096];
      if (is_abs_path(g->file) || !s->dir)
        snprintf(path, sizeof path, "%s", g->file);
      else
        snprintf(path, sizeof path, "%s/%s", s->dir, g->file);
      cmStatus st = cm_mesh_load(path, g->scale, &gb->mesh, msg, sizeof msg);
      if (st != CM_OK)
        return cm_error(err, errsz, st, "%sbody '%s': geometry: %s", where, b->name, msg);
    }
    break;
  case CM_GEOM_PLANE: {
    double n[3];
    if (cm_v3_unit(g->normal, n))
      return cm_error(err, errsz, CM_ERR_ARG, "%sbody '%s': plane normal must be non-zero", where,
                      b->name);
    gb->plane[0] = n[0];
    gb->plane[1] = n[1];
    gb->plane[2] = n[2];
    gb->plane[3] = g->offset;
    return CM_OK;
  }
  default:
    return cm_error(err, errsz, CM_ERR_ARG, "%sbody '%s': geometry missing", where, b->name);
  }
  /* the arguments passed the scene's checks: a primitive or copy that fails lacked memory */
  if (!gb->mesh) {
    if (g->type == CM_GEOM_SPHERE)
      snprintf(msg, sizeof msg, "a sphere of refine %d, %d triangles", g->refine,
               20 << (2 * g->refine));
    else if (g->type == CM_GEOM_BOX)
      snprintf(msg, sizeof msg, "a box of %d divisions, %d triangles", g->divisions,
               12 * g->divisions * g->divisions);
    else
      snprintf(msg, sizeof msg, "a copy of the mesh given through the API");
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "%sbody '%s': out of memory while building its geometry (%s)", where, b->name,
                    msg);
  }
  const char* label = g->type == CM_GEOM_MESH && g->file ? g->file : b->name;
  cmStatus st = CM_OK;
  int* rsrc = NULL; /* the file index of each vertex after a repair */
  if (g->type == CM_GEOM_MESH && g->repair) {
    /* repair: true: the safe repairs, said in a note; cm_mesh_check below names what remains */
    cmMeshRepairReport rep;
    rsrc = cm_malloc(((size_t)gb->mesh->nvert + 1) * sizeof *rsrc);
    st = rsrc ? cm_mesh_repair_map(gb->mesh, -1, label, &rep, rsrc, msg, sizeof msg) : CM_ERR_NOMEM;
    if (!rsrc) memset(&rep, 0, sizeof rep);
    if (st != CM_ERR_NOMEM && rep.changes) {
      char text[1024], note[1536];
      cm_mesh_repair_text(&rep, text, sizeof text);
      snprintf(note, sizeof note, "%sbody '%s': %s: repaired (repair: true): %s", where, b->name,
               label, text);
      gb->repaired = cm_strdup(note);
      if (!gb->repaired) st = CM_ERR_NOMEM;
    }
    if (st == CM_ERR_MESH) {
      /* what remains after the repair: the check's message, after what was repaired */
      char text[ERRSZ / 2], rest[ERRSZ];
      cm_mesh_repair_text(&rep, text, sizeof text);
      snprintf(rest, sizeof rest, "%s", msg);
      cm_mesh_free(gb->mesh);
      gb->mesh = NULL;
      cm_free(gb->repaired);
      gb->repaired = NULL;
      cm_free(rsrc);
      return cm_error(err, errsz, st, "%sbody '%s': repair: true (%s) leaves a mesh that fails: %s",
                      where, b->name, text, rest);
    }
  }
  if (st == CM_OK) st = cm_mesh_check(gb->mesh, label, NULL, msg, sizeof msg);
  if (st == CM_OK) st = morton_order(gb->mesh, &gb->source);
  /* after a repair the source is the file's index: the repair's map after the reorder */
  for (int i = 0; st == CM_OK && rsrc && i < gb->mesh->nvert; i++)
    gb->source[i] = rsrc[gb->source[i]];
  cm_free(rsrc);
  if (st == CM_OK) st = cm_mesh_prepare(gb->mesh);
  if (st == CM_OK) st = cm_mesh_mass_properties(gb->mesh, &gb->mp);
  if (st != CM_OK) {
    if (st == CM_ERR_NOMEM)
      snprintf(msg, sizeof msg,
               "out of memory while preparing its geometry of %d triangles (checks, vertex "
               "order, normals, mass properties)",
               gb->mesh->nface);
    cm_mesh_free(gb->mesh);
    gb->mesh = NULL;
    return cm_error(err, errsz, st, "%sbody '%s': %s", where, b->name, msg);
  }
  return CM_OK;
}

/* ---- the compiler -------------------------------------------------------------------------- */

static int half_edge_cmp(const void* x, const void* y) {
  const int *p = x, *q = y;
  for (int k = 0; k < 3; k++)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return 0;
}

/* mesh_face_adj of one mesh: half-edges (min vertex, max vertex, 3 f + k) sorted, each run of two
 * equal edges makes the two faces neighbours; an edge not shared by exactly two faces gets -1 */
static cmStatus face_adjacency(const int* face, int nface, int* adj) {
  int* he = cm_malloc(((size_t)nface * 3 + 1) * 3 * sizeof *he);
  if (!he) return CM_ERR_NOMEM;
  for (int i = 0; i < 3 * nface; i++) {
    int u = face[i], w = face[i - i % 3 + (i % 3 + 1) % 3];
    he[3 * i] = u < w ? u : w;
    he[3 * i + 1] = u < w ? w : u;
    he[3 * i + 2] = i;
    adj[i] = -1;
  }
  cm_sort(he, 3 * (size_t)nface, 3 * sizeof *he, half_edge_cmp);
  for (int i = 0; i < 3 * nface;) {
    int j = i;
    while (j < 3 * nface && he[3 * j] == he[3 * i] && he[3 * j + 1] == he[3 * i + 1])
      j++;
    if (j - i == 2) {
      adj[he[3 * i + 2]] = he[3 * i + 5] / 3;
      adj[he[3 * i + 5]] = he[3 * i + 2] / 3;
    }
    i = j;
  }
  cm_free(he);
  return CM_OK;
}

/* mesh_face_ridge of one mesh: bit k of face f set if edge k is a ridge, its faces' normals
 * meeting at CM_RIDGE_DEG or more (or no face across it); returns the number of ridges (each
 * counted once) */
static int face_ridges(const int* adj, const double* normal, int nface, int* ridge) {
  const double cs = cos(CM_RIDGE_DEG * CM_PI / 180);
  int n = 0;
  for (int f = 0; f < nface; f++) {
    ridge[f] = 0;
    for (int k = 0; k < 3; k++) {
      int g = adj[3 * f + k];
      if (g < 0 || cm_v3_dot(normal + 3 * (size_t)f, normal + 3 * (size_t)g) < cs) {
        ridge[f] |= 1 << k;
        n += g < 0 || f < g;
      }
    }
  }
  return n;
}

/* is edge k of face f concave: each of its two faces has its third vertex in front of the
 * other's plane by more than tol (m)? 0 for a border */
static int edge_concave(const double* vert, const int* face, const int* adj, const double* normal,
                        int f, int k, double tol) {
  int g = adj[3 * f + k];
  if (g < 0) return 0;
  const int* F = face + 3 * f;
  const int* G = face + 3 * g;
  int u = F[k], w = F[(k + 1) % 3], of = F[(k + 2) % 3], og = G[0];
  for (int j = 0; j < 3; j++)
    if (G[j] != u && G[j] != w) og = G[j];
  double t[3];
  cm_v3_sub(t, vert + 3 * (size_t)og, vert + 3 * (size_t)u);
  if (!(cm_v3_dot(t, normal + 3 * (size_t)f) > tol)) return 0;
  cm_v3_sub(t, vert + 3 * (size_t)of, vert + 3 * (size_t)u);
  return cm_v3_dot(t, normal + 3 * (size_t)g) > tol;
}

/* the concave ridges among a mesh's ridges (mesh_face_ridge), each counted once: an inner corner
 * (geom_nconcave) */
static int concave_ridges(const double* vert, const int* face, const int* adj, const double* normal,
                          const int* ridge, int nface) {
  int n = 0;
  for (int f = 0; f < nface; f++)
    for (int k = 0; k < 3; k++)
      n += adj[3 * f + k] > f && (ridge[f] >> k & 1) &&
           edge_concave(vert, face, adj, normal, f, k, 0);
  return n;
}

/* Does the mesh have a cavity: a concave edge by more than 1e-9 of the mesh's size (any angle: a
 * bowl's shallow creases, a terrain's valleys)? A convex mesh has none. */
static int has_concave_edge(const double* vert, const int* face, const int* adj,
                            const double* normal, int nface, double size) {
  for (int f = 0; f < nface; f++)
    for (int k = 0; k < 3; k++)
      if (adj[3 * f + k] > f && edge_concave(vert, face, adj, normal, f, k, 1e-9 * size)) return 1;
  return 0;
}

/* geom_open_dir of mesh geometry g (its tree, box and ball built): for a mesh with a cavity and
 * without facets, the axis direction along which the most of the centres of a 4 x 4 x 4 grid of
 * its box that lie outside it leave the box without meeting it (cm_mesh_escapes), if that is at
 * least a quarter of them and at least 4; else -1 (also for a mesh of fewer than 64 faces).
 * Deterministic: ties go to the shorter segments, then to the first direction. */
static int open_direction(const cmModel* m, int g) {
  int va = m->geom_vertadr[g], fa = m->geom_faceadr[g], nf = m->geom_nface[g];
  /* (a mesh of fewer than 64 faces: its few large faces' boxes overlap, and the segment's
   * query costs what the nearest-face search does: a tank of 28 faces holding a pile, 1.1x the
   * step with it) */
  if (m->geom_type[g] == CM_GEOM_PLANE || nf < 64 || m->geom_nfacet[g] > 0) return -1;
  const double* box = m->geom_aabb + 6 * g;
  const double* vert = m->mesh_vert + 3 * (size_t)va;
  const int* face = m->mesh_face + 3 * (size_t)fa;
  const double* normal = m->mesh_face_normal + 3 * (size_t)fa;
  double size = m->geom_ball[4 * g + 3];
  if (!has_concave_edge(vert, face, m->mesh_face_adj + 3 * (size_t)fa, normal, nf, size)) return -1;
  const cmBvh* tb = (const cmBvh*)m->geom_bvh + g;
  int count[6] = {0}, nout = 0;
  double len[6] = {0};
  for (int i = 0; i < 64; i++) {
    double p[3];
    int ix[3] = {i % 4, i / 4 % 4, i / 16};
    for (int k = 0; k < 3; k++)
      p[k] = box[k] + (ix[k] + 0.5) / 4 * (box[3 + k] - box[k]);
    cmNearest near;
    if (cm_bvh_inside(tb, vert, face, normal, m->mesh_vert_pn + 3 * (size_t)va,
                      m->mesh_edge_pn + 9 * (size_t)fa, p, INFINITY, &near))
      continue;
    nout++;
    for (int d = 0; d < 6; d++) {
      count[d] += cm_mesh_escapes(tb, vert, face, box, p, d);
      len[d] += d % 2 ? box[3 + d / 2] - p[d / 2] : p[d / 2] - box[d / 2];
    }
  }
  /* the most escapes; among as many, the shortest segments (a terrain's relief lets its points
   * out sideways and upwards alike, and a segment across the whole terrain passes near much of
   * its surface: the ball of the peer kit's S3 took 3.3 times as long with -x as without) */
  int best = 0;
  for (int d = 1; d < 6; d++)
    if (count[d] > count[best] || (count[d] == count[best] && len[d] < len[best])) best = d;
  return count[best] >= 4 && 4 * count[best] >= nout ? best : -1;
}

/* mesh_ridge of geometry g: each ridge of mesh_face_ridge once, from the lower-numbered of its
 * two faces (or its only one), in face order, as (lower vertex, higher vertex, face, k); writes
 * geom_nridge[g] rows */
static void ridge_list(const cmModel* m, int g, int* out) {
  int fa = m->geom_faceadr[g], n = 0;
  const int* face = m->mesh_face + 3 * (size_t)fa;
  const int* adj = m->mesh_face_adj + 3 * (size_t)fa;
  for (int f = 0; f < m->geom_nface[g]; f++)
    for (int k = 0; k < 3; k++) {
      int across = adj[3 * f + k];
      if (!(m->mesh_face_ridge[fa + f] >> k & 1) || (across >= 0 && across < f)) continue;
      int u = face[3 * f + k], w = face[3 * f + (k + 1) % 3];
      int* o = out + 4 * n++;
      o[0] = u < w ? u : w;
      o[1] = u < w ? w : u;
      o[2] = f;
      o[3] = k;
    }
  CM_ASSERT(n == m->geom_nridge[g]);
}

/* geometries: distinct ones built once; body_geom set; mesh arrays concatenated */
static cmStatus compile_geoms(const cmScene* s, cmModel* m, GeomBuild** out_gb, char* err,
                              size_t errsz) {
  int nb = s->nbody, hcap = 1;
  while (hcap < 2 * nb + 2)
    hcap *= 2;
  int* table = cm_malloc((size_t)hcap * sizeof *table); /* body index of a geometry's first user */
  GeomBuild* gb = cm_calloc((size_t)(nb ? nb : 1), sizeof *gb);
  int* first = cm_malloc((size_t)(nb ? nb : 1) * sizeof *first);
  double* fbuf = NULL; /* the facets' planes and face counts while they are counted */
  char** grids = NULL; /* the direction grids while they are counted (per geometry) */
  cmStatus st = CM_OK;
  if (!table || !gb || !first) {
    st = cm_error(err, errsz, CM_ERR_NOMEM,
                  "out of memory while compiling the model (the geometry tables)");
    goto done;
  }
  for (int i = 0; i < hcap; i++)
    table[i] = -1;
  m->ngeom = 0;
  for (int b = 0; b < nb; b++) {
    const cmGeomDef* g = &s->body[b].geom;
    uint64_t h = geom_hash(g);
    int slot = (int)(h & (uint64_t)(hcap - 1)), found = -1;
    /* a deformable body's geometry is its own (its vertices are its nodes) */
    int own = s->body[b].motion == CM_MOTION_DEFORMABLE;
    while (!own && table[slot] >= 0) {
      int other = table[slot];
      if (geom_equal(&s->body[other].geom, g)) {
        found = m->body_geom[other];
        break;
      }
      slot = (slot + 1) & (hcap - 1);
    }
    if (found >= 0) {
      m->body_geom[b] = found;
      continue;
    }
    if (!own) table[slot] = b;
    first[m->ngeom] = b;
    m->body_geom[b] = m->ngeom;
    st = build_geom(s, &s->body[b], &gb[m->ngeom], err, errsz);
    if (st != CM_OK) goto done;
    if (gb[m->ngeom].repaired && add_note(m, gb[m->ngeom].repaired) != CM_OK) {
      st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory while compiling the model (notes)");
      m->ngeom++;
      goto done;
    }
    m->ngeom++;
  }

  /* concatenate meshes */
  m->nvert = m->nface = 0;
  for (int g = 0; g < m->ngeom; g++)
    if (gb[g].mesh) {
      if (gb[g].mesh->nvert > INT32_MAX - m->nvert || gb[g].mesh->nface > INT32_MAX - m->nface) {
        st = cm_error(err, errsz, CM_ERR_LIMIT, "scene has more than 2^31 mesh vertices or faces");
        goto done;
      }
      m->nvert += gb[g].mesh->nvert;
      m->nface += gb[g].mesh->nface;
    }
  if (!cm_model_alloc_rows(m, &m->ngeom) || !cm_model_alloc_rows(m, &m->nvert) ||
      !cm_model_alloc_rows(m, &m->nface))
    goto nomem;
  m->geom_bvh = cm_calloc((size_t)(m->ngeom ? m->ngeom : 1), sizeof(cmBvh));
  if (!m->geom_bvh) goto nomem;
  int va = 0, fa = 0;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_type[g] = s->body[first[g]].geom.type;
    m->geom_vertadr[g] = va;
    m->geom_faceadr[g] = fa;
    const cmMesh* me = gb[g].mesh;
    if (!me) {
      memcpy(m->geom_plane + 4 * g, gb[g].plane, sizeof gb[g].plane);
      for (int k = 0; k < 3; k++) {
        m->geom_aabb[6 * g + k] = -INFINITY;
        m->geom_aabb[6 * g + 3 + k] = INFINITY;
        m->geom_ball[4 * g + k] = 0;
      }
      m->geom_ball[4 * g + 3] = INFINITY;
      continue;
    }
    m->geom_nvert[g] = me->nvert;
    m->geom_nface[g] = me->nface;
    m->geom_volume[g] = gb[g].mp.volume;
    m->geom_area[g] = gb[g].mp.area;
    memcpy(m->mesh_vert + 3 * (size_t)va, me->vert, 3 * (size_t)me->nvert * sizeof(double));
    memcpy(m->mesh_vert_source + va, gb[g].source, (size_t)me->nvert * sizeof(int));
    memcpy(m->mesh_vert_areavec + 3 * (size_t)va, me->vert_areavec,
           3 * (size_t)me->nvert * sizeof(double));
    memcpy(m->mesh_face + 3 * (size_t)fa, me->face, 3 * (size_t)me->nface * sizeof(int));
    memcpy(m->mesh_face_normal + 3 * (size_t)fa, me->face_normal,
           3 * (size_t)me->nface * sizeof(double));
    memcpy(m->mesh_face_area + fa, me->face_area, (size_t)me->nface * sizeof(double));
    /* query structures: pseudonormals for robust inside tests, the face tree */
    st = cm_pseudonormals(me->vert, me->nvert, me->face, me->nface,
                          m->mesh_vert_pn + 3 * (size_t)va, m->mesh_edge_pn + 9 * (size_t)fa);
    if (st == CM_OK) st = cm_bvh_build((cmBvh*)m->geom_bvh + g, me->vert, me->face, me->nface);
    if (st == CM_OK) st = face_adjacency(me->face, me->nface, m->mesh_face_adj + 3 * (size_t)fa);
    if (st == CM_OK)
      m->geom_nridge[g] =
          face_ridges(m->mesh_face_adj + 3 * (size_t)fa, m->mesh_face_normal + 3 * (size_t)fa,
                      me->nface, m->mesh_face_ridge + fa);
    if (st == CM_OK)
      m->geom_nconcave[g] =
          concave_ridges(me->vert, me->face, m->mesh_face_adj + 3 * (size_t)fa,
                         m->mesh_face_normal + 3 * (size_t)fa, m->mesh_face_ridge + fa, me->nface);
    if (st != CM_OK) {
      const cmBodyDef* def = &s->body[first[g]];
      char where[256];
      loc_prefix(where, sizeof where, s, def->geom.loc.line ? def->geom.loc : def->loc);
      st = cm_error(err, errsz, st,
                    "%sbody '%s': %s the contact query structures of its %d "
                    "triangles (pseudonormals, face tree, face neighbours)",
                    where, def->name,
                    st == CM_ERR_NOMEM ? "out of memory while building" : "could not build",
                    me->nface);
      goto done;
    }
    double* box = m->geom_aabb + 6 * g;
    for (int k = 0; k < 3; k++) {
      box[k] = INFINITY;
      box[3 + k] = -INFINITY;
    }
    for (int v = 0; v < me->nvert; v++)
      for (int k = 0; k < 3; k++) {
        double x = me->vert[3 * v + k];
        if (x < box[k]) box[k] = x;
        if (x > box[3 + k]) box[3 + k] = x;
      }
    /* the bounding ball about the box's centre: it holds every vertex, so the mesh; the radius
     * is widened by 1e-12 so that rounding never puts a point of the mesh outside it */
    double *ball = m->geom_ball + 4 * g, r2 = 0;
    for (int k = 0; k < 3; k++)
      ball[k] = 0.5 * (box[k] + box[3 + k]);
    for (int v = 0; v < me->nvert; v++) {
      double dx = me->vert[3 * v] - ball[0], dy = me->vert[3 * v + 1] - ball[1],
             dz = me->vert[3 * v + 2] - ball[2];
      r2 = fmax(r2, dx * dx + dy * dy + dz * dz);
    }
    ball[3] = sqrt(r2) * (1 + 1e-12);
    /* the facets of a convex mesh (counted here, written once their rows exist) */
    if (!fbuf) {
      fbuf = cm_malloc((size_t)CM_FACET_GRID_MAX * (4 * sizeof(double) + sizeof(int)));
      if (!fbuf) goto nomem;
    }
    m->geom_nfacet[g] = cm_facets_build(
        me->vert, me->nvert, me->face, me->nface, m->mesh_face_normal + 3 * (size_t)fa,
        m->mesh_face_adj + 3 * (size_t)fa, ball[3], CM_FACET_GRID_MAX, fbuf,
        (int*)(fbuf + 4 * CM_FACET_GRID_MAX), m->mesh_facet_face + fa);
    va += me->nvert;
    fa += me->nface;
  }
  /* the ridge lists, from the ridge bits */
  m->nridge = 0;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_nridge[g] > INT32_MAX - m->nridge) {
      st = cm_error(err, errsz, CM_ERR_LIMIT, "scene has more than 2^31 mesh ridges");
      goto done;
    }
    m->geom_ridgeadr[g] = m->nridge;
    m->nridge += m->geom_nridge[g];
  }
  if (!cm_model_alloc_rows(m, &m->nridge)) goto nomem;
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_nridge[g] > 0) ridge_list(m, g, m->mesh_ridge + 4 * (size_t)m->geom_ridgeadr[g]);
  /* the facets' planes and face ranges (the faces were ordered by facet above) */
  m->nfacet = 0;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_facetadr[g] = m->nfacet;
    m->nfacet += m->geom_nfacet[g]; /* at most CM_FACET_MAX per geometry, so per face */
  }
  if (!cm_model_alloc_rows(m, &m->nfacet)) goto nomem;
  for (int g = 0; g < m->ngeom; g++) {
    int n = m->geom_nfacet[g], j0 = m->geom_facetadr[g], f0 = m->geom_faceadr[g];
    if (n == 0) continue;
    int got = cm_facets_build(
        m->mesh_vert + 3 * (size_t)m->geom_vertadr[g], m->geom_nvert[g],
        m->mesh_face + 3 * (size_t)f0, m->geom_nface[g], m->mesh_face_normal + 3 * (size_t)f0,
        m->mesh_face_adj + 3 * (size_t)f0, m->geom_ball[4 * g + 3], CM_FACET_GRID_MAX,
        m->facet_plane + 4 * (size_t)j0, m->facet_nface + j0, NULL);
    CM_ASSERT(got == n); /* the same mesh as in the loop above */
    (void)got;
    for (int j = 0, at = f0; j < n; j++) {
      m->facet_faceadr[j0 + j] = at;
      at += m->facet_nface[j0 + j];
    }
    /* the faces' boxes in facet order, for the nearest-face search (facets.c) */
    const double* vert = m->mesh_vert + 3 * (size_t)m->geom_vertadr[g];
    for (int e = f0; e < f0 + m->geom_nface[g]; e++) {
      const int* t = m->mesh_face + 3 * (size_t)(f0 + m->mesh_facet_face[e]);
      const double* const v[3] = {vert + 3 * (size_t)t[0], vert + 3 * (size_t)t[1],
                                  vert + 3 * (size_t)t[2]};
      tri_box(v, m->mesh_facet_box + 6 * (size_t)e);
    }
  }
  /* each face's facet, for the edge search's facet-level linking */
  for (int g = 0; g < m->ngeom; g++) {
    int f0 = m->geom_faceadr[g], j0 = m->geom_facetadr[g];
    for (int f = 0; f < m->geom_nface[g]; f++)
      m->mesh_face_facet[f0 + f] = -1;
    for (int j = 0; j < m->geom_nfacet[g]; j++)
      for (int i = 0; i < m->facet_nface[j0 + j]; i++)
        m->mesh_face_facet[f0 + m->mesh_facet_face[m->facet_faceadr[j0 + j] + i]] = j;
  }
  /* the direction grids of the convex meshes of more than CM_FACET_MAX facets: each built once
   * into a block of its own (its cells' counts, their bounds, then the lists), then copied into
   * the model's rows */
  m->ncell = m->ncellfacet = 0;
  grids = cm_calloc((size_t)m->ngeom + 1, sizeof *grids);
  if (!grids) goto nomem;
  for (int g = 0; g < m->ngeom; g++) {
    int n = m->geom_nfacet[g];
    m->geom_celladr[g] = -1;
    if (n <= CM_FACET_MAX) continue;
    size_t cap = (size_t)CM_FACET_GRID_MEAN * CM_FACET_GRID_CELLS + (size_t)n; /* (facets.h) */
    char* blk =
        cm_malloc(CM_FACET_GRID_CELLS * (sizeof(int) + 4 * sizeof(double)) + cap * sizeof(int));
    if (!blk) goto nomem;
    grids[g] = blk;
    double* bound = (double*)blk;
    int* cn = (int*)(bound + 4 * CM_FACET_GRID_CELLS);
    const double* ball = m->geom_ball + 4 * g;
    long total = cm_facets_grid_build(m->facet_plane + 4 * (size_t)m->geom_facetadr[g], n, ball,
                                      ball[3], cn, bound, cn + CM_FACET_GRID_CELLS);
    if (total == 0) continue;
    if (total > INT32_MAX - m->ncellfacet || m->ncell > INT32_MAX - CM_FACET_GRID_CELLS) {
      st = cm_error(err, errsz, CM_ERR_LIMIT, "scene has more than 2^31 direction-grid entries");
      goto done;
    }
    m->geom_celladr[g] = m->ncell;
    m->ncell += CM_FACET_GRID_CELLS;
    m->ncellfacet += (int)total;
  }
  if (!cm_model_alloc_rows(m, &m->ncell) || !cm_model_alloc_rows(m, &m->ncellfacet)) goto nomem;
  for (int g = 0, at = 0; g < m->ngeom; g++) {
    int c0 = m->geom_celladr[g];
    if (c0 < 0) continue;
    const double* bound = (const double*)grids[g];
    const int* cn = (const int*)(bound + 4 * CM_FACET_GRID_CELLS);
    const int* list = cn + CM_FACET_GRID_CELLS;
    memcpy(m->cell_bound + 4 * (size_t)c0, bound, 4 * CM_FACET_GRID_CELLS * sizeof *bound);
    cm_v3_copy(m->geom_grid + 3 * g, m->geom_ball + 4 * g);
    for (int c = 0, from = 0; c < CM_FACET_GRID_CELLS; c++) {
      m->cell_nfacet[c0 + c] = cn[c];
      m->cell_facetadr[c0 + c] = at;
      memcpy(m->cell_facet + at, list + from, (size_t)cn[c] * sizeof *list);
      at += cn[c];
      from += cn[c];
    }
  }
  /* the boxes of the vertex groups, CM_VGROUP consecutive vertices each (Morton order above:
   * neighbours in space), for the vertex queries' cull (narrowphase.c) */
  m->nvgroup = 0;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_vgroupadr[g] = m->nvgroup;
    m->nvgroup += (m->geom_nvert[g] + CM_VGROUP - 1) / CM_VGROUP; /* fewer than the vertices */
  }
  if (!cm_model_alloc_rows(m, &m->nvgroup)) goto nomem;
  for (int g = 0; g < m->ngeom; g++) {
    const double* x = m->mesh_vert + 3 * (size_t)m->geom_vertadr[g];
    for (int v = 0; v < m->geom_nvert[g]; v++) {
      double* B = m->mesh_vgroup_box + 6 * ((size_t)m->geom_vgroupadr[g] + (size_t)(v / CM_VGROUP));
      for (int k = 0; k < 3; k++) {
        double c = x[3 * (size_t)v + k];
        if (v % CM_VGROUP == 0 || c < B[k]) B[k] = c;
        if (v % CM_VGROUP == 0 || c > B[3 + k]) B[3 + k] = c;
      }
    }
  }
  /* the open directions of the meshes with a cavity (geom_open_dir; each geometry's queries
   * above and below do not use it yet: it is set last) */
  for (int g = 0; g < m->ngeom; g++)
    m->geom_open_dir[g] = -1;
  for (int g = 0; g < m->ngeom; g++)
    m->geom_open_dir[g] = open_direction(m, g);
  *out_gb = gb;
  gb = NULL;
  goto done;
nomem:
  st = cm_error(err, errsz, CM_ERR_NOMEM,
                "out of memory while compiling the model (the mesh arrays)");
done:
  if (gb)
    for (int g = 0; g < nb; g++) {
      cm_mesh_free(gb[g].mesh);
      cm_free(gb[g].source);
      cm_free(gb[g].repaired);
      cm_tetmesh_free(gb[g].tet);
      cm_free(gb[g].surf_node);
    }
  cm_free(gb);
  cm_free(table);
  cm_free(first);
  cm_free(fbuf);
  for (int g = 0; grids && g < m->ngeom; g++)
    cm_free(grids[g]);
  cm_free(grids);
  return st;
}

/* mass, com, inertia and initial state of every body */
static cmStatus compile_bodies(const cmScene* s, cmModel* m, const GeomBuild* gb, char* err,
                               size_t errsz) {
  for (int b = 0; b < m->nbody; b++) {
    const cmBodyDef* def = &s->body[b];
    const GeomBuild* g = &gb[m->body_geom[b]];
    char where[256];
    loc_prefix(where, sizeof where, s, def->loc);
    m->body_motion[b] = def->motion;
    double* I = m->body_inertia + 9 * b;
    double* c = m->body_com + 3 * b;
    double mass = 0;
    if (g->mesh) {
      double V = g->mp.volume;
      mass = def->mass > 0 ? def->mass : def->density * V;
      double rho = mass / V;
      if (def->has_com)
        cm_v3_copy(c, def->com);
      else
        cm_v3_copy(c, g->mp.com);
      if (def->has_inertia) {
        memcpy(I, def->inertia, 9 * sizeof(double));
      } else {
        /* geometric inertia scaled to the mass, moved to the given com (parallel axis) */
        double d[3];
        cm_v3_sub(d, c, g->mp.com);
        double dd = cm_v3_dot(d, d);
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            I[3 * i + j] = rho * g->mp.inertia[3 * i + j] + mass * ((i == j) * dd - d[i] * d[j]);
      }
    } else if (def->motion == CM_MOTION_DYNAMIC || def->motion == CM_MOTION_IGNORED) {
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sbody '%s': a plane is an infinite half-space and must be fixed", where,
                      def->name);
    }
    m->body_mass[b] = mass;
    int infinite = def->motion == CM_MOTION_FIXED || def->motion == CM_MOTION_PRESCRIBED;
    if (!infinite) {
      /* a given mass is in range (scene checks); one from density x volume may not be */
      if (!(mass >= CM_MASS_MIN && mass <= CM_MASS_MAX))
        return cm_error(err, errsz, CM_ERR_ARG,
                        "%sbody '%s': mass from density %g kg/m^3 x volume %g m^3 = %g kg is "
                        "outside %g..%g kg; change the density or give the mass",
                        where, def->name, def->density, g->mesh ? g->mp.volume : 0.0, mass,
                        CM_MASS_MIN, CM_MASS_MAX);
      m->body_invmass[b] = 1.0 / mass;
      double* Ji = m->body_invinertia + 9 * b;
      int ok = cm_m3_inverse(Ji, I);
      for (int k = 0; k < 9; k++)
        ok = ok && isfinite(Ji[k]);
      if (!ok)
        return cm_error(err, errsz, CM_ERR_ARG,
                        "%sbody '%s': the inertia tensor (diagonal %g, %g, %g kg m^2%s, mass %g "
                        "kg) cannot be inverted in double precision: its determinant leaves the "
                        "range of doubles (a geometry far too small or too large?)",
                        where, def->name, I[0], I[4], I[8], def->has_inertia ? ", given" : "",
                        mass);
    }
    double q[4];
    memcpy(q, def->orientation, sizeof q);
    cm_quat_normalize(q);
    memcpy(m->body_quat0 + 4 * b, q, sizeof q);
    cm_v3_copy(m->body_pos0 + 3 * b, def->position);
    cm_v3_copy(m->body_vel0 + 3 * b, def->velocity);
    cm_v3_copy(m->body_angvel0 + 3 * b, def->angular_velocity);
    if (def->motion == CM_MOTION_DEFORMABLE) {
      /* the geometry is in the world at t = 0: the frame has the world's axes and its origin
       * at the com; the initial motion is the nodes' (model_fem.c) */
      cm_v3_copy(m->body_pos0 + 3 * b, c);
      cm_v3_set(c, 0, 0, 0);
      memset(m->body_quat0 + 4 * b, 0, 4 * sizeof(double));
      m->body_quat0[4 * b] = 1;
      memset(m->body_vel0 + 3 * b, 0, 3 * sizeof(double));
      memset(m->body_angvel0 + 3 * b, 0, 3 * sizeof(double));
    }
    cm_v3_copy(m->body_force + 3 * b, def->force);
    cm_v3_copy(m->body_moment + 3 * b, def->moment);
  }
  return CM_OK;
}

/* rules: the built-in default first, then the user's; contact_time 0 means 100 steps */
static cmStatus compile_rules(const cmScene* s, cmModel* m, char* err, size_t errsz) {
  m->nrule = s->nrule + 1;
  m->rule = cm_calloc((size_t)m->nrule, sizeof *m->rule);
  if (!m->rule || !cm_model_alloc_rows(m, &m->nrule))
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (the rules)");
  double h = m->opt.timestep;
  for (int r = 0; r < m->nrule; r++) {
    /* the definition with its own copies of the pair strings (the rules after it still hold
     * none, so that cm_model_free never frees the scene's strings) */
    cmRuleDef* R = &m->rule[r];
    *R = r > 0 ? s->rule[r - 1] : cm_rule_def_default();
    const char* glob[2] = {r > 0 ? R->pair[0] : "*", r > 0 ? R->pair[1] : "*"};
    R->pair[0] = cm_strdup(glob[0]);
    R->pair[1] = cm_strdup(glob[1]);
    if (!R->pair[0] || !R->pair[1])
      return cm_error(err, errsz, CM_ERR_NOMEM,
                      "out of memory while compiling the model (the rules)");
    if (R->contact_time == 0) R->contact_time = 100 * h;
    /* min_period softens implicit rows only (laws.c): said where a rule's rows are explicit */
    if (R->min_period > 0 && (R->integration == CM_INTEGRATION_EXPLICIT ||
                              (R->integration == CM_INTEGRATION_DEFAULT &&
                               m->opt.integrator == CM_INTEGRATOR_EXPLICIT))) {
      if (rule_note(m, s, R, r, err, errsz,
                    "min_period %g has no effect: it softens implicit rows, and this rule's rows "
                    "are explicit (substeps: auto resolves those)",
                    R->min_period) != CM_OK)
        return CM_ERR_NOMEM;
    }
    /* a contact_time shorter than 10 (sub-)steps: its contacts are found a step late, after
     * moving in up to v h with no force, and rebound too fast (an audit, 2026-12-08: a sphere
     * against a wall at e_r 0.5, law 0.543, measured 1.50 at T = h, 0.866 at 2 h, 0.686 at 3 h,
     * 0.552 at 5 h, within 0.1 % from 10 h; substeps: auto refines only once the contact is
     * found) */
    double hs = h / (m->opt.substeps > 0 ? m->opt.substeps : 1);
    if (R->law == CM_LAW_CONTACT_TIME && R->contact_time < 10 * hs &&
        rule_note(m, s, R, r, err, errsz,
                  "contact_time %g s is only %.3g (sub-)steps of %g s: its contacts are found a "
                  "step late and rebound faster than its elastic_repulsion says (for e_r 0.5, "
                  "0.54 expected: 0.87 at 2 steps, 0.69 at 3, 0.55 at 5, and at 1 step faster "
                  "than they came); use contact_time >= %g s (10 steps) or a smaller timestep",
                  R->contact_time, R->contact_time / hs, hs, 10 * hs) != CM_OK)
      return CM_ERR_NOMEM;
    /* contact_time with friction: one contact per pair (SPEC 3.2), no friction against spin and
     * a force without a potential when the body rocks: a block on an incline below atan(mu) can
     * creep and turn (docs/contact-laws.md) */
    if (R->law == CM_LAW_CONTACT_TIME && R->friction > 0 &&
        rule_note(m, s, R, r, err, errsz,
                  "contact_time with friction %g acts at one point per body pair: no friction "
                  "against spinning about the normal, and a body on an incline below "
                  "atan(friction) can creep and turn (docs/contact-laws.md, \"The pair contact "
                  "of contact_time\"); use law: area_compliant where a body must stick",
                  R->friction) != CM_OK)
      return CM_ERR_NOMEM;
    /* the stability rule of area-compliant-contact.txt: D/K >= h/2 */
    if (R->law == CM_LAW_AREA_COMPLIANT && R->step_damping < 0.5 &&
        R->stiffness_damping < 0.5 * h &&
        rule_note(m, s, R, r, err, errsz,
                  "step_damping %g < 0.5 with stiffness_damping %g s < h/2 = %g s: stiff "
                  "contacts will oscillate from step to step (raise step_damping to >= 0.5)",
                  R->step_damping, R->stiffness_damping, 0.5 * h) != CM_OK)
      return CM_ERR_NOMEM;
  }
  return CM_OK;
}

/* a face's plane quantised to 1e-6 (normal) and 1e-6 of the mesh size (offset), with its area */
typedef struct FacePlane {
  long long q[4];
  double area;
} FacePlane;

static int face_plane_cmp(const void* x, const void* y) {
  const FacePlane *p = x, *q = y;
  for (int k = 0; k < 4; k++)
    if (p->q[k] != q->q[k]) return p->q[k] < q->q[k] ? -1 : 1;
  return 0;
}

/* does geometry g have a large flat face: a box, or a mesh whose coplanar faces (same quantised
 * plane) add up to more than 10% of its surface area? */
static int has_large_flat_face(const cmModel* m, int g) {
  if (m->geom_type[g] == CM_GEOM_BOX) return 1;
  if (m->geom_type[g] != CM_GEOM_MESH || m->geom_nface[g] == 0) return 0;
  int nf = m->geom_nface[g], fa = m->geom_faceadr[g];
  const double* box = m->geom_aabb + 6 * g;
  double size = fmax(box[3] - box[0], fmax(box[4] - box[1], box[5] - box[2]));
  FacePlane* fp = cm_malloc((size_t)nf * sizeof *fp);
  if (!fp) return 0;
  for (int f = 0; f < nf; f++) {
    const double* n = m->mesh_face_normal + 3 * (size_t)(fa + f);
    const double* v = m->mesh_vert + 3 * (size_t)(m->geom_vertadr[g] + m->mesh_face[3 * (fa + f)]);
    for (int k = 0; k < 3; k++)
      fp[f].q[k] = llround(n[k] * 1e6);
    fp[f].q[3] = size > 0 ? llround(cm_v3_dot(n, v) / size * 1e6) : 0;
    fp[f].area = m->mesh_face_area[fa + f];
  }
  cm_sort(fp, (size_t)nf, sizeof *fp, face_plane_cmp);
  int flat = 0;
  for (int i = 0; i < nf && !flat;) {
    double a = 0;
    int j = i;
    for (; j < nf && face_plane_cmp(&fp[i], &fp[j]) == 0; j++)
      a += fp[j].area;
    flat = a > 0.1 * m->geom_area[g];
    i = j;
  }
  cm_free(fp);
  return flat;
}

/* Representatives of the bodies for the notes on rules: at most two bodies per (alias class,
 * motion), enough to see every rule that applies between the bodies selected: those
 * whose geometry g has sel[g] != 0 (sel NULL: all), told apart also by grp[g] != 0 (grp NULL:
 * not). reps holds nbody entries; returns their number. */
static int representatives(const cmModel* m, const int* sel, const int* grp, int* reps) {
  int nrep = 0;
  for (int b = 0; b < m->nbody; b++) {
    int g = m->body_geom[b], same = 0;
    if (sel && !sel[g]) continue;
    for (int k = 0; k < nrep && same < 2; k++) {
      int gk = m->body_geom[reps[k]];
      same += m->alias_class[m->body_alias[reps[k]]] == m->alias_class[m->body_alias[b]] &&
              m->body_motion[reps[k]] == m->body_motion[b] &&
              (!grp || (grp[gk] != 0) == (grp[g] != 0));
    }
    if (same < 2) reps[nrep++] = b;
  }
  return nrep;
}

/* note (comply check): a `vertex` rule between two meshes with large flat faces misses overlaps
 * with no vertex inside; one note per rule, naming the first such pair of bodies. It advises
 * auto (the default), which finds every overlap in unit/test_method_accuracy: on the S2 pile of
 * 27 boxes (peer kit, 3 s) it leaves 1.9 mm of overlap against vertex's 35 mm, at 1.4-1.9 times
 * its cost (docs/contact-laws.md, "Contact methods") */
static cmStatus note_vertex_on_flat(const cmScene* s, cmModel* m) {
  int* flat = cm_calloc((size_t)(m->ngeom ? m->ngeom : 1), sizeof *flat);
  unsigned char* done = cm_calloc((size_t)m->nrule, 1);
  int* reps = cm_malloc(((size_t)m->nbody + 1) * sizeof *reps);
  if (!flat || !done || !reps) goto nomem;
  for (int g = 0; g < m->ngeom; g++)
    flat[g] = has_large_flat_face(m, g);
  /* representatives: at most two flat bodies per (alias class, motion), enough to see every
   * rule that applies between flat bodies */
  int nrep = representatives(m, flat, NULL, reps);
  for (int i = 0; i < nrep; i++)
    for (int j = i + 1; j < nrep; j++) {
      int a = reps[i], b = reps[j], r = cm_model_pair_rule(m, a, b);
      if (r < 0 || done[r] || m->rule[r].method != CM_METHOD_VERTEX) continue;
      done[r] = 1;
      if (rule_note(m, s, &m->rule[r], r, NULL, 0,
                    "method vertex on meshes with large flat faces (%s, %s) misses overlaps with "
                    "no vertex inside (edge across edge, an edge sunk into a face between "
                    "vertices); consider method: auto (the default), which finds every overlap (a "
                    "pile of 27 boxes: 1.9 mm of overlap against 35 mm, at about 1.5 times the "
                    "cost; docs/contact-laws.md, \"Contact methods\")",
                    m->body_name[a], m->body_name[b]) != CM_OK)
        goto nomem;
    }
  cm_free(flat);
  cm_free(done);
  cm_free(reps);
  return CM_OK;
nomem:
  cm_free(flat);
  cm_free(done);
  cm_free(reps);
  return CM_ERR_NOMEM;
}

/* contact_time reduces a body pair to one contact (SPEC 3.2): the deepest depth along the
 * contacts' mean normal. A body in an inner corner of a mesh (a floor meeting a wall) touches
 * two faces at once, and their one contact points between them: a 5 cm cube pushed into a
 * corner at contact_time 10 h bounced, and the energy monitor counted created energy every few
 * steps (an audit, 2026-12-08). A note per rule that applies between a mesh with concave ridges
 * (geom_nconcave) and another body, found among at most two bodies per (alias class, motion). */
static cmStatus note_concave_contact_time(const cmScene* s, cmModel* m) {
  unsigned char* done = cm_calloc((size_t)m->nrule, 1);
  int* reps = cm_malloc(((size_t)m->nbody + 1) * sizeof *reps);
  if (!done || !reps) goto nomem;
  int nrep = representatives(m, NULL, m->geom_nconcave, reps);
  for (int i = 0; i < nrep; i++) {
    int a = reps[i], nc = m->geom_nconcave[m->body_geom[a]];
    if (nc == 0) continue;
    for (int j = 0; j < nrep; j++) {
      int b = reps[j], r = cm_model_pair_rule(m, a, b);
      if (r < 0 || done[r] || m->rule[r].law != CM_LAW_CONTACT_TIME) continue;
      done[r] = 1;
      if (rule_note(
              m, s, &m->rule[r], r, NULL, 0,
              "contact_time gives a body pair one contact, the deepest depth along the "
              "contacts' mean normal, and '%s' has inner corners (%d mesh edge%s along "
              "concave ridges): a body touching two of its faces at once (a floor and a wall) is "
              "pushed along a normal between them and can bounce and gain energy; make "
              "such faces separate bodies, or use law: area_compliant "
              "(docs/contact-laws.md, \"Concave corners\")",
              m->body_name[a], nc, nc == 1 ? "" : "s") != CM_OK)
        goto nomem;
    }
  }
  cm_free(done);
  cm_free(reps);
  return CM_OK;
nomem:
  cm_free(done);
  cm_free(reps);
  return CM_ERR_NOMEM;
}

/* aliases: the distinct names in the order of first use (a body's alias defaults to its name),
 * then their classes and the rule table */
static cmStatus compile_aliases(const cmScene* s, cmModel* m, char* err, size_t errsz) {
  const char** names = cm_malloc((size_t)(m->nbody ? m->nbody : 1) * sizeof *names);
  if (!names)
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (the aliases)");
  int n = 0;
  for (int b = 0; b < m->nbody; b++) {
    const char* a = s->body[b].alias ? s->body[b].alias : s->body[b].name;
    int k = 0;
    while (k < n && strcmp(names[k], a))
      k++;
    if (k == n) names[n++] = a;
    m->body_alias[b] = k;
  }
  m->nalias = n;
  int ok = cm_model_alloc_rows(m, &m->nalias);
  for (int k = 0; ok && k < n; k++)
    ok = (m->alias_name[k] = cm_strdup(names[k])) != NULL;
  cm_free(names);
  if (!ok || cm_rules_resolve(m) != CM_OK)
    return cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (the aliases and the rule table)");
  /* a rule's glob that matches no alias (nor `world`, a joint's other side) makes the rule
   * apply to no pair: most often a typo, whose pairs then silently take another rule */
  for (int r = 1; r < m->nrule; r++)
    for (int side = 0; side < 2; side++) {
      const char* glob = m->rule[r].pair[side];
      int hit = cm_glob_match(glob, "world");
      for (int k = 0; !hit && k < m->nalias; k++)
        hit = cm_glob_match(glob, m->alias_name[k]);
      if (hit || (side == 1 && !strcmp(glob, m->rule[r].pair[0]))) continue;
      char where[256], list[256] = "", note[1024];
      size_t at = 0;
      for (int k = 0; k < m->nalias && at + 1 < sizeof list; k++) {
        int w = snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", m->alias_name[k]);
        if (w < 0 || (size_t)w >= sizeof list - at) {
          memcpy(list + sizeof list - 5, "...", 4); /* cut: said so */
          break;
        }
        at += (size_t)w;
      }
      loc_prefix(where, sizeof where, s, m->rule[r].loc);
      snprintf(note, sizeof note,
               "%srule %d (%s, %s): '%s' matches no body's alias (or name, where it has no "
               "alias), so the rule applies to no pair and those pairs take another rule; the "
               "aliases are: %s",
               where, r, m->rule[r].pair[0], m->rule[r].pair[1], glob, list);
      if (add_note(m, note) != CM_OK)
        return cm_error(err, errsz, CM_ERR_NOMEM,
                        "out of memory while compiling the model (the notes)");
    }
  return CM_OK;
}

static cmStatus compile_joints(const cmScene* s, cmModel* m, char* err, size_t errsz) {
  for (int j = 0; j < m->njoint; j++) {
    const cmJointDef* J = &s->joint[j];
    const char* alias[2];
    for (int k = 0; k < 2; k++) {
      const char* name = J->body[k];
      int b = (!name || !strcmp(name, "world")) ? -1 : cm_model_body_index(m, name);
      if (b < 0 && name && strcmp(name, "world")) {
        char where[256];
        loc_prefix(where, sizeof where, s, J->loc);
        return cm_error(err, errsz, CM_ERR_ARG, "%sjoint %d: unknown body '%s'", where, j, name);
      }
      if (b >= 0 && m->body_motion[b] == CM_MOTION_DEFORMABLE) {
        /* (checked in model_fem.c until 2026-12-07, before the joints were counted: a joint to a
         * deformable body acted on its centre of mass frame without a word) */
        char where[256];
        loc_prefix(where, sizeof where, s, J->loc);
        return cm_error(err, errsz, CM_ERR_ARG,
                        "%sjoints[%d]: body '%s' is deformable: joints to deformable bodies are "
                        "not supported yet (hold its nodes with deformable.fixed, or glue them to "
                        "a rigid body with deformable.attach)",
                        where, j, name);
      }
      m->joint_body[2 * j + k] = b;
      alias[k] = b < 0 ? "world" : m->alias_name[m->body_alias[b]];
      /* anchor in the body frame: R0^T (anchor - pos0) */
      double* a = m->joint_anchor + 6 * j + 3 * k;
      if (b < 0) {
        cm_v3_copy(a, J->anchor);
      } else {
        double r[3];
        cm_v3_sub(r, J->anchor, m->body_pos0 + 3 * b);
        cm_quat_rotate_inv(a, m->body_quat0 + 4 * b, r);
      }
    }
    int r = m->joint_rule[j] = cm_rules_match(m, alias[0], alias[1]);
    /* law none means "no interaction" and gives no joint parameters, nor does area_compliant or
     * linear (their rows have no contact_time or elastic_repulsion: the joint took the defaults,
     * T = 100 h and e_r 0.5, without a word): refuse it, rather than link the bodies with
     * parameters the user never gave (or drop the joint he wrote) */
    if (r >= 0 && m->rule[r].law != CM_LAW_CONTACT_TIME) {
      char where[256], rule_at[64] = "";
      loc_prefix(where, sizeof where, s, J->loc);
      if (m->rule[r].loc.line > 0)
        snprintf(rule_at, sizeof rule_at, " at line %d", m->rule[r].loc.line);
      return cm_error(err, errsz, CM_ERR_ARG,
                      "%sjoints[%d] (%s <-> %s): its rule interactions[%d]%s has law %s, which "
                      "gives a joint no parameters; a joint takes contact_time, "
                      "elastic_repulsion, play and mass from the rule of its two aliases: give "
                      "[%s, %s] a contact_time rule after that one (the two bodies then also "
                      "collide through it), or remove the joint",
                      where, j, J->body[0] ? J->body[0] : "world",
                      J->body[1] ? J->body[1] : "world", r - 1, rule_at,
                      cm_law_name(m->rule[r].law), alias[0], alias[1]);
    }
  }
  return CM_OK;
}

cmStatus cm_model_compile(const cmScene* s, cmModel** out, char* err, size_t errsz) {
  *out = NULL;
  cmStatus st = cm_scene_validate(s, err, errsz);
  if (st != CM_OK) return st;
  cmModel* m = cm_calloc(1, sizeof *m);
  GeomBuild* gb = NULL;
  if (!m) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory while compiling the model");

  /* options */
  m->name = cm_strdup(s->name ? s->name : "scene");
  if (!m->name) goto nomem;
  m->opt = s->opt;
  if (m->opt.steps <= 0) {
    double n = floor(m->opt.duration / m->opt.timestep + 0.5);
    if (!(n <= CM_STEPS_MAX)) { /* (cm_scene_validate refused it first) */
      st = cm_error(err, errsz, CM_ERR_ARG, "%s: duration / timestep = %g steps is too many",
                    s->file ? s->file : "scene", n);
      goto fail;
    }
    m->opt.steps = (long)n;
  }

  /* bodies and geometry */
  m->nbody = s->nbody;
  if (!cm_model_alloc_rows(m, &m->nbody)) goto nomem;
  for (int b = 0; b < m->nbody; b++) {
    m->body_name[b] = cm_strdup(s->body[b].name);
    if (!m->body_name[b]) goto nomem;
  }
  st = compile_geoms(s, m, &gb, err, errsz);
  if (st == CM_OK) st = compile_bodies(s, m, gb, err, errsz);
  if (st == CM_OK) st = compile_rules(s, m, err, errsz);
  if (st == CM_OK) st = compile_aliases(s, m, err, errsz);
  if (st == CM_OK) {
    /* the elements of the deformable bodies, then the rules they meet (model_fem.c) */
    const cmTetMesh** tet = cm_calloc((size_t)m->ngeom + 1, sizeof *tet);
    const int** surf = cm_calloc((size_t)m->ngeom + 1, sizeof *surf);
    if (!tet || !surf) {
      st = cm_error(err, errsz, CM_ERR_NOMEM,
                    "out of memory while compiling the model (the deformable bodies)");
    } else {
      for (int g = 0; g < m->ngeom; g++) {
        tet[g] = gb[g].tet;
        surf[g] = gb[g].surf_node;
      }
      st = cm_compile_fem(s, m, tet, surf, err, errsz);
    }
    cm_free(tet);
    cm_free(surf);
  }
  if (st == CM_OK && note_vertex_on_flat(s, m) != CM_OK)
    st = cm_error(err, errsz, CM_ERR_NOMEM,
                  "out of memory while compiling the model (the notes on flat faces)");
  if (st == CM_OK && note_concave_contact_time(s, m) != CM_OK)
    st = cm_error(err, errsz, CM_ERR_NOMEM,
                  "out of memory while compiling the model (the notes on inner corners)");
  if (st != CM_OK) goto fail;

  /* joints */
  m->njoint = s->njoint;
  if (!cm_model_alloc_rows(m, &m->njoint)) goto nomem;
  st = compile_joints(s, m, err, errsz);
  if (st != CM_OK) goto fail;

  for (int g = 0; gb && g < m->ngeom; g++) {
    cm_mesh_free(gb[g].mesh);
    cm_free(gb[g].source);
    cm_free(gb[g].repaired);
    cm_tetmesh_free(gb[g].tet);
    cm_free(gb[g].surf_node);
  }
  cm_free(gb);
  *out = m;
  return CM_OK;
nomem:
  st = cm_error(err, errsz, CM_ERR_NOMEM,
                "out of memory while compiling the model (the body and joint arrays)");
fail:
  for (int g = 0; gb && g < m->ngeom; g++) {
    cm_mesh_free(gb[g].mesh);
    cm_free(gb[g].source);
    cm_free(gb[g].repaired);
    cm_tetmesh_free(gb[g].tet);
    cm_free(gb[g].surf_node);
  }
  cm_free(gb);
  cm_model_free(m);
  return st;
}
