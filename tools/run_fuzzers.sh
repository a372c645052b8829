#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a budget, in parallel, and prints one
# line per target: executions, executions per second, and the crash/timeout/OOM/leak
# artifacts found (each is a reproducer: add it to corpus/fuzz/<target>/ once fixed).
#
#   tools/run_fuzzers.sh BIN_DIR OUT_DIR [SECONDS=600] [RUNS=10000000] [JOBS=nproc]
#
# BIN_DIR holds the <target>_fuzzer binaries (build-fuzz/tests/fuzz, see
# tests/fuzz/README.md). Each target starts from its seeds in corpus/fuzz/<target>/ and
# keeps what it finds in OUT_DIR/<target>/corpus; artifacts and the log go to
# OUT_DIR/<target>/. A target stops at RUNS executions or SECONDS, whichever is first.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$1"; out="$2"; seconds="${3:-600}"; runs="${4:-10000000}"; jobs="${5:-$(nproc)}"
targets=()
for f in "$root"/tests/fuzz/*_fuzzer.cc; do targets+=("$(basename "${f%_fuzzer.cc}")"); done
run_one() {
  local t="$1" dir="$out/$1"
  mkdir -p "$dir/corpus"
  (cd "$dir" && "$bin/${t}_fuzzer" -max_total_time="$seconds" -runs="$runs" \
     -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
     corpus "$root/corpus/fuzz/$t" > log 2>&1)
}
export -f run_one; export bin out seconds runs root
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
printf '%-16s %12s %10s %8s  %s\n' target execs execs/s seconds artifacts
for t in "${targets[@]}"; do
  log="$out/$t/log"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}')
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | awk '{print $5}')
  arts=$(cd "$out/$t" && ls -1 crash-* timeout-* oom-* leak-* slow-unit-* 2>/dev/null | tr '\n' ' ')
  printf '%-16s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${secs:-?}" "${arts:-none}"
done
