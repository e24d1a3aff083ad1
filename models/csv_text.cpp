#include "models/csv_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/types.hpp"
#include "models/io/input_file.hpp"

namespace cb::models {

std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view file) {
  std::vector<CsvRecord> out;
  std::size_t line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    CsvRecord rec;
    rec.line = line;
    std::string field;
    bool any = false;
    for (;;) {
      if (i < text.size() && text[i] == '"') {
        const std::size_t start_line = line;
        ++i;
        for (;;) {
          if (i >= text.size())
            throw UsageError(fmt::format("{}:{}: unterminated quoted field", file, start_line));
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
        any = true;
      }
      while (i < text.size() && text[i] != ',' && text[i] != '\n') {
        if (text[i] != '\r') field += text[i];
        any = true;
        ++i;
      }
      rec.fields.push_back(std::move(field));
      field.clear();
      if (i < text.size() && text[i] == ',') {
        any = true;
        ++i;
        continue;
      }
      break;  // end of line or of text
    }
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    if (any) out.push_back(std::move(rec));
  }
  return out;
}

CsvTable::CsvTable(std::string_view text, std::string file) : file_(std::move(file)) {
  auto records = parse_csv(text, file_);
  if (records.empty()) throw UsageError(fmt::format("{}: empty file (no header row)", file_));
  header_ = std::move(records.front().fields);
  for (std::size_t c = 0; c < header_.size(); ++c) index_.emplace(header_[c], c);
  rows_.assign(std::make_move_iterator(records.begin() + 1),
               std::make_move_iterator(records.end()));
}

bool CsvTable::has(std::string_view column) const { return index_.find(column) != index_.end(); }

const std::string& CsvTable::cell(const CsvRecord& row, std::string_view column) const {
  static const std::string empty;
  const auto it = index_.find(column);
  if (it == index_.end() || it->second >= row.fields.size()) return empty;
  return row.fields[it->second];
}

std::string read_text_file(const std::string& path) { return io::read_input_file(path); }

std::string read_written_file(const std::string& path) {
  std::string text = read_text_file(path);
  if (!text.empty() && text.back() != '\n')
    throw UsageError(fmt::format("{}: the last line has no newline: the file was cut short "
                                 "(collbench writes whole lines); write it again",
                                 path));
  return text;
}

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::optional<double> whole_finite(std::string_view text) {
  const std::string cell(text);  // stod needs a terminated string
  std::size_t used = 0;
  double v = NAN;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (cell.empty() || used != cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> whole_integer(std::string_view text) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

double finite_number(const CsvTable& t, const CsvRecord& row, std::string_view column) {
  const std::string& cell = t.cell(row, column);
  if (const auto v = whole_finite(cell)) return *v;
  throw UsageError(fmt::format("{}:{}: malformed, column {} holds '{}', not a finite number",
                               t.file(), row.line, column, cell));
}

int whole_count(const CsvTable& t, const CsvRecord& row, std::string_view column) {
  const double v = finite_number(t, row, column);
  if (v < 1 || v != std::floor(v) || v > 2147483647.0)
    throw UsageError(fmt::format("{}:{}: malformed, column {} holds '{}', not a whole number >= 1",
                                 t.file(), row.line, column, t.cell(row, column)));
  return static_cast<int>(v);
}

void require_columns(const CsvTable& t, std::initializer_list<std::string_view> columns) {
  for (std::string_view c : columns)
    if (!t.has(c)) throw UsageError(fmt::format("{}: malformed, no column '{}'", t.file(), c));
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{:.10g}", v);
}

std::string csv_exact(double v) { return std::isnan(v) ? "" : fmt::format("{}", v); }

}  // namespace cb::models
