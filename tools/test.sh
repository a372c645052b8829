#!/usr/bin/env bash
# Install what is missing, build, and run every test with ctest (GPU tests skip with 77
# where there is no GPU), then the sanitizer job (tools/sanitize.sh: the readers' unit
# tests and the fuzz replays under ASan + UBSan, in their own -O0 build: 1 060 CPU
# seconds on a clean clone, tests/fuzz/README.md "Sanitizers").
# WARPCHECK_SANITIZE=0 skips it. Extra arguments go to ctest, e.g. tools/test.sh -L unit.
# The tests check behaviour, not speed, so this build skips the profile-guided step
# (tools/build.sh; PGO=1 asks for it): on the CI machine that step took stop 35's clean
# run from 1 245 s to 1 949 s, past the 30-minute budget.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install_deps.sh"
PGO="${PGO:-0}" "$root/tools/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
if [ "${WARPCHECK_SANITIZE:-1}" != 0 ]; then
  "$root/tools/sanitize.sh"
fi
