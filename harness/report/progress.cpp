#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "harness/report/reporter.hpp"
#include "harness/sweep/sizes.hpp"

namespace cb {
namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

class ProgressReporter final : public Reporter {
 public:
  explicit ProgressReporter(std::FILE* err) : err_(err) {}
  void begin(const RunInfo& info) override {
    total_ = info.total_cases;
    start_ = std::chrono::steady_clock::now();
  }
  void row(const Row& r) override {
    ++done_;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta =
        done_ < total_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_)
                       : 0;
    fmt::print(err_, "[{}/{}] {} {} {} {} {} p={} {}: {:.2f} us ({} samples)  elapsed {}  ETA {}\n",
               done_, total_, r.c.transport, to_string(r.c.coll), r.c.algorithm,
               to_string(r.c.dtype), r.c.in_place ? "in" : "out", r.c.ranks,
               format_bytes(r.c.bytes()), r.time_s.median * 1e6, r.time_s.n, clock_text(elapsed),
               clock_text(eta));
    std::fflush(err_);
  }
  void finish(bool) override {}

 private:
  std::FILE* err_;
  std::size_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::unique_ptr<Reporter> make_progress_reporter(std::FILE* err) {
  return std::make_unique<ProgressReporter>(err);
}

}  // namespace cb
