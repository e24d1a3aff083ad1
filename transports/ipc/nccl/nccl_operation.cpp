#include "transports/ipc/nccl/nccl_operation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"
#include "algorithms/schedule.hpp"
#include "transports/ipc/common/agree.hpp"
#include "transports/ipc/cuda_ipc/cuda_error.hpp"
#include "transports/ipc/cuda_ipc/reduce_kernels.hpp"

namespace cb::ipc {
namespace {

void nccl_check(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess)
    throw std::runtime_error(fmt::format("{}: {}", call, ncclGetErrorString(rc)));
}

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::int8: return ncclInt8;
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::uint32: return ncclUint32;
    case DataType::int64: return ncclInt64;
    case DataType::uint64: return ncclUint64;
    case DataType::fp16: return ncclFloat16;
    case DataType::bf16: return ncclBfloat16;
    case DataType::fp32: return ncclFloat32;
    case DataType::fp64: return ncclFloat64;
    case DataType::int16:
    case DataType::uint16: break;
  }
  throw UsageError(fmt::format("the nccl baseline has no {} (nccl.h defines no 16-bit integer)",
                               to_string(t)));
}

ncclRedOp_t nccl_op(ReduceOp o) {
  switch (o) {
    case ReduceOp::sum:
    case ReduceOp::avg: return ncclSum;  // avg: sum, then one division (see header)
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    default: break;
  }
  throw UsageError(fmt::format("the nccl baseline has no op {} (nccl.h defines sum, prod, min, "
                               "max, avg)", to_string(o)));
}

// NCCL's function for each collective, from the nccl column of
// algorithms/collective_table.inc; the call's shape is the spec's (reducing
// or not, count per rank). Where nccl.h defines no in-place form
// (kNcclNoInPlace: all-to-all), `scratch_in_place` sends from a copy of the
// buffer instead (see the header).
struct NcclCall {
  using Reduce = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                  ncclComm_t, cudaStream_t);
  using Move = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                                cudaStream_t);
  Collective coll;
  const char* name;
  Reduce reduce;
  Move move;
  bool scratch_in_place;
};

// The entry of a table row; the function's type says which slot it fills.
NcclCall nccl_call_of(Collective coll, const char* name, NcclCall::Reduce f, unsigned layout) {
  return {coll, name, f, nullptr, (layout & kNcclNoInPlace) != 0};
}
NcclCall nccl_call_of(Collective coll, const char* name, NcclCall::Move f, unsigned layout) {
  return {coll, name, nullptr, f, (layout & kNcclNoInPlace) != 0};
}

const NcclCall& nccl_call(Collective coll) {
  static const NcclCall kCalls[] = {
#define CB_COLLECTIVE(name, alias, mpi, impi, nccl, layout, ...) \
  nccl_call_of(Collective::name, #nccl, nccl, layout),
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
  };
  for (const NcclCall& c : kCalls)
    if (c.coll == coll) return c;
  CB_CHECK(false, "no NCCL call for collective {}", static_cast<int>(coll));
}

void set_or_keep(const char* var, const std::string& value) {
  if (!value.empty()) ::setenv(var, value.c_str(), 1);
}

std::byte* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  bytes = std::max<std::size_t>(bytes, 256);
  cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
  cuda_check(cudaMemset(p, 0, bytes), "cudaMemset");
  return static_cast<std::byte*>(p);
}

}  // namespace

NcclOperation::NcclOperation(Collective coll, DataType dtype, ReduceOp op, bool in_place,
                             std::size_t count, Group& group, const NcclOptions& options)
    : coll_(coll), dtype_(dtype), op_(op), count_(count) {
  nccl_type(dtype);  // refuses, before any setup, what NCCL cannot run
  if (is_reducing(coll)) nccl_op(op);
  p_ = group.size();
  rank_ = group.rank();
  const std::size_t es = element_size(dtype);
  input_bytes_ = input_count(coll, p_, count) * es;
  output_bytes_ = output_count(coll, p_, count) * es;
  agreed(group, "NCCL device setup", [&] {
    select_device(group);
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (in_place) {
      const InPlaceLayout l = in_place_layout(coll, p_, rank_, count);
      input_alloc_ = device_alloc(l.total * es);
      input_ = input_alloc_ + l.input_offset * es;
      output_ = input_alloc_ + l.output_offset * es;
      if (nccl_call(coll).scratch_in_place) send_scratch_ = device_alloc(l.total * es);
    } else {
      input_alloc_ = device_alloc(input_bytes_);
      output_alloc_ = device_alloc(output_bytes_);
      input_ = input_alloc_;
      output_ = output_alloc_;
    }
  });
  set_or_keep("NCCL_ALGO", options.algo);
  set_or_keep("NCCL_PROTO", options.proto);
  ncclUniqueId id{};
  agreed(group, "ncclGetUniqueId", [&] {
    if (rank_ == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  });
  id = allgather_value(group, id).front();  // rank 0's
  agreed(group, "ncclCommInitRank",
         [&] { nccl_check(ncclCommInitRank(&comm_, p_, id, rank_), "ncclCommInitRank"); });
}

NcclOperation::~NcclOperation() {
  // Teardown must not throw: errors here are ignored deliberately.
  if (comm_ != nullptr) (void)ncclCommDestroy(comm_);
  if (input_alloc_ != nullptr) (void)cudaFree(input_alloc_);
  if (output_alloc_ != nullptr) (void)cudaFree(output_alloc_);
  if (send_scratch_ != nullptr) (void)cudaFree(send_scratch_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

void NcclOperation::write_input(std::span<const std::byte> bytes) {
  CB_CHECK(bytes.size() == input_bytes_, "input of {} bytes, expected {}", bytes.size(),
           input_bytes_);
  if (bytes.empty()) return;
  cuda_check(cudaMemcpyAsync(input_, bytes.data(), bytes.size(), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpyAsync (input)");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (input)");
}

void NcclOperation::read_output(std::span<std::byte> bytes) {
  CB_CHECK(bytes.size() == output_bytes_, "output of {} bytes, expected {}", bytes.size(),
           output_bytes_);
  if (bytes.empty()) return;
  cuda_check(cudaMemcpyAsync(bytes.data(), output_, bytes.size(), cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpyAsync (output)");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (output)");
}

void NcclOperation::run() {
  const ncclDataType_t t = nccl_type(dtype_);
  const NcclCall& f = nccl_call(coll_);
  const void* send = input_;
  if (send_scratch_ != nullptr) {
    cuda_check(
        cudaMemcpyAsync(send_scratch_, input_, input_bytes_, cudaMemcpyDeviceToDevice, stream_),
        "cudaMemcpyAsync (in-place all-to-all)");
    send = send_scratch_;
  }
  nccl_check(collective_spec(coll_).reducing
                 ? f.reduce(send, output_, count_, t, nccl_op(op_), comm_, stream_)
                 : f.move(send, output_, count_, t, comm_, stream_),
             f.name);
  if (op_ == ReduceOp::avg && is_reducing(coll_))
    cuda_check(launch_divide(dtype_, output_, output_bytes_ / element_size(dtype_), p_, stream_),
               "division kernel launch");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace cb::ipc
