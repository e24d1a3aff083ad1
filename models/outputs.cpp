#include "models/outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "models/csv_text.hpp"
#include "models/parallel.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string join_sizes(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += fmt::format("{}{}", out.empty() ? "" : ";", csv_number(x));
  return out;
}

std::string key_cells(const std::string& transport, Collective coll, const std::string& algo,
                      DataType dtype, const std::string& op, const std::string& placement,
                      int ranks) {
  return fmt::format("{},{},{},{},{},{},{}", csv_escape(transport), to_string(coll),
                     csv_escape(algo), to_string(dtype), op, placement, ranks);
}

struct ParamCells {
  double v[3] = {kNaN, kNaN, kNaN};
  double lo[3] = {kNaN, kNaN, kNaN};
  double hi[3] = {kNaN, kNaN, kNaN};
  std::string str() const {
    std::string out;
    for (int j = 0; j < 3; ++j)
      out += fmt::format("{},{},{},", csv_number(v[j]), csv_number(lo[j]), csv_number(hi[j]));
    out.pop_back();
    return out;
  }
};

}  // namespace

std::string fit_csv(const Analysis& a) {
  std::string out =
      "scope,transport,collective,algorithm,datatype,op,placement,ranks,alpha_s,alpha_s_lo,"
      "alpha_s_hi,beta_s_per_B,beta_s_per_B_lo,beta_s_per_B_hi,gamma_s_per_B,gamma_s_per_B_lo,"
      "gamma_s_per_B_hi,r_squared,points,knees_B,segment_first_B,segment_last_B\n";
  for (const TransportFit& tf : a.transports) {
    if (!tf.fit) continue;
    const GlobalFit& g = *tf.fit;
    ParamCells pc;
    const double v[3] = {g.params.alpha_s, g.params.beta_s_per_B, g.params.gamma_s_per_B};
    const double lo[3] = {g.lo.alpha_s, g.lo.beta_s_per_B, g.lo.gamma_s_per_B};
    const double hi[3] = {g.hi.alpha_s, g.hi.beta_s_per_B, g.hi.gamma_s_per_B};
    for (int j = 0; j < 3; ++j)
      if (g.identified[j]) {
        pc.v[j] = v[j];
        pc.lo[j] = lo[j];
        pc.hi[j] = hi[j];
      }
    out += fmt::format("global,{},,,,,,,{},{},{},,,\n", csv_escape(tf.transport), pc.str(),
                       csv_number(g.r_squared), g.points);
  }
  for (const CalibrationInput& c : a.calibrations) {
    ParamCells pc;
    pc.v[0] = c.params.alpha_s;
    pc.v[1] = c.params.beta_s_per_B;
    pc.v[2] = c.params.gamma_s_per_B;
    out += fmt::format("calibration,{},,,,,,,{},,,,,\n", csv_escape(c.transport), pc.str());
  }
  for (const ConfigResult& c : a.configs) {
    const ConfigKey& k = c.key;
    const std::string key =
        key_cells(k.transport, k.coll, k.algorithm, k.dtype, k.op, k.placement, k.ranks);
    ParamCells pc;
    pc.v[0] = c.line.a_s;
    pc.lo[0] = c.line.a_lo_s;
    pc.hi[0] = c.line.a_hi_s;
    pc.v[1] = c.line.b_s_per_B;
    pc.lo[1] = c.line.b_lo_s_per_B;
    pc.hi[1] = c.line.b_hi_s_per_B;
    out += fmt::format("config,{},{},{},{},{},,\n", key, pc.str(), csv_number(c.line.r_squared),
                       c.line.points, join_sizes(c.piecewise.knees_B));
    if (c.piecewise.segments.size() < 2) continue;
    for (const Segment& s : c.piecewise.segments) {
      ParamCells sc;
      sc.v[0] = s.a_s;
      sc.v[1] = s.b_s_per_B;
      out += fmt::format("segment,{},{},,{},,{},{}\n", key, sc.str(), s.last - s.first + 1,
                         c.points[s.first]->bytes, c.points[s.last]->bytes);
    }
  }
  return out;
}

std::string predictions_csv(const Analysis& a) {
  std::string out =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,measured_s,"
      "predicted_s,rel_err,params,lower_bound_s\n";
  // Formatted in blocks on every core (a 10^6-row file has two predictions
  // per row and more with a calibration), joined in order; each block is
  // freed once joined. One thread formats a whole block.
  constexpr std::size_t kBlock = 8192;
  const std::size_t n = a.predictions.size();
  std::vector<std::string> blocks((n + kBlock - 1) / kBlock);
  for_each_in_blocks(
      n, hardware_threads(),
      [&](std::size_t i) {
        const Prediction& p = a.predictions[i];
        const ConfigKey k = config_key(*p.row);
        blocks[i / kBlock] += fmt::format(
            "{},{},{},{},{},{},{},{}\n",
            key_cells(k.transport, k.coll, k.algorithm, k.dtype, k.op, k.placement, k.ranks),
            p.row->bytes, p.row->count, csv_number(p.row->time_s), csv_number(p.predicted_s),
            csv_number(p.rel_err), p.params, csv_number(p.lower_bound_s));
      },
      kBlock);
  for (std::string& block : blocks) {
    out += block;
    std::string().swap(block);
  }
  return out;
}

std::string crossovers_csv(const Analysis& a) {
  std::string out =
      "kind,params,transport,collective,datatype,op,placement,ranks,algo_a,algo_b,"
      "predicted_crossover_B,measured_crossover_B,predicted_crossings,measured_crossings,"
      "predicted_faster_below,measured_faster_below,bytes,predicted_best,measured_best,"
      "predicted_best_measured_s,measured_best_s,regret,measured_crossover_lo_B,"
      "measured_crossover_hi_B,crossover_ratio,cpu_limited,verdict,within_interval,sizes,"
      "picks_right,median_regret\n";
  const auto group = [](const GroupKey& g) {
    return fmt::format("{},{},{},{},{},{}", csv_escape(g.transport), to_string(g.coll),
                       to_string(g.dtype), g.op, g.placement, g.ranks);
  };
  const auto flag = [](const std::optional<bool>& v) -> std::string_view {
    return v ? (*v ? "1" : "0") : "";
  };
  const auto crossover_row = [&](std::string_view kind, const PairCrossover& c) {
    const bool measured = !c.measured_interval_B.empty();
    const bool both = !c.predicted_B.empty() && !c.measured_B.empty();
    const double ratio = both ? std::max(c.predicted_B.front() / c.measured_B.front(),
                                         c.measured_B.front() / c.predicted_B.front())
                              : NAN;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},,,,,,,{},{},{},{},{},{},,,\n", kind,
                       c.params, group(c.group), csv_escape(c.algo_a), csv_escape(c.algo_b),
                       c.predicted_B.empty() ? "" : csv_number(c.predicted_B.front()),
                       c.measured_B.empty() ? "" : csv_number(c.measured_B.front()),
                       c.predicted_B.size(), c.measured_B.size(),
                       csv_escape(c.predicted_faster_below), csv_escape(c.measured_faster_below),
                       measured ? csv_number(c.measured_interval_B.front().first) : "",
                       measured ? csv_number(c.measured_interval_B.front().second) : "",
                       csv_number(ratio), flag(c.cpu_limited), c.verdict,
                       c.verdict.empty() ? "" : c.within_interval ? "1" : "0");
  };
  for (const PairCrossover& c : a.crossovers) crossover_row("pair", c);
  for (const PairCrossover& c : a.family_crossovers) crossover_row("family", c);
  for (const BestAtSize& b : a.best) {
    out += fmt::format("best,{},{},,,,,,,,,{},{},{},{},{},{},,,,{},,,,,\n", b.params,
                       group(b.group), b.bytes, csv_escape(b.predicted_best),
                       csv_escape(b.measured_best), csv_number(b.predicted_best_measured_s),
                       csv_number(b.measured_best_s), csv_number(b.regret), flag(b.cpu_limited));
  }
  // Per (params, group): its sizes, the model's right picks among them and
  // the median regret; the worst size's choices and regret in the best columns.
  std::map<std::pair<std::string, GroupKey>, std::vector<const BestAtSize*>> by;
  for (const BestAtSize& b : a.best) by[{b.params, b.group}].push_back(&b);
  for (const auto& [k, v] : by) {
    std::vector<double> r;
    std::size_t right = 0;
    const BestAtSize* worst = v.front();
    for (const BestAtSize* b : v) {
      r.push_back(b->regret);
      right += b->model_right();
      if (b->regret > worst->regret) worst = b;
    }
    out += fmt::format("best_group,{},{},,,,,,,,,{},{},{},,,{},,,,,,,{},{},{}\n", k.first,
                       group(k.second), worst->bytes, csv_escape(worst->predicted_best),
                       csv_escape(worst->measured_best), csv_number(worst->regret), v.size(),
                       right, csv_number(median(r)));
  }
  return out;
}

}  // namespace cb::models

namespace cb::models {

std::string accuracy_csv(const Analysis& a) {
  std::string out =
      "params,transport,rows_large,median_abs_err_large,rows_small,median_abs_err_small,"
      "worst_collective,worst_collective_median_abs_err,picks_right,picks,median_regret,"
      "worst_regret,per_rank_clocks,scope,rows_all,median_abs_err_all,picks_left_out,"
      "crossovers,crossovers_within_factor,crossovers_within_interval,large_from_B,"
      "target_median_abs_err_large,met_median_abs_err_large,"
      "target_median_abs_err_small,met_median_abs_err_small,"
      "target_median_abs_err_all,met_median_abs_err_all,"
      "target_worst_collective,met_worst_collective,target_picks,met_picks,"
      "target_median_regret,met_median_regret,target_crossover_factor,met_crossovers,"
      "median_signed_err_large\n";
  for (const Grade& g : a.grades) {
    const Targets& t = *g.targets;
    const double share =
        g.picks ? static_cast<double>(g.picks_right) / static_cast<double>(g.picks) : NAN;
    // The crossover target: every measured crossover predicted within the
    // factor (none measured: nothing to judge).
    const bool judged = !std::isnan(t.crossover_factor) && g.crossovers > 0;
    const std::string_view crossovers_met =
        judged ? (g.crossovers_within_factor == g.crossovers ? "1" : "0") : "";
    const bool has_crossovers = !std::isnan(t.crossover_factor);
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}"
        ",{},{},{},{},{}\n",
        csv_escape(g.params), csv_escape(g.transport), g.rows_large, csv_number(g.median_large),
        g.rows_small, csv_number(g.median_small), g.worst_collective,
        csv_number(g.worst_collective_median), g.picks_right, g.picks,
        csv_number(g.median_regret), csv_number(g.worst_regret), g.per_rank_clocks ? 1 : 0,
        t.scope, g.rows_all, csv_number(g.median_all), g.picks_left_out,
        has_crossovers ? std::to_string(g.crossovers) : "",
        has_crossovers ? std::to_string(g.crossovers_within_factor) : "",
        has_crossovers ? std::to_string(g.crossovers_within_interval) : "",
        csv_number(kLargeBytes), csv_number(t.median_abs_err_large),
        met_cell(g.median_large, t.median_abs_err_large), csv_number(t.median_abs_err_small),
        met_cell(g.median_small, t.median_abs_err_small), csv_number(t.median_abs_err_all),
        met_cell(g.median_all, t.median_abs_err_all), csv_number(t.worst_collective),
        met_cell(g.worst_collective_median, t.worst_collective), csv_number(t.picks),
        met_cell(share, t.picks, true), csv_number(t.median_regret),
        met_cell(g.median_regret, t.median_regret), csv_number(t.crossover_factor),
        crossovers_met, csv_number(g.median_signed_large));
  }
  return out;
}

}  // namespace cb::models

namespace cb::models {

namespace {

double median_or_nan(std::vector<double> v) {
  return v.empty() ? NAN : median(std::move(v));
}

struct ErrorBands {
  std::vector<double> large, small, mid, top;  // |rel_err|, |rel_err|, signed, signed
  std::vector<double> all;                     // |rel_err| at every size
  double worst_large = NAN;
  const Prediction* worst = nullptr;  // largest |rel_err| at any size, the first of equals
  void add(const Prediction& p) {
    const double bytes = static_cast<double>(p.row->bytes), e = p.rel_err;
    all.push_back(std::fabs(e));
    if (!worst || std::fabs(e) > std::fabs(worst->rel_err)) worst = &p;
    if (bytes >= kLargeBytes) {
      large.push_back(std::fabs(e));
      if (std::isnan(worst_large) || std::fabs(e) > worst_large) worst_large = std::fabs(e);
    } else {
      small.push_back(std::fabs(e));
    }
    if (bytes >= kLargeBytes && bytes <= kMidBandTopBytes) mid.push_back(e);
    if (bytes >= kTopBandBytes) top.push_back(e);
  }
};

}  // namespace

std::string errors_csv(const Analysis& a) {
  // Ordered by name, as the reports list them.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, ErrorBands> by_algo;
  std::map<std::pair<std::string, std::string>, ErrorBands> by_transport;
  for (const Prediction& p : a.predictions) {
    by_algo[{p.params, p.row->transport, std::string(to_string(p.row->scenario.coll)),
             p.row->algorithm}]
        .add(p);
    // A configuration's own line is no parameter set of the transport.
    if (p.params != kByConfig) by_transport[{p.params, p.row->transport}].add(p);
  }
  std::string out =
      "params,transport,collective,algorithm,rows_large,median_abs_err_large,"
      "worst_abs_err_large,median_signed_err_mid,median_signed_err_top,rows_small,"
      "median_abs_err_small,large_from_B,mid_to_B,top_from_B,rows_all,median_abs_err_all,"
      "worst_err,worst_err_bytes,worst_err_ranks\n";
  const auto row = [&](const std::string& params, const std::string& transport,
                       const std::string& coll, const std::string& algo, const ErrorBands& e) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(params), csv_escape(transport), coll, csv_escape(algo),
                       e.large.size(), csv_number(median_or_nan(e.large)),
                       csv_number(e.worst_large), csv_number(median_or_nan(e.mid)),
                       csv_number(median_or_nan(e.top)), e.small.size(),
                       csv_number(median_or_nan(e.small)), csv_number(kLargeBytes),
                       csv_number(kMidBandTopBytes), csv_number(kTopBandBytes), e.all.size(),
                       csv_number(median_or_nan(e.all)), csv_number(e.worst->rel_err),
                       e.worst->row->bytes, e.worst->row->scenario.p);
  };
  for (const auto& [k, e] : by_algo)
    row(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), e);
  for (const auto& [k, e] : by_transport) row(k.first, k.second, "", "", e);
  return out;
}

}  // namespace cb::models
