#include "harness/commands.hpp"

namespace cb {
namespace {
int& status() {
  static int s = 0;
  return s;
}
}  // namespace

void set_exit_status(int s) { status() = s; }
int exit_status() { return status(); }

}  // namespace cb
