#include "transports/ipc/common/executor.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "algorithms/check.hpp"
#include "algorithms/fuse.hpp"
#include "algorithms/interval_set.hpp"
#include "transports/common/poll.hpp"
#include "transports/watchdog.hpp"

namespace cb::ipc {
namespace {

// One send as the receiver needs to know it: (step, byte offset in the
// sender's allocation, elements).
using SendDescriptor = std::array<std::uint64_t, 3>;

// Every rank learns, for each peer, the sends that peer makes to it, in
// order. Each rank publishes all its sends (by destination) through the
// group: setup-only, so the p-fold copy is cheap.
std::vector<std::vector<SendDescriptor>> exchange_send_descriptors(const Schedule& s,
                                                                   const BufferLayout& layout,
                                                                   Group& group) {
  const int p = s.p;
  std::vector<std::vector<SendDescriptor>> to(p);
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    for (const Send& send : s.steps[i].sends)
      to.at(send.peer).push_back({s.first_step + i, layout.offset_of(send.src), send.src.count});
  // Per destination: its number of descriptors, then the descriptors.
  std::vector<std::uint64_t> out;
  for (int b = 0; b < p; ++b) {
    out.push_back(to[b].size());
    for (const auto& d : to[b]) out.insert(out.end(), d.begin(), d.end());
  }
  const auto all = group.allgather_bytes(std::as_bytes(std::span<const std::uint64_t>(out)));
  CB_CHECK(all.size() == static_cast<std::size_t>(p), "{} ranks answered, expected {}", all.size(),
           p);
  std::vector<std::vector<SendDescriptor>> from(p);
  for (int a = 0; a < p; ++a) {
    std::vector<std::uint64_t> in(all[a].size() / sizeof(std::uint64_t));
    if (!in.empty()) std::memcpy(in.data(), all[a].data(), in.size() * sizeof(std::uint64_t));
    std::size_t at = 0;
    for (int b = 0; b < p; ++b) {
      CB_CHECK(at < in.size(), "rank {} sent a short descriptor list", a);
      const std::uint64_t n = in[at++];
      CB_CHECK(in.size() - at >= 3 * n, "rank {} sent a short descriptor list", a);
      if (b == s.rank)
        for (std::uint64_t k = 0; k < n; ++k)
          from[a].push_back({in[at + 3 * k], in[at + 3 * k + 1], in[at + 3 * k + 2]});
      at += 3 * n;
    }
  }
  return from;
}

}  // namespace

std::vector<bool> peers_of(const Schedule& s) {
  std::vector<bool> peers(static_cast<std::size_t>(s.p), false);
  for (const Step& step : s.steps) {
    for (const Send& send : step.sends) peers.at(send.peer) = true;
    for (const Recv& recv : step.recvs) peers.at(recv.peer) = true;
  }
  return peers;
}

// Long on purpose: compiles each step once, in execution order, so run() only replays it.
IpcExecutor::IpcExecutor(const Schedule& s, const BufferLayout& layout, Group& group,
                         WaitPolicy policy, DataMover& mover, const IpcMemory& mem)
    : rank_(s.rank), elem_size_(layout.elem_size), policy_(policy), mover_(mover), mem_(mem) {
  const int p = s.p;
  // Collective first, so that a failed check below cannot strand the peers in it.
  const auto from = exchange_send_descriptors(s, layout, group);
  CB_CHECK(s.total_steps == 0 || s.steps.size() == s.total_steps,
           "the IPC transport runs whole schedules, not windows ({} of {} steps)",
           s.steps.size(), s.total_steps);
  per_run_to_.assign(p, 0);
  per_run_from_.assign(p, 0);
  std::vector<std::size_t> next_from(p, 0);
  auto local_ptr = [&](const Region& r) { return mem.data + layout.offset_of(r); };

  steps_.resize(s.steps.size());
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& in = s.steps[i];
    CompiledStep& out = steps_[i];
    for (const Send& send : in.sends) {
      ++per_run_to_[send.peer];
      auto it = std::find_if(out.sends.begin(), out.sends.end(),
                             [&](const SendGroup& g) { return g.peer == send.peer; });
      if (it == out.sends.end()) out.sends.push_back({send.peer, 0});
    }
    for (SendGroup& g : out.sends) g.through = per_run_to_[g.peer];

    std::vector<std::pair<std::size_t, const std::byte*>> fused;  // (local op, peer source)
    for (std::size_t k = 0; k < in.recvs.size(); ++k) {
      const Recv& recv = in.recvs[k];
      const int a = recv.peer;
      CB_CHECK(next_from[a] < from[a].size(),
               "rank {} step {}: receive from rank {} has no matching send", rank_, i, a);
      const SendDescriptor& d = from[a][next_from[a]++];
      CB_CHECK(d[0] == s.first_step + i && d[2] == recv.dst.count,
               "rank {} step {}: receive of {} elements from rank {} pairs with its send of {} "
               "elements in step {}",
               rank_, i, recv.dst.count, a, d[2], d[0]);
      CB_CHECK(mem.peer_data.at(a) != nullptr, "rank {} has not mapped rank {}", rank_, a);
      ++per_run_from_[a];
      auto it = std::find_if(out.groups.begin(), out.groups.end(),
                             [&](const PeerGroup& g) { return g.peer == a; });
      if (it == out.groups.end()) {
        out.groups.push_back({a, 0, {}});
        it = out.groups.end() - 1;
      }
      const RecvOp op{mem.peer_data[a] + d[1], local_ptr(recv.dst), recv.dst.count};
      if (const auto local = fusable_local_reduce(s, i, k)) {
        fused.emplace_back(*local, op.src);  // the local reduce reads the sender's memory
        it->ack_after_locals = true;
      } else if (recv.mode == RecvMode::copy)
        it->copies.push_back(op);
      else
        out.reduces.push_back({static_cast<std::size_t>(it - out.groups.begin()), op});
    }
    for (PeerGroup& g : out.groups) {
      g.through = per_run_from_[g.peer];
      out.ack_after_locals = out.ack_after_locals || g.ack_after_locals;
    }

    // The compiled op (and whether it is the fused reduce's source) of each local.
    std::vector<std::pair<std::size_t, bool>> compiled(in.locals.size());
    for (std::size_t l = 0; l < in.locals.size(); ++l) {
      const Local& local = in.locals[l];
      compiled[l] = {out.locals.size(), false};
      out.locals.push_back({local.kind,
                            local.kind == LocalKind::average ? nullptr : local_ptr(local.src),
                            local_ptr(local.dst), local.dst.count});
      if (copy_then_reduce(in, l)) {
        ++l;  // the reduce joins the copy: dst = src op then
        compiled[l] = {out.locals.size() - 1, true};
        out.locals.back().then = local_ptr(in.locals[l].src);
      }
    }
    for (const auto& [local, peer_src] : fused) {
      LocalOp& op = out.locals[compiled[local].first];
      (compiled[local].second ? op.then : op.src) = peer_src;
    }
  }
  // Which reduce-receives write what a later send reads: the bytes of the
  // allocation that steps i+1 .. end send, gathered from the last step back.
  IntervalSet later;
  for (std::size_t i = s.steps.size(); i-- > 0;) {
    for (ReduceOp& r : steps_[i].reduces) {
      const auto begin = static_cast<std::size_t>(r.op.dst - mem.data);
      r.peer_reads = later.overlaps(begin, begin + r.op.count * elem_size_);
    }
    for (const Send& send : s.steps[i].sends) {
      const std::size_t begin = layout.offset_of(send.src);
      later.add(begin, begin + send.src.count * elem_size_);
    }
  }
  for (int a = 0; a < p; ++a)
    CB_CHECK(next_from[a] == from[a].size(), "rank {}: rank {} sends {} messages but {} are received",
             rank_, a, from[a].size(), next_from[a]);
}

void IpcExecutor::receive(CompiledStep& step, std::uint64_t run) {
  for (PeerGroup& g : step.groups) {
    g.copied = false;
    g.acked = false;
    g.reduces_left = 0;
  }
  for (const ReduceOp& r : step.reduces) ++step.groups[r.group].reduces_left;

  auto ready = [&](const PeerGroup& g) {
    return load_acquire(mem_.peer_control[g.peer].ready(rank_)) >=
           run * per_run_from_[g.peer] + g.through;
  };
  std::size_t next_reduce = 0;
  std::size_t acked = 0;
  // One poll: do whatever has become possible; true once every peer is acked.
  auto progress = [&] {
    bool moved = false;
    for (PeerGroup& g : step.groups) {
      if (g.copied || !ready(g)) continue;
      for (const RecvOp& op : g.copies) mover_.copy(op.dst, op.src, op.count * elem_size_);
      g.copied = true;
      moved = true;
    }
    // Reduce-receives strictly in list order: they may overlap each other.
    while (next_reduce < step.reduces.size() &&
           ready(step.groups[step.reduces[next_reduce].group])) {
      const ReduceOp& r = step.reduces[next_reduce++];
      if (r.peer_reads)
        mover_.reduce_for_peer(r.op.dst, r.op.src, r.op.count);
      else
        mover_.reduce(r.op.dst, r.op.src, r.op.count);
      --step.groups[r.group].reduces_left;
      moved = true;
    }
    if (!moved) return false;
    mover_.complete();  // the reads are done: the senders may reuse their sources
    for (PeerGroup& g : step.groups) {
      if (g.acked || !g.copied || g.reduces_left > 0) continue;
      // Fused groups are read again by the local ops: acked after them (run()).
      if (!g.ack_after_locals)
        store_release(mem_.control.ack(g.peer), run * per_run_from_[g.peer] + g.through);
      g.acked = true;
      ++acked;
    }
    return acked == step.groups.size();
  };
  // The watchdog names the first peer whose data has not arrived.
  const auto late_peer = [&] {
    for (const PeerGroup& g : step.groups)
      if (!ready(g)) return fmt::format("rank {} (its data for this step)", g.peer);
    return std::string("a peer");
  };
  if (!step.groups.empty()) poll_until(progress, policy_, late_peer);
}

void IpcExecutor::run() {
  const std::uint64_t run = runs_++;
  long index = 0;
  for (CompiledStep& step : steps_) {
    note_wait_step("ipc step", index++);
    for (const SendGroup& g : step.sends)
      store_release(mem_.control.ready(g.peer), run * per_run_to_[g.peer] + g.through);
    receive(step, run);
    for (const LocalOp& op : step.locals) {
      switch (op.kind) {
        case LocalKind::copy:
          if (op.then != nullptr)
            mover_.copy_reduce(op.dst, op.src, op.then, op.count, elem_size_);
          else
            mover_.copy(op.dst, op.src, op.count * elem_size_);
          break;
        case LocalKind::reduce: mover_.reduce(op.dst, op.src, op.count); break;
        case LocalKind::average: mover_.divide(op.dst, op.count); break;
      }
    }
    if (step.ack_after_locals) {
      mover_.complete();
      for (const PeerGroup& g : step.groups)
        if (g.ack_after_locals)
          store_release(mem_.control.ack(g.peer), run * per_run_from_[g.peer] + g.through);
    }
    for (const SendGroup& g : step.sends) {
      const std::uint64_t target = run * per_run_to_[g.peer] + g.through;
      const std::uint64_t* ack = mem_.peer_control[g.peer].ack(rank_);
      poll_until([&] { return load_acquire(ack) >= target; }, policy_,
                 [&] { return fmt::format("rank {} (to read this step's data)", g.peer); });
    }
    if (!step.locals.empty()) mover_.complete();
  }
}

}  // namespace cb::ipc
