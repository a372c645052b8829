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
  SwizzleCheckOptions tiny;
  tiny.rlimit = 1;
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

// Issue 15: a box that admits no parameter point answered "holds (0 parameter points)".
TEST(SwizzleCheckTest, ABoxWithoutAnAdmittedPointIsAnInputErrorForEveryEngine) {
  const std::string require_false = R"(param n in 1..4;
require false;
domain = n;
grid row = n;
grid col = 1;
out row = iter;
out col = 0;
)";
  sw::Problem p = sw::SpecProblem(Spec(require_false), "t.swz");
  for (Engine e : {Engine::kEnumerated, Engine::kSymbolic, Engine::kBoth, Engine::kAuto}) {
    EXPECT_THAT(CheckSwizzle(p, e),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "t.swz:2:1: no parameter point of the box (n=1..4) satisfies the "
                         "require clauses, so the property would hold vacuously"));
  }
  // A box too large to enumerate: Z3 shows that no point is admitted.
  sw::Problem huge =
      sw::SpecProblem(Spec(std::string(kIdentityHuge) + "require n > 70000;\n"), "t.swz");
  for (Engine e : {Engine::kSymbolic, Engine::kBoth}) {
    EXPECT_THAT(CheckSwizzle(huge, e),
                StatusIs(absl::StatusCode::kInvalidArgument, "would hold vacuously"));
  }
  // ... and that one is, when one is.
  sw::Problem some =
      sw::SpecProblem(Spec(std::string(kIdentityHuge) + "require n > 65535;\n"), "t.swz");
  ASSERT_OK_AND_ASSIGN(SwizzleOutcome o, CheckSwizzle(some, Engine::kSymbolic));
  EXPECT_EQ(o.verdict, Verdict::kHolds);

  // A built-in whose splits divide none of its rank counts.
  sw::Problem dist = sw::BuiltinProblem(sw::Builtin::kDist);
  dist.builtin_sweep.rank_size = sw::ParamRange{3, 3};
  dist.builtin_sweep.comm_npu_split = sw::ParamRange{2, 2};
  dist.builtin_sweep.row_tiles = sw::ParamRange{1, 4};
  dist.builtin_sweep.col_tiles = sw::ParamRange{1, 4};
  sw::FillBuiltinDefaults(dist.builtin_sweep);
  for (Engine e : {Engine::kEnumerated, Engine::kSymbolic, Engine::kBoth}) {
    EXPECT_THAT(CheckSwizzle(dist, e),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "no comm_npu_split in 2 divides a rank_size in 3, so the property "
                         "would hold vacuously"));
  }
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
