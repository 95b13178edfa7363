/* The fuzz entry points (fuzz_targets.h). The input is copied into a buffer of its exact size
 * (the scene parser takes a length) or of its size plus a NUL (the mesh readers take the
 * NUL-terminated, writable content of a whole file), so that AddressSanitizer sees any read past
 * the end. Nothing touches the file system: scenes naming mesh files are parsed, not compiled. */
#include "fuzz_targets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comply/comply.h"
#include "mesh_io/mesh_io.h"

/* abort (a crash libFuzzer records) unless cond holds, saying which invariant failed */
#define require(cond) require_at((cond), #cond, __LINE__)
static void require_at(int ok, const char* what, int line) {
  if (ok) return;
  fprintf(stderr, "fuzz_targets.c:%d: invariant violated: %s\n", line, what);
  abort();
}

/* a failed call must leave a message that names the input */
static void require_message(const char* err, const char* name) {
  require(err[0] != 0);
  require(strstr(err, name) != NULL);
}

/* 1 if the scene is small enough to compile quickly and names no mesh file */
static int compilable(const cmScene* s) {
  if (s->nbody > CM_FUZZ_MAX_BODIES) return 0;
  for (int i = 0; i < s->nbody; i++) {
    const cmGeomDef* g = &s->body[i].geom;
    if (g->type == CM_GEOM_MESH) return 0;
    if (g->type == CM_GEOM_SPHERE && g->refine > CM_FUZZ_MAX_REFINE) return 0;
    if (g->type == CM_GEOM_BOX && g->divisions > CM_FUZZ_MAX_DIVISIONS) return 0;
  }
  return 1;
}

int cm_fuzz_scene(const uint8_t* data, size_t size) {
  static const char name[] = "fuzz.yaml";
  char* text = malloc(size ? size : 1);
  require(text != NULL);
  if (size) memcpy(text, data, size);
  char err[1024] = "";
  cmScene* s = NULL;
  cmStatus st = cm_scene_parse(text, size, name, &s, err, sizeof err);
  free(text);
  if (st != CM_OK) {
    require(s == NULL);
    if (st != CM_ERR_NOMEM) require_message(err, name);
    return 0;
  }
  require(s != NULL);
  if (compilable(s)) {
    cmModel* m = NULL;
    err[0] = 0;
    st = cm_model_compile(s, &m, err, sizeof err);
    if (st == CM_OK) {
      require(m != NULL && m->nbody == s->nbody);
      cmData* d = cm_data_new(m);
      if (d) {
        cm_collide(m, d);
        cm_data_free(d);
      }
      cm_model_free(m);
    } else if (st != CM_ERR_NOMEM) {
      require(err[0] != 0);
    }
  }
  cm_scene_free(s);
  return 0;
}

typedef cmStatus (*Reader)(const char*, char*, size_t, double, cmMesh**, char*, size_t);

/* read, check, and for a valid mesh prepare and measure */
static int fuzz_mesh(Reader reader, const char* name, const uint8_t* data, size_t size) {
  char* buf = malloc(size + 1);
  require(buf != NULL);
  if (size) memcpy(buf, data, size);
  buf[size] = 0;
  char err[1024] = "";
  cmMesh* mesh = NULL;
  cmStatus st = reader(name, buf, size, 1.0, &mesh, err, sizeof err);
  free(buf);
  if (st != CM_OK) {
    /* like cm_mesh_load, free a partial mesh a reader may have left */
    cm_mesh_free(mesh);
    if (st != CM_ERR_NOMEM) require_message(err, name);
    return 0;
  }
  require(mesh != NULL && mesh->nvert >= 0 && mesh->nface >= 0);

  /* the readers reject non-finite coordinates */
  for (size_t i = 0; i < 3 * (size_t)mesh->nvert; i++)
    require(isfinite(mesh->vert[i]));

  cmMeshReport rep;
  err[0] = 0;
  st = cm_mesh_check(mesh, name, &rep, err, sizeof err);
  require(rep.nvert == mesh->nvert && rep.nface == mesh->nface);
  /* the report is printed by `comply mesh-info` even for an invalid mesh: never NaN */
  require(!isnan(rep.area) && !isnan(rep.volume));
  if (st != CM_OK) {
    require_message(err, name);
  } else {
    require(rep.closed && rep.manifold && rep.oriented && rep.volume > 0);
    if (cm_mesh_prepare(mesh) == CM_OK) {
      cmMassProperties mp;
      if (cm_mesh_mass_properties(mesh, &mp) == CM_OK) require(mp.volume > 0);
    }
  }
  cm_mesh_free(mesh);
  return 0;
}

int cm_fuzz_obj(const uint8_t* data, size_t size) {
  return fuzz_mesh(cm_mesh_read_obj, "fuzz.obj", data, size);
}

int cm_fuzz_stl(const uint8_t* data, size_t size) {
  return fuzz_mesh(cm_mesh_read_stl, "fuzz.stl", data, size);
}

int cm_fuzz_ply(const uint8_t* data, size_t size) {
  return fuzz_mesh(cm_mesh_read_ply, "fuzz.ply", data, size);
}
