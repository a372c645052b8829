// verify/swizzle_prove: the built-ins over their full ranges (the proofs the CLI runs by
// default), counterexamples and their minimisation, budgets, errors, and the spec-only
// paths (evaluation errors, uninstantiable points, `skip`, counting).
#include "verify/swizzle_prove.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::verify {
namespace {

using sim::swizzle::Builtin;
using sim::swizzle::BuiltinSweep;
using sim::swizzle::Counterexample;
using sim::swizzle::NamedValue;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;
using sim::swizzle::ViolationKind;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t k64K = int64_t{1} << 16;

BuiltinSweep GemmBox(Builtin fn, int64_t hi) {
  BuiltinSweep s;
  s.fn = fn;
  s.row_tiles = ParamRange{1, hi};
  s.col_tiles = ParamRange{1, hi};
  s.swizzle_offset = ParamRange{1, 7};
  if (fn == Builtin::kGemm) s.swizzle_direction = ParamRange{0, 1};
  return s;
}

BuiltinSweep DistBox(Builtin fn, int64_t tiles_hi, int64_t ranks_hi) {
  BuiltinSweep s;
  s.fn = fn;
  s.row_tiles = ParamRange{1, tiles_hi};
  s.col_tiles = ParamRange{1, tiles_hi};
  s.rank_size = ParamRange{1, ranks_hi};
  s.comm_npu_split = ParamRange{1, ranks_hi};
  if (fn == Builtin::kDist) {
    s.swizzle_direction = ParamRange{0, 1};
    s.comm_data_split = ParamRange{1, 3};
  }
  return s;
}

bool AllUnsat(const SwizzleProof& p) {
  for (const QueryRecord& q : p.queries) {
    if (q.result != smt::SatResult::kUnsat) return false;
  }
  return true;
}

TEST(SwizzleProveTest, GemmHoldsForEveryGridUpTo64KSquared) {
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(GemmBox(Builtin::kGemm, k64K)));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  EXPECT_EQ(p.configs, 14);      // 7 offsets x 2 directions
  EXPECT_EQ(p.num_queries, 84);  // 3 lemmas, in_range, left_inverse, decomposition
  EXPECT_TRUE(AllUnsat(p));
  EXPECT_FALSE(p.counterexample.has_value());
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name, "gemm.d1.s7.left_inverse")));
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name, "gemm.d0.s3.group")));
  EXPECT_GT(p.solver_ms, 0);
}

TEST(SwizzleProveTest, GemmNzHoldsForEveryGridUpTo64KSquared) {
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(GemmBox(Builtin::kGemmNz, k64K)));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 7);
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name, "gemm_nz.d1.s1.decomposition")));
}

TEST(SwizzleProveTest, DistHoldsForEverySplitAndDirection) {
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(DistBox(Builtin::kDist, k64K, 12)));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_TRUE(AllUnsat(p));
  // Direction 1: one configuration per (N, p); direction 0: one per (N, q), since π
  // enters only through its range there (swizzle_prove_builtin.cc).
  int splits = 0;
  for (int n = 1; n <= 12; ++n) {
    for (int p = 1; p <= n; ++p) splits += n % p == 0;
  }
  EXPECT_EQ(p.configs, splits + 12 * 3);
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name, "dist.d1.N12.p4.left_inverse")));
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name, "dist.d0.N12.p1..12.q3.decomposition")));
}

// dist_swizzle2d_Nz as shipped: the remap sends k to k // p, so ranks collide for p > 1.
// Z3 finds a collision over the full ranges; the minimised counterexample is the smallest
// one (1 tile, 2 ranks), with the enumerator's iteration ids.
TEST(SwizzleProveTest, DistNzViolatedWithSmallestCounterexample) {
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(DistBox(Builtin::kDistNz, k64K, 64)));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_TRUE(p.minimised);
  ASSERT_TRUE(p.counterexample.has_value());
  const Counterexample& c = *p.counterexample;
  EXPECT_EQ(c.kind, ViolationKind::kDuplicate);
  EXPECT_THAT(c.params,
              ElementsAre(NamedValue{"row_tiles", 1}, NamedValue{"col_tiles", 1},
                          NamedValue{"rank_size", 2}, NamedValue{"comm_npu_split", 2}));
  EXPECT_THAT(c.iter_ids, ElementsAre(0, 1));
  EXPECT_THAT(c.tile, ElementsAre(NamedValue{"row", 0}, NamedValue{"col", 0},
                                  NamedValue{"rank", 0}));
  // N = 1 holds; the first violated configuration is N = 2, p = 2.
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name,
                                        HasSubstr("dist_nz.d1.N2.p2.exact.injective"))));
}

TEST(SwizzleProveTest, DistNzWithoutMinimisationReportsTheSolverWitness) {
  SwizzleProveOptions o;
  o.minimise = false;
  BuiltinSweep box = DistBox(Builtin::kDistNz, 100, 4);
  box.rank_size = ParamRange{4, 4};
  box.comm_npu_split = ParamRange{4, 4};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(box, o));
  ASSERT_EQ(p.verdict, Verdict::kViolated);
  EXPECT_FALSE(p.minimised);
  const Counterexample& c = *p.counterexample;
  EXPECT_EQ(c.kind, ViolationKind::kDuplicate);
  ASSERT_EQ(c.iter_ids.size(), 2u);
  // The witness was checked against the concrete map: both iterations give this tile.
  for (int64_t it : c.iter_ids) {
    sim::swizzle::Swizzle2dParams params;
    params.fn = Builtin::kDistNz;
    params.shape =
        sim::swizzle::Shape2d::FromTileCounts(c.params[0].value, c.params[1].value);
    params.rank_size = 4;
    params.comm_npu_split = 4;
    ASSERT_OK_AND_ASSIGN(sim::swizzle::Swizzle2dResult r,
                         sim::swizzle::Apply(params, it));
    EXPECT_EQ(r.row, c.tile[0].value);
    EXPECT_EQ(r.col, c.tile[1].value);
    EXPECT_EQ(r.rank, c.tile[2].value);
  }
}

TEST(SwizzleProveTest, ShapesWithPartialTiles) {
  // rows in 1..5000 with tiles of 1..64: every cdiv, with tails checked positive.
  BuiltinSweep s;
  s.fn = Builtin::kDist;
  s.rows = ParamRange{1, 5000};
  s.cols = ParamRange{1, 5000};
  s.tile_rows = ParamRange{1, 64};
  s.tile_cols = ParamRange{1, 64};
  s.rank_size = ParamRange{1, 4};
  s.comm_npu_split = ParamRange{1, 4};
  s.swizzle_direction = ParamRange{0, 1};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(s));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name, "dist.tail_rows")));
  s.fn = Builtin::kGemm;
  s.rank_size.reset();
  s.comm_npu_split.reset();
  ASSERT_OK_AND_ASSIGN(p, ProveBuiltin(s));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
}

TEST(SwizzleProveTest, TinyBudgetIsInconclusiveNeverAPass) {
  SwizzleProveOptions o;
  o.solver.rlimit = 200;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(GemmBox(Builtin::kGemm, k64K), o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive);
  EXPECT_THAT(p.reason, HasSubstr("returned unknown"));
  EXPECT_THAT(p.reason, HasSubstr("gemm.d"));
  EXPECT_FALSE(p.counterexample.has_value());
}

TEST(SwizzleProveTest, KeepsSmtLibWhenAsked) {
  SwizzleProveOptions o;
  o.solver.keep_smt2 = true;
  BuiltinSweep box = GemmBox(Builtin::kGemmNz, 100);
  box.swizzle_offset = ParamRange{3, 3};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveBuiltin(box, o));
  ASSERT_EQ(p.queries.size(), 6u);
  EXPECT_THAT(p.queries[0].smt2, HasSubstr("gemm_nz.d1.s3.group"));
  EXPECT_THAT(p.queries[0].smt2, HasSubstr("(check-sat)"));
}

TEST(SwizzleProveTest, InvalidBoxes) {
  BuiltinSweep s = GemmBox(Builtin::kGemm, 10);
  s.swizzle_offset = ParamRange{0, 7};
  EXPECT_THAT(ProveBuiltin(s), StatusIs(absl::StatusCode::kInvalidArgument,
                                        "swizzle_offset range 0..7 must lie in 1..7"));
  s = GemmBox(Builtin::kGemm, 10);
  s.rank_size = ParamRange{1, 4};
  EXPECT_THAT(ProveBuiltin(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "rank_size does not apply"));
  s = GemmBox(Builtin::kGemm, 10);
  s.rows = ParamRange{1, 4};
  EXPECT_THAT(ProveBuiltin(s), StatusIs(absl::StatusCode::kInvalidArgument, "not both"));
  s = GemmBox(Builtin::kGemmNz, 10);
  s.swizzle_direction = ParamRange{0, 1};
  EXPECT_THAT(ProveBuiltin(s), StatusIs(absl::StatusCode::kInvalidArgument, "_Nz"));
  SwizzleProveOptions o;
  o.max_configs = 5;
  EXPECT_THAT(ProveBuiltin(GemmBox(Builtin::kGemm, 10), o),
              StatusIs(absl::StatusCode::kResourceExhausted, "max_configs"));
}

// ---------------------------------------------------------------------------------------
// Specs.

SwizzleSpec ParseOrDie(const std::string& name, const std::string& text) {
  absl::StatusOr<SwizzleSpec> s = SwizzleSpec::Parse(name, text);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

// What the logged queries spent of Z3's rlimit.
uint64_t LoggedSpending(const SwizzleProof& p) {
  uint64_t spent = 0;
  for (const QueryRecord& q : p.queries) spent += q.rlimit_used;
  return spent;
}

// The total-budget bookkeeping of `p`, proved from `spec` over `box` with `o`: its
// rlimit_spent is the sum of its logged queries, among which a query names each of
// `parts`; the sum stays within o.total_rlimit up to a tenth (Z3 checks its rlimit between
// steps, so the last query may overshoot); and the proof without the query log spends the
// same.
void ExpectChargedWithinTheTotalBudget(const SwizzleSpec& spec, const SpecSweep& box,
                                       SwizzleProveOptions o, const SwizzleProof& p,
                                       std::initializer_list<absl::string_view> parts) {
  const uint64_t spent = LoggedSpending(p);
  EXPECT_EQ(p.rlimit_spent, spent);
  for (absl::string_view part : parts) {
    EXPECT_TRUE(absl::c_any_of(p.queries, [&](const QueryRecord& q) {
      return absl::StrContains(q.name, part);
    })) << "no query of " << part << " in the log";
  }
  EXPECT_LE(spent, o.total_rlimit + o.total_rlimit / 10) << p.ToString();
  o.keep_query_log = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof quiet, ProveSpec(spec, box, o));
  EXPECT_TRUE(quiet.queries.empty());
  EXPECT_EQ(quiet.rlimit_spent, p.rlimit_spent) << quiet.ToString();
}

// The Z3 verdict and counterexample equal the enumeration sweep's.
void ExpectAgreesWithSweep(const SwizzleSpec& spec, const SwizzleProof& p) {
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(spec));
  EXPECT_EQ(p.verdict, e.verdict) << p.ToString();
  EXPECT_EQ(p.counterexample, e.counterexample) << p.ToString();
}

TEST(SwizzleProveSpecTest, EvaluationErrorIsAViolation) {
  // w is 0 in the last group when C is a multiple of 3: division by zero.
  SwizzleSpec spec = ParseOrDie("div0.swz", R"(
param R in 1..6;
param C in 1..6;
domain = R * C;
grid row = R;
grid col = C;
let w = 3 - (iter // R) % 3;
out row = iter % R;
out col = iter // R + 0 * (iter // (w - 1));
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample->kind, ViolationKind::kEvalError);
  EXPECT_THAT(p.counterexample->detail, HasSubstr("division by zero"));
  ExpectAgreesWithSweep(spec, p);
}

TEST(SwizzleProveSpecTest, UninstantiablePointIsAnError) {
  // grid col = C - 3 is not positive for C <= 3: the sweep fails there, so does the
  // proof.
  SwizzleSpec spec = ParseOrDie("bad_grid.swz", R"(
param C in 1..8;
domain = C;
grid row = 1;
grid col = C - 3;
out row = 0;
out col = iter;
)");
  EXPECT_THAT(ProveSpec(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, "not positive"));
  EXPECT_THAT(sim::swizzle::Sweep(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, "not positive"));
  // Excluded by a require, the same spec holds... except that col = iter reaches C - 3.
  SwizzleSpec fixed = ParseOrDie("fixed.swz", R"(
param C in 1..8;
require C > 3;
domain = C - 3;
grid row = 1;
grid col = C - 3;
out row = 0;
out col = iter;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(fixed));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  ExpectAgreesWithSweep(fixed, p);
}

TEST(SwizzleProveSpecTest, CountingFindsAMissedTile) {
  // One iteration too few: injective and in range, but not onto.
  SwizzleSpec spec = ParseOrDie("short.swz", R"(
param R in 1..9;
param C in 1..9;
domain = R * C - select(R * C >= 6, 1, 0);
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample->kind, ViolationKind::kMissed);
  EXPECT_TRUE(p.minimised);
  ExpectAgreesWithSweep(spec, p);
}

TEST(SwizzleProveSpecTest, TailSizesAreChecked) {
  SwizzleSpec spec = ParseOrDie("tail.swz", R"(
param rows in 1..12;
param tile in 1..4;
let R = cdiv(rows, tile);
domain = R;
grid row = R;
out row = iter;
out size = min(rows - row * tile, tile);
tail size = min(rows - row * tile, tile);
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  // A wrong tail: the full tile size even for the last, partial tile.
  SwizzleSpec wrong = ParseOrDie("tail_wrong.swz", R"(
param rows in 1..12;
param tile in 1..4;
let R = cdiv(rows, tile);
domain = R;
grid row = R;
out row = iter;
out size = tile;
tail size = min(rows - row * tile, tile);
)");
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(wrong));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample->kind, ViolationKind::kTailSize);
  ExpectAgreesWithSweep(wrong, p);
}

// The reduced spec (SwizzleProveOptions::reduce_specs): a dist-style transcription with
// shapes. (row, col) = (d // C, d % C) merge into d, D = R * C (from rows, tile_rows, cols,
// tile_cols) becomes a parameter, and each tail is checked at a free tile.
constexpr char kDistShapes[] = R"(
param rows in 1..6;
param cols in 1..6;
param tile_rows in 1..2;
param tile_cols in 1..2;
param rank_size in 1..4;
let R = cdiv(rows, tile_rows);
let C = cdiv(cols, tile_cols);
let D = R * C;
let N = rank_size;
domain = N * D;
grid row = R;
grid col = C;
grid rank = N;
let d = iter % D;
let k = iter // D;
out row = d // C;
out col = d % C;
out rank = (k + d) % N;
out comm_row_size = min(rows - row * tile_rows, tile_rows);
tail comm_row_size = min(rows - row * tile_rows, tile_rows);
)";

TEST(SwizzleProveSpecTest, ReducedSpecMergesTilesAndAbstractsTheTileCount) {
  SwizzleSpec spec = ParseOrDie("dist_shapes.swz", kDistShapes);
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  std::string notes = absl::StrJoin(p.notes, "\n");
  EXPECT_THAT(notes, HasSubstr("reduced: tiles (row, col)"));
  EXPECT_THAT(notes, HasSubstr("reduced: let D = R * C (from cols, rows, tile_cols, "
                               "tile_rows) is a parameter of the index part, 1..36"));
  ExpectAgreesWithSweep(spec, p);
  // Without the reduction: the same verdict.
  SwizzleProveOptions o;
  o.reduce_specs = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, {}, o));
  EXPECT_EQ(q.verdict, Verdict::kHolds) << q.ToString();
  EXPECT_THAT(absl::StrJoin(q.notes, "\n"), Not(HasSubstr("reduced:")));
}

// Under a total budget the reduced spec's parts share it, and what a reduction that did
// not decide spent is charged to the spec's own proof after it (verify/README.md,
// "Fourteenth pass"): before, the index part and each payload part had the whole
// total_rlimit, and the direct route had it all again, the reduction's spending dropped.
// The index part holds within it (about 9 000); the tail part then runs out (before the
// fix it had the whole budget again and held, 11 178 spent of 10 000).
constexpr uint64_t kReducedBudget = 10'000;

TEST(SwizzleProveSpecTest, ReducedSpecChargesItsPartsToTheTotalBudget) {
  SwizzleSpec spec = ParseOrDie("dist_shapes.swz", kDistShapes);
  SwizzleProveOptions o;
  o.total_rlimit = kReducedBudget;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.ToString();
  EXPECT_THAT(p.notes, Contains(HasSubstr("the reduced spec did not decide (dist_shapes.swz "
                                          "(tail comm_row_size) is inconclusive")));
  ExpectChargedWithinTheTotalBudget(spec, {}, o, p, {"(index part)", "(tail comm_row_size)"});
}

TEST(SwizzleProveSpecTest, ReducedSpecViolationsAreTheSweepsSmallest) {
  // The rank forgets the rank slot k: d % N, a duplicate as soon as N > 1.
  std::string text = kDistShapes;
  text.replace(text.find("(k + d) % N"), 11, "d % N");
  SwizzleSpec spec = ParseOrDie("dist_shapes_bad.swz", text);
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_TRUE(p.minimised);
  EXPECT_THAT(absl::StrJoin(p.notes, "\n"), HasSubstr("the reduced spec is violated"));
  ExpectAgreesWithSweep(spec, p);
  // A wrong tail: the full tile even for a partial last tile (found by the payload spec).
  text = kDistShapes;
  text.replace(text.find("out comm_row_size = min(rows - row * tile_rows, tile_rows)"),
               58, "out comm_row_size = tile_rows");
  SwizzleSpec tail = ParseOrDie("dist_shapes_tail.swz", text);
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(tail));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample->kind, ViolationKind::kTailSize);
  ExpectAgreesWithSweep(tail, p);
}

TEST(SwizzleProveSpecTest, ReducedSpecFalseAlarmFallsBackToTheSpec) {
  // D = R * C takes the values 1, 2, 3, 4, 6, 9, but the index part ranges over the hull
  // 1..9; the map is wrong only at D = 5, which no point reaches. The reduced proof finds
  // that violation, the sweep of the spec's box does not, and the spec's own proof holds.
  SwizzleSpec spec = ParseOrDie("gap.swz", R"(
param R in 1..3;
param C in 1..3;
let D = R * C;
domain = D;
grid row = R;
grid col = C;
let x = select(D == 5, 0, iter);
out row = x // C;
out col = x % C;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_THAT(absl::StrJoin(p.notes, "\n"), Not(HasSubstr("reduced:")));
  ExpectAgreesWithSweep(spec, p);
}

TEST(SwizzleProveSpecTest, ReducedSpecKeepsParametersTheIndexPartReads) {
  // rows is read by the map itself, not only through R: R is not abstracted (and there
  // is no (X // E, X % E) pair), so there is no reduction.
  SwizzleSpec spec = ParseOrDie("no_reduce.swz", R"(
param rows in 1..8;
param tile in 1..3;
let R = cdiv(rows, tile);
domain = R;
grid row = R;
out row = (iter + rows - rows) % R;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_THAT(absl::StrJoin(p.notes, "\n"), Not(HasSubstr("reduced:")));
}

TEST(SwizzleProveSpecTest, SkipFallsBackToEnumerationForSurjectivity) {
  SwizzleSpec spec = ParseOrDie("skip.swz", R"(
param R in 1..5;
param C in 1..5;
domain = R * (C + 1);
grid row = R;
grid col = C;
out row = iter // (C + 1);
out col = iter % (C + 1);
skip col >= C;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kEnumerated);
  EXPECT_THAT(p.notes, Contains(HasSubstr("surjectivity enumerated")));
  SwizzleProveOptions o;
  o.max_enumerated_points = 10;  // past it: the solver, surjectivity by counting
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  o.surjective_by_counting = false;  // without counting, surjectivity stays open
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive);
  EXPECT_THAT(p.reason, HasSubstr("skip"));
}

TEST(SwizzleProveSpecTest, SymbolicParametersAndOverrides) {
  SwizzleSpec spec = ParseOrDie("grid.swz", R"(
param R in 1..100;
param C in 1..100;
param g in 1..3;
domain = R * C;
grid row = R;
grid col = C;
let gid = iter // (g * C);
let first = gid * g;
let size = min(R - first, g);
out row = first + iter % size;
out col = iter % (g * C) // size;
)");
  SwizzleProveOptions o;
  o.symbolic_params = {"C"};
  SpecSweep ranges;
  ranges.ranges = {{"R", ParamRange{1, 4}}};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, ranges, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 4 * 3);  // R and g enumerated, C symbolic
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name,
                                        AllOf(HasSubstr("grid.swz[R=2,C=1..100,g=3]."),
                                              ::testing::EndsWith(".injective")))));
  o.symbolic_params = {"nope"};
  EXPECT_THAT(ProveSpec(spec, ranges, o),
              StatusIs(absl::StatusCode::kInvalidArgument, "no parameter 'nope'"));
}

// A serpentine order whose divisor (col_tiles) has a small range and whose tile count
// (row_tiles) a large one: the shape the cube split and the total budget are about.
constexpr char kSerpentine[] = R"(
param row_tiles in 1..4096;
param col_tiles in 1..32;
domain = row_tiles * col_tiles;
grid row = row_tiles;
grid col = col_tiles;
out row = iter // col_tiles;
let c = iter % col_tiles;
out col = select(row % 2 == 1, col_tiles - 1 - c, c);
)";

// The up-front cube split (cube_divisors_up_to): the divisor col_tiles is enumerated (32
// configurations), row_tiles stays symbolic (up to 4096), and each configuration, now
// linear, is proved with integers first even though it would fit 16-bit bit-vectors.
// (With digit_iterations, the default, the iteration is the digits (iter // col_tiles,
// iter % col_tiles) and nothing needs cubing: one configuration.)
// The serpentine's col reads the coordinate row, so it is also an output chain with a
// coordinate read (output_chain_coordinates), which would take these proofs off the route
// tested here: off in this test and the next.
TEST(SwizzleProveSpecTest, DivisorParametersAreCubedUpFront) {
  SwizzleSpec spec = ParseOrDie("serp.swz", kSerpentine);
  SwizzleProveOptions plain;
  plain.output_chain_coordinates = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof digits, ProveSpec(spec, {}, plain));
  EXPECT_EQ(digits.verdict, Verdict::kHolds) << digits.ToString();
  EXPECT_EQ(digits.configs, 1);
  SwizzleProveOptions no_digits = plain;
  no_digits.digit_iterations = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, no_digits));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 32);
  EXPECT_THAT(p.queries, Contains(Field(&QueryRecord::name,
                                        HasSubstr("serp.swz[row_tiles=1..4096,col_tiles=7]."
                                                  "injective"))));
  EXPECT_THAT(p.queries, Not(Contains(Field(&QueryRecord::name, HasSubstr("].bv")))));
  SwizzleProveOptions o = plain;
  o.digit_iterations = false;
  o.cube_divisors_up_to = 31;  // over budget: col_tiles stays symbolic
  o.solver.rlimit = 1;         // only the configurations are counted: stop at once
  o.max_configs = 1;
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, {}, o));
  EXPECT_EQ(q.configs, 1) << q.ToString();
  EXPECT_EQ(q.verdict, Verdict::kInconclusive) << q.ToString();
}

// Under a total budget each configuration is proved whole before the next, so the part of
// the box the budget covered is reported proven and the rest open (not everything open
// because injectivity, the second pass, never started).
TEST(SwizzleProveSpecTest, TotalBudgetReportsTheProvenPart) {
  SwizzleSpec spec = ParseOrDie("serp.swz", kSerpentine);
  SwizzleProveOptions o;
  o.output_chain_coordinates = false;  // see DivisorParametersAreCubedUpFront
  o.digit_iterations = false;  // else one configuration, proven within the budget
  o.total_rlimit = 10'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.ToString();
  EXPECT_THAT(p.reason, AllOf(HasSubstr("proven: row_tiles=1..4096, col_tiles=1.."),
                              HasSubstr("| open: "), HasSubstr("total_rlimit")))
      << p.reason;
}

TEST(SwizzleProveSpecTest, ConfigurationsSplitWhenTheBudgetRunsOut) {
  SwizzleSpec spec = ParseOrDie("rowmajor.swz", R"(
param R in 1..4;
param C in 1..4;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
)");
  SwizzleProveOptions o;
  o.symbolic_params = {"R", "C"};
  o.split_rlimit = 1;  // every query with a symbolic parameter runs out at once
  // The integer encoding alone (query names below are its own; the bit-vector tactic
  // may decide such tiny queries before its first resource check).
  o.encodings = {SwizzleProveOptions::Encoding::kInteger};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  // 1 + 4 (split on R) + 16 (split on C) configurations in the first pass.
  EXPECT_EQ(p.configs, 21);
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name, "rowmajor.swz[R=3,C=2].injective")));
  // With every parameter constant and still no budget, each point is decided by
  // evaluating its iterations, and the report says so.
  o.solver.rlimit = 1;
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].how, SubBox::How::kEnumerated);
  EXPECT_EQ(p.coverage[0].ToString(), "R=1..4, C=1..4");
  // Without that fallback the verdict is inconclusive, never a pass, and the report
  // names the open sub-box and the query that ran out.
  o.enumerate_stuck_points = 0;
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive);
  EXPECT_THAT(p.reason, HasSubstr("open: R=1..4, C=1..4 (query "));
  EXPECT_THAT(p.reason, HasSubstr("returned unknown"));
}

// The text of corpus/swizzle/<name>.swz.
std::string CorpusSource(const std::string& name) {
  std::ifstream in(absl::StrCat(WARPCHECK_SOURCE_DIR, "/corpus/swizzle/", name, ".swz"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

SwizzleSpec LoadCorpus(const std::string& name) {
  absl::StatusOr<SwizzleSpec> s = SwizzleSpec::Load(
      absl::StrCat(WARPCHECK_SOURCE_DIR, "/corpus/swizzle/", name, ".swz"));
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

SwizzleProveOptions Only(SwizzleProveOptions::Encoding e) {
  SwizzleProveOptions o;
  o.encodings = {e};
  return o;
}

// Ensures: how many queries ran in the bit-vector encoding (their names carry ".bvW.").
int64_t BitVectorQueries(const SwizzleProof& p) {
  int64_t n = 0;
  for (const QueryRecord& q : p.queries) n += q.name.find("].bv") != std::string::npos;
  return n;
}

// A wrong map is refuted by either encoding alone, with the enumeration's smallest
// counterexample (the bit-vector model is shrunk and minimised like the integer one).
TEST(SwizzleProveSpecTest, BothEncodingsRefuteAWrongMapWithTheSameCounterexample) {
  SwizzleSpec spec = LoadCorpus("buggy_gemm_d1_no_tail_fix");
  SpecSweep box;
  box.ranges = {{"row_tiles", {1, 5}}, {"col_tiles", {1, 5}}, {"swizzle_offset", {1, 3}}};
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult want, sim::swizzle::Sweep(spec, box));
  ASSERT_EQ(want.verdict, Verdict::kViolated);
  for (auto e : {SwizzleProveOptions::Encoding::kInteger,
                 SwizzleProveOptions::Encoding::kBitVector}) {
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box, Only(e)));
    ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
    EXPECT_TRUE(p.minimised);
    EXPECT_EQ(p.counterexample, want.counterexample) << p.ToString();
    const bool bv = e == SwizzleProveOptions::Encoding::kBitVector;
    EXPECT_EQ(BitVectorQueries(p) == p.num_queries, bv);
    EXPECT_EQ(BitVectorQueries(p) == 0, !bv);
  }
}

// The bit-vector encoding alone proves a correct map (gemm direction 1, with its
// divisions by the symbolic s * R and group width). The box fits 16 bits, so by default
// it is one configuration with every parameter symbolic; with bitvector_first_bits 0 the
// small swizzle_offset is enumerated instead (7 configurations, with the up-front cube
// split off: it would enumerate row_tiles too), same verdict.
TEST(SwizzleProveSpecTest, BitVectorEncodingProvesTheGemmTranscription) {
  SwizzleSpec spec = LoadCorpus("gemm_d1");
  SpecSweep box;
  box.ranges = {{"row_tiles", {1, 5}}, {"col_tiles", {1, 5}}, {"swizzle_offset", {1, 7}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kBitVector);
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_TRUE(p.coverage.empty()) << p.ToString();  // proven symbolically, nothing enumerated
  EXPECT_EQ(p.configs, 1);
  EXPECT_THAT(p.notes, Contains(HasSubstr("every parameter symbolic")));
  EXPECT_EQ(BitVectorQueries(p), p.num_queries);
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name,
                             AllOf(HasSubstr("swizzle_offset=1..7].bv"),
                                   ::testing::EndsWith(".injective")))));
  o.bitvector_first_bits = 0;
  o.cube_divisors_up_to = 0;
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(spec, box, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 7);
}

// The portfolio: integers first (bitvector_first_bits 0) with a budget the integer core
// runs out of on Morton's unrolled div/mod chains; the bit-vector encoding resumes at
// that very query and decides it, so the box is proven, nothing enumerated.
TEST(SwizzleProveSpecTest, PortfolioResumesInBitVectorsWhereIntegersRunOut) {
  SwizzleSpec spec = LoadCorpus("morton_z_order");
  SwizzleProveOptions o;
  o.bitvector_first_bits = 0;
  o.solver.rlimit = 300'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_TRUE(p.coverage.empty()) << p.ToString();
  auto it = std::find_if(p.queries.begin(), p.queries.end(), [](const QueryRecord& q) {
    return q.result == smt::SatResult::kUnknown;
  });
  ASSERT_NE(it, p.queries.end());
  ASSERT_NE(it + 1, p.queries.end());
  EXPECT_EQ(it->name.find("].bv"), std::string::npos) << it->name;
  const std::string property = it->name.substr(it->name.rfind('.'));
  EXPECT_THAT((it + 1)->name, AllOf(HasSubstr("].bv"), ::testing::EndsWith(property)));
  EXPECT_EQ((it + 1)->result, smt::SatResult::kUnsat);
}

}  // namespace
}  // namespace warpcheck::verify

namespace warpcheck::verify {
namespace {

// digit_iterations and case_obligations: gemm direction 1 with R and C symbolic up to 192
// (16x its declared 12) is one linear configuration per swizzle_offset: the iteration as
// digits (g, j) of s*R, the group width w in `j // w` within the cases 1..s (the
// case_obligations query proves it), no product of two unknowns.
TEST(SwizzleProveSpecTest, DigitIterationsProveGemmAtSixteenTimesItsBox) {
  SwizzleSpec spec = LoadCorpus("gemm_d1");
  SpecSweep box;
  box.ranges = {{"row_tiles", {1, 192}}, {"col_tiles", {1, 192}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 7);
  EXPECT_TRUE(p.coverage.empty()) << p.ToString();  // all proven, nothing enumerated
  EXPECT_TRUE(AllUnsat(p)) << p.ToString();
  EXPECT_THAT(p.queries,
              Contains(Field(&QueryRecord::name,
                             "gemm_d1.swz[row_tiles=1..192,col_tiles=1..192,"
                             "swizzle_offset=7].case_obligations")));
  // Without the two, the same box is not proved within the same budget.
  o.digit_iterations = false;
  o.case_obligations = false;
  o.cube_divisors_up_to = 0;
  o.max_configs = 7;
  o.solver.rlimit = 2'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, box, o));
  EXPECT_NE(q.verdict, Verdict::kHolds) << q.ToString();
}

// A wrong map at 16x: the digits' model is re-checked by evaluation and minimised to the
// enumeration's smallest counterexample, the same as on a box small enough to sweep.
TEST(SwizzleProveSpecTest, DigitIterationsRefuteWithTheSweepsSmallestCounterexample) {
  SwizzleSpec spec = LoadCorpus("buggy_gemm_d1_no_tail_fix");
  SpecSweep small;
  small.ranges = {{"row_tiles", {1, 5}}, {"col_tiles", {1, 5}}};
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult want, sim::swizzle::Sweep(spec, small));
  ASSERT_EQ(want.verdict, Verdict::kViolated);
  SpecSweep wide;
  wide.ranges = {{"row_tiles", {1, 192}}, {"col_tiles", {1, 192}}};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p,
                       ProveSpec(spec, wide, Only(SwizzleProveOptions::Encoding::kInteger)));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample, want.counterexample) << p.ToString();
}

// A divisor past its cases: `w = select(R * R == 2, 0, C)` is C (R*R is never 2), up to
// 20, and the divisor cases cover 1..16; the case_obligations query finds C = 17, and the
// configuration is encoded again with the nonlinear fallback, which proves it. A bug
// after the division is still refuted: never a false verdict.
TEST(SwizzleProveSpecTest, FailedCaseObligationsFallBackToTheFullEncoding) {
  SwizzleSpec spec = ParseOrDie("guess.swz", R"(
param R in 1..3;
param C in 1..20;
domain = R * C;
grid row = R;
grid col = C;
let w = select(R * R == 2, 0, C);
out row = iter // w;
out col = iter % w;
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p,
                       ProveSpec(spec, {}, Only(SwizzleProveOptions::Encoding::kInteger)));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  auto ob = std::find_if(p.queries.begin(), p.queries.end(), [](const QueryRecord& q) {
    return q.name.find("case_obligations") != std::string::npos;
  });
  ASSERT_NE(ob, p.queries.end());
  EXPECT_EQ(ob->result, smt::SatResult::kSat);
  // The same map with a bug after the division is still refuted.
  SwizzleSpec bad = ParseOrDie("guess_bad.swz", R"(
param R in 1..3;
param C in 1..20;
domain = R * C;
grid row = R;
grid col = C;
let w = select(R * R == 2, 0, C);
out row = iter // w;
out col = min(iter % w + 1, w - 1);
)");
  ASSERT_OK_AND_ASSIGN(SwizzleProof b,
                       ProveSpec(bad, {}, Only(SwizzleProveOptions::Encoding::kInteger)));
  EXPECT_EQ(b.verdict, Verdict::kViolated) << b.ToString();
}


// Ensures: how many queries ran out (kUnknown) in `p`.
int64_t UnknownQueries(const SwizzleProof& p) {
  return std::count_if(p.queries.begin(), p.queries.end(), [](const QueryRecord& q) {
    return q.result == smt::SatResult::kUnknown;
  });
}

// Under `o`'s deterministic budgets the box holds with no query out of budget, and with
// the strategy `knob` turned off (0) some query runs out. Returns the proof without it.
SwizzleProof ExpectDecidedOnlyWith(const SwizzleSpec& spec, const SpecSweep& box,
                                   SwizzleProveOptions o, int SwizzleProveOptions::*knob) {
  absl::StatusOr<SwizzleProof> with = ProveSpec(spec, box, o);
  EXPECT_TRUE(with.ok()) << with.status();
  if (with.ok()) {
    EXPECT_EQ(with->verdict, Verdict::kHolds) << with->ToString();
    EXPECT_EQ(UnknownQueries(*with), 0) << with->ToString();
  }
  o.*knob = 0;
  absl::StatusOr<SwizzleProof> without = ProveSpec(spec, box, o);
  EXPECT_TRUE(without.ok()) << without.status();
  if (!without.ok()) return SwizzleProof{};
  EXPECT_GT(UnknownQueries(*without), 0) << without->ToString();
  return *std::move(without);
}

// `skip` without `inverse`: the box's iterations are counted before the up-front sweep,
// and a box past max_enumerated_points is not swept (before, the sweep checked points
// until the budget ran out — persistent_num_sms and stream_k at 16x were killed in it);
// the solver proves the rest. Here the box has
// sum_R (R + 1) * sum_C C = 44 * 36 = 1 584 iterations: with a budget of 1 000 it is the
// solver's, and (surjectivity by counting off) the result says surjectivity is open
// instead of claiming it; with 2 000 it is enumerated, as before.
constexpr char kPaddedRows[] = R"(
param R in 1..8;
param C in 1..8;
domain = R * C + C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
skip iter >= R * C;
)";

TEST(SwizzleProveSpecTest, SkipBoxPastTheEnumerationBudgetGoesToTheSolver) {
  SwizzleSpec spec = ParseOrDie("padded.swz", kPaddedRows);
  SwizzleProveOptions o;
  o.max_enumerated_points = 1'000;
  o.surjective_by_counting = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.ToString();
  EXPECT_FALSE(p.counterexample.has_value());
  EXPECT_GT(p.queries.size(), 0u);
  EXPECT_THAT(absl::StrJoin(p.notes, "\n"), ::testing::HasSubstr("counted before sweeping"));
  EXPECT_THAT(p.reason, HasSubstr("surjectivity"));
  o.max_enumerated_points = 2'000;  // the whole box fits: enumerated, as before
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, {}, o));
  EXPECT_EQ(q.verdict, Verdict::kHolds) << q.ToString();
  EXPECT_EQ(q.checked, CheckedBy::kEnumerated);
}

// Surjectivity by counting (SwizzleProveOptions::surjective_by_counting; verify/README.md,
// "Seventh pass"): the same box past the enumeration budget holds symbolically — the
// coordinates read past the skip are a bijection from the R*C + C iterations onto the
// padded box (R + 1) x C, and the skip removes exactly row R.
TEST(SwizzleProveSpecTest, SkipWithoutInverseIsOntoByCountingTheCoordinates) {
  SwizzleSpec spec = ParseOrDie("padded.swz", kPaddedRows);
  SwizzleProveOptions o;
  o.max_enumerated_points = 1'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  EXPECT_THAT(absl::StrJoin(p.notes, "\n"), HasSubstr("surjectivity proved by counting"));
  EXPECT_TRUE(std::any_of(p.queries.begin(), p.queries.end(), [](const QueryRecord& q) {
    return absl::StrContains(q.name, "surjective_count.coordinates");
  })) << p.ToString();
  ExpectAgreesWithSweep(spec, p);
}

// The second candidate: the skip's own atom. A persistent loop (Triton's 09-persistent-
// matmul: S programs striding through the tile ids) reads tile ids past M*N only in the
// skip; past it the placement is junk (here every padded iteration lands in column 0 of
// row M, so the coordinates are not injective there and no candidate). The tile id is: a
// bijection of the domain onto [0, programs * steps), the skip keeps [0, M*N), and M*N is
// the box's size.
TEST(SwizzleProveSpecTest, SkipWithoutInverseIsOntoByCountingTheSkipAtom) {
  SwizzleSpec spec = ParseOrDie("persistent.swz", R"(
param M in 1..6;
param N in 1..6;
param S in 1..8;
let tiles = M * N;
let programs = min(S, tiles);
let steps = cdiv(tiles, S);
domain = programs * steps;
grid row = M;
grid col = N;
let tile_id = iter % programs + (iter // programs) * S;
skip tile_id >= tiles;
out row = tile_id // N;
out col = select(tile_id < tiles, tile_id % N, 0);
)");
  SwizzleProveOptions o;
  o.max_enumerated_points = 1'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  EXPECT_TRUE(std::any_of(p.queries.begin(), p.queries.end(), [](const QueryRecord& q) {
    return absl::StrContains(q.name, "surjective_count.skip_atoms0.count");
  })) << p.ToString();
  ExpectAgreesWithSweep(spec, p);
}

// The corpus's `skip` maps without an inverse, on their declared boxes, with the sweep
// that runs first turned off (max_enumerated_points = 1): both hold symbolically, as the
// enumeration says — CUTLASS's log-tile swizzle by its coordinates (row in range, the
// column padded to grid_y * T), the sm90 raster after splitting on along_n (the padded
// coordinate is the row or the column).
TEST(SwizzleProveSpecTest, CorpusSkipMapsHoldByCountingAsTheSweepSays) {
  for (const char* name : {"cutlass_identity", "cutlass_sm90_raster"}) {
    SCOPED_TRACE(name);
    SwizzleSpec spec = LoadCorpus(name);
    SwizzleProveOptions o;
    o.max_enumerated_points = 1;
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
    EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
    EXPECT_THAT(absl::StrJoin(p.notes, "\n"), HasSubstr("surjectivity proved by counting"));
    ExpectAgreesWithSweep(spec, p);
    o.surjective_by_counting = false;
    ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, {}, o));
    EXPECT_EQ(q.verdict, Verdict::kInconclusive) << q.ToString();
  }
}

// Counting never proves a map that misses a tile: here the skip drops the last tile only
// from R = 20 on, out of the low corner's reach, so the sweep that runs first does not see
// it; both candidates are ruled out there (the coordinates: the skip is not the padding;
// the atom: R*C - 1 iterations for R*C tiles), the configuration is split, and the points
// where counting still does not apply are evaluated: the sweep's smallest missed tile.
TEST(SwizzleProveSpecTest, CountingDoesNotProveAMapThatMissesATile) {
  SwizzleSpec spec = ParseOrDie("misses_late.swz", R"(
param R in 1..24;
param C in 1..4;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
skip iter >= R * C - select(R >= 20, 1, 0);
)");
  SwizzleProveOptions o;
  o.max_enumerated_points = 100;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample->kind, ViolationKind::kMissed) << p.ToString();
  ExpectAgreesWithSweep(spec, p);  // R = 20, C = 1: tile (19, 0)
  o.surjective_by_counting = false;  // without counting: open, never holds
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(spec, {}, o));
  EXPECT_EQ(q.verdict, Verdict::kInconclusive) << q.ToString();
}

// A box past the budget is still refuted where a tile is missed at few tiles: its low
// corner (every range cut to 16 values) is swept, and the counterexample is that sweep's.
TEST(SwizzleProveSpecTest, SkipBoxPastTheEnumerationBudgetIsRefutedInItsLowCorner) {
  SwizzleSpec spec = ParseOrDie("missed.swz", R"(
param R in 1..64;
param C in 1..64;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
skip iter == 1;
)");
  SwizzleProveOptions o;
  o.max_enumerated_points = 100'000;  // the box: 4.3e6 iterations; the corner: 18 496
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  SpecSweep corner;
  corner.ranges = {{"R", {1, 16}}, {"C", {1, 16}}};
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult sweep, sim::swizzle::Sweep(spec, corner));
  ASSERT_EQ(sweep.verdict, Verdict::kViolated);
  EXPECT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_EQ(p.counterexample, sweep.counterexample) << p.ToString();
}

// Factor cases (SwizzleProveOptions::small_factor_cases): composable_kernel's
// `idx_M01 * n0` with idx_M01 = idx_M0 % M01 in 0..7 and n0 symbolic is a product of two
// unknowns; at M01 = 8 over the 16x box (m0, n0 <= 192) the injective query ran past
// 2e6 of Z3's rlimit in every sub-box but m0 = 1 (measured: no answer in 100 s at the
// default rlimit). As one linear case per value of idx_M01 it needs about 1.7e5.
TEST(SwizzleProveSpecTest, FactorCasesDecideComposableKernelsFullGroups) {
  SwizzleSpec spec = LoadCorpus("ck_m00_n0_m01_adapt");
  SpecSweep box;
  box.ranges = {{"m0", {1, 192}}, {"n0", {1, 192}}, {"m01", {8, 8}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.solver.rlimit = 2'000'000;
  o.total_rlimit = 6'000'000;  // without the cases: a few splits, then the rest is open
  SwizzleProof without =
      ExpectDecidedOnlyWith(spec, box, o, &SwizzleProveOptions::small_factor_cases);
  EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
}

// The cases are exact: a mutant whose product is off (`idx_M01 * (n0 - 1)`) is refuted
// with the enumeration sweep's smallest counterexample, and the map as written holds,
// on the declared box, integers only (where the cases apply).
TEST(SwizzleProveSpecTest, FactorCasesKeepAWrongProductRefuted) {
  SwizzleSpec good = LoadCorpus("ck_m00_n0_m01_adapt");
  const std::string text = R"(
param m0 in 1..12;
param n0 in 1..12;
param m01 in 1..8;
domain = m0 * n0;
grid row = m0;
grid col = n0;
let idx_N0 = iter % n0;
let idx_M0 = iter // n0;
let m01_adapt = select(idx_M0 < m0 - m0 % m01, m01, m0 % m01);
let idx_M00 = idx_M0 // m01;
let idx_M01 = idx_M0 % m01;
let local = idx_N0 + idx_M01 * (n0 - 1);
out row = local % m01_adapt + idx_M00 * m01;
out col = local // m01_adapt;
)";
  SwizzleSpec bad = ParseOrDie("ck_bad.swz", text);
  for (const SwizzleSpec* spec : {&good, &bad}) {
    ASSERT_OK_AND_ASSIGN(SwizzleProof p,
                         ProveSpec(*spec, {}, Only(SwizzleProveOptions::Encoding::kInteger)));
    ExpectAgreesWithSweep(*spec, p);
  }
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult bad_sweep, sim::swizzle::Sweep(bad));
  EXPECT_EQ(bad_sweep.verdict, Verdict::kViolated);
}

// Residues (SwizzleProveOptions::digit_residues): Triton's persistent grouped order
// reads `tile_id % group_size` beside `tile_id // (G * num_pid_n)` and
// `tile_id % (G * num_pid_n)`, so without residues the iteration has no digits and the
// two-copy injective query is nonlinear (measured at G = 8 over num_pid_m, num_pid_n <=
// 192: 2e7 of Z3's rlimit ran out, 31 s). As digits with the residue
// (g*(S % gs) + j) % gs every query is linear: about 2.6e4 for injectivity.
TEST(SwizzleProveSpecTest, DigitResiduesDecideTritonsPersistentGroupedOrder) {
  SwizzleSpec spec = LoadCorpus("triton_grouped_persistent");
  SpecSweep box;
  box.ranges = {{"num_pid_m", {1, 192}}, {"num_pid_n", {1, 192}}, {"group_size_m", {8, 8}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.solver.rlimit = 2'000'000;
  o.total_rlimit = 4'000'000;  // without residues: a split or two, then the rest is open
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, box, o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  EXPECT_EQ(UnknownQueries(with), 0) << with.ToString();
  o.digit_residues = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, box, o));
  EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
  EXPECT_GT(UnknownQueries(without), 0) << without.ToString();
}

// The placement chain (SwizzleProveOptions::placement_chain; verify/README.md, "Ninth
// pass"): Triton's persistent loop reads the iteration only through `tile_id = start_pid
// + step * num_sms`, skips `tile_id >= num_tiles`, and places tile_id by the grouped
// order. With the chain, tile_id is injective and >= 0 where the loop yields tiles, and
// the placement is proved on [0, num_tiles) with tile_id as digits: every query linear.
// Without it, the placement's `tile_id // (G * num_pid_n)` keeps its nonlinear quotient
// in the one- and two-copy queries, which run out of this budget.
TEST(SwizzleProveSpecTest, PlacementChainDecidesTritonsPersistentLoop) {
  SwizzleSpec spec = LoadCorpus("persistent_num_sms");
  SpecSweep box;
  box.ranges = {{"num_pid_m", {1, 96}},
                {"num_pid_n", {1, 96}},
                {"group_size_m", {2, 2}},
                {"num_sms", {2, 2}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.solver.rlimit = 2'000'000;
  o.total_rlimit = 4'000'000;
  o.max_enumerated_points = 10;  // the solver's box (it would be swept first)
  // num_pid_m and num_pid_n stay symbolic, as in the 16x box (48 configurations of
  // group_size_m x num_sms there, too many to cube a 96-valued divisor parameter).
  o.cube_divisors_up_to = 0;
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, box, o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  EXPECT_EQ(with.checked, CheckedBy::kSymbolic);
  EXPECT_EQ(UnknownQueries(with), 0) << with.ToString();
  EXPECT_THAT(with.ToString(), HasSubstr("(symbolic, 1 configuration"));
  bool chained = false;
  for (const QueryRecord& q : with.queries) {
    chained |= absl::StrContains(q.name, "placement.injective");
  }
  EXPECT_TRUE(chained);
  o.placement_chain = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, box, o));
  EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
  EXPECT_GT(UnknownQueries(without), 0) << without.ToString();
}

// The chain proves nothing it should not: a wrong placement (the full GROUP_SIZE_M for
// the partial last group) and a wrong stride (two programs reach one tile, so tile_id is
// not injective) are refuted with the sweep's smallest counterexample, and the corpus map
// holds as the sweep says. The solver route is forced (max_enumerated_points), integers
// only, so every query of the chain runs; a sat one hands over to the direct query.
TEST(SwizzleProveSpecTest, PlacementChainKeepsWrongPersistentLoopsRefuted) {
  constexpr char kHead[] = R"(
param num_pid_m in 1..5;
param num_pid_n in 1..5;
param group_size_m in 1..3;
param num_sms in 1..6;
let num_tiles = num_pid_m * num_pid_n;
let programs = min(num_sms, num_tiles);
let steps = cdiv(num_tiles, num_sms);
domain = programs * steps;
grid row = num_pid_m;
grid col = num_pid_n;
let start_pid = iter % programs;
let step = iter // programs;
)";
  const std::string placement = R"(
skip tile_id >= num_tiles;
let num_pid_in_group = group_size_m * num_pid_n;
let group_id = tile_id // num_pid_in_group;
let first_pid_m = group_id * group_size_m;
let group_size = min(num_pid_m - first_pid_m, group_size_m);
)";
  // The corpus map (persistent_num_sms.swz) on a smaller box.
  SwizzleSpec good = ParseOrDie(
      "pns_good.swz",
      absl::StrCat(kHead, "let tile_id = start_pid + step * num_sms;", placement,
                   "out row = first_pid_m + tile_id % group_size;\n"
                   "out col = tile_id % num_pid_in_group // group_size;\n"));
  SwizzleSpec bad_group = ParseOrDie(
      "pns_bad_group.swz",
      absl::StrCat(kHead, "let tile_id = start_pid + step * num_sms;", placement,
                   "out row = first_pid_m + tile_id % group_size_m;\n"
                   "out col = tile_id % num_pid_in_group // group_size;\n"));
  SwizzleSpec bad_stride = ParseOrDie(
      "pns_bad_stride.swz",
      absl::StrCat(kHead, "let tile_id = start_pid + step * max(num_sms - 1, 1);",
                   placement,
                   "out row = first_pid_m + tile_id % group_size;\n"
                   "out col = tile_id % num_pid_in_group // group_size;\n"));
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.max_enumerated_points = 10;
  for (const SwizzleSpec* spec : {&good, &bad_group, &bad_stride}) {
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(*spec, {}, o));
    ExpectAgreesWithSweep(*spec, p);
    EXPECT_EQ(p.checked, CheckedBy::kSymbolic) << p.ToString();
  }
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult group_sweep,
                       sim::swizzle::Sweep(bad_group));
  EXPECT_EQ(group_sweep.verdict, Verdict::kViolated);
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult stride_sweep,
                       sim::swizzle::Sweep(bad_stride));
  EXPECT_EQ(stride_sweep.verdict, Verdict::kViolated);
}

// The contiguity chain (SwizzleProveOptions::contiguity_chain; verify/README.md,
// "Eleventh pass"): Stream-K's CTAs keep the slots `j < length(cta)` and number them
// `global = start(cta) + j`, the rest of the map reading the iteration only through
// global. At 16x its enumerated reach (m_tiles, n_tiles, iters_per_tile <= 64, ctas
// 1..8: the benchmark's BM_CorpusScaled box) the chain proves it with ctas enumerated
// and the three tile counts symbolic; before it, the route by counting ran past 60 s
// (verify/README.md, "Ninth pass"), and with the chain off it ends inconclusive within
// this test's budget. The low corner's sweep is skipped (max_enumerated_points), so
// the chain alone decides.
SpecSweep StreamK16x() {
  SpecSweep box;
  box.ranges = {{"m_tiles", {1, 64}},
                {"n_tiles", {1, 64}},
                {"iters_per_tile", {1, 64}},
                {"ctas", {1, 8}}};
  return box;
}

TEST(SwizzleProveSpecTest, ContiguityChainDecidesStreamKAt16x) {
  SwizzleSpec spec = LoadCorpus("stream_k");
  SwizzleProveOptions o;
  o.total_rlimit = 10'000'000;  // the benchmark's
  o.max_enumerated_points = 10;
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, StreamK16x(), o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  EXPECT_EQ(with.checked, CheckedBy::kSymbolic);
  EXPECT_TRUE(with.coverage.empty());
  EXPECT_EQ(UnknownQueries(with), 0) << with.ToString();
  EXPECT_THAT(with.notes, Contains(HasSubstr("proved through the contiguity chain")));
  // Every link ran, in each of the 8 configurations of ctas.
  for (const char* link :
       {"shape", "no_error", "length", "shift", "first", "next", "last"}) {
    EXPECT_EQ(absl::c_count_if(with.queries,
                               [&](const QueryRecord& q) {
                                 return absl::EndsWith(
                                     q.name, absl::StrCat(".contiguity.", link));
                               }),
              8)
        << link;
  }
  o.contiguity_chain = false;
  o.total_rlimit = 1'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, StreamK16x(), o));
  EXPECT_EQ(without.verdict, Verdict::kInconclusive) << without.ToString();
}

// The chain proves nothing it should not. Three wrong Stream-K splits, each breaking
// one link: a start one short (`min(cta, extra - 1)`: first), one CTA too many taking
// the extra iteration (`cta <= extra`: last), and every CTA starting a full `slots`
// apart (next, at ctas = 2; ctas = 1 is right). On the declared box with the solver's
// route forced, each is refuted with the enumeration sweep's smallest counterexample
// after its chain ended at that link (never a verdict from the chain); the corpus map
// holds through the chain, as the sweep says. At 16x, where the low corner's sweep is
// skipped too, none holds either.
TEST(SwizzleProveSpecTest, ContiguityChainKeepsWrongStreamKSplitsRefuted) {
  const std::string source = CorpusSource("stream_k");
  const std::string start = "let start = cta * base + min(cta, extra);";
  const std::string length = "let length = base + select(cta < extra, 1, 0);";
  ASSERT_THAT(source, HasSubstr(start));
  ASSERT_THAT(source, HasSubstr(length));
  struct Wrong {
    const char* name;
    std::string from, to;
    const char* link;
  };
  const std::vector<Wrong> wrong = {
      {"sk_start_short.swz", start, "let start = cta * base + min(cta, extra - 1);",
       "first"},
      {"sk_length_long.swz", length, "let length = base + select(cta <= extra, 1, 0);",
       "last"},
      {"sk_start_slots.swz", start, "let start = cta * slots;", "next"},
  };
  SwizzleProveOptions o;
  o.max_enumerated_points = 10;
  SwizzleSpec good = LoadCorpus("stream_k");
  ASSERT_OK_AND_ASSIGN(SwizzleProof holds, ProveSpec(good, {}, o));
  ExpectAgreesWithSweep(good, holds);
  EXPECT_THAT(holds.notes, Contains(HasSubstr("proved through the contiguity chain")));
  // Symbolic parameters the placement spec does not have (ctas) are not passed on to it
  // (a first version did, and the proof failed with "the spec has no parameter").
  SwizzleProveOptions named = o;
  named.symbolic_params = {"ctas", "m_tiles"};
  ASSERT_OK_AND_ASSIGN(SwizzleProof by_name, ProveSpec(good, {}, named));
  EXPECT_EQ(by_name.verdict, Verdict::kHolds) << by_name.ToString();
  EXPECT_THAT(by_name.notes, Contains(HasSubstr("proved through the contiguity chain")));
  for (const Wrong& w : wrong) {
    SCOPED_TRACE(w.name);
    SwizzleSpec spec = ParseOrDie(w.name, absl::StrReplaceAll(source, {{w.from, w.to}}));
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
    ExpectAgreesWithSweep(spec, p);
    EXPECT_EQ(p.verdict, Verdict::kViolated);
    EXPECT_THAT(p.notes,
                Contains(AllOf(HasSubstr("contiguity chain through `global` ended"),
                               HasSubstr(absl::StrCat(".contiguity.", w.link, ": sat")))))
        << p.ToString();
    SwizzleProveOptions wide = o;
    wide.total_rlimit = 1'000'000;
    ASSERT_OK_AND_ASSIGN(SwizzleProof at16, ProveSpec(spec, StreamK16x(), wide));
    EXPECT_NE(at16.verdict, Verdict::kHolds) << at16.ToString();
    EXPECT_THAT(at16.notes,
                Contains(HasSubstr("contiguity chain through `global` ended")));
  }
}

// The chain reads the shape, not Stream-K: a blocked split (CTA c takes the units
// [c * chunk, (c + 1) * chunk), chunk = cdiv(total, ctas)) has other names, a length
// that goes negative for the CTAs past the work, and no k-iteration coordinate. It holds
// through the chain at m, n <= 256 in well under a second (the direct route, which ran
// there when a first version of the links ended the chain, took 85.6 s CPU: measured),
// and on the declared box as the sweep says; one slot too many in every CTA is refuted
// with the sweep's smallest counterexample.
// A blocked split over the units of an m x n box: `params` (m, n, ctas and what
// `placement` reads), CTA c keeping its slots j < `length` and numbering them `unit`,
// which `placement` maps to (row, col).
SwizzleSpec BlockedSplit(const std::string& name, const std::string& params,
                         const std::string& length, const std::string& placement) {
  return ParseOrDie(name, absl::StrCat(params, R"(
let total = m * n;
let chunk = cdiv(total, ctas);
domain = ctas * chunk;
grid row = m;
grid col = n;
let c = iter // chunk;
let j = iter % chunk;
let length = )",
                                       length, R"(;
skip j >= length;
let unit = c * chunk + j;
)",
                                       placement));
}

TEST(SwizzleProveSpecTest, ContiguityChainDecidesABlockedSplit) {
  auto blocked = [](const std::string& name, const std::string& length) {
    return BlockedSplit(name, "param m in 1..4;\nparam n in 1..4;\nparam ctas in 1..6;",
                        length, "out row = unit // n;\nout col = unit % n;\n");
  };
  const SwizzleSpec good = blocked("blocked.swz", "min(chunk, total - c * chunk)");
  const SwizzleSpec bad =
      blocked("blocked_long.swz", "min(chunk, total - c * chunk + 1)");
  SwizzleProveOptions o;
  o.max_enumerated_points = 10;
  SpecSweep wide;
  wide.ranges = {{"m", {1, 256}}, {"n", {1, 256}}, {"ctas", {1, 8}}};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(good, wide, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_THAT(p.notes, Contains(HasSubstr("`unit` numbers the kept iterations")));
  for (const SwizzleSpec* spec : {&good, &bad}) {
    ASSERT_OK_AND_ASSIGN(SwizzleProof d, ProveSpec(*spec, {}, o));
    ExpectAgreesWithSweep(*spec, d);
  }
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult bad_sweep, sim::swizzle::Sweep(bad));
  EXPECT_EQ(bad_sweep.verdict, Verdict::kViolated);
}

// The placement link's sub-proof is charged to the whole proof's total budget. A blocked
// split (as above) placing its units in Triton's grouped order at G = 8, whose injective
// query runs past 2e7 of Z3's rlimit with residues off (TotalBudgetCapsEveryQuery),
// passes the chain's links and runs out of budget in its placement; the direct route
// then gets what the placement left, not that much again. Before the charge the whole
// proof spent about twice total_rlimit (measured: 1.98e6 of 1e6; the links take 2.4e4,
// the placement the rest); now 1.0e6. The count is kept without the query log too, and
// is the same.
TEST(SwizzleProveSpecTest, ContiguityChainChargesItsPlacementToTheTotalBudget) {
  // The corpus's grouped order, read from `unit` on the m x n box.
  const std::string corpus = CorpusSource("triton_grouped_persistent");
  const std::string from = "let tile_id = iter;";
  ASSERT_THAT(corpus, HasSubstr(from));
  const std::string grouped =
      absl::StrReplaceAll(corpus.substr(corpus.find(from) + from.size()),
                          {{"num_pid_m", "m"}, {"num_pid_n", "n"}, {"tile_id", "unit"}});
  const SwizzleSpec spec = BlockedSplit("blocked_grouped.swz", R"(
param m in 1..192;
param n in 2..192;
param group_size_m in 8..8;
param ctas in 1..4;
)",
                                        "min(chunk, total - c * chunk)", grouped);
  SwizzleProveOptions o;
  o.encodings = {SwizzleProveOptions::Encoding::kInteger};
  o.digit_residues = false;
  o.max_enumerated_points = 10;
  o.total_rlimit = 1'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.ToString();
  EXPECT_THAT(p.notes, Contains(HasSubstr(
                           "contiguity chain through `unit` ended (the placement spec is "
                           "inconclusive")));
  ExpectChargedWithinTheTotalBudget(spec, {}, o, p, {"(placement of unit)"});
}

// The residue is exact: with the full GROUP_SIZE_M in place of the last group's size
// (`tile_id % group_size_m`) the partial last group leaves the grid, and the proof gives
// the enumeration sweep's smallest counterexample; the map as written holds, as the sweep
// says (declared box, integers only, where the residue route applies).
TEST(SwizzleProveSpecTest, DigitResiduesKeepAWrongGroupRefuted) {
  SwizzleSpec good = LoadCorpus("triton_grouped_persistent");
  SwizzleSpec bad = ParseOrDie("tgp_bad.swz", R"(
param num_pid_m in 1..12;
param num_pid_n in 1..12;
param group_size_m in 1..8;
domain = num_pid_m * num_pid_n;
grid row = num_pid_m;
grid col = num_pid_n;
let tile_id = iter;
let num_pid_in_group = group_size_m * num_pid_n;
let group_id = tile_id // num_pid_in_group;
let first_pid_m = group_id * group_size_m;
let group_size = min(num_pid_m - first_pid_m, group_size_m);
out row = first_pid_m + tile_id % group_size_m;
out col = tile_id % num_pid_in_group // group_size;
)");
  for (const SwizzleSpec* spec : {&good, &bad}) {
    ASSERT_OK_AND_ASSIGN(SwizzleProof p,
                         ProveSpec(*spec, {}, Only(SwizzleProveOptions::Encoding::kInteger)));
    ExpectAgreesWithSweep(*spec, p);
  }
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult bad_sweep, sim::swizzle::Sweep(bad));
  EXPECT_EQ(bad_sweep.verdict, Verdict::kViolated);
}

// Group cases (SwizzleProveOptions::digit_group_cases): the same order written with the
// residue by hand, `(group_id * (S % group_size) + tile_id % S) % group_size`, has digits
// without the residue route; at G = 8 its one injective query ran past 5e6 of Z3's rlimit
// (measured), while "different groups" and "same group" as two queries need about 4e4
// (run once the one query has run out).
TEST(SwizzleProveSpecTest, DigitGroupCasesSplitTheInjectiveQuery) {
  SwizzleSpec spec = ParseOrDie("tgp_residue.swz", R"(
param num_pid_m in 1..192;
param num_pid_n in 1..192;
param group_size_m in 8..8;
domain = num_pid_m * num_pid_n;
grid row = num_pid_m;
grid col = num_pid_n;
let tile_id = iter;
let num_pid_in_group = group_size_m * num_pid_n;
let group_id = tile_id // num_pid_in_group;
let first_pid_m = group_id * group_size_m;
let group_size = min(num_pid_m - first_pid_m, group_size_m);
out row = first_pid_m + (group_id * (num_pid_in_group % group_size) + tile_id % num_pid_in_group) % group_size;
out col = tile_id % num_pid_in_group // group_size;
)");
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.solver.rlimit = 2'000'000;
  o.total_rlimit = 4'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, {}, o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  int64_t split = 0;
  for (const QueryRecord& q : with.queries) split += q.name.find("injective_in_group") != std::string::npos;
  EXPECT_GT(split, 0) << with.ToString();
  o.digit_group_cases = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, {}, o));
  EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
  EXPECT_GT(UnknownQueries(without), 0) << without.ToString();
}

// The total budget bounds every query, not only the start of a configuration: with
// residues off, triton_grouped_persistent's injective query at G = 8 runs past 2e7 of
// Z3's rlimit (31 s, measured); under total_rlimit = 1e6 the whole proof spends about
// 1e6 (Z3 checks its limit in steps, hence the slack) and reports the box open.
TEST(SwizzleProveSpecTest, TotalBudgetCapsEveryQuery) {
  SwizzleSpec spec = LoadCorpus("triton_grouped_persistent");
  SpecSweep box;
  box.ranges = {{"num_pid_m", {1, 192}}, {"num_pid_n", {2, 192}}, {"group_size_m", {8, 8}}};
  SwizzleProveOptions o;
  o.encodings = {SwizzleProveOptions::Encoding::kInteger};
  o.digit_residues = false;
  o.total_rlimit = 1'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.ToString();
  EXPECT_THAT(p.reason, HasSubstr("total_rlimit")) << p.reason;
  EXPECT_LE(LoggedSpending(p), 1'100'000u) << p.ToString();
}

// Table lemmas (SwizzleProveOptions::table_lemma_values): dist_d0's rank interleave
// pi(k) = (k*stride) % N + (k*stride) // N, N = 6 and stride = 3, is evaluated over k and
// its injectivity on [0, 6) given to the injective query. As integers, that query needs
// about 3.2e5 of Z3's rlimit with the lemma and 1.4e7 without it (measured), so under a
// deterministic rlimit of 1.5e6 per query the lemma is what decides it.
TEST(SwizzleProveSpecTest, TableLemmaDecidesThePermutationQuery) {
  SwizzleSpec spec = LoadCorpus("dist_d0");
  SpecSweep box;
  box.ranges = {{"rank_size", {6, 6}}, {"comm_npu_split", {2, 2}}, {"comm_data_split", {4, 4}}};
  SwizzleProveOptions o = Only(SwizzleProveOptions::Encoding::kInteger);
  o.solver.rlimit = 1'500'000;
  o.total_rlimit = 6'000'000;  // without the lemma: a few splits, then the rest is open
  // The output chain with a coordinate read (rank = (pi + d) % N beside row = d) proves
  // the map without the table's two-copy query (OutputChainReadsTheTileCoordinate...):
  // off, so that the query this test is about runs.
  o.output_chain_coordinates = false;
  ExpectDecidedOnlyWith(spec, box, o, &SwizzleProveOptions::table_lemma_values);
}

// The lemma is a fact about the table, never a claim that it is a permutation: with
// pi(k) = (2*k) % N + (2*k) // N (a permutation of [0, N) for N = 1, 2, 4: 0, 2, 1, 3 at
// N = 4) the map holds, and the proof agrees; (2*k) % N is not one (0, 2, 0, 2), its window
// is shorter, and the map is refuted with the enumeration sweep's smallest counterexample,
// in both encodings; so is the first at N = 3 (0, 2, 2).
TEST(SwizzleProveSpecTest, TableLemmaKeepsANonPermutationRefuted) {
  const std::string text = R"(
param D in 1..6;
param N in 1..4;
param q in 1..2;
REQ
domain = N * D;
grid d = D;
grid rank = N;
let G = cdiv(D, q);
let g = iter // (q * N);
let j = iter % (q * N);
let t = select(g < G - 1, q, D - q * g);
let k = j // t;
let pi = PI;
out d = g * q + j % t;
out rank = (pi + d) % N;
)";
  struct Case {
    const char* pi;
    const char* require;
    Verdict verdict;
  };
  for (const Case& c : {Case{"(k * 2) % N + (k * 2) // N", "require N != 3;", Verdict::kHolds},
                        Case{"(k * 2) % N + (k * 2) // N", "", Verdict::kViolated},
                        Case{"(k * 2) % N", "", Verdict::kViolated}}) {
    const std::string pi = c.pi;
    SwizzleSpec spec = ParseOrDie(
        "interleave.swz", absl::StrReplaceAll(text, {{"PI", c.pi}, {"REQ", c.require}}));
    ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult sweep, sim::swizzle::Sweep(spec));
    ASSERT_EQ(sweep.verdict, c.verdict) << pi;
    for (SwizzleProveOptions::Encoding e :
         {SwizzleProveOptions::Encoding::kInteger, SwizzleProveOptions::Encoding::kBitVector}) {
      SCOPED_TRACE(pi);
      ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, Only(e)));
      ExpectAgreesWithSweep(spec, p);
    }
  }
}

// A box whose configurations have a permutation table keeps them (the lemma needs the
// enumerated parameters constant) instead of one all-symbolic bit-vector configuration,
// and says so; with table lemmas off, the small box is one bit-vector configuration.
TEST(SwizzleProveSpecTest, PermutationTableKeepsTheConfigurations) {
  SwizzleSpec spec = LoadCorpus("dist_d0");
  SpecSweep box;
  box.ranges = {{"rows", {1, 3}}, {"cols", {1, 3}}, {"rank_size", {4, 4}}};
  SwizzleProveOptions o;
  o.output_chain_coordinates = false;  // see TableLemmaDecidesThePermutationQuery
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, box, o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  auto has = [](const SwizzleProof& p, const std::string& what) {
    return absl::c_any_of(p.notes, [&](const std::string& n) {
      return n.find(what) != std::string::npos;
    });
  };
  EXPECT_TRUE(has(with, "a permutation table")) << absl::StrJoin(with.notes, "\n");
  EXPECT_FALSE(has(with, "every parameter symbolic")) << absl::StrJoin(with.notes, "\n");
  o.table_lemma_values = 0;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, box, o));
  EXPECT_EQ(without.verdict, Verdict::kHolds) << without.ToString();
  EXPECT_TRUE(has(without, "every parameter symbolic")) << absl::StrJoin(without.notes, "\n");
}

}  // namespace
}  // namespace warpcheck::verify
