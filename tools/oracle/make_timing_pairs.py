#!/usr/bin/env python3
"""Writes the pairs folder tools/gpu/time_pairs.py reads: ours/ and triton/ round-trip
kernels of the same layout pairs, plus conflicting shared-memory kernels for Nsight Compute.

    python3 tools/oracle/make_timing_pairs.py --triton-work /tmp/triton_costs --out DIR \
        [--warpcheck build/tools/warpcheck] [--sources 2d] [--ncu-count 40]

--triton-work is the work folder of tools/oracle/triton_costs.py (Triton's PTX and launch
specs, <name>.ptx and <name>_it1.textproto). For every pair of
corpus/plan/triton_costs.tsv with status ok from the selected Triton tests (2d:
test_convert2d_layouts, test_convert_warp_local_layouts, test_convert_mma2mma_layouts;
all: every line) and in the planner's scope:

  DIR/triton/<name>.{ptx,textproto}   Triton's kernel, unchanged
  DIR/ours/<name>.{ptx,textproto}     `warpcheck convert emit` (round-trip harness)
  DIR/ncu/<name>.{ptx,textproto}      --ncu-count pairs, `convert emit --harness=once
                                      --strategy=smem --no-swizzle --max-vector-bytes=4`,
                                      kept only when the plan predicts bank conflicts
  DIR/ncu/sim.tsv                     the simulator's counters for each ncu kernel
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

SOURCES_2D = ("test_convert2d_layouts", "test_convert_warp_local_layouts",
              "test_convert_mma2mma_layouts")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triton-work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--warpcheck", default="build/tools/warpcheck")
    ap.add_argument("--sources", default="2d", choices=["2d", "all"])
    ap.add_argument("--ncu-count", type=int, default=40)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    jsonl = [json.loads(l) for l in open(os.path.join(root, "..", "shared", "data",
                                                       "convert-layout-pairs.jsonl"))]
    rows = list(csv.DictReader(open(os.path.join(root, "corpus/plan/triton_costs.tsv")),
                               delimiter="\t"))
    for sub in ("ours", "triton", "ncu"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    made = ncu = 0
    sim_rows = []
    for r in rows:
        if r["status"] != "ok":
            continue
        line = int(r["line"])
        src = jsonl[line]["source"]
        if a.sources == "2d" and not any(s in src for s in SOURCES_2D):
            continue
        name = "l%04d_%s_%s_w%s" % (line, r["shape"], r["dtype"], r["num_warps"])
        tptx = os.path.join(a.triton_work, name + ".ptx")
        tspec = os.path.join(a.triton_work, name + "_it1.textproto")
        if not (os.path.exists(tptx) and os.path.exists(tspec)):
            continue
        flags = ["--src=" + r["src"], "--dst=" + r["dst"], "--shape=" + r["shape"],
                 "--dtype=" + r["dtype"], "--num-warps=" + r["num_warps"]]
        ours = os.path.join(a.out, "ours", name)
        p = subprocess.run([a.warpcheck, "convert", "emit", *flags, "-o", ours + ".ptx",
                            "--launch-out=" + ours + ".textproto"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            continue  # outside the planner's scope (exit 2 with the reason)
        shutil.copy(tptx, os.path.join(a.out, "triton", name + ".ptx"))
        shutil.copy(tspec, os.path.join(a.out, "triton", name + ".textproto"))
        made += 1
        if ncu < a.ncu_count and int(r["smem_bytes"]) > 0:
            n = os.path.join(a.out, "ncu", name)
            q = subprocess.run([a.warpcheck, "convert", "plan", *flags, "--strategy=smem",
                                "--no-swizzle", "--max-vector-bytes=4", "--format=json"],
                               capture_output=True, text=True)
            if q.returncode != 0:
                continue
            plan = json.loads(q.stdout)["plan"]
            bc = plan.get("bank_conflicts", {})
            if int(bc.get("store", 0)) + int(bc.get("load", 0)) == 0:
                continue
            subprocess.run([a.warpcheck, "convert", "emit", *flags, "--strategy=smem",
                            "--no-swizzle", "--max-vector-bytes=4", "--harness=once",
                            "-o", n + ".ptx", "--launch-out=" + n + ".textproto"],
                           check=True, capture_output=True)
            s = subprocess.run([a.warpcheck, "sim", "run", n + ".textproto", "--format=json"],
                               capture_output=True, text=True)
            c = json.loads(s.stdout)["sim"]["counters"]
            sim_rows.append([name] + [str(c.get(k, 0)) for k in (
                "smem_wavefronts.load", "smem_wavefronts.store", "bank_conflicts.load",
                "bank_conflicts.store")])
            ncu += 1
    with open(os.path.join(a.out, "ncu", "sim.tsv"), "w") as f:
        f.write("kernel\tsim_wavefronts_load\tsim_wavefronts_store\tsim_conflicts_load\t"
                "sim_conflicts_store\n")
        for row in sim_rows:
            f.write("\t".join(row) + "\n")
    print("pairs %d, ncu kernels %d -> %s" % (made, ncu, a.out))


if __name__ == "__main__":
    sys.exit(main())
