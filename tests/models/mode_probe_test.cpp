// Term `probe`, the mode probe: a row is priced with the calibration's message
// latencies scaled by the ratio of its 8-byte probe to the calibration's,
// and what forwarding and incast add per byte by that of the 256 KiB probes
// (models/mode_probe.hpp); without a probe on either side nothing changes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "algorithms/registry.hpp"
#include "models/analysis.hpp"
#include "models/calibration.hpp"
#include "models/mode_probe.hpp"
#include "models/results_csv.hpp"
#include "models/schedule_model.hpp"

namespace cb::models {
namespace {

// Term sets in the old letters, which parse_term_set still reads (the
// names are tested in TermNames).
TermSet use(std::string_view letters) { return parse_term_set(letters); }

namespace fs = std::filesystem;

// Ranks 0 and 1 exchange 1000 bytes in one step; rank 1 then sends 1000
// bytes it received (forwarded) to rank 0, which copies 1000 bytes locally.
ScheduleFeatures exchange_then_forward() {
  ScheduleFeatures f;
  f.working_set_B = {4000, 4000};
  RankStep both;
  both.sends = both.recvs = 1;
  both.out_B = both.in_B = 1000;
  f.steps.push_back({both, both});
  RankStep send, recv;
  send.sends = 1;
  send.out_B = 1000;
  send.forwarded_B = 1000;
  recv.recvs = 1;
  recv.in_B = 1000;
  recv.copied_B = 1000;
  recv.local_ops = 1;
  f.steps.push_back({recv, send});
  return f;
}

ModelTerms calibrated() {
  ModelTerms t;
  t.oneway = {{0, 1e-6, 1e-9}};
  t.exchange = {{0, 2e-6, 3e-9}};
  t.copy = {{8000}, {0.5e-9}};
  t.reduce = {{8000}, {0.5e-9}};
  t.local_op_s = 0.1e-6;
  t.run_s = 0.4e-6;
  t.forward = {{1000}, {2e-9}};
  t.probe = {0.2e-6, 10e-6};
  return t;
}

// The ratios (3x at 8 B, 2x at 256 KiB) change the price by exactly the
// parameters they scale; a pricing that ignored them would equal the
// calibration's own, one that swapped them would miss step 1 by 1 us.
TEST(ModeProbe, RowIsPricedWithTheRatioOfItsProbeToTheCalibrations) {
  const ModelParams base{5e-6, 4e-9, 1e-9};
  const ModelTerms t = calibrated();
  const ScheduleFeatures f = exchange_then_forward();
  const double run = 0.4e-6, step0 = 2e-6 + 3e-9 * 1000;
  // Step 1 takes the sender: its one-way message plus its forwarded bytes
  // (4 us) outlast the receiver's message and copy (2.6 us).
  const double step1 = 1e-6 + 1e-9 * 1000 + 2e-9 * 1000;
  ASSERT_NEAR(priced_seconds(f, base, t, use("abce")), run + step0 + step1, 1e-15);
  const ModeProbe slow{0.6e-6, 20e-6};  // latencies 3x, forwarded bytes 2x
  const double slow_step0 = 3 * 2e-6 + 3e-9 * 1000;
  const double slow_step1 = 3 * 1e-6 + 1e-9 * 1000 + 2 * 2e-9 * 1000;
  EXPECT_NEAR(priced_seconds(f, base, t, use("abcei"), slow), 3 * run + slow_step0 + slow_step1, 1e-15);
  EXPECT_GT(priced_seconds(f, base, t, use("abcei"), slow), 1.5 * priced_seconds(f, base, t, use("abce")));
  // The baseline alpha and beta move too ("i" alone scales the textbook model).
  EXPECT_NEAR(priced_seconds(f, base, t, use("i"), slow), 2 * (3 * 5e-6 + 4e-9 * 1000), 1e-15);
  // The same probe as the calibration's changes nothing.
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, t, use("abcei"), t.probe), priced_seconds(f, base, t, use("abce")));
}

TEST(ModeProbe, WithoutAProbeOnTheRowOrTheCalibrationItIsANoOp) {
  const ModelParams base{5e-6, 4e-9, 1e-9};
  const ModelTerms t = calibrated();
  const ScheduleFeatures f = exchange_then_forward();
  const ModeProbe slow{0.6e-6, 20e-6};
  // No row probe: predict, map and the simulator.
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, t, use("abcei")), priced_seconds(f, base, t, use("abce")));
  // A calibration without one: older files.
  ModelTerms old = t;
  old.probe = {};
  EXPECT_FALSE(old.has(Term::probe));
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, old, use("abcei"), slow), priced_seconds(f, base, old, use("abce")));
  // A half-measured probe is no probe.
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, t, use("abcei"), ModeProbe{0.6e-6, 0}),
                   priced_seconds(f, base, t, use("abce")));
  // Not asked for: the row's probe is ignored.
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, t, use("abce"), slow), priced_seconds(f, base, t, use("abce")));
}

// What scales and what does not (models/mode_probe.hpp).
TEST(ModeProbe, LatenciesAndForwardedBytesScaleApartWireAndLocalWorkStay) {
  const ModelParams base{5e-6, 4e-9, 1e-9};
  ModelTerms t = calibrated();
  t.overhead_s = 0.05e-6;
  t.overhead_measured = true;
  t.flight_s = 0.1e-6;
  t.flight_measured = true;
  t.incast = {{2}, {1e-10}};
  t.incast_sending = {{2}, {2e-10}};
  const InMode m = in_mode(base, t, ModeProbe{0.6e-6, 20e-6});
  EXPECT_DOUBLE_EQ(m.base.alpha_s, 3 * 5e-6);
  EXPECT_DOUBLE_EQ(m.base.beta_s_per_B, 4e-9);
  EXPECT_DOUBLE_EQ(m.base.gamma_s_per_B, 1e-9);
  EXPECT_DOUBLE_EQ(m.terms.oneway.front().alpha_s, 3e-6);
  EXPECT_DOUBLE_EQ(m.terms.oneway.front().beta_s_per_B, 1e-9);
  EXPECT_DOUBLE_EQ(m.terms.exchange.front().beta_s_per_B, 3e-9);
  EXPECT_DOUBLE_EQ(m.terms.exchange.front().alpha_s, 6e-6);
  EXPECT_DOUBLE_EQ(m.terms.run_s, 3 * 0.4e-6);
  EXPECT_DOUBLE_EQ(m.terms.overhead_s, 3 * 0.05e-6);
  EXPECT_DOUBLE_EQ(m.terms.flight_s, 3 * 0.1e-6);
  EXPECT_DOUBLE_EQ(m.terms.forward.s_per_B.front(), 4e-9);
  EXPECT_DOUBLE_EQ(m.terms.incast.s_per_B.front(), 2e-10);
  EXPECT_DOUBLE_EQ(m.terms.incast_sending.s_per_B.front(), 4e-10);
  EXPECT_EQ(m.terms.copy, t.copy);
  EXPECT_EQ(m.terms.reduce, t.reduce);
  EXPECT_DOUBLE_EQ(m.terms.local_op_s, t.local_op_s);
}

// A scratch file removed at the end of the test.
struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name, const std::string& text)
      : path(fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".csv")) {
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove(path); }
};

TEST(ModeProbe, SameModeWithinTheRatioOnBothPartsAndNeverUnmeasured) {
  // collbench calibrate re-measures what the probe after it places in
  // another mode than the calibration's own probe (harness/calibrate/measure.cpp).
  const ModeProbe fast{0.28e-6, 32e-6};
  EXPECT_TRUE(same_mode(fast, fast));
  EXPECT_TRUE(same_mode(fast, {0.40e-6, 45e-6}));   // 1.43x, 1.41x
  EXPECT_TRUE(same_mode({0.40e-6, 45e-6}, fast));   // symmetric
  EXPECT_FALSE(same_mode(fast, {0.72e-6, 88e-6}));  // the slow mode
  EXPECT_FALSE(same_mode(fast, {0.29e-6, 88e-6}));  // forwarding alone slow
  EXPECT_FALSE(same_mode(fast, {0.72e-6, 33e-6}));  // latency alone slow
  EXPECT_FALSE(same_mode(fast, {0.18e-6, 32e-6}));  // faster counts too
  EXPECT_FALSE(same_mode(fast, {}));
  EXPECT_FALSE(same_mode({}, {}));
}

TEST(ModeProbe, CalibrationFileRoundTripsTheProbeAndOldFilesLackIt) {
  Calibration c = fit_calibration({8, 64, 512}, {1e-6, 1.1e-6, 1.5e-6}, {4096, 8192}, {1e-6, 2e-6});
  c.terms.probe = {0.187e-6, 31.882e-6};
  const TempFile with("cb-probe-cal", format_calibration(c));
  EXPECT_EQ(read_calibration(with.path.string()).terms.probe, c.terms.probe);
  EXPECT_TRUE(load_model_terms(with.path.string(), use("i")).has(Term::probe));
  c.terms.probe = {};
  const TempFile without("cb-probe-cal-old", format_calibration(c));
  EXPECT_FALSE(read_calibration(without.path.string()).terms.has(Term::probe));
  try {
    (void)load_model_terms(without.path.string(), use("i"));
    ADD_FAILURE() << "a file without the probe was accepted for --terms i";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("does not hold term probe "), std::string::npos) << e.what();
  }
}

const char* kHeader =
    "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
    "time_median_us,wrong";

TEST(ModeProbe, ResultsCsvReadsTheProbeColumnsInSecondsAndOldFilesWithout) {
  const std::string probed = std::string(kHeader) +
                             ",probe_small_us,probe_large_us\n"
                             "ipc-host,allreduce,ring,fp32,sum,out,2,8,2,10,1.2,0,0.6,90.5\n"
                             "ipc-host,allreduce,ring,fp32,sum,out,2,64,16,10,1.3,0,,\n"
                             "ipc-host,allreduce,ring,fp32,sum,out,2,512,128,10,1.4,0,0.18,12\n";
  const ResultsFile f = parse_results_csv(probed, "p.csv");
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(f.rows[0].probe.small_s, 0.6e-6);
  EXPECT_DOUBLE_EQ(f.rows[0].probe.large_s, 90.5e-6);
  EXPECT_FALSE(f.rows[1].probe.measured());
  EXPECT_DOUBLE_EQ(f.rows[2].probe.large_s, 12e-6);
  const std::string old = std::string(kHeader) +
                          "\nmpi,allreduce,ring,fp32,sum,out,2,8,2,10,1.2,0\n"
                          "mpi,allreduce,ring,fp32,sum,out,2,64,16,10,1.3,0\n"
                          "mpi,allreduce,ring,fp32,sum,out,2,512,128,10,1.4,0\n";
  for (const Measurement& m : parse_results_csv(old, "old.csv").rows) EXPECT_FALSE(m.probe.measured());
}

TEST(ModeProbe, ResultsCsvRefusesHalfAProbeOrANonPositiveOne) {
  const auto error = [](const std::string& cells) {
    const std::string text = std::string(kHeader) + ",probe_small_us,probe_large_us\n" +
                             "ipc-host,allreduce,ring,fp32,sum,out,2,8,2,10,1.2,0," + cells +
                             "\nipc-host,allreduce,ring,fp32,sum,out,2,64,16,10,1.3,0,,\n"
                             "ipc-host,allreduce,ring,fp32,sum,out,2,512,128,10,1.4,0,,\n";
    try {
      (void)parse_results_csv(text, "p.csv");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("0.6,").find("p.csv:2: probe_small_us and probe_large_us must both be set"),
            std::string::npos);
  EXPECT_NE(error("0,12").find("must be > 0"), std::string::npos);
  EXPECT_NE(error("x,12").find("probe_small_us 'x' is not a number"), std::string::npos);
}

// fit's wiring: rows of allreduce ring at p = 2 measured in the slow mode
// and rhd (the same schedule at p = 2) in the calibration's, each timed as
// the model prices it in its mode. With `probe` every row is predicted exactly;
// without it the slow rows are not. Picks price both in one mode, so the
// identical schedules stay a tie.
TEST(ModeProbe, FitPricesEachConfigurationInItsModeAndPicksInOne) {
  ModelTerms t;
  t.oneway = {{0, 1e-6, 1e-9}};
  t.probe = {0.2e-6, 10e-6};
  const ModelParams base{1e-6, 1e-9, 1e-10};
  const ModeProbe slow{0.6e-6, 30e-6};
  ResultsFile f;
  f.file = "probed.csv";
  std::size_t line = 2;
  for (const char* algo : {"ring", "rhd"})
    for (std::uint64_t count : {16u, 64u, 256u}) {  // latency-bound: 64 B..1 KiB
      Measurement m;
      m.line = line++;
      m.transport = "ipc-host";
      m.algorithm = algo;
      m.entry = &find_algorithm(Collective::allreduce, algo);
      m.scenario = {Collective::allreduce, 2, DataType::fp32, ReduceOp::sum, false};
      m.has_op = true;
      m.count = count;
      m.bytes = count * 4;
      m.probe = std::string(algo) == "ring" ? slow : t.probe;
      m.time_s = priced_seconds(features_for(*m.entry, m.scenario, count), base, t, use("ai"), m.probe);
      m.ci_lo_s = m.ci_hi_s = m.time_s;
      f.rows.push_back(m);
    }
  AnalysisOptions opt;
  opt.config_resamples = 10;
  opt.global_resamples = 10;
  opt.calibrations = {{"ipc-host", "cal.csv", base, t}};
  const Analysis a = analyze(f, opt);
  int with = 0, without = 0;
  for (const Prediction& p : a.predictions) {
    SCOPED_TRACE(p.row->algorithm + " " + std::to_string(p.row->bytes) + " " + p.params);
    if (p.params == "calibration+range+probe") {
      ++with;
      EXPECT_NEAR(p.rel_err, 0, 1e-12);
    } else if (p.params == "calibration+range") {
      ++without;
      if (p.row->algorithm == "ring") EXPECT_LT(p.rel_err, -0.3);
      else EXPECT_NEAR(p.rel_err, 0, 1e-12);
    }
  }
  EXPECT_EQ(with, 6);
  EXPECT_EQ(without, 6);
  int picks = 0;
  for (const BestAtSize& b : a.best)
    if (b.params == "calibration+range+probe") {
      ++picks;
      EXPECT_EQ(b.predicted_best, "rhd|ring") << b.bytes;
    }
  EXPECT_EQ(picks, 3);
}

}  // namespace
}  // namespace cb::models
