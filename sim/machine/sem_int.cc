// Integer and bit operations, mov, setp, selp (shared/spec/ptx-subset.md "Instructions").
//
// Values are stored zero-extended in 64-bit slots; every exec function here works on
// the unsigned type of the instruction's width (uint16_t/uint32_t/uint64_t) and converts
// to the signed type only where PTX defines a signed meaning.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

using ptx::Opcode;
using ptx::Type;

namespace {

template <typename T>
using Signed = std::make_signed_t<T>;
// Arithmetic type without integer promotion to int (16-bit products overflow int).
template <typename T>
using Wide = std::conditional_t<(sizeof(T) < 4), uint32_t, T>;

// ---- operations ---------------------------------------------------------------------
template <typename T>
T OpAdd(T a, T b) {
  return T(Wide<T>(a) + Wide<T>(b));
}
template <typename T>
T OpSub(T a, T b) {
  return T(Wide<T>(a) - Wide<T>(b));
}
template <typename T>
T OpMulLo(T a, T b) {
  return T(Wide<T>(a) * Wide<T>(b));
}
template <typename T>
T OpAnd(T a, T b) {
  return T(a & b);
}
template <typename T>
T OpOr(T a, T b) {
  return T(a | b);
}
template <typename T>
T OpXor(T a, T b) {
  return T(a ^ b);
}
template <typename T>
T OpMinU(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
T OpMaxU(T a, T b) {
  return a > b ? a : b;
}
template <typename T>
T OpMinS(T a, T b) {
  return Signed<T>(a) < Signed<T>(b) ? a : b;
}
template <typename T>
T OpMaxS(T a, T b) {
  return Signed<T>(a) > Signed<T>(b) ? a : b;
}
// Division by zero gives all ones, for the quotient and the remainder alike (measured
// on an H200: div.u32 7/0, div.s32 -7/0, rem.u32 7%0, rem.s64 -7%0).
template <typename T>
T OpDivU(T a, T b) {
  return b == 0 ? T(~T(0)) : T(a / b);
}
template <typename T>
T OpRemU(T a, T b) {
  return b == 0 ? T(~T(0)) : T(a % b);
}
template <typename T>
T OpDivS(T a, T b) {
  Signed<T> sa = Signed<T>(a), sb = Signed<T>(b);
  if (sb == 0) return T(~T(0));
  if (sb == -1) return T(T(0) - a);  // also INT_MIN / -1 = INT_MIN
  return T(sa / sb);
}
template <typename T>
T OpRemS(T a, T b) {
  Signed<T> sa = Signed<T>(a), sb = Signed<T>(b);
  if (sb == 0) return T(~T(0));
  if (sb == -1) return 0;
  return T(sa % sb);
}
template <typename T>
T OpMulHiU(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return T((static_cast<unsigned __int128>(a) * b) >> 64);
  } else {
    return T((uint64_t(a) * uint64_t(b)) >> (8 * sizeof(T)));
  }
}
template <typename T>
T OpMulHiS(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    __int128 p = static_cast<__int128>(Signed<T>(a)) * Signed<T>(b);
    return T(static_cast<unsigned __int128>(p) >> 64);
  } else {
    int64_t p = int64_t(Signed<T>(a)) * int64_t(Signed<T>(b));
    return T(uint64_t(p) >> (8 * sizeof(T)));
  }
}
// add/sub .sat.s32: clamp to [INT32_MIN, INT32_MAX].
uint32_t OpAddSat(uint32_t a, uint32_t b) {
  int64_t r = int64_t(int32_t(a)) + int32_t(b);
  return uint32_t(int32_t(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r));
}
uint32_t OpSubSat(uint32_t a, uint32_t b) {
  int64_t r = int64_t(int32_t(a)) - int32_t(b);
  return uint32_t(int32_t(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r));
}

template <typename T>
T OpNot(T a) {
  return T(~a);
}
template <typename T>
T OpCnot(T a) {
  return a == 0 ? T(1) : T(0);
}
template <typename T>
T OpNeg(T a) {
  return T(T(0) - a);
}
template <typename T>
T OpAbs(T a) {
  return Signed<T>(a) < 0 ? T(T(0) - a) : a;
}
template <typename T>
T OpPopc(T a) {
  return T(__builtin_popcountll(uint64_t(a)));
}
template <typename T>
T OpClz(T a) {
  if (a == 0) return T(8 * sizeof(T));
  return T(__builtin_clzll(uint64_t(a)) - (64 - 8 * sizeof(T)));
}
template <typename T>
T OpBrev(T a) {
  T r = 0;
  for (size_t i = 0; i < 8 * sizeof(T); ++i) {
    if ((a >> i) & 1) r |= T(T(1) << (8 * sizeof(T) - 1 - i));
  }
  return r;
}
template <typename T>
T OpCopy(T a) {
  return a;
}

// ---- exec templates -----------------------------------------------------------------
template <typename T, T (*F)(T, T)>
bool Bin(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(F(T(a[l]), T(b[l]))); });
  return true;
}

template <typename T, T (*F)(T)>
bool Un(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(F(T(a[l]))); });
  return true;
}

// popc/clz write a .u32 result whatever the source width.
template <typename T, T (*F)(T)>
bool CountOp(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(uint32_t(F(T(a[l])))); });
  return true;
}

// d = a * b + c (lo or hi half).
template <typename T, T (*M)(T, T)>
bool Mad(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(OpAdd<T>(M(T(a[l]), T(b[l])), T(c[l]))); });
  return true;
}

// mul.wide / mad.wide: N-bit sources, 2N-bit result.
template <typename T, bool kSigned, bool kMad>
bool Wide2(Exec& x, const Insn& in, uint32_t mask) {
  using W = std::conditional_t<sizeof(T) == 2, uint32_t, uint64_t>;
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = kMad ? x.R(in.s[2]) : nullptr;
  ForLanesEw(mask, [&](int l) {
    W p;
    if constexpr (kSigned) {
      p = W(int64_t(Signed<T>(T(a[l]))) * int64_t(Signed<T>(T(b[l]))));
    } else {
      p = W(uint64_t(T(a[l])) * uint64_t(T(b[l])));
    }
    if constexpr (kMad) p = W(p + W(c[l]));
    d[l] = uint64_t(p);
  });
  return true;
}

// Shifts: the amount is a .u32 operand; amounts >= the width saturate.
template <typename T, int kKind>  // 0 shl, 1 shr logical, 2 shr arithmetic
bool Shift(Exec& x, const Insn& in, uint32_t mask) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  ForLanesEw(mask, [&](int l) {
    uint32_t n = uint32_t(b[l]);
    T v = T(a[l]);
    T r;
    if (kKind == 0) {
      r = n >= kBits ? T(0) : T(Wide<T>(v) << n);
    } else if (kKind == 1) {
      r = n >= kBits ? T(0) : T(v >> n);
    } else {
      Signed<T> s = Signed<T>(v);
      r = T(n >= kBits ? (s < 0 ? Signed<T>(-1) : Signed<T>(0)) : Signed<T>(s >> n));
    }
    d[l] = uint64_t(r);
  });
  return true;
}

// The same with an immediate amount (in.aux, the .u32 immediate): one shift count for
// every lane, so the lane loop is a vector shift by a scalar (same bits as Shift).
template <typename T, int kKind>
bool ShiftConst(Exec& x, const Insn& in, uint32_t mask) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint32_t n = uint32_t(in.aux);
  if (n >= kBits) {
    if (kKind == 2) {
      ForLanesEw(mask, [&](int l) {
        d[l] = uint64_t(T(Signed<T>(T(a[l])) < 0 ? Signed<T>(-1) : Signed<T>(0)));
      });
    } else {
      ForLanesEw(mask, [&](int l) { d[l] = 0; });
    }
    return true;
  }
  ForLanesEw(mask, [&](int l) {
    const T v = T(a[l]);
    T r;
    if (kKind == 0) {
      r = T(Wide<T>(v) << n);
    } else if (kKind == 1) {
      r = T(v >> n);
    } else {
      r = T(Signed<T>(Signed<T>(v) >> n));
    }
    d[l] = uint64_t(r);
  });
  return true;
}

// bfe's result bits: bit i is bit pos + i of v for i < len and pos + i <= msb, the
// sign bit (bit min(pos + len - 1, msb) of v; 0 when unsigned or len == 0) elsewhere.
// Closed form of that bit loop (machine_semantics_test BfeSweep checks it bit by bit).
template <typename T, bool kSigned>
T BfeValue(T v, uint32_t pos, uint32_t len) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  T sbit = 0;
  if (kSigned && len != 0) sbit = T((v >> std::min(pos + len - 1, kBits - 1)) & 1);
  // Bits taken from v: i < len and i < kBits - pos.
  const uint32_t take = pos >= kBits ? 0 : std::min(len, kBits - pos);
  const T low = take == 0 ? T(0) : T(v >> pos);
  const T keep = take >= kBits ? T(~T(0)) : T((T(1) << take) - 1);
  return T((low & keep) | (sbit ? T(~keep) : T(0)));
}

// bfe d, a, pos, len (pos and len are the low 8 bits of b and c).
template <typename T, bool kSigned>
bool Bfe(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  ForLanesEw(mask, [&](int l) {
    T v = T(a[l]);
    uint32_t pos = uint32_t(b[l]) & 0xff, len = uint32_t(c[l]) & 0xff;
    d[l] = uint64_t(BfeValue<T, kSigned>(v, pos, len));
  });
  return true;
}

// bfi's result: base with bits pos + i (i < len, pos + i <= msb) replaced by bit i of
// ins. Closed form of that bit loop (machine_semantics_test BfiSweep checks it).
template <typename T>
T BfiValue(T ins, T base, uint32_t pos, uint32_t len) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  const uint32_t take = pos >= kBits ? 0 : std::min(len, kBits - pos);
  if (take == 0) return base;
  const T field = take >= kBits ? T(~T(0)) : T((T(1) << take) - 1);
  const T m = T(field << pos);
  return T((base & T(~m)) | (T(ins << pos) & m));
}

// bfi d, a (insert), b (base), pos, len.
template <typename T>
bool Bfi(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  const uint64_t* e = x.R(in.s[3]);
  ForLanesEw(mask, [&](int l) {
    uint32_t pos = uint32_t(c[l]) & 0xff, len = uint32_t(e[l]) & 0xff;
    d[l] = uint64_t(BfiValue<T>(T(a[l]), T(b[l]), pos, len));
  });
  return true;
}

// bfi and bfe with immediate pos and len (in.aux, in.aux2): the field mask once per
// instruction instead of once per lane (same bits as BfiValue / BfeValue).
template <typename T>
bool BfiConst(Exec& x, const Insn& in, uint32_t mask) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint32_t pos = uint32_t(in.aux), len = uint32_t(in.aux2);
  const uint32_t take = pos >= kBits ? 0 : std::min(len, kBits - pos);
  const uint32_t shift = take == 0 ? 0 : pos;
  const T field = take == 0 ? T(0) : take >= kBits ? T(~T(0)) : T((T(1) << take) - 1);
  const T m = T(field << shift);
  ForLanesEw(mask, [&](int l) {
    d[l] = uint64_t(T((T(b[l]) & T(~m)) | (T(T(a[l]) << shift) & m)));
  });
  return true;
}

template <typename T>
bool BfeConstUnsigned(Exec& x, const Insn& in, uint32_t mask) {
  constexpr uint32_t kBits = 8 * sizeof(T);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint32_t pos = uint32_t(in.aux), len = uint32_t(in.aux2);
  const uint32_t take = pos >= kBits ? 0 : std::min(len, kBits - pos);
  const uint32_t shift = take == 0 ? 0 : pos;
  const T keep = take == 0 ? T(0) : take >= kBits ? T(~T(0)) : T((T(1) << take) - 1);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(T(T(a[l]) >> shift) & keep); });
  return true;
}

}  // namespace

// prmt.b32 d, a, b, c: byte permute of the 8 bytes {b3 b2 b1 b0 a3 a2 a1 a0}.
uint32_t Prmt(uint32_t a, uint32_t b, uint32_t c, ptx::PrmtMode mode) {
  uint64_t tmp = (uint64_t(b) << 32) | a;
  auto byte = [&](uint32_t i) { return uint32_t((tmp >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  uint32_t s = c & 3;
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t v;
    switch (mode) {
      case ptx::PrmtMode::kDefault: {
        uint32_t sel = (c >> (4 * i)) & 0xf;
        v = byte(sel);
        if (sel & 8) v = (v & 0x80) ? 0xff : 0;
        break;
      }
      case ptx::PrmtMode::kF4e:
        v = byte(s + i);
        break;
      case ptx::PrmtMode::kB4e:
        v = byte((s - i) & 7);
        break;
      case ptx::PrmtMode::kRc8:
        v = byte(s);
        break;
      case ptx::PrmtMode::kEcl:
        v = byte(std::max(i, s));
        break;
      case ptx::PrmtMode::kEcr:
        v = byte(std::min(i, s));
        break;
      case ptx::PrmtMode::kRc16:
        v = byte((s & 1) * 2 + (i & 1));
        break;
      default:
        v = 0;
    }
    r |= v << (8 * i);
  }
  return r;
}

// lop3.b32: bit i of the result = immLut[(a_i << 2) | (b_i << 1) | c_i].
uint32_t Lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if ((lut >> i) & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  }
  return r;
}

namespace {

template <ptx::PrmtMode kMode>
bool ExecPrmt(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  ForLanesEw(mask, [&](int l) {
    d[l] = Prmt(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), kMode);
  });
  return true;
}

// prmt.b32 (default mode) with an immediate selector that picks bytes without sign
// replication (every selector nibble < 8): in.aux holds the four byte shifts of {b, a},
// computed at decode, so each lane is four shift-and-masks (Prmt with the same selector
// gives the same bits; the codegen's 16-bit packing uses 0x5410 / 0x7632).
bool ExecPrmtPick(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint32_t s0 = uint32_t(in.aux) & 0xff, s1 = uint32_t(in.aux >> 8) & 0xff,
                 s2 = uint32_t(in.aux >> 16) & 0xff, s3 = uint32_t(in.aux >> 24) & 0xff;
  ForLanesEw(mask, [&](int l) {
    const uint64_t t = (b[l] << 32) | uint32_t(a[l]);
    d[l] = ((t >> s0) & 0xff) | (((t >> s1) & 0xff) << 8) | (((t >> s2) & 0xff) << 16) |
           (((t >> s3) & 0xff) << 24);
  });
  return true;
}

// A selector that picks two aligned 16-bit halves of {b, a} (the codegen's packings):
// aux = the bit offsets of the low and the high half (the same bytes as ExecPrmtPick).
bool ExecPrmtHalves(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint32_t h0 = uint32_t(in.aux) & 0xff, h1 = uint32_t(in.aux >> 16) & 0xff;
  ForLanesEw(mask, [&](int l) {
    const uint64_t t = (b[l] << 32) | uint32_t(a[l]);
    d[l] = ((t >> h0) & 0xffff) | (((t >> h1) & 0xffff) << 16);
  });
  return true;
}

// The same for a selector known at compile time that picks two aligned 16-bit halves (the
// packings the codegen emits: 0x5410 = low halves of a and b, 0x7632 = high halves,
// 0x5432, 0x7610): each half is taken straight from its source register, a shift and a
// mask (the same bits as the byte picks of ExecPrmtPick, without building {b, a}).
template <uint32_t kSel>
bool ExecPrmtConst(Exec& x, const Insn& in, uint32_t mask) {
  // Halves of {b, a} by index: 0, 1 of a, 2, 3 of b.
  constexpr uint32_t kLo = (kSel & 7) / 2, kHi = ((kSel >> 8) & 7) / 2;
  static_assert((kSel & 0x8888) == 0, "no sign replication");
  static_assert((kSel & 0xf) == 2 * kLo && ((kSel >> 4) & 0xf) == 2 * kLo + 1 &&
                    ((kSel >> 8) & 0xf) == 2 * kHi && ((kSel >> 12) & 0xf) == 2 * kHi + 1,
                "two aligned halves");
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  ForLanesEw(mask, [&](int l) {
    const uint64_t lo = ((kLo < 2 ? a[l] : b[l]) >> (16 * (kLo % 2))) & 0xffff;
    const uint64_t hi = ((kHi < 2 ? a[l] : b[l]) >> (16 * (kHi % 2))) & 0xffff;
    d[l] = lo | hi << 16;
  });
  return true;
}

bool ExecLop3(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  uint32_t lut = uint32_t(in.aux);
  ForLanesEw(mask, [&](int l) {
    d[l] = Lop3(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), lut);
  });
  return true;
}

// Predicate logic: and/or/xor/not/mov on .pred (lane masks).
template <int kOp>  // 0 and, 1 or, 2 xor, 3 not, 4 mov
bool PredOp(Exec& x, const Insn& in, uint32_t mask) {
  uint32_t a = x.preds[in.s[0]] ^ (in.aux & 1 ? ~0u : 0u);
  uint32_t b = kOp < 3 ? x.preds[in.s[1]] : 0;
  uint32_t r = kOp == 0   ? (a & b)
               : kOp == 1 ? (a | b)
               : kOp == 2 ? (a ^ b)
               : kOp == 3 ? ~a
                          : a;
  uint32_t& d = x.preds[in.d[0]];
  d = (d & ~mask) | (r & mask);
  return true;
}

// mov of a value (any width): d = a masked to the instruction width.
bool ExecMov(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  uint64_t m = in.aux;
  ForLanesEw(mask, [&](int l) { d[l] = a[l] & m; });
  return true;
}

// mov.bN d, {a, b, ...}: element i goes to bits [i*w, (i+1)*w).
bool ExecPack(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  uint32_t w = uint32_t(in.aux);
  uint64_t em = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  ForLanesEw(mask, [&](int l) {
    uint64_t v = 0;
    for (int i = 0; i < in.ns; ++i) v |= (x.R(in.s[i])[l] & em) << (i * w);
    d[l] = v;
  });
  return true;
}

// mov.bN {a, b, ...}, d: the inverse.
bool ExecUnpack(Exec& x, const Insn& in, uint32_t mask) {
  const uint64_t* a = x.R(in.s[0]);
  uint32_t w = uint32_t(in.aux);
  uint64_t em = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  ForLanesEw(mask, [&](int l) {
    uint64_t v = a[l];
    for (int i = 0; i < in.nd; ++i) x.R(in.d[i])[l] = (v >> (i * w)) & em;
  });
  return true;
}

// %clock / %clock64 / %globaltimer: the thread's issue count so far (deterministic).
bool ExecClock(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  ForLanesEw(mask, [&](int l) {
    uint64_t t = x.w->issued + x.w->lane_extra[l];
    if (in.aux == 2) t *= 1000;  // globaltimer counts nanoseconds
    d[l] = t & in.dmask;
  });
  return true;
}

// ---- setp ---------------------------------------------------------------------------
template <typename T, typename C, bool (*F)(C, C)>
bool Setp(Exec& x, const Insn& in, uint32_t mask) {
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  uint32_t r = 0;
  ForLanesEw(mask, [&](int l) { r |= uint32_t(F(C(T(a[l])), C(T(b[l])))) << l; });
  SetpFinish(x, in, mask, r);
  return true;
}

template <typename C>
bool CmpEq(C a, C b) {
  return a == b;
}
template <typename C>
bool CmpNe(C a, C b) {
  return a != b;
}
template <typename C>
bool CmpLt(C a, C b) {
  return a < b;
}
template <typename C>
bool CmpLe(C a, C b) {
  return a <= b;
}
template <typename C>
bool CmpGt(C a, C b) {
  return a > b;
}
template <typename C>
bool CmpGe(C a, C b) {
  return a >= b;
}

template <typename T, typename C>
ExecFn PickSetp(ptx::CmpOp op) {
  switch (op) {
    case ptx::CmpOp::kEq:
      return &Setp<T, C, &CmpEq<C>>;
    case ptx::CmpOp::kNe:
      return &Setp<T, C, &CmpNe<C>>;
    case ptx::CmpOp::kLt:
    case ptx::CmpOp::kLo:
      return &Setp<T, C, &CmpLt<C>>;
    case ptx::CmpOp::kLe:
    case ptx::CmpOp::kLs:
      return &Setp<T, C, &CmpLe<C>>;
    case ptx::CmpOp::kGt:
    case ptx::CmpOp::kHi:
      return &Setp<T, C, &CmpGt<C>>;
    case ptx::CmpOp::kGe:
    case ptx::CmpOp::kHs:
      return &Setp<T, C, &CmpGe<C>>;
    default:
      return nullptr;
  }
}

template <typename T>
bool Selp(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  uint32_t c = x.preds[in.q] ^ (in.q_neg ? ~0u : 0u);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(T(((c >> l) & 1) ? a[l] : b[l])); });
  return true;
}

// ---- decode helpers -----------------------------------------------------------------
int Bits(Type t) { return ptx::TypeBits(t); }

template <template <typename> class Pick>
ExecFn ByWidth(int bits) {
  switch (bits) {
    case 16:
      return Pick<uint16_t>::fn;
    case 32:
      return Pick<uint32_t>::fn;
    case 64:
      return Pick<uint64_t>::fn;
    default:
      return nullptr;
  }
}

#define WARPCHECK_BIN_PICK(NAME, OP)              \
  template <typename T>                           \
  struct NAME {                                   \
    static constexpr ExecFn fn = &Bin<T, &OP<T>>; \
  };
WARPCHECK_BIN_PICK(PickAdd, OpAdd)
WARPCHECK_BIN_PICK(PickSub, OpSub)
WARPCHECK_BIN_PICK(PickMulLo, OpMulLo)
WARPCHECK_BIN_PICK(PickMulHiU, OpMulHiU)
WARPCHECK_BIN_PICK(PickMulHiS, OpMulHiS)
WARPCHECK_BIN_PICK(PickAnd, OpAnd)
WARPCHECK_BIN_PICK(PickOr, OpOr)
WARPCHECK_BIN_PICK(PickXor, OpXor)
WARPCHECK_BIN_PICK(PickMinU, OpMinU)
WARPCHECK_BIN_PICK(PickMaxU, OpMaxU)
WARPCHECK_BIN_PICK(PickMinS, OpMinS)
WARPCHECK_BIN_PICK(PickMaxS, OpMaxS)
WARPCHECK_BIN_PICK(PickDivU, OpDivU)
WARPCHECK_BIN_PICK(PickDivS, OpDivS)
WARPCHECK_BIN_PICK(PickRemU, OpRemU)
WARPCHECK_BIN_PICK(PickRemS, OpRemS)
#undef WARPCHECK_BIN_PICK

#define WARPCHECK_UN_PICK(NAME, TEMPLATE, OP)          \
  template <typename T>                                \
  struct NAME {                                        \
    static constexpr ExecFn fn = &TEMPLATE<T, &OP<T>>; \
  };
WARPCHECK_UN_PICK(PickNot, Un, OpNot)
WARPCHECK_UN_PICK(PickCnot, Un, OpCnot)
WARPCHECK_UN_PICK(PickNeg, Un, OpNeg)
WARPCHECK_UN_PICK(PickAbs, Un, OpAbs)
WARPCHECK_UN_PICK(PickBrev, Un, OpBrev)
WARPCHECK_UN_PICK(PickPopc, CountOp, OpPopc)
WARPCHECK_UN_PICK(PickClz, CountOp, OpClz)
#undef WARPCHECK_UN_PICK

template <typename T>
struct PickMadLo {
  static constexpr ExecFn fn = &Mad<T, &OpMulLo<T>>;
};
template <typename T>
struct PickMadHiU {
  static constexpr ExecFn fn = &Mad<T, &OpMulHiU<T>>;
};
template <typename T>
struct PickMadHiS {
  static constexpr ExecFn fn = &Mad<T, &OpMulHiS<T>>;
};
template <typename T>
struct PickShl {
  static constexpr ExecFn fn = &Shift<T, 0>;
};
template <typename T>
struct PickShrU {
  static constexpr ExecFn fn = &Shift<T, 1>;
};
template <typename T>
struct PickShlConst {
  static constexpr ExecFn fn = &ShiftConst<T, 0>;
};
template <typename T>
struct PickShrUConst {
  static constexpr ExecFn fn = &ShiftConst<T, 1>;
};
template <typename T>
struct PickShrSConst {
  static constexpr ExecFn fn = &ShiftConst<T, 2>;
};
template <typename T>
struct PickShrS {
  static constexpr ExecFn fn = &Shift<T, 2>;
};
template <typename T>
struct PickSelp {
  static constexpr ExecFn fn = &Selp<T>;
};

// An integer immediate operand (its value is known at decode time).
bool IsIntImm(const ptx::Operand& o) {
  return o.kind == ptx::OperandKind::kImm && o.imm_kind == ptx::ImmKind::kInt;
}

absl::Status Unsupported(DecodeCtx& ctx, const ptx::Instruction& in,
                         absl::string_view why = "") {
  return ctx.Error(in.loc,
                   absl::StrCat("'", in.opcode_text, "' is not supported by the machine",
                                why.empty() ? "" : ": ", why));
}

// Destination and sources for an N-source op of type `t` (sources read at `t`).
absl::Status Operands(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out, Type t,
                      int dst_bits, int nsrc, Type src_type) {
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], dst_bits, &out->dmask));
  out->nd = 1;
  for (int i = 0; i < nsrc; ++i) {
    ASSIGN_OR_RETURN(out->s[i], ctx.Src(in.operands[1 + i], src_type));
  }
  out->ns = static_cast<uint8_t>(nsrc);
  return absl::OkStatus();
}

absl::Status DecodePredLogic(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  ASSIGN_OR_RETURN(uint16_t d, ctx.PredDst(in.operands[0]));
  out->d[0] = d;
  int nsrc = static_cast<int>(in.operands.size()) - 1;
  for (int i = 0; i < nsrc; ++i) {
    uint16_t idx;
    bool neg;
    RETURN_IF_ERROR(ctx.PredSrc(in.operands[1 + i], &idx, &neg));
    if (neg)
      return ctx.Error(in.operands[1 + i].loc, "'!' is only allowed in setp and selp");
    out->s[i] = idx;
  }
  switch (in.op) {
    case Opcode::kAnd:
      out->fn = &PredOp<0>;
      break;
    case Opcode::kOr:
      out->fn = &PredOp<1>;
      break;
    case Opcode::kXor:
      out->fn = &PredOp<2>;
      break;
    case Opcode::kNot:
      out->fn = &PredOp<3>;
      break;
    case Opcode::kMov:
      out->fn = &PredOp<4>;
      break;
    default:
      return Unsupported(ctx, in, "on .pred");
  }
  return absl::OkStatus();
}

// mul/mad with .lo, .hi or .wide (ByWidth picks the width's semantic).
absl::Status DecodeMul(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out, Type t, int bits,
                       bool s) {
  bool mad = in.op == Opcode::kMad;
  ptx::MulMode mode = in.mods.mul;
  if (mode == ptx::MulMode::kNone)
    return Unsupported(ctx, in, "needs .lo, .hi or .wide");
  if (mode == ptx::MulMode::kWide) {
    if (bits == 64) return Unsupported(ctx, in, ".wide takes 16 or 32-bit sources");
    ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], 2 * bits, &out->dmask));
    out->nd = 1;
    ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[1], t));
    ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[2], t));
    out->ns = 2;
    if (mad) {
      Type wide_t =
          bits == 16 ? (s ? Type::kS32 : Type::kU32) : (s ? Type::kS64 : Type::kU64);
      ASSIGN_OR_RETURN(out->s[2], ctx.Src(in.operands[3], wide_t));
      out->ns = 3;
    }
    if (bits == 16) {
      out->fn =
          s ? (mad ? &Wide2<uint16_t, true, true> : &Wide2<uint16_t, true, false>)
            : (mad ? &Wide2<uint16_t, false, true> : &Wide2<uint16_t, false, false>);
    } else {
      out->fn =
          s ? (mad ? &Wide2<uint32_t, true, true> : &Wide2<uint32_t, true, false>)
            : (mad ? &Wide2<uint32_t, false, true> : &Wide2<uint32_t, false, false>);
    }
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, mad ? 3 : 2, t));
  if (mode == ptx::MulMode::kLo) {
    out->fn = mad ? ByWidth<PickMadLo>(bits) : ByWidth<PickMulLo>(bits);
  } else if (s) {
    out->fn = mad ? ByWidth<PickMadHiS>(bits) : ByWidth<PickMulHiS>(bits);
  } else {
    out->fn = mad ? ByWidth<PickMadHiU>(bits) : ByWidth<PickMulHiU>(bits);
  }
  return absl::OkStatus();
}

// Bit-field and byte ops: bfe, bfi, prmt, lop3.
absl::Status DecodeBitField(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out, Type t,
                            int bits, bool s) {
  switch (in.op) {
    case Opcode::kBfe: {
      if (bits == 16) return Unsupported(ctx, in, "bfe takes 32 or 64-bit types");
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 1, t));
      ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[2], Type::kU32));
      ASSIGN_OR_RETURN(out->s[2], ctx.Src(in.operands[3], Type::kU32));
      out->ns = 3;
      out->fn = bits == 32 ? (s ? &Bfe<uint32_t, true> : &Bfe<uint32_t, false>)
                           : (s ? &Bfe<uint64_t, true> : &Bfe<uint64_t, false>);
      if (!s && IsIntImm(in.operands[2]) && IsIntImm(in.operands[3])) {
        out->aux = ImmValue(in.operands[2], Type::kU32) & 0xff;
        out->aux2 = ImmValue(in.operands[3], Type::kU32) & 0xff;
        out->fn = bits == 32 ? &BfeConstUnsigned<uint32_t> : &BfeConstUnsigned<uint64_t>;
      }
      return absl::OkStatus();
    }
    case Opcode::kBfi: {
      if (bits == 16) return Unsupported(ctx, in, "bfi takes 32 or 64-bit types");
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 2, t));
      ASSIGN_OR_RETURN(out->s[2], ctx.Src(in.operands[3], Type::kU32));
      ASSIGN_OR_RETURN(out->s[3], ctx.Src(in.operands[4], Type::kU32));
      out->ns = 4;
      out->fn = bits == 32 ? &Bfi<uint32_t> : &Bfi<uint64_t>;
      if (IsIntImm(in.operands[3]) && IsIntImm(in.operands[4])) {
        out->aux = ImmValue(in.operands[3], Type::kU32) & 0xff;
        out->aux2 = ImmValue(in.operands[4], Type::kU32) & 0xff;
        out->fn = bits == 32 ? &BfiConst<uint32_t> : &BfiConst<uint64_t>;
      }
      return absl::OkStatus();
    }
    case Opcode::kPrmt: {
      if (t != Type::kB32) return Unsupported(ctx, in, "prmt is .b32");
      RETURN_IF_ERROR(Operands(ctx, in, out, t, 32, 3, t));
      switch (in.mods.prmt) {
        case ptx::PrmtMode::kDefault: {
          out->fn = &ExecPrmt<ptx::PrmtMode::kDefault>;
          const ptx::Operand& sel = in.operands[3];
          if (IsIntImm(sel)) {
            const uint32_t c = uint32_t(ImmValue(sel, Type::kB32));
            bool sign = false;
            uint64_t shifts = 0;
            for (uint32_t i = 0; i < 4; ++i) {
              const uint32_t nib = (c >> (4 * i)) & 0xf;
              sign = sign || (nib & 8) != 0;
              shifts |= uint64_t(8 * nib) << (8 * i);
            }
            if (!sign) {
              out->aux = shifts;
              switch (c & 0xffff) {
                case 0x5410:
                  out->fn = &ExecPrmtConst<0x5410>;
                  break;
                case 0x7632:
                  out->fn = &ExecPrmtConst<0x7632>;
                  break;
                case 0x5432:
                  out->fn = &ExecPrmtConst<0x5432>;
                  break;
                case 0x7610:
                  out->fn = &ExecPrmtConst<0x7610>;
                  break;
                default: {
                  // Byte shifts s0..s3 (bits); two aligned halves: s1 = s0 + 8,
                  // s3 = s2 + 8, s0 and s2 multiples of 16.
                  const uint32_t s0 = shifts & 0xff, s1 = (shifts >> 8) & 0xff,
                                 s2 = (shifts >> 16) & 0xff, s3 = (shifts >> 24) & 0xff;
                  const bool halves = s1 == s0 + 8 && s3 == s2 + 8 && s0 % 16 == 0 &&
                                      s2 % 16 == 0;
                  out->fn = halves ? &ExecPrmtHalves : &ExecPrmtPick;
                  break;
                }
              }
            }
          }
          break;
        }
        case ptx::PrmtMode::kF4e:
          out->fn = &ExecPrmt<ptx::PrmtMode::kF4e>;
          break;
        case ptx::PrmtMode::kB4e:
          out->fn = &ExecPrmt<ptx::PrmtMode::kB4e>;
          break;
        case ptx::PrmtMode::kRc8:
          out->fn = &ExecPrmt<ptx::PrmtMode::kRc8>;
          break;
        case ptx::PrmtMode::kEcl:
          out->fn = &ExecPrmt<ptx::PrmtMode::kEcl>;
          break;
        case ptx::PrmtMode::kEcr:
          out->fn = &ExecPrmt<ptx::PrmtMode::kEcr>;
          break;
        case ptx::PrmtMode::kRc16:
          out->fn = &ExecPrmt<ptx::PrmtMode::kRc16>;
          break;
      }
      return absl::OkStatus();
    }
    case Opcode::kLop3: {
      if (t != Type::kB32) return Unsupported(ctx, in, "lop3 is .b32");
      RETURN_IF_ERROR(Operands(ctx, in, out, t, 32, 3, t));
      if (in.operands[4].bits > 0xff)
        return ctx.Error(in.operands[4].loc, "immLut must be 0..255");
      out->aux = in.operands[4].bits;
      out->fn = &ExecLop3;
      return absl::OkStatus();
    }
    default:
      return Unsupported(ctx, in);
  }
}

}  // namespace

bool ExecNop(Exec&, const Insn&, uint32_t) { return true; }

absl::Status DecodeInt(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  if (ptx::IsFloat(t)) return DecodeFloat(ctx, in, out);
  if (t == Type::kPred) return DecodePredLogic(ctx, in, out);
  int bits = Bits(t);
  bool s = ptx::IsSigned(t);
  if (bits != 16 && bits != 32 && bits != 64) {
    return Unsupported(ctx, in, "integer operations take 16, 32 or 64-bit types");
  }
  if (in.mods.sat &&
      !((in.op == Opcode::kAdd || in.op == Opcode::kSub) && t == Type::kS32)) {
    return Unsupported(ctx, in, ".sat is supported on add.s32 and sub.s32 only");
  }
  switch (in.op) {
    case Opcode::kAdd:
    case Opcode::kSub: {
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 2, t));
      if (in.mods.sat) {
        out->fn =
            in.op == Opcode::kAdd ? &Bin<uint32_t, &OpAddSat> : &Bin<uint32_t, &OpSubSat>;
      } else {
        out->fn = in.op == Opcode::kAdd ? ByWidth<PickAdd>(bits) : ByWidth<PickSub>(bits);
      }
      return absl::OkStatus();
    }
    case Opcode::kMul:
    case Opcode::kMad:
      return DecodeMul(ctx, in, out, t, bits, s);
    case Opcode::kMin:
    case Opcode::kMax:
    case Opcode::kDiv:
    case Opcode::kRem: {
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 2, t));
      if (in.op == Opcode::kMin)
        out->fn = s ? ByWidth<PickMinS>(bits) : ByWidth<PickMinU>(bits);
      if (in.op == Opcode::kMax)
        out->fn = s ? ByWidth<PickMaxS>(bits) : ByWidth<PickMaxU>(bits);
      if (in.op == Opcode::kDiv)
        out->fn = s ? ByWidth<PickDivS>(bits) : ByWidth<PickDivU>(bits);
      if (in.op == Opcode::kRem)
        out->fn = s ? ByWidth<PickRemS>(bits) : ByWidth<PickRemU>(bits);
      return absl::OkStatus();
    }
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor: {
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 2, t));
      out->fn = in.op == Opcode::kAnd  ? ByWidth<PickAnd>(bits)
                : in.op == Opcode::kOr ? ByWidth<PickOr>(bits)
                                       : ByWidth<PickXor>(bits);
      return absl::OkStatus();
    }
    case Opcode::kNot:
    case Opcode::kCnot:
    case Opcode::kNeg:
    case Opcode::kAbs:
    case Opcode::kBrev: {
      if ((in.op == Opcode::kNeg || in.op == Opcode::kAbs) && !s) {
        return Unsupported(ctx, in, "neg and abs take signed types");
      }
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 1, t));
      out->fn = in.op == Opcode::kNot    ? ByWidth<PickNot>(bits)
                : in.op == Opcode::kCnot ? ByWidth<PickCnot>(bits)
                : in.op == Opcode::kNeg  ? ByWidth<PickNeg>(bits)
                : in.op == Opcode::kAbs  ? ByWidth<PickAbs>(bits)
                                         : ByWidth<PickBrev>(bits);
      return absl::OkStatus();
    }
    case Opcode::kPopc:
    case Opcode::kClz: {
      if (bits == 16) return Unsupported(ctx, in, "popc and clz take 32 or 64-bit types");
      RETURN_IF_ERROR(Operands(ctx, in, out, t, 32, 1, t));
      out->fn = in.op == Opcode::kPopc ? ByWidth<PickPopc>(bits) : ByWidth<PickClz>(bits);
      return absl::OkStatus();
    }
    case Opcode::kShl:
    case Opcode::kShr: {
      RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 1, t));
      ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[2], Type::kU32));
      out->ns = 2;
      if (in.op == Opcode::kShl) {
        out->fn = ByWidth<PickShl>(bits);
      } else {
        out->fn = s ? ByWidth<PickShrS>(bits) : ByWidth<PickShrU>(bits);
      }
      if (IsIntImm(in.operands[2])) {
        out->aux = ImmValue(in.operands[2], Type::kU32);
        out->fn = in.op == Opcode::kShl ? ByWidth<PickShlConst>(bits)
                  : s                   ? ByWidth<PickShrSConst>(bits)
                                        : ByWidth<PickShrUConst>(bits);
      }
      return absl::OkStatus();
    }
    case Opcode::kBfe:
    case Opcode::kBfi:
    case Opcode::kPrmt:
    case Opcode::kLop3:
      return DecodeBitField(ctx, in, out, t, bits, s);
    default:
      return Unsupported(ctx, in);
  }
}

absl::Status DecodeMov(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  if (t == Type::kPred) return DecodePredLogic(ctx, in, out);
  int bits = Bits(t);
  if (bits < 16 || bits > 64)
    return Unsupported(ctx, in, "mov takes 16, 32 or 64-bit types");
  const ptx::Operand& dst = in.operands[0];
  const ptx::Operand& src = in.operands[1];
  if (dst.kind == ptx::OperandKind::kVector) {
    if (src.kind == ptx::OperandKind::kVector)
      return Unsupported(ctx, in, "vector to vector");
    int n = static_cast<int>(dst.elems.size());
    if (n < 2 || n > 4 || bits % n != 0)
      return Unsupported(ctx, in, "unpack into 2 or 4 parts");
    int w = bits / n;
    for (int i = 0; i < n; ++i) {
      if (dst.elems[i].kind == ptx::OperandKind::kImm) {
        return ctx.Error(dst.elems[i].loc, "cannot unpack into an immediate");
      }
      ASSIGN_OR_RETURN(out->d[i], ctx.Dst(dst.elems[i], w));
    }
    out->nd = static_cast<uint8_t>(n);
    ASSIGN_OR_RETURN(out->s[0], ctx.Src(src, t));
    out->ns = 1;
    out->aux = static_cast<uint64_t>(w);
    out->fn = &ExecUnpack;
    return absl::OkStatus();
  }
  if (src.kind == ptx::OperandKind::kVector) {
    int n = static_cast<int>(src.elems.size());
    if (n < 2 || n > 4 || bits % n != 0) return Unsupported(ctx, in, "pack 2 or 4 parts");
    int w = bits / n;
    Type part = w == 8 ? Type::kB8 : w == 16 ? Type::kB16 : Type::kB32;
    ASSIGN_OR_RETURN(out->d[0], ctx.Dst(dst, bits, &out->dmask));
    out->nd = 1;
    for (int i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(out->s[i], ctx.Src(src.elems[i], part));
    }
    out->ns = static_cast<uint8_t>(n);
    out->aux = static_cast<uint64_t>(w);
    out->fn = &ExecPack;
    return absl::OkStatus();
  }
  if (src.kind == ptx::OperandKind::kSpecial &&
      (src.special == ptx::SpecialReg::kClock ||
       src.special == ptx::SpecialReg::kClock64 ||
       src.special == ptx::SpecialReg::kGlobaltimer)) {
    ASSIGN_OR_RETURN(out->d[0], ctx.Dst(dst, bits, &out->dmask));
    out->nd = 1;
    out->dmask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    out->aux = src.special == ptx::SpecialReg::kGlobaltimer ? 2 : 1;
    out->fn = &ExecClock;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(dst, bits, &out->dmask));
  out->nd = 1;
  ASSIGN_OR_RETURN(out->s[0], ctx.Src(src, t));
  out->ns = 1;
  out->aux = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  out->fn = &ExecMov;
  return absl::OkStatus();
}

ExecFn FloatSetp(Type t, ptx::CmpOp op);  // sem_float.cc

absl::Status DecodeSetp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  const ptx::Operand& dst = in.operands[0];
  if (dst.kind == ptx::OperandKind::kPair) {
    ASSIGN_OR_RETURN(out->p[0], ctx.PredDst(dst.elems[0]));
    ASSIGN_OR_RETURN(out->p[1], ctx.PredDst(dst.elems[1]));
    out->has_p1 = true;
  } else {
    ASSIGN_OR_RETURN(out->p[0], ctx.PredDst(dst));
  }
  ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[1], t));
  ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[2], t));
  out->ns = 2;
  bool has_c = in.operands.size() == 4;
  if (has_c != (in.mods.bool_op != ptx::BoolOp::kNone)) {
    return ctx.Error(
        in.loc,
        "setp takes a fourth predicate operand exactly when it has .and/.or/.xor");
  }
  out->q = ctx.pred_false();
  if (has_c) RETURN_IF_ERROR(ctx.PredSrc(in.operands[3], &out->q, &out->q_neg));
  out->aux2 = static_cast<uint64_t>(in.mods.bool_op);
  out->aux = in.mods.ftz ? 1 : 0;
  ptx::CmpOp op = in.mods.cmp;
  if (op == ptx::CmpOp::kNone) return Unsupported(ctx, in, "needs a comparison");
  if (ptx::IsFloat(t)) {
    out->fn = FloatSetp(t, op);
    if (out->fn == nullptr) return Unsupported(ctx, in, "float setp on .f32 and .f64");
    return absl::OkStatus();
  }
  int bits = Bits(t);
  bool s = ptx::IsSigned(t);
  if (op >= ptx::CmpOp::kEqu)
    return Unsupported(ctx, in, "unordered comparisons need a float type");
  if (s && (op == ptx::CmpOp::kLo || op == ptx::CmpOp::kLs || op == ptx::CmpOp::kHi ||
            op == ptx::CmpOp::kHs)) {
    return Unsupported(ctx, in, "lo/ls/hi/hs compare unsigned values");
  }
  switch (bits) {
    case 16:
      out->fn = s ? PickSetp<uint16_t, int16_t>(op) : PickSetp<uint16_t, uint16_t>(op);
      break;
    case 32:
      out->fn = s ? PickSetp<uint32_t, int32_t>(op) : PickSetp<uint32_t, uint32_t>(op);
      break;
    case 64:
      out->fn = s ? PickSetp<uint64_t, int64_t>(op) : PickSetp<uint64_t, uint64_t>(op);
      break;
    default:
      return Unsupported(ctx, in, "setp takes 16, 32 or 64-bit types");
  }
  if (out->fn == nullptr) return Unsupported(ctx, in);
  return absl::OkStatus();
}

absl::Status DecodeSelp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  int bits = Bits(t);
  if (bits < 16 || bits > 64)
    return Unsupported(ctx, in, "selp takes 16, 32 or 64-bit types");
  RETURN_IF_ERROR(Operands(ctx, in, out, t, bits, 2, t));
  RETURN_IF_ERROR(ctx.PredSrc(in.operands[3], &out->q, &out->q_neg));
  out->fn = ByWidth<PickSelp>(bits);
  return absl::OkStatus();
}

}  // namespace warpcheck::sim::machine
