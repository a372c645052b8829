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
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DWARPCHECK_SELECTED_TARGETS=$selected" "$@" > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
if [ -n "$selected" ]; then
  cmake --build "$build" -j "$jobs" --target warpcheck_selected
else
  cmake --build "$build" -j "$jobs"
fi
