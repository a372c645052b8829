#!/usr/bin/env bash
# This session's campaigns with the final build (both cores free): ours proven (default
# and one way, --prove=all), ours unproven at scale, and Triton's kernels (pip triton on
# the CPU, 2 compile workers). One JSON summary line each (failures listed in full).
# Usage: campaigns.sh BUILD > campaigns.txt
# (The first run's Triton campaign, --count=1500 before the compile time bound existed,
# was stopped by hand after about 870 pairs: one compile worker had reached 22 GB in 10
# minutes. The Triton line of campaigns.txt is the bounded rerun, --count=800.)
set -euo pipefail
W="$1/tools/warpcheck"
summary() {
  python3 -c "
import json,sys
d=json.load(sys.stdin)['fuzz']
keep=['check','against','seed','pairs','pairs_per_second','ok','out_of_scope','inconclusive','failed_pairs','failures','proved','triton_errors','failure_cases','check_ms_by_stage']
print(json.dumps({k:d.get(k) for k in keep}))"
}
run() { echo "== $*"; "$W" fuzz layouts "$@" --format=json | summary || true; }
run --seed=20261204 --seconds=240
run --seed=20261205 --seconds=120 --one-way
run --seed=20261206 --count=100000 --prove=none
run --seed=20261207 --count=200000 --prove=none --one-way
run --seed=20261208 --against=triton --count=800 --jobs=2
