// replay FILE: re-runs a dumped schedule set (failed-schedules/*.json, written
// by the algorithm tests) through the validator and the reference executor on
// verify's exact inputs, and prints what is wrong. For debugging a failure
// without re-running the whole matrix.
#include <fmt/format.h>

#include <cstring>

#include "algorithms/schedule_json.hpp"
#include "algorithms/validate.hpp"
#include "transports/reference/verify.hpp"
#include "transports/reference/reference.hpp"

int main(int argc, char** argv) {
  using namespace cb;
  if (argc != 2) {
    fmt::print(stderr, "usage: {} SCHEDULES.json\n", argv[0]);
    return 2;
  }
  try {
    const std::vector<Schedule> all = read_schedules(argv[1]);
    if (all.empty()) throw UsageError(fmt::format("{}: no schedules", argv[1]));
    const Schedule& s = all[0];
    fmt::print("{}/{} p={} count={} {} {} {}\n", to_string(s.coll), s.algorithm, s.p, s.count,
               to_string(s.dtype), to_string(s.op), s.in_place ? "in-place" : "out-of-place");
    if (const ValidationResult v = validate(all); !v) {
      fmt::print("invalid: {}\n", v.message);
      return 1;
    }
    const VerifySpec spec{s.coll, s.dtype, s.op, s.p, s.count, 1234, InputMode::exact};
    std::vector<std::vector<std::byte>> inputs;
    for (int r = 0; r < s.p; ++r) inputs.push_back(make_input(spec, r));
    const auto outputs = run_reference(all, inputs);
    const auto expected = expected_outputs(spec);
    std::size_t total = 0;
    for (int r = 0; r < s.p; ++r) {
      const std::size_t wrong = count_wrong(spec, outputs[r], expected[r]);
      if (wrong) fmt::print("rank {}: {} wrong elements\n", r, wrong);
      total += wrong;
    }
    fmt::print("{}\n", total ? "wrong result" : "valid and correct");
    return total ? 1 : 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}
