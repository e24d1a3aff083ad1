// The IPC step loop, shared by the host and CUDA memory backends.
//
// Protocol ("receiver pulls"): every rank's data allocation is mapped by the
// peers that receive from it, so a message is ONE copy (or one reduction)
// performed by the receiver, straight from the sender's source region into
// the receiver's destination; nothing is staged. Per step:
//  1. Publish: for each peer b that this rank sends to in the step, ready[b]
//     (own control block) is raised by the number of messages, with release:
//     the sources are final (the previous step completed, device work included).
//  2. Receive: wait (acquire) until sender a's ready[me] covers this step, then
//     copy-receives copy from a's mapped region; reduce-receives reduce from it
//     in place (dst = dst op peer's region) strictly in the step's list order,
//     as the schedule semantics require; then ack[a] (own block) is raised,
//     with release, once every message from a in this step has been read.
//  3. Local ops in list order.
//  4. Wait until each peer b this rank sent to has acked the step's messages:
//     until then b may still read the sources, so the next step must not
//     overwrite them (a send completes when the buffer may be reused, as in MPI).
// Why the result is bit-identical to the reference executor: a sender does not
// modify a published region until acked, and the schedule forbids writes in
// the step to regions its sends read, so reading the peer's memory during the
// step sees exactly the message; reduce-receives run in list order, and
// copy-receive regions overlap nothing else written in the step, so their
// order is immaterial. A copy-receive into scratch that is only consumed by a
// local reduce is not copied at all: the local reduce reads the sender's
// region directly and that sender is acked after the local ops, and a local
// copy followed by a reduce into the same region runs as one pass D = A op X
// (algorithms/fuse.hpp).
// Counters are cumulative over runs, so back-to-back runs
// need no reset and a fast rank may start the next run while peers finish.
//
// Which message is which: prepare exchanges, over MPI, each rank's list of
// sends to each peer (step, byte offset in its allocation, elements); the k-th
// receive from a in step s pairs with a's k-th send to us in step s
// (MPI's non-overtaking order) and is checked to have the same count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/ipc/common/control.hpp"
#include "transports/common/buffer_layout.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/transport.hpp"

namespace cb::ipc {

// How one backend moves and combines bytes. Pointers are host pointers for
// the host backend and device pointers for the CUDA backend. Counts are
// elements of the schedule's datatype; copy takes bytes.
class DataMover {
 public:
  virtual ~DataMover() = default;
  virtual void copy(std::byte* dst, const std::byte* src, std::size_t bytes) = 0;
  // dst = dst (op) src with the schedule's op (avg reduces as sum).
  virtual void reduce(std::byte* dst, const std::byte* src, std::size_t count) = 0;
  // The same where a later step sends from dst, so a peer reads it next: a
  // backend may write it past this core's cache. This default is reduce.
  virtual void reduce_for_peer(std::byte* dst, const std::byte* src, std::size_t count) {
    reduce(dst, src, count);
  }
  // dst = a (op) b: a local copy and the reduce after it as one pass
  // (algorithms/fuse.hpp's copy_then_reduce); dst overlaps neither a nor b.
  // This default runs them one after the other.
  virtual void copy_reduce(std::byte* dst, const std::byte* a, const std::byte* b,
                           std::size_t count, std::size_t elem_size) {
    copy(dst, a, count * elem_size);
    reduce(dst, b, count);
  }
  // dst = dst / p (the final step of avg).
  virtual void divide(std::byte* dst, std::size_t count) = 0;
  // Returns once every copy/reduce/divide issued so far has finished and its
  // writes are visible to other processes (host: at once; CUDA: stream sync).
  virtual void complete() = 0;
};

// Per-rank view of the mapped memory the executor works on.
struct IpcMemory {
  std::byte* data = nullptr;                  // own allocation
  std::vector<const std::byte*> peer_data;    // by rank; null where unmapped
  OwnControl control;                         // own control block
  std::vector<PeerControl> peer_control;      // by rank; empty view where unmapped
};

// Ranks that schedule `s` sends to or receives from.
std::vector<bool> peers_of(const Schedule& s);

class IpcExecutor {
 public:
  // Collective over `group` (exchanges send descriptors). `policy` must be
  // resolved; `mover` and `mem` must outlive the executor.
  IpcExecutor(const Schedule& s, const BufferLayout& layout, Group& group, WaitPolicy policy,
              DataMover& mover, const IpcMemory& mem);
  // One complete collective (all steps).
  void run();

 private:
  struct RecvOp {
    const std::byte* src;
    std::byte* dst;
    std::size_t count;
  };
  struct PeerGroup {  // everything one peer sends us in one step
    int peer;
    std::uint64_t through;  // messages from peer within a run, up to and including this step
    std::vector<RecvOp> copies;
    int reduces_left = 0;  // scratch during run()
    bool copied = false;   // scratch during run()
    bool acked = false;    // scratch during run(): all read (ack published unless deferred)
    bool ack_after_locals = false;  // a local op reads this peer's memory (fuse.hpp)
  };
  struct ReduceOp {
    std::size_t group;  // index into the step's groups
    RecvOp op;
    bool peer_reads = false;  // a later step sends from op.dst (DataMover::reduce_for_peer)
  };
  struct SendGroup {
    int peer;
    std::uint64_t through;  // messages to peer within a run, up to and including this step
  };
  struct LocalOp {
    LocalKind kind;
    const std::byte* src;
    std::byte* dst;
    std::size_t count;
    // A copy fused with the reduce after it (dst = src op then): that
    // reduce's source, else null.
    const std::byte* then = nullptr;
  };
  struct CompiledStep {
    std::vector<SendGroup> sends;
    std::vector<PeerGroup> groups;
    std::vector<ReduceOp> reduces;  // in the schedule's list order
    std::vector<LocalOp> locals;
    bool ack_after_locals = false;  // some group's ack waits for the local ops
  };

  void receive(CompiledStep& step, std::uint64_t run);

  int rank_;
  std::size_t elem_size_;
  WaitPolicy policy_;
  DataMover& mover_;
  const IpcMemory& mem_;
  std::vector<std::uint64_t> per_run_to_;    // messages to each peer per run
  std::vector<std::uint64_t> per_run_from_;  // messages from each peer per run
  std::vector<CompiledStep> steps_;
  std::uint64_t runs_ = 0;
};

}  // namespace cb::ipc
