#include "harness/report/paired_rounds.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "algorithms/types.hpp"
#include "transports/contract/stats.hpp"
#include "models/csv_text.hpp"

namespace cb {

std::vector<RoundTime> parse_round_times(std::string_view text, const std::string& file) {
  const models::CsvTable t(text, file);
  for (const char* column : {"round", "variant", "bytes", "time_us"})
    if (!t.has(column))
      throw UsageError(fmt::format("{}: no column '{}' (accepted: a CSV with round, variant, "
                                   "bytes, time_us)",
                                   file, column));
  std::vector<RoundTime> out;
  for (const models::CsvRecord& r : t.rows()) {
    RoundTime x;
    x.variant = t.cell(r, "variant");
    const auto integer = [&](const char* column, auto& v) {
      const std::string& s = t.cell(r, column);
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size())
        throw UsageError(fmt::format("{}:{}: {} '{}' is not a non-negative integer", file, r.line,
                                     column, s));
    };
    integer("round", x.round);
    integer("bytes", x.bytes);
    const std::string& s = t.cell(r, "time_us");
    char* end = nullptr;
    x.time_us = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x.time_us) || x.time_us <= 0)
      throw UsageError(fmt::format("{}:{}: time_us '{}' is not a positive time", file, r.line, s));
    if (x.variant.empty() || x.round < 0)
      throw UsageError(fmt::format("{}:{}: empty variant or negative round", file, r.line));
    out.push_back(std::move(x));
  }
  return out;
}

std::string_view to_string(RatioVerdict v) {
  switch (v) {
    case RatioVerdict::faster: return "faster";
    case RatioVerdict::slower: return "slower";
    case RatioVerdict::same: break;
  }
  return "same";
}

std::vector<SizeRatio> paired_ratios(const std::vector<RoundTime>& times,
                                     const std::string& base, const std::string& next) {
  // bytes -> round -> (base, new); a variant timed twice in a round keeps
  // its last time (a round is one run of each).
  std::map<std::uint64_t, std::map<int, std::pair<double, double>>> cells;
  std::set<std::string> variants;
  for (const RoundTime& t : times) {
    variants.insert(t.variant);
    if (t.variant != base && t.variant != next) continue;
    auto& c = cells[t.bytes][t.round];
    (t.variant == base ? c.first : c.second) = t.time_us;
  }
  for (const std::string& v : {base, next})
    if (!variants.count(v)) {
      std::string seen;
      for (const std::string& s : variants) seen += (seen.empty() ? "" : ", ") + s;
      throw UsageError(fmt::format("variant '{}' has no timing (the file has: {})", v,
                                   seen.empty() ? "none" : seen));
    }
  std::vector<SizeRatio> out;
  for (const auto& [bytes, rounds] : cells) {
    std::vector<double> ratios, b, n;
    for (const auto& [round, pair] : rounds)
      if (pair.first > 0 && pair.second > 0) {
        ratios.push_back(pair.first / pair.second);
        b.push_back(pair.first);
        n.push_back(pair.second);
      }
    if (ratios.empty()) continue;
    const Stats s = summarize(ratios);
    SizeRatio r;
    r.bytes = bytes;
    r.rounds = ratios.size();
    r.base_median_us = summarize(b).median;
    r.new_median_us = summarize(n).median;
    r.ratio_median = s.median;
    r.ratio_min = s.min;
    r.ratio_max = s.max;
    r.ratio_ci_lo = s.ci_lo;
    r.ratio_ci_hi = s.ci_hi;
    r.verdict = s.ci_lo > 1   ? RatioVerdict::faster
                : s.ci_hi < 1 ? RatioVerdict::slower
                              : RatioVerdict::same;
    out.push_back(r);
  }
  if (out.empty())
    throw UsageError(fmt::format("no size was timed by both '{}' and '{}' in one round", base,
                                 next));
  return out;
}

std::string paired_ratios_csv(const std::vector<SizeRatio>& rows) {
  std::string out =
      "bytes,rounds,base_median_us,new_median_us,ratio_median,ratio_min,ratio_max,ratio_ci_lo,"
      "ratio_ci_hi,verdict\n";
  for (const SizeRatio& r : rows)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", r.bytes, r.rounds,
                       models::csv_number(r.base_median_us), models::csv_number(r.new_median_us),
                       models::csv_number(r.ratio_median), models::csv_number(r.ratio_min),
                       models::csv_number(r.ratio_max), models::csv_number(r.ratio_ci_lo),
                       models::csv_number(r.ratio_ci_hi), to_string(r.verdict));
  return out;
}

}  // namespace cb
