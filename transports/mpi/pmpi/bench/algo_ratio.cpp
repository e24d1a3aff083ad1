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
#include <string>
#include <vector>

#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/mpich_force.hpp"
#include "transports/mpi/pmpi/bench/osu_method.hpp"
#include "transports/mpi/pmpi/bench/ratio_stats.hpp"

namespace {

// What the command line asks for. forced[a]: the MPICH algorithm entry a
// forces (`mpi`, entry 0, forces auto once any does).
struct Plan {
  std::vector<std::string> algos;
  std::vector<std::optional<MpichAllreduceAlgorithm>> forced;
  bool any_forced = false;
  std::vector<long> sizes;
  int repeats = 41;
  long iterations = 200;
};

Plan parse_plan(const BenchWorld& world, int argc, char** argv) {
  const auto positive = [&](const std::string& text) {
    if (const std::optional<long> v = whole_positive(text)) return *v;
    refuse(world, fmt::format("algo_ratio: '{}' is not a whole number > 0; usage: algo_ratio "
                              "[ALGOS] [SIZES,...] [REPEATS] [ITERATIONS]", text));
  };
  Plan plan;
  plan.algos = comma_list(argc > 1 ? argv[1] : "rhd,ring");
  plan.algos.insert(plan.algos.begin(), "mpi");
  for (const std::string& s : comma_list(argc > 2 ? argv[2] : "8,1024,65536,1048576"))
    plan.sizes.push_back(positive(s));
  if (argc > 3) plan.repeats = static_cast<int>(positive(argv[3]));
  if (argc > 4) plan.iterations = positive(argv[4]);
  constexpr std::string_view kMpich = "mpich:";
  plan.forced.resize(plan.algos.size());
  for (std::size_t a = 0; a < plan.algos.size(); ++a) {
    if (plan.algos[a].rfind(kMpich, 0) != 0) continue;
    const std::string_view name = std::string_view(plan.algos[a]).substr(kMpich.size());
    plan.forced[a] = mpich_allreduce_algorithm(name);
    if (!plan.forced[a])
      refuse(world,
             fmt::format("algo_ratio: '{}' is not an MPICH algorithm; accepted: mpich:{{{}}}",
                         plan.algos[a], mpich_allreduce_names()));
    plan.any_forced = true;
  }
  if (plan.any_forced &&
      std::all_of(plan.forced.begin() + 1, plan.forced.end(), [](const auto& f) { return f; }))
    refuse(world, "algo_ratio: with mpich: entries, name a collbench algorithm too");
  return plan;
}

// MPI_T's switch when an entry forces an MPICH algorithm (then `mpi` is auto);
// checks that libcollbench-pmpi.so takes every entry's name.
std::unique_ptr<MpichAlgorithmSwitch> prepare_switches(const BenchWorld& world, Plan& plan,
                                                       SetAlgorithmFn set) {
  std::unique_ptr<MpichAlgorithmSwitch> mpich;
  if (plan.any_forced) {
    mpich = std::make_unique<MpichAlgorithmSwitch>();
    if (!mpich->error().empty()) refuse(world, "algo_ratio: " + mpich->error());
    plan.forced[0] = kMpichAllreduce[0];
  }
  bool ok = set != nullptr;
  for (std::size_t a = 0; a < plan.algos.size(); ++a)
    ok = ok && set("allreduce", plan.forced[a] ? "mpi" : plan.algos[a].c_str()) == 0;
  if (!ok)
    refuse(world, "algo_ratio: needs libcollbench-pmpi.so in LD_PRELOAD and allreduce algorithm "
                  "names");
  return mpich;
}

void print_header(const Plan& plan, int p) {
  fmt::print("# MPI_Allreduce, {} ranks, MPI_FLOAT sum, {} repeats x {} calls per block; "
             "ratio = algorithm / mpi per repeat: median [p25..p75]\n",
             p, plan.repeats, plan.iterations);
  fmt::print("{:>10} {:>9}", "bytes", "mpi(us)");
  for (std::size_t a = 1; a < plan.algos.size(); ++a)
    fmt::print(" {:>10} {:>26}", plan.algos[a] + "(us)", plan.algos[a] + "/mpi");
  if (plan.any_forced) fmt::print(" {:>26}", "best/mpich-best");
  fmt::print("\n");
}

// lat[a][r]: entry a's OSU-method average (us, mean over ranks) in repeat r
// at `bytes`, the entries' order rotated every repeat.
std::vector<std::vector<double>> time_blocks(const BenchWorld& world, const Plan& plan,
                                             SetAlgorithmFn set, MpichAlgorithmSwitch* mpich,
                                             long bytes) {
  const int count = static_cast<int>(std::max(1L, bytes / 4));
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(in.size());
  const long iters = bytes >= 65536 ? std::max(10L, plan.iterations / 10) : plan.iterations;
  std::vector<std::vector<double>> lat(plan.algos.size());
  for (int r = 0; r < plan.repeats; ++r) {
    for (std::size_t k = 0; k < plan.algos.size(); ++k) {
      const std::size_t a = (k + static_cast<std::size_t>(r)) % plan.algos.size();
      const std::optional<MpichAllreduceAlgorithm>& forced = plan.forced[a];
      set("allreduce", forced ? "mpi" : plan.algos[a].c_str());
      if (forced && !mpich->force(*forced))
        refuse(world, fmt::format("algo_ratio: MPI_T could not force {}", plan.algos[a]));
      const double mine = osu_average_us(MPI_COMM_WORLD, iters, std::max(1L, iters / 10), [&] {
        MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      });
      // Back to auto: a forced algorithm may not apply to the mean's one double.
      if (forced && !mpich->force(kMpichAllreduce[0]))
        refuse(world, "algo_ratio: MPI_T could not force auto");
      double sum = 0;
      PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      lat[a].push_back(sum / world.p);
    }
  }
  return lat;
}

void print_row(const Plan& plan, long bytes, const std::vector<std::vector<double>>& lat) {
  fmt::print("{:>10} {:>9.2f}", bytes, spread_of(lat[0]).median);
  for (std::size_t a = 1; a < plan.algos.size(); ++a) {
    std::vector<double> ratio;
    for (int r = 0; r < plan.repeats; ++r) ratio.push_back(lat[a][r] / lat[0][r]);
    const Spread s = spread_of(ratio);
    fmt::print(" {:>10.2f} {:>8.3f} [{:>6.3f}..{:<6.3f}]", spread_of(lat[a]).median, s.median,
               s.p25, s.p75);
  }
  if (plan.any_forced) {
    std::vector<double> ratio;
    for (int r = 0; r < plan.repeats; ++r) {
      double ours = std::numeric_limits<double>::infinity(), theirs = ours;
      for (std::size_t a = 0; a < plan.algos.size(); ++a)
        (plan.forced[a] ? theirs : ours) = std::min(plan.forced[a] ? theirs : ours, lat[a][r]);
      ratio.push_back(ours / theirs);
    }
    const Spread s = spread_of(ratio);
    fmt::print(" {:>8.3f} [{:>6.3f}..{:<6.3f}]", s.median, s.p25, s.p75);
  }
  fmt::print("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const BenchWorld world = join_world(&argc, &argv);
  Plan plan = parse_plan(world, argc, argv);
  const SetAlgorithmFn set = pmpi_set_algorithm();
  std::unique_ptr<MpichAlgorithmSwitch> mpich = prepare_switches(world, plan, set);
  if (world.rank == 0) print_header(plan, world.p);
  for (long bytes : plan.sizes) {
    const std::vector<std::vector<double>> lat = time_blocks(world, plan, set, mpich.get(), bytes);
    if (world.rank == 0) print_row(plan, bytes, lat);
  }
  mpich.reset();  // MPI_T's handles go before MPI does
  MPI_Finalize();
  return 0;
}
