#!/usr/bin/env python3
"""Simulator bank model vs Nsight Compute: shared-memory wavefronts and bank conflicts.

Reads Nsight Compute's numbers for some corpus kernels (a saved CSV), runs the same
launch specs on the simulator (`warpcheck sim run --format=json`) and prints one row per
kernel: ncu load/store wavefronts and bank conflicts next to the simulator's
`smem_wavefronts.load/.store` and `bank_conflicts.load/.store`, plus the executed
shared-memory warp instructions on both sides. Exit 0 when every compared number agrees,
1 when one differs, 2 on bad input.

Usage (from the repository root):

  # the committed measurement (24 kernels, H200) against the current simulator:
  python3 tools/gpu/compare_ncu.py --ncu corpus/triton/ncu/ncu_h200_shared.csv

  # ... and rewrite the generated table in corpus/triton/README.md:
  python3 tools/gpu/compare_ncu.py --ncu corpus/triton/ncu/ncu_h200_shared.csv \\
      --readme corpus/triton/README.md --tsv /tmp/ncu_vs_sim.tsv

  # a new device run: ncu's raw page plus the launch order, saved compactly first:
  #   ncu --import r.ncu-rep --csv --page raw > ncu_raw.csv
  python3 tools/gpu/compare_ncu.py --ncu ncu_raw.csv --launched ncu_launched.txt \\
      --save-ncu corpus/triton/ncu/ncu_h200_shared.csv

Inputs accepted by --ncu:
  * a compact CSV/TSV with a `kernel` (or `name`) column and metric columns named as ncu
    names them (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`, ...); this is
    what --save-ncu writes and what tools/gpu/device_evidence.sh's ncu_summary.tsv is;
  * ncu's raw page (`ncu --import X.ncu-rep --csv --page raw`): every kernel is called
    `kernel`, so --launched must list the launch specs (paths or stems) in launch order,
    one per line (device_evidence.sh's ncu_launched.txt).

Which launch: Nsight Compute measured one whole launch of the spec as it was then (the
corpus kernels loop `iters` times; every ncu'd kernel had iters = 1). The compact CSV
records that `iters`; the simulator runs the same spec, and if the spec's iters has
changed since, a temporary copy with the measured iters is run instead (and the row
says so).

Mapping (sm_90, ncu 2025.3):
  ncu l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum  <->  sim smem_wavefronts.load
      (includes ldmatrix: the instruction counters separate ldsm, the wavefront ones don't)
  ncu l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum  <->  sim smem_wavefronts.store
      (includes stmatrix)
  ncu l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/_st.sum <-> sim bank_conflicts.load/.store
  ncu smsp__inst_executed_op_shared_ld + _op_ldsm            <->  sim smem_requests.load
  ncu smsp__inst_executed_op_shared_st + _op_shared_stsm     <->  sim smem_requests.store
      (SASS vs PTX instructions: equal here because every PTX shared access became one
      SASS access; not guaranteed in general)
  ncu ..._op_misc.sum (shfl, barriers, ...): no simulator counter; shown next to the
      simulator's shfl count for reference, never compared.
"""

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
BC = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
METRICS = [
    WF + "_op_ld.sum",
    WF + "_op_st.sum",
    BC + "_op_ld.sum",
    BC + "_op_st.sum",
    WF + ".sum",
    BC + ".sum",
    WF + "_op_misc.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
]

BEGIN = "<!-- BEGIN GENERATED NCU COMPARISON (tools/gpu/compare_ncu.py) -->"
END = "<!-- END GENERATED NCU COMPARISON -->"


def die(msg):
    print("compare_ncu: " + msg, file=sys.stderr)
    sys.exit(2)


def num(text):
    """ncu writes 1,280 and 16.000000; empty or 'n/a' is None."""
    if text is None:
        return None
    t = str(text).strip().replace(",", "")
    if t == "" or t.lower() in ("n/a", "nan"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return int(v) if v == int(v) else v


def stem(path):
    base = os.path.basename(path.strip())
    return base[: -len(".textproto")] if base.endswith(".textproto") else base


def read_table(path):
    text = open(path, newline="").read()
    first = text.splitlines()[0] if text else ""
    delim = "\t" if first.count("\t") > first.count(",") else ","
    return list(csv.reader(io.StringIO(text), delimiter=delim))


def load_ncu(path, launched_path):
    """Returns [(kernel, {metric: value, 'iters': n or None, ...})] in file order."""
    rows = read_table(path)
    if not rows:
        die(f"{path}: empty")
    hdr = rows[0]
    out = []
    if "Kernel Name" in hdr and "ID" in hdr:  # ncu raw page
        if not launched_path:
            die(f"{path} is ncu's raw page (every kernel is `kernel`): pass --launched")
        order = [stem(l) for l in open(launched_path) if l.strip()]
        data = [r for r in rows[1:] if r and r[0].strip().isdigit()]
        if len(order) != len(data):
            print(f"compare_ncu: warning: {len(data)} ncu rows, {len(order)} launched specs; "
                  "pairing them in order", file=sys.stderr)
        for name, r in zip(order, data):
            rec = dict(zip(hdr, r))
            vals = {m: num(rec.get(m)) for m in METRICS}
            vals["block"] = rec.get("Block Size", "")
            vals["grid"] = rec.get("Grid Size", "")
            vals["iters"] = None
            out.append((name, vals))
        return out
    key = "kernel" if "kernel" in hdr else ("name" if "name" in hdr else None)
    if key is None:
        die(f"{path}: no `kernel`/`name` column and not an ncu raw page")
    for r in rows[1:]:
        if not r or not any(c.strip() for c in r):
            continue
        rec = dict(zip(hdr, r))
        vals = {m: num(rec.get(m)) for m in METRICS}
        vals["block"] = rec.get("block", rec.get("Block Size", ""))
        vals["grid"] = rec.get("grid", rec.get("Grid Size", ""))
        vals["iters"] = num(rec.get("iters"))
        out.append((stem(rec[key]), vals))
    return out


def spec_iters(spec_text):
    """The corpus convention: the first scalar u32 parameter is `iters`."""
    m = re.search(r"^param\s*\{\s*u32:\s*(\d+)\s*\}", spec_text, re.M)
    return int(m.group(1)) if m else None


def run_sim(warpcheck, spec_path, iters, cache_dir):
    """Runs the simulator; returns (sim report dict or None, note)."""
    text = open(spec_path).read()
    have = spec_iters(text)
    note = ""
    path = spec_path
    tmp = None
    if iters is not None and have is not None and have != iters:
        # Run the launch ncu measured: same spec, the measured iters.
        spec_dir = os.path.dirname(os.path.abspath(spec_path))
        text = re.sub(r"^(param\s*\{\s*u32:\s*)\d+", lambda m: m.group(1) + str(iters), text,
                      count=1, flags=re.M)
        text = re.sub(r'^ptx_file:\s*"([^"]+)"',
                      lambda m: 'ptx_file: "%s"' % os.path.join(spec_dir, m.group(1)), text,
                      count=1, flags=re.M)
        tmp = tempfile.NamedTemporaryFile("w", suffix=".textproto", delete=False)
        tmp.write(text)
        tmp.close()
        path = tmp.name
        note = f"spec iters {have}, ran ncu's {iters}"
    cache = None
    if cache_dir:
        cache = os.path.join(cache_dir, stem(spec_path) + (f".it{iters}" if note else "") + ".json")
        if os.path.exists(cache):
            try:
                return json.load(open(cache))["sim"], note
            except (ValueError, KeyError):
                pass
    try:
        p = subprocess.run([warpcheck, "sim", "run", "--format=json", path],
                           capture_output=True, text=True, timeout=600)
    finally:
        if tmp:
            os.unlink(tmp.name)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        return None, (note + "; " if note else "") + f"sim exit {p.returncode}: {p.stderr.strip()[:200]}"
    if cache:
        os.makedirs(cache_dir, exist_ok=True)
        with open(cache, "w") as f:
            json.dump(rep, f)
    return rep.get("sim"), note


def fmt(v):
    return "–" if v is None else str(v)


def compare(ncu_rows, warpcheck, corpus, cache_dir):
    rows = []
    for name, m in ncu_rows:
        spec = os.path.join(corpus, name + ".textproto")
        if not os.path.exists(spec):
            rows.append({"kernel": name, "error": f"no {spec}"})
            continue
        sim, note = run_sim(warpcheck, spec, m.get("iters"), cache_dir)
        if sim is None:
            rows.append({"kernel": name, "error": note})
            continue
        c = sim.get("counters", {})
        g = lambda k: int(c[k]) if k in c else None

        def add(*vals):
            return None if any(v is None for v in vals) else sum(vals)

        r = {
            "kernel": name,
            "note": note,
            "sim_ok": sim.get("ok"),
            "ncu_ld_inst": add(m[METRICS[7]], m[METRICS[8]]),
            "ncu_st_inst": add(m[METRICS[9]], m[METRICS[10]]),
            "ncu_ld_wf": m[METRICS[0]],
            "ncu_st_wf": m[METRICS[1]],
            "ncu_ld_bc": m[METRICS[2]],
            "ncu_st_bc": m[METRICS[3]],
            "ncu_misc_wf": m[METRICS[6]],
            "sim_ld_inst": g("smem_requests.load"),
            "sim_st_inst": g("smem_requests.store"),
            "sim_ld_wf": g("smem_wavefronts.load"),
            "sim_st_wf": g("smem_wavefronts.store"),
            "sim_ld_bc": g("bank_conflicts.load"),
            "sim_st_bc": g("bank_conflicts.store"),
            "sim_shfl": g("shfl"),
            "sim_ldmatrix": g("class.ldmatrix"),
            "sim_stmatrix": g("class.stmatrix"),
        }
        diffs = [k for k in ("ld_wf", "st_wf", "ld_bc", "st_bc")
                 if r["ncu_" + k] is None or r["ncu_" + k] != r["sim_" + k]]
        inst_diffs = [k for k in ("ld_inst", "st_inst")
                      if r["ncu_" + k] is not None and r["ncu_" + k] != r["sim_" + k]]
        r["match"] = not diffs
        r["diffs"] = diffs
        r["inst_diffs"] = inst_diffs
        rows.append(r)
    return rows


def markdown(rows, source):
    out = []
    n = len(rows)
    good = sum(1 for r in rows if r.get("match"))
    inst_good = sum(1 for r in rows if "error" not in r and not r["inst_diffs"])
    out.append(f"Source: `{source}` ({n} kernels, one whole launch each). "
               f"**{good} of {n}** match exactly on all four numbers (load/store wavefronts, "
               f"load/store bank conflicts); executed shared-memory instructions agree on "
               f"{inst_good} of {n}.")
    out.append("")
    out.append("| kernel | ncu ld / st inst | sim ld / st inst | ncu ld / st wavefronts | "
               "sim ld / st wavefronts | ncu ld / st conflicts | sim ld / st conflicts | "
               "match | ncu misc wf | sim shfl |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            out.append(f"| `{r['kernel']}` | | | | | | | **error**: {r['error']} | | |")
            continue
        pair = lambda a, b: f"{fmt(r[a])} / {fmt(r[b])}"
        verdict = "yes" if r["match"] else "**no** (" + ", ".join(r["diffs"]) + ")"
        if r["note"]:
            verdict += f" ({r['note']})"
        out.append(f"| `{r['kernel']}` | {pair('ncu_ld_inst', 'ncu_st_inst')} | "
                   f"{pair('sim_ld_inst', 'sim_st_inst')} | {pair('ncu_ld_wf', 'ncu_st_wf')} | "
                   f"{pair('sim_ld_wf', 'sim_st_wf')} | {pair('ncu_ld_bc', 'ncu_st_bc')} | "
                   f"{pair('sim_ld_bc', 'sim_st_bc')} | {verdict} | {fmt(r['ncu_misc_wf'])} | "
                   f"{fmt(r['sim_shfl'])} |")
    out.append("")
    out.append("ncu inst = `smsp__inst_executed_op_shared_ld + _op_ldsm` / "
               "`_op_shared_st + _op_shared_stsm` (SASS); sim inst = `smem_requests.load/.store` "
               "(PTX ld/st.shared + ldmatrix/stmatrix); wavefronts = "
               "`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st.sum` vs "
               "`smem_wavefronts.load/.store`; conflicts = "
               "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/_op_st.sum` vs "
               "`bank_conflicts.load/.store`; misc wf = `..._op_misc.sum` (not modelled, for "
               "reference).")
    return "\n".join(out)


def save_ncu(path, ncu_rows, corpus):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["kernel", "iters", "block", "grid"] + METRICS)
        for name, m in ncu_rows:
            iters = m.get("iters")
            spec = os.path.join(corpus, name + ".textproto")
            if iters is None and os.path.exists(spec):
                iters = spec_iters(open(spec).read())
            w.writerow([name, fmt(iters), m.get("block", ""), m.get("grid", "")] +
                       ["" if m[k] is None else m[k] for k in METRICS])


def update_readme(path, table):
    text = open(path).read()
    block = BEGIN + "\n" + table + "\n" + END
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + block + text[b:]
    else:
        die(f"{path}: no {BEGIN} ... {END} markers (add them under the section heading)")
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ncu", required=True, help="ncu CSV (compact or raw page)")
    ap.add_argument("--launched", help="launch order for a raw page (spec paths or stems)")
    ap.add_argument("--save-ncu", help="write the ncu numbers as a compact CSV here")
    ap.add_argument("--warpcheck", default=os.path.join(ROOT, "build/tools/warpcheck"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus/triton"))
    ap.add_argument("--sim-cache", help="folder to keep/reuse the simulator's JSON reports")
    ap.add_argument("--tsv", help="write the comparison as TSV here")
    ap.add_argument("--readme", help="replace the generated block in this README")
    args = ap.parse_args()

    ncu_rows = load_ncu(args.ncu, args.launched)
    if args.save_ncu:
        save_ncu(args.save_ncu, ncu_rows, args.corpus)
        ncu_rows = load_ncu(args.save_ncu, None)
    if not os.access(args.warpcheck, os.X_OK):
        die(f"no executable {args.warpcheck} (--warpcheck)")
    rows = compare(ncu_rows, args.warpcheck, args.corpus, args.sim_cache)
    src = os.path.relpath(os.path.abspath(args.save_ncu or args.ncu), ROOT)
    table = markdown(rows, src)
    print(table)
    if args.tsv:
        cols = ["kernel", "match", "diffs", "note", "ncu_ld_inst", "ncu_st_inst", "sim_ld_inst",
                "sim_st_inst", "ncu_ld_wf", "ncu_st_wf", "sim_ld_wf", "sim_st_wf", "ncu_ld_bc",
                "ncu_st_bc", "sim_ld_bc", "sim_st_bc", "ncu_misc_wf", "sim_shfl", "sim_ldmatrix",
                "sim_stmatrix", "error"]
        with open(args.tsv, "w") as f:
            f.write("\t".join(cols) + "\n")
            for r in rows:
                f.write("\t".join(",".join(r[c]) if isinstance(r.get(c), list) else fmt(r.get(c))
                                  if c in r else "" for c in cols) + "\n")
    if args.readme:
        update_readme(args.readme, table)
    return 0 if all(r.get("match") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
