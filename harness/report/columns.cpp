#include "harness/report/columns.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cb {

const std::vector<std::string_view>& result_columns() {
  static const std::vector<std::string_view> cols = {"transport",
                                                     "collective",
                                                     "algorithm",
                                                     "datatype",
                                                     "op",
                                                     "placement",
                                                     "ranks",
                                                     "bytes",
                                                     "count",
                                                     "iterations",
                                                     "time_median_us",
                                                     "time_min_us",
                                                     "time_mean_us",
                                                     "time_p95_us",
                                                     "time_max_us",
                                                     "ci_lo_us",
                                                     "ci_hi_us",
                                                     "algbw_GBps",
                                                     "busbw_GBps",
                                                     "wrong",
                                                     "oversubscribed",
                                                     "wait_policy",
                                                     "alpha_s",
                                                     "beta_s_per_B",
                                                     "gamma_s_per_B",
                                                     "host",
                                                     "timestamp",
                                                     "collbench_version",
                                                     "git_rev",
                                                     "mpi_version",
                                                     "load_avg_1m",
                                                     "procs_running",
                                                     "known_issue",
                                                     "note",
                                                     "start",
                                                     "late",
                                                     "probe_small_us",
                                                     "probe_large_us",
                                                     "nodes",
                                                     "ranks_per_node",
                                                     "arrival",
                                                     "clock_sync_us",
                                                     "noskew_median_us",
                                                     "after_last_median_us",
                                                     "early_idle_us",
                                                     "step_ratio",
                                                     "after_last_ratio",
                                                     "early_idle_ratio",
                                                     "after_last_ci_lo_us",
                                                     "after_last_ci_hi_us",
                                                     "library_setting"};
  return cols;
}

const std::vector<std::string_view>& key_columns() {
  static const std::vector<std::string_view> cols = {
      "transport", "collective", "algorithm", "datatype", "op", "placement", "ranks", "bytes"};
  return cols;
}

std::vector<Cell> row_cells(const Row& r, const RunMetadata& meta) {
  const auto opt = [](const std::optional<double>& v) -> Cell {
    return v ? Cell(*v) : Cell(std::monostate{});
  };
  const bool timed = r.time_s.n > 0;  // skipped rows leave every time cell empty
  const auto us = [timed](double s) { return timed ? Cell(s * 1e6) : Cell(std::monostate{}); };
  const auto i64 = [](auto v) { return Cell(static_cast<std::int64_t>(v)); };
  // Case::ranks_per_node K: ceil(ranks/K) nodes of K (the last may hold
  // fewer); 0 = one node; -1 (irregular) leaves both cells empty.
  struct {
    Cell nodes, ranks_per_node;
  } layout;
  if (r.c.ranks_per_node >= 0) {
    const int k = r.c.ranks_per_node == 0 ? r.c.ranks : std::min(r.c.ranks_per_node, r.c.ranks);
    layout = {i64((r.c.ranks + k - 1) / std::max(k, 1)), i64(k)};
  }
  // --arrival: a time over the no-skew median of the same run.
  const auto ratio = [&r](const std::optional<double>& v) {
    return v && r.noskew_median_s && *r.noskew_median_s > 0 ? Cell(*v / *r.noskew_median_s)
                                                            : Cell(std::monostate{});
  };
  return {
      Cell(r.c.transport),
      Cell(std::string(to_string(r.c.coll))),
      Cell(r.c.algorithm),
      Cell(std::string(to_string(r.c.dtype))),
      is_reducing(r.c.coll) ? Cell(std::string(to_string(r.c.op))) : Cell(std::monostate{}),
      Cell(std::string(r.c.in_place ? "in" : "out")),
      i64(r.c.ranks),
      i64(r.c.bytes()),
      i64(r.c.count),
      i64(r.time_s.n),
      us(r.time_s.median),
      us(r.time_s.min),
      us(r.time_s.mean),
      us(r.time_s.p95),
      us(r.time_s.max),
      us(r.time_s.ci_lo),
      us(r.time_s.ci_hi),
      timed ? Cell(r.algbw_GBps) : Cell(std::monostate{}),
      timed ? Cell(r.busbw_GBps) : Cell(std::monostate{}),
      r.wrong ? i64(*r.wrong) : Cell(std::monostate{}),
      i64(r.oversubscribed ? 1 : 0),
      r.wait ? Cell(std::string(to_string(*r.wait))) : Cell(std::monostate{}),
      opt(r.alpha_s),
      opt(r.beta_s_per_B),
      opt(r.gamma_s_per_B),
      Cell(meta.host),
      Cell(meta.timestamp),
      Cell(meta.collbench_version),
      Cell(meta.git_rev),
      Cell(meta.mpi_version),
      opt(r.load_avg_1m),
      r.procs_running ? i64(*r.procs_running) : Cell(std::monostate{}),
      r.known_issue.empty() ? Cell(std::monostate{}) : Cell(r.known_issue),
      r.skipped.empty() ? Cell(std::monostate{}) : Cell(r.skipped),
      r.start ? Cell(std::string(to_string(*r.start))) : Cell(std::monostate{}),
      r.late ? i64(*r.late) : Cell(std::monostate{}),
      r.probe_small_s ? Cell(*r.probe_small_s * 1e6) : Cell(std::monostate{}),
      r.probe_large_s ? Cell(*r.probe_large_s * 1e6) : Cell(std::monostate{}),
      layout.nodes,
      layout.ranks_per_node,
      r.arrival.empty() ? Cell(std::monostate{}) : Cell(r.arrival),
      r.clock_sync_s ? Cell(*r.clock_sync_s * 1e6) : Cell(std::monostate{}),
      r.noskew_median_s ? Cell(*r.noskew_median_s * 1e6) : Cell(std::monostate{}),
      r.after_last_median_s ? Cell(*r.after_last_median_s * 1e6) : Cell(std::monostate{}),
      r.early_idle_s ? Cell(*r.early_idle_s * 1e6) : Cell(std::monostate{}),
      ratio(timed ? std::optional<double>(r.time_s.median) : std::nullopt),
      ratio(r.after_last_median_s),
      ratio(r.early_idle_s),
      r.after_last_ci_lo_s ? Cell(*r.after_last_ci_lo_s * 1e6) : Cell(std::monostate{}),
      r.after_last_ci_hi_s ? Cell(*r.after_last_ci_hi_s * 1e6) : Cell(std::monostate{}),
      r.library_setting.empty() ? Cell(std::monostate{}) : Cell(r.library_setting),
  };
}

std::string csv_cell(const Cell& c) {
  struct Render {
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(std::int64_t v) const { return fmt::format("{}", v); }
    std::string operator()(double v) const { return fmt::format("{:.9g}", v); }
    std::string operator()(const std::string& s) const {
      if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
      std::string q = "\"";
      for (char ch : s) {
        if (ch == '"') q += '"';
        q += ch;
      }
      return q + '"';
    }
  };
  return std::visit(Render{}, c);
}

}  // namespace cb
