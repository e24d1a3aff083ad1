// MPI_Allreduce through libcollbench-pmpi.so with the MPI library's own
// collective (`mpi`) and with collbench's algorithms, as ratios from ONE run:
// per size and repeat, one OSU-method block per algorithm (warm-up, each call
// timed alone, MPI_Barrier between calls, average per rank, then over ranks),
// in an order rotated every repeat, switching with collbench_pmpi_set_algorithm.
// Each repeat gives algorithm / mpi; the table shows their median and
// quartiles over repeats. On a shared machine this is the figure to trust:
// whatever slows one block slows its neighbours alike.
//
// An entry `mpich:NAME` is `mpi` with MPICH's algorithm NAME forced for its
// blocks (mpich_force.hpp; recursive_doubling, reduce_scatter_allgather,
// tsp_ring, tsp_tree), `mpi` then being MPICH's auto. With any such entry the
// last column is, per repeat, the fastest collbench algorithm's time over
// the fastest of MPICH's (auto and the forced ones): the best schedule
// against MPICH's best algorithm, both chosen after the fact.
//
// usage: mpiexec -bind-to core -n 2 -genv LD_PRELOAD .../libcollbench-pmpi.so
//          algo_ratio [ALGOS=rhd,ring] [SIZES=8,1024,65536,1048576] [REPEATS=41] [ITERATIONS=200]
//        sizes in bytes (MPI_FLOAT sum); ITERATIONS per block (a tenth of it warms up,
//        and a tenth of it from 64 KiB on). With mpich: entries the launch needs
//        -genv MPIR_CVAR_DEVICE_COLLECTIVES none -genv MPIR_CVAR_COLLECTIVE_FALLBACK error.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/mpich_force.hpp"
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
  // forced[a]: the MPICH algorithm entry a forces (`mpi` forces auto once any does).
  constexpr std::string_view kMpich = "mpich:";
  std::vector<std::optional<MpichAllreduceAlgorithm>> forced(algos.size());
  bool any_forced = false;
  for (std::size_t a = 0; a < algos.size(); ++a) {
    if (algos[a].rfind(kMpich, 0) != 0) continue;
    forced[a] = mpich_allreduce_algorithm(std::string_view(algos[a]).substr(kMpich.size()));
    if (!forced[a])
      refuse(world, fmt::format("algo_ratio: '{}' is not an MPICH algorithm; accepted: mpich:{{{}}}",
                                algos[a], mpich_allreduce_names()));
    any_forced = true;
  }
  std::unique_ptr<MpichAlgorithmSwitch> mpich;
  if (any_forced && std::all_of(forced.begin() + 1, forced.end(), [](const auto& f) { return f; }))
    refuse(world, "algo_ratio: with mpich: entries, name a collbench algorithm too");
  if (any_forced) {
    mpich = std::make_unique<MpichAlgorithmSwitch>();
    if (!mpich->error().empty()) refuse(world, "algo_ratio: " + mpich->error());
    forced[0] = kMpichAllreduce[0];
  }
  const SetAlgorithmFn set = pmpi_set_algorithm();
  bool ok = set != nullptr;
  for (std::size_t a = 0; a < algos.size(); ++a)
    ok = ok && set("allreduce", forced[a] ? "mpi" : algos[a].c_str()) == 0;
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
    if (any_forced) fmt::print(" {:>26}", "best/mpich-best");
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
        set("allreduce", forced[a] ? "mpi" : algos[a].c_str());
        if (forced[a] && !mpich->force(*forced[a]))
          refuse(world, fmt::format("algo_ratio: MPI_T could not force {}", algos[a]));
        const double mine = osu_average_us(MPI_COMM_WORLD, iters, std::max(1L, iters / 10), [&] {
          MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        });
        // Back to auto: a forced algorithm may not apply to the mean's one double.
        if (forced[a] && !mpich->force(kMpichAllreduce[0]))
          refuse(world, "algo_ratio: MPI_T could not force auto");
        double sum = 0;
        PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lat[a].push_back(sum / p);
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
    if (any_forced) {
      std::vector<double> ratio;
      for (int r = 0; r < repeats; ++r) {
        double ours = std::numeric_limits<double>::infinity(), theirs = ours;
        for (std::size_t a = 0; a < algos.size(); ++a)
          (forced[a] ? theirs : ours) = std::min(forced[a] ? theirs : ours, lat[a][r]);
        ratio.push_back(ours / theirs);
      }
      const Spread s = spread_of(ratio);
      fmt::print(" {:>8.3f} [{:>6.3f}..{:<6.3f}]", s.median, s.p25, s.p75);
    }
    fmt::print("\n");
  }
  mpich.reset();  // MPI_T's handles go before MPI does
  MPI_Finalize();
  return 0;
}
