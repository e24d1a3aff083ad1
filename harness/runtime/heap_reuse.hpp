// Keeping freed heap memory in the process, for the commands that compute
// rather than measure (map, fit, predict, run --transport sim).
//
// By default glibc serves every block above its mmap threshold (128 KiB at
// first, adapting up to 32 MiB) with a fresh mmap and returns it on free, and
// trims the heap's top once 128 KiB of it is free. A map simulates thousands
// of cells, each allocating and freeing per-rank arrays of up to megabytes:
// `map --coll allreduce --ranks 2..4096 -b 8 -e 1G` took 460,000 page faults
// (about a third of its CPU time in the kernel, zeroing pages it had just
// given back), and under load every fault also waits for a core.
#pragma once

#include <cstddef>

namespace cb {

// Blocks below kHeapBlockBytes come from the heap, and the heap keeps up to
// kHeapKeptBytes of free memory at its top instead of returning it, for
// the rest of the process. Freed memory stays reusable by the process (the
// resident size stays at the peak); blocks above kHeapBlockBytes (a
// measured collective's buffers) are still mapped and unmapped as before.
inline constexpr std::size_t kHeapBlockBytes = std::size_t{32} << 20;
inline constexpr std::size_t kHeapKeptBytes = std::size_t{128} << 20;

// Sets both thresholds (mallopt); a no-op where the C library has none.
void keep_freed_heap_memory();

}  // namespace cb
