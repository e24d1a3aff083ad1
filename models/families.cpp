#include "models/families.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <tuple>

#include "models/analysis.hpp"
#include "models/crossover.hpp"
#include "models/csv_text.hpp"

namespace cb::models {
namespace {

enum Family { kHier, kFlat, kLibrary };
constexpr std::array<std::string_view, 3> kNames{"hierarchical", "flat", "library"};

struct Key {
  GroupKey group;
  int ranks_per_node = 0;
  std::uint64_t bytes = 0;
  auto operator<=>(const Key&) const = default;
};

using Fastest = std::array<const Measurement*, 3>;

Family family_of(const Measurement& m) {
  if (!m.entry) return kLibrary;
  return m.entry->composition ? kHier : kFlat;
}

// A library row's name: the algorithm its CVARs force (the value of each
// ..._ALGORITHM=, e.g. "smp"), "default" where none is forced.
std::string name_of(const Measurement& m) {
  if (m.entry) return m.algorithm;
  std::string out;
  const std::string_view s = m.library_setting, key = "_ALGORITHM=";
  for (std::size_t at = s.find(key); at != std::string_view::npos; at = s.find(key, at + 1)) {
    const std::size_t from = at + key.size();
    const std::string_view value = s.substr(from, s.find(';', from) - from);
    if (!out.empty()) out += '+';
    out += value;
  }
  return out.empty() ? "default" : out;
}

std::string contender_cells(const Measurement* m) {
  if (!m) return ",,,";
  const TimeCI t = ci_of(*m);
  return fmt::format("{},{},{},{}", csv_escape(name_of(*m)), csv_number(t.median),
                     csv_number(t.lo), csv_number(t.hi));
}

// a / b with its spread (a.lo / b.hi, a.hi / b.lo); empty where either is missing.
std::string ratio_cells(const Measurement* a, const Measurement* b) {
  if (!a || !b) return ",,";
  const TimeCI x = ci_of(*a), y = ci_of(*b);
  return fmt::format("{},{},{}", csv_number(x.median / y.median), csv_number(x.lo / y.hi),
                     csv_number(x.hi / y.lo));
}

std::string_view faster_of(const Fastest& f) {
  int best = -1, second = -1;
  for (int i = 0; i < 3; ++i) {
    if (!f[i]) continue;
    if (best < 0 || f[i]->time_s < f[best]->time_s) {
      second = best;
      best = i;
    } else if (second < 0 || f[i]->time_s < f[second]->time_s) {
      second = i;
    }
  }
  return significantly_faster(ci_of(*f[best]), ci_of(*f[second])) ? kNames[best] : "tie";
}

}  // namespace

std::string families_csv(const std::vector<const Measurement*>& rows) {
  std::map<Key, Fastest> at;
  for (const Measurement* m : rows) {
    const Scenario& s = m->scenario;
    if (s.ranks_per_node < 2 || s.p <= s.ranks_per_node || m->bytes == 0) continue;
    const Measurement*& slot = at[{group_of(*m), s.ranks_per_node, m->bytes}][family_of(*m)];
    if (!slot || m->time_s < slot->time_s) slot = m;
  }
  if (at.empty()) return {};
  std::string out =
      "transport,collective,datatype,op,placement,ranks,ranks_per_node,bytes,"
      "hier_algorithm,hier_s,hier_lo_s,hier_hi_s,flat_algorithm,flat_s,flat_lo_s,flat_hi_s,"
      "library_algorithm,library_s,library_lo_s,library_hi_s,"
      "hier_over_library,hier_over_library_lo,hier_over_library_hi,"
      "flat_over_library,flat_over_library_lo,flat_over_library_hi,"
      "hier_over_flat,hier_over_flat_lo,hier_over_flat_hi,faster\n";
  for (const auto& [k, f] : at) {
    if ((f[kHier] != nullptr) + (f[kFlat] != nullptr) + (f[kLibrary] != nullptr) < 2) continue;
    const GroupKey& g = k.group;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(g.transport),
                       to_string(g.coll), to_string(g.dtype), g.op, g.placement, g.ranks,
                       k.ranks_per_node, k.bytes, contender_cells(f[kHier]),
                       contender_cells(f[kFlat]), contender_cells(f[kLibrary]),
                       ratio_cells(f[kHier], f[kLibrary]), ratio_cells(f[kFlat], f[kLibrary]),
                       ratio_cells(f[kHier], f[kFlat]), faster_of(f));
  }
  return out;
}

}  // namespace cb::models
