// One writer per output file: two runs given the same --csv both streamed
// rows into their own temporaries and the later rename won, so one run's
// rows were lost although both exited 0.
//
// OutputLock takes an exclusive flock(2) on "<path>.lock" beside each output
// file for as long as it lives, and refuses (UsageError, one line) when
// another process holds it. The lock file is created without following
// links and removed when the lock is released; a killed process leaves it
// behind unlocked (the kernel drops the lock), which the next run reuses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cb::io {

// True when `a` and `b` name the same file: the same path once `.`/`..`
// and symlinked directories are resolved, or (both existing) the same inode
// (a hard link). "-" (stdout) is never the same as a file.
bool same_output(const std::string& a, const std::string& b);

class OutputLock {
 public:
  OutputLock() = default;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

  // Locks `path` (an output file; "-" is ignored) for `flag` ("--csv").
  // Throws UsageError when another process holds it or the lock file cannot
  // be created (a link or a directory in the way).
  void add(const std::string& path, std::string_view flag);

 private:
  struct Held {
    std::string lock_path;
    int fd;
  };
  std::vector<Held> held_;
};

}  // namespace cb::io
