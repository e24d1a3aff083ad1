// The MPI transport: one rank's Schedule executed over MPI point-to-point
// (schedule_plan.hpp gives the per-step semantics), on buffers it owns.
//
// Everything is allocated once, in the constructor: user buffers (one shared
// allocation laid out per in_place_layout when in place), scratch buffers,
// and one staging area sized for the step with the most reduce-receive
// elements. run() allocates nothing.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/common/buffer_layout.hpp"
#include "transports/mpi/buffer.hpp"
#include "transports/mpi/schedule_plan.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

class MpiScheduleOperation final : public Operation {
 public:
  // `comm` must have schedule.p ranks with this process at schedule.rank.
  // `wait` must be resolved (spin, yield or sleep).
  MpiScheduleOperation(Schedule schedule, MPI_Comm comm, WaitPolicy wait);

  void write_input(std::span<const std::byte> bytes) override;
  void read_output(std::span<std::byte> bytes) override;
  void run() override;

 private:
  Schedule sched_;
  MPI_Comm comm_;
  WaitPolicy wait_;
  std::size_t elem_;
  MpiSchedulePlan plan_;
  BufferLayout layout_;
  AlignedBuffer data_;  // input, output and scratch, as layout_ places them
  std::byte* input_ = nullptr;
  std::byte* output_ = nullptr;
  AlignedBuffer staging_;
  std::vector<std::byte*> bases_;  // per plan slot
  std::vector<MPI_Request> requests_;
};

}  // namespace cb
