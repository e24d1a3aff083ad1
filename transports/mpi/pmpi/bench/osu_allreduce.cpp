// An MPI_Allreduce latency benchmark written to the OSU micro-benchmarks'
// method (osu_allreduce), not from their code: per size, `skip` warm-up calls,
// then `iterations` calls each timed on its own with MPI_Wtime and followed
// by MPI_Barrier; a rank's latency is the average of its timed calls; the
// table shows the average, minimum and maximum of that over ranks. MPI_FLOAT
// with MPI_SUM, as OSU. It is a plain MPI program: run it under
// libcollbench-pmpi.so with LD_PRELOAD to time collbench's schedules.
//
// usage: mpiexec -n P osu_allreduce [-m MIN:MAX] [-i ITERATIONS] [-x SKIP]
//        sizes in bytes, doubling from MIN (default 4:1048576); iterations
//        1000 (100 from 64 KiB on), skip 200 (20 from 64 KiB on).
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/osu_method.hpp"

namespace {

[[noreturn]] void usage(const BenchWorld& world, const std::string& bad) {
  refuse(world, "osu_allreduce: bad argument '" + bad +
                    "'; accepted: -m MIN:MAX (bytes), -i ITERATIONS, -x SKIP (whole numbers > 0, "
                    "MIN <= MAX)");
}

long parse_positive(const BenchWorld& world, const std::string& text) {
  const std::optional<long> v = whole_positive(text);
  if (!v) usage(world, text);
  return *v;
}

}  // namespace

int main(int argc, char** argv) {
  const BenchWorld world = join_world(&argc, &argv);
  const int rank = world.rank, p = world.p;
  long min_bytes = 4, max_bytes = 1 << 20, iterations = 0, skip = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(world, argv[i]);
    const char* value = argv[++i];
    if (flag == "-m") {
      const char* colon = std::strchr(value, ':');
      if (!colon) usage(world, value);
      min_bytes = parse_positive(world, std::string(value, colon).c_str());
      max_bytes = parse_positive(world, colon + 1);
      if (min_bytes > max_bytes) usage(world, value);
    } else if (flag == "-i") {
      iterations = parse_positive(world, value);
    } else if (flag == "-x") {
      skip = parse_positive(world, value);
    } else {
      usage(world, argv[i - 1]);
    }
  }
  if (rank == 0)
    std::printf("# OSU-method MPI_Allreduce latency, %d ranks, MPI_FLOAT sum\n"
                "# %-10s %16s %16s %16s %12s\n",
                p, "Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations");
  std::vector<float> in(static_cast<std::size_t>(max_bytes / 4 + 1), 1.0f), out(in.size());
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int count = static_cast<int>(bytes / 4);
    if (count == 0) continue;
    const bool large = bytes >= 64 * 1024;
    const long iters = iterations ? iterations : (large ? 100 : 1000);
    const long warm = skip ? skip : (large ? 20 : 200);
    const double latency = osu_average_us(MPI_COMM_WORLD, iters, warm, [&] {
      MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    double lo = 0, hi = 0, sum = 0;
    MPI_Reduce(&latency, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("  %-10ld %16.2f %16.2f %16.2f %12ld\n", bytes, sum / p, lo, hi, iters);
  }
  MPI_Finalize();
  return 0;
}
