// Point-to-point helpers that drop empty messages.
//
// With count < p (or uneven splits) some blocks are empty. Both sides of a
// message compute the same block, so both skip it together and matching is
// kept; the round still costs one alpha because some other rank's block in it
// is non-empty (every algorithm here moves at least one element per round).
#pragma once

#include "algorithms/builder.hpp"

namespace cb {

inline void send_nonempty(ScheduleBuilder& b, int peer, Region src) {
  if (src.count > 0) b.send(peer, src);
}
inline void recv_nonempty(ScheduleBuilder& b, int peer, Region dst) {
  if (dst.count > 0) b.recv(peer, dst);
}
inline void recv_reduce_nonempty(ScheduleBuilder& b, int peer, Region dst) {
  if (dst.count > 0) b.recv_reduce(peer, dst);
}

// dst = dst (op) message, where dst does not hold this rank's own data yet
// but `own` does (out of place: the input). A copy-receive may not share its
// step with other writes to its region, so the message lands in `temp`
// (scratch of at least dst.count elements) and two local ops combine it.
inline void recv_reduce_from(ScheduleBuilder& b, int peer, Region own, Region dst, BufferId temp) {
  if (dst.count == 0) return;
  const Region t{temp, 0, dst.count};
  b.recv(peer, t);
  b.copy(own, dst);
  b.reduce(t, dst);
}

// Calls step() `rounds` times: a rank with nothing to do in those global
// rounds (a folded-out rank) still steps through them.
inline void idle_rounds(ScheduleBuilder& b, int rounds) {
  for (int i = 0; i < rounds; ++i) b.step();
}

}  // namespace cb
