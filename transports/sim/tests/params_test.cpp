// Parameter spelling (SI numbers and unit forms) and every rejected input:
// each rejection is a cb::UsageError of one line naming the bad value.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "transports/sim/tests/hand_schedules.hpp"
#include "transports/sim/net_params.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

void expect_usage_error(auto&& fn, const std::string& mentions) {
  try {
    fn();
    ADD_FAILURE() << "no UsageError; expected one mentioning '" << mentions << "'";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find(mentions), std::string::npos) << what;
  }
}

TEST(SimParams, SecondsInSiAndUnitForms) {
  EXPECT_DOUBLE_EQ(parse_seconds("3.7e-6", "--alpha"), 3.7e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("3.7us", "--alpha"), 3.7e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("3.7µs", "--alpha"), 3.7e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("250ns", "--alpha"), 250e-9);
  EXPECT_DOUBLE_EQ(parse_seconds("2ms", "--alpha"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_seconds("1s", "--alpha"), 1);
  EXPECT_DOUBLE_EQ(parse_seconds(" 5 us ", "--alpha"), 5e-6);
  for (const char* bad : {"", "us", "fast", "3.7xs", "3.7 u s", "nan", "inf", "1e300", "3601s"})
    expect_usage_error([&] { parse_seconds(bad, "--alpha"); }, "--alpha");
}

TEST(SimParams, SecondsPerByte) {
  EXPECT_DOUBLE_EQ(parse_seconds_per_byte("4.35e-10", "--beta"), 4.35e-10);
  EXPECT_DOUBLE_EQ(parse_seconds_per_byte("0.435ns", "--beta"), 0.435e-9);
  EXPECT_DOUBLE_EQ(parse_seconds_per_byte("0.435ns/B", "--beta"), 0.435e-9);
  expect_usage_error([] { parse_seconds_per_byte("1GB/s", "--beta"); }, "'1GB/s'");
  // Beyond 1 s per byte the sweep's times overflow (1e300 made rows inf).
  expect_usage_error([] { parse_seconds_per_byte("1e300", "--beta"); }, "'1e300'");
}

TEST(SimParams, Bandwidths) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("2.3GB/s", "--bandwidth"), 2.3e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("11 GB/s", "--bandwidth"), 11e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800MB/s", "--bandwidth"), 800e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.5GiB/s", "--bandwidth"), 1.5 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bandwidth("25Gbit/s", "--bandwidth"), 25e9 / 8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gbps", "--bandwidth"), 100e9 / 8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("2.3e9", "--bandwidth"), 2.3e9);
  for (const char* bad : {"", "fast", "0GB/s", "-1GB/s", "2.3XB/s", "2.3GB/h", "1e300", "0.5"})
    expect_usage_error([&] { parse_bandwidth(bad, "--bandwidth"); }, "--bandwidth");
}

TEST(SimParams, ValidateRejectsNonPositiveAlphaBetaAndNegativeRest) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    double NetworkParams::*field;
    double value;
    const char* mentions;
  };
  const Case cases[] = {
      {&NetworkParams::alpha_s, 0, "alpha"},          {&NetworkParams::alpha_s, -1e-6, "alpha"},
      {&NetworkParams::alpha_s, nan, "alpha"},        {&NetworkParams::beta_s_per_B, 0, "beta"},
      {&NetworkParams::beta_s_per_B, -1e-9, "beta"},  {&NetworkParams::gamma_s_per_B, -1e-9, "gamma"},
      {&NetworkParams::overhead_s, -1, "overhead"},   {&NetworkParams::skew_s, -1, "skew"},
      {&NetworkParams::noise_s, -1, "noise"},
  };
  for (const Case& c : cases) {
    NetworkParams net;
    net.*c.field = c.value;
    expect_usage_error([&] { validate(net); }, c.mentions);
  }
  NetworkParams topo;
  topo.ranks_per_node = -2;
  expect_usage_error([&] { validate(topo); }, "-2");
  topo.ranks_per_node = 4;
  topo.intra_beta_s_per_B = 0;
  expect_usage_error([&] { validate(topo); }, "intra-node beta");
  NetworkParams ok;
  ok.gamma_s_per_B = 0;  // free reductions are a legitimate what-if
  EXPECT_NO_THROW(validate(ok));
}

TEST(SimParams, RankCountsOutsideOneToMaxAreRejected) {
  auto src = test::make_source(1, [](ScheduleBuilder&, int, int) {});
  for (int p : {0, -3, kMaxRanks + 1})
    expect_usage_error([&] { simulate(p, src, NetworkParams{}); }, std::to_string(p));
  NetworkParams bad;
  bad.alpha_s = 0;
  expect_usage_error([&] { simulate(1, src, bad); }, "alpha");
}

TEST(SimParams, DescribeShowsUnitsAndRefinements) {
  NetworkParams net;
  EXPECT_EQ(describe(net), "alpha=2us beta=0.1ns/B (10 GB/s) gamma=0.05ns/B (20 GB/s)");
  net.overhead_s = 1e-7;
  net.round_synchronous = true;
  EXPECT_NE(describe(net).find("o=100ns"), std::string::npos) << describe(net);
  EXPECT_NE(describe(net).find("round-synchronous"), std::string::npos);
  net.gamma_s_per_B = 0;  // a fit that found no reduction cost: no "gamma=0/B"
  EXPECT_NE(describe(net).find("gamma=0 (reductions cost nothing)"), std::string::npos)
      << describe(net);
}

}  // namespace
}  // namespace cb::sim
