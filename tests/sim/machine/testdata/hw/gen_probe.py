#!/usr/bin/env python3
"""Writes hw_probe.ptx: corner cases where the PTX manual leaves room (NaN bits, division
by zero, shifts past the width, shfl clamps, the shared window base). Lane 0 stores one
u32 per scalar case at out[k]; every lane stores each shfl case at out[256 + 32 k + lane]
as (value | predicate << 8). Run on an H200 with run_probe.py; the results are recorded
in tests/sim/machine/machine_hw_probe_test.cc."""
import os

SCALAR = [
    # (name, PTX computing %r9)
    ("cvt.rn.f16.f32 qnan", "cvt.rn.f16.f32 %h9, 0f7FC00001; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.f16.f32 -qnan", "cvt.rn.f16.f32 %h9, 0fFFC00000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.f16.f32 snan", "cvt.rn.f16.f32 %h9, 0f7F800001; cvt.u32.u16 %r9, %h9;"),
    ("cvt.f32.f16 qnan", "mov.b16 %h1, 0x7E01; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"),
    ("cvt.f32.f16 -qnan", "mov.b16 %h1, 0xFE00; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"),
    ("cvt.f32.f16 snan", "mov.b16 %h1, 0x7C01; cvt.f32.f16 %f1, %h1; mov.b32 %r9, %f1;"),
    ("cvt.rn.bf16.f32 qnan", "cvt.rn.bf16.f32 %h9, 0f7FC00001; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.bf16.f32 -snan", "cvt.rn.bf16.f32 %h9, 0fFF800001; cvt.u32.u16 %r9, %h9;"),
    ("cvt.f32.bf16 qnan", "mov.b16 %h1, 0x7FC1; cvt.f32.bf16 %f1, %h1; mov.b32 %r9, %f1;"),
    ("add.f32 qnan+1", "add.f32 %f1, 0f7FC00001, 0f3F800000; mov.b32 %r9, %f1;"),
    ("add.f32 -qnan+1", "add.f32 %f1, 0fFFC00001, 0f3F800000; mov.b32 %r9, %f1;"),
    ("add.f32 inf-inf", "add.f32 %f1, 0f7F800000, 0fFF800000; mov.b32 %r9, %f1;"),
    ("mul.f32 0*inf", "mul.f32 %f1, 0f00000000, 0f7F800000; mov.b32 %r9, %f1;"),
    ("fma.rn.f32 nan", "fma.rn.f32 %f1, 0f7FC00001, 0f3F800000, 0f3F800000; mov.b32 %r9, %f1;"),
    ("min.f32 nan,nan", "min.f32 %f1, 0f7FC00001, 0fFFC00002; mov.b32 %r9, %f1;"),
    ("min.f32 -0,+0", "min.f32 %f1, 0f00000000, 0f80000000; mov.b32 %r9, %f1;"),
    ("max.f32 -0,+0", "max.f32 %f1, 0f80000000, 0f00000000; mov.b32 %r9, %f1;"),
    ("neg.f32 qnan", "neg.f32 %f1, 0f7FC00001; mov.b32 %r9, %f1;"),
    ("abs.f32 -qnan", "abs.f32 %f1, 0fFFC00001; mov.b32 %r9, %f1;"),
    ("add.f64 nan hi", "add.f64 %fd1, 0d7FF8000000000001, 0d3FF0000000000000; mov.b64 {_, %r9}, %fd1;"),
    ("add.f64 nan lo", "add.f64 %fd1, 0d7FF8000000000001, 0d3FF0000000000000; mov.b64 {%r9, _}, %fd1;"),
    ("cvt.f64.f32 nan hi", "cvt.f64.f32 %fd1, 0f7FC00001; mov.b64 {_, %r9}, %fd1;"),
    ("cvt.rn.f32.f64 nan", "cvt.rn.f32.f64 %f1, 0d7FF8000000000001; mov.b32 %r9, %f1;"),
    ("add.ftz.f32 denorm", "add.ftz.f32 %f1, 0f00000001, 0f00000000; mov.b32 %r9, %f1;"),
    ("add.f32 denorm", "add.f32 %f1, 0f00000001, 0f00000000; mov.b32 %r9, %f1;"),
    ("div.u32 7/0", "mov.u32 %r1, 0; div.u32 %r9, 7, %r1;"),
    ("div.s32 7/0", "mov.u32 %r1, 0; div.s32 %r9, 7, %r1;"),
    ("div.s32 -7/0", "mov.u32 %r1, 0; div.s32 %r9, -7, %r1;"),
    ("rem.u32 7%0", "mov.u32 %r1, 0; rem.u32 %r9, 7, %r1;"),
    ("rem.s32 -7%0", "mov.u32 %r1, 0; rem.s32 %r9, -7, %r1;"),
    ("div.s32 min/-1", "mov.u32 %r1, 0x80000000; mov.u32 %r2, -1; div.s32 %r9, %r1, %r2;"),
    ("rem.s32 min%-1", "mov.u32 %r1, 0x80000000; mov.u32 %r2, -1; rem.s32 %r9, %r1, %r2;"),
    ("div.u64 7/0 lo", "mov.u64 %rd5, 0; div.u64 %rd6, 7, %rd5; cvt.u32.u64 %r9, %rd6;"),
    ("div.s64 -7/0 lo", "mov.u64 %rd5, 0; div.s64 %rd6, -7, %rd5; cvt.u32.u64 %r9, %rd6;"),
    ("rem.s64 -7%0 lo", "mov.u64 %rd5, 0; rem.s64 %rd6, -7, %rd5; cvt.u32.u64 %r9, %rd6;"),
    ("div.u16 7/0", "mov.u16 %h1, 0; div.u16 %h9, 7, %h1; cvt.u32.u16 %r9, %h9;"),
    ("shr.s32 by 40", "mov.u32 %r1, 0x80000000; mov.u32 %r2, 40; shr.s32 %r9, %r1, %r2;"),
    ("shl.b32 by 32", "mov.u32 %r2, 32; shl.b32 %r9, 1, %r2;"),
    ("shr.u32 by -1", "mov.u32 %r1, 0x80000000; mov.u32 %r2, -1; shr.u32 %r9, %r1, %r2;"),
    ("shl.b16 by 16", "mov.u16 %h1, 1; mov.u32 %r2, 16; shl.b16 %h9, %h1, %r2; cvt.u32.u16 %r9, %h9;"),
    ("shr.s16 by 20", "mov.u16 %h1, 0x8000; mov.u32 %r2, 20; shr.s16 %h9, %h1, %r2; cvt.u32.u16 %r9, %h9;"),
    ("shl.b64 by 64 lo", "mov.u64 %rd5, 1; mov.u32 %r2, 64; shl.b64 %rd6, %rd5, %r2; cvt.u32.u64 %r9, %rd6;"),
    ("bfe.s32 pos 40", "mov.u32 %r1, 0xABCD1234; bfe.s32 %r9, %r1, 40, 8;"),
    ("bfe.u32 hi bits", "mov.u32 %r1, 0xABCD1234; mov.u32 %r2, 0x104; mov.u32 %r3, 0x204; bfe.u32 %r9, %r1, %r2, %r3;"),
    ("bfe.s32 straddle", "mov.u32 %r1, 0xABCD1234; bfe.s32 %r9, %r1, 28, 8;"),
    ("bfe.s32 len 0", "mov.u32 %r1, 0xABCD1234; bfe.s32 %r9, %r1, 4, 0;"),
    ("bfi past msb", "mov.u32 %r1, 0xFF; bfi.b32 %r9, %r1, 0, 28, 8;"),
    ("prmt default sign", "mov.u32 %r1, 0x80FF7F01; prmt.b32 %r9, %r1, 0, 0xB08A;"),
    ("prmt f4e 3", "mov.u32 %r1, 0x33221100; prmt.b32.f4e %r9, %r1, 0x77665544, 3;"),
    ("prmt b4e 2", "mov.u32 %r1, 0x33221100; prmt.b32.b4e %r9, %r1, 0x77665544, 2;"),
    ("prmt ecl 1", "mov.u32 %r1, 0x33221100; prmt.b32.ecl %r9, %r1, 0x77665544, 1;"),
    ("prmt ecr 2", "mov.u32 %r1, 0x33221100; prmt.b32.ecr %r9, %r1, 0x77665544, 2;"),
    ("prmt rc16 1", "mov.u32 %r1, 0x33221100; prmt.b32.rc16 %r9, %r1, 0x77665544, 1;"),
    ("prmt rc8 6", "mov.u32 %r1, 0x33221100; prmt.b32.rc8 %r9, %r1, 0x77665544, 6;"),
    ("cvt.rzi.s32.f32 1e10", "cvt.rzi.s32.f32 %r9, 0f501502F9;"),
    ("cvt.rzi.s32.f32 -1e10", "cvt.rzi.s32.f32 %r9, 0fD01502F9;"),
    ("cvt.rzi.s32.f32 nan", "cvt.rzi.s32.f32 %r9, 0f7FC00000;"),
    ("cvt.rzi.u32.f32 -5", "cvt.rzi.u32.f32 %r9, 0fC0A00000;"),
    ("cvt.rni.s32.f32 2.5", "cvt.rni.s32.f32 %r9, 0f40200000;"),
    ("cvt.rn.f16.f32 65520", "cvt.rn.f16.f32 %h9, 0f477FF000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.f16.f32 2^-25", "cvt.rn.f16.f32 %h9, 0f33000000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.f16.f32 1.5*2^-25", "cvt.rn.f16.f32 %h9, 0f33400000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.bf16.f32 tie", "cvt.rn.bf16.f32 %h9, 0f3F818000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.u32.s16", "mov.u16 %h1, 0x8000; cvt.u32.s16 %r9, %h1;"),
    ("cvt.sat.s8.s32", "mov.u32 %r1, -300; cvt.sat.s8.s32 %h9, %r1; cvt.u32.u16 %r9, %h9;"),
    ("cvt.s8.s32 no sat", "mov.u32 %r1, 0x1F0; cvt.s8.s32 %h9, %r1; cvt.u32.u16 %r9, %h9;"),
    ("global_smem addr", "mov.u32 %r9, global_smem;"),
    ("static smem addr", "mov.u32 %r9, static_smem;"),
    ("cvta.shared lo", "mov.u64 %rd5, static_smem; cvta.shared.u64 %rd6, %rd5; cvt.u32.u64 %r9, %rd6;"),
    ("cvta.shared hi", "mov.u64 %rd5, static_smem; cvta.shared.u64 %rd6, %rd5; mov.b64 {_, %r9}, %rd6;"),
    ("clz.b32 0", "mov.u32 %r1, 0; clz.b32 %r9, %r1;"),
    ("mul.hi.s32", "mov.u32 %r1, -1; mul.hi.s32 %r9, %r1, 2;"),
    # Round 2: f64 NaN propagation, conversions of NaN payloads, remainders, sign
    # extension of narrow cvt results.
    ("add.f64 inf-inf hi", "add.f64 %fd1, 0d7FF0000000000000, 0dFFF0000000000000; mov.b64 {_, %r9}, %fd1;"),
    ("add.f64 inf-inf lo", "add.f64 %fd1, 0d7FF0000000000000, 0dFFF0000000000000; mov.b64 {%r9, _}, %fd1;"),
    ("add.f64 nan1+nan2 lo", "add.f64 %fd1, 0d7FF8000000000001, 0d7FF8000000000002; mov.b64 {%r9, _}, %fd1;"),
    ("add.f64 1+nan2 lo", "add.f64 %fd1, 0d3FF0000000000000, 0d7FF8000000000002; mov.b64 {%r9, _}, %fd1;"),
    ("add.f64 snan+1 hi", "add.f64 %fd1, 0d7FF0000000000001, 0d3FF0000000000000; mov.b64 {_, %r9}, %fd1;"),
    ("add.f64 snan+1 lo", "add.f64 %fd1, 0d7FF0000000000001, 0d3FF0000000000000; mov.b64 {%r9, _}, %fd1;"),
    ("add.f64 -nan+1 hi", "add.f64 %fd1, 0dFFF8000000000003, 0d3FF0000000000000; mov.b64 {_, %r9}, %fd1;"),
    ("mul.f64 0*inf hi", "mul.f64 %fd1, 0d0000000000000000, 0d7FF0000000000000; mov.b64 {_, %r9}, %fd1;"),
    ("mul.f64 0*inf lo", "mul.f64 %fd1, 0d0000000000000000, 0d7FF0000000000000; mov.b64 {%r9, _}, %fd1;"),
    ("fma.rn.f64 c nan lo", "fma.rn.f64 %fd1, 0d3FF0000000000000, 0d3FF0000000000000, 0d7FF8000000000005; mov.b64 {%r9, _}, %fd1;"),
    ("cvt.f64.f32 nan lo", "cvt.f64.f32 %fd1, 0f7FC00001; mov.b64 {%r9, _}, %fd1;"),
    ("cvt.f64.f32 snan hi", "cvt.f64.f32 %fd1, 0f7F800001; mov.b64 {_, %r9}, %fd1;"),
    ("cvt.f64.f32 snan lo", "cvt.f64.f32 %fd1, 0f7F800001; mov.b64 {%r9, _}, %fd1;"),
    ("cvt.f64.f32 -nan hi", "cvt.f64.f32 %fd1, 0fFFC00000; mov.b64 {_, %r9}, %fd1;"),
    ("cvt.rn.f32.f64 payload", "cvt.rn.f32.f64 %f1, 0d7FF8000020000000; mov.b32 %r9, %f1;"),
    ("cvt.rn.f32.f64 snan", "cvt.rn.f32.f64 %f1, 0d7FF0000020000000; mov.b32 %r9, %f1;"),
    ("cvt.rn.f32.f64 -nan", "cvt.rn.f32.f64 %f1, 0dFFF8000000000000; mov.b32 %r9, %f1;"),
    ("min.f64 nan,nan hi", "min.f64 %fd1, 0d7FF8000000000001, 0d7FF8000000000002; mov.b64 {_, %r9}, %fd1;"),
    ("min.f64 nan,nan lo", "min.f64 %fd1, 0d7FF8000000000001, 0d7FF8000000000002; mov.b64 {%r9, _}, %fd1;"),
    ("neg.f64 nan hi", "neg.f64 %fd1, 0d7FF8000000000001; mov.b64 {_, %r9}, %fd1;"),
    ("cvt.rn.f16.f64 nan", "cvt.rn.f16.f64 %h9, 0d7FF8000000000001; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rn.f16.f64 1/3", "cvt.rn.f16.f64 %h9, 0d3FD5555555555555; cvt.u32.u16 %r9, %h9;"),
    ("rem.u16 7%0", "mov.u16 %h1, 0; rem.u16 %h9, 7, %h1; cvt.u32.u16 %r9, %h9;"),
    ("rem.u64 7%0 hi", "mov.u64 %rd5, 0; rem.u64 %rd6, 7, %rd5; mov.b64 {_, %r9}, %rd6;"),
    ("cvt.s16.s32 into b32", "mov.u32 %r1, 0x18000; cvt.s16.s32 %r9, %r1;"),
    ("cvt.u8.s32 into b16", "mov.u32 %r1, -1; cvt.u8.s32 %h9, %r1; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rzi.s8.f32 -5", "cvt.rzi.s8.f32 %h9, 0fC0A00000; cvt.u32.u16 %r9, %h9;"),
    ("cvt.rzi.s16.f32 into b32", "cvt.rzi.s16.f32 %r9, 0fC0A00000;"),
    ("mov.u64 global_smem", "mov.u64 %rd5, global_smem; cvt.u32.u64 %r9, %rd5;"),
    ("add.f32 nan1+nan2", "add.f32 %f1, 0f7FC00001, 0f7FC00002; mov.b32 %r9, %f1;"),
    ("cvt.rni.f32.f32 nan", "cvt.rni.f32.f32 %f1, 0f7FC00001; mov.b32 %r9, %f1;"),
    ("cvt.f32.f32 ftz", "cvt.ftz.f32.f32 %f1, 0f00000001; mov.b32 %r9, %f1;"),
]

SHFL = []
for mode in ("up", "down", "idx", "bfly"):
    for b in (1, 3, 17):
        for c in (0x0, 0x4, 0x1F, 0x0804, 0x181F, 0x1C03, 0x1F1F):
            SHFL.append((mode, b, c))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    lines = [
        ".version 8.7", ".target sm_90a", ".address_size 64", "",
        ".shared .align 16 .b8 static_smem[48];",
        ".extern .shared .align 16 .b8 global_smem[];", "",
        ".visible .entry probe(.param .u64 out_ptr)",
        ".reqntid 32", "{",
        "  .reg .pred %p<4>;", "  .reg .b16 %h<16>;", "  .reg .b32 %r<16>;",
        "  .reg .b64 %rd<8>;", "  .reg .f32 %f<4>;", "  .reg .f64 %fd<4>;",
        "  ld.param.u64 %rd0, [out_ptr];", "  mov.u32 %r0, %tid.x;",
        "  setp.eq.u32 %p0, %r0, 0;",
    ]
    for k, (name, code) in enumerate(SCALAR):
        lines.append(f"  // {k}: {name}")
        lines.append(f"  {code}")
        lines.append(f"  @%p0 st.global.u32 [%rd0+{4 * k}], %r9;")
    lines.append("  mul.wide.u32 %rd1, %r0, 4;")
    lines.append("  add.s64 %rd1, %rd0, %rd1;")
    for k, (mode, b, c) in enumerate(SHFL):
        off = 4 * (256 + 32 * k)
        lines.append(f"  // shfl {k}: {mode} b={b} c=0x{c:x}")
        lines.append(f"  shfl.sync.{mode}.b32 %r5|%p1, %r0, {b}, {c}, -1;")
        lines.append("  selp.u32 %r6, 256, 0, %p1;")
        lines.append("  or.b32 %r5, %r5, %r6;")
        lines.append(f"  st.global.u32 [%rd1+{off}], %r5;")
    lines += ["  ret;", "}", ""]
    with open(os.path.join(here, "hw_probe.ptx"), "w") as f:
        f.write("\n".join(lines))
    n = 256 + 32 * len(SHFL)
    with open(os.path.join(here, "hw_probe.textproto"), "w") as f:
        f.write(f"""# proto-file: proto/launch.proto
# proto-message: warpcheck.LaunchSpec
# Hardware probe (gen_probe.py): corner cases checked on an H200.
ptx_file: "hw_probe.ptx"
grid {{ x: 1 }}
block {{ x: 32 }}
dynamic_shared_bytes: 64
param {{ buffer {{ name: "out" size_bytes: {4 * n} fill: ZERO }} }}
""")
    with open(os.path.join(here, "cases.txt"), "w") as f:
        for k, (name, _) in enumerate(SCALAR):
            f.write(f"{k}\t{name}\n")
        for k, (mode, b, c) in enumerate(SHFL):
            f.write(f"shfl{k}\t{mode} b={b} c=0x{c:x}\n")
    print(len(SCALAR), "scalar cases,", len(SHFL), "shfl cases")


if __name__ == "__main__":
    main()


# Bank-model probes: one warp, one shared-memory request pattern per kernel, for
# comparing the simulator's wavefront counts with Nsight Compute on an H200.
BANK = {
    # name: (address of lane %r0 into %r2 (bytes), load instruction)
    "bank_4b_linear": ("shl.b32 %r2, %r0, 2;", "ld.shared.u32 %r5, [%r1];", 1),
    "bank_4b_stride8": ("shl.b32 %r2, %r0, 3;", "ld.shared.u32 %r5, [%r1];", 1),
    "bank_4b_stride128": ("shl.b32 %r2, %r0, 7;", "ld.shared.u32 %r5, [%r1];", 1),
    "bank_4b_broadcast": ("mov.u32 %r2, 64;", "ld.shared.u32 %r5, [%r1];", 1),
    "bank_8b_stride16": ("shl.b32 %r2, %r0, 4;", "ld.shared.v2.u32 {%r5, %r6}, [%r1];", 2),
    "bank_16b_linear": ("shl.b32 %r2, %r0, 4;", "ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r1];", 4),
    "bank_16b_stride32": ("shl.b32 %r2, %r0, 5;", "ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r1];", 4),
    "bank_ldmatrix_stride128": ("shl.b32 %r2, %r0, 7;",
                                "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [%r1];", 4),
    "bank_ldmatrix_swizzled": ("shl.b32 %r2, %r0, 7; and.b32 %r3, %r0, 7; shl.b32 %r3, %r3, 4; "
                               "add.u32 %r2, %r2, %r3;",
                               "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [%r1];", 4),
}


def write_bank_probes(here):
    for name, (addr, load, n) in BANK.items():
        regs = ", ".join(f"%r{5 + i}" for i in range(n))
        ptx = "\n".join([
            ".version 8.7", ".target sm_90a", ".address_size 64", "",
            ".shared .align 16 .b8 smem[8192];", "",
            ".visible .entry probe(.param .u64 out_ptr)", ".reqntid 32", "{",
            "  .reg .b32 %r<16>;", "  .reg .b64 %rd<4>;",
            "  ld.param.u64 %rd0, [out_ptr];", "  mov.u32 %r0, %tid.x;",
            "  mov.u32 %r1, smem;", f"  {addr}", "  add.u32 %r1, %r1, %r2;",
            f"  {load}",
            "  mul.wide.u32 %rd1, %r0, 16;", "  add.s64 %rd1, %rd0, %rd1;",
            f"  st.global.v4.u32 [%rd1], {{{regs}{', 0' * (4 - n)}}};" if n < 4
            else f"  st.global.v4.u32 [%rd1], {{{regs}}};",
            "  ret;", "}", ""])
        with open(os.path.join(here, name + ".ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(here, name + ".textproto"), "w") as f:
            f.write(f"""# proto-file: proto/launch.proto
# proto-message: warpcheck.LaunchSpec
# Bank-model probe (gen_probe.py): one shared-memory request, {name}.
ptx_file: "{name}.ptx"
grid {{ x: 1 }}
block {{ x: 32 }}
param {{ buffer {{ name: "out" size_bytes: 512 fill: ZERO }} }}
""")


write_bank_probes(os.path.dirname(os.path.abspath(__file__)))
