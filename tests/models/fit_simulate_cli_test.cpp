// `collbench fit --simulate` as a user runs it: on the two-level fixture
// (tests/fixtures/two-level-3x2: 3 hosts x 2 ranks and its two-level
// calibration) it writes simulated.csv, one row per measured row, and
// accuracy.csv's simulator rows; on a flat run, or with a calibration of one
// level (or none), it is one line, exit 2, and nothing is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;

using cb::test::lines_of;
using cb::test::Result;
using cb::test::slurp;

const std::string kFixtures = std::string(CB_SOURCE_DIR) + "/tests/fixtures/";

class FitSimulate : public cb::test::CollbenchCliTest {
 protected:
  FitSimulate() : CollbenchCliTest("cb-fit-simulate") {}
  Result fit(const std::string& args) {
    return cb::test::run_shell(
        bin_ + " fit " + args + " --simulate --out " + (dir_ / "fit").string(), dir_);
  }
};

TEST_F(FitSimulate, TwoLevelRunGetsSimulatedRowsAndGrades) {
  const std::string two = kFixtures + "two-level-3x2/";
  const Result r = fit(two + "allreduce.csv --calibration " + two + "calibration.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mpi simulator sim-hierarchical ("), std::string::npos) << r.out;
  const auto sim = lines_of(slurp(dir_ / "fit" / "simulated.csv"));
  const auto measured = lines_of(slurp(two + "allreduce.csv"));
  EXPECT_EQ(sim.size(), measured.size());  // every row of the fixture is on 3 x 2
  const auto accuracy = lines_of(slurp(dir_ / "fit" / "accuracy.csv"));
  EXPECT_NE(accuracy.at(0).find(",met_crossovers,median_signed_err_large"), std::string::npos);
  for (const char* scope : {",sim-hierarchical,", ",sim-flat,"})
    EXPECT_EQ(std::count_if(accuracy.begin(), accuracy.end(),
                            [&](const std::string& l) {
                              return l.rfind("simulator,mpi,", 0) == 0 &&
                                     l.find(scope) != std::string::npos;
                            }),
              1)
        << scope;
}

TEST_F(FitSimulate, NothingToCompareIsOneLineAndNothingWritten) {
  const std::string two = kFixtures + "two-level-3x2/";
  const std::string flat = kFixtures + "testbed-500us-100Mbit/";
  struct Case {
    std::string args, needle;
  };
  const Case cases[] = {
      {flat + "sweep.csv --calibration " + flat + "calibration.csv",
       "sweep.csv has no schedule row on two levels"},
      {two + "allreduce.csv --calibration " + flat + "calibration.csv", "no two-level calibration"},
      {two + "allreduce.csv", "no two-level calibration"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = fit(c.args);
    EXPECT_EQ(r.status, 2);
    const auto err = lines_of(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_NE(err[0].find(c.needle), std::string::npos) << err[0];
    EXPECT_FALSE(fs::exists(dir_ / "fit")) << "written";
  }
}

}  // namespace
