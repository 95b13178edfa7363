/* Private parts of the output writers (out_csv.c, out_summary.c), shared with their unit test.
 * Not installed. */
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
};

/* "dir/name" in a new buffer (cm_malloc); NULL on no memory */
char* cm_output_path(const char* dir, const char* name);

/* JSON writers: a string with quotes, backslash and control characters escaped and invalid
 * UTF-8 replaced by U+FFFD ("null" for NULL); a number with %.17g ("null" if not finite) */
void cm_json_string(FILE* f, const char* s);
void cm_json_number(FILE* f, double x);

#endif
