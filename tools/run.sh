#!/usr/bin/env bash
# The main job: install what is missing, build warpcheck, and run `warpcheck corpus check` over
# the whole corpus (every case against its expected verdict). Exit code is warpcheck's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install_deps.sh"
TARGETS=warpcheck "$root/tools/build.sh"  # only what this job runs; tools/test.sh builds all
cd "$root"
exec "${BUILD_DIR:-$root/build}/tools/warpcheck" corpus check corpus "$@"
