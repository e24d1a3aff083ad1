#include "models/results_csv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "algorithms/hierarchical/compose.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

bool is_library_baseline(std::string_view algorithm) {
  return algorithm == "mpi" || algorithm == "nccl";
}

ConfigKey config_key(const Measurement& m) {
  return {m.transport,
          m.scenario.coll,
          m.algorithm,
          m.scenario.dtype,
          m.has_op ? std::string(to_string(m.scenario.op)) : std::string(),
          m.scenario.in_place ? "in" : "out",
          m.scenario.p,
          m.arrival};
}

std::string describe(const ConfigKey& k) {
  return fmt::format("{}/{}/{}/{}/{}{}p={}", k.transport, to_string(k.coll), k.algorithm,
                     to_string(k.dtype), k.op.empty() ? "" : k.op + "/", k.placement + "/",
                     k.ranks) +
         (k.arrival.empty() ? std::string() : fmt::format(" under {}", k.arrival));
}

namespace {

constexpr double kMinTimeUs = 1e-6;

constexpr const char* kRequired[] = {"transport", "collective", "algorithm", "datatype",
                                     "op",        "placement",  "ranks",     "bytes",
                                     "count",     "time_median_us"};

// Prefixes a problem with "file:line: ".
struct RowError {
  const std::string& file;
  std::size_t line;
  [[noreturn]] void operator()(const std::string& problem) const {
    throw UsageError(fmt::format("{}:{}: {}", file, line, problem));
  }
};

template <class T>
T parse_integer(const std::string& s, std::string_view column, const RowError& fail) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    fail(fmt::format("{} '{}' is not an integer", column, s));
  return v;
}

double parse_real(const std::string& s, std::string_view column, const RowError& fail) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    fail(fmt::format("{} '{}' is not a number", column, s));
  return v;
}

double optional_real(const std::string& s, std::string_view column, const RowError& fail) {
  return s.empty() ? std::numeric_limits<double>::quiet_NaN() : parse_real(s, column, fail);
}

// Parses a vocabulary value, re-throwing the parser's message with the row.
template <class F>
auto parse_name(F parse, const std::string& s, const RowError& fail) {
  try {
    return parse(s);
  } catch (const UsageError& e) {
    fail(e.what());
  }
}

// The registry entry of a measured algorithm (a composite name too);
// fails naming the collective's algorithms otherwise.
const AlgorithmEntry& find_entry(Collective coll, const std::string& name, const RowError& fail) {
  const auto table = algorithms_for(coll);
  for (const AlgorithmEntry& e : table)
    if (e.name == name) return e;
  if (is_composite_name(name)) {
    try {
      return find_algorithm(coll, name);
    } catch (const UsageError& e) {
      fail(e.what());
    }
  }
  std::string known;
  for (const AlgorithmEntry& e : table) known += std::string(e.name) + ", ";
  fail(fmt::format("unknown algorithm '{}' for {} (known: {}baselines mpi, nccl)", name,
                   to_string(coll), known));
}

// Term `probe`: both probes or none (files before the probe have neither
// column), in seconds.
ModeProbe parse_probe(const CsvTable& t, const CsvRecord& r, const RowError& fail) {
  const std::string& small = t.cell(r, "probe_small_us");
  const std::string& large = t.cell(r, "probe_large_us");
  if (small.empty() != large.empty())
    fail("probe_small_us and probe_large_us must both be set or both be empty");
  if (small.empty()) return {};
  const ModeProbe probe{parse_real(small, "probe_small_us", fail) * 1e-6,
                        parse_real(large, "probe_large_us", fail) * 1e-6};
  if (!probe.measured())
    fail(fmt::format("probe_small_us '{}' and probe_large_us '{}' must be > 0", small, large));
  return probe;
}

Measurement parse_row(const CsvTable& t, const CsvRecord& r) {
  const RowError fail{t.file(), r.line};
  if (r.fields.size() != t.header().size())
    fail(fmt::format("{} fields, the header has {}", r.fields.size(), t.header().size()));
  Measurement m;
  m.line = r.line;
  m.transport = t.cell(r, "transport");
  if (m.transport.empty()) fail("transport is empty");
  Scenario& s = m.scenario;
  s.coll = parse_name(parse_collective, t.cell(r, "collective"), fail);
  m.algorithm = t.cell(r, "algorithm");
  if (!is_library_baseline(m.algorithm)) m.entry = &find_entry(s.coll, m.algorithm, fail);
  s.dtype = parse_name(parse_datatype, t.cell(r, "datatype"), fail);
  const std::string& op = t.cell(r, "op");
  m.has_op = !op.empty();
  if (is_reducing(s.coll) && !m.has_op) fail(fmt::format("op is empty for {}", to_string(s.coll)));
  if (m.has_op) s.op = parse_name(parse_reduce_op, op, fail);
  const std::string& placement = t.cell(r, "placement");
  if (placement != "in" && placement != "out")
    fail(fmt::format("placement '{}' is not one of: in, out", placement));
  s.in_place = placement == "in";
  s.p = parse_integer<int>(t.cell(r, "ranks"), "ranks", fail);
  if (s.p < 1) fail(fmt::format("ranks {} is not >= 1", s.p));
  // The layout (files before it have no column: one node). A row's
  // ranks_per_node equals its ranks on one node, which is the same as 0.
  if (const std::string& k = t.cell(r, "ranks_per_node"); !k.empty()) {
    s.ranks_per_node = parse_integer<int>(k, "ranks_per_node", fail);
    if (s.ranks_per_node < 1) fail(fmt::format("ranks_per_node {} is not >= 1", k));
    if (s.ranks_per_node >= s.p) s.ranks_per_node = 0;
  }
  m.bytes = parse_integer<std::uint64_t>(t.cell(r, "bytes"), "bytes", fail);
  m.count = parse_integer<std::uint64_t>(t.cell(r, "count"), "count", fail);
  if (bytes_for_count(s.coll, s.p, s.dtype, m.count) != m.bytes)
    fail(fmt::format("bytes {} does not match count {} of {} at {} ranks for {} (expected {})",
                     m.bytes, m.count, to_string(s.dtype), s.p, to_string(s.coll),
                     bytes_for_count(s.coll, s.p, s.dtype, m.count)));
  const double t_us = parse_real(t.cell(r, "time_median_us"), "time_median_us", fail);
  if (t_us <= 0) fail(fmt::format("time_median_us is {} (times must be > 0)", t.cell(r, "time_median_us")));
  // Below a picosecond is no measurement, and a denormal (1e-320) becomes 0
  // in seconds, which the fits cannot take (they work on logarithms).
  if (t_us < kMinTimeUs)
    fail(fmt::format("time_median_us is {} (times must be >= {} us: no collective takes less "
                     "than a picosecond)",
                     t.cell(r, "time_median_us"), kMinTimeUs));
  m.time_s = t_us * 1e-6;
  m.ci_lo_s = optional_real(t.cell(r, "ci_lo_us"), "ci_lo_us", fail) * 1e-6;
  m.ci_hi_s = optional_real(t.cell(r, "ci_hi_us"), "ci_hi_us", fail) * 1e-6;
  m.time_min_s = optional_real(t.cell(r, "time_min_us"), "time_min_us", fail) * 1e-6;
  if (m.time_min_s <= 0)
    fail(fmt::format("time_min_us is {} (times must be > 0)", t.cell(r, "time_min_us")));
  const std::string& wrong = t.cell(r, "wrong");
  if (!wrong.empty()) m.wrong = parse_integer<std::int64_t>(wrong, "wrong", fail);
  const std::string& over = t.cell(r, "oversubscribed");
  if (!over.empty()) m.oversubscribed = parse_integer<int>(over, "oversubscribed", fail) != 0;
  m.probe = parse_probe(t, r, fail);
  if (t.has("library_setting")) m.library_setting = t.cell(r, "library_setting");
  if (const std::string& a = t.cell(r, "arrival"); !a.empty() && a != "none") {
    m.arrival = a;
    m.after_last_s = optional_real(t.cell(r, "after_last_median_us"), "after_last_median_us", fail) * 1e-6;
    for (auto [column, field] : {std::pair{"after_last_ci_lo_us", &m.after_last_ci_lo_s},
                                 std::pair{"after_last_ci_hi_us", &m.after_last_ci_hi_s},
                                 std::pair{"noskew_median_us", &m.noskew_s}})
      if (t.has(column)) *field = optional_real(t.cell(r, column), column, fail) * 1e-6;
  }
  return m;
}

}  // namespace

ResultsFile parse_results_csv(std::string_view text, const std::string& file,
                              std::size_t min_sizes) {
  const CsvTable t(text, file);
  std::string missing;
  for (const char* c : kRequired)
    if (!t.has(c)) missing += fmt::format("{}'{}'", missing.empty() ? "" : ", ", c);
  if (!missing.empty())
    throw UsageError(fmt::format("{}:1: missing column(s) {} in the header", file, missing));
  if (t.rows().empty()) throw UsageError(fmt::format("{}: no data rows after the header", file));

  ResultsFile out{file, {}};
  for (const CsvRecord& r : t.rows()) {
    // A skipped simulated case (harness/report/CSV.md: note) has no time to fit.
    if (t.has("note") && !t.cell(r, "note").empty() && t.cell(r, "time_median_us").empty()) continue;
    out.rows.push_back(parse_row(t, r));
  }

  std::map<ConfigKey, std::pair<std::set<std::uint64_t>, std::vector<std::size_t>>> sizes;
  for (const Measurement& m : out.rows) {
    auto& [set, lines] = sizes[config_key(m)];
    set.insert(m.bytes);
    lines.push_back(m.line);
  }
  for (const auto& [key, v] : sizes) {
    if (v.first.size() >= min_sizes) continue;
    std::string lines;
    for (std::size_t l : v.second) lines += fmt::format("{}{}", lines.empty() ? "" : ", ", l);
    throw UsageError(fmt::format(
        "{}:{}: configuration {} has {} distinct size(s) (rows {}); a fit needs at least {}",
        file, v.second.front(), describe(key), v.first.size(), lines, min_sizes));
  }
  return out;
}

ResultsFile read_results_csv(const std::string& path, std::size_t min_sizes) {
  return parse_results_csv(read_text_file(path), path, min_sizes);
}

}  // namespace cb::models
