// The results columns of CSV.md, in order, as typed cells: the single place
// that maps a Row (plus run metadata) to CSV and JSON columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "harness/runtime/metadata.hpp"
#include "transports/contract/row.hpp"

namespace cb {

// monostate = empty cell (not applicable / not checked).
using Cell = std::variant<std::monostate, std::string, std::int64_t, double>;

// Column names, CSV.md order.
const std::vector<std::string_view>& result_columns();
// The key columns that identify a configuration (see row_key).
const std::vector<std::string_view>& key_columns();
// Cells of `r`, aligned with result_columns().
std::vector<Cell> row_cells(const Row& r, const RunMetadata& meta);

// CSV rendering of one cell: numbers at full precision (%.9g for doubles),
// strings quoted when they hold ',', '"' or a newline.
std::string csv_cell(const Cell& c);

}  // namespace cb
