#include "transports/mpi/schedule_plan.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include "algorithms/check.hpp"
#include "transports/kernels/reduce.hpp"
#include "transports/mpi/wait.hpp"
#include "transports/watchdog.hpp"

namespace cb {

namespace {
// MPI guarantees MPI_TAG_UB >= 32767.
constexpr std::uint64_t kTagModulus = 32768;

MpiSchedulePlan::Ref ref_of(const Schedule& s, std::size_t elem, const Region& r) {
  CB_CHECK(r.offset + r.count <= s.buffer_count(r.buf),
           "region [{}, +{}) outside buffer {} of {} elements", r.offset, r.count, r.buf,
           s.buffer_count(r.buf));
  return {r.buf, r.offset * elem};
}
}  // namespace

MpiSchedulePlan plan_schedule(const Schedule& s) {
  MpiSchedulePlan plan;
  plan.dtype = s.dtype;
  plan.reduce_op = s.op == ReduceOp::avg ? ReduceOp::sum : s.op;
  plan.p = s.p;
  plan.elem = element_size(s.dtype);
  const std::size_t elem = plan.elem;
  for (std::size_t n : s.scratch_counts) plan.scratch_bytes.push_back(n * elem);
  const BufferId staging = plan.staging_slot();
  const auto note_write = [&](const Region& r) {
    if (r.buf == kInput && !s.in_place) plan.writes_input = true;
  };

  plan.steps.reserve(s.steps.size());
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& step = s.steps[i];
    MpiSchedulePlan::PlannedStep out;
    out.tag = static_cast<int>((s.first_step + i) % kTagModulus);
    std::size_t staged = 0;  // bytes
    // Zero-element messages are skipped on both sides: matched messages have
    // equal counts, so both ends agree on which ones exist.
    for (const Recv& r : step.recvs) {
      if (r.dst.count == 0) continue;
      note_write(r.dst);
      const MpiSchedulePlan::Ref dst = ref_of(s, elem, r.dst);
      const std::size_t bytes = r.dst.count * elem;
      if (r.mode == RecvMode::copy) {
        out.posts.push_back({dst, static_cast<MPI_Count>(bytes), r.peer, false});
      } else {
        const MpiSchedulePlan::Ref stage{staging, staged};
        staged += bytes;
        out.posts.push_back({stage, static_cast<MPI_Count>(bytes), r.peer, false});
        out.reduces.push_back({dst, stage, r.dst.count});
      }
    }
    for (const Send& snd : step.sends) {
      if (snd.src.count == 0) continue;
      out.posts.push_back({ref_of(s, elem, snd.src), static_cast<MPI_Count>(snd.src.count * elem),
                           snd.peer, true});
    }
    for (const Local& l : step.locals) {
      if (l.dst.count == 0) continue;
      note_write(l.dst);
      const MpiSchedulePlan::Ref src =
          l.kind == LocalKind::average ? MpiSchedulePlan::Ref{kInput, 0} : ref_of(s, elem, l.src);
      out.locals.push_back({l.kind, ref_of(s, elem, l.dst), src, l.dst.count});
    }
    const std::size_t sends = static_cast<std::size_t>(
        std::count_if(out.posts.begin(), out.posts.end(), [](const auto& p) { return p.is_send; }));
    out.one_exchange = sends <= 1 && out.posts.size() - sends <= 1 && !out.posts.empty();
    plan.staging_bytes = std::max(plan.staging_bytes, staged);
    plan.max_posts = std::max(plan.max_posts, out.posts.size());
    plan.steps.push_back(std::move(out));
  }
  return plan;
}

namespace {

// The step's messages as blocking calls: one MPI_Sendrecv, MPI_Recv or
// MPI_Send. Only for steps of at most one receive and one send (posts holds
// the receive first), and only where a wait may block (see run_plan).
template <class At>
void exchange_blocking(const MpiSchedulePlan::PlannedStep& step, const At& at, MPI_Comm comm) {
  const std::vector<MpiSchedulePlan::Post>& posts = step.posts;
  if (posts.size() == 2) {
    const MpiSchedulePlan::Post& recv = posts[0];
    const MpiSchedulePlan::Post& send = posts[1];
    check_mpi(MPI_Sendrecv_c(at(send.addr), send.bytes, MPI_BYTE, send.peer, step.tag,
                             at(recv.addr), recv.bytes, MPI_BYTE, recv.peer, step.tag, comm,
                             MPI_STATUS_IGNORE),
              "MPI_Sendrecv_c");
  } else if (posts[0].is_send) {
    check_mpi(MPI_Send_c(at(posts[0].addr), posts[0].bytes, MPI_BYTE, posts[0].peer, step.tag,
                         comm),
              "MPI_Send_c");
  } else {
    check_mpi(MPI_Recv_c(at(posts[0].addr), posts[0].bytes, MPI_BYTE, posts[0].peer, step.tag,
                         comm, MPI_STATUS_IGNORE),
              "MPI_Recv_c");
  }
}

}  // namespace

void run_plan(const MpiSchedulePlan& plan, std::span<std::byte* const> bases, MPI_Comm comm,
              WaitPolicy wait, std::span<MPI_Request> requests) {
  const auto at = [&](MpiSchedulePlan::Ref r) { return bases[r.slot] + r.byte_offset; };
  // Blocking calls busy-poll inside MPI and cannot be bounded, so only a
  // spinning wait without a watchdog may use them (wait_all's own rule).
  const bool may_block =
      (wait == WaitPolicy::spin || wait == WaitPolicy::automatic) && wait_timeout() <= 0;
  // Built once, not per step: it names the peer only when a watchdog expires.
  const MpiSchedulePlan::PlannedStep* current = nullptr;
  const std::function<int(std::size_t)> peer_of = [&current](std::size_t i) {
    return current->posts[i].peer;
  };
  long index = 0;
  for (const MpiSchedulePlan::PlannedStep& step : plan.steps) {
    note_wait_step("schedule step", index++);
    const std::size_t n = step.posts.size();
    if (may_block && step.one_exchange) {
      exchange_blocking(step, at, comm);
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const MpiSchedulePlan::Post& post = step.posts[i];
        const int rc = post.is_send ? MPI_Isend_c(at(post.addr), post.bytes, MPI_BYTE, post.peer,
                                                  step.tag, comm, &requests[i])
                                    : MPI_Irecv_c(at(post.addr), post.bytes, MPI_BYTE, post.peer,
                                                  step.tag, comm, &requests[i]);
        check_mpi(rc, post.is_send ? "MPI_Isend_c" : "MPI_Irecv_c");
      }
      current = &step;
      wait_all(requests.first(n), wait, peer_of);
    }
    for (const MpiSchedulePlan::Apply& a : step.reduces)
      reduce_inplace(plan.dtype, plan.reduce_op, at(a.dst), at(a.src), a.count);
    for (const MpiSchedulePlan::LocalOp& l : step.locals) {
      switch (l.kind) {
        case LocalKind::copy:
          std::memmove(at(l.dst), at(l.src), l.count * plan.elem);
          break;
        case LocalKind::reduce:
          reduce_inplace(plan.dtype, plan.reduce_op, at(l.dst), at(l.src), l.count);
          break;
        case LocalKind::average:
          divide_inplace(plan.dtype, at(l.dst), l.count, plan.p);
          break;
      }
    }
  }
}

}  // namespace cb
