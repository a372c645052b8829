#!/usr/bin/env python3
"""Bit-identity of GPU runs against the simulator: for every JSON line that
`warpcheck_gpu_run LAUNCH...` printed, runs `warpcheck sim run LAUNCH --format=json` here
and compares every buffer's SHA-256 and the `ok` verdict.

    tools/gpu/compare_sim_gpu.py GPU_JSONL [--warpcheck build/tools/warpcheck]
        [--spec-root DIR] [--tsv OUT.tsv]

GPU_JSONL lines name their spec in "file" (a path on the device); --spec-root replaces the
folder part up to and including the last `ours/` or `triton/` with DIR/ours/ (or
DIR/triton/), where the same specs lie here. Prints one summary line; exit 0 when every
spec is identical and ok on both sides, 10 otherwise (the TSV names each difference).
"""
import argparse
import json
import os
import subprocess
import sys


def buffers(report):
    return {b["name"]: b.get("sha256") for b in report.get("buffers", [])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpu_jsonl")
    ap.add_argument("--warpcheck", default="build/tools/warpcheck")
    ap.add_argument("--spec-root", required=True)
    ap.add_argument("--tsv")
    a = ap.parse_args()
    rows, same = [], 0
    for line in open(a.gpu_jsonl):
        try:
            g = json.loads(line)
        except ValueError:
            continue
        f = g.get("file", "")
        for side in ("ours", "triton"):
            k = f.rfind(f"/{side}/")
            if k >= 0:
                local = os.path.join(a.spec_root, side, f[k + len(side) + 2:])
                break
        else:
            local = os.path.join(a.spec_root, os.path.basename(f))
        if "error" in g:
            rows.append((f, "gpu_error", g["error"][:200]))
            continue
        p = subprocess.run([a.warpcheck, "sim", "run", local, "--format=json"],
                           capture_output=True, text=True)
        try:
            s = json.loads(p.stdout)
        except ValueError:
            rows.append((f, "sim_error", (p.stderr or p.stdout)[:200]))
            continue
        sim = s.get("sim", s)
        gb, sb = buffers(g["gpu"]), buffers(sim)
        ok = g["gpu"].get("ok") and sim.get("ok")
        if gb == sb and gb and ok:
            same += 1
            rows.append((f, "identical", ""))
        else:
            diff = [n for n in set(gb) | set(sb) if gb.get(n) != sb.get(n)]
            rows.append((f, "different", f"ok gpu={g['gpu'].get('ok')} sim={sim.get('ok')} "
                                         f"buffers differing: {sorted(diff)}"))
    if a.tsv:
        with open(a.tsv, "w") as t:
            t.write("file\tverdict\tdetail\n")
            for r in rows:
                t.write("\t".join(r) + "\n")
    print(f"compare_sim_gpu: {same} of {len(rows)} specs bit-identical and ok on both")
    sys.exit(0 if rows and same == len(rows) else 10)


if __name__ == "__main__":
    main()
