"""Reading collbench's CSVs, shared by plot.py and report.py (no matplotlib here).

Every problem with an input is an InputError whose message is one line naming
the file and what is wrong; the scripts print it and exit 1.
"""
import csv
import os

# Columns each reader needs (harness/report/CSV.md; collbench fit and map write the others).
SWEEP_COLUMNS = ["transport", "collective", "algorithm", "datatype", "op", "placement",
                 "ranks", "bytes", "time_median_us", "ci_lo_us", "ci_hi_us", "busbw_GBps"]
PREDICTION_COLUMNS = ["transport", "collective", "algorithm", "ranks", "bytes",
                      "measured_s", "predicted_s", "rel_err", "params"]
MAP_COLUMNS = ["collective", "ranks", "bytes", "algorithm", "time_s", "best_algorithm", "margin"]
FIT_COLUMNS = ["scope", "transport", "alpha_s", "beta_s_per_B", "gamma_s_per_B"]


class InputError(Exception):
    pass


def header_of(path):
    with open(path, newline="") as f:
        return next(csv.reader(f), [])


def read_csv(path, required):
    """Rows of `path` as dicts; InputError when missing, short of a column or empty."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: missing (run the study or collbench first)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(f"{path}: malformed, missing column(s) {', '.join(missing)}")
        rows = list(reader)
    if not rows:
        raise InputError(f"{path}: malformed, no data rows")
    for i, row in enumerate(rows, start=2):
        for c in required:
            if row[c] is None:
                raise InputError(f"{path}:{i}: malformed, row has too few fields")
        row["_path"] = path
    return rows


def num(path, row, column):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{path}: malformed, column {column} holds '{row[column]}', not a number")


def size_label(b, _pos=None):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


def time_label(us, _pos=None):
    if us >= 1e6:
        return f"{us / 1e6:g} s"
    if us >= 1e3:
        return f"{us / 1e3:g} ms"
    if us >= 1:
        return f"{us:g} µs"
    return f"{us * 1e3:g} ns"


def kind_of(path):
    """'sweep', 'map' or None: what a CSV holds, judged by its header."""
    header = set(header_of(path))
    if set(SWEEP_COLUMNS) <= header:
        return "sweep"
    if set(MAP_COLUMNS) <= header:
        return "map"
    return None


def find_sweeps(directory):
    """A study's sweep-*.csv; in any other directory every results CSV."""
    names = sorted(f for f in os.listdir(directory) if f.endswith(".csv"))
    study = [n for n in names if n.startswith("sweep-")]
    if study:
        return [os.path.join(directory, n) for n in study]
    return [os.path.join(directory, n) for n in names
            if kind_of(os.path.join(directory, n)) == "sweep"]


def find_maps(directory):
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if n.startswith("map-") and n.endswith(".csv")]


def load_sweeps(directory):
    paths = find_sweeps(directory)
    if not paths:
        raise InputError(f"{directory}: no sweep-*.csv found (nothing to plot)")
    return load_sweep_files(paths)


def load_sweep_files(paths):
    rows = []
    for path in paths:
        # A skipped simulated case (its `note` says why) has no time to plot.
        rows += [r for r in read_csv(path, SWEEP_COLUMNS)
                 if r["time_median_us"] or not r.get("note")]
    return rows


def load_predictions(directory):
    """fit/predictions.csv of a study, or [] when the directory has no fit."""
    path = os.path.join(directory, "fit", "predictions.csv")
    if not os.path.exists(path):
        return []
    return read_csv(path, PREDICTION_COLUMNS)


def load_fit_params(directory):
    """{(scope, transport): (alpha_s, beta_s_per_B, gamma_s_per_B)} of fit/fit.csv's
    global and calibration rows ({} without a fit); None for a parameter not identified."""
    path = os.path.join(directory, "fit", "fit.csv")
    if not os.path.exists(path):
        return {}
    out = {}
    for r in read_csv(path, FIT_COLUMNS):
        if r["scope"] in ("global", "calibration"):
            out[(r["scope"], r["transport"])] = tuple(
                float(r[c]) if r[c] not in ("", None) else None
                for c in ("alpha_s", "beta_s_per_B", "gamma_s_per_B"))
    return out


def memcpy_ceiling(directory):
    """{label: GB/s} of the memcpy bandwidths calibrate measured (may be empty)."""
    path = os.path.join(directory, "calibration.csv")
    lines = {}
    if not os.path.isfile(path):
        return lines
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("memcpy_in_cache_GBps"):
                lines["memcpy in cache"] = float(row["memcpy_in_cache_GBps"])
            if row.get("memcpy_GBps"):
                lines["memcpy out of cache"] = float(row["memcpy_GBps"])
    return lines


def params_text(alpha, beta, gamma):
    """'α 0.47 µs, 1/β 8.0 GB/s, 1/γ 38 GB/s' (a parameter that is None or 0 says so)."""
    def bw(v):
        return f"{1 / v / 1e9:.3g} GB/s" if v else "∞"
    a = f"{alpha * 1e6:.3g} µs" if alpha is not None else "?"
    return f"α {a}, 1/β {bw(beta)}, 1/γ {bw(gamma)}"
