#!/usr/bin/env bash
# Install what is missing, build, and run every test with ctest (GPU tests skip with 77
# where there is no GPU). Extra arguments go to ctest, e.g. tools/test.sh -L unit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
