#include "transports/reference/reference.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <utility>

#include "algorithms/check.hpp"
#include "transports/common/rank_memory.hpp"

namespace cb {

namespace {

// Messages of one step in flight, FIFO per (source, destination).
using InFlight = std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>>;

// 1. Every send of the step reads its source before anything is written.
InFlight snapshot_sends(std::span<const Schedule> all_ranks, std::vector<RankMemory>& mem,
                        std::size_t step) {
  const std::size_t p = all_ranks.size();
  InFlight in_flight;
  for (std::size_t a = 0; a < p; ++a) {
    if (step >= all_ranks[a].steps.size()) continue;
    for (const Send& x : all_ranks[a].steps[step].sends) {
      CB_CHECK(x.peer >= 0 && static_cast<std::size_t>(x.peer) < p && x.peer != static_cast<int>(a),
               "step {}: rank {} sends to peer {}", step, a, x.peer);
      auto src = mem[a].bytes(x.src);
      in_flight[{static_cast<int>(a), x.peer}].emplace_back(src.begin(), src.end());
    }
  }
  return in_flight;
}

// 2. Receives take their messages in FIFO order per source; copies land
// now, reductions wait until every message of the step is in.
void receive(const Step& st, int b, RankMemory& mem, InFlight& in_flight, std::size_t step) {
  std::vector<std::pair<const Recv*, std::vector<std::byte>>> to_reduce;
  for (const Recv& x : st.recvs) {
    auto it = in_flight.find({x.peer, b});
    CB_CHECK(it != in_flight.end() && !it->second.empty(),
             "step {}: rank {} receives from rank {}, which sent nothing more", step, b, x.peer);
    std::vector<std::byte> msg = std::move(it->second.front());
    it->second.pop_front();
    auto dst = mem.bytes(x.dst);
    CB_CHECK(msg.size() == dst.size(), "step {}: rank {} receives {} bytes from rank {} into {}",
             step, b, msg.size(), x.peer, dst.size());
    if (x.mode == RecvMode::copy)
      std::copy(msg.begin(), msg.end(), dst.begin());
    else
      to_reduce.emplace_back(&x, std::move(msg));
  }
  for (const auto& [x, msg] : to_reduce) mem.reduce(mem.bytes(x->dst), msg);
}

// 3. Local ops in list order.
void run_locals(const Step& st, int b, RankMemory& mem, std::size_t step) {
  for (const Local& x : st.locals) {
    auto dst = mem.bytes(x.dst);
    switch (x.kind) {
      case LocalKind::copy: {
        const std::vector<std::byte> src(mem.bytes(x.src).begin(), mem.bytes(x.src).end());
        CB_CHECK(src.size() == dst.size(), "step {}: rank {}: local copy size mismatch", step, b);
        std::copy(src.begin(), src.end(), dst.begin());
        break;
      }
      case LocalKind::reduce: {
        auto src = mem.bytes(x.src);
        CB_CHECK(src.size() == dst.size(), "step {}: rank {}: local reduce size mismatch", step,
                 b);
        mem.reduce(dst, src);
        break;
      }
      case LocalKind::average:
        mem.average(dst);
        break;
    }
  }
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
    InFlight in_flight = snapshot_sends(all_ranks, mem, step);
    for (std::size_t b = 0; b < p; ++b) {
      const Schedule& s = all_ranks[b];
      if (step >= s.steps.size()) continue;
      receive(s.steps[step], static_cast<int>(b), mem[b], in_flight, step);
      run_locals(s.steps[step], static_cast<int>(b), mem[b], step);
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
