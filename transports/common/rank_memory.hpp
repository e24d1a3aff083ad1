// One rank's buffers in host memory, laid out by buffer_layout() (one
// allocation: in place, input and output are views of the same bytes): the
// memory of the in-process executors, the reference oracle and the
// simulator's data mover. Memory that holds no data yet (scratch, the
// out-of-place output, the non-input part of an in-place allocation, the
// alignment padding) starts filled with the byte kPoison, so a schedule
// reading it gives visibly wrong results. Sizes are bytes; regions are in
// elements of the schedule's datatype (schedule.hpp).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/common/buffer_layout.hpp"

namespace cb {

inline constexpr std::byte kPoison{0xA5};

class RankMemory {
 public:
  // `input`: the rank's input view, s.input_count() elements as bytes.
  RankMemory(const Schedule& s, std::span<const std::byte> input);

  // The bytes of region `r`, bounds-checked against the schedule's buffers.
  std::span<std::byte> bytes(const Region& r);
  // dst = dst (op) src with the schedule's op; src may alias dst (the
  // kernels need distinct memory, so src is copied first).
  void reduce(std::span<std::byte> dst, std::span<const std::byte> src);
  // dst = dst / p: avg's final division.
  void average(std::span<std::byte> dst);
  // A copy of the output view (s.output_count() elements).
  std::vector<std::byte> output();

 private:
  int rank_;
  int p_;
  DataType dtype_;
  ReduceOp op_;
  BufferLayout layout_;
  std::vector<std::size_t> counts_;  // elements per buffer id
  std::vector<std::byte> data_, tmp_;
};

}  // namespace cb
