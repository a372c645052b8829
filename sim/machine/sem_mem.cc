// ld, st, atom, red, cvta, createpolicy.
//
// Every access is checked in this order for each lane (in lane order): alignment to the
// access's total size (element bytes x vector length), then bounds in its space, then
// (shared memory) the race shadow. A bad lane stops the instruction with a fault naming
// the thread, the address and the space. Shared-memory requests also feed the bank model
// (one request per warp instruction, over the lanes that execute it).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/status_macros.h"
#include "sim/bank/bank_model.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

using ptx::Opcode;
using ptx::Space;
using ptx::Type;

namespace {

absl::Status Unsupported(DecodeCtx& ctx, const ptx::Instruction& in,
                         absl::string_view why) {
  return ctx.Error(in.loc, absl::StrCat("'", in.opcode_text,
                                        "' is not supported by the machine: ", why));
}

// Little-endian host; fixed-size copies so that they compile to single moves.
inline uint64_t ReadLE(const uint8_t* p, uint32_t n) {
  switch (n) {
    case 1:
      return p[0];
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}
inline void WriteLE(uint8_t* p, uint64_t v, uint32_t n) {
  switch (n) {
    case 1:
      p[0] = uint8_t(v);
      return;
    case 2: {
      uint16_t x = uint16_t(v);
      std::memcpy(p, &x, 2);
      return;
    }
    case 4: {
      uint32_t x = uint32_t(v);
      std::memcpy(p, &x, 4);
      return;
    }
    default:
      std::memcpy(p, &v, 8);
      return;
  }
}

const char* SpaceText(uint8_t s) {
  switch (Space(s)) {
    case Space::kShared:
    case Space::kSharedCluster:
      return "shared";
    case Space::kGlobal:
      return "global";
    case Space::kConst:
      return "const";
    case Space::kLocal:
      return "local";
    case Space::kParam:
      return "param";
    default:
      return "generic";
  }
}

// Where one lane's access lands.
struct Target {
  uint8_t* ptr = nullptr;
  bool shared = false;
  uint32_t shared_offset = 0;
};

// Resolves `addr` in `space` for lane `l`; records an out_of_bounds fault when unmapped.
inline bool Resolve(Exec& x, const Insn& in, int l, uint8_t space, uint64_t addr,
                    uint32_t size, bool store, Target* t) {
  Machine& m = *x.m;
  switch (Space(space)) {
    case Space::kShared:
    case Space::kSharedCluster:
    shared : {
      uint64_t off = addr - kSharedBase;
      if (off < m.shared_bytes() && off + size <= m.shared_bytes()) {
        t->ptr = x.cta->shared.data() + off;
        t->shared = true;
        t->shared_offset = uint32_t(off);
        return true;
      }
    }
      return m.FaultAt(
          x, l, "out_of_bounds",
          absl::StrFormat("%s of %u bytes at shared address 0x%x is outside the "
                          "%u-byte shared window [0x%x, 0x%x)",
                          store ? "store" : "load", size, addr, m.shared_bytes(),
                          kSharedBase, kSharedBase + m.shared_bytes()));
    case Space::kLocal:
    local:
      if (addr + size <= m.program().local_bytes && addr < m.program().local_bytes) {
        t->ptr = x.cta->local.data() +
                 size_t(x.w->base_tid + l) * m.program().local_bytes + addr;
        return true;
      }
      return m.FaultAt(
          x, l, "out_of_bounds",
          absl::StrFormat("%s of %u bytes at local offset 0x%x is outside the "
                          "%u-byte local window",
                          store ? "store" : "load", size, addr, m.program().local_bytes));
    case Space::kParam:
      if (!store && addr + size <= m.params().size() && addr < m.params().size()) {
        t->ptr = const_cast<uint8_t*>(m.params().data()) + addr;
        return true;
      }
      return m.FaultAt(
          x, l, "out_of_bounds",
          absl::StrFormat("%s of %u bytes at param offset 0x%x is outside the "
                          "%u bytes of parameters",
                          store ? "store" : "load", size, addr, m.params().size()));
    case Space::kGlobal:
    case Space::kConst:
    global:
      t->ptr = m.global().Find(addr, size);
      if (t->ptr != nullptr) return true;
      return m.FaultAt(
          x, l, "out_of_bounds",
          absl::StrFormat("%s of %u bytes at global address 0x%x is outside every "
                          "buffer%s",
                          store ? "store" : "load", size, addr,
                          addr < 4096 ? " (null pointer)" : ""));
    default:
      if (addr - kSharedWindow < kWindowSize) {
        addr -= kSharedWindow;
        goto shared;
      }
      if (addr - kLocalWindow < kWindowSize) {
        addr -= kLocalWindow;
        goto local;
      }
      goto global;
  }
}

// Resolve's common case inline: an explicit global, const or shared access inside one
// buffer (the shared window). False for anything else (other spaces, generic addresses,
// faults); Resolve then decides, on the same inputs.
inline bool ResolveInBounds(Exec& x, uint8_t space, uint64_t addr, uint32_t size, Target* t) {
  switch (Space(space)) {
    case Space::kGlobal:
    case Space::kConst:
      t->ptr = x.m->global().Find(addr, size);
      return t->ptr != nullptr;
    case Space::kShared: {
      const uint64_t off = addr - kSharedBase;
      if (off >= x.m->shared_bytes() || off + size > x.m->shared_bytes()) return false;
      t->ptr = x.cta->shared.data() + off;
      t->shared = true;
      t->shared_offset = uint32_t(off);
      return true;
    }
    default:
      return false;
  }
}

inline bool Misaligned(Exec& x, const Insn& in, int l, uint64_t addr, uint32_t size) {
  return x.m->FaultAt(
      x, l, "misaligned",
      absl::StrFormat("%s address 0x%x of a %u-byte access is not %u-byte aligned",
                      SpaceText(in.space), addr, size, size));
}

void CountShared(Exec& x, const uint32_t addr[32], uint32_t mask, uint32_t bytes,
                 bool store) {
  if (!x.m->options().count_banks || x.pc >= x.m->options().count_banks_below_pc) return;
  bank::BankCost c = x.m->SharedCost(x.pc, addr, mask, bytes);
  Counters& k = x.m->mutable_counters();
  k.smem_requests[store] += 1;
  k.smem_wavefronts[store] += c.wavefronts;
  k.bank_conflicts[store] += c.conflicts();
}

// FastLdSt's data movement for `kVec` elements per lane: every value moves from (to)
// mem + (base[l] + offset - mem_base); registers are read and written through local
// pointers so that the compiler keeps them in registers across lanes. kPlain (loads):
// the value needs neither sign extension nor the register mask (the load does not
// extend and the register holds every bit of the element), so it is stored as read.
// Out of line: inlined into ExecLdSt, GCC addressed the destination from the base
// register's pointer (two more instructions a lane); alone it indexes both, three a lane
// for a plain load.
template <bool kStore, uint32_t kEb, uint32_t kVec, bool kPlain>
__attribute__((noinline)) void MoveLaneData(Exec& x, const Insn& in, uint32_t mask,
                                            uint8_t* mem, uint64_t delta) {
  const uint64_t* base = x.R(in.s[0]);
  const uint64_t* src[kVec];
  uint64_t* dst[kVec];
  for (uint32_t i = 0; i < kVec; ++i) {
    if constexpr (kStore) {
      src[i] = x.R(in.s[1 + i]);
    } else {
      dst[i] = x.R(in.d[i]);
    }
  }
  // Loads: sign extension as a shift pair (0 when the load does not extend).
  const uint32_t ext = !kStore && in.sext && kEb < 8 ? 64 - 8 * kEb : 0;
  const uint64_t dmask = in.dmask;
  // Lane l's bytes at origin + base[l] (= mem + (base[l] + delta), in bounds): one add a
  // lane, which the compiler folds into the access's address.
  const uintptr_t origin = reinterpret_cast<uintptr_t>(mem) + delta;
  auto lane = [&](int l) {
    uint8_t* ptr = reinterpret_cast<uint8_t*>(origin + base[l]);
    for (uint32_t i = 0; i < kVec; ++i) {
      if constexpr (kStore) {
        WriteLE(ptr + i * kEb, src[i][l], kEb);
      } else if constexpr (kPlain) {
        dst[i][l] = ReadLE(ptr + i * kEb, kEb);
      } else {
        const uint64_t v = ReadLE(ptr + i * kEb, kEb);
        dst[i][l] = uint64_t(int64_t(v << ext) >> ext) & dmask;
      }
    }
  };
  ForLanes(mask, lane);
}

// One buffer of a space: its first address, its size and its bytes (address a is at
// data + (a - start)). Buffer bases are aligned to any access size (1 MiB, 0x400, 0).
struct Buffer {
  uint64_t start = 0, limit = 0;
  uint8_t* data = nullptr;
};

// The buffer of `space` that holds `addr`: the shared window, parameter memory, or the
// global region whose bytes include addr (false when none does; the shared window and
// parameter memory are returned whatever addr is: callers test their range against it).
inline bool BufferOf(Exec& x, Space space, uint64_t addr, Buffer* b) {
  switch (space) {
    case Space::kShared:
      *b = Buffer{kSharedBase, x.m->shared_bytes(), x.cta->shared.data()};
      return true;
    case Space::kParam:
      *b = Buffer{0, x.m->params().size(), const_cast<uint8_t*>(x.m->params().data())};
      return true;
    default: {
      Region* r = x.m->global().RegionAt(addr);
      if (r == nullptr) return false;
      *b = Buffer{r->base, r->size, r->data.data()};
      return true;
    }
  }
}

// The memory of FastLdSt's request: `*mem` such that lane address a is at
// *mem + (a - *mem_base), when every lane's [a, a + size) lies inside one buffer of
// `space` (addresses lo..hi, all aligned to size); false otherwise (nothing is changed).
// This is Resolve's bounds test for the whole range, in the buffer that holds lo (decode
// rejects stores to parameter memory). hi - start + size cannot wrap once hi - start is
// below the buffer's size.
inline bool LocateRange(Exec& x, Space space, uint64_t lo, uint64_t hi, uint32_t size,
                        uint8_t** mem, uint64_t* mem_base) {
  Buffer b;
  if (!BufferOf(x, space, lo, &b)) return false;
  if (lo < b.start || hi - b.start >= b.limit || hi - b.start + size > b.limit) return false;
  *mem = b.data;
  *mem_base = b.start;
  return true;
}

// OR over the lanes of `mask` of v[l] + add. The full warp in 2-lane vectors: GCC's -O2
// cost model leaves a 64-bit OR reduction scalar (five instructions a lane, not 1.5).
inline uint64_t OrLanes(const uint64_t* v, uint32_t mask, uint64_t add) {
  if (mask == 0xFFFFFFFFu) {
    typedef uint64_t U64x2 __attribute__((vector_size(16)));
    const U64x2 a = {add, add};
    U64x2 acc = {0, 0};
#pragma GCC unroll 16
    for (int l = 0; l < 32; l += 2) {
      U64x2 w;
      std::memcpy(&w, v + l, sizeof w);
      acc |= w + a;
    }
    return acc[0] | acc[1];
  }
  uint64_t acc = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) acc |= v[__builtin_ctz(m)] + add;
  return acc;
}

// The least and greatest of v[l] over the lanes of `mask` (not 0). Requires: every such
// v[l] < 2^31 (the full-warp loop compares as int32, which SSE2 vectorises; it has no
// unsigned compare).
inline void MinMaxLanes(const uint32_t* v, uint32_t mask, uint32_t* lo, uint32_t* hi) {
  int32_t a = INT32_MAX, b = -1;
  if (mask == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) {
      const int32_t e = int32_t(v[l]);
      a = e < a ? e : a;
      b = e > b ? e : b;
    }
  } else {
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const int32_t e = int32_t(v[__builtin_ctz(m)]);
      a = e < a ? e : a;
      b = e > b ? e : b;
    }
  }
  *lo = uint32_t(a);
  *hi = uint32_t(b);
}

// LocateRange's answer in one cheap pass, for the common case: the buffer of `space`
// (shared window, parameter memory, a global region) that holds the first lane's
// address, and the OR of every lane's offset into it. No offset exceeds the OR, and the
// OR's low bits are clear exactly when every offset's are (buffer bases are aligned to
// any access size: 1 MiB, 0x400, 0), so an OR <= limit - size with bits below `size`
// clear means every lane aligned and inside that buffer: LocateRange's true, with the
// same lane pointers (buffers do not overlap). The converse fails (offsets 0xFFC and
// 0x1000 of a 0x1800-byte buffer OR to 0x1FFC), so false says only "not shown here":
// the caller then takes the exact min/max pass. The harnesses' power-of-two buffers
// always pass.
inline bool LocateByOr(Exec& x, Space space, const uint64_t* base, uint64_t offset,
                       uint32_t mask, uint32_t size, uint8_t** mem, uint64_t* mem_base) {
  Buffer b;
  if (!BufferOf(x, space, base[__builtin_ctz(mask)] + offset, &b)) return false;
  const uint64_t ored = OrLanes(base, mask, offset - b.start);
  if (b.limit < size || (ored & (size - 1)) != 0 || ored > b.limit - size) return false;
  *mem = b.data;
  *mem_base = b.start;
  return true;
}

// Where FastLdSt's lanes are (LocateLanes).
struct LaneSpan {
  uint8_t* mem = nullptr;  // lane address a is at mem + (a - mem_base)
  uint64_t mem_base = 0;
  uint64_t lo = 0, hi = 0;  // race-checked shared accesses: least and greatest address
  uint32_t saddr[32];       // shared accesses: the lanes' offsets from kSharedBase
};

// FastLdSt's lanes: true when every lane of `mask` is aligned to `size` and inside one
// buffer of the instruction's space. Then out->mem and out->mem_base as LocateRange's, a
// shared access's offsets in out->saddr, and when `span` (race-checked shared accesses)
// out->lo and out->hi.
inline bool LocateLanes(Exec& x, const Insn& in, uint32_t mask, uint32_t size, bool span,
                        LaneSpan* out) {
  const Space space = Space(in.space);
  const bool shared = space == Space::kShared;
  const uint64_t* base = x.R(in.s[0]);
  const uint64_t offset = uint64_t(in.offset);
  uint32_t* saddr = out->saddr;
  if (LocateByOr(x, space, base, offset, mask, size, &out->mem, &out->mem_base)) {
    if (shared) {
      // Every offset is below the shared size (< 2^31): exact in 32 bits.
      const uint64_t rel = offset - kSharedBase;
      ForLanesEw(mask, [&](int l) { saddr[l] = uint32_t(base[l] + rel); });
      if (span) {
        uint32_t a, b;
        MinMaxLanes(saddr, mask, &a, &b);
        out->lo = kSharedBase + a;
        out->hi = kSharedBase + b;
      }
    }
    return true;
  }
  // The exact pass: the lanes' least and greatest address and their OR.
  uint64_t least = ~uint64_t{0}, most = 0, bits = 0;
  auto range = [&](int l) {
    const uint64_t addr = base[l] + offset;
    least = addr < least ? addr : least;
    most = addr > most ? addr : most;
    bits |= addr;
    return addr;
  };
  if (shared) {
    ForLanes(mask, [&](int l) { saddr[l] = uint32_t(range(l) - kSharedBase); });
  } else {
    ForLanes(mask, range);
  }
  if (bits & (size - 1)) return false;
  // [lo, hi + size) in one buffer; hi + size cannot wrap once lo..hi is in a buffer.
  if (!LocateRange(x, space, least, most, size, &out->mem, &out->mem_base)) return false;
  out->lo = least;
  out->hi = most;
  return true;
}

// ExecLdSt's common case in one go: an explicit global/const/param access, or a shared one
// (with or without race checks: `checked`), whose lanes are all aligned and together lie
// inside one buffer (the shared window), with no watched store. Then no lane can fault
// but for a race, so the per-lane checks of ExecLdSt reduce to one range check, and the
// lanes move their bytes in lane order exactly as ExecLdSt would (a lane reads its
// address before it writes its destinations, as there). With race checks, each lane is
// checked in lane order as ExecLdSt checks it, so the same races are reported in the
// same order (a race is recorded and the launch goes on): a store's lane right before
// it writes (its same-value test reads what the lanes before it wrote), a load's lanes
// all before any moves (a load's check reads and writes only the race shadow and the
// fault list, its move only the lane's registers, so the order between them is free).
// kNotTaken, having changed nothing, when the request is anything else; ExecLdSt then
// runs it lane by lane (and finds the same faults). kFaulted when a check stops the
// launch (Machine::CheckSharedRead/Write returning false, as ExecLdSt returns false).
enum class FastResult { kNotTaken, kDone, kFaulted };

template <bool kStore, uint32_t kEb>
FastResult FastLdSt(Exec& x, const Insn& in, uint32_t mask, bool checked) {
  constexpr FastResult kNotTaken = FastResult::kNotTaken;
  const Space space = Space(in.space);
  const bool shared = space == Space::kShared;
  const bool explicit_space = shared || space == Space::kGlobal || space == Space::kConst ||
                              (!kStore && space == Space::kParam);
  if (!explicit_space) return kNotTaken;
  const uint32_t vec = in.vec, size = kEb * vec;
  if (vec != 1 && vec != 2 && vec != 4) return kNotTaken;
  LaneSpan span;
  if (!LocateLanes(x, in, mask, size, checked && shared, &span)) return kNotTaken;
  const uint32_t* saddr = span.saddr;
  uint8_t* mem = span.mem;
  if (checked && shared && (size & 3) == 0) {
    // Whole words (every lane is aligned to size): the warp's checks in one batch, lane
    // by lane in the same order as below (a store's lane checked right before it writes).
    if constexpr (kStore) {
      // Lane l's bytes at bytes + l * size, element by element (one loop over the lanes
      // per element: a loop over the elements inside each lane's cost more than the copy).
      uint8_t bytes[32 * 32];
      for (uint32_t i = 0; i < vec; ++i) {
        const uint64_t* src = x.R(in.s[1 + i]);
        uint8_t* at = bytes + i * kEb;
        ForLanes(mask, [&](int l) { WriteLE(at + size_t(l) * size, src[l], kEb); });
      }
      if (!x.m->StoreSharedChecked(x, x.m->MakeAccessor(x, 0), mask, saddr, size, bytes))
        return FastResult::kFaulted;
      CountShared(x, saddr, mask, size, kStore);
      return FastResult::kDone;
    } else {
      // The lanes' bytes from the range pass: [lo, hi + size) less the shared base.
      if (!x.m->CheckSharedReads(x, x.m->MakeAccessor(x, 0), mask, saddr, size,
                                 uint32_t(span.lo - kSharedBase),
                                 uint32_t(span.hi - kSharedBase + size)))
        return FastResult::kFaulted;
    }
  } else if (checked && shared) {
    Accessor acc = x.m->MakeAccessor(x, 0);
    for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
      const int l = __builtin_ctz(mm);
      Machine::SetLane(acc, *x.w, l);
      const uint32_t at = saddr[l];
      if constexpr (kStore) {
        uint8_t bytes[32];
        for (uint32_t i = 0; i < vec; ++i) WriteLE(bytes + i * kEb, x.R(in.s[1 + i])[l], kEb);
        if (!x.m->CheckSharedWrite(x, acc, l, at, size, bytes)) return FastResult::kFaulted;
        std::memcpy(mem + at, bytes, size);
      } else {
        if (!x.m->CheckSharedRead(x, acc, l, at, size)) return FastResult::kFaulted;
      }
    }
    if constexpr (kStore) {
      CountShared(x, saddr, mask, size, kStore);
      return FastResult::kDone;
    }
  }
  const uint64_t delta = uint64_t(in.offset) - span.mem_base;
  // Loads whose value is the register's as read: no sign extension, and the register
  // mask keeps all 8 * kEb bits of the element (the same bits as the general form).
  constexpr uint64_t kElemMask = kEb >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * (kEb % 8))) - 1;
  const bool plain = kStore || ((!in.sext || kEb >= 8) && (in.dmask & kElemMask) == kElemMask);
  switch (vec * 2 + (plain ? 1 : 0)) {
    case 2:
      MoveLaneData<kStore, kEb, 1, false>(x, in, mask, mem, delta);
      break;
    case 3:
      MoveLaneData<kStore, kEb, 1, true>(x, in, mask, mem, delta);
      break;
    case 4:
      MoveLaneData<kStore, kEb, 2, false>(x, in, mask, mem, delta);
      break;
    case 5:
      MoveLaneData<kStore, kEb, 2, true>(x, in, mask, mem, delta);
      break;
    case 8:
      MoveLaneData<kStore, kEb, 4, false>(x, in, mask, mem, delta);
      break;
    default:
      MoveLaneData<kStore, kEb, 4, true>(x, in, mask, mem, delta);
      break;
  }
  if (shared) {
    CountShared(x, saddr, mask, size, kStore);
  } else if (space != Space::kParam) {
    const uint32_t lanes = mask == 0xFFFFFFFFu ? 32 : Popcount32(mask);
    x.m->mutable_counters().global_bytes[kStore] += uint64_t(size) * lanes;
  }
  return FastResult::kDone;
}

template <bool kStore, uint32_t kEb>
bool ExecLdSt(Exec& x, const Insn& in, uint32_t mask) {
  const bool race_checks = x.m->options().detect_races;
  // Race checks are for shared memory only: an explicit global or const access takes
  // the fast path with them on too.
  const bool unchecked_space = !race_checks || Space(in.space) == Space::kGlobal ||
                               Space(in.space) == Space::kConst;
  if (x.m->options().fast_ldst && (!kStore || x.m->options().watch_global_address == 0)) {
    switch (FastLdSt<kStore, kEb>(x, in, mask, !unchecked_space)) {
      case FastResult::kDone: return true;
      case FastResult::kFaulted: return false;
      case FastResult::kNotTaken: break;
    }
  }
  const uint64_t* base = x.R(in.s[0]);
  constexpr uint32_t eb = kEb;
  const uint32_t vec = in.vec, size = eb * vec;
  uint32_t saddr[32];
  uint32_t smask = 0;
  Accessor acc;
  if (race_checks) acc = x.m->MakeAccessor(x, 0);
  for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t addr = base[l] + uint64_t(in.offset);
    if (addr & (size - 1)) return Misaligned(x, in, l, addr, size);
    Target t;
    if (!ResolveInBounds(x, in.space, addr, size, &t) &&
        !Resolve(x, in, l, in.space, addr, size, kStore, &t)) {
      return false;
    }
    if (t.shared) {
      saddr[l] = t.shared_offset;
      smask |= 1u << l;
      if (race_checks) {
        Machine::SetLane(acc, *x.w, l);
        bool ok;
        if constexpr (kStore) {
          // At most v4 (the subset's vectors, op_table.cc) of 8 bytes: the bound also
          // tells the compiler so (without it, -Wstringop-overflow at -O3).
          uint8_t bytes[32];
          for (uint32_t i = 0; i < vec && i < 4; ++i)
            WriteLE(bytes + i * eb, x.R(in.s[1 + i])[l], eb);
          ok = x.m->CheckSharedWrite(x, acc, l, t.shared_offset, size, bytes);
        } else {
          ok = x.m->CheckSharedRead(x, acc, l, t.shared_offset, size);
        }
        if (!ok) return false;
      }
    }
    if constexpr (kStore) {
      for (uint32_t i = 0; i < vec; ++i) WriteLE(t.ptr + i * eb, x.R(in.s[1 + i])[l], eb);
      const uint64_t watch = x.m->options().watch_global_address;
      if (watch != 0 && !t.shared && watch - addr < size) {
        x.m->RecordWatchedStore(x, l, uint32_t((watch - addr) / eb));
      }
    } else {
      for (uint32_t i = 0; i < vec; ++i) {
        uint64_t v = ReadLE(t.ptr + i * eb, eb);
        if constexpr (kEb < 8) {
          if (in.sext && ((v >> (8 * eb - 1)) & 1)) v |= ~uint64_t{0} << (8 * eb);
        }
        x.R(in.d[i])[l] = v & in.dmask;
      }
    }
  }
  if (smask != 0) CountShared(x, saddr, smask, size, kStore);
  if (Space(in.space) == Space::kGlobal || Space(in.space) == Space::kConst) {
    x.m->mutable_counters().global_bytes[kStore] +=
        uint64_t(size) * Popcount32(mask);
  }
  return true;
}

template <bool kStore>
ExecFn PickLdSt(int bytes) {
  switch (bytes) {
    case 1:
      return &ExecLdSt<kStore, 1>;
    case 2:
      return &ExecLdSt<kStore, 2>;
    case 4:
      return &ExecLdSt<kStore, 4>;
    default:
      return &ExecLdSt<kStore, 8>;
  }
}

// ---- atomics ------------------------------------------------------------------------
template <typename T>
T AtomApply(ptx::AtomOp op, bool is_signed, bool is_float, T old, T b, T c) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case ptx::AtomOp::kAnd:
      return T(old & b);
    case ptx::AtomOp::kOr:
      return T(old | b);
    case ptx::AtomOp::kXor:
      return T(old ^ b);
    case ptx::AtomOp::kExch:
      return b;
    case ptx::AtomOp::kCas:
      return old == b ? c : old;
    case ptx::AtomOp::kAdd:
      if (is_float) {
        if constexpr (sizeof(T) == 4) {
          float fo, fb;
          uint32_t ob = old, bb = b;
          std::memcpy(&fo, &ob, 4);
          std::memcpy(&fb, &bb, 4);
          float r = fo + fb;
          uint32_t rb;
          std::memcpy(&rb, &r, 4);
          if (r != r) rb = 0x7FFFFFFF;
          return T(rb);
        } else {
          double fo, fb;
          uint64_t ob = old, bb = b;
          std::memcpy(&fo, &ob, 8);
          std::memcpy(&fb, &bb, 8);
          double r = fo + fb;
          uint64_t rb;
          std::memcpy(&rb, &r, 8);
          if (r != r) rb = 0x7FFFFFFFFFFFFFFFull;
          return T(rb);
        }
      }
      return T(old + b);
    case ptx::AtomOp::kInc:
      return old >= b ? T(0) : T(old + 1);
    case ptx::AtomOp::kDec:
      return (old == 0 || old > b) ? b : T(old - 1);
    case ptx::AtomOp::kMin:
      return is_signed ? (S(old) < S(b) ? old : b) : (old < b ? old : b);
    case ptx::AtomOp::kMax:
      return is_signed ? (S(old) > S(b) ? old : b) : (old > b ? old : b);
    default:
      return old;
  }
}

// aux: atom op | signed << 8 | float << 9; aux2: 1 when there is a result (atom, not
// red).
template <typename T>
bool ExecAtom(Exec& x, const Insn& in, uint32_t mask) {
  ptx::AtomOp op = ptx::AtomOp(in.aux & 0xff);
  bool is_signed = (in.aux >> 8) & 1, is_float = (in.aux >> 9) & 1;
  bool has_result = in.aux2 != 0;
  const uint64_t* base = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  constexpr uint32_t size = sizeof(T);
  for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t addr = base[l] + uint64_t(in.offset);
    if (addr & (size - 1)) return Misaligned(x, in, l, addr, size);
    Target t;
    if (!Resolve(x, in, l, in.space, addr, size, true, &t)) return false;
    T old = T(ReadLE(t.ptr, size));
    T r = AtomApply<T>(op, is_signed, is_float, old, T(b[l]), T(c[l]));
    WriteLE(t.ptr, r, size);
    if (has_result) x.R(in.d[0])[l] = uint64_t(old);
  }
  return true;
}

// ---- cvta ---------------------------------------------------------------------------
// aux: window base to add (cvta.space) or subtract (cvta.to.space); aux2: result mask.
bool ExecCvtaTo(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = (a[l] - in.aux) & in.aux2; });
  return true;
}
bool ExecCvtaFrom(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = (a[l] + in.aux) & in.aux2; });
  return true;
}

bool ExecZero(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  ForLanesEw(mask, [&](int l) { d[l] = 0; });
  return true;
}

}  // namespace

absl::Status DecodeMemory(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  int bits = ptx::TypeBits(t);
  if (t == Type::kPred || bits > 64) return Unsupported(ctx, in, "element type");
  bool store = in.op == Opcode::kSt;
  Space space = in.mods.space == Space::kNone ? Space::kGeneric : in.mods.space;
  if (space == Space::kSharedCluster) {
    return Unsupported(
        ctx, in,
        "distributed shared memory (::cluster) needs more than one CTA per cluster");
  }
  if (store && (space == Space::kParam || space == Space::kConst)) {
    return Unsupported(ctx, in, "stores to .param or .const");
  }
  out->space = static_cast<uint8_t>(space);
  out->ebytes = static_cast<uint8_t>(bits / 8);
  out->vec = static_cast<uint8_t>(in.mods.vec);
  out->sext = ptx::IsSigned(t);
  const ptx::Operand& addr = in.operands[store ? 0 : 1];
  const ptx::Operand& data = in.operands[store ? 1 : 0];
  uint32_t base;
  RETURN_IF_ERROR(ctx.Address(addr, space, &base, &out->offset));
  out->s[0] = base;
  // The data operands: a vector's elements, or the operand itself (no list is built: a
  // vector per ld/st was a tenth of decoding).
  const bool is_vector = data.kind == ptx::OperandKind::kVector;
  const size_t count = is_vector ? data.elems.size() : 1;
  auto elem = [&](size_t i) -> const ptx::Operand& { return is_vector ? data.elems[i] : data; };
  if (static_cast<int>(count) != in.mods.vec) {
    return ctx.Error(data.loc,
                     absl::StrCat("'", in.opcode_text, "' moves ", in.mods.vec,
                                  " element(s) but the operand has ", count));
  }
  // Element registers may be wider than the element (ld.b8 into a .b16 register).
  Type reg_type = t == Type::kF16x2 || t == Type::kBf16x2 ? Type::kB32 : t;
  if (store) {
    for (size_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(out->s[1 + i], ctx.Src(elem(i), reg_type));
    }
    out->ns = static_cast<uint8_t>(1 + count);
    out->fn = PickLdSt<true>(bits / 8);
  } else {
    uint64_t dmask = ~uint64_t{0};
    bool first = true;
    for (size_t i = 0; i < count; ++i) {
      const ptx::Operand& e = elem(i);
      if (e.kind == ptx::OperandKind::kImm) {
        return ctx.Error(e.loc, "cannot load into an immediate");
      }
      uint64_t m;
      ASSIGN_OR_RETURN(out->d[i], ctx.Dst(e, bits, &m));
      if (e.kind != ptx::OperandKind::kSink) {
        if (!first && m != dmask) {
          return ctx.Error(e.loc, "vector elements must have one register width");
        }
        dmask = m;
        first = false;
      }
    }
    out->dmask = dmask;
    out->nd = static_cast<uint8_t>(count);
    out->ns = 1;
    out->fn = PickLdSt<false>(bits / 8);
  }
  return absl::OkStatus();
}

absl::Status DecodeAtom(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  int bits = ptx::TypeBits(t);
  bool red = in.op == Opcode::kRed;
  ptx::AtomOp op = in.mods.atom;
  if (op == ptx::AtomOp::kNone)
    return Unsupported(ctx, in, "needs an operation (.add, .cas, ...)");
  if (bits != 32 && bits != 64)
    return Unsupported(ctx, in, "atomics on 32 or 64-bit types");
  bool is_float = ptx::IsFloat(t);
  if (is_float && op != ptx::AtomOp::kAdd)
    return Unsupported(ctx, in, "float atomics: .add only");
  if ((op == ptx::AtomOp::kInc || op == ptx::AtomOp::kDec) && t != Type::kU32) {
    return Unsupported(ctx, in, ".inc/.dec take .u32");
  }
  Space space = in.mods.space == Space::kNone ? Space::kGeneric : in.mods.space;
  if (space != Space::kGeneric && space != Space::kGlobal && space != Space::kShared) {
    return Unsupported(ctx, in, "atomics on generic, .global or .shared");
  }
  bool cas = op == ptx::AtomOp::kCas;
  size_t want = (red ? 2 : 3) + (cas ? 1 : 0);
  if (in.operands.size() != want) {
    return ctx.Error(in.loc,
                     absl::StrCat("'", in.opcode_text, "' takes ", want, " operands"));
  }
  if (red && cas) return Unsupported(ctx, in, "red has no .cas");
  out->space = static_cast<uint8_t>(space);
  size_t a = red ? 0 : 1;
  if (!red) {
    ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], bits, &out->dmask));
    out->nd = 1;
  }
  RETURN_IF_ERROR(ctx.Address(in.operands[a], space, &out->s[0], &out->offset));
  ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[a + 1], t));
  if (cas) {
    ASSIGN_OR_RETURN(out->s[2], ctx.Src(in.operands[a + 2], t));
  } else {
    out->s[2] = out->s[1];
  }
  out->ns = 3;
  out->aux = uint64_t(op) | uint64_t(ptx::IsSigned(t)) << 8 | uint64_t(is_float) << 9;
  out->aux2 = red ? 0 : 1;
  out->fn = bits == 32 ? &ExecAtom<uint32_t> : &ExecAtom<uint64_t>;
  return absl::OkStatus();
}

absl::Status DecodeCvta(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  int bits = ptx::TypeBits(t);
  if (t != Type::kU32 && t != Type::kU64)
    return Unsupported(ctx, in, "cvta takes .u32 or .u64");
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], bits, &out->dmask));
  ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[1], t));
  out->nd = 1;
  out->ns = 1;
  uint64_t base = 0;
  switch (in.mods.space) {
    case Space::kShared:
      base = kSharedWindow;
      break;
    case Space::kLocal:
      base = kLocalWindow;
      break;
    case Space::kGlobal:
    case Space::kConst:
      base = 0;
      break;
    default:
      return Unsupported(ctx, in, "cvta takes .global, .shared, .local or .const");
  }
  out->aux = base;
  out->aux2 = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  out->fn = in.mods.to ? &ExecCvtaTo : &ExecCvtaFrom;
  return absl::OkStatus();
}

absl::Status DecodeCreatePolicy(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  if (t != Type::kB64) return Unsupported(ctx, in, "createpolicy is .b64");
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], 64, &out->dmask));
  out->nd = 1;
  out->fn = &ExecZero;  // a cache policy has no effect on values here
  return absl::OkStatus();
}

}  // namespace warpcheck::sim::machine
