// The network link of a node, shared by its ranks: on a two-level machine
// (and on the testbed, whose hosts each have one shaped link, shaped both
// leaving the host and entering it) every rank of a node reaches the other
// nodes through one link per direction, so the bytes that the node's ranks
// send across nodes in one round share its egress and the bytes they receive
// share its ingress.
//
// The rule, owned here and used by the two-level walk of models::
// level_seconds (two_level.hpp) and by the simulator's discrete-event model
// (transports/sim/simulator.hpp), so that the two agree: per global step,
// each inter-node message is a transfer of bytes * beta on its sender node's
// egress and on its receiver node's ingress, each link shared by the step's
// transfers as processor sharing from the time each could start
// (shared_link.hpp: concurrent TCP flows share a link about equally); the
// message is delivered no earlier than alpha after the later of its two links
// has carried its last byte. A message alone on both links is delivered at
// start + alpha + bytes * beta, what a rank's own port charges it already, so
// the links change nothing where no two messages of a step share one.
#pragma once

#include <span>
#include <vector>

namespace cb::models {

struct NodeMessage {
  int src_node = 0;    // node of the sender
  int dst_node = 0;    // node of the receiver (src_node == dst_node: no link)
  double start_s = 0;  // when it could start: both ends reached the step (seconds)
  double bytes = 0;
};

// For each message, in order, the earliest second at which its node links
// have delivered it: start_s + (alpha + the longer of the two links' delay
// of its last byte, which is bytes * beta when alone); start_s for a message
// inside one node. Units: seconds, bytes, seconds per byte. The result does
// not depend on the order of the messages.
std::vector<double> node_link_deliveries(std::span<const NodeMessage> msgs, double alpha_s,
                                         double beta_s_per_B);

}  // namespace cb::models
