#include "transports/ipc/common/agree.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace cb::ipc {

void agree(Group& group, std::exception_ptr local, const char* stage) {
  const int mine = local ? 1 : 0;
  const std::vector<int> failed = allgather_value(group, mine);
  if (local) std::rethrow_exception(local);
  for (std::size_t r = 0; r < failed.size(); ++r)
    if (failed[r])
      throw std::runtime_error(
          fmt::format("IPC {} failed on rank {} (its own message says why)", stage, r));
}

}  // namespace cb::ipc
