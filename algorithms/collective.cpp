#include "algorithms/collective.hpp"

#include <stdexcept>

namespace cb {

namespace {

// clang-format off
// coll, name, mpich_name, reducing, input_per_rank, output_per_rank,
// in_place_input_at_own_block, in_place_output_at_own_block, size_per_rank, busbw_steps,
// library_in_place_output_at_start
constexpr CollectiveSpec kCollectives[] = {
    {Collective::allreduce, "allreduce", "Allreduce", true, false, false, false, false, false, 2, false},
    {Collective::reduce_scatter, "reduce_scatter", "Reduce_scatter_block", true, true, false, false, true, true, 1, true},
    {Collective::allgather, "allgather", "Allgather", false, false, true, true, false, true, 1, false},
    {Collective::alltoall, "alltoall", "Alltoall", false, true, true, false, false, true, 1, false},
};
// clang-format on

}  // namespace

const CollectiveSpec& collective_spec(Collective coll) {
  for (const CollectiveSpec& s : kCollectives)
    if (s.coll == coll) return s;
  throw std::logic_error("bad Collective");
}

}  // namespace cb
