#include "harness/verify/verification.hpp"

#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/reference/verify.hpp"

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

namespace {

// The order probe (verify.hpp): one more run on inputs whose result depends
// on the reduction order; every rank's output must have rank 0's bits. Only
// a digest per rank travels unless they differ; then the outputs are
// gathered to count this rank's elements that differ from rank 0's.
std::uint64_t disagreeing_elements(Operation& op, const VerifySpec& spec, Group& group,
                                   std::vector<std::byte>& got) {
  op.write_input(make_order_probe_input(spec, group.rank()));
  group.barrier();
  op.run();
  op.read_output(got);
  const std::vector<std::uint64_t> digests = allgather_value(group, bytes_digest(got));
  bool agree = true;
  for (std::uint64_t d : digests) agree = agree && d == digests[0];
  if (agree) return 0;
  const std::vector<std::vector<std::byte>> all = group.allgather_bytes(got);
  return count_different(spec, got, all[0]);
}

}  // namespace

std::uint64_t verify_case(Operation& op, const Case& c, Group& group, std::uint64_t seed) {
  const VerifySpec spec = spec_of(c, seed);
  const int rank = group.rank();
  op.write_input(make_input(spec, rank));
  group.barrier();
  op.run();
  std::vector<std::byte> got(output_count(c.coll, c.ranks, c.count) * element_size(c.dtype));
  op.read_output(got);
  std::uint64_t wrong = count_wrong(spec, got, expected_output(spec, rank));
  if (order_probe_applies(spec)) wrong += disagreeing_elements(op, spec, group, got);
  return group.sum_to_root(wrong);
}

}  // namespace cb
