// What the harness times: one rank's view of one configured collective.
//
// Per-process transports (MPI, IPC) turn a Schedule into an Operation; library
// baselines (MPI_Allreduce..., ncclAllReduce...) implement the same interface
// without a schedule, so the harness times, verifies and reports both alike.
// The in-process executors (reference/, sim/) run all ranks at once and have
// their own entry points.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace cb {

// How a rank waits for messages. spin: busy-poll (lowest latency when every
// rank has a core); yield: poll then sched_yield(); sleep: poll then a short
// nanosleep. auto resolves to spin when ranks on the node <= usable cores and
// to yield/sleep otherwise, because spinning waiters steal the cores that the
// ranks doing work need.
enum class WaitPolicy { automatic, spin, yield, sleep };

class Operation {
 public:
  virtual ~Operation() = default;
  // Bytes of the input view (Schedule::input_count() elements), written
  // before a run; for in-place operations this writes into the shared buffer.
  virtual void write_input(std::span<const std::byte> bytes) = 0;
  // Bytes of the output view, read after a run.
  virtual void read_output(std::span<std::byte> bytes) = 0;
  // One complete collective on this rank. Not thread-safe; the harness
  // surrounds it with its barrier and clock.
  virtual void run() = 0;
};

}  // namespace cb
