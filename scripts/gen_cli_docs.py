#!/usr/bin/python3
"""Generates collbench's man page and bash completion from the CLI's own help.

    gen_cli_docs.py COLLBENCH MAN_OUT COMPLETION_OUT

Runs `COLLBENCH --help` and `COLLBENCH help CMD` for every subcommand (CLI11's
text, so the man page and the completion never drift from the binary) and
writes a roff man page (section 1) and a bash completion script. meson runs
it at build time; `meson install` installs both.
"""
import datetime
import re
import subprocess
import sys


def help_text(binary, *args):
    out = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout
    # CLI11 prints the path the binary was called by; the docs name the command.
    return out.replace(binary, "collbench")


def parse(text):
    """(description, usage, [(section, names, argument, description)]) of one help text."""
    lines = text.splitlines()
    description = lines[0].strip() if lines and not lines[0].startswith("Usage:") else ""
    usage = next((ln[len("Usage: "):].strip() for ln in lines if ln.startswith("Usage:")), "")
    items, section = [], None
    for ln in lines:
        if re.match(r"^[A-Z][A-Za-z]*:\s*$", ln):
            section = ln.strip()[:-1]
            continue
        if section and re.match(r"^  \S", ln):
            head, _, desc = ln[2:].partition("  ")
            parts = head.split(" ", 1)
            items.append([section, parts[0].split(","), parts[1] if len(parts) > 1 else "",
                          desc.strip()])
        elif section and items and re.match(r"^\s{10,}\S", ln):
            items[-1][3] = (items[-1][3] + " " + ln.strip()).strip()
    return description, usage, items


def roff(text):
    return text.replace("\\", "\\e").replace("-", "\\-").replace("'", "\\(aq")


def man_page(version, top, commands):
    desc, usage, items = top
    today = datetime.date.today().isoformat()
    out = [f'.TH COLLBENCH 1 "{today}" "collbench {version}" "User Commands"',
           ".SH NAME", "collbench \\- " + roff(desc.split(":", 1)[-1].strip() or desc),
           ".SH SYNOPSIS", ".B collbench", "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]",
           ".SH DESCRIPTION",
           roff("collbench benchmarks collective-communication algorithms (ring, tree, "
                "butterfly, recursive halving-doubling, ...) against MPI and NCCL over MPI, "
                "shared memory, CUDA-IPC and a simulator, with nccl-tests' flags and output, "
                "verified results, tidy CSV/JSON, alpha-beta-gamma model fits and plots. "
                "Every command below also answers --help; `collbench help COMMAND` prints the "
                "same text."),
           ".SH OPTIONS"]
    for section, names, arg, text in items:
        if section != "Options":
            continue  # the subcommands get their own section below
        out += [".TP", "\\fB" + roff(", ".join(names)) + "\\fR" + (" " + roff(arg) if arg else ""),
                roff(text)]
    out.append(".SH COMMANDS")
    for name, (cdesc, cusage, citems) in commands.items():
        out += [f".SS {name}", roff(cdesc), ".PP", "\\fBUsage:\\fR " + roff(cusage)]
        for section, names, arg, text in citems:
            if section == "Options" and names == ["-h", "--help"]:
                continue
            out += [".TP", "\\fB" + roff(", ".join(names)) + "\\fR" +
                    (" " + roff(arg) if arg else ""), roff(text)]
    out += [".SH EXIT STATUS",
            roff("0 on success; 1 when a verified result was wrong (run) or a configuration got "
                 "slower (compare); 2 on bad input, with one line naming the bad value; 128 + "
                 "signal when interrupted (the interrupted run prints the command that resumes "
                 "it)."),
            ".SH FILES",
            roff("share/collbench/scripts: plot.py, report.py (collbench plot, collbench "
                 "report). The results CSV columns are documented in harness/report/CSV.md of "
                 "the source tree."),
            ".SH SEE ALSO", "mpiexec(1)", ""]
    return "\n".join(out)


def completion(top, commands):
    names = " ".join(commands)
    cases = []
    for name, (_, _, items) in commands.items():
        if name == "help":
            continue  # completes command names, below
        flags = " ".join(n for _, ns, _, _ in items for n in ns if n.startswith("-"))
        cases.append(f'    {name}) opts="{flags}" ;;')
    if "help" in commands:
        cases.append(f'    help) COMPREPLY=($(compgen -W "{names}" -- "$cur")); return ;;')
    top_flags = " ".join(n for _, ns, _, _ in top[2] for n in ns if n.startswith("-"))
    return f"""# bash completion for collbench (generated from its --help by scripts/gen_cli_docs.py)
_collbench() {{
  local cur cmd i opts
  cur="${{COMP_WORDS[COMP_CWORD]}}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i]}}" in -*) ;; *) cmd="${{COMP_WORDS[i]}}"; break ;; esac
  done
  if [ -z "$cmd" ]; then
    COMPREPLY=($(compgen -W "{names} {top_flags}" -- "$cur"))
    return
  fi
  case "$cmd" in
{chr(10).join(cases)}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _collbench collbench
"""


def main(argv):
    if len(argv) != 3 or argv[0] in ("-h", "--help"):
        print("usage: gen_cli_docs.py COLLBENCH MAN_OUT COMPLETION_OUT", file=sys.stderr)
        return 2
    binary, man_out, completion_out = argv
    top = parse(help_text(binary, "--help"))
    names = [names[0] for section, names, _, _ in top[2] if section == "Subcommands"]
    commands = {n: parse(help_text(binary, "help", n)) for n in names if n != "help"}
    commands["help"] = parse(help_text(binary, "help", "--help"))
    version = help_text(binary, "--version").split()[1]
    with open(man_out, "w") as f:
        f.write(man_page(version, top, commands))
    with open(completion_out, "w") as f:
        f.write(completion(top, commands))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
