#!/usr/bin/env bash
# Two builds' fuzz figures, alternating order each round, pinned to one core.
# Usage: fuzz_ab.sh OLD_BUILD NEW_BUILD ROUNDS CORE > out.txt
set -euo pipefail
old="$1" new="$2" rounds="${3:-6}" core="${4:-1}"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="$old $new"; else order="$new $old"; fi
  for b in $order; do
    echo "== round $r $b"
    taskset -c "$core" "$b/tests/bench/fuzz_benchmark" \
      --benchmark_filter='^BM_CheckPairOnceOnly$|^BM_CheckPairNoProof$' \
      --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    for seed in 1 7; do
      taskset -c "$core" "$b/tools/warpcheck" fuzz layouts --count=2000 --seed=$seed \
        --prove=none --format=json | python3 -c \
        "import json,sys; d=json.load(sys.stdin)['fuzz']; print('fuzz_command seed $seed pairs/s', round(d['pairs_per_second']))"
    done
  done
done
