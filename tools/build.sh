#!/usr/bin/env bash
# Configures and builds warpcheck into ${BUILD_DIR:-build}. Extra arguments go to cmake.
# TARGETS="warpcheck sha256_test" builds only those targets (default: everything).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"
export CCACHE_DIR="${CCACHE_DIR:-$root/.ccache}"
# The tests share a precompiled header (tests/CMakeLists.txt): ccache caches the files
# that include it only with these two sloppinesses (its manual, "Precompiled headers").
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
# TARGETS become the dependencies of one target, warpcheck_selected (the top-level
# CMakeLists.txt), which make builds in parallel. Passed as `--target a --target b ...`
# they were built one after another: CMake's top-level Makefile is .NOTPARALLEL, so make
# runs its goals in turn, and the sanitizer job's ~40 one-file test binaries took 5.7 of
# its build's 8.8 minutes on 2 cores.
selected="$(echo ${TARGETS:-} | tr ' ' ';')"
configure() {  # configure PGO_MODE [cmake arguments]
  local mode="$1"
  shift
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DWARPCHECK_SELECTED_TARGETS=$selected" "-DWARPCHECK_PGO=$mode" "$@" \
    > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
}

# Profile-guided build of the per-pair libraries (sim/plan/README.md, "Profile-guided
# build"): build warpcheck with them instrumented, train it on the fuzzer's own stream
# (plan -> emit -> simulate -> check of generated pairs: none of the benchmarks' Triton
# pairs), then build what was asked with the profile. The training runs again only when a
# source under sim/ or proto/ is newer than the last one. PGO=0 skips it all; so do
# sanitizer, libFuzzer and non-default build types (arguments naming them).
pgo="${PGO:-1}"
for arg in "$@"; do
  case "$arg" in
    -DSANITIZE=?* | -DWITH_FUZZERS=ON | -DCMAKE_BUILD_TYPE=*) pgo=0 ;;
  esac
done
if [ "$pgo" = 1 ]; then
  stamp="$build/pgo/trained"
  if [ ! -e "$stamp" ] || [ -n "$(find "$root/sim" "$root/proto" -newer "$stamp" \
      \( -name '*.cc' -o -name '*.h' -o -name '*.proto' \) -print -quit)" ]; then
    echo "build.sh: profile-guided build: training an instrumented warpcheck"
    rm -f "$stamp"
    configure generate "$@"
    cmake --build "$build" -j "$jobs" --target warpcheck
    find "$build" -name '*.gcda' -delete
    mkdir -p "$build/pgo"
    # 3 000 generated pairs, every strategy, no solver (the prover is not profiled).
    if "$build/tools/warpcheck" fuzz layouts --count=3000 --seed=5 --prove=none \
        --format=json > "$build/pgo/train.json" 2> "$build/pgo/train.log"; then
      touch "$stamp"
    else
      echo "build.sh: the training run failed (exit $?; $build/pgo/train.log);" \
           "building without a profile" >&2
      pgo=0
    fi
  fi
fi
if [ "$pgo" = 1 ]; then configure use "$@"; else configure "" "$@"; fi
if [ -n "$selected" ]; then
  cmake --build "$build" -j "$jobs" --target warpcheck_selected
else
  cmake --build "$build" -j "$jobs"
fi
