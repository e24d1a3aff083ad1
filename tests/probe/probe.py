#!/usr/bin/env python3
"""The hostile probe: collbench's commands, the PMPI library and testbed.sh
given bad values, hostile outputs and inputs, signals, rank-disagreeing
settings, concurrent runs and stopped peers; one line per case and a count
of misbehaving cases per family (docs/reliability.md, "The probe").

It only starts commands and checks what a user sees: the exit status, that a
refusal is one line on stderr naming the value, no Python traceback or
internal error, nothing half-written or clobbered, memory under a limit and
an end within a time bound. It computes no model rule.

  python3 tests/probe/probe.py [--build DIR] [--family NAME ...] [--list]

Exit status: 0 when no case misbehaves, 1 otherwise, 2 bad arguments.
"""
import argparse
import concurrent.futures
import importlib
import os
import shutil
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import fixtures  # noqa: E402
from probelib import Ctx  # noqa: E402

FAMILIES = ["cli", "outputs", "inputs", "signals", "pmpi_env", "testbed", "concurrency",
            "watchdog"]


def report(family, case, verdict_detail, bad, skipped):
    verdict, detail = verdict_detail
    print(f"{family:<12} {verdict:<10} {case.name}{': ' + detail if detail else ''}", flush=True)
    return bad + (verdict == "MISBEHAVES"), skipped + (verdict == "skip")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="meson build directory (default: build)")
    ap.add_argument("--family", action="append", choices=FAMILIES,
                    help="run only this family (repeatable; default: all)")
    ap.add_argument("--match", default="", help="run only cases whose name contains this")
    ap.add_argument("--list", action="store_true", help="list the cases, run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--jobs", type=int, default=6,
                    help="cases of one process run this many at a time (default 6)")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    binary = os.path.join(args.build, "harness", "collbench")
    if not os.access(binary, os.X_OK):
        print(f"probe: no collbench binary at {binary} (build first, or give --build)",
              file=sys.stderr)
        return 2
    # Scratch under /tmp, readable by the unprivileged user the read-only and
    # testbed cases run as when the probe runs as root.
    scratch = tempfile.mkdtemp(prefix="collbench-probe-")
    os.chmod(scratch, 0o755)
    ctx = Ctx(ROOT, os.path.abspath(args.build), scratch)
    totals = []
    started = time.monotonic()
    try:
        for family in args.family or FAMILIES:
            module = importlib.import_module(f"families.{family}")
            cases = [c for c in module.cases(ctx) if args.match in c.name]
            if args.list:
                for c in cases:
                    print(f"{family:<12} {c.name}")
                continue
            fixtures.prepare(ctx)
            bad = skipped = 0
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                # Parallel cases are submitted ahead; a serial case runs alone
                # once every case before it is done. Lines print in order.
                pending = []
                for c in cases:
                    if c.parallel:
                        pending.append((c, pool.submit(ctx.run_case, c)))
                        continue
                    for done, future in pending:
                        bad, skipped = report(family, done, future.result(), bad, skipped)
                    pending = []
                    bad, skipped = report(family, c, ctx.run_case(c), bad, skipped)
                for done, future in pending:
                    bad, skipped = report(family, done, future.result(), bad, skipped)
            totals.append((family, len(cases), bad, skipped))
    finally:
        ctx.cleanup()
        if args.keep:
            print(f"probe: scratch kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.list:
        return 0
    print(f"# probe summary ({time.monotonic() - started:.0f} s)")
    for family, n, bad, skipped in totals:
        print(f"# {family:<12} {n:4d} cases {bad:4d} misbehaving {skipped:4d} skipped")
    n_bad = sum(t[2] for t in totals)
    print(f"# {'total':<12} {sum(t[1] for t in totals):4d} cases {n_bad:4d} misbehaving")
    return 1 if n_bad else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
