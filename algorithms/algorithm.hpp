// What an algorithm file (algorithms/<collective>/<name>.cpp) includes. It
// defines, in namespace cb::<collective>,
//   void <name>(const CollParams& params, ScheduleBuilder& b);  // rank params.rank's schedule
//   Cost <name>_cost(const CollParams& params);                 // its exact closed form
// and opens with a header comment (algorithm, restrictions, idea, cost) in
// the conventions of algorithms/README.md. registry_table.inc declares both
// functions from its row, so a signature that does not match fails to link.
#pragma once

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"
