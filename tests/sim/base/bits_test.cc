// Laws of sim/base/bits.h, checked over a whole range of inputs (CuTe-style).
#include "sim/base/bits.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace warpcheck::sim::base {
namespace {

TEST(BitsTest, IsPowerOf2MatchesTheDefinition) {
  for (int64_t x = -70; x <= 5000; ++x) {
    bool expected = false;
    for (int k = 0; k < 63; ++k) expected |= x == (int64_t{1} << k);
    EXPECT_EQ(IsPowerOf2(x), expected) << x;
  }
  EXPECT_TRUE(IsPowerOf2(int64_t{1} << 62));
  EXPECT_FALSE(IsPowerOf2((int64_t{1} << 62) + 1));
  EXPECT_FALSE(IsPowerOf2(INT64_MIN));
}

TEST(BitsTest, Log2InvertsShift) {
  for (int k = 0; k < 63; ++k) EXPECT_EQ(Log2(int64_t{1} << k), k);
}

TEST(BitsTest, NextPowerOf2AboveIsStrictlyGreaterAndLeast) {
  EXPECT_EQ(NextPowerOf2Above(0), 1);
  for (int64_t x = 0; x <= 5000; ++x) {
    const int64_t p = NextPowerOf2Above(x);
    EXPECT_TRUE(IsPowerOf2(p)) << x;
    EXPECT_GT(p, x) << x;
    EXPECT_LE(p / 2, x) << x;
  }
}

TEST(BitsTest, Log2OfNonPowerIsABug) {
  EXPECT_DEATH(Log2(6), "not a power of two");
}

}  // namespace
}  // namespace warpcheck::sim::base
