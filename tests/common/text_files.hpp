// Reading what a command under test wrote: a whole file, text split into
// lines, and a line split into CSV cells. Shared by the tests that run collbench as a process.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cb::test {

// The file's bytes ("" when it cannot be opened).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lines without their '\n'; a final line without one is kept.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The cells of one CSV line split at every ',' outside quotes; an empty
// last cell is kept, as a header counts it.
inline std::vector<std::string> cells_of(const std::string& line) {
  // RFC 4180 quoting, as csv_cell writes a cell holding ',' (an --arrival
  // list): "a,b" is one cell, "" inside quotes one '"'.
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

}  // namespace cb::test
