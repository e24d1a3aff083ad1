// The calibrated model's terms: each priced as documented (schedule_model.hpp),
// the baseline equal to the closed forms, the size ranges found at the
// knees, and the calibration file carrying every term.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string_view>

#include "algorithms/registry.hpp"
#include "models/calibration.hpp"
#include "models/predict.hpp"
#include "models/schedule_model.hpp"
#include "models/terms.hpp"

namespace cb::models {
namespace {

// Term sets in the old letters, which parse_term_set still reads (the
// names are tested in TermNames).
TermSet use(std::string_view letters) { return parse_term_set(letters); }

// Terms are named; the letters they had before (a..j, the order they were
// added in) still read as the same sets, so old flags and settings work.
TEST(TermNames, NamesAndOldLettersParseToTheSameSet) {
  EXPECT_EQ(parse_term_set("abg"), parse_term_set("range,copy,flight"));
  EXPECT_EQ(parse_term_set("abg"), parse_term_set("flight+copy+range"));
  EXPECT_EQ(parse_term_set("abcdefghij"), ablation_levels().back());
  EXPECT_EQ(parse_term_set(""), TermSet{});
  EXPECT_EQ(term_set_text(parse_term_set("gba")), "range+copy+flight");
  EXPECT_EQ(term_set_text(TermSet{}), "");
  for (const TermInfo& info : kTerms) {
    const TermSet one{info.term};
    EXPECT_EQ(parse_term_set(info.name), one) << info.name;
    EXPECT_EQ(parse_term_set(std::string(1, info.letter)), one) << info.letter;
    EXPECT_EQ(term_set_text(one), info.name);
  }
}

// One table: every Term has its row, in Term order (the ablations' order),
// with a distinct name and letter.
TEST(TermNames, TheTableHasOneRowPerTermInOrder) {
  std::set<std::string_view> names;
  std::set<char> letters;
  for (std::size_t i = 0; i < std::size(kTerms); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kTerms[i].term), i);
    EXPECT_EQ(&term_info(kTerms[i].term), &kTerms[i]);
    EXPECT_TRUE(names.insert(kTerms[i].name).second) << kTerms[i].name;
    EXPECT_TRUE(letters.insert(kTerms[i].letter).second) << kTerms[i].letter;
    EXPECT_FALSE(kTerms[i].prices.empty());
    EXPECT_FALSE(kTerms[i].fitted_from.empty());
  }
  const std::vector<TermSet> levels = ablation_levels();
  ASSERT_EQ(levels.size(), std::size(kTerms) + 1);
  EXPECT_TRUE(levels.front().empty());
  EXPECT_EQ(term_set_text(levels[2]), "range+copy");
}

// Bad text: one line naming the bad part and what is accepted.
TEST(TermNames, BadTextIsRefusedNamingThePart) {
  const auto reason = [](std::string_view text) {
    try {
      (void)parse_term_set(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reason("range,bogus").rfind("'bogus' is not a term (accepted: names of range, ", 0),
            0u);
  EXPECT_NE(reason("range,copy,range").find("'range' is named twice"), std::string::npos);
  EXPECT_NE(reason("aba").find("'a' is named twice"), std::string::npos);
  EXPECT_NE(reason("ab,range").find("'ab' is not a term"), std::string::npos);
  EXPECT_NE(reason("range,").find("ends in a separator"), std::string::npos);
  EXPECT_NE(reason(",range").find("'' is not a term"), std::string::npos);
  for (const char* bad : {"range,bogus", "aba", "range,"})
    EXPECT_EQ(reason(bad).find('\n'), std::string::npos) << bad;
}

TEST(Terms, WithoutTermsTheScheduleModelIsTheClosedForm) {
  const ModelParams m{2e-6, 1e-10, 3e-10};
  const ModelTerms none;
  for (const AlgorithmEntry* e : all_algorithms())
    for (int p : {2, 3, 4})
      for (std::uint64_t count : {1u, 7u, 1000u}) {
        const Scenario s{e->coll, p, DataType::fp32, ReduceOp::sum, false};
        EXPECT_NEAR(priced_seconds(features_for(*e, s, count), m, none, use("abcd")),
                    predict_seconds(*e, s, count, m), 1e-15)
            << e->name << " p=" << p << " count=" << count;
      }
}

ScheduleFeatures two_steps() {
  ScheduleFeatures f;
  f.working_set_B = {4000, 4000, 4000};
  // Step 0: rank 0 sends two 1000-byte messages, ranks 1 and 2 receive one each.
  f.steps.push_back({{2, 0, 2000, 0, 0, 0}, {0, 1, 0, 1000, 0, 0}, {0, 1, 0, 1000, 0, 0}});
  // Step 1: ranks 0 and 1 exchange 500 bytes, reduce them and copy 100 bytes.
  f.steps.push_back({{1, 1, 500, 500, 500, 100, 2}, {1, 1, 500, 500, 500, 100, 2}, {}});
  return f;
}

ModelTerms some_terms() {
  ModelTerms t;
  t.oneway = {{0, 1e-6, 1e-9}, {1000, 2e-6, 0.5e-9}};
  t.exchange = {{0, 3e-6, 2e-9}};
  t.copy = {{1000, 100000}, {0.1e-9, 0.1e-9}};
  t.reduce = {{1000, 100000}, {0.2e-9, 0.2e-9}};
  t.overhead_s = 0.1e-6;
  t.overhead_measured = true;
  t.run_s = 0.7e-6;
  t.local_op_s = 0.01e-6;
  return t;
}

TEST(Terms, EachTermPricesWhatItSays) {
  const ModelParams base{5e-6, 4e-9, 1e-9};
  const ScheduleFeatures f = two_steps();
  const ModelTerms t = some_terms();
  // Baseline: per step the largest count, bytes and reduced bytes, each priced alone.
  EXPECT_NEAR(priced_seconds(f, base, t, use("")),
              (2 * 5e-6 + 2000 * 4e-9) + (5e-6 + 500 * 4e-9 + 500 * 1e-9), 1e-15);
  // (a): rank 0's messages are 1000 B (second range); step 1's 500 B (first range).
  const double step0_a = 2 * 2e-6 + 0.5e-9 * 2000;
  // The run's fixed cost comes once with (a).
  EXPECT_NEAR(priced_seconds(f, base, t, use("a")),
              0.7e-6 + step0_a + (1e-6 + 1e-9 * 500 + 1e-9 * 500), 1e-15);
  // (b): the reduce at the working set's cost, the copy priced, 2 local ops.
  const double local_b = 0.2e-9 * 500 + 0.1e-9 * 100 + 2 * 0.01e-6;
  EXPECT_NEAR(priced_seconds(f, base, t, use("ab")), 0.7e-6 + step0_a + (1e-6 + 1e-9 * 500 + local_b),
              1e-15);
  // (c): step 1 sends and receives at once: the exchange range.
  EXPECT_NEAR(priced_seconds(f, base, t, use("abc")), 0.7e-6 + step0_a + (3e-6 + 2e-9 * 500 + local_b),
              1e-15);
  // (d): rank 0's second message costs o, not alpha.
  EXPECT_NEAR(priced_seconds(f, base, t, use("abcd")),
              0.7e-6 + (2e-6 + 0.1e-6 + 0.5e-9 * 2000) + (3e-6 + 2e-9 * 500 + local_b), 1e-15);
  // concurrency with a reducing exchange measured: step 1 reduce-receives all it
  // receives, so that range prices wire and reduce together.
  ScheduleFeatures g = f;
  for (RankStep& x : g.steps[1]) x.recv_reduced_B = x.reduced_B;
  ModelTerms tr = t;
  tr.exchange_reduce = {{0, 4e-6, 3e-9}};
  EXPECT_NEAR(priced_seconds(g, base, tr, use("abc")),
              0.7e-6 + step0_a + (4e-6 + 3e-9 * 500 + 0.1e-9 * 100 + 2 * 0.01e-6), 1e-15);
  EXPECT_DOUBLE_EQ(priced_seconds(g, base, t, use("abc")), priced_seconds(f, base, t, use("abc")));
  // A term the calibration lacks is left out.
  ModelTerms no_c = t;
  no_c.exchange.clear();
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, no_c, use("abc")), priced_seconds(f, base, t, use("ab")));
}

// (e): only bytes a rank wrote in an earlier step count as forwarded. At
// p = 2, ps all-gather's root receives block 1 and copies block 0 in step 0,
// then sends the whole output it just wrote; the other rank sends its input.
TEST(Terms, ForwardingPricesOnlyBytesTheSenderWroteBefore) {
  const std::uint64_t n = 1000;
  const Scenario s{Collective::allgather, 2, DataType::fp32, ReduceOp::sum, false};
  const ScheduleFeatures ps = features_for(find_algorithm(Collective::allgather, "ps"), s, n);
  ASSERT_EQ(ps.steps.size(), 2u);
  EXPECT_EQ(ps.steps[0][1].forwarded_B, 0);
  EXPECT_EQ(ps.steps[1][0].out_B, 2 * n * 4);
  EXPECT_EQ(ps.steps[1][0].forwarded_B, 2 * n * 4);
  // Ring all-gather at p = 2 sends each rank's own input once: nothing forwarded.
  const ScheduleFeatures ring = features_for(find_algorithm(Collective::allgather, "ring"), s, n);
  for (const auto& step : ring.steps)
    for (const RankStep& x : step) EXPECT_EQ(x.forwarded_B, 0);
  // Priced: the forwarded bytes' extra per byte at the message size, on the
  // sender's step; nothing without (e) or without its measurement.
  ModelTerms t = some_terms();
  const ModelParams base{5e-6, 4e-9, 1e-9};
  const double without = priced_seconds(ps, base, t, use("abcde"));
  EXPECT_DOUBLE_EQ(without, priced_seconds(ps, base, t, use("abcd")));
  t.forward = {{8, 1 << 20}, {1e-9, 1e-9}};
  EXPECT_NEAR(priced_seconds(ps, base, t, use("abcde")) - without, 1e-9 * 2 * n * 4, 1e-15);
  EXPECT_DOUBLE_EQ(priced_seconds(ring, base, t, use("abcde")), priced_seconds(ring, base, t, use("abcd")));
  // The relay's excess over the ping-pong per byte, never negative.
  Calibration c;
  c.pingpong_sizes_B = {8, 16, 32, 64, 128, 256};
  const std::vector<double> pp = {1e-6, 1.01e-6, 1.02e-6, 1.05e-6, 1.1e-6, 1.2e-6};
  std::vector<double> relay = pp;
  relay.front() += 0.8e-6;       // 0.1 us per byte at 8 B
  relay.back() += 256 * 1e-9;    // 1 ns per byte at 256 B
  relay[2] -= 0.5e-6;            // faster than the ping-pong: no extra
  const auto fit = [&](const std::vector<double>& r) {
    fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
              {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-6, 1.2e-6, 1.6e-6, 2.4e-6}, {1, 2, 4},
              {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp, r});
  };
  fit(relay);
  ASSERT_TRUE(c.terms.has(Term::forward));
  ASSERT_EQ(c.terms.forward.size_B, c.pingpong_sizes_B);
  EXPECT_NEAR(c.terms.forward.s_per_B[0], 0.1e-6, 1e-15);
  EXPECT_EQ(c.terms.forward.s_per_B[2], 0);
  EXPECT_NEAR(c.terms.forward.s_per_B[5], 1e-9, 1e-15);
  fit({});  // calibrated again without the relay: no term (e)
  EXPECT_FALSE(c.terms.has(Term::forward));
}

// (f), staged: ring reduce-scatter at p = 2 out of place receives into
// scratch, copies its own half into the output and reduces the scratch into
// it; with (f), that step is one staged exchange.
TEST(Terms, StagedReduceIsPricedAsTheStagedExchange) {
  const std::uint64_t n = 1000;
  const Scenario s{Collective::reduce_scatter, 2, DataType::fp32, ReduceOp::sum, false};
  const ScheduleFeatures f = features_for(find_algorithm(Collective::reduce_scatter, "ring"), s, n);
  ASSERT_EQ(f.steps.size(), 1u);
  for (const RankStep& x : f.steps[0]) {
    EXPECT_EQ(x.in_B, n * 4);
    EXPECT_EQ(x.staged_reduced_B, n * 4);
    EXPECT_EQ(x.staged_copied_B, n * 4);
    EXPECT_EQ(x.staged_ops, 2);
  }
  const ModelParams base{5e-6, 4e-9, 1e-9};
  ModelTerms t = some_terms();
  t.exchange_staged = {{0, 4e-6, 3e-9}};
  EXPECT_NEAR(priced_seconds(f, base, t, use("abcf")), 0.7e-6 + 4e-6 + 3e-9 * n * 4, 1e-15);
  EXPECT_DOUBLE_EQ(priced_seconds(f, base, t, use("abc")), priced_seconds(f, base, some_terms(), use("abc")));
  EXPECT_NE(priced_seconds(f, base, t, use("abc")), priced_seconds(f, base, t, use("abcf")));
}

TEST(Terms, RangesSplitAtTheKnee) {
  std::vector<double> n, s;
  for (double b = 8; b <= (16 << 20); b *= 2) {
    n.push_back(b);
    s.push_back(b < 65536 ? 0.5e-6 + b * 1e-10 : 8e-6 + b * 2e-10);
  }
  const auto r = fit_ranges(n, s);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].from_B, 0);
  EXPECT_EQ(r[1].from_B, 65536);
  EXPECT_NEAR(r[1].beta_s_per_B / 2e-10, 1, 0.01);
  EXPECT_NEAR(r[0].alpha_s / 0.5e-6, 1, 0.05);
  EXPECT_EQ(range_for(r, 100)->from_B, 0);
  EXPECT_EQ(range_for(r, 1e6)->from_B, 65536);
  EXPECT_EQ(parse_ranges(format_ranges(r)), r);
  EXPECT_THROW(parse_ranges("1:2"), std::invalid_argument);
}

TEST(Terms, CurveInterpolatesInLogSizeAndHoldsBeyond) {
  const Curve c{{1000, 100000}, {1e-10, 3e-10}};
  EXPECT_DOUBLE_EQ(c.at(10), 1e-10);
  EXPECT_DOUBLE_EQ(c.at(1e6), 3e-10);
  EXPECT_NEAR(c.at(10000), 2e-10, 1e-22);
}

TEST(Terms, CalibrationFileCarriesEveryTerm) {
  Calibration c;
  c.params = {1e-6, 1e-10, 2e-10};
  c.transport = "ipc-host";
  c.pingpong_sizes_B = {8, 16, 32, 64, 128, 256};
  const std::vector<double> pp = {1e-6, 1.01e-6, 1.02e-6, 1.05e-6, 1.1e-6, 1.2e-6};
  fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
            {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-6, 1.2e-6, 1.6e-6, 2.4e-6}, {1, 2, 4},
            {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp});
  EXPECT_NEAR(c.terms.overhead_s, 0.2e-6, 1e-9);
  EXPECT_NEAR(c.terms.local_op_s, 0.05e-6, 1e-9);
  EXPECT_DOUBLE_EQ(c.terms.run_s, 0.3e-6);
  EXPECT_EQ(c.terms.copy.size_B, (std::vector<double>{8192, 16384}));
  for (Term t : {Term::range, Term::copy, Term::concurrency, Term::overhead})
    EXPECT_TRUE(c.terms.has(t)) << term_info(t).name;
  const auto path = std::filesystem::temp_directory_path() / "cb-terms-calibration.csv";
  std::ofstream(path) << format_calibration(c);
  const Calibration back = read_calibration(path.string());
  EXPECT_EQ(back.transport, "ipc-host");
  EXPECT_EQ(back.params, c.params);
  EXPECT_EQ(back.terms.oneway, c.terms.oneway);
  EXPECT_EQ(back.terms.exchange, c.terms.exchange);
  EXPECT_FALSE(back.terms.exchange_reduce.empty());
  EXPECT_EQ(back.terms.exchange_reduce, c.terms.exchange_reduce);
  EXPECT_EQ(back.terms.copy, c.terms.copy);
  EXPECT_EQ(back.terms.reduce, c.terms.reduce);
  EXPECT_DOUBLE_EQ(back.terms.overhead_s, c.terms.overhead_s);
  EXPECT_DOUBLE_EQ(back.terms.run_s, c.terms.run_s);
  EXPECT_DOUBLE_EQ(back.terms.local_op_s, c.terms.local_op_s);
  EXPECT_EQ(load_model_terms(path.string()), back.terms);
  // (e) too, once the relay was measured.
  Calibration relayed = c;
  fit_terms(relayed, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
            {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-6, 1.2e-6, 1.6e-6, 2.4e-6}, {1, 2, 4},
            {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp, {2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6}});
  std::ofstream(path) << format_calibration(relayed);
  EXPECT_TRUE(read_calibration(path.string()).terms.has(Term::forward));
  EXPECT_EQ(read_calibration(path.string()).terms.forward, relayed.terms.forward);
  EXPECT_EQ(read_calibration(path.string()).relay_s, relayed.relay_s);
  std::filesystem::remove(path);
  // A file from before the terms: the baseline only.
  Calibration old;
  old.params = c.params;
  std::ofstream(path) << format_calibration(old);
  for (Term t : {Term::range, Term::copy, Term::concurrency, Term::overhead})
    EXPECT_FALSE(load_model_terms(path.string()).has(t)) << term_info(t).name;
  std::filesystem::remove(path);
}

// (g): with alpha-only parameters, binomial all-reduce at p = 3 (rank 1
// sends to 0 in round 0, rank 2 to 0 in round 1, then 0 to 2 and 0 to 1)
// prices its four rounds as two latencies in flight: rank 2's message flies
// while rank 0 waits for rank 1's, and the broadcast's second message leaves
// as soon as the first is out. Each message costs its sender alpha - F.
TEST(Terms, LatencyOffTheCriticalPathFollowsTheDependencies) {
  const double alpha = 1e-3, flight = 0.9e-3;
  const ModelParams base{alpha, 0, 0};
  ModelTerms t;
  t.flight_s = flight;
  t.flight_measured = true;
  const Scenario s3{Collective::allreduce, 3, DataType::fp32, ReduceOp::sum, false};
  const ScheduleFeatures tree = features_for(find_algorithm(Collective::allreduce, "tree"), s3, 1);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("")), 4 * alpha, 1e-15);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("g")), 2 * flight + 4 * (alpha - flight), 1e-15);
  // Ring's four steps are one dependency chain: four latencies either way.
  const ScheduleFeatures ring = features_for(find_algorithm(Collective::allreduce, "ring"), s3, 1);
  EXPECT_NEAR(priced_seconds(ring, base, t, use("g")), 4 * alpha, 1e-15);
  // With (d), the overhead o per extra message in a step is unchanged; F = 0
  // (steps serialize) gives the step-synchronous price back.
  t.overhead_s = 1e-5;
  t.overhead_measured = true;
  EXPECT_NEAR(priced_seconds(ring, base, t, use("dg")), priced_seconds(ring, base, t, use("d")), 1e-15);
  ModelTerms serial = t;
  serial.flight_s = 0;
  EXPECT_NEAR(priced_seconds(tree, base, serial, use("g")), 4 * alpha, 1e-15);
  // Without the measurement the letter prices nothing.
  ModelTerms unmeasured = t;
  unmeasured.flight_measured = false;
  EXPECT_DOUBLE_EQ(priced_seconds(tree, base, unmeasured, use("dg")),
                   priced_seconds(tree, base, unmeasured, use("d")));
}

// (g) at p = 2: every algorithm is one exchange or a chain of steps between
// the two ranks, so per-rank clocks change nothing, bytes and reduces
// included. At larger p, without local work, the dependency price is never
// above the step-synchronous one (each rank's step ends no later than the
// slowest rank's would), with every message term in use, except where a
// message that flies early shares its receiver's link with what that
// receiver is still receiving: the fold of butterfly and rhd at p = 3 and 5
// (LatencyOffTheCriticalPathSharesTheReceiversLink prices that case). (With
// local work it can be above too: a receiver reduces only after its data
// arrived, where the step-synchronous price overlaps that reduce with a
// slower rank's message.)
TEST(Terms, LatencyOffTheCriticalPathLeavesChainsAloneAndNeverAddsTime) {
  const ModelParams base{1e-3, 1e-8, 1e-9};
  ModelTerms t;
  t.flight_s = 0.9e-3;
  t.flight_measured = true;
  for (const AlgorithmEntry* e : all_algorithms())
    for (std::uint64_t count : {1u, 1000u}) {
      const Scenario s{e->coll, 2, DataType::fp32, ReduceOp::sum, false};
      const ScheduleFeatures f = features_for(*e, s, count);
      EXPECT_NEAR(priced_seconds(f, base, t, use("g")), priced_seconds(f, base, t, use("")), 1e-12)
          << e->name << " count=" << count;
    }
  const ModelParams no_local{1e-3, 1e-8, 0};
  ModelTerms all = some_terms();
  all.forward = {{8, 1 << 20}, {1e-10, 1e-10}};
  all.flight_s = 0.8e-6;
  all.flight_measured = true;
  for (const AlgorithmEntry* e : all_algorithms())
    for (int p : {3, 4, 5, 8})
      for (std::uint64_t count : {1u, 1000u}) {
        const Scenario s{e->coll, p, DataType::fp32, ReduceOp::sum, false};
        const ScheduleFeatures f = features_for(*e, s, count);
        const double with = priced_seconds(f, no_local, all, use("acdeg"));
        const double without = priced_seconds(f, no_local, all, use("acde"));
        const bool folds = (p == 3 || p == 5) && (e->name == "butterfly" || e->name == "rhd");
        if (!folds) {
          EXPECT_LE(with, without * (1 + 1e-12)) << e->name << " p=" << p << " count=" << count;
        }
        EXPECT_GT(with, 0) << e->name << " p=" << p;
      }
}

// (g) shares a receiver's link between the messages that cross it at once.
// Butterfly all-reduce at p = 3: rank 1 folds its vector into rank 0 while
// rank 2, with nothing to wait for, sends its exchange half to rank 0 at
// once; the two share rank 0's link and both arrive after 2 transfers, rank 0
// sends its half to rank 2 only then (3) and the unfold to rank 1 after it
// (4): 4 transfers, not the 3 steps of the step-synchronous price. Binomial
// all-reduce at p = 3 (unsegmented): the leaves 1 and 2 both send to rank 0
// at once (2 transfers, shared), and rank 0's second reduce step then has
// nothing left to receive, so it costs no link time: 2 + the broadcast's 2.
TEST(Terms, LatencyOffTheCriticalPathSharesTheReceiversLink) {
  const double alpha = 1e-6, beta = 1e-8;
  const ModelParams base{alpha, beta, 0};
  ModelTerms t;
  t.flight_s = 0;
  t.flight_measured = true;
  const std::uint64_t count = 1u << 20;
  const double transfer = beta * 4.0 * count;  // one whole fp32 vector
  const Scenario s{Collective::allreduce, 3, DataType::fp32, ReduceOp::sum, false};
  const ScheduleFeatures bfly = features_for(find_algorithm(Collective::allreduce, "butterfly"), s, count);
  EXPECT_NEAR(priced_seconds(bfly, base, t, use("")), 3 * transfer, 4 * alpha);
  EXPECT_NEAR(priced_seconds(bfly, base, t, use("g")), 4 * transfer, 4 * alpha);
  const ScheduleFeatures tree = features_for(find_algorithm(Collective::allreduce, "tree"), s, count);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("")), 4 * transfer, 5 * alpha);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("g")), 4 * transfer, 5 * alpha);
  // Messages one after another on a link are priced as before: ring.
  const ScheduleFeatures ring = features_for(find_algorithm(Collective::allreduce, "ring"), s, count);
  EXPECT_NEAR(priced_seconds(ring, base, t, use("g")), priced_seconds(ring, base, t, use("")), 1e-12);
}

// `use` names `term`, which the calibration file at `path` lacks: refused in
// one line that names the term.
void expect_term_refused(const std::filesystem::path& path, const char* letters, Term term) {
  const std::string name(term_info(term).name);
  try {
    load_model_terms(path.string(), use(letters));
    ADD_FAILURE() << "term " << name << " accepted from a file without it";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("does not hold term " + name + " "), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// (g)'s calibration: the pipelined ping-pong takes 2 alpha plus the
// sender's time per message, the rest of alpha is in flight; the file
// carries it, and a file without it refuses the letter in one line.
TEST(Terms, FlightIsCalibratedAndRoundTrips) {
  Calibration c;
  c.params = {1e-3, 1e-8, 2e-10};
  c.pingpong_sizes_B = {8, 16, 32, 64};
  const std::vector<double> pp = {1e-3, 1.01e-3, 1.02e-3, 1.05e-3};
  fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
                {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-3, 1.01e-3, 1.03e-3, 1.07e-3}, {1, 2, 4},
                {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp});
  EXPECT_FALSE(c.terms.has(Term::flight));
  fit_flight(c, 2e-3 + 1e-5);
  ASSERT_TRUE(c.terms.has(Term::flight));
  EXPECT_NEAR(c.terms.flight_s, 1e-3 - 1e-5, 1e-15);
  // Steps that serialize (3 alpha) leave nothing in flight; noise below
  // 2 alpha leaves all of it, never more.
  Calibration serial = c;
  fit_flight(serial, 3.2e-3);
  EXPECT_EQ(serial.terms.flight_s, 0);
  EXPECT_TRUE(serial.terms.has(Term::flight));
  Calibration fast = c;
  fit_flight(fast, 1.9e-3);
  EXPECT_DOUBLE_EQ(fast.terms.flight_s, 1e-3);
  const auto path = std::filesystem::temp_directory_path() / "cb-terms-flight.csv";
  std::ofstream(path) << format_calibration(c);
  const Calibration back = read_calibration(path.string());
  EXPECT_DOUBLE_EQ(back.pipelined_s, c.pipelined_s);
  EXPECT_DOUBLE_EQ(back.terms.flight_s, c.terms.flight_s);
  EXPECT_EQ(back.terms, c.terms);
  EXPECT_TRUE(load_model_terms(path.string(), use("abcdg")).has(Term::flight));
  // The same file from before (g): every other term, and the letter refused.
  Calibration old = c;
  old.pipelined_s = 0;
  old.terms.flight_measured = false;
  old.terms.flight_s = 0;
  std::ofstream(path) << format_calibration(old);
  EXPECT_TRUE(load_model_terms(path.string(), use("abcd")).has(Term::overhead));
  expect_term_refused(path, "abcdg", Term::flight);
  std::filesystem::remove(path);
}

// (h)'s calibration: the fan-in's (and the k-way exchange's) time beyond
// one ping-pong and the other k - 1 messages' bytes at the ping-pong's beta,
// per received byte, by k (median over sizes, never below 0); the file
// carries it, a file without it (calibrate on 2 ranks, or older) refuses
// the letter.
TEST(Terms, IncastIsCalibratedAndRoundTrips) {
  Calibration c;
  const double beta = 1e-8;
  c.params = {1e-3, beta, 2e-10};
  c.pingpong_sizes_B = {8, 262144, 524288};
  const std::vector<double> pp = {1e-3, 1e-3 + 262144 * beta, 1e-3 + 524288 * beta};
  fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
                {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-3, 1.01e-3, 1.03e-3, 1.07e-3}, {1, 2, 4},
                {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp});
  EXPECT_FALSE(c.terms.has(Term::incast));
  // Fan-in: k = 2 10% of beta extra per received byte; k = 3 faster than
  // the ping-pong predicts (no term: 0). Exchange: 20% and 30%. Sizes the
  // ping-pong lacks (1 MiB here) are skipped.
  // The other k - 1 messages are charged at term (a)'s beta for the size
  // (the robust line through the ping-pong: beta to rounding).
  ASSERT_EQ(c.terms.oneway.size(), 1u);
  const double b = c.terms.oneway.front().beta_s_per_B;
  EXPECT_NEAR(b, beta, 1e-3 * beta);
  const std::vector<double> sizes = {262144, 524288, 1048576};
  const auto at = [&](double k, double extra) {
    std::vector<double> out;
    for (std::size_t j = 1; j < 3; ++j) {
      const double m = c.pingpong_sizes_B[j];
      out.push_back(pp[j] + (k - 1) * m * b + extra * k * m);
    }
    out.push_back(1.0);  // 1 MiB: no ping-pong there, skipped
    return out;
  };
  std::vector<double> fan = at(2, 0.1 * beta), ex = at(2, 0.2 * beta);
  for (double x : at(3, -0.05 * beta)) fan.push_back(x);
  for (double x : at(3, 0.3 * beta)) ex.push_back(x);
  fit_incast(c, {2, 3}, sizes, fan, ex);
  ASSERT_TRUE(c.terms.has(Term::incast));
  ASSERT_EQ(c.terms.incast.size_B, (std::vector<double>{2, 3}));
  EXPECT_NEAR(c.terms.incast.s_per_B[0], 0.1 * beta, 1e-15);
  EXPECT_EQ(c.terms.incast.s_per_B[1], 0);
  EXPECT_NEAR(c.terms.incast_sending.s_per_B[0], 0.2 * beta, 1e-15);
  EXPECT_NEAR(c.terms.incast_sending.s_per_B[1], 0.3 * beta, 1e-15);
  const auto path = std::filesystem::temp_directory_path() / "cb-terms-incast.csv";
  std::ofstream(path) << format_calibration(c);
  const Calibration back = read_calibration(path.string());
  EXPECT_EQ(back.terms, c.terms);
  EXPECT_EQ(back.fanin_s, c.fanin_s);
  EXPECT_EQ(back.fanin_exchange_s, c.fanin_exchange_s);
  EXPECT_TRUE(load_model_terms(path.string(), use("abcdh")).has(Term::incast));
  // No fan-in (2 ranks) or lists that disagree leave the term absent, and
  // the letter is refused.
  Calibration two_ranks = c;
  fit_incast(two_ranks, {}, {}, {}, {});
  EXPECT_FALSE(two_ranks.terms.has(Term::incast));
  Calibration short_list = c;
  fit_incast(short_list, {2, 3}, sizes, fan, {1.0});
  EXPECT_FALSE(short_list.terms.has(Term::incast));
  std::ofstream(path) << format_calibration(two_ranks);
  expect_term_refused(path, "abcdh", Term::incast);
  std::filesystem::remove(path);
}

// (h) prices the bytes a rank receives from k >= 2 peers in one step, at
// the receiver, by k (held beyond the measured k); one sender is no incast.
TEST(Terms, IncastPricesFanInOnly) {
  const ModelParams base{1e-3, 1e-8, 0};
  ScheduleFeatures f;
  f.working_set_B = {0, 0, 0, 0};
  // Ranks 1, 2 and 3 send 1000 B each to rank 0.
  RankStep recv;
  recv.recvs = 3;
  recv.in_B = 3000;
  recv.from = {1, 2, 3};
  RankStep send;
  send.sends = 1;
  send.out_B = 1000;
  f.steps.push_back({recv, send, send, send});
  ModelTerms t;
  t.incast = {{2, 3}, {1e-9, 2e-9}};
  t.incast_sending = {{2, 3}, {5e-9, 7e-9}};
  EXPECT_NEAR(priced_seconds(f, base, t, use("h")) - priced_seconds(f, base, ModelTerms{}, use("h")),
              3000 * 2e-9, 1e-15);
  // Seven senders: beyond the measured k = 3, its value holds.
  f.steps[0][0].from = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_NEAR(priced_seconds(f, base, t, use("h")) - priced_seconds(f, base, ModelTerms{}, use("h")),
              3000 * 2e-9, 1e-15);
  // One sender (three messages from one peer): no incast.
  f.steps[0][0].from = {1};
  EXPECT_NEAR(priced_seconds(f, base, t, use("h")), priced_seconds(f, base, ModelTerms{}, use("h")), 1e-15);
  // A receiver that sends in the same step takes the k-way exchange's value.
  f.steps[0][0].from = {1, 2, 3};
  f.steps[0][0].sends = 1;
  f.steps[0][0].out_B = 1000;
  EXPECT_NEAR(priced_seconds(f, base, t, use("h")) - priced_seconds(f, base, ModelTerms{}, use("h")),
              3000 * 7e-9, 1e-15);
  // With (g) the receiver's step carries it too.
  t.flight_measured = true;
  ModelTerms no_incast = t;
  no_incast.incast = no_incast.incast_sending = {};
  EXPECT_NEAR(priced_seconds(f, base, t, use("gh")) - priced_seconds(f, base, no_incast, use("g")),
              3000 * 7e-9, 1e-15);
}

// (j): a send the transport buffers completes before its bytes cross, so a
// rank that sends again in its next step has both messages on its link at
// once. Binomial all-gather at p = 4 (unsegmented): the gather's 1/4 + 1/2
// of the vector, then the broadcast: rank 0 sends the vector to rank 2,
// then to rank 1 while rank 2 forwards it to rank 3. Unbuffered that is 2
// transfers; buffered, rank 0's two messages share its link, rank 2 has the
// vector after 2 and rank 3 after 3. Half buffered: the first message's
// second half shares, 2.5. Ring has one send per step after a receive:
// unchanged. Without (g) there are no clocks and (j) prices nothing.
TEST(Terms, SendBufferingSharesTheSendersLink) {
  const double alpha = 1e-6, beta = 1e-8;
  const ModelParams base{alpha, beta, 0};
  ModelTerms t;
  t.flight_measured = true;
  t.flight_s = 0;
  const std::uint64_t count = 1u << 18;  // per rank: the vector is 4 blocks
  const double transfer = beta * 4.0 * 4.0 * count;
  const Scenario s{Collective::allgather, 4, DataType::fp32, ReduceOp::sum, false};
  const ScheduleFeatures tree = features_for(find_algorithm(Collective::allgather, "tree"), s, count);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("g")), 2.75 * transfer, 8 * alpha);
  t.buffered = {{4096, 1 << 24}, {1, 1}};
  EXPECT_TRUE(t.has(Term::buffering));
  EXPECT_NEAR(priced_seconds(tree, base, t, use("gj")), 3.75 * transfer, 8 * alpha);
  EXPECT_NEAR(priced_seconds(tree, base, t, use("j")), priced_seconds(tree, base, t, use("")), 1e-15);
  ModelTerms half = t;
  half.buffered = {{4096, 1 << 24}, {0.5, 0.5}};
  EXPECT_NEAR(priced_seconds(tree, base, half, use("gj")), 3.25 * transfer, 8 * alpha);
  ModelTerms none = t;
  none.buffered = {{4096, 1 << 24}, {0, 0}};
  EXPECT_NEAR(priced_seconds(tree, base, none, use("gj")), priced_seconds(tree, base, t, use("g")), 1e-12);
  const ScheduleFeatures ring = features_for(find_algorithm(Collective::allgather, "ring"), s, count);
  EXPECT_NEAR(priced_seconds(ring, base, t, use("gj")), priced_seconds(ring, base, t, use("g")),
              1e-9 * priced_seconds(ring, base, t, use("g")));
}

// (j)'s calibration: the fan-out's time beyond two ping-pongs, in transfers
// of m at the ping-pong's beta, kept within [0, 1]; sizes the ping-pong
// lacks are skipped; the file carries it, and a file without it (calibrate
// on 2 ranks, or older) refuses the letter in one line.
TEST(Terms, SendBufferingIsCalibratedAndRoundTrips) {
  Calibration c;
  const double beta = 1e-8;
  c.params = {1e-3, beta, 2e-10};
  c.pingpong_sizes_B = {8, 4096, 8192, 16384};
  std::vector<double> pp;
  for (double m : c.pingpong_sizes_B) pp.push_back(1e-3 + m * beta);
  fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
                {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-3, 1.01e-3, 1.03e-3, 1.07e-3}, {1, 2, 4},
                {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6, pp});
  EXPECT_FALSE(c.terms.has(Term::buffering));
  const double b = c.terms.oneway.front().beta_s_per_B;
  // 4 KiB: nothing buffered (a little faster than 2 ping-pongs: 0); 8 KiB:
  // half; 16 KiB: more than a whole transfer (1); 32 KiB: no ping-pong.
  fit_buffering(c, {4096, 8192, 16384, 32768},
                {2 * pp[1] - 1e-6, 2 * pp[2] + 0.5 * 8192 * b, 2 * pp[3] + 1.3 * 16384 * b, 1.0});
  ASSERT_TRUE(c.terms.has(Term::buffering));
  EXPECT_EQ(c.terms.buffered.size_B, (std::vector<double>{4096, 8192, 16384}));
  ASSERT_EQ(c.terms.buffered.s_per_B.size(), 3u);
  EXPECT_EQ(c.terms.buffered.s_per_B[0], 0);
  EXPECT_NEAR(c.terms.buffered.s_per_B[1], 0.5, 1e-9);
  EXPECT_EQ(c.terms.buffered.s_per_B[2], 1);
  const auto path = std::filesystem::temp_directory_path() / "cb-terms-buffering.csv";
  std::ofstream(path) << format_calibration(c);
  const Calibration back = read_calibration(path.string());
  EXPECT_EQ(back.fanout_sizes_B, c.fanout_sizes_B);
  EXPECT_EQ(back.fanout_s, c.fanout_s);
  EXPECT_EQ(back.terms, c.terms);
  Calibration two_ranks = c;
  fit_buffering(two_ranks, {}, {});
  EXPECT_FALSE(two_ranks.terms.has(Term::buffering));
  std::ofstream(path) << format_calibration(two_ranks);
  expect_term_refused(path, "abj", Term::buffering);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cb::models
