#include "harness/sweep/runner.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>

#include "harness/sweep/interrupt.hpp"
#include "harness/report/row.hpp"

namespace cb {

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
        if (group->any(interrupt_signal() != 0)) {
          stop = true;
          break;
        }
        const Case& c = block.cases[i];
        // World rank 0 is in every group and alone knows what is done.
        if (group->any(root && done.count(case_key(c)) != 0)) continue;
        SamplingPlan sampling = plan.sampling;
        sampling.seed = 2 * (case_index + i) + 1;
        const Measurement m = measurer->measure(c, sampling, *group);
        if (!root) continue;
        const Row row = make_row(c, m);
        for (auto& r : reporters) r->row(row);
        ++outcome.rows;
        if (row.wrong) outcome.wrong += *row.wrong;
      }
    }
    case_index += block.cases.size();
    // Ranks outside the group were waiting here, asleep.
    stop = world.any(stop || interrupt_signal() != 0, WaitPolicy::sleep);
    if (stop) break;
  }
  if (stop) outcome.signal = interrupt_signal() ? interrupt_signal() : SIGINT;
  return outcome;
}

}  // namespace cb
