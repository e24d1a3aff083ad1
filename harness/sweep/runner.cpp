#include "harness/sweep/runner.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <optional>
#include <system_error>
#include <string>

#include "harness/sweep/interrupt.hpp"
#include "harness/runtime/load.hpp"
#include "harness/report/row.hpp"
#include "harness/io/output_file.hpp"
#include "transports/watchdog.hpp"

namespace cb {
namespace {

// The configuration as the watchdog's message names it.
std::string describe_case(const Case& c) {
  return fmt::format("{} {} {} {}{} {} ({} B) on {} ranks", c.transport, to_string(c.coll),
                     c.algorithm, to_string(c.dtype),
                     is_reducing(c.coll) ? fmt::format(" {}", to_string(c.op)) : "",
                     c.in_place ? "in-place" : "out-of-place", c.bytes(), c.ranks);
}

}  // namespace

// Long on purpose: the per-block protocol every rank follows in lockstep, kept in one place.
RunOutcome run_plan(const Plan& plan, Group& world, Measurer* measurer,
                    std::vector<std::unique_ptr<Reporter>>& reporters,
                    const std::unordered_set<std::string>& done) {
  RunOutcome outcome;
  const bool root = world.rank() == 0;
  const TransportSpec& t = *plan.transport;

  // Seeds follow the case's position in the plan, so every rank (inside a
  // group or not) agrees on them and reruns reproduce the data.
  std::uint64_t case_index = 0;
  bool stop = false;
  for (const RankBlock& block : plan.blocks) {
    std::unique_ptr<Group> group;
    if (t.per_process)
      group = world.first_ranks(block.ranks, plan.wait);
    else if (root)
      group = make_self_group();
    if (group) {
      if (root && group->oversubscribed())
        fmt::print(stderr,
                   "collbench: warning: {} ranks outnumber the usable cores of this node; waits "
                   "{} instead of spinning, and these timings say more about the OS scheduler "
                   "than the transport (rows are marked oversubscribed=1)\n",
                   block.ranks, to_string(group->wait_policy()));
      for (std::size_t i = 0; i < block.cases.size(); ++i) {
        const WatchdogLabel label(WatchdogLabel::configuration, describe_case(block.cases[i]));
        if (group->any(interrupt_signal() != 0 || !outcome.write_error.empty())) {
          stop = true;
          break;
        }
        const Case& c = block.cases[i];
        // World rank 0 is in every group and alone knows what is done.
        if (group->any(root && done.count(case_key(c)) != 0)) continue;
        SamplingPlan sampling = plan.sampling;
        sampling.seed = 2 * (case_index + i) + 1;
        const Measurement m = measurer->measure(c, sampling, *group);
        if (m.interrupted) {
          stop = true;
          break;
        }
        if (!root) continue;
        Row row = make_row(c, m);
        if (const auto load = read_machine_load()) {
          row.load_avg_1m = load->avg_1m;
          row.procs_running = load->runnable;
        }
        if (t.known_issue) row.known_issue = t.known_issue(c);
        // A failed write (a full disk) stops the sweep like a signal would:
        // every rank learns it at the next case boundary.
        try {
          for (auto& r : reporters) r->row(row);
        } catch (const io::WriteError& e) {
          outcome.write_error = e.what();
        } catch (const std::system_error& e) {
          try {
            io::rethrow_print_error(e, "standard output");
          } catch (const io::WriteError& w) {
            outcome.write_error = w.what();
          }
        }
        ++outcome.rows;
        if (row.wrong) outcome.wrong += *row.wrong;
      }
    }
    case_index += block.cases.size();
    {
      // Ranks outside the group were waiting here, asleep, as long as the
      // group measured: no watchdog bound for them (the group's own waits
      // are bounded, and its ranks' exit ends the launch).
      std::optional<WatchdogOff> idle;
      std::optional<InterruptBoundary> boundary;  // the group's ranks decide for it
      if (!group) {
        idle.emplace();
        boundary.emplace();
      }
      stop = world.any(stop || interrupt_signal() != 0 || !outcome.write_error.empty(),
                       WaitPolicy::sleep);
    }
    if (stop) break;
  }
  if (stop && outcome.write_error.empty() && world.rank() == 0)
    outcome.signal = interrupt_signal() ? interrupt_signal() : SIGINT;
  // One status for every rank: rank 0's (it may have stopped for a write error).
  outcome.signal = static_cast<int>(world.broadcast_from_root(outcome.signal));
  return outcome;
}

}  // namespace cb
