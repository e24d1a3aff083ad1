// In place, the input and output views share one allocation (schedule.hpp's
// in_place_layout), so a copy between them may be a copy of memory onto
// itself, which the validator rejects as an overlap: skip it instead.
#pragma once

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

// Element offset of `r` inside the in-place allocation (in place only).
inline std::size_t in_place_offset(const CollParams& params, const Region& r) {
  const InPlaceLayout lay = in_place_layout(params.coll, params.p, params.rank, params.count);
  if (r.buf == kInput) return lay.input_offset + r.offset;
  return lay.output_offset + r.offset;
}

// Whether regions a and b are the same memory (both user-buffer views, in place).
inline bool same_memory(const CollParams& params, const Region& a, const Region& b) {
  if (a == b) return true;
  const bool user_a = a.buf == kInput || a.buf == kOutput;
  const bool user_b = b.buf == kInput || b.buf == kOutput;
  if (!params.in_place || !user_a || !user_b || a.count != b.count) return false;
  return in_place_offset(params, a) == in_place_offset(params, b);
}

// dst = src, unless they are the same memory already.
inline void copy_unless_same(ScheduleBuilder& b, const CollParams& params, Region src, Region dst) {
  if (!same_memory(params, src, dst)) b.copy(src, dst);
}

// A local step of its own that copies src to dst, or no step at all when they
// are the same memory already (in place, a reduce-scatter's own block).
inline void copy_step_unless_same(ScheduleBuilder& b, const CollParams& params, Region src,
                                  Region dst) {
  if (same_memory(params, src, dst)) return;
  b.step();
  b.copy(src, dst);
}

}  // namespace cb

namespace cb {

// Where an all-to-all rank sends peer q's block from. Out of place that is
// input block q. In place, receives write the very blocks sends read, so
// snapshot() first copies every block but the rank's own into scratch
// ((p-1)·n elements, in peer order without the rank itself) and the sends
// read the copy.
class AlltoallSendBlocks {
 public:
  explicit AlltoallSendBlocks(const CollParams& params)
      : n_(params.count), r_(params.rank), p_(params.p), snap_(params.in_place) {}

  bool needs_snapshot() const { return snap_ && p_ > 1; }

  // The local step 0 that takes the snapshot, when one is needed.
  void snapshot_step(ScheduleBuilder& b) {
    if (!needs_snapshot()) return;
    b.step();
    snapshot(b);
  }

  // Local ops of the step that precedes the first send (in place only).
  void snapshot(ScheduleBuilder& b) {
    buf_ = b.add_scratch(static_cast<std::size_t>(p_ - 1) * n_);
    const std::size_t r = static_cast<std::size_t>(r_), p = static_cast<std::size_t>(p_);
    if (r > 0) b.copy({kInput, 0, r * n_}, {buf_, 0, r * n_});
    if (r + 1 < p)
      b.copy({kInput, (r + 1) * n_, (p - r - 1) * n_}, {buf_, r * n_, (p - r - 1) * n_});
  }

  Region of(int q) const {
    const auto qq = static_cast<std::size_t>(q);
    if (!snap_) return {kInput, qq * n_, n_};
    return {buf_, (q < r_ ? qq : qq - 1) * n_, n_};
  }

 private:
  std::size_t n_;
  int r_, p_;
  bool snap_;
  BufferId buf_ = kInput;
};

// Output block q of an all-to-all: where the block from rank q lands.
inline Region alltoall_out_block(const CollParams& params, int q) {
  return {kOutput, static_cast<std::size_t>(q) * params.count, params.count};
}

// An all-to-all rank's own block, from its input to its output block (a local
// op of the current step, none in place, where it is there already).
inline void alltoall_keep_own(ScheduleBuilder& b, const CollParams& params) {
  const Region own{kInput, static_cast<std::size_t>(params.rank) * params.count, params.count};
  copy_unless_same(b, params, own, alltoall_out_block(params, params.rank));
}

}  // namespace cb
