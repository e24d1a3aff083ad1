"""scripts/testbed.sh's argument checks (cases/testbed.cases): a bad value
is one line and exit 2 up front; --dry-run prints the setting as `up` would
build it. No testbed is ever brought up: every case runs as an unprivileged
user, so one that passed the checks would stop at "needs root"."""
import os
import shlex

from probelib import Case, common_problems, refused

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases",
                     "testbed.cases")


def cases(ctx):
    out = []
    with open(CASES) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            status, args, text = (x.strip() for x in line.split("|"))
            args = shlex.split(args)
            text = shlex.split(text)[0] if text else ""
            if not ctx.is_root and not ("--dry-run" in args or status != "0"):
                raise ValueError(f"testbed case would bring a testbed up: {line}")

            def run(ctx, d, status=int(status), args=args, text=text):
                # Unprivileged: nothing past the checks can build anything.
                r = ctx.launch(["bash", ctx.testbed, *args], cwd=d, as_nobody=ctx.is_root,
                               limit_s=20)
                lines = r.error_lines()
                if any("needs root" in l for l in lines):
                    return [f"accepted (reached the root check): {' '.join(args)}"]
                if status == 0:
                    p = common_problems(r, limit_s=10)
                    if r.status != 0:
                        p.append(f"exit {r.status}, want 0: {' | '.join(lines)[:200]}")
                    elif text not in r.out:
                        p.append(f"output does not say '{text}': {r.out.strip()[:200]}")
                    return p
                return refused(r, [text], prefix="testbed:", limit_s=10)
            out.append(Case(f"testbed.sh {' '.join(shlex.quote(a) for a in args)}", run,
                            parallel=True))
    return out
