#include "transports/sim/arrival_price.hpp"

#include <algorithm>

#include "models/schedule_model.hpp"

namespace cb {

int arrival_draws(const ArrivalPattern& pattern, int iterations) {
  if (!pattern.varies()) return 1;
  return iterations > 0 ? iterations : kArrivalDraws;
}

PricedArrival price_arrival(const AlgorithmEntry& algo, const CollParams& params,
                            const sim::NetworkParams& net, const sim::SimOptions& options,
                            const std::optional<PricedTerms>& priced,
                            const ArrivalPattern& pattern, int draws) {
  PricedArrival out;
  const auto p = static_cast<std::size_t>(params.p);
  std::optional<models::ScheduleFeatures> features;
  if (priced) features = models::features_for(algo, params);
  // Every rank's finish when it enters at `arrival`.
  const auto finish = [&](const std::vector<double>& arrival) {
    if (priced)
      return models::priced_finish_s(*features, priced->base, priced->terms, priced->use, arrival);
    sim::SimOptions o = options;
    o.arrival_s = arrival;
    sim::SimResult res = sim::simulate(algo, params, net, o);
    out.events = res.messages;
    return std::move(res.finish_s);
  };
  const std::vector<double> zero(p, 0.0);
  const std::vector<double> still = finish(zero);
  out.noskew_s = *std::max_element(still.begin(), still.end());
  for (int i = 0; i < draws; ++i) {
    const std::vector<double> arrival = pattern.delays(params.p, static_cast<std::uint64_t>(i));
    const std::vector<double> done = finish(arrival);
    const ArrivalTimes t = arrival_times(arrival, done);
    out.step_s.push_back(t.step_s);
    out.after_last_s.push_back(t.after_last_s);
    if (t.early_in_s) out.early_in_s.push_back(*t.early_in_s);
  }
  return out;
}

}  // namespace cb
