"""INT, TERM and HUP to a launch's process group, to one rank, to a single
process, during IPC set-up, a long simulated phase, calibrate, map, plot and
report: each ends within 5 s of the signal with the "interrupted" line and
128 + signal (each rank's own status, from $COLLBENCH_EXIT_FILE: MPICH's
mpiexec returns 0 at random after a signal, harness/USAGE.md), whole rows
kept in FILE.partial, nothing else half-written."""
import glob
import json
import os
import signal
import time

import fixtures
from probelib import Case, common_problems, read

BOUND_S = 5
SIGS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP}


def lines_in(path):
    text = read(path)
    return 0 if text is None else text.count("\n")


def until_rows(ctx, d, file, rows, limit_s=120):
    return lambda proc: ctx.wait_for(lambda: lines_in(os.path.join(d, file)) >= rows, limit_s)


def after_signal(r, sig, *, line=True, exit_file=None, want_status=None):
    p = common_problems(r)
    if r.timed_out:
        return p
    took = r.after_action()
    if took > BOUND_S:
        p.append(f"ended {took:.1f} s after SIG{sig} (bound {BOUND_S} s)")
    n = SIGS[sig]
    if line and f"interrupted (signal {int(n)})" not in r.err:
        p.append(f"no 'interrupted (signal {int(n)})' line: {' | '.join(r.error_lines()[:2])[:200]}")
    for other in SIGS.values():
        if other != n and f"interrupted (signal {int(other)})" in r.err:
            p.append(f"reports signal {int(other)}, sent {int(n)}")
    if exit_file is not None:
        got = read(exit_file)
        if got != f"{128 + n}\n":
            p.append(f"rank 0's status {got!r}, want {128 + n}")
    if want_status is not None and r.status != want_status:
        p.append(f"exit {r.status}, want {want_status}")
    return p


def partial_rows(d, csv="r.csv", json_file=None, rows=1):
    p = []
    text = read(os.path.join(d, csv + ".partial"))
    if text is None:
        return [f"no {csv}.partial"]
    if not text.endswith("\n") or text.count("\n") < rows:
        p.append(f"{csv}.partial holds {text.count(chr(10))} lines, the last one cut")
    if os.path.exists(os.path.join(d, csv)):
        p.append(f"{csv} exists after an interrupted run")
    if json_file:
        j = read(os.path.join(d, json_file + ".partial"))
        try:
            doc = json.loads(j) if j is not None else None
        except ValueError:
            doc = "bad"
        if doc is None:
            p.append(f"no {json_file}.partial")
        elif doc == "bad" or doc.get("complete") is not False:
            p.append(f"{json_file}.partial is not whole JSON with complete=false")
    for f in glob.glob(os.path.join(d, "*.tmp*")) + glob.glob(os.path.join(d, ".*.tmp*")):
        p.append(f"left behind: {os.path.basename(f)}")
    return p


def shm_of():
    return set(glob.glob("/dev/shm/collbench-*"))


def cases(ctx):
    out = []
    if not ctx.mpiexec:
        return [Case("signals under mpiexec", None, skip="no mpiexec")]
    long_run = ["run", "--quiet", "-n", "20000", "-w", "0", "--algo", "ring,rhd", "-b", "8",
                "-e", "64K", "--placement", "out"]
    for sig in SIGS:
        def group(ctx, d, sig=sig):
            ex = os.path.join(d, "ex")
            argv = ctx.cb(*long_run, "--csv", os.path.join(d, "r.csv"), "--json",
                          os.path.join(d, "r.json"), ranks=2)

            def act(proc):
                if not until_rows(ctx, d, "r.csv.partial", 3)(proc):
                    return
                ctx.wait_for(lambda: os.path.exists(os.path.join(d, "r.json.partial")), 30)
                os.killpg(proc.pid, SIGS[sig])
            r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=150)
            # SIGHUP under mpiexec: Hydra's proxy SIGKILLs the ranks at once;
            # no line, no status (docs/reliability-cli.md). The rows stay.
            hup = sig == "HUP"
            return after_signal(r, sig, line=not hup, exit_file=None if hup else ex) + \
                partial_rows(d, json_file="r.json", rows=3)
        out.append(Case(f"SIG{sig} to mpiexec's process group (2 ranks, MPI)", group))

        def one_rank(ctx, d, sig=sig):
            ex = os.path.join(d, "ex")
            argv = ctx.cb(*long_run, "--csv", os.path.join(d, "r.csv"), ranks=2)

            def act(proc):
                if until_rows(ctx, d, "r.csv.partial", 3)(proc):
                    os.kill(ctx.rank_pid(1), SIGS[sig])
            r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=150)
            return after_signal(r, sig, exit_file=ex) + partial_rows(d, rows=3)
        out.append(Case(f"SIG{sig} to rank 1 only (2 ranks, MPI)", one_rank))

        def single(ctx, d, sig=sig):
            argv = ctx.cb(*long_run, "--csv", os.path.join(d, "r.csv"), "--json",
                          os.path.join(d, "r.json"))

            def act(proc):
                if until_rows(ctx, d, "r.csv.partial", 3)(proc):
                    os.kill(proc.pid, SIGS[sig])
            r = ctx.launch(argv, cwd=d, during=act, limit_s=150)
            return after_signal(r, sig, want_status=128 + SIGS[sig]) + \
                partial_rows(d, json_file="r.json", rows=3)
        out.append(Case(f"SIG{sig} to a single-rank run", single))

    def ipc_setup(ctx, d):
        before = shm_of()
        ex = os.path.join(d, "ex")
        argv = ctx.cb("run", "--quiet", "--transport", "ipc", "-n", "200", "-w", "0", "-b", "8",
                      "-e", "16M", "--algo", "ring", "--csv", os.path.join(d, "r.csv"), ranks=2)

        def act(proc):
            ctx.wait_for(lambda: ctx.rank_pid(1) > 0, 60)
            time.sleep(0.3)
            os.killpg(proc.pid, signal.SIGTERM)
        r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=120)
        p = after_signal(r, "TERM", line=False)
        if read(ex) not in (None, "143\n"):
            p.append(f"rank 0's status {read(ex)!r}, want 143")
        # New names whose creator is gone: other users' live runs excluded.
        mine = [s for s in shm_of() - before
                if not os.path.exists(f"/proc/{os.path.basename(s).split('-')[1]}")]
        if mine:
            p.append(f"left in /dev/shm: {', '.join(sorted(mine)[:3])}")
        return p
    out.append(Case("SIGTERM to the group during IPC set-up (2 ranks)", ipc_setup))

    def sim_phase(ctx, d):
        # --max-events above the default's 2e8: without it the configuration
        # is skipped as too large and the run ends before the signal.
        argv = ctx.cb("run", "--quiet", "--transport", "sim", "--ranks", "16384", "--sim-des",
                      "--max-events", "1e9", "--coll", "allreduce", "-b", "1M", "-e", "1M",
                      "--algo", "ring", "--placement", "out", "--csv", os.path.join(d, "s.csv"))

        def act(proc):
            time.sleep(2)
            os.kill(proc.pid, signal.SIGTERM)
        r = ctx.launch(argv, cwd=d, during=act, limit_s=60)
        return after_signal(r, "TERM", want_status=143)
    out.append(Case("SIGTERM during a long simulated configuration", sim_phase))

    def calibrate(ctx, d):
        ex = os.path.join(d, "ex")
        argv = ctx.cb("calibrate", "-e", "1M", "--out", os.path.join(d, "c.csv"), ranks=2)

        def act(proc):
            ctx.wait_for(lambda: ctx.rank_pid(1) > 0, 60)
            time.sleep(3)
            os.killpg(proc.pid, signal.SIGTERM)
        r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=120)
        p = after_signal(r, "TERM", exit_file=ex)
        if os.path.exists(os.path.join(d, "c.csv")):
            p.append("c.csv written by an interrupted calibrate")
        return p
    out.append(Case("SIGTERM to mpiexec -n 2 calibrate", calibrate))

    def map_run(ctx, d):
        argv = ctx.cb("map", "--quiet", "--ranks", "2..65536", "-b", "8", "-e", "1G", "--alpha",
                      "1us", "--beta", "1ns", "--gamma", "1ns", "--csv", os.path.join(d, "m.csv"))

        def act(proc):
            if until_rows(ctx, d, "m.csv.partial", 5)(proc):
                os.kill(proc.pid, signal.SIGINT)
        r = ctx.launch(argv, cwd=d, during=act, limit_s=120)
        return after_signal(r, "INT", want_status=130) + partial_rows(d, csv="m.csv", rows=5)
    out.append(Case("SIGINT during map", map_run))

    for cmd in ("plot", "report"):
        def python(ctx, d, cmd=cmd):
            import shutil
            study = os.path.join(d, "study")
            shutil.copytree(fixtures.study_dir(ctx), study)
            argv = ctx.cb(cmd, study)

            def act(proc):
                time.sleep(1.5)
                os.killpg(proc.pid, signal.SIGINT)
            r = ctx.launch(argv, cwd=d, during=act, limit_s=60)
            if r.acted_at is not None and r.status == 0 and r.after_action() < 0.2:
                return []  # finished before the signal
            p = common_problems(r)
            if r.after_action() > BOUND_S:
                p.append(f"ended {r.after_action():.1f} s after SIGINT")
            if r.status not in (130, 2):
                p.append(f"exit {r.status}, want 130")
            if len(r.error_lines()) > 1:
                p.append(f"{len(r.error_lines())} stderr lines: "
                         f"{' | '.join(r.error_lines()[:2])[:200]}")
            tmp = glob.glob(os.path.join(study, "**", "*.tmp*"), recursive=True) + \
                glob.glob(os.path.join(study, "**", ".*.tmp*"), recursive=True)
            if tmp:
                p.append(f"left behind: {os.path.basename(tmp[0])}")
            return p
        out.append(Case(f"SIGINT to the group during {cmd}", python))
    return out
