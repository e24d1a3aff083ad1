// Running collbench (or any command) as a process from a test: a fresh
// scratch directory per test, and a blocking run whose stdout and stderr
// land in that directory. Shared by the CLI, compare, output-file and
// fault tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "tests/common/text_files.hpp"

namespace cb::test {

struct Result {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

// The exit status of a wait()/system() result, signals as 128 + signal.
inline int exit_status(int rc) { return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc); }

// <tmp>/<prefix>-<pid>-<test name>, emptied and created.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       (prefix + "-" + std::to_string(::getpid()) + "-" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs the shell command `cmd`, waiting for it; its output goes to dir/out
// and dir/err and is returned.
inline Result run_shell(const std::string& cmd, const std::filesystem::path& dir) {
  const std::string full =
      cmd + " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  Result r;
  r.status = exit_status(std::system(full.c_str()));
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  return r;
}

// A test of the collbench binary that $COLLBENCH names, each in a fresh scratch
// directory (fresh_test_dir(prefix)) removed afterwards.
class CollbenchCliTest : public ::testing::Test {
 protected:
  explicit CollbenchCliTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    const char* bin = std::getenv("COLLBENCH");
    ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
    bin_ = bin;
    dir_ = fresh_test_dir(prefix_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string bin_;
  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace cb::test
