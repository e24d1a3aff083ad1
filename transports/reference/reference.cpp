#include "transports/reference/reference.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <utility>

#include "algorithms/check.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {
namespace {

// One rank's memory. Out of place: input and output are separate vectors; in
// place: both views live in `user` at in_place_layout's offsets.
class RankMemory {
 public:
  RankMemory(const Schedule& s, std::span<const std::byte> input) : s_(s) {
    esize_ = element_size(s.dtype);
    const InPlaceLayout layout = in_place_layout(s.coll, s.p, s.rank, s.count);
    CB_CHECK(input.size() == s.input_count() * esize_, "rank {}: input of {} bytes, expected {}",
             s.rank, input.size(), s.input_count() * esize_);
    if (s.in_place) {
      user_.assign(layout.total * esize_, kPoison);
      input_base_ = layout.input_offset * esize_;
      output_base_ = layout.output_offset * esize_;
      std::copy(input.begin(), input.end(), user_.begin() + static_cast<std::ptrdiff_t>(input_base_));
    } else {
      input_.assign(input.begin(), input.end());
      user_.assign(s.output_count() * esize_, kPoison);
    }
    for (std::size_t n : s.scratch_counts) scratch_.emplace_back(n * esize_, kPoison);
  }

  // The bytes of `r`, bounds-checked.
  std::span<std::byte> bytes(const Region& r) {
    std::vector<std::byte>* buf = nullptr;
    std::size_t base = 0;
    if (r.buf == kInput) {
      buf = s_.in_place ? &user_ : &input_;
      base = s_.in_place ? input_base_ : 0;
    } else if (r.buf == kOutput) {
      buf = &user_;
      base = output_base_;
    } else {
      const std::size_t k = r.buf - kScratch0;
      CB_CHECK(k < scratch_.size(), "rank {}: scratch buffer {} not declared", s_.rank, k);
      buf = &scratch_[k];
    }
    CB_CHECK(r.offset <= s_.buffer_count(r.buf) && r.count <= s_.buffer_count(r.buf) - r.offset,
             "rank {}: region [{}, +{}) out of bounds of buffer {}", s_.rank, r.offset, r.count,
             r.buf);
    return std::span<std::byte>(*buf).subspan(base + r.offset * esize_, r.count * esize_);
  }

  std::vector<std::byte> output() {
    auto out = bytes({kOutput, 0, s_.output_count()});
    return {out.begin(), out.end()};
  }

 private:
  const Schedule& s_;
  std::size_t esize_ = 0;
  std::vector<std::byte> input_;  // out of place only
  std::vector<std::byte> user_;   // the output, or the whole in-place allocation
  std::size_t input_base_ = 0, output_base_ = 0;  // bytes into user_ (in place)
  std::vector<std::vector<std::byte>> scratch_;
};

// dst = dst (op) src, where src may alias dst: the kernels assume no overlap.
void reduce_bytes(const Schedule& s, std::span<std::byte> dst, std::span<const std::byte> src) {
  const std::vector<std::byte> tmp(src.begin(), src.end());
  reduce_inplace(s.dtype, s.op, dst.data(), tmp.data(), dst.size() / element_size(s.dtype));
}

}  // namespace

std::vector<std::vector<std::byte>> run_reference(std::span<const Schedule> all_ranks,
                                                  std::span<const std::vector<std::byte>> inputs) {
  const std::size_t p = all_ranks.size();
  CB_CHECK(inputs.size() == p, "{} inputs for {} schedules", inputs.size(), p);
  std::vector<RankMemory> mem;
  mem.reserve(p);
  std::size_t nsteps = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const Schedule& s = all_ranks[r];
    CB_CHECK(s.rank == static_cast<int>(r) && s.p == static_cast<int>(p),
             "schedule #{} is rank {} of {}", r, s.rank, s.p);
    CB_CHECK(s.first_step == 0 && s.steps.size() == s.total_steps,
             "rank {}: the reference executor needs whole schedules, not a window", r);
    mem.emplace_back(s, inputs[r]);
    nsteps = std::max(nsteps, s.steps.size());
  }

  for (std::size_t step = 0; step < nsteps; ++step) {
    // 1. Every send of the step reads its source before anything is written.
    std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>> in_flight;
    for (std::size_t a = 0; a < p; ++a) {
      if (step >= all_ranks[a].steps.size()) continue;
      for (const Send& x : all_ranks[a].steps[step].sends) {
        CB_CHECK(x.peer >= 0 && static_cast<std::size_t>(x.peer) < p && x.peer != static_cast<int>(a),
                 "step {}: rank {} sends to peer {}", step, a, x.peer);
        auto src = mem[a].bytes(x.src);
        in_flight[{static_cast<int>(a), x.peer}].emplace_back(src.begin(), src.end());
      }
    }
    for (std::size_t b = 0; b < p; ++b) {
      const Schedule& s = all_ranks[b];
      if (step >= s.steps.size()) continue;
      const Step& st = s.steps[step];
      // 2. Receives take their messages in FIFO order per source; copies land
      // now, reductions wait until every message of the step is in.
      std::vector<std::pair<const Recv*, std::vector<std::byte>>> to_reduce;
      for (const Recv& x : st.recvs) {
        auto it = in_flight.find({x.peer, static_cast<int>(b)});
        CB_CHECK(it != in_flight.end() && !it->second.empty(),
                 "step {}: rank {} receives from rank {}, which sent nothing more", step, b,
                 x.peer);
        std::vector<std::byte> msg = std::move(it->second.front());
        it->second.pop_front();
        auto dst = mem[b].bytes(x.dst);
        CB_CHECK(msg.size() == dst.size(), "step {}: rank {} receives {} bytes from rank {} into {}",
                 step, b, msg.size(), x.peer, dst.size());
        if (x.mode == RecvMode::copy)
          std::copy(msg.begin(), msg.end(), dst.begin());
        else
          to_reduce.emplace_back(&x, std::move(msg));
      }
      for (const auto& [x, msg] : to_reduce) reduce_bytes(s, mem[b].bytes(x->dst), msg);
      // 3. Local ops in list order.
      for (const Local& x : st.locals) {
        auto dst = mem[b].bytes(x.dst);
        switch (x.kind) {
          case LocalKind::copy: {
            const std::vector<std::byte> src(mem[b].bytes(x.src).begin(),
                                             mem[b].bytes(x.src).end());
            CB_CHECK(src.size() == dst.size(), "step {}: rank {}: local copy size mismatch", step,
                     b);
            std::copy(src.begin(), src.end(), dst.begin());
            break;
          }
          case LocalKind::reduce: {
            auto src = mem[b].bytes(x.src);
            CB_CHECK(src.size() == dst.size(), "step {}: rank {}: local reduce size mismatch",
                     step, b);
            reduce_bytes(s, dst, src);
            break;
          }
          case LocalKind::average:
            divide_inplace(s.dtype, dst.data(), x.dst.count, s.p);
            break;
        }
      }
    }
    for (const auto& [pair, queue] : in_flight)
      CB_CHECK(queue.empty(), "step {}: {} message(s) from rank {} to rank {} never received",
               step, queue.size(), pair.first, pair.second);
  }

  std::vector<std::vector<std::byte>> outputs;
  outputs.reserve(p);
  for (RankMemory& m : mem) outputs.push_back(m.output());
  return outputs;
}

}  // namespace cb
