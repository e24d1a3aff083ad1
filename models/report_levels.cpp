#include "models/report_levels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <set>

#include "models/csv_text.hpp"
#include "models/terms.hpp"

namespace cb::models {

namespace {

std::size_t term_count(TermSet terms) {
  return static_cast<std::size_t>(std::count_if(
      std::begin(kTerms), std::end(kTerms),
      [&](const TermInfo& info) { return terms.contains(info.term); }));
}

// The levels that predicted rows (a calibration of a transport without
// rows prices none).
std::set<std::string_view> predicting_levels(const Analysis& a) {
  std::set<std::string_view> present;
  for (const Prediction& p : a.predictions) present.insert(p.params);
  return present;
}

}  // namespace

std::vector<std::string> shown_levels(const Analysis& a) {
  const std::set<std::string_view> present = predicting_levels(a);
  std::vector<std::string> out;
  for (const char* level : {kByGlobal, kByCalibration})
    if (present.contains(level)) out.emplace_back(level);
  // level_terms is ordered by label: a tie goes to the first.
  const std::pair<const std::string, TermSet>* richest = nullptr;
  for (const auto& level : a.level_terms) {
    if (level.second.empty() || !present.contains(level.first)) continue;
    if (!richest || term_count(level.second) > term_count(richest->second)) richest = &level;
  }
  if (richest) out.push_back(richest->first);
  return out;
}

std::vector<ReportLevel> report_levels(const Analysis& a) {
  const std::set<std::string_view> present = predicting_levels(a);
  std::vector<ReportLevel> out;
  if (present.contains(kByCalibration)) out.push_back({kByCalibration, "baseline"});
  for (const bool clocked : {false, true}) {
    // level_terms is ordered by label: a tie goes to the first.
    const std::pair<const std::string, TermSet>* richest = nullptr;
    for (const auto& level : a.level_terms) {
      const TermSet terms = level.second;
      if (terms.empty() || terms.contains(Term::flight) != clocked ||
          !present.contains(level.first))
        continue;
      if (!richest || term_count(terms) > term_count(richest->second)) richest = &level;
    }
    if (richest) out.push_back({richest->first, clocked ? "clocked" : "step"});
  }
  return out;
}

std::string report_levels_csv(const Analysis& a) {
  std::string out = "column,role,params,main\n";
  const std::vector<ReportLevel> levels = report_levels(a);
  for (std::size_t i = 0; i < levels.size(); ++i)
    out += fmt::format("{},{},{},{}\n", i + 1, levels[i].role, csv_escape(levels[i].params),
                       i + 1 == levels.size() ? 1 : 0);
  return out;
}

}  // namespace cb::models
