// Direct exchange: every rank trades one block with each of the p-1 others.
// The naive algorithms do it in one round; pairwise exchange spreads the same
// messages over p-1 rounds. Both share the peer order and, under the cost
// convention of params.hpp (every message of a round counts one alpha), the
// cost.
#pragma once

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"

namespace cb {

// One round of a direct exchange, as rank r of p posts it: send(q) for
// q = r+1, r+2, ... and then recv(q) for q = r-1, r-2, ... (indices mod p),
// so that the k-th send of every rank meets the k-th receive of its peer.
template <class SendFn, class RecvFn>
void direct_round(int p, int r, SendFn send, RecvFn recv) {
  for (int i = 1; i < p; ++i) send((r + i) % p);
  for (int i = 1; i < p; ++i) recv((r - i + p) % p);
}

// (p-1)·α + (p-1)·n·s·β, plus (p-1)·n·s·γ when every received block is
// reduced (n = count = elements per block, s = element size); 0 for p = 1.
inline Cost direct_cost(const CollParams& params, bool reduces) {
  const double others = params.p - 1;
  const double bytes = others * static_cast<double>(params.count * params.elem_size());
  return {others, bytes, reduces ? bytes : 0};
}

}  // namespace cb
