#!/usr/bin/env bash
# On the device machine's host (run from the repository root, build-pack/carry.tar.xz
# carried): the fuzzer's rate, old (046fa9c) against new plain builds (wc_*, fb_*),
# alternating their order each round, pinned to one core; the new build also one way
# (--one-way, BM_CheckPairOneWay), and the final profile-guided build (wc_pgo, fb_pgo).
# Each command line prints pairs/s and plan + emit + simulate pairs/s (pes/s, from
# check_ms_by_stage).
set -u
R=$(pwd)
tar -xJf build-pack/carry.tar.xz
export LD_LIBRARY_PATH=$R/build-carry/lib
B=$R/build-carry/bin
C=${CORE:-5}
nproc; grep -m1 "model name" /proc/cpuinfo; uptime
fuzz() {  # binary, label, flags...
  local b=$1 label=$2; shift 2
  taskset -c $C $B/$b fuzz layouts --count=2000 --seed=1 --prove=none --format=json "$@" |
    python3 -c "
import json,sys
d=json.load(sys.stdin)['fuzz']; st=d.get('check_ms_by_stage',{})
pes=sum(st.get(k,0) for k in ('plan','emit','simulate'))
print('fuzz_command $label seed 1 pairs/s', round(d['pairs_per_second']), 'pes/s', round(1000/pes) if pes else '-')"
}
for round in $(seq 1 ${ROUNDS:-6}); do
  if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for v in $order; do
    echo "== round $round $v"
    if [ $v = new ]; then filter='^BM_CheckPairNoProof$|^BM_CheckPairOneWay$'; else filter='^BM_CheckPairNoProof$'; fi
    taskset -c $C $B/fb_$v --benchmark_filter="$filter" --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    fuzz wc_$v default
    [ $v = new ] && fuzz wc_new one-way --one-way
  done
  echo "== round $round pgo"
  taskset -c $C $B/fb_pgo --benchmark_filter='^BM_CheckPairNoProof$|^BM_CheckPairOneWay$' \
    --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
  fuzz wc_pgo default
  fuzz wc_pgo one-way --one-way
done
uptime
