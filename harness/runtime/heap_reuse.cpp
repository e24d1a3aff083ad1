#include "harness/runtime/heap_reuse.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cb {

void keep_freed_heap_memory() {
#if defined(__GLIBC__)
  // Fixed values also stop glibc's adaptive thresholds, which would move
  // them back with the first large block freed.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapBlockBytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kHeapKeptBytes));
#endif
}

}  // namespace cb
