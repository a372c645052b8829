#!/usr/bin/env bash
# Plain (PGO=0 BUILD_DIR=build-base) against profile-guided (build/) binaries of the same
# sources on this machine, alternating order each round, pinned to one core.
# Usage: bench_ab.sh ROUNDS CORE > out.txt   (run from the repository root)
set -euo pipefail
rounds="${1:-8}"
core="${2:-1}"
lscpu | grep -E "Model name|CPU family|^Model:" || true
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="build-base build"; else order="build build-base"; fi
  for b in $order; do
    echo "== round $r $b"
    taskset -c "$core" "$b/tests/bench/plan_benchmark" \
      --benchmark_filter='^BM_PlanEmit/0$|^BM_PlanEmitSimulate/0$' --benchmark_min_time=0.5 \
      2>/dev/null | grep '^BM_'
    taskset -c "$core" "$b/tests/bench/fuzz_benchmark" \
      --benchmark_filter='^BM_CheckPairOnceOnly$|^BM_CheckPairNoProof$' \
      --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    taskset -c "$core" "$b/tools/warpcheck" fuzz layouts --count=2000 --seed=1 \
      --prove=none --format=json | python3 -c \
      "import json,sys; d=json.load(sys.stdin)['fuzz']; print('fuzz_command pairs/s', round(d['pairs_per_second']))"
  done
done
