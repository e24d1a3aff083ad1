// The command line as typed, set once by main.
#include "harness/cli/commands.hpp"

namespace cb {
namespace {
std::vector<std::string>& line() {
  static std::vector<std::string> l;
  return l;
}
}  // namespace

void set_command_line(int argc, char** argv) { line().assign(argv, argv + argc); }
const std::vector<std::string>& command_line() { return line(); }

}  // namespace cb
