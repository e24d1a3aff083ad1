// `collbench list`: the algorithm x collective matrix and the transports and
// library baselines of this build; `--terms-csv`, the model's terms as CSV
// (models/terms.hpp, kTerms: docs/model.md's table is rendered from it).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/registry.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/cli/commands.hpp"
#include "models/terms.hpp"

namespace cb {
namespace {

void print_matrix() {
  const auto names = all_algorithm_names();
  std::size_t width = 9;
  for (std::string_view n : names) width = std::max(width, n.size());
  fmt::print("{:<{}}", "algorithm", width + 2);
  for (Collective c : kAllCollectives) fmt::print("{:<16}", to_string(c));
  fmt::print("\n");
  for (std::string_view n : names) {
    fmt::print("{:<{}}", n, width + 2);
    for (Collective c : kAllCollectives) {
      const auto table = algorithms_for(c);
      const bool has = std::any_of(table.begin(), table.end(),
                                   [&](const AlgorithmEntry& e) { return e.name == n; });
      fmt::print("{:<16}", has ? "yes" : "-");
    }
    fmt::print("\n");
  }
  fmt::print("\n");
  for (const AlgorithmEntry* e : all_algorithms())
    fmt::print("  {}/{}: {}{}{}\n", to_string(e->coll), e->name, e->summary,
               e->segmented ? " [--segment]" : "",
               e->mpich.empty() ? ""
                                : fmt::format(" [MPICH: {}{}]", e->mpich,
                                              e->mpich_pow2_only ? ", powers of two" : ""));
  fmt::print("\nhierarchical, composed from the above over the node layout (docs/two-level.md):\n");
  for (Collective c : kAllCollectives)
    for (const std::string& form : composite_forms(c))
      fmt::print("  {}/{}\n", to_string(c), form);
}

void print_transports() {
  fmt::print("\ntransports (--transport):\n");
  for (const TransportSpec& t : transports()) {
    std::string extra;
    if (!t.baselines.empty()) {
      extra = " [baselines:";
      for (std::string_view b : t.baselines) extra += fmt::format(" {}", b);
      extra += "]";
    }
    if (t.available)
      fmt::print("  {:<6} {}{}\n", t.name, t.summary, extra);
    else
      fmt::print("  {:<6} not built: {}\n", t.name, t.unavailable_reason);
  }
}

}  // namespace

Command add_list_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "list", "Print the algorithm x collective matrix and the transports of this build");
  auto terms_csv = std::make_shared<bool>(false);
  cmd->add_flag("--terms-csv", *terms_csv,
                "Print the model's terms (name, old letter, what each prices, what it is fitted "
                "from) as CSV instead, the data of docs/model.md's table of terms");
  return {cmd, [terms_csv] {
            if (*terms_csv) {
              fmt::print("{}", models::terms_csv());
              return 0;
            }
            print_matrix();
            print_transports();
            return 0;
          }};
}

}  // namespace cb
