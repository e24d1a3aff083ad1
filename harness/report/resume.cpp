#include "harness/report/resume.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "algorithms/types.hpp"
#include "harness/report/columns.hpp"
#include "harness/report/reporter.hpp"
#include "models/csv_text.hpp"

namespace cb {
namespace {

// "nan", "-nan", "NaN": what a hand-edited or foreign file holds where
// collbench writes an empty cell.
bool is_nan_text(const std::string& cell) {
  std::string_view v(cell);
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) v.remove_prefix(1);
  return v.size() == 3 && (v[0] | 0x20) == 'n' && (v[1] | 0x20) == 'a' && (v[2] | 0x20) == 'n';
}

}  // namespace

ResumeData load_resume(const std::string& csv_path, const std::vector<std::string_view>& columns,
                       const RowKeyFn& key) {
  ResumeData data;
  const std::string partial = csv_path + kPartialSuffix;
  if (std::filesystem::exists(partial))
    data.source = partial;
  else if (std::filesystem::exists(csv_path))
    data.source = csv_path;
  else
    return data;

  std::string text = models::read_text_file(data.source);
  // Rows are written one whole line at a time, so only a failed write (a full
  // disk) can leave a last line without its newline: that row is incomplete.
  if (!text.empty() && text.back() != '\n') {
    // Not one whole line: not a file collbench wrote (its header line is
    // written whole before any row), rather than an "empty" one.
    if (text.find('\n') == std::string::npos)
      throw UsageError(fmt::format(
          "--resume: {} holds {} bytes and not one complete line (not a results file of "
          "collbench); move it away or resume into a new --csv file",
          data.source, text.size()));
    text.resize(text.rfind('\n') + 1);
    data.dropped_partial_row = true;
  }
  const models::CsvTable table(text, data.source);
  std::vector<std::string_view> header(table.header().begin(), table.header().end());
  if (header != columns)
    throw UsageError(fmt::format(
        "--resume: {} does not have the result columns of this collbench (a different version "
        "or another file); move it away or resume into a new --csv file",
        data.source));
  const bool timed = table.has("time_median_us") && table.has("note");
  for (const models::CsvRecord& r : table.rows()) {
    if (r.fields == table.header()) {
      ++data.dropped_headers;
      continue;
    }
    if (r.fields.size() != columns.size())
      throw UsageError(fmt::format("--resume: {}:{}: {} fields where the header has {}",
                                   data.source, r.line, r.fields.size(), columns.size()));
    const bool nan = std::any_of(r.fields.begin(), r.fields.end(), is_nan_text);
    if (nan || (timed && table.cell(r, "time_median_us").empty() && table.cell(r, "note").empty())) {
      ++data.dropped_nan;
      continue;
    }
    data.keys.insert(key([&](std::string_view column) { return table.cell(r, column); }));
    data.rows.push_back(r.fields);
  }
  return data;
}

std::string dropped_summary(const ResumeData& data) {
  std::vector<std::string> parts;
  if (data.dropped_partial_row) parts.emplace_back("a cut-off last row");
  if (data.dropped_headers)
    parts.push_back(fmt::format("{} repeated header line{}", data.dropped_headers,
                                data.dropped_headers == 1 ? "" : "s"));
  if (data.dropped_nan)
    parts.push_back(fmt::format("{} row{} without a valid time", data.dropped_nan,
                                data.dropped_nan == 1 ? "" : "s"));
  if (parts.empty()) return "";
  if (parts.size() == 1 && data.dropped_partial_row) return " (a cut-off last row was dropped)";
  std::string out = " (dropped: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out + ")";
}

ResumeData load_resume(const std::string& csv_path) {
  return load_resume(csv_path, result_columns(), [](const auto& cell) {
    std::string key;
    for (std::string_view k : key_columns()) {
      if (!key.empty()) key += ',';
      key += cell(k);
    }
    return key;
  });
}

std::string shell_quote(const std::string& word) {
  const bool plain =
      !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return word;
  std::string q = "'";
  for (char ch : word) {
    if (ch == '\'')
      q += "'\\''";
    else
      q += ch;
  }
  q += '\'';
  return q;
}

std::string resume_command_line(const std::vector<std::string>& argv, int world_size) {
  std::string cmd = world_size > 1 ? fmt::format("mpiexec -n {} ", world_size) : std::string();
  bool has_resume = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    has_resume = has_resume || argv[i] == "--resume";
    if (i) cmd += ' ';
    cmd += shell_quote(argv[i]);
  }
  if (!has_resume) cmd += " --resume";
  return cmd;
}

}  // namespace cb
