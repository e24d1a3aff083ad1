#include "algorithms/builder.hpp"

#include <utility>

#include "algorithms/check.hpp"

namespace cb {

ScheduleBuilder::ScheduleBuilder(const CollParams& params, std::string algorithm,
                                 std::uint64_t window_begin, std::uint64_t window_end,
                                 Schedule storage)
    : params_(params), sched_(std::move(storage)), begin_(window_begin), end_(window_end) {
  sched_.scratch_counts.clear();
  sched_.segment_bytes = 0;
  CB_CHECK(params.p >= 1 && params.rank >= 0 && params.rank < params.p,
           "rank {} of p {}", params.rank, params.p);
  sched_.coll = params.coll;
  sched_.algorithm = std::move(algorithm);
  sched_.p = params.p;
  sched_.rank = params.rank;
  sched_.count = params.count;
  sched_.dtype = params.dtype;
  sched_.op = params.op;
  sched_.in_place = params.in_place;
  sched_.first_step = window_begin;
}

BufferId ScheduleBuilder::add_scratch(std::size_t count) {
  sched_.scratch_counts.push_back(count);
  return static_cast<BufferId>(kScratch0 + sched_.scratch_counts.size() - 1);
}

std::uint64_t ScheduleBuilder::step() {
  const std::uint64_t index = next_step_++;
  if (index >= begin_ && index < end_) {
    if (used_steps_ < sched_.steps.size()) {
      Step& s = sched_.steps[used_steps_];
      s.sends.clear();
      s.recvs.clear();
      s.locals.clear();
    } else {
      sched_.steps.emplace_back();
    }
    ++used_steps_;
  }
  return index;
}

Step* ScheduleBuilder::current() {
  CB_CHECK(next_step_ > 0, "{}: op added before the first step()", sched_.algorithm);
  const std::uint64_t index = next_step_ - 1;
  if (index < begin_ || index >= end_) return nullptr;
  return &sched_.steps[used_steps_ - 1];
}

void ScheduleBuilder::send(int peer, Region src) {
  CB_CHECK(peer >= 0 && peer < params_.p && peer != params_.rank, "bad send peer {}", peer);
  if (Step* s = current()) s->sends.push_back({peer, src});
}

void ScheduleBuilder::recv(int peer, Region dst) {
  CB_CHECK(peer >= 0 && peer < params_.p && peer != params_.rank, "bad recv peer {}", peer);
  if (Step* s = current()) s->recvs.push_back({peer, dst, RecvMode::copy});
}

void ScheduleBuilder::recv_reduce(int peer, Region dst) {
  CB_CHECK(peer >= 0 && peer < params_.p && peer != params_.rank, "bad recv peer {}", peer);
  if (Step* s = current()) s->recvs.push_back({peer, dst, RecvMode::reduce});
}

void ScheduleBuilder::copy(Region src, Region dst) {
  CB_CHECK(src.count == dst.count, "copy of {} into {} elements", src.count, dst.count);
  if (src == dst) return;  // in-place layouts make some copies vanish
  if (Step* s = current()) s->locals.push_back({LocalKind::copy, src, dst});
}

void ScheduleBuilder::reduce(Region src, Region dst) {
  CB_CHECK(src.count == dst.count, "reduce of {} into {} elements", src.count, dst.count);
  if (Step* s = current()) s->locals.push_back({LocalKind::reduce, src, dst});
}

void ScheduleBuilder::average(Region dst) {
  if (Step* s = current()) s->locals.push_back({LocalKind::average, {}, dst});
}

Schedule ScheduleBuilder::finish() && {
  sched_.total_steps = next_step_;
  sched_.steps.resize(used_steps_);
  return std::move(sched_);
}

}  // namespace cb
