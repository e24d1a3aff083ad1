#include "models/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>
#include <set>
#include <string>
#include <unordered_map>

#include "models/crossover.hpp"
#include "models/family_crossovers.hpp"
#include "models/fit_rows.hpp"
#include "models/lower_bound.hpp"
#include "models/parallel.hpp"
#include "models/schedule_model.hpp"
#include "models/two_level.hpp"

namespace cb::models {

std::string describe(const GroupKey& g) {
  return fmt::format("{}/{}/{}/{}{}p={}", g.transport, to_string(g.coll), to_string(g.dtype),
                     g.op.empty() ? "" : g.op + "/", g.placement + "/", g.ranks);
}

std::string calibration_label(TermSet terms) {
  return terms.empty() ? std::string(kByCalibration)
                       : fmt::format("{}+{}", kByCalibration, term_set_text(terms));
}

bool tie_sets_overlap(std::string_view a, std::string_view b) {
  const auto members = [](std::string_view s) {
    std::set<std::string_view> out;
    std::size_t pos = 0;
    while (pos <= s.size()) {
      const std::size_t end = std::min(s.find('|', pos), s.size());
      if (end > pos) out.insert(s.substr(pos, end - pos));
      pos = end + 1;
    }
    return out;
  };
  const auto ma = members(a);
  for (std::string_view x : members(b))
    if (ma.count(x)) return true;
  return false;
}

GroupKey group_of(const Measurement& m) {
  const ConfigKey k = config_key(m);
  return {k.transport, k.coll, k.dtype, k.op, k.placement, k.ranks};
}

TimeCI ci_of(const Measurement& m) {
  if (std::isnan(m.ci_lo_s) || std::isnan(m.ci_hi_s) || (m.ci_lo_s <= 0 && m.ci_hi_s <= 0))
    return {m.time_s, m.time_s, m.time_s};
  return {m.time_s, std::min(m.ci_lo_s, m.time_s), std::max(m.ci_hi_s, m.time_s)};
}

void judge_crossover(PairCrossover& c, double factor) {
  const double m = c.measured_B.front();
  if (c.predicted_B.empty()) {
    c.verdict = "none";
    return;
  }
  const double q = c.predicted_B.front();
  const bool within = std::max(q / m, m / q) <= factor;
  c.verdict = within ? "within" : q < m ? "below" : "above";
  const auto& [lo, hi] = c.measured_interval_B.front();
  c.within_interval = within || (lo <= q && q <= hi);
}

void set_measured_crossings(PairCrossover& c, const std::vector<double>& bytes,
                            const std::vector<TimeCI>& a, const std::vector<TimeCI>& b) {
  const std::vector<MeasuredCrossing> xs = separated_crossings(bytes, a, b);
  for (const MeasuredCrossing& x : xs) {
    c.measured_B.push_back(three_digits(x.bytes));
    c.measured_interval_B.emplace_back(x.lo_bytes, x.hi_bytes);
  }
  // The rule makes the side below a crossover significant, even where the
  // intervals overlap at the smallest size ("tie" there read as if the
  // crossover itself involved a tie).
  if (!xs.empty())
    c.measured_faster_below = xs.front().a_faster_after ? c.algo_b : c.algo_a;
  else
    c.measured_faster_below = a.front().hi < b.front().lo   ? c.algo_a
                              : b.front().hi < a.front().lo ? c.algo_b
                                                            : "tie";
}

bool BestAtSize::model_right() const { return tie_sets_overlap(predicted_best, measured_best); }

const CalibrationInput* calibration_for(const Analysis& a, const std::string& transport) {
  for (const CalibrationInput& c : a.calibrations)
    if (c.transport == transport) return &c;
  return nullptr;
}

namespace {

// Seconds for (algorithm, scenario, count) under one parameter set, for a
// row whose mode probe is the last argument (term `probe`; unmeasured: none).
using Predictor = std::function<double(const AlgorithmEntry&, const Scenario&, std::uint64_t,
                                       const ModeProbe&)>;

// Closed-form costs of one scenario by (algorithm, count): every transport's
// groups of a scenario and every parameter set price the same counts, and a
// closed form costs O(p) at p ranks for some algorithms (tree, dbtree).
class CostMemo {
 public:
  explicit CostMemo(const Scenario& s) : s_(s) {}
  Cost at(const AlgorithmEntry& a, std::uint64_t count) {
    const auto [it, fresh] = memo_.try_emplace({&a, count});
    if (fresh) it->second = model_cost(a, s_, count);
    return it->second;
  }

 private:
  struct KeyHash {
    std::size_t operator()(const std::pair<const AlgorithmEntry*, std::uint64_t>& k) const {
      return std::hash<const void*>{}(k.first) ^ (std::hash<std::uint64_t>{}(k.second) * 31);
    }
  };
  Scenario s_;
  std::unordered_map<std::pair<const AlgorithmEntry*, std::uint64_t>, Cost, KeyHash> memo_;
};

// Rows on 2 or more nodes of 2 or more ranks under a two-level model: each
// message at the level it crosses (two_level.hpp). The terms were measured
// on one level (the network's pair), so these rows are priced with each
// level's alpha, beta and gamma, whatever terms the rest get.
bool on_two_levels(const Scenario& s, const ModelParams& m) {
  return m.two_level() && s.ranks_per_node > 1 && s.ranks_per_node < s.p;
}

// The closed-form model under `m`, for the memo's scenario only.
Predictor closed_form(const ModelParams& m, CostMemo& memo) {
  return [m, &memo](const AlgorithmEntry& a, const Scenario& s, std::uint64_t count,
                    const ModeProbe&) {
    if (on_two_levels(s, m)) return level_seconds(a, coll_params(s, count), m);
    return seconds(memo.at(a, count), m);
  };
}

Predictor schedule_priced(const CalibrationInput& c, TermSet terms) {
  return [&c, terms](const AlgorithmEntry& a, const Scenario& s, std::uint64_t count,
                     const ModeProbe& probe) {
    if (on_two_levels(s, c.params)) return level_seconds(a, coll_params(s, count), c.params);
    return priced_seconds(features_for(a, s, count), c.params, c.terms, terms, probe);
  };
}

// The median of the rows' probes, each part on its own; none when no row has one.
ModeProbe median_probe(const std::vector<const Measurement*>& rows) {
  std::vector<double> small, large;
  for (const Measurement* m : rows)
    if (m->probe.measured()) {
      small.push_back(m->probe.small_s);
      large.push_back(m->probe.large_s);
    }
  if (small.empty()) return {};
  return {median(small), median(large)};
}

// One probe for a whole configuration (ConfigResult::probe).
ModeProbe config_probe(const ConfigResult& c) { return median_probe(c.points); }

// `predict` with every algorithm of a group priced in one mode, the median
// of the group's rows' probes (term `probe`), whatever probe it is asked with:
// picks and crossovers compare algorithms, not the modes their rows
// happened to run in, and algorithms whose schedules are identical stay
// predicted equal (a probe per configuration split such ties by the
// probes' noise: models/README.md, "Term `probe`").
Predictor in_one_mode(const Predictor& predict, const std::vector<const ConfigResult*>& configs) {
  std::vector<const Measurement*> rows;
  for (const ConfigResult* c : configs) rows.insert(rows.end(), c->points.begin(), c->points.end());
  return [predict, probe = median_probe(rows)](const AlgorithmEntry& a, const Scenario& s,
                                               std::uint64_t count, const ModeProbe&) {
    return predict(a, s, count, probe);
  };
}

// The ablation levels a calibration prices: each level whose last term it
// measured, left with the terms it measured (a level is named by what it
// prices: a file from before forward and staged gives
// range+copy+concurrency+overhead+flight, not every term up to flight).
std::vector<TermSet> measured_levels(const ModelTerms& t) {
  std::vector<TermSet> out;
  const std::vector<TermSet> levels = ablation_levels();
  for (std::size_t k = 1; k < levels.size(); ++k)
    if (t.has(kTerms[k - 1].term)) out.push_back(measured_terms(levels[k], t));
  return out;
}

GroupKey group_of(const ConfigKey& k) {
  return {k.transport, k.coll, k.dtype, k.op, k.placement, k.ranks};
}

// Points fitted by the exact knee search over g points (every segment of at
// least 3 points is fitted once), plus the refit of all m points.
double knee_points(std::size_t g, std::size_t m) {
  double sum = g < m ? static_cast<double>(m) : 0;
  for (std::size_t len = 3; len <= g; ++len) sum += static_cast<double>((g - len + 1) * len);
  return sum;
}

// Resamples and exact knee points per configuration under opt's work bounds.
std::pair<int, std::size_t> shares(const std::vector<ConfigResult>& configs,
                                   const AnalysisOptions& opt) {
  const KneeOptions knees;
  double boot = 0, knee = 0;
  for (const ConfigResult& c : configs) {
    const std::size_t m = c.points.size();
    boot += static_cast<double>(opt.config_resamples) *
            static_cast<double>(std::min(m, RobustOptions{}.bootstrap_max_rows));
    knee += knee_points(std::min(m, knees.max_exact_points), m);
  }
  int resamples = opt.config_resamples;
  if (boot > opt.bootstrap_budget_points)
    resamples = std::max(std::min(opt.min_config_resamples, opt.config_resamples),
                         static_cast<int>(opt.config_resamples * opt.bootstrap_budget_points / boot));
  std::size_t exact = knees.max_exact_points;
  while (exact > 8 && knee > opt.knee_budget_points) {
    --exact;
    knee = 0;
    for (const ConfigResult& c : configs)
      knee += knee_points(std::min(c.points.size(), exact), c.points.size());
  }
  return {resamples, exact};
}

std::vector<ConfigResult> fit_configs(const ResultsFile& results, const AnalysisOptions& opt,
                                      Analysis& a) {
  std::map<ConfigKey, std::vector<const Measurement*>> by_key;
  for (const Measurement& m : results.rows) by_key[config_key(m)].push_back(&m);
  std::vector<ConfigResult> out(by_key.size());
  std::size_t i = 0;
  for (auto& [key, pts] : by_key) {
    std::stable_sort(pts.begin(), pts.end(), [](const Measurement* a, const Measurement* b) {
      return a->bytes < b->bytes;
    });
    out[i].key = key;
    out[i].baseline = pts.front()->entry == nullptr;
    out[i].points = std::move(pts);
    out[i].probe = config_probe(out[i]);
    ++i;
  }
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda below.
  const std::pair<int, std::size_t> share = shares(out, opt);
  const int resamples = share.first;
  const std::size_t exact = share.second;
  a.config_resamples = resamples;
  a.knee_exact_points = exact;
  KneeOptions knees;
  knees.max_exact_points = exact;
  // Configurations are independent and each draws from its own seed (the
  // i-th from opt.seed + i + 1, as in key order one after another), so the
  // results do not depend on the number of threads.
  // Fewer configurations than threads (one long sweep): their bootstraps
  // use the idle cores instead.
  RobustOptions robust;
  if (out.size() < opt.threads) robust.bootstrap_threads = opt.threads;
  for_each_index(out.size(), opt.threads, [&](std::size_t c) {
    std::vector<double> n, t;
    for (const Measurement* m : out[c].points) {
      n.push_back(static_cast<double>(m->bytes));
      t.push_back(m->time_s);
    }
    out[c].line = fit_line(n, t, resamples, opt.seed + c + 1, robust);
    out[c].piecewise = detect_knees(n, t, knees);
  });
  return out;
}

TransportFit fit_transport(const std::string& transport, const ResultsFile& results,
                           const AnalysisOptions& opt, std::vector<Cost>* basis_out,
                           std::vector<const Measurement*>* rows_out) {
  TransportFit tf;
  tf.transport = transport;
  std::vector<const Measurement*> candidates;
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
    candidates.push_back(&m);
  }
  // On every core: a closed form costs O(p) at p ranks for some algorithms
  // (tree, dbtree), and a file may hold 10^6 rows.
  std::vector<Cost> costs(candidates.size());
  for_each_in_blocks(candidates.size(), opt.threads, [&](std::size_t i) {
    const Measurement& m = *candidates[i];
    costs[i] = model_cost(*m.entry, m.scenario, m.count);
  });
  std::vector<Cost> basis;
  std::vector<double> t;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Cost& c = costs[i];
    if (c.alpha == 0 && c.beta == 0 && c.gamma == 0) {
      ++tf.excluded["model cost is zero (1 rank or count 0): nothing to fit"];
      continue;
    }
    basis.push_back(c);
    t.push_back(candidates[i]->time_s);
    rows_out->push_back(candidates[i]);
  }
  constexpr std::size_t kMinRows = 3;
  const FitRows chosen = choose_fit_rows(*rows_out, kMinRows);
  if (chosen.left_out > 0) tf.excluded[chosen.why] += chosen.left_out;
  tf.note = chosen.note;
  std::vector<Cost> fit_basis;
  std::vector<double> fit_t;
  for (std::size_t i : chosen.used) {
    fit_basis.push_back(basis[i]);
    fit_t.push_back(t[i]);
  }
  tf.rows_used = fit_basis.size();
  // The global fit runs alone: its bootstrap may use every core.
  RobustOptions robust;
  robust.bootstrap_threads = opt.threads;
  if (fit_basis.size() >= kMinRows)
    tf.fit = fit_global(fit_basis, fit_t, opt.global_resamples, opt.seed, robust);
  else if (!fit_basis.empty())
    tf.excluded["too few schedule rows for a global fit (< 3)"] += fit_basis.size();
  *basis_out = std::move(basis);
  return tf;
}

// Predictions of `rows`, row i priced by price(i) (seconds), on every core:
// pricing a row costs O(p) in closed form for some algorithms and O(p^2)
// through its schedule with terms.
template <class Price>
void add_predictions(Analysis& a, const std::vector<const Measurement*>& rows,
                     const ModelParams& params, const std::string& source, unsigned threads,
                     const Price& price) {
  std::vector<Prediction> out(rows.size());
  for_each_in_blocks(rows.size(), threads, [&](std::size_t i) {
    const Measurement& m = *rows[i];
    Prediction& p = out[i];
    p.row = &m;
    p.params = source;
    p.predicted_s = price(i);
    p.rel_err = (p.predicted_s - m.time_s) / m.time_s;
    p.lower_bound_s =
        lower_bound_seconds(m.scenario.coll, m.scenario.p, static_cast<double>(m.bytes),
                            m.scenario.ranks_per_node, params);
  });
  std::move(out.begin(), out.end(), std::back_inserter(a.predictions));
}

// Each row's configuration's mode probe (ConfigResult::probe), in order.
std::vector<ModeProbe> row_probes(const Analysis& a, const std::vector<const Measurement*>& rows) {
  std::map<ConfigKey, ModeProbe> of;
  for (const ConfigResult& c : a.configs) of[c.key] = c.probe;
  std::vector<ModeProbe> out;
  out.reserve(rows.size());
  for (const Measurement* m : rows) {
    const auto it = of.find(config_key(*m));
    out.push_back(it == of.end() ? ModeProbe{} : it->second);
  }
  return out;
}

// What identical_schedule_groups compares for one crossover group: its
// scenario, algorithms and smallest and largest measured count. Schedules do
// not depend on the transport, so both transports' groups of one scenario
// share one GroupQuery (and its result).
struct GroupQuery {
  std::vector<const AlgorithmEntry*> entries;
  Scenario scenario;
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
};

// The query of one group and the key under which equal queries meet.
std::pair<std::string, GroupQuery> group_query(const std::vector<const ConfigResult*>& configs) {
  GroupQuery q;
  q.scenario = configs.front()->points.front()->scenario;
  const Scenario& s = q.scenario;
  for (const ConfigResult* c : configs) {
    q.entries.push_back(c->points.front()->entry);
    for (const Measurement* m : c->points)
      if (m->count > 0) {
        q.lo = std::min(q.lo, m->count);
        q.hi = std::max(q.hi, m->count);
      }
  }
  std::string key = fmt::format("{} {} {} {} {} {} {}", static_cast<int>(s.coll), s.p,
                                static_cast<int>(s.dtype), static_cast<int>(s.op), s.in_place,
                                q.lo, q.hi);
  for (const AlgorithmEntry* e : q.entries) key += fmt::format(" {}", static_cast<const void*>(e));
  return {std::move(key), std::move(q)};
}

// Best choices of one group under one predictor (every size measured for two
// or more algorithms). They compare algorithms, so the predictor prices them
// all in one mode (in_one_mode), and passes no probe of its own.
void best_choices(std::vector<BestAtSize>& out, const GroupKey& g,
                  const std::vector<const ConfigResult*>& configs, const Predictor& predict,
                  const std::string& source) {
  std::map<std::uint64_t, std::map<std::string, const Measurement*>> at;
  std::map<std::string, const AlgorithmEntry*> entries;
  for (const ConfigResult* c : configs) {
    entries[c->key.algorithm] = c->points.front()->entry;
    for (const Measurement* m : c->points)
      if (m->bytes > 0) at[m->bytes][c->key.algorithm] = m;
  }
  for (const auto& [bytes, rows] : at) {
    if (rows.size() < 2) continue;
    const Measurement& any = *rows.begin()->second;
    BestAtSize b;
    b.group = g;
    b.params = source;
    b.bytes = bytes;
    std::map<std::string, double> pred;
    double best_pred = std::numeric_limits<double>::infinity();
    const Measurement* fastest = nullptr;
    for (const auto& [algo, m] : rows) {
      pred[algo] = predict(*entries.at(algo), any.scenario, m->count, ModeProbe{});
      best_pred = std::min(best_pred, pred[algo]);
      if (!fastest || m->time_s < fastest->time_s) fastest = m;
    }
    const TimeCI best_ci = ci_of(*fastest);
    b.measured_best_s = fastest->time_s;
    b.predicted_best_measured_s = std::numeric_limits<double>::infinity();
    for (const auto& [algo, m] : rows) {
      if (pred[algo] <= best_pred * (1 + 1e-9)) {
        b.predicted_best += (b.predicted_best.empty() ? "" : "|") + algo;
        b.predicted_best_measured_s = std::min(b.predicted_best_measured_s, m->time_s);
      }
      if (!significantly_faster(best_ci, ci_of(*m)))
        b.measured_best += (b.measured_best.empty() ? "" : "|") + algo;
    }
    b.regret = b.predicted_best_measured_s / b.measured_best_s - 1;
    out.push_back(std::move(b));
  }
}

// Predicted and measured crossovers of one group under one predictor.
void crossovers(std::vector<PairCrossover>& out, const GroupKey& g,
                const std::vector<const ConfigResult*>& configs, const std::vector<std::size_t>& rep,
                const Predictor& predict, const std::string& source) {
  std::vector<std::string> names(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (rep[i] == i) {
      names[i] = configs[i]->key.algorithm;
      for (std::size_t j = i + 1; j < configs.size(); ++j)
        if (rep[j] == i) names[i] += "=" + configs[j]->key.algorithm;
    }
  const Scenario& s = configs.front()->points.front()->scenario;
  // Each algorithm is in a pair with every other and the grid walks visit
  // the same counts: one prediction per (algorithm, count), since a closed
  // form costs O(p) at p ranks for some algorithms (dbtree, tree).
  std::vector<std::unordered_map<std::uint64_t, double>> memo(configs.size());
  const auto predicted = [&](std::size_t i, std::uint64_t count) {
    const auto [it, fresh] = memo[i].try_emplace(count, 0.0);
    if (fresh) it->second = predict(*configs[i]->points.front()->entry, s, count, ModeProbe{});
    return it->second;
  };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (rep[i] != i) continue;
    for (std::size_t j = i + 1; j < configs.size(); ++j) {
      if (rep[j] != j) continue;
      const ConfigResult& ca = *configs[i];
      const ConfigResult& cb = *configs[j];
      std::map<std::uint64_t, std::pair<const Measurement*, const Measurement*>> common;
      for (const Measurement* m : ca.points)
        if (m->bytes > 0) common[m->bytes].first = m;
      for (const Measurement* m : cb.points)
        if (m->bytes > 0) common[m->bytes].second = m;
      std::vector<double> n;
      std::vector<TimeCI> ta, tb;
      std::uint64_t lo = 0, hi = 0;
      for (const auto& [bytes, pair] : common) {
        if (!pair.first || !pair.second) continue;
        if (n.empty()) lo = pair.first->count;
        hi = pair.first->count;
        n.push_back(static_cast<double>(bytes));
        ta.push_back(ci_of(*pair.first));
        tb.push_back(ci_of(*pair.second));
      }
      if (n.size() < 2) continue;
      PairCrossover pc;
      pc.group = g;
      pc.params = source;
      pc.algo_a = names[i];
      pc.algo_b = names[j];
      set_measured_crossings(pc, n, ta, tb);
      const auto fa = [&](std::uint64_t c) { return predicted(i, c); };
      const auto fb = [&](std::uint64_t c) { return predicted(j, c); };
      for (const PredictedCrossing& x : grid_crossings(fa, fb, lo, hi))
        pc.predicted_B.push_back(
            three_digits(static_cast<double>(bytes_for_count(s.coll, s.p, s.dtype, x.count))));
      pc.predicted_faster_below = fa(lo) <= fb(lo) ? pc.algo_a : pc.algo_b;
      out.push_back(std::move(pc));
    }
  }
}

double median_or_nan(std::vector<double> v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : median(std::move(v));
}

}  // namespace

std::vector<Grade> grades_of(const Analysis& a) {
  std::vector<Grade> out;
  std::map<std::pair<std::string, std::string>, Grade> by;
  std::map<std::pair<std::string, std::string>, std::map<Collective, std::vector<double>>> coll;
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<double>>>
      err;
  std::map<std::pair<std::string, std::string>, std::vector<double>> err_all, signed_large;
  for (const Prediction& p : a.predictions) {
    if (p.params == kByConfig) continue;
    const auto key = std::make_pair(p.params, p.row->transport);
    const double e = std::fabs(p.rel_err);
    err_all[key].push_back(e);
    if (static_cast<double>(p.row->bytes) >= kLargeBytes) {
      err[key].first.push_back(e);
      signed_large[key].push_back(p.rel_err);
      coll[key][p.row->scenario.coll].push_back(e);
    } else {
      err[key].second.push_back(e);
    }
  }
  for (const auto& [key, e] : err) {
    Grade& g = by[key];
    g.params = key.first;
    g.transport = key.second;
    g.rows_large = e.first.size();
    g.rows_small = e.second.size();
    g.median_large = median_or_nan(e.first);
    g.median_signed_large = median_or_nan(signed_large[key]);
    g.median_small = median_or_nan(e.second);
    g.rows_all = err_all[key].size();
    g.median_all = median_or_nan(err_all[key]);
    for (const auto& [c, v] : coll[key]) {
      const double m = median_or_nan(v);
      if (g.worst_collective.empty() || m > g.worst_collective_median) {
        g.worst_collective = std::string(to_string(c));
        g.worst_collective_median = m;
      }
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<double>> regrets;
  for (const BestAtSize& b : a.best) {
    const auto key = std::make_pair(b.params, b.group.transport);
    Grade& g = by[key];
    g.params = key.first;
    g.transport = key.second;
    ++g.picks;
    g.picks_right += b.model_right();
    regrets[key].push_back(b.regret);
    g.worst_regret = std::max(g.worst_regret, b.regret);
  }
  for (auto& [key, g] : by) {
    g.median_regret = median_or_nan(regrets[key]);
    const auto terms = a.level_terms.find(g.params);
    g.per_rank_clocks = terms != a.level_terms.end() && terms->second.contains(Term::flight);
    out.push_back(g);
  }
  return out;
}

void GradeErrors::add(double rel_err, double bytes, Collective collective) {
  const double x = std::fabs(rel_err);
  all.push_back(x);
  if (bytes >= kLargeBytes) {
    large.push_back(x);
    signed_large.push_back(rel_err);
    coll[collective].push_back(x);
  } else {
    small.push_back(x);
  }
}

void GradeErrors::fill(Grade& g) const {
  g.rows_large = large.size();
  g.rows_small = small.size();
  g.rows_all = all.size();
  g.median_large = median_or_nan(large);
  g.median_signed_large = median_or_nan(signed_large);
  g.median_small = median_or_nan(small);
  g.median_all = median_or_nan(all);
  g.median_regret = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [c, v] : coll) {
    const double m = median_or_nan(v);
    if (g.worst_collective.empty() || m > g.worst_collective_median) {
      g.worst_collective = std::string(to_string(c));
      g.worst_collective_median = m;
    }
  }
}

bool on_two_levels(const Scenario& s) { return s.ranks_per_node >= 2 && s.p > s.ranks_per_node; }

std::vector<Grade> family_grades(const Analysis& a) {
  // (params, transport, hierarchical?)
  std::map<std::tuple<std::string, std::string, bool>, GradeErrors> by;
  for (const Prediction& p : a.predictions) {
    const Scenario& s = p.row->scenario;
    if (p.params == kByConfig || !on_two_levels(s)) continue;
    by[{p.params, p.row->transport, p.row->entry->composition != nullptr}].add(
        p.rel_err, static_cast<double>(p.row->bytes), s.coll);
  }
  std::vector<Grade> out;
  for (const auto& [key, e] : by) {
    Grade g;
    g.params = std::get<0>(key);
    g.transport = std::get<1>(key);
    g.targets = std::get<2>(key) ? &kTargetsHierarchical : &kTargetsTwoLevelFlat;
    e.fill(g);
    const auto terms = a.level_terms.find(g.params);
    g.per_rank_clocks = terms != a.level_terms.end() && terms->second.contains(Term::flight);
    if (std::get<2>(key))
      for (const PairCrossover& c : a.family_crossovers)
        if (c.params == g.params && c.group.transport == g.transport && !c.measured_B.empty()) {
          ++g.crossovers;
          g.crossovers_within_factor += c.verdict == "within";
          g.crossovers_within_interval += c.within_interval;
        }
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// The global fit of transport `tr` and its predictions of its rows: by the
// fit (in sample), by the calibration and by each ablation level the
// calibration measured (out of sample, each row in its configuration's
// mode, term probe).
TransportFit predict_transport(Analysis& a, const std::string& tr, const ResultsFile& results,
                               const AnalysisOptions& opt) {
  std::vector<Cost> basis;
  std::vector<const Measurement*> rows;
  TransportFit tf = fit_transport(tr, results, opt, &basis, &rows);
  // basis holds the rows' closed-form costs, in order.
  const auto closed_form_of = [&](const ModelParams& m) {
    return [&basis, m](std::size_t i) { return seconds(basis[i], m); };
  };
  if (tf.fit)
    add_predictions(a, rows, tf.fit->params, kByGlobal, opt.threads,
                    closed_form_of(tf.fit->params));
  const CalibrationInput* c = calibration_for(a, tr);
  if (!c) return tf;
  add_predictions(a, rows, c->params, kByCalibration, opt.threads, [&](std::size_t i) {
    const Measurement& m = *rows[i];
    if (on_two_levels(m.scenario, c->params))  // by level (two_level.hpp)
      return level_seconds(*m.entry, coll_params(m.scenario, m.count), c->params);
    return seconds(basis[i], c->params);
  });
  const std::vector<ModeProbe> probes = row_probes(a, rows);
  for (const TermSet used : measured_levels(c->terms)) {
    const Predictor predict = schedule_priced(*c, used);
    a.level_terms[calibration_label(used)] = used;
    add_predictions(a, rows, c->params, calibration_label(used), opt.threads,
                    [&](std::size_t i) {
                      const Measurement& m = *rows[i];
                      return predict(*m.entry, m.scenario, m.count, probes[i]);
                    });
  }
  return tf;
}

// Every row predicted by its configuration's own line (kByConfig).
void add_config_predictions(Analysis& a) {
  for (const ConfigResult& c : a.configs) {
    for (const Measurement* m : c.points) {
      Prediction p;
      p.row = m;
      p.params = kByConfig;
      p.predicted_s = c.line.a_s + c.line.b_s_per_B * static_cast<double>(m->bytes);
      p.rel_err = (p.predicted_s - m->time_s) / m->time_s;
      a.predictions.push_back(p);
    }
  }
}

using Groups = std::map<GroupKey, std::vector<const ConfigResult*>>;

// The schedule configurations by crossover group, each group's in registry
// order, so pairs read the same way in every group.
Groups crossover_groups(const std::vector<ConfigResult>& all) {
  Groups groups;
  for (const ConfigResult& c : all)
    if (!c.baseline) groups[group_of(c.key)].push_back(&c);
  for (auto& [g, configs] : groups) {
    const auto table = algorithms_for(g.coll);
    const auto rank = [&](const ConfigResult* c) {
      for (std::size_t i = 0; i < table.size(); ++i)
        if (table[i].name == c->key.algorithm) return i;
      return table.size();
    };
    std::stable_sort(configs.begin(), configs.end(),
                     [&](auto* x, auto* y) { return rank(x) < rank(y); });
  }
  return groups;
}

// The distinct queries of the groups, each with the groups (indexes in the
// groups' order) that ask it, and its identical-schedule representatives
// (identical_schedule_groups), computed on every core: each builds
// schedules (the costliest stage of a file with hundreds of rank counts)
// and depends on nothing but its query, so the results do not depend on
// the thread count.
struct Queries {
  std::vector<GroupQuery> queries;
  std::vector<std::vector<std::size_t>> groups_of_query;
  std::vector<std::vector<std::size_t>> reps;
};

Queries distinct_queries(const Groups& groups, unsigned threads) {
  Queries out;
  std::map<std::string, std::size_t> query_index;
  std::size_t k = 0;
  for (const auto& [g, configs] : groups) {
    auto [key, query] = group_query(configs);
    const auto [it, fresh] = query_index.try_emplace(std::move(key), out.queries.size());
    if (fresh) {
      out.queries.push_back(std::move(query));
      out.groups_of_query.emplace_back();
    }
    out.groups_of_query[it->second].push_back(k++);
  }
  out.reps.resize(out.queries.size());
  for_each_index(out.queries.size(), threads, [&](std::size_t i) {
    const GroupQuery& q = out.queries[i];
    out.reps[i] = identical_schedule_groups(q.entries, q.scenario, q.lo, q.hi);
  });
  return out;
}

// What one group adds to Analysis::crossovers and Analysis::best.
struct GroupOutput {
  std::vector<PairCrossover> crossovers;
  std::vector<BestAtSize> best;
};

// One group's crossovers and best choices: by the global fit, by the
// calibration, and with terms the best choices at every level, the pair
// crossovers at the full level and at the richest level without flight
// (so that its effect on the crossovers shows next to the step-synchronous
// price). `rep`: the group's identical-schedule representatives; `memo`
// shares closed-form costs between the groups of one query.
GroupOutput group_choices(const Analysis& a, const GroupKey& g,
                          const std::vector<const ConfigResult*>& configs,
                          const std::vector<std::size_t>& rep, CostMemo& memo) {
  GroupOutput out;
  auto& [xs, best] = out;
  for (const TransportFit& tf : a.transports)
    if (tf.transport == g.transport && tf.fit) {
      crossovers(xs, g, configs, rep, closed_form(tf.fit->params, memo), kByGlobal);
      best_choices(best, g, configs, closed_form(tf.fit->params, memo), kByGlobal);
    }
  const CalibrationInput* c = calibration_for(a, g.transport);
  if (!c) return out;
  const auto priced = [&](TermSet terms) {
    return in_one_mode(schedule_priced(*c, terms), configs);
  };
  crossovers(xs, g, configs, rep, closed_form(c->params, memo), kByCalibration);
  best_choices(best, g, configs, closed_form(c->params, memo), kByCalibration);
  TermSet full, step_synchronous;
  for (const TermSet level : measured_levels(c->terms)) {
    full = level;
    if (!full.contains(Term::flight)) step_synchronous = full;
    best_choices(best, g, configs, priced(full), calibration_label(full));
  }
  if (!step_synchronous.empty() && step_synchronous != full)
    crossovers(xs, g, configs, rep, priced(step_synchronous),
               calibration_label(step_synchronous));
  if (!full.empty()) crossovers(xs, g, configs, rep, priced(full), calibration_label(full));
  return out;
}

// Every group's crossovers and best choices, on every core, the groups of
// one query (both transports of a scenario) in one task that shares their
// closed-form costs; appended in group order.
void add_choices(Analysis& a, unsigned threads) {
  const Groups groups = crossover_groups(a.configs);
  const Queries q = distinct_queries(groups, threads);
  std::vector<Groups::const_pointer> in_order;
  for (const auto& entry : groups) in_order.push_back(&entry);
  std::vector<GroupOutput> outputs(in_order.size());
  for_each_index(q.queries.size(), threads, [&](std::size_t i) {
    CostMemo memo(q.queries[i].scenario);
    for (std::size_t k : q.groups_of_query[i])
      outputs[k] = group_choices(a, in_order[k]->first, in_order[k]->second, q.reps[i], memo);
  });
  for (GroupOutput& o : outputs) {
    std::move(o.crossovers.begin(), o.crossovers.end(), std::back_inserter(a.crossovers));
    std::move(o.best.begin(), o.best.end(), std::back_inserter(a.best));
  }
}

}  // namespace

Analysis analyze(const ResultsFile& results, const AnalysisOptions& opt) {
  Analysis a;
  a.source_file = results.file;
  a.rows = results.rows.size();
  a.calibrations = opt.calibrations;
  a.configs = fit_configs(results, opt, a);
  std::set<std::string> transports;
  for (const Measurement& m : results.rows) transports.insert(m.transport);
  for (const std::string& tr : transports)
    a.transports.push_back(predict_transport(a, tr, results, opt));
  add_config_predictions(a);
  add_choices(a, opt.threads);
  a.grades = grades_of(a);
  a.family_crossovers = family_crossovers(a);
  for (Grade& g : family_grades(a)) a.grades.push_back(std::move(g));
  return a;
}

}  // namespace cb::models
