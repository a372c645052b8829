#!/usr/bin/env python3
"""Fits the planner's cost model (sim/plan/planner.cc, EstimateCost) to H200 timings.

    python3 tools/oracle/fit_cost_model.py --timing corpus/plan/h200/timing_v1.tsv \
        --ours OURS_COMPARE.tsv [--triton corpus/plan/triton_costs.tsv]

OURS_COMPARE.tsv is `warpcheck convert compare ... --tsv-out` from the same commit that
emitted the timed kernels. Each timed kernel (ours and Triton's) is one sample: the
simulator's per-round-trip counters of one CTA (warp instructions W, shared wavefronts
F, shuffles S, CTA barrier phases B) against the H200's ns per round trip at 528 CTAs.
Model (a throughput model of one SM with 4 CTAs resident): the shared-memory pipe serves
wavefronts and shuffles, the schedulers issue instructions, whichever is busier sets the
pace, and CTA barriers add latency:

    ns = k * max(F + s*S, a*W) + b * B/warps + c

a and s by grid search, k, b, c by least squares on relative error (rows divided by the
measured time), fitted on the pairs with an even line number; the error is reported on
the odd ones (held out). Kernels whose loop is empty (W = 0) are left out: their time is
the harness's global loads and stores, not a conversion.
Needs numpy.
"""
import argparse
import csv

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timing", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--triton", default="corpus/plan/triton_costs.tsv")
    a = ap.parse_args()
    t = list(csv.DictReader(open(a.timing), delimiter="\t"))
    ours = {r["line"]: r for r in csv.DictReader(open(a.ours), delimiter="\t")}
    tri = {r["line"]: r for r in csv.DictReader(open(a.triton), delimiter="\t")}
    X, y, held = [], [], []
    for r in t:
        line = str(int(r["pair"][1:5]))
        o, tr = ours[line], tri[line]
        samples = [
            (o["warp_instructions"], o["smem_wavefronts"], o["shfl"], o["barriers"],
             r["ours_ns_per_round_trip"]),
            (tr["warp_instructions"],
             int(tr["smem_wavefronts_store"]) + int(tr["smem_wavefronts_load"]), tr["shfl"],
             tr["barriers"], r["triton_ns_per_round_trip"]),
        ]
        for W, F, S, B, ns in samples:
            W, F, S, B, ns = int(W), int(F), int(S), int(B), float(ns)
            if W == 0:
                continue
            X.append([W, F, S, B, int(tr["num_warps"])])
            y.append(ns)
            held.append(int(line) % 2 == 1)
    y, held = np.array(y), np.array(held)
    best = None
    for aa in np.arange(0.1, 2.01, 0.05):
        for ss in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0):
            A = np.array([[max(F + ss * S, aa * W), B / warps, 1.0] for W, F, S, B, warps in X])
            wt = 1.0 / y
            coef, *_ = np.linalg.lstsq(A[~held] * wt[~held, None], y[~held] * wt[~held],
                                       rcond=None)
            err = np.abs(A @ coef - y) / y
            m = np.median(err[~held])
            if best is None or m < best[0]:
                best = (m, aa, ss, coef, err)
    _, aa, ss, coef, err = best
    print("samples %d (fit %d, held out %d)" % (len(y), (~held).sum(), held.sum()))
    print("ns = %.3f * max(F + %.2f*S, %.2f*W) + %.3f * B/warps + %.2f" % (
        coef[0], ss, aa, coef[1], coef[2]))
    for name, m in (("fit", ~held), ("held out", held)):
        print("%-8s median |error| %.1f%%, p90 %.1f%%, max %.1f%%" % (
            name, 100 * np.median(err[m]), 100 * np.percentile(err[m], 90),
            100 * err[m].max()))


if __name__ == "__main__":
    main()
