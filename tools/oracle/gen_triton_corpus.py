#!/usr/bin/env python3
"""Generate warpcheck's Triton convert_layout kernel corpus (corpus/triton/) from Triton.

Requires `pip install triton==3.6.0` (no GPU needed: Triton lowers TTGIR to PTX and runs its
bundled ptxas on the host). Regenerate from the repository root:

    python3 tools/oracle/gen_triton_corpus.py --out corpus/triton

(`--jobs N` compiles N kernels at once; `--dry-run` only prints the case list.)

What it does
------------
For a fixed, deterministic selection of layout pairs from
shared/data/convert-layout-pairs.jsonl (the layouts Triton's own tests convert between,
plus bug reproducers; see `select_cases`), it writes one TTGIR "round-trip" kernel per
(pair, element type, iteration count):

    tt.func public @kernel(%in: !tt.ptr<T>, %out: !tt.ptr<T>, %iters: i32)
      x = load in[...]            row-major global memory, in the src layout
      scf.for iters times:
        y = ttg.convert_layout x : src -> dst
        x = ttg.convert_layout y : dst -> src
      store out[...] = x          in the src layout

with module attributes ttg.num-warps (from the pair), ttg.threads-per-warp 32,
ttg.num-ctas 1 and ttg.target "cuda:90". Pointers carry `tt.divisibility = 16` as Triton's
specialisation gives them for ordinary tensors. Each kernel is compiled with
`triton.compile(path, target=GPUTarget("cuda", 90, 32))` in its own subprocess (Triton
aborts on some inputs); the PTX (`kernel.asm["ptx"]`) is kept byte for byte as Triton
emitted it (line info and the small `.section .debug_*` blocks included).

After compilation Triton appends two pointer parameters (global_scratch, profile_scratch),
so the .entry is kernel(in, out, iters, global_scratch, profile_scratch); the script checks
that, and that both scratch sizes are 0 (so null pointers are fine for them).

Files per kernel, in --out:
  <name>.ttgir      the TTGIR input (so a case can be recompiled or inspected)
  <name>.ptx        Triton's PTX
  <name>.textproto  a warpcheck.LaunchSpec (proto/launch.proto): grid 1, block 32*warps,
                    dynamic_shared_bytes = kernel.metadata.shared, params in/out/iters/
                    null/null, expect buffers_equal(in, out).
and manifest.tsv (one row per kernel: pair, shapes, dtype, category, instruction counts)
and the counts block of README.md between the GENERATED markers.

Element types: the pair's own dtype (i1 is stored as i8 in global memory, so i1 pairs use
i8) and, for a deterministic subset, other widths (i8, f16, bf16, f32, i32, i64, f64), so
that the corpus covers 8/16/32/64-bit data on every lowering path. 8-bit data use a RANDOM
fill (IOTA modulo 256 would repeat values 256 elements apart, which would hide a wrong
address bit); all other types use IOTA, which is unique per element for these sizes.

Category (from the PTX): `ldst_matrix` (ldmatrix/stmatrix), `smem` (st/ld.shared only),
`shuffle` (shfl.sync, no shared memory), `registers` (neither: register renaming or no-op).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

JSONL_DEFAULT = "/work/shared/data/convert-layout-pairs.jsonl"

# name -> (MLIR element type, bytes)
DTYPES = {
    "i8": ("i8", 1),
    "f8e5m2": ("f8E5M2", 1),
    "i16": ("i16", 2),
    "f16": ("f16", 2),
    "bf16": ("bf16", 2),
    "f32": ("f32", 4),
    "i32": ("i32", 4),
    "i64": ("i64", 8),
    "f64": ("f64", 8),
}
# jsonl dtype -> our dtype name. i1 tensors live in global memory as bytes.
JSONL_DTYPE = {
    "float16": "f16",
    "int32": "i32",
    "i1": "i8",
    "float32": "f32",
    "float8e5m2": "f8e5m2",
    "int16": "i16",
}

SOURCE_TAGS = [
    ("test_convert2d_layouts", "cvt2d"),
    ("test_convert1d_layouts", "cvt1d"),
    ("test_convert_warp_local_layouts", "warplocal"),
    ("test_convert_mma2mma_layouts", "mma2mma"),
    ("test_regress_warp_shuffle_convert_layout", "regress"),
]


def source_tag(source):
    if "[derived:" in source:
        return "wpc"
    for needle, tag in SOURCE_TAGS:
        if needle in source:
            return tag
    if "cvt_to_llvm" in source or "tritongpu_to_llvm" in source:
        return "lit"
    return "bug"


# --------------------------------------------------------------------------------------
# TTGIR


def ttgir_kernel(src, dst, shape, ty, num_warps):
    """The round-trip kernel's TTGIR text. shape is [N] or [M, N]; ty an MLIR type."""
    out = [f"#src = {src}", f"#dst = {dst}"]
    out.append(
        'module attributes {"ttg.num-ctas" = 1 : i32, '
        f'"ttg.num-warps" = {num_warps} : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {')
    out.append(f"  tt.func public @kernel(%in: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, "
               f"%out: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, %iters: i32) {{")
    dims = "x".join(str(d) for d in shape)
    ti = f"tensor<{dims}xi32, #src>"
    tp = f"tensor<{dims}x!tt.ptr<{ty}>, #src>"
    tv = f"tensor<{dims}x{ty}, #src>"
    tw = f"tensor<{dims}x{ty}, #dst>"
    if len(shape) == 1:
        n = shape[0]
        out.append(f"    %off = tt.make_range {{end = {n} : i32, start = 0 : i32}} : {ti}")
    elif len(shape) == 2:
        m, n = shape
        s1 = f"tensor<{m}xi32, #ttg.slice<{{dim = 1, parent = #src}}>>"
        s0 = f"tensor<{n}xi32, #ttg.slice<{{dim = 0, parent = #src}}>>"
        tm = f"tensor<{m}x1xi32, #src>"
        tn = f"tensor<1x{n}xi32, #src>"
        out += [
            f"    %rm = tt.make_range {{end = {m} : i32, start = 0 : i32}} : {s1}",
            f"    %rn = tt.make_range {{end = {n} : i32, start = 0 : i32}} : {s0}",
            f"    %m2 = tt.expand_dims %rm {{axis = 1 : i32}} : {s1} -> {tm}",
            f"    %n2 = tt.expand_dims %rn {{axis = 0 : i32}} : {s0} -> {tn}",
            f"    %cn = arith.constant dense<{n}> : {tm}",
            f"    %row = arith.muli %m2, %cn : {tm}",
            f"    %rowb = tt.broadcast %row : {tm} -> {ti}",
            f"    %colb = tt.broadcast %n2 : {tn} -> {ti}",
            f"    %off = arith.addi %rowb, %colb : {ti}",
        ]
    else:
        raise ValueError(f"rank {len(shape)} not supported")
    out += [
        f"    %pin0 = tt.splat %in : !tt.ptr<{ty}> -> {tp}",
        f"    %pin = tt.addptr %pin0, %off : {tp}, {ti}",
        f"    %pout0 = tt.splat %out : !tt.ptr<{ty}> -> {tp}",
        f"    %pout = tt.addptr %pout0, %off : {tp}, {ti}",
        f"    %x = tt.load %pin : {tp}",
        "    %c0 = arith.constant 0 : i32",
        "    %c1 = arith.constant 1 : i32",
        f"    %r = scf.for %i = %c0 to %iters step %c1 iter_args(%v = %x) -> ({tv}) : i32 {{",
        f"      %y = ttg.convert_layout %v : {tv} -> {tw}",
        f"      %z = ttg.convert_layout %y : {tw} -> {tv}",
        f"      scf.yield %z : {tv}",
        "    }",
        f"    tt.store %pout, %r : {tp}",
        "    tt.return",
        "  }",
        "}",
        "",
    ]
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# Case selection


def load_pairs(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def skip_reason(row):
    """Why a jsonl pair cannot become a single-CTA, 32-lane kernel (None if it can)."""
    for attr in (row["src"], row["dst"]):
        m = re.search(r"threadsPerWarp = \[([0-9, ]+)\]", attr)
        if m:
            prod = 1
            for v in m.group(1).split(","):
                prod *= int(v)
            if prod != 32:
                return f"threadsPerWarp product {prod} != 32 (AMD wave64 layout)"
        m = re.search(r"block = \[([^\]]*\])\]", attr)
        if m and m.group(1).strip():
            return "layout has a block (CTA) basis: needs num-ctas > 1"
    return None


Case = collections.namedtuple("Case", "name line row dtype iters")

WPC_RE = re.compile(r"warpsPerCTA = \[[0-9, ]*\]")


def with_warps(row, src_wpc, dst_wpc):
    """The pair `row` (two #ttg.blocked layouts) with warpsPerCTA replaced: a derived pair,
    for warp counts the jsonl lacks (2 and 8). Its source says what was changed."""
    assert row["src"].startswith("#ttg.blocked") and row["dst"].startswith("#ttg.blocked")
    fmt = lambda w: "warpsPerCTA = [" + ", ".join(str(v) for v in w) + "]"
    out = dict(row)
    out["src"] = WPC_RE.sub(fmt(src_wpc), row["src"])
    out["dst"] = WPC_RE.sub(fmt(dst_wpc), row["dst"])
    out["num_warps"] = src_wpc[0] * src_wpc[1]
    assert dst_wpc[0] * dst_wpc[1] == out["num_warps"]
    out["source"] = (f"{row['source']} [derived: warpsPerCTA src {list(src_wpc)} "
                     f"dst {list(dst_wpc)}]")
    return out


def select_cases(rows):
    """A fixed, deterministic list of cases (no dependence on compile results).

    Rules (line = 0-based line number in the jsonl):
      * lit tests, bug reproducers, the shuffle regression: every line, own dtype
        (lines Triton cannot lower for one 32-lane CTA are skipped and reported).
      * warp-local pairs (74 pairs x shapes [32,32],[64,64]): [32,32] for all, dtype in a
        rotation f16, i8, f32, f16, i64, bf16, f16, f64, i32; [64,64] f16 for every 4th pair.
      * 2-D pairs (110 pairs x 4 shapes): [64,64] f16 for all; [64,128] for every 8th pair
        in a rotation over bf16, f32, i8, f64, i16, i64, i32; the broadcast shapes [64,1]
        and [1,64] for every third pair (alternating), in f16 or i32.
      * mma2mma (16 directed pairs x 6 shapes): every pair at [64,64] f16; [128,128] bf16
        for every other pair; [16,16] f32 for the pairs with <= 4 warps; [256,256] f16 for
        the first pair only (those kernels are ~120 KB of PTX each).
      * 1-D slice pairs: every third distinct (src, dst), alternately M = 128 in i32 and
        M = 64 in i8 (the i1 lines).
      * derived pairs for 2 and 8 warps (no usable jsonl pair has them): the blocked lit
        pairs at [32,32] and every 8th warp-local pair at [64,64], with warpsPerCTA set to
        the same on both sides ([2,1], [4,2], [8,1]) or transposed ([2,1] -> [1,2],
        [4,2] -> [2,4]); named `wpc_...`, the source field says "[derived: ...]".
      * iters = 3 for every 16th case (the loop must be idempotent), 1 otherwise.
    """
    by_tag = collections.defaultdict(list)
    for i, r in enumerate(rows):
        by_tag[source_tag(r["source"])].append((i, r))
    cases = []
    skipped = []

    def add(line, row, dtype, shape=None):
        row = dict(row)
        if shape is not None:
            row["shape"] = shape
        why = skip_reason(row)
        if why:
            skipped.append((line, why))
            return
        cases.append((line, row, dtype))

    for tag in ("lit", "bug", "regress"):
        for i, r in by_tag[tag]:
            add(i, r, JSONL_DTYPE[r["dtype"]])

    # Warp-local pairs: index by (src, dst) in file order.
    wl_ids = {}
    for i, r in by_tag["warplocal"]:
        wl_ids.setdefault((r["src"], r["dst"]), len(wl_ids))
    rot = ["f16", "i8", "f32", "f16", "i64", "bf16", "f16", "f64", "i32"]
    for i, r in by_tag["warplocal"]:
        p = wl_ids[(r["src"], r["dst"])]
        if r["shape"] == [32, 32]:
            add(i, r, rot[p % len(rot)])
        elif r["shape"] == [64, 64] and p % 4 == 0:
            add(i, r, "f16")

    # 2-D pairs: index by (src, dst) in file order.
    pair_ids = {}
    for i, r in by_tag["cvt2d"]:
        pair_ids.setdefault((r["src"], r["dst"]), len(pair_ids))
    rot = ["bf16", "f32", "i8", "f64", "i16", "i64", "i32"]
    for i, r in by_tag["cvt2d"]:
        p = pair_ids[(r["src"], r["dst"])]
        if r["shape"] == [64, 64]:
            add(i, r, "f16")
        elif r["shape"] == [64, 128] and p % 8 == 0:
            add(i, r, rot[(p // 8) % len(rot)])
        elif r["shape"] == [64, 1] and p % 3 == 0 and (p // 3) % 2 == 0:
            add(i, r, "f16" if (p // 6) % 2 == 0 else "i32")
        elif r["shape"] == [1, 64] and p % 3 == 0 and (p // 3) % 2 == 1:
            add(i, r, "i32" if (p // 6) % 2 == 0 else "f16")

    mm_ids = {}
    for i, r in by_tag["mma2mma"]:
        mm_ids.setdefault((r["src"], r["dst"]), len(mm_ids))
    for i, r in by_tag["mma2mma"]:
        p = mm_ids[(r["src"], r["dst"])]
        if r["shape"] == [64, 64]:
            add(i, r, "f16")
        elif r["shape"] == [128, 128] and p % 2 == 0:
            add(i, r, "bf16")
        elif r["shape"] == [16, 16] and r["num_warps"] <= 4:
            add(i, r, "f32")
        elif r["shape"] == [256, 256] and p == 0:
            add(i, r, "f16")

    seen = {}
    for i, r in by_tag["cvt1d"]:
        key = (r["src"], r["dst"])
        idx = seen.setdefault(key, len(seen))
        if idx % 3:
            continue
        if idx % 2 == 0 and r["shape"] == [128] and r["dtype"] == "int32":
            add(i, r, "i32")
        elif idx % 2 == 1 and r["shape"] == [64] and r["dtype"] == "i1":
            add(i, r, "i8")

    # Derived: 2 and 8 warps (the jsonl has none usable), from the blocked lit pairs and
    # every 8th warp-local pair: same warps on both sides (the conversion stays inside each
    # warp) and transposed warps (src [a,b], dst [b,a]: data crosses warps).
    rot = ["f16", "i32", "bf16", "f32", "i8", "i64"]
    k = 0
    blocked_lit = [(i, r) for i, r in by_tag["lit"] if r["src"].startswith("#ttg.blocked")
                   and r["dst"].startswith("#ttg.blocked")]
    for i, r in blocked_lit:
        r = dict(r, shape=[32, 32])
        for src_wpc, dst_wpc in (((2, 1), (2, 1)), ((2, 1), (1, 2)),
                                 ((4, 2), (4, 2)), ((4, 2), (2, 4))):
            add(i, with_warps(r, src_wpc, dst_wpc), rot[k % len(rot)])
            k += 1
    for i, r in by_tag["warplocal"]:
        p = wl_ids[(r["src"], r["dst"])]
        if r["shape"] != [64, 64] or p % 8:
            continue
        if (p // 8) % 2 == 0:
            variants = (((2, 1), (2, 1)), ((4, 2), (2, 4)))
        else:
            variants = (((1, 2), (2, 1)), ((8, 1), (8, 1)))
        for src_wpc, dst_wpc in variants:
            add(i, with_warps(r, src_wpc, dst_wpc), rot[k % len(rot)])
            k += 1

    out = []
    names = set()
    for n, (line, row, dtype) in enumerate(cases):
        iters = 3 if n % 16 == 15 else 1
        shape = "x".join(str(d) for d in row["shape"])
        name = (f"{source_tag(row['source'])}_l{line:04d}_{shape}_{dtype}"
                f"_w{row['num_warps']}" + ("_it3" if iters != 1 else ""))
        assert name not in names, name
        names.add(name)
        out.append(Case(name, line, row, dtype, iters))
    return out, skipped


# --------------------------------------------------------------------------------------
# Compilation (one subprocess per kernel: Triton aborts on some inputs)


def compile_one(ttgir_path, json_out):
    import triton
    from triton.backends.compiler import GPUTarget
    k = triton.compile(ttgir_path, target=GPUTarget("cuda", 90, 32))
    md = k.metadata
    res = {
        "ptx": k.asm["ptx"],
        "shared": int(md.shared),
        "num_warps": int(md.num_warps),
        "global_scratch_size": int(getattr(md, "global_scratch_size", 0) or 0),
        "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0) or 0),
        "name": md.name,
    }
    with open(json_out, "w") as f:
        json.dump(res, f)


def run_compile(case, workdir):
    """Compile in a subprocess. Returns (result dict | None, error text)."""
    ttgir_name = case.name + ".ttgir"
    res_path = os.path.join(workdir, case.name + ".json")
    # Relative path: PTX's `.file` directive then names just the .ttgir file.
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--compile-one", ttgir_name, res_path],
        cwd=workdir, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not os.path.exists(res_path):
        err = (proc.stderr or proc.stdout).strip().splitlines()
        # Keep the most telling line: an MLIR error or assertion, else the last line.
        tell = [l for l in err if "error" in l.lower() or "Assertion" in l]
        msg = (tell[0] if tell else (err[-1] if err else f"exit {proc.returncode}"))
        return None, f"exit {proc.returncode}: {msg.strip()[:300]}"
    with open(res_path) as f:
        return json.load(f), ""


# --------------------------------------------------------------------------------------
# Classification


MATRIX_RE = re.compile(r"\b(ldmatrix|stmatrix)\.sync\.aligned\.(m\d+n\d+)\.(x\d)(\.trans)?")


def classify(ptx):
    c = collections.Counter()
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith("//") or s.startswith("."):
            continue
        s = re.sub(r"^@!?%\w+\s+", "", s)
        op = s.split(None, 1)[0] if s.split() else ""
        if op.startswith("shfl.sync.idx"):
            c["shfl_idx"] += 1
        elif op.startswith("shfl.sync.bfly"):
            c["shfl_bfly"] += 1
        elif op.startswith("shfl.sync"):
            c["shfl_other"] += 1
        elif op.startswith("prmt"):
            c["prmt"] += 1
        elif op.startswith("selp"):
            c["selp"] += 1
        elif op.startswith("st.shared"):
            c["st_shared"] += 1
        elif op.startswith("ld.shared"):
            c["ld_shared"] += 1
        elif op.startswith("ldmatrix") or op.startswith("stmatrix"):
            m = MATRIX_RE.match(op)
            c[op.split(".", 1)[0]] += 1
            if m:
                c[f"{m.group(1)}.{m.group(3)}{m.group(4) or ''}"] += 1
        elif op.startswith("bar.sync") or op.startswith("barrier.sync"):
            c["bar_sync"] += 1
        elif op.startswith("bar.warp.sync"):
            c["bar_warp_sync"] += 1
    if c["ldmatrix"] or c["stmatrix"]:
        cat = "ldst_matrix"
    elif c["st_shared"] or c["ld_shared"]:
        cat = "smem"
    elif c["shfl_idx"] or c["shfl_bfly"] or c["shfl_other"]:
        cat = "shuffle"
    else:
        cat = "registers"
    return cat, c


def is_broadcast_case(row):
    """True when a layout replicates data (a zero basis in register/lane/warp) at this shape:
    approximated by more hardware slots than elements, or an explicit zero basis."""
    numel = 1
    for d in row["shape"]:
        numel *= d
    if "[0, 0]" in row["src"] + row["dst"] or re.search(r"\[\[0\]", row["src"] + row["dst"]):
        return True
    return numel < 32 * row["num_warps"] or 1 in row["shape"]


# --------------------------------------------------------------------------------------
# Output


def textproto(case, res):
    row = case.row
    dtype, (mlir, ebytes) = case.dtype, DTYPES[case.dtype]
    numel = 1
    for d in row["shape"]:
        numel *= d
    size = numel * ebytes
    warps = row["num_warps"]
    if ebytes == 1:
        fill = f"fill: RANDOM seed: {1000 + case.line}"
    else:
        fill = f"fill: IOTA element_bytes: {ebytes}"
    shape = "x".join(str(d) for d in row["shape"])
    derived = ""
    if "[derived:" in row["source"]:
        derived = " " + row["source"][row["source"].index("[derived:"):]
    lines = [
        "# proto-file: proto/launch.proto",
        "# proto-message: warpcheck.LaunchSpec",
        f"# Triton 3.6.0 convert_layout round trip, generated by tools/oracle/gen_triton_corpus.py",
        f"# pair: shared/data/convert-layout-pairs.jsonl line {case.line} (0-based)",
        f"#   source: {row['source']}",
        f"#   src: {row['src']}",
        f"#   dst: {row['dst']}",
        f"#   shape {shape}, {dtype} ({mlir}), num_warps {warps}, iters {case.iters}",
        f"#   kernel(in, out, iters, global_scratch, profile_scratch); TTGIR in {case.name}.ttgir",
        f'ptx_file: "{case.name}.ptx"',
        'kernel: "kernel"',
        "grid { x: 1 }",
        f"block {{ x: {32 * warps} }}",
        f"dynamic_shared_bytes: {res['shared']}",
        f'param {{ buffer {{ name: "in" size_bytes: {size} {fill} }} }}',
        f'param {{ buffer {{ name: "out" size_bytes: {size} fill: POISON }} }}',
        f"param {{ u32: {case.iters} }}",
        "param { null_ptr {} }",
        "param { null_ptr {} }",
        'expect { buffers_equal { a: "in" b: "out" } }',
        f'source: "triton 3.6.0 convert_layout roundtrip, convert-layout-pairs.jsonl line '
        f'{case.line}{derived}, {dtype}, iters {case.iters}"',
        "",
    ]
    return "\n".join(lines)


ENTRY_RE = re.compile(r"\.visible\s+\.entry\s+(\w+)\s*\(([^)]*)\)", re.S)


def check_entry(ptx):
    m = ENTRY_RE.search(ptx)
    if not m:
        return "no .entry"
    params = [p.strip() for p in m.group(2).split(",") if p.strip()]
    kinds = []
    for p in params:
        if ".u64 .ptr" in p or ".u64" in p:
            kinds.append("ptr")
        elif ".u32" in p or ".b32" in p:
            kinds.append("u32")
        else:
            kinds.append(p)
    if m.group(1) != "kernel" or kinds != ["ptr", "ptr", "u32", "ptr", "ptr"]:
        return f"unexpected entry {m.group(1)}({', '.join(kinds)})"
    return None


def summary_tables(records, failures, skipped):
    """Markdown tables: by category, by category x dtype, by warps, instruction variants."""
    out = []
    cats = ["shuffle", "smem", "ldst_matrix", "registers"]
    by_cat = collections.Counter(r["category"] for r in records)
    out.append(f"Kernels: {len(records)} compiled, {len(failures)} failed to compile, "
               f"{len(skipped)} jsonl lines skipped before compiling.\n")
    out.append("| category | kernels | meaning |")
    out.append("|---|---|---|")
    meaning = {
        "shuffle": "warp shuffles (shfl.sync), no shared memory",
        "smem": "shared memory with st.shared/ld.shared + barriers",
        "ldst_matrix": "shared memory with stmatrix and/or ldmatrix",
        "registers": "no data movement between threads (register renaming / no-op)",
    }
    for c in cats:
        out.append(f"| {c} | {by_cat[c]} | {meaning[c]} |")
    out.append("")
    dtypes = [d for d in DTYPES if any(r["dtype"] == d for r in records)]
    out.append("| category | " + " | ".join(dtypes) + " |")
    out.append("|---|" + "---|" * len(dtypes))
    for c in cats:
        cnt = collections.Counter(r["dtype"] for r in records if r["category"] == c)
        out.append(f"| {c} | " + " | ".join(str(cnt[d]) for d in dtypes) + " |")
    out.append("")
    warps = sorted({r["num_warps"] for r in records})
    out.append("| category | " + " | ".join(f"{w} warp{'s' if w > 1 else ''}" for w in warps) + " |")
    out.append("|---|" + "---|" * len(warps))
    for c in cats:
        cnt = collections.Counter(r["num_warps"] for r in records if r["category"] == c)
        out.append(f"| {c} | " + " | ".join(str(cnt[w]) for w in warps) + " |")
    out.append("")
    feats = collections.Counter()
    for r in records:
        for k, v in r["counts"].items():
            if v:
                feats[k] += 1
        if r["broadcast"]:
            feats["(broadcast: a dim of 1, fewer elements than threads, or a zero basis)"] += 1
        if r["iters"] != 1:
            feats["(iters = 3)"] += 1
    out.append("| PTX feature | kernels containing it |")
    out.append("|---|---|")
    for k in sorted(feats):
        out.append(f"| `{k}` | {feats[k]} |")
    out.append("")
    srcs = collections.Counter(r["tag"] for r in records)
    out.append("| jsonl source | kernels |")
    out.append("|---|---|")
    for k in sorted(srcs):
        out.append(f"| {k} | {srcs[k]} |")
    out.append("")
    if failures or skipped:
        out.append("Not in the corpus:\n")
        for line, why in skipped:
            out.append(f"- jsonl line {line}: skipped, {why}")
        for name, why in failures:
            out.append(f"- `{name}`: Triton failed: {why}")
        out.append("")
    return "\n".join(out)


BEGIN = "<!-- BEGIN GENERATED COUNTS (tools/oracle/gen_triton_corpus.py) -->"
END = "<!-- END GENERATED COUNTS -->"


def update_readme(path, tables):
    if not os.path.exists(path):
        return False
    text = open(path).read()
    if BEGIN not in text or END not in text:
        return False
    pre, rest = text.split(BEGIN, 1)
    _, post = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(pre + BEGIN + "\n" + tables + "\n" + END + post)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", default=JSONL_DEFAULT)
    ap.add_argument("--out", default="corpus/triton")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="compile only the first N cases")
    ap.add_argument("--compile-one", nargs=2, metavar=("TTGIR", "JSON"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.compile_one:
        compile_one(*args.compile_one)
        return 0

    rows = load_pairs(args.pairs)
    cases, skipped = select_cases(rows)
    if args.limit:
        cases = cases[:args.limit]
    if args.dry_run:
        for c in cases:
            print(c.name, c.row["src"], "->", c.row["dst"])
        print(f"{len(cases)} cases, {len(skipped)} skipped", file=sys.stderr)
        return 0

    os.makedirs(args.out, exist_ok=True)
    if not args.limit:
        # The output folder is generated: drop kernels of an earlier selection.
        for f in os.listdir(args.out):
            if f.endswith((".ptx", ".ttgir", ".textproto")):
                os.remove(os.path.join(args.out, f))
    from concurrent.futures import ThreadPoolExecutor
    records, failures = [], []
    with tempfile.TemporaryDirectory(prefix="warpcheck_triton_") as work:
        def job(case):
            mlir = DTYPES[case.dtype][0]
            text = ttgir_kernel(case.row["src"], case.row["dst"], case.row["shape"], mlir,
                                case.row["num_warps"])
            with open(os.path.join(work, case.name + ".ttgir"), "w") as f:
                f.write(text)
            res, err = run_compile(case, work)
            return case, text, res, err

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for n, (case, text, res, err) in enumerate(pool.map(job, cases)):
                if res is not None:
                    bad = check_entry(res["ptx"])
                    if not bad and (res["global_scratch_size"] or res["profile_scratch_size"]):
                        bad = (f"scratch sizes {res['global_scratch_size']}/"
                               f"{res['profile_scratch_size']} != 0")
                    if not bad and res["num_warps"] != case.row["num_warps"]:
                        bad = f"num_warps {res['num_warps']} != {case.row['num_warps']}"
                    if bad:
                        res, err = None, bad
                if res is None:
                    failures.append((case.name, err))
                    print(f"[{n + 1}/{len(cases)}] FAIL {case.name}: {err}", file=sys.stderr)
                    continue
                cat, counts = classify(res["ptx"])
                for ext, body in ((".ttgir", text), (".ptx", res["ptx"]),
                                  (".textproto", textproto(case, res))):
                    with open(os.path.join(args.out, case.name + ext), "w") as f:
                        f.write(body)
                records.append({
                    "name": case.name, "line": case.line, "tag": source_tag(case.row["source"]),
                    "dtype": case.dtype, "num_warps": case.row["num_warps"],
                    "shape": "x".join(str(d) for d in case.row["shape"]),
                    "iters": case.iters, "shared": res["shared"], "category": cat,
                    "counts": counts, "broadcast": is_broadcast_case(case.row),
                    "src": case.row["src"], "dst": case.row["dst"],
                })
                print(f"[{n + 1}/{len(cases)}] {cat:11s} {case.name}", file=sys.stderr)

    cols = ["shfl_idx", "shfl_bfly", "selp", "prmt", "st_shared", "ld_shared", "stmatrix",
            "ldmatrix", "bar_sync", "bar_warp_sync"]
    with open(os.path.join(args.out, "manifest.tsv"), "w") as f:
        f.write("\t".join(["name", "category", "jsonl_line", "dtype", "num_warps", "shape",
                           "iters", "shared_bytes"] + cols + ["matrix_variants", "src", "dst"])
                + "\n")
        for r in records:
            variants = ",".join(sorted(k for k in r["counts"] if k.startswith(("ldmatrix.",
                                                                               "stmatrix."))))
            f.write("\t".join([r["name"], r["category"], str(r["line"]), r["dtype"],
                               str(r["num_warps"]), r["shape"], str(r["iters"]),
                               str(r["shared"])] + [str(r["counts"][c]) for c in cols]
                              + [variants or "-", r["src"], r["dst"]]) + "\n")
    tables = summary_tables(records, failures, skipped)
    print(tables)
    if update_readme(os.path.join(args.out, "README.md"), tables):
        print(f"updated {os.path.join(args.out, 'README.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
