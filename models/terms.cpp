#include "models/terms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "models/knees.hpp"

namespace cb::models {

const SizeRange* range_for(const std::vector<SizeRange>& ranges, double m) {
  if (ranges.empty()) return nullptr;
  const SizeRange* r = &ranges.front();
  for (const SizeRange& x : ranges)
    if (x.from_B <= m) r = &x;
  return r;
}

double Curve::at(double size) const {
  if (size_B.empty()) return 0;
  if (size <= size_B.front()) return s_per_B.front();
  if (size >= size_B.back()) return s_per_B.back();
  const auto hi = static_cast<std::size_t>(
      std::upper_bound(size_B.begin(), size_B.end(), size) - size_B.begin());
  const std::size_t lo = hi - 1;
  const double f = std::log(size / size_B[lo]) / std::log(size_B[hi] / size_B[lo]);
  return s_per_B[lo] + f * (s_per_B[hi] - s_per_B[lo]);
}

bool ModelTerms::has(char term) const {
  switch (term) {
    case 'a': return !oneway.empty();
    case 'b': return !copy.empty() && !reduce.empty();
    case 'c': return !exchange.empty();
    case 'd': return overhead_measured;  // o = 0 is a measurement too
    case 'e': return !forward.empty();
    case 'f': return !exchange_staged.empty();
    case 'g': return flight_measured;  // F = 0 is a measurement too (steps serialize)
    case 'h': return !incast.empty() && !incast_sending.empty();  // 0 is a measurement too
    case 'i': return probe.measured();
    case 'j': return !buffered.empty();  // a fraction of 0 is a measurement too
    default: return false;
  }
}

std::string term_description(char term) {
  switch (term) {
    case 'a':
      return "(a) α and β per message-size range: ping-pong size sweep, split at its detected "
             "knees (eager/rendezvous, cache-resident/streaming), net of an empty run's time, "
             "which is charged once per collective";
    case 'b':
      return "(b) δ per byte of each local copy and the reduce cost per byte at the rank's "
             "working set, plus a fixed cost per local operation: copy and reduce "
             "calibrations, every rank at once";
    case 'c':
      return "(c) concurrency: α and β per size range when a rank sends and receives in one "
             "step, and when it also reduces what arrives (receive and reduce priced as one): "
             "pairwise-exchange size sweeps, copying and reducing";
    case 'd':
      return "(d) LogGP overhead o: each message after the first in a step costs o instead of "
             "α: ping-pong of k small messages per direction";
    case 'e':
      return "(e) forwarding: extra cost per byte of a message whose bytes the sender wrote "
             "earlier in the collective (received, reduced or packed), by message size: relay "
             "ping-pong (each rank sends back what it just received) against the plain one";
    case 'f':
      return "(f) staged reduces: a step that receives into scratch, copies its own part into "
             "the destination and reduces the scratch into it, priced as one: size sweep of "
             "that exchange";
    case 'g':
      return "(g) latency off the critical path: each rank keeps its own clock and a step waits "
             "only for the messages it receives, which fly for F of the one-way latency while "
             "their sender goes on: pipelined ping-pong (two one-way messages in consecutive "
             "steps, then one back) against the plain one";
    case 'h':
      return "(h) incast: extra cost per byte a rank receives from k >= 2 senders in one step, "
             "by k, receiving only or sending to the k peers too: fan-in (k senders, one "
             "receiver) and k-way exchange (k + 1 ranks), large sizes, against the ping-pong; "
             "calibrate on 3 or more ranks";
    case 'i':
      return "(i) mode probe: each measured configuration priced in the coherence mode it ran "
             "in, the messages' latencies scaled by the ratio of its 8-byte "
             "exchange probe to the calibration's, what forwarding and incast add per byte by "
             "that of the 256 KiB probes (forwarding); a no-op without a probe on the rows "
             "(predict, map, sim)";
    case 'j':
      return "(j) send buffering: the fraction of a send the transport buffers, completing it "
             "before its bytes cross, so a rank's sends in consecutive steps share its link: "
             "fan-out (one rank sends to a second, then to a third while the second sends "
             "back), by size; calibrate on 3 or more ranks";
    default:
      return "α-β-γ baseline: one α, one β (ping-pong), one γ (reduce kernel)";
  }
}

std::string format_ranges(const std::vector<SizeRange>& ranges) {
  std::string out;
  for (const SizeRange& r : ranges)
    out += fmt::format("{}{}:{}:{}", out.empty() ? "" : ";", r.from_B, r.alpha_s,
                       r.beta_s_per_B);  // shortest exact text: the file round-trips
  return out;
}

std::vector<SizeRange> parse_ranges(const std::string& text) {
  std::vector<SizeRange> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    double v[3];
    std::size_t at = pos;
    for (int k = 0; k < 3; ++k) {
      const std::size_t stop = k < 2 ? std::min(text.find(':', at), end) : end;
      const auto [p, ec] = std::from_chars(text.data() + at, text.data() + stop, v[k]);
      if (ec != std::errc() || p != text.data() + stop || !std::isfinite(v[k]) || v[k] < 0)
        throw std::invalid_argument(fmt::format(
            "'{}' is not a ';'-separated list of from_B:alpha_s:beta_s_per_B (numbers >= 0)",
            text));
      at = stop + 1;
    }
    out.push_back({v[0], v[1], v[2]});
    pos = end + 1;
  }
  return out;
}

std::vector<SizeRange> fit_ranges(const std::vector<double>& bytes,
                                  const std::vector<double>& seconds) {
  std::vector<SizeRange> out;
  if (bytes.size() < 2) return out;
  // Up to 6 regimes (e.g. latency-bound, eager, rendezvous in cache, out of
  // cache); a segment must still halve the misfit's RMS to be kept.
  KneeOptions opt;
  opt.max_segments = 6;
  opt.look_past_one = true;
  const Piecewise pw = detect_knees(bytes, seconds, opt);
  for (const Segment& s : pw.segments)
    out.push_back({s.first == 0 ? 0.0 : bytes[s.first], s.a_s, s.b_s_per_B});
  return out;
}

}  // namespace cb::models
