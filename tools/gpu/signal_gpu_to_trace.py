#!/usr/bin/env python3
"""Turns one GPU run of `warpcheck signal cuda` (a JSON line) into a warpcheck.SignalTrace.

The GPU program's watchdog prints, per run, the outcome, the blocked agents
("rank1.cta0@wait#1", "rank0.k@launch k", "rank0.cta2@not_started"), the signal words that
differ from their initial value, and each agent's progress record. This writes that hang
snapshot as a SignalTrace that names its program, so that

    warpcheck signal replay TRACE.textproto --explore-nearby

searches the simulator's interleavings for the same hang (same blocked agents at the same
sites, same word values) and says whether it was inevitable or timing-dependent. The GPU
records no per-word write order, so the trace has no events.

Usage:
    tools/gpu/signal_gpu_to_trace.py PROGRAM.textproto RUNS.jsonl [--run=K] -o TRACE.textproto
"""
import argparse
import json
import os
import re
import sys

AGENT = re.compile(r"^rank(\d+)\.(.+)$")
WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)@(\d+)\[(\d+)\]$")


def agent_fields(name):
    """rank1.cta0 | rank1.k.cta0 | rank1.k.L2.cta0 | rank1.L2.cta0 -> CTA; else a stream."""
    m = AGENT.match(name)
    if not m:
        raise ValueError(f"agent name '{name}' is not rank<R>.<...>")
    rank, rest = int(m.group(1)), m.group(2).split(".")
    fields = {"rank": rank}
    if re.fullmatch(r"cta\d+", rest[-1]):
        fields["cta"] = int(rest[-1][3:])
        for part in rest[:-1]:
            if re.fullmatch(r"L\d+", part):
                fields["launch"] = int(part[1:])
            else:
                fields["kernel"] = part
    else:
        fields["cta"] = -1
        fields["stream"] = ".".join(rest)
    return fields


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("jsonl")
    ap.add_argument("--run", type=int, default=None,
                    help="the run to convert (default: the first that hung)")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    runs = [json.loads(line) for line in open(a.jsonl) if line.strip()]
    if a.run is not None:
        chosen = [r for r in runs if r.get("run") == a.run]
    else:
        chosen = [r for r in runs if r.get("outcome") == "deadlock"]
    if not chosen:
        sys.exit(f"{a.jsonl}: no {'run ' + str(a.run) if a.run is not None else 'hanging run'}")
    run = chosen[0]
    rel = os.path.relpath(os.path.abspath(a.program), os.path.dirname(os.path.abspath(a.out)))
    lines = [
        "# proto-file: proto/signal.proto",
        "# proto-message: warpcheck.SignalTrace",
        f"# GPU run {run.get('run')} of {run.get('program')} (tier {run.get('tier')}, "
        f"perturbed={str(run.get('perturbed')).lower()}): {run.get('outcome')}",
        "format_version: 1",  # SignalTrace.format_version (proto/signal.proto)
        f"program_file: {quote(rel)}",
        "snapshot {",
    ]
    for b in run.get("blocked", []):
        name, site = b.split("@", 1)
        f = agent_fields(name)
        state = "NOT_STARTED" if site == "not_started" else "WAITING"
        body = [f"rank: {f['rank']}", f"cta: {f['cta']}"]
        if "kernel" in f:
            body.append(f"kernel: {quote(f['kernel'])}")
        if "stream" in f:
            body.append(f"stream: {quote(f['stream'])}")
        if "launch" in f:
            body.append(f"launch: {f['launch']}")
        body.append(f"state: {state}")
        if state == "WAITING":
            body.append(f"site: {quote(site)}")
        for ag in run.get("agents", []):
            if ag.get("agent") == name and "expected" in ag:
                body.append(f"expected: {int(ag['expected'])} observed: {int(ag['observed'])}")
        lines.append("  agents { " + " ".join(body) + " }")
    for word, value in sorted(run.get("values", {}).items()):
        m = WORD.match(word)
        if not m:
            sys.exit(f"{a.jsonl}: word '{word}' is not OBJ@rank[index]")
        lines.append(f"  words {{ object: {quote(m.group(1))} rank: {m.group(2)} "
                     f"index: {m.group(3)} value: {int(value)} }}")
    lines.append("}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
