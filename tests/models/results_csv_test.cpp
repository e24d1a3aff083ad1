// Bad results CSVs: each problem gives one line naming the file, the row and
// the problem, and `collbench fit` (run_fit) writes nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/fit_run.hpp"
#include "models/results_csv.hpp"

namespace cb::models {
namespace {

namespace fs = std::filesystem;

const char* kHeader =
    "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
    "time_median_us,wrong\n";

std::string row(const std::string& algo, std::uint64_t bytes, const std::string& time = "10",
                const std::string& coll = "allreduce") {
  return fmt::format("mpi,{},{},fp32,sum,out,2,{},{},10,{},0\n", coll, algo, bytes, bytes / 4,
                     time);
}

std::string good_rows() { return row("mpi", 8) + row("mpi", 64) + row("mpi", 1024); }

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("cb-models-bad-{}-{}", ::testing::UnitTest::GetInstance()->random_seed(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the fit on `text`; returns the error, checks nothing was written.
  std::string fit_error(const std::string& text) {
    const std::string csv = (dir_ / "results.csv").string();
    std::ofstream(csv) << text;
    FitRequest req;
    req.results_csv = csv;
    req.out_dir = (dir_ / "out").string();
    std::string what;
    try {
      run_fit(req);
    } catch (const UsageError& e) {
      what = e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "out")) << "output written despite: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  std::string csv() const { return (dir_ / "results.csv").string(); }

  fs::path dir_;
};

TEST_F(BadInput, MissingColumnsAreNamed) {
  const std::string e = fit_error(
      "transport,collective,algorithm,datatype,op,placement,bytes,count\n"
      "mpi,allreduce,mpi,fp32,sum,out,8,2\n");
  EXPECT_EQ(e, csv() + ":1: missing column(s) 'ranks', 'time_median_us' in the header");
}

TEST_F(BadInput, UnknownAlgorithmNamesRowAndValidNames) {
  const std::string e = fit_error(kHeader + good_rows() + row("bogus", 8));
  EXPECT_NE(e.find(csv() + ":5: unknown algorithm 'bogus' for allreduce"), std::string::npos) << e;
  EXPECT_NE(e.find("baselines mpi, nccl"), std::string::npos) << e;
}

TEST_F(BadInput, FewerThanThreeSizes) {
  const std::string e = fit_error(kHeader + row("mpi", 8) + row("mpi", 64) + row("mpi", 8, "11"));
  EXPECT_EQ(e, csv() +
                   ":2: configuration mpi/allreduce/mpi/fp32/sum/out/p=2 has 2 distinct size(s) "
                   "(rows 2, 3, 4); a fit needs at least 3");
}

TEST_F(BadInput, NonPositiveTimes) {
  EXPECT_EQ(fit_error(kHeader + good_rows() + row("mpi", 4096, "0")),
            csv() + ":5: time_median_us is 0 (times must be > 0)");
  EXPECT_EQ(fit_error(kHeader + good_rows() + row("mpi", 4096, "-2.5")),
            csv() + ":5: time_median_us is -2.5 (times must be > 0)");
}

// The fastest sample (optional column) is read with the row, so a fit that
// reports it (latency-rounds.csv) never re-reads the file.
TEST_F(BadInput, FastestTimeIsCheckedWithTheRow) {
  std::string text(kHeader);
  text.insert(text.size() - 1, ",time_min_us");
  const std::pair<std::uint64_t, const char*> rows[] = {{8, "4"}, {64, "3"}, {1024, "0"}};
  for (const auto& [bytes, fastest] : rows) {
    std::string r = row("mpi", bytes);
    r.insert(r.size() - 1, std::string(",") + fastest);
    text += r;
  }
  EXPECT_EQ(fit_error(text), csv() + ":4: time_min_us is 0 (times must be > 0)");
}

TEST_F(BadInput, UnparsableValuesAndUnknownNames) {
  EXPECT_EQ(fit_error(kHeader + row("mpi", 8, "fast")),
            csv() + ":2: time_median_us 'fast' is not a number");
  const std::string e = fit_error(kHeader + row("mpi", 8, "1", "allreduse"));
  EXPECT_EQ(e.rfind(csv() + ":2: ", 0), 0u) << e;
  EXPECT_NE(e.find("allreduse"), std::string::npos) << e;
}

TEST_F(BadInput, BytesMustMatchCount) {
  // allgather S = count * 4 B * p = 64, not 60.
  EXPECT_EQ(fit_error(std::string(kHeader) + "mpi,allgather,mpi,fp32,,out,4,60,4,10,3,0\n" +
                      good_rows()),
            csv() + ":2: bytes 60 does not match count 4 of fp32 at 4 ranks for allgather "
                    "(expected 64)");
}

// Rows measured under --arrival hold the skew, which no term of the model
// explains: fit refuses them, naming the row and the pattern.
TEST_F(BadInput, RowsUnderAnArrivalPatternAreNotFitted) {
  std::string text(kHeader);
  text.insert(text.size() - 1, ",arrival");
  for (std::uint64_t b : {8u, 64u, 1024u}) {
    std::string r = row("mpi", b);
    r.insert(r.size() - 1, ",one-late:1ms");
    text += r;
  }
  EXPECT_EQ(fit_error(text),
            csv() + ":2: measured under --arrival one-late:1ms: fit models ranks that start "
                    "together (fit a sweep without --arrival; `predict --arrival` prices a "
                    "pattern)");
}

TEST_F(BadInput, EmptyAndHeaderOnlyFiles) {
  EXPECT_EQ(fit_error(""), csv() + ": empty file (no header row)");
  EXPECT_EQ(fit_error(kHeader), csv() + ": no data rows after the header");
}

TEST(ResultsCsv, ReadsValidRowsInSiUnits) {
  const ResultsFile f = parse_results_csv(
      std::string(kHeader) + "mpi,allgather,mpi,fp32,,in,4,64,4,10,3.5,\n" + good_rows() +
          "mpi,allgather,mpi,fp32,,in,4,128,8,10,4,\nmpi,allgather,mpi,fp32,,in,4,256,16,10,5,\n",
      "x.csv");
  ASSERT_EQ(f.rows.size(), 6u);
  const Measurement& m = f.rows[0];
  EXPECT_EQ(m.line, 2u);
  EXPECT_EQ(m.scenario.coll, Collective::allgather);
  EXPECT_TRUE(m.scenario.in_place);
  EXPECT_FALSE(m.has_op);
  EXPECT_EQ(m.entry, nullptr);
  EXPECT_DOUBLE_EQ(m.time_s, 3.5e-6);
  EXPECT_FALSE(m.wrong.has_value());
  EXPECT_EQ(f.rows[1].wrong, 0);
  EXPECT_TRUE(std::isnan(m.time_min_s));  // no time_min_us column
}

// The cell readers every CSV consumer shares (csv_text.hpp): the whole cell
// or nothing.
TEST(CsvCells, WholeReadersTakeTheWholeCellOrNothing) {
  EXPECT_EQ(whole_finite("2.5"), 2.5);
  EXPECT_EQ(whole_finite("-1e3"), -1000.0);
  for (const char* bad : {"", "2.5x", "nan", "inf", "1e999", "x"})
    EXPECT_FALSE(whole_finite(bad).has_value()) << bad;
  EXPECT_EQ(whole_integer("42"), 42);
  EXPECT_EQ(whole_integer("-7"), -7);
  for (const char* bad : {"", "4.0", "1e3", "12a", "99999999999999999999"})
    EXPECT_FALSE(whole_integer(bad).has_value()) << bad;
}

}  // namespace
}  // namespace cb::models
