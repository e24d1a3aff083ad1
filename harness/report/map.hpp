// `collbench map`'s reporters: rows arrive case by case from the runner; the
// rows of one cell (collective, ranks, size: every algorithm asked for) are
// gathered, ranked (best, runner-up, margin = runner-up / best - 1; skipped
// rows take no part) and written together, so an interrupted map keeps only
// whole cells and --resume recomputes the rest. Columns: see cmd_map.cpp.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/report/reporter.hpp"
#include "harness/report/resume.hpp"

namespace cb {

const std::vector<std::string_view>& map_columns();
// case_key() of the Case behind one map CSV row (--resume).
std::string map_row_key(const std::function<std::string(std::string_view)>& cell);

// `network` holds the nine already rendered network cells (alpha_s ..
// seed) every row repeats.
std::unique_ptr<Reporter> make_map_csv_reporter(const std::string& path, const ResumeData& resume,
                                                std::string network);
// One table per collective on `out`: best, its time, runner-up and margin per cell.
std::unique_ptr<Reporter> make_map_console_reporter(std::FILE* out);

}  // namespace cb
