// Powers of two and their logarithms: the one place warpcheck tests for a power of two
// or takes a log2. Layout sizes, MMA shapes, alignments and launch dims are powers of
// two, and most of them are handled through their log2 (bit counts of a linear layout).
//
//     IsPowerOf2(8) == true      Log2(8) == 3      (exact: Requires a power of two)
//     NextPowerOf2Above(4) == 8  NextPowerOf2Above(5) == 8  NextPowerOf2Above(0) == 1
//
// Everything takes int64_t: the callers hold int32_t sizes and int64_t shapes, and a
// negative or zero value is simply "not a power of two".
#ifndef WARPCHECK_SIM_BASE_BITS_H_
#define WARPCHECK_SIM_BASE_BITS_H_

#include <bit>
#include <cstdint>

#include "sim/base/check.h"

namespace warpcheck::sim::base {

// Ensures: true iff x == 2^k for some k >= 0 (so false for x <= 0).
constexpr bool IsPowerOf2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// Requires: IsPowerOf2(x).
// Ensures: the k with 2^k == x.
inline int Log2(int64_t x) {
  WARPCHECK_DCHECK(IsPowerOf2(x)) << "Log2 of " << x << ", not a power of two";
  return std::countr_zero(static_cast<uint64_t>(x));
}

// Requires: 0 <= x < 2^62.
// Ensures: the least power of two strictly greater than x (0 -> 1, 4 -> 8, 5 -> 8).
inline int64_t NextPowerOf2Above(int64_t x) {
  WARPCHECK_DCHECK(x >= 0 && x < (int64_t{1} << 62)) << "NextPowerOf2Above of " << x;
  return int64_t{1} << std::bit_width(static_cast<uint64_t>(x));
}

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_BITS_H_
