#include "harness/sweep/time_schedule.hpp"

#include <memory>
#include <vector>

#include "harness/sweep/timing.hpp"
#include "models/robust_fit.hpp"

namespace cb {

std::optional<double> time_schedule(const TransportSpec& t, const std::string& label,
                                    const Schedule& s, Group& group, const SamplingPlan& plan) {
  Case c;
  c.transport = label;
  c.coll = s.coll;
  c.algorithm = s.algorithm;
  c.dtype = s.dtype;
  c.ranks = s.p;
  c.count = s.count;
  const std::unique_ptr<Operation> op = t.make_operation(c, &s, group);
  bool interrupted = false;
  const std::vector<double> samples = time_samples(*op, group, plan, interrupted);
  if (interrupted) return std::nullopt;
  return group.rank() == 0 ? models::median(samples) : 0.0;
}

}  // namespace cb
