#!/usr/bin/env python3
"""The sizes at which to measure again so that each measured crossover is
placed more finely.

    refine_sizes.py SETTING_DIR FIT_DIR [MAX_BYTES]

A crossover on the sweep's x4 grid is interpolated between sizes 4x apart,
the same factor as the 2x target it is judged by. For every pair that
crosses (FIT_DIR/crossovers.csv, as `collbench fit` separates them), this
takes the sizes between which the two algorithms' CIs leave the crossing
(crossover_interval) and prints, per collective and rank count, the
power-of-two midpoints of every gap wider than 2x inside them, up to
MAX_BYTES (default 2 MiB: at 8 MiB one sample of every algorithm costs
minutes on these links). One line each, `COLLECTIVE RANKS MIN MAX`: the
sweep's grid is 16 B x 4^k, so the midpoints are its odd powers of two and
`-b MIN -e MAX -f 4` measures exactly those in between.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import common_sizes, measured_times, read_csv  # noqa: E402


def crossover_interval(meas, c, p, group_a, group_b, m):
    """Where the measurement places a crossover at m: (lo, hi, ties), lo the
    last measured size below m and hi the first above it at which the two
    algorithms' 95% CIs (ci_lo_us, ci_hi_us) are separated, ties the sizes
    between them where the intervals overlap. The CSV says nothing finer:
    anywhere in [lo, hi] the two could cross. A group (ps=tree) is measured
    by its first member, as fit pairs it."""
    a, b = group_a.split("=")[0], group_b.split("=")[0]
    sizes = common_sizes(meas, c, p, a, b)

    def separated(s):
        (_, alo, ahi), (_, blo, bhi) = meas[(c, p, s, a)], meas[(c, p, s, b)]
        return ahi < blo or bhi < alo

    below = [s for s in sizes if s < m and separated(s)]
    above = [s for s in sizes if s > m and separated(s)]
    if not below or not above:
        return None
    lo, hi = below[-1], above[0]
    return lo, hi, [s for s in sizes if lo < s < hi]


def nominal(size):
    """The power of two a measured size stands for: at p = 3 and 6 a size is
    rounded down to whole elements per rank (262140 for 256 KiB)."""
    return 2 ** round(math.log2(size))


def midpoints(sizes, lo, hi, max_bytes):
    """Power-of-two midpoints of the gaps wider than 2x between consecutive
    sizes in [lo, hi]."""
    inside = [nominal(s) for s in sizes if lo <= s <= hi]
    out = set()
    for a, b in zip(inside, inside[1:]):
        if b > 2 * a:
            m = 2 ** round((math.log2(a) + math.log2(b)) / 2)
            if m <= max_bytes:
                out.add(m)
    return out


def main():
    def usage(why):
        print(f"refine_sizes.py: {why} (usage: refine_sizes.py SETTING_DIR FIT_DIR [MAX_BYTES])",
              file=sys.stderr)
        sys.exit(2)

    if len(sys.argv) not in (3, 4):
        usage("needs SETTING_DIR and FIT_DIR")
    d, fit_dir = sys.argv[1], sys.argv[2]
    for path in (os.path.join(d, "sweep.csv"), os.path.join(fit_dir, "crossovers.csv")):
        if not os.path.isfile(path):
            usage(f"'{path}' does not exist")
    if len(sys.argv) == 4 and not sys.argv[3].isdigit():
        usage(f"MAX_BYTES '{sys.argv[3]}' is not a byte count")
    max_bytes = int(sys.argv[3]) if len(sys.argv) == 4 else 2 << 20
    meas = measured_times(read_csv(os.path.join(d, "sweep.csv")))
    wanted = {}
    for r in read_csv(os.path.join(fit_dir, "crossovers.csv")):
        if r["kind"] != "pair" or not r["measured_crossover_B"]:
            continue
        c, p = r["collective"], int(r["ranks"])
        iv = crossover_interval(meas, c, p, r["algo_a"], r["algo_b"],
                                float(r["measured_crossover_B"]))
        if iv is None:
            continue
        sizes = sorted({s for (cc, pp, s, _) in meas if cc == c and pp == p})
        wanted.setdefault((c, p), set()).update(midpoints(sizes, iv[0], iv[1], max_bytes))
    for (c, p), ms in sorted(wanted.items()):
        if ms:
            print(c, p, min(ms), max(ms))


if __name__ == "__main__":
    main()
