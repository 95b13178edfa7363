/* comply: output files (SPEC 9): bodies.csv, contacts.csv, summary.json.
 *
 * Numbers are written with %.17g so that they read back exactly. Every frame is flushed, so an
 * interrupted run leaves every file complete up to its last written step. */
#ifndef COMPLY_IO_H
#define COMPLY_IO_H

#include "comply/core.h"
#include "comply/data.h"
#include "comply/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmOutput cmOutput;

/* Create `dir` (and parents) if needed and open bodies.csv and contacts.csv with their headers.
 * Errors name the path. */
cmStatus cm_output_open(const cmModel* m, const char* dir, cmOutput** out, char* err,
                        size_t errsz);
/* append the current state (one row per body) and contacts (one row per body pair in contact) */
cmStatus cm_output_frame(cmOutput* out, const cmModel* m, const cmData* d);

/* run facts for summary.json */
typedef struct cmRunInfo {
  double wall_time;     /* s */
  int interrupted;      /* 1 if stopped by a signal */
  int failed;           /* 1 if the simulation failed (non-finite state) */
  const char* message;  /* failure diagnosis or NULL */
} cmRunInfo;
/* write summary.json atomically (temporary file + rename). Safe to call more than once. */
cmStatus cm_output_summary(cmOutput* out, const cmModel* m, const cmData* d,
                           const cmRunInfo* info);
/* close the files (does not write the summary) */
void cm_output_close(cmOutput* out);

#ifdef __cplusplus
}
#endif
#endif
