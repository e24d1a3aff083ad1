#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "harness/cli/commands.hpp"
#include "harness/sweep/process_measurer.hpp"

namespace cb {

std::unique_ptr<Measurer> make_measurer(const TransportSpec& t, bool root) {
  if (t.per_process) return make_process_measurer(t);
  return root ? t.make_measurer() : nullptr;
}

namespace {

// Output files are opened on rank 0 only; every rank must learn if that
// failed, or the others would wait forever for a measurement.
std::vector<std::unique_ptr<Reporter>> open_reporters(Group& w, const SweepOutput& out,
                                                      const SweepFormat& format,
                                                      ResumeData& resume) {
  const bool root = w.rank() == 0;
  std::vector<std::unique_ptr<Reporter>> reporters;
  std::string setup_error;
  if (root) {
    try {
      if (out.resume) {
        if (out.csv.empty())
          throw UsageError("--resume needs --csv FILE: the results file whose rows it keeps");
        resume = format.load_resume(out.csv);
        if (!resume.source.empty())
          fmt::print(stderr, "collbench: resuming from {}: {} rows kept\n", resume.source,
                     resume.rows.size());
      }
      reporters = format.files(out, resume);
    } catch (const UsageError& e) {
      setup_error = e.what();
    }
  }
  if (w.any(!setup_error.empty(), WaitPolicy::sleep))
    throw UsageError(root ? setup_error : "output files could not be opened on rank 0");
  if (root) {
    reporters.insert(reporters.begin(), format.console());
    if (!out.quiet) reporters.insert(reporters.begin() + 1, make_progress_reporter(stderr));
  }
  return reporters;
}

void report_interruption(const Plan& plan, const SweepOutput& out, const RunOutcome& outcome) {
  std::string kept;
  if (!out.csv.empty()) kept += fmt::format(" {}{}", out.csv, kPartialSuffix);
  if (!out.json.empty()) kept += fmt::format(" {}{}", out.json, kPartialSuffix);
  fmt::print(stderr, "collbench: interrupted (signal {}) after {} of {} configurations{}{}\n",
             outcome.signal, outcome.rows, plan.total_cases(),
             kept.empty() ? "" : "; finished rows kept in", kept);
}

}  // namespace

RunOutcome run_sweep(const Plan& plan, Group& w, Measurer* measurer, const SweepOutput& out,
                     const SweepFormat& format, RunInfo info) {
  const bool root = w.rank() == 0;
  ResumeData resume;
  std::vector<std::unique_ptr<Reporter>> reporters = open_reporters(w, out, format, resume);
  if (root) {
    info.total_cases = plan.total_cases() - plan.cases_in(resume.keys);
    info.plan = &plan;
    info.done = &resume.keys;
    for (auto& r : reporters) r->begin(info);
  }
  const RunOutcome outcome = run_plan(plan, w, measurer, reporters, resume.keys);
  const bool complete = outcome.signal == 0;
  for (auto& r : reporters) r->finish(complete);
  if (root && !complete) report_interruption(plan, out, outcome);
  // Every rank exits alike, so mpiexec's status is the run's status.
  const bool failed = w.any(outcome.wrong > 0, WaitPolicy::sleep);
  if (root && failed)
    fmt::print(stderr, "collbench: FAILED: {} wrong elements (see the #wrong column)\n",
               outcome.wrong);
  if (!complete)
    set_exit_status(128 + outcome.signal);
  else if (failed)
    set_exit_status(1);
  return outcome;
}

}  // namespace cb
