#!/usr/bin/env python3
"""Mutation check, part 1: write deterministic one-line mutants of corpus/triton kernels.

Each mutant is a copy of one corpus kernel with exactly one PTX line changed, plus a copy
of its launch spec that points at the mutant PTX (same grid, buffers and
`expect { buffers_equal { a: "in" b: "out" } }`; sim_expect left unset). A mutant is
"wrong" on a runner when `out != in` after the round trip, or when the runner reports a
fault. tools/gpu/mutation_check.sh runs every mutant on the GPU and on the simulator; the
property checked is: every mutant the GPU shows wrong, the simulator shows wrong (wrong
output or a fault) too.

Mutation kinds (one mutated PTX line each; line numbers never shift):

  shfl_lane      `shfl.sync` source-lane operand: an immediate lane/xor mask (bfly 16, 1)
                 becomes another power of two; a register lane is swapped with another
                 lane register of the kernel, replaced by an immediate lane, or xor/add a
                 constant (`xor.b32 D, L, k; shfl ... D, A, D, ...` or `add.u32 ...` on the same line,
                 using the shuffle's own destination register as the temporary);
                 the clamp operand (31) is narrowed (`c_15`)
  shfl_mask      `shfl.sync` membermask -1 with one or more lanes cleared
                 (0x7fffffff, 0xfffffffe, a random bit, 0x0000ffff)
  selp_swap      `selp.T d, a, b, p` -> `selp.T d, b, a, p` (a != b)
  smem_offset    address of ld/st.shared, ldmatrix, stmatrix `[R+imm]`: imm +/- the access
                 size (elements x vector length; 16 for a matrix row; stays aligned), imm
                 + the element size (misaligned for vector accesses), or the base
                 register replaced by another shared base register of the kernel
  drop_bar_sync  `bar.sync` (or `bar.warp.sync`, variant `warp`) replaced by a comment
  prmt_selector  `prmt.b32` selector: an immediate selector gets one nibble changed; a
                 register selector is replaced by an immediate one
  vec_swap       two distinct registers of a vector operand `{a, b, c, d}` of a
                 ld/st.shared or ld/st.global .v2/.v4 swapped

Selection is deterministic (seed, sorted inputs): for every kind, up to --kernels-per-kind
kernels that have a site of that kind (drawn over all categories), and in each of them up
to --sites-per-kernel sites, one variant each. Mutant ids are
`<kernel>__<kind>_L<line>`; the same seed and corpus give the same mutants, byte for byte.

Usage:
  python3 tools/oracle/mutate_ptx.py --out /tmp/mutants                # write mutants
  python3 tools/oracle/mutate_ptx.py --out /tmp/mutants --seed 7 --kernels-per-kind 20
  python3 tools/oracle/mutate_ptx.py --manifest-only --out corpus/triton/mutants
        # only (re)write manifest.tsv (what is committed; the mutant files are not)
  python3 tools/oracle/mutate_ptx.py --out /tmp/mutants --check corpus/triton/mutants/manifest.tsv
        # write mutants and fail (exit 1) unless the manifest equals the committed one

Output (in --out): <id>.ptx, <id>.textproto for every mutant, and manifest.tsv with the
columns id, kernel, category, kind, variant, line, before, after (tabs in PTX text are
written as spaces).
"""

import argparse
import csv
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = ["shfl_lane", "shfl_mask", "selp_swap", "smem_offset", "drop_bar_sync", "prmt_selector",
         "vec_swap"]
DEFAULT_SEED = 20261129

SHFL_RE = re.compile(
    r"^(?P<pre>\s*(?:@!?%\w+\s+)?)(?P<op>shfl\.sync\.(?P<mode>\w+)\.b32)(?P<sp>\s+)"
    r"(?P<d>%\w+),\s*(?P<a>%\w+),\s*(?P<b>%\w+|-?\w+),\s*(?P<c>%\w+|-?\w+),\s*(?P<m>%\w+|-?\w+);"
    r"(?P<post>.*)$")
SELP_RE = re.compile(
    r"^(?P<pre>\s*(?:@!?%\w+\s+)?)(?P<op>selp\.\w+)(?P<sp>\s+)(?P<d>%\w+),\s*(?P<a>[^,]+?),\s*"
    r"(?P<b>[^,]+?),\s*(?P<p>%\w+);(?P<post>.*)$")
PRMT_RE = re.compile(
    r"^(?P<pre>\s*(?:@!?%\w+\s+)?)(?P<op>prmt\.b32(?:\.\w+)?)(?P<sp>\s+)(?P<d>%\w+),\s*"
    r"(?P<a>[^,]+?),\s*(?P<b>[^,]+?),\s*(?P<s>[^;]+?);(?P<post>.*)$")
SMEM_RE = re.compile(
    r"^(?P<pre>\s*(?:@!?%\w+\s+)?)(?P<op>(?:ld|st)\.shared(?:\.v(?P<vec>[24]))?\.[bsuf](?P<bits>\d+)"
    r"|(?:ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x[124](?:\.trans)?\.shared\.b16)"
    r"(?P<mid>[^\[]*)\[(?P<base>%\w+)(?:\+(?P<imm>-?\d+))?\](?P<post>.*)$")
VEC_RE = re.compile(
    r"^(?P<pre>\s*(?:@!?%\w+\s+)?)(?P<op>(?:ld|st)\.(?:shared|global)(?:\.[\w:]+)*\.v[24]\.\w+)"
    r"(?P<mid>[^{]*)\{(?P<regs>[^}]*)\}(?P<post>.*)$")
BAR_RE = re.compile(r"^(?P<pre>\s*)(?P<op>bar\.sync|bar\.warp\.sync|barrier\.sync(?:\.aligned)?)\b"
                    r"(?P<rest>[^;]*);(?P<post>.*)$")


def site_kinds(line):
    """[(kind, match)] for the mutation sites on one PTX line."""
    out = []
    m = SHFL_RE.match(line)
    if m:
        out.append(("shfl_lane", m))
        if m.group("m") in ("-1", "0xffffffff", "0xFFFFFFFF"):
            out.append(("shfl_mask", m))
    m = SELP_RE.match(line)
    if m and m.group("a").strip() != m.group("b").strip():
        out.append(("selp_swap", m))
    m = PRMT_RE.match(line)
    if m:
        out.append(("prmt_selector", m))
    m = SMEM_RE.match(line)
    if m:
        out.append(("smem_offset", m))
    m = BAR_RE.match(line)
    if m:
        out.append(("drop_bar_sync", m))
    m = VEC_RE.match(line)
    if m and len({r.strip() for r in m.group("regs").split(",")}) > 1:
        out.append(("vec_swap", m))
    return out


def parse_int(text):
    t = text.strip().rstrip("Uu")
    return int(t, 16) if t.lower().startswith("0x") else int(t)


class Kernel:
    def __init__(self, corpus, name, category):
        self.name = name
        self.category = category
        self.ptx_path = os.path.join(corpus, name + ".ptx")
        self.spec_path = os.path.join(corpus, name + ".textproto")
        with open(self.ptx_path) as f:
            self.lines = f.read().split("\n")
        self.sites = {k: [] for k in KINDS}
        self.lane_regs = []  # register lane operands of shfl.sync.idx
        self.smem_bases = {}  # base register -> True
        for i, line in enumerate(self.lines):
            for kind, m in site_kinds(line):
                self.sites[kind].append((i, m))
                if kind == "shfl_lane" and m.group("b").startswith("%"):
                    if m.group("b") not in self.lane_regs:
                        self.lane_regs.append(m.group("b"))
                if kind == "smem_offset":
                    self.smem_bases[m.group("base")] = True


def mutate(kernel, kind, idx, m, rng):
    """Returns (variant, new_line) or None when this site has no sensible mutation."""
    line = kernel.lines[idx]
    if kind == "shfl_lane":
        b, c, d, a = m.group("b"), m.group("c"), m.group("d"), m.group("a")
        head = m.group("pre") + m.group("op") + m.group("sp")
        tail = f", {m.group('m')};{m.group('post')}"
        choices = []
        if not b.startswith("%"):
            lane = parse_int(b)
            for x in (1, 2, 4, 8, 16):
                if x != lane:
                    choices.append((f"imm_{lane}_to_{x}", f"{head}{d}, {a}, {x}, {c}{tail}"))
        else:
            others = [r for r in kernel.lane_regs if r != b]
            if others:
                r = rng.choice(others)
                choices.append((f"swap_{b[1:]}_{r[1:]}", f"{head}{d}, {a}, {r}, {c}{tail}"))
            k = rng.choice([1, 2, 4, 8, 16])
            choices.append((f"imm_{k}", f"{head}{d}, {a}, {k}, {c}{tail}"))
            if d != a and not m.group("pre").strip():  # d is free before the shuffle
                k = rng.choice([1, 2, 4, 8, 16])
                op = rng.choice(["xor", "add"])
                # add needs an integer type (.u32): ptxas rejects add.b32.
                typed = "xor.b32" if op == "xor" else "add.u32"
                choices.append((f"{op}_{k}", f"{m.group('pre')}{typed} {d}, {b}, {k}; "
                                             f"{m.group('op')}{m.group('sp')}{d}, {a}, {d}, {c}{tail}"))
        if c == "31":
            choices.append(("c_15", f"{head}{d}, {a}, {b}, 15{tail}"))
        if not choices:
            return None
        # Prefer lane changes over the clamp change (3:1).
        weights = [1 if v == "c_15" else 3 for v, _ in choices]
        return rng.choices(choices, weights=weights)[0]
    if kind == "shfl_mask":
        bit = rng.randrange(1, 31)
        masks = [("clear31", 0x7FFFFFFF), ("clear0", 0xFFFFFFFE),
                 (f"clear{bit}", 0xFFFFFFFF & ~(1 << bit)), ("low16", 0x0000FFFF)]
        v, mask = rng.choice(masks)
        return v, line[: m.start("m")] + "0x%08x" % mask + line[m.end("m"):]
    if kind == "selp_swap":
        a, b = m.group("a"), m.group("b")
        return "swap", line[: m.start("a")] + b + line[m.end("a"): m.start("b")] + a + line[m.end("b"):]
    if kind == "prmt_selector":
        s = m.group("s").strip()
        if s.startswith("%"):
            new = rng.choice(["0x3210U", "0x5410U", "0x7632U", "0x1032U", "0x4321U"])
            return f"reg_to_{new[:-1]}", line[: m.start("s")] + new + line[m.end("s"):]
        val = parse_int(s)
        pos = rng.randrange(4)
        old = (val >> (4 * pos)) & 0xF
        new_nib = rng.choice([x for x in range(8) if x != (old & 7)])
        nv = (val & ~(0xF << (4 * pos))) | (new_nib << (4 * pos))
        txt = "0x%04xU" % nv
        return f"nibble{pos}_{old:x}_to_{new_nib:x}", line[: m.start("s")] + txt + line[m.end("s"):]
    if kind == "smem_offset":
        op = m.group("op")
        if "matrix" in op:
            size, elem = 16, 16
        else:
            elem = int(m.group("bits")) // 8
            size = elem * int(m.group("vec") or 1)
        imm = int(m.group("imm") or 0)
        choices = [(f"plus{size}", imm + size)]
        if imm >= size:
            choices.append((f"minus{size}", imm - size))
        if elem < size:
            choices.append((f"plus{elem}_misaligned", imm + elem))
        other = [r for r in kernel.smem_bases if r != m.group("base")]
        base = m.group("base")
        variant, new_imm = rng.choice(choices)
        if other and rng.random() < 0.25:
            base = rng.choice(other)
            variant, new_imm = f"base_{m.group('base')[1:]}_to_{base[1:]}", imm
        addr = f"[{base}+{new_imm}]" if new_imm else f"[{base}]"
        return variant, line[: m.start("base") - 1] + addr + line[m.end() - len(m.group("post")):]
    if kind == "vec_swap":
        regs = [r.strip() for r in m.group("regs").split(",")]
        pairs = [(i, j) for i in range(len(regs)) for j in range(i + 1, len(regs))
                 if regs[i] != regs[j]]
        i, j = rng.choice(pairs)
        regs[i], regs[j] = regs[j], regs[i]
        return (f"swap{i}{j}", line[: m.start("regs")] + ", ".join(regs) + line[m.end("regs"):])
    if kind == "drop_bar_sync":
        op = m.group("op")
        variant = "warp" if "warp" in op else "cta"
        body = line.strip()
        return variant, m.group("pre") + "// mutant: dropped: " + body
    raise ValueError(kind)


def select(corpus, seed, kernels_per_kind, sites_per_kernel, only_kernels=None):
    manifest = os.path.join(corpus, "manifest.tsv")
    rows = list(csv.DictReader(open(manifest), delimiter="\t"))
    cat = {r["name"]: r["category"] for r in rows}
    names = sorted(cat)
    if only_kernels:
        names = [n for n in names if n in only_kernels]
    kernels = {n: Kernel(corpus, n, cat[n]) for n in names}
    mutants = []
    for kind in KINDS:
        rng = random.Random(f"{seed}:{kind}")
        pool = [n for n in names if kernels[n].sites[kind]]
        # Spread over categories: round-robin over the categories, each shuffled.
        by_cat = {}
        for n in pool:
            by_cat.setdefault(kernels[n].category, []).append(n)
        for c in sorted(by_cat):
            rng.shuffle(by_cat[c])
        picked = []
        while len(picked) < kernels_per_kind and any(by_cat.values()):
            for c in sorted(by_cat):
                if by_cat[c] and len(picked) < kernels_per_kind:
                    picked.append(by_cat[c].pop(0))
        for n in sorted(picked):
            k = kernels[n]
            sites = list(k.sites[kind])
            srng = random.Random(f"{seed}:{kind}:{n}")
            chosen = sorted(srng.sample(range(len(sites)), min(sites_per_kernel, len(sites))))
            for si in chosen:
                idx, m = sites[si]
                r = mutate(k, kind, idx, m, srng)
                if r is None:
                    continue
                variant, new = r
                if new == k.lines[idx]:
                    continue
                mutants.append({
                    "id": f"{n}__{kind}_L{idx + 1}",
                    "kernel": n,
                    "category": k.category,
                    "kind": kind,
                    "variant": variant,
                    "line": idx + 1,
                    "before": k.lines[idx],
                    "after": new,
                })
    return kernels, mutants


def clean(text):
    return text.replace("\t", " ").strip()


MANIFEST_COLS = ["id", "kernel", "category", "kind", "variant", "line", "before", "after"]


def manifest_text(mutants):
    out = ["\t".join(MANIFEST_COLS)]
    for m in mutants:
        out.append("\t".join(clean(str(m[c])) for c in MANIFEST_COLS))
    return "\n".join(out) + "\n"


def write_mutant(out_dir, kernel, m):
    lines = list(kernel.lines)
    lines[m["line"] - 1] = m["after"]
    with open(os.path.join(out_dir, m["id"] + ".ptx"), "w") as f:
        f.write("\n".join(lines))
    spec = open(kernel.spec_path).read()
    spec, n = re.subn(r'^ptx_file:\s*"[^"]*"', f'ptx_file: "{m["id"]}.ptx"', spec, count=1, flags=re.M)
    if n != 1:
        raise ValueError(f"{kernel.spec_path}: no ptx_file")
    spec = re.sub(r"^sim_expect\s*\{[^}]*\}\s*\n", "", spec, flags=re.M)
    # After the two proto-file/proto-message header lines.
    head, _, rest = spec.partition("\n")
    head2, _, rest = rest.partition("\n")
    note = (f"# MUTANT {m['id']} (tools/oracle/mutate_ptx.py): {m['kind']}/{m['variant']} "
            f"at {kernel.name}.ptx line {m['line']}\n#   before: {clean(m['before'])}\n"
            f"#   after:  {clean(m['after'])}\n")
    with open(os.path.join(out_dir, m["id"] + ".textproto"), "w") as f:
        f.write(head + "\n" + head2 + "\n" + note + rest)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus/triton"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--kernels-per-kind", type=int, default=16)
    ap.add_argument("--sites-per-kernel", type=int, default=5)
    ap.add_argument("--kernel", action="append", help="only these corpus kernels (stems)")
    ap.add_argument("--manifest-only", action="store_true", help="write only manifest.tsv")
    ap.add_argument("--check", help="exit 1 unless the manifest equals this file")
    args = ap.parse_args()

    kernels, mutants = select(args.corpus, args.seed, args.kernels_per_kind,
                              args.sites_per_kernel, set(args.kernel) if args.kernel else None)
    os.makedirs(args.out, exist_ok=True)
    text = manifest_text(mutants)
    with open(os.path.join(args.out, "manifest.tsv"), "w") as f:
        f.write(text)
    if not args.manifest_only:
        for m in mutants:
            write_mutant(args.out, kernels[m["kernel"]], m)
    used = sorted({m["kernel"] for m in mutants})
    per_kind = {k: sum(1 for m in mutants if m["kind"] == k) for k in KINDS}
    print(f"mutate_ptx: {len(mutants)} mutants of {len(used)} kernels (seed {args.seed}) in "
          f"{args.out}: " + ", ".join(f"{k} {v}" for k, v in per_kind.items()), file=sys.stderr)
    if args.check:
        want = open(args.check).read()
        if want != text:
            print(f"mutate_ptx: manifest differs from {args.check}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
