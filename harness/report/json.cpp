#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <unistd.h>

#include "algorithms/types.hpp"
#include "harness/report/columns.hpp"
#include "harness/report/reporter.hpp"
#include "models/io/output_file.hpp"

namespace cb {
namespace {

nlohmann::json to_json(const Cell& c) {
  struct Convert {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(std::int64_t v) const { return v; }
    nlohmann::json operator()(double v) const { return v; }
    nlohmann::json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Convert{}, c);
}

// An earlier run's CSV cell as the JSON value this run would have written.
nlohmann::json to_json(const std::string& cell) {
  if (cell.empty()) return nullptr;
  std::size_t used = 0;
  try {
    const long long i = std::stoll(cell, &used);
    if (used == cell.size()) return static_cast<std::int64_t>(i);
    const double d = std::stod(cell, &used);
    if (used == cell.size()) return d;
  } catch (const std::exception&) {
    // not a number: a string cell
  }
  return cell;
}

void remove_regular_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

class JsonReporter final : public Reporter {
 public:
  JsonReporter(std::string path, const ResumeData* resume)
      : path_(std::move(path)), resume_(resume) {
    // Fail on an unwritable destination now, before anything is measured;
    // PATH.partial too (an interrupted run writes it), as --csv's is
    // refused at once when something other than a regular file is there.
    io::check_output_path(path_, "--json");
    if (!io::is_stdout(path_)) io::check_output_path(path_ + kPartialSuffix, "--json");
  }

  void begin(const RunInfo& info) override {
    meta_ = info.meta;
    doc_["metadata"] = metadata_json(meta_);
    doc_["configuration"] = info.configuration;
    doc_["columns"] = nlohmann::json::array();
    for (std::string_view c : result_columns()) doc_["columns"].push_back(c);
    doc_["rows"] = nlohmann::json::array();
    if (!resume_) return;
    const auto& names = result_columns();
    for (const auto& cells : resume_->rows) {
      nlohmann::json obj = nlohmann::json::object();
      for (std::size_t i = 0; i < names.size(); ++i) obj[std::string(names[i])] = to_json(cells[i]);
      doc_["rows"].push_back(std::move(obj));
    }
  }

  void row(const Row& r) override {
    nlohmann::json obj = nlohmann::json::object();
    const auto cells = row_cells(r, meta_);
    const auto& names = result_columns();
    for (std::size_t i = 0; i < names.size(); ++i) obj[std::string(names[i])] = to_json(cells[i]);
    doc_["rows"].push_back(std::move(obj));
    checkpoint();
  }

  // Rewrites PATH.partial with every row so far, at most about every
  // kCheckpointGap and never more than 10% of the time: the dump grows with
  // the rows, so its own duration stretches the gap.
  void checkpoint() {
    if (io::is_stdout(path_)) return;
    const auto now = Clock::now();
    if (now - last_ < std::max(kCheckpointGap, 10 * last_cost_)) return;
    doc_["complete"] = false;
    io::write_whole_file(path_ + kPartialSuffix, "--json", doc_.dump(1) + '\n');
    last_ = Clock::now();
    last_cost_ = last_ - now;
  }

  void finish(bool complete) override {
    doc_["complete"] = complete;
    const bool out = io::is_stdout(path_);
    const std::string dest = complete || out ? path_ : path_ + kPartialSuffix;
    io::write_whole_file(dest, "--json", doc_.dump(1) + '\n');
    // An earlier interrupted run's PATH.partial is superseded by the whole file.
    if (complete && !out) remove_regular_file(path_ + kPartialSuffix);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kCheckpointGap = std::chrono::seconds(2);
  std::string path_;
  const ResumeData* resume_;
  Clock::time_point last_ = Clock::now();
  Clock::duration last_cost_{};
  RunMetadata meta_;
  nlohmann::json doc_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(const std::string& path, const ResumeData* resume) {
  return std::make_unique<JsonReporter>(path, resume);
}

}  // namespace cb
