// Harness building blocks: statistics, size parsing and sweeps, rank lists,
// CSV cells and the column contract of CSV.md.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "harness/report/columns.hpp"
#include "harness/runtime/heap_reuse.hpp"
#include "harness/runtime/metadata.hpp"
#include "transports/contract/row.hpp"
#include "models/results_csv.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/report/resume.hpp"
#include "transports/contract/sizes.hpp"
#include "transports/contract/stats.hpp"

namespace cb {
namespace {

TEST(Stats, MedianP95AndTheOrderStatisticConfidenceInterval) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, unsorted
  const Stats s = summarize(v);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p95, 95);
  // n = 100: ranks floor((100 - 19.6) / 2) = 40 and ceil(1 + 119.6 / 2) = 61.
  EXPECT_DOUBLE_EQ(s.ci_lo, 40);
  EXPECT_DOUBLE_EQ(s.ci_hi, 61);
  EXPECT_FALSE(ci_within(s, 0.05));
  EXPECT_TRUE(ci_within(s, 0.25));
}

TEST(Stats, FewSamplesUseMinAndMaxAsTheInterval) {
  const Stats s = summarize(std::vector<double>{3, 1, 2});
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.ci_lo, 1);
  EXPECT_DOUBLE_EQ(s.ci_hi, 3);
  EXPECT_FALSE(ci_within(s, 1.0));  // never "converged" on <= 5 samples
}

TEST(Resume, CommandAddsResumeQuotesWordsAndNamesTheLaunch) {
  EXPECT_EQ(resume_command_line({"collbench", "run", "--csv", "r.csv"}, 1),
            "collbench run --csv r.csv --resume");
  EXPECT_EQ(resume_command_line({"build/collbench", "run", "--csv", "my r.csv", "--resume"}, 4),
            "mpiexec -n 4 build/collbench run --csv 'my r.csv' --resume");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Sizes, FormatBytesKeepsThreeDigitsWithoutAnExponent) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(1u << 20), "1 MiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1048572), "1024 KiB");  // 1 MiB split over 3 ranks
  EXPECT_EQ(format_bytes(349524), "341 KiB");
}

TEST(Sizes, SuffixesArePowersOf1024AndBadTextIsRefused) {
  EXPECT_EQ(parse_bytes("8", "-b"), 8u);
  EXPECT_EQ(parse_bytes("64K", "-b"), 65536u);
  EXPECT_EQ(parse_bytes("1m", "-b"), 1u << 20);
  EXPECT_EQ(parse_bytes("2GiB", "-e"), 2ull << 30);
  EXPECT_THROW(parse_bytes("8X", "-b"), UsageError);
  EXPECT_THROW(parse_bytes("", "-b"), UsageError);
  EXPECT_THROW(parse_bytes("-1", "-b"), UsageError);
  try {
    parse_bytes("12Q", "-e");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'12Q'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("-e"), std::string::npos);
  }
}

TEST(Sizes, SweepByFactorOrIncrement) {
  EXPECT_EQ(size_sweep(8, 64, 2, 0), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(size_sweep(8, 100, 4, 0), (std::vector<std::size_t>{8, 32}));
  EXPECT_EQ(size_sweep(10, 40, 2, 10), (std::vector<std::size_t>{10, 20, 30, 40}));
  EXPECT_THROW(size_sweep(64, 8, 2, 0), UsageError);
  EXPECT_THROW(size_sweep(8, 64, 1, 0), UsageError);
  EXPECT_THROW(size_sweep(0, 64, 2, 0), UsageError);
}

TEST(Sizes, CountsRoundDownToWholeElementsPerRank) {
  // allreduce: S = count * elem.
  EXPECT_EQ(count_for_bytes(Collective::allreduce, DataType::fp32, 4, 10), 2u);
  // The others: S = count * elem * p, rounded down like nccl-tests.
  EXPECT_EQ(count_for_bytes(Collective::allgather, DataType::fp32, 3, 64), 5u);
  EXPECT_EQ(bytes_for_count(Collective::allgather, DataType::fp32, 3, 5), 60u);
  EXPECT_EQ(count_for_bytes(Collective::alltoall, DataType::fp64, 4, 16), 0u);
}

TEST(Ranks, ListsAllPow2AndRanges) {
  EXPECT_EQ(parse_ranks("", 4, "w"), (std::vector<int>{4}));
  EXPECT_EQ(parse_ranks("2,4", 8, "w"), (std::vector<int>{2, 4}));
  EXPECT_EQ(parse_ranks("all", 4, "w"), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(parse_ranks("pow2", 6, "w"), (std::vector<int>{1, 2, 4}));
  // A..B: A, B, the powers of two and the 3*2^k between (the same in run and map).
  EXPECT_EQ(parse_ranks("2..16", 16, "w"), (std::vector<int>{2, 3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(parse_ranks("3..10", 16, "w"), (std::vector<int>{3, 4, 6, 8, 10}));
  EXPECT_EQ(parse_ranks("1..2", 16, "w"), (std::vector<int>{1, 2}));
  EXPECT_EQ(parse_ranks("5..5", 16, "w"), (std::vector<int>{5}));
  EXPECT_THROW(parse_ranks("8", 4, "the 4 processes of this launch"), UsageError);
  EXPECT_THROW(parse_ranks("0", 4, "w"), UsageError);
  EXPECT_THROW(parse_ranks("two", 4, "w"), UsageError);
  EXPECT_THROW(parse_ranks("8..2", 16, "w"), UsageError);
}

// The results CSV's columns as harness/report/CSV.md lists them: the first
// cell of each row of its first table, split at ", " where one row documents
// several columns. Reading the document (rather than a copy of the list
// here) keeps code and contract from drifting apart silently.
std::vector<std::string> documented_result_columns() {
  std::ifstream in(std::string(CB_SOURCE_DIR) + "/harness/report/CSV.md");
  std::vector<std::string> cols;
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.rfind("| column |", 0) == 0 || line.rfind("|---", 0) == 0) {
      table = true;
      continue;
    }
    if (!table) continue;
    if (line.rfind("| ", 0) != 0) break;  // the end of the first table
    std::string cell = line.substr(2, line.find(" |", 2) - 2);
    for (std::size_t at = 0; at != std::string::npos;) {
      const std::size_t comma = cell.find(", ", at);
      cols.push_back(cell.substr(at, comma == std::string::npos ? comma : comma - at));
      at = comma == std::string::npos ? comma : comma + 2;
    }
  }
  return cols;
}

TEST(Columns, MatchTheCsvContractInOrder) {
  const std::vector<std::string> expected = documented_result_columns();
  ASSERT_EQ(expected.size(), 51u) << "harness/report/CSV.md's results table was not read";
  EXPECT_EQ(std::vector<std::string>(result_columns().begin(), result_columns().end()), expected);
}

TEST(Columns, CsvCellsQuoteOnlyWhenNeeded) {
  EXPECT_EQ(csv_cell(Cell(std::string("ring"))), "ring");
  EXPECT_EQ(csv_cell(Cell(std::string("MPICH, 4.0"))), "\"MPICH, 4.0\"");
  EXPECT_EQ(csv_cell(Cell(std::string("a\"b"))), "\"a\"\"b\"");
  EXPECT_EQ(csv_cell(Cell(std::monostate{})), "");
  EXPECT_EQ(csv_cell(Cell(std::int64_t{42})), "42");
  EXPECT_EQ(csv_cell(Cell(0.1)), "0.1");
}

// The mode probe's columns (term `probe`) as `run` writes them read back by the
// model's reader (models/results_csv.hpp) in seconds; a row without a probe
// (one rank, --mode-probe off) reads back as unmeasured.
TEST(Columns, ModeProbeCellsRoundTripIntoTheModelsReader) {
  std::string text;
  for (std::string_view c : result_columns()) {
    if (!text.empty()) text += ',';
    text += c;
  }
  text += '\n';
  const RunMetadata meta;
  for (std::size_t count : {2u, 64u, 2048u}) {
    Row r;
    r.c.transport = "ipc-host";
    r.c.algorithm = "ring";
    r.c.ranks = 2;
    r.c.count = count;
    r.time_s.n = 10;
    r.time_s.median = r.time_s.min = r.time_s.mean = r.time_s.p95 = r.time_s.max = 1e-6;
    r.time_s.ci_lo = r.time_s.ci_hi = 1e-6;
    if (count != 64) {
      r.probe_small_s = 0.61e-6;
      r.probe_large_s = 183.25e-6;
    }
    bool first = true;
    for (const Cell& c : row_cells(r, meta)) {
      if (!first) text += ',';
      first = false;
      text += csv_cell(c);
    }
    text += '\n';
  }
  const models::ResultsFile f = models::parse_results_csv(text, "written.csv");
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(f.rows[0].probe.small_s, 0.61e-6);
  EXPECT_DOUBLE_EQ(f.rows[0].probe.large_s, 183.25e-6);
  EXPECT_FALSE(f.rows[1].probe.measured());
  EXPECT_DOUBLE_EQ(f.rows[2].probe.large_s, 183.25e-6);
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Page faults of writing a fresh block of `bytes` once another of the same
// size was written and freed.
long faults_of_reused_block(std::size_t bytes) {
  for (int round = 0;; ++round) {
    const long before = minor_faults();
    char* block = static_cast<char*>(std::malloc(bytes));
    std::memset(block, round + 1, bytes);
    asm volatile("" : : "r"(block) : "memory");  // the writes must happen
    std::free(block);
    if (round == 1) return minor_faults() - before;
  }
}

TEST(HeapReuse, AFreedBlockIsReusedWithoutFaultingItsPagesAgain) {
  // glibc's defaults map and unmap blocks of these sizes: every page of the
  // second block faults again (a map's cells did this thousands of times).
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator ignores glibc's thresholds";
#endif
  keep_freed_heap_memory();
  for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{8} << 20, std::size_t{24} << 20}) {
    const long pages = static_cast<long>(bytes / 4096);
    EXPECT_LT(faults_of_reused_block(bytes), pages / 20) << bytes << " bytes";
  }
}

}  // namespace
}  // namespace cb
