// Algorithm: butterfly all-reduce (recursive doubling with full-vector
// exchange).
// Restrictions: none; any p (non-powers of two fold, below), any count.
// Idea: in round k every core rank swaps its whole current vector with the
// rank at distance 2^k and reduces the two; after l = log2 p' rounds every
// rank holds the full reduction. Latency-optimal (l rounds) but each round
// moves the whole vector. A rank cannot reduce into the vector it is sending
// in the same round, so it sends a copy (two scratch vectors, alternating)
// and reduce-receives into the output. For p not a power of two (pow2_fold.hpp) rank 2i+1 first
// sends its vector to rank 2i, which reduces it, and gets the result back in
// one final round.
// Cost = l·alpha + l·n·beta + l·n·gamma for powers of two, else
// (l+2)·alpha + (l+2)·n·beta + (l+1)·n·gamma (n = vector bytes): the table.
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/pow2_fold.hpp"

namespace cb::allreduce {

void butterfly(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region out_all{kOutput, 0, n};
  const Region in_all{params.in_place ? kOutput : kInput, 0, n};
  const Pow2Fold f(p);
  const bool extra = f.is_extra(r);
  // copies[k % 2]: what round k sends when the output already holds it;
  // scratch vectors are declared on first use.
  Region copies[2] = {{kOutput, 0, 0}, {kOutput, 0, 0}};
  auto copy_to = [&](int i) {
    if (copies[i].count == 0) copies[i] = {b.add_scratch(n), 0, n};
    b.copy(out_all, copies[i]);
  };
  const BufferId temp = extra || params.in_place ? kOutput : b.add_scratch(n);
  bool own_in_out = params.in_place;
  if (f.folds()) {
    b.step();
    if (extra) {
      b.send(f.core_of(r), in_all);
    } else if (const int x = f.extra_of(r); x >= 0) {
      if (own_in_out)
        b.recv_reduce(x, out_all);
      else
        recv_reduce_from(b, x, in_all, out_all, temp);
      own_in_out = true;
    }
    if (!extra && own_in_out) copy_to(0);
  } else if (own_in_out) {
    b.step();  // local only: the first round must not send the vector it reduces into
    copy_to(0);
  }
  if (extra) {
    idle_rounds(b, f.l);
  } else {
    const int v = f.vrank(r);
    for (int k = 0; k < f.l; ++k) {
      b.step();
      const int peer = f.rank_of(v ^ (1 << k));
      b.send(peer, own_in_out ? copies[k % 2] : in_all);
      if (own_in_out)
        b.recv_reduce(peer, out_all);
      else
        recv_reduce_from(b, peer, in_all, out_all, temp);
      own_in_out = true;
      if (k + 1 < f.l) copy_to((k + 1) % 2);
    }
  }
  unfold_round(b, f, r, out_all);
}

Cost butterfly_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const double bytes = static_cast<double>(params.count * params.elem_size());
  const Cost rounds{static_cast<double>(f.l), f.l * bytes, f.l * bytes};
  return cost_sum({fold_round_cost(f, params.count, params.elem_size(), true), rounds,
                   fold_round_cost(f, params.count, params.elem_size(), false)});
}

}  // namespace cb::allreduce
