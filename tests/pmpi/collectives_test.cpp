// libcollbench-pmpi.so under LD_PRELOAD (meson runs this under mpiexec -n 2,
// 3 and 4 with the library preloaded): the four intercepted collectives on
// MPI_COMM_WORLD and on a split communicator, in place and out of place, for
// every registered algorithm and odd counts. Integer results must equal the
// MPI library's (PMPI_, which the library does not intercept) bit for bit;
// float results must equal collbench's reference executor running the same
// schedules. The library's counters prove each call really ran the schedule
// named, and that the library's own internal MPI calls were not counted as
// (or recursed into) intercepted ones.
#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "transports/mpi/library_calls.hpp"
#include "transports/reference/reference.hpp"

namespace cb {
namespace {

using SetFn = int (*)(const char*, const char*);
using CallsFn = unsigned long long (*)(const char*, const char*);
using FallbacksFn = unsigned long long (*)(const char*);

struct Api {
  SetFn set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_set_algorithm"));
  CallsFn calls = reinterpret_cast<CallsFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_calls"));
  FallbacksFn fallbacks =
      reinterpret_cast<FallbacksFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_fallbacks"));
  bool loaded() const { return set && calls && fallbacks; }
};

std::string coll_name(Collective c) { return std::string(to_string(c)); }

// Deterministic inputs: element i of rank r, different per rank and seed.
std::int32_t int_value(int r, std::size_t i, int seed) {
  return static_cast<std::int32_t>((r + 1) * 1000003 + static_cast<int>(i) * 7919 - seed * 31) %
         200001;
}
float float_value(int r, std::size_t i, int seed) {
  return static_cast<float>((r * 131 + static_cast<int>(i) * 17 + seed) % 1013) * 0.37f - 91.3f;
}

// Inputs of every rank, as the bytes of the input view (Schedule::input_count()).
template <class T, class Gen>
std::vector<std::vector<std::byte>> inputs(Collective coll, int p, std::size_t count, Gen gen) {
  std::vector<std::vector<std::byte>> all;
  for (int r = 0; r < p; ++r) {
    const std::size_t n = input_count(coll, p, count);
    std::vector<std::byte> bytes(n * sizeof(T));
    for (std::size_t i = 0; i < n; ++i) {
      const T v = gen(r, i);
      std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
    }
    all.push_back(std::move(bytes));
  }
  return all;
}

// Runs `coll` through the intercepted entry point (use_pmpi false) or the
// MPI library's (true) on `comm`. `in` is this rank's input view; returns the
// output view (for an in-place reduce-scatter, MPI's: the buffer's start).
std::vector<std::byte> call(Collective coll, bool use_pmpi, MPI_Comm comm, bool in_place,
                            const std::vector<std::byte>& in, std::size_t count,
                            MPI_Datatype type, std::size_t elem, MPI_Op op) {
  int p = 0, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const int n = static_cast<int>(count);
  const std::size_t out_n = output_count(coll, p, count);
  const InPlaceLayout lay = in_place_layout(coll, p, me, count);
  std::vector<std::byte> buf(std::max(lay.total, std::max(out_n, input_count(coll, p, count))) *
                             elem);
  const std::vector<std::byte> original = in;
  const void* send = MPI_IN_PLACE;
  if (in_place) {
    std::memcpy(buf.data() + lay.input_offset * elem, in.data(), in.size());
  } else {
    send = in.data();
  }
  const int rc = call_collective(coll, use_pmpi, send, buf.data(), n, type, op, comm);
  EXPECT_EQ(rc, MPI_SUCCESS);
  // MPI's send buffer is read-only: no schedule may have written it.
  if (!in_place) {
    EXPECT_EQ(in, original) << to_string(coll) << ": the send buffer changed";
  }
  buf.resize(out_n * elem);
  return buf;
}

// Only rank 0 may write the XML report meson parses (the same path on every
// rank: two writers interleave into a file meson cannot read). Dropping the
// XML writer on the other ranks once the run starts works whatever main()
// did before.
class OnlyRankZeroWritesXml : public ::testing::Environment {
 public:
  void SetUp() override {
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) return;
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_xml_generator());
  }
};
[[maybe_unused]] ::testing::Environment* const only_rank_zero_writes_xml =
    ::testing::AddGlobalTestEnvironment(new OnlyRankZeroWritesXml);

class PmpiCollectives : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(api_.loaded()) << "libcollbench-pmpi.so is not preloaded (LD_PRELOAD)";
  }
  // Only rank 0 reports: it fails too when any other rank did (PMPI_, so the
  // verdict never depends on the library under test).
  void TearDown() override {
    int mine = HasFailure() ? 1 : 0, ranks = 0, me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    std::vector<int> all(256, 0);
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    PMPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0)
      for (int r = 1; r < ranks && r < 256; ++r)
        if (all[static_cast<std::size_t>(r)]) ADD_FAILURE() << "rank " << r << " failed this test";
  }

  // Every algorithm of every collective on `comm`: integers against PMPI_,
  // floats against the reference. Returns the calls made per algorithm.
  void check_all(MPI_Comm comm, const char* comm_name) {
    int p = 0, me = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    // 1 < p and 13, which no p in 2..4 divides.
    const std::vector<std::size_t> counts = {1, 13};
    for (Collective coll : kAllCollectives) {
      const std::string cname = coll_name(coll);
      for (const AlgorithmEntry& algo : algorithms_for(coll)) {
        ASSERT_EQ(api_.set(cname.c_str(), std::string(algo.name).c_str()), 0);
        const unsigned long long before = api_.calls(cname.c_str(), std::string(algo.name).c_str());
        unsigned long long made = 0;
        for (bool in_place : {false, true}) {
          for (std::size_t count : counts) {
            const std::string what = fmt::format("{} {}/{} p={} count={} {}", comm_name, cname,
                                                 algo.name, p, count,
                                                 in_place ? "in place" : "out of place");
            // Integers: MPI's own answer, bit for bit.
            const auto ints = inputs<std::int32_t>(coll, p, count, [](int r, std::size_t i) {
              return int_value(r, i, 5);
            });
            const auto want = call(coll, true, comm, in_place, ints[me], count, MPI_INT32_T, 4,
                                   MPI_SUM);
            const auto got = call(coll, false, comm, in_place, ints[me], count, MPI_INT32_T, 4,
                                  MPI_SUM);
            ++made;
            EXPECT_EQ(got, want) << what << " int32 sum differs from the MPI library's";
            // Floats: the reference executor on the same schedules.
            const auto floats = inputs<float>(coll, p, count, [](int r, std::size_t i) {
              return float_value(r, i, 9);
            });
            std::vector<Schedule> all;
            for (int r = 0; r < p; ++r)
              all.push_back(make_schedule(
                  algo, CollParams{coll, p, r, count, DataType::fp32, ReduceOp::sum, in_place, 0}));
            const auto expect = run_reference(all, floats);
            const auto fgot = call(coll, false, comm, in_place, floats[me], count, MPI_FLOAT, 4,
                                   MPI_SUM);
            ++made;
            EXPECT_EQ(fgot, expect[me]) << what << " fp32 sum differs from the reference";
          }
        }
        // Each call ran this schedule, none fell back, and the library's own
        // internal MPI calls (comm split, wait policy) were not counted.
        EXPECT_EQ(api_.calls(cname.c_str(), std::string(algo.name).c_str()) - before, made)
            << comm_name << " " << cname << "/" << algo.name;
      }
      EXPECT_EQ(api_.fallbacks(cname.c_str()), 0u) << cname;
    }
  }

  Api api_;
};

TEST_F(PmpiCollectives, WorldEveryAlgorithm) { check_all(MPI_COMM_WORLD, "world"); }

TEST_F(PmpiCollectives, SplitCommunicatorEveryAlgorithm) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  // Reversed order inside each half: comm ranks differ from world ranks.
  MPI_Comm half;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half), MPI_SUCCESS);
  check_all(half, "split");
  MPI_Comm_free(&half);
}

// Other predefined types and ops map to collbench's and agree with MPI.
TEST_F(PmpiCollectives, IntegerTypesAndOpsMatchMpi) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  ASSERT_EQ(api_.set("allreduce", "rhd"), 0);
  struct Case {
    MPI_Datatype type;
    std::size_t elem;
    MPI_Op op;
  };
  for (Case c : {Case{MPI_LONG, sizeof(long), MPI_MAX}, Case{MPI_UNSIGNED_CHAR, 1, MPI_MIN},
                 Case{MPI_INT64_T, 8, MPI_PROD}, Case{MPI_UNSIGNED, 4, MPI_SUM},
                 Case{MPI_INT8_T, 1, MPI_SUM}}) {
    const std::size_t count = 11;
    std::vector<std::byte> in(count * c.elem);
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<std::byte>((me * 37 + i * 11) % 3 + (i % c.elem == 0 ? 1 : 0));
    const auto want = call(Collective::allreduce, true, MPI_COMM_WORLD, false, in, count, c.type,
                           c.elem, c.op);
    const auto got = call(Collective::allreduce, false, MPI_COMM_WORLD, false, in, count, c.type,
                          c.elem, c.op);
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(api_.fallbacks("allreduce"), 0u);
}

// Every predefined C integer type with every op MPICH defines on it (and
// MPI_BYTE with the bitwise ops, MPI_C_BOOL with the logical ones) runs
// intercepted, through every all-reduce and reduce-scatter algorithm, and
// gives MPI's own bits: OSU's benchmarks default to MPI_CHAR with MPI_SUM,
// which used to fall back to MPICH on every call. Inputs have the top bit of
// every element clear for min/max, where MPICH 4.0.2 compares unsigned types
// as signed (pmodels/mpich#6083), and any bits otherwise, so sums and
// products wrap.
TEST_F(PmpiCollectives, EveryCIntegerTypeAndOpMatchesMpi) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  struct Type {
    MPI_Datatype type;
    std::size_t elem;
    const char* name;
  };
  const Type integers[] = {
      {MPI_CHAR, 1, "MPI_CHAR"},
      {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR"},
      {MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR"},
      {MPI_SHORT, sizeof(short), "MPI_SHORT"},
      {MPI_UNSIGNED_SHORT, sizeof(short), "MPI_UNSIGNED_SHORT"},
      {MPI_INT, sizeof(int), "MPI_INT"},
      {MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED"},
      {MPI_LONG, sizeof(long), "MPI_LONG"},
      {MPI_UNSIGNED_LONG, sizeof(long), "MPI_UNSIGNED_LONG"},
      {MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG"},
      {MPI_UNSIGNED_LONG_LONG, sizeof(long long), "MPI_UNSIGNED_LONG_LONG"},
      {MPI_INT8_T, 1, "MPI_INT8_T"},
      {MPI_UINT8_T, 1, "MPI_UINT8_T"},
      {MPI_INT16_T, 2, "MPI_INT16_T"},
      {MPI_UINT16_T, 2, "MPI_UINT16_T"},
      {MPI_INT32_T, 4, "MPI_INT32_T"},
      {MPI_UINT32_T, 4, "MPI_UINT32_T"},
      {MPI_INT64_T, 8, "MPI_INT64_T"},
      {MPI_UINT64_T, 8, "MPI_UINT64_T"},
  };
  struct Op {
    MPI_Op op;
    const char* name;
  };
  const Op arithmetic[] = {{MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"},
                           {MPI_MAX, "MPI_MAX"}};
  const Op logical[] = {{MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"}};
  const Op bitwise[] = {{MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"}, {MPI_BXOR, "MPI_BXOR"}};
  struct Pair {
    Type type;
    Op op;
  };
  std::vector<Pair> pairs;
  for (const Type& t : integers) {
    for (const Op& o : arithmetic) pairs.push_back({t, o});
    for (const Op& o : logical) pairs.push_back({t, o});
    for (const Op& o : bitwise) pairs.push_back({t, o});
  }
  for (const Op& o : bitwise) pairs.push_back({{MPI_BYTE, 1, "MPI_BYTE"}, o});
  for (const Op& o : logical) pairs.push_back({{MPI_C_BOOL, 1, "MPI_C_BOOL"}, o});
  const unsigned long long fell_back =
      api_.fallbacks("allreduce") + api_.fallbacks("reduce_scatter");
  for (Collective coll : {Collective::allreduce, Collective::reduce_scatter}) {
    for (const AlgorithmEntry& algo : algorithms_for(coll)) {
      ASSERT_EQ(api_.set(coll_name(coll).c_str(), std::string(algo.name).c_str()), 0);
      for (const Pair& pr : pairs) {
        const std::size_t count = 7;
        const bool min_max = pr.op.op == MPI_MIN || pr.op.op == MPI_MAX;
        const bool is_bool = pr.type.type == MPI_C_BOOL;
        std::vector<std::byte> in(input_count(coll, p, count) * pr.type.elem);
        for (std::size_t i = 0; i < in.size(); ++i) {
          // Zeros too, so the logical ops see both truth values.
          auto b = static_cast<unsigned>((me * 97 + i * 31 + 7) % 251);
          if (b % 5 == 0) b = 0;
          if (is_bool) b = b % 2;
          const bool top = i % pr.type.elem == pr.type.elem - 1;  // little-endian top byte
          if (min_max && top) b &= 0x7f;
          in[i] = static_cast<std::byte>(b);
        }
        const auto want = call(coll, true, MPI_COMM_WORLD, false, in, count, pr.type.type,
                               pr.type.elem, pr.op.op);
        const auto got = call(coll, false, MPI_COMM_WORLD, false, in, count, pr.type.type,
                              pr.type.elem, pr.op.op);
        EXPECT_EQ(got, want) << coll_name(coll) << "/" << algo.name << " " << pr.type.name << " "
                             << pr.op.name << " differs from the MPI library's";
      }
    }
  }
  EXPECT_EQ(api_.fallbacks("allreduce") + api_.fallbacks("reduce_scatter"), fell_back)
      << "a C integer type or op fell back to the MPI library";
}

#ifdef MPIX_C_FLOAT16
// fp16 (MPIX_C_FLOAT16) reduces with collbench's fp16 arithmetic: equal to
// the reference executor's bits, for every allreduce and reduce-scatter.
TEST_F(PmpiCollectives, Float16MatchesTheReference) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (Collective coll : {Collective::allreduce, Collective::reduce_scatter}) {
    for (const AlgorithmEntry& algo : algorithms_for(coll)) {
      ASSERT_EQ(api_.set(coll_name(coll).c_str(), std::string(algo.name).c_str()), 0);
      const std::size_t count = 9;
      // Small integers and halves are exact in fp16; their sums round.
      const auto in = inputs<std::uint16_t>(coll, p, count, [](int r, std::size_t i) {
        const std::uint16_t one = 0x3C00;  // 1.0
        return static_cast<std::uint16_t>(one + ((r * 7 + i * 3) % 64) * 16);
      });
      std::vector<Schedule> all;
      for (int r = 0; r < p; ++r)
        all.push_back(make_schedule(
            algo, CollParams{coll, p, r, count, DataType::fp16, ReduceOp::sum, false, 0}));
      const auto expect = run_reference(all, in);
      const auto got =
          call(coll, false, MPI_COMM_WORLD, false, in[me], count, MPIX_C_FLOAT16, 2, MPI_SUM);
      EXPECT_EQ(got, expect[me]) << coll_name(coll) << "/" << algo.name;
    }
  }
  EXPECT_EQ(api_.fallbacks("allreduce") + api_.fallbacks("reduce_scatter"), 0u);
}
#endif

// Unsigned MPI_MIN/MPI_MAX compare as unsigned. (MPICH 4.0.2's own compare
// as signed, pmodels/mpich#6083, so this checks against the true answer,
// not against PMPI_.)
TEST_F(PmpiCollectives, UnsignedMinMaxAreUnsigned) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  ASSERT_EQ(api_.set("allreduce", "rhd"), 0);
  const auto value = [](int r) {
    return r % 2 == 0 ? 0xF0000000u + static_cast<std::uint32_t>(r) : static_cast<std::uint32_t>(r);
  };
  std::uint32_t want_max = value(0), want_min = value(0);
  for (int r = 1; r < p; ++r) {
    want_max = std::max(want_max, value(r));
    want_min = std::min(want_min, value(r));
  }
  const std::uint32_t mine = value(me);
  std::uint32_t got_max = 0, got_min = 0;
  ASSERT_EQ(MPI_Allreduce(&mine, &got_max, 1, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(&mine, &got_min, 1, MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(got_max, want_max);
  EXPECT_EQ(got_min, want_min);
}

// MPI_Reduce_scatter with equal counts runs the reduce-scatter schedule,
// in place and out of place, with MPI's answer.
TEST_F(PmpiCollectives, ReduceScatterWithEqualCountsRunsTheSchedule) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  ASSERT_EQ(api_.set("reduce_scatter", "ring"), 0);
  const unsigned long long before = api_.calls("reduce_scatter", "ring");
  const int n = 5;
  const std::vector<int> counts(static_cast<std::size_t>(p), n);
  for (bool in_place : {false, true}) {
    std::vector<std::int32_t> in(static_cast<std::size_t>(n * p));
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = int_value(me, i, 3);
    std::vector<std::int32_t> want(static_cast<std::size_t>(n)), got = in;
    ASSERT_EQ(PMPI_Reduce_scatter_block(in.data(), want.data(), n, MPI_INT32_T, MPI_SUM,
                                        MPI_COMM_WORLD),
              MPI_SUCCESS);
    std::vector<std::int32_t> out(static_cast<std::size_t>(n));
    ASSERT_EQ(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in.data(),
                                 in_place ? got.data() : out.data(), counts.data(), MPI_INT32_T,
                                 MPI_SUM, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (in_place) out.assign(got.begin(), got.begin() + n);
    EXPECT_EQ(out, want) << (in_place ? "in place" : "out of place");
  }
  EXPECT_EQ(api_.calls("reduce_scatter", "ring") - before, 2u);
  EXPECT_EQ(api_.fallbacks("reduce_scatter"), 0u);
}

// MPI_Reduce_scatter with the balanced split of n elements (OSU's
// osu_reduce_scatter: n / p each, one more for the first n mod p ranks; for
// n < p one element each for the first n) runs every reduce-scatter schedule
// named, padded, n < p included (under selection or auto n < p goes to MPI:
// the next test): int32 sums equal MPI's, and every fp32 element has the bits
// MPI_Reduce_scatter_block's schedule gives it on the zero-padded input.
// Counts split otherwise (the remainder on the last ranks) still fall back.
TEST_F(PmpiCollectives, ReduceScatterWithTheBalancedSplitRunsTheSchedulePadded) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const auto split = [p](int n) {
    std::vector<int> counts(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) counts[static_cast<std::size_t>(r)] = n / p + (r < n % p ? 1 : 0);
    return counts;
  };
  const unsigned long long fallbacks_before = api_.fallbacks("reduce_scatter");
  for (const AlgorithmEntry& algo : algorithms_for(Collective::reduce_scatter)) {
    const std::string name(algo.name);
    ASSERT_EQ(api_.set("reduce_scatter", name.c_str()), 0);
    const unsigned long long before = api_.calls("reduce_scatter", name.c_str());
    unsigned long long made = 0;
    for (int n : {1, p - 1, p + 1, 3 * p - 1, 13}) {
      if (n % p == 0) continue;  // equal counts: ReduceScatterWithEqualCounts...
      const std::vector<int> counts = split(n);
      const int largest = counts[0], mine = counts[static_cast<std::size_t>(me)];
      for (bool in_place : {false, true}) {
        const std::string what = fmt::format("reduce_scatter/{} p={} n={} {}", name, p, n,
                                             in_place ? "in place" : "out of place");
        std::vector<std::int32_t> in(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = int_value(me, i, 7);
        std::vector<std::int32_t> want(static_cast<std::size_t>(mine) + 1),
            got(static_cast<std::size_t>(mine) + 1), buf = in;
        ASSERT_EQ(PMPI_Reduce_scatter(in.data(), want.data(), counts.data(), MPI_INT32_T,
                                      MPI_SUM, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        ASSERT_EQ(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in.data(),
                                     in_place ? buf.data() : got.data(), counts.data(),
                                     MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        ++made;
        if (in_place) std::copy(buf.begin(), buf.begin() + mine, got.begin());
        EXPECT_TRUE(std::equal(got.begin(), got.begin() + mine, want.begin())) << what << " int32";

        std::vector<float> fin(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < fin.size(); ++i) fin[i] = float_value(me, i, 11);
        std::vector<float> padded(static_cast<std::size_t>(largest * p), 0.0f);
        for (int r = 0, at = 0; r < p; at += counts[static_cast<std::size_t>(r)], ++r)
          std::copy(fin.begin() + at, fin.begin() + at + counts[static_cast<std::size_t>(r)],
                    padded.begin() + r * largest);
        std::vector<float> fwant(static_cast<std::size_t>(largest)),
            fgot(static_cast<std::size_t>(mine) + 1), fbuf = fin;
        ASSERT_EQ(MPI_Reduce_scatter_block(padded.data(), fwant.data(), largest, MPI_FLOAT,
                                           MPI_SUM, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        ASSERT_EQ(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : fin.data(),
                                     in_place ? fbuf.data() : fgot.data(), counts.data(),
                                     MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        made += 2;
        if (in_place) std::copy(fbuf.begin(), fbuf.begin() + mine, fgot.begin());
        EXPECT_EQ(std::memcmp(fgot.data(), fwant.data(), static_cast<std::size_t>(mine) * 4), 0)
            << what << " fp32 differs from the block schedule's bits";
      }
    }
    EXPECT_EQ(api_.calls("reduce_scatter", name.c_str()) - before, made) << name;
  }
  EXPECT_EQ(api_.fallbacks("reduce_scatter"), fallbacks_before);
  // The remainder on the last rank instead of the first: not the balanced
  // split, so MPI's own MPI_Reduce_scatter answers.
  {
    std::vector<int> counts(static_cast<std::size_t>(p), 1);
    counts.back() = 2;
    std::vector<std::int32_t> in(static_cast<std::size_t>(p + 1), 1), out(2);
    ASSERT_EQ(MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                 MPI_COMM_WORLD),
              MPI_SUCCESS);
    EXPECT_EQ(out[0], p);
    EXPECT_EQ(api_.fallbacks("reduce_scatter"), fallbacks_before + 1);
  }
}

// Sum of the calls every reduce-scatter schedule ran (the library's own
// collective, slot `mpi`, not included).
unsigned long long schedule_calls(const Api& api) {
  unsigned long long n = 0;
  for (const AlgorithmEntry& algo : algorithms_for(Collective::reduce_scatter))
    n += api.calls("reduce_scatter", std::string(algo.name).c_str());
  return n;
}

// Under `selection` (the fixture, which meson passes in COLLBENCH_SELECTION,
// sends blocks of up to 64 B to naive) and `auto` (COLLBENCH_PARAMS), a
// balanced split of fewer elements than ranks goes to MPI's own
// MPI_Reduce_scatter, counted as a fallback of that reason, while the
// equal-count call of one element per rank (the same padded count, 1, which
// the sweep did measure) runs a schedule: the two shapes have their own cache
// entries, whichever comes first. A named algorithm still runs it padded.
TEST_F(PmpiCollectives, ReduceScatterBelowOneElementPerRankGoesToMpiUnderSelectionAndAuto) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  // n elements in OSU's split, through the library; MPI's answer checked.
  const auto reduce_scatter = [&](int n, bool in_place, const std::string& what) {
    std::vector<int> counts(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) counts[static_cast<std::size_t>(r)] = n / p + (r < n % p ? 1 : 0);
    const int mine = counts[static_cast<std::size_t>(me)];
    std::vector<std::int32_t> in(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = int_value(me, i, 13);
    std::vector<std::int32_t> want(static_cast<std::size_t>(mine) + 1),
        got(static_cast<std::size_t>(mine) + 1), buf = in;
    ASSERT_EQ(PMPI_Reduce_scatter(in.data(), want.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                  MPI_COMM_WORLD),
              MPI_SUCCESS);
    ASSERT_EQ(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in.data(),
                                 in_place ? buf.data() : got.data(), counts.data(), MPI_INT32_T,
                                 MPI_SUM, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (in_place) std::copy(buf.begin(), buf.begin() + mine, got.begin());
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + mine, want.begin())) << what;
  };
  for (const char* mode : {"selection", "auto"}) {
    for (bool equal_first : {true, false}) {
      // Each pass starts with an empty cache (set() clears it).
      ASSERT_EQ(api_.set("reduce_scatter", mode), 0) << mode;
      const std::string what = fmt::format("{} p={} {}", mode, p,
                                           equal_first ? "equal counts first" : "below p first");
      unsigned long long ran = schedule_calls(api_), fell = api_.fallbacks("reduce_scatter");
      const auto equal_counts = [&] {
        reduce_scatter(p, false, what + " n=p");
        EXPECT_EQ(schedule_calls(api_), ++ran) << what << ": n = p must run a schedule";
        EXPECT_EQ(api_.fallbacks("reduce_scatter"), fell) << what;
      };
      if (equal_first) equal_counts();
      for (int n = 1; n < p; ++n)
        for (bool in_place : {false, true}) {
          reduce_scatter(n, in_place, fmt::format("{} n={}{}", what, n, in_place ? " in place" : ""));
          EXPECT_EQ(api_.fallbacks("reduce_scatter"), ++fell) << what << " n=" << n;
          EXPECT_EQ(schedule_calls(api_), ran) << what << " n=" << n << " ran a schedule";
        }
      equal_counts();
    }
  }
  // Named, the same calls run the schedule padded and nothing falls back.
  ASSERT_EQ(api_.set("reduce_scatter", "naive"), 0);
  const unsigned long long naive = api_.calls("reduce_scatter", "naive"),
                           fell = api_.fallbacks("reduce_scatter");
  for (int n = 1; n < p; ++n) reduce_scatter(n, false, fmt::format("naive n={}", n));
  EXPECT_EQ(api_.calls("reduce_scatter", "naive") - naive, static_cast<unsigned long long>(p - 1));
  EXPECT_EQ(api_.fallbacks("reduce_scatter"), fell);
}

// A call the library passes to MPI's own collective is remembered by its
// arguments, so its repeats skip the classification and the cache: every
// repeat still counts as `mpi` and gets MPI's answer, a new setting reaches
// the very next equal call, and MPI_Reduce_scatter's counts are read on
// every call, so the same array with other contents falls back.
TEST_F(PmpiCollectives, RepeatedCallsPassedToMpiFollowEverySetting) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int count = 32;  // 128 B per rank: the fixture's selection gives these to MPI
  std::vector<int> counts(static_cast<std::size_t>(p), count);
  std::vector<std::int32_t> in(static_cast<std::size_t>(p * count)), want(count + 1),
      got(count + 1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = int_value(me, i, 17);
  ASSERT_EQ(PMPI_Reduce_scatter_block(in.data(), want.data(), count, MPI_INT32_T, MPI_SUM,
                                      MPI_COMM_WORLD),
            MPI_SUCCESS);
  const auto block = [&](bool in_place) {
    std::vector<std::int32_t> buf = in;
    std::fill(got.begin(), got.end(), 0);
    ASSERT_EQ(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in.data(),
                                       in_place ? buf.data() : got.data(), count, MPI_INT32_T,
                                       MPI_SUM, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (in_place) std::copy(buf.begin(), buf.begin() + count, got.begin());
    EXPECT_TRUE(std::equal(want.begin(), want.begin() + count, got.begin()))
        << (in_place ? "in place" : "out of place");
  };
  const auto varying = [&] {
    std::fill(got.begin(), got.end(), 0);
    ASSERT_EQ(MPI_Reduce_scatter(in.data(), got.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                 MPI_COMM_WORLD),
              MPI_SUCCESS);
    EXPECT_TRUE(std::equal(want.begin(), want.begin() + count, got.begin()));
  };
  const auto mpi = [&] { return api_.calls("reduce_scatter", "mpi"); };
  for (const char* mode : {"mpi", "selection"}) {
    ASSERT_EQ(api_.set("reduce_scatter", mode), 0);
    const unsigned long long before = mpi(), fell = api_.fallbacks("reduce_scatter");
    for (int i = 0; i < 5; ++i) block(false);
    block(true);
    block(false);
    for (int i = 0; i < 5; ++i) varying();
    EXPECT_EQ(mpi() - before, 12u) << mode;
    EXPECT_EQ(api_.fallbacks("reduce_scatter"), fell) << mode;
  }
  // A new setting: the same calls run the schedule, then MPI's again.
  ASSERT_EQ(api_.set("reduce_scatter", "naive"), 0);
  const unsigned long long naive = api_.calls("reduce_scatter", "naive"), before = mpi();
  block(false);
  varying();
  EXPECT_EQ(api_.calls("reduce_scatter", "naive") - naive, 2u);
  EXPECT_EQ(mpi(), before);
  ASSERT_EQ(api_.set("reduce_scatter", "selection"), 0);
  block(false);
  varying();
  EXPECT_EQ(mpi() - before, 2u);
  // The same counts array after a remembered call, now uneven: MPI's call,
  // counted as the fallback it is.
  counts[0] = count + 1;
  counts[1] = count - 1;
  std::vector<std::int32_t> uneven(count + 1);
  ASSERT_EQ(PMPI_Reduce_scatter(in.data(), uneven.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                MPI_COMM_WORLD),
            MPI_SUCCESS);
  const unsigned long long fell = api_.fallbacks("reduce_scatter"), passed = mpi();
  std::fill(got.begin(), got.end(), 0);
  ASSERT_EQ(MPI_Reduce_scatter(in.data(), got.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                               MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(got, uneven);
  EXPECT_EQ(api_.fallbacks("reduce_scatter"), fell + 1);
  EXPECT_EQ(mpi(), passed);
}

// A communicator freed by the application takes its cached state with it;
// a new one made afterwards works (the attribute's delete callback ran and
// freed the private copy, or MPI_Comm_free would fail or leak).
TEST_F(PmpiCollectives, FreedCommunicatorsReleaseTheirState) {
  ASSERT_EQ(api_.set("allreduce", "ring"), 0);
  for (int round = 0; round < 5; ++round) {
    MPI_Comm dup;
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    int v = round, sum = 0;
    ASSERT_EQ(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup), MPI_SUCCESS);
    int p = 0;
    MPI_Comm_size(dup, &p);
    EXPECT_EQ(sum, round * p);
    ASSERT_EQ(MPI_Comm_free(&dup), MPI_SUCCESS);
  }
}

// inout[i] += in[i] on ints: a user-defined op (MPI cannot know it is a sum).
void int_user_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

// A call that falls back is remembered by its arguments like a call passed to
// MPI: every repeat still counts as a fallback (of its collective) and gets
// MPI's answer, a new setting reaches the very next equal call, new
// MPI_Reduce_scatter counts in the same array are read, and a freed datatype
// whose handle comes back naming a contiguous type runs the schedule.
TEST_F(PmpiCollectives, RepeatedFallbacksAreCountedEveryCallAndGetMpisAnswer) {
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  constexpr int kRepeats = 5;
  const auto fell = [&](const char* coll) { return api_.fallbacks(coll); };

  // All-reduce with a user-defined op, and with a type collbench does not
  // reduce (MPI_2INT with MPI_MAXLOC): MPI's answer every time.
  ASSERT_EQ(api_.set("allreduce", "ring"), 0);
  MPI_Op user_sum;
  ASSERT_EQ(MPI_Op_create(int_user_sum, 1, &user_sum), MPI_SUCCESS);
  std::vector<std::int32_t> in(7), want(7), got(7);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = int_value(me, i, 23);
  ASSERT_EQ(PMPI_Allreduce(in.data(), want.data(), 7, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD),
            MPI_SUCCESS);
  unsigned long long before = fell("allreduce");
  for (int i = 0; i < kRepeats; ++i) {
    std::fill(got.begin(), got.end(), 0);
    ASSERT_EQ(MPI_Allreduce(in.data(), got.data(), 7, MPI_INT32_T, user_sum, MPI_COMM_WORLD),
              MPI_SUCCESS);
    EXPECT_EQ(got, want) << "user op, call " << i;
    EXPECT_EQ(fell("allreduce"), before + static_cast<unsigned long long>(i) + 1) << i;
  }
  MPI_Op_free(&user_sum);
  struct Pair {
    int value, index;
  };
  const Pair mine{int_value(me, 0, 29) % 1000, me};
  Pair best{}, best_want{};
  ASSERT_EQ(PMPI_Allreduce(&mine, &best_want, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD),
            MPI_SUCCESS);
  before = fell("allreduce");
  for (int i = 0; i < kRepeats; ++i) {
    best = {};
    ASSERT_EQ(MPI_Allreduce(&mine, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(best.value, best_want.value) << i;
    EXPECT_EQ(best.index, best_want.index) << i;
  }
  EXPECT_EQ(fell("allreduce") - before, static_cast<unsigned long long>(kRepeats));

  // All-to-all under COLLBENCH_ALGO=rhd, which all-to-all lacks: a fallback
  // on every call, then, set to naive, the same call runs naive.
  ASSERT_EQ(api_.set(nullptr, "rhd"), 0);
  std::vector<std::int32_t> a2a_in(static_cast<std::size_t>(3 * p)), a2a_want(a2a_in.size()),
      a2a_got(a2a_in.size());
  for (std::size_t i = 0; i < a2a_in.size(); ++i) a2a_in[i] = int_value(me, i, 31);
  const auto alltoall = [&] {
    std::fill(a2a_got.begin(), a2a_got.end(), 0);
    ASSERT_EQ(
        MPI_Alltoall(a2a_in.data(), 3, MPI_INT32_T, a2a_got.data(), 3, MPI_INT32_T, MPI_COMM_WORLD),
        MPI_SUCCESS);
    EXPECT_EQ(a2a_got, a2a_want);
  };
  ASSERT_EQ(
      PMPI_Alltoall(a2a_in.data(), 3, MPI_INT32_T, a2a_want.data(), 3, MPI_INT32_T, MPI_COMM_WORLD),
      MPI_SUCCESS);
  before = fell("alltoall");
  for (int i = 0; i < kRepeats; ++i) alltoall();
  EXPECT_EQ(fell("alltoall") - before, static_cast<unsigned long long>(kRepeats));
  ASSERT_EQ(api_.set("alltoall", "naive"), 0);
  const unsigned long long naive_a2a = api_.calls("alltoall", "naive");
  alltoall();
  EXPECT_EQ(api_.calls("alltoall", "naive") - naive_a2a, 1u);
  EXPECT_EQ(fell("alltoall") - before, static_cast<unsigned long long>(kRepeats));

  // MPI_Reduce_scatter with irregular counts (1, 2, ..., p): a fallback on
  // every call; the same array with other irregular counts is read and falls
  // back with MPI's answer; made equal, it runs the schedule.
  ASSERT_EQ(api_.set("reduce_scatter", "naive"), 0);
  std::vector<int> counts(static_cast<std::size_t>(p));
  const auto reduce_scatter = [&](const std::string& what) {
    int total = 0;
    for (int c : counts) total += c;
    std::vector<std::int32_t> rs_in(static_cast<std::size_t>(total));
    for (std::size_t i = 0; i < rs_in.size(); ++i) rs_in[i] = int_value(me, i, 37);
    const std::size_t n = static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]) + 1;
    std::vector<std::int32_t> rs_want(n, 0), rs_got(n, 0);
    ASSERT_EQ(PMPI_Reduce_scatter(rs_in.data(), rs_want.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                  MPI_COMM_WORLD),
              MPI_SUCCESS);
    ASSERT_EQ(MPI_Reduce_scatter(rs_in.data(), rs_got.data(), counts.data(), MPI_INT32_T, MPI_SUM,
                                 MPI_COMM_WORLD),
              MPI_SUCCESS);
    EXPECT_EQ(rs_got, rs_want) << what;
  };
  for (int r = 0; r < p; ++r) counts[static_cast<std::size_t>(r)] = r + 1;
  before = fell("reduce_scatter");
  for (int i = 0; i < kRepeats; ++i) reduce_scatter(fmt::format("1..p, call {}", i));
  EXPECT_EQ(fell("reduce_scatter") - before, static_cast<unsigned long long>(kRepeats));
  for (int r = 0; r < p; ++r) counts[static_cast<std::size_t>(r)] = 2 * (p - r);
  reduce_scatter("2p..2");
  EXPECT_EQ(fell("reduce_scatter") - before, static_cast<unsigned long long>(kRepeats) + 1);
  std::fill(counts.begin(), counts.end(), 3);
  const unsigned long long naive_rs = api_.calls("reduce_scatter", "naive");
  reduce_scatter("equal");
  EXPECT_EQ(api_.calls("reduce_scatter", "naive") - naive_rs, 1u);
  EXPECT_EQ(fell("reduce_scatter") - before, static_cast<unsigned long long>(kRepeats) + 1);
  // OSU's split of one element (counts 1, 0, ..., 0) under selection: a
  // fallback on every call (the notice's reason: counts sum below p).
  ASSERT_EQ(api_.set("reduce_scatter", "selection"), 0);
  std::fill(counts.begin(), counts.end(), 0);
  counts[0] = 1;
  before = fell("reduce_scatter");
  for (int i = 0; i < kRepeats; ++i) reduce_scatter(fmt::format("below p, call {}", i));
  EXPECT_EQ(fell("reduce_scatter") - before, static_cast<unsigned long long>(kRepeats));

  // All-gather of a strided vector type: a fallback on every call. Freed,
  // its handle may come back naming a contiguous type (MPICH reuses
  // handles), which runs naive whether the handle is the same or not.
  ASSERT_EQ(api_.set("allgather", "naive"), 0);
  MPI_Datatype vec, strided;
  ASSERT_EQ(MPI_Type_vector(2, 1, 2, MPI_INT32_T, &vec), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_resized(vec, 0, 4 * sizeof(std::int32_t), &strided), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&strided), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_free(&vec), MPI_SUCCESS);
  const std::int32_t block[4] = {me * 4, -1, me * 4 + 1, -1};
  std::vector<std::int32_t> gathered(static_cast<std::size_t>(4 * p));
  before = fell("allgather");
  for (int i = 0; i < kRepeats; ++i) {
    std::fill(gathered.begin(), gathered.end(), -7);
    ASSERT_EQ(MPI_Allgather(block, 1, strided, gathered.data(), 1, strided, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int r = 0; r < p; ++r) {
      const std::size_t at = static_cast<std::size_t>(4 * r);
      EXPECT_EQ(gathered[at], r * 4) << i;
      EXPECT_EQ(gathered[at + 1], -7) << i << ": a gap was written";
      EXPECT_EQ(gathered[at + 2], r * 4 + 1) << i;
    }
  }
  EXPECT_EQ(fell("allgather") - before, static_cast<unsigned long long>(kRepeats));
  const MPI_Datatype old_handle = strided;
  ASSERT_EQ(MPI_Type_free(&strided), MPI_SUCCESS);
  MPI_Datatype pair;
  ASSERT_EQ(MPI_Type_contiguous(2, MPI_INT32_T, &pair), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&pair), MPI_SUCCESS);
  const unsigned long long naive_ag = api_.calls("allgather", "naive");
  std::fill(gathered.begin(), gathered.end(), -7);
  ASSERT_EQ(MPI_Allgather(block, 1, pair, gathered.data(), 1, pair, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) {  // each rank's first two ints: {4 r, -1}
    EXPECT_EQ(gathered[static_cast<std::size_t>(2 * r)], r * 4) << "contiguous pair";
    EXPECT_EQ(gathered[static_cast<std::size_t>(2 * r + 1)], -1) << "contiguous pair";
  }
  EXPECT_EQ(api_.calls("allgather", "naive") - naive_ag, 1u)
      << (pair == old_handle ? "same handle" : "new handle");
  EXPECT_EQ(fell("allgather") - before, static_cast<unsigned long long>(kRepeats));
  MPI_Type_free(&pair);
}

// Bad values through the C API leave the choice unchanged.
TEST_F(PmpiCollectives, RejectsUnknownNames) {
  EXPECT_EQ(api_.set("alltoall", "rhd"), -1);
  EXPECT_EQ(api_.set(nullptr, "nonsense"), -1);
  EXPECT_EQ(api_.set("allreduce", "ring"), 0);
}

}  // namespace
}  // namespace cb
