#include "models/spread_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "algorithms/types.hpp"
#include "models/analysis.hpp"
#include "models/csv_text.hpp"
#include "models/robust_fit.hpp"
#include "models/terms.hpp"

namespace cb::models {

namespace {

namespace fs = std::filesystem;

// A judged figure: its accuracy.csv value column (picks: picks_right over
// picks), its target column, and whether the target is an upper bound.
struct Figure {
  std::string_view name, value, target;
  bool at_most;
};
constexpr Figure kFigures[] = {
    {"median_abs_err_large", "median_abs_err_large", "target_median_abs_err_large", true},
    {"median_abs_err_small", "median_abs_err_small", "target_median_abs_err_small", true},
    {"worst_collective", "worst_collective_median_abs_err", "target_worst_collective", true},
    {"picks", "picks_right", "target_picks", false},
    {"median_regret", "median_regret", "target_median_regret", true},
};

double figure_value(const CsvTable& t, const CsvRecord& r, const Figure& f) {
  if (f.name != "picks") return finite_number(t, r, f.value);
  const double picks = finite_number(t, r, "picks");
  if (!(picks > 0))
    throw UsageError(fmt::format("{}:{}: malformed, column picks holds '{}', not a count > 0",
                                 t.file(), r.line, t.cell(r, "picks")));
  return finite_number(t, r, "picks_right") / picks;
}

// A calibration level's terms (the label calibration_label wrote:
// "calibration+range+copy" holds range and copy), or nullopt for a level of
// another source ("global").
std::optional<TermSet> calibration_terms(std::string_view level) {
  if (level == kByCalibration) return TermSet{};
  const std::string prefix = std::string(kByCalibration) + "+";
  if (level.substr(0, prefix.size()) != prefix) return std::nullopt;
  try {
    return parse_term_set(level.substr(prefix.size()));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// The default asked level (spread_judge.hpp): "" when no calibration level lacks probe.
std::string richest_without_probe(const std::vector<std::string>& levels) {
  std::string best;
  int most = -1;
  for (const std::string& l : levels)
    if (const std::optional<TermSet> t = calibration_terms(l);
        t && !t->contains(Term::probe) && t->size() > most) {
      best = l;
      most = t->size();
    }
  return best;
}

// Each level's role (spread_judge.hpp), by level.
std::map<std::string, std::string> roles(const std::vector<std::string>& levels,
                                         const std::string& dir, std::string asked) {
  if (asked.empty()) {
    asked = richest_without_probe(levels);
  } else if (std::find(levels.begin(), levels.end(), asked) == levels.end()) {
    throw UsageError(fmt::format("spread '{}': no pair has level '{}' (accepted: a params value "
                                 "of pair-1/fit/accuracy.csv, e.g. '{}')",
                                 dir, asked, levels.front()));
  }
  std::map<std::string, std::string> out;
  if (std::find(levels.begin(), levels.end(), kByCalibration) != levels.end())
    out[kByCalibration] = "baseline";
  if (!asked.empty()) {
    out[asked] = "asked";
    // The label the fit gives the same terms with probe (terms in kTerms order).
    if (std::optional<TermSet> t = calibration_terms(asked); t && !t->contains(Term::probe)) {
      t->add(Term::probe);
      out[calibration_label(*t)] = "asked+probe";
    }
  }
  return out;
}

}  // namespace

std::string spread_judge_csv(const std::string& dir, const std::string& asked) {
  std::vector<std::string> order;                          // levels as first seen
  std::map<std::string, std::vector<std::vector<double>>> values;  // level -> figure -> pairs
  std::vector<double> targets;                             // pair 1's, per figure
  int pairs = 0;
  for (;; ++pairs) {
    const fs::path p = fs::path(dir) / fmt::format("pair-{}", pairs + 1) / "fit" / "accuracy.csv";
    if (!fs::exists(p)) break;
    const CsvTable t(read_written_file(p.string()), p.string());
    for (const CsvRecord& r : t.rows()) {
      if (t.cell(r, "scope") != "all") continue;
      // Every pair's fit writes the same targets (models/targets.hpp): pair 1's judge.
      if (targets.empty())
        for (const Figure& f : kFigures) targets.push_back(finite_number(t, r, f.target));
      const std::string& level = t.cell(r, "params");
      auto [it, fresh] = values.try_emplace(level, std::size(kFigures));
      if (fresh) order.push_back(level);
      for (std::size_t i = 0; i < std::size(kFigures); ++i)
        it->second[i].push_back(figure_value(t, r, kFigures[i]));
    }
  }
  if (pairs == 0)
    throw UsageError(fmt::format("spread '{}': no pair-1/fit/accuracy.csv (accepted: a "
                                 "directory scripts/model_spread.sh wrote)", dir));
  if (targets.empty())
    throw UsageError(fmt::format("{}/pair-1/fit/accuracy.csv: no row of scope all with targets",
                                 dir));
  const std::map<std::string, std::string> role = roles(order, dir, asked);
  std::string out = "level,figure,pairs,median,min,max,target,bound,met,role\n";
  for (const std::string& level : order) {
    const auto r = role.find(level);
    for (std::size_t i = 0; i < std::size(kFigures); ++i) {
      const std::vector<double>& v = values.at(level)[i];
      const double m = median(v), t = targets[i];
      const bool met = kFigures[i].at_most ? m <= t : m >= t;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_escape(level), kFigures[i].name,
                         v.size(), csv_exact(m), csv_exact(*std::min_element(v.begin(), v.end())),
                         csv_exact(*std::max_element(v.begin(), v.end())), csv_exact(t),
                         kFigures[i].at_most ? "at_most" : "at_least", met ? 1 : 0,
                         r == role.end() ? "" : r->second);
    }
  }
  return out;
}

}  // namespace cb::models
