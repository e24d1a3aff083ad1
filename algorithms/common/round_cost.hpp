// Exact Cost of a round-structured schedule without building it.
//
// Pipelined trees have per-round maxima with no tidy closed form (chunks of
// unequal size, ranks that receive from several levels at once), so their
// cost functions run the same per-round emitters the generators run, but
// into a RoundTally instead of a ScheduleBuilder. RoundTally has the builder's
// op interface (send, recv, recv_reduce, copy, reduce), so one templated
// emitter drives both and the cost cannot drift from the schedule. Ranks that
// behave alike are tallied once (see tally_cost), so the price is a loop over
// rounds per distinct kind of rank, not over every rank.
//
// Convention (params.hpp): per round, alpha += the largest max(#sends,
// #recvs) of any rank, beta += the largest max(bytes sent, bytes received),
// gamma += the largest bytes reduced. Units: BYTES.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

class RoundTally {
 public:
  RoundTally(std::size_t rounds, std::size_t elem_size)
      : elem_size_(elem_size), cur_(rounds), max_(rounds) {}

  // Subsequent ops belong to round t (0-based, communicating rounds only).
  void set_round(std::size_t t) { t_ = t; }

  // The ScheduleBuilder op interface; peers are irrelevant to the cost.
  void send(int, Region r) {
    cur_[t_].sends += 1;
    cur_[t_].sent += r.count;
  }
  void recv(int, Region r) {
    cur_[t_].recvs += 1;
    cur_[t_].received += r.count;
  }
  void recv_reduce(int peer, Region r) {
    recv(peer, r);
    cur_[t_].reduced += r.count;
  }
  void copy(Region, Region) {}
  void reduce(Region, Region dst) { cur_[t_].reduced += dst.count; }

  // Folds the rank tallied since the last call into the per-round maxima.
  void end_rank() {
    for (std::size_t t = 0; t < cur_.size(); ++t) {
      Round& m = max_[t];
      const Round& c = cur_[t];
      m.sends = std::max(m.sends, std::max(c.sends, c.recvs));
      m.sent = std::max(m.sent, std::max(c.sent, c.received));
      m.reduced = std::max(m.reduced, c.reduced);
      cur_[t] = Round{};
    }
  }

  Cost total() const {
    Cost c;
    const auto es = static_cast<double>(elem_size_);
    for (const Round& m : max_) {
      c.alpha += static_cast<double>(m.sends);
      c.beta += static_cast<double>(m.sent) * es;
      c.gamma += static_cast<double>(m.reduced) * es;
    }
    return c;
  }

 private:
  // While tallying a rank: its counts. In max_: sends = max(#sends, #recvs),
  // sent = max(elements sent, received), reduced = elements reduced.
  struct Round {
    std::uint64_t sends = 0, recvs = 0;
    std::uint64_t sent = 0, received = 0, reduced = 0;
  };
  std::size_t elem_size_;
  std::size_t t_ = 0;
  std::vector<Round> cur_;
  std::vector<Round> max_;
};

// Cost of `rounds` rounds in which rank r's ops of round t are those that
// emit(tally, r, t) adds. key(r) names r's behaviour: ranks with equal keys
// must emit the same op sizes in every round (then only the first is tallied).
template <class KeyFn, class EmitFn>
Cost tally_cost(int p, std::size_t rounds, std::size_t elem_size, KeyFn key, EmitFn emit) {
  RoundTally tally(rounds, elem_size);
  std::set<decltype(key(0))> seen;
  for (int r = 0; r < p; ++r) {
    if (!seen.insert(key(r)).second) continue;
    for (std::size_t t = 0; t < rounds; ++t) {
      tally.set_round(t);
      emit(tally, r, t);
    }
    tally.end_rank();
  }
  return tally.total();
}

}  // namespace cb
