#!/usr/bin/python3
"""Writes OUT/report.md of scripts/gpu-check.sh from the files the check left
in OUT (the check runs this script as its last step; docs/gpu.md).

    /usr/bin/python3 scripts/gpu_report.py OUT

Inputs, each shown when present (the check stops early when a step cannot
run, and the report then holds what it got to):
  check.txt     host=, gpus=, shared_gpu= (1: the schedules' two ranks shared
                the one GPU), verdict=, elapsed_s=
  gpus.txt      `nvidia-smi -L`
  reasons.txt   one failure or gap a line, as the check found them
  version.txt   `collbench --version` of the CUDA build
  tests.log     the CUDA test binary's output
  runs.csv      name, ranks, exit, rows, wrong: one row per sweep
  refused.txt   "NAME: why" per NCCL algorithm this machine does not offer
  commands.txt, NAME.txt  the sweeps' commands and consoles (their footers)
The verdict and every count are the check's; nothing is judged here. A
missing check.txt is one line on stderr and exit status 2, a failed write 4.
Standard library only.
"""
import csv
import os
import re
import sys

from output_file import EXIT_BAD_INPUT, BadOutput, write_atomically

TEST_LINE = re.compile(r"^\[ *(OK|FAILED|SKIPPED) *\] IpcCuda\.[A-Za-z]+ \(")
FOOTER_LINE = re.compile(r"^# [a-z_]+ on [0-9]+ ranks?, .*:$|^#   [a-z]|^# (Wrong|Noisy|Avg)")


def text_of(out, name):
    """The file's text, or None when it is absent."""
    path = os.path.join(out, name)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def facts(out):
    text = text_of(out, "check.txt")
    if text is None:
        raise BadOutput(f"{out}: no check.txt (accepted: the --out directory of "
                        "scripts/gpu-check.sh)")
    return dict(line.partition("=")[::2] for line in text.splitlines() if "=" in line)


def indented(lines):
    return [f"    {line}" for line in lines]


def build(out):
    f = facts(out)
    gpus = (text_of(out, "gpus.txt") or "").splitlines()
    lines = [f"# GPU check: {f.get('host', '?')}, {f.get('gpus', '?')} GPU(s)", "",
             "Written by `bash scripts/gpu-check.sh` (docs/gpu.md). Devices (`nvidia-smi -L`):",
             ""] + indented(gpus) + [""]
    version = text_of(out, "version.txt")
    if version is not None:
        lines += ["```"] + version.splitlines() + ["```", ""]
    tests = text_of(out, "tests.log")
    if tests is not None:
        lines += ["## CUDA tests", ""]
        lines += indented(x for x in tests.splitlines() if TEST_LINE.match(x)) + [""]
    runs = text_of(out, "runs.csv")
    if runs is not None:
        lines += ["## Sweep (`--transport ipc --mem cuda`, fp32 sum, 8 B-256 MiB)", "",
                  "Commands: commands.txt. One rank per GPU"
                  + ("; with one GPU the schedules ran on 2 ranks sharing it"
                     if f.get("shared_gpu") == "1" else "") + ".",
                  "Every row is verified (`wrong` = 0); plots of schedules + NCCL's default in "
                  "plots/.", "", "| run | ranks | exit | rows | wrong rows |",
                  "|---|---|---|---|---|"]
        for r in csv.DictReader(runs.splitlines()):
            lines.append(f"| {r['name']} | {r['ranks']} | {r['exit']} | {r['rows']} | "
                         f"{r['wrong']} |")
        lines.append("")
        refused = text_of(out, "refused.txt")
        if refused:
            lines += ["NCCL algorithms this machine does not offer:", ""]
            lines += [f"- {x}" for x in refused.splitlines()] + [""]
        for name in ("schedules", "nccl"):
            console = text_of(out, f"{name}.txt")
            if not os.path.isfile(os.path.join(out, f"{name}.csv")) or \
                    os.path.getsize(os.path.join(out, f"{name}.csv")) == 0 or console is None:
                continue
            lines += [f"Footer of `{name}`:", ""]
            lines += indented(x for x in console.splitlines() if FOOTER_LINE.match(x)) + [""]
    if "verdict" in f:
        reasons = (text_of(out, "reasons.txt") or "").splitlines()
        lines += ["", "## Verdict", "", f"{f['verdict']} after {f.get('elapsed_s', '?')} s."]
        if reasons:
            lines += [""] + [f"- {x}" for x in reasons]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: gpu_report.py OUT (the --out directory of scripts/gpu-check.sh)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    out = argv[0]
    text = build(out)
    write_atomically(os.path.join(out, "report.md"), lambda f: f.write(text), binary=False)
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("gpu_report.py", main, sys.argv[1:]))
