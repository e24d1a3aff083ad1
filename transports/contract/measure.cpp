#include "transports/contract/measure.hpp"

#include "transports/contract/sizes.hpp"

namespace cb {

std::size_t Case::bytes() const { return bytes_for_count(coll, dtype, ranks, count); }

std::vector<Measurement> Measurer::measure_interleaved(std::span<const Case> cases,
                                                       std::span<const SamplingPlan> plans,
                                                       Group& group) {
  std::vector<Measurement> out;
  out.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    out.push_back(measure(cases[i], plans[i], group));
    if (out.back().interrupted) break;
  }
  return out;
}

}  // namespace cb
