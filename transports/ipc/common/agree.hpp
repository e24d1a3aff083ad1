// Setup steps that can fail on one rank (out of shared memory, no device...)
// must not leave the other ranks blocked in the next collective call. Each
// stage ends with agree(): every rank learns whether all succeeded, and if one
// failed, every rank throws (the failing rank its own error, the others a line
// naming the first failing rank).
#pragma once

#include <exception>

#include "transports/contract/group.hpp"

namespace cb::ipc {

// Collective over the group (waiting with its policy). `local` is this
// rank's failure, or null.
void agree(Group& group, std::exception_ptr local, const char* stage);

// Runs f(); collective agreement on its success as above.
template <class F>
void agreed(Group& group, const char* stage, F&& f) {
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    error = std::current_exception();
  }
  agree(group, error, stage);
}

}  // namespace cb::ipc
