// The simulator through the CLI: `collbench run --transport sim` rows (same
// schema as real runs, model parameters filled, times equal to the library's),
// --sim-verify, bad input, `collbench map` (rank spec, best and margin per
// cell, complete CSV, --resume), and `collbench fit` recovering the simulated alpha,
// beta, gamma within 1%. The binary comes from $CB_COLLBENCH (meson sets it).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/csv_text.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

Result collbench(const std::string& args) {
  const char* bin = std::getenv("CB_COLLBENCH");
  EXPECT_NE(bin, nullptr) << "CB_COLLBENCH is not set";
  Result r;
  if (!bin) return r;
  const std::string cmd = std::string(bin) + " " + args + " 2>&1";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("cb_sim_cli_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

models::CsvTable read_csv(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return models::CsvTable(ss.str(), path.string());
}

TEST(SimCli, RunRowsCarryTheModelAndTheSimulatedTime) {
  const fs::path dir = temp_dir("run");
  const Result r = collbench("run --transport sim --ranks 4,5 -b 8 -e 1K -f 4 --coll allreduce "
                             "--algo ring,rhd --alpha 3us --bandwidth 2GB/s --reduce-bandwidth 4GB/s "
                             "--placement both --quiet --csv " + (dir / "r.csv").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const models::CsvTable t = read_csv(dir / "r.csv");
  ASSERT_EQ(t.rows().size(), 2u * 2u * 4u * 2u) << r.output;  // ranks x algos x sizes x placement
  NetworkParams net;
  net.alpha_s = 3e-6;
  net.beta_s_per_B = 1 / 2e9;
  net.gamma_s_per_B = 1 / 4e9;
  for (const models::CsvRecord& row : t.rows()) {
    EXPECT_EQ(t.cell(row, "transport"), "sim");
    EXPECT_DOUBLE_EQ(std::stod(t.cell(row, "alpha_s")), 3e-6);
    EXPECT_EQ(t.cell(row, "wait_policy"), "") << "nobody waits in a simulation";
    EXPECT_DOUBLE_EQ(std::stod(t.cell(row, "beta_s_per_B")), 5e-10);
    EXPECT_DOUBLE_EQ(std::stod(t.cell(row, "gamma_s_per_B")), 2.5e-10);
    EXPECT_EQ(t.cell(row, "iterations"), "1");
    CollParams params;
    params.p = std::stoi(t.cell(row, "ranks"));
    params.count = std::stoul(t.cell(row, "count"));
    params.in_place = t.cell(row, "placement") == "in";
    const double want =
        simulate(find_algorithm(Collective::allreduce, t.cell(row, "algorithm")), params, net).time_s;
    EXPECT_NEAR(std::stod(t.cell(row, "time_median_us")), want * 1e6, want * 1e6 * 1e-6);
  }
  fs::remove_all(dir);
}

TEST(SimCli, ParamsFileFromCalibrateOrFitAndFlagsOverrideIt) {
  const fs::path dir = temp_dir("params");
  std::ofstream(dir / "calibration.csv") << "alpha_s,beta_s_per_B,gamma_s_per_B,transport\n"
                                            "4e-06,2e-10,1e-10,mpi\n";
  std::ofstream(dir / "fit.csv") << "scope,transport,alpha_s,beta_s_per_B,gamma_s_per_B\n"
                                    "config,mpi,9e-06,9e-10,\n"
                                    "global,mpi,5e-06,3e-10,2e-10\n";
  struct Case {
    std::string args;
    double alpha, beta, gamma;
  };
  const Case cases[] = {
      {"--params " + (dir / "calibration.csv").string(), 4e-6, 2e-10, 1e-10},
      {"--params " + (dir / "fit.csv").string(), 5e-6, 3e-10, 2e-10},
      {"--params " + (dir / "fit.csv").string() + " --alpha 1us --reduce-bandwidth 1GB/s", 1e-6, 3e-10, 1e-9},
  };
  for (const Case& c : cases) {
    const fs::path csv = dir / "out.csv";
    const Result r = collbench("run --transport sim --ranks 4 -b 1K -e 1K --algo ring --placement out --quiet "
                               "--csv " + csv.string() + " " + c.args);
    ASSERT_EQ(r.status, 0) << c.args << ": " << r.output;
    const models::CsvTable t = read_csv(csv);
    ASSERT_EQ(t.rows().size(), 1u);
    EXPECT_DOUBLE_EQ(std::stod(t.cell(t.rows()[0], "alpha_s")), c.alpha) << c.args;
    EXPECT_DOUBLE_EQ(std::stod(t.cell(t.rows()[0], "beta_s_per_B")), c.beta) << c.args;
    EXPECT_DOUBLE_EQ(std::stod(t.cell(t.rows()[0], "gamma_s_per_B")), c.gamma) << c.args;
  }
  const Result missing = collbench("run --transport sim -e 64 --quiet --params " + (dir / "none.csv").string());
  EXPECT_EQ(missing.status, 2) << missing.output;
  fs::remove_all(dir);
}

// A calibration on two levels sets the two-level network's intra-node alpha
// and beta (the network's from its baseline): a hierarchical all-reduce is
// priced exactly as with the same values given as flags, and flags override
// the file.
TEST(SimCli, TwoLevelCalibrationSetsTheIntraNodeLevel) {
  const fs::path dir = temp_dir("two_level");
  std::ofstream(dir / "calibration.csv")
      << "alpha_s,beta_s_per_B,gamma_s_per_B,transport,ranks_per_node,intra_alpha_s,intra_beta_s_per_B\n"
         "2e-03,4e-08,1e-10,mpi,2,3e-06,1e-10\n";
  const auto time_us = [&](const std::string& args) {
    const fs::path csv = dir / "out.csv";
    fs::remove(csv);
    const Result r = collbench("run --transport sim --ranks 6 --ranks-per-node 2 -b 64K -e 64K "
                               "--algo hier2d:ring/ring --placement out --quiet --csv " +
                               csv.string() + " " + args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.output;
    const models::CsvTable t = read_csv(csv);
    return t.rows().size() == 1 ? std::stod(t.cell(t.rows()[0], "time_median_us")) : -1.0;
  };
  const std::string file = "--params " + (dir / "calibration.csv").string();
  const double from_file = time_us(file);
  EXPECT_DOUBLE_EQ(from_file, time_us("--alpha 2ms --beta 4e-8 --gamma 1e-10 --intra-alpha 3us "
                                      "--intra-beta 1e-10"));
  EXPECT_DOUBLE_EQ(time_us(file + " --intra-alpha 1ms"),
                   time_us("--alpha 2ms --beta 4e-8 --gamma 1e-10 --intra-alpha 1ms --intra-beta 1e-10"));
  EXPECT_GT(time_us(file + " --intra-alpha 1ms"), from_file);
  fs::remove_all(dir);
}

// --network-gap overlaps a rank's network messages of one step (naive
// all-to-all on 3 nodes x 2 sends 4 of them at once): shorter than single
// port ("none"), and refused in one line above alpha, without a topology or
// unparsed; predict takes it the same way and names it in its header.
TEST(SimCli, NetworkGapOverlapsARanksMessages) {
  const fs::path dir = temp_dir("gap");
  const std::string model =
      "--alpha 2ms --beta 4e-8 --gamma 1e-10 --intra-alpha 1ms --intra-beta 1e-10 ";
  const auto time_us = [&](const std::string& gap) {
    const fs::path csv = dir / "out.csv";
    fs::remove(csv);
    const Result r = collbench(
        "run --transport sim --ranks 6 --ranks-per-node 2 -b 96 -e 96 "
        "--coll alltoall --algo naive --placement out --quiet --csv " +
        csv.string() + " " + model + gap);
    EXPECT_EQ(r.status, 0) << gap << ": " << r.output;
    const models::CsvTable t = read_csv(csv);
    return t.rows().size() == 1 ? std::stod(t.cell(t.rows()[0], "time_median_us")) : -1.0;
  };
  const double single = time_us("--network-gap none");
  const double gap = time_us("--network-gap 30us");
  EXPECT_GT(gap, 0);
  EXPECT_LT(gap, single - 2000);          // three network messages no longer pay 2 ms each
  EXPECT_DOUBLE_EQ(time_us(""), single);  // no calibration, no gap
  for (const char* bad : {"--network-gap 3ms", "--network-gap fast"}) {
    const Result r =
        collbench("run --transport sim --ranks 6 --ranks-per-node 2 -e 96 --quiet " + model + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << bad << ": " << r.output;
  }
  const Result flat = collbench("run --transport sim --ranks 6 -e 96 --quiet --network-gap 30us");
  EXPECT_EQ(flat.status, 2) << flat.output;
  EXPECT_NE(flat.output.find("needs --ranks-per-node"), std::string::npos) << flat.output;
  const Result p = collbench(
      "predict --coll alltoall --ranks 6 --ranks-per-node 2 -b 96 -e 96 "
      "--algo naive " +
      model + "--network-gap 30us");
  EXPECT_EQ(p.status, 0) << p.output;
  EXPECT_NE(p.output.find("gap 3e-05 s"), std::string::npos) << p.output;
  const Result pbad = collbench("predict --coll alltoall --ranks 6 --ranks-per-node 2 -e 96 " +
                                model + "--network-gap 3ms");
  EXPECT_EQ(pbad.status, 2) << pbad.output;
  fs::remove_all(dir);
}

// One placement unless asked (the model times both alike), and a table that
// stays readable at scale: no "1155741195.60" us, no "0.00" GB/s.
TEST(SimCli, RunDefaultsToOnePlacementAndPrintsExtremesReadably) {
  const fs::path dir = temp_dir("extremes");
  const Result r = collbench("run --transport sim --ranks 1024 -b 1G -e 1G --coll allreduce "
                             "--algo ring --alpha 1ms --bandwidth 1MB/s --quiet --csv " +
                             (dir / "r.csv").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const models::CsvTable t = read_csv(dir / "r.csv");
  ASSERT_EQ(t.rows().size(), 1u) << r.output;
  EXPECT_EQ(t.cell(t.rows()[0], "placement"), "out");
  std::string line;
  std::istringstream lines(r.output);
  while (std::getline(lines, line))
    if (line.find(" ring ") != std::string::npos && line[0] != '#') break;
  ASSERT_NE(line.find(" ring "), std::string::npos) << r.output;
  EXPECT_NE(line.find("e+09"), std::string::npos) << line;  // ~2100 s in us, in 3 digits
  EXPECT_EQ(line.find("0.00 "), std::string::npos) << line;
  EXPECT_NE(r.output.find("# Avg bus bandwidth    : "), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(SimCli, SimVerifyChecksEveryAlgorithm) {
  const Result r = collbench("run --transport sim --ranks 3,4 -b 8 -e 2K -f 16 --coll all --algo all "
                             "-d int32,float -o sum,max --sim-verify --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Wrong elements: 0 OK"), std::string::npos) << r.output;
}

TEST(SimCli, BadInputIsOneLineAndExitStatusTwo) {
  for (const char* args : {"--alpha 0", "--beta -1e-9", "--bandwidth fast", "--ranks 0",
                           "--ranks 2000000", "--alpha 3xs", "--beta 1e-9 --bandwidth 1GB/s"}) {
    const Result r = collbench(std::string("run --transport sim -e 64 --quiet ") + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": " << r.output;
  }
  const Result m = collbench("map --ranks 8..4 --csv /dev/null");
  EXPECT_EQ(m.status, 2) << m.output;
}

TEST(SimCli, MapWritesEveryCellWithItsBestAndMargin) {
  const fs::path dir = temp_dir("map");
  const fs::path csv = dir / "map.csv";
  const Result r = collbench("map --coll allreduce,allgather --ranks 2..16 -b 64 -e 64K -f 32 --quiet "
                             "--csv " + csv.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(csv.string() + ".partial"));
  const models::CsvTable t = read_csv(csv);
  std::set<int> ranks;
  std::map<std::string, std::vector<const models::CsvRecord*>> cells;
  for (const models::CsvRecord& row : t.rows()) {
    ranks.insert(std::stoi(t.cell(row, "ranks")));
    cells[t.cell(row, "collective") + "/" + t.cell(row, "ranks") + "/" + t.cell(row, "bytes")].push_back(&row);
  }
  EXPECT_EQ(ranks, (std::set<int>{2, 3, 4, 6, 8, 12, 16}));
  ASSERT_FALSE(cells.empty());
  for (const auto& [cell, rows] : cells) {
    double best = 1e300, second = 1e300;
    std::string best_name;
    for (const models::CsvRecord* row : rows) {
      const double t_s = std::stod(t.cell(*row, "time_s"));
      if (t_s < best) {
        second = best;
        best = t_s;
        best_name = t.cell(*row, "algorithm");
      } else if (t_s < second) {
        second = t_s;
      }
    }
    for (const models::CsvRecord* row : rows) {
      EXPECT_EQ(std::stod(t.cell(*row, "best_time_s")), best) << cell;
      EXPECT_NEAR(std::stod(t.cell(*row, "margin")), second / best - 1, 1e-6) << cell;
    }
    EXPECT_EQ(t.cell(*rows[0], "best_algorithm"), best_name) << cell;
  }
  fs::remove_all(dir);
}

// Each row repeats its cell's fastest composed and fastest flat algorithm,
// their times and ratio (the two-level report's extrapolation reads them).
TEST(SimCli, MapNamesEachFamilysFastest) {
  const fs::path dir = temp_dir("map_families");
  const fs::path csv = dir / "map.csv";
  const Result r = collbench(
      "map --coll allreduce --ranks 16 --ranks-per-node 4 --alpha 1e-5 --beta 1e-9 "
      "--intra-alpha 1e-6 --intra-beta 1e-10 --algo ring,rhd,hier:tree/ring,hier2d:ring/ring "
      "-b 8 -e 1M -f 64 --quiet --csv " +
      csv.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const models::CsvTable t = read_csv(csv);
  std::map<std::string, std::map<std::string, double>> cells;  // bytes -> algorithm -> time
  for (const models::CsvRecord& row : t.rows())
    cells[t.cell(row, "bytes")][t.cell(row, "algorithm")] = std::stod(t.cell(row, "time_s"));
  ASSERT_EQ(cells.size(), 3u);
  for (const models::CsvRecord& row : t.rows()) {
    const auto& times = cells.at(t.cell(row, "bytes"));
    const auto fastest = [&](std::initializer_list<const char*> names) {
      std::pair<std::string, double> best{"", 1e300};
      for (const char* n : names)
        if (times.at(n) < best.second) best = {n, times.at(n)};
      return best;
    };
    const auto h = fastest({"hier:tree/ring", "hier2d:ring/ring"});
    const auto f = fastest({"ring", "rhd"});
    EXPECT_EQ(t.cell(row, "best_hierarchical"), h.first);
    EXPECT_EQ(t.cell(row, "best_flat"), f.first);
    EXPECT_NEAR(std::stod(t.cell(row, "best_hierarchical_time_s")), h.second, 1e-5 * h.second);
    EXPECT_NEAR(std::stod(t.cell(row, "best_flat_time_s")), f.second, 1e-5 * f.second);
    EXPECT_NEAR(std::stod(t.cell(row, "hierarchical_over_flat")), h.second / f.second, 1e-4);
  }
  fs::remove_all(dir);
}

// An interrupted map leaves FILE.partial with whole cells; --resume keeps
// them, simulates the rest and ends with the same file a full map writes.
TEST(SimCli, MapResumeCompletesAnInterruptedMap) {
  const fs::path dir = temp_dir("map_resume");
  const std::string args = "map --coll allreduce,alltoall --ranks 2..12 -b 64 -e 64K -f 32 --quiet --csv ";
  const fs::path full = dir / "full.csv", part = dir / "part.csv";
  ASSERT_EQ(collbench(args + full.string()).status, 0);
  std::vector<std::string> lines;
  {
    std::ifstream in(full);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 20u);
  // What an interrupt leaves: the header and the first cells (a cell's rows
  // share collective, ranks and bytes: cut where the 10th data row's cell ends).
  const auto cell_of = [](const std::string& l) {
    std::size_t c = 0;
    for (int i = 0; i < 3; ++i) c = l.find(',', c) + 1;
    return l.substr(0, c);
  };
  std::size_t keep = 10;
  while (keep + 1 < lines.size() && cell_of(lines[keep + 1]) == cell_of(lines[keep])) ++keep;
  {
    std::ofstream out(part.string() + ".partial");
    for (std::size_t i = 0; i <= keep; ++i) out << lines[i] << "\n";
  }
  const Result r = collbench(args + part.string() + " --resume");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rows kept"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(part.string() + ".partial"));
  std::vector<std::string> resumed;
  {
    std::ifstream in(part);
    for (std::string l; std::getline(in, l);) resumed.push_back(l);
  }
  EXPECT_EQ(resumed, lines);
  fs::remove_all(dir);
}

// The simulator reproduces the alpha-beta-gamma cost exactly for these
// algorithms, so fitting a simulated sweep must give the parameters back.
TEST(SimCli, FitRecoversTheSimulatedParametersWithinOnePercent) {
  const fs::path dir = temp_dir("fit");
  const Result run = collbench(
      "run --transport sim --ranks 2,4,7,16 -b 8 -e 4M -f 4 --coll all --algo ring,tree,naive "
      "--placement out --alpha 3.7us --beta 4.35e-10 --gamma 9e-11 --quiet --csv " +
      (dir / "sim.csv").string());
  ASSERT_EQ(run.status, 0) << run.output;
  const Result fit = collbench("fit " + (dir / "sim.csv").string() + " --out " + dir.string());
  ASSERT_EQ(fit.status, 0) << fit.output;
  const models::CsvTable t = read_csv(dir / "fit.csv");
  bool found = false;
  for (const models::CsvRecord& row : t.rows()) {
    if (t.cell(row, "scope") != "global") continue;
    found = true;
    EXPECT_NEAR(std::stod(t.cell(row, "alpha_s")), 3.7e-6, 3.7e-8) << fit.output;
    EXPECT_NEAR(std::stod(t.cell(row, "beta_s_per_B")), 4.35e-10, 4.35e-12) << fit.output;
    EXPECT_NEAR(std::stod(t.cell(row, "gamma_s_per_B")), 9e-11, 9e-13) << fit.output;
  }
  EXPECT_TRUE(found) << "no scope=global row in fit.csv";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cb::sim
