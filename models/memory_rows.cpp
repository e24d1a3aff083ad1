#include "models/memory_rows.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "algorithms/collective.hpp"
#include "models/csv_text.hpp"
#include "models/targets.hpp"

namespace cb::models {

std::vector<MemoryRow> memory_rows(const ResultsFile& results, double copy_GBps) {
  const double Bps = memory_Bps_of_copy(copy_GBps);
  std::vector<MemoryRow> out;
  if (!(Bps > 0)) return out;
  // Repeats of a configuration share their schedules' traffic.
  using Key = std::tuple<const AlgorithmEntry*, Collective, int, DataType, bool, std::uint64_t>;
  std::map<Key, MemoryTraffic> traffic;
  for (const Measurement& m : results.rows) {
    if (m.transport != kSharedMemoryTransport || m.entry == nullptr || !(m.time_s > 0)) continue;
    const Scenario& s = m.scenario;
    const Key key{m.entry, s.coll, s.p, s.dtype, s.in_place, m.count};
    auto it = traffic.find(key);
    if (it == traffic.end())
      it = traffic.emplace(key, critical_path_traffic(*m.entry, s, m.count)).first;
    MemoryRow row;
    row.m = &m;
    row.traffic = it->second;
    row.memory_Bps = Bps;
    row.bound_s = memory_bound_s(row.traffic, Bps);
    row.fraction = row.bound_s / m.time_s;
    row.out_of_cache = static_cast<double>(m.bytes) >= kOutOfCacheBytes;
    out.push_back(row);
  }
  return out;
}

std::string memory_rows_csv(const std::vector<MemoryRow>& rows) {
  std::string text =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,memory_read_B,"
      "memory_written_B,memory_GBps,memory_bound_us,time_median_us,fraction_of_bound,"
      "out_of_cache,target_fraction,met_target\n";
  for (const MemoryRow& r : rows) {
    const Measurement& m = *r.m;
    const Scenario& s = m.scenario;
    const double target = r.out_of_cache ? kMemoryBoundTarget : kNoTarget;
    text += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(m.transport),
        to_string(s.coll), csv_escape(m.algorithm), to_string(s.dtype),
        m.has_op ? std::string(to_string(s.op)) : std::string(), s.in_place ? "in" : "out", s.p,
        m.bytes, csv_number(r.traffic.read_B), csv_number(r.traffic.written_B),
        csv_number(r.memory_Bps * 1e-9), csv_number(r.bound_s * 1e6), csv_number(m.time_s * 1e6),
        csv_number(r.fraction), r.out_of_cache ? 1 : 0, r.out_of_cache ? csv_number(target) : "",
        met_cell(r.fraction, target, true));
  }
  return text;
}

}  // namespace cb::models
