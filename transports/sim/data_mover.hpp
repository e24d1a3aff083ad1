// Moves real bytes along the simulator's matched messages (--sim-verify), so
// a simulated run is checked like a real one and the simulator's matching is
// checked along with it: every receive takes the bytes of the very send the
// timing engine paired it with.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "transports/common/rank_memory.hpp"
#include "transports/sim/window.hpp"

namespace cb::sim {

class DataMover {
 public:
  // inputs[r]: rank r's input view, input_count() elements as bytes.
  explicit DataMover(std::span<const std::vector<std::byte>> inputs);
  ~DataMover();
  DataMover(const DataMover&) = delete;
  DataMover& operator=(const DataMover&) = delete;

  // Executes window step s (schedule.hpp semantics: sends read, then
  // copy/reduce receives in list order, then local ops). The window must
  // have been built with keep_schedules.
  void step(const Window& w, std::uint64_t s);

  // Every rank's output view, after the last step. Ranks never seen in a
  // window (schedules without steps) are set up from source's metadata.
  std::vector<std::vector<std::byte>> outputs(const ScheduleSource& source);

 private:
  void allocate(const Schedule& s);
  std::vector<std::vector<std::byte>> inputs_;
  std::vector<std::unique_ptr<RankMemory>> ranks_;
  std::vector<std::vector<std::byte>> messages_;  // by send index, one step at a time
};

}  // namespace cb::sim
