// make_big_results: writes a synthetic results CSV of N rows for measuring
// `collbench fit` at scale (docs/scale.md).
//
//   build/tests/benchmarks/make_big_results OUT.csv [--rows N] [--shape SHAPE]
//                                           [--sizes-per-config M]
//
// Shapes (each the worst case for some stage of `fit`):
//   one      all N rows in one configuration, sizes stepping by 4 bytes (-i 4):
//            knee detection on one very long sweep (--sizes-per-config M cuts
//            it into configurations of M sizes that differ in rank count).
//   grid     2 transports x 4 collectives x every algorithm + the mpi baseline
//            x 25 sizes (4 B .. 64 MiB by 2, x p for all but all-reduce) x as
//            many rank counts as it takes (N rounded up to whole
//            configurations): tens of thousands of short configurations,
//            thousands of crossover groups.
//   repeats  6 all-reduce algorithms at p = 2, 4 x 25 sizes, each size
//            measured again and again (identical keys): few configurations,
//            each with tens of thousands of rows but only 25 distinct sizes.
//   algos    4 collectives x every algorithm at p = 2 x 10,000 linear sizes:
//            long sweeps in every crossover group (best choices and crossovers
//            over thousands of common sizes).
//
// Times are the model's own: each algorithm's closed form
// (models/predict.hpp) at alpha-beta-gamma parameters that change at a
// 64 KiB protocol knee, the mpi baseline priced as the registry prices
// baselines (kPricesBaselines), times 2% Gaussian noise from a fixed seed, so
// that fits, knees and crossovers have something to find and the same
// arguments always give the same file. Bad input: one line, exit 2, no file.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "harness/runtime/exit_status.hpp"
#include "models/io/output_file.hpp"
#include "models/model_params.hpp"
#include "models/predict.hpp"

namespace {

using cb::AlgorithmEntry;
using cb::Collective;

constexpr std::string_view kColumns =
    "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
    "time_median_us,time_min_us,time_mean_us,time_p95_us,time_max_us,ci_lo_us,ci_hi_us,"
    "algbw_GBps,busbw_GBps,wrong,oversubscribed,wait_policy,alpha_s,beta_s_per_B,"
    "gamma_s_per_B,host,timestamp,collbench_version,git_rev,mpi_version\n";

// A synthetic network, not a measurement: eager below the knee, rendezvous
// (a longer latency, a faster wire) from it, so that the fit finds a knee.
constexpr std::uint64_t kKneeBytes = 64 * 1024;
constexpr cb::models::ModelParams kEager{2e-6, 1 / 5e9, 1 / 10e9};
constexpr cb::models::ModelParams kRendezvous{12e-6, 1 / 8e9, 1 / 10e9};
constexpr double kNoise = 0.02;  // standard deviation of the multiplicative noise
constexpr std::uint64_t kSeed = 20261123;
constexpr std::size_t kFlushBytes = 1 << 20;

enum class Shape { one, grid, repeats, algos };

struct Args {
  std::string out;
  long long rows = 1'000'000;
  Shape shape = Shape::one;
  long long sizes_per_config = 0;
};

struct BadArgs {
  std::string what;
};

long long positive(std::string_view flag, std::string_view text) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1)
    throw BadArgs{fmt::format("{} {}: give a whole number >= 1", flag, text)};
  return v;
}

Shape shape_named(std::string_view text) {
  if (text == "one") return Shape::one;
  if (text == "grid") return Shape::grid;
  if (text == "repeats") return Shape::repeats;
  if (text == "algos") return Shape::algos;
  throw BadArgs{fmt::format("--shape {}: accepted: one, grid, repeats, algos", text)};
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i], value;
    if (!arg.starts_with("--")) {
      if (!a.out.empty()) throw BadArgs{fmt::format("{}: one output file only", arg)};
      a.out = arg;
      continue;
    }
    std::string_view flag = arg;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (flag == "--rows" || flag == "--shape" || flag == "--sizes-per-config") {
      if (i + 1 == argc) throw BadArgs{fmt::format("{} needs a value", flag)};
      value = argv[++i];
    }
    if (flag == "--rows") {
      a.rows = positive(flag, value);
    } else if (flag == "--shape") {
      a.shape = shape_named(value);
    } else if (flag == "--sizes-per-config") {
      a.sizes_per_config = positive(flag, value);
    } else {
      throw BadArgs{
          fmt::format("{}: unknown option (accepted: --rows N, --shape one|grid|repeats|algos, "
                      "--sizes-per-config M)",
                      arg)};
    }
  }
  if (a.out.empty()) throw BadArgs{"give the output file: make_big_results OUT.csv [--rows N]"};
  if (a.sizes_per_config > 0 && a.shape != Shape::one)
    throw BadArgs{"--sizes-per-config: shape one only"};
  return a;
}

// Writes rows into `file` in chunks; counts them.
class Writer {
 public:
  explicit Writer(cb::io::OutputFile& file) : file_(file), noise_(0, kNoise) {}

  void row(std::string_view transport, Collective coll, const AlgorithmEntry& algo,
           std::string_view name, int ranks, std::uint64_t count) {
    const cb::models::Scenario s{coll, ranks};
    const std::uint64_t bytes = cb::models::bytes_for_count(coll, ranks, s.dtype, count);
    const auto& params = bytes < kKneeBytes ? kEager : kRendezvous;
    const double us =
        cb::models::predict_seconds(algo, s, count, params) * 1e6 * (1 + noise_(rng_));
    const double algbw = static_cast<double>(bytes) / (us * 1e-6) / 1e9;
    const double busbw = algbw * 2 * (ranks - 1) / ranks;
    const bool reduces = coll == Collective::allreduce || coll == Collective::reduce_scatter;
    fmt::format_to(std::back_inserter(buf_),
                   "{},{},{},fp32,{},out,{},{},{},10,{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},"
                   "{:.6g},{:.6g},{:.6g},0,0,spin,,,,bench,2026-11-23T00:00:00Z,0.1.0,"
                   "synthetic,MPICH Version: 4.0.2\n",
                   transport, cb::to_string(coll), name, reduces ? "sum" : "", ranks, bytes, count,
                   us, us, us, us, us, us * 0.99, us * 1.01, algbw, busbw);
    ++n;
    if (buf_.size() >= kFlushBytes) flush();
  }
  // The mpi baseline's row, priced as the registry prices baselines.
  void baseline(std::string_view transport, Collective coll, int ranks, std::uint64_t count) {
    row(transport, coll, cb::baseline_price_entry(coll), "mpi", ranks, count);
  }
  void flush() {
    file_.write(buf_);
    buf_.clear();
  }

  long long n = 0;

 private:
  cb::io::OutputFile& file_;
  std::string buf_;
  std::mt19937_64 rng_{kSeed};
  std::normal_distribution<double> noise_;
};

constexpr Collective kCollectives[] = {Collective::allreduce, Collective::reduce_scatter,
                                       Collective::allgather, Collective::alltoall};

// Every algorithm of `coll` and then the baseline, as `each(entry, name)`.
template <typename F>
void each_algorithm(Collective coll, F each) {
  for (const AlgorithmEntry& algo : cb::algorithms_for(coll)) each(algo, algo.name);
  each(cb::baseline_price_entry(coll), std::string_view("mpi"));
}

void shape_one(Writer& w, long long rows, long long per) {
  const AlgorithmEntry& ring = cb::find_algorithm(Collective::allreduce, "ring");
  for (long long i = 0; i < rows; ++i)
    w.row("mpi", Collective::allreduce, ring, "ring", static_cast<int>(2 + i / per),
          static_cast<std::uint64_t>(i % per + 1));
}

void shape_grid(Writer& w, long long rows) {
  for (int p = 2;; ++p)
    for (const char* transport : {"mpi", "ipc"})
      for (Collective coll : kCollectives) {
        bool done = false;
        each_algorithm(coll, [&](const AlgorithmEntry& algo, std::string_view name) {
          if (done) return;
          for (int k = 0; k < 25; ++k) w.row(transport, coll, algo, name, p, 1ull << k);
          done = w.n >= rows;  // whole configurations only (a fit needs 3 sizes)
        });
        if (done) return;
      }
}

void shape_repeats(Writer& w, long long rows) {
  // Five of the registry's all-reduce algorithms, then the baseline.
  std::vector<std::pair<const AlgorithmEntry*, std::string_view>> algos;
  for (const char* name : {"ring", "tree", "butterfly", "rhd", "naive"})
    algos.emplace_back(&cb::find_algorithm(Collective::allreduce, name), name);
  algos.emplace_back(&cb::baseline_price_entry(Collective::allreduce), "mpi");
  for (;;)
    for (int p : {2, 4})
      for (const auto& [algo, name] : algos)
        for (int k = 0; k < 25; ++k) {
          w.row("mpi", Collective::allreduce, *algo, name, p, 1ull << k);
          if (w.n == rows) return;
        }
}

void shape_algos(Writer& w, long long rows) {
  long long algos = 0;
  for (Collective coll : kCollectives)
    algos += static_cast<long long>(cb::algorithms_for(coll).size()) + 1;
  const long long per = std::max(3LL, rows / algos);
  for (;;)
    for (Collective coll : kCollectives) {
      bool done = false;
      each_algorithm(coll, [&](const AlgorithmEntry& algo, std::string_view name) {
        for (long long count = 1; count <= per && !done; ++count) {
          w.row("mpi", coll, algo, name, 2, static_cast<std::uint64_t>(count));
          done = w.n == rows;
        }
      });
      if (done) return;
    }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  try {
    a = parse(argc, argv);
    cb::io::check_output_path(a.out, "OUT.csv");
  } catch (const BadArgs& e) {
    std::fprintf(stderr, "make_big_results: %s\n", e.what.c_str());
    return 2;
  } catch (const cb::UsageError& e) {
    std::fprintf(stderr, "make_big_results: %s\n", e.what());
    return 2;
  }
  try {
    // Removed unless committed: a failed write leaves no file.
    cb::io::OutputFile file(a.out, "OUT.csv", false);
    file.write(kColumns);
    Writer w(file);
    switch (a.shape) {
      case Shape::one:
        shape_one(w, a.rows, a.sizes_per_config ? a.sizes_per_config : a.rows);
        break;
      case Shape::grid:
        shape_grid(w, a.rows);
        break;
      case Shape::repeats:
        shape_repeats(w, a.rows);
        break;
      case Shape::algos:
        shape_algos(w, a.rows);
        break;
    }
    w.flush();
    file.commit();
    std::fprintf(stderr, "make_big_results: %lld rows written to %s\n", w.n, a.out.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_big_results: %s\n", e.what());
    return cb::kExitWriteFailed;
  }
  return 0;
}
