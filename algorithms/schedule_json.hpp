// Schedules as JSON, so a failing case can be dumped to a file and replayed
// on any transport. Regions are written as ["output", offset, count] (buffer
// name: input, output, scratch<k>; offsets and counts in ELEMENTS); enums by
// their canonical names (types.hpp). A schedule set is a JSON array with rank
// r's schedule at index r.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/schedule.hpp"

namespace cb {

// nlohmann::json's ADL hooks: json j = schedule; Schedule s = j.get<Schedule>().
void to_json(nlohmann::json& j, const Schedule& s);
void from_json(const nlohmann::json& j, Schedule& s);

std::string schedules_to_json(std::span<const Schedule> all_ranks);
// Throws UsageError naming the problem when the text is not a schedule set.
std::vector<Schedule> schedules_from_json(std::string_view text);

// Writes the set to `path`; throws UsageError naming the path when it cannot.
void write_schedules(const std::string& path, std::span<const Schedule> all_ranks);
// Throws UsageError naming the path and the problem.
std::vector<Schedule> read_schedules(const std::string& path);

}  // namespace cb
