#!/usr/bin/env bash
# Installs the Debian packages collbench needs, only those that are missing.
# Run as root (apt-get); otherwise prints the apt-get line to run and fails.
#   --fuzz  also clang and its libFuzzer runtime (only scripts/fuzz.sh needs them)
set -euo pipefail

packages=(g++ pkg-config meson ninja-build mpich libmpich-dev libcli11-dev libfmt-dev
          libgtest-dev libbenchmark-dev nlohmann-json3-dev python3-matplotlib
          iproute2 iptables ethtool iputils-ping libnetfilter-queue-dev)
[ "${1:-}" = --fuzz ] && packages+=(clang libclang-rt-14-dev)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "collbench: missing Debian packages: ${missing[*]}" >&2
  echo "collbench: run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "collbench: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
