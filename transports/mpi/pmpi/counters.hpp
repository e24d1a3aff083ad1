// The library's counters: calls, bytes and time per (collective, algorithm,
// size bucket), and the calls that went to the MPI library instead, with why.
// COLLBENCH_REPORT=1 prints them at MPI_Finalize on rank 0 of MPI_COMM_WORLD
// (that rank's own counts: every rank makes the same calls, times differ).
// Time is wall time inside the call, without the one-time set-up of a
// communicator and of a call shape (its schedule).
//
// Counting never takes a lock on the call path, nor a locked add: a counter
// is written by one thread only, so a count is a plain load and store
// (relaxed atomics, so that a reader on another thread sees whole values).
// A schedule's calls go to its call shape's Tally, written only by the thread
// calling on that communicator (MPI forbids concurrent collectives on one).
// Calls the library passes to MPI (`mpi`) go to the calling thread's own
// table, registered while the thread lives and folded into the tables when
// it ends: a library call of 0.3 us showed two locked adds (about 5%).
// Fallbacks go to the same per-thread table: a repeated fallback takes the
// same shortcut as a repeated pass (interpose.cpp), so it costs the same.
// Time is only taken when the report is on.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "algorithms/types.hpp"

namespace cb::pmpi {

// Why a call went to the MPI library (PMPI_) instead of a schedule.
enum class Fallback : std::uint8_t {
  derived_datatype,    // elements not contiguous (vector, struct, resized ...)
  datatype,            // a predefined type collbench does not reduce (MPI_SHORT ...)
  op,                  // a built-in op collbench lacks (MPI_BAND, MPI_MAXLOC ...)
  user_op,             // MPI_Op_create
  intercommunicator,
  in_place_form,       // MPI_IN_PLACE where the call does not allow it
  size_limit,          // S above COLLBENCH_MAX_BYTES
  type_mismatch,       // send and receive sides differ in bytes
  no_algorithm,        // the chosen name does not exist for this collective
  model_choice,        // selection file names an MPICH algorithm collbench lacks
  irregular_counts,    // MPI_Reduce_scatter with per-rank counts that differ
  // MPI_Reduce_scatter's balanced split of fewer elements than ranks under
  // `selection` or `auto`: the padded block schedule (one element per rank)
  // is not the shape either decided on (interpose.cpp, choose).
  split_below_p,
  count_
};
std::string_view to_string(Fallback f);

// Algorithm slot 0 is "mpi" (the library's collective, chosen with
// COLLBENCH_ALGO=mpi or by default); slot i > 0 is algorithms_for(coll)[i-1].
inline constexpr int kMpiSlot = 0;
inline constexpr int kMaxAlgorithmSlots = 16;

// Size bucket of S bytes: 0 for 0, else ceil(log2 S) + 1 (bucket b holds
// 2^(b-2) < S <= 2^(b-1)).
int size_bucket(std::size_t bytes);

// One call the library passed to MPI (algorithm slot kMpiSlot), S = bytes,
// nanos of wall time (0 when not timed), in the calling thread's table.
void count_library_call(Collective coll, std::size_t bytes, std::uint64_t nanos);

// The calls of one call shape (collective, algorithm, S bytes per call).
// Registered while it lives, so calls() and report() see it; folded into the
// tables when it goes. add() must only be called by one thread at a time.
class Tally {
 public:
  Tally(Collective coll, int algorithm_slot, std::size_t bytes);
  ~Tally();
  Tally(const Tally&) = delete;
  Tally& operator=(const Tally&) = delete;

  void add(std::uint64_t nanos) {
    calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (nanos)
      nanos_.store(nanos_.load(std::memory_order_relaxed) + nanos, std::memory_order_relaxed);
  }

 private:
  friend struct TallyAccess;
  Collective coll_;
  int slot_;
  std::size_t bytes_;
  std::atomic<std::uint64_t> calls_{0}, nanos_{0};
};
void count_fallback(Collective coll, Fallback why, std::size_t bytes);

std::uint64_t calls(Collective coll, int algorithm_slot);
std::uint64_t fallbacks(Collective coll, Fallback why);

// The counters table (several lines, '#' comment header).
std::string report();

}  // namespace cb::pmpi
