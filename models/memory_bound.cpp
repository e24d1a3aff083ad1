#include "models/memory_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/fuse.hpp"
#include "algorithms/schedule_cost.hpp"
#include "models/calibration.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

namespace {

// Step `i` of `s`: each receive's own bytes (one entry per receive, in list
// order) and those of the local ops that run after every receive.
struct StepTraffic {
  std::vector<MemoryTraffic> recvs;
  MemoryTraffic locals;
};

StepTraffic step_traffic(const Schedule& s, std::size_t i) {
  const double es = static_cast<double>(element_size(s.dtype));
  auto stream = [es](double read_elems, double written_elems) {
    return MemoryTraffic{read_elems * es, written_elems * es};
  };
  const Step& step = s.steps[i];
  StepTraffic t;
  t.recvs.reserve(step.recvs.size());
  for (std::size_t k = 0; k < step.recvs.size(); ++k) {
    const Recv& r = step.recvs[k];
    const auto c = static_cast<double>(r.dst.count);
    if (r.mode == RecvMode::reduce)
      t.recvs.push_back(stream(2 * c, c));
    else if (!fusable_local_reduce(s, i, k))
      t.recvs.push_back(stream(c, c));
    else  // the local reduce that consumes it reads the sender's memory
      t.recvs.emplace_back();
  }
  for (std::size_t l = 0; l < step.locals.size(); ++l) {
    const Local& op = step.locals[l];
    const auto c = static_cast<double>(op.dst.count);
    if (copy_then_reduce(step, l)) {
      t.locals += stream(2 * c, c);
      ++l;  // the reduce is part of this pass
      continue;
    }
    switch (op.kind) {
      case LocalKind::copy: t.locals += stream(c, c); break;
      case LocalKind::reduce: t.locals += stream(2 * c, c); break;
      case LocalKind::average: t.locals += stream(c, c); break;
    }
  }
  return t;
}

MemoryTraffic plus(MemoryTraffic a, const MemoryTraffic& b) { return a += b; }

const MemoryTraffic& longer(const MemoryTraffic& a, const MemoryTraffic& b) {
  return b.total_B() > a.total_B() ? b : a;
}

}  // namespace

MemoryTraffic memory_traffic(const Schedule& s) {
  MemoryTraffic t;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const StepTraffic st = step_traffic(s, i);
    for (const MemoryTraffic& r : st.recvs) t += r;
    t += st.locals;
  }
  return t;
}

MemoryTraffic critical_path_traffic(std::span<const Schedule> all_ranks) {
  // done[r]: the longest chain of bytes that ends with rank r's last step so
  // far. Steps are global rounds (schedule.hpp), so round i reads round i-1.
  std::vector<MemoryTraffic> done(all_ranks.size()), next(all_ranks.size());
  std::size_t rounds = 0;
  for (const Schedule& s : all_ranks) rounds = std::max(rounds, s.steps.size());
  for (std::size_t i = 0; i < rounds; ++i) {
    for (std::size_t r = 0; r < all_ranks.size(); ++r) {
      const Schedule& s = all_ranks[r];
      if (i >= s.steps.size()) {
        next[r] = done[r];
        continue;
      }
      const StepTraffic st = step_traffic(s, i);
      MemoryTraffic own = st.locals;
      for (const MemoryTraffic& t : st.recvs) own += t;
      MemoryTraffic chain = plus(done[r], own);
      for (std::size_t k = 0; k < st.recvs.size(); ++k) {
        const auto from = static_cast<std::size_t>(s.steps[i].recvs[k].peer);
        chain = longer(chain, plus(plus(done.at(from), st.recvs[k]), st.locals));
      }
      next[r] = chain;
    }
    std::swap(done, next);
  }
  MemoryTraffic most;
  for (const MemoryTraffic& t : done) most = longer(most, t);
  return most;
}

MemoryTraffic critical_path_traffic(const AlgorithmEntry& algo, const Scenario& s,
                                    std::uint64_t count) {
  return critical_path_traffic(make_all_schedules(algo, coll_params(s, count)));
}

double memory_bound_s(const MemoryTraffic& t, double memory_Bps) {
  if (!(memory_Bps > 0)) return std::numeric_limits<double>::quiet_NaN();
  return t.total_B() / memory_Bps;
}

double memory_Bps_of_copy(double copy_GBps) { return copy_GBps > 0 ? 2 * 1e9 * copy_GBps : 0; }

double copy_GBps_of(const std::string& path) {
  const CsvTable t(read_written_file(path), path);
  if (t.has("scope")) return 0;  // a fit.csv: no copy was measured
  const Calibration c = read_calibration(path);
  return c.memory_GBps > 0 ? c.memory_GBps : c.memcpy_GBps;
}

}  // namespace cb::models
