/* Status names, error messages into caller buffers, the log hook and the version. */
#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"

const char* cm_version(void) { return CM_VERSION_STRING; }

const char* cm_status_name(cmStatus s) {
  switch (s) {
  case CM_OK: return "ok";
  case CM_ERR_ARG: return "bad value";
  case CM_ERR_IO: return "i/o error";
  case CM_ERR_PARSE: return "parse error";
  case CM_ERR_MESH: return "invalid mesh";
  case CM_ERR_NOMEM: return "out of memory";
  case CM_ERR_NUMERIC: return "numerical failure";
  case CM_ERR_LIMIT: return "resource limit exceeded";
  }
  return "unknown status";
}

cmStatus cm_error(char* err, size_t errsz, cmStatus s, const char* fmt, ...) {
  if (err && errsz) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
  }
  return s;
}

static cmLogFn g_log_fn = NULL;
static void* g_log_ctx = NULL;

void cm_set_log(cmLogFn fn, void* ctx) {
  g_log_fn = fn;
  g_log_ctx = ctx;
}

void cm_log(int level, const char* fmt, ...) {
  if (!g_log_fn) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log_fn(g_log_ctx, level, buf);
}
