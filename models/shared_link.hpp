// One link shared by concurrent transfers: the time each ends when every
// transfer in progress gets an equal share of the link (processor sharing),
// as TCP flows into one receiver roughly do. Term `flight` prices a receiver's
// link this way (schedule_model.hpp).
#pragma once

#include <vector>

namespace cb::models {

struct LinkTransfer {
  double start_s = 0;  // when its first byte could enter the link (seconds)
  double work_s = 0;   // seconds it takes the link alone (bytes times beta)
};

// For each transfer, in the given order, the second at which its last byte
// has crossed the link; never before start_s + work_s, equal to it when no
// other transfer overlaps. A transfer with no work ends at its start.
std::vector<double> shared_link_ends(const std::vector<LinkTransfer>& transfers);

}  // namespace cb::models
