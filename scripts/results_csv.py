"""Reading collbench's CSVs, shared by plot.py and report.py (no matplotlib here).

Every problem with an input is an InputError whose message is one line naming
the file and what is wrong; the scripts print it and exit 2, as the C++ CLI
does for bad input (harness/cli/commands.hpp). Numeric columns are checked
when a file is read (a finite number, a whole rank count in range), so no
later conversion can fail on a malformed cell.
"""
import csv
import io
import math
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


# The largest rank count a row may claim: MPI's ranks are C ints.
MAX_RANKS = 2**31 - 1
# A cell is a number, a name or a short list; collbench writes none near this.
MAX_FIELD = 4096
# Numeric columns checked on read, by what they must hold: "ranks" a whole
# number 1..MAX_RANKS in digits, "whole" a whole number >= 0 in digits, "size"
# a finite number > 0, "time" a finite number >= 0, "number" any finite number
# (an empty cell passes: "no value", e.g. a skipped case or a missing CI).
NUMERIC = {"ranks": "ranks", "bytes": "size", "count": "size", "from_bytes": "size",
           "to_bytes": "size", "time_median_us": "time", "time_min_us": "time",
           "ci_lo_us": "time", "ci_hi_us": "time", "busbw_GBps": "time", "measured_s": "time",
           "predicted_s": "time", "time_s": "time", "margin": "number", "rel_err": "number",
           "time_us": "time", "library_time_us": "time", "speedup_vs_library": "time",
           "predicted_crossover_B": "size", "measured_crossover_B": "size",
           "wrong": "whole", "procs_running": "whole", "load_avg_1m": "time",
           "picks": "whole", "picks_right": "whole", "points": "whole",
           "median_abs_err_large": "time", "median_abs_err_small": "time",
           "worst_collective_median_abs_err": "time", "median_regret": "number",
           "memcpy_GBps": "time", "memcpy_in_cache_GBps": "time",
           **{f"{p}{s}": "number" for p in ("alpha_s", "beta_s_per_B", "gamma_s_per_B")
              for s in ("", "_lo", "_hi")}}


def shown(text, limit=40):
    """A cell as an error message quotes it: at most `limit` characters, one line."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_cell(path, line, column, value):
    kind = NUMERIC.get(column)
    if kind is None or value in ("", None):
        return
    try:
        v = float(value)
    except ValueError:
        raise InputError(f"{path}:{line}: malformed, column {column} holds '{shown(value)}', "
                         "not a number")
    if not math.isfinite(v):
        raise InputError(f"{path}:{line}: malformed, column {column} holds '{shown(value)}', "
                         "not a finite number")
    if kind == "ranks" and (not value.strip().isdigit() or not 1 <= v <= MAX_RANKS):
        raise InputError(f"{path}:{line}: malformed, column ranks holds '{shown(value)}', not a "
                         f"whole number of ranks from 1 to {MAX_RANKS}")
    if kind == "whole" and not value.strip().isdigit():
        raise InputError(f"{path}:{line}: malformed, column {column} holds '{shown(value)}', "
                         "not a whole number")
    if kind == "size" and v <= 0:
        raise InputError(f"{path}:{line}: malformed, column {column} holds '{shown(value)}', "
                         "not a size > 0")
    if kind == "time" and v < 0:
        raise InputError(f"{path}:{line}: malformed, column {column} holds '{shown(value)}', "
                         "not a value >= 0")


def rows_of(path):
    """(header, rows as dicts with their line numbers) of a CSV; InputError for a file that
    is not readable text CSV (binary, not UTF-8, a NUL byte, an overlong field)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
        # collbench ends every line with its newline: a last line without one
        # was cut short (a full disk, a copy interrupted), perhaps mid-number.
        if text and not text.endswith("\n"):
            raise InputError(f"{path}: the last line has no newline: the file was cut short "
                             "(collbench writes whole lines); write it again")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames or []
        rows = []
        for row in reader:
            row["_line"] = reader.line_num
            rows.append(row)
        return header, rows
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV file collbench wrote ({shown(e)})")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")


def header_of(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return next(csv.reader(f), [])
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV file collbench wrote ({shown(e)})")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")


def read_csv(path, required, empty_ok=False):
    """Rows of `path` as dicts; InputError when missing, not a CSV, short of a column,
    empty (unless empty_ok: a header alone is no rows), or holding a bad number in a
    column of NUMERIC."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: missing (run the study or collbench first)")
    header, rows = rows_of(path)
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: malformed, missing column(s) {', '.join(missing)}")
    if not rows and not empty_ok:
        raise InputError(f"{path}: malformed, no data rows")
    for row in rows:
        i = row["_line"]
        for c in required:
            if row[c] is None:
                raise InputError(f"{path}:{i}: malformed, row has too few fields")
        for c, v in row.items():
            if isinstance(v, str) and len(v) > MAX_FIELD:
                raise InputError(f"{path}:{i}: malformed, column {c} holds {len(v)} characters "
                                 f"(at most {MAX_FIELD})")
            if c in NUMERIC:
                check_cell(path, i, c, v)
        row["_path"] = path
    return rows


def num(path, row, column):
    """A numeric cell as float (read_csv has checked the columns of NUMERIC)."""
    try:
        v = float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{path}: malformed, column {column} holds '{shown(row[column])}', "
                         "not a number")
    if not math.isfinite(v):
        raise InputError(f"{path}: malformed, column {column} holds '{shown(row[column])}', "
                         "not a finite number")
    return v


def size_label(b, _pos=None, digits=4):
    """Bytes in B/KiB/MiB/GiB to `digits` significant digits (also a matplotlib formatter)."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:.{digits}g} {unit}"
    return f"{b:.{digits}g} B"


# The size bands of the model's error, by the columns of `collbench fit`'s CSVs
# that hold their edges in bytes (accuracy.csv: large_from_B; errors.csv: all
# three; the edges are models/targets.hpp's).
BAND_EDGES = ("large_from_B", "mid_to_B", "top_from_B")


def band_labels(path, row):
    """The bands a row of a fit CSV holds, as the reports name them: "large", the
    edge from which an error counts as large ("64 KiB"), and where the row has
    all three edges the sign's bands "mid" ("64 KiB–1 MiB") and "top" ("≥ 2 MiB").
    The reports show the fit's split, never their own."""
    edge = [size_label(num(path, row, c)) for c in BAND_EDGES if c in row]
    out = {"large": edge[0]}
    if len(edge) == 3:
        out.update(mid=f"{edge[0]}–{edge[1]}", top=f"≥ {edge[2]}")
    return out


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
                num(path, r, c) if r[c] not in ("", None) else None
                for c in ("alpha_s", "beta_s_per_B", "gamma_s_per_B"))
    return out


def memcpy_ceiling(directory):
    """{label: GB/s} of the memcpy bandwidths calibrate measured (may be empty)."""
    path = os.path.join(directory, "calibration.csv")
    lines = {}
    if not os.path.isfile(path):
        return lines
    for row in read_csv(path, []):
        if row.get("memcpy_in_cache_GBps"):
            lines["memcpy in cache"] = num(path, row, "memcpy_in_cache_GBps")
        if row.get("memcpy_GBps"):
            lines["memcpy out of cache"] = num(path, row, "memcpy_GBps")
    return lines


def seconds_text(s):
    """A latency in µs below 1 ms, else ms, 3 significant digits."""
    return f"{s * 1e6:.3g} µs" if abs(s) < 1e-3 else f"{s * 1e3:.3g} ms"


def rate_text(bytes_per_s):
    """A bandwidth in MB/s below 1 GB/s, else GB/s, 3 significant digits."""
    if bytes_per_s < 1e9:
        return f"{bytes_per_s / 1e6:.3g} MB/s"
    return f"{bytes_per_s / 1e9:.3g} GB/s"


def params_text(alpha, beta, gamma):
    """'α 0.47 µs, 1/β 8 GB/s, 1/γ 38 GB/s' (a parameter that is None or 0 says so)."""
    def bw(v):
        return rate_text(1 / v) if v else "∞"
    a = seconds_text(alpha) if alpha is not None else "?"
    return f"α {a}, 1/β {bw(beta)}, 1/γ {bw(gamma)}"
