// --transport ipc: schedules over mapped memory between the ranks of one node
// (--mem host: POSIX shared memory; --mem cuda: CUDA-IPC device buffers), and
// the `nccl` library baseline (--mem cuda only; --nccl-algo / --nccl-proto
// choose NCCL's own algorithm and protocol). Compiled when MPICH is found:
// mpiexec launches the ranks; the segment names / IPC handles go through the
// harness's Group (allgather_bytes), an MpiGroup in today's builds.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>

#include "transports/contract/transport_spec.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/ipc/ipc.hpp"
#include "transports/ipc/shm/segment.hpp"

namespace cb {
namespace {

struct IpcFlags {
  CLI::App* run = nullptr;  // to read --algo while validating
  std::string mem = "host";
  std::string nccl_algo;
  std::string nccl_proto;
};
IpcFlags& flags() {
  static IpcFlags f;
  return f;
}

// NCCL_ALGO / NCCL_PROTO values NCCL 2.28 documents: a comma-separated list
// of names, optionally prefixed by '^' to exclude them instead.
void check_nccl_list(const std::string& flag, const std::string& value,
                     std::initializer_list<std::string_view> valid) {
  if (value.empty()) return;
  std::string list = value.front() == '^' ? value.substr(1) : value;
  std::string accepted;
  for (std::string_view v : valid) accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", v);
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, end - start);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      throw UsageError(fmt::format("bad {} '{}': '{}' is not one of {} (a list, '^' excludes)",
                                   flag, value, name, accepted));
    start = end + 1;
  }
}

// Whether the run's --algo list names `algo` explicitly.
bool algo_list_names(std::string_view algo) {
  if (flags().run == nullptr) return false;
  const CLI::Option* opt = flags().run->get_option_no_throw("--algo");
  if (opt == nullptr) return false;
  for (const std::string& given : opt->results()) {
    std::size_t start = 0;
    while (start <= given.size()) {
      const std::size_t end = std::min(given.find(',', start), given.size());
      if (given.compare(start, end - start, algo) == 0) return true;
      start = end + 1;
    }
  }
  return false;
}

}  // namespace

void add_ipc_transport(std::vector<TransportSpec>& list) {
  TransportSpec t;
  t.name = "ipc";
  // TransportSpec::summary is a view: the text must outlive the list.
  static const std::string summary = fmt::format(
      "schedules over mapped memory of one node: --mem host (POSIX shm){}{}",
      ipc::cuda_backend_built() ? ", --mem cuda (CUDA-IPC)" : " (no CUDA in this build)",
      ipc::nccl_built() ? "; baseline 'nccl' (--mem cuda)" : "");
  t.summary = summary;
  t.per_process = true;
  if (ipc::nccl_built()) t.baselines = {"nccl"};
  t.add_options = [](CLI::App& run) {
    flags().run = &run;
    run.add_option("--mem", flags().mem, "ipc: where buffers live: host or cuda")
        ->capture_default_str();
    run.add_option("--nccl-algo", flags().nccl_algo,
                   "nccl baseline: NCCL_ALGO, e.g. ring, tree (default: NCCL's choice)");
    run.add_option("--nccl-proto", flags().nccl_proto,
                   "nccl baseline: NCCL_PROTO, e.g. simple, ll, ll128 (default: NCCL's choice)");
  };
  t.validate = [](TransportSpec& self) {
    // A second signal _exits at once (interrupt.hpp): no name may stay behind.
    set_abrupt_exit_hook(ipc::unlink_linked_segments);
    const ipc::MemoryKind kind = ipc::parse_memory_kind(flags().mem);
    if (kind == ipc::MemoryKind::cuda && !ipc::cuda_backend_built())
      throw UsageError("--mem cuda: this collbench was built without CUDA (nvcc/libcudart not "
                       "found when configuring)");
    check_nccl_list("--nccl-algo", flags().nccl_algo,
                    {"ring", "tree", "collnet", "collnetdirect", "collnetchain", "nvls",
                     "nvlstree", "pat"});
    check_nccl_list("--nccl-proto", flags().nccl_proto, {"ll", "ll128", "simple"});
    // NCCL works on device buffers only: with --mem host it is not offered
    // (--algo all means the schedules alone) and naming it is an error.
    if (kind == ipc::MemoryKind::host) {
      self.baselines.clear();
      if (algo_list_names("nccl"))
        throw UsageError("--algo nccl runs on GPU buffers: use it with --mem cuda");
    } else {
      if (ipc::nccl_built()) self.baselines = {"nccl"};
      ipc::require_cuda_device();
    }
  };
  t.label = [] { return std::string(ipc::transport_name(ipc::parse_memory_kind(flags().mem))); };
  t.make_operation = [](const Case& c, const Schedule* schedule,
                        Group& group) -> std::unique_ptr<Operation> {
    if (schedule)
      return ipc::make_ipc_operation(*schedule, group, ipc::parse_memory_kind(flags().mem),
                                     group.wait_policy());
    return ipc::make_nccl_operation(c.coll, c.dtype, c.op, c.in_place, c.count, group,
                                    {flags().nccl_algo, flags().nccl_proto});
  };
  list.push_back(std::move(t));
}

}  // namespace cb
