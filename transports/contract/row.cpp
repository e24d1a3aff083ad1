#include "transports/contract/row.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "algorithms/collective.hpp"

namespace cb {

double busbw_factor(Collective coll, int p) {
  const double dp = p;
  return collective_spec(coll).busbw_steps * (dp - 1) / dp;
}

Row make_row(const Case& c, const Measurement& m) {
  Row r;
  r.c = c;
  r.time_s = summarize(m.times_s);
  if (r.time_s.median > 0) {
    r.algbw_GBps = static_cast<double>(c.bytes()) / r.time_s.median / 1e9;
    r.busbw_GBps = r.algbw_GBps * busbw_factor(c.coll, c.ranks);
  }
  r.wrong = m.wrong;
  r.oversubscribed = m.oversubscribed;
  r.wait = m.wait;
  r.start = m.start;
  r.late = m.late;
  r.probe_small_s = m.probe_small_s;
  r.probe_large_s = m.probe_large_s;
  r.alpha_s = m.alpha_s;
  r.beta_s_per_B = m.beta_s_per_B;
  r.gamma_s_per_B = m.gamma_s_per_B;
  r.events = m.events;
  r.skipped = m.skipped;
  r.clock_sync_s = m.clock_sync_s;
  if (m.arrival) {
    r.arrival = m.arrival->pattern;
    if (!m.arrival->noskew_s.empty()) r.noskew_median_s = summarize(m.arrival->noskew_s).median;
    if (!m.arrival->after_last_s.empty()) {
      const Stats after = summarize(m.arrival->after_last_s);
      r.after_last_median_s = after.median;
      r.after_last_ci_lo_s = after.ci_lo;
      r.after_last_ci_hi_s = after.ci_hi;
    }
    if (!m.arrival->early_in_s.empty() && r.noskew_median_s)
      r.early_idle_s =
          std::max(0.0, summarize(m.arrival->early_in_s).median - *r.noskew_median_s);
  }
  return r;
}

std::string case_key(const Case& c) {
  return fmt::format("{},{},{},{},{},{},{},{}", c.transport, to_string(c.coll), c.algorithm,
                     to_string(c.dtype), is_reducing(c.coll) ? to_string(c.op) : "",
                     c.in_place ? "in" : "out", c.ranks, c.bytes());
}

}  // namespace cb
