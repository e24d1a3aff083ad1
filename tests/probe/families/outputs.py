"""Hostile outputs: a symbolic link planted at each output, its .partial,
.lock and the exit file's temporary; a read-only directory; /dev/full as a
file and as standard output; one file named twice; a full disk (a file-size
limit); a 0600 output rewritten. Nothing may be written through a link or
left half-written, and each refusal is one line."""
import os
import shutil
import stat
import subprocess

import fixtures
from probelib import Case, common_problems, leftovers, read, refused, succeeded, write

VICTIM = "precious\n"
# plot and report are Python scripts that collbench runs: their lines name them.
PREFIXES = ("collbench", "plot.py", "report.py")


def plant(d, name):
    """A victim file and a link to it at d/name."""
    os.makedirs(d, exist_ok=True)
    victim = write(os.path.join(d, "..", os.path.basename(d) + "-victim"), VICTIM)
    os.chmod(victim, 0o640)
    os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
    os.symlink(os.path.abspath(victim), os.path.join(d, name))
    return victim


def victim_problems(victim):
    p = []
    if read(victim) != VICTIM:
        p.append("the link's target was written")
    if stat.S_IMODE(os.stat(victim).st_mode) != 0o640:
        p.append("the link's target changed mode")
    return p


def study_copy(ctx, d):
    dst = os.path.join(d, "study")
    shutil.copytree(fixtures.study_dir(ctx), dst)
    return dst


# Each writer: (name, args making it write to OUT in d, the file it writes
# relative to d). {out} is the output named on the command line.
def writers(ctx, d):
    res = fixtures.results_csv(ctx)
    model = ["--alpha", "1us", "--beta", "1ns", "--gamma", "1ns"]
    return {
        "run --csv": (["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "64", "--algo",
                       "ring", "--placement", "out", "--csv", "{out}"], "r.csv"),
        "run --json": (["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "64", "--algo",
                        "ring", "--placement", "out", "--json", "{out}"], "r.json"),
        "sim --csv": (["run", "--quiet", "--transport", "sim", "--ranks", "4", "-b", "8", "-e",
                       "64", "--algo", "ring", "--csv", "{out}"], "s.csv"),
        "map --csv": (["map", "--quiet", "--ranks", "2..4", "-b", "8", "-e", "64", *model,
                       "--csv", "{out}"], "m.csv"),
        "predict --csv": (["predict", "--coll", "allreduce", "--ranks", "4", "-b", "8", "-e",
                           "64", *model, "--csv", "{out}"], "p.csv"),
        "calibrate --out": (["calibrate", "-e", "4K", "--out", "{out}"], "c.csv"),
    }


def dir_writers(ctx, d):
    """Commands writing files into a directory: (args with {out} the
    directory, one file they write there)."""
    res = fixtures.results_csv(ctx)
    return {
        "fit --out": (["fit", res, "--out", "{out}"], "fit.csv"),
        "recommend --out": (["recommend", res, "--out", "{out}"], "recommendations.csv"),
        "plot --out": (["plot", fixtures.study_dir(ctx), "--out", "{out}"], "busbw-mpi.png"),
    }


def fill(args, out):
    return [a.replace("{out}", out) for a in args]


def cases(ctx):
    out = []

    # ---- a link planted at the output, its .partial and its .lock ----------
    for name in ("run --csv", "run --json", "sim --csv", "map --csv", "predict --csv",
                 "calibrate --out"):
        for suffix in ("", ".partial", ".lock"):
            if name in ("predict --csv", "calibrate --out") and suffix:
                continue  # written whole at the end: no .partial, no lock

            def run(ctx, d, name=name, suffix=suffix):
                args, file = writers(ctx, d)[name]
                victim = plant(d, file + suffix)
                r = ctx.launch(ctx.cb(*fill(args, os.path.join(d, file))), cwd=d)
                p = victim_problems(victim)
                planted = (os.path.basename(file + suffix),)
                if suffix == ".lock" and r.status == 0:
                    # Locking through the link is harmless if nothing is written.
                    return p + common_problems(r) + leftovers(d, planted)
                return p + refused(r, ["symbolic link"]) + leftovers(d, planted)
            out.append(Case(f"link planted at {name} FILE{suffix}", run, parallel=True))

    for name in ("fit --out", "recommend --out", "plot --out"):
        def run(ctx, d, name=name):
            args, file = dir_writers(ctx, d)[name]
            target = os.path.join(d, "out")
            victim = plant(target, file)
            r = ctx.launch(ctx.cb(*fill(args, target)), cwd=d, limit_s=90)
            return victim_problems(victim) + refused(r, [("symbolic link", file)], limit_s=90,
                                                     prefix=PREFIXES) + leftovers(d)
        out.append(Case(f"link planted at {name} DIR/FILE", run, parallel=True))

    def report_link(ctx, d):
        study = study_copy(ctx, d)
        victim = plant(study, "report.md")
        r = ctx.launch(ctx.cb("report", study), cwd=d, limit_s=300)
        return victim_problems(victim) + refused(r, ["symbolic link"], limit_s=300,
                                                 prefix=PREFIXES)
    out.append(Case("link planted at report DIR/report.md", report_link, parallel=True))

    def arrival_log_link(ctx, d):
        victim = plant(d, "log.0")
        r = ctx.launch(ctx.cb("run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8",
                              "--algo", "ring", "--placement", "out", "--arrival", "one-late:1us",
                              "--arrival-log", os.path.join(d, "log")), cwd=d)
        return victim_problems(victim) + refused(r, ["symbolic link"])
    out.append(Case("link planted at --arrival-log PREFIX.0", arrival_log_link, parallel=True))

    def exit_file_link(ctx, d):
        victim = plant(d, "ex.tmp")
        r = ctx.launch(ctx.cb("list"), cwd=d, env={"COLLBENCH_EXIT_FILE": os.path.join(d, "ex")})
        p = victim_problems(victim) + succeeded(r)
        if read(os.path.join(d, "ex")) != "0\n":
            p.append(f"exit file holds {read(os.path.join(d, 'ex'))!r}, want '0\\n'")
        return p
    out.append(Case("link planted at $COLLBENCH_EXIT_FILE.tmp", exit_file_link, parallel=True))

    # ---- a read-only directory (an unprivileged user: root writes anyway) --
    ro_writers = ["run --csv", "run --json", "sim --csv", "map --csv", "predict --csv",
                  "calibrate --out"]
    for name in ro_writers:
        def run(ctx, d, name=name):
            args, file = writers(ctx, d)[name]
            ro = os.path.join(d, "ro")
            os.makedirs(ro)
            os.chmod(ro, 0o555)
            r = ctx.launch(ctx.cb(*fill(args, os.path.join(ro, file))), cwd=d,
                           as_nobody=ctx.is_root)
            return refused(r, [("ro", "writ", "permission")]) + leftovers(d)
        out.append(Case(f"{name} in a read-only directory", run, parallel=True))
    for name in ("fit --out", "recommend --out", "plot --out"):
        def run(ctx, d, name=name):
            args, _ = dir_writers(ctx, d)[name]
            ro = os.path.join(d, "ro")
            os.makedirs(ro)
            os.chmod(ro, 0o555)
            r = ctx.launch(ctx.cb(*fill(args, ro)), cwd=d, as_nobody=ctx.is_root, limit_s=90)
            return refused(r, [("ro", "writ", "permission")], limit_s=90, prefix=PREFIXES) + \
                leftovers(d)
        out.append(Case(f"{name} a read-only directory", run, parallel=True))

    def report_ro(ctx, d):
        study = study_copy(ctx, d)
        for root, dirs, files in os.walk(study):
            for f in files:
                os.chmod(os.path.join(root, f), 0o444)
            os.chmod(root, 0o555)
        r = ctx.launch(ctx.cb("report", study), cwd=d, as_nobody=ctx.is_root, limit_s=300)
        return refused(r, [("writ", "permission", "read-only")], limit_s=300, prefix=PREFIXES)
    out.append(Case("report on a read-only study directory", report_ro, parallel=True))

    # ---- /dev/full as the output file and as standard output ---------------
    for name in ("run --csv", "run --json", "sim --csv", "map --csv", "predict --csv",
                 "calibrate --out"):
        def run(ctx, d, name=name):
            args, _ = writers(ctx, d)[name]
            r = ctx.launch(ctx.cb(*fill(args, "/dev/full")), cwd=d)
            return refused(r, ["/dev/full"]) + leftovers(d)
        out.append(Case(f"{name} /dev/full", run, parallel=True))
    for name in ("fit --out", "recommend --out", "plot --out"):
        def run(ctx, d, name=name):
            args, _ = dir_writers(ctx, d)[name]
            r = ctx.launch(ctx.cb(*fill(args, "/dev/full")), cwd=d, limit_s=90)
            return refused(r, ["/dev/full"], limit_s=90, prefix=PREFIXES)
        out.append(Case(f"{name} /dev/full", run, parallel=True))

    res_args = {
        "list": ["list"],
        "--version": ["--version"],
        "help": ["help"],
        "help run": ["help", "run"],
        "predict": ["predict", "--coll", "allreduce", "--ranks", "4", "-b", "8", "-e", "64",
                    "--alpha", "1us", "--beta", "1ns", "--gamma", "1ns"],
        "map --csv -": ["map", "--quiet", "--ranks", "2..4", "-b", "8", "-e", "64", "--alpha",
                        "1us", "--beta", "1ns", "--gamma", "1ns", "--csv", "-"],
        "run (table)": ["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8", "--algo",
                        "ring", "--placement", "out"],
        "run --csv -": ["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8", "--algo",
                        "ring", "--placement", "out", "--csv", "-"],
        "run --json -": ["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8", "--algo",
                         "ring", "--placement", "out", "--json", "-"],
        "sim (table)": ["run", "--quiet", "--transport", "sim", "--ranks", "4", "-b", "8", "-e",
                        "64", "--algo", "ring"],
        "compare": ["compare", "{results}", "{results}"],
        "recommend": ["recommend", "{results}"],
        "fit": ["fit", "{results}", "--out", "{d}/fit"],
    }
    for name, args in res_args.items():
        def run(ctx, d, args=args):
            argv = ctx.cb(*fixtures.expand(args, fixtures.placeholders(ctx, d)))
            r = ctx.launch(argv, cwd=d, stdout="/dev/full", limit_s=60)
            return refused(r, ["standard output"], status=4, limit_s=60) + leftovers(d)
        out.append(Case(f"{name} > /dev/full", run, parallel=True))

    # ---- one file named twice, an input named as the output ---------------
    same = {
        "run --csv x --json x": (["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8",
                                  "--algo", "ring", "--csv", "{d}/x", "--json", "{d}/x"], None),
        "run --csv x --json ./x": (["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "8",
                                    "--algo", "ring", "--csv", "{d}/x", "--json", "{d}/./x"],
                                   None),
        "predict --params x --csv x": (["predict", "--coll", "allreduce", "--ranks", "4", "-b",
                                        "8", "-e", "64", "--params", "{d}/cal.csv", "--csv",
                                        "{d}/cal.csv"], "cal.csv"),
        "map --params x --csv x": (["map", "--quiet", "--ranks", "2..4", "-b", "8", "-e", "64",
                                    "--params", "{d}/cal.csv", "--csv", "{d}/cal.csv"],
                                   "cal.csv"),
        "sim --params x --csv x": (["run", "--quiet", "--transport", "sim", "--ranks", "4", "-b",
                                    "8", "-e", "64", "--params", "{d}/cal.csv", "--csv",
                                    "{d}/cal.csv"], "cal.csv"),
        "fit x --out DIR holding x as fit.csv": (["fit", "{d}/fit.csv", "--out", "{d}"],
                                                 "fit.csv"),
    }
    for name, (args, keep) in same.items():
        def run(ctx, d, args=args, keep=keep):
            if keep == "cal.csv":
                shutil.copy(ctx.calibration, os.path.join(d, "cal.csv"))
            elif keep == "fit.csv":
                shutil.copy(fixtures.results_csv(ctx), os.path.join(d, "fit.csv"))
            before = read(os.path.join(d, keep)) if keep else None
            argv = ctx.cb(*fixtures.expand(args, fixtures.placeholders(ctx, d)))
            r = ctx.launch(argv, cwd=d)
            # Any wording that says the output is (or would replace) an input.
            p = refused(r, [("same file", "also the input", "is the input", "is the --params file",
                             "would replace the input")])
            if keep and read(os.path.join(d, keep)) != before:
                p.append(f"the input {keep} was overwritten")
            if not keep and os.path.exists(os.path.join(d, "x")):
                p.append("x was written")
            return p + leftovers(d)
        out.append(Case(f"same file twice: {name}", run, parallel=True))

    # ---- a full disk (file-size limit) ------------------------------------
    full = {
        "run --csv": (["run", "--quiet", "-n", "2", "-w", "0", "-b", "8", "-e", "1K", "--algo",
                       "ring", "--placement", "out", "--csv", "{d}/r.csv"], "r.csv"),
        "map --csv": (["map", "--quiet", "--ranks", "2..64", "-b", "8", "-e", "1M", "--alpha",
                       "1us", "--beta", "1ns", "--gamma", "1ns", "--csv", "{d}/m.csv"], "m.csv"),
        "predict --csv": (["predict", "--coll", "allreduce", "--ranks", "4", "-b", "8", "-e",
                           "1M", "--alpha", "1us", "--beta", "1ns", "--gamma", "1ns", "--csv",
                           "{d}/p.csv"], "p.csv"),
        "fit --out": (["fit", "{results}", "--out", "{d}/fit"], "fit/fit.csv"),
        "recommend --out": (["recommend", "{results}", "--out", "{d}/rec"],
                            "rec/recommendations.csv"),
        "plot --out": (["plot", "{study}", "--out", "{d}/plots"], "plots/busbw-mpi.png"),
    }
    for name, (args, file) in full.items():
        def run(ctx, d, args=args, file=file):
            disk = os.path.join(d, "disk")
            os.makedirs(disk)
            # A 16 KiB tmpfs fills as a disk does (ENOSPC); a file-size limit
            # would also stop MPI_Init's own shared-memory files.
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", disk],
                              stderr=subprocess.DEVNULL).returncode != 0:
                return ["probe: cannot mount a tmpfs (needs root)"]
            try:
                for sub in ("fit", "rec", "plots"):
                    os.makedirs(os.path.join(disk, sub))
                # Filled to the last block: some outputs (a short run's CSV,
                # predict's) fit in 16 KiB, and a case that never meets a
                # full disk would blame collbench for succeeding.
                with open(os.path.join(disk, "filler"), "wb", buffering=0) as f:
                    try:
                        while True:
                            f.write(b"\0" * 4096)
                    except OSError:
                        pass
                values = fixtures.placeholders(ctx, disk)
                argv = ctx.cb(*[a.format(**values) for a in args])
                r = ctx.launch(argv, cwd=d, limit_s=120)
                p = refused(r, [("No space", "full", "write")], status=4, limit_s=120,
                            prefix=PREFIXES)
                if os.path.exists(os.path.join(disk, file)):
                    p.append(f"{file} exists after a failed write")
                return p + [x for x in leftovers(disk) if ".partial" not in x]
            finally:
                subprocess.run(["umount", "-l", disk])
        out.append(Case(f"full disk: {name}", run, parallel=True))

    # ---- a 0600 output keeps its mode --------------------------------------
    for name in ("sim --csv", "map --csv", "predict --csv"):
        def run(ctx, d, name=name):
            args, file = writers(ctx, d)[name]
            path = write(os.path.join(d, file), "old\n")
            os.chmod(path, 0o600)
            r = ctx.launch(ctx.cb(*fill(args, path)), cwd=d)
            p = succeeded(r)
            mode = stat.S_IMODE(os.stat(path).st_mode)
            if mode != 0o600:
                p.append(f"mode {mode:o} after the rewrite, want 600")
            return p
        out.append(Case(f"{name} rewriting a 0600 file keeps 0600", run, parallel=True))
    return out
