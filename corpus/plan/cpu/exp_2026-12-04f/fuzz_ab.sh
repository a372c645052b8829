#!/usr/bin/env bash
# Two builds' fuzz figures, alternating order each round, pinned to one core: the
# benchmark's pairs/s (and pes/s where the build has it), and the command's pairs/s and
# its own plan + emit + simulate figure (1000 / (plan + emit + simulate) of
# check_ms_by_stage, in pairs/s), by default and with --one-way where the build has it.
# Usage: fuzz_ab.sh OLD_BUILD NEW_BUILD ROUNDS CORE > out.txt
set -euo pipefail
old="$1" new="$2" rounds="${3:-6}" core="${4:-1}"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="$old $new"; else order="$new $old"; fi
  for b in $order; do
    echo "== round $r $b"
    taskset -c "$core" "$b/tests/bench/fuzz_benchmark" \
      --benchmark_filter='^BM_CheckPairOnceOnly$|^BM_CheckPairNoProof$|^BM_CheckPairOneWay$' \
      --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    modes="default"
    if "$b/tools/warpcheck" fuzz layouts --help | grep -q -- --one-way; then modes="default --one-way"; fi
    for mode in $modes; do
      flag=""; [ "$mode" = "default" ] || flag="$mode"
      for seed in 1 7; do
        taskset -c "$core" "$b/tools/warpcheck" fuzz layouts --count=2000 --seed=$seed \
          --prove=none $flag --format=json | python3 -c "
import json,sys
d=json.load(sys.stdin)['fuzz']; st=d.get('check_ms_by_stage',{})
pes=sum(st.get(k,0) for k in ('plan','emit','simulate'))
print('fuzz_command $mode seed $seed pairs/s', round(d['pairs_per_second']),
      'plan+emit+simulate pairs/s', round(1000/pes) if pes else '-',
      'stages_ms', {k: round(v,4) for k,v in sorted(st.items())})"
      done
    done
  done
done
