// cvt (every integer/float combination of the subset) and f32/f64 arithmetic.
//
// Float arithmetic uses the host's IEEE binary32/binary64 operations, which round to
// nearest-even exactly as the GPU does for .rn; std::fma is the fused multiply-add.
// Differences from the host are handled explicitly: results that are NaN become the
// canonical NaN, `.ftz` flushes f32 subnormal inputs and results to signed zero, `.sat`
// clamps to [0, 1]. Other rounding modes are rejected at decode time (not needed by
// layout code).
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/machine/float_bits.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

using ptx::Opcode;
using ptx::Rounding;
using ptx::Type;

namespace {

absl::Status Unsupported(DecodeCtx& ctx, const ptx::Instruction& in,
                         absl::string_view why) {
  return ctx.Error(in.loc, absl::StrCat("'", in.opcode_text,
                                        "' is not supported by the machine: ", why));
}

std::optional<FloatFormat> FormatOf(Type t) {
  switch (t) {
    case Type::kF16:
      return FloatFormat::kF16;
    case Type::kBf16:
      return FloatFormat::kBf16;
    case Type::kF32:
      return FloatFormat::kF32;
    case Type::kF64:
      return FloatFormat::kF64;
    default:
      return std::nullopt;
  }
}

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// cvt parameters packed in Insn::aux:
//   bits 0-7 src bits, 8-15 dst bits, 16 src signed, 17 dst signed, 18 sat, 19 ftz,
//   20-23 src format, 24-27 dst format, 28-31 rounding.
struct CvtParams {
  int src_bits, dst_bits;
  bool src_signed, dst_signed, sat, ftz;
  FloatFormat src_fmt, dst_fmt;
  Rounding rnd;
};
uint64_t Pack(const CvtParams& p) {
  return uint64_t(p.src_bits) | uint64_t(p.dst_bits) << 8 | uint64_t(p.src_signed) << 16 |
         uint64_t(p.dst_signed) << 17 | uint64_t(p.sat) << 18 | uint64_t(p.ftz) << 19 |
         uint64_t(p.src_fmt) << 20 | uint64_t(p.dst_fmt) << 24 | uint64_t(p.rnd) << 28;
}
CvtParams Unpack(uint64_t a) {
  return CvtParams{int(a & 0xff),
                   int((a >> 8) & 0xff),
                   bool((a >> 16) & 1),
                   bool((a >> 17) & 1),
                   bool((a >> 18) & 1),
                   bool((a >> 19) & 1),
                   FloatFormat((a >> 20) & 0xf),
                   FloatFormat((a >> 24) & 0xf),
                   Rounding((a >> 28) & 0xf)};
}

// Integer -> integer: extend by the source type, then truncate or saturate.
uint64_t CvtIntInt(uint64_t v, const CvtParams& p) {
  v &= Mask(p.src_bits);
  __int128 x = p.src_signed && p.src_bits < 64 && ((v >> (p.src_bits - 1)) & 1)
                   ? static_cast<__int128>(static_cast<int64_t>(v | ~Mask(p.src_bits)))
                   : (p.src_signed ? static_cast<__int128>(static_cast<int64_t>(v))
                                   : static_cast<__int128>(v));
  if (p.sat) {
    __int128 lo = p.dst_signed ? -(static_cast<__int128>(1) << (p.dst_bits - 1)) : 0;
    __int128 hi = p.dst_signed ? (static_cast<__int128>(1) << (p.dst_bits - 1)) - 1
                               : (static_cast<__int128>(1) << p.dst_bits) - 1;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
  }
  return static_cast<uint64_t>(x) & Mask(p.dst_bits);
}

uint64_t SatFloat(uint64_t bits, FloatFormat f) {
  // Clamp to [0.0, 1.0]; NaN -> +0.
  uint64_t one = ConvertFloat(0x3F800000, FloatFormat::kF32, f, Rounding::kRn);
  if (IsNan(bits, f)) return 0;
  int sign_bit = f == FloatFormat::kF64 ? 63 : f == FloatFormat::kF32 ? 31 : 15;
  if ((bits >> sign_bit) & 1) return 0;  // negative (or -0) -> +0
  uint64_t wide = ConvertFloat(bits, f, FloatFormat::kF64, Rounding::kRn);
  double d;
  std::memcpy(&d, &wide, 8);
  return d > 1.0 ? one : bits;
}

// A signed result narrower than its register is sign-extended to the register's width
// (measured on an H200: cvt.s8.s32 of 0x1F0 into a .b16 register gives 0xFFF0).
inline uint64_t ExtendSigned(uint64_t v, const CvtParams& p, uint64_t dmask) {
  if (p.dst_signed && p.dst_bits < 64 && ((v >> (p.dst_bits - 1)) & 1))
    v |= ~Mask(p.dst_bits);
  return v & dmask;
}

bool ExecCvtIntInt(Exec& x, const Insn& in, uint32_t mask) {
  CvtParams p = Unpack(in.aux);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = ExtendSigned(CvtIntInt(a[l], p), p, in.dmask); });
  return true;
}

// Common widenings used in address arithmetic, without the generic path.
bool ExecCvtU64U32(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = uint32_t(a[l]); });
  return true;
}
bool ExecCvtS64S32(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = uint64_t(int64_t(int32_t(uint32_t(a[l])))); });
  return true;
}
template <typename T>
bool ExecCvtTrunc(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanesEw(mask, [&](int l) { d[l] = T(a[l]); });
  return true;
}

uint64_t FlushIf(uint64_t bits, FloatFormat f, bool ftz) {
  return (ftz && f == FloatFormat::kF32) ? FlushF32(uint32_t(bits)) : bits;
}

bool ExecCvtFloatFloat(Exec& x, const Insn& in, uint32_t mask) {
  CvtParams p = Unpack(in.aux);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanes(mask, [&](int l) {
    uint64_t v = FlushIf(a[l] & Mask(p.src_bits), p.src_fmt, p.ftz);
    uint64_t r;
    if (p.src_fmt == p.dst_fmt) {
      // Round to an integral value in the same format (cvt.rni.f32.f32).
      if (IsNan(v, p.src_fmt)) {
        r = ConvertNan(v, p.src_fmt, p.dst_fmt);
      } else if (p.rnd >= Rounding::kRni) {
        uint64_t w = ConvertFloat(v, p.src_fmt, FloatFormat::kF64, Rounding::kRn);
        double dv;
        std::memcpy(&dv, &w, 8);
        switch (p.rnd) {
          case Rounding::kRni:
            dv = std::nearbyint(dv);
            break;
          case Rounding::kRmi:
            dv = std::floor(dv);
            break;
          case Rounding::kRpi:
            dv = std::ceil(dv);
            break;
          default:
            dv = std::trunc(dv);
            break;
        }
        std::memcpy(&w, &dv, 8);
        r = ConvertFloat(w, FloatFormat::kF64, p.dst_fmt, Rounding::kRn);
      } else {
        r = v;
      }
    } else {
      r = ConvertFloat(v, p.src_fmt, p.dst_fmt, p.rnd);
    }
    r = FlushIf(r, p.dst_fmt, p.ftz);
    if (p.sat) r = SatFloat(r, p.dst_fmt);
    d[l] = r;
  });
  return true;
}

// cvt.rn.f16x2.f32 d, a, b: a -> upper half, b -> lower half.
bool ExecCvtPack2(Exec& x, const Insn& in, uint32_t mask) {
  CvtParams p = Unpack(in.aux);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  ForLanes(mask, [&](int l) {
    uint64_t hi = ConvertFloat(FlushIf(uint32_t(a[l]), FloatFormat::kF32, p.ftz),
                               FloatFormat::kF32, p.dst_fmt, p.rnd);
    uint64_t lo = ConvertFloat(FlushIf(uint32_t(b[l]), FloatFormat::kF32, p.ftz),
                               FloatFormat::kF32, p.dst_fmt, p.rnd);
    if (p.sat) {
      hi = SatFloat(hi, p.dst_fmt);
      lo = SatFloat(lo, p.dst_fmt);
    }
    d[l] = (hi << 16) | lo;
  });
  return true;
}

bool ExecCvtIntFloat(Exec& x, const Insn& in, uint32_t mask) {
  CvtParams p = Unpack(in.aux);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanes(mask, [&](int l) {
    uint64_t v = a[l] & Mask(p.src_bits);
    bool neg = false;
    uint64_t mag = v;
    if (p.src_signed && ((v >> (p.src_bits - 1)) & 1)) {
      neg = true;
      mag = (~v + 1) & Mask(p.src_bits);
      if (mag == 0) mag = uint64_t{1} << (p.src_bits - 1);  // INT_MIN
    }
    uint64_t r = IntToFloat(neg, mag, p.dst_fmt, p.rnd);
    r = FlushIf(r, p.dst_fmt, p.ftz);
    if (p.sat) r = SatFloat(r, p.dst_fmt);
    d[l] = r;
  });
  return true;
}

bool ExecCvtFloatInt(Exec& x, const Insn& in, uint32_t mask) {
  CvtParams p = Unpack(in.aux);
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanes(mask, [&](int l) {
    uint64_t v = FlushIf(a[l] & Mask(p.src_bits), p.src_fmt, p.ftz);
    d[l] = ExtendSigned(FloatToInt(v, p.src_fmt, p.dst_bits, p.dst_signed, p.rnd), p,
                        in.dmask);
  });
  return true;
}

// ---- f32 / f64 arithmetic -----------------------------------------------------------
template <typename F>
struct Bits;
template <>
struct Bits<float> {
  using U = uint32_t;
  static constexpr U kNan = 0x7FFFFFFFu;
  static constexpr U kSign = 0x80000000u;
};
template <>
struct Bits<double> {
  using U = uint64_t;
  static constexpr U kNan = 0x7FFFFFFFFFFFFFFFull;
  static constexpr U kSign = 0x8000000000000000ull;
};

template <typename F>
inline F Load(uint64_t v, bool ftz) {
  typename Bits<F>::U b = typename Bits<F>::U(v);
  if constexpr (sizeof(F) == 4) {
    if (ftz) b = FlushF32(b);
  }
  F f;
  std::memcpy(&f, &b, sizeof(F));
  return f;
}

// f32 NaN results are the canonical 0x7FFFFFFF; f64 results keep the host's NaN, which
// matches the GPU bit for bit (first NaN operand propagated and quieted, 0xFFF8... for
// invalid operations).
template <typename F>
inline uint64_t Store(F f, bool ftz, bool sat) {
  if (std::isnan(f) && (sat || sizeof(F) == 4)) return sat ? 0 : Bits<F>::kNan;
  if (sat) f = f < F(0) ? F(0) : (f > F(1) ? F(1) : f);
  typename Bits<F>::U b;
  std::memcpy(&b, &f, sizeof(F));
  if constexpr (sizeof(F) == 4) {
    if (ftz) b = FlushF32(b);
  }
  if (sat && (b == Bits<F>::kSign)) b = 0;  // -0 -> +0
  return b;
}

template <typename F>
F FAdd(F a, F b, F) {
  return a + b;
}
template <typename F>
F FSub(F a, F b, F) {
  return a - b;
}
template <typename F>
F FMul(F a, F b, F) {
  return a * b;
}
template <typename F>
F FFma(F a, F b, F c) {
  return std::fma(a, b, c);
}

// aux bit 0: ftz, bit 1: sat.
template <typename F, F (*Op)(F, F, F), int kSrcs>
bool FloatArith(Exec& x, const Insn& in, uint32_t mask) {
  bool ftz = in.aux & 1, sat = in.aux & 2;
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = kSrcs == 3 ? x.R(in.s[2]) : a;
  ForLanes(mask, [&](int l) {
    if constexpr (sizeof(F) == 8) {
      // f64: the first NaN operand, quieted (the host's order of operands may differ).
      const uint64_t ops[3] = {a[l], b[l], c[l]};
      for (int i = 0; i < kSrcs; ++i) {
        if ((ops[i] & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
            (ops[i] & 0x000FFFFFFFFFFFFFull) != 0) {
          d[l] = ops[i] | 0x0008000000000000ull;
          return;
        }
      }
      F r = Op(Load<F>(a[l], ftz), Load<F>(b[l], ftz), Load<F>(c[l], ftz));
      d[l] = std::isnan(r) ? 0xFFF8000000000000ull : Store<F>(r, ftz, sat);
    } else {
      d[l] = Store<F>(Op(Load<F>(a[l], ftz), Load<F>(b[l], ftz), Load<F>(c[l], ftz)), ftz,
                      sat);
    }
  });
  return true;
}

template <typename F, bool kMax>
bool FloatMinMax(Exec& x, const Insn& in, uint32_t mask) {
  bool ftz = in.aux & 1;
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  ForLanes(mask, [&](int l) {
    F fa = Load<F>(a[l], ftz), fb = Load<F>(b[l], ftz);
    F r;
    if (std::isnan(fa) && std::isnan(fb)) {
      // f32: canonical NaN (Store); f64: the second operand, quieted (measured).
      typename Bits<F>::U bb = typename Bits<F>::U(b[l]);
      if constexpr (sizeof(F) == 8) bb |= 0x0008000000000000ull;
      r = std::bit_cast<F>(bb);  // (memcpy into r: gcc's profiled build saw r unset)
    } else if (std::isnan(fa)) {
      r = fb;
    } else if (std::isnan(fb)) {
      r = fa;
    } else if (fa == fb) {
      // -0 < +0 for min and max.
      r = (std::signbit(fa) == kMax) ? fb : fa;
    } else {
      r = kMax ? (fa > fb ? fa : fb) : (fa < fb ? fa : fb);
    }
    d[l] = Store<F>(r, ftz, false);
  });
  return true;
}

template <typename F, bool kAbs>
bool FloatSign(Exec& x, const Insn& in, uint32_t mask) {
  bool ftz = in.aux & 1;
  uint64_t* d = x.R(in.d[0]);
  const uint64_t* a = x.R(in.s[0]);
  ForLanes(mask, [&](int l) {
    typename Bits<F>::U b = typename Bits<F>::U(a[l]);
    if constexpr (sizeof(F) == 4) {
      if (ftz) b = FlushF32(b);
    }
    b = kAbs ? (b & ~Bits<F>::kSign) : (b ^ Bits<F>::kSign);
    d[l] = b;
  });
  return true;
}

// ---- float setp ---------------------------------------------------------------------
template <typename F, int kOp>
bool FSetp(Exec& x, const Insn& in, uint32_t mask) {
  bool ftz = in.aux & 1;
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  uint32_t r = 0;
  ForLanes(mask, [&](int l) {
    F fa = Load<F>(a[l], ftz), fb = Load<F>(b[l], ftz);
    bool nan = std::isnan(fa) || std::isnan(fb);
    bool v;
    switch (kOp) {
      case int(ptx::CmpOp::kEq):
        v = !nan && fa == fb;
        break;
      case int(ptx::CmpOp::kNe):
        v = !nan && fa != fb;
        break;
      case int(ptx::CmpOp::kLt):
        v = !nan && fa < fb;
        break;
      case int(ptx::CmpOp::kLe):
        v = !nan && fa <= fb;
        break;
      case int(ptx::CmpOp::kGt):
        v = !nan && fa > fb;
        break;
      case int(ptx::CmpOp::kGe):
        v = !nan && fa >= fb;
        break;
      case int(ptx::CmpOp::kEqu):
        v = nan || fa == fb;
        break;
      case int(ptx::CmpOp::kNeu):
        v = nan || fa != fb;
        break;
      case int(ptx::CmpOp::kLtu):
        v = nan || fa < fb;
        break;
      case int(ptx::CmpOp::kLeu):
        v = nan || fa <= fb;
        break;
      case int(ptx::CmpOp::kGtu):
        v = nan || fa > fb;
        break;
      case int(ptx::CmpOp::kGeu):
        v = nan || fa >= fb;
        break;
      case int(ptx::CmpOp::kNum):
        v = !nan;
        break;
      case int(ptx::CmpOp::kNan):
        v = nan;
        break;
      default:
        v = false;
    }
    r |= uint32_t(v) << l;
  });
  SetpFinish(x, in, mask, r);
  return true;
}

template <typename F>
ExecFn PickFSetp(ptx::CmpOp op) {
  switch (op) {
#define CASE(K)       \
  case ptx::CmpOp::K: \
    return &FSetp<F, int(ptx::CmpOp::K)>;
    CASE(kEq)
    CASE(kNe)
    CASE(kLt) CASE(kLe) CASE(kGt) CASE(kGe) CASE(kEqu) CASE(kNeu) CASE(kLtu) CASE(kLeu)
        CASE(kGtu) CASE(kGeu) CASE(kNum) CASE(kNan)
#undef CASE
            default : return nullptr;
  }
}

}  // namespace

ExecFn FloatSetp(Type t, ptx::CmpOp op) {
  if (t == Type::kF32) return PickFSetp<float>(op);
  if (t == Type::kF64) return PickFSetp<double>(op);
  return nullptr;
}

absl::Status DecodeCvt(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type dt = in.mods.types[0], st = in.mods.types[1];
  CvtParams p{};
  p.src_bits = ptx::TypeBits(st);
  p.dst_bits = ptx::TypeBits(dt);
  p.src_signed = ptx::IsSigned(st);
  p.dst_signed = ptx::IsSigned(dt);
  p.sat = in.mods.sat;
  p.ftz = in.mods.ftz;
  p.rnd = in.mods.rnd;
  if (st == Type::kPred || dt == Type::kPred || p.src_bits > 64 || p.dst_bits > 64) {
    return Unsupported(ctx, in, "types");
  }
  bool packed = dt == Type::kF16x2 || dt == Type::kBf16x2;
  if (packed) {
    if (st != Type::kF32 || in.operands.size() != 3) {
      return Unsupported(ctx, in, "packing takes two .f32 sources");
    }
    p.dst_fmt = dt == Type::kF16x2 ? FloatFormat::kF16 : FloatFormat::kBf16;
    p.src_fmt = FloatFormat::kF32;
    ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], 32, &out->dmask));
    ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[1], st));
    ASSIGN_OR_RETURN(out->s[1], ctx.Src(in.operands[2], st));
    out->nd = 1;
    out->ns = 2;
    out->aux = Pack(p);
    out->fn = &ExecCvtPack2;
    return absl::OkStatus();
  }
  if (in.operands.size() != 2) return Unsupported(ctx, in, "cvt takes two operands");
  if (st == Type::kF16x2 || st == Type::kBf16x2)
    return Unsupported(ctx, in, "packed source");
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], p.dst_bits, &out->dmask));
  ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[1], st));
  out->nd = 1;
  out->ns = 1;
  std::optional<FloatFormat> sf = FormatOf(st), df = FormatOf(dt);
  if (sf.has_value()) p.src_fmt = *sf;
  if (df.has_value()) p.dst_fmt = *df;
  out->aux = Pack(p);
  if (!sf.has_value() && !df.has_value()) {
    if (p.rnd != Rounding::kNone || p.ftz)
      return Unsupported(ctx, in, "integer cvt has no rounding");
    if (!p.sat && st == Type::kU32 &&
        (dt == Type::kU64 || dt == Type::kS64 || dt == Type::kB64)) {
      out->fn = &ExecCvtU64U32;
    } else if (!p.sat && st == Type::kS32 && (dt == Type::kS64 || dt == Type::kU64)) {
      out->fn = &ExecCvtS64S32;
    } else if (!p.sat && !p.dst_signed && p.dst_bits <= p.src_bits && p.dst_bits == 32) {
      out->fn = &ExecCvtTrunc<uint32_t>;
    } else if (!p.sat && !p.dst_signed && p.dst_bits <= p.src_bits && p.dst_bits == 16) {
      out->fn = &ExecCvtTrunc<uint16_t>;
    } else {
      out->fn = &ExecCvtIntInt;
    }
    return absl::OkStatus();
  }
  if (sf.has_value() && df.has_value()) {
    out->fn = &ExecCvtFloatFloat;
    return absl::OkStatus();
  }
  if (df.has_value()) {
    if (p.rnd >= Rounding::kRni)
      return Unsupported(ctx, in, "int -> float takes .rn/.rz/.rm/.rp");
    out->fn = &ExecCvtIntFloat;
    return absl::OkStatus();
  }
  if (p.rnd != Rounding::kNone && p.rnd < Rounding::kRni) {
    return Unsupported(ctx, in, "float -> int takes .rni/.rzi/.rmi/.rpi");
  }
  if (*sf != FloatFormat::kF32 && *sf != FloatFormat::kF64 && *sf != FloatFormat::kF16 &&
      *sf != FloatFormat::kBf16) {
    return Unsupported(ctx, in, "source type");
  }
  out->fn = &ExecCvtFloatInt;
  return absl::OkStatus();
}

absl::Status DecodeFloat(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  Type t = in.mods.types[0];
  if (t != Type::kF32 && t != Type::kF64) {
    return Unsupported(ctx, in, "float arithmetic is implemented for .f32 and .f64");
  }
  bool f32 = t == Type::kF32;
  if (in.mods.rnd != Rounding::kNone && in.mods.rnd != Rounding::kRn) {
    return Unsupported(ctx, in, "only round-to-nearest (.rn)");
  }
  if (in.mods.ftz && !f32) return Unsupported(ctx, in, ".ftz applies to .f32");
  if (in.mods.mul != ptx::MulMode::kNone)
    return Unsupported(ctx, in, ".lo/.hi/.wide on floats");
  out->aux = uint64_t(in.mods.ftz) | uint64_t(in.mods.sat) << 1;
  int nsrc = static_cast<int>(in.operands.size()) - 1;
  ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], ptx::TypeBits(t), &out->dmask));
  out->nd = 1;
  for (int i = 0; i < nsrc; ++i) {
    ASSIGN_OR_RETURN(out->s[i], ctx.Src(in.operands[1 + i], t));
  }
  out->ns = static_cast<uint8_t>(nsrc);
  switch (in.op) {
    case Opcode::kAdd:
      out->fn = f32 ? &FloatArith<float, &FAdd<float>, 2>
                    : &FloatArith<double, &FAdd<double>, 2>;
      break;
    case Opcode::kSub:
      out->fn = f32 ? &FloatArith<float, &FSub<float>, 2>
                    : &FloatArith<double, &FSub<double>, 2>;
      break;
    case Opcode::kMul:
      out->fn = f32 ? &FloatArith<float, &FMul<float>, 2>
                    : &FloatArith<double, &FMul<double>, 2>;
      break;
    case Opcode::kFma:
    case Opcode::kMad:
      if (in.mods.rnd == Rounding::kNone && in.op == Opcode::kFma) {
        return Unsupported(ctx, in, "fma needs .rn");
      }
      out->fn = f32 ? &FloatArith<float, &FFma<float>, 3>
                    : &FloatArith<double, &FFma<double>, 3>;
      break;
    case Opcode::kMin:
      out->fn = f32 ? &FloatMinMax<float, false> : &FloatMinMax<double, false>;
      break;
    case Opcode::kMax:
      out->fn = f32 ? &FloatMinMax<float, true> : &FloatMinMax<double, true>;
      break;
    case Opcode::kNeg:
      out->fn = f32 ? &FloatSign<float, false> : &FloatSign<double, false>;
      break;
    case Opcode::kAbs:
      out->fn = f32 ? &FloatSign<float, true> : &FloatSign<double, true>;
      break;
    default:
      return Unsupported(ctx, in, "not a float operation");
  }
  if (in.mods.sat && (in.op == Opcode::kMin || in.op == Opcode::kMax ||
                      in.op == Opcode::kNeg || in.op == Opcode::kAbs)) {
    return Unsupported(ctx, in, ".sat on this operation");
  }
  return absl::OkStatus();
}

}  // namespace warpcheck::sim::machine
