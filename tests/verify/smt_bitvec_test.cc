// verify/smt bit-vectors (what verify/plan builds on): the operations mean what their
// names say, models read back as unsigned values, width mismatches poison the context
// instead of aborting, and the QF_BV tactic decides what the SMT core decides.
#include <algorithm>
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::smt {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

SolverOptions Qfbv(bool on) {
  SolverOptions o;
  o.rlimit = 5'000'000;
  o.bitvector = on;
  return o;
}

TEST(SmtBitvecTest, OperationsAgreeWithTheirMeaningExhaustivelyOnFourBits) {
  Context ctx;
  Term x = ctx.BvVar("x", 4), y = ctx.BvVar("y", 4);
  for (uint64_t a = 0; a < 16; ++a) {
    for (uint64_t b = 0; b < 16; b += 5) {
      SolverResult r = ctx.Check("fix", {x == ctx.Bv(a, 4), y == ctx.Bv(b, 4)}, Qfbv(false));
      ASSERT_EQ(r.result, SatResult::kSat);
      EXPECT_THAT(r.model.Bits(x ^ y), Optional(a ^ b));
      EXPECT_THAT(r.model.Bits(x & y), Optional(a & b));
      EXPECT_THAT(r.model.Bits(x | y), Optional(a | b));
      EXPECT_THAT(r.model.Bits(BvAdd(x, y)), Optional((a + b) & 15));
      EXPECT_THAT(r.model.Bool(BvUlt(x, y)), Optional(a < b));
      EXPECT_THAT(r.model.Bool(BvUle(x, y)), Optional(a <= b));
      EXPECT_THAT(r.model.Bits(Extract(x, 2, 1)), Optional((a >> 1) & 3));
      EXPECT_THAT(r.model.Bits(Concat(x, y)), Optional((a << 4) | b));
      EXPECT_THAT(r.model.Bits(ZeroExt(x, 3)), Optional(a));
    }
  }
  EXPECT_EQ(Concat(x, Extract(y, 0, 0)).bv_width(), 5);
  EXPECT_EQ(ZeroExt(x, 3).bv_width(), 7);
}

TEST(SmtBitvecTest, XorIsAnInvolutionUnderBothSolvers) {
  for (bool qfbv : {false, true}) {
    Context ctx;
    Term x = ctx.BvVar("x", 16), k = ctx.BvVar("k", 16);
    EXPECT_EQ(ctx.Check("involution", {((x ^ k) ^ k) != x}, Qfbv(qfbv)).result,
              SatResult::kUnsat);
    SolverResult r = ctx.Check("not_identity", {(x ^ k) == x, k != ctx.Bv(0, 16)}, Qfbv(qfbv));
    EXPECT_EQ(r.result, SatResult::kUnsat);
  }
}

TEST(SmtBitvecTest, WidthMismatchPoisonsTheContextInsteadOfAborting) {
  Context ctx;
  Term x = ctx.BvVar("x", 4), y = ctx.BvVar("y", 5);
  Term bad = x ^ y;
  EXPECT_FALSE(bad.valid());
  EXPECT_FALSE(Extract(x, 4, 0).valid());
  EXPECT_THAT(std::string(ctx.status().message()), HasSubstr("do not fit"));
  EXPECT_EQ(ctx.Check("after", {x == x}, Qfbv(true)).result, SatResult::kError);
}

TEST(SmtBitvecTest, RlimitUnderTheTacticIsUnknownNotAnAnswer) {
  Context ctx;
  Term a = ctx.BvVar("a", 32), b = ctx.BvVar("b", 32);
  SolverOptions o = Qfbv(true);
  o.rlimit = 1;
  SolverResult r = ctx.Check("tiny_budget",
                             {BvAdd(a, b) == ctx.Bv(12345, 32), (a ^ b) == ctx.Bv(777, 32)}, o);
  EXPECT_EQ(r.result, SatResult::kUnknown) << SatResultName(r.result);
}

// The integer operators on bit-vectors are signed two's complement (what the swizzle
// prover's bit-vector encoding relies on), and so is Model::Int; the division family means
// what SMT-LIB says, checked exhaustively on 4 bits against C++'s truncating division.
TEST(SmtBitvecTest, IntegerOperatorsAreSignedOnBitVectors) {
  Context ctx;
  Term x = ctx.BvVar("x", 4), y = ctx.BvVar("y", 4);
  for (int64_t a = -8; a < 8; ++a) {
    for (int64_t b = -8; b < 8; b += 3) {
      SolverResult r = ctx.Check("fix", {x == a, y == b}, Qfbv(true));
      ASSERT_EQ(r.result, SatResult::kSat);
      auto wrap = [](int64_t v) { return ((v + 8) % 16 + 16) % 16 - 8; };
      EXPECT_THAT(r.model.Int(x), Optional(a));
      EXPECT_THAT(r.model.Int(x + y), Optional(wrap(a + b)));
      EXPECT_THAT(r.model.Int(x - 3), Optional(wrap(a - 3)));
      EXPECT_THAT(r.model.Int(x * y), Optional(wrap(a * b)));
      EXPECT_THAT(r.model.Int(-x), Optional(wrap(-a)));
      EXPECT_THAT(r.model.Bool(x < y), Optional(a < b));
      EXPECT_THAT(r.model.Bool(x >= -2), Optional(a >= -2));
      EXPECT_THAT(r.model.Int(Min(x, y)), Optional(std::min(a, b)));
      const uint64_t ua = static_cast<uint64_t>(a) & 15, ub = static_cast<uint64_t>(b) & 15;
      if (b != 0) {
        EXPECT_THAT(r.model.Bits(BvUdiv(x, y)), Optional(ua / ub));
        EXPECT_THAT(r.model.Bits(BvUrem(x, y)), Optional(ua % ub));
        EXPECT_THAT(r.model.Int(BvSrem(x, y)), Optional(a % b));
        if (!(a == -8 && b == -1)) {
          EXPECT_THAT(r.model.Int(BvSdiv(x, y)), Optional(a / b));
        }
      }
    }
  }
  // Mixing an integer and a bit-vector is a sort error, not an abort.
  Context bad;
  Term t = bad.BvVar("x", 8) + bad.IntVar("n");
  EXPECT_FALSE(t.valid());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("do not fit"));
}

}  // namespace
}  // namespace warpcheck::verify::smt
