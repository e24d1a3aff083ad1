// `collbench predict --csv FILE` as a user runs it: one row per size and
// algorithm with 6 significant digits, written whole; bad --terms refused.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;

using cb::test::slurp;

TEST(PredictCli, CsvHasSixSignificantDigits) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
  const fs::path dir = fs::temp_directory_path() / ("cb-predict-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path csv = dir / "p.csv";
  const std::string cmd = std::string(bin) +
                          " predict --coll allreduce --ranks 4 -b 1024 -e 1024 --alpha 1.23456789us "
                          "--beta 1e-10 --gamma 0 --csv " +
                          csv.string() + " >" + (dir / "out").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "out");
  const std::string text = slurp(csv);
  EXPECT_EQ(text.rfind("collective,algorithm,datatype,op,placement,ranks,bytes,count,predicted_us,"
                       "best,lower_bound_us,model,arrival,after_last_us,noskew_us,rounds,"
                       "messages,bytes_sent,bytes_reduced,ranks_per_node,memory_read_B,"
                       "memory_written_B,memory_bound_us\n",
                       0),
            0u)
      << text;
  // ring at p = 4: 2(p-1) = 6 alpha + 2(3/4) * 1024 B * 1e-10 s/B = 7.40741 + 0.1536 = 7.56101 us.
  EXPECT_NE(text.find("allreduce,ring,fp32,sum,out,4,1024,256,7.56101,"), std::string::npos)
      << text;
  EXPECT_NE(slurp(dir / "out").find("7.56101"), std::string::npos);
  // Its counts: 2(p-1) = 6 rounds and 6 messages from each rank, 2(p-1)/p * 1024 = 1536 B
  // sent and (p-1)/p * 1024 = 768 B reduced on the critical path.
  // Its memory traffic (models/memory_bound.hpp), per rank: 3 reduce-scatter steps that
  // copy the own 256 B block and reduce the peer's into it in one pass (read 512 B, write
  // 256 B), and 3 all-gather steps that copy 256 B from the peer (read 256 B, write 256 B);
  // no bound without a calibration's bandwidth.
  EXPECT_NE(text.find(",abg,,,,6,6,1536,768,,2304,1536,\n"), std::string::npos) << text;
  const std::string bad = std::string(bin) +
                          " predict --coll allreduce --ranks 4 --alpha 1us --beta 0 --gamma 0 "
                          "--terms xyz --csv " +
                          (dir / "q.csv").string() + " >/dev/null 2>&1";
  const int rc = std::system(bad.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(fs::exists(dir / "q.csv"));
  fs::remove_all(dir);
}

// --ranks-per-node K prices each message at the level it crosses, needs the
// intra-node level, and adds the hierarchical algorithms to the table.
TEST(PredictCli, RanksPerNodePricesBothLevels) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
  const fs::path dir = fs::temp_directory_path() / ("cb-predict2-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string base = std::string(bin) +
                           " predict --coll allreduce --ranks 4 --ranks-per-node 2 -b 1024 -e 1024 "
                           "--alpha 1us --beta 1e-10 --gamma 0";
  const std::string out = " >" + (dir / "out").string() + " 2>&1";
  // No intra-node level: one line, exit 2, no CSV.
  int rc = std::system((base + " --csv " + (dir / "q.csv").string() + out).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(slurp(dir / "out").find("--ranks-per-node 2 prices two levels"), std::string::npos)
      << slurp(dir / "out");
  EXPECT_FALSE(fs::exists(dir / "q.csv"));
  const fs::path csv = dir / "p.csv";
  rc = std::system(
      (base + " --intra-alpha 0.1us --intra-beta 1e-11 --csv " + csv.string() + out).c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(dir / "out");
  EXPECT_NE(slurp(dir / "out").find("# two levels: 2 ranks per node (2 nodes)"), std::string::npos)
      << slurp(dir / "out");
  const std::string text = slurp(csv);
  // hier2d:ring/ring on 2 x 2, 1024 B: 2 intra-node messages of 512 B and 2
  // inter-node ones of 256 B in each of the 2 lanes at once, which share each
  // node's link (512 B on it per step):
  // 2 (0.1 + 0.00512) + 2 (1 + 0.0512) = 2.31264 us.
  EXPECT_NE(text.find("allreduce,hier2d:ring/ring,fp32,sum,out,4,1024,256,2.31264,"),
            std::string::npos)
      << text;
  // Flat ring: every step has a message across the node boundary, 6 (1 + 0.0256) us.
  EXPECT_NE(text.find("allreduce,ring,fp32,sum,out,4,1024,256,6.1536,"), std::string::npos)
      << text;
  // ranks_per_node, then the ring's memory traffic (as on one level) and no bound.
  EXPECT_NE(text.find(",768,2,2304,1536,\n"), std::string::npos) << text;
  // --terms prices one level: refused with --ranks-per-node.
  rc = std::system((base + " --intra-alpha 0.1us --intra-beta 1e-11 --terms range" + out).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  fs::remove_all(dir);
}

// A hierarchical algorithm on a layout where it is a flat one (every rank on
// one node, or one rank per node) is priced as that flat algorithm with
// `run`'s note, by predict and by map alike; unasked, predict does not add
// such a duplicate column.
TEST(PredictCli, HierarchicalOnOneLevelRunsFlatWithRunsNote) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
  const fs::path dir = fs::temp_directory_path() / ("cb-predict3-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string model = " -b 1024 -e 1024 --alpha 1us --beta 1e-10 --gamma 0 "
                            "--intra-alpha 0.1us --intra-beta 1e-11";
  const std::string out = " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  for (const std::string cmd : {"predict", "map"}) {
    const std::string base = std::string(bin) + " " + cmd + " --coll allreduce --ranks 4" + model;
    int rc = std::system(
        (base + " --ranks-per-node 4 --algo hier2d:ring/ring --csv " + (dir / (cmd + "1.csv")).string() + out)
            .c_str());
    ASSERT_EQ(WEXITSTATUS(rc), 0) << cmd << ": " << slurp(dir / "err");
    EXPECT_NE(slurp(dir / "err").find("collbench: note: hier2d:ring/ring on one node (4 ranks)"),
              std::string::npos)
        << cmd << ": " << slurp(dir / "err");
    rc = std::system(
        (base + " --ranks-per-node 1 --algo hier2d:ring/ring --csv " + (dir / (cmd + "2.csv")).string() + out)
            .c_str());
    ASSERT_EQ(WEXITSTATUS(rc), 0) << cmd << ": " << slurp(dir / "err");
    EXPECT_NE(slurp(dir / "err").find("collbench: note: hier2d:ring/ring with one rank per node"),
              std::string::npos)
        << cmd << ": " << slurp(dir / "err");
  }
  // Unasked on one node: the flat algorithms only, and no note.
  const int rc = std::system((std::string(bin) + " predict --coll allreduce --ranks 4 --ranks-per-node 4" +
                              model + " --csv " + (dir / "all.csv").string() + out)
                                 .c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0) << slurp(dir / "err");
  EXPECT_EQ(slurp(dir / "all.csv").find("hier"), std::string::npos) << slurp(dir / "all.csv");
  EXPECT_EQ(slurp(dir / "err").find("note:"), std::string::npos) << slurp(dir / "err");
  fs::remove_all(dir);
}

}  // namespace
