#!/usr/bin/env bash
# Mutation check (issue item 7): every corpus mutant that the GPU shows wrong must be
# wrong (wrong output or a fault) on the simulator too.
#
# Generates the mutants with tools/oracle/mutate_ptx.py (deterministic; the manifest is
# checked against corpus/triton/mutants/manifest.tsv), runs each one on the GPU
# (`warpcheck gpu run --format=json`, or `warpcheck_gpu_run` when the warpcheck binary was
# built without CUDA) in its own process (a device fault poisons the CUDA context), and on
# the simulator (`warpcheck sim run --format=json`), then classifies both sides.
#
# Usage (from anywhere; results under $OUT, default ./mutation-check):
#   tools/gpu/mutation_check.sh                   # both sides (device machine)
#   SIDES=sim tools/gpu/mutation_check.sh         # simulator only (any machine)
#   LIMIT=20 tools/gpu/mutation_check.sh          # the first 20 mutants (kinds interleaved)
#
# With binaries carried from another machine (tools/gpu/make_carry.sh packs them):
#   WARPCHECK=build-carry/bin/warpcheck GPU_RUN=build-carry/bin/warpcheck_gpu_run \
#     tools/gpu/mutation_check.sh                 # build-carry/lib is added to LD_LIBRARY_PATH
#
# Environment (all optional):
#   OUT            output folder                                       [./mutation-check]
#   WARPCHECK      warpcheck CLI (sim run; gpu run when built WITH_CUDA) [<repo>/build/tools/warpcheck]
#   GPU_RUN        warpcheck_gpu_run, used when WARPCHECK has no CUDA  [next to WARPCHECK, or build-gpu]
#   EXTRA_LIB_DIR  prepended to LD_LIBRARY_PATH                        [<dir of WARPCHECK>/../lib if present]
#   SIDES          "gpu sim", "sim" or "gpu"                           [gpu sim]
#   MUTANTS_DIR    existing mutants (with manifest.tsv) instead of generating them
#   MUTATE_ARGS    extra arguments for mutate_ptx.py (then the manifest check is skipped)
#   LIMIT          run only the first LIMIT mutants (kinds interleaved)
#   ONLY           run only the mutants where "ID KIND VARIANT" matches this Python regex
#                  (e.g. '__shfl_lane_', ' add_\d+$', '^cvt1d_l1316_64_i8_w4__')
#   DEADLINE_S     stop starting new mutants after this many seconds   [480]
#   GPU_TIMEOUT_S  per-mutant limit on the GPU (a hang counts as wrong) [20]
#   SIM_TIMEOUT_S  per-mutant limit on the simulator                   [60]
#   JOBS           simulator runs in parallel                          [nproc, at most 8]
#   GPU_JOBS       GPU processes in parallel (one mutant each)         [4]
#
# Output files in $OUT (flat, at most 8, as the device tool returns them):
#   mutation_check.log  this script's trace and every tool's stderr
#   results.tsv         one row per mutant: id kernel category kind variant line gpu gpu_detail
#                       sim sim_detail verdict same_out gpu_out_sha256 sim_out_sha256
#   summary.md          counts per kind and the mutants the simulator missed
#   gpu.jsonl, sim.jsonl  per mutant: exit code, ok, faults, expectation detail, buffer sha256
#   manifest.tsv        the mutants that were run
#
# Outcomes per side: ok (out == in, no fault) | wrong (out != in, no fault) | fault:<kinds>
# | hang (timeout) | error:<exit> (could not run: input error, JIT rejection, crash) | not_run.
# Verdicts: caught (GPU wrong/fault/hang, sim wrong/fault) | MISSED (GPU wrong, sim ok) |
# sim_stricter (GPU ok, sim wrong/fault) | both_ok | no_gpu | no_sim.
# Exit: 0 no mutant MISSED, 1 some MISSED, 2 setup error. Per-mutant failures never stop it.

set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$PWD/mutation-check}"
mkdir -p "$OUT"
LOG="$OUT/mutation_check.log"
: >"$LOG"
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
note() { echo "[mutation_check $(elapsed)s] $*" | tee -a "$LOG" >&2; }

WARPCHECK="${WARPCHECK:-$ROOT/build/tools/warpcheck}"
case "$WARPCHECK" in /*) ;; *) WARPCHECK="$PWD/$WARPCHECK" ;; esac
WC_DIR="$(cd "$(dirname "$WARPCHECK")" 2>/dev/null && pwd)"
if [ -z "${EXTRA_LIB_DIR:-}" ] && [ -d "$WC_DIR/../lib" ]; then EXTRA_LIB_DIR="$WC_DIR/../lib"; fi
if [ -n "${EXTRA_LIB_DIR:-}" ]; then
  export LD_LIBRARY_PATH="$EXTRA_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ -z "${GPU_RUN:-}" ]; then
  for c in "$WC_DIR/warpcheck_gpu_run" "$WC_DIR/gpu/warpcheck_gpu_run" "$ROOT/build-gpu/tools/gpu/warpcheck_gpu_run" \
           "$ROOT/build-cuda/tools/gpu/warpcheck_gpu_run" "$ROOT/build-gpu-iso/carry/bin/wc_gpu_run"; do
    if [ -x "$c" ]; then GPU_RUN="$c"; break; fi
  done
fi
GPU_RUN="${GPU_RUN:-}"
SIDES="${SIDES:-gpu sim}"
DEADLINE_S="${DEADLINE_S:-480}"
GPU_TIMEOUT_S="${GPU_TIMEOUT_S:-20}"
SIM_TIMEOUT_S="${SIM_TIMEOUT_S:-60}"
NPROC="$(nproc 2>/dev/null || echo 2)"
JOBS="${JOBS:-$(( NPROC > 8 ? 8 : NPROC ))}"
GPU_JOBS="${GPU_JOBS:-4}"
PY="$(command -v python3 || command -v python)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
RAW="$WORK/raw"
mkdir -p "$RAW"
want() { case " $SIDES " in *" $1 "*) return 0;; esac; return 1; }

note "root $ROOT, out $OUT, sides: $SIDES, warpcheck $WARPCHECK, gpu_run ${GPU_RUN:-none}, jobs $JOBS, gpu jobs $GPU_JOBS"
{ uname -a; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv 2>&1 || true; } >>"$LOG" 2>&1
if [ ! -x "$WARPCHECK" ]; then note "no executable $WARPCHECK"; exit 2; fi
if ! "$WARPCHECK" help >/dev/null 2>>"$LOG"; then note "$WARPCHECK does not start (libraries? see log)"; exit 2; fi

# ------------------------------------------------------------------------ mutants
if [ -n "${MUTANTS_DIR:-}" ]; then
  MDIR="$MUTANTS_DIR"
else
  MDIR="$WORK/mutants"
  CHECK=(--check "$ROOT/corpus/triton/mutants/manifest.tsv")
  if [ -n "${MUTATE_ARGS:-}" ]; then CHECK=(); fi
  # shellcheck disable=SC2086
  if ! "$PY" "$ROOT/tools/oracle/mutate_ptx.py" --corpus "$ROOT/corpus/triton" --out "$MDIR" \
      ${MUTATE_ARGS:-} "${CHECK[@]}" 2>>"$LOG"; then
    note "WARNING: mutate_ptx.py failed or its manifest differs from corpus/triton/mutants/manifest.tsv (see log); going on with what it wrote"
  fi
fi
if [ ! -s "$MDIR/manifest.tsv" ]; then note "no $MDIR/manifest.tsv"; exit 2; fi
cp "$MDIR/manifest.tsv" "$OUT/manifest.tsv"
# Run order: kinds interleaved (round robin in manifest order), so that a LIMIT or the
# deadline still leaves every kind covered.
"$PY" - "$MDIR/manifest.tsv" "${LIMIT:-0}" "${ONLY:-}" >"$WORK/order.txt" <<'PYEOF'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
limit = int(sys.argv[2])
if sys.argv[3]:
    rows = [r for r in rows if re.search(sys.argv[3], f'{r["id"]} {r["kind"]} {r["variant"]}')]
by_kind = {}
for r in rows:
    by_kind.setdefault(r["kind"], []).append(r["id"])
order = []
while any(by_kind.values()):
    for k in list(by_kind):
        if by_kind[k]:
            order.append(by_kind[k].pop(0))
print("\n".join(order[:limit] if limit > 0 else order))
PYEOF
note "$(wc -l <"$WORK/order.txt") mutants to run from $MDIR"

# ------------------------------------------------------------------------ simulator
if want sim; then
  cat >"$WORK/sim_one.sh" <<'SHEOF'
#!/usr/bin/env bash
# sim_one.sh ID: runs one mutant on the simulator, raw output in $RAW.
id="$1"
if [ "$(( $(date +%s) - START ))" -ge "$DEADLINE_S" ]; then echo not_run >"$RAW/$id.sim.rc"; exit 0; fi
timeout "$SIM_TIMEOUT_S" "$WARPCHECK" sim run --format=json "$MDIR/$id.textproto" \
  >"$RAW/$id.sim.json" 2>"$RAW/$id.sim.err"
echo $? >"$RAW/$id.sim.rc"
SHEOF
  chmod +x "$WORK/sim_one.sh"
  export RAW MDIR WARPCHECK SIM_TIMEOUT_S DEADLINE_S START
  xargs -P "$JOBS" -n 1 "$WORK/sim_one.sh" <"$WORK/order.txt"
  note "sim: done ($(ls "$RAW"/*.sim.rc 2>/dev/null | wc -l) results)"
fi

# ------------------------------------------------------------------------ GPU
if want gpu; then
  gpu_mode=none
  probe="$("$WARPCHECK" gpu run "$WORK/none.textproto" 2>&1)"
  if echo "$probe" | grep -q "without the CUDA Toolkit"; then
    if [ -n "$GPU_RUN" ] && [ -x "$GPU_RUN" ]; then gpu_mode=gpu_run; fi
  elif echo "$probe" | grep -q "no usable GPU"; then
    note "gpu: $probe"
  else
    gpu_mode=warpcheck
  fi
  note "gpu: mode $gpu_mode (probe: $(echo "$probe" | head -c 200))"
  if [ "$gpu_mode" != none ]; then
    cat >"$WORK/gpu_one.sh" <<'SHEOF'
#!/usr/bin/env bash
# gpu_one.sh ID: runs one mutant on the GPU in its own process, raw output in $RAW.
id="$1"
if [ "$(( $(date +%s) - START ))" -ge "$DEADLINE_S" ]; then echo not_run >"$RAW/$id.gpu.rc"; exit 0; fi
if [ -e "$WORK/no_gpu" ]; then echo not_run >"$RAW/$id.gpu.rc"; exit 0; fi
if [ "$GPU_MODE" = warpcheck ]; then
  timeout -k 5 "$GPU_TIMEOUT_S" "$WARPCHECK" gpu run --format=json "$MDIR/$id.textproto" \
    >"$RAW/$id.gpu.json" 2>"$RAW/$id.gpu.err"
else
  timeout -k 5 "$GPU_TIMEOUT_S" "$GPU_RUN" "$MDIR/$id.textproto" \
    >"$RAW/$id.gpu.json" 2>"$RAW/$id.gpu.err"
fi
rc=$?
echo "$rc" >"$RAW/$id.gpu.rc"
if [ "$rc" = 77 ]; then touch "$WORK/no_gpu"; fi
SHEOF
    chmod +x "$WORK/gpu_one.sh"
    export RAW MDIR WARPCHECK GPU_RUN GPU_TIMEOUT_S DEADLINE_S START WORK
    export GPU_MODE="$gpu_mode"
    # The first mutant alone (is there a GPU at all?), then GPU_JOBS processes at a time:
    # separate processes have separate CUDA contexts, so a fault or a hang in one mutant
    # leaves the others alone (the GPU time-slices between them).
    head -n 1 "$WORK/order.txt" | xargs -n 1 "$WORK/gpu_one.sh"
    if [ -e "$WORK/no_gpu" ]; then
      note "gpu: no GPU (exit 77): $(head -c 300 "$RAW/$(head -n 1 "$WORK/order.txt").gpu.err")"
    else
      tail -n +2 "$WORK/order.txt" | xargs -P "$GPU_JOBS" -n 1 "$WORK/gpu_one.sh"
    fi
    note "gpu: done ($(grep -lv not_run "$RAW"/*.gpu.rc 2>/dev/null | wc -l) run)"
  fi
fi

# ------------------------------------------------------------------------ results
for f in "$RAW"/*.err; do
  [ -s "$f" ] && { echo "== $(basename "$f")"; head -c 2000 "$f"; echo; } >>"$LOG"
done
"$PY" - "$OUT" "$MDIR/manifest.tsv" "$WORK/order.txt" "$RAW" "$SIDES" <<'PYEOF'
import collections, csv, json, os, sys
out, manifest, order_path, raw, sides = sys.argv[1:6]
rows = {r["id"]: r for r in csv.DictReader(open(manifest), delimiter="\t")}
order = [l.strip() for l in open(order_path) if l.strip()]

def side(mid, name):
    """(outcome, detail, compact record)."""
    rc_path = os.path.join(raw, f"{mid}.{name}.rc")
    if not os.path.exists(rc_path):
        return "not_run", "", None
    rc = open(rc_path).read().strip()
    if rc == "not_run":
        return "not_run", "deadline", None
    rc = int(rc)
    text = ""
    p = os.path.join(raw, f"{mid}.{name}.json")
    if os.path.exists(p):
        text = open(p).read().strip().splitlines()
        text = text[-1] if text else ""
    err = ""
    pe = os.path.join(raw, f"{mid}.{name}.err")
    if os.path.exists(pe):
        err = open(pe).read().strip().replace("\n", " ")[:300]
    rep = None
    try:
        d = json.loads(text) if text else None
        if isinstance(d, dict):
            rep = d.get("sim") or d.get("gpu")
            if rep is None and "error" in d:
                err = (err + " " + str(d["error"]))[:300]
    except ValueError:
        pass
    rec = {"id": mid, "rc": rc}
    if rc in (124, 137):
        return "hang", f"timeout (exit {rc})", rec
    if rep is None:
        rec["error"] = err
        return f"error:{rc}", err, rec
    faults = rep.get("faults") or []
    exps = rep.get("expectations") or []
    rec.update({"ok": rep.get("ok", False),
                "faults": [{"kind": f.get("kind"), "line": f.get("line"),
                            "text": (f.get("text") or "")[:200]} for f in faults[:3]],
                "expectations": [{"ok": e.get("ok"), "detail": (e.get("detail") or "")[:200]} for e in exps],
                "buffers": {b["name"]: b.get("sha256") for b in rep.get("buffers", [])}})
    if faults:
        kinds = sorted({f.get("kind", "?") for f in faults})
        return "fault:" + "+".join(kinds), (faults[0].get("text") or "")[:160], rec
    if exps and all(e.get("ok") for e in exps) and rep.get("ok", False):
        return "ok", "", rec
    if rc in (0, 10):
        bad = [e for e in exps if not e.get("ok")]
        return "wrong", (bad[0].get("detail") if bad else "not ok")[:160], rec
    return f"error:{rc}", err, rec

def is_wrong(o):
    return o == "wrong" or o.startswith("fault") or o == "hang"

res = []
jl = {"gpu": open(os.path.join(out, "gpu.jsonl"), "w"), "sim": open(os.path.join(out, "sim.jsonl"), "w")}
for mid in order:
    r = rows[mid]
    g, gd, grec = side(mid, "gpu")
    s, sd, srec = side(mid, "sim")
    for name, rec in (("gpu", grec), ("sim", srec)):
        if rec is not None:
            jl[name].write(json.dumps(rec) + "\n")
    if g == "not_run" or g.startswith("error"):
        verdict = "no_gpu"
    elif s in ("not_run", "hang") or s.startswith("error"):
        verdict = "no_sim"  # a simulator timeout is no verdict (its own budget is a fault)
    elif is_wrong(g):
        verdict = "caught" if is_wrong(s) else "MISSED"
    else:
        verdict = "sim_stricter" if is_wrong(s) else "both_ok"
    gsha = (grec or {}).get("buffers", {}).get("out", "") if grec else ""
    ssha = (srec or {}).get("buffers", {}).get("out", "") if srec else ""
    same = ""
    if gsha and ssha and not g.startswith("fault") and not s.startswith("fault"):
        same = "yes" if gsha == ssha else "no"
    res.append([mid, r["kernel"], r["category"], r["kind"], r["variant"], r["line"], g, gd, s, sd,
                verdict, same, gsha, ssha])
for f in jl.values():
    f.close()
cols = ["id", "kernel", "category", "kind", "variant", "line", "gpu", "gpu_detail", "sim", "sim_detail",
        "verdict", "same_out", "gpu_out_sha256", "sim_out_sha256"]
with open(os.path.join(out, "results.tsv"), "w") as f:
    f.write("\t".join(cols) + "\n")
    for row in res:
        f.write("\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in row) + "\n")

def cls(o):
    return o.split(":")[0]

kinds = sorted({r[3] for r in res}, key=lambda k: ["shfl_lane", "shfl_mask", "selp_swap", "smem_offset",
                                                   "drop_bar_sync", "prmt_selector"].index(k)
               if k in ["shfl_lane", "shfl_mask", "selp_swap", "smem_offset", "drop_bar_sync",
                        "prmt_selector"] else 99)
L = []
L.append("# Mutation check: GPU vs simulator\n")
L.append(f"{len(res)} mutants of {len({r[1] for r in res})} corpus kernels; sides run: {sides}.\n")
L.append("| kind | mutants | GPU ok / wrong / fault / hang / other | sim ok / wrong / fault / other | "
         "caught | MISSED | sim stricter | both ok | no GPU result | same wrong output |")
L.append("|---|---|---|---|---|---|---|---|---|---|")
tot = collections.Counter()
for k in kinds + ["all"]:
    sel = [r for r in res if k == "all" or r[3] == k]
    gc = collections.Counter(cls(r[6]) for r in sel)
    sc = collections.Counter(cls(r[8]) for r in sel)
    vc = collections.Counter(r[10] for r in sel)
    both_wrong = [r for r in sel if r[6] == "wrong" and r[8] == "wrong"]
    same = sum(1 for r in both_wrong if r[11] == "yes")
    g_other = len(sel) - gc["ok"] - gc["wrong"] - gc["fault"] - gc["hang"]
    s_other = len(sel) - sc["ok"] - sc["wrong"] - sc["fault"]
    L.append(f"| {k} | {len(sel)} | {gc['ok']} / {gc['wrong']} / {gc['fault']} / {gc['hang']} / {g_other} | "
             f"{sc['ok']} / {sc['wrong']} / {sc['fault']} / {s_other} | {vc['caught']} | {vc['MISSED']} | "
             f"{vc['sim_stricter']} | {vc['both_ok']} | {vc['no_gpu'] + vc['no_sim']} | "
             f"{same} of {len(both_wrong)} |")
L.append("")
L.append("caught: GPU wrong (out != in), fault or hang, and the simulator wrong or a fault. MISSED: the "
         "GPU shows it wrong and the simulator does not. sim stricter: the GPU shows nothing and the "
         "simulator reports a fault or wrong output (e.g. a race after a dropped barrier). same wrong "
         "output: of the mutants both sides ran to completion with out != in, how many have the same "
         "`out` sha256 (bit-exact agreement on the wrong result).\n")
fk = collections.Counter()
for r in res:
    if r[8].startswith("fault:"):
        for x in r[8][6:].split("+"):
            fk[("sim", r[3], x)] += 1
    if r[6].startswith("fault:"):
        for x in r[6][6:].split("+"):
            fk[("gpu", r[3], x)] += 1
if fk:
    L.append("Fault kinds (side, mutation kind, fault: count): " +
             ", ".join(f"{a} {b} {c}: {n}" for (a, b, c), n in sorted(fk.items())) + "\n")
missed = [r for r in res if r[10] == "MISSED"]
if missed:
    L.append("## MISSED (GPU wrong, simulator not)\n")
    for r in missed[:100]:
        L.append(f"- `{r[0]}` ({r[4]}): gpu {r[6]} {r[7][:120]}; sim {r[8]}")
    L.append("")
diff_out = [r for r in res if r[11] == "no" and r[6] == "wrong" and r[8] == "wrong"]
if diff_out:
    L.append("## Both wrong, different output\n")
    for r in diff_out[:60]:
        L.append(f"- `{r[0]}` ({r[4]}): gpu {r[12][:16]}, sim {r[13][:16]}")
    L.append("")
open(os.path.join(out, "summary.md"), "w").write("\n".join(L) + "\n")
print("\n".join(L))
sys.exit(1 if missed else 0)
PYEOF
rc=$?
note "done in $(elapsed)s (exit $rc)"
exit $rc
