#include "harness/verify/verification.hpp"

#include <vector>

#include "algorithms/schedule.hpp"
#include "harness/verify/verify.hpp"

namespace cb {
namespace {
VerifySpec spec_of(const Case& c, std::uint64_t seed) {
  VerifySpec s;
  s.coll = c.coll;
  s.dtype = c.dtype;
  s.op = c.op;
  s.p = c.ranks;
  s.count = c.count;
  s.seed = seed;
  return s;
}
}  // namespace

void write_case_input(Operation& op, const Case& c, int rank, std::uint64_t seed) {
  op.write_input(make_input(spec_of(c, seed), rank));
}

std::uint64_t verify_case(Operation& op, const Case& c, Group& group, std::uint64_t seed) {
  const VerifySpec spec = spec_of(c, seed);
  const int rank = group.rank();
  op.write_input(make_input(spec, rank));
  group.barrier();
  op.run();
  std::vector<std::byte> got(output_count(c.coll, c.ranks, c.count) * element_size(c.dtype));
  op.read_output(got);
  const std::uint64_t wrong = count_wrong(spec, got, expected_output(spec, rank));
  return group.sum_to_root(wrong);
}

}  // namespace cb
