// The control block at the start of every rank's host shared-memory segment:
// the per-peer sequence counters of the IPC protocol (see executor.hpp).
//
// Each rank writes only its own block; peers map it read-only and poll it.
//   ready[b]: messages this rank has made readable for peer b, cumulative
//             over all runs (published with release after the data is final)
//   ack[a]:   messages from peer a this rank has finished reading, cumulative
//             (published with release after the reads completed)
// Every counter sits on its own 64-byte line so pollers of one pair do not
// contend with writers of another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cb::ipc {

inline constexpr std::size_t kCacheLine = 64;

// Bytes of a control block for p ranks, rounded up to whole pages so the data
// that follows it in a host segment starts page-aligned.
inline std::size_t control_block_bytes(int p) {
  const std::size_t raw = 2 * static_cast<std::size_t>(p) * kCacheLine;
  return (raw + 4095) / 4096 * 4096;
}

inline void store_release(std::uint64_t* counter, std::uint64_t value) {
  __atomic_store_n(counter, value, __ATOMIC_RELEASE);
}
inline std::uint64_t load_acquire(const std::uint64_t* counter) {
  return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

// A view of one rank's control block; `Byte` is std::byte for the owner and
// const std::byte for a peer's read-only mapping.
template <class Byte>
class ControlView {
 public:
  using Counter = std::conditional_t<std::is_const_v<Byte>, const std::uint64_t, std::uint64_t>;
  ControlView() = default;
  ControlView(Byte* base, int p) : base_(base), p_(p) {}
  Counter* ready(int peer) const { return at(peer); }
  Counter* ack(int peer) const { return at(p_ + peer); }

 private:
  Counter* at(int slot) const {
    return reinterpret_cast<Counter*>(base_ + static_cast<std::size_t>(slot) * kCacheLine);
  }
  Byte* base_ = nullptr;
  int p_ = 0;
};

using OwnControl = ControlView<std::byte>;
using PeerControl = ControlView<const std::byte>;

}  // namespace cb::ipc
