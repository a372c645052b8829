#!/bin/bash
# libFuzzer campaign on the device host's 16 cores: every target of tests/fuzz from its
# seed corpus, several processes for the slow targets (seeds differ),
# SECONDS_PER_TARGET (default 540) each, all at once. Results: $OUT/fuzz.tgz with each
# process's log and artifacts, the summary table (tests/fuzz/README.md), and
# $OUT/corpora.tgz, every target's grown corpus: copied next to this script as prev.tgz,
# the next call continues from it (one campaign over several 10-minute device calls).
#
# Copy it into a carried folder next to bins.tar.xz (a tar of carry/bin/<target>_fuzzer
# and carry/lib, from tools/gpu/make_carry.sh over the clang build's fuzzers) and run
# `bash <folder>/fuzz_campaign_device.sh` from the repository root on the device.
cd "$(dirname "$0")"
here=$PWD
secs=${SECONDS_PER_TARGET:-540}
tar xJf bins.tar.xz
export LD_LIBRARY_PATH=$here/carry/lib:$LD_LIBRARY_PATH
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=/tmp/fuzz-out; rm -rf $out; mkdir -p $out
# PROCS (optional): "target=n,target=n,..." overrides the process counts; SEED_BASE
# (default 1000) offsets every process's -seed, so calls that add up to one campaign
# explore differently; MAX_LEN (default 65536) is libFuzzer's -max_len.
declare -A procs=([ptx_parse]=4 [signal_program]=2 [swz_spec]=2 [encoding_parse]=1
  [ttgir_parse]=1 [signal_trace]=1 [swizzle_problem]=1 [layout_corpus]=1 [launch_spec]=1)
if [ -n "${PROCS:-}" ]; then
  procs=()
  IFS=, read -ra pairs <<< "$PROCS"
  for p in "${pairs[@]}"; do procs[${p%%=*}]=${p#*=}; done
fi
seed_base=${SEED_BASE:-1000}
max_len=${MAX_LEN:-65536}
# A call that continues a campaign starts from the corpora the calls before it grew:
# prev.tgz (this script's corpora.tgz from the call before, copied next to it) unpacks
# to prev/<target>; libFuzzer reads it and writes new units to each process's own corpus.
prev=$here/prev; rm -rf $prev; mkdir -p $prev
[ -f prev.tgz ] && tar xzf prev.tgz -C $prev
for t in "${!procs[@]}"; do mkdir -p $prev/$t; done   # libFuzzer exits on a missing folder
for t in "${!procs[@]}"; do
  for k in $(seq 1 ${procs[$t]}); do
    d=$out/$t/p$k; mkdir -p $d/corpus
    (cd $d && timeout $((secs + 60)) $here/carry/bin/${t}_fuzzer -seed=$((seed_base + k)) \
       -max_total_time=$secs -runs=10000000 -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
       -print_final_stats=1 corpus $here/../corpus/fuzz/$t $prev/$t > log 2>&1; echo "exit $?" >> log) &
  done
done
wait
{
printf '%-16s %6s %12s %10s  %s\n' target procs execs cov artifacts
for t in "${!procs[@]}"; do
  execs=0; arts=""; cov=0
  for d in $out/$t/p*; do
    e=$(grep -o 'stat::number_of_executed_units: *[0-9]*' $d/log | awk '{print $2}')
    execs=$((execs + ${e:-0}))
    c=$(grep -o 'cov: [0-9]*' $d/log | tail -1 | awk '{print $2}'); [ "${c:-0}" -gt $cov ] && cov=$c
    a=$(cd $d && ls -1 crash-* timeout-* oom-* leak-* slow-unit-* 2>/dev/null | tr '\n' ' ')
    arts="$arts$a"
  done
  printf '%-16s %6s %12s %10s  %s\n' $t ${procs[$t]} $execs $cov "${arts:-none}"
done
} > $out/summary.txt
cat $out/summary.txt
# logs, artifacts and the summary; the corpora, merged per target, for the next call
cd /tmp && tar czf $OUT/fuzz.tgz --exclude='*/corpus' fuzz-out
rm -rf /tmp/fuzz-corpora; mkdir -p /tmp/fuzz-corpora
for t in "${!procs[@]}"; do
  mkdir -p /tmp/fuzz-corpora/$t
  cp -n $out/$t/p*/corpus/* $prev/$t/* /tmp/fuzz-corpora/$t/ 2>/dev/null || true
done
tar czf $OUT/corpora.tgz -C /tmp/fuzz-corpora .
