#include "models/calibration.hpp"

#include <fmt/format.h>

#include <charconv>
#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"
#include "models/knees.hpp"
#include "models/line_fit.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

std::string join(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += fmt::format("{}{}", out.empty() ? "" : ";", csv_number(x));
  return out;
}

double number(const CsvTable& t, const CsvRecord& r, const char* column) {
  const std::string& s = t.cell(r, column);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    throw UsageError(fmt::format("{}:{}: {} '{}' is not a number", t.file(), r.line, column, s));
  if (v < 0)
    throw UsageError(fmt::format("{}:{}: {} is {} (must be >= 0)", t.file(), r.line, column, s));
  return v;
}

std::vector<double> numbers(const CsvTable& t, const CsvRecord& r, const char* column) {
  std::vector<double> out;
  const std::string& s = t.cell(r, column);
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t end = std::min(s.find(';', pos), s.size());
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data() + pos, s.data() + end, v);
    if (ec != std::errc() || p != s.data() + end)
      throw UsageError(fmt::format("{}:{}: {} '{}' is not a ';'-separated list of numbers",
                                   t.file(), r.line, column, s));
    out.push_back(v);
    pos = end + 1;
  }
  return out;
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

std::string format_calibration(const Calibration& c) {
  std::string out =
      "alpha_s,beta_s_per_B,gamma_s_per_B,transport,ranks,host,timestamp,collbench_version,"
      "git_rev,mpi_version,pingpong_sizes_B,reduce_sizes_B,pingpong_knees_B,"
      "gamma_in_cache_s_per_B,gamma_out_of_cache_s_per_B,memcpy_GBps,memcpy_in_cache_GBps\n";
  const auto optional = [](double v) { return v > 0 ? csv_number(v) : std::string(); };
  out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                     csv_number(c.params.alpha_s), csv_number(c.params.beta_s_per_B),
                     csv_number(c.params.gamma_s_per_B), csv_escape(c.transport), c.ranks,
                     csv_escape(c.host), csv_escape(c.timestamp), csv_escape(c.collbench_version),
                     csv_escape(c.git_rev), csv_escape(c.mpi_version), join(c.pingpong_sizes_B),
                     join(c.reduce_sizes_B), join(c.pingpong_knees_B),
                     csv_number(c.gamma_in_cache_s_per_B),
                     csv_number(c.gamma_out_of_cache_s_per_B), optional(c.memcpy_GBps),
                     optional(c.memcpy_in_cache_GBps));
  return out;
}

Calibration read_calibration(const std::string& path) {
  const CsvTable t(read_text_file(path), path);
  require(t, {"alpha_s", "beta_s_per_B", "gamma_s_per_B"});
  if (t.rows().size() != 1)
    throw UsageError(fmt::format("{}: {} data rows; a calibration file has exactly one", path,
                                 t.rows().size()));
  const CsvRecord& r = t.rows().front();
  Calibration c;
  c.params = {number(t, r, "alpha_s"), number(t, r, "beta_s_per_B"),
              number(t, r, "gamma_s_per_B")};
  if (t.has("transport") && !t.cell(r, "transport").empty()) c.transport = t.cell(r, "transport");
  if (t.has("ranks")) c.ranks = static_cast<int>(number(t, r, "ranks"));
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
  return c;
}

ModelParams load_model_params(const std::string& path, const std::optional<std::string>& transport,
                              std::string* source_transport) {
  const CsvTable t(read_text_file(path), path);
  if (!t.has("scope")) {
    const Calibration c = read_calibration(path);
    if (source_transport) *source_transport = c.transport;
    return c.params;
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
  return {value("alpha_s"), value("beta_s_per_B"), value("gamma_s_per_B")};
}

}  // namespace cb::models
