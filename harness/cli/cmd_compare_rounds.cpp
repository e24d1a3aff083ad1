// `collbench compare-rounds ROUNDS.csv [--base NAME] [--new NAME] [--csv OUT]`:
// two variants of one program timed in interleaved rounds (an application
// without and with libcollbench-pmpi.so; scripts/testbed/app_compare.sh
// writes the rounds) as the per-size ratio base / new with its spread over
// rounds and the 95% CI of its median (harness/report/paired_rounds.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "models/io/output_file.hpp"
#include "harness/report/paired_rounds.hpp"
#include "models/csv_text.hpp"

namespace cb {
namespace {

struct CompareRoundsOptions {
  std::string rounds;
  std::string base = "mpich", next = "collbench";
  std::string csv;
};

std::string size_text(std::uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

void compare_rounds(const CompareRoundsOptions& o) {
  const std::vector<RoundTime> times =
      parse_round_times(models::read_text_file(o.rounds), o.rounds);
  const std::vector<SizeRatio> rows = paired_ratios(times, o.base, o.next);
  // Computed before anything is written.
  if (!o.csv.empty()) io::write_whole_file(o.csv, "--csv", paired_ratios_csv(rows));
  fmt::print("# {} / {} time per size, per round (> 1: {} is faster); median over rounds, "
             "[min-max], and the 95% CI of the median; verdict: the CI above 1 (faster), below "
             "(slower), or holding 1 (same)\n",
             o.base, o.next, o.next);
  fmt::print("{:>9}  {:>6}  {:>12}  {:>12}  {:>7}  {:>15}  {:>15}  {}\n", "# size", "rounds",
             o.base + "(us)", o.next + "(us)", "ratio", "min-max", "95% CI", "verdict");
  for (const SizeRatio& r : rows)
    fmt::print("{:>9}  {:>6}  {:>12.1f}  {:>12.1f}  {:>7.2f}  {:>15}  {:>15}  {}\n",
               size_text(r.bytes), r.rounds, r.base_median_us, r.new_median_us, r.ratio_median,
               fmt::format("{:.2f}-{:.2f}", r.ratio_min, r.ratio_max),
               fmt::format("{:.2f}-{:.2f}", r.ratio_ci_lo, r.ratio_ci_hi), to_string(r.verdict));
}

}  // namespace

Command add_compare_rounds_command(CLI::App& app) {
  auto o = std::make_shared<CompareRoundsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare-rounds",
      "Two variants of a program timed in interleaved rounds (CSV: round, variant, bytes, "
      "time_us): the per-size ratio base / new with its spread and the CI of its median");
  cmd->add_option("rounds", o->rounds, "CSV of the rounds' timings")->required();
  cmd->add_option("--base", o->base, "the variant the ratio divides (its time on top)")
      ->capture_default_str();
  cmd->add_option("--new", o->next, "the variant compared with it")->capture_default_str();
  cmd->add_option("--csv", o->csv, "also write the table as CSV to this file");
  return {cmd, [o] {
            compare_rounds(*o);
            return 0;
          }};
}

}  // namespace cb
