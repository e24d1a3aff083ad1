#include "harness/report/csv_file.hpp"

#include "harness/report/columns.hpp"
#include "harness/report/reporter.hpp"

namespace cb {

// The file (a new temporary, models/io/output_file.hpp) gets the header and any
// earlier rows first and only then becomes PATH.partial, so a crash at any
// moment leaves every earlier row in place; new rows are then appended.
CsvFile::CsvFile(std::string path, const std::vector<std::string_view>& header,
                 const std::vector<std::vector<std::string>>& earlier_rows)
    : file_(std::move(path), "--csv", /*keep_on_failure=*/true) {
  write_cells(header);
  for (const auto& row : earlier_rows) write_cells(row);
  file_.show_as(kPartialSuffix);
}

CsvFile::~CsvFile() = default;

void CsvFile::finish(bool complete) {
  if (complete)
    file_.commit();
  else
    file_.keep();
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

// One write per line: a kill between rows leaves only whole rows (a full
// disk may cut the last one, which --resume drops).
void CsvFile::write_line(std::string line) {
  line += '\n';
  file_.write(line);
}

}  // namespace cb
