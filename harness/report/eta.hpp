// Honest ETA for sweeps whose configurations differ by orders of magnitude
// in cost (a 1 GiB case takes 1e5 times an 8 B one; a p = 16384 ring
// simulation 1e4 times a p = 64 one). Counting configurations says "ETA 5 s"
// with 50 s left; here every configuration carries a predicted cost (any
// unit, only ratios matter) and the ETA is
//   elapsed * (predicted cost left / predicted cost done),
// so the predictions need only be right relative to each other, and the
// measured pace corrects their common scale.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace cb {

class WorkEta {
 public:
  // Predicted cost of each item in the order they will finish; values <= 0
  // count as a tiny positive cost.
  explicit WorkEta(std::vector<double> work);

  // Marks the next item finished.
  void finish_next();
  std::size_t done() const { return done_; }
  std::size_t total() const { return work_.size(); }
  // Fraction of the predicted work finished, 0..1.
  double fraction() const;
  // Seconds left, given the seconds elapsed since the first item started
  // (0 when all are done or none is: no pace known yet).
  double eta_s(double elapsed_s) const;

 private:
  std::vector<double> work_;
  double total_ = 0, finished_ = 0;
  std::size_t done_ = 0;
};

// "m:ss" (or "h:mm:ss") for progress lines.
std::string clock_text(double seconds);

// Progress output on stderr: on a terminal one line rewritten in place
// ("\r" + erase), otherwise one plain line per update, so logs stay readable.
class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out);  // terminal-ness from isatty(out)
  ProgressLine(std::FILE* out, bool terminal);
  // On a terminal the cursor is left at the start of the line, so stray
  // output (warnings) overwrites it rather than continuing it.
  void update(const std::string& text);
  // Erases the rewritten line (terminal only) before other output.
  void erase();
  ~ProgressLine();

 private:
  std::FILE* out_;
  bool terminal_;
  bool open_ = false;
};

}  // namespace cb
