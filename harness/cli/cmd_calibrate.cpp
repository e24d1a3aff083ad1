// `mpiexec -n 2 collbench calibrate [--transport mpi|ipc] [--out FILE]`:
// measures the model's parameters without any collective, for an
// out-of-sample test of the model (`collbench fit --calibration FILE`). The
// microbenchmarks, and how each is timed, are harness/calibrate/
// (microbenchmarks.hpp lists them); this file holds the flags and the
// order of the phases.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/calibrate/console.hpp"
#include "harness/calibrate/measure.hpp"
#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/calibrate/rank_plan.hpp"
#include "harness/cli/commands.hpp"
#include "harness/runtime/metadata.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/runtime/group.hpp"
#include "harness/runtime/load.hpp"
#include "harness/runtime/node_layout.hpp"
#include "harness/runtime/rank_subgroup.hpp"
#include "harness/runtime/world.hpp"
#include "harness/sweep/timing.hpp"
#include "models/calibration.hpp"
#include "models/io/output_file.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/contract/sizes.hpp"
#include "transports/contract/transport_spec.hpp"
#include "transports/watchdog.hpp"

namespace cb {
namespace {

struct CalibrateOptions {
  std::string out = "calibration.csv";
  std::string transport = "mpi";
  // Largest ping-pong and exchange size. 64 MiB: past the study's largest
  // sweep size (32 MiB), so that the bend out of cache (4-16 MiB on the VM)
  // has points on both sides for its knee (without them the exchange terms
  // kept ~9 GB/s to the end and priced 8-32 MiB 2-3x fast). A slow network
  // (the testbed's 100 Mbit/s) takes less: 20 runs of each large size
  // would take minutes.
  std::string max_bytes = "64M";
  double timeout_s = 300;  // --timeout: the watchdog's bound on one wait (s; 0 = off), as in run
};

// The transport to calibrate, checked: per-process, built, its options valid.
TransportSpec& calibrated_transport(const std::string& name) {
  TransportSpec& t = find_transport(name);
  if (!t.per_process || !t.make_operation)
    throw UsageError(fmt::format("--transport {}: calibrate measures per-process transports "
                                 "(accepted: mpi, ipc); the simulator takes its parameters as flags",
                                 name));
  if (!t.available) throw UsageError(fmt::format("--transport {}: {}", name, t.unavailable_reason));
  if (t.validate) t.validate(t);
  return t;
}

// -e/--maxbytes as bytes, within 4 KiB .. calibrate::kPingMax.
std::size_t max_ping_bytes(const std::string& text) {
  const std::size_t max_ping = parse_bytes(text, "-e/--maxbytes");
  if (max_ping < 4096 || max_ping > calibrate::kPingMax)
    throw UsageError(fmt::format("-e/--maxbytes '{}' is outside the accepted range 4K..64M", text));
  return max_ping;
}

// The calibration with the run's metadata (host, time, versions).
models::Calibration with_metadata(models::Calibration c, const RunMetadata& meta) {
  c.host = meta.host;
  c.timestamp = meta.timestamp;
  c.collbench_version = meta.collbench_version;
  c.git_rev = meta.git_rev;
  c.mpi_version = meta.mpi_version;
  return c;
}

// Phases: check the flags and the world, measure the network on its pair
// (the others wait), on two levels the intra-node ping-pong on ranks 0 and
// 1 alone and on every node's pair at once, the fan-in when it has 3 or more ranks (calibrate/rank_plan.hpp), then
// on rank 0 fit, warn, print and write.
void run_calibrate(const CalibrateOptions& o) {
  // Before measuring: an unusable --out (a directory, a missing directory,
  // an empty name) fails at once; no directory is created.
  io::check_output_path(o.out, "--out");
  set_timeout_option(o.timeout_s);
  // The flags before the world: a bad value is named even in a launch of one rank.
  TransportSpec& t = calibrated_transport(o.transport);
  const std::size_t max_ping = max_ping_bytes(o.max_bytes);
  // A signal stops at the next sample batch (time_schedule), or within a
  // second where there is none (interrupt.hpp); --out is written only at the end.
  install_interrupt_handlers();
  Group& w = world();
  set_watchdog_rank(w.rank());
  const WatchdogLabel label_for_watchdog(WatchdogLabel::configuration, "calibrate");
  if (w.size() < 2)
    throw UsageError(
        "calibrate needs 2 ranks for its ping-pong: run `mpiexec -n 2 collbench calibrate`");
  const std::string label = t.label ? t.label() : std::string(t.name);
  const bool root = w.rank() == 0;
  // Collective: every rank learns the layout, and so the same plan.
  const NodeLayoutInfo layout = world_node_layout();
  const calibrate::RankPlan plan = calibrate::plan_ranks(w.size(), layout);
  if (root && plan.two_levels())
    fmt::print(stderr, "collbench: two levels ({}): the network with ranks 0 and {}, the fan-in "
               "on the {} node leaders, the intra-node ping-pong with ranks 0 and 1 alone, then "
               "on {} nodes' pairs at once\n",
               layout.describe(), plan.ranks_per_node, plan.fan_in_ranks.size(),
               plan.intra_pairs.size() / 2);
  else if (root && w.size() > 2)
    fmt::print(stderr, "collbench: calibrating with ranks 0 and 1; the other {} ranks idle "
               "until the fan-in (term incast), which all {} ranks run\n",
               w.size() - 2, w.size());
  calibrate::Measurements m;
  {
    const std::unique_ptr<Group> pair =
        rank_subgroup(w, plan.network_pair, WaitPolicy::automatic);
    if (pair) m = calibrate::measure_pair(t, label, max_ping, *pair, root);
  }
  w.any(false, WaitPolicy::sleep);  // idle ranks sleep here until the pair is done
  if (plan.two_levels()) {
    // Rank 0 hands its sizes to every other rank. Rank K measured the
    // network with it and holds them already: they are replaced, not added
    // to, or its pair would ping-pong twice as many sizes as the others.
    const auto sizes = w.broadcast_from_root(static_cast<std::int64_t>(m.ping_B.size()));
    if (!root) {
      m.ping_B.clear();
      for (std::int64_t i = 0; i < sizes; ++i)
        m.ping_B.push_back(static_cast<double>(calibrate::kPingMin << i));
    }
    // The node level as a collective's intra-node phase meets it: every
    // node's pair at once (calibrate::measure_intra says why); ranks 0 and 1
    // alone first, kept beside it in the file.
    const std::vector<int> alone{0, 1};
    if (const std::unique_ptr<Group> pair = rank_subgroup(w, alone, WaitPolicy::automatic))
      m.intra_alone_ping_s = calibrate::measure_intra(t, label, *pair, m.ping_B);
    w.any(false, WaitPolicy::sleep);
    if (const std::unique_ptr<Group> pairs =
            rank_subgroup(w, plan.intra_pairs, WaitPolicy::automatic))
      m.intra_ping_s = calibrate::measure_intra(t, label, *pairs, m.ping_B);
    m.intra_pairs = static_cast<int>(plan.intra_pairs.size() / 2);
    w.any(false, WaitPolicy::sleep);
  }
  if (plan.fan_in_ranks.size() >= 3) {
    const std::unique_ptr<Group> all =
        rank_subgroup(w, plan.fan_in_ranks, WaitPolicy::automatic);
    if (all) calibrate::measure_fan_in(t, label, max_ping, *all, m);
  }
  // The ranks outside the fan-in (two levels: all but the node leaders) wait
  // for it: a launcher that ends a job once its first rank is done (the
  // testbed's MPI_Finalize guard) would end it in the middle.
  w.any(false, WaitPolicy::sleep);
  if (!root) return;

  const RunMetadata meta = collect_metadata();
  const models::Calibration c = with_metadata(calibrate::calibration_of(m, label, plan.ranks_per_node), meta);
  if (meta.load) fmt::print("# load: {}\n", describe(*meta.load));
  if (const std::string warning = load_warning(meta.load, w.ranks_on_node()); !warning.empty())
    fmt::print(stderr, "{}\n", warning);
  calibrate::warn_about_scatter(m);
  calibrate::print_measurements(m, label);
  calibrate::print_fit(c);
  calibrate::print_mode_kept(m);
  io::write_whole_file(o.out, "--out", models::format_calibration(c));
  if (!io::is_stdout(o.out)) fmt::print("wrote {}\n", o.out);
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure the model's parameters (ping-pong, exchange, k messages, copy and reduce "
      "microbenchmarks through a transport) without any collective; run as `mpiexec -n 2 "
      "collbench calibrate`");
  cmd->add_option("--out", o->out, "calibration file to write (CSV)")->capture_default_str();
  cmd->add_option("--transport", o->transport,
                  "transport to calibrate: mpi, or ipc (host shared memory)")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->max_bytes,
                  "largest ping-pong and exchange size, 4K..64M (K/M = 1024^n)")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s,
                  "Watchdog: seconds any single wait for a peer may last before the rank "
                  "reports where it waits and calibrate ends with status 5 (0 = off)")
      ->capture_default_str();
  return {cmd, [o] {
            run_calibrate(*o);
            return 0;
          }};
}

}  // namespace cb
