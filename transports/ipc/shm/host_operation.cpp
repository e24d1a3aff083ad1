#include "transports/ipc/shm/host_operation.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/check.hpp"
#include "transports/ipc/common/agree.hpp"
#include "transports/ipc/common/control.hpp"
#include "transports/kernels/reduce.hpp"
#include "transports/kernels/stream_copy.hpp"

namespace cb::ipc {
namespace {

// Copies of at least this many bytes stream (non-temporal stores,
// kernels/stream_copy.hpp): on the project's 2-vCPU VM, two ranks copying
// at once, memcpy was faster up to 4 MiB (the buffers stay in the cache, and
// what a peer reads next is there) and streaming from 16 MiB up, where the
// write-allocate reads of memcpy's stores cost memory bandwidth
// (docs/speed.md, "IPC over host shared memory").
constexpr std::size_t kStreamBytes = std::size_t{8} << 20;
// Reduce-receives whose result a later step sends stream from this size: in
// place, ring and rhd all-reduce at 256 KiB-4 MiB ran 1.3-1.7x faster than
// streaming from kStreamBytes, tree's, ps's and dbtree's 1.3-1.8x; out of
// place those three, and reduce-scatter over tree and ps, 1.1-1.4x slower,
// but the fastest algorithm of every (collective, placement, size) is never
// slower (docs/speed.md, "IPC over host shared memory"). Below it a reduce
// fits the first-level caches.
constexpr std::size_t kStreamForPeerBytes = std::size_t{64} << 10;

// Plain CPU copies and the shared reduction kernels. A reduce-receive reads
// the peer's mapped memory directly as `src`: no staging copy.
class HostMover final : public DataMover {
 public:
  HostMover(DataType dtype, ReduceOp op, int p) : dtype_(dtype), op_(op), p_(p) {}
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    if (bytes >= kStreamBytes)
      stream_copy(dst, src, bytes);
    else
      std::memcpy(dst, src, bytes);
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t count) override {
    reduce_inplace(dtype_, op_, dst, src, count);
  }
  // Streamed from kStreamForPeerBytes. A plain store leaves dst's lines
  // dirty in this core's cache, and the peer that reads them next (in place,
  // a ring's all-gather sends what its reduce-scatter wrote) fetches them
  // from there, which on the VM costs more than reading memory: in-place
  // ring and rhd all-reduce took 2.0-2.7x their out-of-place time at
  // 256 KiB-16 MiB that way (docs/speed.md). Where this rank alone reads dst
  // next (naive, butterfly) plain stores keep it in the cache.
  void reduce_for_peer(std::byte* dst, const std::byte* src, std::size_t count) override {
    if (count * element_size(dtype_) >= kStreamForPeerBytes)
      reduce_into_streaming(dtype_, op_, dst, dst, src, count);
    else
      reduce_inplace(dtype_, op_, dst, src, count);
  }
  // Large: one pass dst = a op b with non-temporal stores
  // (reduce_into_streaming): memory sees a and b read and dst written once,
  // where copy-then-reduce in dst would write dst, read it back and write it
  // again. A prototype of this pass (fp32 sum), timed in turns with the
  // earlier path in one launch on the VM (two ranks at once, ring all-reduce
  // out of place), was 1.2-1.5x faster at 16-64 MiB than 16 KiB pieces
  // reduced in L1 and streamed out, whose loads and stores took turns at the
  // memory.
  void copy_reduce(std::byte* dst, const std::byte* a, const std::byte* b, std::size_t count,
                   std::size_t elem_size) override {
    if (count * elem_size < kStreamBytes) return DataMover::copy_reduce(dst, a, b, count, elem_size);
    reduce_into_streaming(dtype_, op_, dst, a, b, count);
  }
  void divide(std::byte* dst, std::size_t count) override { divide_inplace(dtype_, dst, count, p_); }
  void complete() override {}

 private:
  DataType dtype_;
  ReduceOp op_;
  int p_;
};

// What every rank publishes about its segment.
struct SegmentCard {
  char name[96];
  std::uint64_t bytes;
};

}  // namespace

HostIpcOperation::HostIpcOperation(const Schedule& s, Group& group, WaitPolicy wait)
    : layout_(buffer_layout(s)) {
  const int p = group.size(), rank = group.rank();
  CB_CHECK(p == s.p && rank == s.rank, "schedule for rank {} of {} run on rank {} of {}", s.rank,
           s.p, rank, p);
  CB_CHECK(wait != WaitPolicy::automatic, "wait policy must be resolved");
  const std::size_t control_bytes = control_block_bytes(p);

  SegmentCard mine{};
  agreed(group, "shared-memory segment creation", [&] {
    own_ = ShmSegment::create(control_bytes + layout_.total_bytes);
    CB_CHECK(own_.name().size() < sizeof mine.name, "segment name too long: {}", own_.name());
    std::memcpy(mine.name, own_.name().c_str(), own_.name().size() + 1);
    mine.bytes = own_.size();
  });
  const std::vector<SegmentCard> cards = allgather_value(group, mine);

  mem_.data = own_.data() + control_bytes;
  mem_.control = OwnControl(own_.data(), p);
  mem_.peer_data.assign(static_cast<std::size_t>(p), nullptr);
  mem_.peer_control.assign(static_cast<std::size_t>(p), PeerControl{});
  const std::vector<bool> peers = peers_of(s);
  agreed(group, "mapping of the peers' segments", [&] {
    for (int a = 0; a < p; ++a) {
      if (!peers[a]) continue;
      peers_.push_back(ShmSegment::open_read_only(cards[a].name, cards[a].bytes));
      mem_.peer_control[a] = PeerControl(peers_.back().data(), p);
      mem_.peer_data[a] = peers_.back().data() + control_bytes;
    }
  });
  mover_ = std::make_unique<HostMover>(s.dtype, s.op, p);
  agreed(group, "pairing of sends and receives", [&] {
    executor_ = std::make_unique<IpcExecutor>(s, layout_, group, wait, *mover_, mem_);
  });
  // Every peer has mapped this segment: the name is no longer needed.
  group.barrier();
  own_.unlink();
}

HostIpcOperation::~HostIpcOperation() = default;

void HostIpcOperation::write_input(std::span<const std::byte> bytes) {
  CB_CHECK(bytes.size() == layout_.input_bytes, "input of {} bytes, expected {}", bytes.size(),
           layout_.input_bytes);
  if (!bytes.empty()) std::memcpy(mem_.data + layout_.input_offset, bytes.data(), bytes.size());
}

void HostIpcOperation::read_output(std::span<std::byte> bytes) {
  CB_CHECK(bytes.size() == layout_.output_bytes, "output of {} bytes, expected {}", bytes.size(),
           layout_.output_bytes);
  if (!bytes.empty()) std::memcpy(bytes.data(), mem_.data + layout_.output_offset, bytes.size());
}

void HostIpcOperation::run() { executor_->run(); }

}  // namespace cb::ipc
