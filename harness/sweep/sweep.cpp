#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "harness/sweep/case_work.hpp"
#include "transports/contract/interrupt.hpp"
#include "harness/sweep/process_measurer.hpp"
#include "models/io/output_file.hpp"
#include "models/io/output_lock.hpp"
#include "harness/runtime/exit_status.hpp"
#include "harness/runtime/world.hpp"
#include "transports/watchdog.hpp"
#include "harness/report/resume.hpp"

namespace cb {

std::unique_ptr<Measurer> make_measurer(const TransportSpec& t, bool root) {
  if (t.per_process) return make_process_measurer(t);
  return root ? t.make_measurer() : nullptr;
}

namespace {

// With --csv - or --json - standard output carries the data, not the table.
bool data_on_stdout(const SweepOutput& out) {
  return io::is_stdout(out.csv) || io::is_stdout(out.json);
}

// Output files are opened on rank 0 only; every rank must learn if that
// failed, or the others would wait forever for a measurement.
// --csv and --json must be distinct files, whatever the spelling (./r,
// dir/../r, a symlinked directory, a hard link), their .partial names
// included: one would replace the other.
void check_distinct_outputs(const SweepOutput& out) {
  if (out.csv.empty() || out.json.empty()) return;
  for (const std::string& c : {out.csv, out.csv + kPartialSuffix})
    for (const std::string& j : {out.json, out.json + kPartialSuffix})
      if (io::same_output(c, j))
        throw UsageError(fmt::format("--csv {} and --json {} name the same file ({}); give two "
                                     "different files",
                                     out.csv, out.json, c));
}

std::vector<std::unique_ptr<Reporter>> open_reporters(Group& w, const SweepOutput& out,
                                                      const SweepFormat& format,
                                                      ResumeData& resume, io::OutputLock& lock) {
  const bool root = w.rank() == 0;
  std::vector<std::unique_ptr<Reporter>> reporters;
  std::string setup_error;
  bool write_failed = false;  // a write (the header to a full stdout) failed: exit 4, not 2
  if (root) {
    try {
      if (out.resume && out.csv.empty())
        throw UsageError("--resume needs --csv FILE: the results file whose rows it keeps");
      // Both paths are checked before either file is created (a refused
      // --json must not leave a --csv file behind), and locked before the
      // old rows are read: another run may be writing them.
      if (!out.csv.empty()) io::check_output_path(out.csv, "--csv");
      if (!out.json.empty()) io::check_output_path(out.json, "--json");
      // FILE.partial too: a link planted there is bad input (exit 2), not a
      // failed write (exit 4, kept for a full disk or a closed stdout).
      if (!out.csv.empty() && !io::is_stdout(out.csv))
        io::check_output_path(out.csv + kPartialSuffix, "--csv");
      check_distinct_outputs(out);
      if (!out.csv.empty()) lock.add(out.csv, "--csv");
      if (!out.json.empty()) lock.add(out.json, "--json");
      if (out.resume) {
        resume = format.load_resume(out.csv);
        if (!resume.source.empty())
          fmt::print(stderr, "collbench: resuming from {}: {} rows kept{}\n", resume.source,
                     resume.rows.size(), dropped_summary(resume));
      }
      reporters = format.files(out, resume);
    } catch (const UsageError& e) {
      setup_error = e.what();
    } catch (const io::WriteError& e) {
      setup_error = e.what();
      write_failed = true;
    }
  }
  if (w.any(!setup_error.empty(), WaitPolicy::sleep)) {
    if (root && write_failed) throw io::WriteError(setup_error);
    throw UsageError(root ? setup_error : "output files could not be opened on rank 0");
  }
  if (root) {
    if (!out.notice.empty()) fmt::print(stderr, "{}\n", out.notice);
    // The progress line wraps the table so it can step aside while a row prints.
    std::unique_ptr<Reporter> table = data_on_stdout(out) ? nullptr : format.console();
    if (!out.quiet)
      reporters.insert(reporters.begin(), make_progress_reporter(stderr, std::move(table)));
    else if (table)
      reporters.insert(reporters.begin(), std::move(table));
  }
  return reporters;
}

// The .partial files that are really there (a full disk may have kept the
// JSON from being written at all).
std::string kept_files(const SweepOutput& out) {
  std::string kept;
  for (const std::string& f : {out.csv, out.json}) {
    std::error_code ec;
    if (!f.empty() && !io::is_stdout(f) &&
        std::filesystem::is_regular_file(f + kPartialSuffix, ec))
      kept += fmt::format(" {}{}", f, kPartialSuffix);
  }
  return kept;
}

// A reporter's write that failed, as one line (fmt's own error included).
template <class Write>
void catch_write_error(std::string& error, Write&& write) {
  try {
    try {
      write();
    } catch (const std::system_error& e) {
      io::rethrow_print_error(e, "standard output");
    }
  } catch (const io::WriteError& e) {
    if (error.empty()) error = e.what();
  }
}

}  // namespace

// Long on purpose: set-up, run and teardown of one sweep's outputs, in the order ranks do them.
SweepResult run_sweep(const Plan& plan, Group& w, Measurer* measurer, const SweepOutput& out,
                      const SweepFormat& format, RunInfo info) {
  const bool root = w.rank() == 0;
  ResumeData resume;
  io::OutputLock lock;  // released last, after the files are complete or kept
  std::vector<std::unique_ptr<Reporter>> reporters = open_reporters(w, out, format, resume, lock);
  if (root) {
    info.total_cases = plan.total_cases() - plan.cases_in(resume.keys);
    info.work = predicted_work(plan, resume.keys);
    for (const RankBlock& b : plan.blocks)
      info.planned.insert(info.planned.end(), b.cases.begin(), b.cases.end());
    info.done = &resume.keys;
    for (auto& r : reporters) r->begin(info);
  }
  RunOutcome outcome;
  try {
    outcome = run_plan(plan, w, measurer, reporters, resume.keys);
  } catch (const WatchdogExpired& e) {
    // A peer is stopped: no collective can complete any more. Each surviving
    // rank says where it waited; rank 0 keeps the finished rows; the exit
    // (without MPI_Finalize, which would wait too) makes mpiexec end the rest.
    fmt::print(stderr, "collbench: error: {}\n", e.what());
    if (root)
      for (auto& r : reporters) {
        try {
          r->finish(false);
        } catch (const std::exception&) {
          // the watchdog's line is the one that matters
        }
      }
    std::fflush(stderr);
    std::fflush(stdout);
    run_abrupt_exit_hook();
    // mpiexec's own status races the stopped rank's kill (harness/USAGE.md).
    announce_exit_status(kExitWatchdog);
    std::_Exit(kExitWatchdog);
  }
  const bool complete = outcome.signal == 0 && outcome.write_error.empty();
  std::string write_error = outcome.write_error;
  if (root) {
    for (auto& r : reporters) catch_write_error(write_error, [&] { r->finish(complete); });
    if (write_error.empty() && !data_on_stdout(out))
      catch_write_error(write_error, [] { io::check_stdout(); });
  }
  const std::string kept = root ? kept_files(out) : "";
  if (root && !write_error.empty())
    fmt::print(stderr, "collbench: error: {}{}{}\n", write_error,
               outcome.rows > 0 && !kept.empty() ? "; finished rows kept in" : "",
               outcome.rows > 0 ? kept : "");
  else if (root && !complete) {
    fmt::print(stderr, "collbench: interrupted (signal {}) after {} of {} configurations{}{}\n",
               outcome.signal, outcome.rows, plan.total_cases(),
               kept.empty() ? "" : "; finished rows kept in", kept);
    // The exact command, so nobody has to reconstruct a long sweep by hand.
    if (out.csv.empty() || io::is_stdout(out.csv))
      fmt::print(stderr, "collbench: nothing to resume from: add --csv FILE to make a run "
                         "resumable\n");
    else
      fmt::print(stderr, "collbench: resume with: {}\n",
                 resume_command_line(out.command_line,
                                     plan.transport->per_process ? w.size() : 1));
  }
  // Every rank exits alike, so mpiexec's status is the run's status.
  const bool failed = w.any(outcome.wrong > 0, WaitPolicy::sleep);
  const bool write_failed = w.any(!write_error.empty(), WaitPolicy::sleep);
  if (root && failed)
    fmt::print(stderr, "collbench: FAILED: {} wrong elements (see the #wrong column)\n",
               outcome.wrong);
  SweepResult result{outcome, 0};
  if (write_failed)
    result.exit_status = kExitWriteFailed;
  else if (outcome.signal != 0)
    result.exit_status = 128 + outcome.signal;
  else if (failed)
    result.exit_status = kExitFailed;
  return result;
}

}  // namespace cb
