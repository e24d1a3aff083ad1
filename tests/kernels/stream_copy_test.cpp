// stream_copy (transports/kernels/stream_copy.hpp) copies exactly what
// memcpy copies, whatever the alignment of either end and the length.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "transports/kernels/stream_copy.hpp"

namespace cb {
namespace {

TEST(StreamCopy, EqualsMemcpyAtEveryAlignmentAndLength) {
  std::vector<unsigned char> src(4096), dst(4096), want(4096);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 37 + 11);
  for (std::size_t d_off : {0, 1, 15, 16, 63, 64})
    for (std::size_t s_off : {0, 3, 32})
      for (std::size_t n : {0, 1, 63, 64, 65, 127, 128, 1000, 2047}) {
        std::memset(dst.data(), 0xee, dst.size());
        std::memset(want.data(), 0xee, want.size());
        std::memcpy(want.data() + d_off, src.data() + s_off, n);
        stream_copy(dst.data() + d_off, src.data() + s_off, n);
        EXPECT_EQ(dst, want) << "dst +" << d_off << " src +" << s_off << " n " << n;
      }
}

TEST(StreamCopy, PiecesThenOneFenceEqualOneCopy) {
  std::vector<unsigned char> src(10000), dst(10000, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i ^ (i >> 8));
  for (std::size_t at = 0; at < src.size(); at += 777)
    stream_copy_unfenced(dst.data() + at, src.data() + at, std::min<std::size_t>(777, src.size() - at));
  stream_fence();
  EXPECT_EQ(dst, src);
}

}  // namespace
}  // namespace cb
