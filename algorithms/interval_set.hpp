// Half-open ranges [lo, hi) of one address space (elements or bytes, as the
// caller counts), kept merged: what a schedule has defined (validate.cpp),
// what later sends read (the IPC executor).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <optional>

namespace cb {

class IntervalSet {
 public:
  void add(std::size_t lo, std::size_t hi) {
    if (lo >= hi) return;
    auto it = set_.upper_bound(lo);
    if (it != set_.begin()) {
      auto prev = std::prev(it);
      if (prev->second >= lo) {
        lo = prev->first;
        hi = std::max(hi, prev->second);
        it = set_.erase(prev);
      }
    }
    while (it != set_.end() && it->first <= hi) {
      hi = std::max(hi, it->second);
      it = set_.erase(it);
    }
    set_.emplace(lo, hi);
  }
  // The first element of [lo, hi) not covered, if any.
  std::optional<std::size_t> first_gap(std::size_t lo, std::size_t hi) const {
    if (lo >= hi) return std::nullopt;
    auto it = set_.upper_bound(lo);
    if (it == set_.begin()) return lo;
    --it;
    if (it->second <= lo) return lo;
    if (it->second >= hi) return std::nullopt;
    return it->second;
  }
  // Whether some element of [lo, hi) is covered.
  bool overlaps(std::size_t lo, std::size_t hi) const {
    if (lo >= hi) return false;
    auto it = set_.lower_bound(hi);  // the first range starting at or past hi
    return it != set_.begin() && std::prev(it)->second > lo;
  }

 private:
  std::map<std::size_t, std::size_t> set_;
};

}  // namespace cb
