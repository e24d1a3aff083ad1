// Google Benchmark of small all-reduces over the MPI transport at p = 2:
// collbench's one- and two-exchange schedules (MpiScheduleOperation::run(),
// spinning without a watchdog, so a single exchange is one MPI_Sendrecv)
// against MPICH's MPI_Allreduce (the `mpi` baseline), 8 B to 4 KiB fp32 sum.
// Back-to-back calls, as Google Benchmark times them; docs/speed.md has the
// OSU-method comparison with MPICH's forced algorithms.
//
//   mpiexec -bind-to core -n 2 build/tests/benchmarks/bench_mpi_small [--benchmark_filter=...]
//
// Rank 0 runs Google Benchmark; before each timed loop it tells rank 1 which
// operation to run and how many times (Google Benchmark fixes a loop's
// iteration count before it starts), so both ranks call it equally often.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "transports/mpi/library_operation.hpp"
#include "transports/mpi/schedule_operation.hpp"

namespace {

constexpr int kCommandTag = 7;

struct Command {
  long op = -1;  // index into the operations; -1 = done
  long iterations = 0;
};

std::vector<std::unique_ptr<cb::Operation>> g_ops;

void run_pair(benchmark::State& state, long index) {
  const Command cmd{index, static_cast<long>(state.max_iterations)};
  MPI_Send(&cmd, 2, MPI_LONG, 1, kCommandTag, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  for (auto _ : state) g_ops[static_cast<std::size_t>(index)]->run();
}

void serve() {
  for (;;) {
    Command cmd;
    MPI_Recv(&cmd, 2, MPI_LONG, 0, kCommandTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (cmd.op < 0) return;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < cmd.iterations; ++i) g_ops[static_cast<std::size_t>(cmd.op)]->run();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      std::fprintf(stderr, "bench_mpi_small: %d ranks; run it with mpiexec -n 2\n", size);
    MPI_Finalize();
    return 2;
  }
  const std::array<const char*, 4> algos{"butterfly", "naive", "rhd", "mpi"};
  std::vector<std::string> names;
  for (const std::size_t bytes : {std::size_t{8}, std::size_t{64}, std::size_t{512}, std::size_t{4096}})
    for (const char* algo : algos) {
      const std::size_t count = bytes / sizeof(float);
      const std::string name(algo);
      if (name == "mpi") {
        g_ops.push_back(std::make_unique<cb::MpiLibraryOperation>(
            cb::Collective::allreduce, cb::DataType::fp32, cb::ReduceOp::sum, false, count,
            MPI_COMM_WORLD, cb::WaitPolicy::spin));
      } else {
        g_ops.push_back(std::make_unique<cb::MpiScheduleOperation>(
            cb::make_schedule(name, cb::CollParams{cb::Collective::allreduce, 2, rank, count,
                                                   cb::DataType::fp32, cb::ReduceOp::sum, false,
                                                   0}),
            MPI_COMM_WORLD, cb::WaitPolicy::spin));
      }
      names.push_back(fmt::format("BM_MpiAllreduceP2/{}/{}", name, bytes));
    }
  if (rank == 0) {
    for (std::size_t i = 0; i < g_ops.size(); ++i)
      benchmark::RegisterBenchmark(names[i].c_str(), run_pair, static_cast<long>(i));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    const Command done;
    MPI_Send(&done, 2, MPI_LONG, 1, kCommandTag, MPI_COMM_WORLD);
  } else {
    serve();
  }
  g_ops.clear();
  MPI_Finalize();
  return 0;
}
