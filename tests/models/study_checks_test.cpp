// models/study_checks.hpp: the verdicts report.py shows about the machine
// (a calibrated quantity that moved within the study, a busy machine).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/study_checks.hpp"

namespace cb::models {
namespace {

namespace fs = std::filesystem;

struct Study {
  fs::path dir = fs::temp_directory_path() / ("cb-study-checks-" + std::to_string(::getpid()));
  Study() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Study() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
  }
  // The rows of checks.csv as field vectors, without the header.
  std::vector<std::vector<std::string>> rows() const {
    std::vector<std::vector<std::string>> out;
    const auto records = parse_csv(study_checks_csv(dir.string()), "checks.csv");
    for (std::size_t i = 1; i < records.size(); ++i) out.push_back(records[i].fields);
    return out;
  }
};

const char* kCalibration = "transport,alpha_s,beta_s_per_B,gamma_s_per_B\n";
const char* kSweep = "transport,collective,algorithm,datatype,op,placement,ranks,bytes,"
                     "time_median_us,ci_lo_us,ci_hi_us,busbw_GBps,load_avg_1m,procs_running,note\n";

TEST(StudyChecks, CalibrationThatMovedMoreThanTheFactorIsFlagged) {
  Study s;
  // α 2 -> 2.4 µs (x1.2: not moved), 1/β 10 -> 5 GB/s (x0.5: moved), γ 0 -> 1e-10 (inf before:
  // no ratio, moved).
  s.write("calibration.csv", std::string(kCalibration) + "mpi,2e-6,1e-10,0\n");
  s.write("calibration-after.csv", std::string(kCalibration) + "mpi,2.4e-6,2e-10,1e-10\n");
  const auto rows = s.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], "calibration");
  EXPECT_EQ(rows[0][1], "mpi");
  EXPECT_EQ(rows[0][2], "alpha_us");
  EXPECT_DOUBLE_EQ(std::stod(rows[0][5]), 1.2);
  EXPECT_EQ(rows[0][9], "0");
  EXPECT_DOUBLE_EQ(std::stod(rows[0][10]), kCalibrationMoved);
  EXPECT_EQ(rows[1][2], "bandwidth_GBps");
  EXPECT_DOUBLE_EQ(std::stod(rows[1][3]), 10);
  EXPECT_DOUBLE_EQ(std::stod(rows[1][5]), 0.5);
  EXPECT_EQ(rows[1][9], "1");
  EXPECT_EQ(rows[2][3], "inf");
  EXPECT_EQ(rows[2][5], "");
  EXPECT_EQ(rows[2][9], "1");
}

TEST(StudyChecks, WithinTheFactorBothWaysIsNotMoved) {
  Study s;
  // x1.2, x1/1.15, x1.15: inside [1/1.25, 1.25].
  s.write("calibration-ipc.csv", std::string(kCalibration) + "ipc,1e-6,1e-10,1e-10\n");
  s.write("calibration-ipc-after.csv", std::string(kCalibration) + "ipc,1.2e-6,1.15e-10,0.87e-10\n");
  const auto rows = s.rows();
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) {
    EXPECT_EQ(r[1], "ipc");
    EXPECT_EQ(r[9], "0") << r[2] << " ratio " << r[5];
  }
}

TEST(StudyChecks, MemoryRateWhereBothCalibrationsMeasuredIt) {
  Study s;
  const std::string header = "transport,alpha_s,beta_s_per_B,gamma_s_per_B,memory_GBps\n";
  // 28 -> 13.5 GB/s (x0.48: moved).
  s.write("calibration-ipc.csv", header + "ipc-host,1e-6,1e-10,1e-10,28\n");
  s.write("calibration-ipc-after.csv", header + "ipc-host,1e-6,1e-10,1e-10,13.5\n");
  auto rows = s.rows();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3][2], "memory_GBps");
  EXPECT_DOUBLE_EQ(std::stod(rows[3][3]), 28);
  EXPECT_DOUBLE_EQ(std::stod(rows[3][4]), 13.5);
  EXPECT_EQ(rows[3][9], "1");
  // An older file without the column: no row.
  s.write("calibration-ipc-after.csv", std::string(kCalibration) + "ipc-host,1e-6,1e-10,1e-10\n");
  EXPECT_EQ(s.rows().size(), 3u);
}

TEST(StudyChecks, BusyWhenTheMedianLoadExceedsOurRanks) {
  Study s;
  // Measured rows at p = 2 with loads 1, 3, 4 (median 3 > 2: busy); the simulated row's load
  // and the skipped case's are not the machine's.
  s.write("sweep-mpi.csv", std::string(kSweep) +
                               "mpi,allreduce,ring,fp32,sum,out,2,8,1,1,1,1,1,2,\n"
                               "mpi,allreduce,ring,fp32,sum,out,2,16,1,1,1,1,3,5,\n"
                               "mpi,allreduce,ring,fp32,sum,out,2,32,1,1,1,1,4,3,\n"
                               "mpi,allreduce,ring,fp32,sum,out,64,32,,,,,99,99,skipped\n");
  s.write("sweep-sim.csv", std::string(kSweep) + "sim,allreduce,ring,fp32,sum,out,512,8,1,1,1,1,50,1,\n");
  const auto rows = s.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], "load_avg_1m");
  EXPECT_EQ(rows[0][6], "3");
  EXPECT_EQ(rows[0][7], "4");
  EXPECT_EQ(rows[0][8], "2");
  EXPECT_EQ(rows[0][9], "1");
  EXPECT_EQ(rows[1][2], "procs_running");
  EXPECT_EQ(rows[1][6], "3");
  EXPECT_EQ(rows[1][7], "5");
}

TEST(StudyChecks, NotBusyAtOrBelowOurRanksAndNothingWithoutLoads) {
  Study s;
  s.write("sweep-mpi.csv", std::string(kSweep) + "mpi,allreduce,ring,fp32,sum,out,2,8,1,1,1,1,2,2,\n");
  ASSERT_EQ(s.rows().size(), 2u);
  EXPECT_EQ(s.rows()[0][9], "0");
  s.write("sweep-mpi.csv", std::string(kSweep) + "mpi,allreduce,ring,fp32,sum,out,2,8,1,1,1,1,,,\n");
  EXPECT_TRUE(s.rows().empty());
}

TEST(StudyChecks, AMalformedCalibrationIsOneLineNamingTheFile) {
  Study s;
  s.write("calibration.csv", std::string(kCalibration) + "mpi,fast,1e-10,1e-10\n");
  s.write("calibration-after.csv", std::string(kCalibration) + "mpi,1e-6,1e-10,1e-10\n");
  try {
    s.rows();
    FAIL() << "accepted alpha_s 'fast'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.csv:2: malformed, column alpha_s holds 'fast'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cb::models
