// Costs of consecutive phases add term by term (each phase has its own rounds).
#pragma once

#include <initializer_list>

#include "algorithms/params.hpp"

namespace cb {

inline Cost cost_sum(std::initializer_list<Cost> parts) {
  Cost total;
  for (const Cost& c : parts) {
    total.alpha += c.alpha;
    total.beta += c.beta;
    total.gamma += c.gamma;
  }
  return total;
}

}  // namespace cb
