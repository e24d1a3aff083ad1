// `collbench refine-sizes SWEEP.csv FIT_DIR [--max-bytes N]`: the sizes to
// measure again so that each measured crossover of FIT_DIR/crossovers.csv is
// placed more finely (models/refine_sizes.hpp), one `COLLECTIVE RANKS MIN
// MAX` line per collective and rank count on standard output, the form
// scripts/testbed/study.sh reads for its refinement pass.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "models/csv_text.hpp"
#include "models/refine_sizes.hpp"

namespace cb {
namespace {

struct RefineSizesOptions {
  std::string sweep, fit_dir;
  std::uint64_t max_bytes = models::kRefineMaxBytes;
};

int refine_sizes(const RefineSizesOptions& o) {
  if (o.max_bytes < 1)
    throw UsageError(fmt::format("--max-bytes {}: give a size in bytes >= 1", o.max_bytes));
  const std::string crossovers = (std::filesystem::path(o.fit_dir) / "crossovers.csv").string();
  // Both read and checked before anything is printed.
  const models::CsvTable sweep(models::read_written_file(o.sweep), o.sweep);
  const models::CsvTable fit(models::read_written_file(crossovers), crossovers);
  fmt::print("{}", models::refine_lines(models::refine_ranges(
                       models::crossover_spans(fit), models::measured_sizes(sweep), o.max_bytes)));
  return 0;
}

}  // namespace

Command add_refine_sizes_command(CLI::App& app) {
  auto o = std::make_shared<RefineSizesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "refine-sizes",
      "The sizes to measure again inside each measured crossover's CI interval (a fit's "
      "crossovers.csv): power-of-two midpoints of the sweep's gaps wider than 2x, printed as "
      "`COLLECTIVE RANKS MIN MAX` lines for `run -b MIN -e MAX -f 4`");
  cmd->add_option("sweep", o->sweep, "the results CSV the fit read (`collbench run --csv`)")
      ->required();
  cmd->add_option("fit_dir", o->fit_dir, "the directory `collbench fit` wrote crossovers.csv to")
      ->required();
  cmd->add_option("--max-bytes", o->max_bytes, "the largest midpoint to measure, in bytes")
      ->capture_default_str();
  return {cmd, [o] { return refine_sizes(*o); }};
}

}  // namespace cb
