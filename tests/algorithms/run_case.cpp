#include "tests/algorithms/run_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "algorithms/check.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/schedule_json.hpp"
#include "algorithms/validate.hpp"
#include "transports/kernels/half.hpp"
#include "transports/reference/reference.hpp"

namespace cb::test {
namespace {

// One element as text, for failure messages.
std::string element(DataType t, const std::byte* b) {
  auto get = [b]<class T>(T) {
    T v;
    std::memcpy(&v, b, sizeof v);
    return v;
  };
  switch (t) {
    case DataType::int8: return fmt::format("{}", get(std::int8_t{}));
    case DataType::uint8: return fmt::format("{}", get(std::uint8_t{}));
    case DataType::int16: return fmt::format("{}", get(std::int16_t{}));
    case DataType::uint16: return fmt::format("{}", get(std::uint16_t{}));
    case DataType::int32: return fmt::format("{}", get(std::int32_t{}));
    case DataType::uint32: return fmt::format("{}", get(std::uint32_t{}));
    case DataType::int64: return fmt::format("{}", get(std::int64_t{}));
    case DataType::uint64: return fmt::format("{}", get(std::uint64_t{}));
    case DataType::fp16: return fmt::format("{}", half_to_float(get(std::uint16_t{})));
    case DataType::bf16: return fmt::format("{}", bf16_to_float(get(std::uint16_t{})));
    case DataType::fp32: return fmt::format("{}", get(float{}));
    case DataType::fp64: return fmt::format("{}", get(double{}));
  }
  return "?";
}

std::string dump(const AlgoCase& c, const std::vector<Schedule>& all) {
  // Hierarchical names ("hier:tree/ring") hold characters a file name cannot.
  std::string name(c.entry->name);
  std::replace_if(name.begin(), name.end(), [](char ch) { return ch == '/' || ch == ':'; }, '_');
  const auto dir = std::filesystem::current_path() / "failed-schedules";
  std::filesystem::create_directories(dir);
  const auto path =
      dir / fmt::format("{}-{}-p{}-n{}-{}-{}-{}{}{}.json", to_string(c.entry->coll), name,
                        c.p, c.count, to_string(c.dtype), to_string(c.op),
                        c.in_place ? "inplace" : "outofplace",
                        c.segment_bytes ? fmt::format("-seg{}", c.segment_bytes) : "",
                        c.ranks_per_node ? fmt::format("-k{}", c.ranks_per_node) : "");
  write_schedules(path.string(), all);
  return path.string();
}

bool float_sensitive(const AlgoCase& c) {
  return c.mode == InputMode::random && is_floating(c.dtype) && is_reducing(c.entry->coll) &&
         c.op != ReduceOp::min && c.op != ReduceOp::max;
}

}  // namespace

std::string describe(const AlgoCase& c) {
  return fmt::format("{}/{} p={} count={} {} {} {}{}{}{}", to_string(c.entry->coll),
                     c.entry->name, c.p, c.count, to_string(c.dtype), to_string(c.op),
                     c.in_place ? "in-place" : "out-of-place",
                     c.mode == InputMode::random ? " random-inputs" : "",
                     c.segment_bytes ? fmt::format(" segment={}B", c.segment_bytes) : "",
                     c.ranks_per_node ? fmt::format(" ranks-per-node={}", c.ranks_per_node) : "");
}

std::string run_case(const AlgoCase& c) {
  const CollParams params{c.entry->coll, c.p,        0,
                          c.count,       c.dtype,    c.op,
                          c.in_place,    c.segment_bytes, c.ranks_per_node};
  std::vector<Schedule> all;
  try {
    all = make_all_schedules(*c.entry, params);
  } catch (const std::exception& e) {
    return fmt::format("{}: generating the schedules threw: {}", describe(c), e.what());
  }
  if (const ValidationResult v = validate(all); !v)
    return fmt::format("{}: invalid schedule: {}\n  schedules: {}", describe(c), v.message,
                       dump(c, all));

  const VerifySpec spec{c.entry->coll, c.dtype, c.op, c.p, c.count, /*seed=*/1234, c.mode};
  std::vector<std::vector<std::byte>> inputs;
  for (int r = 0; r < c.p; ++r) inputs.push_back(make_input(spec, r));
  std::vector<std::vector<std::byte>> outputs;
  try {
    outputs = run_reference(all, inputs);
  } catch (const std::exception& e) {
    return fmt::format("{}: reference executor: {}\n  schedules: {}", describe(c), e.what(),
                       dump(c, all));
  }
  const auto expected = expected_outputs(spec);
  std::string problems;
  const std::size_t esize = element_size(c.dtype);
  for (int r = 0; r < c.p; ++r) {
    std::size_t wrong;
    std::vector<double> bounds;
    if (float_sensitive(c)) {
      bounds = error_bounds(spec, r);
      wrong = count_wrong_within(spec, outputs[r], expected[r], bounds);
    } else {
      wrong = count_wrong(spec, outputs[r], expected[r]);
    }
    if (wrong == 0) continue;
    // The first differing element, for the message (bit difference: with a
    // tolerance it may be within bounds, so it is only a hint).
    std::size_t first = 0;
    while (first * esize < outputs[r].size() &&
           std::memcmp(&outputs[r][first * esize], &expected[r][first * esize], esize) == 0)
      ++first;
    problems += fmt::format("\n  rank {}: {} of {} output elements wrong", r, wrong,
                            outputs[r].size() / esize);
    if (first * esize < outputs[r].size())
      problems += fmt::format(" (first differing: element {} = {}, expected {}{})", first,
                              element(c.dtype, &outputs[r][first * esize]),
                              element(c.dtype, &expected[r][first * esize]),
                              bounds.empty() ? "" : fmt::format(" +- {}", bounds[first]));
  }
  if (problems.empty()) return {};
  return fmt::format("{}: wrong result{}\n  schedules: {}", describe(c), problems, dump(c, all));
}

}  // namespace cb::test
