// The verifiable data (harness/verify): exact inputs give the same bits in any
// reduction order, the references follow each collective's definition, seeds
// and positions change the data, and count_wrong counts exactly what differs.
#include "transports/reference/verify.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/schedule.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {
namespace {

using Bytes = std::vector<std::byte>;

constexpr int kRankCounts[] = {1, 2, 3, 5, 8, 33, 64, 100};

std::vector<Bytes> all_inputs(const VerifySpec& s) {
  std::vector<Bytes> in;
  for (int r = 0; r < s.p; ++r) in.push_back(make_input(s, r));
  return in;
}

// Combines the inputs along a random binary tree whose operands are also
// randomly ordered: any schedule's reduction is one such tree.
Bytes reduce_random_tree(const VerifySpec& s, std::vector<Bytes> parts, std::mt19937& rng) {
  const std::size_t n = parts.front().size() / element_size(s.dtype);
  while (parts.size() > 1) {
    std::shuffle(parts.begin(), parts.end(), rng);
    reduce_inplace(s.dtype, s.op, parts[0].data(), parts.back().data(), n);
    parts.pop_back();
  }
  if (s.op == ReduceOp::avg) divide_inplace(s.dtype, parts[0].data(), n, s.p);
  return parts[0];
}

Bytes block(const Bytes& b, std::size_t index, std::size_t bytes) {
  return Bytes(b.begin() + static_cast<std::ptrdiff_t>(index * bytes),
               b.begin() + static_cast<std::ptrdiff_t>((index + 1) * bytes));
}

TEST(VerifyExact, AnyReductionOrderGivesTheExpectedBits) {
  std::mt19937 rng(3);
  for (DataType t : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (int p : kRankCounts) {
        const VerifySpec s{Collective::allreduce, t, op, p, 97, 1234};
        const Bytes want = expected_output(s, 0);
        const auto inputs = all_inputs(s);
        for (int trial = 0; trial < 3; ++trial) {
          const Bytes got = reduce_random_tree(s, inputs, rng);
          ASSERT_EQ(got, want) << to_string(t) << " " << to_string(op) << " p=" << p;
          ASSERT_EQ(count_wrong(s, got, want), 0u);
        }
      }
    }
  }
}

// The exact data never overflows a signed or unsigned integer either, so a
// library that does not wrap (or traps) still gets the expected result.
TEST(VerifyExact, IntegerReductionsStayInRange) {
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod}) {
    for (int p : kRankCounts) {
      const VerifySpec s{Collective::allreduce, DataType::int8, op, p, 200, 9};
      const auto inputs = all_inputs(s);
      for (std::size_t i = 0; i < s.count; ++i) {
        std::int64_t acc = op == ReduceOp::sum ? 0 : 1;
        for (const Bytes& in : inputs) {
          const auto v = static_cast<std::int8_t>(in[i]);
          acc = op == ReduceOp::sum ? acc + v : acc * v;
          ASSERT_LE(std::abs(acc), 127) << to_string(op) << " p=" << p << " i=" << i;
        }
      }
      const VerifySpec u{Collective::allreduce, DataType::uint8, op, p, 200, 9};
      const auto uin = all_inputs(u);
      for (std::size_t i = 0; i < u.count; ++i) {
        std::uint64_t acc = op == ReduceOp::sum ? 0 : 1;
        for (const Bytes& in : uin) {
          const auto v = static_cast<std::uint8_t>(in[i]);
          acc = op == ReduceOp::sum ? acc + v : acc * v;
        }
        ASSERT_LE(acc, 255u) << to_string(op) << " p=" << p << " i=" << i;
      }
    }
  }
}

TEST(VerifyExact, ReduceScatterIsABlockOfTheReduction) {
  for (DataType t : {DataType::int32, DataType::bf16, DataType::fp64}) {
    for (int p : {1, 3, 8}) {
      const VerifySpec s{Collective::reduce_scatter, t, ReduceOp::sum, p, 5, 77};
      // Elementwise sum of the full inputs, computed independently of verify.
      const auto inputs = all_inputs(s);
      Bytes full = inputs[0];
      for (int r = 1; r < p; ++r)
        reduce_inplace(t, ReduceOp::sum, full.data(), inputs[static_cast<std::size_t>(r)].data(),
                       inputs[0].size() / element_size(t));
      const auto outs = expected_outputs(s);
      const std::size_t bytes = s.count * element_size(t);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(expected_output(s, r), block(full, static_cast<std::size_t>(r), bytes));
        EXPECT_EQ(outs[static_cast<std::size_t>(r)], expected_output(s, r));
      }
    }
  }
}

TEST(VerifyExact, AllgatherAndAlltoallFollowTheirDefinitions) {
  for (int p : {1, 2, 5}) {
    const std::size_t count = 3;
    const VerifySpec ag{Collective::allgather, DataType::fp16, ReduceOp::sum, p, count, 5};
    const VerifySpec aa{Collective::alltoall, DataType::uint32, ReduceOp::sum, p, count, 5};
    const auto ag_in = all_inputs(ag);
    const auto aa_in = all_inputs(aa);
    const auto ag_all = expected_outputs(ag);
    const auto aa_all = expected_outputs(aa);
    for (int r = 0; r < p; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      const Bytes ag_out = expected_output(ag, r);
      const Bytes aa_out = expected_output(aa, r);
      ASSERT_EQ(ag_out.size(), output_count(ag.coll, p, count) * 2);
      ASSERT_EQ(aa_out.size(), output_count(aa.coll, p, count) * 4);
      EXPECT_EQ(ag_all[ru], ag_out);
      EXPECT_EQ(aa_all[ru], aa_out);
      for (int j = 0; j < p; ++j) {
        const auto ju = static_cast<std::size_t>(j);
        EXPECT_EQ(block(ag_out, ju, count * 2), ag_in[ju]) << "allgather block " << j;
        EXPECT_EQ(block(aa_out, ju, count * 4), block(aa_in[ju], ru, count * 4))
            << "alltoall rank " << r << " block " << j;
      }
    }
  }
}

std::size_t differing_elements(const Bytes& a, const Bytes& b, std::size_t size) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); i += size)
    n += std::memcmp(a.data() + i, b.data() + i, size) != 0;
  return n;
}

TEST(VerifyData, SeedsRanksAndPositionsChangeTheData) {
  for (DataType t : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (int p : {2, 8, 100}) {
        const VerifySpec s{Collective::allreduce, t, op, p, 512, 1};
        VerifySpec s2 = s;
        s2.seed = 2;
        const std::size_t size = element_size(t);
        std::size_t seed_diff = 0, rank_diff = 0, pos_diff = 0, total = 0;
        Bytes prev;
        for (int r = 0; r < p; ++r) {
          const Bytes a = make_input(s, r), b = make_input(s2, r);
          seed_diff += differing_elements(a, b, size);
          if (r > 0) rank_diff += differing_elements(a, prev, size);
          const Bytes shifted(a.begin() + static_cast<std::ptrdiff_t>(size), a.end());
          pos_diff += differing_elements(
              shifted, Bytes(a.begin(), a.end() - static_cast<std::ptrdiff_t>(size)), size);
          total += s.count;
          prev = a;
        }
        const std::string what = fmt::format("{} {} p={}", to_string(t), to_string(op), p);
        EXPECT_GT(seed_diff, 0u) << what;
        EXPECT_GT(rank_diff, 0u) << what;
        EXPECT_GT(pos_diff, 0u) << what;
        // Wherever the exact range leaves room (small p, or no sum/prod
        // constraint), most elements differ.
        if (p <= 8 && op != ReduceOp::prod) {
          EXPECT_GT(seed_diff, total / 2) << what;
          EXPECT_GT(pos_diff, total / 2) << what;
        }
      }
    }
  }
}

// Flips one bit high in each chosen element (the top significand bit for
// floats, so the change is far beyond avg's 2 ulp).
void corrupt(Bytes& b, DataType t, std::size_t i) {
  const std::size_t size = element_size(t);
  int bit = 0;
  switch (t) {
    case DataType::fp16:
      bit = 9;
      break;
    case DataType::bf16:
      bit = 6;
      break;
    case DataType::fp32:
      bit = 22;
      break;
    case DataType::fp64:
      bit = 51;
      break;
    default:
      bit = 0;
      break;
  }
  b[i * size + static_cast<std::size_t>(bit / 8)] ^=
      std::byte{static_cast<unsigned char>(1u << (bit % 8))};
}

TEST(VerifyCompare, CountsExactlyTheCorruptedElements) {
  for (Collective c : kAllCollectives) {
    for (DataType t : kAllDataTypes) {
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
        const VerifySpec s{c, t, op, 4, 50, 3};
        const Bytes want = expected_output(s, 1);
        const std::size_t n = want.size() / element_size(t);
        Bytes got = want;
        EXPECT_EQ(count_wrong(s, got, want), 0u);
        const std::size_t picks[] = {0, 7, 8, n - 1};
        for (std::size_t i : picks) corrupt(got, t, i);
        EXPECT_EQ(count_wrong(s, got, want), std::size(picks))
            << to_string(c) << " " << to_string(t) << " " << to_string(op);
      }
    }
  }
}

TEST(VerifyCompare, FloatAvgAcceptsTwoUlp) {
  const VerifySpec s{Collective::allreduce, DataType::fp32, ReduceOp::avg, 3, 4, 8};
  std::vector<float> want = {1.0f, 3.0f, -5.0f, 1e-3f};
  auto bytes = [](const std::vector<float>& v) {
    Bytes b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  std::vector<float> got = want;
  got[0] = std::nextafter(std::nextafter(got[0], 2.0f), 2.0f);  // +2 ulp
  got[1] = std::nextafter(std::nextafter(got[1], 0.0f), 0.0f);  // -2 ulp
  EXPECT_EQ(count_wrong(s, bytes(got), bytes(want)), 0u);
  got[2] = std::nextafter(std::nextafter(std::nextafter(got[2], 0.0f), 0.0f), 0.0f);  // 3 ulp
  got[3] = std::nanf("");
  EXPECT_EQ(count_wrong(s, bytes(got), bytes(want)), 2u);
  VerifySpec sum = s;
  sum.op = ReduceOp::sum;  // anything but avg is bit-exact
  got = want;
  got[0] = std::nextafter(got[0], 2.0f);
  EXPECT_EQ(count_wrong(sum, bytes(got), bytes(want)), 1u);
}

void set_infinity(Bytes& b, DataType t, std::size_t i) {
  const std::size_t size = element_size(t);
  const std::uint64_t inf = t == DataType::fp16   ? 0x7c00u
                            : t == DataType::bf16 ? 0x7f80u
                            : t == DataType::fp32 ? 0x7f800000u
                                                  : 0x7ff0000000000000ull;
  std::memcpy(b.data() + i * size, &inf, size);  // little-endian host
}

TEST(VerifyRandom, ReductionOrdersStayWithinTheBound) {
  std::mt19937 rng(5);
  for (DataType t : {DataType::fp16, DataType::bf16, DataType::fp32, DataType::fp64}) {
    for (ReduceOp op : kAllReduceOps) {
      for (int p : {2, 7, 64, 100}) {
        const VerifySpec s{Collective::allreduce, t, op, p, 200, 21, InputMode::random};
        const Bytes want = expected_output(s, 0);
        const auto bounds = error_bounds(s, 0);
        const auto inputs = all_inputs(s);
        for (int trial = 0; trial < 3; ++trial) {
          const Bytes got = reduce_random_tree(s, inputs, rng);
          ASSERT_EQ(count_wrong_within(s, got, want, bounds), 0u)
              << to_string(t) << " " << to_string(op) << " p=" << p;
        }
        if (op == ReduceOp::min || op == ReduceOp::max) {
          EXPECT_EQ(*std::max_element(bounds.begin(), bounds.end()), 0.0) << "min/max are exact";
          continue;
        }
        EXPECT_THROW(count_wrong(s, want, want), InternalError) << "needs the bounds";
        Bytes bad = want;
        set_infinity(bad, t, 5);
        EXPECT_EQ(count_wrong_within(s, bad, want, bounds), 1u)
            << to_string(t) << " " << to_string(op) << " p=" << p;
      }
    }
  }
}

TEST(VerifyRandom, TheBoundIsWhatIsChecked) {
  const VerifySpec s{Collective::reduce_scatter, DataType::fp64, ReduceOp::sum, 16, 8, 4,
                     InputMode::random};
  const Bytes want = expected_output(s, 3);
  const auto bounds = error_bounds(s, 3);
  std::vector<double> v(8);
  std::memcpy(v.data(), want.data(), want.size());
  for (std::size_t i = 0; i < 8; ++i) {
    ASSERT_GT(bounds[i], 0.0);
    v[i] += (i % 2 ? 2.0 : 0.5) * bounds[i];  // odd elements beyond the bound
  }
  Bytes got(want.size());
  std::memcpy(got.data(), v.data(), got.size());
  EXPECT_EQ(count_wrong_within(s, got, want, bounds), 4u);
}

TEST(VerifyRandom, RandomFloatsAreNotIntegers) {
  const VerifySpec s{Collective::allreduce, DataType::fp64, ReduceOp::sum, 4, 100, 2,
                     InputMode::random};
  const Bytes in = make_input(s, 0);
  std::vector<double> v(100);
  std::memcpy(v.data(), in.data(), in.size());
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](double x) { return x != std::floor(x); }));
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x >= -1 && x < 1; }));
}

TEST(VerifySpecChecks, RejectsBadRankAndSizes) {
  const VerifySpec s{Collective::allreduce, DataType::fp32, ReduceOp::sum, 2, 4, 0};
  EXPECT_THROW(make_input(s, 2), InternalError);
  EXPECT_THROW(expected_output(s, -1), InternalError);
  const Bytes a(16), b(12);
  EXPECT_THROW(count_wrong(s, a, b), InternalError);
  const VerifySpec empty{Collective::alltoall, DataType::int8, ReduceOp::sum, 3, 0, 0};
  EXPECT_TRUE(make_input(empty, 0).empty());
  EXPECT_TRUE(expected_output(empty, 2).empty());
}

// The order probe: combining every rank's input in each rank's own order (the
// old naive all-reduce: rank r folds r, r-1, ..., r+1) gives different bits
// on different ranks for every float type and for sum, avg's sum and prod,
// while rank order on every rank agrees; count_different counts the elements.
TEST(VerifyOrderProbe, OwnOrderDisagreesRankOrderAgrees) {
  for (DataType t : {DataType::fp32, DataType::fp64, DataType::fp16, DataType::bf16}) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod}) {
      for (int p : {3, 4, 5, 8, 17}) {
        const VerifySpec s{Collective::allreduce, t, op, p, 40, 9};
        ASSERT_TRUE(order_probe_applies(s));
        std::vector<Bytes> in;
        for (int r = 0; r < p; ++r) in.push_back(make_order_probe_input(s, r));
        std::vector<Bytes> own(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r) {
          own[r] = in[r];
          for (int i = 1; i < p; ++i)
            reduce_inplace(t, op, own[r].data(), in[(r - i + p) % p].data(), s.count);
        }
        std::size_t differ = 0;
        for (int r = 1; r < p; ++r) differ += count_different(s, own[r], own[0]);
        EXPECT_GT(differ, 0u) << to_string(t) << " " << to_string(op) << " p=" << p;
        EXPECT_NE(bytes_digest(own[1]), bytes_digest(own[0]));
      }
    }
  }
}

TEST(VerifyOrderProbe, AppliesToFloatAllreduceSumAvgProdOnly) {
  const VerifySpec base{Collective::allreduce, DataType::fp32, ReduceOp::sum, 3, 8, 0};
  EXPECT_TRUE(order_probe_applies(base));
  VerifySpec s = base;
  s.op = ReduceOp::avg;
  EXPECT_TRUE(order_probe_applies(s));
  s.op = ReduceOp::min;
  EXPECT_FALSE(order_probe_applies(s));
  s = base;
  s.dtype = DataType::int32;
  EXPECT_FALSE(order_probe_applies(s));
  s = base;
  s.p = 2;
  EXPECT_FALSE(order_probe_applies(s));
  s = base;
  s.coll = Collective::reduce_scatter;
  EXPECT_FALSE(order_probe_applies(s));
  EXPECT_THROW(make_order_probe_input(s, 0), InternalError);
}

TEST(VerifyOrderProbe, DigestSeesEveryByte) {
  Bytes a(37, std::byte{0x11});
  const std::uint64_t d = bytes_digest(a);
  for (std::size_t i = 0; i < a.size(); ++i) {
    Bytes b = a;
    b[i] ^= std::byte{0x01};
    EXPECT_NE(bytes_digest(b), d) << "byte " << i;
  }
  EXPECT_NE(bytes_digest(Bytes(8)), bytes_digest(Bytes(9)));
  EXPECT_EQ(bytes_digest(Bytes{}), bytes_digest(Bytes{}));
}

}  // namespace
}  // namespace cb
