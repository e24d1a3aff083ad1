#include "models/winners.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "algorithms/check.hpp"
#include "models/results_csv.hpp"

namespace cb::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const Contender* fastest_of(const std::vector<const Contender*>& v) {
  const Contender* best = nullptr;
  for (const Contender* c : v)
    if (!best || c->time.median < best->time.median) best = c;
  return best;
}

}  // namespace

std::vector<SizeWinner> decide_winners(const std::vector<SizeContenders>& sizes,
                                       double min_effect) {
  std::vector<SizeWinner> out;
  std::string holder;  // the winner so far
  for (const SizeContenders& s : sizes) {
    CB_CHECK(!s.contenders.empty(), "no contender at {} B", s.bytes);
    std::vector<const Contender*> all;
    for (const Contender& c : s.contenders) all.push_back(&c);
    const Contender* winner = nullptr;
    for (const Contender* c : all)
      if (c->algorithm == holder) winner = c;
    if (winner) {
      // The holder keeps the size unless someone beats it beyond the noise.
      std::vector<const Contender*> beating;
      for (const Contender* c : all)
        if (significantly_faster(c->time, winner->time, min_effect)) beating.push_back(c);
      if (!beating.empty()) winner = fastest_of(beating);
    } else {
      winner = fastest_of(all);  // the first size, or the holder was not measured here
    }
    holder = winner->algorithm;
    SizeWinner w{s.bytes, winner->algorithm, {}, winner->time.median, kNaN, kNaN};
    const Contender* runner_up = nullptr;
    for (const Contender* c : all) {
      if (is_library_baseline(c->algorithm)) w.library_s = c->time.median;
      if (c == winner) continue;
      if (!significantly_faster(c->time, winner->time, min_effect) &&
          !significantly_faster(winner->time, c->time, min_effect))
        w.tied_with.push_back(c->algorithm);
      else if (!significantly_faster(c->time, winner->time, min_effect) &&
               (!runner_up || c->time.median < runner_up->time.median))
        runner_up = c;
    }
    if (runner_up) w.margin = runner_up->time.median / winner->time.median - 1;
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<WinnerRange> winner_ranges(const std::vector<SizeWinner>& winners) {
  std::vector<WinnerRange> out;
  const auto min_nan = [](double a, double b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    return std::min(a, b);
  };
  for (const SizeWinner& w : winners) {
    const double speedup = std::isnan(w.library_s) ? kNaN : w.library_s / w.time_s;
    if (!out.empty() && out.back().algorithm == w.algorithm && out.back().tied_with == w.tied_with) {
      WinnerRange& r = out.back();
      r.to_bytes = w.bytes;
      r.margin = min_nan(r.margin, w.margin);
      r.speedup_vs_library = min_nan(r.speedup_vs_library, speedup);
      continue;
    }
    out.push_back({w.bytes, w.bytes, w.algorithm, w.tied_with, w.margin, speedup});
  }
  return out;
}

std::vector<WinnerChange> winner_changes(const std::vector<SizeWinner>& winners) {
  std::vector<WinnerChange> out;
  for (std::size_t i = 1; i < winners.size(); ++i)
    if (winners[i].algorithm != winners[i - 1].algorithm)
      out.push_back({winners[i - 1].bytes, winners[i].bytes, winners[i - 1].algorithm,
                     winners[i].algorithm});
  return out;
}

std::size_t text_columns(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char ch : text) n += (ch & 0xC0) != 0x80;
  return n;
}

namespace {

// A measured size: "16 KiB", "1020 KiB" (p = 3 rounds sizes to whole
// counts), "3.5 MiB"; never an exponent.
std::string size_text(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  if (v == std::floor(v) || v >= 100) return fmt::format("{:.0f} {}", v, units[u]);
  return fmt::format("{:.3g} {}", v, units[u]);
}

// "<= 16 KiB", "32-64 KiB", ">= 128 KiB", "1 KiB" or "8 B-16 MiB" for a
// span [from, to] of the sizes [first, last] measured.
std::string span_text(std::uint64_t from, std::uint64_t to, std::uint64_t first,
                      std::uint64_t last) {
  if (from == first && to == last) return fmt::format("{}-{}", size_text(from), size_text(to));
  if (from == to) return size_text(from);
  if (from == first) return fmt::format("<= {}", size_text(to));
  if (to == last) return fmt::format(">= {}", size_text(from));
  const std::string a = size_text(from), b = size_text(to);
  // "32-64 KiB" rather than "32 KiB-64 KiB" when the units agree.
  const std::size_t sa = a.rfind(' '), sb = b.rfind(' ');
  if (a.substr(sa) == b.substr(sb)) return fmt::format("{}-{}", a.substr(0, sa), b);
  return fmt::format("{}-{}", a, b);
}

}  // namespace

std::string winners_text(const std::vector<SizeWinner>& winners, std::size_t max_columns) {
  if (winners.empty()) return "no size measured by two algorithms";
  const std::uint64_t first = winners.front().bytes, last = winners.back().bytes;
  // Renderings, most detailed first: ties with their spans, ties by name,
  // no ties (" (+ties)" when there were some, then not even that).
  std::string spans, names, bare;
  bool any_tie = false;
  for (std::size_t i = 0; i < winners.size();) {
    std::size_t j = i;
    while (j + 1 < winners.size() && winners[j + 1].algorithm == winners[i].algorithm) ++j;
    const std::string head = fmt::format("{}{} {}", bare.empty() ? "" : " · ",
                                         winners[i].algorithm,
                                         span_text(winners[i].bytes, winners[j].bytes, first, last));
    // Each tied algorithm with the span of sizes it tied at, equal spans joined.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> tied;
    std::vector<std::string> order;
    for (std::size_t k = i; k <= j; ++k)
      for (const std::string& t : winners[k].tied_with) {
        auto [it, fresh] = tied.try_emplace(t, winners[k].bytes, winners[k].bytes);
        if (fresh) order.push_back(t);
        it->second.second = winners[k].bytes;
      }
    std::vector<std::pair<std::string, std::string>> notes;  // names, span
    for (const std::string& t : order) {
      const auto [from, to] = tied.at(t);
      const std::string span = from == winners[i].bytes && to == winners[j].bytes
                                   ? std::string()
                                   : fmt::format(" {}", span_text(from, to, first, last));
      auto same = std::find_if(notes.begin(), notes.end(), [&](auto& n) { return n.second == span; });
      if (same != notes.end())
        same->first += fmt::format(", {}", t);
      else
        notes.emplace_back(t, span);
    }
    std::string note, list;
    for (const auto& [who, span] : notes)
      note += fmt::format("{}{} tied{}", note.empty() ? "" : "; ", who, span);
    for (const std::string& t : order) list += fmt::format("{}{}", list.empty() ? "" : ", ", t);
    any_tie = any_tie || !order.empty();
    spans += head + (note.empty() ? "" : fmt::format(" ({})", note));
    names += head + (list.empty() ? "" : fmt::format(" (tied: {})", list));
    bare += head;
    i = j + 1;
  }
  const std::string marked = any_tie ? bare + " (+ties)" : bare;
  for (const std::string* text :
       {&std::as_const(spans), &std::as_const(names), &marked, &std::as_const(bare)})
    if (text_columns(*text) <= max_columns) return *text;
  // Cut on a code point boundary.
  std::string cut;
  std::size_t cols = 0;
  for (char ch : bare) {
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80 && ++cols + 3 > max_columns) break;
    cut += ch;
  }
  return cut + "...";
}

}  // namespace cb::models
