#!/usr/bin/env python3
"""Compile fuzzed layout pairs with Triton on the CPU, for `warpcheck fuzz layouts --against=triton`.

    python3 tools/oracle/triton_fuzz_compile.py --pairs PAIRS.jsonl --out DIR [--jobs N]

Each input line is one pair: {"name", "src", "dst", "shape": [..], "dtype", "num_warps"}
(dtype in warpcheck's spelling: f16, bf16, f32, i8, i16, i32, i64, f64). For each pair it
builds the round-trip TTGIR kernel of corpus/triton (gen_triton_corpus.ttgir_kernel: load
in src, iters x {src->dst, dst->src}, store in src) and compiles it with
triton.compile(..., GPUTarget("cuda", 90, 32)) -- no GPU needed -- and writes

    DIR/<name>.ttgir, DIR/<name>.ptx (when it compiled) and DIR/<name>.json:
    {"status": "ok" | "triton_error" | "triton_crash" | "triton_timeout" | "unsupported",
     "reason": str, "shared": bytes of dynamic shared memory}

Compiles run in --jobs long-lived worker processes (one `import triton` each). A worker
that dies (Triton aborts on some inputs) is replaced; its pair gets "triton_crash" with
the last line of its stderr. A compile that has not answered within --timeout seconds
(default 60; a worker's first compile also imports triton) is killed with its worker,
which is replaced, and its pair gets "triton_timeout": a bound hit, not a verdict (one
fuzz pair, a 128x128 i8 one-warp slice round trip, had Triton's compile at 22 GB of
memory after 10 minutes). Exit 0 when every pair has its .json.
"""

import argparse
import json
import os
import select
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_triton_corpus as corpus  # noqa: E402  (the same round-trip kernel as corpus/triton)


def worker_main():
    """Reads one job per line on stdin, answers one JSON line per job on stdout."""
    import triton
    from triton.backends.compiler import GPUTarget
    target = GPUTarget("cuda", 90, 32)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            k = triton.compile(job["ttgir"], target=target)
            res = {"status": "ok", "reason": "", "shared": int(k.metadata.shared),
                   "ptx": k.asm["ptx"]}
        except Exception as e:  # Triton's compile errors: the pair is not compiled
            msg = str(e).strip().splitlines()
            tell = [l for l in msg if "error" in l.lower()] or msg or [type(e).__name__]
            res = {"status": "triton_error", "reason": tell[0].strip()[:300], "shared": 0}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


class Worker:
    def __init__(self, timeout):
        self.proc = None
        self.timeout = timeout

    def compile(self, ttgir_path):
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, cwd=os.path.dirname(ttgir_path))
            self.err_lines = []
            threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
        try:
            self.proc.stdin.write(json.dumps({"ttgir": os.path.basename(ttgir_path)}) + "\n")
            self.proc.stdin.flush()
            # The worker answers each job with one line and then waits for the next, so
            # nothing is read ahead into the pipe's buffer: select sees the answer.
            ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
            if not ready:
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                return {"status": "triton_timeout",
                        "reason": f"no answer within {self.timeout:g} s (killed)", "shared": 0}
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.proc.wait()
            tell = [l for l in self.err_lines if "error" in l.lower() or "Assertion" in l]
            reason = (tell or self.err_lines or [f"exit {self.proc.returncode}"])[-1]
            self.proc = None
            return {"status": "triton_crash", "reason": reason.strip()[:300], "shared": 0}
        return json.loads(line)

    def _drain(self, proc):
        for l in proc.stderr:
            self.err_lines = (self.err_lines + [l.rstrip()])[-50:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs")
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds a compile may take before its worker is killed")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker_main()
    if not a.pairs or not a.out:
        ap.error("--pairs and --out are required")
    os.makedirs(a.out, exist_ok=True)
    with open(a.pairs) as f:
        pairs = [json.loads(l) for l in f if l.strip()]
    local = threading.local()

    def one(p):
        base = os.path.join(a.out, p["name"])
        res = {"status": "unsupported", "reason": "", "shared": 0}
        if len(p["shape"]) not in (1, 2):
            res["reason"] = f"rank {len(p['shape'])}: the round-trip harness is rank 1-2"
        elif p["dtype"] not in corpus.DTYPES:
            res["reason"] = f"dtype {p['dtype']}"
        else:
            ty = corpus.DTYPES[p["dtype"]][0]
            with open(base + ".ttgir", "w") as f:
                f.write(corpus.ttgir_kernel(p["src"], p["dst"], p["shape"], ty, p["num_warps"]))
            if not hasattr(local, "worker"):
                local.worker = Worker(a.timeout)
            res = local.worker.compile(os.path.abspath(base + ".ttgir"))
            if res.get("ptx"):
                with open(base + ".ptx", "w") as f:
                    f.write(res.pop("ptx"))
        with open(base + ".json", "w") as f:
            json.dump(res, f)

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(one, pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
