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

// Cache entries per communicator before the cache starts over.
inline constexpr std::size_t kMaxEntries = 256;

}  // namespace cb::pmpi
