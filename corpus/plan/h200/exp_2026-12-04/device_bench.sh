#!/usr/bin/env bash
# Old (8ebd906) and new benchmark binaries alternated on one pinned core of the device host.
set -u
R=$(pwd)
if [ ! -e /work/main/corpus/plan/triton_costs.tsv ]; then
  mkdir -p /work 2>/dev/null; ln -sfn "$R" /work/main 2>/dev/null || true
fi
ls -la /work/main/corpus/plan/triton_costs.tsv
export LD_LIBRARY_PATH=$R/build-carry/lib
B=$R/build-carry/bin
nproc; grep -m1 "model name" /proc/cpuinfo; uptime
for round in 1 2 3 4 5 6; do
  for v in old new; do
    echo "== round $round pb_$v"
    taskset -c 5 $B/plan_benchmark_$v --benchmark_filter='BM_PlanEmit(Simulate)?/0$' --benchmark_min_time=1 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | grep _median
  done
done
for round in 1 2 3 4; do
  for v in old new; do
    echo "== round $round fb_$v"
    taskset -c 5 $B/fuzz_benchmark_$v --benchmark_filter='BM_CheckPair(OnceOnly|NoProof)(/iterations:200)?$' --benchmark_min_time=2 2>&1 | grep "^BM_"
  done
done
uptime
