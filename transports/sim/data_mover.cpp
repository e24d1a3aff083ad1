#include "transports/sim/data_mover.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/check.hpp"

namespace cb::sim {

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
