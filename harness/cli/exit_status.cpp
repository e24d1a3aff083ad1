// Process-wide state of the CLI: the command line and the exit status.
#include "harness/cli/commands.hpp"

namespace cb {
namespace {
int& status() {
  static int s = 0;
  return s;
}
std::vector<std::string>& line() {
  static std::vector<std::string> l;
  return l;
}
}  // namespace

void set_command_line(int argc, char** argv) { line().assign(argv, argv + argc); }
const std::vector<std::string>& command_line() { return line(); }

void set_exit_status(int s) { status() = s; }
int exit_status() { return status(); }

}  // namespace cb
