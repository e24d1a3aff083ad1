// Copies that write around the caches: for buffers larger than the caches a
// plain store first reads each destination line into the cache (write
// allocate) and later writes it back, so a copy of n bytes moves 3n bytes
// through memory; non-temporal stores write the lines straight to memory,
// 2n. On buffers that fit in the cache they are slower (the next read misses):
// the caller decides from the size (transports/ipc/shm/host_operation.cpp).
#pragma once

#include <cstddef>

namespace cb {

// dst[0, bytes) = src[0, bytes) with non-temporal stores for the whole
// 64-byte lines of dst (plain copies for the ragged ends), then a store
// fence, so the bytes are visible to another core before any later store
// (the IPC transport's release of its counters). Buffers must not overlap.
// Where the CPU has no such stores (not x86-64) it is memcpy.
void stream_copy(void* dst, const void* src, std::size_t bytes);

// The same without the fence, for a copy made of many pieces: call
// stream_fence() once after the last piece, before the bytes are published.
void stream_copy_unfenced(void* dst, const void* src, std::size_t bytes);
void stream_fence();

}  // namespace cb
