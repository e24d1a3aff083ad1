// The stdout table: nccl-tests' columns (size, count, type, redop, then per
// placement time, algbw, busbw, #wrong) plus algo, ranks and the spread of
// the time (median as time(us), min, p95). The header lists the sweep
// settings, the load and the rank -> host/pid/core map, as nccl-tests lists
// its devices. Each (transport, collective, ranks) section ends with every
// algorithm's peak busbw, the winner per size with its ties and the sizes
// where the winner changes, decided by the rule `fit` and `recommend` use
// (models/winners.hpp: CIs separate and the margin exceeds the minimum
// effect), so the crossovers never contradict the best by size. The run ends
// with nccl-tests' closing lines ("Avg bus bandwidth", one per algorithm),
// which scripts grep for.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/registry.hpp"
#include "harness/report/reporter.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/runtime/load.hpp"
#include "transports/contract/sizes.hpp"
#include "models/crossover.hpp"
#include "models/winners.hpp"
#include "models/schedule_model.hpp"

namespace cb {
namespace {

// Two decimals where that is readable; significant digits for huge times
// (simulated seconds at scale) and tiny bandwidths, which "%.2f" turns into
// "1155741195.60" and "0.00".
std::string number(double v) {
  if (v == 0) return "0";
  const double a = v < 0 ? -v : v;
  if (a >= 1e7) return fmt::format("{:.3g}", v);  // "2.15e+09": 8 characters
  if (a < 0.01) return fmt::format("{:.2g}", v);  // "3.3e-07": fits the 7-wide columns
  return fmt::format("{:.2f}", v);
}

std::string op_text(const Case& c) {
  return is_reducing(c.coll) ? std::string(to_string(c.op)) : "none";
}

class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(std::FILE* out) : out_(out) {}

  void begin(const RunInfo& info) override {
    show_out_ = info.out_of_place;
    show_in_ = info.in_place;
    if (info.configuration.is_object())
      arrival_ = info.configuration.value("arrival", std::string("none"));
    // A computed run (the simulator) records no host or time (cmd_run.cpp).
    fmt::print(out_, "# collbench {} ({}), {}{}{}\n", info.meta.collbench_version,
               info.meta.git_rev, info.meta.mpi_version,
               info.meta.host.empty() ? "" : ", host " + info.meta.host,
               info.meta.timestamp.empty() ? "" : ", " + info.meta.timestamp);
    settings(info.configuration);
    if (info.meta.load) fmt::print(out_, "# Load at start: {}\n", describe(*info.meta.load));
    if (!info.meta.layout.empty()) fmt::print(out_, "# Node layout: {}\n", info.meta.layout);
    // The rank map, as nccl-tests lists its devices.
    if (!info.meta.places.empty()) fmt::print(out_, "#\n# Using ranks\n");
    for (const RankPlace& p : info.meta.places)
      fmt::print(out_, "#  Rank {:>3} Pid {:>7} on {} core {:>3} (may run on {})\n", p.rank,
                 p.pid, p.host, p.core, p.affinity);
    std::fflush(out_);
  }

  void row(const Row& r) override {
    if (!r.skipped.empty()) {  // skipped (the simulator's --max-events or memory): no time to show
      flush_pending();
      fmt::print(out_, "# {} {} p={} {}: {}\n", to_string(r.c.coll), r.c.algorithm, r.c.ranks,
                 format_bytes(r.c.bytes()), r.skipped);
      std::fflush(out_);
      return;
    }
    const auto key = std::make_tuple(r.c.transport, r.c.coll, r.c.ranks);
    if (!section_ || *section_ != key) {
      flush_pending();
      footer();
      section_ = key;
      header(r);
    }
    section_rows_.push_back(r);
    ++rows_;
    if (!busbw_.count(r.c.algorithm)) busbw_order_.push_back(r.c.algorithm);
    busbw_[r.c.algorithm].first += r.busbw_GBps;
    ++busbw_[r.c.algorithm].second;
    if (r.time_s.median > 0 &&
        (r.time_s.ci_hi - r.time_s.ci_lo) / 2 > kNoisyHalfWidth * r.time_s.median) {
      if (noisy_++ == 0)
        first_noisy_ = fmt::format("{} {} {} on {} ranks, {} us [{}, {}]", r.c.algorithm,
                                   format_bytes(r.c.bytes()), r.c.in_place ? "in" : "out",
                                   r.c.ranks, number(r.time_s.median * 1e6),
                                   number(r.time_s.ci_lo * 1e6), number(r.time_s.ci_hi * 1e6));
    }
    if (r.wrong) {
      checked_ = true;
      wrong_total_ += *r.wrong;
      if (*r.wrong && !r.known_issue.empty()) {
        known_wrong_ += *r.wrong;
        known_issues_.insert(r.known_issue);
      }
    }
    if (show_out_ && show_in_) {
      if (!r.c.in_place) {
        flush_pending();
        pending_ = r;
        return;
      }
      if (pending_ && partners(*pending_, r)) {
        line(&*pending_, &r);
        pending_.reset();
        return;
      }
      flush_pending();
      line(nullptr, &r);
      return;
    }
    line(r.c.in_place ? nullptr : &r, r.c.in_place ? &r : nullptr);
  }

  void finish(bool complete) override {
    flush_pending();
    footer();
    if (!checked_)
      fmt::print(out_, "# Results not verified (-c 0, or a transport that moves no data)\n");
    else
      fmt::print(out_, "# Wrong elements: {} {}\n", wrong_total_, wrong_total_ ? "FAILED" : "OK");
    // Say so when a library baseline is wrong for a known upstream reason.
    for (const std::string& issue : known_issues_)
      fmt::print(out_, "# {} of them in library-baseline rows with a known bug: {}\n",
                 known_wrong_, issue);
    if (noisy_ > 0)
      fmt::print(out_,
                 "# Noisy: {} of {} configurations have a 95% CI of the median wider than "
                 "+-{:.0f}% (first: {}); a larger --time-budget or -n, or a quieter machine, "
                 "tightens them\n",
                 noisy_, rows_, kNoisyHalfWidth * 100, first_noisy_);
    // nccl-tests' closing lines, for the scripts that grep them. Its
    // average is over the rows of one algorithm (nccl-tests runs one), so
    // here one line per algorithm, saying which: an average across
    // algorithms would mean nothing.
    if (checked_)
      fmt::print(out_, "# Out of bounds values : {} {}\n", wrong_total_,
                 wrong_total_ ? "FAILED" : "OK");
    for (const std::string& a : busbw_order_)
      fmt::print(out_, "# Avg bus bandwidth    : {:g} ({}: mean busbw of its {} rows)\n",
                 busbw_[a].first / static_cast<double>(busbw_[a].second), a, busbw_[a].second);
    if (busbw_order_.empty()) fmt::print(out_, "# Avg bus bandwidth    : 0 \n");
    fmt::print(out_, "#\n");
    if (!complete)
      fmt::print(out_, "# Interrupted: the rows above are complete, the rest was not run\n");
    std::fflush(out_);
  }

 private:
  static bool partners(const Row& a, const Row& b) {
    return a.c.algorithm == b.c.algorithm && a.c.dtype == b.c.dtype && a.c.op == b.c.op &&
           a.c.count == b.c.count;
  }

  // The sweep as resolved (Plan::to_json), on two lines.
  void settings(const nlohmann::json& c) {
    if (c.is_null() || !c.is_object()) return;
    const auto text = [&](const char* key) -> std::string {
      if (!c.contains(key) || c[key].is_null()) return "-";
      if (c[key].is_string()) return c[key].get<std::string>();
      if (c[key].is_array()) {
        std::string out;
        for (const auto& v : c[key]) out += fmt::format("{}{}", out.empty() ? "" : ",", v.dump());
        return out;
      }
      return c[key].dump();
    };
    const std::string step = text("increment") != "0" && text("increment") != "-"
                                 ? fmt::format("+{} B", text("increment"))
                                 : fmt::format("x{}", text("factor"));
    fmt::print(out_,
               "# Sweep: transport {}, collectives {}, algorithms {}, sizes -b {} .. -e {} ({}), "
               "datatypes {}, ops {}, placement {}, ranks {}\n",
               text("transport"), text("collectives"), text("algorithms"), text("min_bytes"),
               text("max_bytes"), step, text("datatypes"), text("ops"), text("placement"),
               text("ranks"));
    const bool adaptive = text("iterations") == "0";
    const double ci = c.value("ci_rel", 0.0);
    fmt::print(out_, "# Timing: {}, warm-up {}, check {}, wait {}, start {}, segment {}\n",
               adaptive ? fmt::format("adaptive iterations (until the median's 95% CI is within "
                                      "+-{:g}%, or {} s per configuration)",
                                      ci * 100, text("time_budget_s"))
                        : fmt::format("{} iterations", text("iterations")),
               text("warmup"), c.value("verify", true) ? "on" : "off", text("wait"),
               c.value("start", std::string("barrier")),
               text("segment") == "0" ? "algorithm default" : text("segment"));
    if (arrival_ != "none")
      fmt::print(out_,
                 "# Arrival: {} (docs/arrival.md): time(us) is first arrival to last completion; "
                 "after(us) last arrival to last completion and x0 its ratio to the no-skew "
                 "time of the same run; idle(us) the early ranks' time held beyond the no-skew "
                 "time\n",
                 arrival_);
  }

  void header(const Row& r) {
    fmt::print(out_, "#\n# {} on {} ranks, transport {}{}{}{}{}\n#\n", to_string(r.c.coll),
               r.c.ranks, r.c.transport, r.wait ? ", wait " : "",
               r.wait ? to_string(*r.wait) : "",
               r.oversubscribed ? " (OVERSUBSCRIBED: ranks outnumber cores)" : "",
               r.clock_sync_s ? fmt::format(", clocks synchronized within +-{} us",
                                            number(*r.clock_sync_s * 1e6))
                              : std::string());
    std::string block = fmt::format("{:>10} {:>9} {:>9} {:>7} {:>7} {:>6}", "time(us)",
                                    "min(us)", "p95(us)", "algbw", "busbw", "#wrong");
    std::string units = fmt::format("{:>10} {:>9} {:>9} {:>7} {:>7} {:>6}", "median", "", "",
                                    "(GB/s)", "(GB/s)", "");
    if (arrival_ != "none") {
      block += fmt::format(" {:>9} {:>6} {:>9}", "after(us)", "x0", "idle(us)");
      units += fmt::format(" {:>9} {:>6} {:>9}", "median", "", "");
    }
    std::string title = fmt::format("#{:>11} {:>12} {:>6} {:>6} {:>10} {:>5}", "size", "count",
                                    "type", "redop", "algo", "ranks");
    std::string sub =
        fmt::format("#{:>11} {:>12} {:>6} {:>6} {:>10} {:>5}", "(B)", "(elements)", "", "", "", "");
    std::string place =
        fmt::format("#{:>11} {:>12} {:>6} {:>6} {:>10} {:>5}", "", "", "", "", "", "");
    if (show_out_) {
      title += "  " + block;
      sub += "  " + units;
      place += fmt::format("  {:^{}}", "out-of-place", block.size() + 1);
    }
    if (show_in_) {
      title += "  " + block;
      sub += "  " + units;
      place += fmt::format("  {:^{}}", "in-place", block.size() + 1);
    }
    fmt::print(out_, "{}\n{}\n{}\n", place, title, sub);
  }

  void line(const Row* out_row, const Row* in_row) {
    const Row& any = out_row ? *out_row : *in_row;
    std::string text =
        fmt::format("{:>12} {:>12} {:>6} {:>6} {:>10} {:>5}", any.c.bytes(), any.c.count,
                    to_string(any.c.dtype), op_text(any.c), any.c.algorithm, any.c.ranks);
    const bool arrival = arrival_ != "none";
    const auto block = [arrival](const Row* r) {
      if (!r)
        return fmt::format("{:>10} {:>9} {:>9} {:>7} {:>7} {:>6}", "-", "-", "-", "-", "-", "-") +
               (arrival ? fmt::format(" {:>9} {:>6} {:>9}", "-", "-", "-") : std::string());
      std::string text = fmt::format(
          "{:>10} {:>9} {:>9} {:>7} {:>7} {:>6}", number(r->time_s.median * 1e6),
          number(r->time_s.min * 1e6), number(r->time_s.p95 * 1e6), number(r->algbw_GBps),
          number(r->busbw_GBps), r->wrong ? fmt::format("{}", *r->wrong) : std::string("N/A"));
      if (arrival) {
        const auto us = [](const std::optional<double>& v) {
          return v ? number(*v * 1e6) : std::string("-");
        };
        const bool ratio = r->after_last_median_s && r->noskew_median_s && *r->noskew_median_s > 0;
        text += fmt::format(" {:>9} {:>6} {:>9}", us(r->after_last_median_s),
                            ratio ? number(*r->after_last_median_s / *r->noskew_median_s) : "-",
                            us(r->early_idle_s));
      }
      return text;
    };
    if (show_out_) text += "  " + block(out_row);
    if (show_in_) text += "  " + block(in_row);
    fmt::print(out_, "{}\n", text);
    std::fflush(out_);
  }

  void flush_pending() {
    if (!pending_) return;
    line(&*pending_, nullptr);
    pending_.reset();
  }

  // Peak busbw per algorithm and the best algorithm per size, for each
  // (datatype, op) of the section, from out-of-place rows when there are any.
  void footer() {
    if (section_rows_.empty()) return;
    bool have_out = false;
    for (const Row& r : section_rows_) have_out |= !r.c.in_place;
    std::map<std::pair<DataType, std::string>, std::vector<const Row*>> groups;
    for (const Row& r : section_rows_)
      if (r.c.in_place != have_out) groups[{r.c.dtype, op_text(r.c)}].push_back(&r);
    const Row& first = section_rows_.front();
    for (const auto& [key, rows] : groups) {
      fmt::print(out_, "# {} on {} ranks, {} {}, {}:\n", to_string(first.c.coll), first.c.ranks,
                 to_string(key.first), key.second, have_out ? "out-of-place" : "in-place");
      std::vector<std::string> algos;
      std::map<std::string, const Row*> peak;
      for (const Row* r : rows) {
        if (!peak.count(r->c.algorithm)) algos.push_back(r->c.algorithm);
        const Row*& p = peak[r->c.algorithm];
        if (!p || r->busbw_GBps > p->busbw_GBps) p = r;
      }
      std::string peaks;
      for (const std::string& a : algos)
        peaks += fmt::format("{}{} {} @ {}", peaks.empty() ? "" : ", ", a,
                             number(peak[a]->busbw_GBps), format_bytes(peak[a]->c.bytes()));
      fmt::print(out_, "#   peak busbw (GB/s): {}\n", peaks);
      const std::vector<models::SizeWinner> w = winners(rows);
      if (!w.empty()) {
        fmt::print(out_,
                   "#   best by size (winner changes only where the 95% CIs separate by > {:g}%; "
                   "tied = within that): {}\n",
                   100 * models::kMinEffect, models::winners_text(w));
        const std::string same = identical(rows);
        fmt::print(out_, "#   measured crossovers (where the best by size changes): {}{}\n",
                   changes(w),
                   same.empty() ? "" : fmt::format(" (identical schedules: {})", same));
      }
      if (arrival_ != "none")
        fmt::print(out_,
                   "#   most tolerant of {} by size (the shortest time from the last arrival to "
                   "the last completion; its ratio to its own no-skew time): {}\n",
                   arrival_, most_tolerant(rows));
    }
    section_rows_.clear();
    std::fflush(out_);
  }

  static models::TimeCI ci_of(const Row& r) {
    return {r.time_s.median, std::min(r.time_s.ci_lo, r.time_s.median),
            std::max(r.time_s.ci_hi, r.time_s.median)};
  }

  // The winner per size by models/winners.hpp's rule (the one `fit` and
  // `recommend` use): sizes measured by two or more algorithms.
  static std::vector<models::SizeWinner> winners(const std::vector<const Row*>& rows) {
    std::map<std::size_t, std::vector<models::Contender>> at;
    for (const Row* r : rows)
      if (r->c.bytes() > 0 && r->time_s.median > 0)
        at[r->c.bytes()].push_back({r->c.algorithm, ci_of(*r)});
    std::vector<models::SizeContenders> sizes;
    for (auto& [bytes, c] : at)
      if (c.size() >= 2) sizes.push_back({bytes, std::move(c)});
    return models::decide_winners(sizes);
  }

  // Runs of sizes with the same most tolerant algorithm under --arrival:
  // "ring 64 KiB..1 MiB (1.1x) | rhd 2 MiB (1.3x)" (the ratio of the run's
  // first size).
  static std::string most_tolerant(const std::vector<const Row*>& rows) {
    std::map<std::size_t, const Row*> at;
    for (const Row* r : rows) {
      if (!r->after_last_median_s) continue;
      const Row*& b = at[r->c.bytes()];
      if (!b || *r->after_last_median_s < *b->after_last_median_s) b = r;
    }
    std::string out, algo, first, last, ratio;
    const auto close = [&] {
      if (algo.empty()) return;
      out += fmt::format("{}{} {}{}", out.empty() ? "" : " | ", algo,
                         first == last ? first : fmt::format("{}..{}", first, last), ratio);
    };
    for (const auto& [bytes, r] : at) {
      if (r->c.algorithm == algo) {
        last = format_bytes(bytes);
        continue;
      }
      close();
      algo = r->c.algorithm;
      first = last = format_bytes(bytes);
      ratio = r->noskew_median_s && *r->noskew_median_s > 0
                  ? fmt::format(" ({}x)", number(*r->after_last_median_s / *r->noskew_median_s))
                  : std::string();
    }
    close();
    return out.empty() ? "none" : out;
  }

  // "naive -> butterfly between 16 KiB and 32 KiB, ...": where the winner
  // changes, with the interval the crossover lies in.
  static std::string changes(const std::vector<models::SizeWinner>& w) {
    std::string out;
    for (const models::WinnerChange& c : models::winner_changes(w))
      out += fmt::format("{}{} -> {} between {} and {}", out.empty() ? "" : ", ", c.from, c.to,
                         format_bytes(c.last_old_bytes), format_bytes(c.first_new_bytes));
    return out.empty() ? "none" : out;
  }

  // "ring=rhd": algorithms whose schedules are identical at these ranks
  // (identical_schedule_groups), which the measurements can only tie.
  static std::string identical(const std::vector<const Row*>& rows) {
    std::vector<std::string> algos;
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const Row* r : rows) {
      if (std::find(algos.begin(), algos.end(), r->c.algorithm) == algos.end())
        algos.push_back(r->c.algorithm);
      if (r->c.count > 0) {
        lo = std::min<std::uint64_t>(lo, r->c.count);
        hi = std::max<std::uint64_t>(hi, r->c.count);
      }
    }
    if (hi == 0) return {};
    const Case& c0 = rows.front()->c;
    std::vector<const AlgorithmEntry*> entries;
    for (const std::string& a : algos)
      entries.push_back(is_baseline_name(a) ? nullptr : &find_algorithm(c0.coll, a));
    const models::Scenario s{c0.coll, c0.ranks, c0.dtype, c0.op, c0.in_place};
    const std::vector<std::size_t> rep = models::identical_schedule_groups(entries, s, lo, hi);
    std::string same;
    for (std::size_t i = 0; i < algos.size(); ++i) {
      if (rep[i] != i) continue;
      std::string group = algos[i];
      for (std::size_t j = i + 1; j < algos.size(); ++j)
        if (rep[j] == i) group += fmt::format("={}", algos[j]);
      if (group != algos[i]) same += fmt::format("{}{}", same.empty() ? "" : ", ", group);
    }
    return same;
  }

  // A CI half-width beyond this fraction of the median marks a configuration noisy.
  static constexpr double kNoisyHalfWidth = 0.10;

  std::FILE* out_;
  std::size_t rows_ = 0, noisy_ = 0;
  // busbw sum and row count per algorithm, in order of appearance.
  std::map<std::string, std::pair<double, std::size_t>> busbw_;
  std::vector<std::string> busbw_order_;
  std::string first_noisy_;
  bool show_out_ = true, show_in_ = true;
  std::string arrival_ = "none";  // --arrival, from the configuration
  std::optional<std::tuple<std::string, Collective, int>> section_;
  std::optional<Row> pending_;
  std::vector<Row> section_rows_;
  bool checked_ = false;
  std::uint64_t wrong_total_ = 0;
  std::uint64_t known_wrong_ = 0;    // of wrong_total_, in rows with a known_issue
  std::set<std::string> known_issues_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::FILE* out) {
  return std::make_unique<ConsoleReporter>(out);
}

}  // namespace cb
