"""How every collbench plot looks: one colour and marker per algorithm, size axes
with a labelled tick at every power of 4, time axes with at least three labels,
and panels wrapped into a grid no wider than MAX_WIDTH_PX (scripts/plot.py).
Needs matplotlib; imported once plot.py has loaded it."""
import math
import zlib

from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from results_csv import size_label, time_label

DPI = 110
# No figure wider than this: a reader's screen, and the plot test's limit.
MAX_WIDTH_PX = 2400
MAX_COLUMNS = 4
PANEL_W, PANEL_H = 4.6, 3.8  # inches per panel
LEGEND_W = 1.8  # inches to the right of the panels for the figure's legend

# One colour and marker per algorithm in every plot: "ring" is the same blue in
# the latency, bandwidth, winners, crossover and model plots of every run.
STYLE = {
    "ring": ("#1f77b4", "o"), "rhd": ("#ff7f0e", "s"), "butterfly": ("#2ca02c", "^"),
    "tree": ("#d62728", "v"), "dbtree": ("#9467bd", "D"), "naive": ("#8c564b", "P"),
    "ps": ("#e377c2", "X"), "bruck": ("#7f7f7f", "*"), "pairwise": ("#bcbd22", "h"),
    "mpi": ("#000000", "o"), "nccl": ("#17becf", "d"),
}
EXTRA = [("#aec7e8", "o"), ("#ffbb78", "s"), ("#98df8a", "^"), ("#ff9896", "v"),
         ("#c5b0d5", "D"), ("#c49c94", "P"), ("#f7b6d2", "X"), ("#dbdb8d", "h")]
BASELINES = ("mpi", "nccl")


def style(name):
    """(colour, marker) of an algorithm; a group of identical schedules ("ring=rhd")
    takes its first member's; names outside STYLE get a stable extra."""
    first = name.split("=")[0]
    return STYLE.get(first) or EXTRA[zlib.crc32(first.encode()) % len(EXTRA)]


def colour(name):
    return style(name)[0]


def sort_algorithms(names):
    """Schedules alphabetically, then the library baselines."""
    return sorted(set(names), key=lambda n: (n in BASELINES, n))


def grid(n):
    cols = min(n, MAX_COLUMNS)
    return math.ceil(n / cols), cols


def figure(plt, n_panels, legend=True, panel_w=PANEL_W, panel_h=PANEL_H):
    """A figure of n_panels panels wrapped into rows of at most MAX_COLUMNS, with room
    for one legend at the right; unused panels hidden."""
    nr, nc = grid(n_panels)
    width = min(panel_w * nc + (LEGEND_W if legend else 0.4), MAX_WIDTH_PX / DPI)
    fig, axes = plt.subplots(nr, nc, figsize=(width, panel_h * nr + 0.9), squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def labelled_ticks(ax, which):
    """The major ticks of one axis that carry a label inside its view."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    fmt = axis.get_major_formatter()
    locs = [v for v in axis.get_major_locator()() if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
    if hasattr(fmt, "set_locs"):
        fmt.set_locs(locs)
    return [v for v in locs if fmt(v)]


def powers(lo, hi, base, offset):
    """base^k * 2^offset inside [lo, hi]."""
    out = []
    k = math.floor(math.log(max(lo, 1e-300), base)) - 1
    while True:
        v = base ** k * 2 ** offset
        if v > hi * (1 + 1e-9):
            return out
        if v >= lo * (1 - 1e-9):
            out.append(v)
        k += 1


def size_axis(ax, axis="x", lo=None, hi=None):
    """A log size axis labelled in B/KiB/MiB at every power of 4 from 8 B (8, 32, 128,
    ...), or every power of 2 where the range holds fewer than three of those; the
    labels turn vertical when there are many, so they never touch."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    if lo is None:
        lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    lo, hi = max(lo, 1.0), max(hi, 2.0)
    ticks = powers(lo, hi, 4, 1)  # 4^k * 2: 8, 32, 128, ...
    if len(ticks) < 3:
        ticks = powers(lo, hi, 2, 0)
    if len(ticks) < 3:  # widen the view to three powers of 2 around the data
        mid = 2 ** round(math.log2(math.sqrt(lo * hi)))
        ticks = [mid / 2, mid, mid * 2]
        lo, hi = min(lo, mid / 2.5), max(hi, mid * 2.5)
    (ax.set_xlim if axis == "x" else ax.set_ylim)(lo, hi)
    target.set_major_locator(FixedLocator(ticks))
    target.set_major_formatter(FuncFormatter(lambda v, _pos=None: size_label(v)))
    target.set_minor_locator(NullLocator())
    if len(ticks) > 5:  # many labels side by side: vertical, so they never touch
        ax.tick_params(axis=axis, which="major", labelrotation=90 if axis == "x" else 0,
                       labelsize=7)


def time_axis(ax, axis="y", log=True):
    """A time axis (values in µs) labelled in ns/µs/ms/s with at least three labels."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    if log:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        target.set_minor_formatter(NullFormatter())
    target.set_major_formatter(FuncFormatter(time_label))
    if log:
        for subs in ((1.0,), (1.0, 2.0, 5.0), tuple(range(1, 10))):
            target.set_major_locator(LogLocator(base=10, subs=subs))
            if len(labelled_ticks(ax, axis)) >= 3:
                break
        if len(labelled_ticks(ax, axis)) < 3:  # under a factor of 2 wide: widen it
            lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
            (ax.set_ylim if axis == "y" else ax.set_xlim)(lo / 2, hi * 2)


def finish(plt, fig, title, handles=None, legend_title=None, ncol=1):
    """Suptitle, one legend for the figure to the right of the panels (never on the
    data), layout."""
    fig.suptitle(title, fontsize=10)
    right = 1.0
    if handles:
        # Room for the longest label (about 0.06 inch a character at 7 points),
        # taken from the panels when the figure is at its widest already.
        longest = max(len(h.get_label()) for h in handles)
        need = (0.5 + 0.062 * longest) * ncol
        width, height = fig.get_size_inches()
        if need > LEGEND_W:
            width = min(width + need - LEGEND_W, MAX_WIDTH_PX / DPI)
            fig.set_size_inches(width, height)
        right = 1 - need / width
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(right, 0.5), fontsize=7,
                   title=legend_title, title_fontsize=8, frameon=False, ncol=ncol)
    lines = title.count("\n") + 1
    top = 1 - (0.12 + 0.19 * lines) / fig.get_size_inches()[1]
    fig.tight_layout(rect=(0, 0, right, top))
