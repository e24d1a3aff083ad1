// The non-power-of-two fold (Thakur, Rabenseifner & Gropp 2005) used by the
// recursive halving / doubling / butterfly algorithms.
//
// With p' = the largest power of two <= p and e = p - p', ranks 2i and 2i+1
// (i < e) pair up: the odd one is an "extra" rank that hands its data to its
// even "core" partner in one round before the power-of-two part and gets the
// result back in one round after it; it idles in between. The p' core ranks
// renumber as virtual ranks v = 0..p'-1 in rank order: v = r/2 for r < 2e,
// v = r - e above. Pairing neighbours (rather than r and r + p') keeps the
// ranks a core rank stands for, [first_rank(v), first_rank(v+1)), contiguous,
// so a core rank's share of a per-rank-blocked vector is one region.
#pragma once

#include <functional>
#include <vector>

#include "algorithms/common/partition.hpp"
#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"

namespace cb {

struct Pow2Fold {
  int p = 1;
  int p2 = 1;  // p': core ranks
  int e = 0;   // extra ranks
  int l = 0;   // log2 p'

  explicit Pow2Fold(int ranks)
      : p(ranks), p2(pow2_floor(ranks)), e(ranks - pow2_floor(ranks)), l(floor_log2(ranks)) {}

  bool folds() const { return e > 0; }
  bool is_extra(int r) const { return r < 2 * e && (r & 1) == 1; }
  // The extra rank a core rank stands for, or -1.
  int extra_of(int r) const { return r < 2 * e && (r & 1) == 0 ? r + 1 : -1; }
  // The core rank an extra rank hands its data to.
  int core_of(int r) const { return r - 1; }
  // Virtual rank of a core rank.
  int vrank(int r) const { return r < 2 * e ? r / 2 : r - e; }
  // First real rank virtual rank v stands for (0 <= v <= p'; v = p' gives p).
  int first_rank(int v) const { return v < e ? 2 * v : v + e; }
  // Real rank of virtual rank v.
  int rank_of(int v) const { return first_rank(v); }
  // Real ranks virtual rank v stands for (1 or 2).
  int width(int v) const { return v < e ? 2 : 1; }
};

// Offsets (elements, p' + 1 entries) of the virtual ranks' shares of a vector
// of p blocks of c elements in rank order: v's share is blocks
// [first_rank(v), first_rank(v+1)), so it is one region.
inline std::vector<std::size_t> fold_block_offsets(const Pow2Fold& f, std::size_t c) {
  std::vector<std::size_t> off(static_cast<std::size_t>(f.p2) + 1);
  for (int v = 0; v <= f.p2; ++v)
    off[static_cast<std::size_t>(v)] = static_cast<std::size_t>(f.first_rank(v)) * c;
  return off;
}

// The same offsets as a function of v, for building one rank's schedule in
// O(log p) (recursive_phases.hpp's VirtualBlocks).
inline std::function<std::size_t(int)> fold_block_offset_fn(const Pow2Fold& f, std::size_t c) {
  return [f, c](int v) { return static_cast<std::size_t>(f.first_rank(v)) * c; };
}

// Cost of the fold round (extras send `fold_elems` to their partners, which
// reduce them when `reduces`) or of the unfold round; zero when p is a power
// of two. es = element size in bytes.
inline Cost fold_round_cost(const Pow2Fold& f, std::size_t elems, std::size_t es, bool reduces) {
  if (!f.folds() || elems == 0) return {};
  const double bytes = static_cast<double>(elems * es);
  return {1.0, bytes, reduces ? bytes : 0.0};
}

// The unfold round: every core rank that stands for an extra rank sends it
// `result` (the whole finished region), so the extra ranks end complete too.
// Nothing (not even a step) when p is a power of two.
inline void unfold_round(ScheduleBuilder& b, const Pow2Fold& f, int r, Region result) {
  if (!f.folds()) return;
  b.step();
  if (f.is_extra(r))
    b.recv(f.core_of(r), result);
  else if (const int x = f.extra_of(r); x >= 0)
    b.send(x, result);
}

}  // namespace cb
