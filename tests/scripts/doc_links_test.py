#!/usr/bin/python3
"""Every relative link in the repository's markdown resolves to a file or folder.

Run by meson (suite scripts) with /usr/bin/python3 (by hand:
python3 tests/scripts/doc_links_test.py); standard library only. Reads every
*.md outside build folders and results/ (results/ holds data; its reports are
regenerated), takes each [text](target) and ![alt](target) outside code, and
checks that the target, relative to the file, exists. Web links and in-page
anchors are not followed. The first test runs the checker on a small tree with
one broken link, so the check itself is known to fail when it should.
"""
import os
import re
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build"))
                         and not (rel == "." and d in ("results", "subprojects")))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def links_of(path):
    """(line number, target) of every link outside fenced blocks and code spans."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for match in LINK.finditer(CODE_SPAN.sub("", line)):
                yield number, match.group(1)


def broken_links(root):
    """'file:line: target' for every relative link whose target does not exist."""
    broken = []
    for path in markdown_files(root):
        for number, target in links_of(path):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a web link, mailto: or an anchor in the same page
            file_part = target.split("#", 1)[0]
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(resolved):
                broken.append(f"{os.path.relpath(path, root)}:{number}: {target}")
    return broken


class DocLinks(unittest.TestCase):
    def test_a_broken_link_is_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "docs"))
            with open(os.path.join(tmp, "docs", "there.md"), "w") as f:
                f.write("# there\n")
            with open(os.path.join(tmp, "README.md"), "w") as f:
                f.write("[ok](docs/there.md#there) [web](https://example.org/x.md) [in](#top)\n"
                        "```\n[in a code block](nowhere.md)\n```\n"
                        "`[in a code span](nowhere.md)` and ![plot](docs/img/missing.png)\n"
                        "[gone](docs/gone.md)\n")
            self.assertEqual(broken_links(tmp),
                             ["README.md:5: docs/img/missing.png", "README.md:6: docs/gone.md"])

    def test_every_relative_link_in_the_repository_resolves(self):
        broken = broken_links(ROOT)
        self.assertEqual(broken, [], "broken links:\n" + "\n".join(broken))


if __name__ == "__main__":
    unittest.main()
