#!/usr/bin/python3
"""Renders docs/model.md's table of terms from the model's own table (kTerms).

    gen_terms_table.py TERMS_CSV DOC [--check]

TERMS_CSV is what `collbench list --terms-csv` prints (models/terms.hpp,
kTerms: one row per term, in the order ablations add them). The table in DOC
between the lines BEGIN and END below is replaced by one row per term;
everything else in DOC is left as it is. With --check nothing is written:
exit 1 with one line when DOC's table differs from what TERMS_CSV gives (the
suite's terms_table test), 0 when it is current. Rendering only: every word
of a row is kTerms'. Bad input (a file missing or not that CSV, DOC without
the markers): one line, exit 2. Standard library only.

Regenerate by hand (from the source tree, after a build):

    build/harness/collbench list --terms-csv > /tmp/terms.csv
    scripts/gen_terms_table.py /tmp/terms.csv docs/model.md
"""
import sys

from output_file import write_atomically
from report_answer import md
from results_csv import InputError, read_csv
from script_main import run

BEGIN = ("<!-- terms table: generated from kTerms (models/terms.hpp) by "
         "scripts/gen_terms_table.py; edit kTerms, not this table -->")
END = "<!-- end of terms table -->"
COLUMNS = ["term", "letter", "prices", "fitted_from"]
USAGE = "usage: gen_terms_table.py TERMS_CSV DOC [--check]"


def table(rows):
    out = ["| term | letter | what it prices | measured by |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| `{r['term']}` | {md(r['letter'])} | {md(r['prices'])} | "
                   f"{md(r['fitted_from'])} |")
    return "\n".join(out) + "\n"


def rendered(doc_path, text, rows):
    """DOC's text with the table between the markers replaced."""
    begin, end = text.find(BEGIN + "\n"), text.find(END)
    if begin < 0 or end < 0 or end < begin:
        raise InputError(f"{doc_path}: no terms table to replace (it needs the line '{BEGIN}' "
                         f"and, after it, '{END}')")
    head = text[:begin + len(BEGIN) + 1]
    return head + table(rows) + text[end:]


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        print(USAGE, file=sys.stderr)
        return 2
    terms_csv, doc = args
    rows = read_csv(terms_csv, COLUMNS)
    try:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{doc}: cannot read: {getattr(e, 'strerror', None) or e}")
    new = rendered(doc, text, rows)
    if check:
        if new != text:
            print(f"{doc}: the table of terms differs from kTerms (models/terms.hpp); "
                  f"regenerate it: scripts/gen_terms_table.py TERMS_CSV {doc}, TERMS_CSV from "
                  "`collbench list --terms-csv`", file=sys.stderr)
            return 1
        return 0
    if new != text:
        write_atomically(doc, lambda f: f.write(new), binary=False)
    return 0


if __name__ == "__main__":
    sys.exit(run("gen_terms_table.py", main, sys.argv[1:]))
