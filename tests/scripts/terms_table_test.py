#!/usr/bin/python3
"""docs/model.md's table of terms is the one kTerms gives (issue 28, item 5).

Run by meson (suite scripts) with /usr/bin/python3 and CB_TERMS_CSV, the
output of `collbench list --terms-csv` that the build wrote; standard
library only. The first test is the check itself: the committed doc's table
equals what scripts/gen_terms_table.py renders from kTerms (fails when a row
of kTerms changed and the doc was not regenerated). The others show the
check can fail: a stale copy is caught, rewriting fixes it, and a doc
without the markers or a CSV short of a column is refused with exit 2.
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import gen_terms_table  # noqa: E402
from results_csv import rows_of  # noqa: E402
from script_main import run  # noqa: E402

DOC = os.path.join(ROOT, "docs", "model.md")


def terms_csv():
    path = os.environ.get("CB_TERMS_CSV", "")
    if not path:
        raise unittest.SkipTest("CB_TERMS_CSV is not set (meson sets it)")
    return path


def status(*argv):
    """gen_terms_table's exit status and stderr for argv, as the command line gives them."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = run("gen_terms_table.py", gen_terms_table.main, list(argv))
    return code, err.getvalue()


class TermsTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def copy_of_doc(self, edit=lambda text: text):
        path = os.path.join(self.dir, "model.md")
        with open(DOC, encoding="utf-8") as f:
            text = edit(f.read())
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_doc_is_current(self):
        code, err = status(terms_csv(), DOC, "--check")
        self.assertEqual(code, 0, err)

    def test_one_row_per_term_in_kterms_order(self):
        with open(DOC, encoding="utf-8") as f:
            text = f.read()
        body = text[text.index(gen_terms_table.BEGIN):text.index(gen_terms_table.END)]
        names = [ln.split("|")[1].strip().strip("`") for ln in body.splitlines()[3:]]
        _, rows = rows_of(terms_csv())
        self.assertEqual(names, [r["term"] for r in rows])
        self.assertIn("range", names)

    def test_stale_table_is_caught_and_rewritten(self):
        stale = self.copy_of_doc(lambda t: t.replace("| `copy` |", "| `copying` |", 1))
        code, err = status(terms_csv(), stale, "--check")
        self.assertEqual(code, 1)
        self.assertIn("differs from kTerms", err)
        self.assertEqual(status(terms_csv(), stale)[0], 0)
        self.assertEqual(status(terms_csv(), stale, "--check")[0], 0)
        with open(stale, encoding="utf-8") as f, open(DOC, encoding="utf-8") as g:
            self.assertEqual(f.read(), g.read())

    def test_text_outside_the_markers_is_kept(self):
        doc = self.copy_of_doc(lambda t: t + "\na line after\n")
        self.assertEqual(status(terms_csv(), doc)[0], 0)
        with open(doc, encoding="utf-8") as f:
            self.assertTrue(f.read().endswith("\na line after\n"))

    def test_doc_without_markers_is_refused(self):
        doc = self.copy_of_doc(lambda t: t.replace(gen_terms_table.END, ""))
        code, err = status(terms_csv(), doc, "--check")
        self.assertEqual(code, 2)
        self.assertIn("no terms table", err)

    def test_csv_short_of_a_column_is_refused(self):
        bad = os.path.join(self.dir, "terms.csv")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("term,letter,prices\nrange,a,x\n")
        code, err = status(bad, self.copy_of_doc(), "--check")
        self.assertEqual(code, 2)
        self.assertIn("fitted_from", err)

    def test_usage(self):
        self.assertEqual(status("only-one")[0], 2)


if __name__ == "__main__":
    unittest.main()
