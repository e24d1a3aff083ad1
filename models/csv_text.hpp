// Minimal RFC 4180 CSV: enough to read the results/calibration files that
// collbench itself writes (quoted fields may hold commas, quotes, newlines)
// and to write ours the same way.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cb::models {

struct CsvRecord {
  std::size_t line = 0;  // 1-based line of the file where the record starts
  std::vector<std::string> fields;
};

// Splits `text` into records; blank lines are skipped. Throws UsageError
// "<file>:<line>: unterminated quoted field" on malformed quoting.
std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view file);

// A parsed file with a header: cells looked up by column name.
class CsvTable {
 public:
  CsvTable(std::string_view text, std::string file);
  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  bool has(std::string_view column) const;
  const std::vector<CsvRecord>& rows() const { return rows_; }
  // The cell of `column` in `row`, "" if the column is absent or the row short.
  const std::string& cell(const CsvRecord& row, std::string_view column) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::vector<CsvRecord> rows_;
};

// `text` read whole as a finite real, or as a whole number (decimal digits,
// optional '-'); nullopt when empty, partly numeric, NaN, infinite or out of
// range. The readers below, and any that words its own message, use these.
std::optional<double> whole_finite(std::string_view text);
std::optional<long long> whole_integer(std::string_view text);

// The cell of `column` in `row` read whole as a finite number; throws
// UsageError "<file>:<line>: malformed, column C holds 'X', not a finite
// number" for an empty, partly numeric, NaN or infinite cell.
double finite_number(const CsvTable& t, const CsvRecord& row, std::string_view column);

// The cell of `column` in `row` as a whole number >= 1 (a rank count);
// throws UsageError "<file>:<line>: malformed, column C holds 'X', not a
// whole number >= 1".
int whole_count(const CsvTable& t, const CsvRecord& row, std::string_view column);

// Throws UsageError "<file>: malformed, no column 'C'" for the first of
// `columns` the table lacks.
void require_columns(const CsvTable& t, std::initializer_list<std::string_view> columns);

// Reads a whole file; throws UsageError "cannot read <file>: <reason>", also
// for a file that is not regular, too large or has an overlong line
// (io::read_input_file's limits).
std::string read_text_file(const std::string& path);

// read_text_file for a file collbench wrote: collbench ends every line with
// its newline, so a last line without one was cut short (a full disk, a copy
// interrupted), possibly mid-number ("2.6e-1" of "2.6e-11"), and is refused
// with one line rather than read as a different value.
std::string read_written_file(const std::string& path);

// One CSV field, quoted when it needs to be.
std::string csv_escape(std::string_view field);
// A number with full precision (%.9g as CSV.md asks for, more is fine): "" for NaN.
std::string csv_number(double v);
// A number with every digit it has (the shortest text that reads back the same
// double), so that a report rounds it once: "" for NaN.
std::string csv_exact(double v);

}  // namespace cb::models
