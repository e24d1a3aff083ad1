// models/latency_rounds.hpp: the testbed report's latency table judged in
// C++ (the smallest size per schedule at small p, the rows off by the factor,
// the medians per round count), which scripts/testbed/report.py only shows.
#include "models/latency_rounds.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"

namespace cb::models {
namespace {

struct Rows {
  std::deque<Measurement> measured;  // stable addresses for LinkRow::row
  std::vector<LinkRow> links;
  void add(Collective c, int p, const std::string& algo, std::uint64_t bytes, double time_s,
           double rounds) {
    Measurement m;
    m.algorithm = algo;
    m.scenario.coll = c;
    m.scenario.p = p;
    m.bytes = bytes;
    m.time_s = time_s;
    m.time_min_s = time_s / 2;  // the fastest sample: half the median
    m.line = measured.size() + 2;  // the header is line 1
    measured.push_back(m);
    LinkRow l;
    l.row = &measured.back();
    l.rounds = rounds;
    links.push_back(l);
  }
  // Records of the CSV without the header.
  std::vector<std::vector<std::string>> csv() const {
    NetworkSetting net;
    net.latency_s = 0.9e-3;
    net.stack_overhead_s = 0.1e-3;  // expected α = 1 ms
    const std::string text = latency_rounds_csv(links, net);
    const auto records = parse_csv(text, "latency-rounds.csv");
    std::vector<std::vector<std::string>> out;
    for (std::size_t i = 1; i < records.size(); ++i) out.push_back(records[i].fields);
    return out;
  }
};

// Columns: kind, ranks, rounds, collective, algorithm, bytes, median_alpha,
// fastest_alpha, off, off_factor, count.
TEST(LatencyRounds, SmallestSizeAtSmallPJudgedAgainstItsRounds) {
  Rows r;
  // ring at p = 2: 8 B takes 2.9 α for 2 rounds (x1.45: not off); 64 B is not the smallest.
  r.add(Collective::allreduce, 2, "ring", 64, 9e-3, 2);
  r.add(Collective::allreduce, 2, "ring", 8, 2.9e-3, 2);
  // rhd at p = 2: 3 α for 2 rounds (x1.5: off, the bound counts).
  r.add(Collective::allreduce, 2, "rhd", 8, 3e-3, 2);
  // direct at p = 3: 0.6 α for 1 round (x0.6 <= 1/1.5: off).
  r.add(Collective::allgather, 3, "direct", 12, 0.6e-3, 1);
  // p = 4 is not shown; no rounds is never off.
  r.add(Collective::allreduce, 4, "ring", 8, 9e-3, 6);
  r.add(Collective::allreduce, 3, "none", 8, 9e-3, 0);
  const auto rows = r.csv();
  ASSERT_EQ(rows.size(), 2u + 4u + 2u);
  EXPECT_EQ(rows[0][0], "ranks");
  EXPECT_EQ(rows[0][1], "2");
  EXPECT_EQ(rows[1][1], "3");
  std::vector<std::vector<std::string>> judged(rows.begin() + 2, rows.begin() + 6);
  // (ranks, collective, algorithm) order.
  EXPECT_EQ(judged[0][4], "rhd");
  EXPECT_EQ(judged[0][8], "1");
  EXPECT_EQ(judged[1][4], "ring");
  EXPECT_EQ(judged[1][5], "8");
  EXPECT_NEAR(std::stod(judged[1][6]), 2.9, 1e-12);
  EXPECT_NEAR(std::stod(judged[1][7]), 1.45, 1e-12);
  EXPECT_EQ(judged[1][8], "0");
  EXPECT_EQ(judged[1][9], "1.5");
  EXPECT_EQ(judged[2][3], "allgather");
  EXPECT_EQ(judged[2][8], "1");
  EXPECT_EQ(judged[3][4], "none");
  EXPECT_EQ(judged[3][8], "0");
  // Medians per round count: p = 2 with 2 rounds over 2.9 and 3; p = 3 with 1 round.
  EXPECT_EQ(rows[6][0], "rounds");
  EXPECT_EQ(rows[6][1], "2");
  EXPECT_EQ(rows[6][2], "2");
  EXPECT_NEAR(std::stod(rows[6][6]), 2.95, 1e-12);
  EXPECT_EQ(rows[6][10], "2");
  EXPECT_EQ(rows[7][1], "3");
  EXPECT_EQ(rows[7][2], "1");
  EXPECT_EQ(rows[7][10], "1");
}

}  // namespace
}  // namespace cb::models
