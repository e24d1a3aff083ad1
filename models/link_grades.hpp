// The grades of a testbed's link-limited rows (scope "link-limited",
// targets.hpp): on a testbed whose network is configured and known, the rows
// the CPU rather than the link limits (link_limits.hpp) are left out, and the
// model is held to tighter targets on the rest, crossovers included. The one
// place these rules live: `collbench fit --network` writes the grades to
// accuracy.csv and the per-crossover verdicts to crossovers.csv, and
// scripts/testbed/report.py only shows them.
#pragma once

#include <string>
#include <vector>

#include "models/analysis.hpp"
#include "models/link_limits.hpp"

namespace cb::models {

// Appends to a.grades one link-limited Grade per (calibration level,
// transport) and marks a.crossovers and a.best with their scope verdicts.
// `rows` are link_rows() of the results a was analyzed from (their Measurement
// pointers are the predictions'). Left out of the scope:
//  - a prediction of a CPU-limited row;
//  - a size (BestAtSize) at which any measured algorithm is CPU-limited;
//  - a measured crossover next to a CPU-limited row of one of its two
//    algorithms, at the measured sizes on either side of it.
// A measured crossover in the scope is predicted "within" when the first
// predicted crossing is within kTargetsLinkLimited.crossover_factor of the
// first measured one in size, else "below" or "above" it, or "none";
// within_interval also counts a prediction inside the measured crossing's
// interval (measured_interval_B: where the measurement places it).
void grade_link_limited(Analysis& a, const std::vector<LinkRow>& rows);

// link-errors.csv: the model's error per algorithm over the same scope's
// predictions (a calibration level's, CPU-limited rows left out), the table
// the testbed report shows for its main level. One row per (params,
// transport, collective, algorithm), ordered by their names: params,
// transport, scope (link-limited), collective, algorithm, rows_all,
// median_signed_err_all and median_abs_err_all (medians of rel_err and
// |rel_err| over every size, fractions).
std::string link_errors_csv(const Analysis& a, const std::vector<LinkRow>& rows);

// The share of the wire's bytes that is TCP payload on the testbed: a 9000 B
// IP packet (20 B IP + 20 B TCP + 12 B timestamp option) in the 9014 B
// Ethernet frame that its rate limiter counts.
inline constexpr double kTcpPayloadShare = 8948.0 / 9014.0;

// network.csv: per transport with a global fit, its parameters against the
// configured network: transport, latency_s, stack_overhead_s,
// expected_alpha_s (latency + stack overhead), fitted_alpha_s, alpha_error
// (fitted / expected - 1), target_alpha_error, met_alpha (|alpha_error| within
// it: 1 or 0), rate_B_per_s (configured, on the wire, BYTES/s),
// payload_share, expected_rate_B_per_s (rate x payload share),
// fitted_rate_B_per_s (1/beta), rate_error (fitted / configured rate - 1),
// target_rate_error, met_rate. Seconds and bytes per second.
std::string network_csv(const Analysis& a, const NetworkSetting& net);

// calibrated-link.csv: per calibration given to the fit, its network level
// (alpha_s, beta_s_per_B: on a two-level calibration the leaders' pair
// across nodes; the node level has no configured link to be held to)
// against the configured network: transport, calibration (the file),
// levels (2 for a two-level calibration, else 1), then network.csv's columns from latency_s
// on, with calibrated_alpha_s and calibrated_rate_B_per_s for the fitted
// ones and both targets kTargetCalibratedLinkError.
std::string calibrated_link_csv(const std::vector<CalibrationInput>& calibrations,
                                const NetworkSetting& net);

}  // namespace cb::models
