#include "transports/common/rank_memory.hpp"

#include <algorithm>

#include "algorithms/check.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {

RankMemory::RankMemory(const Schedule& s, std::span<const std::byte> input)
    : rank_(s.rank), p_(s.p), dtype_(s.dtype), op_(s.op), layout_(buffer_layout(s)) {
  CB_CHECK(input.size() == layout_.input_bytes, "rank {}: input of {} bytes, expected {}", s.rank,
           input.size(), layout_.input_bytes);
  counts_ = {s.buffer_count(kInput), s.buffer_count(kOutput)};
  for (std::size_t n : s.scratch_counts) counts_.push_back(n);
  data_.assign(layout_.total_bytes, kPoison);
  std::copy(input.begin(), input.end(),
            data_.begin() + static_cast<std::ptrdiff_t>(layout_.input_offset));
}

std::span<std::byte> RankMemory::bytes(const Region& r) {
  CB_CHECK(r.buf < counts_.size(), "rank {}: buffer {} not declared", rank_, r.buf);
  CB_CHECK(r.offset <= counts_[r.buf] && r.count <= counts_[r.buf] - r.offset,
           "rank {}: region [{}, +{}) out of bounds of buffer {}", rank_, r.offset, r.count,
           r.buf);
  return std::span<std::byte>(data_).subspan(layout_.offset_of(r), r.count * layout_.elem_size);
}

void RankMemory::reduce(std::span<std::byte> dst, std::span<const std::byte> src) {
  tmp_.assign(src.begin(), src.end());
  reduce_inplace(dtype_, op_, dst.data(), tmp_.data(), dst.size() / layout_.elem_size);
}

void RankMemory::average(std::span<std::byte> dst) {
  divide_inplace(dtype_, dst.data(), dst.size() / layout_.elem_size, p_);
}

std::vector<std::byte> RankMemory::output() {
  const auto out = bytes({kOutput, 0, counts_[kOutput]});
  return {out.begin(), out.end()};
}

}  // namespace cb
