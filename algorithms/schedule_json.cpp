#include "algorithms/schedule_json.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace cb {
namespace {

using nlohmann::json;

std::string buffer_name(BufferId buf) {
  if (buf == kInput) return "input";
  if (buf == kOutput) return "output";
  return fmt::format("scratch{}", buf - kScratch0);
}

BufferId parse_buffer(const std::string& name) {
  if (name == "input") return kInput;
  if (name == "output") return kOutput;
  if (name.rfind("scratch", 0) == 0 && name.size() > 7) {
    std::size_t used = 0;
    const unsigned long k = std::stoul(name.substr(7), &used);
    if (used == name.size() - 7 && k + kScratch0 <= 0xFFFF)
      return static_cast<BufferId>(kScratch0 + k);
  }
  throw UsageError(fmt::format("unknown buffer '{}' (valid: input, output, scratch<k>)", name));
}

json region(const Region& r) { return json::array({buffer_name(r.buf), r.offset, r.count}); }

Region region(const json& j) {
  if (!j.is_array() || j.size() != 3)
    throw UsageError(fmt::format("bad region {} (expected [buffer, offset, count])", j.dump()));
  return {parse_buffer(j[0].get<std::string>()), j[1].get<std::size_t>(),
          j[2].get<std::size_t>()};
}

std::string_view local_kind_name(LocalKind k) {
  switch (k) {
    case LocalKind::copy: return "copy";
    case LocalKind::reduce: return "reduce";
    case LocalKind::average: return "average";
  }
  return "?";
}

LocalKind parse_local_kind(const std::string& s) {
  if (s == "copy") return LocalKind::copy;
  if (s == "reduce") return LocalKind::reduce;
  if (s == "average") return LocalKind::average;
  throw UsageError(fmt::format("unknown local op '{}' (valid: copy, reduce, average)", s));
}

RecvMode parse_mode(const std::string& s) {
  if (s == "copy") return RecvMode::copy;
  if (s == "reduce") return RecvMode::reduce;
  throw UsageError(fmt::format("unknown receive mode '{}' (valid: copy, reduce)", s));
}

}  // namespace

void to_json(json& j, const Schedule& s) {
  json steps = json::array();
  for (const Step& st : s.steps) {
    json sends = json::array(), recvs = json::array(), locals = json::array();
    for (const Send& x : st.sends) sends.push_back({{"peer", x.peer}, {"src", region(x.src)}});
    for (const Recv& x : st.recvs)
      recvs.push_back({{"peer", x.peer},
                       {"dst", region(x.dst)},
                       {"mode", x.mode == RecvMode::copy ? "copy" : "reduce"}});
    for (const Local& x : st.locals) {
      json l = {{"kind", local_kind_name(x.kind)}, {"dst", region(x.dst)}};
      if (x.kind != LocalKind::average) l["src"] = region(x.src);
      locals.push_back(std::move(l));
    }
    steps.push_back({{"sends", sends}, {"recvs", recvs}, {"locals", locals}});
  }
  j = json{{"coll", to_string(s.coll)},
           {"algorithm", s.algorithm},
           {"p", s.p},
           {"rank", s.rank},
           {"count", s.count},
           {"dtype", to_string(s.dtype)},
           {"op", to_string(s.op)},
           {"in_place", s.in_place},
           {"segment_bytes", s.segment_bytes},
           {"scratch_counts", s.scratch_counts},
           {"first_step", s.first_step},
           {"total_steps", s.total_steps},
           {"steps", steps}};
}

void from_json(const json& j, Schedule& s) {
  s = Schedule{};
  s.coll = parse_collective(j.at("coll").get<std::string>());
  s.algorithm = j.at("algorithm").get<std::string>();
  s.p = j.at("p").get<int>();
  s.rank = j.at("rank").get<int>();
  s.count = j.at("count").get<std::size_t>();
  s.dtype = parse_datatype(j.at("dtype").get<std::string>());
  s.op = parse_reduce_op(j.at("op").get<std::string>());
  s.in_place = j.at("in_place").get<bool>();
  s.segment_bytes = j.at("segment_bytes").get<std::size_t>();
  s.scratch_counts = j.at("scratch_counts").get<std::vector<std::size_t>>();
  s.first_step = j.at("first_step").get<std::uint64_t>();
  s.total_steps = j.at("total_steps").get<std::uint64_t>();
  for (const json& js : j.at("steps")) {
    Step st;
    for (const json& x : js.at("sends")) st.sends.push_back({x.at("peer").get<int>(), region(x.at("src"))});
    for (const json& x : js.at("recvs"))
      st.recvs.push_back({x.at("peer").get<int>(), region(x.at("dst")),
                          parse_mode(x.at("mode").get<std::string>())});
    for (const json& x : js.at("locals")) {
      Local l;
      l.kind = parse_local_kind(x.at("kind").get<std::string>());
      l.dst = region(x.at("dst"));
      if (l.kind != LocalKind::average) l.src = region(x.at("src"));
      st.locals.push_back(l);
    }
    s.steps.push_back(std::move(st));
  }
}

std::string schedules_to_json(std::span<const Schedule> all_ranks) {
  json j = json::array();
  for (const Schedule& s : all_ranks) j.push_back(s);
  return j.dump();
}

std::vector<Schedule> schedules_from_json(std::string_view text) {
  try {
    const json j = json::parse(text);
    if (!j.is_array()) throw UsageError("a schedule set must be a JSON array of schedules");
    return j.get<std::vector<Schedule>>();
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("not a schedule set: {}", e.what()));
  } catch (const std::invalid_argument& e) {  // std::stoul on a bad scratch name
    throw UsageError(fmt::format("not a schedule set: bad scratch buffer name ({})", e.what()));
  }
}

void write_schedules(const std::string& path, std::span<const Schedule> all_ranks) {
  std::ofstream out(path);
  out << schedules_to_json(all_ranks) << '\n';
  if (!out.flush()) throw UsageError(fmt::format("cannot write schedules to '{}'", path));
}

std::vector<Schedule> read_schedules(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot open schedule file '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return schedules_from_json(text.str());
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace cb
