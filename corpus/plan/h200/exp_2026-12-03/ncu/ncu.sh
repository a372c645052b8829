#!/bin/bash
# Nsight Compute on ours/Triton round-trip kernels of build-pairs21 (l0354, l0523 from
# timing_v11's pairs, l0557 narrowed), as timed: 528 CTAs, iters 2000, first launch.
export LD_LIBRARY_PATH=$PWD/build-carry18/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/ncu
for side in ours triton; do
  for f in build-pairs21/$side/*.textproto; do
    n=$(basename $f .textproto)
    timeout 120 ncu --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
        --section ComputeWorkloadAnalysis --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section InstructionStats -c 1 \
        build-carry18/bin/warpcheck_gpu_run --time --grid-x=528 --iters=2000 --warmup=0 --reps=1 --min-ms=0 $f \
        > /tmp/ncu/${side}_$n.txt 2>&1
    echo "$side $n rc=$?"
  done
done
tar czf $OUT/ncu21.tgz -C /tmp/ncu .
