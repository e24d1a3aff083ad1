// A CSV results file written safely (models/io/output_file.hpp: a regular file only,
// created O_EXCL|O_NOFOLLOW beside the target): rows are streamed to
// PATH.partial, one write per line, so a kill between rows leaves only whole
// rows; finish(true) renames PATH.partial to PATH (atomic), finish(false)
// leaves PATH.partial holding every finished row, so PATH itself never exists
// truncated. PATH "-" streams to standard output. Shared by `run`'s results
// CSV and `map`'s crossover CSV. Write errors throw io::WriteError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/io/output_file.hpp"

namespace cb {

class CsvFile {
 public:
  // Writes `header`, then `earlier_rows` (the rows --resume keeps) when
  // given, into a new file that then becomes PATH.partial (throws UsageError
  // or io::WriteError when it cannot be written).
  CsvFile(std::string path, const std::vector<std::string_view>& header,
          const std::vector<std::vector<std::string>>& earlier_rows = {});
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;

  // One line of already rendered cells (csv_cell, or plain text).
  void write_line(std::string line);
  void finish(bool complete);
  // Where the rows are now (PATH.partial, or "standard output").
  const std::string& partial() const { return file_.current_path(); }
  bool to_stdout() const { return file_.to_stdout(); }

 private:
  template <class Strings>
  void write_cells(const Strings& cells);

  io::OutputFile file_;
};

}  // namespace cb
