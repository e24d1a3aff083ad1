#include "transports/common/buffer_layout.hpp"

namespace cb {
namespace {
std::size_t align_up(std::size_t n) { return (n + kBufferAlign - 1) / kBufferAlign * kBufferAlign; }
}  // namespace

BufferLayout buffer_layout(const Schedule& s) {
  BufferLayout l;
  l.elem_size = element_size(s.dtype);
  l.buffer_offset.assign(kScratch0 + s.scratch_counts.size(), 0);
  std::size_t end = 0;
  if (s.in_place) {
    const InPlaceLayout ip = in_place_layout(s.coll, s.p, s.rank, s.count);
    l.buffer_offset[kInput] = ip.input_offset * l.elem_size;
    l.buffer_offset[kOutput] = ip.output_offset * l.elem_size;
    end = align_up(ip.total * l.elem_size);
  } else {
    l.buffer_offset[kInput] = 0;
    l.buffer_offset[kOutput] = align_up(s.input_count() * l.elem_size);
    end = align_up(l.buffer_offset[kOutput] + s.output_count() * l.elem_size);
  }
  for (std::size_t k = 0; k < s.scratch_counts.size(); ++k) {
    l.buffer_offset[kScratch0 + k] = end;
    end = align_up(end + s.scratch_counts[k] * l.elem_size);
  }
  l.input_offset = l.buffer_offset[kInput];
  l.input_bytes = s.input_count() * l.elem_size;
  l.output_offset = l.buffer_offset[kOutput];
  l.output_bytes = s.output_count() * l.elem_size;
  l.total_bytes = end;
  return l;
}

}  // namespace cb
