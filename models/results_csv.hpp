// Reader of the results CSV (harness/report/CSV.md, written by `collbench run`),
// validated up front so a fit either sees clean data or writes nothing.
//
// Every problem is a cb::UsageError of one line naming the file, the row (its
// line number, header = line 1) and the problem: missing columns, a value
// that does not parse, an algorithm that is neither in the registry nor a
// library baseline (mpi, nccl), a non-positive time, bytes that disagree with
// count, or a configuration with fewer than 3 distinct sizes.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/predict.hpp"
#include "models/terms.hpp"

namespace cb::models {

// Library baselines: measured through the same harness but not schedules, so
// they have no closed-form cost (per-configuration lines only).
bool is_library_baseline(std::string_view algorithm);

struct Measurement {
  std::size_t line = 0;  // line in the file (header = 1)
  std::string transport;
  std::string algorithm;
  const AlgorithmEntry* entry = nullptr;  // nullptr for a library baseline
  Scenario scenario;                      // coll, ranks, dtype, op, placement
  bool has_op = false;                    // op is empty for allgather/alltoall
  std::uint64_t bytes = 0;                // S as CSV.md defines it
  std::uint64_t count = 0;                // elements, MPI meaning
  double time_s = 0;                      // median time per iteration, seconds
  double ci_lo_s = 0, ci_hi_s = 0;        // CI of the median (NaN if absent)
  double time_min_s = 0;                  // fastest sample, seconds (NaN if absent)
  std::optional<std::int64_t> wrong;      // wrong elements; nullopt = not checked
  bool oversubscribed = false;            // ranks outnumbered cores (column optional)
  // The mode probe taken right before the row's configuration (term `probe`;
  // columns probe_small_us and probe_large_us, optional: unmeasured = 0).
  ModeProbe probe;
  // `run --arrival` (harness/report/CSV.md): the pattern ("" without one; the
  // CSV's "none" reads as "") and the median time from the last arrival to
  // the last completion, seconds (NaN when absent). Under a pattern time_s is
  // the step's time, from the first arrival.
  std::string arrival;
  double after_last_s = std::numeric_limits<double>::quiet_NaN();
  // Under a pattern (NaN when absent, as in files from before the columns):
  // the 95% CI of after_last_s and the no-skew median of the same run, seconds.
  double after_last_ci_lo_s = std::numeric_limits<double>::quiet_NaN();
  double after_last_ci_hi_s = std::numeric_limits<double>::quiet_NaN();
  double noskew_s = std::numeric_limits<double>::quiet_NaN();
  // A library baseline's CVARs (the optional library_setting column, e.g.
  // MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp;...; "" = the library's defaults).
  std::string library_setting;
};

// A fitted configuration: every key but the size. The op and the placement
// are part of it (in-place runs skip a copy; ops may differ in kernel speed).
struct ConfigKey {
  std::string transport;
  Collective coll = Collective::allreduce;
  std::string algorithm;
  DataType dtype = DataType::fp32;
  std::string op;  // "" when the collective has none
  std::string placement;
  int ranks = 1;
  std::string arrival;  // "" without a pattern
  auto operator<=>(const ConfigKey&) const = default;
};
ConfigKey config_key(const Measurement& m);
// "mpi/allreduce/ring/fp32/sum/out/p=2" for messages and reports.
std::string describe(const ConfigKey& k);

struct ResultsFile {
  std::string file;
  std::vector<Measurement> rows;
};

// Parses and validates `text` as the contents of `file`; every configuration
// needs at least min_sizes distinct sizes (a fit needs 3).
ResultsFile parse_results_csv(std::string_view text, const std::string& file,
                              std::size_t min_sizes = 3);
// Reads `path` and parses it.
ResultsFile read_results_csv(const std::string& path, std::size_t min_sizes = 3);

}  // namespace cb::models
