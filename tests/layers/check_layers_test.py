#!/usr/bin/env python3
"""check_layers.py on small trees built here: a planted upward include fails
and is listed; includes down or within a layer, tests/ and headers outside
the layered tree pass."""
import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check_layers.py')

LAYERS = """# lowest first
low
mid
mid/floor_above   # a sub-layer declared after its parent: above it
top
"""


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w', encoding='utf-8') as f:
        f.write(text)


def run_checker(root):
    result = subprocess.run([sys.executable, CHECKER, '--root', root,
                             '--layers', os.path.join(root, 'layers.txt')],
                            capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        write(self.root, 'layers.txt', LAYERS)
        write(self.root, 'low/base.hpp', '#pragma once\n#include <vector>\n#include "mpi.h"\n')
        write(self.root, 'mid/thing.hpp', '#include "low/base.hpp"\n')
        write(self.root, 'mid/thing.cpp', '#include "mid/thing.hpp"\n#include "sibling.hpp"\n')
        write(self.root, 'mid/sibling.hpp', '#include "low/base.hpp"\n')
        write(self.root, 'mid/floor_above/x.hpp', '#include "mid/thing.hpp"\n')
        write(self.root, 'top/main.cpp', '#include "mid/floor_above/x.hpp"\n#include "gen.hpp"\n')
        write(self.root, 'top/gen.hpp.in', '#define X @X@\n')
        # A test may include anything.
        write(self.root, 'low/tests/low_test.cpp', '#include "top/main.cpp"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def test_clean_tree_passes(self):
        status, out = run_checker(self.root)
        self.assertEqual(status, 0, out)
        self.assertIn('none runs up a layer', out)
        # thing.hpp, thing.cpp (2), sibling, x.hpp, main.cpp (2); mpi.h is outside the tree.
        self.assertIn('7 includes checked', out)

    def test_planted_upward_include_fails_and_is_listed(self):
        write(self.root, 'low/base.hpp', '#pragma once\n\n#include "mid/thing.hpp"\n')
        status, out = run_checker(self.root)
        self.assertEqual(status, 1, out)
        self.assertIn('low/base.hpp:3: includes mid/thing.hpp: layer mid is above low', out)
        self.assertIn('1 upward include(s)', out)

    def test_every_violation_is_listed(self):
        write(self.root, 'low/a.cpp', '#include "top/main.cpp"\n')
        write(self.root, 'mid/b.cpp', '  #  include "floor_above/x.hpp"\n')
        status, out = run_checker(self.root)
        self.assertEqual(status, 1, out)
        self.assertIn('low/a.cpp:1: includes top/main.cpp: layer top is above low', out)
        # Resolved next to the including file, and the longer prefix wins.
        self.assertIn('mid/b.cpp:1: includes mid/floor_above/x.hpp: layer mid/floor_above '
                      'is above mid', out)
        self.assertIn('2 upward include(s)', out)

    def test_generated_file_counts_at_its_output_path(self):
        write(self.root, 'mid/uses_gen.cpp', '#include "top/gen.hpp"\n')
        status, out = run_checker(self.root)
        self.assertEqual(status, 1, out)
        self.assertIn('mid/uses_gen.cpp:1: includes top/gen.hpp', out)

    def test_bad_layer_file_is_refused(self):
        write(self.root, 'layers.txt', 'low\nlow\n')
        status, out = run_checker(self.root)
        self.assertEqual(status, 2, out)
        self.assertIn('"low" is declared twice', out)


if __name__ == '__main__':
    unittest.main()
