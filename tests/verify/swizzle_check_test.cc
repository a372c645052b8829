// The engine choice: enumeration, the proof, and both with their agreement check.
#include "verify/swizzle_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/problem.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::verify {
namespace {

namespace sw = ::warpcheck::sim::swizzle;

sw::Problem SmallGemm() {
  sw::Problem p = sw::BuiltinProblem(sw::Builtin::kGemm);
  p.builtin_sweep.row_tiles = sw::ParamRange{1, 8};
  p.builtin_sweep.col_tiles = sw::ParamRange{1, 8};
  sw::FillBuiltinDefaults(p.builtin_sweep);
  return p;
}

sw::Problem SmallDistNz() {
  sw::Problem p = sw::BuiltinProblem(sw::Builtin::kDistNz);
  p.builtin_sweep.rank_size = sw::ParamRange{1, 4};
  p.builtin_sweep.row_tiles = sw::ParamRange{1, 4};
  p.builtin_sweep.col_tiles = sw::ParamRange{1, 4};
  sw::FillBuiltinDefaults(p.builtin_sweep);
  return p;
}

TEST(SwizzleCheckTest, EnumeratedCountsParameterPoints) {
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome o, CheckSwizzle(SmallGemm(), Engine::kEnumerated));
  EXPECT_EQ(o.verdict, Verdict::kHolds);
  EXPECT_EQ(o.checked, CheckedBy::kEnumerated);
  EXPECT_EQ(o.param_points, 8 * 8 * 7 * 2);
  EXPECT_EQ(o.queries, 0);
  EXPECT_FALSE(o.enumerated_verdict.has_value());
}

TEST(SwizzleCheckTest, AutoAndSymbolicRunTheProofAlone) {
  for (Engine e : {Engine::kAuto, Engine::kSymbolic}) {
    ASSERT_OK_AND_ASSIGN(SwizzleOutcome o, CheckSwizzle(SmallGemm(), e));
    EXPECT_EQ(o.verdict, Verdict::kHolds);
    EXPECT_EQ(o.checked, CheckedBy::kSymbolic);
    EXPECT_GT(o.queries, 0);
    EXPECT_FALSE(o.enumerated_verdict.has_value());
  }
}

TEST(SwizzleCheckTest, BothAgreeOnTheSmallestCounterexample) {
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome o, CheckSwizzle(SmallDistNz(), Engine::kBoth));
  EXPECT_EQ(o.verdict, Verdict::kViolated);
  EXPECT_EQ(o.checked, CheckedBy::kSymbolic);
  ASSERT_TRUE(o.enumerated_verdict.has_value());
  EXPECT_EQ(*o.enumerated_verdict, Verdict::kViolated);
  ASSERT_TRUE(o.counterexample.has_value());
  EXPECT_EQ(o.counterexample->kind, sw::ViolationKind::kDuplicate);
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome enumerated,
                       CheckSwizzle(SmallDistNz(), Engine::kEnumerated));
  EXPECT_EQ(o.counterexample->params, enumerated.counterexample->params);
}

TEST(SwizzleCheckTest, RlimitTooSmallIsInconclusiveAndBothFallsBackOnEnumeration) {
  SwizzleCheckOptions tiny{.rlimit = 1};
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome symbolic, CheckSwizzle(SmallGemm(), Engine::kSymbolic, tiny));
  EXPECT_EQ(symbolic.verdict, Verdict::kInconclusive);
  EXPECT_FALSE(symbolic.reason.empty());
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome both, CheckSwizzle(SmallGemm(), Engine::kBoth, tiny));
  EXPECT_EQ(both.verdict, Verdict::kHolds);
  EXPECT_EQ(both.checked, CheckedBy::kEnumerated);
  EXPECT_FALSE(both.enumerated_verdict.has_value());
}

TEST(SwizzleCheckTest, InvalidRangesAreInvalidArgument) {
  sw::Problem p = SmallGemm();
  p.builtin_sweep.swizzle_offset = sw::ParamRange{0, 7};
  EXPECT_EQ(CheckSwizzle(p, Engine::kEnumerated).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckSwizzle(p, Engine::kSymbolic).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace warpcheck::verify
