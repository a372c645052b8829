#!/usr/bin/env python3
"""Regenerates the Triton 3.6 convert_layout samples in this folder.

Each sample is a round-trip kernel `kernel(in, out, iters)` that loads a 2-D tensor in
layout `src`, converts src -> dst -> src `iters` times and stores it: with iters = 1 the
output equals the input. Compiled for sm_90 without a GPU:

    python3 gen_samples.py    # writes NAME.ttgir, NAME.ptx, NAME.textproto
"""
import os
import triton
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))

SAMPLES = {
    # Lane/register transposition; with 4 warps it crosses warps, so Triton 3.6 takes the
    # shared-memory path with 8-byte .v4.b16 / .v2.b32 accesses (name kept for history).
    "shuffle_f16": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>",
        shape=(64, 16), dtype="f16", warps=4),
    # The same pair on 1 warp: the warp-shuffle path (Triton lit test, §5.6).
    "shuffle_i32": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>",
        shape=(16, 16), dtype="i32", warps=1),
    # Cross-warp transposition: shared-memory path with vectorised ld/st.shared.
    "smem_f32": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]}>",
        shape=(32, 32), dtype="f32", warps=4),
    # mma <-> blocked in f16 on sm_90: ldmatrix / stmatrix.
    "mma_f16": dict(
        src="#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        shape=(64, 64), dtype="f16", warps=4),
    "mma3_dot_f16": dict(
        src="#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        dst="#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>, kWidth = 2}>",
        shape=(64, 64), dtype="f16", warps=4),
    # 8-bit elements: prmt packing on the shuffle path and sub-word smem accesses.
    "shuffle_i8": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>",
        shape=(16, 16), dtype="i8", warps=1),
    "smem_i8": dict(
        src="#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        shape=(64, 64), dtype="i8", warps=4),
    # 64-bit elements: split into halves for shuffles, .b64 shared accesses.
    "shuffle_f64": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>",
        shape=(16, 16), dtype="f64", warps=1),
    "smem_i64": dict(
        src="#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
        dst="#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]}>",
        shape=(32, 32), dtype="i64", warps=4),
    # dot operand B from a row-major blocked layout: transposed ldmatrix/stmatrix.
    "dot_b_trans_f16": dict(
        src="#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        dst="#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 2}>",
        shape=(64, 64), dtype="f16", warps=4),
    "mma_trans_f16": dict(
        src="#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
        dst="#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>",
        shape=(64, 64), dtype="f16", warps=4),
    # bf16 through mma v3
    "mma3_bf16": dict(
        src="#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>",
        dst="#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>",
        shape=(64, 64), dtype="bf16", warps=4),
}

BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f64": 8}


def ttgir(s):
    m, n = s["shape"]
    t = s["dtype"]
    w = s["warps"]
    T = f"tensor<{m}x{n}x{t}, #src>"
    TI = lambda shape: f"tensor<{shape}xi32, #src>"
    return f"""#src = {s['src']}
#dst = {s['dst']}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {w} : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @kernel(%in: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}, %out: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}, %iters: i32) {{
    %r0 = tt.make_range {{end = {m} : i32, start = 0 : i32}} : tensor<{m}xi32, #ttg.slice<{{dim = 1, parent = #src}}>>
    %r1 = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #ttg.slice<{{dim = 0, parent = #src}}>>
    %e0 = tt.expand_dims %r0 {{axis = 1 : i32}} : tensor<{m}xi32, #ttg.slice<{{dim = 1, parent = #src}}>> -> {TI(f"{m}x1")}
    %e1 = tt.expand_dims %r1 {{axis = 0 : i32}} : tensor<{n}xi32, #ttg.slice<{{dim = 0, parent = #src}}>> -> {TI(f"1x{n}")}
    %cn = arith.constant dense<{n}> : {TI(f"{m}x1")}
    %rows = arith.muli %e0, %cn : {TI(f"{m}x1")}
    %rb = tt.broadcast %rows : {TI(f"{m}x1")} -> {TI(f"{m}x{n}")}
    %cb = tt.broadcast %e1 : {TI(f"1x{n}")} -> {TI(f"{m}x{n}")}
    %off = arith.addi %rb, %cb : {TI(f"{m}x{n}")}
    %pin = tt.splat %in : !tt.ptr<{t}> -> tensor<{m}x{n}x!tt.ptr<{t}>, #src>
    %pi = tt.addptr %pin, %off : tensor<{m}x{n}x!tt.ptr<{t}>, #src>, {TI(f"{m}x{n}")}
    %v = tt.load %pi : tensor<{m}x{n}x!tt.ptr<{t}>, #src>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %res = scf.for %i = %c0 to %iters step %c1 iter_args(%acc = %v) -> ({T}) : i32 {{
      %d = ttg.convert_layout %acc : {T} -> tensor<{m}x{n}x{t}, #dst>
      %s = ttg.convert_layout %d : tensor<{m}x{n}x{t}, #dst> -> {T}
      scf.yield %s : {T}
    }}
    %pon = tt.splat %out : !tt.ptr<{t}> -> tensor<{m}x{n}x!tt.ptr<{t}>, #src>
    %po = tt.addptr %pon, %off : tensor<{m}x{n}x!tt.ptr<{t}>, #src>, {TI(f"{m}x{n}")}
    tt.store %po, %res : tensor<{m}x{n}x!tt.ptr<{t}>, #src>
    tt.return
  }}
}}
"""


def launch(name, s, k):
    m, n = s["shape"]
    size = m * n * BYTES[s["dtype"]]
    smem = k.metadata.shared
    return f"""# proto-file: proto/launch.proto
# proto-message: warpcheck.LaunchSpec
# Triton 3.6.0 convert_layout round trip ({s['dtype']} {m}x{n}, {s['warps']} warps), generated by gen_samples.py.
ptx_file: "{name}.ptx"
kernel: "kernel"
source: "triton 3.6.0 roundtrip {s['src']} -> {s['dst']}"
grid {{ x: 1 }}
block {{ x: {32 * s['warps']} }}
dynamic_shared_bytes: {smem}
param {{ buffer {{ name: "in" size_bytes: {size} fill: RANDOM seed: 7 }} }}
param {{ buffer {{ name: "out" size_bytes: {size} fill: POISON }} }}
param {{ u32: 1 }}
param {{ null_ptr {{}} }}
param {{ null_ptr {{}} }}
expect {{ buffers_equal {{ a: "in" b: "out" }} }}
"""


def main():
    for name, s in SAMPLES.items():
        path = os.path.join(HERE, name + ".ttgir")
        with open(path, "w") as f:
            f.write(ttgir(s))
        k = triton.compile(path, target=GPUTarget("cuda", 90, 32))
        with open(os.path.join(HERE, name + ".ptx"), "w") as f:
            f.write(k.asm["ptx"])
        with open(os.path.join(HERE, name + ".textproto"), "w") as f:
            f.write(launch(name, s, k))
        print(name, "shared", k.metadata.shared)


if __name__ == "__main__":
    main()
