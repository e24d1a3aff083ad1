// The OSU micro-benchmarks' timing method (osu_allreduce and friends), for
// the benchmarks here: `skip` warm-up calls, then `iterations` calls each
// timed alone with MPI_Wtime and followed by MPI_Barrier; returns this
// rank's average in microseconds. Plain MPI, nothing of collbench.
#pragma once

#include <mpi.h>

template <class Call>
double osu_average_us(MPI_Comm comm, long iterations, long skip, Call&& call) {
  MPI_Barrier(comm);
  double timer = 0;
  for (long i = 0; i < iterations + skip; ++i) {
    const double t0 = MPI_Wtime();
    call();
    const double t1 = MPI_Wtime();
    if (i >= skip) timer += t1 - t0;
    MPI_Barrier(comm);
  }
  return timer * 1e6 / static_cast<double>(iterations);
}

// osu_average_us averaged over the ranks of `comm`, on every rank. Through
// PMPI_ so that an interposed MPI_Allreduce does not time itself.
template <class Call>
double osu_mean_over_ranks_us(MPI_Comm comm, long iterations, long skip, Call&& call) {
  const double mine = osu_average_us(comm, iterations, skip, call);
  double sum = 0;
  int p = 0;
  MPI_Comm_size(comm, &p);
  PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sum / p;
}
