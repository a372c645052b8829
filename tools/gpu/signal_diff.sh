#!/usr/bin/env bash
# GPU differential test for signaling programs (shared/spec/signaling.md §5, issue item 8).
#
# For each SignalProgram: `warpcheck signal cuda` -> nvcc -> run K times (run 0 unperturbed,
# runs 1.. perturbed: jitter, start stagger, launch-order permutation) on tier "cta" (ranks
# as CTA groups of one grid on one GPU) and tier "gpus" (rank r on GPU r); then check that
# every GPU outcome is a member of the simulator's possible outcomes
# (`warpcheck signal run PROG --schedule=explore --format=json`, its signal.terminals):
#   * a GPU completion matches a terminal with outcome completes and the same values;
#   * a GPU deadlock matches a terminal with outcome deadlock and the same blocked set.
# Writes $WORK/results.tsv (one row per program and tier) and keeps every JSON line.
#
# Usage (repository root):
#   tools/gpu/signal_diff.sh [PROGRAM.textproto...]      # default: corpus/signal/*.textproto
# Environment:
#   PHASES="emit gpu sim compare"  which phases to run (default all; the device needs only
#                        gpu, the others run on any machine)
#   WORK=DIR             work folder (default /tmp/signal_diff): cu/ bin/ gpu/ sim/
#   WARPCHECK=PATH       warpcheck binary (default build/tools/warpcheck); LD_LIBRARY_PATH
#                        gets build-carry/lib added when that folder exists
#   TIERS="cta gpus"     tiers to run (gpus is skipped per program when it needs more GPUs)
#   RUNS=10 TIMEOUT_MS=200 JITTER_NS=2000 SEED=1     passed to `signal cuda`
#   NVCC=nvcc NVCC_JOBS=$(nproc)   RUN_TIMEOUT_S=120 (per binary)
#   GPU_TIER_ORDER="cta gpus"  order of the tiers in the gpu phase
#   ONLY="NAME.TIER ..." run only these binaries in the gpu phase (default: all emitted)
#   RERUN=1              run binaries again even when their .jsonl exists
#   DEADLINE_S=540       stop starting GPU runs after this many seconds
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PHASES="${PHASES:-emit gpu sim compare}"
WORK="${WORK:-/tmp/signal_diff}"
WARPCHECK="${WARPCHECK:-$ROOT/build/tools/warpcheck}"
TIERS="${TIERS:-cta gpus}"
RUNS="${RUNS:-10}"
TIMEOUT_MS="${TIMEOUT_MS:-200}"
JITTER_NS="${JITTER_NS:-2000}"
SEED="${SEED:-1}"
NVCC="${NVCC:-nvcc}"
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
NVCC_JOBS="${NVCC_JOBS:-$(nproc)}"
RUN_TIMEOUT_S="${RUN_TIMEOUT_S:-120}"
DEADLINE_S="${DEADLINE_S:-540}"
[ -d "$ROOT/build-carry/lib" ] && export LD_LIBRARY_PATH="$ROOT/build-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
START=$(date +%s)
mkdir -p "$WORK"/{cu,bin,gpu,sim}

if [ $# -gt 0 ]; then PROGRAMS=("$@"); else PROGRAMS=(corpus/signal/*.textproto); fi
has_phase() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
name_of() { basename "$1" .textproto; }

# ---- emit: NAME.TIER.cu, or NAME.TIER.unsupported with the emitter's message ----------
if has_phase emit; then
  for p in "${PROGRAMS[@]}"; do
    n=$(name_of "$p")
    for t in $TIERS; do
      rm -f "$WORK/cu/$n.$t.cu" "$WORK/cu/$n.$t.unsupported"
      if ! "$WARPCHECK" signal cuda "$p" -o "$WORK/cu/$n.$t.cu" --tier="$t" --runs="$RUNS" \
           --timeout-ms="$TIMEOUT_MS" --jitter-ns="$JITTER_NS" --seed="$SEED" \
           >/dev/null 2>"$WORK/cu/$n.$t.unsupported"; then
        rm -f "$WORK/cu/$n.$t.cu"
      else
        rm -f "$WORK/cu/$n.$t.unsupported"
      fi
    done
  done
fi

# ---- gpu: compile in parallel, then run (tier cta one binary per GPU at a time, tier gpus
# alone); each binary prints one JSON line per run -----------------------------------------
if has_phase gpu; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "${ngpu:-0}" -ge 1 ] || { echo "signal_diff: no GPU" >&2; exit 77; }
  ls "$WORK"/cu/*.cu 2>/dev/null | while read -r cu; do
    b=$(basename "$cu" .cu)
    [ -x "$WORK/bin/$b" ] && [ "$WORK/bin/$b" -nt "$cu" ] && continue
    echo "$cu"
  done | xargs -r -P "$NVCC_JOBS" -I{} sh -c \
    'b=$(basename {} .cu); "$0" -O2 -std=c++17 -arch=sm_90 {} -o "$1/bin/$b" >"$1/bin/$b.nvcc.log" 2>&1 || echo "nvcc failed: $b" >&2' \
    "$NVCC" "$WORK"
  echo "signal_diff: compiled in $(( $(date +%s) - START )) s" >&2
  run_one() {  # $1 = binary name (NAME.TIER), $2 = visible devices
    local b="$1" out="$WORK/gpu/$1.jsonl"
    if [ -n "${ONLY:-}" ]; then case " $ONLY " in *" $b "*) ;; *) return 0 ;; esac; fi
    if [ -z "${RERUN:-}" ] && [ -s "$out" ] && ! grep -q '"outcome":"error"' "$out"; then return 0; fi
    if [ ! -x "$WORK/bin/$b" ]; then echo '{"outcome":"error","error":"not compiled"}' >"$out"; return; fi
    if [ $(( $(date +%s) - START )) -gt "$DEADLINE_S" ]; then echo '{"outcome":"error","error":"deadline"}' >"$out"; return; fi
    CUDA_VISIBLE_DEVICES="$2" timeout "$RUN_TIMEOUT_S" "$WORK/bin/$b" >"$out" 2>"$WORK/gpu/$b.stderr"
    local rc=$?
    [ $rc -ne 0 ] && echo "{\"outcome\":\"error\",\"error\":\"exit $rc\"}" >>"$out"
    return 0
  }
  run_cta() {  # tier cta: one lane per GPU, programs spread round-robin
    mapfile -t CTA < <(ls "$WORK"/bin/ 2>/dev/null | grep -E '\.cta$' || true)
    for ((g = 0; g < ngpu; g++)); do
      (
        for ((i = g; i < ${#CTA[@]}; i += ngpu)); do run_one "${CTA[$i]}" "$g"; done
      ) &
    done
    wait
    echo "signal_diff: tier cta done at $(( $(date +%s) - START )) s" >&2
  }
  run_gpus() {  # tier gpus: every GPU, one binary at a time
    local all b
    all=$(seq -s, 0 $((ngpu - 1)))
    for b in $(ls "$WORK"/bin/ 2>/dev/null | grep -E '\.gpus$' || true); do run_one "$b" "$all"; done
    echo "signal_diff: tier gpus done at $(( $(date +%s) - START )) s" >&2
  }
  for t in ${GPU_TIER_ORDER:-cta gpus}; do
    case "$t" in cta) run_cta ;; gpus) run_gpus ;; esac
  done
fi

# ---- sim: the simulator's possible outcomes, once per program ------------------------
if has_phase sim; then
  for p in "${PROGRAMS[@]}"; do
    n=$(name_of "$p")
    timeout "${SIM_TIMEOUT_S:-300}" "$WARPCHECK" signal run "$p" --schedule=explore --format=json \
      >"$WORK/sim/$n.json" 2>"$WORK/sim/$n.stderr" || true
  done
fi

# ---- compare ---------------------------------------------------------------------------
if has_phase compare; then
  python3 - "$WORK" "$TIERS" "${PROGRAMS[@]}" <<'PY'
import json, os, sys
work, tiers, progs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]

def load_sim(n):
    path = os.path.join(work, "sim", n + ".json")
    try:
        text = open(path).read().strip()
        if not text:
            return None, "no simulator output"
        doc = json.loads(text)
    except Exception as e:  # noqa: BLE001
        return None, "simulator: %s" % e
    sig = doc.get("signal", doc)
    return sig, None

def key_values(v):
    return {k: int(x) for k, x in (v or {}).items()}

rows = []
for p in progs:
    n = os.path.basename(p)[:-len(".textproto")] if p.endswith(".textproto") else os.path.basename(p)
    sim, sim_err = load_sim(n)
    terms = (sim or {}).get("terminals", []) or []
    sim_outcome = (sim or {}).get("outcome", "") if sim else ("-" if sim_err else "")
    sim_summary = ",".join(sorted("%s%s" % (t.get("outcome"), ("[" + " ".join(sorted(t.get("blocked", []))) + "]") if t.get("outcome") == "deadlock" else "") for t in terms)) or "-"
    for t in tiers:
        unsupported = os.path.join(work, "cu", "%s.%s.unsupported" % (n, t))
        gpu_path = os.path.join(work, "gpu", "%s.%s.jsonl" % (n, t))
        if os.path.exists(unsupported):
            msg = open(unsupported).read().strip().replace("\t", " ").replace("\n", " ")
            rows.append([n, t, "0", "unsupported", sim_outcome, sim_summary, "n/a", msg[:300]])
            continue
        if not os.path.exists(gpu_path):
            rows.append([n, t, "0", "not run", sim_outcome, sim_summary, "n/a", ""])
            continue
        runs = []
        errors = []
        for line in open(gpu_path):
            line = line.strip()
            if not line:
                continue
            try:
                j = json.loads(line)
            except Exception:  # noqa: BLE001
                errors.append("bad line")
                continue
            if j.get("outcome") in ("completes", "deadlock"):
                runs.append(j)
            else:
                errors.append(j.get("error", j.get("outcome", "?")))
        counts = {}
        for j in runs:
            k = j["outcome"] if j["outcome"] == "completes" else "deadlock[" + " ".join(j.get("blocked", [])) + "]"
            counts[k] = counts.get(k, 0) + 1
        gpu_summary = " ".join("%s x%d" % (k, v) for k, v in sorted(counts.items())) or "-"
        mism = sum(int(j.get("mismatches", 0)) for j in runs)
        if mism:
            gpu_summary += " (mismatching loaded elements: %d)" % mism
        if not runs:
            rows.append([n, t, "0", "error: " + "; ".join(sorted(set(errors)))[:200], sim_outcome, sim_summary, "n/a", ""])
            continue
        if sim is None:
            rows.append([n, t, str(len(runs)), gpu_summary, sim_outcome, sim_summary, "no sim", sim_err or ""])
            continue
        if sim_outcome in ("static_error", "inconclusive"):
            rows.append([n, t, str(len(runs)), gpu_summary, sim_outcome, sim_summary, "n/a",
                         "the simulator reports %s (no terminals); the GPU ran it anyway" % sim_outcome])
            continue
        missing = []
        for j in runs:
            ok = False
            for term in terms:
                if term.get("outcome") != j["outcome"]:
                    continue
                if j["outcome"] == "completes" and key_values(term.get("values")) == key_values(j.get("values")):
                    ok = True
                if j["outcome"] == "deadlock" and sorted(term.get("blocked", [])) == sorted(j.get("blocked", [])):
                    ok = True
            if not ok:
                desc = j["outcome"]
                desc += " values=" + json.dumps(j.get("values", {}), sort_keys=True) if j["outcome"] == "completes" else " blocked=" + json.dumps(j.get("blocked", []))
                missing.append("run %d: %s" % (j.get("run", -1), desc))
        member = "yes" if not missing else "no"
        detail = "; ".join(missing[:3]) + (" (+%d)" % (len(missing) - 3) if len(missing) > 3 else "")
        if errors:
            detail = (detail + "; " if detail else "") + "errors: " + "; ".join(sorted(set(errors)))[:200]
        rows.append([n, t, str(len(runs)), gpu_summary, sim_outcome, sim_summary, member, detail])

out = os.path.join(work, "results.tsv")
with open(out, "w") as f:
    f.write("program\ttier\truns\tgpu_outcomes\tsim_outcome\tsim_terminals\tmember\tdetail\n")
    for r in rows:
        f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
yes = sum(1 for r in rows if r[6] == "yes")
no = sum(1 for r in rows if r[6] == "no")
print("signal_diff: %s: %d rows, member yes %d, no %d" % (out, len(rows), yes, no), file=sys.stderr)
PY
fi
