// verify/smt: the Z3 wrapper keeps sat / unsat / unknown / error apart, names queries,
// extracts models as int64, enforces rlimit, and never lets a z3::exception out.
#include "verify/smt/smt.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::verify::smt {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

SolverOptions Budget(uint64_t rlimit = 5'000'000) {
  SolverOptions o;
  o.rlimit = rlimit;
  return o;
}

TEST(SmtTest, SatWithModel) {
  Context ctx;
  Term x = ctx.IntVar("x");
  Term y = ctx.IntVar("y");
  SolverResult r = ctx.Check("sum", {x + y == 10, x - y == 4, x >= 0}, Budget());
  EXPECT_EQ(r.query, "sum");
  ASSERT_EQ(r.result, SatResult::kSat) << r.error;
  EXPECT_THAT(r.model.Int(x), Optional(7));
  EXPECT_THAT(r.model.Int(y), Optional(3));
  EXPECT_THAT(r.model.Int(x * y + 1), Optional(22));
  EXPECT_THAT(r.model.Bool(x > y), Optional(true));
  EXPECT_GT(r.rlimit_used, 0u);
}

TEST(SmtTest, Unsat) {
  Context ctx;
  Term x = ctx.IntVar("x");
  SolverResult r = ctx.Check("contradiction", {x > 3, x < 2}, Budget());
  EXPECT_EQ(r.result, SatResult::kUnsat);
  EXPECT_FALSE(r.model.has_value());
  EXPECT_EQ(r.model.Int(x), std::nullopt);
  EXPECT_EQ(SatResultName(r.result), "unsat");
}

// Bit-blasting (SolverOptions::bitblast): bounded nonlinear queries as bit-vectors.
TEST(SmtTest, BitblastBoundedNonlinear) {
  Context ctx;
  Term x = ctx.IntVar("x"), y = ctx.IntVar("y");
  SolverOptions o = Budget();
  o.bitblast = true;
  SolverResult r = ctx.Check("factor", {x >= 2, x <= 1000, y >= 2, y <= x, x * y == 391}, o);
  ASSERT_EQ(r.result, SatResult::kSat);
  EXPECT_THAT(r.model.Int(x), Optional(23));
  EXPECT_THAT(r.model.Int(y), Optional(17));
  r = ctx.Check("no_root", {x >= 0, x <= 1000, x * x == 2}, o);
  EXPECT_EQ(r.result, SatResult::kUnsat);
  // Division by a constant goes through purify-arith first.
  r = ctx.Check("div", {x >= 0, x <= 100, Div(x, 3) == 5, Mod(x, 3) == 2}, o);
  ASSERT_EQ(r.result, SatResult::kSat);
  EXPECT_THAT(r.model.Int(x), Optional(17));
}

TEST(SmtTest, QueriesAreIndependent) {
  Context ctx;
  Term x = ctx.IntVar("x");
  EXPECT_EQ(ctx.Check("a", {x == 1}, Budget()).result, SatResult::kSat);
  // Nothing of the first query remains asserted.
  EXPECT_EQ(ctx.Check("b", {x == 2}, Budget()).result, SatResult::kSat);
}

TEST(SmtTest, EuclideanDivAndMod) {
  Context ctx;
  Term q = Div(ctx.Int(-7), ctx.Int(2));
  Term r = Mod(ctx.Int(-7), ctx.Int(2));
  Term q2 = Div(ctx.Int(7), -2);
  SolverResult res = ctx.Check("div", {ctx.Bool(true)}, Budget());
  ASSERT_EQ(res.result, SatResult::kSat);
  EXPECT_THAT(res.model.Int(q), Optional(-4));  // -7 = 2·(-4) + 1
  EXPECT_THAT(res.model.Int(r), Optional(1));
  EXPECT_THAT(res.model.Int(q2), Optional(-3));  // 7 = (-2)·(-3) + 1: not floor (-4)
}

TEST(SmtTest, Int64Extremes) {
  Context ctx;
  Term x = ctx.IntVar("x");
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  SolverResult r = ctx.Check("extreme", {x == kMin}, Budget());
  ASSERT_EQ(r.result, SatResult::kSat);
  EXPECT_THAT(r.model.Int(x), Optional(kMin));
  EXPECT_EQ(r.model.Int(x - 1), std::nullopt);  // does not fit in int64
}

TEST(SmtTest, RlimitMakesHardQueriesUnknown) {
  // Pigeonhole: 11 distinct values in [0, 10) do not exist, and showing it takes Z3 far
  // more than the budget; it gives up instead of running on.
  Context ctx;
  std::vector<Term> q;
  std::vector<Term> x;
  for (int i = 0; i < 11; ++i) {
    x.push_back(ctx.IntVar(absl::StrCat("x", i)));
    q.push_back(x.back() >= 0);
    q.push_back(x.back() < 10);
  }
  for (int i = 0; i < 11; ++i) {
    for (int j = i + 1; j < 11; ++j) q.push_back(x[i] != x[j]);
  }
  SolverResult r = ctx.Check("pigeonhole", q, Budget(100'000));
  ASSERT_EQ(r.result, SatResult::kUnknown);
  EXPECT_FALSE(r.reason_unknown.empty());
  EXPECT_LE(r.rlimit_used, 200'000u);
}

TEST(SmtTest, KeepsSmtLibText) {
  Context ctx;
  Term x = ctx.IntVar("x");
  SolverOptions o = Budget();
  o.keep_smt2 = true;
  SolverResult r = ctx.Check("dump_me", {x > 41}, o);
  EXPECT_THAT(r.smt2, HasSubstr("; warpcheck query: dump_me"));
  EXPECT_THAT(r.smt2, HasSubstr("(declare-fun x () Int)"));
  EXPECT_EQ(ctx.Check("no_dump", {x > 41}, Budget()).smt2, "");
}

TEST(SmtTest, NonBooleanAssertionIsAnError) {
  Context ctx;
  Term x = ctx.IntVar("x");
  SolverResult r = ctx.Check("bad", {x + 1}, Budget());
  EXPECT_EQ(r.result, SatResult::kError);
  EXPECT_THAT(r.error, StatusIs(absl::StatusCode::kInternal, "query 'bad'"));
  EXPECT_THAT(r.error, StatusIs(absl::StatusCode::kInternal, "not Boolean"));
}

TEST(SmtTest, Z3ExceptionsBecomeInternalErrors) {
  // Adding an int to a bool makes Z3 throw (sort mismatch): the context is poisoned, the
  // term invalid, and every later query reports the first error.
  Context ctx;
  Term x = ctx.IntVar("x");
  Term bad = x + (x > 1);
  EXPECT_FALSE(bad.valid());
  EXPECT_THAT(ctx.status(), StatusIs(absl::StatusCode::kInternal, "Z3 failed"));
  Term still_bad = bad * 2;  // operations on invalid terms stay invalid, silently
  EXPECT_FALSE(still_bad.valid());
  SolverResult r = ctx.Check("after_error", {x > 0}, Budget());
  EXPECT_EQ(r.result, SatResult::kError);
  EXPECT_THAT(r.error, StatusIs(absl::StatusCode::kInternal, "after_error"));
}

TEST(SmtTest, FreshNamesAreDistinct) {
  Context ctx;
  Term a = ctx.FreshInt("q");
  Term b = ctx.FreshInt("q");
  SolverResult r = ctx.Check("fresh", {a == 1, b == 2}, Budget());
  EXPECT_EQ(r.result, SatResult::kSat);
  EXPECT_NE(a.ToString(), b.ToString());
}

TEST(SmtTest, IteMinMaxAndConnectives) {
  Context ctx;
  Term x = ctx.IntVar("x"), y = ctx.IntVar("y");
  SolverResult r = ctx.Check(
      "mix", {x == 3, y == -5, Implies(x > 0, y < 0), !(x == y) || ctx.Bool(false)},
      Budget());
  ASSERT_EQ(r.result, SatResult::kSat);
  EXPECT_THAT(r.model.Int(Min(x, y)), Optional(-5));
  EXPECT_THAT(r.model.Int(Max(x, y)), Optional(3));
  EXPECT_THAT(r.model.Int(Ite(x > y, x - y, y - x)), Optional(8));
  EXPECT_THAT(r.model.Bool(And(ctx, {x > 0, y > 0})), Optional(false));
  EXPECT_THAT(r.model.Bool(Or(ctx, {x > 0, y > 0})), Optional(true));
  EXPECT_THAT(r.model.Bool(And(ctx, {})), Optional(true));
}


TEST(SmtTest, BitVectorsWrapAndShiftBySymbolicAmounts) {
  Context ctx;
  Term x = ctx.BvVar("x", 8), s = ctx.BvVar("s", 8);
  for (bool bitvector : {false, true}) {
    SolverOptions o = Budget();
    o.bitvector = bitvector;
    // A symbolic shift amount: x << s == 0x40 with x == 1 forces s == 6.
    SolverResult r = ctx.Check("shift", {x == ctx.Bv(1, 8), BvShl(x, s) == ctx.Bv(0x40, 8)}, o);
    ASSERT_EQ(r.result, SatResult::kSat);
    EXPECT_THAT(r.model.Bits(s), Optional(uint64_t{6}));
    EXPECT_THAT(r.model.Bits(BvXor(ctx.Bv(0xF0, 8), ctx.Bv(0xFF, 8))), Optional(uint64_t{0x0F}));
    EXPECT_THAT(r.model.Bits(BvAdd(ctx.Bv(0xFF, 8), ctx.Bv(2, 8))), Optional(uint64_t{1}));
    EXPECT_THAT(r.model.Bits(BvLshr(ctx.Bv(0x80, 8), ctx.Bv(9, 8))), Optional(uint64_t{0}));
    // Unsigned order: 0xFF is the largest 8-bit value.
    EXPECT_EQ(ctx.Check("ult", {BvUlt(ctx.Bv(0xFF, 8), x)}, o).result, SatResult::kUnsat);
  }
  EXPECT_THAT(ctx.Check("mul", {BvMul(x, ctx.Bv(3, 8)) == ctx.Bv(1, 8)}, Budget())
                  .model.Bits(x),
              Optional(uint64_t{171}));  // 3 * 171 = 513 = 1 mod 256
}

TEST(SmtTest, BitVectorWidthMismatchIsAnError) {
  Context ctx;
  Term a = ctx.BvVar("a", 8), b = ctx.BvVar("b", 16);
  Term bad = BvAnd(a, b);
  EXPECT_FALSE(bad.valid());
  SolverResult r = ctx.Check("bad", {ctx.Bool(true)}, Budget());
  EXPECT_EQ(r.result, SatResult::kError);
  EXPECT_THAT(r.error.message(), HasSubstr("bvand"));
}

}  // namespace
}  // namespace warpcheck::verify::smt
