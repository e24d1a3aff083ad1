// --resume: continue a sweep whose CSV already holds some rows.
//
// An interrupted run leaves FILE.partial (every finished row, see
// report/csv.cpp); a completed one leaves FILE. Resuming reads whichever
// exists (FILE.partial first: it is newer), skips every configuration whose
// key (row_key: transport, collective, algorithm, datatype, op, placement,
// ranks, bytes) is already there, and writes the old rows followed by the new
// ones, so the finished file holds the whole sweep. Old rows that the new
// sweep does not ask for are kept as they are.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace cb {

struct ResumeData {
  std::string source;                          // the file read ("" = nothing to resume)
  std::vector<std::vector<std::string>> rows;  // cells aligned with result_columns()
  std::unordered_set<std::string> keys;        // row_key of every row
  bool dropped_partial_row = false;            // a cut-off last line was left out
  std::size_t dropped_headers = 0;  // header lines repeated below the first (files joined)
  std::size_t dropped_nan = 0;      // rows with a NaN cell or without a time: measured again
};

// What was left out, for the "resuming from" line: "" or " (a cut-off last
// row, 2 repeated header lines and 3 rows without a valid time were dropped)".
std::string dropped_summary(const ResumeData& data);

// The identity of one row of a CSV table, as case_key() spells it for the
// Case that produced the row; `cell(name)` reads a column of the row.
using RowKeyFn =
    std::function<std::string(const std::function<std::string(std::string_view)>& cell)>;

// Reads the rows a previous run left for `csv_path`, a table with `columns`.
// Throws UsageError naming the file when its header is not `columns` (a file
// of another version or another tool) or a row is malformed. A last line
// without its newline (a write cut off by a full disk), a repeated header
// line (two files joined) and a row holding "nan" or, where the table has
// time_median_us and note columns, an empty time without a note are dropped,
// not refused: collbench never writes them, and their configurations are
// measured again, so `fit` gets a file it accepts.
ResumeData load_resume(const std::string& csv_path, const std::vector<std::string_view>& columns,
                       const RowKeyFn& key);
// `collbench run`'s results CSV (columns.hpp, keys = key_columns()).
ResumeData load_resume(const std::string& csv_path);

// The command that finishes an interrupted run: `argv` as typed (argv[0]
// first) with --resume added unless present, shell-quoted, behind
// `mpiexec -n N` when the launch had N > 1 processes.
std::string resume_command_line(const std::vector<std::string>& argv, int world_size);

// One word for a POSIX shell: unchanged when it needs no quoting, else in
// single quotes.
std::string shell_quote(const std::string& word);

}  // namespace cb
