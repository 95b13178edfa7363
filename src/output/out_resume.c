/* Output files, restart part: cm_output_resume continues the files of an earlier run.
 *
 * A restarted run (comply run --restart) continues from a checkpoint at step S. The earlier run
 * may have written frames after S before it stopped (it was killed after a later frame, or its
 * last frame was the extra one written on SIGINT). So both CSV files are scanned row by row and
 * cut after the last row whose step is <= last_step (the caller passes S when S is a regular
 * frame step of the uninterrupted run, else S - 1, so the files hold exactly what an
 * uninterrupted run holds at that point); an incomplete last line is cut as well, and a file
 * whose steps go back is refused (the rows of one run never do). The files are then reopened
 * for appending, and the rows the restarted run appends make them byte for byte the files of an
 * uninterrupted run. With VTK, scene.pvd is rebuilt from the steps left in
 * bodies.csv (time = step x timestep, exactly as cm_step computes it) and the .vtu files of the
 * frames cut off are removed. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "output/output.h"

/* a growing list of distinct steps */
typedef struct StepList {
  long* step;
  size_t n, cap;
} StepList;

static int steps_add(StepList* l, long s) {
  if (!l || (l->n && l->step[l->n - 1] == s)) return 0;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    long* p = cm_realloc(l->step, cap * sizeof *p);
    if (!p) return -1;
    l->step = p;
    l->cap = cap;
  }
  l->step[l->n++] = s;
  return 0;
}

/* Scan a CSV written by comply: check the header, find the byte offset *cut just after the last
 * complete row with step <= last, and list the distinct steps kept and cut off (either list may
 * be NULL). *cut is 0 for a file without a complete header line. With per_step > 0, every step
 * kept must have that many rows (bodies.csv: one per body of the scene). */
static cmStatus scan(const char* path, const char* header, long last, long per_step, long* cut,
                     StepList* kept, StepList* dropped, char* err, size_t errsz) {
  *cut = 0;
  FILE* f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return CM_OK;
    return cm_error(err, errsz, CM_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  }
  size_t hlen = strlen(header); /* newline included */
  unsigned char buf[65536];
  size_t got, hi = 0;
  long pos = 0, line = 1, step = 0, prev = 0, nrow = 0; /* nrow: rows of step prev so far */
  int in_header = 1, ndig = 0, have_step = 0, quoted = 0;
  cmStatus st = CM_OK;
  while (st == CM_OK && (got = fread(buf, 1, sizeof buf, f)) > 0) {
    for (size_t i = 0; i < got && st == CM_OK; i++, pos++) {
      unsigned char c = buf[i];
      if (in_header) {
        if (hi < hlen && (unsigned char)header[hi] == c) {
          hi++;
        } else {
          st = cm_error(err, errsz, CM_ERR_PARSE,
                        "'%s' line 1: not the header of a comply output file (expected %.*s)", path,
                        (int)hlen - 1, header);
          break;
        }
        if (c == '\n') {
          in_header = 0;
          *cut = pos + 1;
          line = 2;
        }
        continue;
      }
      /* a row: digits, a comma, the rest up to the newline */
      if (!have_step) {
        if (c >= '0' && c <= '9' && ndig < 18) {
          step = 10 * step + (c - '0');
          ndig++;
          continue;
        }
        if (c != ',' || ndig == 0) {
          st = cm_error(err, errsz, CM_ERR_PARSE,
                        "'%s' line %ld: the row does not start with a step number", path, line);
          break;
        }
        have_step = 1;
      }
      /* a quoted field (RFC 4180: a body name with a comma, a quote or a line break) runs to its
       * closing quote, a doubled quote toggling twice; a newline inside it ends no row (until
       * 2026-12-08 a name with a line break made the run's files unresumable) */
      if (c == '"') quoted = !quoted;
      if (c != '\n' || quoted) continue;
      /* comply writes the steps in order: a step that goes back (a file edited or pasted
       * together) would leave rows after last_step before the cut */
      if (step < prev) {
        st = cm_error(err, errsz, CM_ERR_PARSE,
                      "'%s' line %ld: step %ld after step %ld: not the rows of one comply run",
                      path, line, step, prev);
        break;
      }
      if (per_step > 0 && line > 2 && step != prev && prev <= last && nrow != per_step) {
        st = cm_error(err, errsz, CM_ERR_ARG,
                      "'%s' line %ld: step %ld has %ld rows, but this scene has %ld bod%s: not "
                      "the outputs of this scene's run",
                      path, line - 1, prev, nrow, per_step, per_step == 1 ? "y" : "ies");
        break;
      }
      nrow = line > 2 && step == prev ? nrow + 1 : 1;
      prev = step;
      if (step <= last) {
        *cut = pos + 1;
        if (steps_add(kept, step) != 0) st = CM_ERR_NOMEM;
      } else if (steps_add(dropped, step) != 0) {
        st = CM_ERR_NOMEM;
      }
      line++;
      step = 0;
      ndig = 0;
      have_step = 0;
    }
  }
  if (st == CM_OK && ferror(f))
    st = cm_error(err, errsz, CM_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  if (st == CM_OK && per_step > 0 && line > 2 && prev <= last && nrow != per_step)
    st = cm_error(err, errsz, CM_ERR_ARG,
                  "'%s' line %ld: step %ld has %ld rows, but this scene has %ld bod%s: not the "
                  "outputs of this scene's run",
                  path, line - 1, prev, nrow, per_step, per_step == 1 ? "y" : "ies");
  fclose(f);
  if (st == CM_ERR_NOMEM) return cm_error(err, errsz, st, "out of memory reading '%s'", path);
  return st;
}

/* cut the file at `cut` (writing the header if there is none) and open it for appending */
static cmStatus reopen(const char* path, const char* header, long cut, FILE** out, char* err,
                       size_t errsz) {
  FILE* f = NULL;
  if (cut == 0) {
    f = fopen(path, "w");
    if (f && (fputs(header, f) == EOF || fflush(f) != 0)) {
      fclose(f);
      return cm_error(err, errsz, CM_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
  } else {
    if (truncate(path, (off_t)cut) != 0)
      return cm_error(err, errsz, CM_ERR_IO, "cannot truncate '%s': %s", path, strerror(errno));
    f = fopen(path, "a");
  }
  if (!f)
    return cm_error(err, errsz, CM_ERR_IO, "cannot open '%s' for appending: %s", path,
                    strerror(errno));
  *out = f;
  return CM_OK;
}

/* remove the temporary files a killed writer left in dir (a second SIGINT ends the process at
 * once, possibly between writing NAME.tmp and renaming it): in the run's folder, the .tmp of
 * the files comply writes there (summary.json, scene.pvd and the checkpoint of --checkpoint-
 * every); in vtk/ (vtk = 1), every NAME.vtu.tmp. Other .tmp files are the user's and stay (every
 * entry ending in .tmp was removed until 2026-12-07). */
static void remove_leftovers(const char* dir, int vtk) {
  static const char* const own[] = {"summary.json.tmp", "scene.pvd.tmp", "checkpoint.bin.tmp"};
  DIR* dp = opendir(dir);
  if (!dp) return;
  struct dirent* e;
  while ((e = readdir(dp)) != NULL) {
    size_t n = strlen(e->d_name);
    int ours = 0;
    if (vtk)
      ours = n > 8 && strcmp(e->d_name + n - 8, ".vtu.tmp") == 0;
    else
      for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        ours |= strcmp(e->d_name, own[i]) == 0;
    if (!ours) continue;
    char* path = cm_output_path(dir, e->d_name);
    if (path) remove(path);
    cm_free(path);
  }
  closedir(dp);
}

/* pvd entries of the kept frames; the .vtu files of the dropped ones removed */
static cmStatus resume_vtk(cmOutput* o, const cmModel* m, const StepList* kept,
                           const StepList* dropped, char* err, size_t errsz) {
  for (size_t i = 0; i < kept->n; i++)
    if (cm_output_pvd_add(o, m, kept->step[i], m->opt.timestep * (double)kept->step[i]) != CM_OK)
      return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  char* vdir = cm_output_path(o->dir, "vtk");
  if (!vdir) return cm_error(err, errsz, CM_ERR_NOMEM, "out of memory");
  remove_leftovers(vdir, 1);
  for (size_t i = 0; i < dropped->n; i++) {
    for (int b = 0; b < m->nbody; b++) {
      for (int vol = 0; vol < 2; vol++) {
        char* name = vol ? cm_vtk_volume_file_name(m, b, dropped->step[i])
                         : cm_vtk_file_name(m, b, dropped->step[i]);
        char* path = name ? cm_output_path(vdir, name) : NULL;
        if (path) remove(path); /* a plane body, no tets or a missing frame: nothing there */
        cm_free(name);
        cm_free(path);
      }
    }
  }
  cm_free(vdir);
  if (cm_output_pvd_write(o) != CM_OK)
    return cm_error(err, errsz, CM_ERR_IO, "cannot write '%s/scene.pvd': %s", o->dir,
                    strerror(errno));
  return CM_OK;
}

cmStatus cm_output_resume(const cmModel* m, const char* dir, long last_step, cmOutput** out,
                          char* err, size_t errsz) {
  CM_ASSERT(out);
  *out = NULL;
  if (last_step < 0) /* (a checkpoint's step is >= 0; -1 cut every row, the initial one too) */
    return cm_error(err, errsz, CM_ERR_ARG,
                    "%s: cm_output_resume: last_step must be >= 0 (got %ld)", dir ? dir : "",
                    last_step);
  cmOutput* o = NULL;
  cmStatus st = cm_output_init(m, dir, &o, err, errsz);
  if (st != CM_OK) return st;
  StepList kept = {NULL, 0, 0}, dropped = {NULL, 0, 0};
  long cut_b = 0, cut_c = 0;
  st = scan(o->bodies_path, CM_BODIES_HEADER, last_step, m->nbody, &cut_b, &kept, &dropped, err,
            errsz);
  /* the frames kept must reach the checkpoint's: the last one written at or before last_step
   * (every output.every steps, or last_step itself); a folder of a shorter run, or of a run
   * of another scene, would get the restarted run's rows after a gap (exit 0) */
  long every = m->opt.output_every > 0 ? m->opt.output_every : 1;
  long want = last_step - last_step % every, got = kept.n ? kept.step[kept.n - 1] : -1;
  if (st == CM_OK && cut_b > 0 && got != want && got != last_step)
    st = cm_error(err, errsz, CM_ERR_ARG,
                  "'%s' holds frames up to step %ld, but the run to continue wrote its frames up "
                  "to step %ld (its rows are kept up to step %ld): not the outputs of this "
                  "checkpoint's run; restart into that run's folder, or into an empty one",
                  o->bodies_path, got, want, last_step);
  if (st == CM_OK)
    st = scan(o->contacts_path, CM_CONTACTS_HEADER, last_step, 0, &cut_c, NULL, NULL, err,
              errsz);
  /* the leftovers removed once the folder is known to be the run's (a refused restart leaves
   * the folder as it was) */
  if (st == CM_OK) remove_leftovers(o->dir, 0);
  /* a folder without frames: an earlier run's VTK series there is not this run's (its frames
   * would sit in the new scene.pvd's folder beside the restarted run's), as for a new run */
  if (st == CM_OK && kept.n == 0) st = cm_output_vtk_clear(o->dir, err, errsz);
  if (st == CM_OK) st = reopen(o->bodies_path, CM_BODIES_HEADER, cut_b, &o->bodies, err, errsz);
  if (st == CM_OK)
    st = reopen(o->contacts_path, CM_CONTACTS_HEADER, cut_c, &o->contacts, err, errsz);
  if (st == CM_OK && o->vtk) st = resume_vtk(o, m, &kept, &dropped, err, errsz);
  cm_free(kept.step);
  cm_free(dropped.step);
  if (st != CM_OK) {
    cm_output_close(o);
    return st;
  }
  *out = o;
  return CM_OK;
}
