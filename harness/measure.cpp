#include "harness/measure.hpp"

#include "harness/sizes.hpp"

namespace cb {

std::size_t Case::bytes() const { return bytes_for_count(coll, dtype, ranks, count); }

}  // namespace cb
