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

// A rank's port on two levels, the rule the walk and the DES share: a
// message holds it hold() seconds (its level's alpha plus bytes * beta; with
// a network gap g >= 0, g instead of a network message's alpha), one after
// another, and arrives after() seconds later (alpha - g for a network
// message with a gap, else 0). Units: seconds, bytes, seconds per byte.
struct PortRule {
  double intra_alpha_s = 0, intra_beta_s_per_B = 0, alpha_s = 0, beta_s_per_B = 0;
  double network_gap_s = -1;
  double hold(bool intra, double bytes) const {
    if (intra) return intra_alpha_s + bytes * intra_beta_s_per_B;
    return (network_gap_s >= 0 ? network_gap_s : alpha_s) + bytes * beta_s_per_B;
  }
  double after(bool intra) const {
    return network_gap_s >= 0 && !intra ? alpha_s - network_gap_s : 0;
  }
};

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
