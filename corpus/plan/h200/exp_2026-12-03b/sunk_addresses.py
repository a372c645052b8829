# Experiment: move each setup block that ends in `mad.lo.u32 %rA, ...` (a shared address)
# into the loop, just before the first loop instruction that uses %rA.
import re, sys
src = open(sys.argv[1]).read().split('\n')
loop = src.index('$L_loop:')
done = next(i for i, l in enumerate(src) if l.startswith('$L_done'))
# setup region: from after 'mov.u32 %r0, %tid.x;' to loop
start = next(i for i, l in enumerate(src) if '%tid.x' in l) + 1
blocks = []  # (lines idxs, dest)
cur = []
for i in range(start, loop):
    l = src[i]
    m = re.match(r'\s*(\S+)\s+(%r\d+)', l)
    if not m: 
        cur = []; continue
    cur.append(i)
    if m.group(1) == 'mad.lo.u32' and re.search(r'%r[12];', l):
        blocks.append((cur, m.group(2))); cur = []
    elif m.group(1) not in ('bfe.u32','neg.s32','and.b32','shl.b32','shr.u32','xor.b32','mov.u32'):
        cur = []
moved = set()
insert = {}
body = src[loop+1:done]
for idxs, dest in blocks:
    pat = re.compile(re.escape(dest) + r'(?!\d)')
    uses_outside = [i for i in range(len(src)) if i not in idxs and pat.search(src[i]) and not (loop < i < done)]
    if uses_outside: continue
    first = next((j for j in range(loop+1, done) if pat.search(src[j])), None)
    if first is None: continue
    insert.setdefault(first, []).extend(idxs); moved.update(idxs)
out = []
for i, l in enumerate(src):
    if i in moved: continue
    if i in insert: out.extend(src[k] for k in insert[i])
    out.append(l)
open(sys.argv[2], 'w').write('\n'.join(out))
print(len(blocks), 'blocks', len(moved), 'lines moved', file=sys.stderr)
