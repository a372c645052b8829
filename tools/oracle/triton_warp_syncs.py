#!/usr/bin/env python3
"""Count the warp-level barriers in Triton 3.6's round-trip kernel of corpus pairs.

The simulator's `barriers` counter (corpus/plan/triton_costs.tsv) counts CTA barriers
only; `bar.warp.sync`, which Triton emits between the rounds of a shared-memory
conversion when isCvtWarpSync holds, is not counted there. This script compiles the same
round-trip kernel as tools/oracle/triton_costs.py (gen_triton_corpus.ttgir_kernel, the
row's src/dst/shape/dtype/num_warps, cuda:90) for each requested line of the table and
prints the number of `bar.warp.sync` in the loop body (one round trip), so that the model
of sim/plan/triton_smem.h (2*nReps-1 per warp-synchronous conversion) can be checked.

    python3 tools/oracle/triton_warp_syncs.py --work /tmp/warp_syncs LINE [LINE ...]

Output: one line per table line, `LINE COUNT` (or `LINE error: ...`). Needs
`pip install triton==3.6.0`; no GPU.
"""

import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_triton_corpus as corpus  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loop_body(ptx):
    """The PTX from the loop header's label to the branch back to it."""
    m = re.search(r"^(\$L__BB\d+_\d+):[^\n]*Inner Loop Header.*?bra\s+\1;", ptx, re.S | re.M)
    return m.group(0) if m else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", default=os.path.join(ROOT, "corpus/plan/triton_costs.tsv"))
    ap.add_argument("--work", required=True, help="directory for the kernels and PTX")
    ap.add_argument("lines", nargs="+", type=int)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    with open(args.table) as f:
        rows = {int(r["line"]): r for r in csv.DictReader(f, delimiter="\t")}
    for line in args.lines:
        r = rows.get(line)
        if r is None or r["status"] != "ok":
            print(f"{line} error: not an ok row of the table")
            continue
        shape = [int(s) for s in r["shape"].split("x")]
        text = corpus.ttgir_kernel(r["src"], r["dst"], shape, corpus.DTYPES[r["dtype"]][0],
                                   int(r["num_warps"]))
        case = corpus.Case(f"warpsync_l{line:04d}", line, r, r["dtype"], 1)
        with open(os.path.join(args.work, case.name + ".ttgir"), "w") as f:
            f.write(text)
        res, err = corpus.run_compile(case, args.work)
        if res is None:
            print(f"{line} error: {err}")
            continue
        print(line, loop_body(res["ptx"]).count("bar.warp.sync"))


if __name__ == "__main__":
    main()
