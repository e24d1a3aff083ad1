// The microbenchmarks of `collbench calibrate` (its flags: harness/cli/cmd_calibrate.cpp):
// they measure the model's parameters without any collective, for an
// out-of-sample test of the model (`collbench fit --calibration FILE`). Each
// microbenchmark is a small schedule (not a collective) run through the
// transport's own Operation and timed like a collective (barrier, max over
// ranks, median), on ranks 0 and 1:
//  - ping-pong: rank 0 sends m bytes, rank 1 sends them back; half the round
//    trip, 8 B .. 64 MiB (-e). Gives the baseline alpha and beta
//    (models/calibration.hpp) and term `range`, alpha/beta per size range.
//  - exchange: both ranks send and receive m bytes in one step (two such
//    steps, halved), 8 B .. 64 MiB: term `concurrency`, both directions streaming at
//    once; and the same exchange reducing (fp32 sum) what arrives; and
//    (term `staged`) that exchange staged through scratch, as message-passing
//    schedules write it.
//  - relay: the ping-pong with each rank sending back the bytes it has just
//    received (its own output, written in the step before), 8 B .. 64 MiB:
//    term `forward`, what forwarding freshly written bytes adds per byte.
//  - k messages: a ping-pong of k 8-byte messages per direction in one step,
//    k = 1..16: term `overhead`, the per-message overhead o (slope over k).
//  - pipelined ping-pong: two 8-byte messages from rank 0 to rank 1 in
//    consecutive steps, then one back: term `flight`, how much of a one-way
//    latency the sender spends (2 alpha plus that), the rest in flight.
//  - k local copies of 8 bytes in one step: term `copy`'s cost per local op.
//  - an empty schedule: the fixed cost of one timed run, subtracted from all
//    of the above and charged once per collective (term `range`).
//  - fan-in, only on 3 or more ranks (all of them take part, rank 0
//    receiving): k = 2 .. ranks-1 senders each send m bytes to rank 0 in
//    one step, m = 256 KiB .. -e, at most 16 MiB (the ping-pong's large sizes), and the
//    k-way exchange (ranks 0..k each send m bytes to every other in one
//    step): term `incast`, the incast's extra time per received byte by k, for a
//    receiver that only receives and for one that sends at the same time.
//    The ranks past k have nothing to do in the step; ranks past 1 sleep
//    during the rest.
//  - fan-out, only on 3 or more ranks: rank 0 sends m bytes to rank 1, then
//    m bytes to rank 2 while rank 1 sends its m bytes back to rank 0, m =
//    4 KiB .. -e, at most 16 MiB: term `buffering`, how much of a send the transport
//    buffers (completing it before its bytes cross), which lets rank 0's
//    second message share its link with the first.
//  - the mode probe (harness/sweep/mode_probe.hpp, term `probe`): an 8-byte and
//    a 256 KiB exchange step, the probe `collbench run` takes before each
//    configuration, so the file says which coherence mode it was taken in.
//    It is taken first, and again after each message size and after the k
//    message counts; a unit whose probe before or after is in another mode
//    is measured again, and a mode that lasts restarts the message sweep in
//    it (ModeGuard): every term then describes the mode the file records.
//  - two levels: on a launch of 2 or more nodes of K >= 2 ranks each, all of
//    the above runs on the leaders of nodes 0 and 1 (ranks 0 and K: the
//    network, as a one-rank-per-node calibration measures it) and the fan-in
//    and fan-out on the node leaders (3 or more nodes); then the ping-pong
//    runs inside the nodes: between ranks 0 and 1 alone, and between ranks
//    jK and jK+1 of every node j at once (paired ping-pong), which gives the
//    intra-node alpha and beta, fitted the same way (rank_plan.hpp says which
//    ranks do what; measure.hpp why every node at once).
//  - copy and reduce (fp32 sum) of x bytes as a local op, both ranks at once,
//    4 KiB .. 64 MiB: the baseline gamma and term `copy`, per-byte costs at the
//    working set (in cache to out of cache). The copy also gives the memcpy
//    ceilings the report judges busbw by.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"
#include "algorithms/types.hpp"

namespace cb::calibrate {

// Sizes in BYTES.
constexpr std::size_t kPingMin = 8, kPingMax = std::size_t{64} << 20;
constexpr std::size_t kLocalMin = std::size_t{4} << 10, kLocalMax = std::size_t{64} << 20;
constexpr std::size_t kMemcpyInCache = std::size_t{256} << 10;  // fits L2 with room
// The memory's own copy rate, for the memory-traffic bound
// (models/memory_bound.hpp): kMemorySlices copies of kMemorySlice bytes in
// one step, 128 MiB read and 128 MiB written per rank per run. One 64 MiB
// copy repeated (kLocalMax) is where this VM's copy rate is still falling
// (52 to 27 GB/s from 16 to 64 MiB: part of it may come from the cache,
// and it moved more between calibrations); with 256 MiB between two reads
// of a line none does.
constexpr std::size_t kMemorySlice = std::size_t{32} << 20;
constexpr int kMemorySlices = 4;
constexpr std::size_t kSmallMessage = 8;
constexpr int kMaxMessages = 16;
// The fan-in's smallest size: where the ping-pong is bandwidth-bound on a
// network (the testbed's knee is below it) and incast shows.
constexpr std::size_t kFanInMin = std::size_t{256} << 10;
// And its largest: each rank's fan-in buffers hold p messages, so 64 MiB
// on 8 ranks would take 8 GiB; the incast term is flat past a few MiB.
constexpr std::size_t kFanInMax = std::size_t{16} << 20;
// The fan-out's smallest size: below a few KiB its extra time is within the
// latency's noise, and what buffering changes (a message's bytes at beta)
// is too.
constexpr std::size_t kFanOutMin = std::size_t{4} << 10;

// Each builder returns rank `rank`'s schedule of one microbenchmark; sizes
// (m, bytes) in BYTES. These are not collectives: `coll` only sizes the user
// buffers (alltoall: input and output of 2*count elements each).
Schedule micro(Collective coll, DataType dtype, int rank, std::size_t count,
               std::vector<Step> steps);
// Rank 0 sends k messages of m bytes to rank 1, then rank 1 sends them back.
Schedule ping_pong(int rank, std::size_t m, int k);
// Every pair (2j, 2j+1) of a group of p ranks (p even) ping-pongs m bytes
// at once: rank 2j sends, then rank 2j+1 sends them back. p = 2 is
// ping_pong(rank, m, 1).
Schedule paired_ping_pong(int rank, int p, std::size_t m);
// The ping-pong of forwarded bytes (term `forward`).
Schedule relay(int rank, std::size_t m);
// Both ranks send and receive m bytes in one step, twice (term
// `concurrency`); copying what arrives, or reducing it (fp32 sum).
Schedule exchange(int rank, std::size_t m, RecvMode mode = RecvMode::copy);
Schedule exchange_reduce(int rank, std::size_t m);
// The reducing exchange staged through scratch (term `staged`).
Schedule exchange_staged(int rank, std::size_t m);
// Two 8-byte one-way messages in consecutive steps, then one back (term `flight`).
Schedule pipelined(int rank);
// k senders to rank 0 in one step on p ranks, or the k-way exchange among
// ranks 0..k (term `incast`).
Schedule fan_in(int rank, int p, int k, std::size_t m, bool exchange);
// Rank 0 sends to rank 1, then to rank 2 while rank 1 answers (term `buffering`).
Schedule fan_out(int rank, int p, std::size_t m);
// k local copies of `bytes` each in one step (term `copy`'s cost per op).
Schedule local_copies(int rank, std::size_t bytes, int k);
// One local copy (or fp32-sum reduce) of `bytes` from the input into the output.
Schedule local(int rank, std::size_t bytes, LocalKind kind);

}  // namespace cb::calibrate
