/* Output files, summary part (SPEC 9): summary.json.
 *
 *   {"scene": NAME, "comply_version": "0.1.0", "steps": N, "time": t, "timestep": h,
 *    "wall_time": s, "interrupted": bool, "failed": bool, "message": string | null,
 *    "bodies": nbody, "kinetic_energy": J, "potential_energy": J,
 *    "warnings": {KIND: count, ...},
 *    "solver": {"solves": n, "total_iterations": n, "mean_iterations": x, "not_converged": n,
 *               "max_iterations": n, "max_residual": r},
 *    "energy": {"monitor": bool, "energy": J, "lowest": J, "scale": J, "max_growth": x,
 *               "first_growth_step": n | null, "first_growth_body": name | null},
 *    "depth": {"max_ratio": x, "pair": [name, name] | null, "first_deep_step": n | null,
 *              "first_tunnel_step": n | null [, "tunnel_pair": [name, name], "tunnel_speed": m/s,
 *              "tunnel_thickness": m, "largest_safe_step": s]},
 *    "timers": {STAGE: s, ...}, "files": ["bodies.csv", "contacts.csv", "summary.json"]}
 * ("files" also lists "scene.pvd" and "vtk/" when the VTK series is written)
 *
 * The file is replaced atomically: written to DIR/summary.json.tmp, flushed and fsync'ed, then
 * renamed over DIR/summary.json, so a reader sees either the previous summary or the new one,
 * never a partial file. It may be written any number of times during a run. It is meant to be
 * called from the main loop after a signal handler has set a flag (never from the handler: stdio
 * is not async-signal-safe).
 *
 * Strings are escaped for JSON (quote, backslash, control characters as \uXXXX or the short
 * forms), and byte sequences that are not valid UTF-8 are replaced by U+FFFD so the file always
 * parses. Numbers use %.17g; a non-finite number is written as null (JSON has no NaN). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "output/output.h"

/* length of the valid UTF-8 sequence at s (1..4), or 0 if invalid (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF) */
static int utf8_len(const unsigned char* s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  int n;
  unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s[1] < lo || s[1] > hi) return 0;
  for (int i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return n;
}

void cm_json_string(FILE* f, const char* str) {
  if (!str) {
    fputs("null", f);
    return;
  }
  const unsigned char* s = (const unsigned char*)str;
  fputc('"', f);
  while (*s) {
    unsigned c = *s;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc((int)c, f);
      s++;
    } else if (c < 0x20) {
      switch (c) {
      case '\n':
        fputs("\\n", f);
        break;
      case '\r':
        fputs("\\r", f);
        break;
      case '\t':
        fputs("\\t", f);
        break;
      case '\b':
        fputs("\\b", f);
        break;
      case '\f':
        fputs("\\f", f);
        break;
      default:
        fprintf(f, "\\u%04x", c);
        break;
      }
      s++;
    } else if (c < 0x80) {
      fputc((int)c, f);
      s++;
    } else {
      int n = utf8_len(s);
      if (n == 0) {
        fputs("\\ufffd", f); /* replace one invalid byte */
        s++;
      } else {
        fwrite(s, 1, (size_t)n, f);
        s += n;
      }
    }
  }
  fputc('"', f);
}

void cm_json_number(FILE* f, double x) {
  if (isfinite(x))
    fprintf(f, "%.17g", x);
  else
    fputs("null", f);
}

/* "  \"key\": " */
static void key(FILE* f, int indent, const char* k) {
  fprintf(f, "%*s", indent, "");
  cm_json_string(f, k);
  fputs(": ", f);
}

/* ["A", "B"] for bodies a and b, 1; nothing written and 0 if either is not a body */
static int put_pair(FILE* f, const cmModel* m, int a, int b) {
  if (a < 0 || a >= m->nbody || b < 0 || b >= m->nbody) return 0;
  fputs("[", f);
  cm_json_string(f, m->body_name[a]);
  fputs(", ", f);
  cm_json_string(f, m->body_name[b]);
  fputs("]", f);
  return 1;
}

/* a step number, or null for 0 (none), then `tail` */
static void put_step(FILE* f, long step, const char* tail) {
  if (step > 0)
    fprintf(f, "%ld%s", step, tail);
  else
    fprintf(f, "null%s", tail);
}

static void write_summary(FILE* f, const cmModel* m, const cmData* d, const cmRunInfo* info,
                          int vtk) {
  double ke = 0, pe = 0;
  cm_data_energy(m, d, &ke, &pe);

  fputs("{\n", f);
  key(f, 2, "scene");
  cm_json_string(f, m->name ? m->name : "scene");
  fputs(",\n", f);
  key(f, 2, "comply_version");
  cm_json_string(f, cm_version());
  fputs(",\n", f);
  key(f, 2, "steps");
  fprintf(f, "%ld,\n", d->step);
  key(f, 2, "time");
  cm_json_number(f, d->time);
  fputs(",\n", f);
  key(f, 2, "timestep");
  cm_json_number(f, m->opt.timestep);
  fputs(",\n", f);
  key(f, 2, "wall_time");
  cm_json_number(f, info ? info->wall_time : 0.0);
  fputs(",\n", f);
  key(f, 2, "interrupted");
  fputs(info && info->interrupted ? "true,\n" : "false,\n", f);
  key(f, 2, "failed");
  fputs(info && info->failed ? "true,\n" : "false,\n", f);
  key(f, 2, "message");
  cm_json_string(f, info ? info->message : NULL);
  fputs(",\n", f);
  key(f, 2, "bodies");
  fprintf(f, "%d,\n", m->nbody);
  key(f, 2, "kinetic_energy");
  cm_json_number(f, ke);
  fputs(",\n", f);
  key(f, 2, "potential_energy");
  cm_json_number(f, pe);
  fputs(",\n", f);

  /* counters by kind */
  key(f, 2, "warnings");
  fputs("{\n", f);
  for (int w = 0; w < CM_WARN_COUNT; w++) {
    key(f, 4, cm_warning_name((cmWarning)w));
    fprintf(f, "%d%s\n", d->warning[w], w + 1 < CM_WARN_COUNT ? "," : "");
  }
  fputs("  },\n", f);
  key(f, 2, "solver");
  fputs("{\n", f);
  key(f, 4, "solves");
  fprintf(f, "%ld,\n", d->solver_solves);
  key(f, 4, "total_iterations");
  fprintf(f, "%ld,\n", d->solver_total_iter);
  key(f, 4, "mean_iterations");
  cm_json_number(f, d->solver_solves ? (double)d->solver_total_iter / (double)d->solver_solves : 0);
  fputs(",\n", f);
  key(f, 4, "not_converged");
  fprintf(f, "%ld,\n", d->solver_failed_solves);
  key(f, 4, "retried_steps");
  fprintf(f, "%ld,\n", d->solver_retries);
  key(f, 4, "soft_rows");
  fprintf(f, "%ld,\n", d->soft_rows);
  key(f, 4, "soft_factor");
  cm_json_number(f, d->soft_factor);
  fputs(",\n", f);
  key(f, 4, "max_iterations");
  fprintf(f, "%d,\n", d->solver_max_iter);
  key(f, 4, "max_residual");
  cm_json_number(f, d->solver_max_residual);
  fputs("\n  },\n", f);
  key(f, 2, "energy");
  fputs("{\n", f);
  key(f, 4, "monitor");
  fputs(d->energy_monitor ? "true,\n" : "false,\n", f);
  key(f, 4, "energy");
  cm_json_number(f, d->energy);
  fputs(",\n", f);
  key(f, 4, "lowest");
  cm_json_number(f, d->energy_low);
  fputs(",\n", f);
  key(f, 4, "scale");
  cm_json_number(f, d->energy_scale);
  fputs(",\n", f);
  key(f, 4, "max_growth");
  cm_json_number(f, d->energy_growth);
  fputs(",\n", f);
  key(f, 4, "first_growth_step");
  put_step(f, d->energy_first_step, ",\n");
  key(f, 4, "first_growth_body");
  cm_json_string(f, d->energy_first_step > 0 && d->energy_body >= 0 && d->energy_body < m->nbody
                        ? m->body_name[d->energy_body]
                        : NULL);
  fputs("\n  },\n", f);
  key(f, 2, "depth");
  fputs("{\n", f);
  key(f, 4, "max_ratio");
  cm_json_number(f, d->depth_ratio);
  fputs(",\n", f);
  key(f, 4, "pair");
  fputs(put_pair(f, m, d->depth_body_a, d->depth_body_b) ? ",\n" : "null,\n", f);
  key(f, 4, "first_deep_step");
  put_step(f, d->depth_first_step, ",\n");
  key(f, 4, "first_tunnel_step");
  int tunnel = d->tunnel_first_step > 0 && d->tunnel_body_a >= 0 && d->tunnel_body_a < m->nbody &&
               d->tunnel_body_b >= 0 && d->tunnel_body_b < m->nbody;
  if (tunnel) {
    fprintf(f, "%ld,\n", d->tunnel_first_step);
    key(f, 4, "tunnel_pair");
    put_pair(f, m, d->tunnel_body_a, d->tunnel_body_b);
    fputs(",\n", f);
    key(f, 4, "tunnel_speed");
    cm_json_number(f, d->tunnel_speed);
    fputs(",\n", f);
    key(f, 4, "tunnel_thickness");
    cm_json_number(f, d->tunnel_thickness);
    fputs(",\n", f);
    key(f, 4, "largest_safe_step");
    cm_json_number(f, d->tunnel_thickness / (2 * d->tunnel_speed));
    fputs("\n", f);
  } else {
    fputs("null\n", f);
  }
  fputs("  },\n", f);
  key(f, 2, "timers");
  fputs("{\n", f);
  for (int t = 0; t < CM_TIMER_COUNT; t++) {
    key(f, 4, cm_timer_name((cmTimer)t));
    cm_json_number(f, d->timer[t]);
    fputs(t + 1 < CM_TIMER_COUNT ? ",\n" : "\n", f);
  }
  fputs("  },\n", f);
  key(f, 2, "files");
  fputs(vtk ? "[\"bodies.csv\", \"contacts.csv\", \"summary.json\", \"scene.pvd\", \"vtk/\"]\n}\n"
            : "[\"bodies.csv\", \"contacts.csv\", \"summary.json\"]\n}\n",
        f);
}

cmStatus cm_output_summary(cmOutput* out, const cmModel* m, const cmData* d,
                           const cmRunInfo* info) {
  CM_ASSERT(out && m && d);
  char* path = cm_output_path(out->dir, "summary.json");
  char* tmp = cm_output_path(out->dir, "summary.json.tmp");
  cmStatus st = CM_OK;
  if (!path || !tmp) {
    st = CM_ERR_NOMEM;
    goto done;
  }

  /* write the temporary file completely and durably, then rename it over the real one */
  FILE* f = fopen(tmp, "w");
  if (!f) {
    st = CM_ERR_IO;
    goto done;
  }
  write_summary(f, m, d, info, out->vtk);
  int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
  int e = errno;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (bad || rename(tmp, path) != 0) {
    if (!bad) e = errno;
    remove(tmp);
    errno = e;
    st = CM_ERR_IO;
  }
done:
  cm_free(path);
  cm_free(tmp);
  return st;
}
