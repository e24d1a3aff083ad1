// Per-communicator state of the interposition library, cached on the
// caller's communicator with an attribute keyval so MPI frees it with the
// communicator (MPI_Comm_free, or MPI_Finalize for the predefined ones).
//
// The schedules' point-to-point traffic runs on a private copy of the
// communicator (MPI_Comm_split with the same order, which unlike
// MPI_Comm_dup copies none of the application's attributes), so their tags
// can never match the application's own receives. Per call shape (collective,
// datatype, op, in place, count, split below p) it keeps the chosen algorithm and its
// planned schedule; scratch and staging memory is one arena per
// communicator, grown to the largest plan run on it.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "transports/mpi/buffer.hpp"
#include "transports/mpi/pmpi/counters.hpp"
#include "transports/mpi/schedule_plan.hpp"

namespace cb::pmpi {

struct CallKey {
  Collective coll;
  DataType dtype;
  ReduceOp op;
  bool in_place;
  std::size_t count;
  // MPI_Reduce_scatter's balanced split of fewer than p elements, padded to
  // count 1: the same count as an equal-count call of one element per rank,
  // but `selection` and `auto` decide it differently (interpose.cpp, choose).
  bool split_below_p = false;
  friend bool operator==(const CallKey&, const CallKey&) = default;
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const {
    const std::uint64_t tag = static_cast<std::uint64_t>(k.coll) |
                              static_cast<std::uint64_t>(k.dtype) << 4 |
                              static_cast<std::uint64_t>(k.op) << 8 |
                              static_cast<std::uint64_t>(k.in_place) << 12 |
                              static_cast<std::uint64_t>(k.split_below_p) << 13;
    return std::hash<std::uint64_t>()(k.count * 0x9E3779B97F4A7C15ull ^ tag);
  }
};

// The entry points whose calls a communicator remembers (PassMemo).
enum class EntryPoint : std::uint8_t {
  allreduce, reduce_scatter_block, reduce_scatter, allgather, alltoall, count_
};

// The arguments of one intercepted call that decide what it runs, besides
// the communicator and the settings: equal keys are equal calls. Unused
// fields stay at their defaults (the send side of an in-place call).
struct PassKey {
  EntryPoint point = EntryPoint::count_;
  MPI_Datatype type = MPI_DATATYPE_NULL;       // recvtype for all-gather, all-to-all
  MPI_Datatype send_type = MPI_DATATYPE_NULL;  // all-gather, all-to-all out of place
  MPI_Op op = MPI_OP_NULL;
  int count = 0;       // count, recvcount, or MPI_Reduce_scatter's recvcounts[0]
  int send_count = 0;  // all-gather, all-to-all out of place
  // MPI_Reduce_scatter: -1 when every rank's count is recvcounts[0], else
  // the sum of recvcounts; `irregular` when they are not the balanced split
  // of it (then the counts themselves are compared too: PassMemo::counts).
  long long split_total = -1;
  bool irregular = false;
  bool send_in_place = false;
  bool recv_in_place = false;
  friend bool operator==(const PassKey&, const PassKey&) = default;
};

// The last call of one entry point on a communicator that went to MPI's own
// collective, passed (the `mpi` slot) or fallen back (with its reason), with
// its S for the counters: the same arguments again, in the same epoch, go
// straight to PMPI_, neither classified nor looked up, and are counted as the
// first was. The epoch moves with every change of the settings and every
// MPI_Type_free: a datatype handle names one type until it is freed, and then
// may come back naming another.
struct PassMemo {
  PassKey key;
  unsigned epoch = 0;  // 0: nothing remembered (epochs start at 1)
  std::size_t bytes = 0;
  std::optional<Fallback> fallback;  // set: counted as this fallback
  std::vector<int> counts;           // MPI_Reduce_scatter's recvcounts, when key.irregular
};

// What one call shape runs: a schedule (slot > 0) or the library (fallback).
struct Entry {
  int slot = -1;
  std::optional<Fallback> fallback;  // set when slot <= 0
  std::string detail;                // for the notice ("MPIR_Allreduce_intra_smp" ...)
  MpiSchedulePlan plan;
  std::vector<std::size_t> scratch_offsets;  // bytes into the arena
  std::size_t staging_offset = 0;
  std::size_t input_copy_offset = 0;  // where a written-to send buffer is copied
  std::size_t input_bytes = 0;
  std::size_t arena_bytes = 0;
  std::unique_ptr<Tally> tally;  // when a schedule runs
};

struct CommState {
  bool inter = false;
  MPI_Comm comm = MPI_COMM_NULL;  // private copy (intracommunicators only)
  int p = 1;
  int rank = 0;
  WaitPolicy wait = WaitPolicy::spin;
  unsigned generation = 0;
  std::unordered_map<CallKey, std::unique_ptr<Entry>, CallKeyHash> cache;
  // The last shape called: a loop of equal calls skips the hash lookup.
  CallKey last_key{};
  Entry* last = nullptr;
  std::array<PassMemo, static_cast<std::size_t>(EntryPoint::count_)> pass;
  AlignedBuffer arena;
  std::vector<std::byte*> bases;
  std::vector<MPI_Request> requests;
};

// Creates the keyval (once, after MPI_Init) and frees it (before MPI_Finalize,
// after deleting the state on MPI_COMM_WORLD and MPI_COMM_SELF).
void create_keyval();
void free_keyval();

// The state of `comm`, made on first use: collective over `comm` for an
// intracommunicator (the private copy, and the wait policy when
// COLLBENCH_WAIT=auto), local for an intercommunicator. Each thread
// remembers the last communicator it asked about, so a loop of calls on one
// communicator skips the attribute lookup; freeing any state forgets that.
CommState& state_of(MPI_Comm comm, WaitPolicy configured);

// The state this thread last asked state_of for, when that was for `comm`
// and no state has been freed since; else nullptr. No MPI call.
CommState* remembered_state(MPI_Comm comm);

// Cache entries per communicator before the cache starts over.
inline constexpr std::size_t kMaxEntries = 256;

}  // namespace cb::pmpi
