// The single-process group, and the wait-policy rule shared by all groups.
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "transports/contract/row.hpp"
#include "harness/runtime/group.hpp"
#include "harness/runtime/load.hpp"

namespace cb {
namespace {

class SelfGroup final : public Group {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  WaitPolicy wait_policy() const override { return WaitPolicy::spin; }
  bool oversubscribed() const override { return false; }
  int ranks_on_node() const override { return 1; }
  void barrier() override {}
  void max_to_root(std::span<double>) override {}
  std::uint64_t sum_to_root(std::uint64_t value) override { return value; }
  bool any(bool flag, std::optional<WaitPolicy>) override { return flag; }
  std::int64_t broadcast_from_root(std::int64_t value) override { return value; }
  std::vector<std::vector<std::byte>> allgather_bytes(std::span<const std::byte> mine) override {
    return {std::vector<std::byte>(mine.begin(), mine.end())};
  }
  // A single rank has no peer to talk to (the window start skips clock
  // synchronization for one rank).
  void send_bytes(int, std::span<const std::byte>) override {
    throw std::logic_error("a single-process group has no peer to send to");
  }
  void receive_bytes(int, std::span<std::byte>) override {
    throw std::logic_error("a single-process group has no peer to receive from");
  }
  std::unique_ptr<Group> first_ranks(int n, WaitPolicy) override {
    return n >= 1 ? std::make_unique<SelfGroup>() : nullptr;
  }
};

}  // namespace

std::unique_ptr<Group> make_self_group() { return std::make_unique<SelfGroup>(); }

bool machine_busy() {
  const std::optional<MachineLoad> load = read_machine_load();
  // The machine's cores, not this rank's affinity: a rank pinned to one core
  // still shares the machine with its peers, which the load average counts.
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return load && online > 0 && load->avg_1m > static_cast<double>(online);
}

WaitPolicy resolve_wait_policy(WaitPolicy requested, bool oversubscribed) {
  if (requested != WaitPolicy::automatic) return requested;
  // A launcher whose network runs on the ranks' own cores (scripts/testbed.sh
  // emulates links in the kernel and a delay daemon) says what `auto` means:
  // spinning ranks would take the CPU the network needs.
  if (const char* env = std::getenv("COLLBENCH_WAIT"); env != nullptr && *env != '\0') {
    const WaitPolicy forced = parse_wait_policy(env);
    if (forced != WaitPolicy::automatic) return forced;
  }
  if (oversubscribed || machine_busy()) return WaitPolicy::yield;
  return WaitPolicy::spin;
}

}  // namespace cb
