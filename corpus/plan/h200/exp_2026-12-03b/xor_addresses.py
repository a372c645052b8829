# Experiment: keep one hoisted shared address per class of addresses that differ by a
# constant XOR over every thread; in the loop, form the others with one xor each. Needs the
# shared buffer aligned past the constants' bits (.align).
import re, sys
src = open(sys.argv[1]).read().split('\n')
nthreads = int(re.search(r'\.reqntid (\d+)', '\n'.join(src)).group(1))
loop = src.index('$L_loop:')
done = next(i for i, l in enumerate(src) if l.startswith('$L_done'))
def evaluate(tid):
    R = {'%r0': tid, '%r1': 0}
    for i in range(0, loop):
        l = src[i].strip().rstrip(';')
        m = re.match(r'(\S+)\s+(.*)', l)
        if not m: continue
        op, args = m.group(1), [a.strip() for a in m.group(2).split(',')]
        def v(a):
            if a.startswith('%'): return R.get(a)
            try: return int(a)
            except: return None
        d = args[0]
        try:
            if op == 'add.u32' and d == '%r2': R[d] = v(args[1]) + v(args[2]); continue
            if op == 'bfe.u32': R[d] = (v(args[1]) >> v(args[2])) & ((1 << v(args[3])) - 1)
            elif op == 'neg.s32': R[d] = (-v(args[1])) & 0xffffffff
            elif op == 'and.b32': R[d] = v(args[1]) & v(args[2])
            elif op == 'xor.b32': R[d] = v(args[1]) ^ v(args[2])
            elif op == 'shl.b32': R[d] = (v(args[1]) << v(args[2])) & 0xffffffff
            elif op == 'shr.u32': R[d] = v(args[1]) >> v(args[2])
            elif op == 'mad.lo.u32': R[d] = (v(args[1]) * v(args[2]) + v(args[3])) & 0xffffffff
            elif op == 'mov.u32' and d != '%r1' and d != '%r0': R[d] = v(args[1])
        except TypeError:
            pass
    return R
vals = [evaluate(t) for t in range(nthreads)]
used = []
for j in range(loop + 1, done):
    for r in re.findall(r'\[(%r\d+)\+', src[j]):
        if r not in used: used.append(r)
ALIGN = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
reps, rep_of = [], {}
for a in used:
    for r in reps:
        k = (vals[0][a] ^ vals[0][r]) & (ALIGN - 1)
        imms = {vals[t][a] - (vals[t][r] ^ k) for t in range(nthreads)}
        if len(imms) == 1:
            rep_of[a] = (r, k, imms.pop()); break
    else:
        reps.append(a); rep_of[a] = (a, 0, 0)
align = ALIGN
nreg = int(re.search(r'\.reg \.b32 %r<(\d+)>', '\n'.join(src)).group(1))
out = []
for i, l in enumerate(src):
    if l.startswith('.shared .align'):
        l = re.sub(r'\.align \d+', f'.align {align}', l)
    if loop < i < done:
        for a, imm0 in re.findall(r'\[(%r\d+)\+(-?\d+)\]', l):
            r, k, imm = rep_of[a]
            base = r
            if k:
                base = f'%r{nreg}'; nreg += 1
                out.append(f'\txor.b32 {base}, {r}, {k};')
            l = l.replace(f'[{a}+{imm0}]', f'[{base}+{int(imm0) + imm}]')
    out.append(l)
txt = '\n'.join(out)
txt = re.sub(r'\.reg \.b32 %r<\d+>', f'.reg .b32 %r<{nreg}>', txt)
open(sys.argv[2], 'w').write(txt)
print(f'{len(used)} addresses, {len(reps)} hoisted, align {align}', file=sys.stderr)
