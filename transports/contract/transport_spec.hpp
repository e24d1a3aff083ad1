// Transports and library baselines as the harness sees them: the plug-in
// point of `collbench run`.
//
// Adding a transport = one folder transports/<name>/ whose cli.cpp defines
// `void add_<name>_transport(std::vector<TransportSpec>&)` (appended to
// transport_cli_sources by its meson.build), plus its name in
// transport_names (transports/meson.build), from which meson generates the
// registration calls (add_transports, harness/runtime/transports.hpp). See
// transports/README.md.
//  - Per-process transports (ranks are mpiexec processes: mpi, ipc) give
//    make_operation; the harness times, verifies and reports the Operation
//    (ProcessMeasurer) on a sub-communicator of `--ranks` processes.
//  - In-process transports (all ranks in this process: sim) give
//    make_measurer; the runner calls it on world rank 0 only, and the
//    Measurement's times may be computed rather than measured.
// A library baseline (mpi's MPI_Allreduce, nccl) is an algorithm name listed
// in `baselines`; make_operation then gets schedule == nullptr.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/contract/measure.hpp"
#include "transports/contract/transport.hpp"

namespace CLI {
class App;
}

namespace cb {

class Group;

struct TransportSpec {
  std::string_view name;     // the --transport value
  std::string_view summary;  // one line for `collbench list`
  bool per_process = true;
  // False when this build lacks what it needs; `run` then refuses it with
  // unavailable_reason, and `list` shows it.
  bool available = true;
  std::string unavailable_reason;
  std::vector<std::string_view> baselines;  // library algorithms it offers as --algo values
  // In-process only: the largest --ranks it accepts (per-process: world size).
  int max_ranks = 0;
  // In-process only: the rank count used when --ranks is not given (0 =
  // max_ranks; per-process transports use the world size).
  int default_ranks = 0;

  // Adds this transport's own flags to `run` (optional). Called for every
  // transport at start-up, so flags must not clash between transports.
  std::function<void(CLI::App& run)> add_options;
  // Checks those flags once parsed, for the selected transport only, and may
  // adjust `self` (this spec, as registered) to them: ipc offers its nccl
  // baseline only with --mem cuda. Throws UsageError (optional).
  std::function<void(TransportSpec& self)> validate;
  // The CSV transport value under the parsed flags ("ipc-host"); optional,
  // defaults to name.
  std::function<std::string()> label;

  // Per-process: rank group.rank()'s operation for case c on `group`
  // (c.ranks ranks, resolved wait policy in group.wait_policy()).
  std::function<std::unique_ptr<Operation>(const Case& c, const Schedule* schedule, Group& group)>
      make_operation;
  // In-process: the measurer for a whole run.
  std::function<std::unique_ptr<Measurer>()> make_measurer;
  // A line about the parsed settings said once the run's outputs are open
  // (optional): said before them, it would precede a one-line refusal.
  std::function<std::string()> notice;
  // A known upstream defect that makes this transport's library baseline
  // wrong for case c ("" = none), carried by the row's known_issue column so
  // that a #wrong there is not blamed on collbench or the schedules
  // (optional; called on world rank 0).
  std::function<std::string(const Case& c)> known_issue;
  // The library's settings that chose the baseline's algorithm for case c
  // (MPICH: its MPIR_CVAR_* variables, "NAME=VALUE;..."), "" for a schedule
  // or the library's defaults; the row's library_setting column (optional;
  // called on world rank 0).
  std::function<std::string(const Case& c)> library_setting;
  // Predicted wall seconds of one case, a weight for the progress ETA
  // (harness/case_work.hpp); optional: the harness guesses from an
  // alpha-beta-gamma model times the expected sample count otherwise.
  std::function<double(const Case& c, const SamplingPlan& plan)> predict_wall_s;
};

// A transport this build lacks: listed by `collbench list`, refused by `run`
// with `reason` (what its cli_unbuilt.cpp registers).
TransportSpec unbuilt_transport(std::string_view name, std::string_view summary,
                                std::string reason);

}  // namespace cb
