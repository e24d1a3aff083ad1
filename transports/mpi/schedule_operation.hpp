// The MPI transport: one rank's Schedule executed over MPI point-to-point.
//
// Per step (schedule.hpp semantics): post every receive (MPI_Irecv) and send
// (MPI_Isend) of the step, wait for all of them with the WaitPolicy, apply the
// reduce-receives in list order from their staging areas, then the local ops
// in list order. Messages are tagged with the step index (mod 32768), so a
// peer running ahead can never match a message of a later step to this one.
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
#include "transports/mpi/buffer.hpp"
#include "transports/transport.hpp"

namespace cb {

class MpiScheduleOperation final : public Operation {
 public:
  // `comm` must have schedule.p ranks with this process at schedule.rank.
  // `wait` must be resolved (spin, yield or sleep).
  MpiScheduleOperation(Schedule schedule, MPI_Comm comm, WaitPolicy wait);

  void write_input(std::span<const std::byte> bytes) override;
  void read_output(std::span<std::byte> bytes) override;
  void run() override;

  // Bytes this operation allocated (user, scratch and staging buffers).
  std::size_t allocated_bytes() const;

 private:
  struct Post {
    std::byte* addr;
    MPI_Count bytes;
    int peer;
    bool is_send;
  };
  struct Apply {  // dst = dst (op) src, count elements
    std::byte* dst;
    const std::byte* src;
    std::size_t count;
  };
  struct LocalOp {
    LocalKind kind;
    std::byte* dst;
    const std::byte* src;
    std::size_t count;
  };
  struct PlannedStep {
    int tag;
    std::vector<Post> posts;
    std::vector<Apply> reduces;
    std::vector<LocalOp> locals;
  };

  std::byte* address(const Region& r) const;
  void plan_steps();

  Schedule sched_;
  MPI_Comm comm_;
  WaitPolicy wait_;
  std::size_t elem_;
  ReduceOp reduce_op_;                    // avg reduces with sum
  AlignedBuffer input_buf_, output_buf_;  // output_buf_ unused when in place
  std::byte* input_ = nullptr;
  std::byte* output_ = nullptr;
  std::vector<AlignedBuffer> scratch_;
  AlignedBuffer staging_;
  std::vector<PlannedStep> steps_;
  std::vector<MPI_Request> requests_;
};

}  // namespace cb
