#include "models/calibration.hpp"

#include <fmt/format.h>

#include <charconv>
#include <algorithm>
#include <optional>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/knees.hpp"
#include "models/line_fit.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

// Shortest text that reads back to the same double: the terms round-trip exactly.
std::string join(const std::vector<double>& v) { return numbers_cell(v); }

double number(const CsvTable& t, const CsvRecord& r, std::string_view column) {
  const std::string& s = t.cell(r, column);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    throw UsageError(fmt::format("{}:{}: {} '{}' is not a number", t.file(), r.line, column, s));
  if (v < 0)
    throw UsageError(fmt::format("{}:{}: {} is {} (must be >= 0)", t.file(), r.line, column, s));
  return v;
}

// The model's three parameters within what a flag accepts (model_params.hpp).
void check_bounds(const ModelParams& m, const CsvTable& t, const CsvRecord& r) {
  const auto at_most = [&](double v, double max, const char* column, const char* unit) {
    if (v > max)
      throw UsageError(fmt::format("{}:{}: {} '{}' is above {:g} {} (accepted: 0 to {:g})",
                                   t.file(), r.line, column, t.cell(r, column), max, unit, max));
  };
  at_most(m.alpha_s, kMaxModelSeconds, "alpha_s", "seconds");
  at_most(m.beta_s_per_B, kMaxModelSecondsPerByte, "beta_s_per_B", "seconds per byte");
  at_most(m.gamma_s_per_B, kMaxModelSecondsPerByte, "gamma_s_per_B", "seconds per byte");
}

std::vector<double> numbers(const CsvTable& t, const CsvRecord& r, std::string_view column) {
  std::vector<double> out;
  const std::string& s = t.cell(r, column);
  // A time column ("pingpong_s", "exchange_s", ...): a measured duration.
  const bool time = column.ends_with("_s");
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t end = std::min(s.find(';', pos), s.size());
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data() + pos, s.data() + end, v);
    if (ec != std::errc() || p != s.data() + end || !std::isfinite(v))
      throw UsageError(fmt::format("{}:{}: {} '{}' is not a ';'-separated list of numbers",
                                   t.file(), r.line, column, s));
    if (time && v < 0)
      throw UsageError(fmt::format("{}:{}: {} holds {} (times must be >= 0)", t.file(), r.line,
                                   column, std::string_view(s).substr(pos, end - pos)));
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}

// A calibration file or fit.csv, whole (a line cut short is refused).
CsvTable read_whole_table(const std::string& path) {
  return CsvTable(read_written_file(path), path);
}

void require(const CsvTable& t, std::initializer_list<const char*> columns) {
  for (const char* c : columns)
    if (!t.has(c))
      throw UsageError(fmt::format("{}:1: missing column '{}' (expected a collbench calibration "
                                   "file or fit.csv)",
                                   t.file(), c));
}

}  // namespace

Calibration fit_calibration(const std::vector<double>& pingpong_bytes,
                            const std::vector<double>& half_rtt_s,
                            const std::vector<double>& reduce_bytes,
                            const std::vector<double>& reduce_s) {
  Calibration c;
  c.pingpong_sizes_B = pingpong_bytes;
  c.reduce_sizes_B = reduce_bytes;
  const Piecewise pw = detect_knees(pingpong_bytes, half_rtt_s);
  c.pingpong_knees_B = pw.knees_B;
  // Robust relative line over the points whose size lies in [lo, hi].
  const auto line = [&](double lo, double hi) {
    std::vector<double> n, t;
    for (std::size_t i = 0; i < pingpong_bytes.size(); ++i)
      if (pingpong_bytes[i] >= lo && pingpong_bytes[i] <= hi) {
        n.push_back(pingpong_bytes[i]);
        t.push_back(half_rtt_s[i]);
      }
    return fit_line(n, t, 0, 1);
  };
  const double inf = std::numeric_limits<double>::infinity();
  // alpha: below the first knee (the eager protocol), or below 64 KiB.
  const double small_end = pw.knees_B.empty() ? kBulkMinBytes : pw.knees_B.front();
  const bool enough_small =
      std::count_if(pingpong_bytes.begin(), pingpong_bytes.end(),
                    [&](double b) { return b < small_end; }) >= 2;
  c.params.alpha_s = line(0, enough_small ? std::nextafter(small_end, 0.0) : inf).a_s;
  // beta: the sizes where bandwidth dominates; the robust loss discounts a
  // minority of sizes beyond a later knee.
  const bool enough_bulk =
      std::count_if(pingpong_bytes.begin(), pingpong_bytes.end(),
                    [&](double b) { return b >= kBulkMinBytes; }) >= 3;
  c.params.beta_s_per_B = line(enough_bulk ? kBulkMinBytes : 0, inf).b_s_per_B;
  // gamma: the typical per-byte reduce cost at the sizes collectives reduce
  // in bulk (>= 64 KiB); a line through in-cache and out-of-cache sizes would
  // follow whichever regime has more points.
  std::vector<double> per_byte;
  for (std::size_t i = 0; i < reduce_bytes.size(); ++i)
    if (reduce_bytes[i] >= kBulkMinBytes) per_byte.push_back(reduce_s[i] / reduce_bytes[i]);
  if (per_byte.empty())
    for (std::size_t i = 0; i < reduce_bytes.size(); ++i)
      per_byte.push_back(reduce_s[i] / reduce_bytes[i]);
  c.params.gamma_s_per_B = median(per_byte);
  c.gamma_in_cache_s_per_B = reduce_s.front() / reduce_bytes.front();
  c.gamma_out_of_cache_s_per_B = reduce_s.back() / reduce_bytes.back();
  return c;
}

void fit_terms(Calibration& c, const TermMeasurements& m) {
  c.exchange_reduce_s = m.exchange_reduce_s;
  c.exchange_staged_s = m.exchange_staged_s;
  c.terms.exchange_staged =
      m.exchange_staged_s.size() == m.exchange_B.size() && !m.exchange_B.empty()
          ? fit_ranges(m.exchange_B, m.exchange_staged_s)
          : std::vector<SizeRange>{};
  // `forward`: what forwarding freshly written bytes adds to the plain ping-pong,
  // per byte, at each size (never below 0: a relay no slower is no term).
  c.relay_s = m.relay_s;
  c.terms.forward = {};
  if (m.relay_s.size() == m.pingpong_s.size() && m.relay_s.size() == c.pingpong_sizes_B.size())
    for (std::size_t i = 0; i < m.relay_s.size(); ++i) {
      c.terms.forward.size_B.push_back(c.pingpong_sizes_B[i]);
      c.terms.forward.s_per_B.push_back(std::max(m.relay_s[i] - m.pingpong_s[i], 0.0) /
                                        c.pingpong_sizes_B[i]);
    }
  if (m.exchange_reduce_s.size() == m.exchange_B.size())
    c.terms.exchange_reduce = fit_ranges(m.exchange_B, m.exchange_reduce_s);
  c.pingpong_s = m.pingpong_s;
  c.exchange_sizes_B = m.exchange_B;
  c.exchange_s = m.exchange_s;
  c.multi_messages = m.multi_k;
  c.multi_s = m.multi_s;
  c.terms.oneway = fit_ranges(c.pingpong_sizes_B, m.pingpong_s);
  c.terms.exchange = fit_ranges(m.exchange_B, m.exchange_s);
  const auto curve = [](const std::vector<double>& bytes, const std::vector<double>& s) {
    Curve out;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      out.size_B.push_back(2 * bytes[i]);  // working set: source and destination
      out.s_per_B.push_back(s[i] / bytes[i]);
    }
    return out;
  };
  c.terms.copy = curve(m.copy_B, m.copy_s);
  c.terms.reduce = curve(m.reduce_B, m.reduce_s);
  // o: the slope of the half round trip over the message count (robust
  // relative line), never below 0.
  c.local_ops_k = m.ops_k;
  c.local_ops_s = m.ops_s;
  c.terms.run_s = m.run_s;
  c.terms.local_op_s = m.ops_k.size() >= 2 ? fit_line(m.ops_k, m.ops_s, 0, 1).b_s_per_B : 0;
  c.terms.overhead_measured = m.multi_k.size() >= 2;
  c.terms.overhead_s =
      c.terms.overhead_measured ? fit_line(m.multi_k, m.multi_s, 0, 1).b_s_per_B : 0;
}

void fit_flight(Calibration& c, double pipelined_s) {
  c.pipelined_s = pipelined_s;
  c.terms.flight_measured = !c.pingpong_s.empty() && pipelined_s > 0;
  if (!c.terms.flight_measured) return;
  const double alpha = c.pingpong_s.front();
  const double sender = pipelined_s - 2 * alpha;
  c.terms.flight_s = std::clamp(alpha - sender, 0.0, alpha);
}

namespace {

// What the ping-pong measured at m bytes: its half round trip (seconds) and
// the beta (s/B) term `range`'s range gives m (the baseline's without ranges);
// nullopt where the ping-pong has no m. `incast` and `buffering` compare against both.
struct PingPongAt {
  double s = 0;
  double beta_s_per_B = 0;
};
std::optional<PingPongAt> pingpong_at(const Calibration& c, double m) {
  const auto at = std::find(c.pingpong_sizes_B.begin(), c.pingpong_sizes_B.end(), m);
  const auto n = static_cast<std::size_t>(at - c.pingpong_sizes_B.begin());
  if (at == c.pingpong_sizes_B.end() || n >= c.pingpong_s.size()) return std::nullopt;
  const SizeRange* r = range_for(c.terms.oneway, m);
  return PingPongAt{c.pingpong_s[n], r ? r->beta_s_per_B : c.params.beta_s_per_B};
}

// `incast` per k: the median over sizes of the time beyond the ping-pong and the
// other k - 1 messages' bytes at beta, per received byte, never below 0.
// Empty when a k has no size the ping-pong measured or the lists disagree.
Curve incast_curve(const Calibration& c, const std::vector<double>& k,
                   const std::vector<double>& sizes_B, const std::vector<double>& s) {
  Curve out;
  if (s.size() != k.size() * sizes_B.size()) return {};
  for (std::size_t i = 0; i < k.size(); ++i) {
    std::vector<double> extra;
    for (std::size_t j = 0; j < sizes_B.size(); ++j) {
      const double m = sizes_B[j];
      const std::optional<PingPongAt> ping = pingpong_at(c, m);
      if (!ping) continue;
      const double expected = ping->s + (k[i] - 1) * m * ping->beta_s_per_B;
      extra.push_back((s[i * sizes_B.size() + j] - expected) / (k[i] * m));
    }
    if (extra.empty()) return {};
    out.size_B.push_back(k[i]);
    out.s_per_B.push_back(std::max(median(extra), 0.0));
  }
  return out;
}

}  // namespace

void fit_incast(Calibration& c, const std::vector<double>& k, const std::vector<double>& sizes_B,
                const std::vector<double>& fanin_s, const std::vector<double>& exchange_s) {
  c.fanin_k = k;
  c.fanin_sizes_B = sizes_B;
  c.fanin_s = fanin_s;
  c.fanin_exchange_s = exchange_s;
  c.terms.incast = incast_curve(c, k, sizes_B, fanin_s);
  c.terms.incast_sending = incast_curve(c, k, sizes_B, exchange_s);
  if (c.terms.incast.empty() || c.terms.incast_sending.empty())
    c.terms.incast = c.terms.incast_sending = {};
}

void fit_buffering(Calibration& c, const std::vector<double>& sizes_B,
                   const std::vector<double>& fanout_s) {
  c.fanout_sizes_B = sizes_B;
  c.fanout_s = fanout_s;
  c.terms.buffered = {};
  if (fanout_s.size() != sizes_B.size()) return;
  for (std::size_t j = 0; j < sizes_B.size(); ++j) {
    const double m = sizes_B[j];
    const std::optional<PingPongAt> ping = pingpong_at(c, m);
    if (!ping || !(ping->beta_s_per_B > 0)) continue;
    c.terms.buffered.size_B.push_back(m);
    c.terms.buffered.s_per_B.push_back(
        std::clamp((fanout_s[j] - 2 * ping->s) / (m * ping->beta_s_per_B), 0.0, 1.0));
  }
}

std::string format_calibration(const Calibration& c) {
  std::string out =
      "alpha_s,beta_s_per_B,gamma_s_per_B,transport,ranks,host,timestamp,collbench_version,"
      "git_rev,mpi_version,pingpong_sizes_B,reduce_sizes_B,pingpong_knees_B,"
      "gamma_in_cache_s_per_B,gamma_out_of_cache_s_per_B,memcpy_GBps,memcpy_in_cache_GBps,"
      "memory_GBps,";
  for (const TermColumn& column : kTermColumns) out += fmt::format("{},", column.name);
  out +=
      "ranks_per_node,intra_alpha_s,intra_beta_s_per_B,intra_pingpong_s,"
      "intra_pairs,intra_alone_alpha_s,intra_alone_beta_s_per_B,intra_alone_pingpong_s\n";
  const auto optional = [](double v) { return v > 0 ? csv_number(v) : std::string(); };
  out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},",
                     csv_number(c.params.alpha_s), csv_number(c.params.beta_s_per_B),
                     csv_number(c.params.gamma_s_per_B), csv_escape(c.transport), c.ranks,
                     csv_escape(c.host), csv_escape(c.timestamp), csv_escape(c.collbench_version),
                     csv_escape(c.git_rev), csv_escape(c.mpi_version), join(c.pingpong_sizes_B),
                     join(c.reduce_sizes_B), join(c.pingpong_knees_B),
                     csv_number(c.gamma_in_cache_s_per_B),
                     csv_number(c.gamma_out_of_cache_s_per_B), optional(c.memcpy_GBps),
                     optional(c.memcpy_in_cache_GBps), optional(c.memory_GBps));
  for (const TermColumn& column : kTermColumns)
    out += fmt::format("{},", column.write(c, c.terms));
  const bool two_level = c.ranks_per_node > 0;
  out += fmt::format("{},{},{},{},", two_level ? std::to_string(c.ranks_per_node) : std::string(),
                     two_level ? fmt::format("{}", c.intra_alpha_s) : std::string(),
                     two_level ? fmt::format("{}", c.intra_beta_s_per_B) : std::string(),
                     join(c.intra_pingpong_s));
  const bool alone = two_level && c.intra_alone_beta_s_per_B > 0;
  out += fmt::format("{},{},{},{}\n", two_level ? std::to_string(c.intra_pairs) : std::string(),
                     alone ? fmt::format("{}", c.intra_alone_alpha_s) : std::string(),
                     alone ? fmt::format("{}", c.intra_alone_beta_s_per_B) : std::string(),
                     alone ? join(c.intra_alone_pingpong_s) : std::string());
  return out;
}

namespace {

// The cells of one calibration file's row, as the terms' columns read them
// (terms.hpp), with the file's line in every message.
class FileCells final : public TermCells {
 public:
  FileCells(const CsvTable& t, const CsvRecord& r) : t_(t), r_(r) {}
  bool filled(std::string_view column) const override {
    return t_.has(column) && !t_.cell(r_, column).empty();
  }
  double number(std::string_view column) const override {
    return models::number(t_, r_, column);
  }
  std::vector<double> numbers(std::string_view column) const override {
    return models::numbers(t_, r_, column);
  }
  std::vector<SizeRange> ranges(std::string_view column) const override {
    try {
      return parse_ranges(t_.cell(r_, column));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}:{}: {} {}", t_.file(), r_.line, column, e.what()));
    }
  }
  Curve curve(std::string_view sizes, std::string_view values) const override {
    Curve out{numbers(sizes), numbers(values)};
    if (out.size_B.size() != out.s_per_B.size())
      throw UsageError(fmt::format("{}:{}: {} has {} values but {} has {}", t_.file(), r_.line,
                                   sizes, out.size_B.size(), values, out.s_per_B.size()));
    for (std::size_t i = 1; i < out.size_B.size(); ++i)
      if (!(out.size_B[i - 1] < out.size_B[i]))
        throw UsageError(fmt::format("{}:{}: {} is not ascending", t_.file(), r_.line, sizes));
    return out;
  }

 private:
  const CsvTable& t_;
  const CsvRecord& r_;
};

}  // namespace

Calibration read_calibration(const std::string& path) {
  const CsvTable t = read_whole_table(path);
  require(t, {"alpha_s", "beta_s_per_B", "gamma_s_per_B"});
  if (t.rows().size() != 1)
    throw UsageError(fmt::format("{}: {} data rows; a calibration file has exactly one", path,
                                 t.rows().size()));
  const CsvRecord& r = t.rows().front();
  Calibration c;
  c.params = {number(t, r, "alpha_s"), number(t, r, "beta_s_per_B"),
              number(t, r, "gamma_s_per_B")};
  check_bounds(c.params, t, r);
  if (t.has("transport") && !t.cell(r, "transport").empty()) c.transport = t.cell(r, "transport");
  if (t.has("ranks")) {
    // Checked before the cast: a double outside int's range does not convert
    // (undefined behaviour; found by tests/fuzz/fuzz_params.cpp).
    const double ranks = number(t, r, "ranks");
    if (!(ranks >= 1 && ranks <= std::numeric_limits<int>::max()) || ranks != std::floor(ranks))
      throw UsageError(fmt::format("{}: ranks '{}' is not a rank count (an integer 1..{})", path,
                                   t.cell(r, "ranks"), std::numeric_limits<int>::max()));
    c.ranks = static_cast<int>(ranks);
  }
  c.host = t.cell(r, "host");
  c.timestamp = t.cell(r, "timestamp");
  c.collbench_version = t.cell(r, "collbench_version");
  c.git_rev = t.cell(r, "git_rev");
  c.mpi_version = t.cell(r, "mpi_version");
  c.pingpong_sizes_B = numbers(t, r, "pingpong_sizes_B");
  c.reduce_sizes_B = numbers(t, r, "reduce_sizes_B");
  c.pingpong_knees_B = numbers(t, r, "pingpong_knees_B");
  if (t.has("gamma_in_cache_s_per_B") && !t.cell(r, "gamma_in_cache_s_per_B").empty())
    c.gamma_in_cache_s_per_B = number(t, r, "gamma_in_cache_s_per_B");
  if (t.has("gamma_out_of_cache_s_per_B") && !t.cell(r, "gamma_out_of_cache_s_per_B").empty())
    c.gamma_out_of_cache_s_per_B = number(t, r, "gamma_out_of_cache_s_per_B");
  if (t.has("memcpy_GBps") && !t.cell(r, "memcpy_GBps").empty())
    c.memcpy_GBps = number(t, r, "memcpy_GBps");
  if (t.has("memcpy_in_cache_GBps") && !t.cell(r, "memcpy_in_cache_GBps").empty())
    c.memcpy_in_cache_GBps = number(t, r, "memcpy_in_cache_GBps");
  if (t.has("memory_GBps") && !t.cell(r, "memory_GBps").empty())
    c.memory_GBps = number(t, r, "memory_GBps");
  // The terms' columns (older files lack some: those terms are not measured).
  const FileCells cells(t, r);
  for (const TermColumn& column : kTermColumns) column.read(cells, column, c, c.terms);
  // Two levels: absent from older files and from calibrations on one level.
  if (t.has("ranks_per_node") && !t.cell(r, "ranks_per_node").empty()) {
    const double k = number(t, r, "ranks_per_node");
    if (!(k >= 2 && k <= std::numeric_limits<int>::max()) || k != std::floor(k))
      throw UsageError(fmt::format("{}: ranks_per_node '{}' is not a two-level layout (an "
                                   "integer >= 2, or empty for one level)",
                                   path, t.cell(r, "ranks_per_node")));
    c.ranks_per_node = static_cast<int>(k);
    c.intra_alpha_s = number(t, r, "intra_alpha_s");
    c.intra_beta_s_per_B = number(t, r, "intra_beta_s_per_B");
    c.intra_pingpong_s = numbers(t, r, "intra_pingpong_s");
    // Older files measured the node level on ranks 0 and 1 alone: one pair.
    c.intra_pairs = 1;
    if (t.has("intra_pairs") && !t.cell(r, "intra_pairs").empty()) {
      const double pairs = number(t, r, "intra_pairs");
      if (!(pairs >= 1 && pairs <= std::numeric_limits<int>::max()) || pairs != std::floor(pairs))
        throw UsageError(fmt::format("{}: intra_pairs '{}' is not a pair count (an integer >= 1, "
                                     "or empty)",
                                     path, t.cell(r, "intra_pairs")));
      c.intra_pairs = static_cast<int>(pairs);
    }
    if (t.has("intra_alone_beta_s_per_B") && !t.cell(r, "intra_alone_beta_s_per_B").empty()) {
      c.intra_alone_alpha_s = number(t, r, "intra_alone_alpha_s");
      c.intra_alone_beta_s_per_B = number(t, r, "intra_alone_beta_s_per_B");
      c.intra_alone_pingpong_s = numbers(t, r, "intra_alone_pingpong_s");
    }
  }
  return c;
}

std::optional<ModelParams> load_intra_params(const std::string& path) {
  const CsvTable t = read_whole_table(path);
  if (t.has("scope")) return std::nullopt;
  const Calibration c = read_calibration(path);
  if (c.ranks_per_node == 0) return std::nullopt;
  return ModelParams{c.intra_alpha_s, c.intra_beta_s_per_B, c.params.gamma_s_per_B};
}

ModelTerms load_model_terms(const std::string& path) {
  const CsvTable t = read_whole_table(path);
  if (t.has("scope")) return {};
  return read_calibration(path).terms;
}

TermSet parse_term_set(std::string_view text, std::string_view setting) {
  try {
    return parse_term_set(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {} (see docs/model.md)",
                                 setting.empty() ? fmt::format("--terms {}", text)
                                                 : std::string(setting),
                                 e.what()));
  }
}

ModelTerms load_model_terms(const std::string& path, TermSet use, std::string_view setting) {
  const ModelTerms terms = load_model_terms(path);
  for (const TermInfo& info : kTerms)
    if (use.contains(info.term) && !terms.has(info.term))
      throw UsageError(fmt::format("{}: {} does not hold term {} (a calibration file "
                                   "from this collbench's `calibrate` does)",
                                   setting.empty() ? fmt::format("--terms {}", term_set_text(use))
                                                   : std::string(setting),
                                   path, info.name));
  return terms;
}

ModelParams load_model_params(const std::string& path, const std::optional<std::string>& transport,
                              std::string* source_transport) {
  const CsvTable t = read_whole_table(path);
  if (!t.has("scope")) {
    const Calibration c = read_calibration(path);
    if (source_transport) *source_transport = c.transport;
    ModelParams m = c.params;
    if (c.ranks_per_node > 0) {  // two levels: predict, fit and recommend price both
      m.intra_alpha_s = c.intra_alpha_s;
      m.intra_beta_s_per_B = c.intra_beta_s_per_B;
      if (c.terms.overhead_measured)
        m.network_gap_s = network_gap_within_alpha(c.terms.overhead_s, m.alpha_s);
    }
    return m;
  }
  require(t, {"scope", "transport", "alpha_s", "beta_s_per_B", "gamma_s_per_B"});
  const CsvRecord* found = nullptr;
  std::string seen;
  for (const CsvRecord& r : t.rows()) {
    if (t.cell(r, "scope") != "global") continue;
    if (transport && t.cell(r, "transport") != *transport) {
      seen += fmt::format("{}{}", seen.empty() ? "" : ", ", t.cell(r, "transport"));
      continue;
    }
    if (found)
      throw UsageError(fmt::format("{}: global fits for several transports ({}, {}); choose one "
                                   "(--params-transport, or --transport for predict)",
                                   path, t.cell(*found, "transport"), t.cell(r, "transport")));
    found = &r;
  }
  if (!found)
    throw UsageError(fmt::format("{}: no scope=global row{}{}", path,
                                 transport ? " for transport " + *transport : "",
                                 seen.empty() ? "" : " (global rows exist for: " + seen + ")"));
  // A parameter the fit could not identify is written empty: it contributes nothing.
  const auto value = [&](const char* column) {
    return t.cell(*found, column).empty() ? 0.0 : number(t, *found, column);
  };
  if (source_transport) *source_transport = t.cell(*found, "transport");
  const ModelParams params{value("alpha_s"), value("beta_s_per_B"), value("gamma_s_per_B")};
  check_bounds(params, t, *found);
  return params;
}

}  // namespace cb::models
