#include "harness/calibrate/microbenchmarks.hpp"

#include <utility>

#include "algorithms/common/direct.hpp"

namespace cb::calibrate {

// A two-rank schedule that is not a collective: `coll` only sizes the user
// buffers (alltoall: input and output of 2*count elements each).
Schedule micro(Collective coll, DataType dtype, int rank, std::size_t count,
               std::vector<Step> steps) {
  Schedule s;
  s.coll = coll;
  s.algorithm = "calibrate";
  s.p = 2;
  s.rank = rank;
  s.count = count;
  s.dtype = dtype;
  s.op = ReduceOp::sum;
  s.total_steps = steps.size();
  s.steps = std::move(steps);
  return s;
}

// Rank 0 sends k messages of m bytes to rank 1, then rank 1 sends them back.
Schedule ping_pong(int rank, std::size_t m, int k) {
  std::vector<Step> steps(2);
  for (int s = 0; s < 2; ++s) {
    const bool sender = (s == 0) == (rank == 0);
    for (int i = 0; i < k; ++i) {
      const Region r{sender ? kInput : kOutput, static_cast<std::size_t>(i) * m, m};
      if (sender)
        steps[s].sends.push_back({1 - rank, r});
      else
        steps[s].recvs.push_back({1 - rank, r, RecvMode::copy});
    }
  }
  return micro(Collective::alltoall, DataType::uint8, rank, m * static_cast<std::size_t>(k),
               std::move(steps));
}

Schedule paired_ping_pong(int rank, int p, std::size_t m) {
  // ping_pong's steps with the peer rank ^ 1 in place of 1 - rank: the pairs
  // run side by side in the same two steps.
  Schedule s = ping_pong(rank % 2, m, 1);
  const int peer = rank ^ 1;
  for (Step& st : s.steps) {
    for (Send& x : st.sends) x.peer = peer;
    for (Recv& x : st.recvs) x.peer = peer;
  }
  s.rank = rank;
  s.p = p;
  return s;
}

// The ping-pong of forwarded bytes: rank 0 sends its output to rank 1's
// output, rank 1 sends that straight back into rank 0's output, so every
// message's source was written by its sender one step (or one run) before,
// as in a store-and-forward collective.
Schedule relay(int rank, std::size_t m) {
  std::vector<Step> steps(2);
  for (int s = 0; s < 2; ++s) {
    const Region r{kOutput, 0, m};
    if ((s == 0) == (rank == 0))
      steps[s].sends.push_back({1 - rank, r});
    else
      steps[s].recvs.push_back({1 - rank, r, RecvMode::copy});
  }
  return micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
}

// Both ranks send m bytes and receive m bytes in the same step, twice (as
// the ping-pong has two steps, so the per-run cost of the timing weighs the
// same per step in both). RecvMode::reduce: each rank reduces (fp32 sum) what
// it receives into its output, as reduce-scatter and all-reduce steps do.
Schedule exchange(int rank, std::size_t m, RecvMode mode) {
  const bool reduce = mode == RecvMode::reduce;
  const std::size_t n = reduce ? m / sizeof(float) : m;
  std::vector<Step> steps(2);
  for (Step& s : steps) {
    s.sends.push_back({1 - rank, Region{kInput, 0, n}});
    s.recvs.push_back({1 - rank, Region{kOutput, 0, n}, mode});
  }
  return micro(reduce ? Collective::allreduce : Collective::alltoall,
               reduce ? DataType::fp32 : DataType::uint8, rank, n, std::move(steps));
}

Schedule exchange_reduce(int rank, std::size_t m) { return exchange(rank, m, RecvMode::reduce); }

// As exchange_reduce(), written as message-passing schedules do it
// (algorithms/common/messages.hpp, recv_reduce_from): receive into scratch,
// copy the own part into the output, reduce the scratch into it.
Schedule exchange_staged(int rank, std::size_t m) {
  Schedule s = exchange_reduce(rank, m);
  const std::size_t n = s.count;
  for (Step& st : s.steps) {
    st.recvs.front() = {1 - rank, Region{kScratch0, 0, n}, RecvMode::copy};
    st.locals = {{LocalKind::copy, Region{kInput, 0, n}, Region{kOutput, 0, n}},
                 {LocalKind::reduce, Region{kScratch0, 0, n}, Region{kOutput, 0, n}}};
  }
  s.scratch_counts = {n};
  return s;
}

// Term `flight`: rank 0 sends 8 bytes in step 0 and 8 more in step 1, rank 1
// answers in step 2. If a sender waited for its message to arrive before its
// next step, this would take 3 one-way latencies; it takes 2 plus what rank 0
// spends on one message. Timed as a round trip (rank 0 waits for the
// answer), so barrier exit skew cannot hide the second message's latency.
Schedule pipelined(int rank) {
  std::vector<Step> steps(3);
  for (int s = 0; s < 2; ++s) {
    const Region r{rank == 0 ? kInput : kOutput, static_cast<std::size_t>(s) * kSmallMessage,
                   kSmallMessage};
    if (rank == 0)
      steps[s].sends.push_back({1, r});
    else
      steps[s].recvs.push_back({0, r, RecvMode::copy});
  }
  if (rank == 1)
    steps[2].sends.push_back({0, Region{kInput, 0, kSmallMessage}});
  else
    steps[2].recvs.push_back({1, Region{kOutput, 0, kSmallMessage}, RecvMode::copy});
  return micro(Collective::alltoall, DataType::uint8, rank, kSmallMessage, std::move(steps));
}

// Term `incast`: ranks 1..k each send m bytes to rank 0 in one step, on a group
// of p ranks (ranks past k send nothing); rank 0 receives them side by
// side. `exchange`: ranks 0..k each send m bytes to every other of them and
// receive from every other in that step (a rank's k incoming flows then
// share its link with its k outgoing ones and their acknowledgements), in
// the naive algorithms' peer order (direct_round), the step this term
// prices. In rank order every rank sends to rank 0 first, and over TCP the
// step's time beyond the link's was up to 4x that in the naive order
// (testbed, 500 us, 100 Mbit/s, k = 3, 64 KiB: 9.3 ms against 2.1 ms).
Schedule fan_in(int rank, int p, int k, std::size_t m, bool exchange) {
  std::vector<Step> steps(1);
  const auto part = [m](int q) { return static_cast<std::size_t>(q) * m; };
  if (exchange && rank <= k) {
    direct_round(
        k + 1, rank, [&](int q) { steps[0].sends.push_back({q, Region{kInput, part(q), m}}); },
        [&](int q) {
          steps[0].recvs.push_back({q, Region{kOutput, part(q), m}, RecvMode::copy});
        });
  } else if (rank == 0) {
    for (int q = 1; q <= k; ++q)
      steps[0].recvs.push_back({q, Region{kOutput, part(q - 1), m}, RecvMode::copy});
  } else if (rank <= k) {
    steps[0].sends.push_back({0, Region{kInput, 0, m}});
  }
  Schedule s = micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
  s.p = p;  // alltoall buffers hold p * m bytes: room for every peer's part
  return s;
}

// Term `buffering`: rank 0 sends m bytes to rank 1 in step 0; in step 1 it sends m
// bytes to rank 2 and receives rank 1's m bytes back (ranks past 2 idle).
// If rank 0's first send waits for its bytes to cross, this takes two
// one-way transfers; if the transport buffered them, the second message
// leaves at once and shares rank 0's link with the first, whose receiver
// then answers a transfer later. Distinct links for every message else:
// rank 0 receives only rank 1's answer, rank 2 only rank 0's message.
Schedule fan_out(int rank, int p, std::size_t m) {
  std::vector<Step> steps(2);
  const Region in{kInput, 0, m}, out{kOutput, 0, m};
  if (rank == 0) {
    steps[0].sends.push_back({1, in});
    steps[1].sends.push_back({2, in});
    steps[1].recvs.push_back({1, out, RecvMode::copy});
  } else if (rank == 1) {
    steps[0].recvs.push_back({0, out, RecvMode::copy});
    steps[1].sends.push_back({0, out});
  } else if (rank == 2) {
    steps[1].recvs.push_back({0, out, RecvMode::copy});
  }
  Schedule s = micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
  s.p = p;
  return s;
}

// k local copies of `bytes` each in one step (k = 1: one copy).
Schedule local_copies(int rank, std::size_t bytes, int k) {
  std::vector<Step> steps(1);
  for (int i = 0; i < k; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * bytes;
    steps[0].locals.push_back({LocalKind::copy, Region{kInput, at, bytes}, Region{kOutput, at, bytes}});
  }
  return micro(Collective::alltoall, DataType::uint8, rank, bytes * static_cast<std::size_t>(k),
               std::move(steps));
}

// One local copy (or fp32-sum reduce) of `bytes` from the input into the output.
Schedule local(int rank, std::size_t bytes, LocalKind kind) {
  std::vector<Step> steps(1);
  const bool reduce = kind == LocalKind::reduce;
  const std::size_t n = reduce ? bytes / sizeof(float) : bytes;
  steps[0].locals.push_back({kind, Region{kInput, 0, n}, Region{kOutput, 0, n}});
  return micro(reduce ? Collective::allreduce : Collective::alltoall,
               reduce ? DataType::fp32 : DataType::uint8, rank, n, std::move(steps));
}

}  // namespace cb::calibrate
