#include "algorithms/schedule_cost.hpp"

#include <algorithm>

#include "algorithms/check.hpp"

namespace cb {

std::vector<Cost> per_step_cost(std::span<const Schedule> all_ranks) {
  std::size_t nsteps = 0;
  for (const Schedule& s : all_ranks) {
    CB_CHECK(s.first_step == 0 && s.steps.size() == s.total_steps,
             "rank {}: costing needs whole schedules, not a window", s.rank);
    nsteps = std::max(nsteps, s.steps.size());
  }
  std::vector<Cost> out(nsteps);
  for (std::size_t i = 0; i < nsteps; ++i) {
    Cost c;
    for (const Schedule& s : all_ranks) {
      if (i >= s.steps.size()) continue;
      const Step& st = s.steps[i];
      const double esize = static_cast<double>(element_size(s.dtype));
      std::size_t sent = 0, received = 0, reduced = 0;
      for (const Send& x : st.sends) sent += x.src.count;
      for (const Recv& x : st.recvs) {
        received += x.dst.count;
        if (x.mode == RecvMode::reduce) reduced += x.dst.count;
      }
      for (const Local& x : st.locals)
        if (x.kind == LocalKind::reduce) reduced += x.dst.count;
      c.alpha = std::max(c.alpha, static_cast<double>(std::max(st.sends.size(), st.recvs.size())));
      c.beta = std::max(c.beta, static_cast<double>(std::max(sent, received)) * esize);
      c.gamma = std::max(c.gamma, static_cast<double>(reduced) * esize);
    }
    out[i] = c;
  }
  return out;
}

Cost schedule_cost(std::span<const Schedule> all_ranks) {
  Cost total;
  for (const Cost& c : per_step_cost(all_ranks)) {
    total.alpha += c.alpha;
    total.beta += c.beta;
    total.gamma += c.gamma;
  }
  return total;
}

std::vector<Schedule> make_all_schedules(const AlgorithmEntry& algo, CollParams params) {
  std::vector<Schedule> all;
  all.reserve(static_cast<std::size_t>(params.p));
  for (int r = 0; r < params.p; ++r) {
    params.rank = r;
    all.push_back(make_schedule(algo, params));
  }
  return all;
}

}  // namespace cb
