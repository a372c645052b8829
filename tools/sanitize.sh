#!/usr/bin/env bash
# The sanitizer job (issue 12, item 5; tools/test.sh runs it in CI after the main
# tests): the readers' unit tests and the fuzz seed corpora under ASan + UBSan;
# SANITIZE_HOSTILE=1 adds the hostile-input catalogue (it needs the whole warpcheck
# binary sanitized: too slow for CI).
#
# Builds with gcc's -fsanitize=address,undefined (-DSANITIZE, applied to every warpcheck
# target; -fno-sanitize-recover=all makes any UB report fatal) into
# ${ASAN_BUILD_DIR:-build-asan}, without benchmarks or CUDA. Only the targets below are
# built: a sanitized build of the whole suite does not fit CI's 30-minute budget next
# to the main job (tests/fuzz/README.md has the measured times). Each unit-test binary
# runs once as one process (ctest would start one ASan process per test case); the
# hostile catalogue and the fuzz replays run through ctest (labels hostile, fuzz-replay).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ASAN_BUILD_DIR:-$root/build-asan}"
# The readers first; then (since the CI-time work of 2026-12-02 left room: the job took
# 8 min 48 s) the simulator-only tests that run in seconds under ASan: the planner's,
# which found a shift by 32 in F2Span::Add (lane_cost_test's F2SpanTest regression case),
# the machine's, the layouts', the PTX printer's and the signal explainer's.
unit_tests=(ptx_parser_test expr_parser_test encoding_parse_test encoding_to_linear_test
            launch_spec_test file_test swizzle_spec_test swizzle_problem_test
            program_test machine_launch_test
            bits_test json_test text_limit_test field_position_test expr_eval_test
            expr_printer_test buffer_fill_test sha256_test layout_utils_test
            linear_layout_test malformed_corpus_test machine_semantics_test
            machine_bank_test machine_fault_test machine_warp_test ptx_op_table_test
            ptx_printer_test lane_cost_test matrix_test plan_test triton_floor_test
            swizzle2d_test swizzle_show_test record_replay_test expect_test
            explain_lint_test)
replays=()
for f in "$root"/tests/fuzz/*_fuzzer.cc; do replays+=("$(basename "${f%.cc}")_replay"); done
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export WARPCHECK_SOURCE_DIR="$root"
extra=""
[ "${SANITIZE_HOSTILE:-0}" = 1 ] && extra="warpcheck hostile_input_test"
# -O0 -g1 instead of the main build's -O2 -g1: instrumented -O1 compiles take 2-2.5x the CPU
# of -O0 (planner.cc 35.3 vs 14.2 s, ptx_parser_test.cc 19.2 vs 10.1 s), and reports keep
# their line numbers.
TARGETS="$extra ${unit_tests[*]} ${replays[*]}" BUILD_DIR="$build" \
  "$root/tools/build.sh" -DSANITIZE=address,undefined -DWITH_BENCHMARKS=OFF -DWITH_CUDA=OFF \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1"
cd "$build"
# The binaries run ${JOBS:-nproc} at a time, the slowest first (plan_test about 60 s
# under ASan at -O0, then ptx_parser_test, matrix_test, triton_floor_test and
# swizzle_spec_test at 23-32 s, 2026-12-04b), each into
# its own log, printed when it fails: one after another they were a sixth of CI's wall
# time on 2 cores.
failed=()
logs="$build/sanitize-logs"
rm -rf "$logs"
mkdir -p "$logs"
slow_first=(plan_test ptx_parser_test matrix_test triton_floor_test swizzle_spec_test)
order=()
for t in "${slow_first[@]}"; do
  [[ " ${unit_tests[*]} " != *" $t "* ]] || order+=("$t")
done
for t in "${unit_tests[@]}"; do
  [[ " ${slow_first[*]} " == *" $t "* ]] || order+=("$t")
done
printf '%s\n' "${order[@]}" |
  xargs -P "${JOBS:-$(nproc)}" -I{} sh -c \
    'cd tests; ./{} --gtest_brief=1 > "$0/{}.log" 2>&1; rc=$?; echo $rc > "$0/{}.rc"
     if [ $rc = 0 ]; then echo "sanitize: {} ok"; else echo "sanitize: {} FAILED (exit $rc)"; cat "$0/{}.log"; fi' "$logs"
for t in "${unit_tests[@]}"; do
  [ "$(cat "$logs/$t.rc" 2>/dev/null)" = 0 ] || failed+=("$t")
done
labels='fuzz-replay'
[ "${SANITIZE_HOSTILE:-0}" = 1 ] && labels='hostile|fuzz-replay'
ctest --output-on-failure -j "${JOBS:-$(nproc)}" -L "$labels" || failed+=(ctest)
if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: all passed under ASan + UBSan"
