// The schedule validator: checks the schedules of ALL ranks of one collective
// together against the execution semantics in schedule.hpp, and reports the
// first violation precisely (step, rank, operation, peer, region).
//
// What it checks, step by step (a step index is a global round):
//  - the set is complete and consistent: one full (unwindowed) schedule per
//    rank 0..p-1, same collective/p/count/dtype/op/in_place, and the same
//    number of steps on every rank (steps are global rounds);
//  - peers are in [0, p) and never the rank itself; buffer ids are input,
//    output or a declared scratch buffer; every region lies inside its buffer;
//    local copy/reduce have equal src and dst counts and src/dst do not
//    partially overlap; reduce-receives only in reducing collectives;
//  - matching: at rank b in step s, the k-th receive from a matches the k-th
//    send a->b in step s, with equal counts; nothing is left unmatched;
//  - aliasing (in place, the input and output views share one allocation as
//    in_place_layout says): an out-of-place input is never written; within a
//    step nothing written (receive or local op) overlaps a region a send of
//    that step reads; a copy-receive overlaps nothing else written in the step;
//  - initialisation: nothing reads (send source, reduce-receive target, local
//    source, local reduce/average target) an element that holds no data yet:
//    scratch and the out-of-place output start empty; in place, only the input
//    view of the allocation starts defined. At the end every output element
//    has been written.
// Deadlock cannot occur in a schedule that passes: every match lies within one
// step index and a step's messages are all posted together, so every rank can
// complete step s once every rank has completed step s-1.
#pragma once

#include <span>
#include <string>

#include "algorithms/schedule.hpp"

namespace cb {

struct ValidationResult {
  bool ok = true;
  std::string message;  // the first violation; empty when ok
  explicit operator bool() const { return ok; }
};

// all_ranks[r] must be rank r's schedule.
ValidationResult validate(std::span<const Schedule> all_ranks);

// Throws InternalError (a schedule that fails is an algorithm bug) whose
// message starts with the schedule's "collective/algorithm p=.. count=..".
void validate_or_throw(std::span<const Schedule> all_ranks);

}  // namespace cb
