// `collbench repeat-agreement RUN RUN [RUN...] --csv FILE`: one testbed run's
// measured crossovers as the prediction of another's, beside the model's
// verdicts (models/repeat_agreement.hpp), written to FILE;
// scripts/testbed/repeat_agreement.py renders it as markdown.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"
#include "models/io/output_file.hpp"
#include "models/repeat_agreement.hpp"

namespace cb {
namespace {

struct RepeatAgreementOptions {
  std::vector<std::string> runs;
  std::string csv;
};

}  // namespace

Command add_repeat_agreement_command(CLI::App& app) {
  auto o = std::make_shared<RepeatAgreementOptions>();
  CLI::App* cmd = app.add_subcommand(
      "repeat-agreement",
      "Two or more testbed runs of the same settings: how many of one run's measured crossovers "
      "another run's measure within the crossover target's factor, beside the model's count, "
      "and the crossovers measured more than factor^2 apart (repeat-agreement.csv)");
  cmd->add_option("runs", o->runs, "testbed study folders (each SETTING/fit/crossovers.csv)")
      ->required();
  cmd->add_option("--csv", o->csv, "the CSV to write")->required();
  return {cmd, [o] {
            // Computed whole before the file is written.
            const std::string text = models::repeat_agreement_csv(o->runs);
            io::write_whole_file(o->csv, "--csv", text);
            fmt::print("wrote {}\n", o->csv);
            return 0;
          }};
}

}  // namespace cb
