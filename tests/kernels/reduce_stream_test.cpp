// reduce_into_streaming (transports/kernels/reduce.hpp) gives, bit for bit,
// what copying a into dst and reduce_inplace(dst, b) give (dst = a included), for every datatype
// and op, at lengths and offsets that reach its plain head, its streamed
// chunks and its tail, and writes nothing outside dst.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "algorithms/types.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {
namespace {

// Random bytes: NaNs of every payload included, since the IPC transport's
// results must match the reference executor's byte for byte.
std::vector<std::byte> values(DataType t, std::size_t n, std::uint32_t seed) {
  std::vector<std::byte> out(n * element_size(t));
  std::mt19937 rng(seed);
  for (std::byte& b : out) b = static_cast<std::byte>(rng());
  return out;
}

TEST(ReduceIntoStreaming, EqualsCopyThenReduceInplace) {
  constexpr std::size_t kGuard = 96;  // bytes on each side of dst that must stay as they were
  for (DataType t : kAllDataTypes) {
    const std::size_t es = element_size(t);
    std::vector<ReduceOp> ops(std::begin(kAllReduceOps), std::end(kAllReduceOps));
    ops.insert(ops.end(), std::begin(kIntegerOnlyOps), std::end(kIntegerOnlyOps));
    for (ReduceOp op : ops) {
      if (!op_applies(op, t)) continue;
      for (std::size_t n : {0, 1, 7, 33, 64, 65, 200, 1000, 3001}) {
        for (auto [dst_off, b_off] : {std::pair{0, 1}, {1, 0}, {5, 3}, {0, 0}}) {
          const auto a = values(t, n + 8, static_cast<std::uint32_t>(n * 7 + 1));
          const auto full_b = values(t, n + 8, static_cast<std::uint32_t>(n * 7 + 2));
          const std::byte* b = full_b.data() + static_cast<std::size_t>(b_off) * es;
          const std::size_t bytes = n * es, at = kGuard + static_cast<std::size_t>(dst_off) * es;
          std::vector<std::byte> want(bytes + 2 * kGuard + 8 * es, std::byte{0x5a});
          std::vector<std::byte> got = want;
          std::memcpy(want.data() + at, a.data() + es, bytes);
          reduce_inplace(t, op, want.data() + at, b, n);
          reduce_into_streaming(t, op, got.data() + at, a.data() + es, b, n);
          ASSERT_EQ(got, want) << to_string(t) << " " << to_string(op) << " n=" << n
                               << " dst offset=" << dst_off << " b offset=" << b_off;
          // dst = a: reduce_inplace with streaming stores.
          std::vector<std::byte> same(want.size(), std::byte{0x5a});
          std::memcpy(same.data() + at, a.data() + es, bytes);
          reduce_into_streaming(t, op, same.data() + at, same.data() + at, b, n);
          ASSERT_EQ(same, want) << to_string(t) << " " << to_string(op) << " n=" << n
                                << " in place, dst offset=" << dst_off << " b offset=" << b_off;
        }
      }
    }
  }
}

}  // namespace
}  // namespace cb
