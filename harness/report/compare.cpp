#include "harness/report/compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"

namespace cb {
namespace {

constexpr const char* kKeyColumns[] = {"transport", "collective", "algorithm", "datatype",
                                       "op",        "placement",  "ranks",     "bytes"};
constexpr const char* kTimeColumns[] = {"time_median_us", "ci_lo_us", "ci_hi_us"};

double number(const models::CsvTable& t, const models::CsvRecord& r, const char* column) {
  const std::string& text = t.cell(r, column);
  const auto v = models::whole_finite(text);
  if (!v || *v < 0)
    throw UsageError(fmt::format("{}:{}: column {} holds '{}', not a time >= 0 in us", t.file(),
                                 r.line, column, text));
  return *v;
}

void check_whole(const models::CsvTable& t, const models::CsvRecord& r, const char* column,
                 long long lo, long long hi) {
  const std::string& text = t.cell(r, column);
  const auto v = models::whole_integer(text);
  if (!v || *v < lo || *v > hi)
    throw UsageError(fmt::format("{}:{}: column {} holds '{}', not a whole number in {}..{}",
                                 t.file(), r.line, column, text, lo, hi));
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "SLOWER";
    case Verdict::same: return "same";
    case Verdict::noisy: return "noisy";
  }
  return "?";
}

int CompareResult::count(Verdict v) const {
  int n = 0;
  for (const Comparison& c : rows) n += c.verdict == v;
  return n;
}

Verdict classify(const TimedConfig& base, const TimedConfig& next, double threshold) {
  if (!(base.median_us > 0)) return next.median_us > 0 ? Verdict::noisy : Verdict::same;
  const double ratio = next.median_us / base.median_us;
  const bool slower = ratio > 1 + threshold;
  const bool faster = ratio < 1 / (1 + threshold);
  if (!slower && !faster) return Verdict::same;
  // Beyond the threshold: a verdict only where the CIs do not overlap.
  if (slower && next.ci_lo_us > base.ci_hi_us) return Verdict::slower;
  if (faster && next.ci_hi_us < base.ci_lo_us) return Verdict::faster;
  return Verdict::noisy;
}

std::vector<TimedConfig> read_timed_configs(const std::string& path) {
  const models::CsvTable table(models::read_written_file(path), path);
  std::string missing;
  for (const char* c : kKeyColumns)
    if (!table.has(c)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", c);
  for (const char* c : kTimeColumns)
    if (!table.has(c)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", c);
  if (!missing.empty())
    throw UsageError(fmt::format("{}: not a collbench results CSV (missing column(s) {})", path,
                                 missing));
  std::vector<TimedConfig> out;
  std::map<std::string, std::size_t> seen;
  for (const models::CsvRecord& r : table.rows()) {
    TimedConfig c;
    for (const char* k : kKeyColumns)
      c.key += fmt::format("{}{}", c.key.empty() ? "" : "/", table.cell(r, k));
    // Keys are matched as text, so a rank count or size that is not a whole
    // number (ranks=1e300) would pair with nothing and pass in silence.
    check_whole(table, r, "ranks", 1, std::numeric_limits<int>::max());
    check_whole(table, r, "bytes", 0, std::numeric_limits<long long>::max());
    c.median_us = number(table, r, "time_median_us");
    c.ci_lo_us = number(table, r, "ci_lo_us");
    c.ci_hi_us = number(table, r, "ci_hi_us");
    c.oversubscribed = table.cell(r, "oversubscribed") == "1";
    if (const auto [it, fresh] = seen.emplace(c.key, r.line); !fresh)
      throw UsageError(fmt::format("{}:{}: configuration {} already on line {} (compare one run "
                                   "per file)", path, r.line, c.key, it->second));
    out.push_back(std::move(c));
  }
  if (out.empty()) throw UsageError(fmt::format("{}: no data rows", path));
  return out;
}

CompareResult compare_runs(const std::vector<TimedConfig>& base,
                           const std::vector<TimedConfig>& next, double threshold) {
  CompareResult result;
  std::map<std::string, const TimedConfig*> by_key;
  for (const TimedConfig& n : next) by_key[n.key] = &n;
  for (const TimedConfig& b : base) {
    const auto it = by_key.find(b.key);
    if (it == by_key.end()) {
      result.only_base.push_back(b.key);
      continue;
    }
    Comparison c;
    c.key = b.key;
    c.base = b;
    c.next = *it->second;
    c.ratio = b.median_us > 0 ? c.next.median_us / b.median_us : NAN;
    c.verdict = classify(b, c.next, threshold);
    result.rows.push_back(std::move(c));
    by_key.erase(it);
  }
  for (const TimedConfig& n : next)
    if (by_key.count(n.key)) result.only_next.push_back(n.key);
  return result;
}

double parse_threshold(const std::string& text) {
  std::string t = text;
  bool percent = false;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (!t.empty() && t.back() == '%') {
    percent = true;
    t.pop_back();
  }
  std::size_t used = 0;
  double v = NAN;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  while (used < t.size() && t[used] == ' ') ++used;
  // Above 1000% (10x slower) a threshold no longer checks anything: with
  // 1e300 every slowdown passed.
  constexpr double kMaxFraction = 10;
  const double fraction = percent ? v / 100 : v;
  if (t.empty() || used != t.size() || !std::isfinite(v) || v < 0 || fraction > kMaxFraction)
    throw UsageError(fmt::format("bad --threshold '{}' (accepted: a percentage such as 5% or a "
                                 "fraction such as 0.05, from 0 to 1000% = 10)", text));
  return fraction;
}

}  // namespace cb
