#include "models/sim_agreement.hpp"

#include <fmt/format.h>

#include <map>

#include "models/csv_text.hpp"
#include "models/predict.hpp"

namespace cb::models {

namespace {

const Targets& scope_of(bool hierarchical) {
  return hierarchical ? kTargetsSimHierarchical : kTargetsSimFlat;
}

std::vector<Grade> grades_of(const std::vector<SimulatedRow>& rows) {
  std::map<std::pair<std::string, bool>, GradeErrors> by;  // (transport, hierarchical)
  for (const SimulatedRow& r : rows)
    by[{r.row->transport, r.hierarchical}].add(r.rel_err, static_cast<double>(r.row->bytes),
                                               r.row->scenario.coll);
  std::vector<Grade> out;
  for (const auto& [key, e] : by) {
    Grade g;
    g.params = kBySimulator;
    g.transport = key.first;
    g.targets = &scope_of(key.second);
    e.fill(g);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

SimAgreement sim_agreement(const std::vector<Measurement>& rows,
                           const std::vector<CalibrationInput>& calibrations,
                           const SimulateFn& simulate, const std::string& file) {
  const auto two_level_calibration = [&](const std::string& transport) -> const ModelParams* {
    for (const CalibrationInput& c : calibrations)
      if (c.transport == transport && c.params.two_level()) return &c.params;
    return nullptr;
  };
  std::vector<const Measurement*> two_level;
  for (const Measurement& m : rows)
    if (m.entry && on_two_levels(m.scenario)) two_level.push_back(&m);
  if (two_level.empty())
    throw UsageError(
        fmt::format("--simulate: {} has no schedule row on two levels (accepted: a "
                    "two-level run, 2 or more nodes of 2 or more ranks)",
                    file));
  SimAgreement out;
  for (const Measurement* m : two_level) {
    const ModelParams* levels = two_level_calibration(m->transport);
    if (!levels) continue;
    SimulatedRow r;
    r.row = m;
    r.hierarchical = m->entry->composition != nullptr;
    r.simulated_s = simulate(*m->entry, coll_params(m->scenario, m->count), *levels);
    r.rel_err = r.simulated_s / m->time_s - 1;
    out.rows.push_back(r);
  }
  if (out.rows.empty())
    throw UsageError(
        fmt::format("--simulate: no two-level calibration for the two-level rows of "
                    "{} (transport {}; accepted: --calibration from `collbench "
                    "calibrate` on two levels, with intra_alpha_s and "
                    "intra_beta_s_per_B)",
                    file, two_level.front()->transport));
  out.grades = grades_of(out.rows);
  return out;
}

std::string simulated_csv(const SimAgreement& s) {
  std::string out =
      "transport,collective,algorithm,datatype,op,placement,ranks,nodes,ranks_per_node,bytes,"
      "count,scope,measured_s,measured_lo_s,measured_hi_s,simulated_s,rel_err\n";
  for (const SimulatedRow& r : s.rows) {
    const Measurement& m = *r.row;
    const ConfigKey key = config_key(m);
    const int k = m.scenario.ranks_per_node;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(key.transport), to_string(key.coll), csv_escape(key.algorithm),
                       to_string(key.dtype), key.op, key.placement, key.ranks,
                       (key.ranks + k - 1) / k, k, m.bytes, m.count, scope_of(r.hierarchical).scope,
                       csv_exact(m.time_s), csv_exact(m.ci_lo_s), csv_exact(m.ci_hi_s),
                       csv_exact(r.simulated_s), csv_exact(r.rel_err));
  }
  return out;
}

}  // namespace cb::models
