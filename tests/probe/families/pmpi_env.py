"""The PMPI library's COLLBENCH_* settings (cases/pmpi_env.cases), bad on
every rank or different between ranks, under an ordinary MPI program
(tests/pmpi/fallback_app.cpp) at 2 ranks: one "collbench-pmpi:" line, exit
2, nothing from the application, no hang."""
import os
import random
import shlex

from probelib import Case, common_problems, read, write

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases",
                     "pmpi_env.cases")


def files(ctx, d):
    cal = read(ctx.calibration)
    lines = cal.split("\n")
    header = lines[0].split(",")
    row = lines[1].split(",")
    row[header.index("alpha_s")] = "nan"
    os.makedirs(os.path.join(d, "adir"))
    cal2 = os.path.join(d, "cal2.csv")
    row2 = lines[1].split(",")
    row2[header.index("alpha_s")] = "9e-07"
    return {
        "bin": write(os.path.join(d, "bin"), bytes(random.Random(9).randrange(256)
                                                     for _ in range(65536)), "wb"),
        "cut": write(os.path.join(d, "cut.csv"), cal[:-2]),
        "dir": os.path.join(d, "adir"),
        "empty": write(os.path.join(d, "empty"), ""),
        "nan": write(os.path.join(d, "nan.csv"), lines[0] + "\n" + ",".join(row) + "\n"),
        "cal": ctx.calibration,
        "cal2": write(cal2, lines[0] + "\n" + ",".join(row2) + "\n"),
    }


def settings(text, values):
    out = {}
    if text.strip() == "-":
        return out
    for word in shlex.split(text):
        k, _, v = word.partition("=")
        out[k] = v.format(**values)
    return out


def cases(ctx):
    if not (ctx.mpiexec and os.path.exists(ctx.pmpi_lib) and os.path.exists(ctx.pmpi_app)):
        return [Case("pmpi settings", None, skip="no mpiexec or PMPI library in this build")]
    out = []
    with open(CASES) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            per_rank = line.startswith("@ranks ")
            parts = [x.strip() for x in line.removeprefix("@ranks ").split("|")]

            def run(ctx, d, parts=parts, per_rank=per_rank):
                values = files(ctx, d)
                clean = {k: None for k in os.environ if k.startswith("COLLBENCH_")}
                if per_rank:
                    s0, s1, text = settings(parts[0], values), settings(parts[1], values), parts[2]
                    argv = [ctx.mpiexec, "-genv", "LD_PRELOAD", ctx.pmpi_lib, "-n", "1"]
                    for k, v in s0.items():
                        argv += ["-env", k, v]
                    argv += [ctx.pmpi_app, ":", "-n", "1"]
                    for k, v in s1.items():
                        argv += ["-env", k, v]
                    argv += [ctx.pmpi_app]
                    env = clean
                else:
                    env = dict(clean, **settings(parts[0], values))
                    text = parts[1]
                    argv = [ctx.mpiexec, "-genv", "LD_PRELOAD", ctx.pmpi_lib, "-n", "2",
                            ctx.pmpi_app]
                r = ctx.launch(argv, cwd=d, env=env, limit_s=60)
                p = common_problems(r, limit_s=30)
                if r.timed_out:
                    return p
                both = r.out + r.err
                ours = [l for l in both.splitlines() if "collbench-pmpi:" in l]
                if r.status != 2:
                    p.append(f"exit {r.status}, want 2")
                if len(ours) != 1:
                    p.append(f"{len(ours)} collbench-pmpi lines, want 1: "
                             f"{' | '.join(both.splitlines()[:3])[:300]}")
                elif text.format(**values) not in ours[0]:
                    p.append(f"line does not name '{text}': {ours[0][:200]}")
                if "fallback-app" in both:
                    p.append("the application ran")
                return p
            out.append(Case("PMPI " + line.removeprefix("@ranks "), run, parallel=True))
    return out
