#include "models/refine_sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "algorithms/types.hpp"

namespace cb::models {

namespace {

// 2^e for a whole exponent e >= 0 (sizes are at least 1 B).
std::uint64_t power_of_two(double e) {
  return std::uint64_t{1} << static_cast<int>(std::max(0.0, e));
}

}  // namespace

std::uint64_t nominal_size(double bytes) { return power_of_two(std::round(std::log2(bytes))); }

std::set<std::uint64_t> gap_midpoints(const std::vector<double>& sizes, double lo_B, double hi_B,
                                      std::uint64_t max_B) {
  std::set<std::uint64_t> inside;
  for (double s : sizes)
    if (s >= lo_B && s <= hi_B && s > 0) inside.insert(nominal_size(s));
  const std::vector<std::uint64_t> v(inside.begin(), inside.end());
  std::set<std::uint64_t> out;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= 2 * v[i - 1]) continue;
    // nearbyint rounds halves to even (the default rounding mode), as the
    // rule always has: the midpoint of 8 B and 64 B is 16 B, not 32 B.
    const double e = std::nearbyint((std::log2(v[i - 1]) + std::log2(v[i])) / 2);
    const std::uint64_t m = power_of_two(e);
    if (m <= max_B) out.insert(m);
  }
  return out;
}

std::vector<CrossoverSpan> crossover_spans(const CsvTable& t) {
  require_columns(t, {"kind", "collective", "ranks", "measured_crossover_B",
                      "measured_crossover_lo_B", "measured_crossover_hi_B"});
  std::vector<CrossoverSpan> out;
  for (const CsvRecord& r : t.rows()) {
    if (t.cell(r, "kind") != "pair" || t.cell(r, "measured_crossover_B").empty()) continue;
    CrossoverSpan s;
    s.at = {t.cell(r, "collective"), whole_count(t, r, "ranks")};
    s.lo_B = finite_number(t, r, "measured_crossover_lo_B");
    s.hi_B = finite_number(t, r, "measured_crossover_hi_B");
    out.push_back(std::move(s));
  }
  return out;
}

std::map<CollRanks, std::vector<double>> measured_sizes(const CsvTable& t) {
  require_columns(t, {"collective", "ranks", "bytes"});
  std::map<CollRanks, std::set<double>> distinct;
  for (const CsvRecord& r : t.rows()) {
    const double b = finite_number(t, r, "bytes");
    if (b < 0)
      throw UsageError(fmt::format("{}:{}: malformed, column bytes holds '{}', not a size >= 0",
                                   t.file(), r.line, t.cell(r, "bytes")));
    distinct[{t.cell(r, "collective"), whole_count(t, r, "ranks")}].insert(b);
  }
  std::map<CollRanks, std::vector<double>> out;
  for (const auto& [at, s] : distinct) out[at].assign(s.begin(), s.end());
  return out;
}

std::vector<RefineRange> refine_ranges(const std::vector<CrossoverSpan>& spans,
                                       const std::map<CollRanks, std::vector<double>>& sizes,
                                       std::uint64_t max_B) {
  std::map<CollRanks, std::set<std::uint64_t>> wanted;
  for (const CrossoverSpan& s : spans) {
    const auto it = sizes.find(s.at);
    if (it == sizes.end()) continue;
    wanted[s.at].merge(gap_midpoints(it->second, s.lo_B, s.hi_B, max_B));
  }
  std::vector<RefineRange> out;
  for (auto& [at, m] : wanted)
    if (!m.empty()) out.push_back({at, std::move(m)});
  return out;
}

std::string refine_lines(const std::vector<RefineRange>& ranges) {
  std::string out;
  for (const RefineRange& r : ranges)
    out += fmt::format("{} {} {} {}\n", r.at.first, r.at.second, r.min_B(), r.max_B());
  return out;
}

}  // namespace cb::models
