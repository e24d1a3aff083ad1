"""Runs side by side: two IPC runs (their shared-memory names must not
collide), two runs and two maps on one --csv (the second is refused, the
first completes), two fits and two plots into one directory (whole files)."""
import csv
import io
import os
import time

import fixtures
from probelib import Case, common_problems, read, refused, succeeded


def whole_csv(path):
    text = read(path)
    if text is None:
        return [f"{os.path.basename(path)} missing"]
    if not text.endswith("\n"):
        return [f"{os.path.basename(path)} cut short"]
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return [f"{os.path.basename(path)} has ragged rows"]
    return []


def side_by_side(ctx, argv_a, argv_b, d, delay_b=0.0, wait_a=None):
    """Starts a, then (after wait_a(), or delay_b) b in a thread; both results."""
    import threading
    results = {}

    def second(proc):
        if wait_a:
            wait_a()
        else:
            time.sleep(delay_b)
        results["b"] = ctx.launch(argv_b, cwd=d, limit_s=120)
    t = None

    def during(proc):
        nonlocal t
        t = threading.Thread(target=second, args=(proc,))
        t.start()
    results["a"] = ctx.launch(argv_a, cwd=d, during=during, limit_s=150)
    t.join()
    return results["a"], results["b"]


def cases(ctx):
    out = []
    if ctx.mpiexec:
        def two_ipc(ctx, d):
            args = ["run", "--quiet", "--transport", "ipc", "-n", "50", "-w", "0", "-b", "8",
                    "-e", "4K", "--algo", "ring,rhd", "--placement", "out"]
            a, b = side_by_side(ctx, ctx.cb(*args, "--csv", os.path.join(d, "a.csv"), ranks=2),
                                ctx.cb(*args, "--csv", os.path.join(d, "b.csv"), ranks=2), d)
            return succeeded(a, 150) + succeeded(b, 150) + whole_csv(os.path.join(d, "a.csv")) + \
                whole_csv(os.path.join(d, "b.csv"))
        out.append(Case("two IPC runs at once (2 ranks each)", two_ipc))

    run = ["run", "--quiet", "-w", "0", "--algo", "ring", "--placement", "out"]
    model = ["--alpha", "1us", "--beta", "1ns", "--gamma", "1ns"]
    # The first of a pair must still hold its lock when the second starts:
    # 3000 single-rank iterations per size took 0.6 s on an idle machine,
    # shorter than the second launch, which then ran after it (legitimately).
    pairs = {
        "two runs, one --csv": (run + ["-n", "60000", "-b", "8", "-e", "64K"],
                                run + ["-n", "2", "-b", "8", "-e", "8"], "r.csv"),
        "two maps, one --csv": (["map", "--quiet", "--ranks", "2..65536", "-b", "8", "-e", "16M",
                                 *model],
                                ["map", "--quiet", "--ranks", "2..4", "-b", "8", "-e", "64",
                                 *model], "r.csv"),
        "a map and a run, one --csv": (["map", "--quiet", "--ranks", "2..65536", "-b", "8", "-e",
                                        "16M", *model],
                                       run + ["-n", "2", "-b", "8", "-e", "8"], "r.csv"),
        "two runs, one --json": (run + ["-n", "60000", "-b", "8", "-e", "64K"],
                                 run + ["-n", "2", "-b", "8", "-e", "8"], "r.json"),
    }
    for name, (first, second, file) in pairs.items():
        def same(ctx, d, first=first, second=second, file=file):
            flag = "--json" if file.endswith(".json") else "--csv"
            path = os.path.join(d, file)
            a, b = side_by_side(
                ctx, ctx.cb(*first, flag, path), ctx.cb(*second, flag, path), d,
                wait_a=lambda: ctx.wait_for(lambda: os.path.exists(path + ".lock"), 60))
            p = refused(b, ["being written by another"]) + succeeded(a, 150)
            if flag == "--csv":
                p += whole_csv(path)
            return p
        out.append(Case(name, same))

    for name, args, files in (
            ("two fits into one --out", ["fit", "{results}", "--out", "{d}/o"],
             ["fit.csv", "predictions.csv"]),
            ("two recommends into one --out", ["recommend", "{results}", "--out", "{d}/o"],
             ["recommendations.csv", "winners.csv"]),
            ("two plots into one --out", ["plot", "{study}", "--out", "{d}/o"], [])):
        def two(ctx, d, args=args, files=files):
            argv = ctx.cb(*fixtures.expand(args, fixtures.placeholders(ctx, d)))
            a, b = side_by_side(ctx, argv, argv, d, delay_b=0.05)
            p = []
            for r in (a, b):
                if r.status != 0:
                    p += refused(r, ["another"], limit_s=120)
                else:
                    p += common_problems(r)
            for f in files:
                p += whole_csv(os.path.join(d, "o", f))
            left = [f for f in os.listdir(os.path.join(d, "o")) if ".tmp" in f] \
                if os.path.isdir(os.path.join(d, "o")) else []
            if left:
                p.append(f"left behind: {left[0]}")
            return p
        out.append(Case(name, two))
    return out
