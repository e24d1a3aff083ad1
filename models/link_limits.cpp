#include "models/link_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "algorithms/types.hpp"
#include "models/calibration.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

namespace {

// key=value lines; blank lines and lines starting with '#' are skipped.
std::map<std::string, std::string> read_keys(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UsageError(fmt::format("--network {}: cannot read it", file));
  std::map<std::string, std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("--network {}:{}: '{}' is not key=value", file, n, line));
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

double positive(const std::map<std::string, std::string>& keys, const std::string& file,
                const std::string& key, std::optional<double> fallback = std::nullopt) {
  const auto it = keys.find(key);
  if (it == keys.end()) {
    if (fallback) return *fallback;
    throw UsageError(fmt::format("--network {}: no {}= line (accepted keys: latency_us, "
                                 "bandwidth_bps, cores)",
                                 file, key));
  }
  double v = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v <= 0)
    throw UsageError(fmt::format("--network {}: {}={} is not a number > 0", file, key, s));
  return v;
}

}  // namespace

NetworkSetting read_network_setting(const std::string& setting_file,
                                    const std::string& overhead_calibration) {
  const auto keys = read_keys(setting_file);
  NetworkSetting net;
  net.latency_s = positive(keys, setting_file, "latency_us") * 1e-6;
  net.wire_B_per_s = positive(keys, setting_file, "bandwidth_bps") / 8;
  net.cores = positive(keys, setting_file, "cores", 2.0);
  net.stack_overhead_s = load_model_params(overhead_calibration, std::nullopt).alpha_s;
  return net;
}

std::vector<LinkRow> link_rows(const ResultsFile& results, const NetworkSetting& net) {
  std::vector<LinkRow> out;
  for (const Measurement& m : results.rows) {
    if (!m.entry) continue;
    const Cost c = model_cost(*m.entry, m.scenario, m.count);
    LinkRow r;
    r.row = &m;
    r.rounds = c.alpha;
    r.bytes_sent = c.beta;
    r.cpu_s = c.alpha * net.stack_overhead_s * std::max(1.0, m.scenario.p / net.cores);
    r.link_s = c.alpha * net.latency_s + c.beta / net.wire_B_per_s;
    out.push_back(r);
  }
  return out;
}

std::string link_rows_csv(const std::vector<LinkRow>& rows, const NetworkSetting& net) {
  std::string out =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,rounds,bytes_sent,"
      "cpu_s,link_s,cpu_limited,latency_s,rate_B_per_s,cores,stack_overhead_s\n";
  for (const LinkRow& r : rows) {
    const Measurement& m = *r.row;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(m.transport), to_string(m.scenario.coll), csv_escape(m.algorithm),
                       to_string(m.scenario.dtype),
                       m.has_op ? std::string(to_string(m.scenario.op)) : std::string(),
                       m.scenario.in_place ? "in" : "out", m.scenario.p, m.bytes, m.count,
                       csv_number(r.rounds), csv_number(r.bytes_sent), csv_number(r.cpu_s),
                       csv_number(r.link_s), r.cpu_limited() ? 1 : 0, csv_number(net.latency_s),
                       csv_number(net.wire_B_per_s), csv_number(net.cores),
                       csv_number(net.stack_overhead_s));
  }
  return out;
}

}  // namespace cb::models
