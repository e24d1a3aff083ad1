// Running the plot and report scripts (scripts/*.py) from the CLI: `collbench
// plot` and `collbench report`. The scripts are found installed
// (<prefix>/share/collbench/scripts, `meson install`), else in the source tree
// the binary was built from, else where $COLLBENCH_SCRIPTS points; they run
// under the Python that has matplotlib (Debian's /usr/bin/python3, found at
// configure time).
#pragma once

#include <string>
#include <vector>

namespace cb {

// The directory holding plot.py and report.py; UsageError naming the places
// searched when there is none.
std::string scripts_dir();

// Runs `python SCRIPT args...` (SCRIPT inside scripts_dir()), waits, and
// returns its exit status (128 + signal when killed).
int run_script(const std::string& script, const std::vector<std::string>& args);

}  // namespace cb
