/* comply plot OUT [options]: PNG plots of a run's output files, drawn by the Python module
 * comply.plot (python/comply/plot.py, numpy and matplotlib; docs/outputs.md, "Plots").
 *
 * The command checks that OUT is a directory holding bodies.csv, then runs
 *   PYTHON -m comply.plot OUT [options]
 * in a child process with PYTHONPATH starting with the folder that holds the comply package, and
 * returns the child's exit status (128 + N if it was killed by signal N). The folder is the first
 * of these that has comply/plot.py:
 *   1. the installed package, found from this executable's own place (CM_PYTHON_FROM_BIN, the
 *      path from the install's bin folder to its Python folder, set by CMake), so an installed
 *      tree still works after it is moved;
 *   2. the source tree's python/ folder this executable was built from (CM_PYTHON_SOURCE_DIR).
 * PYTHON is $COMPLY_PYTHON if set, else /usr/bin/python3 if it exists (the Debian interpreter,
 * where python3-numpy and python3-matplotlib install), else python3 on the PATH. A child
 * process rather than exec keeps the command usable in-process (fuzz/fuzz_targets_cli.c runs
 * comply's main). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#ifndef CM_PYTHON_FROM_BIN
#define CM_PYTHON_FROM_BIN ""
#endif
#ifndef CM_PYTHON_SOURCE_DIR
#define CM_PYTHON_SOURCE_DIR ""
#endif

enum { PATH_SIZE = 4096 };

static int is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir (or "dir/rel" when rel is relative to dir) into out if out/comply/plot.py exists */
static int package_dir(const char* dir, const char* rel, char* out, size_t size) {
  if (!rel[0]) return 0;
  int n = rel[0] == '/' || !dir ? snprintf(out, size, "%s", rel)
                                : snprintf(out, size, "%s/%s", dir, rel);
  if (n < 0 || (size_t)n >= size) return 0;
  char probe[PATH_SIZE + 32];
  snprintf(probe, sizeof probe, "%s/comply/plot.py", out);
  return is_file(probe);
}

/* the folder holding the comply package, or 0 */
static int find_package(char* out, size_t size) {
  char self[PATH_SIZE];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0 && (size_t)n < sizeof self - 1) {
    self[n] = 0;
    char* slash = strrchr(self, '/');
    if (slash) {
      *slash = 0;
      if (package_dir(self, CM_PYTHON_FROM_BIN, out, size)) return 1;
    }
  }
  return package_dir(NULL, CM_PYTHON_SOURCE_DIR, out, size);
}

static const char* python(void) {
  const char* p = getenv("COMPLY_PYTHON");
  if (p && *p) return p;
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* run argv in a child with PYTHONPATH = pythonpath; its exit status, or -1 with errno (exec
 * or fork failed) */
static int spawn(char** argv, const char* pythonpath) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    if (setenv("PYTHONPATH", pythonpath, 1) != 0) {
      int e = errno;
      ssize_t w = write(fds[1], &e, sizeof e);
      (void)w;
      _exit(127);
    }
    if (strchr(argv[0], '/'))
      execv(argv[0], argv);
    else
      execvp(argv[0], argv);
    int e = errno; /* the exec failed: tell the parent why */
    ssize_t w = write(fds[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  close(fds[1]);
  /* the exec's errno, if it failed (the pipe closes on a successful exec) */
  int child_errno = 0;
  ssize_t r;
  do
    r = read(fds[0], &child_errno, sizeof child_errno);
  while (r < 0 && errno == EINTR);
  close(fds[0]);
  /* Ctrl-C reaches python3 too; SIGTERM is passed on to it (cli/child.c) */
  int code = cli_wait_child(pid, NULL);
  if (code < 0) return -1;
  if (r == (ssize_t)sizeof child_errno) {
    errno = child_errno;
    return -1;
  }
  return code;
}

int cmd_plot(int argc, char** argv) {
  /* only OUT is looked at here; the options go to comply.plot, which checks them */
  const char* outdir = NULL;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      cli_help(stdout, "plot");
      return CLI_OK;
    }
    if (strcmp(a, "--") == 0) {
      if (i + 1 < argc && !outdir) outdir = argv[i + 1];
      break;
    }
    if (a[0] == '-' && a[1]) {
      /* skip the value of an option that takes one in the next argument */
      static const char* const with_value[] = {"-o", "--output", "--step", "--body", "--pair"};
      for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (strcmp(a, with_value[k]) == 0 && i + 1 < argc) {
          i++;
          break;
        }
      continue;
    }
    if (!outdir) outdir = a;
  }
  if (!outdir) return cli_usage_error("plot", "missing the output directory OUT");
  struct stat st;
  if (stat(outdir, &st) != 0)
    return cli_error(CLI_USAGE, "%s: no such directory (the output directory of `comply run`)",
                     outdir);
  if (!S_ISDIR(st.st_mode)) return cli_error(CLI_USAGE, "%s: not a directory", outdir);
  char probe[PATH_SIZE + 32];
  snprintf(probe, sizeof probe, "%s/bodies.csv", outdir);
  if (!is_file(probe))
    return cli_error(CLI_USAGE, "%s: no such file (written by `comply run`)", probe);

  char pkg[PATH_SIZE];
  if (!find_package(pkg, sizeof pkg))
    return cli_error(CLI_FAILED,
                     "cannot find the Python package comply (comply/plot.py) in '%s'"
                     " (installed) or '%s' (source tree)",
                     CM_PYTHON_FROM_BIN, CM_PYTHON_SOURCE_DIR);
  /* PYTHONPATH: the package's folder first, then the user's */
  const char* old = getenv("PYTHONPATH");
  size_t len = strlen(pkg) + (old ? strlen(old) + 1 : 0) + 1;
  char* path = malloc(len);
  if (!path) return cli_error(CLI_FAILED, "out of memory");
  snprintf(path, len, "%s%s%s", pkg, old && *old ? ":" : "", old && *old ? old : "");

  /* PYTHON -m comply.plot ARGS... */
  char** args = malloc(((size_t)argc + 3) * sizeof *args);
  if (!args) {
    free(path);
    return cli_error(CLI_FAILED, "out of memory");
  }
  const char* py = python();
  args[0] = (char*)py;
  args[1] = "-m";
  args[2] = "comply.plot";
  for (int i = 1; i < argc; i++)
    args[i + 2] = argv[i];
  args[argc + 2] = NULL;
  int rc = spawn(args, path);
  free(args);
  free(path);
  if (rc < 0)
    return cli_error(CLI_FAILED,
                     "cannot run '%s': %s (comply plot needs Python 3 with numpy and "
                     "matplotlib: apt-get install python3-numpy python3-matplotlib, or set "
                     "COMPLY_PYTHON to an interpreter that has them)",
                     py, strerror(errno));
  return rc;
}
