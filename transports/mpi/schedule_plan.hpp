// One rank's Schedule resolved for repeated execution over MPI point-to-point,
// on buffers that are named per run rather than owned.
//
// The plan records every region as (buffer slot, byte offset), so the same
// plan runs on the harness's own allocations (MpiScheduleOperation) and on
// the buffers of an intercepted MPI call (transports/mpi/pmpi/). Slots:
//   kInput, kOutput        the user views (see in_place_layout when in place),
//   kScratch0 + k          scratch buffer k, scratch_bytes[k] bytes,
//   staging_slot()         the staging area of reduce-receives, staging_bytes.
//
// Per step (schedule.hpp semantics): post every receive (MPI_Irecv) and send
// (MPI_Isend) of the step, wait for all of them with the WaitPolicy, apply the
// reduce-receives in list order from their staging areas, then the local ops
// in list order. Where blocking waits are allowed (spin, no watchdog), a step
// of one receive and one send is one MPI_Sendrecv, and a step of one message
// one MPI_Recv or MPI_Send: the same matching and completion in one library
// call instead of three, which is most of a small message's cost at p = 2. Messages are tagged with the step index (mod 32768), so a
// peer running ahead can never match a message of a later step to this one.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

struct MpiSchedulePlan {
  struct Ref {
    BufferId slot;
    std::size_t byte_offset;
  };
  struct Post {
    Ref addr;
    MPI_Count bytes;
    int peer;
    bool is_send;
  };
  struct Apply {  // dst = dst (op) src, count elements
    Ref dst;
    Ref src;
    std::size_t count;
  };
  struct LocalOp {
    LocalKind kind;
    Ref dst;
    Ref src;  // unused for average
    std::size_t count;
  };
  struct PlannedStep {
    int tag;
    std::vector<Post> posts;  // receives first, then sends
    // At most one receive and one send (and at least one message): the step
    // can run as one blocking MPI call.
    bool one_exchange = false;
    std::vector<Apply> reduces;
    std::vector<LocalOp> locals;
  };

  DataType dtype = DataType::fp32;
  ReduceOp reduce_op = ReduceOp::sum;  // avg reduces with sum
  int p = 1;
  std::size_t elem = 0;                     // bytes per element
  std::vector<std::size_t> scratch_bytes;   // per scratch buffer
  std::size_t staging_bytes = 0;
  std::size_t max_posts = 0;                // requests one step needs
  // Whether any receive or local op writes the input view. Out of place, a
  // caller whose input is read-only (an MPI send buffer) must hand the plan
  // a copy then.
  bool writes_input = false;
  std::vector<PlannedStep> steps;

  BufferId staging_slot() const { return static_cast<BufferId>(kScratch0 + scratch_bytes.size()); }
  std::size_t slot_count() const { return kScratch0 + scratch_bytes.size() + 1; }
};

// Throws InternalError when a region lies outside its buffer.
MpiSchedulePlan plan_schedule(const Schedule& schedule);

// Runs the plan once on `comm` (the schedule's p ranks, this process at the
// schedule's rank). bases[slot] is the first byte of each slot
// (plan.slot_count() entries); `requests` must hold plan.max_posts entries.
// Allocates nothing and plans nothing: everything per step was resolved by
// plan_schedule. Throws std::runtime_error when an MPI call fails.
void run_plan(const MpiSchedulePlan& plan, std::span<std::byte* const> bases, MPI_Comm comm,
              WaitPolicy wait, std::span<MPI_Request> requests);

}  // namespace cb
