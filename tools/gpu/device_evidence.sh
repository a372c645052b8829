#!/usr/bin/env bash
# Differential and profiler evidence for corpus/triton on a CUDA machine (an H200 with
# CUDA 13 and Nsight Compute): build with -DWITH_CUDA=ON, run the GPU runner test, run
# every corpus kernel on the GPU, compare with the simulator (`warpcheck gpu diff`, or
# `warpcheck sim run` + sha256 when `gpu diff` is not wired yet), and profile a selection
# of kernels with ncu for shared-memory wavefronts and bank conflicts.
#
# Usage (from anywhere; results under $OUT, default ./device-evidence):
#   tools/gpu/device_evidence.sh                 # all phases
#   tools/gpu/device_evidence.sh build           # one or more of: build test run diff ncu summary
#   PHASES="run ncu summary" tools/gpu/device_evidence.sh
#
# Environment (all optional):
#   OUT           output folder (the device tool sets it)            [./device-evidence]
#   BUILD_DIR     CMake build folder                                 [<repo>/build-cuda]
#   WARPCHECK     warpcheck CLI                                      [$BUILD_DIR/tools/warpcheck]
#   GPU_RUN       warpcheck_gpu_run                                  [$BUILD_DIR/tools/gpu/warpcheck_gpu_run]
#   GPU_TEST      gpu_runner_test                                    [$BUILD_DIR/tests/gpu/gpu_runner_test]
#   EXTRA_LIB_DIR prepended to LD_LIBRARY_PATH (libraries carried with prebuilt binaries)
#   FORCE_BUILD=1 rebuild even when the binaries exist
#   NCU_COUNT     how many kernels to profile                        [24]
#   DEADLINE_S    stop starting new per-kernel work after this many seconds [540]
#   SIM_TIMEOUT_S per-kernel limit for the simulator / gpu diff     [60]
#
# Output files (at most 8, flat, as the device tool returns them):
#   evidence.log          this script's trace (set -x) and every tool's stderr
#   build.log             cmake configure + build
#   gpu_runner_test.log   tests/gpu/gpu_runner_test
#   gpu_run.jsonl         one line per corpus kernel: GPU result (ok, faults, expectation, sha256)
#   diff.jsonl            one line per kernel: GPU vs simulator (verdicts, sha256 agreement)
#   ncu_raw.csv           Nsight Compute raw page, one row per profiled kernel
#   ncu_summary.tsv       per profiled kernel: category, shared-memory metrics, sim counters
#   summary.md            counts and tables to paste into corpus/triton/README.md
#
# Per-kernel failures never stop the script; each phase logs and moves on.

set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD/device-evidence}"
mkdir -p "$OUT"
exec 2>>"$OUT/evidence.log"
set -x
START=$(date +%s)

BUILD_DIR="${BUILD_DIR:-$ROOT/build-cuda}"
WARPCHECK="${WARPCHECK:-$BUILD_DIR/tools/warpcheck}"
GPU_RUN="${GPU_RUN:-$BUILD_DIR/tools/gpu/warpcheck_gpu_run}"
GPU_TEST="${GPU_TEST:-$BUILD_DIR/tests/gpu/gpu_runner_test}"
NCU_COUNT="${NCU_COUNT:-24}"
DEADLINE_S="${DEADLINE_S:-540}"
SIM_TIMEOUT_S="${SIM_TIMEOUT_S:-60}"
CORPUS="$ROOT/corpus/triton"
if [ -n "${EXTRA_LIB_DIR:-}" ]; then
  export LD_LIBRARY_PATH="$EXTRA_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
PY="$(command -v python3 || command -v python)"
TMP="$(mktemp -d)"

if [ $# -gt 0 ]; then PHASES="$*"; else PHASES="${PHASES:-build test run diff ncu summary}"; fi

elapsed() { echo $(( $(date +%s) - START )); }
over_deadline() { [ "$(elapsed)" -ge "$DEADLINE_S" ]; }
want() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
note() { echo "[device_evidence $(elapsed)s] $*" >&2; }

note "root $ROOT, out $OUT, phases: $PHASES"
{ nvidia-smi || true; nvcc --version || true; ncu --version || true; uname -a; } >&2

# ------------------------------------------------------------------------------ build
if want build; then
  if [ "${FORCE_BUILD:-0}" != 1 ] && [ -x "$GPU_RUN" ] && [ -x "$WARPCHECK" ]; then
    note "build: binaries exist, skipping (FORCE_BUILD=1 to rebuild)"
  else
    {
      cmake -S "$ROOT" -B "$BUILD_DIR" -DWITH_CUDA=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DWITH_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES=90
      for t in warpcheck_gpu_run warpcheck gpu_runner_test; do
        cmake --build "$BUILD_DIR" -j"$(nproc)" --target "$t" || echo "BUILD FAILED: $t"
      done
    } >"$OUT/build.log" 2>&1
    note "build: done (see build.log)"
  fi
fi

# ------------------------------------------------------------------------------ test
if want test; then
  if [ -x "$GPU_TEST" ]; then
    ( cd "$ROOT" && timeout 300 "$GPU_TEST" ) >"$OUT/gpu_runner_test.log" 2>&1
    note "gpu_runner_test exit $? (77 = skipped: no GPU)"
  else
    echo "no $GPU_TEST" >"$OUT/gpu_runner_test.log"
  fi
fi

# ------------------------------------------------------------------------------ run
# Every corpus kernel on the GPU, in chunks; a chunk that crashes is rerun file by file.
if want run; then
  : >"$OUT/gpu_run.jsonl"
  if [ ! -x "$GPU_RUN" ]; then
    note "run: no $GPU_RUN"
  else
    ls "$CORPUS"/*.textproto >"$TMP/all.txt"
    split -l 50 "$TMP/all.txt" "$TMP/chunk."
    for chunk in "$TMP"/chunk.*; do
      if over_deadline; then note "run: deadline reached"; break; fi
      timeout 300 "$GPU_RUN" $(cat "$chunk") >"$TMP/out.jsonl"
      rc=$?
      if [ $rc -eq 77 ]; then note "run: no GPU (exit 77)"; break; fi
      if [ $rc -eq 0 ] || [ $rc -eq 10 ] || [ $rc -eq 2 ]; then
        cat "$TMP/out.jsonl" >>"$OUT/gpu_run.jsonl"
      else
        note "run: chunk $chunk exit $rc; rerunning its files one by one"
        while read -r f; do
          timeout 60 "$GPU_RUN" "$f" >"$TMP/one.jsonl"
          rc1=$?
          if [ -s "$TMP/one.jsonl" ]; then
            cat "$TMP/one.jsonl" >>"$OUT/gpu_run.jsonl"
          else
            printf '{"file": "%s", "error": "warpcheck_gpu_run exit %s"}\n' "$f" "$rc1" >>"$OUT/gpu_run.jsonl"
          fi
        done <"$chunk"
      fi
    done
    note "run: $(wc -l <"$OUT/gpu_run.jsonl") results"
  fi
fi

# ------------------------------------------------------------------------------ diff
# `warpcheck gpu diff` per file when the CLI has it; otherwise `warpcheck sim run` per file,
# compared with gpu_run.jsonl by sha256 in the summary step.
if want diff; then
  : >"$OUT/diff.jsonl"
  mode=none
  if [ -x "$WARPCHECK" ] && "$WARPCHECK" gpu diff --help >/dev/null 2>&1; then
    mode=gpu_diff
  elif [ -x "$WARPCHECK" ] && "$WARPCHECK" sim run --help >/dev/null 2>&1; then
    mode=sim_run
  fi
  note "diff: mode $mode"
  if [ "$mode" != none ]; then
    for f in "$CORPUS"/*.textproto; do
      if over_deadline; then note "diff: deadline reached at $f"; break; fi
      if [ "$mode" = gpu_diff ]; then
        timeout "$SIM_TIMEOUT_S" "$WARPCHECK" gpu diff --format=json "$f" >"$TMP/d.json" 2>>"$TMP/d.err"
      else
        timeout "$SIM_TIMEOUT_S" "$WARPCHECK" sim run --format=json "$f" >"$TMP/d.json" 2>>"$TMP/d.err"
      fi
      rc=$?
      "$PY" - "$f" "$rc" "$mode" "$TMP/d.json" >>"$OUT/diff.jsonl" <<'PYEOF'
import json, sys
f, rc, mode, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
text = open(path).read().strip()
try:
    report = json.loads(text) if text else None
except ValueError:
    report = {"unparsed": text[:2000]}
print(json.dumps({"file": f, "mode": mode, "rc": rc, "report": report}))
PYEOF
    done
    tail -c 20000 "$TMP/d.err" >&2 2>/dev/null || true
  fi
fi

# ------------------------------------------------------------------------------ ncu
# Profile NCU_COUNT kernels (spread over the shared-memory categories, plus a few shuffle
# ones as zero baselines) in one warpcheck_gpu_run process, one launch per spec.
if want ncu; then
  if ! command -v ncu >/dev/null; then
    note "ncu: not found"
  elif [ ! -x "$GPU_RUN" ]; then
    note "ncu: no $GPU_RUN"
  else
    # Which of the shared-memory metrics this ncu knows (names change between versions).
    ncu --query-metrics --chip gh100 >"$TMP/metrics.txt" 2>&1 || ncu --query-metrics >"$TMP/metrics.txt" 2>&1
    metrics="$("$PY" - "$TMP/metrics.txt" <<'PYEOF'
import re, sys
# Metric base names this ncu lists (first word of each line).
known = set()
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"([a-z0-9_]+__[a-z0-9_]+)", line.strip())
    if m:
        known.add(m.group(1))
# The four of the brief first (load/store wavefronts and bank conflicts: on sm_90 the
# `op_ld` ones include ldmatrix and `op_st` include stmatrix), then totals, the `op_misc`
# wavefronts (shfl traffic lands there) and shared-memory instruction counts.
wanted = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
    "smsp__inst_executed_op_shfl.sum",
]
if known:
    out = [m for m in wanted if m.rsplit(".", 1)[0] in known]
    dropped = [m for m in wanted if m not in out]
    if dropped:
        print("not known to this ncu, dropped: " + ",".join(dropped), file=sys.stderr)
else:
    out = wanted[:4]
    print("ncu --query-metrics gave nothing; asking for the four base metrics", file=sys.stderr)
print(",".join(out))
PYEOF
)"
    note "ncu: metrics $metrics"
    "$PY" - "$CORPUS/manifest.tsv" "$NCU_COUNT" >"$TMP/ncu_files.txt" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
n = int(sys.argv[2])
by_cat = {}
for r in rows:
    by_cat.setdefault(r["category"], []).append(r)
quota = {"smem": n * 5 // 12, "ldst_matrix": n * 5 // 12}
quota["shuffle"] = max(1, n - quota["smem"] - quota["ldst_matrix"] - 1)
quota["registers"] = n - sum(quota.values())
picked = []
for cat, q in quota.items():
    pool = by_cat.get(cat, [])
    if not pool or q <= 0:
        continue
    step = max(1, len(pool) // q)
    picked += pool[::step][:q]
for r in picked:
    print(r["name"])
PYEOF
    sed "s|^|$CORPUS/|; s|\$|.textproto|" "$TMP/ncu_files.txt" >"$TMP/ncu_paths.txt"
    timeout 480 ncu --clock-control none --target-processes all \
      --metrics "$metrics" -f -o "$TMP/ncu" "$GPU_RUN" $(cat "$TMP/ncu_paths.txt") \
      >"$TMP/ncu_gpu_run.jsonl"
    note "ncu: exit $?"
    if [ -f "$TMP/ncu.ncu-rep" ]; then
      ncu --import "$TMP/ncu.ncu-rep" --csv --page raw >"$OUT/ncu_raw.csv"
    fi
    # Launch order: the specs in order, minus any that could not launch.
    "$PY" - "$TMP/ncu_gpu_run.jsonl" >"$TMP/ncu_launched.txt" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if "error" not in d:
        print(d["file"])
PYEOF
  fi
fi

# ------------------------------------------------------------------------------ summary
if want summary; then
  "$PY" - "$OUT" "$CORPUS/manifest.tsv" "$TMP/ncu_launched.txt" >"$OUT/summary.md" <<'PYEOF'
import collections, csv, json, os, sys
out, manifest_path, launched_path = sys.argv[1], sys.argv[2], sys.argv[3]
manifest = {r["name"]: r for r in csv.DictReader(open(manifest_path), delimiter="\t")}
stem = lambda f: os.path.basename(f).rsplit(".", 1)[0]

def jsonl(name):
    p = os.path.join(out, name)
    res = []
    if os.path.exists(p):
        for line in open(p):
            try:
                res.append(json.loads(line))
            except ValueError:
                pass
    return res

print("# Device evidence for corpus/triton\n")
gpu = {stem(d["file"]): d for d in jsonl("gpu_run.jsonl")}
dev = next((d.get("device") for d in gpu.values() if d.get("device")), "?")
print(f"Device: {dev}. Kernels run on the GPU: {len(gpu)} of {len(manifest)}.\n")
cnt = collections.Counter()
for name, d in gpu.items():
    cat = manifest.get(name, {}).get("category", "?")
    if "error" in d:
        cnt[(cat, "error")] += 1
    elif d["gpu"].get("ok"):
        cnt[(cat, "ok")] += 1
    else:
        cnt[(cat, "not ok")] += 1
cats = ["shuffle", "smem", "ldst_matrix", "registers", "?"]
print("| category | GPU ok (out == in) | GPU not ok | could not run |")
print("|---|---|---|---|")
for c in cats:
    if any(k[0] == c for k in cnt):
        print(f"| {c} | {cnt[(c, 'ok')]} | {cnt[(c, 'not ok')]} | {cnt[(c, 'error')]} |")
bad = [(n, d) for n, d in sorted(gpu.items()) if "error" in d or not d["gpu"].get("ok")]
if bad:
    print("\nNot ok on the GPU:\n")
    for n, d in bad[:50]:
        why = d.get("error") or json.dumps(d["gpu"].get("faults") or d["gpu"].get("expectations"))
        print(f"- `{n}`: {why[:300]}")
print()

# Simulator vs GPU.
diffs = jsonl("diff.jsonl")
if diffs:
    mode = diffs[0].get("mode")
    agree = collections.Counter()
    rows = []
    for d in diffs:
        n = stem(d["file"])
        rep = d.get("report") or {}
        if mode == "gpu_diff":
            verdict = "same" if d["rc"] == 0 else ("differ" if d["rc"] == 10 else f"exit {d['rc']}")
        else:
            sim = rep.get("sim", rep) if isinstance(rep, dict) else {}
            g = gpu.get(n, {}).get("gpu", {})
            sb = {b["name"]: b["sha256"] for b in sim.get("buffers", [])}
            gb = {b["name"]: b["sha256"] for b in g.get("buffers", [])}
            if not sb or not gb:
                verdict = f"no result (sim exit {d['rc']})"
            elif sb == gb:
                verdict = "same"
            else:
                verdict = "differ: " + ",".join(k for k in gb if sb.get(k) != gb[k])
        agree[verdict.split(":")[0]] += 1
        if verdict != "same":
            rows.append((n, verdict))
    print(f"## Simulator vs GPU ({mode}, {len(diffs)} kernels)\n")
    for k, v in sorted(agree.items()):
        print(f"- {k}: {v}")
    if rows:
        print("\nNot identical:\n")
        for n, v in rows[:60]:
            print(f"- `{n}` ({manifest.get(n, {}).get('category', '?')}): {v}")
    print()

# ncu.
raw = os.path.join(out, "ncu_raw.csv")
if os.path.exists(raw) and os.path.exists(launched_path):
    launched = [stem(l.strip()) for l in open(launched_path) if l.strip()]
    lines = [l for l in csv.reader(open(raw))]
    hdr_i = next((i for i, l in enumerate(lines) if "Kernel Name" in l), None)
    if hdr_i is not None:
        hdr = lines[hdr_i]
        data = [l for l in lines[hdr_i + 1:] if l and l[0].strip().isdigit()]
        mcols = [c for c in hdr if c.startswith(("l1tex__", "smsp__")) and c.endswith(".sum")]
        sim_counters = {}
        for d in diffs:
            rep = d.get("report") or {}
            sim = rep.get("sim", rep) if isinstance(rep, dict) else {}
            if isinstance(sim, dict) and sim.get("counters"):
                sim_counters[stem(d["file"])] = sim["counters"]
        tsv = open(os.path.join(out, "ncu_summary.tsv"), "w")
        cols = ["name", "category", "dtype", "num_warps", "iters", "block", "st_shared", "ld_shared",
                "stmatrix", "ldmatrix"] + mcols + ["sim_smem_wavefronts", "sim_bank_conflicts"]
        tsv.write("\t".join(cols) + "\n")
        print(f"## Nsight Compute ({len(data)} kernels; whole kernel = 2 x iters conversions)\n")
        short = {c: c.replace("l1tex__data_pipe_lsu_wavefronts_mem_shared", "wf")
                      .replace("l1tex__data_bank_conflicts_pipe_lsu_mem_shared", "bc")
                      .replace("smsp__inst_executed_op_", "inst_")
                      .replace(".sum", "") for c in mcols}
        print("| kernel | cat | " + " | ".join(short[c] for c in mcols) + " | sim wf | sim bc |")
        print("|---|---|" + "---|" * (len(mcols) + 2))
        for k, row in enumerate(data):
            n = launched[k] if k < len(launched) else f"?{k}"
            m = manifest.get(n, {})
            rec = dict(zip(hdr, row))
            sc = sim_counters.get(n, {})
            vals = [rec.get(c, "").replace(",", "") for c in mcols]
            tsv.write("\t".join([n, m.get("category", "?"), m.get("dtype", "?"), m.get("num_warps", "?"),
                                 m.get("iters", "?"), rec.get("Block Size", "?"), m.get("st_shared", "?"),
                                 m.get("ld_shared", "?"), m.get("stmatrix", "?"), m.get("ldmatrix", "?")]
                                + vals + [str(sc.get("smem_wavefronts", "")), str(sc.get("bank_conflicts", ""))]) + "\n")
            print(f"| `{n}` | {m.get('category', '?')} | " + " | ".join(vals) +
                  f" | {sc.get('smem_wavefronts', '')} | {sc.get('bank_conflicts', '')} |")
        tsv.close()
        print()
print("wf = l1tex__data_pipe_lsu_wavefronts_mem_shared[_op_*].sum, bc = "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared[_op_*].sum, inst_* = "
      "smsp__inst_executed_op_*.sum; sim wf / sim bc = the simulator's smem_wavefronts / "
      "bank_conflicts counters when diff.jsonl has them.\n")
print(f"(generated by tools/gpu/device_evidence.sh)")
PYEOF
  note "summary: $OUT/summary.md"
fi

rm -rf "$TMP"
note "done in $(elapsed)s"
[ -f "$OUT/summary.md" ] && cat "$OUT/summary.md"
exit 0
