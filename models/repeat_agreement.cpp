#include "models/repeat_agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "algorithms/check.hpp"
#include "algorithms/types.hpp"
#include "models/targets.hpp"

namespace cb::models {

namespace {

namespace fs = std::filesystem;

std::string number(double v) { return csv_number(v); }

CrossoverKey key_of(const CsvTable& t, const CsvRecord& r) {
  return {t.cell(r, "collective"), whole_count(t, r, "ranks"), t.cell(r, "algo_a"),
          t.cell(r, "algo_b")};
}

// kind,setting,run_a,run_b, then the rest of the row as given.
std::string row(std::string_view kind, const std::string& setting, const std::string& a,
                const std::string& b, const std::string& rest) {
  return fmt::format("{},{},{},{},{}\n", kind, csv_escape(setting), csv_escape(a), csv_escape(b),
                     rest);
}

std::string agreement_rows(const std::string& setting, const std::string& name_a,
                           const std::string& name_b, const RunCrossovers& a,
                           const RunCrossovers& b, double factor) {
  std::string out;
  for (const auto& [params, counted] : a.counted) {
    std::size_t other = 0, model = 0, both = 0;
    for (const auto& [k, c] : counted) {
      const auto it = b.every.find(k);
      const bool repeat_ok = it != b.every.end() && within_factor(c.measured_B, it->second, factor);
      other += repeat_ok;
      model += c.model_within;
      both += repeat_ok && c.model_within;
    }
    out += row("agreement", setting, name_a, name_b,
               fmt::format("{},,,,,{},{},{},{},,,,,{}", csv_escape(params), counted.size(), other,
                           model, both, number(factor)));
  }
  return out;
}

std::string apart_rows(const std::string& setting, const std::string& name_a,
                       const std::string& name_b, const RunCrossovers& a, const RunCrossovers& b,
                       double factor) {
  std::string rows;
  std::size_t apart = 0, only_one = 0;
  for (const auto& [k, x] : a.every) {
    const auto it = b.every.find(k);
    if (it == b.every.end()) {
      ++only_one;
      continue;
    }
    if (within_factor(x, it->second, factor * factor)) continue;
    ++apart;
    const auto& [coll, p, algo_a, algo_b] = k;
    rows += row("apart", setting, name_a, name_b,
                fmt::format("global,{},{},{},{},,,,,,,{},{},{}", csv_escape(coll), p,
                            csv_escape(algo_a), csv_escape(algo_b), number(x),
                            number(it->second), number(factor)));
  }
  for (const auto& [k, y] : b.every) only_one += a.every.count(k) == 0;
  return row("runs", setting, name_a, name_b,
             fmt::format("global,,,,,,,,,{},{},,,{}", apart, only_one, number(factor))) +
         rows;
}

}  // namespace

bool within_factor(double x, double y, double factor) {
  return x > 0 && y > 0 && std::max(x / y, y / x) <= factor;
}

RunCrossovers run_crossovers(const CsvTable& t) {
  require_columns(t, {"kind", "params", "collective", "ranks", "algo_a", "algo_b",
                      "measured_crossover_B", "cpu_limited", "verdict"});
  RunCrossovers out;
  for (const CsvRecord& r : t.rows()) {
    if (t.cell(r, "kind") != "pair") continue;
    const std::string& params = t.cell(r, "params");
    auto& counted = out.counted[params];  // a level without crossovers still counts 0
    if (t.cell(r, "measured_crossover_B").empty()) continue;
    const CrossoverKey k = key_of(t, r);
    const double m = finite_number(t, r, "measured_crossover_B");
    if (!(m > 0))
      throw UsageError(fmt::format("{}:{}: malformed, column measured_crossover_B holds '{}', not "
                                   "a size > 0",
                                   t.file(), r.line, t.cell(r, "measured_crossover_B")));
    if (params == "global") out.every[k] = m;
    if (t.cell(r, "cpu_limited") == "0") counted[k] = {m, t.cell(r, "verdict") == "within"};
  }
  return out;
}

std::string repeat_agreement_rows(const std::string& setting, const std::vector<std::string>& runs,
                                  const std::vector<RunCrossovers>& found, double factor) {
  CB_CHECK(runs.size() == found.size(), "one RunCrossovers per run");
  std::string out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (i != j) out += agreement_rows(setting, runs[i], runs[j], found[i], found[j], factor);
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j)
      out += apart_rows(setting, runs[i], runs[j], found[i], found[j], factor);
  return out;
}

std::string repeat_agreement_csv(const std::vector<std::string>& runs) {
  if (runs.size() < 2) throw UsageError("repeat-agreement needs two or more testbed study folders");
  std::set<std::string> settings;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::error_code ec;
    if (!fs::is_directory(runs[i], ec))
      throw UsageError(fmt::format("'{}' is not a folder (give testbed study folders)", runs[i]));
    std::set<std::string> here;
    for (const auto& e : fs::directory_iterator(runs[i], ec))
      if (fs::is_regular_file(e.path() / "fit" / "crossovers.csv", ec))
        here.insert(e.path().filename().string());
    if (i == 0) {
      settings = std::move(here);
      continue;
    }
    std::erase_if(settings, [&](const std::string& s) { return here.count(s) == 0; });
  }
  if (settings.empty())
    throw UsageError("no setting (a folder with fit/crossovers.csv) is in every run");
  std::string out = kRepeatAgreementHeader;
  for (const std::string& s : settings) {
    std::vector<RunCrossovers> found;
    for (const std::string& r : runs) {
      const std::string path = (fs::path(r) / s / "fit" / "crossovers.csv").string();
      found.push_back(run_crossovers(CsvTable(read_written_file(path), path)));
    }
    out += repeat_agreement_rows(s, runs, found, kTargetsLinkLimited.crossover_factor);
  }
  return out;
}

}  // namespace cb::models
