#!/usr/bin/env bash
# The exploration table of sim/signal/README.md ("Scale"): each protocol of
# corpus/signal (pNN_*.textproto without a mutation, the s02 counter) explored at each
# rank count with `warpcheck signal run P --ranks=N --schedule=explore --format=json`,
# one markdown row per (program, ranks): states, seconds (the run's own wall-clock
# figure; CPU seconds from /usr/bin/time beside it, since the machine may be shared),
# outcome. A run past LIMIT seconds is cut off and shown as "> LIMIT s".
# Each program is first asked which rank symmetry it has (--max-states=1); with a
# rotation it is explored twice, --symmetry=auto and --symmetry=off, one row each;
# without one, the two are the same search, so it is explored once (column "none").
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
echo "| program | ranks | symmetry | states | seconds | cpu s | outcome |"
echo "| --- | ---: | --- | ---: | ---: | ---: | --- |"
tmp="$(mktemp)"
for n in "${ranks[@]}"; do
  for name in "${programs[@]}"; do
    f="$root/corpus/signal/$name.textproto"
    group="$("$bin" signal run "$f" --ranks="$n" --max-states=1 --format=json 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin).get("signal", {}).get("symmetry", "?").split(" ")[0])' 2>/dev/null)"
    modes=(auto)
    [ "$group" = "rotation" ] && modes=(auto off)
    for mode in "${modes[@]}"; do
      label="$group"
      [ "$mode" = "off" ] && label="off"
      /usr/bin/time -f "%U" -o "$tmp.time" timeout "$limit" "$bin" signal run "$f" --ranks="$n" \
        --schedule=explore --symmetry="$mode" --format=json > "$tmp" 2>/dev/null
      rc=$?
      cpu="$(tail -1 "$tmp.time" 2>/dev/null)"
      if [ $rc -eq 124 ] || [ ! -s "$tmp" ]; then
        echo "| $name | $n | $label | | > $limit | $cpu | (cut off) |"
        continue
      fi
      python3 - "$name" "$n" "$label" "$cpu" "$tmp" <<'PY'
import json, sys
name, n, label, cpu, path = sys.argv[1:6]
s = json.load(open(path)).get("signal", {})
print(f"| {name} | {n} | {label} | {s.get('states', 0)} | {s.get('seconds', 0):.2f} | {cpu} | {s.get('outcome', '?')} |")
PY
    done
  done
done
rm -f "$tmp" "$tmp.time"
