#include "harness/report/csv_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "algorithms/types.hpp"
#include "harness/report/columns.hpp"
#include "harness/report/reporter.hpp"

namespace cb {

CsvFile::CsvFile(std::string path, const std::vector<std::string_view>& header,
                 const std::vector<std::vector<std::string>>& earlier_rows)
    : path_(std::move(path)), partial_(path_ + kPartialSuffix) {
  if (!earlier_rows.empty()) {
    keep_earlier_rows(header, earlier_rows);
    return;
  }
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_)
    throw UsageError(fmt::format("cannot write --csv '{}': {}", partial_, std::strerror(errno)));
  write_cells(header);
}

CsvFile::~CsvFile() {
  if (file_) std::fclose(file_);
}

void CsvFile::finish(bool complete) {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  if (complete && std::rename(partial_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error(
        fmt::format("cannot rename '{}' to '{}': {}", partial_, path_, std::strerror(errno)));
}

// The earlier rows (possibly read from PATH.partial itself) are rewritten
// into a temporary file renamed over PATH.partial, so a crash now still
// leaves them all; new rows are then appended.
void CsvFile::keep_earlier_rows(const std::vector<std::string_view>& header,
                                const std::vector<std::vector<std::string>>& rows) {
  const std::string tmp = partial_ + ".tmp";
  file_ = std::fopen(tmp.c_str(), "w");
  if (!file_)
    throw UsageError(fmt::format("cannot write --csv '{}': {}", tmp, std::strerror(errno)));
  write_cells(header);
  for (const auto& row : rows) write_cells(row);
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename(tmp.c_str(), partial_.c_str()) != 0)
    throw UsageError(
        fmt::format("cannot rename '{}' to '{}': {}", tmp, partial_, std::strerror(errno)));
  file_ = std::fopen(partial_.c_str(), "a");
  if (!file_)
    throw UsageError(fmt::format("cannot append to '{}': {}", partial_, std::strerror(errno)));
}

template <class Strings>
void CsvFile::write_cells(const Strings& cells) {
  std::string line;
  bool first = true;
  for (const auto& c : cells) {
    if (!first) line += ',';
    first = false;
    line += csv_cell(Cell(std::string(c)));
  }
  write_line(std::move(line));
}

void CsvFile::write_line(std::string line) {
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw std::runtime_error(
        fmt::format("writing '{}' failed: {}", partial_, std::strerror(errno)));
}

}  // namespace cb
