// The simulator against the measurement (models::sim_agreement) with a fake
// simulate function whose errors are known: each family's median |error| and
// signed median at >= 64 KiB, the rows below 64 KiB kept out of them, one-node
// rows and rows without a two-level calibration left out, and the refusals.
#include "models/sim_agreement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "tests/models/two_level_row.hpp"

namespace cb::models {
namespace {

std::vector<CalibrationInput> two_level_calibration() {
  CalibrationInput c;
  c.params.alpha_s = 1e-3;
  c.params.beta_s_per_B = 1e-8;
  c.params.intra_alpha_s = 1e-4;
  c.params.intra_beta_s_per_B = 1e-9;
  return {c};
}

// Simulates each row at measured * (1 + the error its count encodes): the
// fake knows the measured times through `rows`.
struct Fake {
  const std::vector<Measurement>* rows;
  std::vector<double> errs;  // per row
  int calls = 0;
  double operator()(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
    ++calls;
    EXPECT_TRUE(m.two_level());
    for (std::size_t i = 0; i < rows->size(); ++i)
      if ((*rows)[i].entry == &algo && (*rows)[i].count == params.count &&
          (*rows)[i].scenario.ranks_per_node == params.ranks_per_node)
        return (*rows)[i].time_s * (1 + errs[i]);
    ADD_FAILURE() << "unexpected case";
    return 0;
  }
};

const Grade* find(const SimAgreement& s, std::string_view scope) {
  for (const Grade& g : s.grades)
    if (g.targets->scope == scope) return &g;
  return nullptr;
}

TEST(SimAgreement, KnownErrorsGiveKnownMediansPerFamily) {
  std::vector<Measurement> rows = {
      // hierarchical at >= 64 KiB: +4%, -2%, +30% -> |.| median 4%, signed +4%
      two_level_row("hier2d:ring/ring", 65536, 0.010),
      two_level_row("hier2d:ring/ring", 1 << 20, 0.050),
      two_level_row("hier:tree/ring", 1 << 20, 0.060),
      // below 64 KiB: a 90% error that no large median may see
      two_level_row("hier:tree/ring", 32768, 0.004),
      // flat at >= 64 KiB: -12%, -20% -> 16%, signed -16%
      two_level_row("ring", 65536, 0.011), two_level_row("ring", 1 << 20, 0.040),
      // one node of 6 ranks: no two levels, not simulated
      two_level_row("ring", 1 << 20, 0.030, 6, 6)};
  Fake fake{&rows, {0.04, -0.02, 0.30, 0.90, -0.12, -0.20, 5.0}};
  const SimAgreement s = sim_agreement(
      rows, two_level_calibration(),
      [&](const AlgorithmEntry& a, const CollParams& p, const ModelParams& m) {
        return fake(a, p, m);
      },
      "r.csv");
  EXPECT_EQ(fake.calls, 6);
  ASSERT_EQ(s.rows.size(), 6u);
  EXPECT_TRUE(s.rows[0].hierarchical);
  EXPECT_FALSE(s.rows[4].hierarchical);
  EXPECT_NEAR(s.rows[1].rel_err, -0.02, 1e-12);
  const Grade* hier = find(s, "sim-hierarchical");
  const Grade* flat = find(s, "sim-flat");
  ASSERT_NE(hier, nullptr);
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(hier->params, kBySimulator);
  EXPECT_EQ(hier->rows_large, 3u);
  EXPECT_EQ(hier->rows_small, 1u);
  EXPECT_EQ(hier->rows_all, 4u);
  EXPECT_NEAR(hier->median_large, 0.04, 1e-12);
  EXPECT_NEAR(hier->median_signed_large, 0.04, 1e-12);
  EXPECT_NEAR(hier->median_small, 0.90, 1e-12);
  EXPECT_EQ(flat->rows_large, 2u);
  EXPECT_EQ(flat->rows_small, 0u);
  EXPECT_NEAR(flat->median_large, 0.16, 1e-12);
  EXPECT_NEAR(flat->median_signed_large, -0.16, 1e-12);
  EXPECT_EQ(flat->worst_collective, "allreduce");
  // Both families are held to the 10%.
  EXPECT_EQ(hier->targets->median_abs_err_large, 0.10);
  EXPECT_EQ(flat->targets->median_abs_err_large, 0.10);

  const std::string csv = simulated_csv(s);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "transport,collective,algorithm,datatype,op,placement,ranks,nodes,ranks_per_node,"
            "bytes,count,scope,measured_s,measured_lo_s,measured_hi_s,simulated_s,rel_err");
  EXPECT_NE(csv.find("\nmpi,allreduce,hier2d:ring/ring,fp32,sum,out,6,3,2,65536,16384,"
                     "sim-hierarchical,0.01,"),
            std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
}

TEST(SimAgreement, RefusesRunsWithNothingToCompare) {
  const auto never = [](const AlgorithmEntry&, const CollParams&, const ModelParams&) {
    ADD_FAILURE() << "simulated";
    return 0.0;
  };
  // A flat run: one node per row, or one rank per node.
  const std::vector<Measurement> flat = {two_level_row("ring", 65536, 0.01, 6, 0),
                                         two_level_row("ring", 65536, 0.01, 6, 1)};
  try {
    sim_agreement(flat, two_level_calibration(), never, "flat.csv");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("flat.csv has no schedule row on two levels"),
              std::string::npos)
        << e.what();
  }
  // Two levels, but a one-level calibration (or none).
  const std::vector<Measurement> two = {two_level_row("ring", 65536, 0.01)};
  std::vector<CalibrationInput> one = two_level_calibration();
  one[0].params.intra_alpha_s = 0;
  for (const auto& cal : {one, std::vector<CalibrationInput>{}}) {
    try {
      sim_agreement(two, cal, never, "two.csv");
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("no two-level calibration"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace cb::models
