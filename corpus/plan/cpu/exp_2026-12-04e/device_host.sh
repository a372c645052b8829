#!/usr/bin/env bash
# On the device machine's host (run from the repository root, build-pack/carry.tar.xz
# carried): the issue 10 targets with the final profile-guided benchmarks (pb_pgo), and
# the fuzzer's rate, old (9151d4e) against new plain builds (wc_*, fb_*), alternating
# their order each round, pinned to one core.
set -u
R=$(pwd)
tar -xJf build-pack/carry.tar.xz
export LD_LIBRARY_PATH=$R/build-carry/lib
B=$R/build-carry/bin
C=${CORE:-5}
[ -e /work/main/corpus ] || { mkdir -p /work/main && ln -s "$R/corpus" /work/main/corpus; }
nproc; grep -m1 "model name" /proc/cpuinfo; uptime
for round in $(seq 1 ${ROUNDS:-6}); do
  echo "== round $round pgo"
  taskset -c $C $B/pb_pgo --benchmark_filter='^BM_PlanEmit/0$|^BM_PlanEmitSimulate/0$' \
    --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
  taskset -c $C $B/fb_pgo --benchmark_filter='^BM_CheckPairOnceOnly$|^BM_CheckPairNoProof$' \
    --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
  if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for v in $order; do
    echo "== round $round $v"
    taskset -c $C $B/fb_$v --benchmark_filter='^BM_CheckPairNoProof$' \
      --benchmark_min_time=0.5 2>/dev/null | grep '^BM_'
    echo "fuzz_command $(taskset -c $C $B/wc_$v fuzz layouts --count=2000 --seed=1 \
      --prove=none --format=json | grep -o -E '"pairs_per_second":[0-9.]+')"
  done
done
uptime
