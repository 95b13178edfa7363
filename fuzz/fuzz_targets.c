/* The fuzz entry points (fuzz_targets.h). The input is copied into a buffer of its exact size
 * (the scene parser takes a length) or of its size plus a NUL (the mesh readers take the
 * NUL-terminated, writable content of a whole file), so that AddressSanitizer sees any read past
 * the end. The parsers' targets touch no file: scenes naming mesh files are parsed, not
 * compiled. The checkpoint and restart targets write their input into a private folder, since
 * the functions they fuzz take paths. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fuzz_targets.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comply/comply.h"
#include "mesh_io/mesh_io.h"
#include "output/output.h"

/* abort (a crash libFuzzer records) unless cond holds, saying which invariant failed */
#define require(cond) cm_fuzz_require((cond), #cond, "fuzz_targets.c", __LINE__)
void cm_fuzz_require(int ok, const char* what, const char* file, int line) {
  if (ok) return;
  fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
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
  /* the diagnosis runs on any parsed mesh (self-intersections on small ones); a valid mesh has
   * no finding but shells (and possibly unwelded vertices in separate shells) */
  cmMeshDiagnosis dg;
  int self = mesh->nface <= 20000 ? CM_DIAGNOSE_SELF_INTERSECTIONS : 0;
  if (cm_mesh_diagnose(mesh, self, &dg) == CM_OK) {
    char text[4096];
    cm_mesh_diagnosis_text(mesh, &dg, text, sizeof text);
    require(memchr(text, 0, sizeof text) != NULL);
    require(dg.duplicate_face >= 0 && dg.hole >= 0 && dg.flipped_face >= 0 && dg.shell >= 0);
    /* not checked (-1) only where the face tree cannot bin the mesh: an extent beyond double */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < 3 * (size_t)mesh->nvert; i++) {
      lo = fmin(lo, mesh->vert[i]);
      hi = fmax(hi, mesh->vert[i]);
    }
    require(!self || dg.self_intersection >= 0 || !isfinite(hi - lo));
    if (st == CM_OK)
      require(dg.duplicate_face == 0 && dg.hole == 0 && dg.flipped_face == 0 &&
              dg.nonmanifold_edge == 0 && dg.nonmanifold_vert == 0 && dg.nested_shell <= 0);
  }
  /* the repair of a copy: a mesh it says passes must pass the check; a valid mesh is unchanged */
  cmMesh* fixed = cm_mesh_copy(mesh);
  if (fixed) {
    cmMeshRepairReport rr;
    char rerr[1024];
    cmStatus rst = cm_mesh_repair(fixed, -1, name, &rr, rerr, sizeof rerr);
    char text[1024];
    cm_mesh_repair_text(&rr, text, sizeof text);
    require(memchr(text, 0, sizeof text) != NULL);
    require(rr.welded_vert >= 0 && rr.duplicate_face >= 0 && rr.flipped_face >= 0);
    if (st == CM_OK) require(rst == CM_OK && rr.changes == 0 && fixed->nface == mesh->nface);
    if (rst == CM_OK) {
      require(cm_mesh_check(fixed, name, NULL, rerr, sizeof rerr) == CM_OK);
      require(rr.volume > 0);
    } else if (rst != CM_ERR_NOMEM) {
      require_message(rerr, name);
    }
    cm_mesh_free(fixed);
  }
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

int cm_fuzz_vtp(const uint8_t* data, size_t size) {
  return fuzz_mesh(cm_mesh_read_vtp, "fuzz.vtp", data, size);
}

int cm_fuzz_vtk(const uint8_t* data, size_t size) {
  return fuzz_mesh(cm_mesh_read_vtk, "fuzz.vtk", data, size);
}

/* a tet mesh file: the reader told by the content (a '#' first: legacy VTK, a '<': VTK XML,
 * else gmsh), then cm_tetmesh_check and, for a valid mesh, its boundary surface */
int cm_fuzz_tetmesh(const uint8_t* data, size_t size) {
  size_t i = 0;
  while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
    i++;
  if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf) i = 3;
  int kind = i < size && data[i] == '#' ? 2 : i < size && data[i] == '<' ? 1 : 0;
  static const char* const names[3] = {"fuzz.msh", "fuzz.vtu", "fuzz.vtk"};
  cmStatus (*reader[3])(const char*, char*, size_t, double, cmTetMesh**, char*,
                        size_t) = {cm_tetmesh_read_msh, cm_tetmesh_read_vtu, cm_tetmesh_read_vtk};
  char* buf = malloc(size + 1);
  require(buf != NULL);
  if (size) memcpy(buf, data, size);
  buf[size] = 0;
  char err[1024] = "";
  cmTetMesh* mesh = NULL;
  cmStatus st = reader[kind](names[kind], buf, size, 1.0, &mesh, err, sizeof err);
  free(buf);
  if (st != CM_OK) {
    require(mesh == NULL);
    if (st != CM_ERR_NOMEM) require_message(err, names[kind]);
    return 0;
  }
  /* a mesh of tets with nodes in range, finite coordinates; the report names the file */
  require(mesh != NULL && mesh->nnode >= 0 && mesh->ntet > 0);
  require(!err[0] || strstr(err, names[kind]) == err);
  for (size_t k = 0; k < 3 * (size_t)mesh->nnode; k++)
    require(isfinite(mesh->node[k]));
  for (size_t k = 0; k < 4 * (size_t)mesh->ntet; k++)
    require(mesh->tet[k] >= 0 && mesh->tet[k] < mesh->nnode);
  err[0] = 0;
  st = cm_tetmesh_check(mesh, err, sizeof err);
  if (st != CM_OK) {
    require(st == CM_ERR_MESH && err[0] != 0);
  } else if (mesh->ntet <= 20000) {
    cmMesh* surf = cm_tetmesh_surface(mesh, NULL);
    if (surf) require(surf->nface > 0 && surf->nvert <= mesh->nnode);
    cm_mesh_free(surf);
  }
  cm_tetmesh_free(mesh);
  return 0;
}

/* ---- the file-based targets: a private folder and a small model ---- */

static char fuzz_folder[4096];

/* remove path and, for a folder, everything in it (symbolic links are removed, not followed) */
static void remove_tree(const char* path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR* d = opendir(path);
    if (d) {
      struct dirent* e;
      while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char sub[4096];
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
          remove_tree(sub);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

static void remove_fuzz_folder(void) {
  if (fuzz_folder[0]) remove_tree(fuzz_folder);
}

const char* cm_fuzz_dir(void) {
  if (!fuzz_folder[0]) {
    const char* tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 1024) tmp = "/tmp";
    snprintf(fuzz_folder, sizeof fuzz_folder, "%s/comply-fuzz-XXXXXX", tmp);
    require(mkdtemp(fuzz_folder) != NULL);
    atexit(remove_fuzz_folder);
  }
  return fuzz_folder;
}

/* dir/name in a static buffer of its own per slot (0..3) */
static const char* fuzz_path(int slot, const char* name) {
  static char buf[4][4200];
  snprintf(buf[slot], sizeof buf[slot], "%s/%s", cm_fuzz_dir(), name);
  return buf[slot];
}

static void write_file(const char* path, const uint8_t* data, size_t size) {
  FILE* f = fopen(path, "wb");
  require(f != NULL);
  require(fwrite(data, 1, size, f) == size);
  require(fclose(f) == 0);
}

/* the whole file in a new buffer (free), NUL-terminated; NULL if it cannot be read */
static uint8_t* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  uint8_t* buf = malloc(cap + 1);
  require(buf != NULL);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap + 1);
      require(buf != NULL);
    }
  }
  fclose(f);
  buf[n] = 0;
  *size = n;
  return buf;
}

/* a ground plane, a box and a sphere (meshes of 8 and 42 vertices); the box rests on the plane */
#define CM_FUZZ_SCENE                                                                              \
  "scene: {timestep: 1.0e-3}\n"                                                                    \
  "bodies:\n"                                                                                      \
  "  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}\n"         \
  "  - {name: box, geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 1}}, "                       \
  "position: [0, 0, 0.0499]}\n"                                                                    \
  "  - {name: ball, geometry: {sphere: {radius: 0.05, refine: 1}}, position: [0.3, 0, 0.2]}\n"

/* the model of the file-based targets, compiled once (vtk: with the VTK series) */
static const cmModel* fuzz_model(int vtk) {
  static cmModel* model[2];
  if (!model[vtk]) {
    static const char text[2][512] = {CM_FUZZ_SCENE, CM_FUZZ_SCENE "output: {vtk: true}\n"};
    char err[1024];
    cmScene* s = NULL;
    require(cm_scene_parse(text[vtk], strlen(text[vtk]), "fuzz-model.yaml", &s, err, sizeof err) ==
            CM_OK);
    require(cm_model_compile(s, &model[vtk], err, sizeof err) == CM_OK);
    cm_scene_free(s);
  }
  return model[vtk];
}

/* ---- checkpoint ---- */

static void put_le(uint8_t* p, uint64_t x, int n) {
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t get_le(const uint8_t* p, int n) {
  uint64_t x = 0;
  for (int i = n - 1; i >= 0; i--)
    x = (x << 8) | p[i];
  return x;
}

/* FNV-1a 64, as the checkpoint's checksum (docs/outputs.md) */
static uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* the header fields, size and checksum that the mode asks to make right (layout in
 * src/output/checkpoint.c) */
static void fix_checkpoint(const cmModel* m, uint8_t* b, size_t n, unsigned mode) {
  if ((mode & 1) && n >= 72) {
    memcpy(b, "CMCKPT\0\0", 8);
    put_le(b + 8, CM_CHECKPOINT_VERSION, 4);
    put_le(b + 12, (uint64_t)m->nbody, 4);
    memset(b + 16, 0, 16);
    memcpy(b + 16, cm_version(), strlen(cm_version()));
    put_le(b + 32, cm_model_fingerprint(m), 8);
    double h = m->opt.timestep;
    uint64_t bits;
    memcpy(&bits, &h, 8);
    put_le(b + 40, bits, 8);
    put_le(b + 56, CM_WARN_COUNT, 4);
    put_le(b + 60, CM_TIMER_COUNT, 4);
    put_le(b + 64, cm_model_scene_fingerprint(m), 8);
  }
  if ((mode & 2) && n >= 56) put_le(b + 48, n, 8);
  if ((mode & 4) && n >= 8) put_le(b + n - 8, fnv1a(b, n - 8), 8);
}

static int state_finite(const cmModel* m, const cmData* d) {
  for (int i = 0; i < m->nbody; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(d->body_cpos[3 * i + k]) || !isfinite(d->body_cvel[3 * i + k]) ||
          !isfinite(d->body_angvel[3 * i + k]))
        return 0;
  return 1;
}

/* the size of a checkpoint of the model (that of a fresh data's, written once) */
static size_t checkpoint_size(const cmModel* m) {
  static size_t size;
  if (!size) {
    cmData* d = cm_data_new(m);
    require(d != NULL);
    char err[1024];
    const char* path = fuzz_path(1, "fresh.bin");
    require(cm_checkpoint_write(m, d, path, err, sizeof err) == CM_OK);
    uint8_t* b = read_file(path, &size);
    require(b != NULL && size > 0);
    free(b);
    cm_data_free(d);
  }
  return size;
}

int cm_fuzz_checkpoint(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const cmModel* m = fuzz_model(0);
  /* mode bit 3: cut or zero-pad the file to the size of the model's checkpoints, so that an
   * input keeps reaching the checks behind the size when the layout changes */
  size_t n = data[0] & 8 ? checkpoint_size(m) : size - 1;
  uint8_t* buf = calloc(n ? n : 1, 1);
  require(buf != NULL);
  memcpy(buf, data + 1, size - 1 < n ? size - 1 : n);
  fix_checkpoint(m, buf, n, data[0]);
  const char* path = fuzz_path(0, "checkpoint.bin");
  write_file(path, buf, n);

  cmData* d = cm_data_new(m);
  require(d != NULL);
  uint64_t h0 = cm_data_hash(m, d);
  char err[1024] = "";
  cmStatus st = cm_checkpoint_read(m, d, path, err, sizeof err);
  if (st != CM_OK) {
    /* the data as it was, and a message naming the file */
    require(cm_data_hash(m, d) == h0 && d->step == 0);
    if (st != CM_ERR_NOMEM) require_message(err, path);
  } else {
    /* the contacts of the checkpoint's step as validated (format 12): each in its pair's run */
    require(d->step >= 0 && d->ncontact >= 0 && d->npair >= 0);
    for (int i = 0; i < d->ncontact; i++) {
      int k = d->contact[i].pair;
      require(k >= 0 && k < d->npair && i >= d->pair[k].first &&
              i < d->pair[k].first + d->pair[k].points);
    }
    /* its header as cm_checkpoint_info reads it */
    cmCheckpointInfo ci;
    require(cm_checkpoint_info(path, &ci, err, sizeof err) == CM_OK);
    require(ci.step == d->step && ci.time == d->time && ci.nbody == m->nbody &&
            ci.model_fingerprint == cm_model_fingerprint(m));
    /* what was read is written back byte for byte, but for the scene's fingerprint (at 64,
     * which a read does not check: a restart with another version of the scene is the caller's
     * to refuse or allow) and so the checksum */
    const char* again = fuzz_path(1, "again.bin");
    require(cm_checkpoint_write(m, d, again, err, sizeof err) == CM_OK);
    size_t n2 = 0;
    uint8_t* buf2 = read_file(again, &n2);
    require(buf2 != NULL && n2 == n && memcmp(buf, buf2, 64) == 0 &&
            memcmp(buf + 72, buf2 + 72, n - 80) == 0);
    require(ci.scene_fingerprint != cm_model_scene_fingerprint(m) ||
            memcmp(buf + n - 8, buf2 + n - 8, 8) == 0);
    free(buf2);
    /* a step from it: a finite state, or an error that keeps the state read */
    uint64_t h1 = cm_data_hash(m, d);
    long step = d->step;
    if (cm_step(m, d) == CM_OK)
      require(state_finite(m, d) && d->step == step + 1);
    else
      require(cm_data_hash(m, d) == h1 && d->step == step);
  }
  cm_data_free(d);
  free(buf);
  return 0;
}

/* ---- restart: cm_output_resume ---- */

/* Check one CSV after the resume: it starts with its header; it is the header alone if there was
 * no file or no complete header line, else a prefix of the file that was there; every row after
 * the header starts with a step <= last and a comma, and the file ends with a newline. */
static void check_resumed(const char* path, const char* header, const uint8_t* before,
                          size_t nbefore, int existed, long last) {
  size_t n = 0, nh = strlen(header);
  uint8_t* now = read_file(path, &n);
  require(now != NULL);
  require(n >= nh && memcmp(now, header, nh) == 0);
  if (existed && nbefore >= nh && memcmp(before, header, nh) == 0)
    require(n <= nbefore && memcmp(now, before, n) == 0);
  else
    require(n == nh);
  require(now[n - 1] == '\n');
  for (size_t i = nh; i < n;) {
    long step = 0;
    size_t j = i;
    while (j < n && now[j] >= '0' && now[j] <= '9' && j - i < 18)
      step = 10 * step + (now[j++] - '0');
    require(j > i && j < n && now[j] == ',' && step <= last);
    while (now[j] != '\n')
      j++;
    i = j + 1;
  }
  free(now);
}

int cm_fuzz_resume(const uint8_t* data, size_t size) {
  if (size < 11) return 0;
  unsigned flags = data[0];
  long last = (long)(int64_t)get_le(data + 1, 8);
  size_t nb = (size_t)get_le(data + 9, 2), nrest = size - 11;
  if (nb > nrest) nb = nrest;
  const uint8_t* bodies = data + 11;
  const uint8_t* contacts = bodies + nb;
  size_t nc = nrest - nb;
  const cmModel* m = fuzz_model(flags & 1);

  /* a fresh output folder holding the files given */
  const char* dir = fuzz_path(0, "out");
  remove_tree(dir);
  require(mkdir(dir, 0777) == 0);
  const char* bpath = fuzz_path(1, "out/bodies.csv");
  const char* cpath = fuzz_path(2, "out/contacts.csv");
  if (!(flags & 2)) write_file(bpath, bodies, nb);
  if (!(flags & 4)) write_file(cpath, contacts, nc);

  char err[1024] = "";
  cmOutput* out = (cmOutput*)1;
  cmStatus st = cm_output_resume(m, dir, last, &out, err, sizeof err);
  if (st != CM_OK) {
    require(out == NULL);
    if (st != CM_ERR_NOMEM) require_message(err, dir);
    return 0;
  }
  require(out != NULL);
  check_resumed(bpath, CM_BODIES_HEADER, bodies, nb, !(flags & 2), last);
  check_resumed(cpath, CM_CONTACTS_HEADER, contacts, nc, !(flags & 4), last);
  /* a frame appends whole rows */
  cmData* d = cm_data_new(m);
  require(d != NULL);
  require(cm_output_frame(out, m, d) == CM_OK);
  cm_output_close(out);
  size_t n = 0;
  uint8_t* b = read_file(bpath, &n);
  require(b != NULL && n > 0 && b[n - 1] == '\n');
  free(b);
  cm_data_free(d);
  return 0;
}
