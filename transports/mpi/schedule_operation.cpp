#include "transports/mpi/schedule_operation.hpp"

#include <cstring>

#include "algorithms/check.hpp"

namespace cb {

MpiScheduleOperation::MpiScheduleOperation(Schedule schedule, MPI_Comm comm, WaitPolicy wait)
    : sched_(std::move(schedule)),
      comm_(comm),
      wait_(wait),
      elem_(element_size(sched_.dtype)),
      plan_(plan_schedule(sched_)) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm_, &size);
  MPI_Comm_rank(comm_, &rank);
  CB_CHECK(size == sched_.p && rank == sched_.rank,
           "schedule for rank {} of {} run on rank {} of {}", sched_.rank, sched_.p, rank, size);
  layout_ = buffer_layout(sched_);
  data_ = AlignedBuffer(layout_.total_bytes);
  input_ = data_.data() + layout_.input_offset;
  output_ = data_.data() + layout_.output_offset;
  staging_ = AlignedBuffer(plan_.staging_bytes);
  bases_.resize(plan_.slot_count());
  bases_[kInput] = input_;
  bases_[kOutput] = output_;
  for (std::size_t k = 0; k < plan_.scratch_bytes.size(); ++k)
    bases_[kScratch0 + k] = data_.data() + layout_.buffer_offset[kScratch0 + k];
  bases_[plan_.staging_slot()] = staging_.data();
  requests_.resize(plan_.max_posts);
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

void MpiScheduleOperation::run() { run_plan(plan_, bases_, comm_, wait_, requests_); }

}  // namespace cb
