#!/usr/bin/env bash
# Emits every ok pair of a cost table (corpus/plan/triton_costs.tsv columns line, status,
# src, dst, shape, dtype, num_warps) as PTX, one file per pair and harness, so that two
# builds' plans can be diffed byte for byte:
#
#   tools/plan/emit_corpus.sh OLD/warpcheck /tmp/before [STEP]
#   tools/plan/emit_corpus.sh build/tools/warpcheck /tmp/after [STEP]
#   diff -r /tmp/before /tmp/after
#
# STEP (default 1) takes every STEP-th pair. Pairs the planner rejects get a .err file
# with its message, so a changed verdict shows in the diff too.
set -euo pipefail
bin="$1"
out="$2"
step="${3:-1}"
table="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/corpus/plan/triton_costs.tsv"
mkdir -p "$out"
n=0
# Tabs are whitespace to `read` (empty cells would collapse): split on \x1f instead.
tail -n +2 "$table" | tr '\t' '\037' |
while IFS=$'\037' read -r line status _reason src dst shape dtype warps _rest; do
  n=$((n + 1))
  [[ "$status" == ok && $(( (n - 1) % step )) -eq 0 ]] || continue
  for h in roundtrip once; do
    if ! "$bin" convert emit --src="$src" --dst="$dst" --shape="$shape" --dtype="$dtype" \
        --num-warps="$warps" --harness="$h" -o "$out/$line.$h.ptx" > /dev/null 2> "$out/$line.$h.err"; then
      continue
    fi
    rm -f "$out/$line.$h.err"
  done
done
echo "emitted $(ls "$out" | grep -c '\.ptx$') kernels into $out"
