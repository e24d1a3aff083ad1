#include "models/do_no_harm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "algorithms/collective.hpp"
#include "models/analysis.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

bool gain_beyond_error(double chosen_s, double library_s, double rel_error) {
  const double e = std::isfinite(rel_error) && rel_error > 0 ? rel_error : 0.0;
  return library_s * (1 - e) > chosen_s * (1 + e);
}

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double number(const CsvTable& t, const CsvRecord& r, const char* column) {
  const std::string& s = t.cell(r, column);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    throw UsageError(fmt::format("{}:{}: {} '{}' is not a number", t.file(), r.line, column, s));
  return v;
}

}  // namespace

ValidatedError::ValidatedError(const std::string& text, const std::string& file,
                               const std::string& params, const std::string& transport) {
  const CsvTable t(text, file);
  for (const char* c : {"transport", "collective", "ranks", "bytes", "rel_err", "params"})
    if (!t.has(c))
      throw UsageError(fmt::format("{}: no column '{}' (expected a fit's predictions.csv)", file, c));
  std::map<std::tuple<Collective, int, bool>, std::vector<double>> cell;
  std::map<std::pair<Collective, bool>, std::vector<double>> coll;
  std::map<bool, std::vector<double>> band;
  for (const CsvRecord& r : t.rows()) {
    if (t.cell(r, "params") != params || t.cell(r, "transport") != transport) continue;
    const Collective c = parse_collective(t.cell(r, "collective"));
    const int p = static_cast<int>(number(t, r, "ranks"));
    const bool large = number(t, r, "bytes") >= kLargeBytes;
    const double e = std::fabs(number(t, r, "rel_err"));
    cell[{c, p, large}].push_back(e);
    coll[{c, large}].push_back(e);
    band[large].push_back(e);
  }
  for (auto& [k, v] : cell) by_cell_[k] = median_of(std::move(v));
  for (auto& [k, v] : coll) by_collective_[k] = median_of(std::move(v));
  for (auto& [k, v] : band) by_band_[k] = median_of(std::move(v));
}

double ValidatedError::at(Collective coll, int p, std::uint64_t bytes) const {
  const bool large = static_cast<double>(bytes) >= kLargeBytes;
  if (const auto it = by_cell_.find({coll, p, large}); it != by_cell_.end()) return it->second;
  if (const auto it = by_collective_.find({coll, large}); it != by_collective_.end())
    return it->second;
  if (const auto it = by_band_.find(large); it != by_band_.end()) return it->second;
  return std::nan("");
}

std::string fit_file_beside(const std::string& params_file, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(params_file).parent_path();
  for (const fs::path& f : {dir / "fit" / name, dir / name}) {
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) return f.string();
  }
  return {};
}

std::optional<BestSource> best_calibrated_source(const std::string& accuracy_text,
                                                 const std::string& file,
                                                 const std::string& transport) {
  const CsvTable t(accuracy_text, file);
  for (const char* c : {"params", "transport", "median_abs_err_large", "median_abs_err_small"})
    if (!t.has(c))
      throw UsageError(fmt::format("{}: no column '{}' (expected a fit's accuracy.csv)", file, c));
  std::optional<BestSource> best;
  double best_worse = 0;
  const std::string prefix = std::string(kByCalibration) + "+";
  for (const CsvRecord& r : t.rows()) {
    const std::string& params = t.cell(r, "params");
    if (t.cell(r, "transport") != transport) continue;
    // A testbed fit's grades of its link-limited rows judge the same
    // parameters on fewer rows; the source is chosen over every row.
    if (t.has("scope") && t.cell(r, "scope") != kTargetsAllRows.scope) continue;
    if (params != kByCalibration && params.rfind(prefix, 0) != 0) continue;
    const auto value = [&](const char* c) {
      const std::string& s = t.cell(r, c);
      return s.empty() ? std::nan("") : std::strtod(s.c_str(), nullptr);
    };
    BestSource s{params, params == kByCalibration ? "" : params.substr(prefix.size()),
                 value("median_abs_err_large"), value("median_abs_err_small")};
    // The worse band; a band the fit had no rows for does not count.
    const double worse = std::fmax(s.median_large, s.median_small);
    if (!std::isfinite(worse)) continue;
    if (!best || worse < best_worse) {
      best = s;
      best_worse = worse;
    }
  }
  return best;
}

}  // namespace cb::models
