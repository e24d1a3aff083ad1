#include "transports/mpi/pmpi/selection.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <fstream>
#include <sstream>

#include "algorithms/collective.hpp"
#include "algorithms/registry.hpp"
#include "models/io/input_file.hpp"
#include "models/mpich_selection.hpp"

namespace cb::pmpi {
namespace {

using Json = nlohmann::ordered_json;

bool parse_number(std::string_view text, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Whether `value` satisfies "<=N", "<N", "=N" or "=any" (op is the part
// after the name).
bool compare(std::string_view op, std::uint64_t value) {
  if (op == "=any") return true;
  std::uint64_t n = 0;
  if (op.starts_with("<=")) return parse_number(op.substr(2), n) && value <= n;
  if (op.starts_with("<")) return parse_number(op.substr(1), n) && value < n;
  if (op.starts_with("=")) return parse_number(op.substr(1), n) && value == n;
  return false;
}

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::uint64_t pof2_below(int p) {
  std::uint64_t v = 1;
  while (v * 2 <= static_cast<std::uint64_t>(p)) v *= 2;
  return v;
}

bool matches(std::string_view key, const CallShape& c) {
  const std::size_t at = key.find_first_of("<=");
  if (at == std::string_view::npos) return false;
  const std::string_view name = key.substr(0, at), op = key.substr(at);
  const std::uint64_t block = c.count * c.elem;
  const std::uint64_t total = collective_spec(c.coll).size_per_rank ? block * c.p : block;
  if (name == "comm_type") return op == "=intra" || op == "=any";
  if (name == "comm_size") {
    if (op == "=pow2") return is_pow2(static_cast<std::uint64_t>(c.p));
    return compare(op, static_cast<std::uint64_t>(c.p));
  }
  if (name == "avg_msg_size") return compare(op, block);
  if (name == "total_msg_size") return compare(op, total);
  if (name == "count") {
    if (op == "<pow2") return c.count < pof2_below(c.p);
    return compare(op, c.count);
  }
  if (name == "is_commutative" || name == "is_op_built_in" || name == "is_block_regular")
    return op == "=yes" || op == "=any";
  if (name == "is_sendbuf_inplace")
    return op == "=any" || op == (c.in_place ? "=yes" : "=no");
  return op == "=any";
}

}  // namespace

Json read_selection(const std::string& path) {
  std::string text;
  try {
    text = io::read_input_file(path);  // bounded: /dev/zero must not fill the memory
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("COLLBENCH_SELECTION={}: {}", path, e.what()));
  }
  Json tree = Json::parse(text, nullptr, false);
  if (tree.is_discarded() || !tree.is_object())
    throw UsageError(
        fmt::format("COLLBENCH_SELECTION={}: not a JSON object (expected an MPICH selection "
                    "file, as `collbench fit --mpich-json` writes)",
                    path));
  bool any = false;
  std::string keys;
  for (Collective coll : kAllCollectives) {
    any = any || tree.contains(fmt::format("collective={}", mpich_selection_key(coll)));
    if (!keys.empty()) keys += '|';
    keys += mpich_selection_key(coll);
  }
  if (!any)
    throw UsageError(fmt::format(
        "COLLBENCH_SELECTION={}: no \"collective={}\" key (expected an MPICH selection file)",
        path, keys));
  return tree;
}

std::string select_mpich_algorithm(const Json& tree, const CallShape& call) {
  const std::string top = fmt::format("collective={}", mpich_selection_key(call.coll));
  if (!tree.contains(top)) return {};
  const Json* node = &tree[top];
  for (int depth = 0; depth < 64 && node->is_object(); ++depth) {
    const Json* next = nullptr;
    for (const auto& [key, child] : node->items()) {
      if (key.starts_with("algorithm=")) return key.substr(10);
      if (matches(key, call)) {
        next = &child;
        break;
      }
    }
    if (!next) return {};
    node = next;
  }
  return {};
}

std::string collbench_algorithm(Collective coll, const std::string& mpich_name) {
  // collbench's own file (recommend's collbench-selection.json) names the
  // algorithm itself, or "mpi" for the library's collective.
  if (mpich_name == "mpi") return mpich_name;
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (e.name == mpich_name) return mpich_name;
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (models::mpich_algorithm(coll, e.name) == mpich_name) return std::string(e.name);
  return {};
}

}  // namespace cb::pmpi
