#include "harness/cli/python_scripts.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "algorithms/types.hpp"
#include "harness/config.hpp"

extern char** environ;

namespace cb {

std::string scripts_dir() {
  std::vector<std::string> places;
  if (const char* env = std::getenv("COLLBENCH_SCRIPTS"); env && *env) places.push_back(env);
  places.push_back(CB_INSTALLED_SCRIPTS_DIR);
  places.push_back(CB_SOURCE_SCRIPTS_DIR);
  for (const std::string& p : places)
    if (std::filesystem::exists(std::filesystem::path(p) / "plot.py")) return p;
  std::string searched;
  for (const std::string& p : places) searched += fmt::format("{}{}", searched.empty() ? "" : ", ", p);
  throw UsageError(fmt::format("cannot find collbench's scripts (plot.py) in {}; set "
                               "COLLBENCH_SCRIPTS to the scripts/ directory of a collbench checkout",
                               searched));
}

int run_script(const std::string& script, const std::vector<std::string>& args) {
  const std::string path = (std::filesystem::path(scripts_dir()) / script).string();
  std::vector<std::string> words = {CB_PYTHON, path};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); err != 0)
    throw UsageError(fmt::format("cannot run {} {}: {}", CB_PYTHON, path, std::strerror(err)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace cb
