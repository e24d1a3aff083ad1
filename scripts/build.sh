#!/usr/bin/env bash
# Configures (once) and builds collbench into ./build. Extra args go to meson setup.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ ! -f build/build.ninja ]; then
  meson setup build "$@" >&2
fi
ninja -C build >&2
