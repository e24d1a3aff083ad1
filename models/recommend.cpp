#include "models/recommend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "models/csv_text.hpp"
#include "models/mpich_selection.hpp"
#include "models/predict.hpp"

namespace cb::models {

namespace {

// Every size of one line: algorithm -> its measurement.
using SizeTable = std::map<std::uint64_t, std::map<std::string, const Measurement*>>;

TimeCI ci_of(const Measurement& m) {
  // A file without CI columns: the median alone (every difference counts).
  if (std::isnan(m.ci_lo_s) || std::isnan(m.ci_hi_s) || (m.ci_lo_s <= 0 && m.ci_hi_s <= 0))
    return {m.time_s, m.time_s, m.time_s};
  return {m.time_s, std::min(m.ci_lo_s, m.time_s), std::max(m.ci_hi_s, m.time_s)};
}

// Whether the decision at the smallest measured size S0 may stand for the
// sizes below it (a rank count whose smallest whole count lies below the
// sweep's first size: OSU's 4 B reduce-scatter at p = 8 is 32 B in all).
// A time never falls as the message grows, so below S0 the chosen schedule
// takes at most its time at S0; the library's own time could fall further,
// but not by more than the minimum effect when it did not rise significantly
// from S0 to the next measured size S1 >= 2 S0 (the same CI rule): its
// per-byte part is then that small. Needs the library measured at both.
bool library_flat_at_start(const SizeTable& t, double min_effect) {
  if (t.size() < 2 || std::next(t.begin())->first < 2 * t.begin()->first) return false;
  const auto& first = t.begin()->second;
  const auto& second = std::next(t.begin())->second;
  const auto a = first.find("mpi"), b = second.find("mpi");
  if (a == first.end() || b == second.end()) return false;
  return !significantly_faster(ci_of(*a->second), ci_of(*b->second), min_effect);
}

// Whether a candidate that only ties the library at a measured size may still
// replace it there: its median is lower by more than the minimum effect, and at
// the measured sizes just below and just above it is significantly faster than
// the library (the rule above). A schedule's time between two sizes grows by
// its per-byte part alone (the same rounds), so a difference that favours the
// candidate at both ends and at the median between them does not turn; the tie
// is then one slow sample widening an interval (allgather p = 4 at 64 KiB in
// the 2 ms testbed run: naive 4.42 ms against 6.71 ms, naive's five samples
// reaching 6.99 ms, significantly faster at 32 and 128 KiB).
bool faster_on_both_sides(const SizeTable& t, SizeTable::const_iterator at, const Measurement& best,
                          const Measurement& library, double min_effect) {
  if (!(library.time_s > best.time_s * (1 + min_effect))) return false;
  if (at == t.begin() || std::next(at) == t.end()) return false;
  for (const auto side : {std::prev(at), std::next(at)}) {
    const auto c = side->second.find(best.algorithm), l = side->second.find("mpi");
    if (c == side->second.end() || l == side->second.end()) return false;
    if (!significantly_faster(ci_of(*c->second), ci_of(*l->second), min_effect)) return false;
  }
  return true;
}

std::map<LineKey, SizeTable> measured_tables(const std::vector<RecommendInput>& inputs) {
  std::map<LineKey, SizeTable> out;
  for (const RecommendInput& in : inputs)
    for (const Measurement& m : in.results.rows) {
      const LineKey k{in.setting,  m.transport, m.scenario.coll,      m.scenario.dtype,
                      m.has_op ? std::string(to_string(m.scenario.op)) : std::string(),
                      m.scenario.in_place ? "in" : "out", m.scenario.p, m.arrival};
      // A later row of the same configuration (a rerun) replaces an earlier one.
      if (m.bytes > 0) out[k][m.bytes][m.algorithm] = &m;
    }
  return out;
}

std::vector<SizeContenders> contenders_of(const SizeTable& t) {
  std::vector<SizeContenders> out;
  for (const auto& [bytes, algos] : t) {
    if (algos.size() < 2) continue;  // nothing to compare at this size
    SizeContenders s{bytes, {}};
    for (const auto& [name, m] : algos) s.contenders.push_back({name, ci_of(*m)});
    out.push_back(std::move(s));
  }
  return out;
}

// "2ms mpi allreduce fp32" (with_transport) or "2ms allreduce", then the op
// and placement when they are not sum, out of place, and the arrival pattern.
std::string family_text(const LineKey& k, bool with_transport) {
  return fmt::format("{}{}{}{}{}{}{}", k.setting.empty() ? "" : k.setting + " ",
                     with_transport ? k.transport + " " : std::string(), to_string(k.coll),
                     with_transport ? fmt::format(" {}", to_string(k.dtype)) : std::string(),
                     k.op.empty() || k.op == "sum" ? std::string() : fmt::format(" {}", k.op),
                     k.placement == "in" ? " in-place" : "",
                     k.arrival.empty() ? std::string() : fmt::format(" under {}", k.arrival));
}

// The most tolerant algorithm by size under a pattern: the shortest median
// time from the last arrival (its CI is not measured, so the interval is the
// median itself and the minimum effect alone decides).
std::vector<SizeWinner> most_tolerant(const SizeTable& t, double min_effect) {
  std::vector<SizeContenders> sizes;
  for (const auto& [bytes, algos] : t) {
    SizeContenders s{bytes, {}};
    for (const auto& [name, m] : algos)
      if (std::isfinite(m->after_last_s) && m->after_last_s > 0)
        s.contenders.push_back({name, {m->after_last_s, m->after_last_s, m->after_last_s}});
    if (s.contenders.size() >= 2) sizes.push_back(std::move(s));
  }
  return decide_winners(sizes, min_effect);
}

// The winners text that fits after a head of `used` columns (at least 20 columns).
std::string winners_after(std::size_t used, const std::vector<SizeWinner>& w,
                          std::size_t max_columns) {
  return winners_text(w, max_columns > used + 20 ? max_columns - used : 20);
}

// The second line of a recommendation under a pattern.
std::string tolerant_line(const std::vector<SizeWinner>& tolerant, std::size_t max_columns) {
  const std::string head = "  most tolerant (time after the last arrival): ";
  return head + winners_after(text_columns(head), tolerant, max_columns);
}

std::string key_text(const LineKey& k) {
  return fmt::format("{} p={}", family_text(k, true), k.ranks);
}

// Predicted lines of one model: its transport's (setting's) measured
// configurations at the ranks not measured, over the sizes measured.
void predict_lines(std::vector<Recommendation>& out, const std::map<LineKey, SizeTable>& tables,
                   const RecommendModel& model, const RecommendOptions& o) {
  // (setting, coll, dtype, op, placement) -> measured ranks, algorithms, sizes.
  struct Family {
    LineKey any;
    std::set<int> ranks;
    std::set<std::string> algorithms;
    std::set<std::uint64_t> sizes;
    // The rows' ranks per node (Scenario::ranks_per_node) when they all share
    // one, else 0: predicted ranks keep it (more nodes of the same size), and
    // a two-level model prices them by level.
    std::optional<int> ranks_per_node;
  };
  std::map<LineKey, Family> families;
  for (const auto& [k, t] : tables) {
    if (k.transport != model.transport || (!model.setting.empty() && k.setting != model.setting))
      continue;
    if (!k.arrival.empty()) continue;  // the calibration prices ranks that start together
    LineKey fk = k;
    fk.ranks = 0;
    Family& f = families[fk];
    f.any = k;
    f.ranks.insert(k.ranks);
    for (const auto& [bytes, algos] : t) {
      f.sizes.insert(bytes);
      for (const auto& [name, m] : algos) {
        if (m->entry) f.algorithms.insert(name);
        const int k = m->scenario.ranks_per_node;
        f.ranks_per_node = !f.ranks_per_node || *f.ranks_per_node == k ? k : 0;
      }
    }
  }
  for (const auto& [fk, f] : families) {
    std::vector<int> ranks = o.predict_ranks;
    if (ranks.empty()) ranks = {2 * *f.ranks.rbegin()};
    for (int p : ranks) {
      if (f.ranks.count(p) || f.algorithms.size() < 2) continue;
      LineKey k = fk;
      k.ranks = p;
      const Scenario s{k.coll, p, k.dtype,
                       k.op.empty() ? ReduceOp::sum : parse_reduce_op(k.op), k.placement == "in",
                       f.ranks_per_node.value_or(0)};
      std::vector<SizeContenders> sizes;
      for (std::uint64_t bytes : f.sizes) {
        const auto count = count_for_bytes(k.coll, p, k.dtype, bytes);
        if (!count || *count == 0) continue;
        SizeContenders sc{bytes, {}};
        for (const std::string& a : f.algorithms) {
          const double t = predict_seconds(find_algorithm(k.coll, a), s, *count, model.params);
          sc.contenders.push_back({a, {t, t, t}});
        }
        sizes.push_back(std::move(sc));
      }
      if (sizes.empty()) continue;
      std::string name = fmt::format("alpha-beta-gamma of {}", model.file);
      if (!model.validated_error.empty()) name += fmt::format(", {}", model.validated_error);
      out.push_back({k, true, name, decide_winners(sizes, o.min_effect), {}});
    }
  }
}

int collective_rank(Collective c) {
  for (std::size_t i = 0; i < std::size(kAllCollectives); ++i)
    if (kAllCollectives[i] == c) return static_cast<int>(i);
  return 0;
}

}  // namespace

std::vector<Recommendation> recommend(const std::vector<RecommendInput>& inputs,
                                      const std::vector<RecommendModel>& models,
                                      const RecommendOptions& o) {
  const std::map<LineKey, SizeTable> tables = measured_tables(inputs);
  std::vector<Recommendation> out;
  for (const auto& [k, t] : tables) {
    std::set<std::string> algos;
    for (const auto& [bytes, a] : t)
      for (const auto& [name, m] : a) algos.insert(name);
    if (algos.size() < 2) continue;  // one algorithm: nothing to recommend between
    std::vector<SizeContenders> sizes = contenders_of(t);
    if (sizes.empty())
      throw UsageError(fmt::format("{}: {} algorithms but no size that two of them share: "
                                   "nothing to compare",
                                   key_text(k), algos.size()));
    out.push_back({k, false, "", decide_winners(sizes, o.min_effect),
                   k.arrival.empty() ? std::vector<SizeWinner>{} : most_tolerant(t, o.min_effect)});
  }
  if (out.empty())
    throw UsageError("no configuration has two algorithms measured at the same size: nothing "
                     "to compare (give a sweep of several algorithms, e.g. collbench run -a all)");
  std::set<std::string> transports;
  for (const auto& [k, t] : tables) transports.insert(k.transport);
  for (const RecommendModel& m : models) {
    if (!transports.count(m.transport)) {
      std::string have;
      for (const std::string& t : transports) have += fmt::format("{}{}", have.empty() ? "" : ", ", t);
      throw UsageError(fmt::format("--calibration {}: calibrates transport {}, but the results "
                                   "measured only {}",
                                   m.file, m.transport, have));
    }
    predict_lines(out, tables, m, o);
  }
  std::sort(out.begin(), out.end(), [](const Recommendation& a, const Recommendation& b) {
    const auto key = [](const Recommendation& r) {
      return std::tie(r.key.setting, r.key.transport);
    };
    if (key(a) != key(b)) return key(a) < key(b);
    if (a.key.coll != b.key.coll) return collective_rank(a.key.coll) < collective_rank(b.key.coll);
    return a.key < b.key;
  });
  return out;
}

std::string recommendation_line(const Recommendation& r, std::size_t max_columns) {
  const std::string head =
      fmt::format("{}{}: ", key_text(r.key), r.predicted ? " (predicted)" : "");
  std::string line = head + winners_after(text_columns(head), r.winners, max_columns);
  if (!r.tolerant.empty()) line += fmt::format("\n{}", tolerant_line(r.tolerant, max_columns));
  return line;
}

AnswerLines answer_lines(const std::vector<Recommendation>& recs, std::size_t max_columns) {
  AnswerLines out;
  bool same = !recs.empty();
  for (const Recommendation& r : recs)
    same = same && r.key.transport == recs.front().key.transport &&
           r.key.dtype == recs.front().key.dtype;
  if (same)
    out.shared = fmt::format("{} {}", recs.front().key.transport, to_string(recs.front().key.dtype));
  // (family, predicted, answer) -> its rank counts, in order of appearance.
  struct Line {
    std::string family, answer, tolerant;
    bool predicted = false;
    std::vector<int> ranks;
  };
  std::vector<Line> lines;
  for (const Recommendation& r : recs) {
    const std::string family = family_text(r.key, !same);
    const std::size_t head =
        text_columns(fmt::format("{} p={}{}: ", family, r.key.ranks, r.predicted ? " (predicted)" : ""));
    const std::string answer = winners_after(head, r.winners, max_columns);
    const std::string tolerant = r.tolerant.empty() ? "" : tolerant_line(r.tolerant, max_columns);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) {
      return l.family == family && l.predicted == r.predicted && l.answer == answer &&
             l.tolerant == tolerant;
    });
    if (it != lines.end())
      it->ranks.push_back(r.key.ranks);
    else
      lines.push_back({family, answer, tolerant, r.predicted, {r.key.ranks}});
  }
  for (const Line& l : lines) {
    std::string ranks;
    for (int p : l.ranks) ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", p);
    std::string text = fmt::format("{} p={}{}: {}", l.family, ranks,
                                   l.predicted ? " (predicted)" : "", l.answer);
    // Merged rank lists can push a line past the limit: cut it.
    if (text_columns(text) > max_columns) {
      std::string cut;
      std::size_t cols = 0;
      for (char ch : text) {
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80 && ++cols > max_columns - 3) break;
        cut += ch;
      }
      text = cut + "...";
    }
    out.lines.push_back(std::move(text));
    if (!l.tolerant.empty()) out.lines.push_back(l.tolerant);
  }
  return out;
}

std::string recommendations_csv(const std::vector<Recommendation>& recs) {
  std::string out =
      "transport,collective,datatype,ranks,from_bytes,to_bytes,algorithm,tied_with,source,margin,"
      "speedup_vs_library,op,placement,setting,model,arrival\n";
  for (const Recommendation& r : recs)
    for (const WinnerRange& w : winner_ranges(r.winners)) {
      std::string tied;
      for (const std::string& t : w.tied_with) tied += fmt::format("{}{}", tied.empty() ? "" : "|", t);
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                         csv_escape(r.key.transport), to_string(r.key.coll),
                         to_string(r.key.dtype), r.key.ranks, w.from_bytes, w.to_bytes,
                         csv_escape(w.algorithm), csv_escape(tied),
                         r.predicted ? "predicted" : "measured", csv_number(w.margin),
                         csv_number(w.speedup_vs_library), r.key.op, r.key.placement,
                         csv_escape(r.key.setting), csv_escape(r.model), csv_escape(r.key.arrival));
    }
  return out;
}

std::string winners_csv(const std::vector<Recommendation>& recs) {
  std::string out =
      "transport,collective,datatype,ranks,bytes,algorithm,tied_with,source,time_us,"
      "library_time_us,op,placement,setting,arrival,most_tolerant\n";
  for (const Recommendation& r : recs)
    for (const SizeWinner& w : r.winners) {
      std::string tied;
      for (const std::string& t : w.tied_with) tied += fmt::format("{}{}", tied.empty() ? "" : "|", t);
      std::string tolerant;
      for (const SizeWinner& t : r.tolerant)
        if (t.bytes == w.bytes) tolerant = t.algorithm;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(r.key.transport),
                         to_string(r.key.coll), to_string(r.key.dtype), r.key.ranks, w.bytes,
                         csv_escape(w.algorithm), csv_escape(tied),
                         r.predicted ? "predicted" : "measured", csv_number(w.time_s * 1e6),
                         csv_number(w.library_s * 1e6), r.key.op, r.key.placement,
                         csv_escape(r.key.setting), csv_escape(r.key.arrival), csv_escape(tolerant));
    }
  return out;
}

std::vector<std::string> mpi_settings(const std::vector<Recommendation>& recs) {
  std::set<std::string> s;
  for (const Recommendation& r : recs)
    if (r.key.transport == "mpi" && !r.predicted) s.insert(r.key.setting);
  return {s.begin(), s.end()};
}

nlohmann::ordered_json recommended_selection(const nlohmann::ordered_json& default_tree,
                                             const std::vector<RecommendInput>& inputs,
                                             const std::string& setting, double min_effect,
                                             bool collbench_leaves) {
  const std::map<LineKey, SizeTable> tables = measured_tables(inputs);
  // (coll, p) -> the table used: transport mpi, out of place, fp32 first.
  std::map<std::pair<Collective, int>, const SizeTable*> chosen;
  std::map<std::pair<Collective, int>, bool> is_fp32;
  std::set<int> comm_sizes;
  for (const auto& [k, t] : tables) {
    if (k.transport != "mpi" || k.setting != setting || k.placement != "out") continue;
    if (!k.arrival.empty()) continue;  // MPICH's selection is for ranks that start together
    if (!k.op.empty() && k.op != "sum") continue;
    const auto at = std::make_pair(k.coll, k.ranks);
    const bool fp32 = k.dtype == DataType::fp32;
    if (chosen.count(at) && (is_fp32[at] || !fp32)) continue;
    chosen[at] = &t;
    is_fp32[at] = fp32;
    comm_sizes.insert(k.ranks);
  }
  const SelectionChooser measured = [&](Collective coll, int p, std::uint64_t S,
                                        bool allow_pow2_only) -> std::string {
    const auto it = chosen.find({coll, p});
    if (it == chosen.end()) return "";
    const SizeTable& t = *it->second;
    if (t.empty() || S > t.rbegin()->first) return "";
    // The measured size nearest to S in log scale, within the measured span;
    // below it, the smallest measured size where the library is flat there.
    if (S < t.begin()->first && !library_flat_at_start(t, min_effect)) return "";
    const auto above = t.lower_bound(S);
    auto near = above;
    if (above != t.begin() && above->first != S &&
        std::log(static_cast<double>(above->first) / S) >
            std::log(S / static_cast<double>(std::prev(above)->first)))
      near = std::prev(above);
    const Measurement* best = nullptr;
    const Measurement* library = nullptr;
    for (const auto& [name, m] : near->second) {
      if (name == "mpi") library = m;
      if (collbench_leaves) {
        // Registered schedules only: the PMPI library runs no compositions.
        if (!m->entry || m->entry->composition) continue;
      } else {
        if (mpich_algorithm(coll, name).empty()) continue;
        if (!allow_pow2_only && m->entry && m->entry->mpich_pow2_only) continue;
      }
      if (!best || m->time_s < best->time_s) best = m;
    }
    if (!best) return "";
    // The library's own stays unless the candidate is faster beyond the
    // noise; collbench's file also keeps it where the library was not measured.
    if (!library) return collbench_leaves ? "" : best->algorithm;
    if (significantly_faster(ci_of(*best), ci_of(*library), min_effect)) return best->algorithm;
    return faster_on_both_sides(t, near, *best, *library, min_effect) ? best->algorithm : "";
  };
  SelectionGrid grid;
  grid.comm_sizes.assign(comm_sizes.begin(), comm_sizes.end());
  grid.exact_comm_sizes = true;
  grid.collbench_leaves = collbench_leaves;
  return mpich_selection(default_tree, measured, grid);
}

}  // namespace cb::models
