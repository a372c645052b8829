#!/usr/bin/env python3
"""Record what the warpcheck CLI prints on the corpus, and compare two recordings.

A refactoring that "changes no behaviour a user can see" is checked with this script:
record with the binary before the change, record with the binary after, compare.

  tools/json_snapshot.py record BUILD/tools/warpcheck OUT.jsonl [--root=.]
  tools/json_snapshot.py compare BEFORE.jsonl AFTER.jsonl

Each line of OUT.jsonl is {"cmd": [...], "rc": n, "stdout": "...", "stderr": "..."} for one
invocation. What is recorded (all --format=json unless noted):
  - layout show for every attribute with a shape in corpus/layout/triton_*.textproto;
  - sim run for every launch spec in corpus/triton/;
  - swizzle2d show and prove over a fixed set of parameters (and the corpus .swz specs);
  - signal run and signal lint for every program in corpus/signal/, and signal replay
    for every trace in corpus/signal/traces/ (text as well as JSON for run);
  - corpus check over the whole corpus.
Wall-clock fields (solver_ms, seconds, states_per_second and the "(... s)" / "ms" in text)
are masked before recording, so two runs of the same binary compare equal.
"""

import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys

TIMING_KEYS = ("solver_ms", "seconds", "states_per_second")


def mask(text):
    for k in TIMING_KEYS:
        text = re.sub(r'("%s":\s*)[-0-9.eE+]+' % k, r"\g<1>T", text)
    text = re.sub(r"\b\d+(\.\d+)? (ms|s)\b", "T \\2", text)
    text = re.sub(r"\b\d+(\.\d+)? states/s\b", "T states/s", text)
    return text


def unescape(s):
    return s.encode("latin-1", "backslashreplace").decode("unicode_escape")


def layout_cases(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "corpus/layout/triton_*.textproto"))):
        text = open(path, encoding="utf-8").read()
        for block in re.split(r"\ncases \{", text)[1:]:
            m = re.search(r'\battr: "((?:[^"\\]|\\.)*)"', block)
            dims = re.findall(r"\bshape: (\d+)", block)
            lst = re.search(r"\bshape: \[([0-9, ]+)\]", block)
            if lst:
                dims = [x.strip() for x in lst.group(1).split(",")]
            if not m or not dims:
                continue
            shape = "x".join(dims)
            args = ["layout", "show", unescape(m.group(1)), "--shape=" + shape, "--format=json"]
            for flag in ("num_warps", "threads_per_warp", "num_ctas"):
                f = re.search(r"\b%s: (\d+)" % flag, block)
                if f:
                    args.append("--%s=%s" % (flag.replace("_", "-"), f.group(1)))
            out.append(args)
    return out


def swizzle_cases(root):
    out = []
    shows = [
        ["--fn=gemm", "--row-tiles=3", "--col-tiles=10", "--swizzle-offset=7"],
        ["--fn=gemm", "--row-tiles=5", "--col-tiles=4", "--swizzle-offset=2",
         "--swizzle-direction=0"],
        ["--fn=gemm_nz", "--row-tiles=4", "--col-tiles=6", "--swizzle-offset=3"],
        ["--fn=dist", "--row-tiles=4", "--col-tiles=4", "--rank-size=2"],
        ["--fn=dist_nz", "--row-tiles=2", "--col-tiles=3", "--rank-size=4",
         "--comm-npu-split=2"],
        ["--fn=gemm", "--rows=100", "--cols=70", "--tile-rows=32", "--tile-cols=16"],
        ["--fn=nope"],
        ["--fn=gemm", "--row-tiles=0", "--col-tiles=3"],
    ]
    for s in shows:
        out.append(["swizzle2d", "show"] + s + ["--format=json"])
    proves = [
        ["--fn=gemm"],
        ["--fn=gemm_nz", "--row-tiles=1..16", "--col-tiles=1..16"],
        ["--fn=dist_nz", "--rank-size=1..8", "--row-tiles=1..64", "--col-tiles=1..64"],
        ["--fn=dist", "--rank-size=1..4", "--row-tiles=1..8", "--col-tiles=1..8"],
        ["--fn=gemm", "--engine=enumerated", "--row-tiles=1..12", "--col-tiles=1..12"],
        ["--fn=dist", "--engine=both", "--rank-size=1..4", "--row-tiles=1..6",
         "--col-tiles=1..6"],
    ]
    for p in proves:
        out.append(["swizzle2d", "prove"] + p + ["--format=json"])
    for spec in sorted(glob.glob(os.path.join(root, "corpus/swizzle/*.swz"))):
        out.append(["swizzle2d", "prove", "--spec=" + spec, "--engine=enumerated",
                    "--row-tiles=1..6", "--col-tiles=1..6", "--rank-size=1..4",
                    "--format=json"])
    return out


def all_cases(root):
    cases = layout_cases(root)
    for path in sorted(glob.glob(os.path.join(root, "corpus/triton/*.textproto"))):
        cases.append(["sim", "run", path, "--format=json"])
    cases += swizzle_cases(root)
    for path in sorted(glob.glob(os.path.join(root, "corpus/signal/*.textproto"))):
        cases.append(["signal", "run", path, "--format=json"])
        cases.append(["signal", "run", path])
        cases.append(["signal", "lint", path, "--format=json"])
    for path in sorted(glob.glob(os.path.join(root, "corpus/signal/traces/*.textproto"))):
        cases.append(["signal", "replay", path, "--format=json"])
    cases.append(["corpus", "check", os.path.join(root, "corpus"), "--format=json"])
    return cases


def run_one(binary, root, args):
    try:
        p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=600,
                           cwd=root)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, so, se = "timeout", "", ""
    return {"cmd": args, "rc": rc, "stdout": mask(so), "stderr": mask(se)}


def record(binary, out_path, root):
    binary = os.path.abspath(binary)
    out_path = os.path.abspath(out_path)
    os.chdir(root)  # paths in commands and outputs stay relative, so trees compare
    root = "."
    cases = all_cases(root)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda a: run_one(binary, root, a), cases))
    with open(out_path, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print("recorded %d invocations in %s" % (len(results), out_path))


def same_json(x, y):
    """True when two stdouts hold the same JSON values line by line (object key order
    aside: protobuf's JSON printer wrote map entries in hash order)."""
    lx, ly = x.splitlines(), y.splitlines()
    if len(lx) != len(ly):
        return False
    fix = lambda t: re.sub(r'(":\s*)T(?=[,}\]])', r'\1"T"', t)  # masked timings
    try:
        return all(json.loads(fix(p)) == json.loads(fix(q)) for p, q in zip(lx, ly))
    except ValueError:
        return False


def compare(a_path, b_path):
    load = lambda p: {json.dumps(r["cmd"]): r for r in map(json.loads, open(p))}
    a, b = load(a_path), load(b_path)
    differ = reordered = 0
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key), b.get(key)
        if ra and rb and ra != rb and ra["rc"] == rb["rc"] and ra["stderr"] == rb["stderr"] \
                and same_json(ra["stdout"], rb["stdout"]):
            reordered += 1
            continue
        if ra != rb:
            differ += 1
            if differ <= 10:
                print("DIFFERS:", key)
                for field in ("rc", "stdout", "stderr"):
                    va = (a.get(key) or {}).get(field)
                    vb = (b.get(key) or {}).get(field)
                    if va != vb:
                        print("  %s before: %s" % (field, str(va)[:400]))
                        print("  %s after:  %s" % (field, str(vb)[:400]))
    print("%d invocations, %d differ, %d equal as JSON with keys in another order"
          % (len(set(a) | set(b)), differ, reordered))
    return 1 if differ else 0


def main(argv):
    root = "."
    rest = []
    for a in argv[1:]:
        if a.startswith("--root="):
            root = a[len("--root="):]
        else:
            rest.append(a)
    if len(rest) == 3 and rest[0] == "record":
        record(rest[1], rest[2], root)
        return 0
    if len(rest) == 3 and rest[0] == "compare":
        return compare(rest[1], rest[2])
    print(__doc__, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
