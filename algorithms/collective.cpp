#include "algorithms/collective.hpp"

#include <cctype>
#include <stdexcept>

namespace cb {

namespace {

// One row of collective_table.inc as a spec: the layout flags become the
// spec's named properties.
constexpr CollectiveSpec row(Collective coll, std::string_view name, std::string_view mpich_name,
                             unsigned layout, double busbw_steps, MpichSizeKey size_key) {
  const auto has = [layout](unsigned flag) { return (layout & flag) != 0; };
  return {coll,
          name,
          mpich_name,
          has(kReducing),
          has(kInputPerRank),
          has(kOutputPerRank),
          has(kInPlaceInputAtOwnBlock),
          has(kInPlaceOutputAtOwnBlock),
          has(kSizePerRank),
          busbw_steps,
          has(kLibraryInPlaceOutputAtStart),
          size_key};
}

constexpr CollectiveSpec kCollectives[] = {
#define CB_COLLECTIVE(name, alias, mpi, impi, nccl, layout, busbw_steps, size_key) \
  row(Collective::name, #name, #mpi, layout, busbw_steps, MpichSizeKey::size_key),
#include "algorithms/collective_table.inc"
#undef CB_COLLECTIVE
};

}  // namespace

const CollectiveSpec& collective_spec(Collective coll) {
  for (const CollectiveSpec& s : kCollectives)
    if (s.coll == coll) return s;
  throw std::logic_error("bad Collective");
}

std::string_view to_string(MpichSizeKey k) {
  return k == MpichSizeKey::total_msg_size ? "total_msg_size" : "avg_msg_size";
}

std::string collective_names(std::string_view separator) {
  std::string out;
  for (Collective c : kAllCollectives) {
    if (!out.empty()) out += separator;
    out += collective_spec(c).name;
  }
  return out;
}

std::string mpich_selection_key(Collective coll) {
  std::string key(collective_spec(coll).mpich_name);
  for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return key;
}

}  // namespace cb
