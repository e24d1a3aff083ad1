// io::OutputFile, the one way collbench writes files: regular files only,
// never through a link, temporaries removed unless shown, one-line errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "algorithms/types.hpp"
#include "models/io/input_file.hpp"
#include "models/io/output_file.hpp"
#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;

using cb::test::slurp;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = cb::test::fresh_test_dir("collbench-io");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, CommitReplacesARegularFileAtomically) {
  const fs::path target = dir_ / "r.csv";
  std::ofstream(target) << "old\n";
  {
    cb::io::OutputFile f(target.string(), "--csv", true);
    f.write("new\n");
    EXPECT_EQ(slurp(target), "old\n");  // untouched until commit
    f.commit();
  }
  EXPECT_EQ(slurp(target), "new\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFileTest, ShownFilesStayOnFailureTemporariesDoNot) {
  const fs::path target = dir_ / "r.csv";
  {
    cb::io::OutputFile f(target.string(), "--csv", true);
    f.write("header\n");
    f.show_as(".partial");
    f.write("row\n");
  }  // no commit: an exception unwound past it
  EXPECT_EQ(slurp(dir_ / "r.csv.partial"), "header\nrow\n");
  fs::remove(dir_ / "r.csv.partial");
  { cb::io::OutputFile f(target.string(), "--csv", true); }
  { cb::io::OutputFile f(target.string(), "--json", false); }
  EXPECT_EQ(entries(), 0u);
}

TEST_F(OutputFileTest, RefusesWhatIsNotARegularFile) {
  fs::create_directories(dir_ / "d");
  EXPECT_THROW(cb::io::check_output_path((dir_ / "d").string(), "--csv"), cb::UsageError);
  EXPECT_THROW(cb::io::check_output_path("/dev/null", "--csv"), cb::UsageError);
  EXPECT_THROW(cb::io::check_output_path("", "--csv"), cb::UsageError);
  EXPECT_THROW(cb::io::check_output_path((dir_ / "no/such.csv").string(), "--csv"),
               cb::UsageError);
  EXPECT_NO_THROW(cb::io::check_output_path("-", "--csv"));
  EXPECT_NO_THROW(cb::io::check_output_path((dir_ / "new.csv").string(), "--csv"));
  // A link at the name the file is shown under is never replaced or followed.
  std::ofstream(dir_ / "victim") << "keep\n";
  fs::create_symlink(dir_ / "victim", dir_ / "r.csv.partial");
  {
    cb::io::OutputFile f((dir_ / "r.csv").string(), "--csv", true);
    EXPECT_THROW(f.show_as(".partial"), cb::io::WriteError);
  }
  EXPECT_EQ(slurp(dir_ / "victim"), "keep\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "r.csv.partial"));
  EXPECT_EQ(entries(), 3u);  // d, victim, the link: the temporary is gone
}

TEST_F(OutputFileTest, WriteErrorsAreOneLineNamingTheFile) {
  // After keep() the descriptor is closed, so a further write fails (EBADF),
  // which stands in for ENOSPC here (the fault suite fills a real tmpfs).
  cb::io::OutputFile f((dir_ / "r.csv").string(), "--csv", true);
  f.write("x\n");
  f.show_as(".partial");
  f.keep();
  try {
    f.write("y\n");
    FAIL() << "writing a closed file succeeded";
  } catch (const cb::io::WriteError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("r.csv.partial"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// io::read_input_file, the one reader of user-named files: bounded.
std::string read_error(const std::string& path, cb::io::InputLimits limits = {}) {
  try {
    cb::io::read_input_file(path, "--params", limits);
  } catch (const cb::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST_F(OutputFileTest, InputFilesAreRegularAndBounded) {
  std::ofstream(dir_ / "ok.csv") << "a,b\n1,2\n";
  EXPECT_EQ(cb::io::read_input_file((dir_ / "ok.csv").string()), "a,b\n1,2\n");
  fs::create_symlink(dir_ / "ok.csv", dir_ / "link.csv");  // a link to a regular file is fine
  EXPECT_EQ(cb::io::read_input_file((dir_ / "link.csv").string()), "a,b\n1,2\n");

  EXPECT_NE(read_error("/dev/zero").find("--params /dev/zero: it is a character device"),
            std::string::npos)
      << read_error("/dev/zero");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);  // nobody writes: must not block
  EXPECT_NE(read_error((dir_ / "fifo").string()).find("it is a FIFO"), std::string::npos);
  EXPECT_NE(read_error(dir_.string()).find("it is a directory"), std::string::npos);
  EXPECT_NE(read_error((dir_ / "missing").string()).find("No such file"), std::string::npos);

  EXPECT_NE(read_error((dir_ / "ok.csv").string(), {.max_bytes = 7, .max_line = 100})
                .find("larger than 7 bytes"),
            std::string::npos);
  EXPECT_NE(read_error((dir_ / "ok.csv").string(), {.max_bytes = 100, .max_line = 2})
                .find("line 1 is longer than 2 bytes"),
            std::string::npos)
      << read_error((dir_ / "ok.csv").string(), {.max_bytes = 100, .max_line = 2});
  EXPECT_EQ(read_error((dir_ / "ok.csv").string(), {.max_bytes = 100, .max_line = 3}), "");
  // A file that says it is empty (as /proc's do) is still bounded by what it holds.
  EXPECT_NE(read_error("/proc/self/maps", {.max_bytes = 16, .max_line = 0}).find("larger than"),
            std::string::npos);
  for (const std::string& e : {read_error("/dev/zero"), read_error(dir_.string())})
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

}  // namespace
