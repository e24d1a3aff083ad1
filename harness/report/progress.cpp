#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "harness/report/reporter.hpp"
#include "transports/contract/sizes.hpp"
#include "harness/report/eta.hpp"

namespace cb {
namespace {

class ProgressReporter final : public Reporter {
 public:
  ProgressReporter(std::FILE* err, bool terminal, std::function<double()> now_s,
                   std::unique_ptr<Reporter> inner)
      : line_(err, terminal), now_s_(std::move(now_s)), inner_(std::move(inner)) {}
  void begin(const RunInfo& info) override {
    if (inner_) inner_->begin(info);
    std::vector<double> work = info.work;
    if (work.size() != info.total_cases) work.assign(info.total_cases, 1.0);
    eta_.emplace(std::move(work));
    start_ = now_s_();
  }
  void row(const Row& r) override {
    line_.erase();
    if (inner_) inner_->row(r);
    eta_->finish_next();
    const double elapsed = now_s_() - start_;
    line_.update(fmt::format(
        "[{}/{}] {} {} {} {} {} p={} {}: {:.2f} us ({} samples)  elapsed {}  ETA {}",
        eta_->done(), eta_->total(), r.c.transport, to_string(r.c.coll), r.c.algorithm,
        to_string(r.c.dtype), r.c.in_place ? "in" : "out", r.c.ranks, format_bytes(r.c.bytes()),
        r.time_s.median * 1e6, r.time_s.n, clock_text(elapsed), clock_text(eta_->eta_s(elapsed))));
  }
  void finish(bool complete) override {
    line_.erase();
    if (inner_) inner_->finish(complete);
  }

 private:
  ProgressLine line_;
  std::function<double()> now_s_;
  std::unique_ptr<Reporter> inner_;
  std::optional<WorkEta> eta_;
  double start_ = 0;
};

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::unique_ptr<Reporter> make_progress_reporter(std::FILE* err, std::unique_ptr<Reporter> inner) {
  return make_progress_reporter(err, isatty(fileno(err)) != 0, steady_now_s, std::move(inner));
}

std::unique_ptr<Reporter> make_progress_reporter(std::FILE* err, bool terminal,
                                                 std::function<double()> now_s,
                                                 std::unique_ptr<Reporter> inner) {
  return std::make_unique<ProgressReporter>(err, terminal, std::move(now_s), std::move(inner));
}

}  // namespace cb
