#!/usr/bin/env python3
"""Fails on any #include that runs up a layer (tests/layers/layers.txt).

Reads every `#include "..."` in the layered directories, resolves it as the
compiler does (next to the including file first, then from the source root,
where every include of collbench starts), maps both files to their layers by
longest path prefix and lists every include from a lower layer to a higher
one. A generated file (config.hpp from config.hpp.in) counts at its output
path. Exit status: 0 clean, 1 upward includes found (each listed), 2 bad
arguments or layer file.
"""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = ('.cpp', '.hpp', '.h', '.inc', '.cu', '.cc', '.c')
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_layers(path):
    """The layer prefixes in file order (lowest first)."""
    layers = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            entry = line.split('#', 1)[0].strip()
            if not entry:
                continue
            if ' ' in entry or entry.startswith('/') or entry.endswith('/'):
                raise ValueError(f'{path}:{number}: "{entry}" is not a relative path '
                                 '(one path prefix a line, no trailing /)')
            if entry in layers:
                raise ValueError(f'{path}:{number}: "{entry}" is declared twice')
            layers.append(entry)
    if not layers:
        raise ValueError(f'{path}: declares no layer')
    return layers


def layer_of(rel_path, layers):
    """Index of the longest prefix in `layers` containing rel_path, or None."""
    best = None
    for index, prefix in enumerate(layers):
        if rel_path == prefix or rel_path.startswith(prefix + '/'):
            if best is None or len(prefix) > len(layers[best]):
                best = index
    return best


def exempt(rel_path):
    return 'tests' in rel_path.split('/')[:-1]


def source_files(root, layers):
    """Relative paths (as the build sees them: .in stripped) and real paths."""
    tops = sorted({prefix.split('/')[0] for prefix in layers})
    for top in tops:
        for directory, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(files):
                built = name[:-3] if name.endswith('.in') else name
                if not built.endswith(SOURCE_SUFFIXES):
                    continue
                real = os.path.join(directory, name)
                rel = os.path.relpath(os.path.join(directory, built), root).replace(os.sep, '/')
                yield rel, real


def resolve(root, including_rel, target):
    """The included file's path relative to root, or None outside the tree."""
    candidates = [os.path.normpath(os.path.join(os.path.dirname(including_rel), target)),
                  os.path.normpath(target)]
    for candidate in candidates:
        full = os.path.join(root, candidate)
        if os.path.isfile(full) or os.path.isfile(full + '.in'):
            return candidate.replace(os.sep, '/')
    return None


def upward_includes(root, layers):
    """(violations, includes checked); a violation is a printable line."""
    violations = []
    checked = 0
    for rel, real in source_files(root, layers):
        if exempt(rel):
            continue
        own = layer_of(rel, layers)
        if own is None:
            continue
        with open(real, encoding='utf-8', errors='replace') as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = resolve(root, rel, match.group(1))
                if target is None:
                    continue  # a system or third-party header written with quotes
                theirs = layer_of(target, layers)
                if theirs is None:
                    continue
                checked += 1
                if theirs > own:
                    shown = os.path.relpath(real, root).replace(os.sep, '/')
                    violations.append(f'{shown}:{number}: includes {target}: layer '
                                      f'{layers[theirs]} is above {layers[own]}')
    return violations, checked


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.normpath(os.path.join(here, '..', '..')),
                        help='source tree to check (default: this checkout)')
    parser.add_argument('--layers', default=None,
                        help='layer file (default: ROOT/tests/layers/layers.txt)')
    args = parser.parse_args(argv)
    layers_path = args.layers or os.path.join(args.root, 'tests', 'layers', 'layers.txt')
    try:
        layers = read_layers(layers_path)
    except (OSError, ValueError) as error:
        print(f'check_layers: {error}', file=sys.stderr)
        return 2
    violations, checked = upward_includes(args.root, layers)
    for line in violations:
        print(line)
    if violations:
        print(f'check_layers: {len(violations)} upward include(s) of {checked} checked '
              f'(layers, lowest first: {" < ".join(layers)})')
        return 1
    print(f'check_layers: {checked} includes checked, none runs up a layer')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
