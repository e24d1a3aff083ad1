#include "harness/report/map.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "algorithms/registry.hpp"
#include "harness/report/csv_file.hpp"
#include "models/csv_text.hpp"
#include "transports/contract/sizes.hpp"

namespace cb {
namespace {

struct Cell {
  std::vector<Row> rows;  // in plan order (the requested algorithms)
  const Row* best = nullptr;
  const Row* second = nullptr;
  std::optional<double> margin;
  // The fastest of each family: composed (hier:, hier2d:) and flat.
  const Row* best_hierarchical = nullptr;
  const Row* best_flat = nullptr;
};

bool composed(const Case& c) {
  try {
    return find_algorithm(c.coll, c.algorithm).composition != nullptr;
  } catch (const std::exception&) {
    return false;  // not a schedule of the registry (a baseline): flat
  }
}

std::string cell_key(const Case& c) {
  return fmt::format("{},{},{}", to_string(c.coll), c.ranks, c.count);
}

// Gathers rows into cells; a cell is complete once every case of it that the
// run will measure (the plan's, less those --resume skips) has arrived.
class CellGatherer {
 public:
  void begin(const RunInfo& info) {
    expected_.clear();
    for (const Case& c : info.planned)
      if (!info.done || info.done->count(case_key(c)) == 0) ++expected_[cell_key(c)];
  }

  // The cell `r` completes, if it does.
  std::optional<Cell> add(const Row& r) {
    const std::string key = cell_key(r.c);
    if (key != key_) {
      key_ = key;
      rows_.clear();
    }
    rows_.push_back(r);
    const auto it = expected_.find(key);
    if (it != expected_.end() && rows_.size() < it->second) return std::nullopt;
    Cell cell;
    cell.rows = std::move(rows_);
    rows_.clear();
    key_.clear();
    rank(cell);
    return cell;
  }

 private:
  static void rank(Cell& cell) {
    for (const Row& r : cell.rows) {
      if (!r.skipped.empty() || r.time_s.n == 0) continue;
      if (!cell.best || r.time_s.median < cell.best->time_s.median) {
        cell.second = cell.best;
        cell.best = &r;
      } else if (!cell.second || r.time_s.median < cell.second->time_s.median) {
        cell.second = &r;
      }
      const Row*& family = composed(r.c) ? cell.best_hierarchical : cell.best_flat;
      if (!family || r.time_s.median < family->time_s.median) family = &r;
    }
    if (cell.best && cell.second && cell.best->time_s.median > 0)
      cell.margin = cell.second->time_s.median / cell.best->time_s.median - 1;
  }

  std::map<std::string, std::size_t> expected_;
  std::string key_;
  std::vector<Row> rows_;
};

std::string op_cell(const Case& c) { return is_reducing(c.coll) ? std::string(to_string(c.op)) : ""; }

class MapCsvReporter final : public Reporter {
 public:
  MapCsvReporter(const std::string& path, const ResumeData& resume, std::string network)
      : file_(path, map_columns(), resume.rows), network_(std::move(network)) {}

  void begin(const RunInfo& info) override { cells_.begin(info); }

  void row(const Row& r) override {
    const std::optional<Cell> cell = cells_.add(r);
    if (cell) write(*cell);
  }

  void finish(bool complete) override { file_.finish(complete); }

 private:
  void write(const Cell& cell) {
    for (const Row& r : cell.rows) {
      const Case& c = r.c;
      const bool timed = r.skipped.empty() && r.time_s.n > 0;
      const Row* h = cell.best_hierarchical;
      const Row* f = cell.best_flat;
      file_.write_line(fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
          to_string(c.coll), c.ranks, c.bytes(), c.count, to_string(c.dtype), op_cell(c),
          c.in_place ? "in" : "out", c.algorithm, timed ? models::csv_number(r.time_s.median) : "",
          timed && r.events ? std::to_string(*r.events) : "",
          cell.best ? cell.best->c.algorithm : "",
          cell.best ? models::csv_number(cell.best->time_s.median) : "",
          cell.second ? cell.second->c.algorithm : "",
          cell.margin ? models::csv_number(*cell.margin) : "", network_,
          models::csv_escape(r.skipped), models::csv_escape(r.arrival),
          timed && r.after_last_median_s ? models::csv_number(*r.after_last_median_s) : "",
          timed && r.noskew_median_s ? models::csv_number(*r.noskew_median_s) : "",
          h ? h->c.algorithm : "", h ? models::csv_number(h->time_s.median) : "",
          f ? f->c.algorithm : "", f ? models::csv_number(f->time_s.median) : "",
          h && f && f->time_s.median > 0 ? models::csv_number(h->time_s.median / f->time_s.median)
                                         : ""));
    }
  }

  CsvFile file_;
  std::string network_;
  CellGatherer cells_;
};

class MapConsoleReporter final : public Reporter {
 public:
  explicit MapConsoleReporter(std::FILE* out) : out_(out) {}

  void begin(const RunInfo& info) override { cells_.begin(info); }

  void row(const Row& r) override {
    const std::optional<Cell> cell = cells_.add(r);
    if (cell) line(*cell);
  }

  void finish(bool) override { std::fflush(out_); }

 private:
  void line(const Cell& cell) {
    const Case& c = cell.rows.front().c;
    if (!coll_ || *coll_ != c.coll) {
      coll_ = c.coll;
      fmt::print(out_,
                 "# {} {} {} {}: best algorithm per (ranks, size), simulated; margin = runner-up "
                 "/ best - 1\n",
                 to_string(c.coll), to_string(c.dtype), op_cell(c), c.in_place ? "in" : "out");
      fmt::print(out_, "{:>7} {:>12}  {:<10} {:>14}  {:<10} {:>8}\n", "ranks", "size", "best",
                 "time(us)", "runner-up", "margin");
    }
    fmt::print(out_, "{:>7} {:>12}  {:<10} {:>14.3f}  {:<10} {:>8}\n", c.ranks,
               format_bytes(c.bytes()), cell.best ? cell.best->c.algorithm : "-",
               cell.best ? cell.best->time_s.median * 1e6 : 0.0,
               cell.second ? cell.second->c.algorithm : "-",
               cell.margin ? fmt::format("{:.1f}%", *cell.margin * 100) : "-");
    std::fflush(out_);
  }

  std::FILE* out_;
  std::optional<Collective> coll_;
  CellGatherer cells_;
};

}  // namespace

const std::vector<std::string_view>& map_columns() {
  static const std::vector<std::string_view> columns = {"collective",
                                                        "ranks",
                                                        "bytes",
                                                        "count",
                                                        "datatype",
                                                        "op",
                                                        "placement",
                                                        "algorithm",
                                                        "time_s",
                                                        "events",
                                                        "best_algorithm",
                                                        "best_time_s",
                                                        "runner_up",
                                                        "margin",
                                                        "alpha_s",
                                                        "beta_s_per_B",
                                                        "gamma_s_per_B",
                                                        "overhead_s",
                                                        "ranks_per_node",
                                                        "model",
                                                        "skew_s",
                                                        "noise_s",
                                                        "seed",
                                                        "note",
                                                        "arrival",
                                                        "after_last_s",
                                                        "noskew_s",
                                                        "best_hierarchical",
                                                        "best_hierarchical_time_s",
                                                        "best_flat",
                                                        "best_flat_time_s",
                                                        "hierarchical_over_flat"};
  return columns;
}

std::string map_row_key(const std::function<std::string(std::string_view)>& cell) {
  return fmt::format("sim,{},{},{},{},{},{},{}", cell("collective"), cell("algorithm"),
                     cell("datatype"), cell("op"), cell("placement"), cell("ranks"),
                     cell("bytes"));
}

std::unique_ptr<Reporter> make_map_csv_reporter(const std::string& path, const ResumeData& resume,
                                                std::string network) {
  return std::make_unique<MapCsvReporter>(path, resume, std::move(network));
}

std::unique_ptr<Reporter> make_map_console_reporter(std::FILE* out) {
  return std::make_unique<MapConsoleReporter>(out);
}

}  // namespace cb
