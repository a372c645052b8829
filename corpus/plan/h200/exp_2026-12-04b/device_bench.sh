#!/usr/bin/env bash
# Baseline (-O3) and profile-guided (-fprofile-use) plan_benchmark binaries alternated on
# one pinned core of the device host. pb_base: build/ at HEAD; pb_pgo: the four per-pair
# libraries trained on `warpcheck fuzz layouts` (seeds 3 and 5, 4 500 pairs, --prove=none);
# pb_pgo2: the same plus sim/layout and sim/base.
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
for round in 1 2 3 4 5 6; do
  for v in ${VARIANTS:-base pgo pgo2}; do
    echo "== round $round pb_$v"
    taskset -c $CORE $B/pb_$v --benchmark_filter='BM_PlanEmit(Simulate)?/0$' --benchmark_min_time=1 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | grep _median
  done
done
uptime
