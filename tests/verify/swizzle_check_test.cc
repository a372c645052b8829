// The engine choice: enumeration, the proof, and both with their agreement check.
#include "verify/swizzle_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/base/check.h"
#include "sim/swizzle/problem.h"
#include "sim/swizzle/spec.h"
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
  // Issue 15: what each engine concluded is kept, with the proof's reason.
  EXPECT_EQ(both.symbolic_verdict, Verdict::kInconclusive);
  EXPECT_EQ(both.enumerated_verdict, Verdict::kHolds);
  EXPECT_GT(both.queries, 0);
  EXPECT_THAT(both.reason, ::testing::HasSubstr("symbolic: "));
}

sw::SwizzleSpec Spec(const std::string& text) {
  absl::StatusOr<sw::SwizzleSpec> spec = sw::SwizzleSpec::Parse("t.swz", text);
  WARPCHECK_CHECK(spec.ok()) << spec.status();
  return *std::move(spec);
}

// The identity over a 65536 x 65536 parameter box: the proof decides it in milliseconds,
// the enumeration cannot (the box has more parameter points than a sweep takes).
constexpr char kIdentityHuge[] = R"(
param n in 1..65536;
param m in 1..65536;
domain = n * m;
grid row = n * m;
grid col = 1;
out row = iter;
out col = 0;
)";

// Issue 15: --engine=both printed "enumeration agrees" although the enumeration was
// inconclusive. The outcome now says what each engine concluded.
TEST(SwizzleCheckTest, BothKeepsAnInconclusiveEnumerationApart) {
  sw::Problem p = sw::SpecProblem(Spec(kIdentityHuge), "t.swz");
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome o, CheckSwizzle(p, Engine::kBoth));
  EXPECT_EQ(o.verdict, Verdict::kHolds);
  EXPECT_EQ(o.checked, CheckedBy::kSymbolic);
  EXPECT_EQ(o.symbolic_verdict, Verdict::kHolds);
  EXPECT_EQ(o.enumerated_verdict, Verdict::kInconclusive);
  EXPECT_THAT(o.reason, ::testing::HasSubstr("enumeration: "));
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
