// Which measured rows a configured network's link does not limit: on a
// testbed whose links are slow and known (scripts/testbed/), a row is charged
// to the CPU when the CPU time its messages need exceeds the link's time for
// them, and the testbed report leaves such rows out of its grades. The rule
// lives here, once; `collbench fit --network` writes its verdict per row
// (link-limited.csv) for the scripts to format.
#pragma once

#include <string>
#include <vector>

#include "models/results_csv.hpp"

namespace cb::models {

// The network a testbed setting was configured with (its setting.txt) and
// the stack's own per-message overhead (a calibration with the delay at 0).
struct NetworkSetting {
  double latency_s = 0;         // configured one-way latency, seconds
  double wire_B_per_s = 0;      // configured rate on the wire, BYTES per second
  double cores = 2;             // cores the testbed's ranks share
  double stack_overhead_s = 0;  // the delay-0 calibration's alpha, seconds
};

// Reads `setting_file` (key=value lines: latency_us, bandwidth_bps in bits/s,
// cores, optional; default 2) and the alpha of `overhead_calibration` (a
// `collbench calibrate` CSV). Throws UsageError naming the file and the bad
// value or the missing key.
NetworkSetting read_network_setting(const std::string& setting_file,
                                    const std::string& overhead_calibration);

// One measured schedule row priced against the network.
struct LinkRow {
  const Measurement* row = nullptr;
  double rounds = 0;      // latencies along the critical path (closed form's alpha)
  double bytes_sent = 0;  // BYTES along the critical path (closed form's beta)
  // CPU time its messages need: rounds x stack overhead x max(1, ranks / cores);
  // the link's time for them: rounds x latency + bytes_sent / rate. Seconds.
  double cpu_s = 0, link_s = 0;
  bool cpu_limited() const { return cpu_s > link_s; }
};

// Every row of `results` with a schedule (library baselines have no closed
// form and are not listed), in file order.
std::vector<LinkRow> link_rows(const ResultsFile& results, const NetworkSetting& net);

// link-limited.csv: transport, collective, algorithm, datatype, op, placement,
// ranks, bytes, count, rounds, bytes_sent, cpu_s, link_s, cpu_limited (1 when
// cpu_s > link_s, else 0), and the setting's latency_s, rate_B_per_s, cores,
// stack_overhead_s repeated on every row.
std::string link_rows_csv(const std::vector<LinkRow>& rows, const NetworkSetting& net);

}  // namespace cb::models
