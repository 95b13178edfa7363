/* Private parts of the output writers (out_csv.c, out_summary.c, out_vtk.c, out_resume.c),
 * shared with their unit test. Not installed. */
#ifndef CM_IO_OUT_INTERNAL_H
#define CM_IO_OUT_INTERNAL_H

#include <stdio.h>

#include "comply/data.h"
#include "comply/io.h"

/* one contacts.csv row: the contacts of one body pair in one step */
typedef struct cmPairSum {
  int body[2];            /* body_a < body_b (body indices) */
  int points;             /* contact points */
  double force[3];        /* total contact force on body_a (normal + friction), world, N */
  double area;            /* summed contact area, m^2 */
  double max_pressure;    /* max force/area over points with area > 0, Pa (0 if none) */
  double max_penetration; /* max(-dist) over the points, m */
} cmPairSum;

/* sort key of one contact: its unordered body pair and its index */
typedef struct cmPairKey {
  int a, b; /* a <= b */
  int index;
} cmPairKey;

/* Aggregate n contacts by unordered body pair. `keys` and `sums` have room for n entries each
 * (scratch owned by the caller). Rows come out in ascending (body_a, body_b) order and the
 * contacts of a pair are summed in their order in `c`, so the result does not depend on the
 * sort. Returns the number of pairs. */
int cm_contacts_aggregate(const cmContact* c, int n, cmPairKey* keys, cmPairSum* sums);

struct cmOutput {
  char* dir;           /* output directory as given */
  char* bodies_path;   /* DIR/bodies.csv */
  char* contacts_path; /* DIR/contacts.csv */
  FILE* bodies;
  FILE* contacts;
  int cap; /* capacity of keys and sums (grows only) */
  cmPairKey* keys;
  cmPairSum* sums;

  /* VTK series (m->opt.vtk), out_vtk.c */
  int vtk;                  /* 1: write vtk/NAME_STEP.vtu and scene.pvd every frame */
  double* vtk_scalar;       /* pressure and penetration of one body (2 x max vertices) */
  unsigned char* vtk_bytes; /* one encoded data array (8 + 24 x max(vertices, faces) bytes) */
  char* pvd;                /* the DataSet lines of scene.pvd so far */
  size_t pvd_len, pvd_cap;
};

/* the output directory, the cmOutput with its paths and, with m->opt.vtk, DIR/vtk and the VTK
 * scratch; no file opened yet (out_csv.c) */
cmStatus cm_output_init(const cmModel* m, const char* dir, cmOutput** out, char* err, size_t errsz);
/* the header line of bodies.csv and contacts.csv, newline included */
extern const char CM_BODIES_HEADER[];
extern const char CM_CONTACTS_HEADER[];

/* VTK (out_vtk.c): set up (directory, scratch), free, the file name "NAME_STEP.vtu" of a body
 * and step (NAME with every character outside [A-Za-z0-9._-] replaced by '_') in a new buffer,
 * add the DataSet lines of one frame to the pvd buffer, rewrite scene.pvd atomically, and write
 * one frame (every mesh body's .vtu, then the pvd) */
cmStatus cm_output_vtk_init(cmOutput* out, const cmModel* m, char* err, size_t errsz);
/* Remove an earlier run's VTK series from `dir`: scene.pvd and scene.pvd.tmp (regular files),
 * and in dir/vtk every regular file named as comply names its series (NAME_STEP.vtu,
 * NAME_volume_STEP.vtu, and either with .tmp; NAME of [A-Za-z0-9._-], STEP decimal digits).
 * Anything else (other files, directories, symbolic links) is left alone. CM_ERR_IO naming the
 * file when one cannot be removed. */
cmStatus cm_output_vtk_clear(const char* dir, char* err, size_t errsz);
void cm_output_vtk_free(cmOutput* out);
char* cm_vtk_file_name(const cmModel* m, int body, long step);
/* a deformable body's tetrahedra: NAME_volume_STEP.vtu (new string, cm_free) */
char* cm_vtk_volume_file_name(const cmModel* m, int body, long step);
cmStatus cm_output_pvd_add(cmOutput* out, const cmModel* m, long step, double time);
cmStatus cm_output_pvd_write(cmOutput* out);
cmStatus cm_output_vtk_frame(cmOutput* out, const cmModel* m, const cmData* d);

/* "dir/name" in a new buffer (cm_malloc); NULL on no memory */
char* cm_output_path(const char* dir, const char* name);

/* JSON writers: a string with quotes, backslash and control characters escaped and invalid
 * UTF-8 replaced by U+FFFD ("null" for NULL); a number with %.17g ("null" if not finite) */
void cm_json_string(FILE* f, const char* s);
void cm_json_number(FILE* f, double x);

#endif
