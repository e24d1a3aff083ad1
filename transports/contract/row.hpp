// One result row: a Case, its timing statistics and verification, and the
// columns CSV.md fixes (columns.hpp renders them for CSV and JSON alike).
// Rows are identified by their key columns (row_key), which --resume uses to
// skip configurations a CSV already holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "transports/contract/measure.hpp"
#include "transports/contract/method_names.hpp"
#include "transports/contract/stats.hpp"

namespace cb {

struct Row {
  Case c;
  Stats time_s;           // per-iteration time statistics, SECONDS
  double algbw_GBps = 0;  // from the median; GB = 1e9 B
  double busbw_GBps = 0;
  std::optional<std::uint64_t> wrong;
  bool oversubscribed = false;
  std::optional<WaitPolicy> wait;  // none: nobody waited (simulated rows)
  std::optional<StartMethod> start;  // how samples started; none for simulated rows
  std::optional<int> late;  // window start: samples dropped for a late rank (Measurement::late)
  std::optional<double> alpha_s, beta_s_per_B, gamma_s_per_B;
  std::optional<std::uint64_t> events;  // simulated message events
  std::string skipped;                  // why there are no times (Measurement::skipped)
  // The machine's load when the row was measured (load.hpp); nullopt where
  // /proc/loadavg does not exist.
  std::optional<double> load_avg_1m;
  std::optional<int> procs_running;
  // A known upstream defect of the library baseline for this case (e.g.
  // "pmodels/mpich#6083 (...)"), "" when none: see TransportSpec::known_issue.
  std::string known_issue;
  // The library's settings for a baseline row ("" = its defaults or a
  // schedule): see TransportSpec::library_setting.
  std::string library_setting;
  // The mode probe (Measurement::probe_small_s, probe_large_s), seconds.
  std::optional<double> probe_small_s, probe_large_s;
  // --arrival (docs/arrival.md): the pattern as given ("" without one); then,
  // SECONDS, from the same run: the no-skew configuration's median, the
  // median time from the last arrival to the last completion, and the early
  // ranks' idle time (the median of their mean time held in the collective
  // minus the no-skew median, at least 0; nullopt when no rank arrived early).
  // Under a pattern time_s is the step time: first arrival to last completion.
  std::string arrival;
  std::optional<double> noskew_median_s, after_last_median_s, early_idle_s;
  // The 95% confidence interval of after_last_median_s (SECONDS; stats.hpp's
  // rule), so that a comparison of algorithms under a pattern can tell a tie
  // from a difference (collbench arrival-check).
  std::optional<double> after_last_ci_lo_s, after_last_ci_hi_s;
  // Window start: the clock sync's accuracy bound (Measurement::clock_sync_s).
  std::optional<double> clock_sync_s;
};

// nccl-tests' bus bandwidth factor: allreduce 2(p-1)/p, the others (p-1)/p.
double busbw_factor(Collective coll, int p);

Row make_row(const Case& c, const Measurement& m);

// "transport,collective,algorithm,datatype,op,placement,ranks,bytes" values
// joined with ',': the identity of a row across runs (as its CSV cells read).
std::string case_key(const Case& c);
inline std::string row_key(const Row& r) { return case_key(r.c); }

}  // namespace cb
