// The results CSV (CSV.md): one row per Case, cells from columns.cpp, written
// through CsvFile (PATH.partial until complete).
#include <memory>
#include <optional>
#include <string>

#include "harness/report/columns.hpp"
#include "harness/report/csv_file.hpp"
#include "harness/report/reporter.hpp"

namespace cb {
namespace {

class CsvReporter final : public Reporter {
 public:
  CsvReporter(const std::string& path, const ResumeData* resume)
      : file_(path, result_columns(),
              resume ? resume->rows : std::vector<std::vector<std::string>>{}) {}

  void begin(const RunInfo& info) override { meta_ = info.meta; }

  void row(const Row& r) override {
    std::string line;
    bool first = true;
    for (const Cell& c : row_cells(r, meta_)) {
      if (!first) line += ',';
      first = false;
      line += csv_cell(c);
    }
    file_.write_line(std::move(line));
  }

  void finish(bool complete) override { file_.finish(complete); }

 private:
  CsvFile file_;
  RunMetadata meta_;
};

}  // namespace

std::unique_ptr<Reporter> make_csv_reporter(const std::string& path, const ResumeData* resume) {
  return std::make_unique<CsvReporter>(path, resume);
}

}  // namespace cb
