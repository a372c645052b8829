#!/usr/bin/env bash
# A/B of the plain (-O3) and profile-guided builds on one pinned core of the device host:
# pb_base/pb_pgo (plan_benchmark) and fb_base/fb_pgo (fuzz_benchmark), ROUNDS rounds, the
# order alternating each round, one short run per binary.
set -u
R=$(pwd)
tar -xJf build-pack/carry.tar.xz
if [ ! -e /work/main/corpus/plan/triton_costs.tsv ]; then
  mkdir -p /work 2>/dev/null; ln -sfn "$R" /work/main 2>/dev/null || true
fi
export LD_LIBRARY_PATH=$R/build-carry/lib
B=$R/build-carry/bin
nproc; grep -m1 "model name" /proc/cpuinfo; uptime
CORE=${CORE:-5}
for round in $(seq 1 ${ROUNDS:-14}); do
  if [ $((round % 2)) = 1 ]; then order="base pgo"; else order="pgo base"; fi
  for v in $order; do
    echo "== round $round pb_$v $(taskset -c $CORE $B/pb_$v --benchmark_filter='BM_PlanEmit(Simulate)?/0$' \
      --benchmark_min_time=0.5 2>&1 | grep -o -E '(median_us|pairs/s)=[0-9.k]+' | tr '\n' ' ')"
  done
done
for round in $(seq 1 ${FROUNDS:-6}); do
  if [ $((round % 2)) = 1 ]; then order="base pgo"; else order="pgo base"; fi
  for v in $order; do
    echo "== round $round fb_$v $(taskset -c $CORE $B/fb_$v --benchmark_filter='BM_CheckPair(OnceOnly|NoProof)$' \
      --benchmark_min_time=1 2>&1 | grep '^BM_' | awk '{printf "%s %s %s | ", $1, $4, $5}')"
  done
done
uptime
