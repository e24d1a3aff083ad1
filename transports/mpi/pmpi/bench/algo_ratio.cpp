// MPI_Allreduce through libcollbench-pmpi.so with the MPI library's own
// collective (`mpi`) and with collbench's algorithms, as ratios from ONE run:
// per size and repeat, one OSU-method block per algorithm (warm-up, each call
// timed alone, MPI_Barrier between calls, average per rank, then over ranks),
// in an order rotated every repeat, switching with collbench_pmpi_set_algorithm.
// Each repeat gives algorithm / mpi; the table shows their median and
// quartiles over repeats. On a shared machine this is the figure to trust:
// whatever slows one block slows its neighbours alike.
//
// usage: mpiexec -bind-to core -n 2 -genv LD_PRELOAD .../libcollbench-pmpi.so
//          algo_ratio [ALGOS=rhd,ring] [SIZES=8,1024,65536,1048576] [REPEATS=41] [ITERATIONS=200]
//        sizes in bytes (MPI_FLOAT sum); ITERATIONS per block (a tenth of it warms up,
//        and a tenth of it from 64 KiB on).
#include <fmt/format.h>
#include <mpi.h>

#include <sstream>
#include <string>
#include <vector>

#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/osu_method.hpp"
#include "transports/mpi/pmpi/bench/ratio_stats.hpp"

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

// Long on purpose: a benchmark script, read top to bottom (setup, each timed variant, report).
int main(int argc, char** argv) {
  const BenchWorld world = join_world(&argc, &argv);
  const int rank = world.rank, p = world.p;
  const auto positive = [&](const std::string& text) {
    if (const std::optional<long> v = whole_positive(text)) return *v;
    refuse(world, fmt::format("algo_ratio: '{}' is not a whole number > 0; usage: algo_ratio "
                              "[ALGOS] [SIZES,...] [REPEATS] [ITERATIONS]", text));
  };
  std::vector<std::string> algos = split(argc > 1 ? argv[1] : "rhd,ring");
  algos.insert(algos.begin(), "mpi");
  std::vector<long> sizes;
  int repeats = 41;
  long iterations = 200;
  for (const std::string& s : split(argc > 2 ? argv[2] : "8,1024,65536,1048576"))
    sizes.push_back(positive(s));
  if (argc > 3) repeats = static_cast<int>(positive(argv[3]));
  if (argc > 4) iterations = positive(argv[4]);
  const SetAlgorithmFn set = pmpi_set_algorithm();
  bool ok = set != nullptr;
  for (const std::string& a : algos) ok = ok && set("allreduce", a.c_str()) == 0;
  if (!ok)
    refuse(world, "algo_ratio: needs libcollbench-pmpi.so in LD_PRELOAD and allreduce algorithm "
                  "names");
  if (rank == 0) {
    fmt::print("# MPI_Allreduce, {} ranks, MPI_FLOAT sum, {} repeats x {} calls per block; "
               "ratio = algorithm / mpi per repeat: median [p25..p75]\n",
               p, repeats, iterations);
    fmt::print("{:>10} {:>9}", "bytes", "mpi(us)");
    for (std::size_t a = 1; a < algos.size(); ++a)
      fmt::print(" {:>10} {:>26}", algos[a] + "(us)", algos[a] + "/mpi");
    fmt::print("\n");
  }
  for (long bytes : sizes) {
    const int count = static_cast<int>(std::max(1L, bytes / 4));
    std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(in.size());
    const long iters = bytes >= 65536 ? std::max(10L, iterations / 10) : iterations;
    std::vector<std::vector<double>> lat(algos.size());
    for (int r = 0; r < repeats; ++r) {
      for (std::size_t k = 0; k < algos.size(); ++k) {
        const std::size_t a = (k + static_cast<std::size_t>(r)) % algos.size();
        set("allreduce", algos[a].c_str());
        lat[a].push_back(
            osu_mean_over_ranks_us(MPI_COMM_WORLD, iters, std::max(1L, iters / 10), [&] {
              MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            }));
      }
    }
    if (rank != 0) continue;
    fmt::print("{:>10} {:>9.2f}", bytes, spread_of(lat[0]).median);
    for (std::size_t a = 1; a < algos.size(); ++a) {
      std::vector<double> ratio;
      for (int r = 0; r < repeats; ++r) ratio.push_back(lat[a][r] / lat[0][r]);
      const Spread s = spread_of(ratio);
      fmt::print(" {:>10.2f} {:>8.3f} [{:>6.3f}..{:<6.3f}]", spread_of(lat[a]).median, s.median,
                 s.p25, s.p75);
    }
    fmt::print("\n");
  }
  MPI_Finalize();
  return 0;
}
