#!/usr/bin/env python3
"""Runs launch specs on a real GPU through the CUDA driver API (ctypes only, no CUDA
toolkit or Python packages needed) and prints one JSON line per spec: the SHA-256 of
every buffer after the run (same fills as sim/machine/launch.h) and, with --dump, the
buffer contents as u32 words. A stand-in for tools/gpu until it exists; used to record
the H200 results that tests/sim/machine/machine_hw_probe_test.cc checks.

    python3 gpu_run.py [--dump] SPEC.textproto...
"""
import ctypes
import hashlib
import json
import os
import re
import struct
import sys

M64 = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def fill(buf, base_dir):
    size = int(buf.get("size_bytes", 0))
    kind = buf.get("fill", "ZERO")
    if kind == "ZERO":
        return bytearray(size)
    if kind == "POISON":
        return bytearray(b"\xa5" * size)
    if kind == "IOTA":
        eb = int(buf.get("element_bytes", 1)) or 1
        out = bytearray()
        for i in range(size // eb):
            out += (i % (1 << (8 * eb))).to_bytes(eb, "little")
        return out
    if kind == "RANDOM":
        state = int(buf.get("seed", 0))
        out = bytearray()
        while len(out) < size:
            state, v = splitmix64(state)
            out += struct.pack("<Q", v)
        return out[:size]
    if kind == "FILE":
        with open(os.path.join(base_dir, buf["path"]), "rb") as f:
            return bytearray(f.read())
    raise ValueError(kind)


def parse_spec(text):
    """Just enough text-proto for launch specs."""
    toks = [t for t in re.findall(r'"(?:[^"\\]|\\.)*"|#[^\n]*|[{}:]|[^\s{}:"#]+', text)
            if not t.startswith("#")]
    pos = 0

    def block():
        nonlocal pos
        out = []
        while pos < len(toks) and toks[pos] != "}":
            key = toks[pos]
            pos += 1
            if toks[pos] == ":":
                pos += 1
            if toks[pos] == "{":
                pos += 1
                val = block()
                pos += 1
            else:
                val = toks[pos].strip('"')
                pos += 1
            out.append((key, val))
        return out

    return block()


def get(fields, key, default=None):
    for k, v in fields:
        if k == key:
            return v
    return default


class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "ctx")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def check(self, rc, what, log=None):
        if rc != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value} {log or ''}")

    def load(self, ptx):
        mod = ctypes.c_void_p()
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 16384)
        rc = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), ctypes.c_char_p(ptx), 2, opts, vals)
        self.check(rc, "cuModuleLoadDataEx", log.value.decode(errors="replace"))
        return mod


def run(cuda, path, dump):
    base = os.path.dirname(os.path.abspath(path))
    spec = parse_spec(open(path).read())
    ptx = open(os.path.join(base, get(spec, "ptx_file"))).read().encode() + b"\0"
    mod = cuda.load(ptx)
    name = get(spec, "kernel")
    if name is None:
        name = re.search(rb"\.entry\s+(\w+)", ptx).group(1).decode()
    fn = ctypes.c_void_p()
    cuda.check(cuda.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "getfn")
    grid = get(spec, "grid", [])
    block = get(spec, "block", [])
    g = [int(get(grid, k, 1)) for k in "xyz"]
    b = [int(get(block, k, 1)) for k in "xyz"]
    dyn = int(get(spec, "dynamic_shared_bytes", 0))
    if dyn > 48 * 1024:
        cuda.check(cuda.lib.cuFuncSetAttribute(fn, 8, dyn), "max dynamic smem")
    args, keep, buffers = [], [], []
    for k, v in spec:
        if k != "param":
            continue
        kind, val = v[0]
        if kind == "buffer":
            host = fill(dict(val), base)
            dptr = ctypes.c_uint64()
            cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(dptr), max(len(host), 1)), "alloc")
            hbuf = (ctypes.c_char * len(host)).from_buffer(host) if host else None
            if host:
                cuda.check(cuda.lib.cuMemcpyHtoD_v2(dptr, hbuf, len(host)), "htod")
            buffers.append((get(val, "name"), dptr, host))
            arg = ctypes.c_uint64(dptr.value)
        elif kind == "null_ptr":
            arg = ctypes.c_uint64(0)
        elif kind in ("u32",):
            arg = ctypes.c_uint32(int(val))
        elif kind in ("s32",):
            arg = ctypes.c_int32(int(val))
        elif kind in ("u64",):
            arg = ctypes.c_uint64(int(val))
        elif kind in ("s64",):
            arg = ctypes.c_int64(int(val))
        elif kind == "f32":
            arg = ctypes.c_float(float(val))
        else:
            raise ValueError(kind)
        keep.append(arg)
        args.append(ctypes.cast(ctypes.pointer(arg), ctypes.c_void_p))
    argv = (ctypes.c_void_p * len(args))(*args)
    cuda.check(cuda.lib.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], dyn, None, argv,
                                       None), "launch")
    cuda.check(cuda.lib.cuCtxSynchronize(), "sync")
    out = {"spec": os.path.basename(path), "buffers": {}}
    for bname, dptr, host in buffers:
        if host:
            hbuf = (ctypes.c_char * len(host)).from_buffer(host)
            cuda.check(cuda.lib.cuMemcpyDtoH_v2(hbuf, dptr, len(host)), "dtoh")
        out["buffers"][bname] = hashlib.sha256(bytes(host)).hexdigest()
        if dump:
            out.setdefault("words", {})[bname] = [
                "%08x" % w for w in struct.unpack("<%dI" % (len(host) // 4), bytes(host))]
        cuda.lib.cuMemFree_v2(dptr)
    print(json.dumps(out), flush=True)


def main():
    dump = "--dump" in sys.argv
    cuda = Cuda()
    for path in [a for a in sys.argv[1:] if not a.startswith("--")]:
        try:
            run(cuda, path, dump)
        except Exception as e:  # keep going: one bad spec should not hide the others
            print(json.dumps({"spec": os.path.basename(path), "error": str(e)}), flush=True)


if __name__ == "__main__":
    main()
