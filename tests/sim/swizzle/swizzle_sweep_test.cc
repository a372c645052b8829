// Enumeration and sweeps: the checker's events on crafted specs, the verdict of every
// built-in over a sweep (recorded as literal expectations), smallest counterexamples,
// budgets and range validation.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::swizzle {
namespace {

using ::testing::ElementsAre;

ParamRange R(int64_t lo, int64_t hi) { return ParamRange{lo, hi}; }

TEST(SwizzleEnumerateTest, WorkedExampleHolds) {
  ASSERT_OK_AND_ASSIGN(
      CheckResult r, CheckBuiltin(Swizzle2dParams{
                         .fn = Builtin::kGemm, .shape = Shape2d::FromTileCounts(3, 10)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_FALSE(r.counterexample.has_value());
  EXPECT_EQ(r.points, 30);
  EXPECT_EQ(r.param_points, 1);
}

TEST(SwizzleEnumerateTest, DistNzCollidesAtOnePoint) {
  Swizzle2dParams p{
      .fn = Builtin::kDistNz, .shape = {5, 3, 2, 2}, .rank_size = 4, .comm_npu_split = 2};
  ASSERT_OK_AND_ASSIGN(CheckResult r, CheckBuiltin(p));
  ASSERT_EQ(r.verdict, Verdict::kViolated);
  EXPECT_EQ(
      r.counterexample->ToString(),
      "duplicate at rows=5, cols=3, tile_rows=2, tile_cols=2, rank_size=4, "
      "comm_npu_split=2: iterations 0 and 1 both map to tile (row=0, col=0, rank=0)");
  EXPECT_THAT(r.counterexample->iter_ids, ElementsAre(0, 1));
  EXPECT_EQ(r.points, 2);
}

TEST(SwizzleEnumerateTest, InvalidParametersAreErrors) {
  EXPECT_THAT(
      CheckBuiltin(Swizzle2dParams{.fn = Builtin::kDist,
                                   .shape = {4, 4, 1, 1},
                                   .rank_size = 6,
                                   .comm_npu_split = 4}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "dist_swizzle2d: rank_size = 6 is not a multiple of comm_npu_split"));
  CheckOptions tiny;
  tiny.max_tiles = 100;
  EXPECT_THAT(CheckBuiltin(Swizzle2dParams{.fn = Builtin::kGemm,
                                           .shape = Shape2d::FromTileCounts(11, 10)},
                           tiny),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "gemm(row_tiles=11, col_tiles=10, swizzle_offset=7, "
                       "swizzle_direction=1): the tile box has more than 100 tiles"));
}

// Each event kind of the checker, on small specs.
absl::StatusOr<CheckResult> CheckText(const std::string& text,
                                      std::vector<int64_t> values) {
  absl::StatusOr<SwizzleSpec> spec = SwizzleSpec::Parse("k.swz", text);
  if (!spec.ok()) return spec.status();
  return CheckSpec(*spec, values);
}

TEST(SwizzleEnumerateTest, EventKinds) {
  // duplicate: 0 and 2 both map to tile 0.
  ASSERT_OK_AND_ASSIGN(CheckResult dup, CheckText("param n in 1..9;\ndomain = n;\n"
                                                  "grid x = n;\nout x = iter % 2;\n",
                                                  {3}));
  ASSERT_EQ(dup.verdict, Verdict::kViolated);
  EXPECT_EQ(dup.counterexample->ToString(),
            "duplicate at n=3: iterations 0 and 2 both map to tile (x=0)");
  EXPECT_EQ(dup.counterexample->kind, ViolationKind::kDuplicate);
  // missed: the first unreached tile in row-major order.
  ASSERT_OK_AND_ASSIGN(
      CheckResult missed,
      CheckText("domain = 3;\ngrid r = 2;\ngrid c = 2;\n"
                "out r = select(iter == 2, 1, 0);\nout c = select(iter == 1, "
                "1, 0);\n",
                {}));
  ASSERT_EQ(missed.verdict, Verdict::kViolated);
  EXPECT_EQ(missed.counterexample->ToString(),
            "missed: no iteration maps to tile (r=1, c=1) (3 of 4 tiles reached by 3 "
            "iterations)");
  EXPECT_TRUE(missed.counterexample->iter_ids.empty());
  // out_of_range, negative and too large.
  ASSERT_OK_AND_ASSIGN(CheckResult oor, CheckText("domain = 4;\ngrid a = 4;\n"
                                                  "out a = 2 - iter;\n",
                                                  {}));
  EXPECT_EQ(oor.counterexample->ToString(),
            "out_of_range: iteration 3 maps to (a=-1), outside the box a < 4");
  // tail_size: the expected value differs.
  ASSERT_OK_AND_ASSIGN(
      CheckResult tail,
      CheckText("param m in 1..9;\ndomain = 3;\ngrid t = 3;\nout t = iter;\n"
                "out size = min(m - t * 2, 2);\ntail size = min(m - t * 2, "
                "3);\n",
                {5}));
  EXPECT_EQ(tail.counterexample->ToString(),
            "tail_size at m=5: iteration 0 at tile (t=0): tail size: the output is 2, "
            "expected min(m - t * 2, 3) = 3");
  // tail_size: not positive.
  ASSERT_OK_AND_ASSIGN(
      tail, CheckText("param m in 1..9;\ndomain = 3;\ngrid t = 3;\nout t = iter;\n"
                      "out size = min(m - t * 2, 2);\ntail size = min(m - t * 2, "
                      "2);\n",
                      {3}));
  EXPECT_EQ(tail.counterexample->ToString(),
            "tail_size at m=3: iteration 2 at tile (t=2): tail size: the output is -1, "
            "expected min(m - t * 2, 2) = -1 (and tail sizes must be positive)");
  // eval_error.
  ASSERT_OK_AND_ASSIGN(CheckResult err, CheckText("domain = 3;\ngrid t = 3;\n"
                                                  "out t = 2 // (1 - iter);\n",
                                                  {}));
  EXPECT_EQ(err.counterexample->ToString(),
            "eval_error: iteration 1: k.swz:3:11: division by zero: 2 // (1 - iter) "
            "with 1 - iter = 0 (at iter=1)");
  // skip: skipped iterations reach no tile, and the rest must still cover the box.
  ASSERT_OK_AND_ASSIGN(CheckResult skip,
                       CheckText("domain = 6;\ngrid t = 3;\n"
                                 "out t = iter // 2;\nskip iter % 2 == 1;\n",
                                 {}));
  EXPECT_EQ(skip.verdict, Verdict::kHolds);
  EXPECT_EQ(skip.points, 6);
  // Four coordinates.
  ASSERT_OK_AND_ASSIGN(
      CheckResult four,
      CheckText("domain = 24;\ngrid a = 2;\ngrid b = 3;\ngrid c = 2;\n"
                "grid d = 2;\nout a = iter % 2;\nout b = iter // 2 % 3;\n"
                "out c = iter // 6 % 2;\nout d = iter // 12;\n",
                {}));
  EXPECT_EQ(four.verdict, Verdict::kHolds);
}

// ---------------------------------------------------------------------------------------
// The verdict of every built-in over a sweep. These literals are the findings.

TEST(SwizzleSweepTest, GemmHoldsOnAllGridsUpTo12x12BothDirections) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12),
                                                         .swizzle_offset = R(1, 7),
                                                         .swizzle_direction = R(0, 1)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_EQ(r.param_points, 144 * 7 * 2);
  EXPECT_EQ(r.points, 78 * 78 * 7 * 2);
}

TEST(SwizzleSweepTest, GemmNzHolds) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kGemmNz,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12),
                                                         .swizzle_offset = R(1, 7)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_EQ(r.param_points, 144 * 7);
}

TEST(SwizzleSweepTest, GemmHoldsOnDataShapesWithPartialTiles) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                                         .rows = R(1, 20),
                                                         .cols = R(1, 20),
                                                         .tile_rows = R(1, 4),
                                                         .tile_cols = R(1, 4),
                                                         .swizzle_offset = R(1, 7),
                                                         .swizzle_direction = R(0, 1)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_EQ(r.param_points, 20 * 20 * 4 * 4 * 7 * 2);
}

// dist_swizzle2d as the spec defines it holds in both directions, for every rank count
// 1..8 with every split that divides it and every comm_data_split 1..4.
TEST(SwizzleSweepTest, DistHoldsBothDirections) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kDist,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12),
                                                         .swizzle_direction = R(0, 1),
                                                         .rank_size = R(1, 8),
                                                         .comm_npu_split = R(1, 8),
                                                         .comm_data_split = R(1, 4)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds) << r.counterexample->ToString();
  // 20 (rank_size, comm_npu_split) pairs with the split dividing the ranks.
  EXPECT_EQ(r.param_points, 144 * 20 * 2 * 4);
}

TEST(SwizzleSweepTest, DistHoldsOnDataShapesWithTails) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kDist,
                                                         .rows = R(1, 9),
                                                         .cols = R(1, 9),
                                                         .tile_rows = R(1, 3),
                                                         .tile_cols = R(1, 3),
                                                         .swizzle_direction = R(0, 1),
                                                         .rank_size = R(1, 4),
                                                         .comm_npu_split = R(1, 4),
                                                         .comm_data_split = R(1, 3)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
}

// dist_swizzle2d_Nz as shipped: its remap sends comm_npu_split rank slots to one rank.
// The smallest counterexample has one tile and two ranks.
TEST(SwizzleSweepTest, DistNzIsViolatedWithSmallestCounterexample) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kDistNz,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12),
                                                         .rank_size = R(1, 8),
                                                         .comm_npu_split = R(1, 8)}));
  ASSERT_EQ(r.verdict, Verdict::kViolated);
  const Counterexample& c = *r.counterexample;
  EXPECT_THAT(c.params,
              ElementsAre(NamedValue{"row_tiles", 1}, NamedValue{"col_tiles", 1},
                          NamedValue{"rank_size", 2}, NamedValue{"comm_npu_split", 2}));
  EXPECT_EQ(c.kind, ViolationKind::kDuplicate);
  EXPECT_THAT(c.iter_ids, ElementsAre(0, 1));
  EXPECT_THAT(c.tile, ElementsAre(NamedValue{"row", 0}, NamedValue{"col", 0},
                                  NamedValue{"rank", 0}));
  EXPECT_EQ(c.ToString(),
            "duplicate at row_tiles=1, col_tiles=1, rank_size=2, comm_npu_split=2: "
            "iterations 0 and 1 both map to tile (row=0, col=0, rank=0)");
  // Checked before it: (1 tile, 1 rank, p = 1), (1 tile, 2 ranks, p = 1).
  EXPECT_EQ(r.param_points, 3);
}

// With comm_npu_split = 1 the shipped remap is the identity and dist_Nz holds.
TEST(SwizzleSweepTest, DistNzHoldsWithoutSplit) {
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kDistNz,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12),
                                                         .rank_size = R(1, 8),
                                                         .comm_npu_split = R(1, 1)}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_EQ(r.param_points, 144 * 8);
}

// Every point of dist_Nz with a split p > 1 is violated, not just the smallest.
TEST(SwizzleSweepTest, DistNzViolatedForEverySplitAboveOne) {
  for (int64_t n = 2; n <= 8; ++n) {
    for (int64_t p = 2; p <= n; ++p) {
      if (n % p != 0) continue;
      for (int64_t rt : {1, 3}) {
        ASSERT_OK_AND_ASSIGN(CheckResult r,
                             CheckBuiltin(Swizzle2dParams{.fn = Builtin::kDistNz,
                                                          .shape = {rt, 2, 1, 1},
                                                          .rank_size = n,
                                                          .comm_npu_split = p}));
        EXPECT_EQ(r.verdict, Verdict::kViolated) << n << " " << p;
      }
    }
  }
}

TEST(SwizzleSweepTest, BudgetGivesInconclusive) {
  SweepOptions options;
  options.max_points = 100;
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                                         .row_tiles = R(1, 12),
                                                         .col_tiles = R(1, 12)},
                                            options));
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.reason,
            "the budget of 100 iterations ran out after 19 parameter points; the next "
            "would be gemm(row_tiles=8, col_tiles=1, swizzle_offset=7, "
            "swizzle_direction=1)");
  EXPECT_LE(r.points, 100);
}

TEST(SwizzleSweepTest, RangeErrors) {
  using absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                 .row_tiles = R(1, 4),
                                 .col_tiles = R(1, 4),
                                 .swizzle_offset = R(0, 7)}),
              StatusIs(kInvalidArgument,
                       "swizzle2d sweep of gemm: swizzle_offset range 0..7 must lie in "
                       "1..7"));
  EXPECT_THAT(Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                 .row_tiles = R(1, 4),
                                 .col_tiles = R(1, 4),
                                 .rank_size = R(1, 4)}),
              StatusIs(kInvalidArgument,
                       "swizzle2d sweep of gemm: rank_size does not apply (gemm swizzles "
                       "have no ranks)"));
  EXPECT_THAT(Sweep(BuiltinSweep{.fn = Builtin::kDistNz,
                                 .row_tiles = R(1, 4),
                                 .col_tiles = R(1, 4),
                                 .swizzle_direction = R(0, 1)}),
              StatusIs(kInvalidArgument, "swizzle_direction does not apply"));
  EXPECT_THAT(Sweep(BuiltinSweep{.fn = Builtin::kGemm,
                                 .row_tiles = R(1, 4),
                                 .col_tiles = R(1, 4),
                                 .rows = R(1, 4)}),
              StatusIs(kInvalidArgument, "not both"));
  EXPECT_THAT(Sweep(BuiltinSweep{.fn = Builtin::kGemm, .row_tiles = R(1, 4)}),
              StatusIs(kInvalidArgument, "row_tiles and col_tiles are both needed"));
  EXPECT_THAT(Sweep(BuiltinSweep{
                  .fn = Builtin::kGemm, .row_tiles = R(0, 4), .col_tiles = R(1, 4)}),
              StatusIs(kInvalidArgument, "row_tiles range 0..4 must lie in 1.."));
  SweepOptions small;
  small.max_param_points = 10;
  EXPECT_THAT(
      Sweep(
          BuiltinSweep{.fn = Builtin::kGemm, .row_tiles = R(1, 4), .col_tiles = R(1, 4)},
          small),
      StatusIs(absl::StatusCode::kResourceExhausted, "exceed the limit of 10"));
}

TEST(SwizzleSweepTest, ParamRangeParse) {
  ASSERT_OK_AND_ASSIGN(ParamRange a, ParamRange::Parse("3..12"));
  EXPECT_EQ(a, R(3, 12));
  ASSERT_OK_AND_ASSIGN(ParamRange b, ParamRange::Parse("7"));
  EXPECT_EQ(b, R(7, 7));
  EXPECT_EQ(a.ToString(), "3..12");
  EXPECT_EQ(b.ToString(), "7");
  EXPECT_THAT(ParamRange::Parse("4..x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "'4..x' is not a range (expected A..B or A)"));
  EXPECT_THAT(ParamRange::Parse("5..2"),
              StatusIs(absl::StatusCode::kInvalidArgument, "range 5..2 is empty"));
}

// Spec sweeps: ordering by tiles then ranks, overrides, limits.
TEST(SwizzleSweepTest, SpecSweepFindsSmallestPointFirst) {
  // Violated whenever a * b >= 6: the smallest violating point by tiles (= a * b) is
  // a=1, b=6 (lexicographically before 2x3, 3x2 and 6x1).
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("s.swz", R"(
param b in 1..9;
param a in 1..9;
domain = a * b;
grid r = a;
grid c = b;
out r = iter // b;
out c = select(a * b >= 6, 0, iter % b);
)"));
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(spec));
  ASSERT_EQ(r.verdict, Verdict::kViolated);
  EXPECT_THAT(r.counterexample->params,
              ElementsAre(NamedValue{"b", 2}, NamedValue{"a", 3}));
  EXPECT_EQ(r.counterexample->kind, ViolationKind::kDuplicate);
  // Narrowed ranges change the answer accordingly.
  ASSERT_OK_AND_ASSIGN(r, Sweep(spec, SpecSweep{{{"a", R(4, 9)}}}));
  EXPECT_THAT(r.counterexample->params,
              ElementsAre(NamedValue{"b", 2}, NamedValue{"a", 4}));
  // With b = 1 the select's 0 is the only column: no violation.
  ASSERT_OK_AND_ASSIGN(r, Sweep(spec, SpecSweep{{{"b", R(1, 1)}}}));
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  EXPECT_EQ(r.param_points, 9);
  EXPECT_THAT(Sweep(spec, SpecSweep{{{"z", R(1, 2)}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "s.swz: the spec has no parameter 'z'"));
  SweepOptions small;
  small.max_param_points = 50;
  EXPECT_THAT(Sweep(spec, {}, small),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "s.swz: the parameter box has more than 50 points; narrow the "
                       "ranges"));
}

// Throughput, printed for the record (not asserted: the machine is shared).
TEST(SwizzleSweepTest, Throughput) {
  using Clock = std::chrono::steady_clock;
  Enumerator e;
  Swizzle2dParams gemm{.fn = Builtin::kGemm,
                       .shape = Shape2d::FromTileCounts(2000, 3000)};
  auto t0 = Clock::now();
  ASSERT_OK_AND_ASSIGN(CheckResult g, e.Check(gemm));
  double gs = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(g.verdict, Verdict::kHolds);
  Swizzle2dParams dist{.fn = Builtin::kDist,
                       .shape = Shape2d::FromTileCounts(300, 500),
                       .rank_size = 8,
                       .comm_npu_split = 2};
  t0 = Clock::now();
  ASSERT_OK_AND_ASSIGN(CheckResult d, e.Check(dist));
  double ds = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(d.verdict, Verdict::kHolds);
  // The same gemm map as a user spec (corpus/swizzle/gemm_d1.swz), compiled evaluator.
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec,
                       SwizzleSpec::Load(std::string(WARPCHECK_SOURCE_DIR) +
                                         "/corpus/swizzle/gemm_d1.swz"));
  ASSERT_OK_AND_ASSIGN(SpecInstance inst, spec.InstantiateUnchecked({1000, 1000, 7}));
  t0 = Clock::now();
  ASSERT_OK_AND_ASSIGN(CheckResult u, e.Check(inst));
  double us = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(u.verdict, Verdict::kHolds);
  std::printf(
      "[throughput] gemm %lld points in %.3f s = %.1f M/s; dist %lld points in "
      "%.3f s = %.1f M/s; gemm spec %lld points in %.3f s = %.1f M/s\n",
      static_cast<long long>(g.points), gs, g.points / gs / 1e6,
      static_cast<long long>(d.points), ds, d.points / ds / 1e6,
      static_cast<long long>(u.points), us, u.points / us / 1e6);
}

// SpecBoxIterations counts what a sweep would check: the domain of every point the
// `require` clauses admit, and gives up (nullopt) past the limit or past the box bound.
TEST(SwizzleSweepTest, SpecBoxIterationsCountsTheAdmittedPointsDomains) {
  absl::StatusOr<SwizzleSpec> spec = SwizzleSpec::Parse("box.swz", R"(
param R in 1..4;
param C in 1..3;
require R != 2;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  int64_t want = 0;  // R in {1, 3, 4}, C in 1..3: (1 + 3 + 4) * (1 + 2 + 3)
  for (int64_t r : {1, 3, 4}) {
    for (int64_t c = 1; c <= 3; ++c) want += r * c;
  }
  absl::StatusOr<std::optional<int64_t>> all = SpecBoxIterations(*spec, {}, 1000, 1000);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, std::optional<int64_t>(want));
  SpecSweep narrow;
  narrow.ranges = {{"R", {3, 3}}};
  EXPECT_EQ(*SpecBoxIterations(*spec, narrow, 1000, 1000), std::optional<int64_t>(18));
  EXPECT_EQ(*SpecBoxIterations(*spec, {}, want - 1, 1000), std::nullopt);  // past the limit
  EXPECT_EQ(*SpecBoxIterations(*spec, {}, 1000, 11), std::nullopt);        // 12 points
  SpecSweep unknown;
  unknown.ranges = {{"K", {1, 2}}};
  EXPECT_EQ(SpecBoxIterations(*spec, unknown, 1000, 1000).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
