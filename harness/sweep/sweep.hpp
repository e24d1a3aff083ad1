// One sweep from plan to files, shared by `collbench run` and `collbench map`:
// output files opened on world rank 0 (every rank learns if that failed),
// --resume, console and progress reporters, the runner (runner.hpp), the
// interrupt message and the exit status. What differs between the commands
// (their CSV columns, their console table) comes in a SweepFormat.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/report/reporter.hpp"
#include "harness/runtime/group.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/sweep/runner.hpp"

namespace cb {

struct SweepOutput {
  std::string csv, json;  // files to write ("" = none)
  bool resume = false;    // keep the rows --csv (or its .partial) holds, skip their cases
  bool quiet = false;     // no progress lines
  std::string notice;     // a line for stderr once the files are open (rank 0)
  // The command line as typed (argv[0] first), for the line that says how to
  // resume an interrupted run.
  std::vector<std::string> command_line;
};

struct SweepFormat {
  // The rows an earlier run left in the CSV (resume.hpp).
  std::function<ResumeData(const std::string& csv)> load_resume;
  // The file reporters; `resume` holds the rows to keep. May throw UsageError.
  std::function<std::vector<std::unique_ptr<Reporter>>(const SweepOutput& out,
                                                       const ResumeData& resume)>
      files;
  // The table on stdout.
  std::function<std::unique_ptr<Reporter>()> console;
};

// The Measurer a transport measures with: every rank of a per-process
// transport, world rank 0 only of an in-process one (null elsewhere).
std::unique_ptr<Measurer> make_measurer(const TransportSpec& t, bool root);

struct SweepResult {
  RunOutcome outcome;
  // The same on every rank (harness/runtime/exit_status.hpp): 4 when an
  // output could not be written (the sweep stops at the next configuration,
  // whole rows kept), else 128 + signal when interrupted, else 1 when a
  // verified row had wrong elements, else 0.
  int exit_status = 0;
};

// Runs `plan` over `world` with `measurer` (see make_measurer), reporting
// through `format`. info.meta, info.configuration and the placements are the
// caller's; the rest is filled here. "-" as csv or json streams that to
// standard output (then no table is printed). When the watchdog expires
// (transports/watchdog.hpp) it prints that line, keeps the finished rows and
// _Exits with 5.
SweepResult run_sweep(const Plan& plan, Group& world, Measurer* measurer, const SweepOutput& out,
                      const SweepFormat& format, RunInfo info);

}  // namespace cb
