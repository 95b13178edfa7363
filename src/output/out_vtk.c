/* Output files, VTK part (SPEC 9): vtk/NAME_STEP.vtu per mesh body and written frame, and the
 * time series scene.pvd (docs/outputs.md).
 *
 * A .vtu file is a VTK XML UnstructuredGrid (version 1.0, byte_order LittleEndian, header_type
 * UInt64) with one Piece:
 *   Points     Float64 x 3   the body's mesh vertices in world coordinates, x + R(q) v (a
 *                            deformable body: its surface nodes), in the
 *                            order of the geometry's input (by mesh_vert_source: the file's
 *                            vertex order, or the primitive's; the model keeps them in Morton
 *                            order)
 *   Cells      connectivity Int64 (3 per triangle, indices of those points), offsets
 *              Int64 (3, 6, ...), types UInt8 (5 = VTK_TRIANGLE)
 *   PointData  pressure Float64 (Pa) and penetration Float64 (m) of cm_data_vertex_pressure,
 *              input_index Int64 (each point's index in the mesh file: after repair: true, some
 *              indices are missing, welded or unused vertices); a deformable body's surface
 *              also displacement Float64 x 3 (m, from t = 0) and von_mises Float64 (Pa, the
 *              volume-weighted mean over the tets around the node)
 *   FieldData  TimeValue Float64 (s, ascii)
 * Every binary array is inline base64 (format="binary"): the base64 of one UInt64 byte count
 * followed by the array's bytes, all little-endian, so the file is plain XML that any XML parser
 * reads. Bodies without a mesh (planes) get no file.
 *
 * scene.pvd is a VTK Collection with one DataSet per mesh body and frame:
 *   <DataSet timestep="TIME" group="" part="BODY" file="vtk/NAME_STEP.vtu"/>
 * in frame order (part is the body index). Its lines are kept in memory and the file is
 * rewritten after every frame through scene.pvd.tmp and a rename, so an interrupted run always
 * leaves a complete collection listing only files that exist (each .vtu is itself written through
 * a .tmp file and renamed before the pvd names it). Neither is fsync'ed: the rename makes them
 * safe against an interrupted process, checkpoints (which are fsync'ed) against a crash. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cm_math.h"
#include "core/hash.h"
#include "core/internal.h"
#include "core/sort.h"
#include "fem/fem.h"
#include "model/model_fem.h"
#include "output/output.h"

static int has_mesh(const cmModel* m, int body) {
  int g = m->body_geom[body];
  return m->geom_type[g] != CM_GEOM_PLANE && m->geom_nvert[g] > 0 && m->geom_nface[g] > 0;
}

/* bytes of scratch for the largest encoded array of the model's meshes */
static size_t bytes_needed(const cmModel* m, int* maxvert) {
  int nv = 0, nf = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (!has_mesh(m, b)) continue;
    int g = m->body_geom[b];
    if (m->geom_nvert[g] > nv) nv = m->geom_nvert[g];
    if (m->geom_nface[g] > nf) nf = m->geom_nface[g];
  }
  *maxvert = nv;
  return 8 + 24 * (size_t)(nv > nf ? nv : nf);
}

/* ---- encoding ---- */

static void put_u64(unsigned char* p, uint64_t x) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(x >> (8 * i));
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64 of n bytes (RFC 4648, with padding) */
static void put_base64(FILE* f, const unsigned char* p, size_t n) {
  char chunk[4096];
  size_t k = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned a = p[i], b = i + 1 < n ? p[i + 1] : 0, c = i + 2 < n ? p[i + 2] : 0;
    unsigned v = (a << 16) | (b << 8) | c;
    chunk[k++] = B64[(v >> 18) & 63];
    chunk[k++] = B64[(v >> 12) & 63];
    chunk[k++] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
    chunk[k++] = i + 2 < n ? B64[v & 63] : '=';
    if (k == sizeof chunk) {
      fwrite(chunk, 1, k, f);
      k = 0;
    }
  }
  fwrite(chunk, 1, k, f);
}

/* one DataArray element with its inline base64 content: bytes[0..8) get the byte count of the
 * nbytes data bytes that follow them */
static void put_array(FILE* f, const char* attrs, unsigned char* bytes, size_t nbytes) {
  put_u64(bytes, (uint64_t)nbytes);
  fprintf(f, "        <DataArray %s format=\"binary\">\n          ", attrs);
  put_base64(f, bytes, nbytes + 8);
  fputs("\n        </DataArray>\n", f);
}

/* The position of each vertex in the file's order: the rank of its source (its index in the
 * mesh file) among the geometry's vertices. Without a repair the sources are 0..nv-1 and the
 * rank is the source; after repair: true some file indices are missing (welded or unused
 * vertices), so the sources are sorted (pairs (source, vertex) in `work`, 2 nv ints). */
static void file_order(const int* src, int nv, int* pos, int* work) {
  int perm = 1;
  for (int i = 0; i < nv; i++)
    perm &= src[i] >= 0 && src[i] < nv;
  if (perm) {
    memcpy(pos, src, (size_t)nv * sizeof *pos);
    return;
  }
  for (int i = 0; i < nv; i++) {
    work[2 * i] = src[i];
    work[2 * i + 1] = i;
  }
  cm_sort(work, (size_t)nv, 2 * sizeof *work, cm_int2_cmp);
  for (int k = 0; k < nv; k++)
    pos[work[2 * k + 1]] = k;
}

/* the start of a .vtu up to its Piece: the XML header, the time, the counts */
static void vtu_begin(FILE* f, double time, int npoints, int ncells) {
  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
        "header_type=\"UInt64\">\n"
        "  <UnstructuredGrid>\n"
        "    <FieldData>\n"
        "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
        "format=\"ascii\">",
        f);
  fprintf(f, "%.17g</DataArray>\n    </FieldData>\n", time);
  fprintf(f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", npoints, ncells);
}

/* the von Mises stress (Pa) of deformable body b at its nv surface vertices (out), the
 * volume-weighted mean over the tets around each vertex's node; 0 if out of memory */
static int von_mises_nodes(const cmModel* m, const cmData* d, int b, const int* vnode, int nv,
                           double* out_surface) {
  int n0 = m->body_nodeadr[b], nn = m->body_nnode[b];
  double* vol = cm_calloc(2 * (size_t)nn + 1, sizeof *vol);
  if (!vol) return 0;
  double* out = vol + nn;
  cmFemMaterial mat;
  cm_body_fem_material(m, b, &mat);
  for (int t = m->body_tetadr[b]; t < m->body_tetadr[b] + m->body_ntet[b]; t++) {
    double x[12];
    for (int a = 0; a < 4; a++)
      cm_v3_copy(x + 3 * a, d->node_pos + 3 * (size_t)m->tet_node[4 * (size_t)t + a]);
    double vm = cm_fem_tet_von_mises(&mat, m->tet_dminv + 9 * (size_t)t, x, NULL);
    if (!isfinite(vm)) vm = 0; /* an inverted Neo-Hookean tet: the solve never leaves one */
    for (int a = 0; a < 4; a++) {
      int k = m->tet_node[4 * (size_t)t + a] - n0;
      out[k] += m->tet_vol[t] * vm;
      vol[k] += m->tet_vol[t];
    }
  }
  for (int i = 0; i < nv; i++) {
    int k = vnode[i] - n0;
    out_surface[i] = vol[k] > 0 ? out[k] / vol[k] : 0;
  }
  cm_free(vol);
  return 1;
}

/* the .vtu of one mesh body; scalar has room for 3 x nvert doubles, bytes for
 * 8 + 24 x max(nvert, nface) */
static void write_vtu(FILE* f, const cmModel* m, const cmData* d, int body, double* scalar,
                      unsigned char* bytes) {
  int g = m->body_geom[body];
  int nv = m->geom_nvert[g], nf = m->geom_nface[g];
  const double* vert = m->mesh_vert + 3 * (size_t)m->geom_vertadr[g];
  const int* face = m->mesh_face + 3 * (size_t)m->geom_faceadr[g];
  const int* src0 = m->mesh_vert_source + m->geom_vertadr[g];
  const double* x = d->body_xpos + 3 * body;
  const double* q = d->body_xquat + 4 * body;
  double* pressure = scalar;
  double* penetration = scalar + nv;
  int* src = (int*)(scalar + 2 * (size_t)nv); /* nv ints: the point of each vertex */
  file_order(src0, nv, src, (int*)(bytes + 8));
  (void)cm_data_vertex_pressure(m, d, body, pressure, penetration, NULL, 0); /* body checked */

  vtu_begin(f, d->time, nv, nf);

  /* point data, in the input's vertex order: the model's vertex i is point src[i] */
  fputs("      <PointData Scalars=\"pressure\">\n", f);
  for (int i = 0; i < nv; i++) {
    CM_ASSERT(src[i] >= 0 && src[i] < nv);
    put_u64(bytes + 8 + 8 * (size_t)src[i], cm_double_bits(pressure[i]));
  }
  put_array(f, "type=\"Float64\" Name=\"pressure\"", bytes, 8 * (size_t)nv);
  for (int i = 0; i < nv; i++)
    put_u64(bytes + 8 + 8 * (size_t)src[i], cm_double_bits(penetration[i]));
  put_array(f, "type=\"Float64\" Name=\"penetration\"", bytes, 8 * (size_t)nv);
  for (int i = 0; i < nv; i++)
    put_u64(bytes + 8 + 8 * (size_t)src[i], (uint64_t)(int64_t)src0[i]);
  put_array(f, "type=\"Int64\" Name=\"input_index\"", bytes, 8 * (size_t)nv);
  const int* vnode = m->mesh_vert_node + m->geom_vertadr[g];
  int deformable = m->body_motion[body] == CM_MOTION_DEFORMABLE;
  if (deformable) {
    /* the nodes' displacement from t = 0 and the von Mises stress averaged over the tets
     * around each node, weighted by volume */
    for (int i = 0; i < nv; i++)
      for (int k = 0; k < 3; k++)
        put_u64(bytes + 8 + 24 * (size_t)src[i] + 8 * k,
                cm_double_bits(d->node_pos[3 * (size_t)vnode[i] + k] -
                               m->node_pos0[3 * (size_t)vnode[i] + k]));
    put_array(f, "type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\"", bytes,
              24 * (size_t)nv);
    if (von_mises_nodes(m, d, body, vnode, nv, pressure)) { /* pressure is written: reused */
      for (int i = 0; i < nv; i++)
        put_u64(bytes + 8 + 8 * (size_t)src[i], cm_double_bits(pressure[i]));
      put_array(f, "type=\"Float64\" Name=\"von_mises\"", bytes, 8 * (size_t)nv);
    }
  }
  fputs("      </PointData>\n", f);

  /* points: x + R v (a deformable body: its nodes) */
  for (int i = 0; i < nv; i++) {
    double w[3];
    if (deformable) {
      cm_v3_sub(w, d->node_pos + 3 * (size_t)vnode[i], x);
    } else {
      cm_quat_rotate(w, q, vert + 3 * i);
    }
    for (int k = 0; k < 3; k++)
      put_u64(bytes + 8 + 24 * (size_t)src[i] + 8 * k, cm_double_bits(x[k] + w[k]));
  }
  fputs("      <Points>\n", f);
  put_array(f, "type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"", bytes, 24 * (size_t)nv);
  fputs("      </Points>\n", f);

  /* triangles, on the points' numbering */
  fputs("      <Cells>\n", f);
  for (int i = 0; i < 3 * nf; i++)
    put_u64(bytes + 8 + 8 * (size_t)i, (uint64_t)(int64_t)src[face[i]]);
  put_array(f, "type=\"Int64\" Name=\"connectivity\"", bytes, 24 * (size_t)nf);
  for (int i = 0; i < nf; i++)
    put_u64(bytes + 8 + 8 * (size_t)i, (uint64_t)(3 * (int64_t)(i + 1)));
  put_array(f, "type=\"Int64\" Name=\"offsets\"", bytes, 8 * (size_t)nf);
  memset(bytes + 8, 5, (size_t)nf); /* VTK_TRIANGLE */
  put_array(f, "type=\"UInt8\" Name=\"types\"", bytes, (size_t)nf);
  fputs("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
}

/* write through path.tmp and rename; CM_ERR_IO with errno kept */

/* finish a file written to tmp: flush, close, and rename it over path (atomic on POSIX); on any
 * failure remove tmp and return CM_ERR_IO with errno set */
static cmStatus close_and_rename(FILE* f, const char* tmp, const char* path) {
  int bad = fflush(f) != 0 || ferror(f);
  int e = errno;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (!bad && rename(tmp, path) != 0) {
    bad = 1;
    e = errno;
  }
  if (!bad) return CM_OK;
  remove(tmp);
  errno = e ? e : EIO;
  return CM_ERR_IO;
}

static cmStatus write_vtu_file(const cmModel* m, const cmData* d, int body, const char* path,
                               double* scalar, unsigned char* bytes) {
  size_t n = strlen(path);
  char* tmp = cm_malloc(n + 5);
  if (!tmp) return CM_ERR_NOMEM;
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  cmStatus st = CM_OK;
  FILE* f = fopen(tmp, "wb");
  if (!f) {
    st = CM_ERR_IO;
  } else {
    write_vtu(f, m, d, body, scalar, bytes);
    st = close_and_rename(f, tmp, path);
  }
  cm_free(tmp);
  return st;
}

cmStatus cm_vtk_write_body(const cmModel* m, const cmData* d, int body, const char* path, char* err,
                           size_t errsz) {
  CM_ASSERT(m && d && path);
  if (body < 0 || body >= m->nbody)
    return cm_error(err, errsz, CM_ERR_ARG, "VTK file '%s': no body %d", path, body);
  if (!has_mesh(m, body))
    return cm_error(err, errsz, CM_ERR_ARG, "VTK file '%s': body '%s' has no mesh", path,
                    m->body_name[body]);
  int g = m->body_geom[body], nf = m->geom_nface[g], nv = m->geom_nvert[g];
  double* scalar = cm_malloc((3 * (size_t)nv + 1) * sizeof(double));
  unsigned char* bytes = cm_malloc(8 + 24 * (size_t)(nv > nf ? nv : nf));
  cmStatus st = CM_ERR_NOMEM;
  if (scalar && bytes) st = write_vtu_file(m, d, body, path, scalar, bytes);
  cm_free(scalar);
  cm_free(bytes);
  if (st == CM_ERR_NOMEM) return cm_error(err, errsz, st, "VTK file '%s': out of memory", path);
  if (st != CM_OK)
    return cm_error(err, errsz, st, "cannot write VTK file '%s': %s", path, strerror(errno));
  return CM_OK;
}

/* ---- the series of a cmOutput ---- */

cmStatus cm_output_vtk_init(cmOutput* out, const cmModel* m, char* err, size_t errsz) {
  out->vtk = 1;
  char* vdir = cm_output_path(out->dir, "vtk");
  if (!vdir) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  struct stat sb;
  cmStatus st = CM_OK;
  if (mkdir(vdir, 0777) != 0 && !(errno == EEXIST && stat(vdir, &sb) == 0 && S_ISDIR(sb.st_mode)))
    st = cm_error(err, errsz, CM_ERR_IO, "cannot create the VTK directory '%s': %s", vdir,
                  strerror(errno ? errno : ENOTDIR));
  cm_free(vdir);
  if (st != CM_OK) return st;
  int nv = 0;
  size_t nb = bytes_needed(m, &nv);
  out->vtk_scalar = cm_malloc(3 * (size_t)(nv ? nv : 1) * sizeof(double));
  out->vtk_bytes = cm_malloc(nb);
  if (!out->vtk_scalar || !out->vtk_bytes)
    return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  return CM_OK;
}

void cm_output_vtk_free(cmOutput* out) {
  cm_free(out->vtk_scalar);
  cm_free(out->vtk_bytes);
  cm_free(out->pvd);
  out->vtk_scalar = NULL;
  out->vtk_bytes = NULL;
  out->pvd = NULL;
}

/* 1 if `s` is a file name of comply's VTK series: NAME_STEP.vtu, NAME_volume_STEP.vtu or either
 * with .tmp, where NAME is one or more of [A-Za-z0-9._-] (what file_name below makes of a body
 * name) and STEP a step as %ld writes it (0, or digits without a leading 0) */
static int series_name(const char* s) {
  size_t n = strlen(s);
  if (n > 4 && strcmp(s + n - 4, ".tmp") == 0) n -= 4;
  if (n < 7 || strncmp(s + n - 4, ".vtu", 4) != 0) return 0;
  n -= 4;
  size_t k = n; /* the digits of STEP: s[k, n) */
  while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
    k--;
  if (k == n || (n - k > 1 && s[k] == '0') || k < 2 || s[k - 1] != '_') return 0;
  for (size_t i = 0; i + 1 < k; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

/* remove the regular file `path` (taken: freed here; NULL: out of memory) if it exists */
static cmStatus remove_old(char* path, char* err, size_t errsz) {
  cmStatus st = CM_OK;
  struct stat sb;
  if (!path) {
    st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  } else if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && remove(path) != 0 && errno != ENOENT) {
    st = cm_error(err, errsz, CM_ERR_IO, "cannot remove the previous run's '%s': %s", path,
                  strerror(errno));
  }
  cm_free(path);
  return st;
}

cmStatus cm_output_vtk_clear(const char* dir, char* err, size_t errsz) {
  cmStatus st = CM_OK;
  static const char* const top[] = {"scene.pvd", "scene.pvd.tmp"};
  for (size_t i = 0; i < sizeof top / sizeof *top && st == CM_OK; i++)
    st = remove_old(cm_output_path(dir, top[i]), err, errsz);
  char* vdir = st == CM_OK ? cm_output_path(dir, "vtk") : NULL;
  if (st == CM_OK && !vdir) st = cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  DIR* dp = vdir ? opendir(vdir) : NULL; /* no vtk/ (or not a directory): nothing to clear */
  struct dirent* e;
  while (dp && st == CM_OK && (e = readdir(dp)) != NULL) {
    if (series_name(e->d_name)) st = remove_old(cm_output_path(vdir, e->d_name), err, errsz);
  }
  if (dp) closedir(dp);
  cm_free(vdir);
  return st;
}

/* NAME[TAG]_STEP.vtu, the name's characters outside [A-Za-z0-9._-] replaced by '_' */
static char* file_name(const cmModel* m, int body, long step, const char* tag) {
  const char* name = m->body_name[body] ? m->body_name[body] : "body";
  size_t n = strlen(name);
  char* s = cm_malloc(n + 48);
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '-';
    s[i] = ok ? c : '_';
  }
  snprintf(s + n, 48, "%s_%ld.vtu", tag, step);
  return s;
}

char* cm_vtk_file_name(const cmModel* m, int body, long step) {
  return file_name(m, body, step, "");
}

char* cm_vtk_volume_file_name(const cmModel* m, int body, long step) {
  return file_name(m, body, step, "_volume");
}

/* The tetrahedra of deformable body b as a .vtu: Points its nodes (world, node order from the
 * body's first), Cells its tets (VTK_TETRA = 10), PointData displacement (m, from t = 0),
 * CellData von_mises (Pa) of each tet; CM_ERR_NOMEM or CM_ERR_IO (errno set) */
static cmStatus write_volume(const cmModel* m, const cmData* d, int b, const char* path) {
  int n0 = m->body_nodeadr[b], nn = m->body_nnode[b], t0 = m->body_tetadr[b], nt = m->body_ntet[b];
  size_t cap = 8 + 32 * (size_t)(nn > nt ? nn : nt);
  unsigned char* bytes = cm_malloc(cap);
  size_t np = strlen(path);
  char* tmp = cm_malloc(np + 5);
  if (!bytes || !tmp) {
    cm_free(bytes);
    cm_free(tmp);
    return CM_ERR_NOMEM;
  }
  memcpy(tmp, path, np);
  memcpy(tmp + np, ".tmp", 5);
  FILE* f = fopen(tmp, "wb");
  cmStatus st = CM_ERR_IO;
  if (f) {
    vtu_begin(f, d->time, nn, nt);
    fputs("      <PointData Vectors=\"displacement\">\n", f);
    for (int i = 0; i < nn; i++)
      for (int k = 0; k < 3; k++)
        put_u64(bytes + 8 + 24 * (size_t)i + 8 * k,
                cm_double_bits(d->node_pos[3 * (size_t)(n0 + i) + k] -
                               m->node_pos0[3 * (size_t)(n0 + i) + k]));
    put_array(f, "type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\"", bytes,
              24 * (size_t)nn);
    fputs("      </PointData>\n      <CellData Scalars=\"von_mises\">\n", f);
    cmFemMaterial mat;
    cm_body_fem_material(m, b, &mat);
    for (int t = 0; t < nt; t++) {
      double x[12];
      for (int a = 0; a < 4; a++)
        cm_v3_copy(x + 3 * a, d->node_pos + 3 * (size_t)m->tet_node[4 * (size_t)(t0 + t) + a]);
      double vm = cm_fem_tet_von_mises(&mat, m->tet_dminv + 9 * (size_t)(t0 + t), x, NULL);
      put_u64(bytes + 8 + 8 * (size_t)t, cm_double_bits(isfinite(vm) ? vm : 0));
    }
    put_array(f, "type=\"Float64\" Name=\"von_mises\"", bytes, 8 * (size_t)nt);
    fputs("      </CellData>\n      <Points>\n", f);
    for (int i = 0; i < nn; i++)
      for (int k = 0; k < 3; k++)
        put_u64(bytes + 8 + 24 * (size_t)i + 8 * k,
                cm_double_bits(d->node_pos[3 * (size_t)(n0 + i) + k]));
    put_array(f, "type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"", bytes,
              24 * (size_t)nn);
    fputs("      </Points>\n      <Cells>\n", f);
    for (int t = 0; t < nt; t++)
      for (int a = 0; a < 4; a++)
        put_u64(bytes + 8 + 32 * (size_t)t + 8 * a,
                (uint64_t)(int64_t)(m->tet_node[4 * (size_t)(t0 + t) + a] - n0));
    put_array(f, "type=\"Int64\" Name=\"connectivity\"", bytes, 32 * (size_t)nt);
    for (int t = 0; t < nt; t++)
      put_u64(bytes + 8 + 8 * (size_t)t, (uint64_t)(4 * (int64_t)(t + 1)));
    put_array(f, "type=\"Int64\" Name=\"offsets\"", bytes, 8 * (size_t)nt);
    memset(bytes + 8, 10, (size_t)nt); /* VTK_TETRA */
    put_array(f, "type=\"UInt8\" Name=\"types\"", bytes, (size_t)nt);
    fputs("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
    st = close_and_rename(f, tmp, path);
  }
  cm_free(bytes);
  cm_free(tmp);
  return st;
}

/* one DataSet line of the collection (name: a new string, freed here) */
static cmStatus pvd_line(cmOutput* out, char* name, double time, int part) {
  if (!name) return CM_ERR_NOMEM;
  char line[128];
  int k =
      snprintf(line, sizeof line,
               "    <DataSet timestep=\"%.17g\" group=\"\" part=\"%d\" file=\"vtk/", time, part);
  size_t need = (size_t)k + strlen(name) + 5;
  if (out->pvd_len + need + 1 > out->pvd_cap) {
    size_t cap = out->pvd_cap ? out->pvd_cap : 4096;
    while (cap < out->pvd_len + need + 1)
      cap *= 2;
    char* p = cm_realloc(out->pvd, cap);
    if (!p) {
      cm_free(name);
      return CM_ERR_NOMEM;
    }
    out->pvd = p;
    out->pvd_cap = cap;
  }
  out->pvd_len += (size_t)sprintf(out->pvd + out->pvd_len, "%s%s\"/>\n", line, name);
  cm_free(name);
  return CM_OK;
}

cmStatus cm_output_pvd_add(cmOutput* out, const cmModel* m, long step, double time) {
  cmStatus st = CM_OK;
  for (int b = 0; b < m->nbody && st == CM_OK; b++)
    if (has_mesh(m, b)) st = pvd_line(out, cm_vtk_file_name(m, b, step), time, b);
  /* the deformable bodies' tetrahedra, as parts nbody + b */
  for (int b = 0; b < m->nbody && st == CM_OK; b++)
    if (m->body_motion[b] == CM_MOTION_DEFORMABLE)
      st = pvd_line(out, cm_vtk_volume_file_name(m, b, step), time, m->nbody + b);
  return st;
}

cmStatus cm_output_pvd_write(cmOutput* out) {
  char* path = cm_output_path(out->dir, "scene.pvd");
  char* tmp = cm_output_path(out->dir, "scene.pvd.tmp");
  cmStatus st = CM_OK;
  FILE* f = path && tmp ? fopen(tmp, "w") : NULL;
  if (!path || !tmp) {
    st = CM_ERR_NOMEM;
  } else if (!f) {
    st = CM_ERR_IO;
  } else {
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          f);
    if (out->pvd_len) fwrite(out->pvd, 1, out->pvd_len, f);
    fputs("  </Collection>\n</VTKFile>\n", f);
    st = close_and_rename(f, tmp, path);
  }
  cm_free(path);
  cm_free(tmp);
  return st;
}

cmStatus cm_output_vtk_frame(cmOutput* out, const cmModel* m, const cmData* d) {
  char* vdir = cm_output_path(out->dir, "vtk");
  if (!vdir) return CM_ERR_NOMEM;
  cmStatus st = CM_OK;
  for (int b = 0; b < m->nbody && st == CM_OK; b++) {
    if (!has_mesh(m, b)) continue;
    char* name = cm_vtk_file_name(m, b, d->step);
    char* path = name ? cm_output_path(vdir, name) : NULL;
    st = path ? write_vtu_file(m, d, b, path, out->vtk_scalar, out->vtk_bytes) : CM_ERR_NOMEM;
    cm_free(name);
    cm_free(path);
  }
  for (int b = 0; b < m->nbody && st == CM_OK; b++) {
    if (m->body_motion[b] != CM_MOTION_DEFORMABLE) continue;
    char* name = cm_vtk_volume_file_name(m, b, d->step);
    char* path = name ? cm_output_path(vdir, name) : NULL;
    st = path ? write_volume(m, d, b, path) : CM_ERR_NOMEM;
    cm_free(name);
    cm_free(path);
  }
  cm_free(vdir);
  if (st == CM_OK) st = cm_output_pvd_add(out, m, d->step, d->time);
  if (st == CM_OK) st = cm_output_pvd_write(out);
  return st;
}
