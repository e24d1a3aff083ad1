"""A rank stopped with SIGSTOP during start-up and mid-run, over MPI and IPC,
in the mpi baseline and in calibrate, under --timeout: the waiting rank
says "watchdog" and ends with status 5 (its own, from
$COLLBENCH_EXIT_FILE) within the timeout and a few seconds; rows kept."""
import os
import signal
import time

from probelib import Case, common_problems, read

TIMEOUT_S = 3
SLACK_S = 12  # mpiexec's teardown of the stopped rank on a loaded machine


def lines_in(path):
    text = read(path)
    return 0 if text is None else text.count("\n")


def expect_watchdog(r, ex, stopped_at):
    p = common_problems(r)
    if r.timed_out:
        return p
    if stopped_at is None:
        return p + ["the rank to stop was never found"]
    took = r.ended_at - stopped_at
    if took > TIMEOUT_S + SLACK_S:
        p.append(f"ended {took:.1f} s after the stop (--timeout {TIMEOUT_S})")
    if "watchdog" not in r.err:
        p.append(f"no watchdog line: {' | '.join(r.error_lines()[:2])[:200]}")
    if read(ex) != "5\n":
        p.append(f"rank 0's status {read(ex)!r}, want 5")
    if r.status == 0:
        p.append("mpiexec exited 0")
    return p


def cases(ctx):
    if not ctx.mpiexec:
        return [Case("watchdog under mpiexec", None, skip="no mpiexec")]
    out = []
    run = ["run", "--quiet", "--timeout", str(TIMEOUT_S), "-w", "0", "--algo", "ring",
           "--placement", "out"]
    for transport in ("mpi", "ipc"):
        def startup(ctx, d, transport=transport):
            ex = os.path.join(d, "ex")
            stopped = []

            def act(proc):
                if ctx.wait_for(lambda: ctx.rank_pid(1) > 0, 60, step=0.005):
                    time.sleep(0.1)
                    os.kill(ctx.rank_pid(1), signal.SIGSTOP)
                    stopped.append(time.monotonic())
            argv = ctx.cb(*run, "-n", "2", "-b", "8", "-e", "8", "--transport", transport,
                          "--csv", os.path.join(d, "r.csv"), ranks=2)
            r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=90)
            return expect_watchdog(r, ex, stopped[0] if stopped else None)
        out.append(Case(f"rank 1 stopped 0.1 s into start-up ({transport})", startup))

        def midrun(ctx, d, transport=transport):
            ex = os.path.join(d, "ex")
            stopped = []

            def act(proc):
                if ctx.wait_for(lambda: lines_in(os.path.join(d, "r.csv.partial")) >= 2, 120):
                    os.kill(ctx.rank_pid(1), signal.SIGSTOP)
                    stopped.append(time.monotonic())
            # A time budget, not an iteration count: at load 12, 20000 IPC
            # iterations of the first size took 100 s (yield-waiting ranks),
            # past the wait for the first row; the budget bounds each row.
            argv = ctx.cb(*run, "-n", "0", "--time-budget", "1", "-b", "8", "-e", "64K",
                          "--transport", transport, "--csv", os.path.join(d, "r.csv"), ranks=2)
            r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=150)
            p = expect_watchdog(r, ex, stopped[0] if stopped else None)
            if lines_in(os.path.join(d, "r.csv.partial")) < 2:
                p.append("rows lost")
            return p
        out.append(Case(f"rank 1 stopped mid-run ({transport})", midrun))

    def baseline(ctx, d):
        ex = os.path.join(d, "ex")
        stopped = []

        def act(proc):
            if ctx.wait_for(lambda: lines_in(os.path.join(d, "r.csv.partial")) >= 2, 120):
                os.kill(ctx.rank_pid(1), signal.SIGSTOP)
                stopped.append(time.monotonic())
        argv = ctx.cb("run", "--quiet", "--timeout", str(TIMEOUT_S), "-w", "0", "--algo", "mpi",
                      "--wait", "spin", "-n", "20000", "-b", "8", "-e", "64K", "--placement",
                      "out", "--csv", os.path.join(d, "r.csv"), ranks=2)
        r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=150)
        return expect_watchdog(r, ex, stopped[0] if stopped else None)
    out.append(Case("rank 1 stopped in the mpi baseline (--wait spin)", baseline))

    for when in ("start-up", "mid-calibration"):
        def calibrate(ctx, d, when=when):
            ex = os.path.join(d, "ex")
            stopped = []

            def act(proc):
                if ctx.wait_for(lambda: ctx.rank_pid(1) > 0, 60, step=0.005):
                    time.sleep(0.1 if when == "start-up" else 3)
                    os.kill(ctx.rank_pid(1), signal.SIGSTOP)
                    stopped.append(time.monotonic())
            argv = ctx.cb("calibrate", "--timeout", str(TIMEOUT_S), "-e", "1M", "--out",
                          os.path.join(d, "c.csv"), ranks=2)
            r = ctx.launch(argv, cwd=d, env={"COLLBENCH_EXIT_FILE": ex}, during=act, limit_s=120)
            p = expect_watchdog(r, ex, stopped[0] if stopped else None)
            if os.path.exists(os.path.join(d, "c.csv")):
                p.append("c.csv written")
            return p
        out.append(Case(f"calibrate --timeout {TIMEOUT_S}: rank 1 stopped at {when}", calibrate))
    return out
