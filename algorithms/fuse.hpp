// Fusions a shared-memory executor may apply to a schedule without changing
// a bit of its results: the IPC transport runs them (transports/ipc/common/
// executor.hpp) and the memory-traffic bound counts them (models/
// memory_bound.hpp), so both read the same rules from here.
//
// Receive-reduce fusion: the IPC transport's way of honouring "a reduce costs
// no extra copy" for schedules that stage a message in scratch.
//
// Many schedules receive into a scratch region X and then, in the same step's
// local ops, reduce X into its destination (dst = dst op X), because over
// MPI the message needs somewhere to land. Over IPC the message is readable
// in the sender's memory, so that local reduce can read it there and the copy
// into X disappears: the local op runs at the same place in the list, with
// the same operands, so the result is bit-identical. This is valid when
// nothing else ever reads X's contents: X is scratch (not user-visible), no
// earlier local op of the step touches X, and after the reduce every later
// read of X is preceded by a write that overwrites it. The sender's region
// then has to stay untouched until the local reduce ran, so the executor
// acknowledges that peer after the step's local ops instead of after the
// receives.
//
// Copy-reduce fusion: out of place, schedules copy the rank's own
// contribution into the destination and then reduce the message into it (D =
// A; D = D op X, two local ops in a row). One pass D = A op X reads A and X
// and writes D once, instead of writing D, reading it back and writing it
// again; element by element it computes the same op on the same operands.

#include <cstddef>
#include <optional>

#include "algorithms/schedule.hpp"

namespace cb {

// For the copy-receive s.steps[step].recvs[recv]: the index of the local op
// of that step that can read the message from the sender directly, or nullopt.
std::optional<std::size_t> fusable_local_reduce(const Schedule& s, std::size_t step,
                                                std::size_t recv);

// Whether local ops `local` and `local + 1` of the step are a copy D = A
// followed by a reduce D = D op X over the same region D, with X not
// overlapping D (so the copy does not change what the reduce reads): the
// pair is then one pass D = A op X.
bool copy_then_reduce(const Step& step, std::size_t local);

}  // namespace cb
