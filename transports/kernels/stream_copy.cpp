#include "transports/kernels/stream_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace cb {

void stream_copy_unfenced(void* dst, const void* src, std::size_t bytes) {
#if defined(__x86_64__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  constexpr std::size_t kLine = 64;
  std::size_t head = (kLine - reinterpret_cast<std::uintptr_t>(d) % kLine) % kLine;
  if (head > bytes) head = bytes;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  // SSE2 (x86-64's baseline): 16-byte streaming stores fill a line through
  // the write-combining buffer as fast as wider ones once memory is the limit.
  std::size_t i = 0;
  for (; i + kLine <= bytes; i += kLine) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();  // streaming stores are weakly ordered: drain them before any later store
#endif
}

void stream_copy(void* dst, const void* src, std::size_t bytes) {
  stream_copy_unfenced(dst, src, bytes);
  stream_fence();
}

}  // namespace cb
