#include "models/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/crossover.hpp"
#include "models/lower_bound.hpp"

namespace cb::models {

std::string describe(const GroupKey& g) {
  return fmt::format("{}/{}/{}/{}{}p={}", g.transport, to_string(g.coll), to_string(g.dtype),
                     g.op.empty() ? "" : g.op + "/", g.placement + "/", g.ranks);
}

bool BestAtSize::model_right() const {
  std::size_t pos = 0;
  while (pos <= predicted_best.size()) {
    const std::size_t end = std::min(predicted_best.find('|', pos), predicted_best.size());
    if (predicted_best.compare(pos, end - pos, measured_best) == 0) return true;
    pos = end + 1;
  }
  return false;
}

namespace {

GroupKey group_of(const ConfigKey& k) {
  return {k.transport, k.coll, k.dtype, k.op, k.placement, k.ranks};
}

std::vector<ConfigResult> fit_configs(const ResultsFile& results, const AnalysisOptions& opt) {
  std::map<ConfigKey, std::vector<const Measurement*>> by_key;
  for (const Measurement& m : results.rows) by_key[config_key(m)].push_back(&m);
  std::vector<ConfigResult> out;
  std::uint64_t seed = opt.seed;
  for (auto& [key, pts] : by_key) {
    std::stable_sort(pts.begin(), pts.end(), [](const Measurement* a, const Measurement* b) {
      return a->bytes < b->bytes;
    });
    ConfigResult c;
    c.key = key;
    c.baseline = pts.front()->entry == nullptr;
    c.points = pts;
    std::vector<double> n, t;
    for (const Measurement* m : pts) {
      n.push_back(static_cast<double>(m->bytes));
      t.push_back(m->time_s);
    }
    c.line = fit_line(n, t, opt.config_resamples, ++seed);
    c.piecewise = detect_knees(n, t);
    out.push_back(std::move(c));
  }
  return out;
}

TransportFit fit_transport(const std::string& transport, const ResultsFile& results,
                           const AnalysisOptions& opt, std::vector<Cost>* basis_out,
                           std::vector<const Measurement*>* rows_out) {
  TransportFit tf;
  tf.transport = transport;
  std::vector<Cost> basis;
  std::vector<double> t;
  for (const Measurement& m : results.rows) {
    if (m.transport != transport) continue;
    if (!m.entry) {
      ++tf.excluded["library baseline (not a schedule; per-configuration line only)"];
      continue;
    }
    if (m.wrong && *m.wrong != 0) {
      ++tf.excluded["failed verification (wrong > 0)"];
      continue;
    }
    const Cost c = model_cost(*m.entry, m.scenario, m.count);
    if (c.alpha == 0 && c.beta == 0 && c.gamma == 0) {
      ++tf.excluded["model cost is zero (1 rank or count 0): nothing to fit"];
      continue;
    }
    basis.push_back(c);
    t.push_back(m.time_s);
    rows_out->push_back(&m);
  }
  tf.rows_used = basis.size();
  if (basis.size() >= 3)
    tf.fit = fit_global(basis, t, opt.global_resamples, opt.seed);
  else if (!basis.empty())
    tf.excluded["too few schedule rows for a global fit (< 3)"] += basis.size();
  *basis_out = std::move(basis);
  return tf;
}

void add_predictions(Analysis& a, const std::vector<const Measurement*>& rows,
                     const std::vector<Cost>& basis, const ModelParams& params,
                     const char* source) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = *rows[i];
    Prediction p;
    p.row = &m;
    p.params = source;
    p.predicted_s = seconds(basis[i], params);
    p.rel_err = (p.predicted_s - m.time_s) / m.time_s;
    p.lower_bound_s =
        seconds(lower_bound(m.scenario.coll, m.scenario.p, static_cast<double>(m.bytes)), params);
    a.predictions.push_back(p);
  }
}

// Crossovers and best choices of one group under one parameter set.
void compare_algorithms(Analysis& a, const GroupKey& g,
                        const std::vector<const ConfigResult*>& configs, const ModelParams& params,
                        const char* source) {
  // Sizes (bytes > 0) -> measured time per algorithm.
  std::map<std::uint64_t, std::map<std::string, double>> at;
  for (const ConfigResult* c : configs)
    for (const Measurement* m : c->points)
      if (m->bytes > 0) at[m->bytes][c->key.algorithm] = m->time_s;
  const Measurement& any = *configs.front()->points.front();
  Scenario s = any.scenario;

  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t j = i + 1; j < configs.size(); ++j) {
      const ConfigResult& ca = *configs[i];
      const ConfigResult& cb = *configs[j];
      std::vector<double> n, ta, tb;
      for (const auto& [bytes, times] : at) {
        const auto ia = times.find(ca.key.algorithm), ib = times.find(cb.key.algorithm);
        if (ia == times.end() || ib == times.end()) continue;
        n.push_back(static_cast<double>(bytes));
        ta.push_back(ia->second);
        tb.push_back(ib->second);
      }
      if (n.size() < 2) continue;
      PairCrossover pc;
      pc.group = g;
      pc.params = source;
      pc.algo_a = ca.key.algorithm;
      pc.algo_b = cb.key.algorithm;
      for (const MeasuredCrossing& x : measured_crossings(n, ta, tb)) pc.measured_B.push_back(x.bytes);
      pc.measured_faster_below = ta.front() <= tb.front() ? pc.algo_a : pc.algo_b;
      const auto lo = count_for_bytes(s.coll, s.p, s.dtype, static_cast<std::uint64_t>(n.front()));
      const auto hi = count_for_bytes(s.coll, s.p, s.dtype, static_cast<std::uint64_t>(n.back()));
      for (const PredictedCrossing& x :
           predicted_crossings(*ca.points.front()->entry, *cb.points.front()->entry, s, params,
                               *lo, *hi))
        pc.predicted_B.push_back(static_cast<double>(bytes_for_count(s.coll, s.p, s.dtype, x.count)));
      const double pa = predict_seconds(*ca.points.front()->entry, s, *lo, params);
      const double pb = predict_seconds(*cb.points.front()->entry, s, *lo, params);
      pc.predicted_faster_below = pa <= pb ? pc.algo_a : pc.algo_b;
      a.crossovers.push_back(std::move(pc));
    }
  }

  std::map<std::string, const AlgorithmEntry*> entries;
  for (const ConfigResult* c : configs) entries[c->key.algorithm] = c->points.front()->entry;
  for (const auto& [bytes, times] : at) {
    if (times.size() < 2) continue;
    const auto count = count_for_bytes(s.coll, s.p, s.dtype, bytes);
    BestAtSize b;
    b.group = g;
    b.params = source;
    b.bytes = bytes;
    std::map<std::string, double> pred;
    double best_pred = std::numeric_limits<double>::infinity();
    for (const auto& [algo, t] : times) {
      pred[algo] = predict_seconds(*entries.at(algo), s, *count, params);
      best_pred = std::min(best_pred, pred[algo]);
    }
    // Algorithms the model cannot tell apart (equal cost, e.g. at p = 2) are
    // its choice together; the best measured of them counts.
    b.predicted_best_measured_s = std::numeric_limits<double>::infinity();
    b.measured_best_s = std::numeric_limits<double>::infinity();
    for (const auto& [algo, t] : times) {
      if (pred[algo] <= best_pred * (1 + 1e-9)) {
        b.predicted_best += (b.predicted_best.empty() ? "" : "|") + algo;
        b.predicted_best_measured_s = std::min(b.predicted_best_measured_s, t);
      }
      if (t < b.measured_best_s) {
        b.measured_best_s = t;
        b.measured_best = algo;
      }
    }
    b.regret = b.predicted_best_measured_s / b.measured_best_s - 1;
    a.best.push_back(std::move(b));
  }
}

}  // namespace

Analysis analyze(const ResultsFile& results, const AnalysisOptions& opt) {
  Analysis a;
  a.source_file = results.file;
  a.rows = results.rows.size();
  a.calibration = opt.calibration;
  a.calibration_transport = opt.calibration_transport;
  a.calibration_file = opt.calibration_file;
  a.configs = fit_configs(results, opt);

  std::set<std::string> transports;
  for (const Measurement& m : results.rows) transports.insert(m.transport);
  for (const std::string& tr : transports) {
    std::vector<Cost> basis;
    std::vector<const Measurement*> rows;
    TransportFit tf = fit_transport(tr, results, opt, &basis, &rows);
    if (tf.fit) add_predictions(a, rows, basis, tf.fit->params, kByGlobal);
    if (opt.calibration && tr == opt.calibration_transport)
      add_predictions(a, rows, basis, *opt.calibration, kByCalibration);
    a.transports.push_back(std::move(tf));
  }
  for (const ConfigResult& c : a.configs) {
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      const Measurement& m = *c.points[i];
      Prediction p;
      p.row = &m;
      p.params = kByConfig;
      p.predicted_s = c.line.a_s + c.line.b_s_per_B * static_cast<double>(m.bytes);
      p.rel_err = (p.predicted_s - m.time_s) / m.time_s;
      a.predictions.push_back(p);
    }
  }

  std::map<GroupKey, std::vector<const ConfigResult*>> groups;
  for (const ConfigResult& c : a.configs)
    if (!c.baseline) groups[group_of(c.key)].push_back(&c);
  for (auto& [g, configs] : groups) {
    // Registry order, so pairs read the same way in every group.
    const auto table = algorithms_for(g.coll);
    const auto rank = [&](const ConfigResult* c) {
      for (std::size_t i = 0; i < table.size(); ++i)
        if (table[i].name == c->key.algorithm) return i;
      return table.size();
    };
    std::stable_sort(configs.begin(), configs.end(),
                     [&](auto* x, auto* y) { return rank(x) < rank(y); });
    for (const TransportFit& tf : a.transports)
      if (tf.transport == g.transport && tf.fit)
        compare_algorithms(a, g, configs, tf.fit->params, kByGlobal);
    if (opt.calibration && g.transport == opt.calibration_transport)
      compare_algorithms(a, g, configs, *opt.calibration, kByCalibration);
  }
  return a;
}

}  // namespace cb::models
