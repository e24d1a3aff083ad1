// `collbench compare BASE.csv NEW.csv`: a regression check between two
// results CSVs (harness/report/CSV.md). Configurations are matched by the key columns
// (transport, collective, algorithm, datatype, op, placement, ranks, bytes) and
// their median times compared together with the medians' 95% CIs.
//
// A configuration is slower (a regression) when NEW's CI lies wholly above
// BASE's CI *and* the ratio new/base median exceeds 1 + threshold; faster in
// the mirrored case (ratio below 1 / (1 + threshold)). A ratio beyond the
// threshold whose CIs overlap is `noisy`: the two runs cannot tell it apart
// from noise. Everything else is `same`.
#pragma once

#include <string>
#include <vector>

namespace cb {

enum class Verdict { faster, slower, same, noisy };
const char* to_string(Verdict v);

// One configuration's median and CI, microseconds.
struct TimedConfig {
  std::string key;  // the key columns joined by '/', for display and matching
  double median_us = 0, ci_lo_us = 0, ci_hi_us = 0;
  bool oversubscribed = false;
};

struct Comparison {
  std::string key;
  TimedConfig base, next;
  double ratio = 1;  // next.median / base.median (time: > 1 is slower)
  Verdict verdict = Verdict::same;
};

struct CompareResult {
  std::vector<Comparison> rows;        // matched configurations, in BASE's order
  std::vector<std::string> only_base;  // keys missing from NEW
  std::vector<std::string> only_next;  // keys missing from BASE
  int count(Verdict v) const;
};

// Classifies one pair; `threshold` is relative (0.05 = 5%).
Verdict classify(const TimedConfig& base, const TimedConfig& next, double threshold);

// Reads one results CSV (UsageError naming the file and what is wrong:
// unreadable, missing columns, a non-number, a key twice).
std::vector<TimedConfig> read_timed_configs(const std::string& path);

CompareResult compare_runs(const std::vector<TimedConfig>& base,
                           const std::vector<TimedConfig>& next, double threshold);

// "5%", "5 %", "0.05": the relative threshold; UsageError otherwise.
double parse_threshold(const std::string& text);

}  // namespace cb
