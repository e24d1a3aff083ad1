#include "harness/sweep/process_measurer.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "algorithms/registry.hpp"
#include "harness/runtime/group.hpp"
#include "transports/contract/arrival.hpp"
#include "harness/sweep/mode_probe.hpp"
#include "harness/sweep/timing.hpp"
#include "harness/verify/verification.hpp"

namespace cb {
namespace {

class ProcessMeasurer final : public Measurer {
 public:
  explicit ProcessMeasurer(const TransportSpec& t) : t_(t) {}

  Measurement measure(const Case& c, const SamplingPlan& plan, Group& group) override {
    const std::unique_ptr<Operation> op = make_operation(c, group);
    Measurement m = prepare(c, plan, group);
    if (m.interrupted) return m;
    write_case_input(*op, c, group.rank(), plan.seed);
    finish(m, time_samples(*op, group, plan), *op, c, plan, group);
    return m;
  }

  // Every case's Operation (buffers included) lives through the whole
  // measurement; the probe is taken once, right before the turns begin.
  std::vector<Measurement> measure_interleaved(std::span<const Case> cases,
                                               std::span<const SamplingPlan> plans,
                                               Group& group) override {
    std::vector<std::unique_ptr<Operation>> ops;
    std::vector<Operation*> turns;
    for (const Case& c : cases) {
      ops.push_back(make_operation(c, group));
      turns.push_back(ops.back().get());
    }
    const Measurement common = prepare(cases.front(), plans.front(), group);
    std::vector<Measurement> out(cases.size(), common);
    if (common.interrupted) return out;
    for (std::size_t i = 0; i < cases.size(); ++i)
      write_case_input(*ops[i], cases[i], group.rank(), plans[i].seed);
    std::vector<TimedSamples> timed = time_interleaved(turns, group, plans.front());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      finish(out[i], std::move(timed[i]), *ops[i], cases[i], plans[i], group);
      if (out[i].interrupted) break;
    }
    return out;
  }

 private:
  std::unique_ptr<Operation> make_operation(const Case& c, Group& group) const {
    const bool baseline =
        std::find(t_.baselines.begin(), t_.baselines.end(), c.algorithm) != t_.baselines.end();
    std::optional<Schedule> schedule;
    if (!baseline) {
      const CollParams params{c.coll,  group.size(), group.rank(), c.count,           c.dtype,
                              c.op,    c.in_place,   c.segment_bytes, c.ranks_per_node};
      schedule = make_schedule(find_algorithm(c.coll, c.algorithm), params);
    }
    return t_.make_operation(c, schedule ? &*schedule : nullptr, group);
  }

  // What the measurement knows before timing: the mode probe, taken on this
  // group so that it describes the mode the timing runs in (term `probe`; one
  // rank has no peer to probe), and how the ranks wait and start.
  Measurement prepare(const Case& c, const SamplingPlan& plan, Group& group) const {
    Measurement m;
    if (plan.mode_probe && group.size() >= 2) {
      const std::optional<models::ModeProbe> probe = measure_mode_probe(t_, c.transport, group);
      if (!probe) {
        m.interrupted = true;
        return m;
      }
      if (group.rank() == 0) {
        m.probe_small_s = probe->small_s;
        m.probe_large_s = probe->large_s;
      }
    }
    m.oversubscribed = group.oversubscribed();
    m.wait = group.wait_policy();
    m.start = plan.start;
    return m;
  }

  // The timed samples into m, then verification with fresh data (timed runs
  // work on real data too: the verification pattern of another seed).
  static void finish(Measurement& m, TimedSamples timed, Operation& op, const Case& c,
                     const SamplingPlan& plan, Group& group) {
    m.times_s = std::move(timed.times_s);
    m.interrupted = timed.interrupted;
    if (plan.start == StartMethod::window) {
      m.late = timed.late;
      m.clock_sync_s = timed.clock_sync_s;
    }
    if (plan.arrival && plan.arrival->active())
      m.arrival = ArrivalSamples{plan.arrival->text(), std::move(timed.after_last_s),
                                 std::move(timed.early_in_s), std::move(timed.noskew_s)};
    if (m.interrupted) return;
    if (plan.verify) m.wrong = verify_case(op, c, group, plan.seed + 1);
  }

  const TransportSpec& t_;
};

}  // namespace

std::unique_ptr<Measurer> make_process_measurer(const TransportSpec& transport) {
  return std::make_unique<ProcessMeasurer>(transport);
}

}  // namespace cb
