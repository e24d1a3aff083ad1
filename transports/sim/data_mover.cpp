#include "transports/sim/data_mover.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/check.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb::sim {

// One rank's buffers. Out of place, input and output are separate; in place,
// both views live in one allocation at in_place_layout()'s offsets. Bytes
// that hold no data yet are 0xA5, so a schedule reading them shows up wrong.
class DataMover::RankMemory {
 public:
  RankMemory(const Schedule& s, std::span<const std::byte> input)
      : in_place_(s.in_place), esize_(element_size(s.dtype)), dtype_(s.dtype), op_(s.op), p_(s.p) {
    CB_CHECK(input.size() == s.input_count() * esize_, "rank {}: input of {} bytes, expected {}",
             s.rank, input.size(), s.input_count() * esize_);
    counts_ = {s.buffer_count(kInput), s.buffer_count(kOutput)};
    for (std::size_t n : s.scratch_counts) counts_.push_back(n);
    const InPlaceLayout layout = in_place_layout(s.coll, s.p, s.rank, s.count);
    if (in_place_) {
      user_.assign(layout.total * esize_, kUnset);
      input_base_ = layout.input_offset * esize_;
      output_base_ = layout.output_offset * esize_;
      std::copy(input.begin(), input.end(), user_.begin() + static_cast<std::ptrdiff_t>(input_base_));
    } else {
      input_.assign(input.begin(), input.end());
      user_.assign(s.output_count() * esize_, kUnset);
    }
    for (std::size_t n : s.scratch_counts) scratch_.emplace_back(n * esize_, kUnset);
  }

  std::span<std::byte> bytes(const Region& r) {
    CB_CHECK(r.buf < counts_.size() && r.offset <= counts_[r.buf] &&
                 r.count <= counts_[r.buf] - r.offset,
             "region [{}, +{}) of buffer {} is out of bounds", r.offset, r.count, r.buf);
    std::vector<std::byte>* buf = &user_;
    std::size_t base = output_base_;
    if (r.buf == kInput) {
      buf = in_place_ ? &user_ : &input_;
      base = in_place_ ? input_base_ : 0;
    } else if (r.buf != kOutput) {
      buf = &scratch_[r.buf - kScratch0];
      base = 0;
    }
    return std::span<std::byte>(*buf).subspan(base + r.offset * esize_, r.count * esize_);
  }

  // dst = dst (op) src; src may alias dst, the kernels need distinct memory.
  void reduce(std::span<std::byte> dst, std::span<const std::byte> src) {
    tmp_.assign(src.begin(), src.end());
    reduce_inplace(dtype_, op_, dst.data(), tmp_.data(), dst.size() / esize_);
  }
  void average(std::span<std::byte> dst) { divide_inplace(dtype_, dst.data(), dst.size() / esize_, p_); }

  std::vector<std::byte> output() {
    auto out = bytes({kOutput, 0, counts_[kOutput]});
    return {out.begin(), out.end()};
  }

 private:
  static constexpr std::byte kUnset{0xA5};
  bool in_place_;
  std::size_t esize_;
  DataType dtype_;
  ReduceOp op_;
  int p_;
  std::vector<std::size_t> counts_;  // elements per buffer id
  std::vector<std::byte> input_, user_, tmp_;
  std::size_t input_base_ = 0, output_base_ = 0;
  std::vector<std::vector<std::byte>> scratch_;
};

DataMover::DataMover(std::span<const std::vector<std::byte>> inputs)
    : inputs_(inputs.begin(), inputs.end()), ranks_(inputs.size()) {}

DataMover::~DataMover() = default;

void DataMover::allocate(const Schedule& s) {
  CB_CHECK(s.rank >= 0 && static_cast<std::size_t>(s.rank) < ranks_.size(), "rank {} of {}",
           s.rank, ranks_.size());
  auto& slot = ranks_[static_cast<std::size_t>(s.rank)];
  if (!slot) slot = std::make_unique<RankMemory>(s, inputs_[static_cast<std::size_t>(s.rank)]);
}

void DataMover::step(const Window& w, std::uint64_t s) {
  CB_CHECK(w.schedules.size() == static_cast<std::size_t>(w.p) && ranks_.size() == w.schedules.size(),
           "moving data needs the window's schedules of all {} ranks", ranks_.size());
  for (const Schedule& sched : w.schedules) allocate(sched);
  messages_.resize(w.sends.size());
  // 1. Every send reads its source before anything of the step is written.
  for (int a = 0; a < w.p; ++a) {
    const Step& st = w.schedules[static_cast<std::size_t>(a)].steps[s];
    const std::uint32_t first = w.send_off[w.slot(a, s)];
    for (std::size_t i = 0; i < st.sends.size(); ++i) {
      auto src = ranks_[static_cast<std::size_t>(a)]->bytes(st.sends[i].src);
      messages_[first + i].assign(src.begin(), src.end());
    }
  }
  // 2. Copy-receives land, then reduce-receives in list order; 3. local ops.
  for (int b = 0; b < w.p; ++b) {
    RankMemory& mem = *ranks_[static_cast<std::size_t>(b)];
    const Step& st = w.schedules[static_cast<std::size_t>(b)].steps[s];
    const std::uint32_t first = w.recv_off[w.slot(b, s)];
    for (int pass = 0; pass < 2; ++pass) {
      const RecvMode mode = pass == 0 ? RecvMode::copy : RecvMode::reduce;
      for (std::size_t i = 0; i < st.recvs.size(); ++i) {
        if (st.recvs[i].mode != mode) continue;
        const RecvOp& rv = w.recvs[first + i];
        CB_CHECK(rv.match != kUnmatched, "step {}: rank {} receive #{} is unmatched",
                 w.first_step + s, b, i);
        const std::vector<std::byte>& msg = messages_[rv.match];
        auto dst = mem.bytes(st.recvs[i].dst);
        if (mode == RecvMode::copy) std::memcpy(dst.data(), msg.data(), msg.size());
        else mem.reduce(dst, msg);
      }
    }
    for (const Local& x : st.locals) {
      auto dst = mem.bytes(x.dst);
      if (x.kind == LocalKind::average) {
        mem.average(dst);
      } else {
        auto src = mem.bytes(x.src);
        if (x.kind == LocalKind::copy) std::memmove(dst.data(), src.data(), src.size());
        else mem.reduce(dst, src);
      }
    }
  }
  for (auto& m : messages_) std::vector<std::byte>().swap(m);
}

std::vector<std::vector<std::byte>> DataMover::outputs(const ScheduleSource& source) {
  std::vector<std::vector<std::byte>> out;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r]) allocate(source(static_cast<int>(r), 0, 0));
    out.push_back(ranks_[r]->output());
  }
  return out;
}

}  // namespace cb::sim
