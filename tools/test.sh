#!/usr/bin/env bash
# Install what is missing, build, and run every test with ctest (GPU tests skip with 77
# where there is no GPU). WARPCHECK_SANITIZE=1 adds the sanitizer job (tools/sanitize.sh:
# the readers' unit tests and the fuzz replays under ASan + UBSan, in their own build);
# it is off by default: on a clean clone of this 2-core machine it took 13 min (and
# passed) next to a main job of 23 min, past CI's 30-minute budget (tests/fuzz/README.md). Extra arguments go
# to ctest, e.g. tools/test.sh -L unit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
if [ "${WARPCHECK_SANITIZE:-0}" != 0 ]; then
  "$root/tools/sanitize.sh"
fi
