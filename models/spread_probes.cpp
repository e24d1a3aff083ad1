#include "models/spread_probes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "models/csv_text.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

namespace fs = std::filesystem;

// "median,min,max" of v (not empty).
std::string spread_of(const std::vector<double>& v) {
  return fmt::format("{},{},{}", csv_exact(median(v)),
                     csv_exact(*std::min_element(v.begin(), v.end())),
                     csv_exact(*std::max_element(v.begin(), v.end())));
}

// One pair's row after its number: empty cells without a probe.
std::string pair_cells(const fs::path& pair) {
  const std::string cal_file = (pair / "calibration.csv").string();
  const CsvTable cal(read_text_file(cal_file), cal_file);
  const std::string sweep_file = (pair / "sweep.csv").string();
  const CsvTable sweep(read_text_file(sweep_file), sweep_file);
  std::vector<double> small, large;
  for (const CsvRecord& r : sweep.rows()) {
    if (sweep.cell(r, "probe_small_us").empty()) continue;
    small.push_back(finite_number(sweep, r, "probe_small_us"));
    large.push_back(finite_number(sweep, r, "probe_large_us"));
  }
  if (cal.rows().empty() || cal.cell(cal.rows().front(), "probe_small_s").empty() || small.empty())
    return ",,,,,,,,";
  const CsvRecord& c = cal.rows().front();
  return fmt::format("{},{},{},{},{}", csv_exact(1e6 * finite_number(cal, c, "probe_small_s")),
                     csv_exact(1e6 * finite_number(cal, c, "probe_large_s")), small.size(),
                     spread_of(small), spread_of(large));
}

}  // namespace

std::string spread_probes_csv(const std::string& dir) {
  std::string out =
      "pair,calibration_small_us,calibration_large_us,sweep_rows,sweep_small_median_us,"
      "sweep_small_min_us,sweep_small_max_us,sweep_large_median_us,sweep_large_min_us,"
      "sweep_large_max_us\n";
  for (int n = 1;; ++n) {
    const fs::path pair = fs::path(dir) / fmt::format("pair-{}", n);
    if (!fs::exists(pair / "fit" / "accuracy.csv")) break;
    out += fmt::format("{},{}\n", n, pair_cells(pair));
  }
  return out;
}

}  // namespace cb::models
