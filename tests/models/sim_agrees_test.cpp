// `predict`, `map` and `run --transport sim` read the same parameter file and
// must give the same time for every algorithm, with the alpha-beta-gamma
// baseline and with the calibrated terms (--terms range,copy,...), as a user runs them.
// The file is a real calibration of the IPC transport on the development VM
// (calibration-ipc.csv, written by `collbench calibrate --transport ipc`).
//
// Tolerance: predict's CSV carries 6 significant digits (a relative rounding
// of at most 5e-6), the simulator's and the map's full precision; 1e-5
// leaves room for that rounding only. One exception, the baseline's, owned by
// the simulator (transports/sim/fast_path.hpp, async_may_beat_cost): its
// asynchronous engine lets allreduce/dbtree's two pipelined trees and
// reduce_scatter/butterfly's uneven blocks at p not a power of two overlap
// steps that the closed form charges one after another, so there the
// simulator may only be faster than predict, and the map equals the
// simulator. With --terms both price the schedule's steps one way: equal.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;
using cb::test::cells_of;
using cb::test::lines_of;
using cb::test::slurp;

constexpr double kRelTolerance = 1e-5;

// (algorithm, ranks, bytes) -> microseconds, from a CSV with those columns
// and `time_column`, which holds to_us microseconds per unit.
using Times = std::map<std::tuple<std::string, std::string, std::string>, double>;
Times times(const fs::path& csv, const std::string& time_column, double to_us) {
  const std::vector<std::string> lines = lines_of(slurp(csv));
  Times out;
  if (lines.empty()) return out;
  const std::vector<std::string> head = cells_of(lines[0]);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < head.size(); ++i) col[head[i]] = i;
  for (const char* c : {"algorithm", "ranks", "bytes"})
    EXPECT_TRUE(col.count(c)) << csv << ": " << c;
  EXPECT_TRUE(col.count(time_column)) << csv << ": " << time_column;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> r = cells_of(lines[i]);
    const std::string& t = r.at(col[time_column]);
    if (t.empty()) continue;  // a skipped case: no time to compare
    out[{r.at(col["algorithm"]), r.at(col["ranks"]), r.at(col["bytes"])}] = std::stod(t) * to_us;
  }
  return out;
}

const fs::path kIpcCalibration = fs::path(CB_SOURCE_DIR) / "tests/models/calibration-ipc.csv";

void expect_agree(const std::string& terms, const fs::path& cal = kIpcCalibration) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
  const fs::path dir = fs::temp_directory_path() / ("cb-sim-agrees-" + std::to_string(::getpid()) +
                                                    (terms.empty() ? "" : "-t"));
  fs::create_directories(dir);
  const std::string model =
      " --params " + cal.string() + (terms.empty() ? "" : " --terms " + terms);
  const std::string sizes = " -b 1K -e 1M -f 32";  // 1 KiB, 32 KiB, 1 MiB
  for (const char* coll : {"allreduce", "reduce_scatter", "allgather", "alltoall"}) {
    for (const char* p : {"3", "4"}) {
      SCOPED_TRACE(std::string(coll) + " p=" + p + " terms=" + terms);
      const fs::path pred = dir / "predict.csv", sim = dir / "sim.csv", map = dir / "map.csv";
      const std::string log = " >" + (dir / "out").string() + " 2>&1";
      const std::string run_predict = std::string(bin) + " predict --coll " + coll + " --ranks " +
                                      p + sizes + model + " --csv " + pred.string() + log;
      ASSERT_EQ(std::system(run_predict.c_str()), 0) << slurp(dir / "out");
      const std::string run_sim = std::string(bin) + " run --transport sim --coll " + coll +
                                  " --algo all --ranks " + p + sizes + model + " --csv " +
                                  sim.string() + log;
      ASSERT_EQ(std::system(run_sim.c_str()), 0) << slurp(dir / "out");
      const std::string run_map = std::string(bin) + " map --quiet --coll " + coll + " --ranks " +
                                  p + sizes + model + " --csv " + map.string() + log;
      ASSERT_EQ(std::system(run_map.c_str()), 0) << slurp(dir / "out");
      const Times want = times(pred, "predicted_us", 1);
      const Times from_sim = times(sim, "time_median_us", 1);
      const Times from_map = times(map, "time_s", 1e6);
      ASSERT_GE(want.size(), 3u * 5u);  // every algorithm at three sizes
      EXPECT_EQ(from_sim.size(), want.size());
      EXPECT_EQ(from_map.size(), want.size());
      for (const auto& [key, us] : want) {
        const auto& [algo, ranks, bytes] = key;
        SCOPED_TRACE(algo + " " + bytes + " B");
        ASSERT_TRUE(from_sim.count(key) && from_map.count(key));
        const std::string c = coll;
        const bool async_overlaps =
            terms.empty() && ((c == "allreduce" && algo == "dbtree") ||
                              (c == "reduce_scatter" && algo == "butterfly" && ranks == "3"));
        if (async_overlaps) {
          EXPECT_LE(from_sim.at(key), us * (1 + kRelTolerance));
          EXPECT_NEAR(from_map.at(key), from_sim.at(key), kRelTolerance * us);
          continue;
        }
        EXPECT_NEAR(from_sim.at(key), us, kRelTolerance * us);
        EXPECT_NEAR(from_map.at(key), us, kRelTolerance * us);
      }
    }
  }
  fs::remove_all(dir);
}

TEST(SimAgrees, BaselineAlphaBetaGamma) { expect_agree(""); }

TEST(SimAgrees, CalibratedTerms) {
  expect_agree("range,copy,concurrency,overhead,forward,staged");
}

// Term (g), latency off the critical path: the same file with a flight time
// added (0.7 alpha; the file predates the pipelined ping-pong), so every
// algorithm's dependencies are priced by per-rank clocks in all three.
TEST(SimAgrees, CalibratedTermsWithLatencyOffTheCriticalPath) {
  const std::vector<std::string> lines = lines_of(slurp(kIpcCalibration));
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(lines[0].find("flight_s"), std::string::npos);
  const double alpha = std::stod(cells_of(lines[1]).at(0));
  const fs::path cal =
      fs::temp_directory_path() / ("cb-sim-agrees-flight-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(cal);
    out << lines[0] << ",flight_s\n" << lines[1] << "," << 0.7 * alpha << "\n";
  }
  expect_agree("abcdefg", cal);
  fs::remove(cal);
}

// Term (h), incast: the same file with a flight time and an incast of 20%
// of beta at k = 2 and 50% at k = 3 added (receiving only; 30% and 60% for a
// receiver sending too), so the all-to-alls' naive fan-in (and every other
// step receiving from two or more peers) is priced by it in all three.
TEST(SimAgrees, CalibratedTermsWithIncast) {
  const std::vector<std::string> lines = lines_of(slurp(kIpcCalibration));
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(lines[0].find("incast_k"), std::string::npos);
  const double alpha = std::stod(cells_of(lines[1]).at(0));
  const double beta = std::stod(cells_of(lines[1]).at(1));
  const fs::path cal =
      fs::temp_directory_path() / ("cb-sim-agrees-incast-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(cal);
    out << lines[0] << ",flight_s,incast_k,incast_s_per_B,incast_sending_s_per_B\n"
        << lines[1] << "," << 0.7 * alpha << ",2;3," << 0.2 * beta << ";" << 0.5 * beta << ","
        << 0.3 * beta << ";" << 0.6 * beta << "\n";
  }
  expect_agree("abcdefgh", cal);
  fs::remove(cal);
}

// Term (i), the mode probe: the same file with a probe added. predict, map
// and the simulator price no measured row, so there is no row probe and (i)
// changes nothing: all three agree, and with the same times as without it.
TEST(SimAgrees, ModeProbeIsANoOpWithoutAMeasuredRow) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr);
  const std::vector<std::string> lines = lines_of(slurp(kIpcCalibration));
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(lines[0].find("probe_small_s"), std::string::npos);
  const double alpha = std::stod(cells_of(lines[1]).at(0));
  const std::string tag = std::to_string(::getpid());
  const fs::path cal = fs::temp_directory_path() / ("cb-sim-agrees-probe-" + tag + ".csv");
  {
    std::ofstream out(cal);
    out << lines[0] << ",flight_s,probe_small_s,probe_large_s\n"
        << lines[1] << "," << 0.7 * alpha << ",1.9e-07,3.2e-05\n";
  }
  expect_agree("abcdefgi", cal);
  const fs::path with = fs::temp_directory_path() / ("cb-probe-with-" + tag + ".csv");
  const fs::path without = fs::temp_directory_path() / ("cb-probe-without-" + tag + ".csv");
  for (const char* coll : {"allreduce", "alltoall"}) {
    for (const auto& [terms, csv] : {std::pair{"abcdefgi", with}, std::pair{"abcdefg", without}}) {
      const std::string cmd = std::string(bin) + " predict --coll " + coll +
                              " --ranks 4 -b 1K -e 1M -f 32 --params " + cal.string() +
                              " --terms " + terms + " --csv " + csv.string() + " >/dev/null 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    const Times a = times(with, "predicted_us", 1), b = times(without, "predicted_us", 1);
    ASSERT_GE(a.size(), 3u * 4u) << coll;
    EXPECT_EQ(a, b) << coll;
  }
  fs::remove(cal);
  fs::remove(with);
  fs::remove(without);
}

// Under an arrival pattern predict, map and the simulator price with one
// function (transports/sim/arrival_price.hpp): without --terms the
// discrete-event simulation with each rank's clock starting at its arrival,
// with --terms the schedule model's per-rank clocks started there. The step
// times (first arrival to last completion) and the times after the last
// arrival agree for every algorithm of the four collectives, under one late
// rank (the last, and rank 0) and a list of per-rank delays.
void expect_agree_under(const std::string& terms, const fs::path& cal) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr);
  const fs::path dir = fs::temp_directory_path() /
                       ("cb-sim-agrees-arrival-" + std::to_string(::getpid()) + terms);
  fs::create_directories(dir);
  const std::string model =
      " --params " + cal.string() + (terms.empty() ? "" : " --terms " + terms);
  const std::string sizes = " -b 1K -e 1M -f 32";
  const std::map<std::string, std::vector<std::string>> patterns = {
      {"3", {"one-late:20us", "one-late:3us:0", "list:0,5us,30us"}},
      {"4", {"one-late:20us", "list:10us,0,40us,3us"}}};
  for (const char* coll : {"allreduce", "reduce_scatter", "allgather", "alltoall"}) {
    for (const auto& [p, list] : patterns) {
      for (const std::string& pattern : list) {
        SCOPED_TRACE(std::string(coll) + " p=" + p + " " + pattern + " terms=" + terms);
        const fs::path pred = dir / "predict.csv", sim = dir / "sim.csv", map = dir / "map.csv";
        const std::string log = " >" + (dir / "out").string() + " 2>&1";
        const std::string common = std::string(" --coll ") + coll + " --ranks " + p + sizes +
                                   model + " --arrival " + pattern;
        const std::string run_predict =
            std::string(bin) + " predict" + common + " --csv " + pred.string() + log;
        ASSERT_EQ(std::system(run_predict.c_str()), 0) << slurp(dir / "out");
        const std::string run_sim = std::string(bin) + " run --transport sim --algo all" + common +
                                    " --csv " + sim.string() + log;
        ASSERT_EQ(std::system(run_sim.c_str()), 0) << slurp(dir / "out");
        const std::string run_map =
            std::string(bin) + " map --quiet" + common + " --csv " + map.string() + log;
        ASSERT_EQ(std::system(run_map.c_str()), 0) << slurp(dir / "out");
        for (const auto& [want_col, sim_col, map_col] :
             {std::tuple{"predicted_us", "time_median_us", "time_s"},
              std::tuple{"after_last_us", "after_last_median_us", "after_last_s"}}) {
          const Times want = times(pred, want_col, 1);
          const Times from_sim = times(sim, sim_col, 1);
          const Times from_map = times(map, map_col, 1e6);
          ASSERT_GE(want.size(), 3u * 5u);
          EXPECT_EQ(from_sim.size(), want.size());
          EXPECT_EQ(from_map.size(), want.size());
          for (const auto& [key, us] : want) {
            SCOPED_TRACE(std::get<0>(key) + " " + std::get<2>(key) + " B " + want_col);
            ASSERT_TRUE(from_sim.count(key) && from_map.count(key));
            EXPECT_NEAR(from_sim.at(key), us, kRelTolerance * us);
            EXPECT_NEAR(from_map.at(key), us, kRelTolerance * us);
          }
        }
      }
    }
  }
  fs::remove_all(dir);
}

TEST(SimAgrees, UnderArrivalPatternsBaseline) { expect_agree_under("", kIpcCalibration); }

TEST(SimAgrees, UnderArrivalPatternsWithTerms) {
  const std::vector<std::string> lines = lines_of(slurp(kIpcCalibration));
  ASSERT_EQ(lines.size(), 2u);
  const double alpha = std::stod(cells_of(lines[1]).at(0));
  const fs::path cal =
      fs::temp_directory_path() / ("cb-sim-agrees-arrival-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(cal);
    out << lines[0] << ",flight_s\n" << lines[1] << "," << 0.7 * alpha << "\n";
  }
  expect_agree_under("abcdefg", cal);
  expect_agree_under("abcdef", cal);
  fs::remove(cal);
}

// The terms price whole steps; the engine's per-message refinements would
// count the same causes again: refused in one line, nothing written.
TEST(SimAgrees, TermsRefuseTheEngineRefinements) {
  const char* bin = std::getenv("COLLBENCH");
  ASSERT_NE(bin, nullptr);
  const fs::path cal = fs::path(CB_SOURCE_DIR) / "tests/models/calibration-ipc.csv";
  const fs::path dir = fs::temp_directory_path() / ("cb-sim-refuse-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string(bin) +
                          " run --transport sim --coll allreduce --ranks 4 -b 1K " +
                          "-e 1K --params " + cal.string() + " --terms abcd --sim-skew 1us --csv " +
                          (dir / "x.csv").string() + " >" + (dir / "out").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(fs::exists(dir / "x.csv"));
  const std::string out = slurp(dir / "out");
  EXPECT_NE(out.find("--sim-skew"), std::string::npos) << out;
  EXPECT_EQ(lines_of(out).size(), 1u) << out;
  const std::string bad =
      std::string(bin) + " map --coll allreduce --ranks 4 -b 1K -e 1K --params " + cal.string() +
      " --terms abq --csv " + (dir / "m.csv").string() + " >" + (dir / "out").string() + " 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  EXPECT_NE(slurp(dir / "out").find("'abq' is not a term"), std::string::npos) << slurp(dir / "out");
  EXPECT_FALSE(fs::exists(dir / "m.csv"));
  fs::remove_all(dir);
}

}  // namespace
