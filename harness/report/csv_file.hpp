// A CSV results file written safely: rows are streamed to PATH.partial, one
// fwrite and flush per line, so a kill between rows leaves only whole rows;
// finish(true) renames PATH.partial to PATH (atomic), finish(false) leaves
// PATH.partial holding every finished row, so PATH itself never exists
// truncated. Shared by `run`'s results CSV and `map`'s crossover CSV.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cb {

class CsvFile {
 public:
  // Opens PATH.partial (throws UsageError when it cannot be written) and
  // writes `header`, then `earlier_rows` (the rows --resume keeps) when given.
  CsvFile(std::string path, const std::vector<std::string_view>& header,
          const std::vector<std::vector<std::string>>& earlier_rows = {});
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;

  // One line of already rendered cells (csv_cell, or plain text).
  void write_line(std::string line);
  void finish(bool complete);
  const std::string& partial() const { return partial_; }

 private:
  void keep_earlier_rows(const std::vector<std::string_view>& header,
                         const std::vector<std::vector<std::string>>& rows);
  template <class Strings>
  void write_cells(const Strings& cells);

  std::string path_, partial_;
  std::FILE* file_ = nullptr;
};

}  // namespace cb
