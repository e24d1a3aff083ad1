#include "models/study_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

namespace fs = std::filesystem;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One row: a quantity before and after, its ratio, and whether it moved
// beyond kCalibrationMoved either way (no ratio: moved).
void drift_row(std::string& out, const std::string& transport, std::string_view quantity,
               double before, double after) {
  const double ratio = before > 0 && before < kInf ? after / before : NAN;
  const bool moved = !(ratio >= 1 / kCalibrationMoved && ratio <= kCalibrationMoved);
  out += fmt::format("calibration,{},{},{},{},{},,,,{},{}\n", csv_escape(transport), quantity,
                     csv_exact(before), csv_exact(after), csv_exact(ratio), moved ? 1 : 0,
                     csv_exact(kCalibrationMoved));
}

void calibration_rows(std::string& out, const fs::path& before, const fs::path& after) {
  if (!fs::is_regular_file(before) || !fs::is_regular_file(after)) return;
  const CsvTable b(read_written_file(before.string()), before.string());
  const CsvTable a(read_written_file(after.string()), after.string());
  for (const CsvTable* t : {&b, &a})
    if (t->rows().empty()) throw UsageError(fmt::format("{}: malformed, no data rows", t->file()));
  const std::string transport =
      b.has("transport") ? b.cell(b.rows().front(), "transport") : std::string("?");
  // The quantity shown: α in µs, the others as bandwidths in GB/s.
  const auto shown = [](const CsvTable& t, std::string_view column) {
    const double v = finite_number(t, t.rows().front(), column);
    if (column == "alpha_s") return v * 1e6;
    return v > 0 ? 1e-9 / v : kInf;
  };
  const std::pair<std::string_view, std::string_view> quantities[] = {
      {"alpha_s", "alpha_us"},
      {"beta_s_per_B", "bandwidth_GBps"},
      {"gamma_s_per_B", "reduce_bandwidth_GBps"}};
  for (const auto& [column, quantity] : quantities)
    drift_row(out, transport, quantity, shown(b, column), shown(a, column));
  // The memory-traffic bound's rate (GB/s as written), where both files
  // measured it: the IPC rows' fractions are judged at the first.
  const auto memory = [](const CsvTable& t) {
    const CsvRecord& r = t.rows().front();
    return t.has("memory_GBps") && !t.cell(r, "memory_GBps").empty()
               ? finite_number(t, r, "memory_GBps")
               : 0.0;
  };
  if (const double vb = memory(b), va = memory(a); vb > 0 && va > 0)
    drift_row(out, transport, "memory_GBps", vb, va);
}

// The results CSVs report.py reads: a study's sweep-*.csv, else every CSV
// with the columns of a results file.
std::vector<fs::path> sweep_files(const fs::path& dir) {
  std::set<fs::path> csvs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".csv") csvs.insert(e.path());
  std::vector<fs::path> study, any;
  for (const fs::path& p : csvs) {
    if (p.filename().string().rfind("sweep-", 0) == 0) {
      study.push_back(p);
      continue;
    }
    if (!fs::is_regular_file(p)) continue;
    const CsvTable t(read_written_file(p.string()), p.string());
    bool results = true;
    for (const char* c : {"transport", "collective", "algorithm", "datatype", "op", "placement",
                          "ranks", "bytes", "time_median_us", "ci_lo_us", "ci_hi_us",
                          "busbw_GBps"})
      results = results && t.has(c);
    if (results) any.push_back(p);
  }
  return study.empty() ? any : study;
}

void load_rows(std::string& out, const fs::path& dir) {
  std::vector<double> loads, running;
  double ranks = 0;
  for (const fs::path& p : sweep_files(dir)) {
    const CsvTable t(read_written_file(p.string()), p.string());
    for (const CsvRecord& r : t.rows()) {
      // A simulator's times do not depend on the machine's load.
      if (t.cell(r, "transport") == "sim") continue;
      // A skipped case (its note says why) has no time; report.py reads no such row.
      if (t.cell(r, "time_median_us").empty() && !t.cell(r, "note").empty()) continue;
      ranks = std::max(ranks, finite_number(t, r, "ranks"));
      if (!t.cell(r, "load_avg_1m").empty()) loads.push_back(finite_number(t, r, "load_avg_1m"));
      if (!t.cell(r, "procs_running").empty())
        running.push_back(finite_number(t, r, "procs_running"));
    }
  }
  if (loads.empty()) return;
  const double load_median = median(loads);
  out += fmt::format("load,,load_avg_1m,,,,{},{},{},{},\n", csv_exact(load_median),
                     csv_exact(*std::max_element(loads.begin(), loads.end())), csv_exact(ranks),
                     load_median > ranks ? 1 : 0);
  if (!running.empty())
    out +=
        fmt::format("load,,procs_running,,,,{},{},{},,\n", csv_exact(median(running)),
                    csv_exact(*std::max_element(running.begin(), running.end())), csv_exact(ranks));
}

}  // namespace

std::string study_checks_csv(const std::string& dir) {
  std::string out = "kind,transport,quantity,before,after,ratio,median,max,ranks,flag,limit\n";
  const fs::path d(dir);
  calibration_rows(out, d / "calibration.csv", d / "calibration-after.csv");
  calibration_rows(out, d / "calibration-ipc.csv", d / "calibration-ipc-after.csv");
  load_rows(out, d);
  return out;
}

}  // namespace cb::models
