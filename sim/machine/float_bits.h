// Bit-exact IEEE conversions between f16, bf16, f32, f64 and integers, with the PTX
// rounding modes (.rn nearest-even, .rz toward zero, .rm down, .rp up).
//
// One generic routine rounds any finite value `(-1)^sign * m * 2^e` (m an unsigned
// integer) to a target format, so narrowing (f32 -> f16), widening (exact) and
// int -> float share one implementation:
//
//   value  = m * 2^e                 E = floor(log2(value))
//   quantum q = max(E, emin) - M     (M mantissa bits; below emin: subnormal spacing)
//   r = round(m * 2^(e - q))         ties by the mode; r = 2^(M+1) renormalises
//   result = r * 2^q                 overflow past emax: inf or the largest finite
//
// NaNs (all measured on an H200, tests/sim/machine/testdata/hw): a conversion that
// involves f16 or bf16 gives the canonical NaN (0x7FFF, or 0x7FFFFFFF for f32);
// f32 <-> f64 keeps sign and payload and sets the quiet bit, like the host CPU. f32
// arithmetic gives 0x7FFFFFFF; f64 arithmetic behaves like the host (propagates the
// first NaN operand, quieted; invalid operations give 0xFFF8000000000000).
#ifndef WARPCHECK_SIM_MACHINE_FLOAT_BITS_H_
#define WARPCHECK_SIM_MACHINE_FLOAT_BITS_H_

#include <cstdint>

#include "sim/ptx/op_table.h"

namespace warpcheck::sim::machine {

enum class FloatFormat : uint8_t { kF16, kBf16, kF32, kF64 };

// Converts the bits of a value in format `from` to format `to` with rounding `rnd`
// (kNone means .rn). Subnormals are kept (no flush).
uint64_t ConvertFloat(uint64_t bits, FloatFormat from, FloatFormat to, ptx::Rounding rnd);

// Integer (given as sign + magnitude) to float format `to`.
uint64_t IntToFloat(bool negative, uint64_t magnitude, FloatFormat to, ptx::Rounding rnd);

// Float bits to an integer of `bits` width (signed or not): rounded by `rnd` (rni, rzi,
// rmi, rpi; kNone = rzi), saturated to the range, NaN -> 0. Returns the two's complement
// bits, zero-extended.
uint64_t FloatToInt(uint64_t bits, FloatFormat from, int int_bits, bool is_signed,
                    ptx::Rounding rnd);

bool IsNan(uint64_t bits, FloatFormat f);
// Subnormal inputs to sign-preserving zero (.ftz on f32).
uint32_t FlushF32(uint32_t bits);
// f16/bf16: 0x7FFF; f32: 0x7FFFFFFF; f64: 0xFFF8000000000000 (the f64 invalid result).
uint64_t CanonicalNan(FloatFormat f);
// The NaN that converting the NaN `bits` from `from` to `to` produces (see above).
uint64_t ConvertNan(uint64_t bits, FloatFormat from, FloatFormat to);

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_FLOAT_BITS_H_
