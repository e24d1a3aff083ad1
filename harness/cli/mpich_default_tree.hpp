// MPICH's default collective-selection tree, the starting point of the
// selection files `fit --mpich-json` and `recommend` write
// (models/mpich_selection.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace cb {

// The tree in `file` when it is not empty, else the JSON MPICH compiles into
// libmpich (the string holding every "collective=..." with MPIR_ algorithms).
// `flag` names the option in messages ("--mpich-json"). Throws UsageError.
nlohmann::ordered_json mpich_default_tree(const std::string& file, const std::string& flag);

}  // namespace cb
