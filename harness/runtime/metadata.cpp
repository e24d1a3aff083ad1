#include "harness/runtime/metadata.hpp"

#include <fmt/chrono.h>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <climits>

#include "harness/config.hpp"
#include "harness/runtime/world.hpp"

namespace cb {

RunMetadata collect_metadata() {
  RunMetadata m;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  m.timestamp =
      fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
  m.collbench_version = CB_VERSION;
  m.git_rev = std::string(git_revision());
  m.mpi_version = mpi_library_version();
  m.load = read_machine_load();
  return m;
}

std::string cpu_list_text() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += fmt::format("{}{}", out.empty() ? "" : ",",
                       last == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, last));
    c = last;
  }
  return out;
}

RankPlace this_place() {
  RankPlace p;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  p.pid = static_cast<long>(getpid());
  p.core = sched_getcpu();
  p.affinity = cpu_list_text();
  return p;
}

nlohmann::json metadata_json(const RunMetadata& m) {
  nlohmann::json j = {{"host", m.host},
                      {"timestamp", m.timestamp},
                      {"collbench_version", m.collbench_version},
                      {"git_rev", m.git_rev},
                      {"mpi_version", m.mpi_version}};
  if (!m.layout.empty()) j["layout"] = m.layout;
  if (m.load)
    j["load"] = {{"avg_1m", m.load->avg_1m},     {"avg_5m", m.load->avg_5m},
                 {"avg_15m", m.load->avg_15m},   {"runnable", m.load->runnable},
                 {"usable_cores", m.load->cores},
                 {"online_cores", m.load->online_cores}};
  else
    j["load"] = nullptr;
  j["ranks"] = nlohmann::json::array();
  for (const RankPlace& p : m.places)
    j["ranks"].push_back({{"rank", p.rank},
                          {"host", p.host},
                          {"pid", p.pid},
                          {"core", p.core},
                          {"affinity", p.affinity}});
  return j;
}

}  // namespace cb
