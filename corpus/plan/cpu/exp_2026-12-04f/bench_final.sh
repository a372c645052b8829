#!/usr/bin/env bash
# The final code's rate figures, pinned to one core, ROUNDS rounds, for each build dir
# given (a plain and a profile-guided build): BM_PlanEmitSimulate/0 (default check) and /1
# (one way) as Google Benchmark times them, BM_CheckPairOneWay, and the command's
# plan + emit + simulate figure one way on seeds 1, 7 and 11 (--count=2000 --prove=none).
# Usage: bench_final.sh ROUNDS CORE BUILD... > out.txt
set -euo pipefail
rounds="$1" core="$2"; shift 2
for r in $(seq 1 "$rounds"); do
  for b in "$@"; do
    echo "== round $r $b"
    taskset -c "$core" "$b/tests/bench/fuzz_benchmark" \
      --benchmark_filter='^BM_PlanEmitSimulate/|^BM_CheckPairOneWay$' \
      --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    for seed in 1 7 11; do
      taskset -c "$core" "$b/tools/warpcheck" fuzz layouts --count=2000 --seed=$seed \
        --prove=none --one-way --format=json | python3 -c "
import json,sys
d=json.load(sys.stdin)['fuzz']; st=d['check_ms_by_stage']
pes=st['plan']+st['emit']+st['simulate']
print('fuzz_command --one-way seed $seed pairs/s', round(d['pairs_per_second']), 'plan+emit+simulate pairs/s', round(1000/pes))"
    done
  done
done
