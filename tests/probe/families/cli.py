"""Bad command-line values for every command and numeric or named flag
(cases/cli.cases): exit 2, one line naming the value and what is accepted."""
import os
import shlex

import fixtures
from probelib import Case, refused, written

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases",
                     "cli.cases")

# A refusal says what is accepted: one of these phrases (CLI11's own
# "Could not convert: --iters = 1e300" names the value but not what would do).
ACCEPTED = ("accept", "expected", "must", "need", "at most", "at least", "between", "one of",
            "only", "is a flag of", "range", "valid", "use ", "requires", "excludes", "instead",
            "up to", "give", "drives one gpu", "both ask", ">=", "<=", " to ")
# CLI11's suffix on its own errors points at --help but says nothing itself.
CLI11_SUFFIX = " (see collbench --help, or collbench SUBCOMMAND --help)"


def value_needles(value, flag):
    if not value.strip():
        return (flag, "empty", "''")
    alts = [value]
    try:
        f = float(value)
        alts += [f"{f:g}", repr(f), f"{f:.0f}" if abs(f) < 1e30 else f"{f:g}"]
    except ValueError:
        pass
    return tuple(alts)


def without(words, flag):
    """BASE's words without `flag` and its value."""
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w == flag:
            skip = True
            continue
        out.append(w)
    return out


def parse():
    bases, cases = {}, []
    with open(CASES) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("@base "):
                _, name, rest = line.split(None, 2)
                bases[name] = shlex.split(rest)
                continue
            extra = line.startswith("!")
            base, flag, values = (x.strip() for x in line.lstrip("!").split("|"))
            if extra:
                cases.append((base, shlex.split(flag), values, None))
            else:
                for v in shlex.split(values):
                    cases.append((base, [flag, v], None, v))
    return bases, cases


def cases(ctx):
    bases, raw = parse()
    out = []
    for base, args, needle, value in raw:
        words = bases[base]
        if value is not None:
            words = without(words, args[0])
        name = f"{words[0]} {' '.join(shlex.quote(a) for a in args)}"
        if base != words[0]:
            name += f" ({base})"

        def run(ctx, d, words=words, args=args, needle=needle, value=value):
            argv = ctx.cb(*fixtures.expand(words, fixtures.placeholders(ctx, d)), *args)
            r = ctx.launch(argv, cwd=d, limit_s=30)
            needles = [value_needles(value, args[0]) if value is not None else needle]
            p = refused(r, needles)
            lines = r.error_lines()
            said = lines[0].replace(CLI11_SUFFIX, "").lower() if len(lines) == 1 else ""
            if len(lines) == 1 and not any(a in said for a in ACCEPTED):
                p.append(f"does not say what is accepted: {lines[0][:200]}")
            return p + written(d)
        out.append(Case(name, run, parallel=True))
    return out
