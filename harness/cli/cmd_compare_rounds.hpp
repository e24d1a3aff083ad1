// `collbench compare-rounds`, registered beside `compare` by
// add_compare_command (cmd_compare.cpp): both compare timings of two runs.
#pragma once

namespace CLI {
class App;
}

namespace cb {

void add_compare_rounds_command(CLI::App& app);

}  // namespace cb
