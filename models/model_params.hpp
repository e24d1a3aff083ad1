// The three numbers of the alpha-beta-gamma model, in SI units, and how a
// Cost (algorithms/params.hpp: message rounds, bytes, reduced bytes) turns
// into seconds with them.
#pragma once

#include "algorithms/params.hpp"

namespace cb::models {

struct ModelParams {
  double alpha_s = 0;        // seconds per message (latency)
  double beta_s_per_B = 0;   // seconds per byte on the wire (1 / bandwidth)
  double gamma_s_per_B = 0;  // seconds per byte reduced locally
  // The intra-node level of a two-level model (a calibration on two levels,
  // or the --intra-* flags): seconds per message and per byte between ranks
  // of one node; alpha_s and beta_s_per_B are then the network's. 0 = one
  // level (models/two_level.hpp prices by level only when both are > 0).
  double intra_alpha_s = 0;
  double intra_beta_s_per_B = 0;
  // The network's LogGP gap g on two levels (models/two_level.hpp): a
  // rank's inter-node messages in one step overlap their latency, each
  // holding its port g seconds plus its bytes' beta (a calibration's
  // `overhead` o, the cost of each message after the first). Negative: no
  // overlap, every message holds the port for its whole alpha, one after
  // another (the single-port model). At most alpha_s.
  double network_gap_s = -1;
  bool two_level() const { return intra_alpha_s > 0 && intra_beta_s_per_B > 0; }
  friend bool operator==(const ModelParams&, const ModelParams&) = default;
};

// A measured per-message overhead as the network's gap: capped at alpha,
// since a fit's alpha can come out below the overhead measured beside it
// and no message holds its port longer than it takes to arrive. Negative
// (not measured, or turned off) stays negative: single-port.
inline double network_gap_within_alpha(double gap_s, double alpha_s) {
  return gap_s < 0 ? -1 : (gap_s < alpha_s ? gap_s : alpha_s);
}

// The largest parameters accepted, from a flag or a file: beyond them no
// network exists, and predicted times overflow to inf (--alpha 1e300, or
// beta_s_per_B=1e300 in a calibration file, made every time inf). An hour
// per message, a second per byte (1 B/s).
inline constexpr double kMaxModelSeconds = 3600;
inline constexpr double kMaxModelSecondsPerByte = 1;

// T = alpha*cost.alpha + beta*cost.beta + gamma*cost.gamma, in seconds (one
// level: the intra-node fields are not read; models/two_level.hpp prices both).
inline double seconds(const Cost& cost, const ModelParams& m) {
  return m.alpha_s * cost.alpha + m.beta_s_per_B * cost.beta + m.gamma_s_per_B * cost.gamma;
}

}  // namespace cb::models
