// The sweep loop of `collbench run`: for each rank count, carve a group of
// that many ranks from the world (the others wait at a sleeping barrier,
// burning no CPU), measure every case of it, and hand rows to the reporters
// (world rank 0). Between cases the ranks agree on interruption, so all stop
// together at a case boundary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "harness/runtime/group.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/report/reporter.hpp"

namespace cb {

struct RunOutcome {
  std::uint64_t wrong = 0;  // wrong elements over all verified rows
  std::size_t rows = 0;
  int signal = 0;  // interrupting signal (the same on every rank), 0 otherwise
  std::string write_error;  // rank 0: a row could not be written (the sweep stopped)
};

// Collective over `world`. `measurer` (sweep.hpp's make_measurer) and
// `reporters` are only used where they exist: every rank of a per-process
// transport, world rank 0 of an in-process one. Cases whose case_key is in
// `done` (read on world rank 0 only; --resume) are skipped by every rank of
// their group.
RunOutcome run_plan(const Plan& plan, Group& world, Measurer* measurer,
                    std::vector<std::unique_ptr<Reporter>>& reporters,
                    const std::unordered_set<std::string>& done);

}  // namespace cb
