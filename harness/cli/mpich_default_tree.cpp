#include "harness/cli/mpich_default_tree.hpp"

#include <fmt/format.h>

#include <string_view>

#include "algorithms/types.hpp"
#include "harness/config.hpp"
#include "models/io/input_file.hpp"
#include "models/csv_text.hpp"
#include "models/mpich_selection.hpp"

#if CB_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>
#endif

namespace cb {

nlohmann::ordered_json mpich_default_tree(const std::string& file, const std::string& flag) {
  if (!file.empty()) {
    nlohmann::ordered_json tree;
    try {
      tree = nlohmann::ordered_json::parse(models::read_text_file(file));
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(fmt::format("--mpich-default {}: not JSON: {}", file, e.what()));
    }
    if (const std::string problem = models::mpich_default_tree_problem(tree); !problem.empty())
      throw UsageError(fmt::format(
          "--mpich-default {}: not MPICH's default selection tree: it {} (accepted: MPICH's "
          "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE format)",
          file, problem));
    return tree;
  }
#if CB_HAVE_MPI
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init), &info) == 0 || info.dli_fname == nullptr)
    throw UsageError(
        fmt::format("{}: cannot locate libmpich; give its tree with --mpich-default FILE", flag));
  // A shared library: binary, so no line limit; the size limit still holds.
  const std::string lib = io::read_input_file(info.dli_fname, "libmpich", {.max_line = 0});
  if (auto tree = models::find_mpich_default_tree(lib)) return std::move(*tree);
  throw UsageError(fmt::format("{}: no default selection tree found in {}; give one "
                               "with --mpich-default FILE",
                               flag, info.dli_fname));
#else
  throw UsageError(fmt::format("{}: this collbench was built without MPICH; give its default "
                               "tree with --mpich-default FILE",
                               flag));
#endif
}

}  // namespace cb
