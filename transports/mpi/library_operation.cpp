#include "transports/mpi/library_operation.hpp"

#include <fmt/format.h>

#include <cctype>
#include <climits>
#include <cstring>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"
#include "algorithms/schedule.hpp"
#include "transports/kernels/reduce.hpp"
#include "transports/mpi/datatypes.hpp"
#include "transports/mpi/library_calls.hpp"
#include "transports/mpi/wait.hpp"
#include "transports/watchdog.hpp"

namespace cb {

MpiLibraryOperation::MpiLibraryOperation(Collective coll, DataType dtype, ReduceOp op,
                                         bool in_place, std::size_t count, MPI_Comm comm,
                                         WaitPolicy wait)
    : coll_(coll),
      dtype_(dtype),
      op_(op),
      in_place_(in_place),
      count_(count),
      comm_(comm),
      wait_(wait),
      elem_(element_size(dtype)),
      mpi_type_(mpi_datatype(dtype)),
      mpi_op_(is_reducing(coll) ? mpi_op(dtype, op) : MPI_OP_NULL),
      step_(fmt::format("MPI_I{} (the mpi baseline)", collective_spec(coll).mpich_name)) {
  step_[5] = static_cast<char>(std::tolower(static_cast<unsigned char>(step_[5])));
  int rank = 0;
  MPI_Comm_size(comm_, &p_);
  MPI_Comm_rank(comm_, &rank);
  // The int-count MPI calls keep the baseline on MPICH's everyday path.
  CB_CHECK(count_ * static_cast<std::size_t>(p_) <= static_cast<std::size_t>(INT_MAX),
           "count {} x {} ranks exceeds the MPI int count", count_, p_);
  input_bytes_ = input_count(coll_, p_, count_) * elem_;
  output_bytes_ = output_count(coll_, p_, count_) * elem_;
  if (in_place_) {
    const InPlaceLayout l = in_place_layout(coll_, p_, rank, count_);
    input_buf_ = AlignedBuffer(l.total * elem_);
    input_ = input_buf_.data() + l.input_offset * elem_;
    output_ = collective_spec(coll_).library_in_place_output_at_start
                  ? input_buf_.data()
                  : input_buf_.data() + l.output_offset * elem_;
  } else {
    input_buf_ = AlignedBuffer(input_bytes_);
    output_buf_ = AlignedBuffer(output_bytes_);
    input_ = input_buf_.data();
    output_ = output_buf_.data();
  }
}

void MpiLibraryOperation::write_input(std::span<const std::byte> bytes) {
  CB_CHECK(bytes.size() == input_bytes_, "input of {} bytes, expected {}", bytes.size(),
           input_bytes_);
  if (!bytes.empty()) std::memcpy(input_, bytes.data(), bytes.size());
}

void MpiLibraryOperation::read_output(std::span<std::byte> bytes) {
  CB_CHECK(bytes.size() == output_bytes_, "output of {} bytes, expected {}", bytes.size(),
           output_bytes_);
  if (!bytes.empty()) std::memcpy(bytes.data(), output_, bytes.size());
}

void MpiLibraryOperation::start(MPI_Request* req) {
  const int n = static_cast<int>(count_);
  const void* send = in_place_ ? MPI_IN_PLACE : input_;
  const int rc = call_collective(coll_, false, send, output_, n, mpi_type_, mpi_op_, comm_, req);
  check_mpi(rc, "MPI collective");
}

void MpiLibraryOperation::run() {
  // A blocking collective cannot be bounded: with a watchdog (--timeout > 0)
  // the nonblocking form is polled (wait_collective), so a stopped peer ends
  // the run; --timeout 0 measures MPICH's blocking call (README, Reliability).
  if ((wait_ == WaitPolicy::spin || wait_ == WaitPolicy::automatic) && wait_timeout() <= 0) {
    start(nullptr);
  } else {
    note_wait_step(step_.c_str());
    MPI_Request req;
    start(&req);
    wait_collective(req, wait_, comm_);
  }
  if (op_ == ReduceOp::avg && is_reducing(coll_))
    divide_inplace(dtype_, output_, output_bytes_ / elem_, p_);
}

}  // namespace cb
