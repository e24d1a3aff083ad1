// A bare MPI_Allreduce loop with collbench's timing method and nothing else
// (no harness, no Operation, no verification): barrier, time one call, max
// over ranks, median of the samples. `collbench run --algo mpi` should agree
// with it within 10% (USAGE.md gives the commands).
//
// usage: mpiexec -n 2 bare_mpi_allreduce [iterations] [bytes...]
//        default: 2000 iterations; sizes 8 B, 1 KiB, 64 KiB, 1 MiB, 16 MiB (fp32 sum)
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::vector<std::size_t> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::stoull(argv[i]));
  if (sizes.empty()) sizes = {8, 1 << 10, 64 << 10, 1 << 20, 16 << 20};
  if (rank == 0) fmt::print("{:>12} {:>12} {:>8}\n", "bytes", "median_us", "samples");
  for (std::size_t bytes : sizes) {
    const int count = static_cast<int>(bytes / sizeof(float));
    std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(in.size());
    // Fewer samples for large messages keeps the run short; one warm-up call.
    const int n = bytes >= (1u << 20) ? std::max(20, iterations / 20) : iterations;
    std::vector<double> t(static_cast<std::size_t>(n)), tmax(t.size());
    MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      t[static_cast<std::size_t>(i)] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    MPI_Reduce(t.data(), tmax.data(), n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::sort(tmax.begin(), tmax.end());
      const double median = n % 2 ? tmax[static_cast<std::size_t>(n / 2)]
                                  : (tmax[static_cast<std::size_t>(n / 2 - 1)] +
                                     tmax[static_cast<std::size_t>(n / 2)]) / 2;
      fmt::print("{:>12} {:>12.3f} {:>8}\n", bytes, median * 1e6, n);
    }
  }
  MPI_Finalize();
  return 0;
}
