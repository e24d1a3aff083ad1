// A plain MPI program for `scripts/testbed.sh exec` (tests/testbed): it knows
// nothing of the testbed or of collbench. It sums the ranks with
// MPI_Allreduce and rank 0 prints "sum=<total> ranks=<p>", then, when
// libcollbench-pmpi.so is preloaded (looked up with dlsym, so the program
// also runs without it), "collbench ring calls=<n>" from the library's
// counters. With "--fail-rank R" rank R exits with status 3 without calling
// MPI_Finalize, as a program that fails does.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int fail_rank = -1;
  if (argc == 3 && std::strcmp(argv[1], "--fail-rank") == 0) fail_rank = std::atoi(argv[2]);
  int mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("sum=%d ranks=%d\n", sum, p);
    using Calls = unsigned long long (*)(const char*, const char*);
    if (auto calls = reinterpret_cast<Calls>(::dlsym(RTLD_DEFAULT, "collbench_pmpi_calls")))
      std::printf("collbench ring calls=%llu\n", calls("allreduce", "ring"));
    std::fflush(stdout);
  }
  if (rank == fail_rank) std::_Exit(3);
  MPI_Finalize();
  return 0;
}
