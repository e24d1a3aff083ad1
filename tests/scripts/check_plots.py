#!/usr/bin/python3
"""The plot test: renders every plot of a results directory with scripts/plot.py
and checks that a reader can read each one.

    check_plots.py RESULTS_DIR OUT_DIR [--expect NAME.png ...]

For every figure, just before it is saved (Figure.savefig is wrapped, so any
version of plot.py can be checked):
  - every visible axis has at least 3 labelled ticks inside its view;
  - no two pieces of text (titles, axis and tick labels, legend entries,
    annotations) overlap, by their drawn extents (get_window_extent).
For every PNG written: at most 2400 px wide (read from its header).
Prints one line per problem and exits 1 when there is any, 0 otherwise."""
import argparse
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

import plot  # noqa: E402
import script_main  # noqa: E402

MAX_WIDTH = 2400
MIN_TICKS = 3
problems = []


def texts_of(fig):
    """(label, Text) of every piece of text the figure draws."""
    out = []
    if fig._suptitle is not None:
        out.append(("suptitle", fig._suptitle))
    out += [("figure text", t) for t in fig.texts]
    for leg in fig.legends:
        out += [("legend", t) for t in leg.get_texts()] + [("legend title", leg.get_title())]
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        name = f"panel {i + 1} '{ax.get_title()}'"
        out += [(f"{name} title", t) for t in (ax.title, ax._left_title, ax._right_title)]
        out += [(f"{name} text", t) for t in ax.texts]
        leg = ax.get_legend()
        if leg is not None:
            out += [(f"{name} legend", t) for t in leg.get_texts()]
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            out.append((f"{name} {which} label", axis.label))
            out.append((f"{name} {which} offset", axis.get_offset_text()))
            lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
            for tick in axis.get_major_ticks():
                if lo * (1 - 1e-9) <= tick.get_loc() <= hi * (1 + 1e-9):
                    out.append((f"{name} {which} tick", tick.label1))
    seen, unique = set(), []
    for n, t in out:  # the suptitle is also among fig.texts
        if id(t) not in seen and t.get_visible() and t.get_text().strip():
            seen.add(id(t))
            unique.append((n, t))
    return unique


def check_ticks(fig, path):
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
            labelled = [t for t in axis.get_major_ticks()
                        if lo * (1 - 1e-9) <= t.get_loc() <= hi * (1 + 1e-9)
                        and t.label1.get_visible() and t.label1.get_text().strip()]
            if len(labelled) < MIN_TICKS:
                problems.append(f"{os.path.basename(path)}: panel {i + 1} '{ax.get_title()}': "
                                f"{which} axis has {len(labelled)} labelled tick(s), "
                                f"fewer than {MIN_TICKS}")


def check_overlaps(fig, path):
    renderer = fig.canvas.get_renderer()
    boxes = [(n, t.get_text(), t.get_window_extent(renderer)) for n, t in texts_of(fig)]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            (na, ta, a), (nb, tb, b) = boxes[i], boxes[j]
            # Touching edges are not an overlap: a pixel of tolerance.
            if (min(a.x1, b.x1) - max(a.x0, b.x0) > 1 and
                    min(a.y1, b.y1) - max(a.y0, b.y0) > 1):
                problems.append(f"{os.path.basename(path)}: text overlaps: {na} {ta!r} and "
                                f"{nb} {tb!r}")


def check_figure(fig, path):
    fig.canvas.draw()  # ticks, labels and extents as they will be saved
    check_ticks(fig, path)
    check_overlaps(fig, path)


def png_width(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">I", head[16:20])[0]


def main(argv):
    parser = argparse.ArgumentParser(prog="check_plots.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--expect", nargs="*", default=[],
                        help="PNG names that must be among those written")
    args = parser.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    savefig = Figure.savefig

    def checked_savefig(fig, fname, *a, **kw):
        name = fname if isinstance(fname, str) else getattr(fname, "name", "?")
        if isinstance(name, int):  # a file opened from a descriptor: its path
            name = os.readlink(f"/proc/self/fd/{name}")
        name = os.path.basename(name)
        if name.startswith(".") and ".tmp." in name:  # output_file's temporary
            name = name[1:name.index(".tmp.")]
        check_figure(fig, name)
        return savefig(fig, fname, *a, **kw)

    Figure.savefig = checked_savefig
    status = script_main.run("plot.py", plot.main, [args.results_dir, "--out", args.out_dir])
    if status != 0:
        print(f"check_plots.py: plot.py exited {status}")
        return 1
    names = sorted(n for n in os.listdir(args.out_dir) if n.endswith(".png"))
    for name in args.expect:
        if name not in names:
            problems.append(f"{name}: not written")
    for name in names:
        width = png_width(os.path.join(args.out_dir, name))
        if width > MAX_WIDTH:
            problems.append(f"{name}: {width} px wide, over {MAX_WIDTH}")
    for p in problems:
        print(p)
    print(f"check_plots.py: {len(names)} plots, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
