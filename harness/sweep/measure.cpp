#include "harness/sweep/measure.hpp"

#include "harness/sweep/sizes.hpp"

namespace cb {

std::size_t Case::bytes() const { return bytes_for_count(coll, dtype, ranks, count); }

}  // namespace cb
