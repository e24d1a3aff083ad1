// scripts/testbed/report.py on a slice of a real testbed study
// (tests/fixtures/testbed-500us-100Mbit, 500 µs / 100 Mbit/s): which rows the global
// fit used, the latency table at p = 2 and 3 (p = 3 all-gather sizes lie on
// no doubling grid, so each is priced on its own), and the CPU-limited rows
// at p = 8; classify_crossovers.py, `collbench repeat-agreement` with
// repeat_agreement.py and `collbench refine-sizes` on the same slice.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/text_files.hpp"

namespace fs = std::filesystem;
using cb::test::cells_of;
using cb::test::lines_of;
using cb::test::slurp;

namespace {

int run(const std::string& cmd, std::string& out) {
  out.clear();
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  return pclose(pipe);
}

// A row's cell by its column's name (the header's), out_of_range for a
// column the file lacks.
using Cell = std::function<std::string(const std::string&)>;

// The cells of a markdown table row "| a | b |", each without its padding
// spaces; empty for a line that is not such a row.
std::vector<std::string> table_cells(const std::string& line) {
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return {};
  std::vector<std::string> out;
  for (std::size_t at = 1, bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1) {
    const std::size_t b = line.find_first_not_of(' ', at);
    const std::size_t e = line.find_last_not_of(' ', bar - 1);
    out.push_back(b < bar && e != std::string::npos && e >= b ? line.substr(b, e - b + 1) : "");
  }
  return out;
}

// A CSV cell for x, as exact as the file's own.
std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// Copies the CSV `from` to `to`: its header, and the rows `keep` accepts.
void copy_rows(const fs::path& from, const fs::path& to, const std::function<bool(const Cell&)>& keep) {
  std::ofstream w(to);
  std::map<std::string, std::size_t> column;
  for (const std::string& l : lines_of(slurp(from))) {
    const auto f = cells_of(l);
    if (column.empty()) {
      for (std::size_t i = 0; i < f.size(); ++i) column[f[i]] = i;
      w << l << '\n';
      continue;
    }
    if (keep([&](const std::string& name) { return f.at(column.at(name)); })) w << l << '\n';
  }
}

TEST(TestbedReport, SliceOfTheStudyGivesEverySection) {
  const fs::path src = fs::path(CB_SOURCE_DIR) / "tests/fixtures/testbed-500us-100Mbit";
  const fs::path dir = fs::temp_directory_path() /
                       ("collbench-tbreport-" +
                        std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  const fs::path s = dir / "500us-100Mbit";
  fs::remove_all(dir);
  fs::create_directories(s);
  for (const char* f : {"setting.txt", "commands.txt", "probe.csv", "calibration.csv"})
    fs::copy_file(src / f, s / f);
  // allreduce and allgather, 4 schedules, p = 2, 3, 8, up to 1 MiB.
  const std::set<std::string> algos = {"naive", "ring", "tree", "rhd"};
  std::size_t p2_rows = 0;
  copy_rows(src / "sweep.csv", s / "sweep.csv", [&](const Cell& at) {
    if ((at("collective") != "allreduce" && at("collective") != "allgather") ||
        !algos.count(at("algorithm")) ||
        (at("ranks") != "2" && at("ranks") != "3" && at("ranks") != "8") ||
        std::stoull(at("bytes")) > (1u << 20))
      return false;
    p2_rows += at("ranks") == "2";
    return true;
  });
  ASSERT_GT(p2_rows, 0u);
  const std::string cb = std::string(CB_BUILD_DIR) + "/harness/collbench";
  std::string out;
  const auto fit = [&](const fs::path& sweep, const fs::path& fit_dir) {
    return run(cb + " fit " + sweep.string() + " --calibration " +
                   (s / "calibration-g.csv").string() + " --network " +
                   (s / "setting.txt").string() + " --stack-overhead " +
                   (s / "probe.csv").string() + " --out " + fit_dir.string(),
               out);
  };
  const auto write_report = [&] {
    return run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR + "/scripts/testbed/report.py " +
                   dir.string(),
               out);
  };
  // Term (g) for a calibration that predates it, derived as the committed
  // re-fit did (scripts/derive_flight.py: F = alpha - o).
  ASSERT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR + "/scripts/derive_flight.py " +
                    (s / "calibration.csv").string() + " " + (s / "calibration-g.csv").string(),
                out),
            0)
      << out;
  ASSERT_EQ(fit(s / "sweep.csv", s / "fit"), 0) << out;
  ASSERT_EQ(write_report(), 0) << out;
  const std::string report = slurp(dir / "report.md");
  EXPECT_NE(report.find("The global fit used " + std::to_string(p2_rows) + " of "),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("those measured with a core per rank (p = 2)"), std::string::npos);
  // Which start produced the rows: this sweep predates --start (barrier).
  EXPECT_NE(report.find("Start of each timed iteration (`collbench run --start`): barrier ("),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("predates the start column"), std::string::npos);
  // Latency table: naive is 1 round at p = 2 and p - 1 = 2 at p = 3 (the
  // all-gather's smallest p = 3 size is 12 B: 1 element per rank).
  EXPECT_NE(report.find("| allgather | naive | 1 / "), std::string::npos) << report;
  const std::size_t row = report.find("| allgather | naive | 1 / ");
  ASSERT_NE(row, std::string::npos);
  const std::string line = report.substr(row, report.find('\n', row) - row);
  EXPECT_NE(line.find(" | 2 / "), std::string::npos) << line;
  EXPECT_NE(report.find("At p = 3, measured per model rounds"), std::string::npos);
  // p = 8 small sizes are CPU-limited at 500 µs with a 156 µs stack overhead.
  EXPECT_NE(report.find("- allreduce p=8: "), std::string::npos) << report;
  EXPECT_NE(report.find("| p | measured | within 2× |"), std::string::npos);
  // The step-synchronous model and (g) side by side, (g) the main column;
  // the file has no (e), (f), so the level is named by what it measured.
  EXPECT_NE(report.find("| target | calibration | calibration+range+copy+concurrency+overhead | "
                           "calibration+range+copy+concurrency+overhead+flight |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("<details><summary>calibration+range+copy+concurrency+overhead+flight: "), std::string::npos);
  // Crossovers: the strict count (the target) and, beside it, the count that
  // also accepts a prediction inside the measured crossover's CI interval,
  // which can only add to it. Per level: "K of N".
  const auto counts_in = [&](const std::string& head) {
    std::vector<std::pair<int, int>> v;
    const std::size_t at = report.find(head);
    if (at == std::string::npos) return v;
    const std::string l = report.substr(at, report.find('\n', at) - at);
    // Every "K of N" in the line (no std::regex: g++ 12 -O1 with ASan warns
    // inside libstdc++'s regex, which -Werror turns into a build failure).
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (std::size_t k = l.find(" of "); k != std::string::npos; k = l.find(" of ", k + 1)) {
      std::size_t b = k, e = k + 4;
      while (b > 0 && digit(l[b - 1])) --b;
      while (e < l.size() && digit(l[e])) ++e;
      if (b < k && e > k + 4) v.emplace_back(std::stoi(l.substr(b, k - b)), std::stoi(l.substr(k + 4, e - k - 4)));
    }
    return v;
  };
  const auto strict = counts_in("| measured crossovers predicted within 2× in size: all |");
  const auto second = counts_in("| (second count) the same, or inside the measured");
  ASSERT_EQ(strict.size(), 3u) << report;
  ASSERT_EQ(second.size(), 3u) << report;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(strict[i].second, second[i].second);
    EXPECT_GE(second[i].first, strict[i].first);
  }
  // classify_crossovers.py gives every strict miss of the main column one class.
  ASSERT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                    "/scripts/testbed/classify_crossovers.py " + dir.string(),
                out),
            0)
      << out;
  const int misses = strict[2].second - strict[2].first;
  ASSERT_GT(misses, 0) << report;  // the slice has misses (p = 3), so the sum below means something
  EXPECT_NE(out.find("(calibration+range+copy+concurrency+overhead+flight): " + std::to_string(misses) + " missed crossovers"),
            std::string::npos)
      << out;
  int classified = 0;
  // A class row: "| (iii) | incast | 11 |".
  for (const std::string& l : lines_of(out)) {
    const std::vector<std::string> cells = table_cells(l);
    if (cells.size() != 3) continue;
    const std::string& c = cells[0];
    if (c != "(i)" && c != "(ii)" && c != "(iii)" && c != "(iv)") continue;
    if (cells[1].find_first_not_of(" abcdefghijklmnopqrstuvwxyz-") != std::string::npos) continue;
    if (cells[2].empty() || cells[2].find_first_not_of("0123456789") != std::string::npos) continue;
    classified += std::stoi(cells[2]);
  }
  EXPECT_EQ(classified, misses) << out;
  // report.md carries the same classes in one sentence.
  EXPECT_NE(report.find("Why the " + std::to_string(misses) + " strict misses of "
                         "`calibration+range+copy+concurrency+overhead+flight`"),
            std::string::npos)
      << report;
  ASSERT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                    "/scripts/testbed/classify_crossovers.py " + (dir / "fit").string(),
                out),
            2 << 8)
      << out;
  EXPECT_EQ(lines_of(out).size(), 1u) << out;
  // A file without the letter's measurement refuses it in one line.
  ASSERT_NE(run(cb + " predict --coll allreduce --ranks 3 -b 8 -e 8 --params " +
                    (s / "calibration.csv").string() + " --terms abcdg",
                out),
            0);
  EXPECT_NE(out.find("does not hold term flight"), std::string::npos) << out;
  // repeat-agreement: one run's measured crossovers as the prediction of
  // another's. Against an exact copy every counted crossover agrees; in a
  // copy where one of them (at >= 64 KiB, so that it stays clear of the
  // CPU-limited small sizes) was measured 5x higher, exactly that one does
  // not, and it is named as measured more than 4x apart.
  const std::string main_level = "calibration+range+copy+concurrency+overhead+flight";
  const std::size_t details = report.find("<details><summary>" + main_level + ": ");
  ASSERT_NE(details, std::string::npos);
  std::string moved_key;   // "allreduce,3,naive,ring"
  std::string moved_line;  // how the report names it: "- allreduce p = 3 naive / ring: "
  int counted = 0;
  for (const std::string& l : lines_of(report.substr(details, report.find("</details>", details) - details))) {
    const std::vector<std::string> c = table_cells(l);  // "| allreduce | 3 | naive / ring | ..."
    if (c.size() != 9 || c[1].find_first_not_of("0123456789") != std::string::npos ||
        c[2].find(" / ") == std::string::npos)
      continue;
    ++counted;
    const double m = std::stod(c[4]);
    if (moved_key.empty() && m >= 65536) {
      moved_key = c[0] + "," + c[1] + "," + c[2].substr(0, c[2].find(" / ")) + "," +
                  c[2].substr(c[2].find(" / ") + 3);
      moved_line = "- " + c[0] + " p = " + c[1] + " " + c[2] + ": ";
    }
  }
  ASSERT_GT(counted, 1) << report;
  ASSERT_FALSE(moved_key.empty()) << report;
  const fs::path same = dir.string() + "-same", moved = dir.string() + "-moved";
  for (const fs::path& d : {same, moved}) {
    fs::remove_all(d);
    fs::create_directories(d);
    fs::copy(s, d / s.filename(), fs::copy_options::recursive);
  }
  {
    std::ofstream w(moved / s.filename() / "fit/crossovers.csv");
    std::map<std::string, std::size_t> column;
    for (const std::string& l : lines_of(slurp(s / "fit/crossovers.csv"))) {
      auto f = cells_of(l);
      if (column.empty())
        for (std::size_t i = 0; i < f.size(); ++i) column[f[i]] = i;
      const auto at = [&](const char* name) -> std::string& { return f.at(column.at(name)); };
      std::string& m = at("measured_crossover_B");
      if (at("kind") == "pair" && !m.empty() &&
          at("collective") + "," + at("ranks") + "," + at("algo_a") + "," + at("algo_b") == moved_key)
        m = number(5 * std::stod(m));
      std::string row;
      for (const std::string& x : f) row += (row.empty() ? "" : ",") + x;
      w << row << '\n';
    }
  }
  const fs::path agreement = dir.string() + "-agreement.csv";
  ASSERT_EQ(run(cb + " repeat-agreement " + dir.string() + " " + same.string() + " " +
                    moved.string() + " --csv " + agreement.string(),
                out),
            0)
      << out;
  ASSERT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                    "/scripts/testbed/repeat_agreement.py " + agreement.string(),
                out),
            0)
      << out;
  const auto row_of = [&](const fs::path& measured_in, const fs::path& predicted_by) {
    const std::string head = "| `" + measured_in.filename().string() + "` | `" +
                             predicted_by.filename().string() + "` | ";
    const std::size_t at = out.find(head);
    return at == std::string::npos ? std::string()
                                   : out.substr(at + head.size(), out.find('\n', at) - at - head.size());
  };
  const std::string n = std::to_string(counted), n1 = std::to_string(counted - 1);
  EXPECT_EQ(row_of(same, dir).rfind(n + " | " + n + " (100.0%) | ", 0), 0u) << out;
  EXPECT_EQ(row_of(dir, same).rfind(n + " | " + n + " (100.0%) | ", 0), 0u) << out;
  EXPECT_EQ(row_of(moved, dir).rfind(n + " | " + n1 + " (", 0), 0u) << out;
  EXPECT_EQ(row_of(dir, moved).rfind(n + " | " + n1 + " (", 0), 0u) << out;
  const std::string pair_names = "`" + dir.filename().string() + "` and `";
  EXPECT_NE(out.find(pair_names + same.filename().string() + "`: 0 pair(s) measured more than 4× apart"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(pair_names + moved.filename().string() + "`: 1 pair(s) measured more than 4× apart"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(moved_line), std::string::npos) << out;
  // One run is not a comparison: one line, exit 2, nothing written.
  fs::remove(agreement);
  ASSERT_EQ(run(cb + " repeat-agreement " + dir.string() + " --csv " + agreement.string(), out),
            2 << 8)
      << out;
  EXPECT_EQ(lines_of(out).size(), 1u) << out;
  EXPECT_FALSE(fs::exists(agreement));
  ASSERT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                    "/scripts/testbed/repeat_agreement.py " + dir.string(),
                out),
            2 << 8)
      << out;
  EXPECT_EQ(lines_of(out).size(), 1u) << out;
  fs::remove_all(same);
  fs::remove_all(moved);
  // A refinement pass (scripts/testbed/study.sh): the sweep's grid alone was
  // fitted into fit-grid/ first. Here the grid lacks the 256 KiB cells, as if
  // the refinement had added them; the report counts the grid's crossovers
  // beside the refined ones and names how many cells the refinement added.
  std::set<std::string> dropped;
  copy_rows(s / "sweep.csv", s / "sweep-grid.csv", [&](const Cell& at) {
    const auto b = std::stoull(at("bytes"));
    if (b <= 200000 || b >= 300000) return true;
    dropped.insert(at("collective") + "," + at("ranks") + "," + at("bytes"));
    return false;
  });
  ASSERT_FALSE(dropped.empty());
  ASSERT_EQ(fit(s / "sweep-grid.csv", s / "fit-grid"), 0) << out;
  // refine-sizes on the grid: without the 256 KiB cells the sizes around
  // them are 16x apart, so a crossover measured between 64 KiB and 1 MiB
  // asks for 256 KiB again; every line is `COLLECTIVE RANKS MIN MAX` with
  // power-of-two MIN <= MAX <= 2 MiB.
  ASSERT_EQ(run(cb + " refine-sizes " + (s / "sweep-grid.csv").string() + " " +
                    (s / "fit-grid").string(),
                out),
            0)
      << out;
  bool asks_256k = false;
  for (const std::string& l : lines_of(out)) {
    std::istringstream in(l);
    std::string coll, extra;
    unsigned long long p = 0, lo = 0, hi = 0;
    ASSERT_TRUE(in >> coll >> p >> lo >> hi) << l;
    EXPECT_FALSE(in >> extra) << l;
    EXPECT_TRUE(lo > 0 && (lo & (lo - 1)) == 0 && (hi & (hi - 1)) == 0 && lo <= hi &&
                hi <= (2u << 20))
        << l;
    asks_256k = asks_256k || (lo <= 262144 && 262144 <= hi);
  }
  EXPECT_TRUE(asks_256k) << out;
  // A folder without crossovers.csv, or a cap of 0 B: one line, exit 2.
  for (const std::string& bad :
       {(s / "fit-none").string(), (s / "fit-grid").string() + " --max-bytes 0"}) {
    EXPECT_EQ(run(cb + " refine-sizes " + (s / "sweep-grid.csv").string() + " " + bad, out), 2 << 8)
        << bad;
    EXPECT_EQ(lines_of(out).size(), 1u) << out;
  }
  ASSERT_EQ(write_report(), 0) << out;
  const std::string refined = slurp(dir / "report.md");
  const std::size_t grid_at = refined.find("Before the refinement pass");
  ASSERT_NE(grid_at, std::string::npos) << refined;
  const std::string grid_line = refined.substr(grid_at, refined.find('\n', grid_at) - grid_at);
  EXPECT_NE(grid_line.find("without the " + std::to_string(dropped.size()) +
                           " (collective, p, size) cells"),
            std::string::npos)
      << grid_line;
  EXPECT_NE(grid_line.find("`" + main_level + "` put "), std::string::npos) << grid_line;
  fs::remove_all(dir);
}

// `fit --network`: the CPU-limited rule's verdict per row (link-limited.csv),
// and bad input refused in one line with exit status 2, nothing written.
TEST(TestbedReport, FitNetworkWritesTheRuleAndRefusesBadSettings) {
  const fs::path src = fs::path(CB_SOURCE_DIR) / "tests/fixtures/testbed-500us-100Mbit";
  const fs::path dir = fs::temp_directory_path() /
                       ("collbench-tbnetwork-" +
                        std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  copy_rows(src / "sweep.csv", dir / "sweep.csv", [](const Cell& at) {
    return at("collective") == "allreduce" && (at("algorithm") == "naive" || at("algorithm") == "mpi") &&
           (at("ranks") == "2" || at("ranks") == "8");
  });
  const std::string cb = std::string(CB_BUILD_DIR) + "/harness/collbench";
  const std::string fit = cb + " fit " + (dir / "sweep.csv").string() + " --calibration " +
                          (src / "calibration.csv").string();
  const std::string probe = " --stack-overhead " + (src / "probe.csv").string();
  std::string out;
  ASSERT_EQ(run(fit + " --network " + (src / "setting.txt").string() + probe + " --out " +
                    (dir / "fit").string(),
                out),
            0)
      << out;
  // 500 µs, 100 Mbit/s = 12.5e6 B/s, 2 cores, the probe's alpha 155.8 µs:
  // naive at p = 2 is 1 round of S bytes, link-limited (155.8 µs < 500 µs +
  // S / 12.5e6); at p = 8 it is 7 rounds whose CPU time is stretched 4x by
  // sharing the cores (7 x 155.8 x 4 µs > 7 x 500 µs at small S). mpi has no
  // closed form and no row.
  const std::string csv = slurp(dir / "fit/link-limited.csv");
  EXPECT_NE(csv.find("\nmpi,allreduce,naive,fp32,sum,out,2,16,4,1,16,0.0001558085562,0.00050128,0,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nmpi,allreduce,naive,fp32,sum,out,8,16,4,7,112,0.004362639574,0.00350896,1,"),
            std::string::npos)
      << csv;
  EXPECT_EQ(csv.find(",mpi,"), std::string::npos) << csv;
  const auto refused = [&](const std::string& flags, const std::string& says) {
    fs::remove_all(dir / "bad");
    EXPECT_EQ(run(fit + flags + " --out " + (dir / "bad").string(), out), 2 << 8) << flags;
    EXPECT_EQ(lines_of(out).size(), 1u) << out;
    EXPECT_NE(out.find(says), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(dir / "bad")) << flags;
  };
  refused(" --network " + (src / "setting.txt").string(), "--network and --stack-overhead go together");
  std::ofstream(dir / "setting.txt") << "latency_us=fast\nbandwidth_bps=100000000\n";
  refused(" --network " + (dir / "setting.txt").string() + probe, "latency_us=fast is not a number > 0");
  std::ofstream(dir / "setting.txt") << "latency_us=500\n";
  refused(" --network " + (dir / "setting.txt").string() + probe, "no bandwidth_bps= line");
  fs::remove_all(dir);
}

// A folder with no fitted setting is bad input, not an empty report.
TEST(TestbedReport, FolderWithoutSettingsIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("cb-testbed-empty-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "notasetting");
  std::string out;
  EXPECT_EQ(run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR + "/scripts/testbed/report.py " +
                    dir.string(),
                out),
            2 << 8)
      << out;
  EXPECT_EQ(lines_of(out).size(), 1u) << out;
  EXPECT_NE(out.find("no setting with fit/fit.csv"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
  fs::remove_all(dir);
}

}  // namespace
