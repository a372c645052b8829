#!/usr/bin/env bash
# Installs what warpcheck needs to build and test on Debian 12 (the project's machine
# kind), skipping what is already there. Safe to run repeatedly.
set -euo pipefail

packages=(build-essential cmake pkg-config ccache
          libz3-dev libabsl-dev libprotobuf-dev protobuf-compiler
          libgtest-dev libgmock-dev libbenchmark-dev libssl-dev python3
          libgoogle-perftools-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Triton (pip, CPU only) is the oracle for what Triton generates: `fuzz layouts
# --against=triton` and its ctest sample, which skips (77) when this fails.
if ! python3 -c 'import triton' >/dev/null 2>&1; then
  echo "install_deps: pip install triton==3.6.0 (optional: the Triton fuzz sample skips without it)"
  python3 -m pip install --quiet --timeout 60 triton==3.6.0 \
    || echo "install_deps: triton not installed; its tests will skip"
fi
