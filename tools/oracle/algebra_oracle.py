#!/usr/bin/env python3
"""Records Triton 3.6.0's LinearLayout algebra as golden vectors for warpcheck.

Triton's C++ LinearLayout is reachable from Python through
`triton._C.libtriton.linear_layout.LinearLayout`. In Triton 3.6.0 that binding exposes
from_bases, identity_1d, zeros_1d, strided_1d, `*`, `==`, compose, invert_and_compose,
invert, pseudoinvert, apply, is_surjective, is_injective, is_invertible, bases,
out_dims and get_matrix_view. It does NOT expose getFreeVariableMasks,
divideLeft/divideRight, reshapeIns/reshapeOuts, transposeIns/transposeOuts,
sublayout, concat*, quotient, removeZeroBasesAlongDim or getNumConsecutiveInOut;
warpcheck tests those against the spec's examples and algebraic laws instead.

This script draws random small layouts from a fixed seed, runs each operation in a
forked child (Triton aborts the whole process on a failed assertion, so a crash is
recorded as "the operation fails"), and writes one vector per line:

    op <TAB> arg1 <TAB> arg2 <TAB> expected

Layouts are written in warpcheck's canonical notation
(`{register: [[0, 1]], lane: []} -> {dim0: 2}`). See the header of the generated file
for the meaning of each op. Regenerate with:

    python3 tools/oracle/algebra_oracle.py > tests/sim/layout/testdata/algebra_golden.txt
"""

import os
import pickle
import random
import sys

import triton
from triton._C.libtriton import linear_layout as tl

LL = tl.LinearLayout
SEED = 20260514


# ---- Formatting --------------------------------------------------------------------------

def fmt(bases, out_dims):
    """Canonical text of a layout given as ([(name, [[..]..])..], [(name, size)..])."""
    ins = ", ".join(
        "%s: [%s]" % (name, ", ".join("[%s]" % ", ".join(str(v) for v in b) for b in bs))
        for name, bs in bases)
    outs = ", ".join("%s: %d" % (name, size) for name, size in out_dims)
    return "{%s} -> {%s}" % (ins, outs)


def fmt_triton(layout):
    return fmt(layout.bases, layout.out_dims)


class Layout:
    """A plain-Python layout: ordered in-dims with bases, ordered out-dims with sizes."""

    def __init__(self, bases, out_dims):
        self.bases = [(n, [list(b) for b in bs]) for n, bs in bases]
        self.out_dims = list(out_dims)

    def text(self):
        return fmt(self.bases, self.out_dims)

    def to_triton(self):
        return LL.from_bases([(n, bs) for n, bs in self.bases],
                             [n for n, _ in self.out_dims],
                             [s for _, s in self.out_dims], False)

    def in_names(self):
        return [n for n, _ in self.bases]

    def out_names(self):
        return [n for n, _ in self.out_dims]

    def in_bits(self):
        return sum(len(bs) for _, bs in self.bases)

    def out_size(self, name):
        return dict(self.out_dims)[name]

    def columns(self):
        """Every basis, flattened over in-dims, as an integer over the out bits."""
        cols = []
        for _, bs in self.bases:
            for b in bs:
                flat, shift = 0, 0
                for (name, size), v in zip(self.out_dims, b):
                    flat |= v << shift
                    shift += size.bit_length() - 1
                cols.append(flat)
        return cols

    def rank(self):
        return f2_rank(self.columns())

    def out_bits(self):
        return sum(s.bit_length() - 1 for _, s in self.out_dims)

    def surjective(self):
        return self.rank() == self.out_bits()

    def apply_flat_in(self, x):
        """Output tuple (in out-dim order) for a flat input x."""
        out = [0] * len(self.out_dims)
        bit = 0
        for _, bs in self.bases:
            for b in bs:
                if (x >> bit) & 1:
                    out = [o ^ v for o, v in zip(out, b)]
                bit += 1
        return out


def f2_rank(vectors):
    basis = []  # reduced vectors with distinct leading bits
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


# ---- Running Triton safely ---------------------------------------------------------------

def guarded(fn):
    """Runs fn() in a forked child; returns its (picklable) result or None if it died."""
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            # Silence Triton's assertion text in the child.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            payload = pickle.dumps(("ok", fn()))
        except Exception as e:  # pylint: disable=broad-except
            payload = pickle.dumps(("exc", str(e)))
        with os.fdopen(w, "wb") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    kind, value = pickle.loads(data)
    return value if kind == "ok" else None


# ---- Random layouts ----------------------------------------------------------------------

def rand_layout(rng, ins, outs, zero_prob=0.15):
    """ins: [(name, log2)], outs: [(name, size)]; entries uniform below each size."""
    bases = []
    for name, k in ins:
        bs = []
        for _ in range(k):
            if rng.random() < zero_prob:
                bs.append([0] * len(outs))
            else:
                bs.append([rng.randrange(size) for _, size in outs])
        bases.append((name, bs))
    return Layout(bases, outs)


def rand_perm_layout(rng, ins, outs):
    """A bijective layout: out bits permuted onto in bits (plus random lower mixing)."""
    total_out = sum(s.bit_length() - 1 for _, s in outs)
    total_in = sum(k for _, k in ins)
    assert total_in == total_out
    # Start from a random invertible matrix: random permutation of unit vectors, then
    # XOR random earlier columns in.
    units = list(range(total_out))
    rng.shuffle(units)
    cols = []
    for i, u in enumerate(units):
        v = 1 << u
        if rng.random() < 0.4 and cols:
            v ^= rng.choice(cols)
        cols.append(v)
    return layout_from_columns(ins, outs, cols)


def layout_from_columns(ins, outs, cols):
    bases, it = [], iter(cols)
    for name, k in ins:
        bs = []
        for _ in range(k):
            flat = next(it)
            b = []
            for _, size in outs:
                b.append(flat % size)
                flat //= size
            bs.append(b)
        bases.append((name, bs))
    return Layout(bases, outs)


def rand_surjective(rng, ins, outs, tries=200):
    for _ in range(tries):
        l = rand_layout(rng, ins, outs)
        if l.surjective():
            return l
    raise RuntimeError("no surjective layout found for %r %r" % (ins, outs))


def image_layout(rng, b_layout, ins, a_outs):
    """A layout with in-dims `ins` whose every basis lies in the image of b_layout and fits
    below the sizes a_outs (same out-dim names, possibly another order)."""
    order = [b_layout.out_names().index(n) for n, _ in a_outs]
    limits = [s for _, s in a_outs]
    n_in = b_layout.in_bits()
    bases = []
    for name, k in ins:
        bs = []
        for _ in range(k):
            choice = [0] * len(a_outs)
            for _ in range(50):
                y = b_layout.apply_flat_in(rng.randrange(1 << n_in))
                cand = [y[i] for i in order]
                if all(v < lim for v, lim in zip(cand, limits)):
                    choice = cand
                    if any(cand):
                        break
            bs.append(choice)
        bases.append((name, bs))
    return Layout(bases, a_outs)


# ---- Vector emitters ---------------------------------------------------------------------

class Out:
    def __init__(self):
        self.lines = []
        self.counts = {}

    def emit(self, op, arg1, arg2, expected):
        for field in (arg1, arg2, expected):
            assert "\t" not in field and "\n" not in field
        self.lines.append("\t".join([op, arg1, arg2, expected]))
        self.counts[op] = self.counts.get(op, 0) + 1


def do_product(out, a, b):
    r = guarded(lambda: fmt_triton(a.to_triton() * b.to_triton()))
    if r is not None:
        out.emit("product", a.text(), b.text(), r)


def do_compose(out, a, b):
    r = guarded(lambda: fmt_triton(a.to_triton().compose(b.to_triton())))
    if r is not None:
        out.emit("compose", a.text(), b.text(), r)


def do_iac(out, a, b):
    """a.invertAndCompose(b): the result C with a(x) == b(C(x))."""
    r = guarded(lambda: fmt_triton(a.to_triton().invert_and_compose(b.to_triton())))
    if r is None:
        out.emit("invert_and_compose_fails", a.text(), b.text(), "")
    else:
        out.emit("invert_and_compose", a.text(), b.text(), r)


def do_pinv(out, a):
    r = guarded(lambda: fmt_triton(a.to_triton().pseudoinvert()))
    if r is None:
        out.emit("pseudoinvert_fails", a.text(), "", "")
    else:
        out.emit("pseudoinvert", a.text(), "", r)


def do_invert(out, a):
    r = guarded(lambda: fmt_triton(a.to_triton().invert()))
    if r is not None:
        out.emit("invert", a.text(), "", r)


def do_props(out, a):
    def props():
        t = a.to_triton()
        return "surjective=%d injective=%d invertible=%d" % (
            t.is_surjective(), t.is_injective(), t.is_invertible())
    r = guarded(props)
    if r is not None:
        out.emit("props", a.text(), "", r)


def do_apply(out, rng, a):
    ins = [(n, rng.randrange(1 << len(bs)) if bs else 0) for n, bs in a.bases]
    def run():
        res = a.to_triton().apply(dict(ins))
        return ", ".join("%s=%d" % (n, res[n]) for n in a.out_names())
    r = guarded(run)
    if r is not None:
        out.emit("apply", a.text(), ", ".join("%s=%d" % p for p in ins), r)


def do_infer(out, a):
    """Out-size inference: Triton's constructor that takes only out-dim names. arg1 is
    the bases with placeholder sizes; only the names and bases are inputs."""
    placeholder = Layout(a.bases, [(n, 1 << 30) for n in a.out_names()])
    r = guarded(lambda: fmt_triton(LL.from_bases(a.bases, a.out_names())))
    if r is None:
        out.emit("infer_sizes_fails", placeholder.text(), "", "")
    else:
        out.emit("infer_sizes", placeholder.text(), "", r)


def do_ctor(out, kind, size, arg, in_dim, out_dim):
    if kind == "identity_1d":
        r = guarded(lambda: fmt_triton(LL.identity_1d(size, in_dim, out_dim)))
        args = "%d %s %s" % (size, in_dim, out_dim)
    elif kind == "zeros_1d":
        r = guarded(lambda: fmt_triton(LL.zeros_1d(size, in_dim, out_dim, arg)))
        args = "%d %s %s %d" % (size, in_dim, out_dim, arg)
    else:
        r = guarded(lambda: fmt_triton(LL.strided_1d(size, arg, in_dim, out_dim)))
        args = "%d %d %s %s" % (size, arg, in_dim, out_dim)
    if r is not None:
        out.emit(kind, args, "", r)


# ---- The suite ---------------------------------------------------------------------------

DIST = ["register", "lane", "warp", "block"]


def rand_outs(rng, names, max_log2=3):
    return [(n, 1 << rng.randint(0, max_log2)) for n in names]


def rand_ins(rng, names, max_log2=3):
    return [(n, rng.randint(0, max_log2)) for n in names]


def shuffled(rng, xs):
    xs = list(xs)
    rng.shuffle(xs)
    return xs


def main():
    rng = random.Random(SEED)
    out = Out()

    # Constructors.
    for size in (0, 1, 2, 8, 32):
        do_ctor(out, "identity_1d", size, 0, "lane", "dim1")
    for size, osz in ((0, 1), (1, 1), (4, 1), (4, 8), (2, 2)):
        do_ctor(out, "zeros_1d", size, osz, "warp", "dim0")
    for size, stride in ((1, 4), (4, 1), (4, 2), (8, 4)):
        do_ctor(out, "strided_1d", size, stride, "offset", "dim0")

    # Out-size inference (constructor with only out-dim names).
    for _ in range(12):
        outs = [("dim0", 1 << rng.randint(0, 4)), ("dim1", 1 << rng.randint(0, 4))]
        l = rand_layout(rng, rand_ins(rng, ["register", "lane"], 3), outs)
        do_infer(out, l)

    # Products: shared and disjoint dims, consistent and inconsistent orders.
    for i in range(36):
        in_pool = ["register", "lane", "warp", "offset"]
        out_pool = ["dim0", "dim1", "dim2"]
        a_in = shuffled(rng, rng.sample(in_pool, rng.randint(0, 3)))
        b_in = shuffled(rng, rng.sample(in_pool, rng.randint(0, 3)))
        a_out = shuffled(rng, rng.sample(out_pool, rng.randint(0, 3)))
        b_out = shuffled(rng, rng.sample(out_pool, rng.randint(0, 3)))
        a = rand_layout(rng, rand_ins(rng, a_in, 2), rand_outs(rng, a_out, 2))
        b = rand_layout(rng, rand_ins(rng, b_in, 2), rand_outs(rng, b_out, 2))
        do_product(out, a, b)

    # Compose: a's out-dims are b's in-dims (any order), a size <= b in size.
    for i in range(30):
        mids = ["dim0", "dim1"] if rng.random() < 0.7 else ["dim0", "dim1", "dim2"]
        b_ins = [(n, rng.randint(0, 3)) for n in shuffled(rng, mids)]
        a_outs = [(n, 1 << rng.randint(0, k)) for n, k in shuffled(rng, b_ins)]
        a = rand_layout(rng, rand_ins(rng, ["register", "lane"], 3), a_outs)
        b_outs = rand_outs(rng, ["offset", "bank"][: rng.randint(1, 2)], 3)
        b = rand_layout(rng, b_ins, b_outs)
        do_compose(out, a, b)

    # invertAndCompose, many shapes of the problem.
    # (a) Surjective B, random A over the same out-dims (maybe other order, smaller).
    for i in range(40):
        outs = rand_outs(rng, ["dim0", "dim1"], 3)
        b_ins = rand_ins(rng, ["register", "lane", "warp"], 3)
        need = sum(s.bit_length() - 1 for _, s in outs)
        if sum(k for _, k in b_ins) < need:
            b_ins[0] = (b_ins[0][0], b_ins[0][1] + need - sum(k for _, k in b_ins))
        b = rand_surjective(rng, b_ins, outs)
        a_outs = [(n, s if rng.random() < 0.7 else max(1, s >> rng.randint(1, 2)))
                  for n, s in shuffled(rng, outs)]
        a_in_names = ["register", "lane", "warp"] if rng.random() < 0.6 else ["offset"]
        a = rand_layout(rng, rand_ins(rng, a_in_names, 3), a_outs)
        do_iac(out, a, b)
    # (b) Non-surjective B (explicit larger out sizes or dependent bases): A from Im(B).
    for i in range(30):
        outs = rand_outs(rng, ["dim0", "dim1"], 3)
        b = rand_layout(rng, rand_ins(rng, ["register", "lane"], 2), outs, zero_prob=0.3)
        a_outs = [(n, s if rng.random() < 0.8 else max(1, s >> 1))
                  for n, s in shuffled(rng, outs)]
        a_ins = rand_ins(rng, ["offset", "iteration"] if rng.random() < 0.5
                         else ["register", "lane"], 3)
        a = image_layout(rng, b, a_ins, a_outs)
        do_iac(out, a, b)
    # (c) Distributed layouts sharing identical dims (identity-dim heuristic), with
    #     broadcast warps/blocks and non-injective B.
    for i in range(40):
        outs = [("dim0", 1 << rng.randint(1, 3)), ("dim1", 1 << rng.randint(1, 3))]
        shared = {}
        for d in ["warp", "block"]:
            k = rng.randint(0, 2)
            kind = rng.random()
            if kind < 0.4:
                shared[d] = [[0, 0] for _ in range(k)]
            else:
                shared[d] = [[rng.randrange(s) for _, s in outs] for _ in range(k)]
        def dist_layout(same_dims):
            bases = []
            for d in DIST:
                if d in same_dims:
                    bases.append((d, shared[d]))
                else:
                    k = rng.randint(0, 3)
                    bases.append((d, [[rng.randrange(s) for _, s in outs] for _ in range(k)]))
            return Layout(bases, outs)
        same = [d for d in ["warp", "block"] if rng.random() < 0.8]
        b = dist_layout(same)
        if not b.surjective():
            # Make B surjective by appending identity-ish register bases.
            extra = []
            for j, (n, s) in enumerate(outs):
                v = 1
                while v < s:
                    e = [0, 0]
                    e[j] = v
                    extra.append(e)
                    v <<= 1
            b.bases[0] = ("register", b.bases[0][1] + extra)
        if rng.random() < 0.5:
            a = image_layout(rng, b, [("register", rng.randint(0, 3)),
                                      ("lane", rng.randint(0, 3))], outs)
            a.bases += [(d, [list(v) for v in shared[d]]) if d in same
                        else (d, image_layout(rng, b, [(d, rng.randint(0, 2))], outs).bases[0][1])
                        for d in ["warp", "block"]]
        else:
            a = dist_layout(same)
        do_iac(out, a, b)
    # (d) Identical layouts, permuted in-dim orders, and the reverse direction.
    for i in range(12):
        outs = rand_outs(rng, ["dim0", "dim1"], 2)
        ins = rand_ins(rng, DIST, 2)
        b = rand_surjective(rng, ins, outs) if sum(k for _, k in ins) >= sum(
            s.bit_length() - 1 for _, s in outs) else rand_layout(rng, ins, outs)
        do_iac(out, b, b)
        a = Layout([(n, bs) for n, bs in shuffled(rng, b.bases)], b.out_dims)
        do_iac(out, a, b)
    # (e) Bijective pairs (register <-> offset style conversions).
    for i in range(14):
        outs = [("dim0", 1 << rng.randint(0, 3)), ("dim1", 1 << rng.randint(0, 3))]
        total = sum(s.bit_length() - 1 for _, s in outs)
        split = rng.randint(0, total)
        b = rand_perm_layout(rng, [("register", split), ("lane", total - split)], outs)
        a = rand_perm_layout(rng, [("offset", total)], list(reversed(outs)))
        do_iac(out, a, b)
        do_iac(out, b, a)
    # (g) Larger: three out-dims up to 16, four distributed in-dims, B surjective; A
    #     either another distributed layout or a shared-memory "offset" layout.
    for i in range(30):
        outs = rand_outs(rng, ["dim0", "dim1", "dim2"], 4)
        need = sum(s.bit_length() - 1 for _, s in outs)
        b_ins = [(d, rng.randint(0, 3)) for d in DIST]
        short = need - sum(k for _, k in b_ins)
        if short > 0:
            b_ins[0] = ("register", b_ins[0][1] + short)
        b = rand_surjective(rng, b_ins, outs)
        if rng.random() < 0.5:
            a = rand_layout(rng, [("offset", need)], outs, zero_prob=0.05)
        else:
            a = rand_layout(rng, [(d, rng.randint(0, 3)) for d in DIST],
                            shuffled(rng, outs), zero_prob=0.3)
        do_iac(out, a, b)
    # (f) Cases Triton rejects: image not contained, sizes too large, one-sided split.
    do_iac(out, Layout([("lane", [[2]])], [("dim0", 8)]),
           Layout([("register", [[1], [4]])], [("dim0", 8)]))
    do_iac(out, Layout([("r", [[1], [2]])], [("o", 4)]),
           Layout([("r", [[1], [2]]), ("l", [[0]])], [("o", 4)]))
    do_iac(out, Layout([("r", [[1], [2]]), ("l", [[0]])], [("o", 4)]),
           Layout([("r", [[1], [2]])], [("o", 4)]))
    do_iac(out, Layout([("x", [[1], [2], [4]])], [("o", 8)]),
           Layout([("y", [[1], [2]])], [("o", 4)]))

    # Pseudoinvert and invert.
    for i in range(24):
        outs = rand_outs(rng, ["dim0", "dim1"], 2)
        ins = rand_ins(rng, ["register", "lane"], 3)
        need = sum(s.bit_length() - 1 for _, s in outs)
        if sum(k for _, k in ins) < need:
            ins[0] = (ins[0][0], ins[0][1] + need - sum(k for _, k in ins))
        do_pinv(out, rand_surjective(rng, ins, outs))
    do_pinv(out, Layout([("o", [[1], [2]]), ("r", [[0]])], [("o", 4)]))
    do_pinv(out, Layout([("o", [[2], [1]]), ("r", [[1]])], [("o", 4)]))
    do_pinv(out, Layout([("dim0", [[1], [2]]), ("dim1", [[0, 1]][:0])],
                        [("dim0", 4)]))
    for i in range(14):
        outs = [("dim0", 1 << rng.randint(0, 3)), ("dim1", 1 << rng.randint(0, 2))]
        total = sum(s.bit_length() - 1 for _, s in outs)
        split = rng.randint(0, total)
        l = rand_perm_layout(rng, [("register", split), ("lane", total - split)], outs)
        do_invert(out, l)

    # Properties and apply.
    for i in range(30):
        outs = rand_outs(rng, ["dim0", "dim1"], 2)
        l = rand_layout(rng, rand_ins(rng, ["register", "lane", "warp"], 2), outs)
        do_props(out, l)
        if i % 2 == 0:
            do_apply(out, rng, l)

    print("# Golden vectors for warpcheck's LinearLayout algebra, recorded from "
          "triton %s" % triton.__version__)
    print("# (triton._C.libtriton.linear_layout.LinearLayout, the C++ LinearLayout).")
    print("# Regenerate: python3 tools/oracle/algebra_oracle.py > "
          "tests/sim/layout/testdata/algebra_golden.txt")
    print("# Format: op<TAB>arg1<TAB>arg2<TAB>expected; layouts in canonical notation.")
    print("#   product A B => A*B; compose A B => A.compose(B) (B after A);")
    print("#   invert_and_compose A B => C with A(x) == B(C(x)) (A.invertAndCompose(B));")
    print("#   invert_and_compose_fails A B: Triton aborts (assertion) on this input;")
    print("#   pseudoinvert A / pseudoinvert_fails A; invert A;")
    print("#   props A => surjective/injective/invertible flags;")
    print("#   apply A inputs => outputs; infer_sizes A => layout built from A's bases")
    print("#   and out-dim names only (A's sizes are placeholders);")
    print("#   identity_1d 'size in out', zeros_1d 'size in out outSize',")
    print("#   strided_1d 'size stride in out' => the constructed layout.")
    print("# Counts: %s" % ", ".join("%s=%d" % kv for kv in sorted(out.counts.items())))
    for line in out.lines:
        print(line)


if __name__ == "__main__":
    main()
