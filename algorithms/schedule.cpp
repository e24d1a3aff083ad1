#include "algorithms/schedule.hpp"

#include <stdexcept>

#include "algorithms/check.hpp"

namespace cb {

std::size_t input_count(Collective coll, int p, std::size_t count) {
  switch (coll) {
    case Collective::allreduce:
    case Collective::allgather: return count;
    case Collective::reduce_scatter:
    case Collective::alltoall: return count * static_cast<std::size_t>(p);
  }
  throw std::logic_error("bad Collective");
}

std::size_t output_count(Collective coll, int p, std::size_t count) {
  switch (coll) {
    case Collective::allreduce:
    case Collective::reduce_scatter: return count;
    case Collective::allgather:
    case Collective::alltoall: return count * static_cast<std::size_t>(p);
  }
  throw std::logic_error("bad Collective");
}

InPlaceLayout in_place_layout(Collective coll, int p, int rank, std::size_t count) {
  const std::size_t block = count * static_cast<std::size_t>(rank);
  switch (coll) {
    case Collective::allreduce: return {count, 0, 0};
    case Collective::reduce_scatter: return {count * static_cast<std::size_t>(p), 0, block};
    case Collective::allgather: return {count * static_cast<std::size_t>(p), block, 0};
    case Collective::alltoall: return {count * static_cast<std::size_t>(p), 0, 0};
  }
  throw std::logic_error("bad Collective");
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
