#include "harness/report/eta.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace cb {
namespace {
// Stands in for a zero or negative prediction, so a run of "free" items still
// advances the ETA's notion of progress a little.
constexpr double kTiny = 1e-9;
}  // namespace

WorkEta::WorkEta(std::vector<double> work) : work_(std::move(work)) {
  for (double& w : work_) {
    w = std::max(w, kTiny);
    total_ += w;
  }
}

void WorkEta::finish_next() {
  if (done_ < work_.size()) finished_ += work_[done_++];
}

double WorkEta::fraction() const { return total_ > 0 ? std::min(1.0, finished_ / total_) : 1.0; }

double WorkEta::eta_s(double elapsed_s) const {
  if (done_ == 0 || done_ >= work_.size() || finished_ <= 0) return 0;
  return elapsed_s * std::max(0.0, total_ - finished_) / finished_;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::max(0.0, seconds) + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

ProgressLine::ProgressLine(std::FILE* out) : ProgressLine(out, isatty(fileno(out)) != 0) {}
ProgressLine::ProgressLine(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}

void ProgressLine::update(const std::string& text) {
  if (terminal_) {
    fmt::print(out_, "\r\033[K{}\r", text);
    open_ = true;
  } else {
    fmt::print(out_, "{}\n", text);
  }
  std::fflush(out_);
}

void ProgressLine::erase() {
  if (open_) {
    fmt::print(out_, "\r\033[K");
    std::fflush(out_);
  }
  open_ = false;
}

ProgressLine::~ProgressLine() { erase(); }

}  // namespace cb
