#include "models/latency_rounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

}  // namespace

std::string latency_rounds_csv(const std::vector<LinkRow>& rows, const NetworkSetting& net) {
  const double alpha = net.latency_s + net.stack_overhead_s;
  // The smallest size per (ranks, collective, algorithm); the first row of equal sizes.
  std::map<std::tuple<int, std::string, std::string>, const LinkRow*> smallest;
  for (const LinkRow& l : rows) {
    const int p = l.row->scenario.p;
    if (std::find(std::begin(kLatencyRanks), std::end(kLatencyRanks), p) ==
        std::end(kLatencyRanks))
      continue;
    const std::string coll(to_string(l.row->scenario.coll));
    auto [it, fresh] = smallest.try_emplace({p, coll, l.row->algorithm}, &l);
    if (!fresh && l.row->bytes < it->second->row->bytes) it->second = &l;
  }
  std::string out =
      "kind,ranks,rounds,collective,algorithm,bytes,median_alpha,fastest_alpha,off,off_factor,"
      "count\n";
  for (const int p : kLatencyRanks) out += fmt::format("ranks,{},,,,,,,,,\n", p);
  std::map<std::pair<int, long long>, std::vector<double>> by_rounds;
  for (const auto& [key, l] : smallest) {
    const auto& [p, coll, algo] = key;
    const double med = l->row->time_s / alpha, fastest = l->row->time_min_s / alpha;
    const bool counted = l->rounds > 0;
    const double ratio = med / l->rounds;
    const bool off = counted && (ratio >= kLatencyOff || ratio <= 1 / kLatencyOff);
    if (counted) by_rounds[{p, std::llround(l->rounds)}].push_back(med);
    out += fmt::format("row,{},{},{},{},{},{},{},{},{},\n", p, csv_exact(l->rounds),
                       csv_escape(coll), csv_escape(algo), l->row->bytes, csv_exact(med),
                       csv_exact(fastest), off ? 1 : 0, kLatencyOff);
  }
  for (const auto& [key, v] : by_rounds)
    out += fmt::format("rounds,{},{},,,,{},,,,{}\n", key.first, key.second, csv_exact(median(v)),
                       v.size());
  return out;
}

}  // namespace cb::models
