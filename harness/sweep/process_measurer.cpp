#include "harness/sweep/process_measurer.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "algorithms/registry.hpp"
#include "harness/runtime/group.hpp"
#include "harness/sweep/mode_probe.hpp"
#include "harness/sweep/timing.hpp"
#include "harness/verify/verification.hpp"

namespace cb {
namespace {

class ProcessMeasurer final : public Measurer {
 public:
  explicit ProcessMeasurer(const TransportSpec& t) : t_(t) {}

  Measurement measure(const Case& c, const SamplingPlan& plan, Group& group) override {
    const bool baseline =
        std::find(t_.baselines.begin(), t_.baselines.end(), c.algorithm) != t_.baselines.end();
    std::optional<Schedule> schedule;
    if (!baseline) {
      const CollParams params{c.coll,  group.size(), group.rank(), c.count,
                              c.dtype, c.op,         c.in_place,   c.segment_bytes};
      schedule = make_schedule(find_algorithm(c.coll, c.algorithm), params);
    }
    const std::unique_ptr<Operation> op =
        t_.make_operation(c, schedule ? &*schedule : nullptr, group);
    Measurement m;
    // The mode probe first, on this group, so that it describes the mode the
    // timing below runs in (term (i)); one rank has no peer to probe.
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
    // Timed runs work on real data (the verification pattern of another seed).
    write_case_input(*op, c, group.rank(), plan.seed);
    m.start = plan.start;
    TimedSamples timed = time_samples(*op, group, plan);
    m.times_s = std::move(timed.times_s);
    m.interrupted = timed.interrupted;
    if (plan.start == StartMethod::window) m.late = timed.late;
    if (m.interrupted) return m;
    if (plan.verify) m.wrong = verify_case(*op, c, group, plan.seed + 1);
    return m;
  }

 private:
  const TransportSpec& t_;
};

}  // namespace

std::unique_ptr<Measurer> make_process_measurer(const TransportSpec& transport) {
  return std::make_unique<ProcessMeasurer>(transport);
}

}  // namespace cb
