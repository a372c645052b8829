#!/usr/bin/env python3
"""Mutation gate for the prover: every mutant the H200 runs wrong must be refuted.

Runs `warpcheck prove conversion` on every mutant of tools/oracle/mutate_ptx.py and joins
the verdicts with the H200 results kept in the corpus (corpus/triton/mutants/
results_h200.tsv, from tools/gpu/mutation_check.sh), so the gate runs without a GPU:

  GPU wrong or fault           -> the prover must say `violated`   (else: MISSED)
  GPU ok and simulator ok      -> the prover must not say `violated` (else: FALSE REFUTATION),
                                  unless its counterexample input fails on the simulator:
                                  then the spec's input was a lucky one (refuted_lucky_input)
  GPU ok, simulator faults     -> either (the simulator is stricter: races, non-member
                                  lanes; the prover assumes a race-free run)
  not run on the GPU           -> reported, not gated

Every `violated` with an input counterexample is also replayed: `--cex-out` writes a
launch spec with the model's input, and `warpcheck sim run` on it must fail (exit 10) —
the prover's counterexample is real on the simulator.

Usage:
  python3 tools/oracle/mutate_ptx.py --out /tmp/mutants --check corpus/triton/mutants/manifest.tsv
  python3 tools/oracle/mutation_gate.py --mutants /tmp/mutants --warpcheck build/tools/warpcheck \
      [--results corpus/triton/mutants/results_h200.tsv] [--out prover_results.tsv] [--jobs 2]

Exit 0 when the gate holds (no MISSED, no FALSE REFUTATION, every counterexample replays),
1 otherwise.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def prove(warpcheck, mutants, mid):
    spec = os.path.join(mutants, mid + ".textproto")
    cex = os.path.join(mutants, mid + ".cex.textproto")
    t0 = time.time()
    p = subprocess.run([warpcheck, "prove", "conversion", spec, "--format=json",
                        "--cex-out=" + cex], capture_output=True, text=True, timeout=300)
    ms = (time.time() - t0) * 1000
    verdict, reason, replay = "error", p.stderr.strip()[:200], ""
    try:
        d = json.loads(p.stdout)["proof"]
        verdict = d.get("verdict", "error")
        reason = d.get("reason", "")[:200]
        if verdict == "violated" and os.path.exists(cex):
            s = subprocess.run([warpcheck, "sim", "run", cex, "--format=json"],
                               capture_output=True, text=True, timeout=300)
            replay = "fails" if s.returncode == 10 else "PASSES(rc=%d)" % s.returncode
        elif verdict == "violated":
            replay = "fault"  # faults for every input: nothing to replay
    except (json.JSONDecodeError, KeyError):
        pass
    return mid, p.returncode, verdict, reason.replace("\t", " ").replace("\n", " "), replay, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mutants", required=True)
    ap.add_argument("--warpcheck", default=os.path.join(ROOT, "build/tools/warpcheck"))
    ap.add_argument("--results", default=os.path.join(ROOT, "corpus/triton/mutants/results_h200.tsv"))
    ap.add_argument("--cex-results",
                    default=os.path.join(ROOT, "corpus/triton/mutants/prover_cex_h200.tsv"),
                    help="H200 runs of the prover's counterexamples for GPU-ok mutants")
    ap.add_argument("--out", help="write one row per mutant here")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    with open(args.results) as f:
        hw = {r["id"]: r for r in csv.DictReader(f, delimiter="\t")}
    cex_hw = {}
    if os.path.exists(args.cex_results):
        with open(args.cex_results) as f:
            cex_hw = {r["id"]: r["gpu"] for r in csv.DictReader(f, delimiter="\t")}
    with open(os.path.join(args.mutants, "manifest.tsv")) as f:
        ids = [r["id"] for r in csv.DictReader(f, delimiter="\t")]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda m: prove(args.warpcheck, args.mutants, m), ids))

    counts, bad, times = {}, [], []
    out_rows = []
    for mid, rc, verdict, reason, replay, ms in rows:
        h = hw.get(mid, {})
        gpu, sim, kind = h.get("gpu", "missing"), h.get("sim", "missing"), h.get("kind", "?")
        times.append(ms)
        if gpu == "wrong" or gpu.startswith(("fault", "hang")):
            gate = "refuted" if verdict == "violated" else "MISSED"
        elif gpu == "ok" and sim == "ok":
            # The GPU ran the spec's one input right. A refutation is not false when its
            # counterexample input fails on the simulator (which matches the H200 bit for
            # bit): the mutant was right on a lucky input only.
            if verdict != "violated":
                gate = "not_refuted"
            elif replay == "fails" and cex_hw.get(mid, "wrong") != "ok":
                # On the H200 too, where it was run (prover_cex_h200.tsv).
                gate = "refuted_lucky_input" + ("_h200" if mid in cex_hw else "")
            else:
                gate = "FALSE_REFUTATION"
        elif gpu == "ok":
            gate = "sim_stricter_" + verdict
        else:
            gate = "gpu_not_run_" + verdict
        if replay.startswith("PASSES"):
            gate += "+CEX_DOES_NOT_REPLAY"
        if gate.startswith(("MISSED", "FALSE")) or "CEX_DOES_NOT" in gate or verdict == "error":
            bad.append((mid, gate, verdict, reason))
        counts[(kind, gate)] = counts.get((kind, gate), 0) + 1
        out_rows.append([mid, kind, gpu, sim, verdict, replay, gate, "%.0f" % ms, reason])

    if args.out:
        with open(args.out, "w") as f:
            f.write("id\tkind\tgpu\tsim\tprover\tcex_replay\tgate\tms\treason\n")
            for r in out_rows:
                f.write("\t".join(r) + "\n")
    for (kind, gate), n in sorted(counts.items()):
        print(f"{kind:15s} {gate:32s} {n}")
    times.sort()
    gpu_wrong = sum(n for (k, g), n in counts.items() if g.startswith(("refuted", "MISSED")))
    refuted = sum(n for (k, g), n in counts.items() if g.startswith("refuted"))
    both_ok = sum(n for (k, g), n in counts.items()
                  if g.startswith(("not_refuted", "FALSE", "refuted_lucky")))
    lucky = sum(n for (k, g), n in counts.items() if g.startswith("refuted_lucky"))
    false_ref = sum(n for (k, g), n in counts.items() if g.startswith("FALSE"))
    print(f"mutants {len(rows)}: GPU-wrong {gpu_wrong}, refuted {refuted}; "
          f"GPU+sim ok on the spec's input {both_ok}, false refutations {false_ref}, "
          f"refuted with a counterexample the simulator confirms {lucky}; "
          f"prover wall median {times[len(times) // 2]:.0f} ms, max {times[-1]:.0f} ms")
    for b in bad:
        print("GATE FAILS:", *b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
