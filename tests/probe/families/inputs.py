"""Hostile inputs for every file collbench reads: /dev/zero, a FIFO, a
directory, a missing file, binary bytes, an empty file, a file cut short,
NaN and inf cells, a 128 KiB field, 100 KB without a newline. Each must be
one line and exit 2, at once, within the memory limit."""
import os
import random
import shutil

import fixtures
from probelib import Case, common_problems, read, refused, write


def results_text(ctx):
    return read(fixtures.results_csv(ctx))


def with_cell(text, column, value, row=1):
    lines = text.split("\n")
    header = lines[0].split(",")
    i = header.index(column)
    cells = lines[row].split(",")
    cells[i] = value
    lines[row] = ",".join(cells)
    return "\n".join(lines)


def calibration_text(ctx):
    return read(ctx.calibration)


def contents(ctx, kind):
    """name -> (text or None for a special file, the special kind)."""
    rnd = random.Random(31)
    binary = bytes(rnd.randrange(256) for _ in range(65536))
    common = {
        "/dev/zero": (None, "zero"),
        "a FIFO": (None, "fifo"),
        "a directory": (None, "dir"),
        "a missing file": (None, "missing"),
        "binary bytes": (binary, "file"),
        "an empty file": ("", "file"),
        "100 KB without a newline": ("x" * 100000, "file"),
    }
    if kind == "results":
        text = results_text(ctx)
        common.update({
            "results cut mid-row": (text[:len(text) - 40], "file"),
            "a nan median": (with_cell(text, "time_median_us", "nan"), "file"),
            "an inf median": (with_cell(text, "time_median_us", "inf"), "file"),
            "ranks=1e300": (with_cell(text, "ranks", "1e300"), "file"),
            "a 128 KiB field": (with_cell(text, "algorithm", "x" * 131072), "file"),
            "a header only": (text.split("\n")[0] + "\n", "file"),
        })
    elif kind == "calibration":
        text = calibration_text(ctx)
        common.update({
            "calibration cut mid-number": (text[:-2], "file"),
            "alpha_s=nan": (with_cell(text, "alpha_s", "nan"), "file"),
            "alpha_s=inf": (with_cell(text, "alpha_s", "inf"), "file"),
            "alpha_s=-1": (with_cell(text, "alpha_s", "-1"), "file"),
            "beta_s_per_B=1e300": (with_cell(text, "beta_s_per_B", "1e300"), "file"),
            "a 128 KiB field": (with_cell(text, "host", "x" * 131072), "file"),
            "a header only": (text.split("\n")[0] + "\n", "file"),
        })
    elif kind == "json":
        common.update({
            "JSON cut short": ('{"collective=allreduce": {"comm_size<=4": ', "file"),
            "a JSON number": ("1e300\n", "file"),
            "a 128 KiB key": ('{"' + "x" * 131072 + '": {}}\n', "file"),
        })
    elif kind == "trace":
        common.update({
            "trace with nan": ("iteration,rank,delay_us\n0,0,nan\n0,1,0\n", "file"),
            "trace with 1e300": ("iteration,rank,delay_us\n0,0,1e300\n0,1,0\n", "file"),
            "trace cut short": ("iteration,rank,delay_us\n0,0,1", "file"),
        })
    return common


def place(path, content, special):
    if special == "zero":
        os.symlink("/dev/zero", path)
    elif special == "fifo":
        os.mkfifo(path)
    elif special == "dir":
        os.makedirs(path)
    elif special == "missing":
        pass
    else:
        write(path, content, "wb" if isinstance(content, bytes) else "w")


# reader name -> (kind, args with {f} the file, the file's name in d, time bound)
def readers():
    run = ["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8", "--algo", "ring",
           "--placement", "out"]
    return {
        "predict --params": ("calibration", ["predict", "--coll", "allreduce", "--ranks", "4",
                                             "-b", "8", "-e", "64", "--params", "{f}"], "in.csv"),
        "map --params": ("calibration", ["map", "--quiet", "--ranks", "2..4", "-b", "8", "-e",
                                         "64", "--params", "{f}", "--csv", "{d}/m.csv"],
                         "in.csv"),
        "sim --params": ("calibration", ["run", "--quiet", "--transport", "sim", "--ranks", "4",
                                         "-b", "8", "-e", "64", "--params", "{f}"], "in.csv"),
        "fit --calibration": ("calibration", ["fit", "{results}", "--calibration", "{f}", "--out",
                                              "{d}/fit"], "in.csv"),
        "recommend --calibration": ("calibration", ["recommend", "{results}", "--calibration",
                                                    "{f}"], "in.csv"),
        "fit": ("results", ["fit", "{f}", "--out", "{d}/fit"], "in.csv"),
        "compare NEW": ("results", ["compare", "{results}", "{f}"], "in.csv"),
        "compare BASE": ("results", ["compare", "{f}", "{results}"], "in.csv"),
        "recommend": ("results", ["recommend", "{f}"], "in.csv"),
        "run --resume": ("results", run + ["--resume", "--csv", "{d}/r.csv"], "r.csv.partial"),
        "plot": ("results", ["plot", "{f}", "--out", "{d}/plots"], "in.csv"),
        "fit --mpich-default": ("json", ["fit", "{results}", "--mpich-json", "--mpich-default",
                                         "{f}", "--out", "{d}/fit"], "in.json"),
        "run --arrival trace:": ("trace", run + ["--arrival", "trace:{f}"], "in.csv"),
    }


def cases(ctx):
    out = []
    for reader, (kind, args, fname) in readers().items():
        for what, (content, special) in contents(ctx, kind).items():
            if reader == "run --resume" and special == "missing":
                continue  # no .partial is a fresh start, not an input

            def run(ctx, d, args=args, fname=fname, content=content, special=special,
                    reader=reader, kind=kind, free_text=what == "a 128 KiB field"):
                f = os.path.join(d, fname)
                place(f, content, special)
                values = fixtures.placeholders(ctx, d)
                values["f"] = f
                argv = ctx.cb(*[a.format(**values) for a in args])
                python = reader == "plot"
                r = ctx.launch(argv, cwd=d, limit_s=120 if python else 60)
                bound = 60 if python else 20
                if reader == "run --resume" and r.status == 0:
                    # Documented: --resume keeps the whole, valid rows, says how
                    # many it dropped, and measures the rest again.
                    p = common_problems(r, limit_s=bound)
                    if "rows kept" not in r.err and "resum" not in r.err:
                        p.append("resumed without saying what it kept")
                    text = read(os.path.join(d, "r.csv")) or ""
                    if not text.endswith("\n"):
                        p.append("r.csv is not whole")
                    return p
                if free_text and not python and r.status == 0:
                    return common_problems(r, limit_s=bound)  # a long name is still a name
                return refused(r, [(fname, "/dev/zero")], limit_s=bound,
                               prefix=("collbench", "plot.py"))
            out.append(Case(f"{reader} on {what}", run, parallel=True))

    # report reads a study directory: its sweep CSV replaced.
    for what, (content, special) in contents(ctx, "results").items():
        if special in ("missing", "dir", "fifo"):
            continue

        def run(ctx, d, content=content, special=special):
            study = os.path.join(d, "study")
            shutil.copytree(fixtures.study_dir(ctx), study)
            f = os.path.join(study, "sweep-mpi.csv")
            os.unlink(f)
            place(f, content, special)
            r = ctx.launch(ctx.cb("report", study), cwd=d, limit_s=300)
            return refused(r, [("sweep-mpi.csv", "/dev/zero")], limit_s=120,
                           prefix=("collbench", "plot.py", "report.py"))
        out.append(Case(f"report on a study whose sweep-mpi.csv is {what}", run, parallel=True))
    return out
