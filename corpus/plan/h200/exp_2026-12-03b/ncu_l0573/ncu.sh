#!/bin/bash
# Nsight Compute on ours/Triton round-trip kernels of build-ncu30 (l0573 from timing_v13
#, as timed: 528 CTAs, iters 2000, first launch.
export LD_LIBRARY_PATH=$PWD/build-carry29/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/ncu
for side in ours triton; do
  for f in build-ncu30/$side/*.textproto; do
    n=$(basename $f .textproto)
    timeout 120 ncu --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
        --section ComputeWorkloadAnalysis --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section InstructionStats --section SourceCounters -c 1 \
        build-carry29/bin/warpcheck_gpu_run --time --grid-x=528 --iters=2000 --warmup=0 --reps=1 --min-ms=0 $f \
        > /tmp/ncu/${side}_$n.txt 2>&1
    echo "$side $n rc=$?"
  done
done
tar czf $OUT/ncu30.tgz -C /tmp/ncu .

export PATH=/usr/local/cuda/bin:$PATH
for f in build-ncu30/*/*.ptx; do a=sm_90; grep -q sm_90a $f && a=sm_90a; ptxas --gpu-name $a -v $f -o /tmp/k.cubin > /tmp/ncu/$(basename $(dirname $f))_ptxas.txt 2>&1 && cuobjdump -sass /tmp/k.cubin > /tmp/ncu/$(basename $(dirname $f))_sass.txt; done
tar czf $OUT/ncu30.tgz -C /tmp/ncu .
