// A zero-filled, 64-byte aligned byte buffer: the memory the MPI transport's
// user, scratch and staging buffers live in. Zero-filling at allocation
// faults every page in before timing starts.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>

namespace cb {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes)
      : data_(bytes ? static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}))
                    : nullptr),
        bytes_(bytes) {
    if (bytes_) std::memset(data_.get(), 0, bytes_);
  }
  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return bytes_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { ::operator delete (p, std::align_val_t{64}); }
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t bytes_ = 0;
};

}  // namespace cb
