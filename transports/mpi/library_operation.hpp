// The `mpi` baseline: MPICH's own collective (MPI_Allreduce,
// MPI_Reduce_scatter_block, MPI_Allgather, MPI_Alltoall) behind the same
// Operation interface as the schedules, so it is timed and verified alike.
//
// With WaitPolicy::spin it calls the blocking collective. With yield/sleep
// (ranks outnumber cores) it calls the nonblocking MPI_I* form and completes
// it with the polling wait, because MPICH's blocking collectives busy-poll
// inside UCX and starve the ranks that have work; MPICH may pick a different
// internal algorithm for the nonblocking form, which the docs state.
//
// In place uses MPI_IN_PLACE. Buffer views: as in_place_layout, except
// reduce_scatter in place, whose MPI result lands at the START of the buffer
// (MPI's definition), so the output view is [0, count) there.
// ReduceOp::avg runs the sum and divides by p once at the end (divide_inplace).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "algorithms/types.hpp"
#include "transports/mpi/buffer.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

class MpiLibraryOperation final : public Operation {
 public:
  // `count` has the collective's MPI meaning (see Schedule::count).
  MpiLibraryOperation(Collective coll, DataType dtype, ReduceOp op, bool in_place,
                      std::size_t count, MPI_Comm comm, WaitPolicy wait);

  void write_input(std::span<const std::byte> bytes) override;
  void read_output(std::span<std::byte> bytes) override;
  void run() override;

 private:
  void start(MPI_Request* request);  // nonblocking form when request != nullptr

  Collective coll_;
  DataType dtype_;
  ReduceOp op_;
  bool in_place_;
  std::size_t count_;
  MPI_Comm comm_;
  WaitPolicy wait_;
  int p_ = 1;
  std::size_t elem_;
  MPI_Datatype mpi_type_;
  MPI_Op mpi_op_;
  std::string step_;  // the watchdog's name for the wait: "MPI_Iallreduce (the mpi baseline)"
  AlignedBuffer input_buf_, output_buf_;
  std::byte* input_ = nullptr;
  std::byte* output_ = nullptr;
  std::size_t input_bytes_ = 0, output_bytes_ = 0;
};

}  // namespace cb
