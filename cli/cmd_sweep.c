/* comply sweep SWEEP.yaml [-o DIR] [-j N] [--strict] [-q]   (docs/sweeps.md)
 *
 * read the sweep file (every parameter path checked against the base scene) -> DIR -> the
 * variants, skipping those whose folder holds a complete result (restart) -> DIR/sweep.csv.
 *
 * Under mpirun (and built with MPI) the variants go to the ranks (sweep_mpi.c). Alone, they run
 * on the local cores: a pool of at most N worker processes, one fork per variant, the next
 * variant started as soon as a worker ends (dynamic, like the ranks). A worker that dies (a
 * crash of the library) costs its variant only: the parent writes its row ("crashed", the
 * signal); a worker ended by SIGINT or SIGTERM leaves no row (the variant is run again on a
 * restart). SIGINT or SIGTERM to the command stops the pool: no new variant, the signal passed
 * on to the workers, sweep.csv written with the unfinished variants "missing", exit 128 + the
 * signal. Results do not depend on N: each variant is one deterministic run whose row is
 * written into its folder, and sweep.csv is read from the folders in variant order.
 *
 * Each variant's run uses one OpenMP thread (the variants are the parallelism) unless
 * OMP_NUM_THREADS is set: omp_set_num_threads(1) before any variant. The parent never steps
 * (it only compiles the reused model, which has no parallel region), so it has no OpenMP
 * threads when it forks: libgomp's thread pool does not survive a fork. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

/* one OpenMP thread per variant unless OMP_NUM_THREADS says otherwise: the library's parallel
 * regions take the calling thread's setting (the command is built with the library's OpenMP
 * flags) */
static void one_openmp_thread(void) {
#ifdef _OPENMP
  if (!getenv("OMP_NUM_THREADS")) omp_set_num_threads(1);
#endif
}

/* SIGINT / SIGTERM to the local pool: no new variant is started, the signal is passed on to
 * the workers (their variants are run again on a restart), sweep.csv is written with the
 * finished rows and the others "missing", and the command exits 128 + the signal */
static volatile sig_atomic_t g_sweep_signal = 0;

static void on_sweep_signal(int sig) {
  g_sweep_signal = sig;
}

static void sweep_handlers(void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: waitpid returns EINTR and the loop sees the flag */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* the local pool; returns the exit status */
static int run_local(const Sweep* s, const char* outdir, int strict, int quiet, long jobs) {
  double t0 = cli_now();
  pid_t* pid = calloc((size_t)jobs, sizeof *pid);
  long* var = calloc((size_t)jobs, sizeof *var);
  if (!pid || !var) {
    free(pid);
    free(var);
    return cli_error(CLI_FAILED, "out of memory");
  }
  /* one geometry: the model is compiled here once and each worker patches its copy */
  cmModel* model = s->reuse ? sweep_template_model(s, 0) : NULL;
  long next = 0, running = 0, ran = 0, skipped = 0, lost = 0;
  int interrupted = 0, forwarded = 0;
  fflush(NULL);
  g_sweep_signal = 0;
  sweep_handlers(on_sweep_signal);
  while (next < s->nvariant || running) {
    if (g_sweep_signal && !forwarded) {
      interrupted = forwarded = 1;
      for (long k = 0; k < jobs; k++)
        if (pid[k]) kill(pid[k], g_sweep_signal);
    }
    /* fill the free workers */
    while (running < jobs && next < s->nvariant && !interrupted) {
      long v = next++;
      if (sweep_variant_done(s, outdir, v, strict)) {
        skipped++;
        continue;
      }
      pid_t p = fork();
      if (p < 0) {
        if (!running) {
          free(pid);
          free(var);
          cm_model_free(model);
          return cli_error(CLI_FAILED, "cannot start a worker process: %s", strerror(errno));
        }
        next--; /* try again when a worker ends */
        break;
      }
      if (p == 0) {
        sweep_handlers(SIG_DFL);
        /* exit, not _exit: the sanitizer build checks the worker for leaks at exit (stdio was
         * flushed before the fork, so nothing is written twice) */
        free(pid);
        free(var);
        int rc = sweep_run_variant(s, outdir, v, strict, &model);
        cm_model_free(model);
        exit(rc < 0 ? 3 : 0);
      }
      for (long k = 0; k < jobs; k++)
        if (!pid[k]) {
          pid[k] = p;
          var[k] = v;
          break;
        }
      running++;
      ran++;
    }
    if (!running) break;
    /* wait for one */
    int status = 0;
    pid_t p = waitpid(-1, &status, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (long k = 0; k < jobs; k++) {
      if (pid[k] != p) continue;
      pid[k] = 0;
      running--;
      if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
          interrupted = 1;
        } else {
          char msg[160];
          snprintf(msg, sizeof msg, "variant %ld: the worker process died of signal %d (%s)",
                   var[k], sig, strsignal(sig));
          if (sweep_write_failure(s, outdir, var[k], "crashed", msg)) lost++;
        }
      } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        lost++;
      }
    }
  }
  free(pid);
  free(var);
  cm_model_free(model);
  long failed = 0;
  int rc = sweep_gather(s, outdir, &failed) != 0 || lost ? CLI_FAILED : failed ? CLI_FAILED : 0;
  if (!quiet || rc != CLI_OK)
    fprintf(stderr,
            "comply: sweep: %ld variants on %ld local process%s (%ld run, %ld already complete), "
            "%ld failed, %.3f s; results in '%s/sweep.csv'\n",
            s->nvariant, jobs, jobs == 1 ? "" : "es", ran, skipped, failed, cli_now() - t0, outdir);
  sweep_handlers(SIG_DFL);
  if (interrupted) {
    int sig = g_sweep_signal ? g_sweep_signal : SIGINT;
    return cli_error(128 + sig,
                     "sweep interrupted by %s: '%s/sweep.csv' has the finished variants, the "
                     "others are 'missing'; run the same command again to complete it",
                     sig == SIGTERM ? "SIGTERM" : "SIGINT", outdir);
  }
  return rc;
}

int cmd_sweep(int argc, char** argv) {
  const char* file = NULL;
  const char* outdir = "out";
  long jobs = 0;
  int strict = 0, quiet = 0, options = 1; /* options: until "--" */
  for (int i = 1; i < argc;) {
    const char* v = NULL;
    int r;
    if (options && strcmp(argv[i], "--") == 0) {
      options = 0, i++;
    } else if (!options) {
      if (file)
        return cli_usage_error("sweep", "one sweep file only (got '%s' and '%s')", file, argv[i]);
      file = argv[i++];
    } else if ((r = cli_option("sweep", argc, argv, &i, "--output", "-o", &v)) != 0) {
      if (r < 0) return CLI_USAGE;
      if (!*v) return cli_usage_error("sweep", "-o: the output directory is empty");
      outdir = v;
    } else if ((r = cli_option("sweep", argc, argv, &i, "--jobs", "-j", &v)) != 0) {
      if (r < 0) return CLI_USAGE;
      if (cli_parse_count(v, &jobs) || jobs < 1 || jobs > 4096)
        return cli_usage_error("sweep", "--jobs: expected an integer from 1 to 4096 (got '%s')", v);
    } else if (strcmp(argv[i], "--strict") == 0) {
      strict = 1, i++;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1, i++;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      cli_help(stdout, "sweep");
      return CLI_OK;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error("sweep", "unknown option '%s'", argv[i]);
    } else if (file) {
      return cli_usage_error("sweep", "one sweep file only (got '%s' and '%s')", file, argv[i]);
    } else {
      file = argv[i++];
    }
  }
  if (!file) return cli_usage_error("sweep", "missing the sweep file");
  one_openmp_thread();

  /* only rank 0 of an MPI run reports a bad sweep file (every rank reads it) */
  const char* r0 = getenv("OMPI_COMM_WORLD_RANK");
  int report = !r0 || strcmp(r0, "0") == 0;
  Sweep s;
  char err[2048];
  if (sweep_load(file, &s, err, sizeof err) != 0)
    return report ? cli_error(CLI_USAGE, "%s", err) : CLI_USAGE;
  if (sweep_mkdir_parents(outdir) != 0) {
    sweep_free(&s);
    return report ? cli_error(CLI_USAGE, "cannot create the output directory '%s': %s", outdir,
                              strerror(errno))
                  : CLI_USAGE;
  }
  int rc;
  if (sweep_mpi_launched()) {
    rc = sweep_mpi_run(&s, outdir, strict, quiet, NULL, NULL);
  } else {
    if (!jobs) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      jobs = n > 0 ? n : 1;
    }
    if (jobs > s.nvariant) jobs = s.nvariant > 0 ? s.nvariant : 1;
    rc = run_local(&s, outdir, strict, quiet, jobs);
  }
  sweep_free(&s);
  return rc;
}
