// The cost of interposition: MPI_Allreduce through libcollbench-pmpi.so vs
// the same collbench schedule run directly (MpiScheduleOperation::run(), what
// `collbench run` times), in one run, with the OSU method for both (warm-up,
// each call timed alone, MPI_Barrier between calls, average per rank, then
// average over ranks). Blocks of the two alternate, in swapped order every
// other repeat, so drift hits both alike; each repeat gives one ratio
// (intercepted / direct) and the summary is their median and quartiles, plus
// the ratio of the fastest block of each kind.
//
// usage: mpiexec -bind-to core -n 2 -genv LD_PRELOAD .../libcollbench-pmpi.so
//          pmpi_overhead [ALGO=rhd] [BYTES=8] [REPEATS=201] [ITERATIONS=500]
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "transports/mpi/schedule_operation.hpp"
#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/osu_method.hpp"
#include "transports/mpi/pmpi/bench/ratio_stats.hpp"
#include "transports/mpi/wait.hpp"

namespace {

// The timed blocks and the summary line. A function of its own so that the
// operation and its communicator are gone before MPI_Finalize.
void compare(const BenchWorld& world, const std::string& algo, std::size_t bytes, int repeats,
             long iterations) {
  const int rank = world.rank, p = world.p;
  const std::size_t count = std::max<std::size_t>(1, bytes / 4);
  const cb::CollParams params{cb::Collective::allreduce, p, rank, count, cb::DataType::fp32,
                              cb::ReduceOp::sum, false, 0};
  // Owned: freed also when building the operation throws.
  MPI_Comm dup = MPI_COMM_NULL;
  cb::check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
  const cb::OwnedComm direct_comm(dup);
  const cb::WaitPolicy wait =
      cb::oversubscribed(direct_comm.get()) ? cb::WaitPolicy::yield : cb::WaitPolicy::spin;
  cb::MpiScheduleOperation direct(
      cb::make_schedule(cb::find_algorithm(cb::Collective::allreduce, algo), params),
      direct_comm.get(), wait);
  std::vector<float> in(count, 1.0f), out(count);
  std::vector<std::byte> input(count * 4, std::byte{0});
  direct.write_input(input);

  const auto intercepted = [&] {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  };
  const auto scheduled = [&] { direct.run(); };
  std::vector<double> ratios, lib_us, direct_us;
  for (int r = 0; r < repeats; ++r) {
    double a = 0, b = 0;
    if (r % 2 == 0) {
      a = osu_mean_over_ranks_us(MPI_COMM_WORLD, iterations, iterations / 10, intercepted);
      b = osu_mean_over_ranks_us(MPI_COMM_WORLD, iterations, iterations / 10, scheduled);
    } else {
      b = osu_mean_over_ranks_us(MPI_COMM_WORLD, iterations, iterations / 10, scheduled);
      a = osu_mean_over_ranks_us(MPI_COMM_WORLD, iterations, iterations / 10, intercepted);
    }
    lib_us.push_back(a);
    direct_us.push_back(b);
    ratios.push_back(a / b);
  }
  if (rank == 0) {
    fmt::print("# allreduce {} B fp32 sum, {} ranks, {} x {} calls per block, wait {}\n", count * 4,
               p, repeats, iterations, wait == cb::WaitPolicy::spin ? "spin" : "yield");
    // On a shared machine most blocks are slowed by other processes; the
    // fastest block of each kind is the least disturbed one, so its ratio is
    // printed too.
    const Spread r = spread_of(ratios), a = spread_of(lib_us), b = spread_of(direct_us);
    fmt::print("# algorithm  intercepted(us)  direct(us)  ratio median  ratio p25..p75  "
               "best intercepted(us)  best direct(us)  best ratio\n");
    fmt::print("  {:<10} {:>15.3f} {:>11.3f} {:>13.4f} {:>8.4f}..{:<6.4f} {:>20.3f} {:>16.3f} "
               "{:>11.4f}\n",
               algo, a.median, b.median, r.median, r.p25, r.p75, a.min, b.min, a.min / b.min);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const BenchWorld world = join_world(&argc, &argv);
  const std::string algo = argc > 1 ? argv[1] : "rhd";
  long numbers[3] = {8, 201, 500};  // bytes, repeats, iterations
  for (int i = 2; i < argc && i < 5; ++i) {
    const std::optional<long> v = whole_positive(argv[i]);
    if (!v)
      refuse(world, fmt::format("pmpi_overhead: '{}' is not a whole number > 0; usage: "
                                "pmpi_overhead [ALGO] [BYTES] [REPEATS] [ITERATIONS]", argv[i]));
    numbers[i - 2] = *v;
  }
  const SetAlgorithmFn set = pmpi_set_algorithm();
  if (!set || set("allreduce", algo.c_str()) != 0)
    refuse(world, fmt::format("pmpi_overhead: needs libcollbench-pmpi.so in LD_PRELOAD and an "
                              "allreduce algorithm name (got '{}')", algo));
  compare(world, algo, static_cast<std::size_t>(numbers[0]), static_cast<int>(numbers[1]),
          numbers[2]);
  MPI_Finalize();
  return 0;
}
