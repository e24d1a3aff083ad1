#include "transports/mpi/schedule_operation.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/check.hpp"
#include "transports/kernels/reduce.hpp"
#include "transports/mpi/wait.hpp"

namespace cb {

namespace {
// MPI guarantees MPI_TAG_UB >= 32767.
constexpr std::uint64_t kTagModulus = 32768;
}  // namespace

MpiScheduleOperation::MpiScheduleOperation(Schedule schedule, MPI_Comm comm, WaitPolicy wait)
    : sched_(std::move(schedule)),
      comm_(comm),
      wait_(wait),
      elem_(element_size(sched_.dtype)),
      reduce_op_(sched_.op == ReduceOp::avg ? ReduceOp::sum : sched_.op) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm_, &size);
  MPI_Comm_rank(comm_, &rank);
  CB_CHECK(size == sched_.p && rank == sched_.rank,
           "schedule for rank {} of {} run on rank {} of {}", sched_.rank, sched_.p, rank, size);
  if (sched_.in_place) {
    const InPlaceLayout l = in_place_layout(sched_.coll, sched_.p, sched_.rank, sched_.count);
    input_buf_ = AlignedBuffer(l.total * elem_);
    input_ = input_buf_.data() + l.input_offset * elem_;
    output_ = input_buf_.data() + l.output_offset * elem_;
  } else {
    input_buf_ = AlignedBuffer(sched_.input_count() * elem_);
    output_buf_ = AlignedBuffer(sched_.output_count() * elem_);
    input_ = input_buf_.data();
    output_ = output_buf_.data();
  }
  for (std::size_t n : sched_.scratch_counts) scratch_.emplace_back(n * elem_);
  std::size_t staging = 0;
  for (const Step& step : sched_.steps) {
    std::size_t in_step = 0;
    for (const Recv& r : step.recvs)
      if (r.mode == RecvMode::reduce) in_step += r.dst.count;
    staging = std::max(staging, in_step);
  }
  staging_ = AlignedBuffer(staging * elem_);
  plan_steps();
}

std::byte* MpiScheduleOperation::address(const Region& r) const {
  CB_CHECK(r.offset + r.count <= sched_.buffer_count(r.buf),
           "region [{}, +{}) outside buffer {} of {} elements", r.offset, r.count, r.buf,
           sched_.buffer_count(r.buf));
  std::byte* base = nullptr;
  if (r.buf == kInput)
    base = input_;
  else if (r.buf == kOutput)
    base = output_;
  else
    base = scratch_[r.buf - kScratch0].data();
  return base + r.offset * elem_;
}

// Resolves every region to an address once, so run() only posts and applies.
void MpiScheduleOperation::plan_steps() {
  std::size_t max_posts = 0;
  steps_.reserve(sched_.steps.size());
  for (std::size_t s = 0; s < sched_.steps.size(); ++s) {
    const Step& step = sched_.steps[s];
    PlannedStep plan;
    plan.tag = static_cast<int>((sched_.first_step + s) % kTagModulus);
    std::size_t staged = 0;
    // Zero-element messages are skipped on both sides: matched messages have
    // equal counts, so both ends agree on which ones exist.
    for (const Recv& r : step.recvs) {
      if (r.dst.count == 0) continue;
      std::byte* dst = address(r.dst);
      const MPI_Count bytes = static_cast<MPI_Count>(r.dst.count * elem_);
      if (r.mode == RecvMode::copy) {
        plan.posts.push_back({dst, bytes, r.peer, false});
      } else {
        std::byte* stage = staging_.data() + staged * elem_;
        staged += r.dst.count;
        plan.posts.push_back({stage, bytes, r.peer, false});
        plan.reduces.push_back({dst, stage, r.dst.count});
      }
    }
    for (const Send& snd : step.sends) {
      if (snd.src.count == 0) continue;
      plan.posts.push_back(
          {address(snd.src), static_cast<MPI_Count>(snd.src.count * elem_), snd.peer, true});
    }
    for (const Local& l : step.locals) {
      if (l.dst.count == 0) continue;
      const std::byte* src = l.kind == LocalKind::average ? nullptr : address(l.src);
      plan.locals.push_back({l.kind, address(l.dst), src, l.dst.count});
    }
    max_posts = std::max(max_posts, plan.posts.size());
    steps_.push_back(std::move(plan));
  }
  requests_.resize(max_posts);
}

void MpiScheduleOperation::write_input(std::span<const std::byte> bytes) {
  CB_CHECK(bytes.size() == sched_.input_count() * elem_, "input of {} bytes, expected {}",
           bytes.size(), sched_.input_count() * elem_);
  if (!bytes.empty()) std::memcpy(input_, bytes.data(), bytes.size());
}

void MpiScheduleOperation::read_output(std::span<std::byte> bytes) {
  CB_CHECK(bytes.size() == sched_.output_count() * elem_, "output of {} bytes, expected {}",
           bytes.size(), sched_.output_count() * elem_);
  if (!bytes.empty()) std::memcpy(bytes.data(), output_, bytes.size());
}

void MpiScheduleOperation::run() {
  for (const PlannedStep& step : steps_) {
    const std::size_t n = step.posts.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Post& post = step.posts[i];
      const int rc = post.is_send ? MPI_Isend_c(post.addr, post.bytes, MPI_BYTE, post.peer,
                                                step.tag, comm_, &requests_[i])
                                  : MPI_Irecv_c(post.addr, post.bytes, MPI_BYTE, post.peer,
                                                step.tag, comm_, &requests_[i]);
      check_mpi(rc, post.is_send ? "MPI_Isend_c" : "MPI_Irecv_c");
    }
    wait_all(std::span<MPI_Request>(requests_.data(), n), wait_);
    for (const Apply& a : step.reduces)
      reduce_inplace(sched_.dtype, reduce_op_, a.dst, a.src, a.count);
    for (const LocalOp& l : step.locals) {
      switch (l.kind) {
        case LocalKind::copy:
          std::memmove(l.dst, l.src, l.count * elem_);
          break;
        case LocalKind::reduce:
          reduce_inplace(sched_.dtype, reduce_op_, l.dst, l.src, l.count);
          break;
        case LocalKind::average:
          divide_inplace(sched_.dtype, l.dst, l.count, sched_.p);
          break;
      }
    }
  }
}

std::size_t MpiScheduleOperation::allocated_bytes() const {
  std::size_t total = input_buf_.size() + output_buf_.size() + staging_.size();
  for (const AlignedBuffer& b : scratch_) total += b.size();
  return total;
}

}  // namespace cb
