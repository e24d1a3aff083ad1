#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "algorithms/types.hpp"
#include "harness/report/columns.hpp"
#include "harness/report/reporter.hpp"

namespace cb {
namespace {

class CsvReporter final : public Reporter {
 public:
  CsvReporter(std::string path, const ResumeData* resume)
      : path_(std::move(path)), partial_(path_ + kPartialSuffix) {
    if (resume && !resume->rows.empty()) {
      keep_earlier_rows(resume->rows);
      return;
    }
    file_ = std::fopen(partial_.c_str(), "w");
    if (!file_)
      throw UsageError(fmt::format("cannot write --csv '{}': {}", partial_, std::strerror(errno)));
  }
  ~CsvReporter() override {
    if (file_) std::fclose(file_);
  }

  void begin(const RunInfo& info) override {
    meta_ = info.meta;
    if (resumed_) return;  // the header is already there
    std::string header;
    for (std::string_view c : result_columns()) {
      if (!header.empty()) header += ',';
      header += c;
    }
    write_line(header);
  }

  void row(const Row& r) override {
    std::string line;
    bool first = true;
    for (const Cell& c : row_cells(r, meta_)) {
      if (!first) line += ',';
      first = false;
      line += csv_cell(c);
    }
    write_line(line);
  }

  void finish(bool complete) override {
    if (!file_) return;
    std::fclose(file_);
    file_ = nullptr;
    if (complete && std::rename(partial_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error(
          fmt::format("cannot rename '{}' to '{}': {}", partial_, path_, std::strerror(errno)));
  }

 private:
  // The earlier rows (possibly read from PATH.partial itself) are rewritten
  // into a temporary file renamed over PATH.partial, so a crash now still
  // leaves them all; new rows are then appended.
  void keep_earlier_rows(const std::vector<std::vector<std::string>>& rows) {
    const std::string tmp = partial_ + ".tmp";
    file_ = std::fopen(tmp.c_str(), "w");
    if (!file_)
      throw UsageError(fmt::format("cannot write --csv '{}': {}", tmp, std::strerror(errno)));
    write_cells(result_columns());
    for (const auto& row : rows) write_cells(row);
    std::fclose(file_);
    file_ = nullptr;
    if (std::rename(tmp.c_str(), partial_.c_str()) != 0)
      throw UsageError(
          fmt::format("cannot rename '{}' to '{}': {}", tmp, partial_, std::strerror(errno)));
    file_ = std::fopen(partial_.c_str(), "a");
    if (!file_)
      throw UsageError(fmt::format("cannot append to '{}': {}", partial_, std::strerror(errno)));
    resumed_ = true;
  }

  template <class Strings>
  void write_cells(const Strings& cells) {
    std::string line;
    bool first = true;
    for (const auto& c : cells) {
      if (!first) line += ',';
      first = false;
      line += csv_cell(Cell(std::string(c)));
    }
    write_line(std::move(line));
  }

  // One fwrite per line then a flush: a kill between rows leaves only whole rows.
  void write_line(std::string line) {
    line += '\n';
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
      throw std::runtime_error(
          fmt::format("writing '{}' failed: {}", partial_, std::strerror(errno)));
  }

  std::string path_, partial_;
  std::FILE* file_ = nullptr;
  bool resumed_ = false;
  RunMetadata meta_;
};

}  // namespace

std::unique_ptr<Reporter> make_csv_reporter(const std::string& path, const ResumeData* resume) {
  return std::make_unique<CsvReporter>(path, resume);
}

}  // namespace cb
