#include "models/memory_bound.hpp"

#include <cmath>
#include <limits>

#include "algorithms/check.hpp"
#include "algorithms/fuse.hpp"
#include "algorithms/schedule_cost.hpp"
#include "models/calibration.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

MemoryTraffic memory_traffic(const Schedule& s) {
  const double es = static_cast<double>(element_size(s.dtype));
  MemoryTraffic t;
  auto stream = [&](double read_elems, double written_elems) {
    t.read_B += read_elems * es;
    t.written_B += written_elems * es;
  };
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& step = s.steps[i];
    for (std::size_t k = 0; k < step.recvs.size(); ++k) {
      const Recv& r = step.recvs[k];
      const auto c = static_cast<double>(r.dst.count);
      if (r.mode == RecvMode::reduce)
        stream(2 * c, c);
      else if (!fusable_local_reduce(s, i, k))
        stream(c, c);
      // else: the local reduce that consumes it reads the sender's memory
    }
    for (std::size_t l = 0; l < step.locals.size(); ++l) {
      const Local& op = step.locals[l];
      const auto c = static_cast<double>(op.dst.count);
      if (copy_then_reduce(step, l)) {
        stream(2 * c, c);
        ++l;  // the reduce is part of this pass
        continue;
      }
      switch (op.kind) {
        case LocalKind::copy: stream(c, c); break;
        case LocalKind::reduce: stream(2 * c, c); break;
        case LocalKind::average: stream(c, c); break;
      }
    }
  }
  return t;
}

MemoryTraffic busiest_rank_traffic(std::span<const Schedule> all_ranks) {
  MemoryTraffic most;
  for (const Schedule& s : all_ranks) {
    const MemoryTraffic t = memory_traffic(s);
    if (t.total_B() > most.total_B()) most = t;
  }
  return most;
}

MemoryTraffic busiest_rank_traffic(const AlgorithmEntry& algo, const Scenario& s,
                                   std::uint64_t count) {
  return busiest_rank_traffic(make_all_schedules(algo, coll_params(s, count)));
}

double memory_bound_s(const MemoryTraffic& t, double memory_Bps) {
  if (!(memory_Bps > 0)) return std::numeric_limits<double>::quiet_NaN();
  return t.total_B() / memory_Bps;
}

double memory_Bps_of_copy(double memcpy_GBps) {
  return memcpy_GBps > 0 ? 2 * 1e9 * memcpy_GBps : 0;
}

double copy_GBps_of(const std::string& path) {
  const CsvTable t(read_written_file(path), path);
  if (t.has("scope")) return 0;  // a fit.csv: no copy was measured
  return read_calibration(path).memcpy_GBps;
}

}  // namespace cb::models
