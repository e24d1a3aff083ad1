#include "models/fit_rows.hpp"

#include <fmt/format.h>

namespace cb::models {

FitRows choose_fit_rows(const std::vector<const Measurement*>& candidates, std::size_t min_rows) {
  FitRows out;
  std::vector<std::size_t> own_core;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (!candidates[i]->oversubscribed) own_core.push_back(i);
  const std::size_t over = candidates.size() - own_core.size();
  if (over > 0 && own_core.size() >= min_rows) {
    out.used = std::move(own_core);
    out.left_out = over;
    out.why = "measured with more ranks than cores (oversubscribed = 1): they time the OS "
              "scheduler too, and the rows with a core per rank suffice for the fit";
    return out;
  }
  out.used.resize(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) out.used[i] = i;
  if (over > 0)
    out.note = fmt::format("only {} row(s) had a core per rank, too few for the fit, so it uses "
                           "the {} measured with more ranks than cores (oversubscribed = 1) too: "
                           "its parameters include the OS scheduler's waits",
                           candidates.size() - over, over);
  return out;
}

}  // namespace cb::models
