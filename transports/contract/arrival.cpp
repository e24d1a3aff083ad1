#include "transports/contract/arrival.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "algorithms/check.hpp"
#include "algorithms/types.hpp"
#include "models/io/input_file.hpp"
#include "transports/contract/counter_random.hpp"

namespace cb {
namespace {

constexpr std::string_view kForms =
    "none, one-late:DELAY[:RANK], uniform:MAX, list:D0,D1,... or trace:FILE";

[[noreturn]] void bad(std::string_view pattern, const std::string& why) {
  throw UsageError(fmt::format("bad --arrival '{}': {} (accepted: {}; durations such as 250us, "
                               "1.5ms)",
                               pattern, why, kForms));
}

int parse_rank(std::string_view text, std::string_view pattern) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    bad(pattern, fmt::format("rank '{}' is not an integer >= 0", text));
  return v;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(sep, at);
    out.push_back(text.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

// trace:FILE, long format: iteration,rank,delay_us.
std::vector<std::vector<double>> read_trace(const std::string& file, std::string_view pattern) {
  // Bounded and regular-only: /dev/zero or a FIFO named as a trace must be
  // refused at once, not read for ever.
  const std::string text = io::read_input_file(file, "--arrival trace:");
  // A last line without its newline may be a row cut mid-number ("0,3,12"
  // of "0,3,125"), which would parse as a different delay.
  if (!text.empty() && text.back() != '\n')
    bad(pattern, fmt::format("trace file '{}': the last line has no newline, so the file may "
                             "have been cut short; end every line with a newline",
                             file));
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) bad(pattern, fmt::format("trace file '{}' is empty", file));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != "iteration,rank,delay_us")
    bad(pattern, fmt::format("trace file '{}' must start with the header iteration,rank,delay_us",
                             file));
  std::map<long long, std::map<long long, double>> rows;
  for (int n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string_view> cells = split(line, ',');
    long long it = -1, rank = -1;
    double us = -1;
    bool ok = cells.size() == 3;
    if (ok) {
      auto r1 = std::from_chars(cells[0].data(), cells[0].data() + cells[0].size(), it);
      auto r2 = std::from_chars(cells[1].data(), cells[1].data() + cells[1].size(), rank);
      auto r3 = std::from_chars(cells[2].data(), cells[2].data() + cells[2].size(), us);
      ok = r1.ec == std::errc() && r1.ptr == cells[0].data() + cells[0].size() &&
           r2.ec == std::errc() && r2.ptr == cells[1].data() + cells[1].size() &&
           r3.ec == std::errc() && r3.ptr == cells[2].data() + cells[2].size();
    }
    if (!ok || it < 0 || rank < 0 || !(us >= 0) || !std::isfinite(us))
      bad(pattern, fmt::format("trace file '{}' line {}: '{}' is not iteration,rank,delay_us "
                               "with integers >= 0 and a delay >= 0",
                               file, n, line));
    if (!rows[it].emplace(rank, us * 1e-6).second)
      bad(pattern, fmt::format("trace file '{}' line {}: iteration {} rank {} given twice", file,
                               n, it, rank));
  }
  if (rows.empty()) bad(pattern, fmt::format("trace file '{}' has no delays", file));
  std::vector<std::vector<double>> out;
  for (const auto& [it, ranks] : rows) {
    if (it != static_cast<long long>(out.size()))
      bad(pattern, fmt::format("trace file '{}' has no iteration {} (iterations must be 0..N-1)",
                               file, out.size()));
    std::vector<double> d;
    for (const auto& [rank, s] : ranks) {
      if (rank != static_cast<long long>(d.size()))
        bad(pattern, fmt::format("trace file '{}' iteration {} has no rank {} (ranks must be "
                                 "0..p-1)",
                                 file, it, d.size()));
      d.push_back(s);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

double parse_duration(std::string_view text, std::string_view what) {
  const auto fail = [&](std::string_view why) {
    throw UsageError(fmt::format("bad {} '{}': {} (accepted: a duration >= 0 with a unit ns, us, "
                                 "ms or s, such as 250us)",
                                 what, text, why));
  };
  if (text == "0") return 0;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !std::isfinite(v)) fail("no number");
  if (v < 0) fail("negative");
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  double scale = 0;
  if (unit == "ns") scale = 1e-9;
  else if (unit == "us" || unit == "µs") scale = 1e-6;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "s") scale = 1;
  else if (unit.empty()) fail("no unit");
  else fail(fmt::format("unknown unit '{}'", unit));
  return v * scale;
}

ArrivalPattern ArrivalPattern::parse(std::string_view text, std::uint64_t seed) {
  ArrivalPattern p;
  p.text_ = std::string(text);
  p.seed_ = seed;
  if (text == "none") return p;
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (colon == std::string_view::npos || rest.empty())
    bad(text, kind == "none" || kind == "one-late" || kind == "uniform" || kind == "list" ||
                      kind == "trace"
                  ? std::string("missing its value after ':'")
                  : fmt::format("unknown pattern '{}'", kind));
  const std::string what = fmt::format("--arrival {} delay", kind);
  const auto duration = [&](std::string_view d) {
    try {
      return parse_duration(d, what);
    } catch (const UsageError& e) {
      bad(text, e.what());
    }
  };
  if (kind == "one-late") {
    const std::vector<std::string_view> parts = split(rest, ':');
    if (parts.size() > 2) bad(text, "one-late takes DELAY or DELAY:RANK");
    p.kind_ = Kind::one_late;
    p.delay_s_ = duration(parts[0]);
    if (parts.size() == 2) p.rank_ = parse_rank(parts[1], text);
  } else if (kind == "uniform") {
    p.kind_ = Kind::uniform;
    p.delay_s_ = duration(rest);
  } else if (kind == "list") {
    p.kind_ = Kind::list;
    for (std::string_view d : split(rest, ',')) p.list_s_.push_back(duration(d));
  } else if (kind == "trace") {
    p.kind_ = Kind::trace;
    p.trace_s_ = read_trace(std::string(rest), text);
  } else {
    bad(text, fmt::format("unknown pattern '{}'", kind));
  }
  return p;
}

bool ArrivalPattern::varies() const {
  return kind_ == Kind::uniform || (kind_ == Kind::trace && trace_s_.size() > 1);
}

void ArrivalPattern::check_ranks(int p) const {
  switch (kind_) {
    case Kind::one_late:
      if (rank_ >= p)
        throw UsageError(fmt::format("bad --arrival '{}': late rank {} is not below the {} ranks "
                                     "(accepted: 0..{})",
                                     text_, rank_, p, p - 1));
      return;
    case Kind::list:
      if (list_s_.size() != static_cast<std::size_t>(p))
        throw UsageError(fmt::format("bad --arrival '{}': {} delays for {} ranks (give one per "
                                     "rank)",
                                     text_, list_s_.size(), p));
      return;
    case Kind::trace:
      for (std::size_t i = 0; i < trace_s_.size(); ++i)
        if (trace_s_[i].size() != static_cast<std::size_t>(p))
          throw UsageError(fmt::format("bad --arrival '{}': iteration {} of the trace has ranks "
                                       "0..{}, the run {} ranks (a trace needs ranks 0..p-1)",
                                       text_, i, trace_s_[i].size() - 1, p));
      return;
    case Kind::none:
    case Kind::uniform:
      return;
  }
}

std::vector<double> ArrivalPattern::delays(int p, std::uint64_t iteration) const {
  const auto n = static_cast<std::size_t>(p);
  std::vector<double> d(n, 0.0);
  switch (kind_) {
    case Kind::none:
      break;
    case Kind::one_late:
      d[rank_ < 0 ? n - 1 : static_cast<std::size_t>(rank_)] = delay_s_;
      break;
    case Kind::uniform:
      for (std::size_t r = 0; r < n; ++r) d[r] = delay_s_ * counter_uniform(seed_, iteration, r);
      break;
    case Kind::list:
      CB_CHECK(list_s_.size() == n, "list of {} delays for {} ranks", list_s_.size(), n);
      d = list_s_;
      break;
    case Kind::trace:
      d = trace_s_[iteration % trace_s_.size()];
      CB_CHECK(d.size() == n, "trace row of {} ranks for {} ranks", d.size(), n);
      break;
  }
  return d;
}

double ArrivalPattern::max_delay_s() const {
  switch (kind_) {
    case Kind::none: return 0;
    case Kind::one_late:
    case Kind::uniform: return delay_s_;
    case Kind::list: return list_s_.empty() ? 0 : *std::max_element(list_s_.begin(), list_s_.end());
    case Kind::trace: {
      double m = 0;
      for (const auto& row : trace_s_)
        for (double v : row) m = std::max(m, v);
      return m;
    }
  }
  return 0;
}

ArrivalTimes arrival_times(std::span<const double> arrival_s, std::span<const double> finish_s) {
  CB_CHECK(arrival_s.size() == finish_s.size() && !arrival_s.empty(),
           "{} arrivals for {} completions", arrival_s.size(), finish_s.size());
  const double first = *std::min_element(arrival_s.begin(), arrival_s.end());
  const double last = *std::max_element(arrival_s.begin(), arrival_s.end());
  const double done = *std::max_element(finish_s.begin(), finish_s.end());
  ArrivalTimes t;
  t.step_s = done - first;
  t.after_last_s = done - last;
  double sum = 0;
  int early = 0;
  for (std::size_t r = 0; r < arrival_s.size(); ++r)
    if (arrival_s[r] < last) {
      sum += finish_s[r] - arrival_s[r];
      ++early;
    }
  if (early > 0) t.early_in_s = sum / early;
  return t;
}

}  // namespace cb
