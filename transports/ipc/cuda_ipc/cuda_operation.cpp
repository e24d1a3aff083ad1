#include "transports/ipc/cuda_ipc/cuda_operation.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/check.hpp"
#include "transports/ipc/common/agree.hpp"
#include "transports/ipc/common/control.hpp"
#include "transports/ipc/cuda_ipc/cuda_error.hpp"
#include "transports/ipc/cuda_ipc/reduce_kernels.hpp"

namespace cb::ipc {
namespace {

class CudaMover final : public DataMover {
 public:
  CudaMover(cudaStream_t stream, DataType dtype, ReduceOp op, int p)
      : stream_(stream), dtype_(dtype), op_(op), p_(p) {}
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    if (bytes != 0)
      cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
                 "cudaMemcpyAsync");
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t count) override {
    cuda_check(launch_reduce(dtype_, op_, dst, src, count, stream_), "reduction kernel launch");
  }
  void divide(std::byte* dst, std::size_t count) override {
    cuda_check(launch_divide(dtype_, dst, count, p_, stream_), "division kernel launch");
  }
  void complete() override { cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_;
  DataType dtype_;
  ReduceOp op_;
  int p_;
};

// What every rank publishes: its control segment and its device allocation.
struct DeviceCard {
  char control_name[96];
  std::uint64_t control_bytes;
  cudaIpcMemHandle_t handle;
};

}  // namespace

CudaIpcOperation::CudaIpcOperation(const Schedule& s, Group& group, WaitPolicy wait)
    : layout_(buffer_layout(s)) {
  const int p = group.size(), rank = group.rank();
  CB_CHECK(p == s.p && rank == s.rank, "schedule for rank {} of {} run on rank {} of {}", s.rank,
           s.p, rank, p);
  DeviceCard mine{};
  agreed(group, "CUDA setup", [&] {
    select_device(group);
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    // At least one granule: cudaIpcGetMemHandle needs a real allocation.
    const std::size_t bytes = std::max<std::size_t>(layout_.total_bytes, kBufferAlign);
    void* data = nullptr;
    cuda_check(cudaMalloc(&data, bytes), "cudaMalloc");
    device_data_ = static_cast<std::byte*>(data);
    cuda_check(cudaMemset(device_data_, 0, bytes), "cudaMemset");
    cuda_check(cudaIpcGetMemHandle(&mine.handle, device_data_), "cudaIpcGetMemHandle");
    control_ = ShmSegment::create(control_block_bytes(p));
    CB_CHECK(control_.name().size() < sizeof mine.control_name, "name too long");
    std::memcpy(mine.control_name, control_.name().c_str(), control_.name().size() + 1);
    mine.control_bytes = control_.size();
  });
  const std::vector<DeviceCard> cards = allgather_value(group, mine);

  mem_.data = device_data_;
  mem_.control = OwnControl(control_.data(), p);
  mem_.peer_data.assign(static_cast<std::size_t>(p), nullptr);
  mem_.peer_control.assign(static_cast<std::size_t>(p), PeerControl{});
  const std::vector<bool> peers = peers_of(s);
  agreed(group, "CUDA-IPC mapping of the peers' buffers", [&] {
    for (int a = 0; a < p; ++a) {
      if (!peers[a]) continue;
      peer_controls_.push_back(ShmSegment::open_read_only(cards[a].control_name,
                                                          cards[a].control_bytes));
      mem_.peer_control[a] = PeerControl(peer_controls_.back().data(), p);
      void* peer = nullptr;
      cuda_check(cudaIpcOpenMemHandle(&peer, cards[a].handle, cudaIpcMemLazyEnablePeerAccess),
                 "cudaIpcOpenMemHandle");
      opened_.push_back(peer);
      mem_.peer_data[a] = static_cast<const std::byte*>(peer);
    }
  });
  mover_ = std::make_unique<CudaMover>(stream_, s.dtype, s.op, p);
  agreed(group, "pairing of sends and receives", [&] {
    executor_ = std::make_unique<IpcExecutor>(s, layout_, group, wait, *mover_, mem_);
  });
  group.barrier();
  control_.unlink();
}

CudaIpcOperation::~CudaIpcOperation() {
  // Teardown must not throw: errors here are ignored deliberately.
  for (void* peer : opened_) (void)cudaIpcCloseMemHandle(peer);
  if (device_data_ != nullptr) (void)cudaFree(device_data_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

void CudaIpcOperation::write_input(std::span<const std::byte> bytes) {
  CB_CHECK(bytes.size() == layout_.input_bytes, "input of {} bytes, expected {}", bytes.size(),
           layout_.input_bytes);
  if (bytes.empty()) return;
  // On this rank's stream and synchronised: a plain cudaMemcpy from pageable
  // memory may return before the data reaches the device.
  cuda_check(cudaMemcpyAsync(device_data_ + layout_.input_offset, bytes.data(), bytes.size(),
                             cudaMemcpyHostToDevice, stream_),
             "cudaMemcpyAsync (input)");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (input)");
}

void CudaIpcOperation::read_output(std::span<std::byte> bytes) {
  CB_CHECK(bytes.size() == layout_.output_bytes, "output of {} bytes, expected {}", bytes.size(),
           layout_.output_bytes);
  if (bytes.empty()) return;
  cuda_check(cudaMemcpyAsync(bytes.data(), device_data_ + layout_.output_offset, bytes.size(),
                             cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpyAsync (output)");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (output)");
}

void CudaIpcOperation::run() { executor_->run(); }

}  // namespace cb::ipc
