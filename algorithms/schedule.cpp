#include "algorithms/schedule.hpp"

#include <algorithm>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"

namespace cb {

std::size_t input_count(Collective coll, int p, std::size_t count) {
  return collective_spec(coll).input_per_rank ? count * static_cast<std::size_t>(p) : count;
}

std::size_t output_count(Collective coll, int p, std::size_t count) {
  return collective_spec(coll).output_per_rank ? count * static_cast<std::size_t>(p) : count;
}

InPlaceLayout in_place_layout(Collective coll, int p, int rank, std::size_t count) {
  const CollectiveSpec& spec = collective_spec(coll);
  const std::size_t block = count * static_cast<std::size_t>(rank);
  return {std::max(input_count(coll, p, count), output_count(coll, p, count)),
          spec.in_place_input_at_own_block ? block : 0,
          spec.in_place_output_at_own_block ? block : 0};
}

std::size_t Schedule::input_count() const { return cb::input_count(coll, p, count); }
std::size_t Schedule::output_count() const { return cb::output_count(coll, p, count); }

std::size_t Schedule::buffer_count(BufferId buf) const {
  if (buf == kInput) return input_count();
  if (buf == kOutput) return output_count();
  const std::size_t k = buf - kScratch0;
  CB_CHECK(k < scratch_counts.size(), "scratch buffer {} not declared", k);
  return scratch_counts[k];
}

}  // namespace cb
