#include "algorithms/fuse.hpp"

namespace cb {
namespace {

bool overlaps(const Region& a, const Region& b) {
  return a.buf == b.buf && a.count > 0 && b.count > 0 && a.offset < b.offset + b.count &&
         b.offset < a.offset + a.count;
}

// The part of X whose contents may still be read; shrinks as later ops
// overwrite it. Conservative: a write that splits it in two removes nothing.
struct Live {
  Region x;
  bool dead() const { return x.count == 0; }
  bool read(const Region& r) const { return overlaps(r, x); }
  void write(const Region& r) {
    if (r.buf != x.buf || r.count == 0) return;
    const std::size_t lo = x.offset, hi = x.offset + x.count;
    const std::size_t wlo = r.offset, whi = r.offset + r.count;
    if (wlo <= lo && whi >= hi) {
      x.count = 0;
    } else if (wlo <= lo && whi > lo) {
      x = {x.buf, whi, hi - whi};
    } else if (wlo < hi && whi >= hi) {
      x = {x.buf, lo, wlo - lo};
    }
  }
};

// Applies local op `l` to `live`; false when it reads live contents.
bool local_keeps_dead(const Local& l, Live& live) {
  switch (l.kind) {
    case LocalKind::copy:
      if (live.read(l.src)) return false;
      live.write(l.dst);
      return true;
    case LocalKind::reduce: return !live.read(l.src) && !live.read(l.dst);
    case LocalKind::average: return !live.read(l.dst);
  }
  return false;
}

// Whether X's contents are never read after local op `after` of step `step`.
bool dead_after(const Schedule& s, std::size_t step, std::size_t after, const Region& x) {
  Live live{x};
  const auto& first = s.steps[step].locals;
  for (std::size_t l = after + 1; l < first.size() && !live.dead(); ++l)
    if (!local_keeps_dead(first[l], live)) return false;
  for (std::size_t i = step + 1; i < s.steps.size() && !live.dead(); ++i) {
    const Step& st = s.steps[i];
    // Sends read at the start of the step, concurrently with the receives.
    for (const Send& send : st.sends)
      if (live.read(send.src)) return false;
    for (const Recv& r : st.recvs)
      if (r.mode == RecvMode::reduce && live.read(r.dst)) return false;
    for (const Recv& r : st.recvs)
      if (r.mode == RecvMode::copy) live.write(r.dst);
    for (const Local& l : st.locals)
      if (!live.dead() && !local_keeps_dead(l, live)) return false;
  }
  return true;  // scratch: its final contents are never observed
}

}  // namespace

std::optional<std::size_t> fusable_local_reduce(const Schedule& s, std::size_t step,
                                                std::size_t recv) {
  const Step& st = s.steps.at(step);
  const Recv& r = st.recvs.at(recv);
  if (r.mode != RecvMode::copy || r.dst.buf < kScratch0 || r.dst.count == 0) return std::nullopt;
  for (std::size_t l = 0; l < st.locals.size(); ++l) {
    const Local& local = st.locals[l];
    const bool touches = overlaps(local.dst, r.dst) ||
                         (local.kind != LocalKind::average && overlaps(local.src, r.dst));
    if (!touches) continue;
    // The first local op that touches X must be the reduce that consumes all of it.
    if (local.kind != LocalKind::reduce || !(local.src == r.dst) || overlaps(local.dst, r.dst))
      return std::nullopt;
    return dead_after(s, step, l, r.dst) ? std::optional<std::size_t>(l) : std::nullopt;
  }
  return std::nullopt;
}

bool copy_then_reduce(const Step& step, std::size_t local) {
  if (local + 1 >= step.locals.size()) return false;
  const Local& copy = step.locals[local];
  const Local& reduce = step.locals[local + 1];
  return copy.kind == LocalKind::copy && reduce.kind == LocalKind::reduce && copy.dst.count > 0 &&
         reduce.dst == copy.dst && !overlaps(reduce.src, copy.dst);
}

}  // namespace cb
