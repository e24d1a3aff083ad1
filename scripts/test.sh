#!/usr/bin/env bash
# README's test command: installs what is missing, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
meson test -C build --print-errorlogs "$@"
