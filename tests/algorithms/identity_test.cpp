// Every all-reduce and reduce-scatter schedule gives every rank the same bits
// (issue 31, item 0). MPICH's allred_float failed through the PMPI library
// because naive reduced in each rank's own order, so values that cancel
// (1e8 + 0.01 - 1e8) came out 0.01 on one rank and 0 on another; verify's
// exact inputs cannot see that (every order gives the same bits there).
//
// Inputs here are built to expose the association order. For each element j
// three ranks a = (j + shift) mod p, a+1 and a+2 hold:
//   sum, avg: L, s, -L and the rest 0, with s below half an ulp of L
//             (fp32 1e8 and 0.01), so a result is s or 0 depending on
//             whether L meets -L before s;
//   prod:     B, B, 1/B and the rest 1, B*B overflowing: B or inf;
//   min, max: -0, +0 and the rest 1 (min) or -1 (max): between equal zeros
//             the kernel must not favour its dst operand.
// Checks, run by the reference executor (schedule semantics, no transport):
//  - all-reduce: every rank's output is bitwise rank 0's, and a possible
//    result of some order (s or 0; B or inf; exactly -0 for min, +0 for max);
//  - reduce-scatter: every block is such a possible result (each element has
//    one owner, so ranks cannot disagree; the check is that no order error,
//    such as a contribution reduced twice, slips through);
//  - both: in place, out of place and (segmented algorithms) segmented runs of
//    one algorithm give the same bits, so the result does not depend on the
//    placement or segment size either.
// p = 1..17 and 24, 32, 33; counts 1, p-1 (< p), 2p+3 (not divisible) and 61;
// fp32, fp64, fp16, bf16; sum for every p, the other ops on a subset.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/validate.hpp"
#include "transports/kernels/half.hpp"
#include "transports/reference/reference.hpp"

namespace cb::test {
namespace {

using Bytes = std::vector<std::byte>;

constexpr DataType kFloats[] = {DataType::fp32, DataType::fp64, DataType::fp16, DataType::bf16};

// The large value L (sum) or B (prod) and the small one s per datatype.
double large(DataType t, ReduceOp op) {
  if (op == ReduceOp::prod) {
    switch (t) {
      case DataType::fp16: return 0x1p10;
      case DataType::fp64: return 0x1p600;
      default: return 0x1p70;  // fp32, bf16
    }
  }
  switch (t) {
    case DataType::fp16: return 2048;  // ulp 2
    case DataType::bf16: return 1024;  // ulp 8
    case DataType::fp64: return 1e20;
    default: return 1e8;  // fp32: ulp 8
  }
}

double small(DataType t) {
  switch (t) {
    case DataType::fp16: return 0.25;
    case DataType::bf16: return 1;
    default: return 0.01;
  }
}

void store(DataType t, std::byte* at, double v) {
  switch (t) {
    case DataType::fp16: {
      const std::uint16_t h = float_to_half(static_cast<float>(v));
      std::memcpy(at, &h, 2);
      return;
    }
    case DataType::bf16: {
      const std::uint16_t h = float_to_bf16(static_cast<float>(v));
      std::memcpy(at, &h, 2);
      return;
    }
    case DataType::fp32: {
      const auto f = static_cast<float>(v);
      std::memcpy(at, &f, 4);
      return;
    }
    default:
      std::memcpy(at, &v, 8);
  }
}

double load(DataType t, const std::byte* at) {
  std::uint16_t h = 0;
  switch (t) {
    case DataType::fp16:
      std::memcpy(&h, at, 2);
      return half_to_float(h);
    case DataType::bf16:
      std::memcpy(&h, at, 2);
      return bf16_to_float(h);
    case DataType::fp32: {
      float f = 0;
      std::memcpy(&f, at, 4);
      return f;
    }
    default: {
      double d = 0;
      std::memcpy(&d, at, 8);
      return d;
    }
  }
}

// Rank r's contribution to element j (see the header).
double contribution(DataType t, ReduceOp op, int p, int r, std::size_t j) {
  const auto a = static_cast<int>((j * 7 + 3) % static_cast<std::size_t>(p));
  const int role = (r - a + p) % p;  // 0, 1, 2 for the three special ranks
  const double big = large(t, op);
  switch (op) {
    case ReduceOp::prod:
      return role == 0 || role == 1 ? big : role == 2 ? 1 / big : 1;
    case ReduceOp::min:
    case ReduceOp::max:
      if (role == 0) return -0.0;
      if (role == 1) return 0.0;
      return op == ReduceOp::min ? 1 : -1;
    default:  // sum, avg
      return role == 0 ? big : role == 1 ? small(t) : role == 2 ? -big : 0;
  }
}

// Whether `got` is what some reduction order gives for an element (p >= 3).
bool possible(DataType t, ReduceOp op, int p, const std::byte* got) {
  const double v = load(t, got);
  const std::size_t es = element_size(t);
  Bytes zero(es), s(es), big(es), inf(es);
  store(t, zero.data(), 0.0);
  store(t, s.data(), small(t));
  store(t, big.data(), large(t, op));
  store(t, inf.data(), std::numeric_limits<double>::infinity());
  auto same = [&](const Bytes& b) { return std::memcmp(got, b.data(), es) == 0; };
  switch (op) {
    case ReduceOp::prod: return same(big) || same(inf);
    case ReduceOp::min: return v == 0 && std::signbit(v);
    case ReduceOp::max: return v == 0 && !std::signbit(v);
    case ReduceOp::avg: {
      // s / p computed as divide_inplace does: in float for fp16/bf16/fp32.
      const double stored = load(t, s.data());
      Bytes s_avg(es);
      if (t == DataType::fp64)
        store(t, s_avg.data(), stored / p);
      else
        store(t, s_avg.data(), static_cast<float>(stored) / static_cast<float>(p));
      return v == 0 || same(s_avg);
    }
    default: return v == 0 || same(s);
  }
}

struct Run {
  std::string error;  // empty when the schedules ran
  std::vector<Bytes> outputs;
};

Run run(const AlgorithmEntry& e, int p, std::size_t count, DataType t, ReduceOp op,
        bool in_place, std::size_t segment_bytes) {
  const CollParams params{e.coll, p, 0, count, t, op, in_place, segment_bytes};
  const std::vector<Schedule> all = make_all_schedules(e, params);
  if (const ValidationResult v = validate(all); !v) return {"invalid schedule: " + v.message, {}};
  const std::size_t es = element_size(t);
  const std::size_t n = input_count(e.coll, p, count);
  std::vector<Bytes> inputs(static_cast<std::size_t>(p), Bytes(n * es));
  for (int r = 0; r < p; ++r)
    for (std::size_t j = 0; j < n; ++j)
      store(t, inputs[static_cast<std::size_t>(r)].data() + j * es, contribution(t, op, p, r, j));
  return {{}, run_reference(all, inputs)};
}

// Problems of one (entry, p, count, dtype, op): empty when none.
std::string check(const AlgorithmEntry& e, int p, std::size_t count, DataType t, ReduceOp op) {
  const std::string what = fmt::format("{}/{} p={} count={} {} {}", to_string(e.coll), e.name, p,
                                       count, to_string(t), to_string(op));
  const Run base = run(e, p, count, t, op, false, 0);
  if (!base.error.empty()) return what + ": " + base.error;
  const std::size_t es = element_size(t);
  const std::size_t out_elems = base.outputs[0].size() / es;
  std::string problems;
  auto problem = [&](const std::string& s) {
    if (problems.size() < 2000) problems += "\n  " + s;
  };
  for (int r = 0; r < p; ++r) {
    const Bytes& o = base.outputs[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < out_elems; ++i) {
      if (e.coll == Collective::allreduce && r > 0 &&
          std::memcmp(o.data() + i * es, base.outputs[0].data() + i * es, es) != 0) {
        problem(fmt::format("rank {} element {} = {} but rank 0 has {}", r, i,
                            load(t, o.data() + i * es),
                            load(t, base.outputs[0].data() + i * es)));
        break;
      }
      if (p >= 3 && !possible(t, op, p, o.data() + i * es)) {
        problem(fmt::format("rank {} element {} = {}: no reduction order gives that", r, i,
                            load(t, o.data() + i * es)));
        break;
      }
    }
  }
  std::vector<std::pair<bool, std::size_t>> variants{{true, 0}};
  if (e.segmented) {
    variants.emplace_back(false, 3 * es);
    variants.emplace_back(true, 2 * es);
  }
  for (const auto& [in_place, seg] : variants) {
    const Run v = run(e, p, count, t, op, in_place, seg);
    if (!v.error.empty()) return what + ": " + v.error;
    if (v.outputs != base.outputs)
      problem(fmt::format("{}{} differs from out of place", in_place ? "in place" : "out of place",
                          seg ? fmt::format(" segment {} B", seg) : ""));
  }
  return problems.empty() ? std::string{} : what + ":" + problems;
}

std::vector<int> all_ranks() {
  std::vector<int> ps;
  for (int p = 1; p <= 17; ++p) ps.push_back(p);
  for (int p : {24, 32, 33}) ps.push_back(p);
  return ps;
}

std::vector<std::size_t> counts_for(int p) {
  const auto up = static_cast<std::size_t>(p);
  std::vector<std::size_t> c{1, 2 * up + 3, 61};
  if (p > 2) c.push_back(up - 1);
  return c;
}

void check_entries(Collective coll, std::span<const ReduceOp> ops, std::span<const int> ranks) {
  for (const AlgorithmEntry& e : algorithms_for(coll)) {
    int failures = 0;
    for (int p : ranks)
      for (std::size_t count : counts_for(p))
        for (DataType t : kFloats)
          for (ReduceOp op : ops) {
            if (failures >= 3) continue;  // the rest would share the cause
            const std::string problem = check(e, p, count, t, op);
            if (problem.empty()) continue;
            ++failures;
            ADD_FAILURE() << problem;
          }
  }
}

constexpr ReduceOp kSum[] = {ReduceOp::sum};
constexpr ReduceOp kOtherOps[] = {ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg};
constexpr int kOtherRanks[] = {3, 4, 5, 6, 7, 8, 11, 16};

TEST(Identity, AllreduceSumEveryP) { check_entries(Collective::allreduce, kSum, all_ranks()); }
TEST(Identity, AllreduceOtherOps) {
  check_entries(Collective::allreduce, kOtherOps, kOtherRanks);
}
TEST(Identity, ReduceScatterSumEveryP) {
  check_entries(Collective::reduce_scatter, kSum, all_ranks());
}
TEST(Identity, ReduceScatterOtherOps) {
  check_entries(Collective::reduce_scatter, kOtherOps, kOtherRanks);
}

// The data exposes the order: combining in two different orders gives two
// different results, so a test that passes cannot pass by accident.
TEST(Identity, InputsExposeTheOrder) {
  for (DataType t : kFloats) {
    const double L = large(t, ReduceOp::sum), s = small(t);
    const std::size_t es = element_size(t);
    Bytes x(es), y(es);
    store(t, x.data(), L);
    store(t, y.data(), s);
    // Rounded in the type: L + s == L.
    Bytes z(es);
    store(t, z.data(), load(t, x.data()) + load(t, y.data()));
    EXPECT_EQ(load(t, z.data()), L) << to_string(t) << ": s is not swamped by L";
    EXPECT_NE(load(t, y.data()), 0.0) << to_string(t);
    Bytes bb(es);
    const double B = large(t, ReduceOp::prod);
    store(t, bb.data(), B * B);
    EXPECT_TRUE(std::isinf(load(t, bb.data()))) << to_string(t) << ": B*B does not overflow";
  }
}

}  // namespace
}  // namespace cb::test
