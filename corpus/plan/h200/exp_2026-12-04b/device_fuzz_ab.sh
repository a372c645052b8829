#!/usr/bin/env bash
# The fuzz command's own rate, plain (wc_base) and profile-guided (wc_pgo) warpcheck
# alternated on one pinned core of the device host: 2 000 pairs of seed 1, --prove=none.
set -u
R=$(pwd)
tar -xJf build-pack/carry.tar.xz
export LD_LIBRARY_PATH=$R/build-carry/lib
B=$R/build-carry/bin
nproc; grep -m1 "model name" /proc/cpuinfo; uptime
for round in $(seq 1 ${ROUNDS:-8}); do
  if [ $((round % 2)) = 1 ]; then order="base pgo"; else order="pgo base"; fi
  for v in $order; do
    echo "== round $round wc_$v $(taskset -c ${CORE:-5} $B/wc_$v fuzz layouts --count=2000 --seed=1 \
      --prove=none --format=json | grep -o -E '"pairs_per_second":[0-9.]+')"
  done
done
uptime
