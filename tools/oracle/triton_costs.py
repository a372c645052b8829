#!/usr/bin/env python3
"""Triton 3.6.0's simulated cost per convert_layout round trip, for every jsonl pair.

Writes corpus/plan/triton_costs.tsv: one row per line of
shared/data/convert-layout-pairs.jsonl (header first), the baseline the conversion planner
(`warpcheck convert plan`) is compared against. Regenerate from the repository root after
`pip install triton==3.6.0` (no GPU needed) and building `warpcheck`:

    python3 tools/oracle/triton_costs.py --jobs 2 \
        --warpcheck build/tools/warpcheck --work /tmp/triton_costs \
        --out corpus/plan/triton_costs.tsv

What it does, per jsonl line
----------------------------
1. Skips the pairs that cannot be one 32-lane CTA (gen_triton_corpus.skip_reason: a
   threadsPerWarp product other than 32, a block (CTA) basis) and element types we have
   no CLI spelling for; status `skipped`, reason says which.
2. Builds the standard round-trip TTGIR kernel exactly as corpus/triton does
   (gen_triton_corpus.ttgir_kernel: load in the src layout, `iters` x {src->dst; dst->src},
   store in the src layout; ttg.num-warps from the pair, 32 threads, 1 CTA, cuda:90) and
   compiles it with triton.compile(..., GPUTarget("cuda", 90, 32)) in its own subprocess
   (gen_triton_corpus.run_compile). A failure is status `triton_error` with Triton's
   telling line as the reason (gen_triton_corpus picks the first line naming an error or
   assertion, else the last line).
3. Writes two launch specs (gen_triton_corpus.textproto: grid 1, block 32*warps, in/out
   buffers, 8-bit data RANDOM with seed 1000+line, other types IOTA, out POISON,
   expect buffers_equal(in, out)) that differ only in `iters` (1 and 2), runs both with
   `warpcheck sim run SPEC --format=json` and records counters(iters=2) - counters(iters=1):
   the cost of exactly one round trip (two conversions, plus one trip of the loop's own
   bookkeeping: the counter increment, compare and branch). A simulator input error is
   status `sim_error`; a simulated fault or a failed expectation leaves status `ok` with
   sim_ok = 0 and the first fault or failed expectation as the reason.

Element types: the jsonl dtype in the CLI's spelling (float16 -> f16, int32 -> i32,
int16 -> i16, float32 -> f32, i1 -> i8 since i1 tensors are bytes in global memory);
8-bit float types (float8e5m2) are measured as i8, because the planner's --dtype has no
fp8 spelling and a convert_layout moves bytes without looking at them.

The kernels, PTX and specs go to --work (not committed); results are cached there per
line (`<name>.row.json`), so an interrupted run resumes where it stopped (--fresh to
redo everything).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_triton_corpus as corpus  # noqa: E402  (the same kernels and specs as corpus/triton)

# jsonl dtype -> the CLI spelling (shared/design/CLI.md `--dtype`).
CLI_DTYPE = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "i1": "i8",
    "float8e5m2": "i8",
    "float8e4m3": "i8",
    "float8e4nv": "i8",
    "float8e4b15": "i8",
}

# TSV column -> simulator counter key (sim/machine/launch.cc AddCounters). "instructions"
# there counts thread instructions (one per active thread); warp_instructions one per warp.
COUNTERS = [
    ("warp_instructions", "warp_instructions"),
    ("thread_instructions", "instructions"),
    ("shfl", "shfl"),
    ("smem_requests_store", "smem_requests.store"),
    ("smem_requests_load", "smem_requests.load"),
    ("smem_wavefronts_store", "smem_wavefronts.store"),
    ("smem_wavefronts_load", "smem_wavefronts.load"),
    ("bank_conflicts_store", "bank_conflicts.store"),
    ("bank_conflicts_load", "bank_conflicts.load"),
    ("barriers", "barriers"),
]

COLUMNS = (["line", "status", "reason", "src", "dst", "shape", "dtype", "num_warps",
            "smem_bytes", "sim_ok"] + [c for c, _ in COUNTERS] + ["category"])


def clean(text, limit=300):
    """One TSV-safe line."""
    text = re.sub(r"[\t\r\n]+", " ", str(text)).strip()
    return text[:limit]


def first_line(text):
    lines = [l for l in (text or "").splitlines() if l.strip()]
    return lines[0] if lines else ""


def base_row(line, row, dtype):
    return {
        "line": line,
        "status": "",
        "reason": "",
        "src": row["src"],
        "dst": row["dst"],
        "shape": "x".join(str(d) for d in row["shape"]),
        "dtype": dtype or row.get("dtype", ""),
        "num_warps": row["num_warps"],
        "smem_bytes": "",
        "sim_ok": "",
        "category": "",
    }


class CompileWorker:
    """A `triton_costs.py --worker` subprocess that compiles one kernel per request with
    gen_triton_corpus.compile_one. Importing triton takes ~1.3 s, compiling ~0.4 s: one
    process per thread instead of one per kernel. Its cwd is the work folder, so PTX
    `.file` directives name just the .ttgir file, as with run_compile."""

    def __init__(self, work):
        self.work = work
        self.proc = None

    def compile(self, name):
        """True when <name>.json was written; False on a failure or a crash (restarts)."""
        for _ in range(2):
            if self.proc is None or self.proc.poll() is not None:
                self.proc = subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "--worker"], cwd=self.work,
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, text=True)
            try:
                self.proc.stdin.write(f"{name}.ttgir\t{name}.json\n")
                self.proc.stdin.flush()
                answer = self.proc.stdout.readline().strip()
            except BrokenPipeError:
                answer = ""
            if answer in ("ok", "error"):
                return answer == "ok"
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return False  # it crashed on this kernel
        return False


_WORKERS = threading.local()


def compile_in_worker(name, work):
    """The compile result dict, or None when the worker could not compile it."""
    if getattr(_WORKERS, "worker", None) is None:
        _WORKERS.worker = CompileWorker(work)
    path = os.path.join(work, name + ".json")
    if os.path.exists(path):
        os.remove(path)
    if not _WORKERS.worker.compile(name):
        return None
    with open(path) as f:
        return json.load(f)


def worker_loop():
    # Answers go to a copy of stdout; anything Triton prints goes to stderr instead.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for request in sys.stdin:
        ttgir, json_out = request.rstrip("\n").split("\t")
        try:
            corpus.compile_one(ttgir, json_out)
            answer = "ok"
        except Exception:  # noqa: BLE001  (any Triton failure: retried alone for its text)
            answer = "error"
        answers.write(answer + "\n")
        answers.flush()


def simulate(warpcheck, spec, timeout):
    """Runs `warpcheck sim run SPEC --format=json`. Returns (sim report dict | None, error)."""
    try:
        proc = subprocess.run([warpcheck, "sim", "run", spec, "--format=json"],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"simulator timed out after {timeout} s"
    if proc.returncode not in (0, 10):
        return None, (f"exit {proc.returncode}: "
                      + (first_line(proc.stderr) or first_line(proc.stdout)))
    try:
        return json.loads(proc.stdout)["sim"], ""
    except (ValueError, KeyError) as e:
        return None, f"unreadable simulator JSON ({e})"


def sim_problem(sim):
    """The first fault or failed expectation of a sim report, '' when ok."""
    if sim.get("ok"):
        return ""
    for f in sim.get("faults", []):
        return f"fault {f.get('kind', '?')}: {f.get('text', '')}"
    for e in sim.get("expectations", []):
        if not e.get("ok"):
            return f"expectation {e.get('name', '?')} failed: {e.get('detail', '')}"
    return "not ok"


def measure(line, row, args):
    """Everything for one jsonl line; returns the TSV row as a dict."""
    cli_dtype = CLI_DTYPE.get(row["dtype"])
    out = base_row(line, row, cli_dtype)
    why = corpus.skip_reason(row)
    if why is None and cli_dtype is None:
        why = f"element type {row['dtype']} has no CLI spelling"
    if why is None and len(row["shape"]) not in (1, 2):
        why = f"rank {len(row['shape'])} (the harness takes 1-D and 2-D tensors)"
    if why:
        out.update(status="skipped", reason=why)
        return out

    name = kernel_name(out)
    cached = os.path.join(args.work, name + ".row.json")
    if not args.fresh and os.path.exists(cached):
        with open(cached) as f:
            return json.load(f)

    case = corpus.Case(name, line, row, cli_dtype, 1)
    text = corpus.ttgir_kernel(row["src"], row["dst"], row["shape"],
                               corpus.DTYPES[cli_dtype][0], row["num_warps"])
    with open(os.path.join(args.work, name + ".ttgir"), "w") as f:
        f.write(text)
    res = compile_in_worker(name, args.work)
    if res is None:
        # Failed (or crashed) in the worker: compile again alone, exactly as corpus/triton
        # does, for Triton's own error text.
        try:
            res, err = corpus.run_compile(case, args.work)
        except subprocess.TimeoutExpired:
            res, err = None, "triton.compile timed out after 600 s"
    if res is not None:
        bad = corpus.check_entry(res["ptx"])
        if not bad and (res["global_scratch_size"] or res["profile_scratch_size"]):
            bad = (f"scratch sizes {res['global_scratch_size']}/"
                   f"{res['profile_scratch_size']} != 0")
        if not bad and res["num_warps"] != row["num_warps"]:
            bad = f"num_warps {res['num_warps']} != {row['num_warps']}"
        if bad:
            out.update(status="skipped", reason=f"compiled kernel unusable: {bad}")
            return save(out, cached)
    if res is None:
        out.update(status="triton_error", reason=err)
        return save(out, cached)

    out["smem_bytes"] = res["shared"]
    out["category"] = corpus.classify(res["ptx"])[0]
    with open(os.path.join(args.work, name + ".ptx"), "w") as f:
        f.write(res["ptx"])
    sims = []
    for iters in (1, 2):
        spec = os.path.join(args.work, f"{name}_it{iters}.textproto")
        with open(spec, "w") as f:
            f.write(corpus.textproto(case._replace(iters=iters), res))
        sim, err = simulate(args.warpcheck, spec, args.sim_timeout)
        if sim is None:
            out.update(status="sim_error", reason=f"iters={iters}: {err}")
            return save(out, cached)
        sims.append(sim)
    problems = [p for p in (sim_problem(s) for s in sims) if p]
    out["status"] = "ok"
    out["sim_ok"] = 0 if problems else 1
    out["reason"] = problems[0] if problems else ""
    c1, c2 = (s.get("counters", {}) for s in sims)
    for col, key in COUNTERS:
        out[col] = int(c2.get(key, 0)) - int(c1.get(key, 0))
    return save(out, cached)


def save(out, path):
    with open(path + ".partial", "w") as f:
        json.dump(out, f)
    os.replace(path + ".partial", path)
    return out


def kernel_name(row):
    """The file stem of a line's kernel: l<line>_<shape>_<dtype>_w<warps>."""
    return f"l{row['line']:04d}_{row['shape']}_{row['dtype']}_w{row['num_warps']}"


def export_pairs(rows, work, pairs_dir):
    """DIR/triton/<name>.ptx and <name>.textproto (the iters = 1 spec) for every ok row."""
    dest = os.path.join(pairs_dir, "triton")
    os.makedirs(dest, exist_ok=True)
    n = 0
    for r in rows:
        if r["status"] != "ok":
            continue
        name = kernel_name(r)
        for src, dst in ((name + ".ptx", name + ".ptx"),
                         (name + "_it1.textproto", name + ".textproto")):
            with open(os.path.join(work, src)) as f:
                text = f.read()
            with open(os.path.join(dest, dst), "w") as f:
                f.write(text)
        n += 1
    print(f"triton_costs: {n} kernels in {dest}", file=sys.stderr)


def parse_lines(spec, n):
    if not spec:
        return list(range(n))
    lo, _, hi = spec.partition("..")
    lo = int(lo) if lo else 0
    hi = int(hi) if hi else n - 1
    return list(range(lo, min(hi, n - 1) + 1))


def summarize(rows, seconds, jobs):
    status = collections.Counter(r["status"] for r in rows)
    lines = [f"{len(rows)} jsonl lines: " + ", ".join(
        f"{status[s]} {s}" for s in ("ok", "triton_error", "sim_error", "skipped")),
        f"wall time {seconds:.0f} s with --jobs {jobs}"]
    ok = [r for r in rows if r["status"] == "ok"]
    if ok:
        lines.append(f"sim_ok: {sum(1 for r in ok if r['sim_ok'] == 1)} of {len(ok)}")
        cats = collections.Counter(r["category"] for r in ok)
        lines.append("categories: " + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))
    reasons = collections.Counter()
    for r in rows:
        if r["status"] in ("triton_error", "sim_error", "skipped"):
            # Group messages that differ only in locations and numbers.
            key = re.sub(r"loc\([^)]*\)|\"[^\"]*\":\d+:\d+|\b\d+\b", "#", r["reason"])
            reasons[(r["status"], key[:160])] += 1
    for (st, why), n in reasons.most_common():
        lines.append(f"{n:5d}  {st}: {why}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", default=corpus.JSONL_DEFAULT)
    ap.add_argument("--out", default="corpus/plan/triton_costs.tsv")
    ap.add_argument("--work", default="/tmp/triton_costs",
                    help="scratch folder for TTGIR, PTX, specs and per-line results")
    ap.add_argument("--warpcheck", default="build/tools/warpcheck")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--lines", default="", help="A..B: only these 0-based jsonl lines")
    ap.add_argument("--sim-timeout", type=int, default=600)
    ap.add_argument("--fresh", action="store_true", help="ignore cached per-line results")
    ap.add_argument("--pairs-out", default="",
                    help="also copy every `ok` kernel to DIR/triton/<name>.{ptx,textproto} "
                         "(iters 1), the layout tools/gpu/time_pairs.py times")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_loop()
        return 0

    if not os.access(args.warpcheck, os.X_OK):
        print(f"triton_costs: error: {args.warpcheck}: not an executable warpcheck "
              "(build it, or pass --warpcheck)", file=sys.stderr)
        return 2
    args.warpcheck = os.path.abspath(args.warpcheck)
    os.makedirs(args.work, exist_ok=True)
    pairs = corpus.load_pairs(args.pairs)
    todo = parse_lines(args.lines, len(pairs))

    start = time.time()
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for n, out in enumerate(pool.map(lambda i: measure(i, pairs[i], args), todo)):
            rows.append(out)
            print(f"[{n + 1}/{len(todo)}] line {out['line']} {out['status']} "
                  f"{clean(out['reason'], 100)}", file=sys.stderr, flush=True)
    seconds = time.time() - start

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".partial", "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(clean(r.get(c, ""), 1000) for c in COLUMNS) + "\n")
    os.replace(args.out + ".partial", args.out)
    if args.pairs_out:
        export_pairs(rows, args.work, args.pairs_out)
    print(summarize(rows, seconds, args.jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
