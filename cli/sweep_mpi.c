/* `comply sweep` over MPI ranks (docs/sweeps.md). Compiled with MPI only when CMake found it
 * (COMPLY_HAVE_MPI, the command-line tool alone links MPI, never the library); otherwise the
 * functions say that MPI is not there and the sweep runs on the local cores.
 *
 * Dynamic load balancing by a shared counter: rank 0 exposes one integer in an MPI window
 * (MPI_Win_allocate) and every rank, rank 0 included, takes the next variant index with an
 * atomic MPI_Fetch_and_op(+1) under a shared passive-target lock, runs it, and takes the next,
 * until the index passes the last variant. No rank is a dispatcher: with N ranks N variants run
 * at once (a rank-0 dispatcher loop would leave N - 1 workers, or make rank 0 poll between
 * steps), a long variant holds only its own rank, and a rank asks again the moment it is free.
 * On one node Open MPI's shared-memory window does the fetch-and-add as a processor atomic
 * (no progress needed from rank 0 while it computes); between nodes a network with remote
 * atomics does the same. Each rank writes its variants' results into their folders (tmp +
 * rename); after a barrier rank 0 reads them in variant order into sweep.csv, so the file does
 * not depend on N or on which rank ran what.
 *
 * Open MPI's blocking calls spin: a rank that has finished would take a core from the ranks
 * still working (on an oversubscribed node, half of it). The final barrier is therefore an
 * MPI_Ibarrier tested every millisecond with a sleep in between. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "cli.h"

/* started by mpirun (Open MPI, or a PMI/PMIx launcher such as srun)? A build without MPI
 * says so too, and then refuses: each rank would run the whole sweep on its own. */
int sweep_mpi_launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

#ifdef COMPLY_HAVE_MPI
#include <mpi.h>
#include <time.h>

/* wait for every rank without spinning */
static void quiet_barrier(void) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

int sweep_mpi_run(const Sweep* s, const char* outdir, int strict, int quiet, int* argc,
                  char*** argv) {
  if (MPI_Init(argc, argv) != MPI_SUCCESS) return cli_error(CLI_FAILED, "MPI_Init failed");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* the counter: one long on rank 0 */
  long* counter = NULL;
  MPI_Win win;
  MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(long) : 0, (int)sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &counter, &win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    *counter = 0;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  double t0 = cli_now();
  long counts[3] = {0, 0, 0}; /* run, skipped, write errors */
  cmModel* model = NULL;      /* compiled by the rank's first variant when s->reuse */
  for (;;) {
    long one = 1, v = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &v, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    if (v >= s->nvariant) break;
    if (sweep_variant_done(s, outdir, v, strict)) {
      counts[1]++;
      continue;
    }
    counts[0]++;
    if (sweep_run_variant(s, outdir, v, strict, &model) < 0) counts[2]++;
  }
  cm_model_free(model);
  quiet_barrier();
  long total[3] = {0, 0, 0};
  MPI_Reduce(counts, total, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  int rc = CLI_OK;
  if (rank == 0) {
    long failed = 0;
    if (sweep_gather(s, outdir, &failed) != 0 || total[2])
      rc = CLI_FAILED;
    else if (failed)
      rc = CLI_FAILED;
    if (!quiet || rc != CLI_OK)
      fprintf(stderr,
              "comply: sweep: %ld variants on %d MPI ranks (%ld run, %ld already complete), %ld "
              "failed, %.3f s; results in '%s/sweep.csv'\n",
              s->nvariant, size, total[0], total[1], failed, cli_now() - t0, outdir);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return rc;
}

#else

int sweep_mpi_run(const Sweep* s, const char* outdir, int strict, int quiet, int* argc,
                  char*** argv) {
  (void)s, (void)outdir, (void)strict, (void)quiet, (void)argc, (void)argv;
  return cli_error(CLI_USAGE, "started by mpirun, but this comply was built without MPI (CMake "
                              "found no MPI): run `comply sweep` alone, it uses the local cores");
}

#endif
