#include "algorithms/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "algorithms/check.hpp"

#include "algorithms/algorithm.hpp"
#include "algorithms/hierarchical/compose.hpp"

// The generators and cost functions the table names (algorithm.hpp).
#define CB_ALGORITHM(coll, name, traits, mpich, restrictions, summary) \
  namespace cb::coll {                                                   \
  void name(const CollParams&, ScheduleBuilder&);                        \
  Cost name##_cost(const CollParams&);                                   \
  }
#include "algorithms/registry_table.inc"
#undef CB_ALGORITHM

namespace cb {

namespace {

// One row of registry_table.inc as an entry: the flag columns become the
// entry's named properties.
constexpr AlgorithmEntry row(Collective coll, std::string_view name, unsigned traits,
                             std::string_view mpich, unsigned restrictions,
                             std::string_view summary, GenerateFn generate, CostFn cost) {
  const auto has = [](unsigned flags, unsigned flag) { return (flags & flag) != 0; };
  AlgorithmEntry e{coll, name, summary, generate, cost};
  e.segmented = has(traits, kSegmented);
  e.cost_slack = has(traits, kCostSlack)             ? CostSlack::always
                 : has(traits, kCostSlackUnlessPow2) ? CostSlack::async_unless_pow2
                                                     : CostSlack::none;
  e.prices_baselines = has(traits, kPricesBaselines);
  e.direct = has(traits, kDirect);
  e.mpich = mpich;
  e.mpich_pow2_only = has(restrictions, kMpichPow2);
  e.mpich_commutative_only = has(restrictions, kMpichCommutative);
  e.mpich_builtin_op_only = has(restrictions, kMpichBuiltinOp);
  e.mpich_no_in_place = has(restrictions, kMpichNoInPlace);
  e.mpich_count_ge_pof2 = has(restrictions, kMpichCountGePof2);
  return e;
}

constexpr AlgorithmEntry kTable[] = {
#define CB_ALGORITHM(coll, name, traits, mpich, restrictions, summary) \
  row(Collective::coll, #name, traits, mpich, restrictions, summary, coll::name, coll::name##_cost),
#include "algorithms/registry_table.inc"
#undef CB_ALGORITHM
};

}  // namespace

std::span<const AlgorithmEntry> algorithms_for(Collective coll) {
  // Rows are grouped by collective: the rows of `coll` are one run.
  const auto first = std::find_if(std::begin(kTable), std::end(kTable),
                                  [coll](const AlgorithmEntry& e) { return e.coll == coll; });
  const auto last = std::find_if(first, std::end(kTable),
                                 [coll](const AlgorithmEntry& e) { return e.coll != coll; });
  CB_CHECK(std::none_of(last, std::end(kTable),
                        [coll](const AlgorithmEntry& e) { return e.coll == coll; }),
           "registry_table.inc: the rows of {} are not together", to_string(coll));
  return {first, last};
}

std::vector<const AlgorithmEntry*> all_algorithms() {
  std::vector<const AlgorithmEntry*> out;
  for (Collective c : kAllCollectives)
    for (const AlgorithmEntry& e : algorithms_for(c)) out.push_back(&e);
  return out;
}

std::vector<std::string_view> all_algorithm_names() {
  std::vector<std::string_view> names;
  for (const AlgorithmEntry* e : all_algorithms())
    if (std::find(names.begin(), names.end(), e->name) == names.end())
      names.push_back(e->name);
  return names;
}

std::string segmented_algorithm_names(std::string_view separator) {
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& e : kTable)
    if (e.segmented && std::find(names.begin(), names.end(), e.name) == names.end())
      names.push_back(e.name);
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += separator;
    out += n;
  }
  return out;
}

const AlgorithmEntry& baseline_price_entry(Collective coll) {
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (e.prices_baselines) return e;
  throw InternalError(
      fmt::format("registry_table.inc: no {} row has kPricesBaselines", to_string(coll)));
}

const AlgorithmEntry& find_algorithm(Collective coll, std::string_view name) {
  if (is_composite_name(name)) return find_composite(coll, name);
  const auto table = algorithms_for(coll);
  for (const AlgorithmEntry& e : table)
    if (e.name == name) return e;
  std::string valid;
  for (const AlgorithmEntry& e : table) {
    if (!valid.empty()) valid += ", ";
    valid += e.name;
  }
  throw UsageError(fmt::format("algorithm '{}' is not defined for {} (valid for {}: {})", name,
                               to_string(coll), to_string(coll), valid));
}

Schedule make_schedule(const AlgorithmEntry& algo, const CollParams& params,
                       std::uint64_t window_begin, std::uint64_t window_end, Schedule storage) {
  CB_CHECK(algo.coll == params.coll, "{} entry asked for {}", to_string(algo.coll),
           to_string(params.coll));
  ScheduleBuilder b(params, std::string(algo.name), window_begin, window_end, std::move(storage));
  if (params.count == 0) return std::move(b).finish();
  if (params.p == 1) {
    // One rank: every collective's result is its input (counts are equal), so
    // no algorithm has anything to do beyond placing it.
    if (!params.in_place) {
      const std::size_t n = output_count(params.coll, 1, params.count);
      b.step();
      b.copy({kInput, 0, n}, {kOutput, 0, n});
    }
  } else if (algo.composition != nullptr) {
    generate_composite(*algo.composition, params, b);
  } else {
    algo.generate(params, b);
  }
  if (params.op == ReduceOp::avg && is_reducing(params.coll)) {
    b.step();
    b.average({kOutput, 0, output_count(params.coll, params.p, params.count)});
  }
  return std::move(b).finish();
}

Schedule make_schedule(std::string_view algorithm, const CollParams& params) {
  return make_schedule(find_algorithm(params.coll, algorithm), params);
}

Cost closed_form_cost(const AlgorithmEntry& algo, const CollParams& params) {
  // Nothing is sent for count 0, and p = 1 is one uncosted local copy.
  if (params.count == 0 || params.p == 1) return {};
  if (algo.composition != nullptr) return composite_cost(*algo.composition, params);
  return algo.cost(params);
}

}  // namespace cb
