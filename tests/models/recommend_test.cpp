// `collbench recommend`'s computation (models/recommend.hpp): lines and CSVs
// from measured rows, predicted lines from a calibration, one-line refusals
// of input that cannot answer, and the MPICH selection from the same rule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "models/recommend.hpp"

namespace cb::models {
namespace {

using Json = nlohmann::ordered_json;

const char* kHeader =
    "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us,"
    "ci_lo_us,ci_hi_us\n";

// One row with a CI of +-1% around `us`.
std::string row(const std::string& algo, int p, std::uint64_t bytes, double us,
                const std::string& transport = "mpi") {
  return fmt::format("{},allreduce,{},fp32,sum,out,{},{},{},{},{},{}\n", transport, algo, p, bytes,
                     bytes / 4, us, us * 0.99, us * 1.01);
}

RecommendInput input(const std::string& rows, const std::string& setting = "") {
  return {setting, parse_results_csv(std::string(kHeader) + rows, "sweep.csv", 1)};
}

// naive wins small sizes, ring large ones; mpi (the library) is slower throughout.
std::string crossing_rows(int p) {
  std::string s;
  const std::uint64_t sizes[] = {64, 1024, 16384, 262144};
  const double naive[] = {10, 12, 100, 1600}, ring[] = {40, 44, 60, 400}, mpi[] = {30, 33, 90, 600};
  for (int i = 0; i < 4; ++i)
    s += row("naive", p, sizes[i], naive[i]) + row("ring", p, sizes[i], ring[i]) +
         row("mpi", p, sizes[i], mpi[i]);
  return s;
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Recommend, OneLinePerConfigurationWithRangesAndTheCsvs) {
  const auto recs = recommend({input(crossing_rows(4))}, {}, {});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recommendation_line(recs[0], 100),
            "mpi allreduce fp32 p=4: naive <= 1 KiB · ring >= 16 KiB");
  const std::string csv = recommendations_csv(recs);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "transport,collective,datatype,ranks,from_bytes,to_bytes,algorithm,tied_with,source,"
            "margin,speedup_vs_library,op,placement,setting,model,arrival");
  // naive: margin over mpi (the runner-up) 30/10 - 1 and 33/12 - 1, the smaller;
  // speedup vs mpi the same ratios + 1.
  EXPECT_NE(csv.find("mpi,allreduce,fp32,4,64,1024,naive,,measured,1.75,2.75,sum,out,,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("mpi,allreduce,fp32,4,16384,262144,ring,,measured,0.5,1.5,sum,out,,,\n"),
            std::string::npos)
      << csv;
  const std::string winners = winners_csv(recs);
  EXPECT_NE(winners.find("mpi,allreduce,fp32,4,16384,ring,,measured,60,90,sum,out,,,\n"),
            std::string::npos)
      << winners;
}

TEST(Recommend, PredictsTheRanksNotMeasuredNamingTheModel) {
  RecommendModel m{"cal.csv", "mpi", "", {2e-6, 1e-10, 2e-10}, "median |err| 5.0%"};
  const auto recs = recommend({input(crossing_rows(4))}, {m}, {});
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_FALSE(recs[0].predicted);
  EXPECT_TRUE(recs[1].predicted);
  EXPECT_EQ(recs[1].key.ranks, 8);
  EXPECT_NE(recs[1].model.find("cal.csv, median |err| 5.0%"), std::string::npos);
  EXPECT_NE(recommendation_line(recs[1], 100).find("p=8 (predicted): "), std::string::npos);
  const auto two = recommend({input(crossing_rows(4))}, {m}, {0.05, {16, 32}});
  EXPECT_EQ(two.size(), 3u);
}

TEST(Recommend, RefusesInputThatCannotAnswerInOneLine) {
  // Two algorithms, no size in common.
  const std::string apart = row("naive", 2, 64, 10) + row("ring", 2, 1024, 20);
  const std::string e1 = what([&] { recommend({input(apart)}, {}, {}); });
  EXPECT_NE(e1.find("no size that two of them share"), std::string::npos) << e1;
  // One algorithm only.
  const std::string e2 = what([&] { recommend({input(row("ring", 2, 64, 10))}, {}, {}); });
  EXPECT_NE(e2.find("nothing to compare"), std::string::npos) << e2;
  // A calibration of a transport that was not measured.
  RecommendModel ipc{"ipc.csv", "ipc", "", {2e-6, 1e-10, 2e-10}, ""};
  const std::string e3 = what([&] { recommend({input(crossing_rows(2))}, {ipc}, {}); });
  EXPECT_NE(e3.find("--calibration ipc.csv: calibrates transport ipc"), std::string::npos) << e3;
  for (const std::string& e : {e1, e2, e3}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  // An empty file and garbage are refused by the reader, in one line too.
  EXPECT_THROW(parse_results_csv("", "empty.csv", 1), UsageError);
  EXPECT_THROW(parse_results_csv("\x01\x02 garbage\n", "garbage.csv", 1), UsageError);
}

// Under --arrival the step's time picks the winner, a second line names the
// algorithm least hurt after the last arrival, no model predicts the
// pattern's ranks, and rows without the pattern keep their own line.
TEST(Recommend, ArrivalPatternsGetTheirOwnLineAndTheMostTolerant) {
  const std::string header =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us,"
      "ci_lo_us,ci_hi_us,arrival,after_last_median_us\n";
  std::string rows;
  for (std::uint64_t b : {1024u, 65536u}) {
    // ring: the faster step, but it waits for the late rank to start moving.
    rows += fmt::format("mpi,allreduce,ring,fp32,sum,out,4,{},{},100,99,101,one-late:1ms,80\n", b,
                        b / 4);
    rows += fmt::format("mpi,allreduce,naive,fp32,sum,out,4,{},{},120,119,121,one-late:1ms,20\n",
                        b, b / 4);
    rows += fmt::format("mpi,allreduce,ring,fp32,sum,out,4,{},{},10,9.9,10.1,,\n", b, b / 4);
    rows += fmt::format("mpi,allreduce,naive,fp32,sum,out,4,{},{},30,29,31,none,\n", b, b / 4);
  }
  const RecommendInput in{"", parse_results_csv(header + rows, "arrival.csv", 1)};
  RecommendModel m{"cal.csv", "mpi", "", {2e-6, 1e-10, 2e-10}, ""};
  const auto recs = recommend({in}, {m}, {});
  ASSERT_EQ(recs.size(), 3u);  // no pattern, the pattern, and p = 8 predicted without it
  EXPECT_EQ(recommendation_line(recs[0], 100), "mpi allreduce fp32 p=4: ring 1 KiB-64 KiB");
  EXPECT_EQ(recommendation_line(recs[1], 100),
            "mpi allreduce fp32 under one-late:1ms p=4: ring 1 KiB-64 KiB\n"
            "  most tolerant (time after the last arrival): naive 1 KiB-64 KiB");
  EXPECT_TRUE(recs[2].predicted);
  EXPECT_TRUE(recs[2].key.arrival.empty());
  const AnswerLines a = answer_lines(recs, 100);
  EXPECT_NE(std::find(a.lines.begin(), a.lines.end(),
                      "  most tolerant (time after the last arrival): naive 1 KiB-64 KiB"),
            a.lines.end());
  EXPECT_NE(winners_csv(recs).find(",sum,out,,one-late:1ms,naive\n"), std::string::npos)
      << winners_csv(recs);
}

TEST(Recommend, SettingsKeepTheirOwnLines) {
  const auto recs = recommend({input(crossing_rows(2), "2ms"), input(crossing_rows(2), "500us")},
                              {}, {});
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recommendation_line(recs[0], 100).substr(0, 8), "2ms mpi ");
  EXPECT_EQ(mpi_settings(recs), (std::vector<std::string>{"2ms", "500us"}));
}

Json default_tree() {
  const auto leaf = [](const std::string& a) { return Json{{"algorithm=" + a, Json::object()}}; };
  Json t = Json::object();
  for (const char* c : {"allreduce", "reduce_scatter_block", "allgather", "alltoall"})
    t[std::string("collective=") + c] = {{"comm_type=intra", leaf(std::string("DEFAULT_") + c)}};
  return t;
}

// butterfly (MPICH's recursive doubling) beats mpi at p = 2 beyond the
// noise: chosen over the measured sizes; at p = 4 it only ties mpi: MPICH's
// default stays; naive (no MPICH equivalent) is never named.
TEST(Recommend, SelectionFollowsTheSameRuleWithinWhatMpichCanRun) {
  std::string rows;
  for (std::uint64_t b : {64u, 1024u, 4096u}) {
    rows += row("naive", 2, b, 5) + row("butterfly", 2, b, 10) + row("mpi", 2, b, 20);
    rows += row("naive", 4, b, 5) + row("butterfly", 4, b, 20) + row("mpi", 4, b, 20.2);
  }
  const Json def = default_tree()["collective=allreduce"]["comm_type=intra"];
  const Json out = recommended_selection(default_tree(), {input(rows)}, "", 0.05);
  const Json& yes = out["collective=allreduce"]["comm_type=intra"]["is_commutative=yes"];
  const Json& p2 = yes["comm_size<=2"];
  // Below the smallest measured size (64 B), where mpi is flat from 64 B to
  // 1 KiB: the 64 B decision, so the first bucket covers everything up to 4 KiB.
  EXPECT_EQ(p2.begin().key(), "avg_msg_size<=4096");
  EXPECT_TRUE(p2["avg_msg_size<=4096"].contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"))
      << p2.dump();
  EXPECT_EQ(p2["avg_msg_size=any"], def);
  EXPECT_EQ(yes["comm_size<=3"], def);
  EXPECT_EQ(yes["comm_size<=4"].dump().find("recursive_doubling"), std::string::npos);
  EXPECT_EQ(yes["comm_size=any"], def);
  EXPECT_EQ(out.dump().find("naive"), std::string::npos);
}

// collbench's own file (collbench-selection.json): every registered algorithm
// competes, so naive reaches the PMPI library; the library's own `mpi` stays
// where the best only ties it (p = 3), where it was not measured (p = 5),
// below and above the measured sizes, at comm sizes not measured, and for
// the collectives not measured at all.
TEST(Recommend, CollbenchSelectionNamesAnyAlgorithmAndKeepsTheLibraryOnTies) {
  std::string rows;
  for (std::uint64_t b : {64u, 1024u, 4096u}) {
    rows += row("naive", 2, b, 5) + row("butterfly", 2, b, 10) + row("mpi", 2, b, 20);
    rows += row("naive", 3, b, 19.9) + row("butterfly", 3, b, 25) + row("mpi", 3, b, 20);
    rows += row("naive", 5, b, 5) + row("butterfly", 5, b, 10);
  }
  const Json mpi = Json{{"algorithm=mpi", Json::object()}};
  const Json out = recommended_selection(default_tree(), {input(rows)}, "", 0.05, true);
  const Json& yes = out["collective=allreduce"]["comm_type=intra"]["is_commutative=yes"];
  const Json& p2 = yes["comm_size<=2"];
  // Flat mpi at 64 B and 1 KiB: naive from the smallest grid size on.
  EXPECT_EQ(p2.begin().key(), "avg_msg_size<=4096") << p2.dump();
  EXPECT_EQ(p2["avg_msg_size<=4096"], Json({{"algorithm=naive", Json::object()}})) << p2.dump();
  EXPECT_EQ(p2["avg_msg_size=any"], mpi) << p2.dump();
  EXPECT_EQ(yes["comm_size<=3"], Json({{"avg_msg_size=any", mpi}})) << yes.dump();
  EXPECT_EQ(yes["comm_size<=4"], mpi) << yes.dump();
  EXPECT_EQ(yes["comm_size<=5"], Json({{"avg_msg_size=any", mpi}})) << yes.dump();
  EXPECT_EQ(yes["comm_size=any"], mpi);
  // No MPICH name and no MPICH default anywhere: the file is collbench's.
  EXPECT_EQ(out.dump().find("MPIR_"), std::string::npos) << out.dump();
  EXPECT_EQ(out.dump().find("DEFAULT_"), std::string::npos) << out.dump();
  EXPECT_EQ(out["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=no"]["comm_size=any"],
            mpi);
}

// Below the smallest measured size the decision there stands only where the
// library's time is flat from it to the next measured size: a library that
// rises significantly (a per-byte part that could shrink below S0) or a
// next size closer than 2x keeps the library below the measured span.
TEST(Recommend, BelowTheMeasuredSizesOnlyWhereTheLibraryIsFlat) {
  const Json mpi = Json{{"algorithm=mpi", Json::object()}};
  const Json naive = Json{{"algorithm=naive", Json::object()}};
  const auto p2_of = [](const std::string& rows) {
    const Json out = recommended_selection(default_tree(), {input(rows)}, "", 0.05, true);
    return out["collective=allreduce"]["comm_type=intra"]["is_commutative=yes"]["comm_size<=2"];
  };
  std::string flat, rising, close;
  for (std::uint64_t b : {64u, 256u}) flat += row("naive", 2, b, 5) + row("mpi", 2, b, 20);
  rising = row("naive", 2, 64, 5) + row("mpi", 2, 64, 20) + row("naive", 2, 256, 6) +
           row("mpi", 2, 256, 23);
  close = row("naive", 2, 64, 5) + row("mpi", 2, 64, 20) + row("naive", 2, 96, 5) +
          row("mpi", 2, 96, 20);
  Json p2 = p2_of(flat);
  EXPECT_EQ(p2.begin().key(), "avg_msg_size<=256") << p2.dump();
  EXPECT_EQ(p2.begin().value(), naive) << p2.dump();
  for (const std::string& rows : {rising, close}) {
    p2 = p2_of(rows);
    EXPECT_EQ(p2.begin().key(), "avg_msg_size<=32") << p2.dump();
    EXPECT_EQ(p2.begin().value(), mpi) << p2.dump();
  }
}

// A size where the best candidate only ties the library (one slow sample
// widens its interval) takes the candidate when its median is lower by more
// than the minimum effect and it is significantly faster than the library at
// the measured sizes on both sides; one side alone, or a median within the
// minimum effect, keeps the library there.
TEST(Recommend, ATieBetweenTwoSignificantSizesTakesTheCandidate) {
  const Json mpi = Json{{"algorithm=mpi", Json::object()}};
  const Json naive = Json{{"algorithm=naive", Json::object()}};
  // naive at 1 KiB: median `us`, interval up to 30 (above mpi's 19.8).
  const auto wide = [](double us) {
    return fmt::format("mpi,allreduce,naive,fp32,sum,out,2,1024,256,{},{},30\n", us, us * 0.99);
  };
  const auto at_1k = [&](const std::string& rows) {
    const Json out = recommended_selection(default_tree(), {input(rows)}, "", 0.05, true);
    const Json& p2 = out["collective=allreduce"]["comm_type=intra"]["is_commutative=yes"]["comm_size<=2"];
    // The first bucket whose bound holds 1 KiB ("avg_msg_size<=N", N >= 1024).
    for (const auto& [key, leaf] : p2.items()) {
      const auto le = key.find("<=");
      if (le == std::string::npos || std::stoull(key.substr(le + 2)) >= 1024) return leaf;
    }
    return Json(p2.dump());
  };
  const std::string sides = row("naive", 2, 64, 5) + row("mpi", 2, 64, 20) +
                            row("naive", 2, 16384, 8) + row("mpi", 2, 16384, 30);
  EXPECT_EQ(at_1k(sides + wide(6) + row("mpi", 2, 1024, 20)), naive);
  // Only one side significant (mpi as fast as naive at 16 KiB): the library.
  const std::string one_side = row("naive", 2, 64, 5) + row("mpi", 2, 64, 20) +
                               row("naive", 2, 16384, 8) + row("mpi", 2, 16384, 8.1);
  EXPECT_EQ(at_1k(one_side + wide(6) + row("mpi", 2, 1024, 20)), mpi);
  // The median at 1 KiB within the minimum effect of the library's: the library.
  EXPECT_EQ(at_1k(sides + wide(19.5) + row("mpi", 2, 1024, 20)), mpi);
}

}  // namespace
}  // namespace cb::models
