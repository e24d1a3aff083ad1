// models/repeat_agreement.hpp: one run's measured crossovers as the
// prediction of another's, on hand-made crossovers.csv files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "models/repeat_agreement.hpp"
#include "models/targets.hpp"

namespace cb::models {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader =
    "kind,params,collective,ranks,algo_a,algo_b,measured_crossover_B,cpu_limited,verdict\n";
constexpr const char* kLevel = "calibration+range";

// Run A: three crossovers at params global; at kLevel two counted (one the
// model puts within the factor) and one CPU-limited.
const std::string kRunA = std::string(kHeader) +
                          "pair,global,allreduce,4,ring,tree,1000,,\n"
                          "pair,global,allgather,8,naive,ring,10000,,\n"
                          "pair,global,alltoall,3,bruck,pairwise,500,,\n"
                          "pair,global,allreduce,2,ring,tree,,,\n"
                          "best,global,allreduce,4,,,,,\n" +
                          "pair," + kLevel + ",allreduce,4,ring,tree,1000,0,within\n" +
                          "pair," + kLevel + ",allgather,8,naive,ring,10000,0,above\n" +
                          "pair," + kLevel + ",alltoall,3,bruck,pairwise,500,1,\n";
// Run B: the first 1.9x away (within 2x), the second 5x (more than 4x
// apart), the third not measured to cross, a fourth only here.
const std::string kRunB = std::string(kHeader) +
                          "pair,global,allreduce,4,ring,tree,1900,,\n"
                          "pair,global,allgather,8,naive,ring,50000,,\n"
                          "pair,global,reduce_scatter,6,ring,rhd,70000,,\n" +
                          "pair," + kLevel + ",allreduce,4,ring,tree,1900,0,above\n" +
                          "pair," + kLevel + ",allgather,8,naive,ring,50000,0,within\n" +
                          "pair," + kLevel + ",reduce_scatter,6,ring,rhd,70000,0,within\n";

RunCrossovers read(const std::string& text) { return run_crossovers(CsvTable(text, "x.csv")); }

// The row of `table` with these cells.
const CsvRecord* row_with(const CsvTable& t,
                          const std::vector<std::pair<std::string, std::string>>& is) {
  for (const CsvRecord& r : t.rows()) {
    bool all = true;
    for (const auto& [c, v] : is) all = all && t.cell(r, c) == v;
    if (all) return &r;
  }
  return nullptr;
}

TEST(RepeatAgreement, WithinFactorAndApartByItsSquare) {
  EXPECT_TRUE(within_factor(1000, 2000, 2));
  EXPECT_TRUE(within_factor(2000, 1000, 2));
  EXPECT_FALSE(within_factor(1000, 2001, 2));
  EXPECT_FALSE(within_factor(0, 1000, 2));
  const RunCrossovers a = read(kRunA);
  EXPECT_EQ(a.every.size(), 3u);
  ASSERT_EQ(a.counted.size(), 2u);  // global (none counted) and kLevel
  EXPECT_TRUE(a.counted.at("global").empty());
  EXPECT_EQ(a.counted.at(kLevel).size(), 2u);
  const CsvTable t(std::string(kRepeatAgreementHeader) +
                       repeat_agreement_rows("s", {"A", "B"}, {a, read(kRunB)}, 2.0),
                   "repeat-agreement.csv");
  ASSERT_EQ(t.header().size(), 18u);
  for (const CsvRecord& r : t.rows()) EXPECT_EQ(r.fields.size(), 18u) << r.line;
  // A measured, B predicting: of A's 2 counted, B measures 1 within 2x, the
  // model puts 1 within, the same one.
  const CsvRecord* ab = row_with(t, {{"kind", "agreement"}, {"run_a", "A"}, {"run_b", "B"},
                                 {"params", kLevel}});
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(t.cell(*ab, "crossovers"), "2");
  EXPECT_EQ(t.cell(*ab, "other_run_within"), "1");
  EXPECT_EQ(t.cell(*ab, "model_within"), "1");
  EXPECT_EQ(t.cell(*ab, "both_within"), "1");
  EXPECT_EQ(t.cell(*ab, "factor"), "2");
  // B measured, A predicting: 3 counted, only allreduce within 2x, and the
  // model's two are the others.
  const CsvRecord* ba = row_with(t, {{"kind", "agreement"}, {"run_a", "B"}, {"run_b", "A"},
                                 {"params", kLevel}});
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(t.cell(*ba, "crossovers"), "3");
  EXPECT_EQ(t.cell(*ba, "other_run_within"), "1");
  EXPECT_EQ(t.cell(*ba, "model_within"), "2");
  EXPECT_EQ(t.cell(*ba, "both_within"), "0");
  const CsvRecord* level0 =
      row_with(t, {{"kind", "agreement"}, {"run_a", "A"}, {"params", "global"}});
  ASSERT_NE(level0, nullptr);
  EXPECT_EQ(t.cell(*level0, "crossovers"), "0");
  // One pair more than 4x apart (5x), two measured in only one run.
  const CsvRecord* runs = row_with(t, {{"kind", "runs"}, {"run_a", "A"}, {"run_b", "B"}});
  ASSERT_NE(runs, nullptr);
  EXPECT_EQ(t.cell(*runs, "apart"), "1");
  EXPECT_EQ(t.cell(*runs, "only_in_one"), "2");
  EXPECT_EQ(row_with(t, {{"kind", "runs"}, {"run_a", "B"}}), nullptr);  // once per pair
  const CsvRecord* apart = row_with(t, {{"kind", "apart"}});
  ASSERT_NE(apart, nullptr);
  EXPECT_EQ(t.cell(*apart, "collective"), "allgather");
  EXPECT_EQ(t.cell(*apart, "ranks"), "8");
  EXPECT_EQ(t.cell(*apart, "algo_a"), "naive");
  EXPECT_EQ(t.cell(*apart, "algo_b"), "ring");
  EXPECT_EQ(t.cell(*apart, "crossover_a_B"), "10000");
  EXPECT_EQ(t.cell(*apart, "crossover_b_B"), "50000");
  EXPECT_EQ(t.rows().size(), 2u * 2 + 1 + 1);  // 2 levels x 2 orders, runs, apart
}

TEST(RepeatAgreement, ExactlyFourTimesApartIsNotApart) {
  const std::string a = std::string(kHeader) + "pair,global,allreduce,4,ring,tree,1000,,\n";
  const std::string b = std::string(kHeader) + "pair,global,allreduce,4,ring,tree,4000,,\n";
  const CsvTable t(std::string(kRepeatAgreementHeader) +
                       repeat_agreement_rows("s", {"A", "B"}, {read(a), read(b)}, 2.0),
                   "r.csv");
  const CsvRecord* runs = row_with(t, {{"kind", "runs"}});
  ASSERT_NE(runs, nullptr);
  EXPECT_EQ(t.cell(*runs, "apart"), "0");
  EXPECT_EQ(t.cell(*runs, "only_in_one"), "0");
}

TEST(RepeatAgreement, StudyFoldersAndBadInput) {
  const fs::path d = fs::temp_directory_path() / ("cb-repeat-" + std::to_string(::getpid()));
  fs::remove_all(d);
  const auto put = [&](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  put(d / "one/slow/fit/crossovers.csv", kRunA);
  put(d / "two/slow/fit/crossovers.csv", kRunB);
  put(d / "one/fast/fit/crossovers.csv", kRunA);  // not in run two: not compared
  const std::string csv = repeat_agreement_csv({(d / "one").string(), (d / "two").string()});
  const CsvTable t(csv, "r.csv");
  for (const CsvRecord& r : t.rows()) EXPECT_EQ(t.cell(r, "setting"), "slow") << r.line;
  const CsvRecord* runs = row_with(t, {{"kind", "runs"}});
  ASSERT_NE(runs, nullptr);
  EXPECT_EQ(t.cell(*runs, "run_a"), (d / "one").string());
  EXPECT_EQ(t.cell(*runs, "factor"), "2");
  EXPECT_EQ(kTargetsLinkLimited.crossover_factor, 2.0);
  const auto refused = [](const std::vector<std::string>& runs, const std::string& says) {
    try {
      repeat_agreement_csv(runs);
      ADD_FAILURE() << "accepted " << runs.size() << " runs";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({(d / "one").string()}, "two or more");
  refused({(d / "one").string(), (d / "none").string()}, "is not a folder");
  refused({(d / "one").string(), (d / "one/slow").string()}, "no setting");
  put(d / "two/slow/fit/crossovers.csv", "kind,params\npair,global\n");
  refused({(d / "one").string(), (d / "two").string()}, "no column 'collective'");
  fs::remove_all(d);
}

}  // namespace
}  // namespace cb::models
