/* Internal helpers of the mesh file readers (mesh_load.c, mesh_obj.c, mesh_stl.c, mesh_ply.c,
 * the VTK readers and the tet mesh readers, tetmesh_*.c): whole-file reading, growable mesh and
 * tet builders, text tokens and numbers. Not installed. */
#ifndef CM_MESH_IO_H
#define CM_MESH_IO_H

#include <stddef.h>

#include "comply/mesh.h"

/* largest mesh file read, bytes: 256 MiB, a binary STL of 5.4 million triangles (the compiled
 * model needs some 400 bytes per face more; docs/scene-format.md) */
#define CM_MESH_FILE_MAX ((size_t)1 << 28)

/* the whole file in a new buffer with buf[len] = 0 (free with cm_free): cm_file_read with the
 * mesh readers' limit (CM_MESH_FILE_MAX bytes at most), regular files only (a FIFO, a device
 * or a directory is refused before anything is read), and their messages */
cmStatus cm_io_read_file(const char* path, char** buf, size_t* len, char* err, size_t errsz);

/* growable vertex and triangle arrays; zero-initialise, then add, then finish or free */
typedef struct cmMeshBuilder {
  double* vert;
  int* face;
  size_t nvert, capv, nface, capf;
} cmMeshBuilder;
/* CM_OK, CM_ERR_NOMEM, or CM_ERR_LIMIT beyond CM_MESH_MAX_ELEMENTS */
cmStatus cm_mb_add_vert(cmMeshBuilder* b, const double p[3]);
cmStatus cm_mb_add_face(cmMeshBuilder* b, int v0, int v1, int v2);
/* the mesh adopting the arrays (the builder is emptied); NULL on no memory */
cmMesh* cm_mb_finish(cmMeshBuilder* b);
void cm_mb_free(cmMeshBuilder* b);

/* the next line of a text buffer [*pos, end): NUL-terminated in place (trailing '\r' removed),
 * *pos advanced past its '\n'; NULL at the end */
char* cm_io_line(char** pos, char* end);
/* the next whitespace-separated token of a NUL-terminated line, NUL-terminated in place and
 * *p advanced; NULL if none */
char* cm_io_token(char** p);
/* the next token of buf[*pos, len) separated by whitespace (space, tab, CR, LF, VT, FF): at most
 * tsz - 1 of its characters copied into tok, its offset into *at, *pos advanced past it, the
 * newlines skipped before it added to *lines (may be NULL). 1, 0 at the end of the buffer, -1 if
 * the token is longer (tok then holds its start) */
int cm_io_next_token(const char* buf, size_t len, size_t* pos, char* tok, size_t tsz, size_t* at,
                     int* lines);
/* 3 if the text starts with a UTF-8 byte order mark (EF BB BF), which the text readers skip as
 * the scene reader does; else 0 */
size_t cm_io_bom(const char* buf, size_t len);
/* 1 if the token is a hexadecimal number (0x..., with an optional sign): the text readers
 * accept decimal numbers only, as the scene reader does, and say so */
int cm_io_is_hex(const char* tok);
/* whole-token numbers: 1 on success, 0 if the token is not entirely a number (or out of range);
 * cm_io_parse_double refuses hexadecimal (strtod would read it) */
int cm_io_parse_double(const char* tok, double* out);
int cm_io_parse_llong(const char* tok, long long* out);
/* case-insensitive equality of NUL-terminated strings */
int cm_io_ieq(const char* a, const char* b);
/* the extension of the file name in path (after the last '/' or '\\', with its dot), NULL if
 * none */
const char* cm_io_extension(const char* path);
/* 1-based line number of byte offset `off` of a text buffer */
int cm_io_line_of(const char* buf, size_t off);

/* build a mesh from ntri triangles given as 9 raw coordinates each, merging equal vertices
 * (compared by value: bitwise equal, except that -0 and +0 merge) and multiplying by scale */
cmStatus cm_io_mesh_from_soup(const double* tri, size_t ntri, double scale, cmMesh** out);

/* what cm_io_vtk_cells found wrong: the array (0: cell ends or counts, 1: connectivity), the
 * index of the bad value in it, and the cause (without the file or position, which the caller
 * adds) */
typedef struct cmVtkCellError {
  int array;
  size_t index;
  char msg[200];
} cmVtkCellError;
/* Add the triangles of VTK polygons (strip = 0: fan-triangulated) or triangle strips (strip = 1)
 * to the builder: cell i is conn[ends[i-1] .. ends[i]), cell 0 starting at `first`; every value
 * is checked (integers, ends non-decreasing up to nconn and the last equal to it, at least 3
 * points per cell, indices in 0..npts-1). CM_OK, CM_ERR_PARSE, CM_ERR_NOMEM or CM_ERR_LIMIT, with
 * *e filled on error. (mesh_vtk_cells.c) */
cmStatus cm_io_vtk_cells(cmMeshBuilder* b, const double* ends, size_t ncell, double first,
                         const double* conn, size_t nconn, long long npts, int strip,
                         cmVtkCellError* e);

/* Tet cells while a volume mesh is read (tetmesh_load.c): the tets kept and, per cell type of
 * the file, how many cells of other types were skipped. Zero-initialise, add, then finish or
 * free. */
#define CM_TB_TYPES 16
typedef struct cmTetBuilder {
  int* tet;
  size_t ntet, cap;
  int ntype;                    /* distinct skipped types counted in type[] */
  int type[CM_TB_TYPES];        /* the file's type codes */
  long long count[CM_TB_TYPES]; /* cells skipped of each */
  long long other;              /* cells of further types */
} cmTetBuilder;
/* CM_OK, CM_ERR_NOMEM, or CM_ERR_LIMIT beyond CM_MESH_MAX_ELEMENTS tets */
cmStatus cm_tb_add(cmTetBuilder* b, const int v[4]);
void cm_tb_skip(cmTetBuilder* b, int type);
void cm_tb_free(cmTetBuilder* b);
/* The tet mesh of nnode nodes (3 nnode coordinates, already scaled and finite) and the builder's
 * tets, negatively oriented ones flipped (nodes 1 and 2 swapped); the builder is emptied. On
 * success err holds the report of the skipped cells ("" if none), each type named by
 * type_name (NULL: no name). CM_OK or CM_ERR_NOMEM (with the message). */
cmStatus cm_tb_finish(cmTetBuilder* b, const char* path, const double* node, size_t nnode,
                      const char* (*type_name)(int), cmTetMesh** out, char* err, size_t errsz);

/* Add the tetrahedra of VTK cells to the builder: cell i is conn[ends[i-1] .. ends[i]) (cell 0
 * starting at `first`) of VTK type types[i]; type 10 (VTK_TETRA) must have 4 points and is
 * kept, other types are counted and skipped. Every value is checked as by cm_io_vtk_cells;
 * e->array is 2 for a bad type. (mesh_vtk_cells.c) */
cmStatus cm_io_vtk_tets(cmTetBuilder* b, const double* ends, size_t ncell, double first,
                        const double* conn, size_t nconn, const double* types, long long npts,
                        cmVtkCellError* e);
/* the name of a VTK cell type ("triangle", ...), NULL if not a common one */
const char* cm_io_vtk_cell_name(int type);

/* the format readers; `buf` is the NUL-terminated, writable file content */
cmStatus cm_mesh_read_obj(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz);
cmStatus cm_mesh_read_stl(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz);
cmStatus cm_mesh_read_ply(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz);
/* VTK XML PolyData (mesh_vtp.c) and legacy VTK POLYDATA (mesh_vtk.c) */
cmStatus cm_mesh_read_vtp(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz);
cmStatus cm_mesh_read_vtk(const char* path, char* buf, size_t len, double scale, cmMesh** out,
                          char* err, size_t errsz);

/* tetrahedral volume meshes: gmsh .msh (tetmesh_msh.c), VTK XML UnstructuredGrid (mesh_vtp.c),
 * legacy VTK UNSTRUCTURED_GRID (mesh_vtk.c) */
cmStatus cm_tetmesh_read_msh(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz);
cmStatus cm_tetmesh_read_vtu(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz);
cmStatus cm_tetmesh_read_vtk(const char* path, char* buf, size_t len, double scale, cmTetMesh** out,
                             char* err, size_t errsz);

#endif
