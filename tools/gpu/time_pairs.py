#!/usr/bin/env python3
"""Times our conversion kernel against Triton's for every pair in a folder, on the GPU.

    tools/gpu/time_pairs.py PAIRS_DIR [--batch=8] [--grid-x=528] [--iters=2000]
                            [--warmup=5] [--reps=20] [--min-ms=50] [--gpu-run=BIN]
                            [--out=DIR]

PAIRS_DIR holds ours/<name>.textproto and triton/<name>.textproto (launch specs of the
round-trip harness, kernel(in, out, u32 iters, ...), each with its PTX next to it); a
pair is a name present in both. Pairs go to `warpcheck_gpu_run --time` in batches, one
process per batch, with the specs interleaved as ours/a triton/a ours/b triton/b ...
(tools/gpu/gpu_timing.h: warm-up rounds, then `reps` timed rounds over all of them, then
an iters = 1 check of every spec's buffers).

Written to --out (default $OUT, else ./time-pairs):
  time_pairs.tsv     one row per pair (header first): name, status, ours_/triton_ median,
                     min, max ms, ns per round trip, ok, and speedup = triton_ns / ours_ns
                     (> 1: ours is faster); status ok | not_ok (a check failed) |
                     error (a spec could not run; the error column says why) |
                     missing_ours | missing_triton | not_run (deadline)
  time_pairs.jsonl   every JSON line warpcheck_gpu_run printed, as is
  time_pairs.log     the commands run and their stderr

For the device machine, in one `run` call (it has CUDA 13; $OUT is collected):

    BUILD_DIR=build-cuda TARGETS=warpcheck_gpu_run tools/build.sh -DWITH_CUDA=ON \
      && tools/gpu/time_pairs.py PAIRS_DIR --gpu-run build-cuda/tools/gpu/warpcheck_gpu_run

(or carry a prebuilt binary made with tools/gpu/make_carry.sh and pass --gpu-run plus
EXTRA_LIB_DIR=build-carry/lib). It stops starting batches after DEADLINE_S seconds
(default 540, under the device tool's 600 s limit); the pairs left are `not_run`, and the
TSV is rewritten after every batch, so a killed run still leaves what it measured.
Exit: 0 every pair ok; 10 some pair not ok, erroneous or not run; 2 bad arguments;
77 no GPU (warpcheck_gpu_run's own 77).
"""

import argparse
import json
import os
import subprocess
import sys
import time

STATS = ["median_ms", "min_ms", "max_ms", "ns_per_round_trip"]
COLUMNS = (["name", "status", "speedup"] + [f"ours_{s}" for s in STATS] + ["ours_ok"]
           + [f"triton_{s}" for s in STATS] + ["triton_ok", "error"])


def fail(msg):
    print(f"time_pairs: error: {msg}", file=sys.stderr)
    sys.exit(2)


def find_pairs(root):
    def names(sub):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            fail(f"{d}: no such folder (PAIRS_DIR must hold ours/ and triton/)")
        return {f[:-len(".textproto")] for f in os.listdir(d) if f.endswith(".textproto")}
    ours, triton = names("ours"), names("triton")
    return sorted(ours & triton), sorted(ours - triton), sorted(triton - ours)


def clean(text):
    return " ".join(str(text).split())[:400]


def row_for(name, ours, triton):
    """The TSV row of one pair from its two JSON results (dicts, or None)."""
    row = {"name": name, "status": "ok", "speedup": "", "error": ""}
    errors = []
    for side, res in (("ours", ours), ("triton", triton)):
        if res is None:
            errors.append(f"{side}: no result")
            continue
        if "error" in res:
            errors.append(f"{side}: {res['error']}")
            continue
        for s in STATS:
            if s in res:
                row[f"{side}_{s}"] = res[s]
        row[f"{side}_ok"] = 1 if res.get("ok") else 0
        if not res.get("ok"):
            faults = res.get("check", {}).get("faults", [])
            errors.append(f"{side}: check failed"
                          + (f" ({faults[0].get('kind')}: {faults[0].get('text')})"
                             if faults else ""))
    if errors:
        row["error"] = clean("; ".join(errors))
        row["status"] = ("error" if any("no result" in e or "check failed" not in e
                                        for e in errors) else "not_ok")
    o, t = row.get("ours_ns_per_round_trip"), row.get("triton_ns_per_round_trip")
    if o and t:
        row["speedup"] = f"{t / o:.4f}"
    return row


def write_tsv(path, rows):
    with open(path + ".partial", "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(clean(r.get(c, "")) for c in COLUMNS) + "\n")
    os.replace(path + ".partial", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs_dir")
    ap.add_argument("--batch", type=int, default=8, help="pairs per process")
    ap.add_argument("--grid-x", type=int, default=528)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--min-ms", type=int, default=50,
                    help="more rounds until each spec has this many timed ms (0: off)")
    ap.add_argument("--gpu-run", default=os.environ.get(
        "GPU_RUN", "build-cuda/tools/gpu/warpcheck_gpu_run"))
    ap.add_argument("--out", default=os.environ.get("OUT") or "time-pairs")
    ap.add_argument("--deadline-s", type=float,
                    default=float(os.environ.get("DEADLINE_S", "540")))
    ap.add_argument("--batch-timeout-s", type=float, default=300)
    args = ap.parse_args()
    if args.batch < 1:
        fail("--batch must be at least 1")
    if not os.access(args.gpu_run, os.X_OK):
        fail(f"{args.gpu_run}: not an executable warpcheck_gpu_run (build it with "
             "BUILD_DIR=build-cuda TARGETS=warpcheck_gpu_run tools/build.sh -DWITH_CUDA=ON, "
             "or pass --gpu-run)")
    env = dict(os.environ)
    if env.get("EXTRA_LIB_DIR"):
        env["LD_LIBRARY_PATH"] = env["EXTRA_LIB_DIR"] + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")

    start = time.time()
    os.makedirs(args.out, exist_ok=True)
    tsv = os.path.join(args.out, "time_pairs.tsv")
    jsonl = open(os.path.join(args.out, "time_pairs.jsonl"), "w")
    log = open(os.path.join(args.out, "time_pairs.log"), "w")
    pairs, only_ours, only_triton = find_pairs(args.pairs_dir)
    rows = {n: {"name": n, "status": "not_run"} for n in pairs}
    for n in only_ours:
        rows[n] = {"name": n, "status": "missing_triton"}
    for n in only_triton:
        rows[n] = {"name": n, "status": "missing_ours"}
    ordered = lambda: [rows[n] for n in sorted(rows)]
    write_tsv(tsv, ordered())
    print(f"time_pairs: {len(pairs)} pairs ({len(only_ours)} without triton, "
          f"{len(only_triton)} without ours) in batches of {args.batch}", file=sys.stderr)

    no_gpu = False
    for b in range(0, len(pairs), args.batch):
        if time.time() - start > args.deadline_s:
            print(f"time_pairs: deadline {args.deadline_s:.0f} s: "
                  f"{len(pairs) - b} pairs not run", file=sys.stderr)
            break
        batch = pairs[b:b + args.batch]
        specs = []
        for n in batch:
            specs += [os.path.join(args.pairs_dir, "ours", n + ".textproto"),
                      os.path.join(args.pairs_dir, "triton", n + ".textproto")]
        cmd = [args.gpu_run, "--time", f"--grid-x={args.grid_x}", f"--iters={args.iters}",
               f"--warmup={args.warmup}", f"--reps={args.reps}", f"--min-ms={args.min_ms}"] + specs
        log.write("$ " + " ".join(cmd) + "\n")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                                  timeout=args.batch_timeout_s)
            out, err, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err, rc = f"timed out after {args.batch_timeout_s:.0f} s", "timeout"
        log.write(err + f"\n[exit {rc}]\n")
        log.flush()
        if rc == 77:
            no_gpu = True
            print(f"time_pairs: no GPU: {err.strip()}", file=sys.stderr)
            break
        results = {}
        for line in out.splitlines():
            jsonl.write(line + "\n")
            try:
                res = json.loads(line)
            except ValueError:
                continue
            results[res.get("file")] = res
        jsonl.flush()
        for n, (o, t) in zip(batch, zip(specs[0::2], specs[1::2])):
            rows[n] = row_for(n, results.get(o), results.get(t))
            if rows[n]["status"] == "error" and rc not in (0, 2, 10):
                rows[n]["error"] = clean(f"{rows[n]['error']} [batch exit {rc}: {err}]")
        write_tsv(tsv, ordered())
        done = min(b + args.batch, len(pairs))
        print(f"time_pairs: {done}/{len(pairs)} pairs, {time.time() - start:.0f} s",
              file=sys.stderr)

    final = ordered()
    counts = {}
    for r in final:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print("time_pairs: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; {tsv}", file=sys.stderr)
    if no_gpu:
        return 77
    return 0 if all(r["status"] == "ok" for r in final) else 10


if __name__ == "__main__":
    sys.exit(main())
