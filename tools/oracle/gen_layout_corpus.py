#!/usr/bin/env python3
"""Generate warpcheck's golden layout corpus (corpus/layout/triton_*.textproto) from Triton.

Requires `pip install triton==3.6.0` (no GPU needed). Regenerate from the repository root:

    python3 tools/oracle/gen_layout_corpus.py --out corpus/layout

What it does
------------
It enumerates a fixed, deterministic list of (layout attribute, tensor shape) cases per
family (blocked, slice, linear, nvidia_mma, dot_op, amd_mfma, amd_wmma, swizzled_shared,
amd_rotating_shared, nvmma_shared, shared_linear, cga) and asks Triton 3.6.0 for
everything that goes into a case:

* attribute: built with Gluon's C++ builder (`gluon_ir.GluonOpBuilder.get_*_layout`), except
  `#ttg.amd_rotating_shared`, for which the builder has no getter: that one is written per
  shared/spec/linear-layouts.md §3.3 and parsed by Triton (`ir.parse_mlir_module`).
* attribute text (`attr` and `canonical_attr`): Triton's own printer, i.e. the attribute
  part of `str(type)` of a `tensor<...>` / `!ttg.memdesc<...>` type carrying the layout
  (Triton prints nested parents inline there). Every text is then confirmed by a round trip
  through Triton's parser: a module with `tt.func @f(%arg0: <type>)` is written, parsed with
  `ir.parse_mlir_module`, and both (a) the parsed argument type's print and (b) the
  module print with its `#alias = ...` definitions substituted back must equal the text.
  A case whose text does not survive the round trip is dropped (and counted). So ALL attribute
  texts in the corpus, for every family, were printed by Triton 3.6.0 and re-parsed by it;
  none is formatted by this script alone (the amd_rotating_shared inputs written here are
  kept only because Triton prints them back unchanged). One kind does not round-trip in
  3.6.0 and is therefore absent: nvmma_shared with rank != 2 and a CGALayout (Triton prints
  it without `rank = 3`, and its parser then rejects the CGALayout as having the wrong rank).
* expected layout:
  - distributed layouts: `GluonOpBuilder.to_linear_layout(attr, shape)`, which runs Triton's
    C++ `toLinearLayout(shape, attr)` and returns reg/lane/warp/block bases (already in
    dim0-first order, e.g. blocked order [1, 0] gives register bases [0, 1]).
  - shared layouts: in 3.6.0 `to_linear_layout` aborts on every shared encoding (it tries to
    wrap the result in a #ttg.linear: "Expected input dimension 0 to be 'register'"), and on
    padded_shared `toLinearLayout` itself aborts ("unknown layout"). So the script uses Triton's
    `ttg.memdesc_reshape` type inference instead, whose generic path produces
    `#ttg.shared_linear<reshapeLayout(toLinearLayout(shape, enc), dstShape)>`, read back with
    `get_gluon_layout_from_memdesc`: (A) a reshape to the same shape returns
    toLinearLayout(shape, enc) itself (offset + block bases); (B) a reshape to the flat 1-D
    shape and back returns it too, and is needed for single-CTA nvmma_shared (a
    shape-preserving reshape keeps the nvmma encoding). Both are run where Triton allows
    (B is impossible for CTA-split memdescs) and must agree; B's 1-D intermediate must be the
    row-major flattening of its N-D result. padded_shared is skipped (no conversion).
* linear / shared_linear cases are partly derived: bases Triton produced for other encodings
  ("seeds") are turned into #ttg.linear / #ttg.shared_linear attributes and converted again
  at the same and at other shapes, plus hand-written ones (with broadcast zero bases).

Triton aborts (C++ assertions) on some inputs, so every case runs in a worker subprocess;
a case that raises or crashes the worker is skipped and counted (reported on stderr and in
corpus/layout/README.md). `triton_rejects.textproto` holds malformed attributes whose
parse error Triton reports with a message naming the offending field.

Output format: proto/layout.proto (warpcheck.LayoutCorpus, text format).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ORACLE = "triton 3.6.0"
SCRIPT = "tools/oracle/gen_layout_corpus.py"
SRC_DIST = "triton 3.6.0 to_linear_layout"
SRC_SHARED = "triton 3.6.0 toLinearLayout via memdesc_reshape to shared_linear"
SRC_REJECT = "triton 3.6.0 parse_mlir_module"

SHARED_KINDS = ("swizzled", "rotating", "nvmma", "shared_linear")

# ----------------------------------------------------------------------------------------
# Layout descriptors (plain JSON-able dicts)
# ----------------------------------------------------------------------------------------


def blocked(spt, tpw, wpc, order, cga=()):
    return {"k": "blocked", "spt": list(spt), "tpw": list(tpw), "wpc": list(wpc),
            "order": list(order), "cga": [list(v) for v in cga]}


def slice_(dim, parent):
    return {"k": "slice", "dim": dim, "parent": parent}


def linear(reg, lane, warp, block=()):
    return {"k": "linear", "reg": [list(v) for v in reg], "lane": [list(v) for v in lane],
            "warp": [list(v) for v in warp], "block": [list(v) for v in block]}


def mma(major, wpc, instr, cga=(), minor=0):
    return {"k": "mma", "ver": [major, minor], "wpc": list(wpc), "instr": list(instr),
            "cga": [list(v) for v in cga]}


def dot(op, parent, kwidth):
    return {"k": "dot", "op": op, "parent": parent, "kw": kwidth}


def mfma(version, wpc, instr, transposed=False, tiles=None, ebw=32, cga=()):
    return {"k": "mfma", "ver": version, "wpc": list(wpc), "instr": list(instr),
            "tr": transposed, "tiles": list(tiles) if tiles else [1] * len(wpc), "ebw": ebw,
            "cga": [list(v) for v in cga]}


def wmma(version, wpc, transposed=False, instr=None, tiles=None, cga=()):
    if instr is None:  # v3 has no 16x16x16 instruction (K in {4, 32, 64, 128})
        instr = (16, 16, 32) if version == 3 else (16, 16, 16)
    return {"k": "wmma", "ver": version, "tr": transposed, "wpc": list(wpc),
            "instr": list(instr), "tiles": list(tiles) if tiles else [1] * len(wpc),
            "cga": [list(v) for v in cga]}


def swizzled(vec, per_phase, max_phase, order, cga=()):
    return {"k": "swizzled", "vec": vec, "pp": per_phase, "mp": max_phase,
            "order": list(order), "cga": [list(v) for v in cga]}


def rotating(vec, per_phase, max_phase, order, cga=()):
    return {"k": "rotating", "vec": vec, "pp": per_phase, "mp": max_phase,
            "order": list(order), "cga": [list(v) for v in cga]}


def nvmma(swizzle, ebw, transposed=False, fp4=False, rank=2, cga=()):
    return {"k": "nvmma", "swz": swizzle, "ebw": ebw, "tr": transposed, "fp4": fp4,
            "rank": rank, "cga": [list(v) for v in cga]}


def shared_linear(offset, block=(), alignment=16):
    return {"k": "shared_linear", "offset": [list(v) for v in offset],
            "block": [list(v) for v in block], "align": alignment}


def legacy_cga(ctas_per_cga, cta_split, cta_order):
    """CGALayout bases equivalent to the pre-3.6 (CTAsPerCGA, CTASplitNum, CTAOrder) triple
    (spec §2.0 fromSplitParams): per dim in CTAOrder, split bits then broadcast bits."""
    rank = len(ctas_per_cga)
    bases = []
    for d in cta_order:
        unit = [0] * rank
        s = 1
        while s < cta_split[d]:
            v = list(unit)
            v[d] = s
            bases.append(v)
            s *= 2
        b = 1
        while b < ctas_per_cga[d] // cta_split[d]:
            bases.append(list(unit))
            b *= 2
    return bases


# ----------------------------------------------------------------------------------------
# Names
# ----------------------------------------------------------------------------------------


def _j(v, sep="x"):
    return sep.join(str(x) for x in v)


def _cga_name(cga):
    return "_cga" + "_".join(_j(v) for v in cga) if cga else ""


def desc_name(d):
    k = d["k"]
    if k == "blocked":
        return (f"blocked_sz{_j(d['spt'])}_t{_j(d['tpw'])}_w{_j(d['wpc'])}_o{_j(d['order'], '')}"
                + _cga_name(d["cga"]))
    if k == "slice":
        return f"slice{d['dim']}_{desc_name(d['parent'])}"
    if k == "linear":
        return "linear"
    if k == "mma":
        return f"mmav{d['ver'][0]}_w{_j(d['wpc'])}_i{_j(d['instr'])}" + _cga_name(d["cga"])
    if k == "dot":
        return f"dot{d['op']}_k{d['kw']}_{desc_name(d['parent'])}"
    if k == "mfma":
        s = f"mfma_v{d['ver']}_i{_j(d['instr'])}_{'T' if d['tr'] else 'N'}_w{_j(d['wpc'])}"
        if any(t != 1 for t in d["tiles"]):
            s += f"_tpw{_j(d['tiles'])}"
        if d["ebw"] != 32:
            s += f"_b{d['ebw']}"
        return s + _cga_name(d["cga"])
    if k == "wmma":
        s = f"wmma_v{d['ver']}_{'T' if d['tr'] else 'N'}_w{_j(d['wpc'])}_i{_j(d['instr'])}"
        if any(t != 1 for t in d["tiles"]):
            s += f"_tpw{_j(d['tiles'])}"
        return s + _cga_name(d["cga"])
    if k in ("swizzled", "rotating"):
        p = "swz" if k == "swizzled" else "rot"
        return f"{p}_v{d['vec']}_p{d['pp']}_m{d['mp']}_o{_j(d['order'], '')}" + _cga_name(d["cga"])
    if k == "nvmma":
        s = f"nvmma_sw{d['swz']}_b{d['ebw']}_{'T' if d['tr'] else 'N'}"
        if d["fp4"]:
            s += "_fp4"
        if d["rank"] != 2:
            s += f"_r{d['rank']}"
        return s + _cga_name(d["cga"])
    if k == "shared_linear":
        return "shared_linear"
    raise ValueError(k)


def case_name(d, shape, name=None):
    n = name if name else desc_name(d)
    return re.sub(r"[^A-Za-z0-9_]", "_", f"{n}_s{_j(shape)}")


# ----------------------------------------------------------------------------------------
# Case lists
# ----------------------------------------------------------------------------------------


def C(family, d, shape, name=None):
    return {"family": family, "desc": d, "shape": list(shape),
            "name": case_name(d, shape, name)}


def blocked_cases():
    out = []
    f = "blocked"
    # Triton's own unit tests (LinearLayoutConversionsTest), single CTA.
    out.append(C(f, blocked([1], [4], [4], [0]), [16], "named_SimpleBlocked"))
    out.append(C(f, blocked([1], [4], [4], [0]), [128], "named_ShapeLargerThanLayout"))
    out.append(C(f, blocked([1, 1], [4, 1], [4, 1], [0, 1]), [128, 1],
                 "named_ShapeLargerThanLayout2DDegenerate"))
    out.append(C(f, blocked([4], [4], [4], [0]), [8], "named_ShapeSmallerThanLayout"))
    out.append(C(f, blocked([1, 1], [32, 1], [1, 8], [0, 1]), [1, 64], "named_ReversedOrder"))
    out.append(C(f, blocked([2], [4], [1], [0]), [32], "named_ReplicateInRegisterDim"))
    out.append(C(f, blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [3, 0, 1, 2]),
                 [2, 1, 1, 1], "named_Blocked4D"))
    # 1-D
    for spt, tpw, wpc, shapes in [
        ([1], [32], [4], [[16], [128], [1024]]),
        ([2], [32], [4], [[256], [64]]),
        ([4], [32], [4], [[512], [2048], [8]]),
        ([8], [32], [1], [[256], [4096]]),
        ([1], [32], [2], [[64], [32]]),
        ([4], [32], [8], [[1024], [16384]]),
        ([1], [64], [4], [[256], [32], [1024]]),
        ([4], [64], [8], [[2048], [8192]]),
    ]:
        for s in shapes:
            out.append(C(f, blocked(spt, tpw, wpc, [0]), s))
    # 2-D
    params2 = [
        (([1, 4], [8, 4], [4, 1], [1, 0]), [[64, 64], [16, 16], [256, 128], [1, 128], [32, 256]]),
        (([4, 1], [4, 8], [2, 2], [0, 1]), [[64, 64], [8, 4], [128, 512], [128, 1]]),
        (([1, 8], [4, 8], [4, 1], [1, 0]), [[64, 64], [16, 64], [128, 256], [2, 2]]),
        (([2, 2], [8, 4], [2, 2], [1, 0]), [[64, 64], [32, 16], [512, 64]]),
        (([1, 1], [1, 32], [4, 1], [1, 0]), [[64, 64], [4, 32], [128, 16]]),
        (([8, 1], [8, 4], [1, 4], [0, 1]), [[64, 128], [64, 1], [256, 256]]),
        (([1, 2], [2, 16], [8, 1], [1, 0]), [[64, 64], [256, 32], [8, 8]]),
        (([1, 2], [2, 16], [2, 4], [0, 1]), [[64, 64], [16, 256]]),
        (([1, 4], [16, 4], [4, 1], [1, 0]), [[64, 64], [128, 32], [16, 8]]),
        (([4, 4], [8, 8], [2, 1], [0, 1]), [[64, 64], [256, 128], [4, 4]]),
        (([1, 1], [64, 1], [1, 8], [0, 1]), [[64, 64], [128, 16]]),
        (([2, 1], [4, 8], [1, 2], [1, 0]), [[32, 32], [16, 64]]),
    ]
    for (spt, tpw, wpc, order), shapes in params2:
        for s in shapes:
            out.append(C(f, blocked(spt, tpw, wpc, order), s))
    # 3-D and 4-D
    params3 = [
        (([1, 1, 4], [2, 4, 4], [2, 2, 1], [2, 1, 0]), [[4, 32, 32], [2, 8, 8], [16, 64, 16]]),
        (([2, 1, 1], [4, 8, 1], [1, 2, 2], [0, 1, 2]), [[8, 32, 4], [64, 16, 16]]),
        (([1, 2, 2], [1, 4, 8], [4, 1, 1], [1, 2, 0]), [[8, 16, 32], [1, 1, 128]]),
        (([1, 1, 1], [1, 8, 4], [2, 2, 2], [2, 0, 1]), [[4, 16, 16], [32, 32, 32]]),
        (([1, 1, 2], [2, 2, 16], [1, 4, 2], [2, 1, 0]), [[2, 64, 64]]),
    ]
    for (spt, tpw, wpc, order), shapes in params3:
        for s in shapes:
            out.append(C(f, blocked(spt, tpw, wpc, order), s))
    out.append(C(f, blocked([1, 1, 2, 2], [1, 2, 4, 4], [2, 1, 2, 1], [3, 2, 1, 0]), [4, 4, 16, 16]))
    out.append(C(f, blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [3, 0, 1, 2]), [8, 4, 8, 64]))
    return out


BL2 = blocked([1, 4], [8, 4], [4, 1], [1, 0])
BL2T = blocked([4, 1], [4, 8], [2, 2], [0, 1])
BL3 = blocked([1, 1, 4], [2, 4, 4], [2, 2, 1], [2, 1, 0])
MMA2 = mma(2, [2, 2], [16, 8])
MMA2_41 = mma(2, [4, 1], [16, 8])
MMA3 = mma(3, [4, 1], [16, 64, 16])


def slice_cases():
    out = []
    f = "slice"
    out.append(C(f, slice_(0, blocked([1, 4], [8, 4], [2, 2], [0, 1])), [1], "named_SliceWithShape1"))
    out.append(C(f, slice_(3, blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [3, 0, 1, 2])),
                 [2, 1, 1], "named_Slice4D"))
    p = mma(2, [2, 2], [16, 8])
    out.append(C(f, slice_(0, p), [16], "named_SliceOfMmaV2_d0_16"))
    out.append(C(f, slice_(0, p), [128], "named_SliceOfMmaV2_d0_128"))
    out.append(C(f, slice_(1, p), [8], "named_SliceOfMmaV2_d1_8"))
    out.append(C(f, slice_(1, p), [128], "named_SliceOfMmaV2_d1_128"))
    out.append(C(f, slice_(1, dot(0, mma(2, [1, 1], [16, 8]), 8)), [16], "named_SliceDot_v2"))
    out.append(C(f, slice_(0, dot(0, mma(3, [4, 1], [16, 16, 8]), 2)), [16], "named_SliceDot_v3"))
    # the 2-D slices of a batched v3 dot operand in corpus/plan (convert-layout-pairs)
    p3 = dot(0, mma(3, [4, 1, 1], [16, 32, 16]), 2)
    for s in ([64, 1], [64, 64], [64, 128], [1, 64]):
        out.append(C(f, slice_(1, p3), s, f"named_SliceDot_v3_batched_{_j(s)}"))
    out.append(C(f, slice_(0, dot(0, mma(3, [2, 2, 1], [16, 32, 16]), 2)), [64, 64],
                 "named_SliceDot_v3_batched_w221_d0"))
    for dim in (0, 1):
        for n in (1, 16, 64, 256):
            out.append(C(f, slice_(dim, BL2), [n]))
        for n in (8, 128):
            out.append(C(f, slice_(dim, BL2T), [n]))
    out.append(C(f, slice_(1, blocked([1, 4], [16, 4], [4, 1], [1, 0])), [128]))
    out.append(C(f, slice_(0, blocked([1, 4], [16, 4], [4, 1], [1, 0])), [32]))
    for dim, shape in ((0, [32, 32]), (1, [4, 64]), (2, [4, 32]), (2, [64, 8]), (0, [2, 2])):
        out.append(C(f, slice_(dim, BL3), shape))
    # slice of slice
    out.append(C(f, slice_(0, slice_(1, BL3)), [64]))
    out.append(C(f, slice_(1, slice_(0, BL3)), [16]))
    out.append(C(f, slice_(0, slice_(2, BL3)), [8]))
    out.append(C(f, slice_(0, slice_(0, blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1],
                                              [3, 0, 1, 2]))), [4, 64]))
    # mma / dot / amd parents
    out.append(C(f, slice_(0, MMA3), [64]))
    out.append(C(f, slice_(1, MMA3), [256]))
    out.append(C(f, slice_(1, mma(2, [1, 4, 1], [1, 16, 8])), [4, 64]))
    out.append(C(f, slice_(0, dot(1, MMA2, 4)), [64]))
    out.append(C(f, slice_(1, dot(0, MMA2, 2)), [64]))
    out.append(C(f, slice_(1, dot(0, BL2, 0)), [64]))
    out.append(C(f, slice_(0, mfma(3, [2, 2], [32, 32, 8])), [64]))
    out.append(C(f, slice_(1, mfma(3, [2, 2], [16, 16, 16], True)), [128]))
    out.append(C(f, slice_(0, wmma(2, [2, 2])), [64]))
    out.append(C(f, slice_(1, wmma(1, [4, 1])), [32]))
    out.append(C(f, slice_(1, dot(0, mfma(3, [2, 2], [32, 32, 8]), 8)), [64]))
    out.append(C(f, slice_(1, linear([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                     [[16, 0], [32, 0]])), [64]))
    out.append(C(f, slice_(0, linear([[0, 1], [0, 0]], [[1, 0], [2, 0], [0, 2], [0, 0], [4, 0]],
                                     [[0, 4], [8, 0]])), [8]))
    return out


def nvidia_mma_cases():
    out = []
    f = "nvidia_mma"
    one = mma(2, [1, 1], [16, 8])
    out.append(C(f, one, [16, 16], "named_MMAv2_16x16"))
    out.append(C(f, one, [32, 32], "named_MMAv2_32x32"))
    out.append(C(f, one, [16, 128], "named_MMAv2_ExtendDim2"))
    for instr in ([16, 16, 8], [16, 8, 8]):
        out.append(C(f, mma(3, [4, 1], instr), [64, 16], f"named_MMAv3_64x16_i{_j(instr)}"))
    out.append(C(f, mma(3, [4, 1], [16, 16, 8]), [128, 16], "named_MMAv3_128x16"))
    # a batched v3 accumulator: Triton 3.6 aborts (nvidiaMmaTile asserts tileShape.size() ==
    # rank), so this case is skipped and listed in README.md; warpcheck rejects it too
    out.append(C(f, mma(3, [4, 1, 1], [16, 32, 16]), [2, 64, 32], "named_MMAv3_batched_aborts"))
    out.append(C(f, mma(3, [4, 1], [16, 16, 8]), [1024, 1024], "named_MMAv3_1024x1024"))
    for s in ([64, 32], [64, 64], [128, 64], [256, 64]):
        out.append(C(f, mma(3, [4, 2], [16, 32, 16]), s, f"named_MMAv3_4x2Warps_{_j(s)}"))
    for s in ([16, 16], [32, 16], [64, 16], [128, 16], [32, 32], [64, 32]):
        out.append(C(f, mma(3, [4, 4], [16, 16, 8]), s, f"named_MMAv3_4x4Warps_{_j(s)}"))
    # v2 sweep
    for wpc, shapes in [
        ([1, 1], [[16, 8], [8, 8], [64, 64]]),
        ([2, 2], [[32, 32], [16, 16], [128, 128], [64, 16]]),
        ([4, 1], [[64, 64], [128, 32], [32, 128]]),
        ([1, 4], [[64, 64], [16, 32]]),
        ([2, 4], [[128, 128], [256, 64]]),
        ([8, 1], [[128, 64], [256, 256]]),
        ([1, 2], [[16, 16]]),
    ]:
        for s in shapes:
            out.append(C(f, mma(2, wpc, [16, 8]), s))
    # v2 batched
    for wpc, shapes in [
        ([1, 4, 1], [[2, 64, 64], [1, 16, 16]]),
        ([2, 2, 1], [[4, 32, 32], [1, 64, 8]]),
        ([4, 1, 1], [[8, 16, 8], [2, 16, 16]]),
        ([2, 4, 2], [[16, 128, 128]]),
    ]:
        for s in shapes:
            out.append(C(f, mma(2, wpc, [1, 16, 8]), s))
    # v3 sweep over N
    for n in (8, 16, 32, 64, 128, 256):
        out.append(C(f, mma(3, [4, 1], [16, n, 16]), [64, n]))
        out.append(C(f, mma(3, [4, 1], [16, n, 16]), [128, 256]))
    for wpc, instr, shapes in [
        ([4, 2], [16, 64, 16], [[128, 128], [64, 64], [16, 16]]),
        ([8, 1], [16, 128, 16], [[128, 128], [256, 256]]),
        ([4, 4], [16, 64, 32], [[256, 256], [64, 128]]),
        ([4, 1], [16, 32, 8], [[64, 32], [32, 32], [512, 64]]),
        ([8, 2], [16, 256, 16], [[128, 512]]),
    ]:
        for s in shapes:
            out.append(C(f, mma(3, wpc, instr), s))
    return out


def dot_op_cases():
    out = []
    f = "dot_op"
    p = mma(2, [1, 1], [16, 8])
    out.append(C(f, dot(0, p, 8), [16, 64], "named_DotMMAv2_tile_kwidth8_a"))
    out.append(C(f, dot(1, p, 8), [64, 8], "named_DotMMAv2_tile_kwidth8_b"))
    p = mma(2, [4, 1], [16, 8])
    out.append(C(f, dot(0, p, 8), [128, 128], "named_DotMMAv2_large_warp4_kwidth8_a"))
    out.append(C(f, dot(1, p, 8), [128, 64], "named_DotMMAv2_large_warp4_kwidth8_b1"))
    out.append(C(f, dot(1, p, 8), [64, 128], "named_DotMMAv2_large_warp4_kwidth8_b2"))
    p = mma(2, [2, 4, 2], [1, 16, 8])
    out.append(C(f, dot(0, p, 8), [16, 128, 128], "named_DotMMAv2_3D_a"))
    out.append(C(f, dot(1, p, 8), [8, 128, 64], "named_DotMMAv2_3D_b"))
    p = mma(3, [4, 1], [16, 16, 8])
    for s in ([64, 16], [128, 16], [128, 32]):
        out.append(C(f, dot(0, p, 2), s, f"named_DotMMAv3_warp4_kwidth2_{_j(s)}"))
    out.append(C(f, dot(0, mma(3, [4, 2], [16, 16, 8]), 4), [128, 64],
                 "named_DotMMAv3_mixed_warp_kwidth4"))
    p = mma(2, [2, 2], [16, 8])
    out.append(C(f, dot(0, p, 8), [32, 64], "named_DotMMAv2_split_warp_kwidth8_a1"))
    out.append(C(f, dot(1, p, 8), [64, 16], "named_DotMMAv2_split_warp_kwidth8_b1"))
    out.append(C(f, dot(0, p, 8), [64, 128], "named_DotMMAv2_split_warp_kwidth8_a2"))
    out.append(C(f, dot(1, p, 8), [128, 32], "named_DotMMAv2_split_warp_kwidth8_b2"))
    bp = blocked([2, 4], [8, 4], [2, 4], [1, 0])
    out.append(C(f, dot(0, bp, 0), [32, 16], "named_BlockedDotOperandLhs"))
    out.append(C(f, dot(1, bp, 0), [16, 64], "named_BlockedDotOperandRhs"))
    bp3 = blocked([2, 2, 4], [2, 4, 4], [2, 2, 2], [2, 1, 0])
    out.append(C(f, dot(0, bp3, 0), [16, 32, 4], "named_BlockedDot3dOperandLhs"))
    out.append(C(f, dot(1, bp3, 0), [16, 4, 64], "named_BlockedDot3dOperandRhs"))
    # mma v2 parents: opIdx x kWidth
    for kw in (1, 2, 4, 8, 16):
        for op in (0, 1):
            for parent, shape in ((mma(2, [2, 2], [16, 8]), [64, 64]),
                                  (mma(2, [4, 1], [16, 8]), [128, 32] if op == 0 else [32, 128])):
                out.append(C(f, dot(op, parent, kw), shape))
    out.append(C(f, dot(0, mma(2, [1, 1], [16, 8]), 2), [8, 8]))
    out.append(C(f, dot(1, mma(2, [1, 1], [16, 8]), 4), [16, 8]))
    out.append(C(f, dot(0, mma(2, [2, 2, 1], [1, 16, 8]), 4), [2, 32, 64]))
    out.append(C(f, dot(1, mma(2, [2, 2, 1], [1, 16, 8]), 4), [2, 64, 32]))
    # mma v3 parents, opIdx 0
    for wpc, instr, kw, shape in [
        ([4, 1], [16, 64, 16], 2, [64, 64]),
        ([4, 1], [16, 128, 16], 2, [128, 64]),
        ([4, 2], [16, 64, 16], 2, [256, 32]),
        ([8, 1], [16, 64, 32], 4, [128, 128]),
        ([4, 1], [16, 32, 8], 1, [64, 32]),
        ([4, 1], [16, 16, 16], 8, [64, 128]),
    ]:
        out.append(C(f, dot(0, mma(3, wpc, instr), kw), shape))
    # batched (rank-3) mma v3 parents: Triton 3.6 lays these out (the accumulator itself
    # aborts); the warp order is getMatrixOrder(3, rowMajor=false) = [1, 2, 0], which only
    # warps along more than one of the dims tell apart (corpus/plan lines 32-439 use
    # [4, 1, 1] with instrShape [16, 32, 16]).
    for wpc, kw, shape in [
        ([4, 1, 1], 2, [1, 64, 64]), ([4, 1, 1], 2, [2, 64, 64]), ([4, 1, 1], 2, [64, 16, 64]),
        ([1, 2, 2], 2, [4, 64, 64]), ([2, 2, 2], 2, [4, 64, 64]), ([2, 1, 2], 2, [4, 64, 64]),
        ([2, 4, 2], 2, [4, 64, 64]), ([4, 2, 1], 1, [4, 64, 32]), ([1, 4, 2], 4, [2, 128, 64]),
    ]:
        out.append(C(f, dot(0, mma(3, wpc, [16, 32, 16]), kw), shape))
    # blocked parents
    for op, parent, shape in [
        (0, BL2, [64, 64]), (1, BL2, [64, 64]), (0, BL2T, [32, 8]), (1, BL2T, [8, 128]),
        (0, blocked([1, 1], [1, 32], [4, 1], [1, 0]), [16, 16]),
        (1, blocked([4, 4], [8, 8], [2, 1], [0, 1]), [32, 256]),
        (0, BL3, [4, 32, 16]), (1, BL3, [4, 16, 64]),
    ]:
        out.append(C(f, dot(op, parent, 0), shape))
    # mfma parents
    for ver, instr, kws in [(3, [32, 32, 8], (4, 8)), (3, [16, 16, 16], (4, 8)),
                            (4, [32, 32, 16], (8, 16)), (4, [16, 16, 32], (8, 16)),
                            (2, [32, 32, 8], (4,))]:
        for kw in kws:
            for op in (0, 1):
                out.append(C(f, dot(op, mfma(ver, [2, 2], instr), kw), [64, 64]))
    out.append(C(f, dot(0, mfma(3, [4, 1], [32, 32, 8], True), 4), [128, 16]))
    out.append(C(f, dot(1, mfma(3, [1, 4], [16, 16, 16], True), 8), [128, 128]))
    out.append(C(f, dot(0, mfma(4, [2, 4], [16, 16, 32], tiles=[2, 2]), 8), [128, 128]))
    out.append(C(f, dot(0, mfma(3, [2, 2, 1], [32, 32, 8]), 4), [2, 64, 32]))
    out.append(C(f, dot(1, mfma(3, [1, 4], [4, 64, 4]), 4), [16, 256]))
    out.append(C(f, dot(0, mfma(3, [4, 1], [64, 4, 4]), 4), [256, 16]))
    for kw, k in ((8, 16), (16, 32), (8, 256)):
        out.append(C(f, dot(0, mfma(3, [4, 1], [64, 4, 4], True), kw), [256, k]))
    for k in (4, 64, 128):
        out.append(C(f, dot(0, mfma(3, [4, 1], [64, 4, 4]), 4), [256, k]))
        out.append(C(f, dot(1, mfma(3, [1, 4], [4, 64, 4]), 4), [k, 256]))
    out.append(C(f, dot(0, mfma(3, [4, 1], [64, 4, 4], True), 4), [64, 64]))
    # wmma parents
    for ver, instr, kws in [(1, [16, 16, 16], (16,)), (2, [16, 16, 16], (8,)),
                            (2, [16, 16, 32], (8, 16)), (3, [16, 16, 32], (8, 16)),
                            (3, [16, 16, 64], (16,))]:
        for kw in kws:
            for op in (0, 1):
                out.append(C(f, dot(op, wmma(ver, [2, 2], instr=instr), kw), [64, 64]))
    out.append(C(f, dot(0, wmma(2, [4, 1], True), 8), [64, 32]))
    out.append(C(f, dot(1, wmma(1, [1, 4]), 16), [32, 128]))
    return out


def amd_mfma_cases():
    out = []
    f = "amd_mfma"
    for tr in (False, True):
        t = "T" if tr else "NT"
        for s in ([32, 32], [128, 128], [256, 256]):
            out.append(C(f, mfma(2, [2, 4], [32, 32, 8], tr, tiles=[2, 2]), s,
                         f"named_MFMA32_tpw_2_2_{t}_{_j(s)}"))
            out.append(C(f, mfma(2, [2, 4], [16, 16, 16], tr, tiles=[2, 2]), s,
                         f"named_MFMA16_tpw_2_2_{t}_{_j(s)}"))
        for s in ([32, 32], [64, 32], [128, 128]):
            out.append(C(f, mfma(2, [2, 4], [32, 32, 8], tr), s, f"named_MFMA32_2x4Warps_{t}_{_j(s)}"))
        for s in ([1, 128, 128], [2, 32, 32], [2, 64, 32]):
            out.append(C(f, mfma(2, [2, 4, 1], [32, 32, 8], tr), s,
                         f"named_MFMA32_2x4x1Warps_{t}_{_j(s)}"))
    out.append(C(f, mfma(2, [2, 4], [16, 16, 16]), [16, 16], "named_MFMA16_2x4Warps"))
    for ver in (2, 3, 4):
        for instr in ([32, 32, 8], [16, 16, 16]) if ver < 4 else ([32, 32, 16], [16, 16, 32]):
            for tr in (False, True):
                for wpc, s in (([2, 2], [64, 64]), ([4, 1], [256, 64]), ([1, 4], [32, 16])):
                    out.append(C(f, mfma(ver, wpc, instr, tr), s))
    for instr in ([4, 64, 4], [64, 4, 4]):
        for tr in (False, True):
            for wpc, s in (([4, 1], [64, 64]), ([1, 4], [128, 256]), ([2, 2], [16, 16])):
                out.append(C(f, mfma(3, wpc, instr, tr), s))
    out.append(C(f, mfma(3, [2, 2], [16, 16, 4], ebw=64), [64, 64]))
    out.append(C(f, mfma(3, [2, 2], [16, 16, 4], True, ebw=64), [32, 64]))
    out.append(C(f, mfma(3, [4, 1], [16, 16, 4], ebw=64), [8, 8]))
    out.append(C(f, mfma(4, [2, 2], [16, 16, 4], ebw=64, tiles=[1, 2]), [128, 128]))
    out.append(C(f, mfma(4, [4, 2], [32, 32, 16], tiles=[1, 2]), [256, 256]))
    out.append(C(f, mfma(4, [2, 2], [16, 16, 32], True, tiles=[2, 1]), [64, 128]))
    out.append(C(f, mfma(3, [2, 2, 2], [16, 16, 16]), [4, 64, 64]))
    out.append(C(f, mfma(3, [8, 1], [32, 32, 8]), [512, 32]))
    return out


def amd_wmma_cases():
    out = []
    f = "amd_wmma"
    for ver, instr in ((1, [16, 16, 16]), (2, [16, 16, 16]), (2, [16, 16, 32]),
                       (3, [16, 16, 4]), (3, [16, 16, 32]), (3, [16, 16, 64]), (3, [16, 16, 128])):
        for tr in (False, True):
            for wpc, s in (([2, 2], [64, 64]), ([4, 1], [32, 128])):
                out.append(C(f, wmma(ver, wpc, tr, instr), s))
    for ver in (1, 2, 3):
        out.append(C(f, wmma(ver, [1, 4]), [16, 16]))
        out.append(C(f, wmma(ver, [2, 4]), [8, 8]))
        out.append(C(f, wmma(ver, [2, 2, 1]), [2, 32, 32]))
        out.append(C(f, wmma(ver, [4, 2], True), [256, 256]))
    out.append(C(f, wmma(2, [2, 2], tiles=[2, 2]), [64, 64]))
    out.append(C(f, wmma(2, [2, 2], True, tiles=[2, 2]), [64, 64]))
    out.append(C(f, wmma(3, [2, 2], instr=[16, 16, 32], tiles=[1, 2]), [128, 128]))
    return out


def swizzled_cases():
    out = []
    f = "swizzled_shared"
    out.append(C(f, swizzled(1, 1, 1, [0]), [1024], "named_SharedSimple1D"))
    out.append(C(f, swizzled(1, 1, 1, [1, 0]), [128, 128], "named_SharedSimple2D"))
    out.append(C(f, swizzled(1, 1, 1, [0, 1]), [128, 128], "named_SharedSimple2D_Order01"))
    out.append(C(f, swizzled(1, 1, 4, [1, 0]), [32, 32], "named_SharedSwizzled2D_MaxPhaseOnly"))
    out.append(C(f, swizzled(1, 2, 4, [1, 0]), [32, 32], "named_SharedSwizzled2D_PerPhaseMaxPhase"))
    out.append(C(f, swizzled(2, 1, 4, [1, 0]), [4, 8], "named_SharedSwizzled2D_Vec"))
    out.append(C(f, swizzled(2, 2, 4, [1, 0]), [32, 32], "named_SharedSwizzled2D_PerPhaseMaxPhaseVec"))
    out.append(C(f, swizzled(2, 2, 4, [3, 2, 1, 0]), [2, 4, 32, 32], "named_SharedSwizzled4D"))
    out.append(C(f, swizzled(1, 1, 4, [0, 1]), [4, 8], "named_SharedSwizzled2D_Order01"))
    out.append(C(f, swizzled(2, 2, 4, [1, 0]), [64, 1], "named_Shared1DSwizzle"))
    for vec, pp, mp in ((1, 1, 1), (1, 1, 8), (2, 2, 4), (4, 2, 4), (8, 1, 8), (8, 4, 2),
                        (4, 1, 16), (16, 1, 4)):
        for order in ([1, 0], [0, 1]):
            out.append(C(f, swizzled(vec, pp, mp, order), [64, 64]))
        out.append(C(f, swizzled(vec, pp, mp, [1, 0]), [128, 16]))
    out.append(C(f, swizzled(8, 1, 8, [1, 0]), [16, 128]))
    out.append(C(f, swizzled(4, 2, 4, [0, 1]), [8, 256]))
    out.append(C(f, swizzled(8, 1, 8, [1, 0]), [2, 4]))
    out.append(C(f, swizzled(4, 1, 8, [0]), [256]))
    for order, s in (([2, 1, 0], [2, 32, 32]), ([1, 2, 0], [4, 16, 64]), ([0, 1, 2], [32, 32, 2]),
                     ([2, 0, 1], [16, 8, 32])):
        out.append(C(f, swizzled(4, 2, 4, order), s))
    return out


def rotating_cases():
    out = []
    f = "amd_rotating_shared"
    for vec, pp, mp in ((4, 2, 4), (1, 1, 4), (2, 1, 8), (8, 1, 8), (4, 4, 2), (1, 1, 1)):
        for order in ([1, 0], [0, 1]):
            out.append(C(f, rotating(vec, pp, mp, order), [64, 64]))
    out.append(C(f, rotating(4, 2, 4, [1, 0]), [128, 32]))
    out.append(C(f, rotating(2, 1, 8, [1, 0]), [16, 256]))
    out.append(C(f, rotating(8, 1, 16, [1, 0]), [256, 128]))
    out.append(C(f, rotating(4, 1, 4, [2, 1, 0]), [4, 32, 64]))
    out.append(C(f, rotating(4, 1, 4, [0]), [128]))
    return out


def _nvmma_shape(swz, ebw, tr, rows=64):
    cols = max(swz, 16) * 8 // ebw if swz else 64
    return [cols, rows] if tr else [rows, cols]


def nvmma_cases():
    out = []
    f = "nvmma_shared"
    named = [
        ("LeadingOffset_8x16_4_2", nvmma(32, 16), [8, 16]),
        ("LeadingOffset_128x16_4_2", nvmma(32, 16), [128, 16]),
        ("LeadingOffset_8x32_2_4", nvmma(64, 16), [8, 32]),
        ("LeadingOffset_8x64_1_8", nvmma(128, 16), [8, 64]),
        ("LeadingOffset_8x64_1_8_32b", nvmma(128, 32), [8, 64]),
        ("LeadingOffset_128x128_1_8_128b_transposed", nvmma(128, 32, True), [128, 128]),
        ("LeadingOffset_32x4x64_1_8_32b", nvmma(64, 32, rank=3), [32, 4, 64]),
        ("LeadingOffset_64x4x32_1_8_32b_transposed", nvmma(64, 32, True, rank=3), [64, 4, 32]),
        ("MMAv5Fp4Padded", nvmma(128, 8, fp4=True), [32, 64]),
    ]
    for n, d, s in named:
        out.append(C(f, d, s, "named_" + n))
    for swz in (0, 32, 64, 128):
        for ebw in (8, 16, 32):
            for tr in (False, True):
                out.append(C(f, nvmma(swz, ebw, tr), _nvmma_shape(swz, ebw, tr)))
    for swz, ebw, tr, s in [
        (128, 16, False, [256, 256]), (128, 16, True, [256, 128]), (64, 8, False, [128, 512]),
        (32, 32, True, [16, 8]), (0, 16, False, [8, 8]), (0, 32, True, [64, 16]),
        (128, 8, False, [8, 128]), (128, 16, False, [16, 64]), (64, 16, True, [64, 16]),
        (128, 32, False, [64, 16]), (32, 8, False, [64, 32]),
    ]:
        out.append(C(f, nvmma(swz, ebw, tr), s))
    for swz, ebw, tr, s in [
        (128, 16, False, [2, 64, 64]), (128, 16, True, [2, 64, 64]), (64, 8, False, [4, 16, 64]),
        (32, 32, True, [8, 8, 16]), (0, 16, False, [2, 16, 32]), (128, 16, False, [4, 8, 128]),
    ]:
        out.append(C(f, nvmma(swz, ebw, tr, rank=3), s))
    out.append(C(f, nvmma(128, 8, fp4=True), [64, 128]))
    out.append(C(f, nvmma(128, 8, True, fp4=True), [64, 64]))
    out.append(C(f, nvmma(64, 8, fp4=True), [32, 32]))
    out.append(C(f, nvmma(128, 8, fp4=True, rank=3), [2, 32, 64]))
    return out


def shared_linear_cases():
    f = "shared_linear"
    out = []
    out.append(C(f, shared_linear([[0, 1], [0, 2], [1, 0], [2, 0]]), [4, 4], "spec_example_4x4"))
    out.append(C(f, shared_linear([[1], [2], [4], [8], [16]], alignment=32), [32]))
    out.append(C(f, shared_linear([[0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]], alignment=128),
                 [8, 8], "swizzle_8x8"))
    out.append(C(f, shared_linear([[0, 1], [0, 0], [0, 2], [1, 0], [2, 1]]), [4, 4],
                 "zero_basis_4x4"))
    out.append(C(f, shared_linear([[0, 0, 1], [0, 1, 0], [1, 0, 0], [0, 0, 2], [0, 2, 1]],
                                  alignment=64), [2, 4, 4], "rank3_2x4x4"))
    out.append(C(f, shared_linear([[1, 0], [2, 0], [0, 1], [4, 1], [0, 2]], alignment=1024),
                 [8, 4], "colmajor_8x4"))
    return out


def cga_cases():
    f = "cga"
    out = []
    L = legacy_cga
    out.append(C(f, blocked([1], [4], [4], [0], L([4], [2], [0])), [32], "named_CTADuplication"))
    out.append(C(f, blocked([8, 1], [8, 4], [1, 4], [0, 1], L([1, 2], [1, 2], [1, 0])), [64, 128],
                 "named_CTABroadcast"))
    out.append(C(f, blocked([1, 4], [8, 4], [4, 1], [1, 0], L([2, 2], [2, 1], [1, 0])), [128, 16],
                 "named_OneDimTooLargeAnotherTooSmall"))
    out.append(C(f, blocked([1], [1], [4], [0], L([2], [2], [0])), [4], "named_RepeatInCTGDimFirst"))
    out.append(C(f, blocked([1], [1], [1], [0], L([4], [4], [0])), [2], "named_SmallerThanCTALayout"))
    out.append(C(f, blocked([8, 1], [8, 4], [1, 4], [0, 1], L([1, 2], [1, 2], [0, 1])), [64, 1],
                 "named_Skinny"))
    out.append(C(f, blocked([2, 2], [4, 8], [2, 2], [1, 0], L([2, 2], [2, 2], [1, 0])), [1024, 128],
                 "named_BlockedOrder"))
    m = mma(2, [16, 1, 1], [1, 16, 8], L([4, 2, 2], [4, 2, 1], [2, 1, 0]))
    out.append(C(f, m, [64, 128, 128], "named_MMAv2_Cga"))
    out.append(C(f, m, [1, 128, 128], "named_MMAv2_Small3D"))
    # blocked, 2 and 4 CTAs, split / broadcast / too many CTA tiles
    for cga, shapes in [
        ([[1, 0]], [[64, 64], [256, 16], [1, 64]]),
        ([[0, 1]], [[64, 64], [16, 256]]),
        ([[0, 0]], [[64, 64]]),
        ([[1, 0], [0, 1]], [[128, 128], [32, 32], [2, 2]]),
        ([[0, 1], [1, 0]], [[128, 128]]),
        ([[0, 0], [0, 0]], [[64, 64], [8, 8]]),
        ([[1, 0], [2, 0]], [[512, 32], [4, 64]]),
        ([[0, 0], [1, 0]], [[128, 16], [1, 16]]),
        ([[1, 0], [0, 0], [0, 1]], [[128, 128]]),
    ]:
        for s in shapes:
            out.append(C(f, blocked([1, 4], [8, 4], [4, 1], [1, 0], cga), s))
    out.append(C(f, blocked([4], [32], [4], [0], [[1], [2]]), [4096]))
    out.append(C(f, blocked([4], [32], [4], [0], [[1], [0]]), [64]))
    out.append(C(f, blocked([1, 1, 4], [2, 4, 4], [2, 2, 1], [2, 1, 0], [[1, 0, 0], [0, 0, 1]]),
                 [8, 32, 64]))
    # mma / dot / slice / amd with CGA
    out.append(C(f, mma(2, [2, 2], [16, 8], [[1, 0]]), [64, 64]))
    out.append(C(f, mma(2, [2, 2], [16, 8], [[0, 1], [0, 0]]), [32, 64]))
    out.append(C(f, mma(3, [4, 1], [16, 64, 16], [[1, 0]]), [128, 64]))
    out.append(C(f, mma(3, [4, 1], [16, 128, 16], [[0, 1], [1, 0]]), [128, 256]))
    out.append(C(f, mma(3, [4, 1], [16, 64, 16], [[0, 0]]), [64, 64]))
    out.append(C(f, dot(0, mma(2, [2, 2], [16, 8], [[1, 0]]), 2), [64, 32]))
    out.append(C(f, dot(1, mma(2, [2, 2], [16, 8], [[0, 1]]), 4), [32, 64]))
    out.append(C(f, dot(0, mma(3, [4, 1], [16, 64, 16], [[1, 0]]), 2), [128, 64]))
    out.append(C(f, dot(0, mma(2, [2, 2], [16, 8], [[0, 1]]), 2), [64, 64]))  # CTA split along K
    out.append(C(f, dot(1, mma(2, [2, 2], [16, 8], [[1, 0]]), 2), [64, 64]))  # CTA split along K
    out.append(C(f, dot(0, blocked([1, 4], [8, 4], [4, 1], [1, 0], [[0, 1]]), 0), [64, 64]))
    out.append(C(f, dot(0, mma(2, [2, 2], [16, 8], [[0, 1], [1, 0]]), 2), [128, 64]))
    out.append(C(f, dot(1, mma(2, [2, 2], [16, 8], [[1, 0], [0, 1]]), 2), [64, 128]))
    out.append(C(f, dot(1, blocked([1, 4], [8, 4], [4, 1], [1, 0], [[1, 0], [0, 1]]), 0), [64, 64]))
    out.append(C(f, slice_(1, blocked([1, 4], [8, 4], [4, 1], [1, 0], [[1, 0], [0, 1]])), [128]))
    out.append(C(f, slice_(0, blocked([1, 4], [8, 4], [4, 1], [1, 0], [[1, 0], [0, 1]])), [128]))
    out.append(C(f, mfma(3, [2, 2], [32, 32, 8], cga=[[1, 0]]), [128, 64]))
    out.append(C(f, wmma(2, [2, 2], cga=[[0, 1]]), [32, 64]))
    out.append(C(f, wmma(2, [2, 2], cga=[[1, 0]]), [64, 32]))
    out.append(C(f, wmma(1, [2, 2], cga=[[0, 1]]), [32, 128]))
    out.append(C(f, mfma(3, [2, 2], [16, 16, 16], cga=[[0, 1]]), [32, 128]))
    out.append(C(f, mfma(4, [2, 2], [16, 16, 4], tiles=[2, 1], ebw=64, cga=[[1, 0]]), [128, 64]))
    out.append(C(f, wmma(3, [2, 2], instr=[16, 16, 64], tiles=[2, 1], cga=[[1, 0]]), [128, 64]))
    out.append(C(f, nvmma(128, 16, rank=3, cga=[[1, 0, 0]]), [4, 16, 64]))
    out.append(C(f, linear([[0, 1]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0]],
                           [[32, 0], [0, 0]]), [64, 8], "linear_block_bcast"))
    # shared with CGA
    out.append(C(f, swizzled(2, 2, 4, [1, 0], [[1, 0]]), [64, 64]))
    out.append(C(f, swizzled(2, 2, 4, [1, 0], [[0, 1], [1, 0]]), [64, 64]))
    out.append(C(f, swizzled(1, 1, 1, [0, 1], [[0, 0]]), [32, 32]))
    out.append(C(f, swizzled(4, 1, 8, [1, 0], [[1, 0], [2, 0]]), [4, 64]))
    out.append(C(f, nvmma(128, 16, cga=[[1, 0]]), [128, 64]))
    out.append(C(f, nvmma(128, 16, True, cga=[[0, 1]]), [64, 128]))
    out.append(C(f, nvmma(64, 16, cga=[[1, 0], [0, 0]]), [64, 32]))
    out.append(C(f, nvmma(0, 16, cga=[[0, 1]]), [16, 32]))
    out.append(C(f, rotating(4, 2, 4, [1, 0], [[1, 0]]), [64, 64]))
    out.append(C(f, rotating(4, 2, 4, [1, 0], [[0, 1]]), [64, 64]))
    out.append(C(f, rotating(1, 1, 4, [1, 0], [[1, 0], [0, 1]]), [128, 128]))
    out.append(C(f, shared_linear([[0, 1], [0, 2], [1, 0], [2, 0]], [[4, 0], [0, 0]]), [8, 4],
                 "shared_linear_block"))
    return out


# Seeds for derived linear / shared_linear cases (converted, not written themselves).
def seeds():
    return [
        ("blocked", blocked([1, 4], [8, 4], [4, 1], [1, 0]), [64, 64]),
        ("blocked_small", blocked([1, 4], [8, 4], [4, 1], [1, 0]), [16, 8]),
        ("blocked_1d", blocked([4], [32], [4], [0]), [512]),
        ("blocked_3d", BL3, [4, 32, 32]),
        ("mmav2", mma(2, [2, 2], [16, 8]), [32, 32]),
        ("mmav3", mma(3, [4, 1], [16, 64, 16]), [64, 64]),
        ("dot0_mmav2_k8", dot(0, mma(2, [2, 2], [16, 8]), 8), [32, 64]),
        ("dot1_blocked", dot(1, BL2, 0), [16, 64]),
        ("mfma32", mfma(3, [2, 2], [32, 32, 8]), [64, 64]),
        ("mfma16_T", mfma(3, [2, 2], [16, 16, 16], True), [32, 32]),
        ("wmma_v2", wmma(2, [2, 2]), [32, 32]),
        ("slice_blocked", slice_(0, BL2), [64]),
        ("swz", swizzled(2, 2, 4, [1, 0]), [32, 32]),
        ("swz_o01", swizzled(4, 1, 8, [0, 1]), [32, 64]),
        ("nvmma128", nvmma(128, 16), [64, 64]),
        ("nvmma64_T", nvmma(64, 32, True), [32, 32]),
        ("nvmma_fp4", nvmma(128, 8, fp4=True), [32, 64]),
        ("rot", rotating(4, 2, 4, [1, 0]), [64, 64]),
        ("nvmma_r3", nvmma(128, 16, rank=3), [2, 16, 64]),
    ]


def _variants(shape):
    """Other shapes to evaluate a #ttg.linear at: same, larger, smaller, non-square."""
    out = [list(shape)]
    big = list(shape)
    big[-1] *= 4
    out.append(big)
    if shape[0] > 1:
        small = list(shape)
        small[0] //= 4 if shape[0] >= 4 else 2
        out.append(small)
    if len(shape) >= 2:
        ns = list(shape)
        ns[0] *= 2
        ns[-1] = max(1, ns[-1] // 8)
        out.append(ns)
    return out


def linear_cases(seed_results):
    f = "linear"
    out = []
    for sname, res in seed_results:
        if res.get("kind") != "dist":
            continue
        b = res["bases"]
        d = linear(b["register"], b["lane"], b["warp"], b["block"])
        for s in _variants(res["shape"]):
            out.append(C(f, d, s, f"from_{sname}"))
    hand = [
        ("bcast_2d", linear([[0, 1], [0, 0]], [[1, 0], [0, 0], [0, 2], [2, 0], [4, 0]],
                            [[0, 0], [8, 0]]), [[16, 4], [64, 64], [8, 2]]),
        ("spec_example", linear([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                [[16, 0], [32, 0]]), [[64, 8], [64, 16], [16, 8], [256, 32]]),
        ("bcast_1d", linear([[1], [0]], [[2], [4], [8], [0], [16]], [[0], [32]]), [[64], [16], [256]]),
        ("perm_lanes", linear([[0, 2], [1, 0]], [[0, 1], [2, 0], [0, 4], [4, 0], [0, 8]],
                              [[8, 0], [0, 16]]), [[16, 32], [32, 32], [4, 4]]),
        ("rank3", linear([[0, 0, 1], [1, 0, 0]], [[0, 0, 2], [0, 1, 0], [0, 2, 0], [0, 0, 4], [0, 4, 0]],
                         [[2, 0, 0], [0, 0, 0]]), [[4, 8, 8], [8, 16, 8], [1, 2, 2]]),
        ("no_regs", linear([], [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]], [[8, 0], [0, 4]]),
         [[16, 8], [32, 8]]),
        ("all_zero_warps", linear([[0, 1], [0, 2]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                  [[0, 0], [0, 0], [0, 0]]), [[8, 16], [32, 64]]),
        ("wave64", linear([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
                          [[0, 16], [16, 0]]), [[32, 32], [64, 128]]),
    ]
    for n, d, shapes in hand:
        for s in shapes:
            out.append(C(f, d, s, n))
    return out


def derived_shared_linear_cases(seed_results):
    f = "shared_linear"
    out = []
    for i, (sname, res) in enumerate(seed_results):
        if res.get("kind") != "shared":
            continue
        b = res["bases"]
        align = (16, 128, 1024)[i % 3]
        out.append(C(f, shared_linear(b["offset"], b["block"], align), res["shape"], f"from_{sname}"))
    return out


def reject_cases():
    bl = "sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]"
    mm = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    return [
        ("blocked_legacy_CTAOrder", f"#ttg.blocked<{{{bl}, CTAOrder = [1, 0]}}>", "CTAOrder", [64, 64], "t"),
        ("blocked_legacy_CTAsPerCGA", f"#ttg.blocked<{{{bl}, CTAsPerCGA = [1, 1]}}>", "CTAsPerCGA", [64, 64], "t"),
        ("blocked_unknown_key", f"#ttg.blocked<{{{bl}, foo = 1}}>", "foo", [64, 64], "t"),
        ("blocked_spt_not_pow2",
         "#ttg.blocked<{sizePerThread = [1, 3], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
         "sizePerThread", [64, 64], "t"),
        ("blocked_order_not_perm",
         "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 1]}>",
         "order", [64, 64], "t"),
        ("blocked_cga_rank", f"#ttg.blocked<{{{bl}, CGALayout = [[1]]}}>", "CGALayout", [64, 64], "t"),
        ("swizzled_unknown_key", "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0], bar = 3}>",
         "bar", [64, 64], "m"),
        ("nvmma_unknown_key",
         "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, baz = 1}>",
         "baz", [64, 64], "m"),
        ("linear_missing_block",
         "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []}>",
         "block", [8, 8], "t"),
        ("dot_op_mma_missing_kWidth", f"#ttg.dot_op<{{opIdx = 0, parent = {mm}}}>", "kWidth", [64, 64], "t"),
    ]


# ----------------------------------------------------------------------------------------
# Worker: everything that touches Triton
# ----------------------------------------------------------------------------------------


class Worker:
    def __init__(self, tmpdir):
        from triton._C.libtriton import ir, gluon_ir
        self.ir = ir
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        self.b = gluon_ir.GluonOpBuilder(self.ctx)
        self.tmpdir = tmpdir
        self.nfile = 0

    # -- attributes ------------------------------------------------------------------
    def attr(self, d):
        b, k = self.b, d["k"]
        if k == "blocked":
            return b.get_blocked_layout(d["spt"], d["tpw"], d["wpc"], d["order"], d["cga"])
        if k == "slice":
            return b.get_slice_layout(d["dim"], self.attr(d["parent"]))
        if k == "linear":
            return b.get_distributed_linear_layout(d["reg"], d["lane"], d["warp"], d["block"],
                                                   linear_shape(d))
        if k == "mma":
            return b.get_mma_layout(d["ver"], d["wpc"], d["cga"], d["instr"])
        if k == "dot":
            return b.get_dot_operand_layout(d["op"], self.attr(d["parent"]), d["kw"])
        if k == "mfma":
            return b.get_amd_mfma_layout(d["ver"], d["wpc"], d["instr"], d["tr"], d["cga"],
                                         d["tiles"], d["ebw"])
        if k == "wmma":
            return b.get_amd_wmma_layout(d["ver"], d["tr"], d["wpc"], d["tiles"], d["cga"],
                                         d["instr"])
        if k == "swizzled":
            return b.get_swizzled_shared_layout(d["vec"], d["pp"], d["mp"], d["order"], d["cga"])
        if k == "nvmma":
            return b.get_nvmma_shared_layout(d["swz"], d["ebw"], d["tr"], d["fp4"], d["cga"],
                                             d["rank"])
        if k == "shared_linear":
            return b.get_shared_linear_layout(d["offset"], d["block"], d["align"])
        raise ValueError(k)

    def elem_ty(self, d):
        b = self.b
        if d["k"] == "nvmma":
            return {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty}[d["ebw"]]()
        return b.get_half_ty()

    def type_for(self, d, shape):
        """Returns (type, type text) carrying the layout."""
        b = self.b
        if d["k"] == "rotating":
            fields = f"vec = {d['vec']}, perPhase = {d['pp']}, maxPhase = {d['mp']}, order = {d['order']}"
            if d["cga"]:
                fields += f", CGALayout = {d['cga']}"
            text = (f"!ttg.memdesc<{'x'.join(map(str, shape))}xf16, #ttg.amd_rotating_shared<{{{fields}}}>, "
                    f"#ttg.shared_memory, mutable>")
            m = self.parse(self.module_text(text, 4, 32, 2 ** len(d["cga"])))
            t = m.get_function("f").args(0).get_type()
            return t, str(t)
        a = self.attr(d)
        if d["k"] in SHARED_KINDS:
            t = b.get_shared_mem_desc_ty(self.elem_ty(d), shape, a, shape)
        else:
            t = b.get_distributed_ty(self.elem_ty(d), shape, a)
        return t, str(t)

    # -- parsing ---------------------------------------------------------------------
    @staticmethod
    def module_text(type_text, warps, threads, ctas):
        return ('module attributes {"ttg.num-ctas" = %d : i32, "ttg.num-warps" = %d : i32, '
                '"ttg.threads-per-warp" = %d : i32} {\n' % (ctas, warps, threads)
                + "  tt.func public @f(%arg0: " + type_text + ") {\n    tt.return\n  }\n}\n")

    def parse(self, text):
        """Parses TTGIR text; raises RuntimeError carrying Triton's diagnostics."""
        self.nfile += 1
        path = os.path.join(self.tmpdir, f"m{self.nfile}.mlir")
        with open(path, "w") as fh:
            fh.write(text)
        errpath = path + ".err"
        sys.stderr.flush()
        saved = os.dup(2)
        with open(errpath, "w") as eh:
            os.dup2(eh.fileno(), 2)
            try:
                m = self.ir.parse_mlir_module(path, self.ctx)
                exc = None
            except Exception as e:  # noqa: BLE001 - Triton raises RuntimeError
                m, exc = None, e
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
                os.close(saved)
        with open(errpath) as eh:
            diag = eh.read()
        if exc is not None:
            raise RuntimeError(f"{exc} {diag}".strip())
        return m

    @staticmethod
    def attr_of_type(type_text):
        """The layout attribute of `tensor<SxT, ATTR>` / `!ttg.memdesc<SxT, ATTR, SPACE[, mutable]>`."""
        for prefix in ("tensor<", "!ttg.memdesc<"):
            if type_text.startswith(prefix) and type_text.endswith(">"):
                body = type_text[len(prefix):-1]
                break
        else:
            raise ValueError(type_text)
        parts, depth, cur = [], 0, ""
        for ch in body:
            if ch in "<[{(":
                depth += 1
            elif ch in ">]})":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        parts.append(cur.strip())
        return parts[1]

    def round_trip(self, type_text, warps, threads, ctas):
        m = self.parse(self.module_text(type_text, warps, threads, ctas))
        parsed = str(m.get_function("f").args(0).get_type())
        printed = m.str()
        aliases = {}
        for line in printed.splitlines():
            mm = re.match(r"^#(\w+) = (.*)$", line)
            if mm and not mm.group(1).startswith("loc"):
                aliases[mm.group(1)] = mm.group(2)
        mm = re.search(r"%arg0: (.*?) loc\(", printed)
        alias_form = mm.group(1)
        expanded = alias_form
        for _ in range(10):
            new = re.sub(r"#(\w+)\b(?![.\w])",
                         lambda x: aliases.get(x.group(1), x.group(0)), expanded)
            if new == expanded:
                break
            expanded = new
        return parsed, expanded, alias_form

    # -- conversion ------------------------------------------------------------------
    def shared_ll(self, t, shape):
        """toLinearLayout(shape, enc) of a shared encoding, read back through the generic
        `ttg.memdesc_reshape` inference (SharedLinearEncodingAttr(reshapeLayout(
        toLinearLayout(shape, enc), dstShape))). Method A reshapes to the same shape;
        method B reshapes to the flat 1-D shape and back (needed for single-CTA
        nvmma_shared, for which a shape-preserving reshape keeps the nvmma encoding;
        Triton cannot flatten a CTA-split memdesc). When both apply they must agree,
        and B's 1-D intermediate must be the row-major flattening of its N-D result."""
        # A fresh builder: the op builder keeps its insertion point inside the last function.
        from triton._C.libtriton import gluon_ir
        b = gluon_ir.GluonOpBuilder(self.ctx)
        m = b.create_module()
        fn = b.get_or_insert_function(m, "g", b.get_function_ty([t], []), "public", False)
        m.push_back(fn)
        entry = fn.add_entry_block()
        b.set_insertion_point_to_start(entry)

        def is_sl(lay):
            return type(lay).__name__ == "SharedLinearLayout"

        def bases(lay):
            return ([list(v) for v in lay.offset_bases], [list(v) for v in lay.block_bases])

        lay_a = b.get_gluon_layout_from_memdesc(b.create_memdesc_reshape(fn.args(0), list(shape)))
        lay_b = None
        multi_cta = is_sl(lay_a) and len(lay_a.block_bases) > 0
        if not multi_cta:
            n = 1
            for s in shape:
                n *= s
            v1 = b.create_memdesc_reshape(fn.args(0), [n])
            l1 = b.get_gluon_layout_from_memdesc(v1)
            if not is_sl(l1):
                raise RuntimeError(f"memdesc_reshape to 1-D kept {type(l1).__name__}")
            lay_b = l1
            if len(shape) > 1:
                lay_b = b.get_gluon_layout_from_memdesc(b.create_memdesc_reshape(v1, list(shape)))
                if not is_sl(lay_b):
                    raise RuntimeError(f"memdesc_reshape back gave {type(lay_b).__name__}")
                strides = [1] * len(shape)
                for i in range(len(shape) - 2, -1, -1):
                    strides[i] = strides[i + 1] * shape[i + 1]
                for nd, od in zip(bases(lay_b), bases(l1)):
                    if [[sum(x * s for x, s in zip(v, strides))] for v in nd] != od:
                        raise RuntimeError("1-D and N-D shared_linear disagree")
        if is_sl(lay_a) and lay_b is not None and bases(lay_a) != bases(lay_b):
            raise RuntimeError(f"reshape methods disagree: {bases(lay_a)} vs {bases(lay_b)}")
        lay = lay_a if is_sl(lay_a) else lay_b
        if lay is None:
            raise RuntimeError(f"memdesc_reshape kept {type(lay_a).__name__}")
        b.ret([])
        off, blk = bases(lay)
        return {"offset": off, "block": blk}, lay.alignment

    def run_case(self, c):
        d, shape = c["desc"], c["shape"]
        t, type_text = self.type_for(d, shape)
        attr_text = self.attr_of_type(type_text)
        res = {"attr": attr_text, "shape": shape}
        if d["k"] in SHARED_KINDS:
            bases, align = self.shared_ll(t, shape)
            res.update(kind="shared", bases=bases, alignment=align)
            warps, threads = 4, 32
        else:
            ll = self.b.to_linear_layout(self.attr(d), shape)
            if list(ll.shape) != list(shape):
                raise RuntimeError(f"to_linear_layout shape {ll.shape} != {shape}")
            bases = {"register": [list(v) for v in ll.reg_bases],
                     "lane": [list(v) for v in ll.lane_bases],
                     "warp": [list(v) for v in ll.warp_bases],
                     "block": [list(v) for v in ll.block_bases]}
            res.update(kind="dist", bases=bases)
            warps, threads = 2 ** len(bases["warp"]), 2 ** len(bases["lane"])
        ctas = 2 ** len(bases["block"])
        res["module"] = {"num_warps": warps, "threads_per_warp": threads, "num_ctas": ctas}
        parsed, expanded, alias_form = self.round_trip(type_text, warps, threads, ctas)
        res["roundtrip_parsed"] = self.attr_of_type(parsed)
        res["roundtrip_alias_expanded"] = self.attr_of_type(expanded)
        res["alias_form"] = self.attr_of_type(alias_form)
        return res

    def run_padded_probe(self, c):
        """padded_shared: does toLinearLayout convert it? (3.6.0: no, it aborts)."""
        a = self.b.get_padded_shared_layout([128], [4], c["offset"], [], c["shape"])
        self.b.to_linear_layout(a, c["shape"])
        return {"converted": True}

    def run_reject(self, c):
        text = c["attr"]
        shape = "x".join(map(str, c["shape"]))
        if c["ty"] == "m":
            ty = f"!ttg.memdesc<{shape}xf16, {text}, #ttg.shared_memory, mutable>"
        else:
            ty = f"tensor<{shape}xf16, {text}>"
        try:
            self.parse(self.module_text(ty, 4, 32, 1))
        except RuntimeError as e:
            return {"rejected": True, "message": str(e)}
        return {"rejected": False}


def linear_shape(d):
    rank = len((d["reg"] + d["lane"] + d["warp"] + d["block"])[0])
    shape = [1] * rank
    for v in d["reg"] + d["lane"] + d["warp"] + d["block"]:
        for i, x in enumerate(v):
            while shape[i] <= x:
                shape[i] *= 2
    return shape


def worker_main(tmpdir):
    w = Worker(tmpdir)
    for line in sys.stdin:
        job = json.loads(line)
        print("BEGIN", job["id"], flush=True)
        try:
            if job.get("reject"):
                res = w.run_reject(job)
            elif job.get("padded_probe"):
                res = w.run_padded_probe(job)
            else:
                res = w.run_case(job)
            out = {"id": job["id"], "ok": True, "res": res}
        except Exception as e:  # noqa: BLE001 - Triton raises plain RuntimeError/ValueError
            out = {"id": job["id"], "ok": False, "error": f"{type(e).__name__}: {e}"}
        print("RESULT " + json.dumps(out), flush=True)


def run_jobs(jobs, tmpdir):
    """Runs jobs in worker subprocesses; a crash skips the crashing job and restarts."""
    results = {}
    pending = list(jobs)
    while pending:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tmpdir],
                           input="".join(json.dumps(j) + "\n" for j in pending),
                           capture_output=True, text=True)
        begun = None
        for line in p.stdout.splitlines():
            if line.startswith("BEGIN "):
                begun = int(line.split()[1])
            elif line.startswith("RESULT "):
                r = json.loads(line[7:])
                results[r["id"]] = r
                begun = None
        if p.returncode == 0 and begun is None:
            break
        if begun is None:
            raise SystemExit(f"worker failed before any case: {p.stderr[-2000:]}")
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = " | ".join(lines[-3:])[-600:]
        results[begun] = {"id": begun, "ok": False,
                          "error": f"crash (exit {p.returncode}): {why}"}
        pending = [j for j in pending if j["id"] not in results]
    return results


# ----------------------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------------------


def fmt_bases(bases):
    return "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in bases) + "]"


def fmt_layout(res):
    b = res["bases"]
    names = ("register", "lane", "warp", "block") if res["kind"] == "dist" else ("offset", "block")
    ins = ", ".join(f"{n}: {fmt_bases(b[n])}" for n in names)
    outs = ", ".join(f"dim{i}: {s}" for i, s in enumerate(res["shape"]))
    return "{" + ins + "} -> {" + outs + "}"


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def header(family):
    how = ("gluon_ir.GluonOpBuilder.to_linear_layout" if family not in
           ("swizzled_shared", "amd_rotating_shared", "nvmma_shared", "shared_linear")
           else "toLinearLayout via gluon_ir.GluonOpBuilder.create_memdesc_reshape")
    if family in ("cga",):
        how = ("gluon_ir.GluonOpBuilder.to_linear_layout; shared layouts: toLinearLayout via "
               "create_memdesc_reshape")
    if family == "rejects":
        how = "ir.parse_mlir_module diagnostics"
    return ("# proto-file: proto/layout.proto\n"
            "# proto-message: warpcheck.LayoutCorpus\n"
            f"# Generated by {SCRIPT} from triton 3.6.0 ({how}). Do not edit by hand.\n"
            f'oracle: "{ORACLE}"\n')


def write_family(path, family, entries):
    with open(path, "w") as fh:
        fh.write(header(family))
        for c, res in entries:
            m = res["module"]
            fh.write("cases {\n")
            fh.write(f"  name: {q(c['name'])}\n")
            fh.write(f"  source: {q(SRC_SHARED if res['kind'] == 'shared' else SRC_DIST)}\n")
            fh.write(f"  attr: {q(res['attr'])}\n")
            for s in c["shape"]:
                fh.write(f"  shape: {s}\n")
            fh.write(f"  module {{ num_warps: {m['num_warps']} threads_per_warp: "
                     f"{m['threads_per_warp']} num_ctas: {m['num_ctas']} }}\n")
            fh.write("  expect {\n")
            fh.write(f"    layout: {q(fmt_layout(res))}\n")
            fh.write(f"    canonical_attr: {q(res['roundtrip_alias_expanded'])}\n")
            fh.write("  }\n}\n")


def write_rejects(path, entries):
    with open(path, "w") as fh:
        fh.write(header("rejects"))
        for name, attr, substr, shape, ty, msg in entries:
            fh.write("cases {\n")
            fh.write(f"  name: {q(name)}\n")
            fh.write(f"  source: {q(SRC_REJECT)}\n")
            fh.write(f"  # Triton: {msg}\n")
            fh.write(f"  attr: {q(attr)}\n")
            for s in shape:
                fh.write(f"  shape: {s}\n")
            fh.write("  module { num_warps: 4 threads_per_warp: 32 num_ctas: 1 }\n")
            fh.write(f"  expect {{\n    error {{ message_substr: {q(substr)} }}\n  }}\n}}\n")


def short_reason(err):
    if "error: " in err:
        return "parse error: " + err.rsplit("error: ", 1)[1].strip()
    m = re.search(r'"([^"]+)"\)?\'? failed', err)
    if m:
        return "assertion: " + m.group(1)
    m = re.search(r"(LLVM ERROR: [^|]*)", err)
    if m:
        return m.group(1).strip()
    m = re.search(r"Assertion `(.*?)' failed", err)
    if m:
        return "assertion: " + m.group(1)[:120]
    return err[:200]


def write_readme(path, summary, skipped, padded_note):
    total = sum(n for f, n in summary if f != "rejects")
    lines = [
        "# Layout corpus generated from Triton 3.6.0",
        "",
        "`triton_<family>.textproto` are `warpcheck.LayoutCorpus` files (proto/layout.proto) whose",
        "expectations all come from Triton 3.6.0 (`pip install triton==3.6.0`, no GPU needed).",
        "Regenerate from the repository root with",
        "",
        "    python3 tools/oracle/gen_layout_corpus.py --out corpus/layout",
        "",
        "(this README is rewritten too; do not edit either by hand). For every case:",
        "",
        "* `attr` / `canonical_attr`: Triton's own print of the attribute (the layout part of the",
        "  printed `tensor<...>` / `!ttg.memdesc<...>` type, parents inline). Every text was",
        "  re-parsed by Triton (`ir.parse_mlir_module`) and printed back identically, both as the",
        "  argument type and, with `#alias` definitions substituted, in the module print.",
        "  amd_rotating_shared has no Gluon builder: its input text is written per the spec and",
        "  kept only because Triton prints it back unchanged; all other attributes are built by",
        "  `gluon_ir.GluonOpBuilder.get_*_layout`.",
        "* `layout`: distributed layouts: `GluonOpBuilder.to_linear_layout(attr, shape)` (Triton's",
        "  C++ `toLinearLayout`). Shared layouts: `to_linear_layout` aborts on them in 3.6.0, so the",
        "  generator reads `toLinearLayout(shape, enc)` back from Triton's `ttg.memdesc_reshape`",
        "  inference, which wraps it in a `#ttg.shared_linear` (source: \"" + SRC_SHARED + "\").",
        "* `module`: num_warps / threads_per_warp / num_ctas = 2^(number of warp / lane / block",
        "  bases); shared cases use 4 warps, 32 threads.",
        "",
        f"## Cases ({total} + {dict(summary).get('rejects', 0)} reject cases)",
        "",
        "| file | cases |",
        "| --- | --- |",
    ]
    for fam, n in summary:
        lines.append(f"| triton_{fam}.textproto | {n} |")
    lines += [
        "",
        "Names starting with `named_` reproduce Triton's LinearLayoutConversionsTest cases (legacy",
        "CTA triples converted to `CGALayout`); `linear` / `shared_linear` cases named `from_*` reuse",
        "bases Triton produced for another encoding. `triton_rejects.textproto` holds malformed",
        "attributes that Triton's parser rejects with a message naming the field",
        "(`message_substr`); the Triton message is in a comment.",
        "",
        "## Triton 3.6.0 behaviours these cases pin (beyond shared/spec/linear-layouts.md)",
        "",
        "* dot_op: every CGALayout basis component along K is zeroed (the operand is broadcast",
        "  across CTAs along K and each CTA holds all of K), e.g. parent CGALayout [[0, 1]] ->",
        "  opIdx 0 block bases [[0, 0]].",
        "* dot_op of an amd_mfma 64x4 (opIdx 0) / 4x64 (opIdx 1) parent: registers along K cover",
        "  max(shape[K], 16 * kWidth); bases beyond shape[K] are zero.",
        "* amd_wmma: register repetitions along N come from the global shape (as for amd_mfma), so a",
        "  CGALayout split along N leaves extra zero register bases; `tilesPerWarp` (printed after",
        "  warpsPerCTA/CGALayout, before instrShape) adds register bases right after the 16x16 tile",
        "  (N first), before the warps.",
        "* amd_rotating_shared with a CGALayout: the swizzle is computed on the global shape, then",
        "  fitted to the per-CTA shape, leaving zero offset bases.",
        "* nvmma_shared with swizzlingByteWidth = 0 ignores `transposed` (row-major).",
        "",
        "## Not covered",
        "",
        f"* `#ttg.padded_shared`: Triton 3.6.0 cannot convert it ({short_reason(padded_note or '')}),",
        "  so there is no family for it.",
        f"* {len(skipped)} enumerated combinations that Triton rejects (aborts) were dropped:",
        "",
    ]
    for fam, name, why in skipped:
        lines.append(f"  * `{fam}` `{name}`: {short_reason(why)}")
    lines.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(lines))


FAMILIES = [
    ("blocked", blocked_cases), ("slice", slice_cases), ("nvidia_mma", nvidia_mma_cases),
    ("dot_op", dot_op_cases), ("amd_mfma", amd_mfma_cases), ("amd_wmma", amd_wmma_cases),
    ("swizzled_shared", swizzled_cases), ("amd_rotating_shared", rotating_cases),
    ("nvmma_shared", nvmma_cases), ("cga", cga_cases),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--out", default=os.path.join(repo, "corpus", "layout"),
                    help="output directory (default: <repo>/corpus/layout)")
    ap.add_argument("--dump-json", help="also write every case (descriptor + Triton result) here")
    ap.add_argument("--worker", metavar="TMPDIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_main(args.worker)
        return
    with tempfile.TemporaryDirectory(prefix="gen_layout_corpus_") as tmpdir:
        generate(args, tmpdir)


def generate(args, tmpdir):

    # Phase 1: seeds + directly enumerated families.
    jobs, fam_of = [], {}
    seed_list = seeds()
    for i, (sname, d, s) in enumerate(seed_list):
        jobs.append({"id": len(jobs), "desc": d, "shape": s, "name": "seed_" + sname})
        fam_of[jobs[-1]["id"]] = ("_seed", sname)
    for fam, fn in FAMILIES:
        for c in fn():
            c = dict(c, id=len(jobs))
            jobs.append(c)
            fam_of[c["id"]] = (fam, None)
    for c in shared_linear_cases():
        c = dict(c, id=len(jobs))
        jobs.append(c)
        fam_of[c["id"]] = ("shared_linear", None)
    results = run_jobs(jobs, tmpdir)

    seed_results = []
    for j in jobs:
        fam, sname = fam_of[j["id"]]
        if fam == "_seed":
            r = results[j["id"]]
            if not r["ok"]:
                raise SystemExit(f"seed {sname} failed: {r['error']}")
            seed_results.append((sname, r["res"]))

    # Phase 2: cases derived from seeds.
    jobs2 = []
    for c in linear_cases(seed_results):
        jobs2.append(dict(c, id=len(jobs) + len(jobs2)))
        fam_of[jobs2[-1]["id"]] = ("linear", None)
    for c in derived_shared_linear_cases(seed_results):
        jobs2.append(dict(c, id=len(jobs) + len(jobs2)))
        fam_of[jobs2[-1]["id"]] = ("shared_linear", None)
    jobs2.append({"id": len(jobs) + len(jobs2), "padded_probe": True, "shape": [16, 16],
                  "name": "padded_shared_probe",
                  "offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]})
    fam_of[jobs2[-1]["id"]] = ("_padded_probe", None)
    rejects = reject_cases()
    for r in rejects:
        jobs2.append({"id": len(jobs) + len(jobs2), "reject": True, "attr": r[1],
                      "shape": r[3], "ty": r[4]})
        fam_of[jobs2[-1]["id"]] = ("rejects", r)
    results.update(run_jobs(jobs2, tmpdir))
    jobs += jobs2

    # Collect per family.
    fams = {}
    skipped = []
    padded_note = None
    reject_entries = []
    for j in jobs:
        fam, extra = fam_of[j["id"]]
        if fam == "_seed":
            continue
        r = results[j["id"]]
        if fam == "_padded_probe":
            padded_note = ("converted (unexpected: add a padded_shared family)" if r["ok"]
                           else r["error"])
            continue
        if fam == "rejects":
            name, attr, substr, shape, ty = extra
            if r["ok"] and r["res"]["rejected"] and substr in r["res"]["message"]:
                msg = re.sub(r'loc\("[^"]*":\d+:\d+\): ', "", r["res"]["message"])
                msg = msg.replace("Parse MLIR file failed.", "").strip().splitlines()[0]
                reject_entries.append((name, attr, substr, shape, ty, msg))
            else:
                skipped.append(("rejects", name, f"not rejected as expected: {r}"))
            continue
        if not r["ok"]:
            skipped.append((fam, j["name"], r["error"]))
            continue
        res = r["res"]
        if not (res["attr"] == res["roundtrip_parsed"] == res["roundtrip_alias_expanded"]):
            skipped.append((fam, j["name"], f"round trip mismatch: {res['attr']} vs "
                            f"{res['roundtrip_parsed']} vs {res['roundtrip_alias_expanded']}"))
            continue
        lst = fams.setdefault(fam, [])
        key = (res["attr"], tuple(j["shape"]))
        if any((x[1]["attr"], tuple(x[0]["shape"])) == key for x in lst):
            continue  # duplicate (same attribute text and shape)
        names = {x[0]["name"] for x in lst}
        if j["name"] in names:
            n = 2
            while f"{j['name']}_{n}" in names:
                n += 1
            j = dict(j, name=f"{j['name']}_{n}")
        lst.append((j, res))

    os.makedirs(args.out, exist_ok=True)
    order = [f for f, _ in FAMILIES[:6]] + ["linear"] + [f for f, _ in FAMILIES[6:9]] + [
        "shared_linear", "cga"]
    summary = []
    for fam in order:
        entries = fams.get(fam, [])
        write_family(os.path.join(args.out, f"triton_{fam}.textproto"), fam, entries)
        summary.append((fam, len(entries)))
    write_rejects(os.path.join(args.out, "triton_rejects.textproto"), reject_entries)
    summary.append(("rejects", len(reject_entries)))

    write_readme(os.path.join(args.out, "README.md"), summary, skipped, padded_note)
    total = sum(n for f, n in summary if f != "rejects")
    print(f"padded_shared probe: {padded_note}")
    print(f"wrote {total} cases (+{len(reject_entries)} reject cases) to {args.out}")
    for fam, n in summary:
        print(f"  {fam:22s} {n}")
    print(f"skipped {len(skipped)}:")
    for fam, name, why in skipped:
        print(f"  [{fam}] {name}: {why}")
    if args.dump_json:
        with open(args.dump_json, "w") as fh:
            json.dump({"cases": [{"family": fam, "name": j["name"], "desc": j["desc"],
                                  "shape": j["shape"], "res": res}
                                 for fam in order for j, res in fams.get(fam, [])],
                       "skipped": skipped}, fh, indent=1)


if __name__ == "__main__":
    main()
