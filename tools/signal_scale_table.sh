#!/usr/bin/env bash
# The exploration table of sim/signal/README.md ("Scale"): each protocol of
# corpus/signal (pNN_*.textproto without a mutation, the s02 counter) explored at each
# rank count with `warpcheck signal run P --ranks=N --schedule=explore --format=json`,
# one markdown row per (program, ranks): states, seconds (the run's own wall-clock
# figure; CPU seconds from /usr/bin/time beside it, since the machine may be shared),
# outcome. A run past LIMIT seconds is cut off and shown as "> LIMIT s".
#
#   tools/signal_scale_table.sh [RANKS...]        (default: 8 16)
#   WARPCHECK=build/tools/warpcheck LIMIT=60 PROGRAMS="p02_allgather_push p08b_barrier_two_phase" tools/signal_scale_table.sh 16
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${WARPCHECK:-$root/build/tools/warpcheck}"
limit="${LIMIT:-60}"
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(8 16)
if [ -n "${PROGRAMS:-}" ]; then
  programs=($PROGRAMS)
else
  programs=()
  for f in "$root"/corpus/signal/p*.textproto "$root"/corpus/signal/s02_*.textproto; do
    name="$(basename "$f" .textproto)"
    case "$name" in *__*|*_8ranks) continue ;; esac
    programs+=("$name")
  done
fi
echo "| program | ranks | states | seconds | cpu s | outcome |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
tmp="$(mktemp)"
for n in "${ranks[@]}"; do
  for name in "${programs[@]}"; do
    f="$root/corpus/signal/$name.textproto"
    /usr/bin/time -f "%U" -o "$tmp.time" timeout "$limit" "$bin" signal run "$f" --ranks="$n" \
      --schedule=explore --format=json > "$tmp" 2>/dev/null
    rc=$?
    cpu="$(tail -1 "$tmp.time" 2>/dev/null)"
    if [ $rc -eq 124 ] || [ ! -s "$tmp" ]; then
      echo "| $name | $n | | > $limit | $cpu | (cut off) |"
      continue
    fi
    python3 - "$name" "$n" "$cpu" "$tmp" <<'PY'
import json, sys
name, n, cpu, path = sys.argv[1:5]
s = json.load(open(path)).get("signal", {})
print(f"| {name} | {n} | {s.get('states', 0)} | {s.get('seconds', 0):.2f} | {cpu} | {s.get('outcome', '?')} |")
PY
  done
done
rm -f "$tmp" "$tmp.time"
