#include "sim/machine/float_bits.h"

#include <cmath>
#include <cstring>

namespace warpcheck::sim::machine {

namespace {

struct Fmt {
  int mant;   // stored mantissa bits
  int ebits;  // exponent bits
  int bias;
};

Fmt Of(FloatFormat f) {
  switch (f) {
    case FloatFormat::kF16:
      return {10, 5, 15};
    case FloatFormat::kBf16:
      return {7, 8, 127};
    case FloatFormat::kF32:
      return {23, 8, 127};
    case FloatFormat::kF64:
      return {52, 11, 1023};
  }
  return {23, 8, 127};
}

int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Rounds (-1)^neg * m * 2^e (m > 0) to format `to`.
uint64_t Round(bool neg, uint64_t m, int e, FloatFormat to, ptx::Rounding rnd) {
  Fmt f = Of(to);
  uint64_t sign = uint64_t{neg} << (f.mant + f.ebits);
  int emax = f.bias, emin = 1 - f.bias;
  uint64_t exp_all = (uint64_t{1} << f.ebits) - 1;
  int E = BitLength(m) - 1 + e;
  int q = (E < emin ? emin : E) - f.mant;
  int shift = q - e;
  uint64_t r;
  if (shift <= 0) {
    r = m << -shift;  // exact; fits since E - q <= mant
  } else {
    uint64_t rem;
    bool half_exact = false, above_half = false, any = false;
    if (shift >= 64) {
      r = 0;
      rem = m;
      any = rem != 0;
      // m < 2^64 <= 2^shift / 2 unless shift == 64 and m >= 2^63.
      if (shift == 64) {
        above_half = m > (uint64_t{1} << 63);
        half_exact = m == (uint64_t{1} << 63);
      }
    } else {
      r = m >> shift;
      rem = m & ((uint64_t{1} << shift) - 1);
      uint64_t half = uint64_t{1} << (shift - 1);
      any = rem != 0;
      above_half = rem > half;
      half_exact = rem == half;
    }
    bool up = false;
    switch (rnd) {
      case ptx::Rounding::kRz:
      case ptx::Rounding::kRzi:
        up = false;
        break;
      case ptx::Rounding::kRm:
      case ptx::Rounding::kRmi:
        up = neg && any;
        break;
      case ptx::Rounding::kRp:
      case ptx::Rounding::kRpi:
        up = !neg && any;
        break;
      default:
        up = above_half || (half_exact && (r & 1));
        break;
    }
    if (up) ++r;
  }
  if (r == (uint64_t{1} << (f.mant + 1))) {
    r >>= 1;
    ++q;
  }
  if (r >= (uint64_t{1} << f.mant)) {
    int exp = q + f.mant;
    if (exp > emax) {
      bool to_inf = rnd == ptx::Rounding::kNone || rnd == ptx::Rounding::kRn ||
                    rnd == ptx::Rounding::kRni ||
                    ((rnd == ptx::Rounding::kRp || rnd == ptx::Rounding::kRpi) && !neg) ||
                    ((rnd == ptx::Rounding::kRm || rnd == ptx::Rounding::kRmi) && neg);
      if (to_inf) return sign | (exp_all << f.mant);
      return sign | ((exp_all - 1) << f.mant) | ((uint64_t{1} << f.mant) - 1);
    }
    return sign | (uint64_t(exp + f.bias) << f.mant) | (r - (uint64_t{1} << f.mant));
  }
  return sign | r;  // subnormal or zero
}

}  // namespace

uint64_t CanonicalNan(FloatFormat f) {
  switch (f) {
    case FloatFormat::kF16:
      return 0x7FFF;
    case FloatFormat::kBf16:
      return 0x7FFF;
    case FloatFormat::kF32:
      return 0x7FFFFFFF;
    case FloatFormat::kF64:
      return 0xFFF8000000000000ull;  // what invalid f64 ops produce
  }
  return 0;
}

uint64_t ConvertNan(uint64_t bits, FloatFormat from, FloatFormat to) {
  // f32 <-> f64 keep the sign and the payload and set the quiet bit (as the host's
  // cvtss2sd / cvtsd2ss); every conversion that involves f16 or bf16 gives the canonical
  // NaN (measured on an H200, tests/sim/machine/testdata/hw).
  if (from == FloatFormat::kF32 && to == FloatFormat::kF64) {
    return (bits & 0x80000000ull) << 32 | 0x7FF8000000000000ull |
           (bits & 0x7FFFFFull) << 29;
  }
  if (from == FloatFormat::kF64 && to == FloatFormat::kF32) {
    return (bits >> 32 & 0x80000000ull) | 0x7FC00000ull | (bits >> 29 & 0x7FFFFFull);
  }
  if (from == to) {
    return to == FloatFormat::kF64 ? bits | 0x0008000000000000ull : CanonicalNan(to);
  }
  if (to == FloatFormat::kF64) return 0x7FFFFFFFE0000000ull;  // via the canonical f32 NaN
  return CanonicalNan(to);
}

bool IsNan(uint64_t bits, FloatFormat from) {
  Fmt f = Of(from);
  uint64_t exp = (bits >> f.mant) & ((uint64_t{1} << f.ebits) - 1);
  uint64_t man = bits & ((uint64_t{1} << f.mant) - 1);
  return exp == (uint64_t{1} << f.ebits) - 1 && man != 0;
}

uint32_t FlushF32(uint32_t bits) {
  if ((bits & 0x7F800000u) == 0) return bits & 0x80000000u;
  return bits;
}

uint64_t ConvertFloat(uint64_t bits, FloatFormat from, FloatFormat to,
                      ptx::Rounding rnd) {
  Fmt f = Of(from);
  Fmt t = Of(to);
  bool neg = (bits >> (f.mant + f.ebits)) & 1;
  uint64_t exp_all = (uint64_t{1} << f.ebits) - 1;
  uint64_t exp = (bits >> f.mant) & exp_all;
  uint64_t man = bits & ((uint64_t{1} << f.mant) - 1);
  uint64_t tsign = uint64_t{neg} << (t.mant + t.ebits);
  if (exp == exp_all) {
    if (man != 0) return ConvertNan(bits, from, to);
    return tsign | (((uint64_t{1} << t.ebits) - 1) << t.mant);
  }
  if (exp == 0 && man == 0) return tsign;
  uint64_t m = exp == 0 ? man : (man | (uint64_t{1} << f.mant));
  int e = (exp == 0 ? 1 : int(exp)) - f.bias - f.mant;
  return Round(neg, m, e, to, rnd);
}

uint64_t IntToFloat(bool negative, uint64_t magnitude, FloatFormat to,
                    ptx::Rounding rnd) {
  if (magnitude == 0) return 0;
  return Round(negative, magnitude, 0, to, rnd);
}

uint64_t FloatToInt(uint64_t bits, FloatFormat from, int int_bits, bool is_signed,
                    ptx::Rounding rnd) {
  if (IsNan(bits, from)) return 0;
  double v;
  if (from == FloatFormat::kF64) {
    std::memcpy(&v, &bits, 8);
  } else {
    uint64_t b = ConvertFloat(bits, from, FloatFormat::kF64, ptx::Rounding::kRn);
    std::memcpy(&v, &b, 8);
  }
  switch (rnd) {
    case ptx::Rounding::kRni:
    case ptx::Rounding::kRn:
      v = std::nearbyint(v);
      break;
    case ptx::Rounding::kRmi:
    case ptx::Rounding::kRm:
      v = std::floor(v);
      break;
    case ptx::Rounding::kRpi:
    case ptx::Rounding::kRp:
      v = std::ceil(v);
      break;
    default:
      v = std::trunc(v);
      break;
  }
  uint64_t mask = int_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << int_bits) - 1;
  if (is_signed) {
    double lo = -std::ldexp(1.0, int_bits - 1), hi = std::ldexp(1.0, int_bits - 1);
    int64_t r;
    if (v < lo) {
      r = int_bits >= 64 ? INT64_MIN : -(int64_t{1} << (int_bits - 1));
    } else if (v >= hi) {
      r = int_bits >= 64 ? INT64_MAX : (int64_t{1} << (int_bits - 1)) - 1;
    } else {
      r = static_cast<int64_t>(v);
    }
    return uint64_t(r) & mask;
  }
  double hi = std::ldexp(1.0, int_bits);
  if (v <= 0) return 0;
  if (v >= hi) return mask;
  return static_cast<uint64_t>(v) & mask;
}

}  // namespace warpcheck::sim::machine
