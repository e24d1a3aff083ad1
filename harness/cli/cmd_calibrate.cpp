// `mpiexec -n 2 collbench calibrate [--out FILE]`: measures the model's three
// numbers without any collective, for an out-of-sample test of the model
// (`collbench fit --calibration FILE`):
//  - alpha, beta: ping-pong between ranks 0 and 1 over MPI point-to-point (the
//    MPI transport's own path), 8 B .. 16 MiB; half the round trip, median of
//    the repetitions, fitted as t = alpha + beta * bytes (models/calibration.hpp).
//  - gamma: reduce_inplace (fp32 sum, the kernel every transport reduces with)
//    timed on ranks 0 and 1 at once, as in a 2-rank collective where both
//    reduce together and share the memory bus, 4 KiB (in cache) .. 64 MiB
//    (out of cache); the slower rank's median counts.
// Waits poll with the resolved wait policy, so an oversubscribed launch does
// not spin against the rank it is waiting for.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "harness/config.hpp"
#include "harness/report/metadata.hpp"
#include "harness/runtime/world.hpp"
#include "models/calibration.hpp"
#include "models/fit_run.hpp"
#include "models/robust_fit.hpp"
#include "transports/kernels/reduce.hpp"

#if CB_HAVE_MPI
#include <mpi.h>

#include "harness/runtime/group_mpi.hpp"
#include "transports/mpi/wait.hpp"
#endif

namespace cb {
namespace {

struct CalibrateOptions {
  std::string out = "calibration.csv";
};

#if CB_HAVE_MPI

constexpr std::size_t kPingMin = 8, kPingMax = std::size_t{16} << 20;
constexpr std::size_t kReduceMin = std::size_t{4} << 10, kReduceMax = std::size_t{64} << 20;
constexpr std::size_t kMemcpyInCache = std::size_t{256} << 10;  // fits L2 with room

// Repetitions: many for small sizes (cheap, noisy), at least 30 for large ones.
int repetitions(std::size_t bytes, std::size_t budget_bytes, int lo, int hi) {
  return static_cast<int>(std::clamp<std::size_t>(budget_bytes / bytes, lo, hi));
}

// Median half round trip on rank 0 (rank 1 echoes); 0 on rank 1.
double half_round_trip(MPI_Comm comm, int rank, std::vector<char>& buf, std::size_t bytes,
                       WaitPolicy wait) {
  const int reps = repetitions(bytes, std::size_t{64} << 20, 30, 2000);
  const int n = static_cast<int>(bytes);
  const int peer = 1 - rank;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps));
  for (int i = -3; i < reps; ++i) {  // 3 untimed warm-ups
    MPI_Request req;
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      check_mpi(MPI_Isend(buf.data(), n, MPI_BYTE, peer, 0, comm, &req), "MPI_Isend");
      wait_one(req, wait);
      check_mpi(MPI_Irecv(buf.data(), n, MPI_BYTE, peer, 0, comm, &req), "MPI_Irecv");
      wait_one(req, wait);
    } else {
      check_mpi(MPI_Irecv(buf.data(), n, MPI_BYTE, peer, 0, comm, &req), "MPI_Irecv");
      wait_one(req, wait);
      check_mpi(MPI_Isend(buf.data(), n, MPI_BYTE, peer, 0, comm, &req), "MPI_Isend");
      wait_one(req, wait);
    }
    if (i >= 0) samples.push_back((MPI_Wtime() - t0) / 2);
  }
  return rank == 0 ? models::median(samples) : 0.0;
}

// The slower rank's median time of one fp32-sum reduce_inplace of `bytes`
// (or, with `copy`, one memcpy of them), both ranks working at once as they
// do inside a collective.
double local_time(Group& pair, std::vector<float>& dst, const std::vector<float>& src,
                  std::size_t bytes, bool copy) {
  const int reps = repetitions(bytes, std::size_t{256} << 20, 5, 2000);
  const std::size_t count = bytes / sizeof(float);
  pair.barrier();
  std::vector<double> samples;
  for (int i = -2; i < reps; ++i) {
    const double t0 = MPI_Wtime();
    if (copy)
      std::memcpy(dst.data(), src.data(), bytes);
    else
      reduce_inplace(DataType::fp32, ReduceOp::sum, dst.data(), src.data(), count);
    if (i >= 0) samples.push_back(MPI_Wtime() - t0);
  }
  double t = models::median(samples);
  pair.max_to_root({&t, 1});
  return t;
}

void calibrate(const CalibrateOptions& o) {
  Group& w = world();
  if (w.size() < 2)
    throw UsageError(
        "calibrate needs 2 ranks for its ping-pong: run `mpiexec -n 2 collbench calibrate`");
  const bool root = w.rank() == 0;
  if (root && w.size() > 2)
    fmt::print(stderr, "collbench: calibrating with ranks 0 and 1; the other {} ranks idle\n",
               w.size() - 2);
  std::unique_ptr<Group> pair = w.first_ranks(2, WaitPolicy::automatic);
  std::vector<double> ping_bytes, half_rtt, red_bytes, red_time;
  double memcpy_s = 0, memcpy_in_cache_s = 0;
  if (pair) {
    const MPI_Comm comm = mpi_comm_of(*pair);
    const WaitPolicy wait = pair->wait_policy();
    if (root && pair->oversubscribed())
      fmt::print(stderr,
                 "collbench: warning: the 2 ranks share fewer than 2 cores; the calibration "
                 "measures the OS scheduler as much as the transport\n");
    std::vector<char> buf(kPingMax, 1);
    for (std::size_t b = kPingMin; b <= kPingMax; b *= 2) {
      pair->barrier();
      const double t = half_round_trip(comm, pair->rank(), buf, b, wait);
      ping_bytes.push_back(static_cast<double>(b));
      half_rtt.push_back(t);
    }
    std::vector<float> dst(kReduceMax / sizeof(float), 0.25f);
    const std::vector<float> src(kReduceMax / sizeof(float), 0.5f);
    for (std::size_t b = kReduceMin; b <= kReduceMax; b *= 4) {
      red_bytes.push_back(static_cast<double>(b));
      red_time.push_back(local_time(*pair, dst, src, b, false));
    }
    memcpy_s = local_time(*pair, dst, src, kReduceMax, true);
    memcpy_in_cache_s = local_time(*pair, dst, src, kMemcpyInCache, true);
  }
  w.any(false, WaitPolicy::sleep);  // idle ranks sleep here until the pair is done
  if (!root) return;

  models::Calibration c = models::fit_calibration(ping_bytes, half_rtt, red_bytes, red_time);
  const RunMetadata meta = collect_metadata();
  c.transport = "mpi";
  c.ranks = 2;
  c.host = meta.host;
  c.timestamp = meta.timestamp;
  c.collbench_version = meta.collbench_version;
  c.git_rev = meta.git_rev;
  c.mpi_version = meta.mpi_version;
  c.memcpy_GBps = static_cast<double>(kReduceMax) / memcpy_s * 1e-9;
  c.memcpy_in_cache_GBps = static_cast<double>(kMemcpyInCache) / memcpy_in_cache_s * 1e-9;

  fmt::print("# ping-pong (MPI point-to-point, ranks 0 and 1): half round trip, median\n");
  fmt::print("{:>12} {:>12} {:>12}\n", "size(B)", "time(us)", "GB/s");
  for (std::size_t i = 0; i < ping_bytes.size(); ++i)
    fmt::print("{:>12} {:>12.3f} {:>12.3f}\n", ping_bytes[i], half_rtt[i] * 1e6,
               ping_bytes[i] / half_rtt[i] * 1e-9);
  fmt::print("# reduce_inplace fp32 sum on both ranks at once: slower rank's median\n");
  fmt::print("{:>12} {:>12} {:>12}\n", "size(B)", "time(us)", "GB/s");
  for (std::size_t i = 0; i < red_bytes.size(); ++i)
    fmt::print("{:>12} {:>12.3f} {:>12.3f}\n", red_bytes[i], red_time[i] * 1e6,
               red_bytes[i] / red_time[i] * 1e-9);
  fmt::print("# memcpy on both ranks at once: {:.2f} GB/s at {} B, {:.2f} GB/s at {} B\n",
             c.memcpy_GBps, kReduceMax, c.memcpy_in_cache_GBps, kMemcpyInCache);
  std::string knees;
  for (double k : c.pingpong_knees_B) knees += fmt::format(" {}", k);
  fmt::print("alpha {:.4g} s ({:.3f} us), beta {:.4g} s/B ({:.3f} GB/s), gamma {:.4g} s/B "
             "({:.3f} GB/s); ping-pong knees at:{}\n",
             c.params.alpha_s, c.params.alpha_s * 1e6, c.params.beta_s_per_B,
             1e-9 / c.params.beta_s_per_B, c.params.gamma_s_per_B, 1e-9 / c.params.gamma_s_per_B,
             knees.empty() ? " none" : knees);

  const std::filesystem::path out(o.out);
  const std::string dir = out.has_parent_path() ? out.parent_path().string() : ".";
  for (const std::string& p :
       models::write_files_atomically(dir, {{out.filename().string(), models::format_calibration(c)}}))
    fmt::print("wrote {}\n", p);
}

#else

void calibrate(const CalibrateOptions&) {
  throw UsageError(
      "calibrate measures over MPI, and this collbench was built without it (MPICH not found "
      "at configure time; install libmpich-dev and reconfigure)");
}

#endif

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure alpha and beta (MPI ping-pong) and gamma (the reduction kernel) without any "
      "collective; run as `mpiexec -n 2 collbench calibrate`");
  cmd->add_option("--out", o->out, "calibration file to write (CSV)")->capture_default_str();
  cmd->callback([o] { calibrate(*o); });
}

}  // namespace cb
