// Reporters: where finished rows go. One interface, one file per format
// (console.cpp, csv.cpp, json.cpp, progress.cpp).
// They run on world rank 0 only and never care how a row's times were
// obtained (measured or simulated).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "harness/runtime/metadata.hpp"
#include "harness/report/resume.hpp"
#include "transports/contract/row.hpp"

namespace cb {

struct RunInfo {
  RunMetadata meta;
  nlohmann::json configuration;  // every resolved option and the command line
  std::size_t total_cases = 0;   // rows the run will produce if not interrupted
  // Predicted wall seconds of each of those rows, in run order (case_work.hpp):
  // the progress ETA's weights. Empty = all alike.
  std::vector<double> work;
  bool out_of_place = true;      // placements requested
  bool in_place = true;
  // Every case of the plan in run order and the keys of those --resume skips
  // (case_key), for reporters that need to know what is still to come (map cells).
  std::vector<Case> planned;
  const std::unordered_set<std::string>* done = nullptr;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunInfo& info) = 0;
  virtual void row(const Row& r) = 0;
  // complete = false: the run was interrupted; rows so far are kept.
  virtual void finish(bool complete) = 0;
};

// nccl-tests-shaped table on `out`, with per-(collective, ranks) footers of
// peak busbw per algorithm and the best algorithm per size.
std::unique_ptr<Reporter> make_console_reporter(std::FILE* out);

// Tidy CSV (CSV.md). Rows are streamed to PATH.partial and flushed one by
// one; finish(true) renames PATH.partial to PATH (atomic), finish(false)
// leaves PATH.partial holding every finished row, so PATH itself never exists
// truncated. Opening happens here: an unwritable path throws UsageError
// before anything is measured. With `resume`, the file starts with the rows
// an earlier run left (resume.hpp) and the new rows follow.
std::unique_ptr<Reporter> make_csv_reporter(const std::string& path,
                                            const ResumeData* resume = nullptr);

// JSON: {"metadata", "configuration", "complete", "columns", "rows"}, written
// at finish through a temporary file and rename: to PATH when complete, to
// PATH.partial when interrupted. With `resume`, "rows" starts with the earlier
// run's rows (numbers as numbers, empty cells as null). While the sweep runs,
// PATH.partial is also rewritten (whole, atomically, "complete": false) after
// a row when the last rewrite is a while ago (json.cpp): a closed terminal's
// SIGHUP makes mpiexec's proxy SIGKILL the ranks at once, before any
// handler can write, and those rows must not be lost from the JSON.
std::unique_ptr<Reporter> make_json_reporter(const std::string& path,
                                             const ResumeData* resume = nullptr);

// Progress on `err` after every row: elapsed time and an ETA weighted by
// RunInfo::work (eta.hpp); one line rewritten in place on a terminal, plain
// lines otherwise. `inner` (optional, e.g. the console table) gets every call
// first, with the progress line erased, so the two never share a line.
// `now_s` (seconds, any origin) is injectable for tests.
std::unique_ptr<Reporter> make_progress_reporter(std::FILE* err,
                                                 std::unique_ptr<Reporter> inner = nullptr);
std::unique_ptr<Reporter> make_progress_reporter(std::FILE* err, bool terminal,
                                                 std::function<double()> now_s,
                                                 std::unique_ptr<Reporter> inner = nullptr);

// Suffix of the in-progress / interrupted files.
inline constexpr const char* kPartialSuffix = ".partial";

}  // namespace cb
