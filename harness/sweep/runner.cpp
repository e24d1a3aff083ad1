#include "harness/sweep/runner.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <optional>
#include <system_error>
#include <string>
#include <vector>

#include "transports/contract/interrupt.hpp"
#include "harness/runtime/load.hpp"
#include "transports/contract/row.hpp"
#include "models/io/output_file.hpp"
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

// The end of the chunk that starts at `first`: with --order interleaved the
// cases after it that differ only in algorithm (and placement, which the
// chunk's measurement separates again), otherwise the case alone.
std::size_t chunk_end(const std::vector<Case>& cases, std::size_t first, SweepOrder order) {
  std::size_t last = first + 1;
  if (order != SweepOrder::interleaved) return last;
  const Case& a = cases[first];
  while (last < cases.size()) {
    const Case& b = cases[last];
    if (b.coll != a.coll || b.dtype != a.dtype || b.op != a.op || b.count != a.count ||
        b.segment_bytes != a.segment_bytes)
      break;
    ++last;
  }
  return last;
}

std::string describe_chunk(const std::vector<Case>& cases, std::size_t first, std::size_t last) {
  std::string text = describe_case(cases[first]);
  if (last - first > 1)
    text += fmt::format(" (taking turns with {} other configurations of that size)",
                        last - first - 1);
  return text;
}

// Measures cases[i] for i in `todo` (case seeds follow plan positions, from
// `case_index` on): one at a time, or, for a chunk of several, taking turns
// per placement. Entries follow `todo`; an interrupted entry ends them.
std::vector<Measurement> measure_chunk(const std::vector<Case>& cases,
                                       const std::vector<std::size_t>& todo,
                                       const SamplingPlan& sampling, std::uint64_t case_index,
                                       Measurer& measurer, Group& group) {
  const auto plan_of = [&](std::size_t i) {
    SamplingPlan p = sampling;
    p.seed = 2 * (case_index + i) + 1;
    return p;
  };
  std::vector<Measurement> out;
  if (todo.size() == 1) {
    out.push_back(measurer.measure(cases[todo[0]], plan_of(todo[0]), group));
    return out;
  }
  // Out-of-place and in-place cases run in separate turns (they are
  // different operations on the same size); rows keep the plan's order.
  out.resize(todo.size());
  for (bool in_place : {false, true}) {
    std::vector<Case> set;
    std::vector<SamplingPlan> plans;
    std::vector<std::size_t> where;
    for (std::size_t k = 0; k < todo.size(); ++k)
      if (cases[todo[k]].in_place == in_place) {
        set.push_back(cases[todo[k]]);
        plans.push_back(plan_of(todo[k]));
        where.push_back(k);
      }
    if (set.empty()) continue;
    std::vector<Measurement> got = measurer.measure_interleaved(set, plans, group);
    for (std::size_t j = 0; j < got.size(); ++j) {
      out[where[j]] = std::move(got[j]);
      if (out[where[j]].interrupted) {
        // Nothing after an interruption is reported.
        out.resize(where[j] + 1);
        return out;
      }
    }
  }
  return out;
}

// Rank 0: the row of a measured case, to every reporter. A failed write (a
// full disk) stops the sweep like a signal would: every rank learns it at
// the next case boundary.
void emit_row(const Case& c, const Measurement& m, const TransportSpec& t,
              std::vector<std::unique_ptr<Reporter>>& reporters, RunOutcome& outcome) {
  Row row = make_row(c, m);
  // A computed row (the simulator: per_process false) does not depend on the
  // machine's load, and recording it would make two runs of the same inputs
  // differ (study.sh --refit promises the same bytes).
  if (const auto load = t.per_process ? recent_machine_load() : std::nullopt) {
    row.load_avg_1m = load->avg_1m;
    row.procs_running = load->runnable;
  }
  if (t.known_issue) row.known_issue = t.known_issue(c);
  if (t.library_setting) row.library_setting = t.library_setting(c);
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
      for (std::size_t first = 0; first < block.cases.size();) {
        const std::size_t last = chunk_end(block.cases, first, plan.order);
        const WatchdogLabel label(WatchdogLabel::configuration,
                                  describe_chunk(block.cases, first, last));
        if (group->any(interrupt_signal() != 0 || !outcome.write_error.empty())) {
          stop = true;
          break;
        }
        // World rank 0 is in every group and alone knows what is done.
        std::vector<std::size_t> todo;
        for (std::size_t i = first; i < last; ++i)
          if (!group->any(root && done.count(case_key(block.cases[i])) != 0)) todo.push_back(i);
        const std::vector<Measurement> measured =
            measure_chunk(block.cases, todo, plan.sampling, case_index, *measurer, *group);
        first = last;
        for (std::size_t k = 0; k < measured.size(); ++k) {
          const Measurement& m = measured[k];
          if (m.interrupted) {
            stop = true;
            break;
          }
          if (!root) continue;
          emit_row(block.cases[todo[k]], m, t, reporters, outcome);
          if (!outcome.write_error.empty()) break;  // the next boundary stops every rank
        }
        if (stop) break;
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
  if (stop) {
    // The signal some rank received (SIGTERM sent to rank 1 alone is
    // reported as SIGTERM, not as rank 0's default): rank 0's own first,
    // else the first of these any rank holds. Every rank asks all three.
    int received = 0;
    for (int sig : {SIGTERM, SIGINT, SIGHUP})
      if (world.any(interrupt_signal() == sig, WaitPolicy::sleep) && received == 0) received = sig;
    if (outcome.write_error.empty() && world.rank() == 0)
      outcome.signal = interrupt_signal() ? interrupt_signal() : received ? received : SIGINT;
  }
  // One status for every rank: rank 0's (it may have stopped for a write error).
  outcome.signal = static_cast<int>(world.broadcast_from_root(outcome.signal));
  return outcome;
}

}  // namespace cb
