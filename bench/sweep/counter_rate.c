/* The rate of comply sweep's shared counter (cli/sweep_mpi.c): every rank takes N indices from
 * one long in rank 0's window with MPI_Fetch_and_op(+1) under a shared lock, as the sweep does
 * per variant, and rank 0 prints the operations per second of the whole job and the mean time
 * of one. Built and run by run_bench.py (mpicc -O2; mpirun -n 4 counter_rate N). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long total = argc > 1 ? atol(argv[1]) : 100000;
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
  double t0 = MPI_Wtime();
  long mine = 0;
  for (;;) {
    long one = 1, v = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &v, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    if (v >= total) break;
    mine++;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double dt = MPI_Wtime() - t0;
  long sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("shared counter: %ld fetch-and-add by %d ranks in %.3f s: %.0f per second, %.2f us "
           "each\n",
           sum, size, dt, (double)sum / dt, 1e6 * dt / (double)sum);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
