#!/bin/bash
# Nsight Compute on our and Triton's round-trip kernels of the pairs in $1, as timed
# (`warpcheck_gpu_run --time`: 528 CTAs, iters = 2000; the first launch is profiled).
pairs=${1:-build-pairs2}
export LD_LIBRARY_PATH=$PWD/build-carry/lib:$LD_LIBRARY_PATH
mkdir -p $OUT/ncu
for side in ours triton; do
  for f in $pairs/$side/*.textproto; do
    n=$(basename $f .textproto)
    ncu --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
        --section ComputeWorkloadAnalysis --section SpeedOfLight -c 1 \
        build-carry/bin/warpcheck_gpu_run --time --grid-x=528 --iters=2000 --warmup=0 --reps=1 --min-ms=0 $f \
        > $OUT/ncu/${side}_$n.txt 2>&1
    echo "$side $n rc=$?"
  done
done
