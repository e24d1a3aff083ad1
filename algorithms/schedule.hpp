// The schedule: one rank's program for one collective, as plain data.
//
// Every algorithm emits schedules, every transport executes them, the models
// count rounds and bytes from them, and the tests run them in-process. Units:
// every offset and count in this file is in ELEMENTS of the schedule's datatype,
// never bytes.
//
// Execution semantics of one Step (all transports implement exactly this):
//  1. All sends and receives of the step are posted together and proceed
//     concurrently. A send's source is read while the step runs, so nothing in
//     the same step (receive or local op) may write a region a send reads.
//  2. When all of them have completed, reduce-receives are applied in list
//     order: dst = dst (op) message. Copy-receives land in dst directly; their
//     regions overlap nothing else written in the step. Reduce-receives may
//     overlap each other (they are applied one after another).
//  3. Then the local ops run in list order.
// A rank starts step s+1 only after its step s is complete.
//
// Matching: a send in step s from rank a to rank b matches a receive from a in
// step s at rank b; when a step has several messages between the same pair,
// the k-th send matches the k-th receive (MPI's non-overtaking order). Matched
// messages have equal counts. Because every match lies within one step index,
// steps are global rounds: a rank with nothing to do in a round still has an
// (empty) step there, so the models can cost step s across all ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/types.hpp"

namespace cb {

// Buffers a schedule refers to. kInput and kOutput are the user's send and
// receive buffers (see in_place_layout for how they alias when in place);
// scratch buffer k is BufferId(kScratch0 + k) with the size the schedule
// declares in Schedule::scratch_counts[k].
using BufferId = std::uint16_t;
inline constexpr BufferId kInput = 0;
inline constexpr BufferId kOutput = 1;
inline constexpr BufferId kScratch0 = 2;

struct Region {
  BufferId buf = kOutput;
  std::size_t offset = 0;  // elements
  std::size_t count = 0;   // elements
  friend bool operator==(const Region&, const Region&) = default;
};

struct Send {
  int peer = -1;
  Region src;
};

enum class RecvMode : std::uint8_t { copy, reduce };

struct Recv {
  int peer = -1;
  Region dst;
  RecvMode mode = RecvMode::copy;
};

// copy:    dst = src
// reduce:  dst = dst (op) src
// average: dst = dst / p (src unused); appended once at the end for ReduceOp::avg.
enum class LocalKind : std::uint8_t { copy, reduce, average };

struct Local {
  LocalKind kind = LocalKind::copy;
  Region src;
  Region dst;
};

struct Step {
  std::vector<Send> sends;
  std::vector<Recv> recvs;
  std::vector<Local> locals;
  bool communicates() const { return !sends.empty() || !recvs.empty(); }
};

struct Schedule {
  Collective coll = Collective::allreduce;
  std::string algorithm;  // registry name, e.g. "ring"
  int p = 1;              // ranks
  int rank = 0;
  // The collective's count, as in the MPI call: allreduce count;
  // reduce_scatter recvcount (per-rank block); allgather sendcount;
  // alltoall sendcount per peer.
  std::size_t count = 0;
  DataType dtype = DataType::fp32;
  // Reductions use this op; avg reduces with sum and ends with LocalKind::average.
  ReduceOp op = ReduceOp::sum;
  bool in_place = false;
  std::size_t segment_bytes = 0;  // the pipelining segment used (0 = none)
  std::vector<std::size_t> scratch_counts;  // elements per scratch buffer
  // A windowed build (see ScheduleBuilder) holds steps [first_step,
  // first_step + steps.size()) of a schedule that has total_steps in all.
  std::uint64_t first_step = 0;
  std::uint64_t total_steps = 0;
  std::vector<Step> steps;

  // Elements in the user-visible buffers, from coll, p and count.
  std::size_t input_count() const;
  std::size_t output_count() const;
  // Elements of buffer `buf` (input, output or scratch).
  std::size_t buffer_count(BufferId buf) const;
};

// In-place layouts follow nccl-tests: one allocation of `total` elements holds
// both views, input at input_offset and output at output_offset.
//   allreduce       total = count,   input = output = [0, count)
//   reduce_scatter  total = p*count, input = [0, p*count), output = [rank*count, +count)
//   allgather       total = p*count, input = [rank*count, +count), output = [0, p*count)
//   alltoall        total = p*count, input = output = [0, p*count)
struct InPlaceLayout {
  std::size_t total = 0;
  std::size_t input_offset = 0;
  std::size_t output_offset = 0;
};
InPlaceLayout in_place_layout(Collective coll, int p, int rank, std::size_t count);

// Input/output element counts of a collective, independent of a schedule.
std::size_t input_count(Collective coll, int p, std::size_t count);
std::size_t output_count(Collective coll, int p, std::size_t count);

}  // namespace cb
