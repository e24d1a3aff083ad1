// Verifiable data: seeded inputs whose collective results are known exactly,
// the reference results, and the comparison. Used by the tests and by the
// harness's -c check (re-run with a fresh seed after timing).
//
// Units: counts are ELEMENTS; buffers are raw bytes of VerifySpec::dtype.
// VerifySpec::count is the collective's count as in the MPI call (see
// Schedule::count): allreduce count, reduce_scatter per-rank block, allgather
// sendcount, alltoall count per peer. Inputs hold input_count(coll, p, count)
// elements and outputs output_count(coll, p, count) (algorithms/schedule.hpp).
//
// InputMode::exact (default) chooses values for which every reduction order
// gives the same bits, so results are compared bit-exactly:
//  - Each value is an integer (hashed from seed, rank and element index) that
//    every datatype represents exactly: |v| <= 2048 in fp16, 256 in bf16,
//    2^24 in fp32, 2^53 in fp64, the type's range for integers (64-bit types
//    stay within 2^62); unsigned types get non-negative values.
//  - sum/avg: for each element at most k = min(p, L) ranks contribute a
//    non-zero value of magnitude <= L / k, so every partial sum, in any order,
//    stays within the exact range L (no rounding, no integer overflow).
//  - prod: values are +-1 (unsigned: 1) with a factor 2 on at most K ranks per
//    element (K = 6 int8, 7 uint8, 15 fp16, 30 others), so every partial
//    product is a power of two within range.
//  - min/max and the non-reducing collectives: any value in the exact range.
//  - avg: the exact sum divided by p once, rounded to nearest (integers
//    truncate). A schedule that sums then divides reproduces it bit-exactly;
//    count_wrong still accepts float avg within 2 ulp, as nccl-tests does, for
//    libraries that scale before summing (e.g. a premultiplied 1/p).
// Values differ by rank and element position, so a misplaced block shows, and
// a different seed gives different data.
//
// InputMode::random gives floats drawn uniformly from [-1, 1) (prod: random
// sign, magnitude in [1 - 1/(2p), 1 + 1/(2p)] so products stay near 1), for
// tests of rounding behaviour. Results then depend on the reduction order;
// compare them with count_wrong_within and error_bounds (bound stated there).
// Integer datatypes use the exact values in both modes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/types.hpp"

namespace cb {

enum class InputMode : std::uint8_t { exact, random };

struct VerifySpec {
  Collective coll = Collective::allreduce;
  DataType dtype = DataType::fp32;
  ReduceOp op = ReduceOp::sum;  // ignored by allgather and alltoall
  int p = 1;
  std::size_t count = 0;  // the collective's count (elements), see above
  std::uint64_t seed = 0;
  InputMode mode = InputMode::exact;
};

// Rank `rank`'s input buffer: input_count(coll, p, count) elements.
std::vector<std::byte> make_input(const VerifySpec& spec, int rank);

// Rank `rank`'s correct output, computed straight from the collective's
// definition (no schedule): allreduce: op over all ranks' inputs;
// reduce_scatter: block `rank` of that reduction; allgather: all inputs
// concatenated in rank order; alltoall: block j of the output = block `rank`
// of rank j's input. Reductions combine ranks 0, 1, ..., p-1 in order.
std::vector<std::byte> expected_output(const VerifySpec& spec, int rank);

// All ranks' expected outputs at once (index = rank); cheaper than p calls of
// expected_output for the reducing collectives, whose reduction is shared.
std::vector<std::vector<std::byte>> expected_outputs(const VerifySpec& spec);

// Number of elements of `got` that differ from `expected` (equal sizes, whole
// elements): bit-exact, except float avg, where up to 2 ulp is accepted.
// A NaN in `got` is always wrong. For InputMode::random with a float sum,
// prod or avg use count_wrong_within instead (checked).
std::size_t count_wrong(const VerifySpec& spec, std::span<const std::byte> got,
                        std::span<const std::byte> expected);

// InputMode::random: an absolute error bound per element of rank's output,
// for any reduction order: with u the unit roundoff of the type (2^-11 fp16,
// 2^-8 bf16, 2^-24 fp32, 2^-53 fp64), M the sum of |x_r| over the ranks
// (sum), the product of |x_r| (prod) or the sum of |x_r| divided by p (avg),
// and tiny the type's smallest positive subnormal,
//     bound = 2 (p + 1) u M + p tiny.
// This covers the worst case of any summation tree plus the rounding of the
// reference itself while (p - 1) u <= 1/2 (fp16 up to p = 1025, bf16 up to
// p = 129); beyond that it is a heuristic. Zero where results are exact
// (integers, min/max, non-reducing collectives, InputMode::exact).
std::vector<double> error_bounds(const VerifySpec& spec, int rank);

// Elements of `got` farther than bounds[i] from `expected` (NaN always wrong).
std::size_t count_wrong_within(const VerifySpec& spec, std::span<const std::byte> got,
                               std::span<const std::byte> expected, std::span<const double> bounds);

// ---- agreement across ranks -------------------------------------------------
//
// Exact inputs give the same bits in every reduction order, so they cannot
// show an all-reduce whose ranks combine the operands in different orders and
// so end with different results (issue 31: naive did, and MPICH's
// allred_float saw 0.01 on one rank and 0 on another). The order probe's
// inputs make the order visible: for element j, three ranks a, a+1, a+2
// (a rotating with j and the seed) hold
//   sum, avg: L, s, -L, the rest 0, with s below half an ulp of L (fp32: 1e8
//             and 0.01; fp64 1e20 and 0.01; fp16 2048 and 0.25; bf16 1024
//             and 1), so the result is s or 0 depending on the order;
//   prod:     B, B, 1/B, the rest 1, B*B overflowing (fp16 2^10, fp64
//             2^600, fp32/bf16 2^70): B or inf.
// No reference result exists (it depends on the algorithm's order); what is
// checked is that every rank has the same bits as rank 0.

// Whether the probe applies: an all-reduce (one result for every rank) of a
// float datatype with sum, avg or prod on p >= 3 ranks (min/max, integers and
// fewer ranks cannot differ by order: their ops are associative or there is
// only one pair).
bool order_probe_applies(const VerifySpec& spec);

// Rank `rank`'s probe input: input_count(coll, p, count) elements (checked:
// order_probe_applies(spec)).
std::vector<std::byte> make_order_probe_input(const VerifySpec& spec, int rank);

// A 64-bit digest of bytes, for comparing ranks' outputs without moving them.
std::uint64_t bytes_digest(std::span<const std::byte> bytes);

// Elements of `got` whose bits differ from `reference` (equal sizes).
std::size_t count_different(const VerifySpec& spec, std::span<const std::byte> got,
                            std::span<const std::byte> reference);

}  // namespace cb
